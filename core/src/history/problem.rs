//! Upkeep that failed: a pruning or packing that could not read or write
//! what it had to, named by its step ("could not pack the contents of the
//! history of /memories: ..."). The change it followed is made and
//! recorded all the same, so the failure is not the change's answer; it is
//! kept here, with its time, for `memory_stats` to show until a pruning
//! succeeds.

use crate::error::FsError;
use crate::files;
use crate::io::Io;
use crate::layout::HISTORY_PROBLEM;

/// The most of the note `memory_stats` reads.
const MAX_BYTES: u64 = 1024;

/// Keeps what went wrong (`doing`, as "pack the contents of the history
/// of"), replacing what was kept before. Best effort: a history that
/// cannot be written at all fails the next change's own recording, which
/// says so.
pub fn record(io: &Io, doing: &'static str, error: FsError) {
    let said = crate::error::ToolError::Fs {
        error,
        path: crate::vpath::ROOT.to_owned(),
        doing,
    };
    let text = format!("{}: {said}", crate::text::rfc3339(io.now_seconds()));
    let _ = files::put_private(io, HISTORY_PROBLEM, text.as_bytes());
}

/// Upkeep succeeded: nothing is wrong any more.
pub fn clear(io: &Io) -> Result<(), FsError> {
    match io.fs.remove_file(HISTORY_PROBLEM) {
        Ok(()) | Err(FsError::NotFound) => Ok(()),
        Err(e) => Err(e),
    }
}

/// What the upkeep last failed at, if it has not succeeded since.
pub fn read(io: &Io) -> Option<String> {
    let file = io.fs.open(HISTORY_PROBLEM, false).ok()?;
    let size = file.stat().ok()?.size.min(MAX_BYTES);
    let bytes = files::read_to_end(&*file, 0, Some(MAX_BYTES), Some(size)).ok()?;
    let text = String::from_utf8_lossy(&bytes);
    Some(crate::text::one_line(&text, MAX_BYTES as usize))
}
