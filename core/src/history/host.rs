//! The history's functions for people, as the host calls them (WIT
//! `versions`): paths as `/memories/...` and times as the words people
//! type, checked here once for every host.

use super::query::{self, Filter};
use super::redact::{self, Redacted};
use super::restore::{self, Undone};
use super::shared;
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
    shared::versions(io, &mem, |io, mem| query::list(io, mem, &filter))
}

/// The most versions `recent` gives at once.
pub const MAX_RECENT: u32 = 200;

/// `recent-versions`: the newest versions that touch `path`, numbered
/// below `before`, at most `limit` (1 to [`MAX_RECENT`]).
pub fn recent(io: &Io, path: &str, before: Option<u64>, limit: u32) -> Result<Vec<Version>> {
    let mem = MemPath::parse(path)?;
    let limit = limit.clamp(1, MAX_RECENT) as usize;
    shared::versions(io, &mem, |io, mem| query::newest(io, mem, before, limit))
}

/// `show`: the bytes version `number` of `path` left.
pub fn show(io: &Io, path: &str, number: u64) -> Result<Vec<u8>> {
    let mem = MemPath::parse(path)?;
    let (version, content) =
        shared::version(io, &mem, |io, mem| query::show(io, mem, path, number))?;
    content.ok_or(ToolError::VersionIsDeletion {
        path: path.into(),
        version: version.v,
    })
}

/// `blame`: who last changed each line of the text file `path`.
pub fn blame(io: &Io, path: &str) -> Result<super::blame::Blame> {
    let mem = MemPath::parse(path)?;
    shared::reading(io, &mem, |io, mem| super::blame::blame(io, mem, path))
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

/// The most paths one `record` takes.
pub const MAX_RECORD_PATHS: usize = 10_000;

/// `record`: what is now at `paths` (`/memories/...`, at most
/// [`MAX_RECORD_PATHS`]) recorded as changes by the calls' actor (by
/// another program's, with `outside`), where the history says otherwise.
/// Returns how many of `paths` were looked at, from the first (the call's
/// walking budget bounds it; a path memcap would refuse, or whose history
/// memcap does not keep, is looked at and passed).
pub fn record(io: &Io, paths: &[String], outside: bool) -> Result<u32> {
    let paths = &paths[..paths.len().min(MAX_RECORD_PATHS)];
    let keys: Vec<String> = paths
        .iter()
        .map(|p| {
            MemPath::parse(p)
                .ok()
                .filter(|p| !p.is_root())
                .map_or_else(String::new, |p| p.key())
        })
        .collect();
    let author = match outside {
        true => super::Author::Outside,
        false => super::Author::Caller,
    };
    let recorded = super::record(io, &keys, author).map_err(|error| ToolError::Fs {
        error,
        path: crate::vpath::ROOT.to_owned(),
        doing: "record the history of",
    })?;
    Ok(u32::try_from(recorded.taken).unwrap_or(u32::MAX))
}

/// `redact`.
pub fn redact(io: &Io, path: &str, number: Option<u64>) -> Result<Redacted> {
    let mem = MemPath::parse(path)?;
    redact::redact(io, &mem, path, number)
}
