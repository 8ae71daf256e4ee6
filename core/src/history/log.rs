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
const TAIL: u64 = 4 * 1024;

/// Where the log ends, and its newest version: what a change needs to
/// number its versions and append them, read once.
#[derive(Debug, Default)]
pub struct Tail {
    pub last: Option<Version>,
    /// The log's size.
    pub end: u64,
    /// Whether the log ends with a whole line (a crash can tear the last).
    pub clean: bool,
    /// Whether the log is there at all.
    pub exists: bool,
}

/// The oldest version in the log, if any: its start read a window at a
/// time until its first line is whole.
pub fn first(io: &Io) -> Result<Option<Version>, FsError> {
    let file = match io.fs.open(HISTORY_LOG, false) {
        Ok(file) => file,
        Err(FsError::NotFound) => return Ok(None),
        Err(e) => return Err(e),
    };
    let size = file.stat()?.size;
    let mut window = TAIL;
    loop {
        let bytes = files::read_to_end(&*file, 0, Some(window), Some(window.min(size)))?;
        if let Some(at) = bytes.iter().position(|&b| b == b'\n') {
            return Ok(serde_json::from_slice(&bytes[..at]).ok());
        }
        if bytes.len() as u64 >= size || window >= MAX_LOG_BYTES {
            return Ok(None);
        }
        window *= 4;
    }
}

/// Every version in the log, oldest first.
pub fn read_all(io: &Io) -> Result<Vec<Version>, FsError> {
    let Some(bytes) = read_from(io, 0)? else {
        return Ok(Vec::new());
    };
    Ok(parse(&bytes))
}

/// The newest versions `keep` accepts, newest first, at most `limit` of
/// them: the log read from its end a window at a time (each four times the
/// last), so the newest page costs what it holds, not the whole history.
/// Stops at the log's start or after [`MAX_LOG_BYTES`].
pub fn newest(
    io: &Io,
    limit: usize,
    keep: impl Fn(&Version) -> bool,
) -> Result<Vec<Version>, FsError> {
    let file = match io.fs.open(HISTORY_LOG, false) {
        Ok(file) => file,
        Err(FsError::NotFound) => return Ok(Vec::new()),
        Err(e) => return Err(e),
    };
    let size = file.stat()?.size;
    let mut found = Vec::new();
    // Where the part already read starts: lines before it are read next.
    let mut end = size;
    let mut window = 16 * TAIL;
    while end > 0 && found.len() < limit && size - end < MAX_LOG_BYTES {
        let from = end.saturating_sub(window);
        let bytes = files::read_to_end(&*file, from, Some(end - from), Some(end - from))?;
        // A window that starts mid-file may cut its first line: it is read
        // whole with the next window.
        let (start, whole) = match from {
            0 => (0, &bytes[..]),
            _ => match bytes.iter().position(|&b| b == b'\n') {
                Some(at) => (at + 1, &bytes[at + 1..]),
                None => {
                    window *= 4;
                    continue;
                }
            },
        };
        for line in whole.split(|&b| b == b'\n').rev() {
            if found.len() >= limit {
                break;
            }
            if let Ok(version) = serde_json::from_slice::<Version>(line)
                && keep(&version)
            {
                found.push(version);
            }
        }
        end = from + start as u64;
        window *= 4;
    }
    Ok(found)
}

/// The newest version in the log, if any.
pub fn last(io: &Io) -> Result<Option<Version>, FsError> {
    tail(io).map(|t| t.last)
}

/// Where the log ends, and its newest version: its end read from the
/// back, a window at a time, until a whole line parses.
pub fn tail(io: &Io) -> Result<Tail, FsError> {
    let file = match io.fs.open(HISTORY_LOG, false) {
        Ok(file) => file,
        Err(FsError::NotFound) => return Ok(Tail::default()),
        Err(e) => return Err(e),
    };
    let size = file.stat()?.size;
    let mut tail = Tail {
        end: size,
        clean: true,
        exists: true,
        last: None,
    };
    let mut window = TAIL;
    loop {
        let from = size.saturating_sub(window);
        let bytes = files::read_to_end(&*file, from, Some(window), Some(size - from))?;
        if from + (bytes.len() as u64) == size {
            tail.clean = bytes.last().is_none_or(|&b| b == b'\n');
        }
        // The first line of a window that starts mid-file may be cut.
        let whole = match from {
            0 => &bytes[..],
            _ => match bytes.iter().position(|&b| b == b'\n') {
                Some(at) => &bytes[at + 1..],
                None => &[][..],
            },
        };
        let newest = whole
            .split(|&b| b == b'\n')
            .rev()
            .filter(|line| !line.is_empty())
            .find_map(|line| serde_json::from_slice::<Version>(line).ok());
        if newest.is_some() || from == 0 || window >= MAX_LOG_BYTES {
            tail.last = newest;
            return Ok(tail);
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
    let mut tail = tail(io)?;
    append_at(io, &mut tail, versions)
}

/// [`append`] where the log's end is known (`tail`, kept up to date).
/// Each line carries on the newest's count of versions held and whether
/// the history was left over its bounds ([`Version::n`], [`Version::over`]).
pub fn append_at(io: &Io, tail: &mut Tail, versions: &[Version]) -> Result<(), FsError> {
    if versions.is_empty() {
        return Ok(());
    }
    let (mut held, over) = match &tail.last {
        Some(last) => ((last.n > 0).then_some(last.n), last.over),
        // A log with no whole line is a count not known.
        None => ((!tail.exists).then_some(0), false),
    };
    let versions: Vec<Version> = versions
        .iter()
        .map(|v| {
            held = held.map(|h| h + 1);
            Version {
                n: held.unwrap_or(0),
                over,
                ..v.clone()
            }
        })
        .collect();
    let versions = &versions[..];
    let mut text = lines(versions);
    if !tail.exists {
        let created = match io.fs.write_new(HISTORY_LOG, text.as_bytes(), false) {
            Err(FsError::NotFound) => {
                ensure_dir(io)?;
                io.fs.write_new(HISTORY_LOG, text.as_bytes(), false)
            }
            other => other,
        };
        match created {
            Ok(()) => {
                *tail = Tail {
                    end: text.len() as u64,
                    clean: true,
                    exists: true,
                    last: versions.last().cloned(),
                };
                return Ok(());
            }
            // Made since it was looked at: append to it.
            Err(FsError::Exists) => *tail = self::tail(io)?,
            Err(e) => return Err(e),
        }
    }
    if !tail.clean {
        text.insert(0, '\n');
    }
    io.fs.write_at(HISTORY_LOG, tail.end, text.as_bytes())?;
    tail.end += text.len() as u64;
    tail.clean = true;
    tail.last = versions.last().cloned();
    Ok(())
}

/// Replaces the whole log with `versions`, atomically.
pub fn rewrite(io: &Io, versions: &[Version]) -> Result<(), FsError> {
    ensure_dir(io)?;
    files::put_private(io, HISTORY_LOG, lines(versions).as_bytes())
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
