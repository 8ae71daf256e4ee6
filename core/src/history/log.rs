//! The log file: versions as JSON lines, appended after each change and
//! rewritten whole only by retention and redaction. A line torn by a
//! crash (the last one, without its newline) is ignored and written over.

use super::version::Version;
use crate::error::FsError;
use crate::files;
use crate::io::Io;
use crate::layout::{HISTORY_DIR, HISTORY_LOG, RESERVED};

/// The most of the log one call reads: far above what the default
/// retention (256 MiB of content and log together) lets it reach.
pub const MAX_LOG_BYTES: u64 = 128 << 20;
/// How much of the log's end is read to find the last version.
const TAIL: u64 = 16 * 1024;

/// Every version in the log, oldest first.
pub fn read_all(io: &Io) -> Result<Vec<Version>, FsError> {
    let Some(bytes) = read_from(io, 0)? else {
        return Ok(Vec::new());
    };
    Ok(parse(&bytes))
}

/// The newest version in the log, if any.
pub fn last(io: &Io) -> Result<Option<Version>, FsError> {
    let size = match io.fs.stat(HISTORY_LOG, false) {
        Ok(meta) => meta.size,
        Err(FsError::NotFound) => return Ok(None),
        Err(e) => return Err(e),
    };
    let mut window = TAIL;
    loop {
        let from = size.saturating_sub(window);
        let Some(bytes) = read_from(io, from)? else {
            return Ok(None);
        };
        // The first line of a window that starts mid-file may be cut.
        let whole = match from {
            0 => &bytes[..],
            _ => match bytes.iter().position(|&b| b == b'\n') {
                Some(at) => &bytes[at + 1..],
                None => &[][..],
            },
        };
        if let Some(version) = parse(whole).pop() {
            return Ok(Some(version));
        }
        if from == 0 || window >= MAX_LOG_BYTES {
            return Ok(None);
        }
        window *= 4;
    }
}

/// Adds `versions` at the end of the log, starting a new line if a crash
/// left the last one torn.
pub fn append(io: &Io, versions: &[Version]) -> Result<(), FsError> {
    if versions.is_empty() {
        return Ok(());
    }
    let mut text = lines(versions);
    let end = match io.fs.stat(HISTORY_LOG, false) {
        Ok(meta) => meta.size,
        Err(FsError::NotFound) => {
            ensure_dir(io)?;
            match io.fs.write_new(HISTORY_LOG, text.as_bytes(), false) {
                Err(FsError::Exists) => io.fs.stat(HISTORY_LOG, false)?.size,
                other => return other,
            }
        }
        Err(e) => return Err(e),
    };
    if end > 0 {
        let file = io.fs.open(HISTORY_LOG, false)?;
        let (last, _) = file.read_at(end - 1, 1)?;
        if last.first() != Some(&b'\n') {
            text.insert(0, '\n');
        }
    }
    io.fs.write_at(HISTORY_LOG, end, text.as_bytes())
}

/// Replaces the whole log with `versions`, atomically.
pub fn rewrite(io: &Io, versions: &[Version]) -> Result<(), FsError> {
    ensure_dir(io)?;
    files::put_private(io, HISTORY_LOG, lines(versions).as_bytes())
}

/// The log's size in bytes (0 when there is none).
pub fn size(io: &Io) -> Result<u64, FsError> {
    match io.fs.stat(HISTORY_LOG, false) {
        Ok(meta) => Ok(meta.size),
        Err(FsError::NotFound) => Ok(0),
        Err(e) => Err(e),
    }
}

/// Makes `.memcap/history` (and `.memcap`) when missing.
pub fn ensure_dir(io: &Io) -> Result<(), FsError> {
    for dir in [RESERVED, HISTORY_DIR] {
        match io.fs.create_dir(dir) {
            Ok(()) | Err(FsError::Exists) => {}
            Err(e) => return Err(e),
        }
    }
    Ok(())
}

/// The JSON lines of `versions`, one each, newline-terminated.
pub fn lines(versions: &[Version]) -> String {
    let mut text = String::new();
    for version in versions {
        text.push_str(&serde_json::to_string(version).expect("a version serialises"));
        text.push('\n');
    }
    text
}

fn read_from(io: &Io, from: u64) -> Result<Option<Vec<u8>>, FsError> {
    let file = match io.fs.open(HISTORY_LOG, false) {
        Ok(file) => file,
        Err(FsError::NotFound) => return Ok(None),
        Err(e) => return Err(e),
    };
    let size = file.stat()?.size;
    if size.saturating_sub(from) > MAX_LOG_BYTES {
        return Err(FsError::TooLarge);
    }
    files::read_to_end(
        &*file,
        from,
        Some(MAX_LOG_BYTES),
        Some(size - from.min(size)),
    )
    .map(Some)
}

/// The versions in `bytes`; a line that does not parse (torn by a crash)
/// is left out.
fn parse(bytes: &[u8]) -> Vec<Version> {
    bytes
        .split(|&b| b == b'\n')
        .filter(|line| !line.is_empty())
        .filter_map(|line| serde_json::from_slice(line).ok())
        .collect()
}
