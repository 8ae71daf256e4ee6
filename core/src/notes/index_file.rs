//! MEMORY.md on disk: its text read back when nothing it lists changed,
//! rendered and rewritten (around the agent's own text) when it differs,
//! and marked by its content as what a render writes.

use super::INDEX_FILE;
use super::catalog::{Catalog, KeptIndex};
use super::index::{self, PROMPT_BUDGET};
use super::record::{IndexMark, Record};
use super::walk::RACY_SECONDS;
use crate::error::{ErrorKind, FsError, Result, ToolError};
use crate::files;
use crate::graph::supersede::SupersededSet;
use crate::io::Io;
use crate::layout::{EXTRA, SHARED};
use crate::storage::Kind;
use crate::vocab::precondition::sha256_hex;
use crate::vpath::MemPath;

/// How often a rewrite of MEMORY.md is retried when an editor changed it
/// between memcap's read and write.
const ATTEMPTS: usize = 3;

/// `/memories/MEMORY.md`.
pub fn index_path() -> MemPath {
    MemPath::parse(&format!("/memories/{INDEX_FILE}")).expect("the index path is valid")
}

/// Whether `path` is the index file itself.
pub fn is_index(path: &MemPath) -> bool {
    *path == index_path()
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
///
/// The outer error is the catalog's (a graph that does not decode, when
/// the index marks superseded notes): the caller rebuilds it.
pub(super) fn write_index(
    io: &Io,
    catalog: &mut Catalog,
) -> std::result::Result<Result<String>, FsError> {
    let path = index_path();
    let shown = path.display();
    if let Some(text) = unchanged_index(io, catalog, &path, &shown) {
        return Ok(Ok(text));
    }
    let superseded = crate::indexes::superseded(catalog)?;
    Ok(rewrite_index(io, catalog, &path, &shown, &superseded))
}

/// What MEMORY.md's region depends on besides the notes and the file's
/// own text: memcap's version and how the index is written
/// ([`index::RENDER_VERSION`]), and the mounts (which notes it lists), as
/// the stamps of their directories show them.
fn render_key(catalog: &Catalog) -> u64 {
    let mounts = [SHARED, EXTRA].map(|dir| catalog.walk.dirs.get(dir).copied());
    let key = format!(
        "{} {} {mounts:?}",
        env!("CARGO_PKG_VERSION"),
        index::RENDER_VERSION
    );
    crate::graph::names::fnv1a(key.as_bytes())
}

/// MEMORY.md's text when the catalog's mark says a render would leave it as
/// it is (the file's content the marked one, no note changed since, the
/// same [`render_key`]): the file is read and hashed, not rendered and
/// compared again.
fn unchanged_index(io: &Io, catalog: &mut Catalog, path: &MemPath, shown: &str) -> Option<String> {
    let mark = catalog.memory_md.index_mark.as_ref()?;
    if catalog.incomplete()
        || mark.key != render_key(catalog)
        || mark.until.is_some_and(|until| io.now_seconds() >= until)
    {
        return None;
    }
    // A warm instance holds the bytes: one stamp shows they are the file's,
    // once the stamp is old enough to show every edit.
    if let Some(kept) = &catalog.memory_md.index_file
        && kept
            .stamp
            .modified
            .is_some_and(|(s, _)| s.saturating_add(RACY_SECONDS) < io.now_seconds())
        && files::stamp(io, path).ok() == Some(kept.stamp)
        && kept.sha256 == mark.sha256
    {
        return String::from_utf8(kept.bytes.clone()).ok();
    }
    let (bytes, stamp) = files::read_bytes_for_edit(io, path, shown).ok()?;
    let sha256 = sha256_hex(&bytes);
    if sha256 != mark.sha256 {
        return None;
    }
    let text = String::from_utf8(bytes).ok()?;
    catalog.memory_md.index_file = Some(KeptIndex {
        bytes: text.clone().into_bytes(),
        sha256,
        stamp,
        parts: None,
    });
    Some(text)
}

/// Puts on record that MEMORY.md holding the bytes whose SHA-256 is
/// `sha256` is what a render of the catalog writes, unless it is so on
/// record already. Not while the catalog is incomplete (the region says it
/// is still reading).
fn mark_index(catalog: &mut Catalog, sha256: String, until: Option<u64>) {
    if catalog.incomplete() {
        return;
    }
    let mark = IndexMark {
        sha256,
        key: render_key(catalog),
        until,
    };
    if catalog.memory_md.index_mark.as_ref() != Some(&mark) {
        // Only saves work later: a mark not kept costs a render.
        let _ = catalog.record(Record::Index(mark));
    }
}

/// Renders the index and writes it into MEMORY.md where it differs.
fn rewrite_index(
    io: &Io,
    catalog: &mut Catalog,
    path: &MemPath,
    shown: &str,
    superseded: &SupersededSet,
) -> Result<String> {
    let mut last_error = None;
    // A kept copy that turns out stale does not use up an attempt.
    let attempts = ATTEMPTS + usize::from(catalog.memory_md.index_file.is_some());
    for _ in 0..attempts {
        let kept = catalog.memory_md.index_file.take();
        let from_kept = kept.is_some();
        let existing = match kept {
            Some(kept) => Some(kept),
            None => match files::stat(io, path) {
                Ok(st) if st.kind == Kind::File => {
                    let (bytes, stamp) = files::read_bytes_for_edit(io, path, shown)?;
                    Some(KeptIndex {
                        sha256: sha256_hex(&bytes),
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
        let (region, until) =
            index::render_marked(io, catalog, superseded, PROMPT_BUDGET.after(&around));
        let new = index::compose(parts, &region);
        let new_parts = index::recomposed(parts, &region);
        if let Some(kept) = existing.as_ref()
            && new.as_bytes() == kept.bytes.as_slice()
        {
            if from_kept && files::stamp(io, path).ok() != Some(kept.stamp) {
                continue;
            }
            let sha256 = kept.sha256.clone();
            catalog.memory_md.index_file = existing.map(|kept| KeptIndex {
                parts: new_parts,
                ..kept
            });
            // As a render writes it.
            mark_index(catalog, sha256, until);
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
                let sha256 = sha256_hex(new.as_bytes());
                catalog.memory_md.index_file = Some(KeptIndex {
                    bytes: new.clone().into_bytes(),
                    sha256: sha256.clone(),
                    stamp,
                    parts: new_parts,
                });
                mark_index(catalog, sha256, until);
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
