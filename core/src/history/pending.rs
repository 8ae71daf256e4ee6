//! The change in flight: its versions are written here before the change
//! is made and moved to the log after, so a crash between the two is
//! settled by the next change: each version whose effect is in the files
//! goes to the log, the others are dropped. On a database the whole call
//! is one transaction and nothing is ever left here.

use super::log;
use super::version::{Op, Version};
use crate::error::FsError;
use crate::files;
use crate::io::Io;
use crate::layout::HISTORY_PENDING;
use crate::storage::Kind;

/// Writes the versions of the change about to be made.
/// Written in place, not staged: a crash that tears it came before the
/// change, and a torn line is dropped like a change not made.
pub fn write(io: &Io, versions: &[Version]) -> Result<(), FsError> {
    let text = log::lines(versions);
    match io.fs.write_new(HISTORY_PENDING, text.as_bytes(), false) {
        Err(FsError::NotFound) => {
            log::ensure_dir(io)?;
            io.fs.write_new(HISTORY_PENDING, text.as_bytes(), false)
        }
        Err(FsError::Exists) => {
            // Settled already (`recover` runs first): a leftover.
            clear(io)?;
            io.fs.write_new(HISTORY_PENDING, text.as_bytes(), false)
        }
        other => other,
    }
}

/// Whether a change is in flight (written as pending, not yet logged).
pub fn exists(io: &Io) -> Result<bool, FsError> {
    match io.fs.stat(HISTORY_PENDING, false) {
        Ok(_) => Ok(true),
        Err(FsError::NotFound) => Ok(false),
        Err(e) => Err(e),
    }
}

/// The change is on record: nothing is in flight.
pub fn clear(io: &Io) -> Result<(), FsError> {
    match io.fs.remove_file(HISTORY_PENDING) {
        Ok(()) | Err(FsError::NotFound) => Ok(()),
        Err(e) => Err(e),
    }
}

/// Settles what a crash left in flight: the versions whose change is in
/// the files (and not yet in the log) are logged, the rest dropped.
pub fn recover(io: &Io) -> Result<(), FsError> {
    let file = match io.fs.open(HISTORY_PENDING, false) {
        Ok(file) => file,
        Err(FsError::NotFound) => return Ok(()),
        Err(e) => return Err(e),
    };
    let size = file.stat()?.size;
    let bytes = files::read_to_end(&*file, 0, Some(log::MAX_LOG_BYTES), Some(size))?;
    let logged = log::last(io)?.map_or(0, |v| v.v);
    let landed: Vec<Version> = bytes
        .split(|&b| b == b'\n')
        .filter_map(|line| serde_json::from_slice::<Version>(line).ok())
        .filter(|v| v.v > logged)
        .filter(|v| holds(io, v))
        .collect();
    log::append(io, &landed)?;
    clear(io)
}

/// Whether the files show `version`'s change made.
pub fn holds(io: &Io, version: &Version) -> bool {
    let here = content_hash(io, &version.path);
    match version.op {
        Op::Deleted => here.is_none(),
        Op::Renamed => {
            here.is_some() && here == version.sha256 && {
                let from = version.from.as_deref().unwrap_or_default();
                content_hash(io, from).is_none()
            }
        }
        Op::Created | Op::Modified | Op::Restored => here.is_some() && here == version.sha256,
    }
}

/// The SHA-256 of the regular file at `path`, if there is one to read.
pub fn content_hash(io: &Io, path: &str) -> Option<String> {
    whole_file(io, path).map(|bytes| io.sha256_hex(&bytes))
}

/// The regular file at `path` (relative), whole, if there is one memcap
/// reads (not past [`files::MAX_FILE_BYTES`]).
pub fn whole_file(io: &Io, path: &str) -> Option<Vec<u8>> {
    let meta = io.fs.stat(path, false).ok()?;
    if meta.kind != Kind::File || meta.size > files::MAX_FILE_BYTES {
        return None;
    }
    let file = io.fs.open(path, false).ok()?;
    files::read_to_end(&*file, 0, Some(files::MAX_FILE_BYTES), Some(meta.size)).ok()
}
