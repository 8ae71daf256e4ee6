//! Reading the history: the versions of a file or of everything under a
//! directory, newest first, and one version's content.

use super::blobs;
use super::pending::content_hash;
use super::version::{Op, Version};
use crate::error::{FsError, Result, ToolError};
use crate::files;
use crate::io::Io;
use crate::vpath::{MemPath, ROOT};

/// Which versions to list.
#[derive(Clone, Debug, Default)]
pub struct Filter {
    /// Seconds since the epoch: versions made at or after it.
    pub since: Option<u64>,
    /// An actor's name or id.
    pub by: Option<String>,
}

impl Filter {
    pub fn keeps(&self, v: &Version) -> bool {
        self.since.is_none_or(|since| v.t >= since)
            && self.by.as_deref().is_none_or(|by| v.made_by(by))
    }
}

/// The most versions one list gives: the newest (narrow it by path or
/// time for older ones, or page back through `newest`).
pub const MAX_LISTED: usize = 10_000;

/// The versions that touch `path` (a file, or everything below a
/// directory; the root is everything), newest first, deleted files' too;
/// at most [`MAX_LISTED`].
pub fn list(io: &Io, path: &MemPath, filter: &Filter) -> Result<Vec<Version>> {
    let key = path.key();
    // A file's own versions, from the index by path (a directory's, or a
    // name that never was a file's, need the whole log).
    let dir = matches!(files::stat(io, path), Ok(m) if m.kind == crate::storage::Kind::Dir);
    let own = match path.is_root() || dir {
        true => None,
        false => Some(own(io, &key)?).filter(|found| !found.is_empty()),
    };
    let versions = match own {
        Some(found) => found,
        None => read(io)?,
    };
    Ok(versions
        .into_iter()
        .rev()
        .filter(|v| v.touches(&key, true) && filter.keeps(v))
        .take(MAX_LISTED)
        .collect())
}

/// Every version that touches `key` itself, oldest first, from the index
/// by path.
fn own(io: &Io, key: &str) -> Result<Vec<Version>> {
    super::paths::touching(io, key, usize::MAX)
        .map_err(|e| files::tool_error(e, ROOT, "read the history of"))
}

/// The newest versions that touch `path` and are numbered below `before`
/// (all when `None`), newest first, at most `limit`: read from the log's
/// end, so a page of a busy folder costs the page.
pub fn newest(io: &Io, path: &MemPath, before: Option<u64>, limit: usize) -> Result<Vec<Version>> {
    let key = path.key();
    super::log::newest(io, limit, |v| {
        v.touches(&key, true) && before.is_none_or(|b| v.v < b)
    })
    .map_err(|e| files::tool_error(e, ROOT, "read the history of"))
}

/// The newest versions made at or after `since` by anyone but `actor`
/// (a name, and its id when it has one), newest first, at most `limit`:
/// read from the log's end.
pub fn newest_by_others(
    io: &Io,
    since: u64,
    actor: (&str, Option<&str>),
    limit: usize,
) -> Result<Vec<Version>> {
    let mine = |v: &Version| match (actor.1, v.actor_id.as_deref()) {
        (Some(id), Some(theirs)) => id == theirs,
        _ => v.actor == actor.0,
    };
    super::log::newest_while(io, limit, |v| !mine(v), |v| v.t >= since)
        .map_err(|e| files::tool_error(e, ROOT, "read the history of"))
}

/// Every version in the log, oldest first.
pub fn read(io: &Io) -> Result<Vec<Version>> {
    super::log::read_all(io).map_err(|e| files::tool_error(e, ROOT, "read the history of"))
}

/// Version `number` of `path` and its content (`None` for a deletion).
pub fn show(
    io: &Io,
    path: &MemPath,
    shown: &str,
    number: u64,
) -> Result<(Version, Option<Vec<u8>>)> {
    let key = path.key();
    let versions = own(io, &key)?;
    let version = numbered(&versions, &key, shown, number)?.clone();
    if version.op == Op::Deleted || version.path != key {
        return Ok((version, None));
    }
    let content = content_of(io, &version, shown)?;
    Ok((version, Some(content)))
}

/// Version `number`, if it touches `key` (the path itself).
pub fn numbered<'a>(
    versions: &'a [Version],
    key: &str,
    shown: &str,
    number: u64,
) -> Result<&'a Version> {
    versions
        .iter()
        .find(|v| v.v == number && v.touches(key, false))
        .ok_or_else(|| ToolError::NoSuchVersion {
            path: shown.into(),
            version: number,
        })
}

/// The content `version` left: kept in the history, or (for a file's
/// newest version) the file itself while it still has that content.
pub fn content_of(io: &Io, version: &Version, shown: &str) -> Result<Vec<u8>> {
    content_by(io, version, shown, |sha| blobs::get(io, sha))
}

/// [`content_of`], the kept content looked up by `kept`.
pub fn content_by(
    io: &Io,
    version: &Version,
    shown: &str,
    mut kept: impl FnMut(&str) -> std::result::Result<Option<Vec<u8>>, FsError>,
) -> Result<Vec<u8>> {
    if let Some(redacted) = &version.redacted {
        return Err(ToolError::VersionRedacted {
            path: shown.into(),
            version: version.v,
            by: redacted.actor.clone(),
            at: crate::text::rfc3339(redacted.t),
        });
    }
    let gone = || ToolError::VersionPruned {
        path: shown.into(),
        version: version.v,
    };
    let sha = version.sha256.as_deref().ok_or_else(gone)?;
    let fail = |e: FsError| files::tool_error(e, shown, "read the history of");
    if let Some(bytes) = kept(sha).map_err(fail)? {
        return Ok(bytes);
    }
    if content_hash(io, &version.path).as_deref() == Some(sha) {
        let path = MemPath::parse(&format!("{ROOT}/{}", version.path))?;
        let (bytes, _) = files::read_bytes_for_edit(io, &path, shown)?;
        return Ok(bytes);
    }
    Err(gone())
}
