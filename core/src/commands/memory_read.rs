//! `memory_read`: the index and the list of memory files, or the notes on
//! the topics asked for, in full; long answers a page at a time.

use crate::commands::standing::Standing;
use crate::error::{Result, ToolError};
use crate::files;
use crate::graph::superseded::Superseded;
use crate::indexes;
use crate::io::Io;
use crate::notes::catalog::{Catalog, Entry};
use crate::notes::maintain::{self, Needs};
use crate::notes::topics;
use crate::output::{Cut, NoteText, Output, Page};
use crate::storage::Kind;
use crate::vpath::MemPath;

/// Paths listed per page without topics.
pub const PATHS_PER_PAGE: usize = 500;
/// Notes returned in full per page with topics...
pub const NOTES_PER_PAGE: usize = 50;
/// ...and their bytes together: a note larger than this fills a page alone,
/// cut at this size with a line saying how to read the rest.
pub const NOTE_BYTES_PER_PAGE: u64 = 100_000;

pub fn memory_read(io: &Io, topics: &[String], page: Option<u32>) -> Result<Output> {
    // Notes in full say whether they still hold, which the graph knows.
    let needs = match topics.is_empty() {
        true => Needs::All,
        false => Needs::AllReady,
    };
    maintain::fresh_with(io, needs, |catalog, index| {
        if topics.is_empty() {
            Ok(list(catalog, index, page))
        } else {
            read_topics(io, catalog, topics, page)
        }
    })
}

/// The index (on the first page) and every memory file, by path.
fn list(catalog: &Catalog, index: &str, page: Option<u32>) -> Output {
    let with_index = !index.is_empty();
    let mut paths: Vec<&str> = catalog.entries().map(|e| e.path.as_str()).collect();
    paths.sort_unstable();
    let total = paths.len() + usize::from(with_index);
    let page = Page::new(page, total, PATHS_PER_PAGE);
    let index_line = with_index.then_some("MEMORY.md");
    let paths = index_line
        .into_iter()
        .chain(paths)
        .skip(page.first())
        .take(PATHS_PER_PAGE)
        .map(|path| format!("/memories/{path}"))
        .collect();
    Output::MemoryFiles {
        index: (with_index && page.first() == 0).then(|| index.to_owned()),
        total,
        paths,
        page,
    }
}

/// The notes matching `topics`, in full, split into pages of at most
/// [`NOTES_PER_PAGE`] notes and [`NOTE_BYTES_PER_PAGE`] bytes.
fn read_topics(io: &Io, catalog: &Catalog, topics: &[String], page: Option<u32>) -> Result<Output> {
    let (found, unknown) = topics::resolve(|| catalog.entries(), topics);
    let pages = paginate(&found);
    let asked = page.map_or(1, |n| (n as usize).max(1));
    let superseded = Superseded::new(indexes::graph(catalog));
    let notes = pages
        .get(asked - 1)
        .map(|notes| {
            notes
                .iter()
                .map(|entry| note_text(io, &superseded, entry))
                .collect::<Result<_>>()
        })
        .transpose()?
        .unwrap_or_default();
    Ok(Output::TopicNotes {
        notes,
        page: asked,
        pages: pages.len(),
        more: pages.iter().skip(asked).map(Vec::len).sum(),
        unknown: unknown.iter().map(|t| t.to_string()).collect(),
    })
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

/// One note's text, cut at [`NOTE_BYTES_PER_PAGE`] after its last whole
/// line, and whether it still holds.
fn note_text(io: &Io, superseded: &Superseded, entry: &Entry) -> Result<NoteText> {
    let shown = format!("/memories/{}", entry.path);
    let text = MemPath::parse(&shown).and_then(|path| match files::lstat(io, &path) {
        Ok(st) if st.kind == Kind::File => files::read_text(io, &path, &shown),
        _ => Err(ToolError::missing(&shown)),
    });
    let limit = NOTE_BYTES_PER_PAGE as usize;
    let (text, cut) = match text {
        Ok(text) if text.len() > limit => {
            let cut = text[..text.floor_char_boundary(limit)]
                .rfind('\n')
                .map_or(text.floor_char_boundary(limit), |i| i + 1);
            let lines = text[..cut].matches('\n').count();
            let size = text.len();
            let mut text = text;
            text.truncate(cut);
            (
                Ok(text),
                Some(Cut {
                    size,
                    next_line: lines + 1,
                }),
            )
        }
        other => (other, None),
    };
    let standing = match &text {
        Ok(text) => Standing::of(superseded, &entry.path, text, io.now_seconds())
            // A saved graph that does not decode (rebuilt at the next call).
            .map_err(|e| files::tool_error(e, "/memories", "read"))?,
        Err(_) => Standing::default(),
    };
    Ok(NoteText {
        path: shown,
        note_type: entry.meta.kind,
        name: entry.meta.name.clone(),
        text: text.into(),
        cut,
        superseded_by: standing.by,
        expired: standing.expired,
    })
}
