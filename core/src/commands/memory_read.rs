//! `memory_read`: the index and the list of memory files, or the notes on
//! the topics asked for, in full; long answers a page at a time.


use super::Page;
use crate::io::Io;
use crate::error::{Result, ToolError};
use crate::storage::Kind;
use crate::files;
use crate::notes::catalog::{Catalog, Entry};
use crate::notes::{maintain, topics};
use crate::vpath::MemPath;

/// Paths listed per page without topics.
pub const PATHS_PER_PAGE: usize = 500;
/// Notes returned in full per page with topics...
pub const NOTES_PER_PAGE: usize = 50;
/// ...and their bytes together: a note larger than this fills a page alone,
/// cut at this size with a line saying how to read the rest.
pub const NOTE_BYTES_PER_PAGE: u64 = 100_000;

pub fn memory_read(io: &Io, topics: &[String], page: Option<u32>) -> Result<String> {
    maintain::fresh_all(io, |catalog, index| {
        if topics.is_empty() {
            Ok(list(catalog, index, page))
        } else {
            read_topics(io, catalog, topics, page)
        }
    })
}

/// The index (on the first page) and every memory file, by path.
fn list(catalog: &Catalog, index: &str, page: Option<u32>) -> String {
    let with_index = !index.is_empty();
    let mut paths: Vec<&str> = catalog.entries().map(|e| e.path.as_str()).collect();
    paths.sort_unstable();
    let total = paths.len() + usize::from(with_index);
    let page = Page::new(page, total, PATHS_PER_PAGE);
    let mut out = match (page.first(), with_index) {
        (0, true) => format!("{index}\n"),
        (0, false) => {
            "No notes yet: the memory is empty. Save what you learn with memory_write.\n".to_owned()
        }
        _ => String::new(),
    };
    out.push_str(&format!("Memory files ({total}):\n"));
    let index_line = with_index.then_some("MEMORY.md");
    for path in index_line
        .into_iter()
        .chain(paths)
        .skip(page.first())
        .take(PATHS_PER_PAGE)
    {
        out.push_str("/memories/");
        out.push_str(path);
        out.push('\n');
    }
    out.push_str(&page.footer("memory_read without topics", "files"));
    out
}

/// The notes matching `topics`, in full, split into pages of at most
/// [`NOTES_PER_PAGE`] notes and [`NOTE_BYTES_PER_PAGE`] bytes.
fn read_topics(
    io: &Io,
    catalog: &Catalog,
    topics: &[String],
    page: Option<u32>,
) -> Result<String> {
    let (found, unknown) = topics::resolve(|| catalog.entries(), topics);
    let pages = paginate(&found);
    let asked = page.map_or(1, |n| (n as usize).max(1));
    let mut out = String::new();
    if let Some(notes) = pages.get(asked - 1) {
        for entry in notes {
            push_note(io, entry, &mut out);
        }
    } else if asked > 1 {
        out.push_str(&format!(
            "There are only {} pages of notes on these topics; page=1 shows the first.\n",
            pages.len().max(1)
        ));
    }
    if asked < pages.len() {
        let rest: usize = pages[asked..].iter().map(Vec::len).sum();
        out.push_str(&format!(
            "{rest} more notes match, on pages {} to {}: memory_read with the same topics and \
             page={} returns the next.\n",
            asked + 1,
            pages.len(),
            asked + 1
        ));
    }
    if !unknown.is_empty() {
        let quoted: Vec<String> = unknown.iter().map(|t| format!("{t:?}")).collect();
        out.push_str(&format!(
            "No note matches {}. A topic is a note's name, file name, path, tag or directory, \
             or a type (user, feedback, project, reference, other); memory_read without topics \
             lists them all.\n",
            quoted.join(", ")
        ));
    }
    Ok(out)
}

/// Splits notes into pages by count and by their sizes as last seen.
fn paginate<'a>(notes: &[&'a Entry]) -> Vec<Vec<&'a Entry>> {
    let mut pages: Vec<Vec<&Entry>> = Vec::new();
    let mut bytes = 0;
    for entry in notes {
        let size = entry.stamp.size.min(NOTE_BYTES_PER_PAGE);
        match pages.last_mut() {
            Some(page) if page.len() < NOTES_PER_PAGE && bytes + size <= NOTE_BYTES_PER_PAGE => {
                page.push(entry);
                bytes += size;
            }
            _ => {
                pages.push(vec![entry]);
                bytes = size;
            }
        }
    }
    pages
}

/// One note under its heading line, cut at [`NOTE_BYTES_PER_PAGE`].
fn push_note(io: &Io, entry: &Entry, out: &mut String) {
    let shown = format!("/memories/{}", entry.path);
    out.push_str(&format!(
        "=== {shown} ({}: {}) ===\n",
        entry.meta.kind.as_str(),
        entry.meta.name
    ));
    let text = MemPath::parse(&shown).and_then(|path| match files::lstat(io, &path) {
        Ok(st) if st.kind == Kind::File => files::read_text(io, &path, &shown),
        _ => Err(ToolError::missing(&shown)),
    });
    match text {
        Ok(text) => {
            let limit = NOTE_BYTES_PER_PAGE as usize;
            if text.len() > limit {
                // Cut after the last whole line that fits.
                let cut = text[..text.floor_char_boundary(limit)]
                    .rfind('\n')
                    .map_or(text.floor_char_boundary(limit), |i| i + 1);
                let lines = text[..cut].matches('\n').count();
                out.push_str(&text[..cut]);
                out.push_str(&format!(
                    "[… cut after line {lines}: the note is {} bytes; view {shown} with \
                     view_range [{}, -1] to read the rest]\n",
                    text.len(),
                    lines + 1
                ));
            } else {
                out.push_str(&text);
                if !text.ends_with('\n') {
                    out.push('\n');
                }
            }
        }
        Err(e) => out.push_str(&format!("(not shown: {e})\n")),
    }
    out.push('\n');
}
