//! The change in flight: its versions are written to the log marked in
//! flight before the change is made and put on record after
//! ([`super::log::begin`], [`super::log::commit`]), so a crash between the
//! two is settled by the next change: each version whose effect is in the
//! files is logged, the others are dropped. On a database the whole call
//! is one transaction and nothing is ever left in flight.

use super::log::{self, Tail};
use super::version::{Op, Version};
use crate::error::FsError;
use crate::files;
use crate::io::Io;
use crate::layout::HISTORY_PENDING;
use crate::storage::Kind;

/// Settles what a crash left in flight at the log's end (`tail`, read
/// once by the change about to be made, kept up to date): the versions
/// whose change is in the files are logged again, on record, and the
/// lines in flight marked dead. A log last
/// written by a memcap before marks may have its changes in flight in a
/// file of their own: settled the same way.
pub fn settle(io: &Io, tail: &mut Tail) -> Result<(), FsError> {
    // (A log with nothing on record may be one such memcap's first change.)
    if tail.unmarked || tail.last.is_none() {
        settle_file(io)?;
        *tail = log::tail_for_write(io)?;
    }
    let Some((flight, versions)) = log::stranded(tail) else {
        return Ok(());
    };
    let landed: Vec<Version> = versions.into_iter().filter(|v| holds(io, v)).collect();
    log::abandon(io, tail, flight, &landed)
}

/// [`settle`], the log read first: for what reads the whole history and
/// may rewrite it (finding outside changes, redaction, pruning).
pub fn recover(io: &Io) -> Result<(), FsError> {
    let mut tail = log::tail_for_write(io)?;
    settle(io, &mut tail)
}

/// Whether a change is in flight (written, not yet on record).
pub fn exists(io: &Io) -> Result<bool, FsError> {
    if !log::tail(io)?.flight.is_empty() {
        return Ok(true);
    }
    match io.fs.stat(HISTORY_PENDING, false) {
        Ok(_) => Ok(true),
        Err(FsError::NotFound) => Ok(false),
        Err(e) => Err(e),
    }
}

/// The file of changes in flight a memcap before marks kept: the versions
/// whose change is in the files (and not yet in the log) are logged, the
/// rest dropped, and the file removed.
fn settle_file(io: &Io) -> Result<(), FsError> {
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
    match io.fs.remove_file(HISTORY_PENDING) {
        Ok(()) | Err(FsError::NotFound) => Ok(()),
        Err(e) => Err(e),
    }
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
    whole_file_as(io, path, &io.fs.stat(path, false).ok()?)
}

/// [`whole_file`] for a file whose metadata the caller has just read.
pub fn whole_file_as(io: &Io, path: &str, meta: &crate::storage::Meta) -> Option<Vec<u8>> {
    whole_file_stamped(io, path, meta).map(|(bytes, _)| bytes)
}

/// Files from this size on are read with their stamp, which may spare
/// hashing them ([`super::recent::Recent::known`]): the stamp costs a call
/// (~5 µs through WASI), hashing 4 KiB about as much.
const STAMPED_FROM: u64 = 4 << 10;

/// Whether a content of `size` bytes is worth its stamp: a write takes the
/// stamp it leaves (two calls) only for a content the next removal or edit
/// would otherwise hash at a cost; a smaller one is hashed again instead.
pub fn stamp_pays(size: u64) -> bool {
    size >= STAMPED_FROM
}

/// [`whole_file_as`], with the stamp of what was read when the file is
/// large enough for it to pay.
pub fn whole_file_stamped(
    io: &Io,
    path: &str,
    meta: &crate::storage::Meta,
) -> Option<(Vec<u8>, Option<crate::storage::Stamp>)> {
    if meta.kind != Kind::File || meta.size > files::MAX_FILE_BYTES {
        return None;
    }
    let file = io.fs.open(path, false).ok()?;
    let bytes = files::read_to_end(&*file, 0, Some(files::MAX_FILE_BYTES), Some(meta.size)).ok()?;
    let stamp = match stamp_pays(meta.size) {
        true => file.stamp().ok().filter(|s| s.size == bytes.len() as u64),
        false => None,
    };
    Some((bytes, stamp))
}
