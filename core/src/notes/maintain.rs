//! Keeps `/memories/MEMORY.md` in step with the notes: after every change a
//! command makes, and before every answer that shows the index.

use super::catalog::{self, Catalog};
use super::index::{self, PROMPT_BUDGET};
use super::index_file::{index_path, write_index};
use super::{INDEX_FILE, frontmatter, is_note_path};
use crate::error::{FsError, Result, ToolError};
use crate::files;
use crate::graph::supersede::SupersededSet;
use crate::indexes;
use crate::io::Io;
use crate::output::IndexUpkeep;
use crate::vpath::{MemPath, ROOT};

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
        catalog.ready_for_index(io)?;
        let written = write_index(io, catalog)?;
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
        index_problem: outcome.err().map(|e| e.to_string()),
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
    /// Every note, and the derived indexes ready (the graph not decoded).
    AllReady,
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
        // Also when MEMORY.md is as rendered: `f` may render it (`prompt`).
        catalog.ready_for_index(io)?;
        // A MEMORY.md memcap cannot rewrite (a directory, binary, a link out
        // of the root) must not keep the agent from its notes.
        let written = write_index(io, catalog)?;
        catalog.update_index_file(io)?;
        catalog.stamp_parents(io, INDEX_FILE, &mut Vec::new())?;
        let superseded = match written.is_err() {
            true => indexes::superseded(catalog)?,
            false => Default::default(),
        };
        let text = written.unwrap_or_else(|e| {
            format!(
                "{}\n\nNote: {} could not be updated: {}\n",
                index::render(io, catalog, &superseded, PROMPT_BUDGET),
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
    let before = catalog.queued();
    catalog.refresh(io)?;
    // What the walk found another program changed is a version too,
    // within the call's walking budget and at most a few hundred files a
    // call (a bulk copy into the store would otherwise cost a read and a
    // copy of every file in one call); a history that cannot be written
    // must not keep the answer back. What is left is kept all the same:
    // the next change memcap makes to such a file keeps its content first.
    let mut found = catalog.paths_queued_since(before);
    found.truncate(crate::history::MAX_FOUND_A_CALL);
    if !found.is_empty() && !io.out_of_time() {
        let _ = crate::history::found(io, &found);
    }
    if matches!(needs, Needs::Search | Needs::AllReady | Needs::Graph) {
        catalog.derived_ready(io)?;
    }
    if matches!(needs, Needs::All | Needs::AllReady | Needs::Graph) {
        catalog.read_all()?;
    }
    if needs == Needs::Graph {
        indexes::graph(catalog).graph()?;
    }
    Ok(())
}

/// Which notes are superseded, and by which, as MEMORY.md marks them: for
/// an answer that renders the index itself (`prompt`), within [`fresh`].
pub fn superseded(catalog: &Catalog) -> Result<SupersededSet> {
    indexes::superseded(catalog).map_err(catalog_error)
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
            let supersedes = crate::graph::supersede::written(new_text);
            let growth = index::growth_bound(&relative, &meta, !has_index, supersedes);
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
