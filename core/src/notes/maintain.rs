//! Keeps `/memories/MEMORY.md` in step with the notes: after every change a
//! command makes, and before every answer that shows the index.

use super::catalog::{self, Catalog, KeptIndex};
use super::index::{self, PROMPT_BUDGET};
use super::journal::{IndexMark, Record};
use super::walk::RACY_SECONDS;
use super::{INDEX_FILE, frontmatter, is_note_path};
use crate::error::{ErrorKind, FsError, Result, ToolError};
use crate::files;
use crate::graph::index::GraphIndex;
use crate::io::Io;
use crate::layout::{EXTRA, SHARED};
use crate::output::IndexUpkeep;
use crate::storage::{Kind, Stamp};
use crate::vpath::{MemPath, ROOT};

/// How often a rewrite of MEMORY.md is retried when an editor changed it
/// between memcap's read and write.
const ATTEMPTS: usize = 3;

pub fn index_path() -> MemPath {
    MemPath::parse(&format!("/memories/{INDEX_FILE}")).expect("the index path is valid")
}

/// Whether `path` is the index file itself.
pub fn is_index(path: &MemPath) -> bool {
    *path == index_path()
}

/// After a command changed what is at `paths`: updates the catalog for them
/// (and for nothing else, so the cost does not grow with the store) and
/// rewrites the index. The command has succeeded whatever happens here, so a
/// failure comes back as part of its output.
pub fn after_change(io: &Io, paths: &[&MemPath]) -> IndexUpkeep {
    after(io, paths, false)
}

/// As [`after_change`] for paths another program changed: notes there are
/// read again whatever their stamps say.
pub fn after_external_change(io: &Io, paths: &[&MemPath]) -> IndexUpkeep {
    after(io, paths, true)
}

fn after(io: &Io, paths: &[&MemPath], reread: bool) -> IndexUpkeep {
    let outcome = catalog::with(io, |io, catalog| {
        let keys: Vec<String> = paths.iter().map(|path| path.key()).collect();
        for key in &keys {
            if reread {
                catalog.reread(io, key)?;
            } else {
                catalog.update_file_only(io, key)?;
            }
        }
        catalog.follow_write(io)?;
        let written = write_index(io, catalog);
        // MEMORY.md is a file of the store like any other (the quota counts it).
        catalog.update_index_file(io)?;
        // Once everything is written, each directory changed is stamped
        // once, as it now is.
        let mut done = Vec::new();
        for key in keys.iter().map(String::as_str).chain([INDEX_FILE]) {
            catalog.stamp_parents(io, key, &mut done)?;
        }
        Ok(written)
    })
    .map_err(catalog_error)
    .and_then(|written| written);
    IndexUpkeep {
        index_problem: outcome.err(),
    }
}

/// Brings the catalog in line with every file (catching edits made behind
/// memcap's back, by an editor or another program), rewrites the index when
/// it changed, then runs `f` with the catalog and MEMORY.md's text. The
/// catalog may not have read every note: `f` lists the index
/// ([`Catalog::most_recent`]) and the totals only.
pub fn fresh<T>(io: &Io, f: impl FnMut(&Catalog, &str) -> Result<T>) -> Result<T> {
    fresh_with(io, Needs::Recent, f)
}

/// As [`fresh`], with every note read: for `f` that goes through them all.
pub fn fresh_all<T>(io: &Io, f: impl FnMut(&Catalog, &str) -> Result<T>) -> Result<T> {
    fresh_with(io, Needs::All, f)
}

/// What `f` needs of the catalog.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Needs {
    /// The most recent notes and the totals.
    Recent,
    /// As `Recent`, and the derived indexes ready to answer.
    Search,
    /// Every note.
    All,
    /// Every note, the derived indexes ready, and the graph decoded, so `f`
    /// can ask it anything ([`GraphIndex::graph`] then never fails); a saved
    /// graph that does not decode costs a rebuild from the files first.
    Graph,
}

/// [`fresh`] or [`fresh_all`], as `needs` says.
pub fn fresh_with<T>(
    io: &Io,
    needs: Needs,
    mut f: impl FnMut(&Catalog, &str) -> Result<T>,
) -> Result<T> {
    catalog::with(io, |io, catalog| {
        prepare(io, catalog, needs)?;
        // A MEMORY.md memcap cannot rewrite (a directory, binary, a link out
        // of the root) must not keep the agent from its notes.
        let written = write_index(io, catalog);
        catalog.update_index_file(io)?;
        catalog.stamp_parents(io, INDEX_FILE, &mut Vec::new())?;
        let text = written.unwrap_or_else(|e| {
            format!(
                "{}\n\nNote: {} could not be updated: {}\n",
                index::render(io, catalog, PROMPT_BUDGET),
                index_path().display(),
                e
            )
        });
        Ok(f(catalog, &text))
    })
    .map_err(catalog_error)?
}

/// As [`fresh_with`], for an answer that does not show the index (a
/// search, the graph's): the catalog is brought in line with the files and
/// MEMORY.md is left as it is. A change found here (another program's) is
/// on record in the catalog, and the next change or answer that shows the
/// index rewrites MEMORY.md first, so no reader sees it stale; the call
/// saves reading, rendering and comparing the index (0.8–1.9 ms of a
/// one-shot search at 10,000 notes, measured).
pub fn fresh_catalog<T>(
    io: &Io,
    needs: Needs,
    mut f: impl FnMut(&Catalog) -> Result<T>,
) -> Result<T> {
    catalog::with(io, |io, catalog| {
        prepare(io, catalog, needs)?;
        Ok(f(catalog))
    })
    .map_err(catalog_error)?
}

/// Brings the catalog in line with the files, and makes ready what `needs`
/// says.
fn prepare(io: &Io, catalog: &mut Catalog, needs: Needs) -> std::result::Result<(), FsError> {
    catalog.refresh(io)?;
    if matches!(needs, Needs::Search | Needs::Graph) {
        catalog.derived_ready(io)?;
    }
    if matches!(needs, Needs::All | Needs::Graph) {
        catalog.read_all()?;
    }
    if needs == Needs::Graph {
        GraphIndex::of(catalog).graph()?;
    }
    Ok(())
}

/// Files and bytes the store would hold with `path` at `new_size` bytes.
pub fn usage_after(io: &Io, path: &MemPath, new_text: &str) -> Result<(u64, u64)> {
    let relative = path.key();
    catalog::with(io, |_, catalog| {
        let old = catalog.size_of(&relative)?;
        let (files, bytes) = catalog.usage();
        let mut after = (
            files + u64::from(old.is_none()),
            bytes.saturating_sub(old.unwrap_or(0)) + new_text.len() as u64,
        );
        if is_note_path(&relative) && super::listed_in_index(io, &relative) {
            let has_index = catalog.size_of(INDEX_FILE)?.is_some();
            let old_line = catalog.note(&relative)?.map(|e| index::entry_line(e).len());
            let meta = frontmatter::read(new_text, path.file_name());
            let growth = index::growth_bound(&relative, &meta, !has_index);
            after.0 += u64::from(!has_index);
            after.1 += growth.saturating_sub(old_line.unwrap_or(0)) as u64;
        }
        Ok(after)
    })
    .map_err(catalog_error)
}

fn catalog_error(e: FsError) -> ToolError {
    match e {
        FsError::NotFound => ToolError::NoteVanished,
        e => files::tool_error(e, ROOT, "index the notes in"),
    }
}

/// Renders the index for `catalog` into MEMORY.md, keeping the agent's text
/// around the generated region. Returns MEMORY.md's text as it now is ("" when
/// there is neither a note nor a MEMORY.md: an empty store stays empty).
///
/// MEMORY.md as this instance last left it is kept with its stamp, so a
/// warm call does not read it again: the file's stamp is checked instead,
/// before the rewrite is renamed into place (or, with nothing to rewrite,
/// before the kept text is returned). A file changed behind memcap's back
/// fails that check and is read again.
fn write_index(io: &Io, catalog: &mut Catalog) -> Result<String> {
    let path = index_path();
    let shown = path.display();
    if let Some(text) = unchanged_index(io, catalog, &path, &shown) {
        return Ok(text);
    }
    rewrite_index(io, catalog, &path, &shown)
}

/// What MEMORY.md's region depends on besides the notes and the file's
/// own text: memcap's version and how the index is written
/// ([`index::RENDER_VERSION`]), and the mounts (which notes it lists), as
/// the stamps of their directories show them.
fn render_key(catalog: &Catalog) -> u64 {
    let mounts = [SHARED, EXTRA].map(|dir| catalog.dirs.get(dir).copied());
    let key = format!(
        "{} {} {mounts:?}",
        env!("CARGO_PKG_VERSION"),
        index::RENDER_VERSION
    );
    crate::graph::names::fnv1a(key.as_bytes())
}

/// MEMORY.md's text when the catalog's mark says a render would leave it as
/// it is (the file's stamp the marked one, no note changed since, the same
/// [`render_key`]): the file is read, not rendered and compared again.
fn unchanged_index(io: &Io, catalog: &mut Catalog, path: &MemPath, shown: &str) -> Option<String> {
    let mark = catalog.index_mark.as_ref()?;
    if catalog.incomplete() || mark.key != render_key(catalog) {
        return None;
    }
    let marked = |stamp: &Stamp| {
        stamp.size == mark.size
            && stamp.modified == Some(mark.modified)
            && stamp.hash == mark.identity
    };
    // A warm instance holds the bytes: one stamp shows they are the file's.
    if let Some(kept) = &catalog.index_file
        && marked(&kept.stamp)
        && files::stamp(io, path).ok() == Some(kept.stamp)
    {
        return String::from_utf8(kept.bytes.clone()).ok();
    }
    let (bytes, stamp) = files::read_bytes_for_edit(io, path, shown).ok()?;
    if !marked(&stamp) {
        return None;
    }
    let text = String::from_utf8(bytes).ok()?;
    catalog.index_file = Some(KeptIndex {
        bytes: text.clone().into_bytes(),
        stamp,
        parts: None,
    });
    Some(text)
}

/// Puts on record that MEMORY.md, at `stamp`, is what a render of the
/// catalog writes, unless it is so on record already. Not for a stamp of the
/// last seconds: an edit in the same clock tick could keep it (as for
/// notes, [`RACY_SECONDS`]), so such a file is rendered and compared again
/// until its stamp is old enough. Nor while the catalog is incomplete (the
/// region says it is still reading).
fn mark_index(io: &Io, catalog: &mut Catalog, stamp: Stamp) {
    let Some(modified) = stamp.modified else {
        return;
    };
    if catalog.incomplete() || modified.0.saturating_add(RACY_SECONDS) >= io.now_seconds() {
        return;
    }
    let mark = IndexMark {
        size: stamp.size,
        modified,
        identity: stamp.hash,
        key: render_key(catalog),
    };
    if catalog.index_mark.as_ref() != Some(&mark) {
        // Only saves work later: a mark not kept costs a render.
        let _ = catalog.record(Record::Index(mark));
    }
}

/// Renders the index and writes it into MEMORY.md where it differs.
fn rewrite_index(io: &Io, catalog: &mut Catalog, path: &MemPath, shown: &str) -> Result<String> {
    let mut last_error = None;
    // A kept copy that turns out stale does not use up an attempt.
    let attempts = ATTEMPTS + usize::from(catalog.index_file.is_some());
    for _ in 0..attempts {
        let kept = catalog.index_file.take();
        let from_kept = kept.is_some();
        let existing = match kept {
            Some(kept) => Some(kept),
            None => match files::stat(io, path) {
                Ok(st) if st.kind == Kind::File => {
                    let (bytes, stamp) = files::read_bytes_for_edit(io, path, shown)?;
                    Some(KeptIndex {
                        bytes,
                        stamp,
                        parts: None,
                    })
                }
                Ok(_) => {
                    return Err(ToolError::IndexIsNotAFile { path: shown.into() });
                }
                Err(FsError::NotFound) => None,
                Err(e) => return Err(files::tool_error(e, shown, "read")),
            },
        };
        if existing.is_none() && catalog.is_empty() {
            return Ok(String::new());
        }
        // Whatever another program left there (binary, control characters,
        // broken markers), the result is clean text with one fresh region.
        let parts = match &existing {
            Some(KeptIndex {
                parts: Some(parts), ..
            }) => parts,
            _ => &index::split(&index::clean(
                existing.as_ref().map_or(&[][..], |kept| &kept.bytes),
            )),
        };
        let around = format!("{}{}", parts.before, parts.after);
        let region = index::render(io, catalog, PROMPT_BUDGET.after(&around));
        let new = index::compose(parts, &region);
        let new_parts = index::recomposed(parts, &region);
        if let Some(kept) = existing.as_ref()
            && new.as_bytes() == kept.bytes.as_slice()
        {
            if from_kept && files::stamp(io, path).ok() != Some(kept.stamp) {
                continue;
            }
            catalog.index_file = existing.map(|kept| KeptIndex {
                parts: new_parts,
                ..kept
            });
            // As a render writes it. (A file this call writes is too young
            // to mark: a later call's render finds it so.)
            if let Some(kept) = &catalog.index_file {
                mark_index(io, catalog, kept.stamp);
            }
            return Ok(new);
        }
        let written = match &existing {
            Some(kept) => {
                let agent_text = !around.trim().is_empty();
                files::replace_derived(io, path, shown, new.as_bytes(), kept.stamp, agent_text)
            }
            None => files::create_file_stamped(io, path, shown, new.as_bytes()),
        };
        match written {
            Ok(stamp) => {
                catalog.index_file = Some(KeptIndex {
                    bytes: new.clone().into_bytes(),
                    stamp,
                    parts: new_parts,
                });
                return Ok(new);
            }
            // A store memcap may only read: the index is shown as it would
            // be written, with nothing to complain about.
            Err(e) if e.kind() == ErrorKind::Denied => return Ok(new),
            Err(e) if matches!(e.kind(), ErrorKind::Conflict | ErrorKind::AlreadyExists) => {
                last_error = Some(e);
            }
            Err(e) => return Err(e),
        }
    }
    Err(last_error.expect("at least one attempt failed"))
}
