//! Forgetting for real: a version's content erased from the store (its
//! kept copy, and every derived file that could still hold words of it,
//! rebuilt from the files as they are), its record kept and marked with
//! who redacted it and when.

use std::collections::BTreeSet;

use super::pending::content_hash;
use super::query::{numbered, read};
use super::retention::newest_of_live;
use super::track::actor;
use super::version::{Redaction, Version};
use super::{blobs, log};
use crate::error::{FsError, Result, ToolError};
use crate::files;
use crate::io::Io;
use crate::layout::{JOURNAL, TEMP_DIR};
use crate::vpath::MemPath;

/// What a redaction did.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Redacted {
    /// The versions whose content is gone (every version with the same
    /// content, whatever its path: it is one content).
    pub versions: Vec<u64>,
    /// Contents erased.
    pub contents: usize,
    /// Versions left (with `--all`) because their content is a file's
    /// current content: change or delete the file, then redact again.
    pub current: Vec<u64>,
}

/// Erases the content of version `number` of `path`, or (`None`) of every
/// version of it (of every file under it, for a directory).
pub fn redact(io: &Io, path: &MemPath, shown: &str, number: Option<u64>) -> Result<Redacted> {
    let key = path.key();
    let versions = read(io)?;
    let chosen: Vec<&Version> = match number {
        Some(n) => vec![numbered(&versions, &key, shown, n)?],
        None => versions.iter().filter(|v| v.touches(&key, true)).collect(),
    };
    let mut shas: BTreeSet<String> = chosen.iter().filter_map(|v| v.sha256.clone()).collect();
    // A content that is a file's now is not history: the file holds it.
    let current: BTreeSet<String> = newest_of_live(&versions)
        .into_iter()
        .filter_map(|i| {
            let v = &versions[i];
            let sha = v.sha256.as_ref()?;
            (shas.contains(sha) && content_hash(io, &v.path).as_ref() == Some(sha))
                .then(|| sha.clone())
        })
        .collect();
    let mut redacted = Redacted::default();
    if let Some(n) = number
        && !current.is_empty()
    {
        return Err(ToolError::RedactCurrent {
            path: shown.into(),
            version: n,
        });
    }
    for sha in &current {
        shas.remove(sha);
        redacted.current.extend(
            versions
                .iter()
                .filter(|v| v.sha256.as_ref() == Some(sha))
                .map(|v| v.v),
        );
    }
    let fail = |e: FsError| files::tool_error(e, shown, "redact");
    let (name, id) = actor(io);
    let mark = Redaction {
        t: io.now_seconds(),
        actor: name,
        actor_id: id,
    };
    let rewritten: Vec<Version> = versions
        .iter()
        .cloned()
        .map(|mut v| {
            if v.sha256.as_ref().is_some_and(|s| shas.contains(s)) {
                v.sha256 = None;
                v.redacted = Some(mark.clone());
                redacted.versions.push(v.v);
            }
            if v.prev.as_ref().is_some_and(|s| shas.contains(s)) {
                v.prev = None;
            }
            v
        })
        .collect();
    if shas.is_empty() {
        return Ok(redacted);
    }
    // The log first: a content whose versions no longer name it is an
    // orphan the next pruning removes even if this stops here.
    log::rewrite(io, &rewritten).map_err(fail)?;
    for sha in &shas {
        redacted.contents += usize::from(blobs::remove(io, sha).map_err(fail)?);
    }
    forget_derived(io).map_err(fail)?;
    Ok(redacted)
}

/// Removes what memcap derived from the files (the catalog's journal, with
/// the search index and graph saved in it) and any staged leftovers, so
/// nothing of an erased content outlives it there: the next call rebuilds
/// them from the files as they are.
fn forget_derived(io: &Io) -> std::result::Result<(), FsError> {
    crate::notes::catalog::forget(io);
    match io.fs.remove_file(JOURNAL) {
        Ok(()) | Err(FsError::NotFound) => {}
        Err(e) => return Err(e),
    }
    match io.fs.list(TEMP_DIR) {
        Ok(entries) => {
            for entry in entries {
                let _ = io.fs.remove_file(&format!("{TEMP_DIR}/{}", entry.name));
            }
        }
        Err(FsError::NotFound) => {}
        Err(e) => return Err(e),
    }
    Ok(())
}
