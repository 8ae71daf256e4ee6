//! The history's functions for people, as the host calls them (WIT
//! `versions`): paths as `/memories/...` and times as the words people
//! type, checked here once for every host.

use super::query::{self, Filter};
use super::redact::{self, Redacted};
use super::restore::{self, Undone};
use super::version::Version;
use crate::error::{Result, ToolError};
use crate::io::Io;
use crate::vocab::Timeframe;
use crate::vpath::MemPath;

/// A time as people write it (`2h`, `7d`, a date, RFC 3339), in seconds
/// since the epoch, for an `invalid-input` that says what to send.
pub fn moment(io: &Io, text: &str) -> Result<u64> {
    Timeframe::parse(text)
        .map(|t| t.since(io.now_seconds()))
        .ok_or_else(|| ToolError::InvalidInput {
            problem: format!(
                "\"{}\" is not a time: send a span back from now (30m, 2h, 7d), a date \
                 (2026-11-28) or an RFC 3339 time (2026-11-28T09:00:00Z).",
                crate::text::one_line(text, 80)
            ),
        })
}

/// `list`: the versions that touch `path`, newest first.
pub fn list(io: &Io, path: &str, since: Option<&str>, by: Option<&str>) -> Result<Vec<Version>> {
    let mem = MemPath::parse(path)?;
    let filter = Filter {
        since: since.map(|s| moment(io, s)).transpose()?,
        by: by.map(str::to_owned),
    };
    query::list(io, &mem, &filter)
}

/// The most versions `recent` gives at once.
pub const MAX_RECENT: u32 = 200;

/// `recent-versions`: the newest versions that touch `path`, numbered
/// below `before`, at most `limit` (1 to [`MAX_RECENT`]).
pub fn recent(io: &Io, path: &str, before: Option<u64>, limit: u32) -> Result<Vec<Version>> {
    let mem = MemPath::parse(path)?;
    query::newest(io, &mem, before, limit.clamp(1, MAX_RECENT) as usize)
}

/// `show`: the bytes version `number` of `path` left.
pub fn show(io: &Io, path: &str, number: u64) -> Result<Vec<u8>> {
    let mem = MemPath::parse(path)?;
    let (version, content) = query::show(io, &mem, path, number)?;
    content.ok_or(ToolError::VersionIsDeletion {
        path: path.into(),
        version: version.v,
    })
}

/// `restore`.
pub fn restore(io: &Io, path: &str, number: u64) -> Result<Undone> {
    let mem = MemPath::parse(path)?;
    restore::restore(io, &mem, path, number)
}

/// `revert`.
pub fn revert(io: &Io, since: &str, by: Option<&str>) -> Result<Undone> {
    let since = moment(io, since)?;
    restore::revert(io, since, by)
}

/// `redact`.
pub fn redact(io: &Io, path: &str, number: Option<u64>) -> Result<Redacted> {
    let mem = MemPath::parse(path)?;
    redact::redact(io, &mem, path, number)
}
