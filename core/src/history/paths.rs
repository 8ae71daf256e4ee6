//! The history's index by path: where in the log each file's versions
//! are, so that a file's versions (a blame, `history list` or `show` of
//! one file, `memory_history` of a note) cost what they return, not a
//! read of the whole log.
//!
//! Written by the upkeep every few hundred versions ([`super::retention`]:
//! the versions since filed in it, from the log's end, or all of them by
//! a pruning, which reads the whole log anyway) and after a redaction
//! rewrites the log, never by a change, so writes cost nothing more. It covers
//! the log up to a point; the lines after it (the versions since) are
//! read as they are. Records are fixed-width, sorted by the first eight
//! bytes of the SHA-256 of a path (a rename is filed under both its
//! names) behind a table of where each first byte starts, as the packs'
//! index is, so a lookup is two reads of it and one read of each run of
//! the lines it names. Every line read is checked against the record
//! that named it, and the index's last line against the log: an index
//! the log no longer matches (a rewrite it missed, a crash between the
//! two) is not believed, and the lookup reads the log whole, once: it
//! writes the index anew from what it read (as it does when there is
//! none, or the index is far behind), so the next lookups are cheap.

use sha2::{Digest, Sha256};

use super::log::{self, Placed};
use super::version::{Op, Version};
use crate::error::FsError;
use crate::files;
use crate::io::Io;
use crate::layout::{HISTORY_LOG, HISTORY_PATHS};
use crate::storage::File;

const MAGIC: &[u8; 8] = b"MCPATH01";
/// Magic, where the log it covers ends, the last line's start and
/// number, the record count.
const HEADER: usize = 40;
/// For each first byte of a path's hash, how many records have a first
/// byte at most it (little-endian `u32`s).
const FANOUT: usize = 256 * 4;
/// A record: the path's hash, the version's number, its line's start and
/// length.
const RECORD: usize = 8 + 8 + 8 + 4;
/// The most of the log past what the index covers that a lookup reads
/// (the versions since the last upkeep, which writes it every 256); past
/// it, the lookup writes the index anew.
const MAX_BEHIND: u64 = 128 << 10;
/// The most of the log past what the index covers that the upkeep files
/// in it ([`extend`]): the versions between two upkeeps, however long
/// their lines.
const MAX_EXTEND: u64 = 1 << 20;
/// Lines this close together are read in one go.
const GAP: u64 = 4 << 10;
/// The most bytes one read of lines takes.
const MAX_RUN: u64 = 1 << 20;

/// What the index costs the history beyond its records (its header and
/// table), as the log's totals count it.
pub const FIXED: u64 = (HEADER + FANOUT) as u64;

/// What one version costs the index (a rename is filed under both its
/// names), as the log's totals count it: `--history-mib` bounds the index
/// too.
pub fn cost(v: &Version) -> u64 {
    let renamed = v.op == Op::Renamed && v.from.as_deref().is_some_and(|f| f != v.path);
    RECORD as u64 * (1 + u64::from(renamed))
}

fn key_hash(key: &str) -> u64 {
    let digest = Sha256::digest(key.as_bytes());
    u64::from_be_bytes(digest[..8].try_into().expect("eight bytes"))
}

fn u32_at(bytes: &[u8], at: usize) -> u32 {
    u32::from_le_bytes(bytes[at..at + 4].try_into().expect("four bytes"))
}

fn u64_at(bytes: &[u8], at: usize) -> u64 {
    u64::from_le_bytes(bytes[at..at + 8].try_into().expect("eight bytes"))
}

/// Replaces the index with one of `versions`, each at `placed` in the
/// log (as [`log::read_all_placed`] or [`log::rewrite`] give them).
pub fn write(io: &Io, versions: &[Version], placed: &[Placed]) -> Result<(), FsError> {
    let mut records: Vec<Record> = Vec::with_capacity(versions.len() + 16);
    file(&mut records, versions.iter().zip(placed.iter().copied()));
    let last = versions.last().zip(placed.last().copied());
    write_records(io, records, last)
}

/// A path's hash, a version's number, where its line is.
type Record = (u64, u64, Placed);

/// Adds the records of `versions` (a rename filed under both names).
fn file<'a>(records: &mut Vec<Record>, versions: impl Iterator<Item = (&'a Version, Placed)>) {
    for (v, at) in versions {
        records.push((key_hash(&v.path), v.v, at));
        if v.op == Op::Renamed
            && let Some(from) = v.from.as_deref().filter(|f| *f != v.path)
        {
            records.push((key_hash(from), v.v, at));
        }
    }
}

/// Writes the index of `records`, covering the log up to the end of
/// `last`'s line.
fn write_records(
    io: &Io,
    mut records: Vec<Record>,
    last: Option<(&Version, Placed)>,
) -> Result<(), FsError> {
    records.sort_unstable_by_key(|(hash, v, _)| (*hash, *v));
    let (last_at, last_v, covered) = match last {
        Some((v, at)) => (at.at, v.v, at.at + u64::from(at.len) + 1),
        None => (0, 0, 0),
    };
    let mut bytes = Vec::with_capacity(HEADER + FANOUT + records.len() * RECORD);
    bytes.extend_from_slice(MAGIC);
    for n in [covered, last_at, last_v, records.len() as u64] {
        bytes.extend_from_slice(&n.to_le_bytes());
    }
    let mut counts = [0u32; 256];
    for (hash, _, _) in &records {
        counts[(hash >> 56) as usize] += 1;
    }
    let mut upto = 0u32;
    for count in counts {
        upto += count;
        bytes.extend_from_slice(&upto.to_le_bytes());
    }
    for (hash, v, at) in &records {
        bytes.extend_from_slice(&hash.to_le_bytes());
        bytes.extend_from_slice(&v.to_le_bytes());
        bytes.extend_from_slice(&at.at.to_le_bytes());
        bytes.extend_from_slice(&at.len.to_le_bytes());
    }
    log::ensure_dir(io)?;
    files::put_private(io, HISTORY_PATHS, &bytes)
}

/// Files the versions put on record since what the index covers, and
/// writes it anew: what the upkeep does between prunings, reading the
/// index and the log's end, never the whole log. `false` when the index
/// cannot be extended (there is none, the log no longer matches it, or
/// more than [`MAX_EXTEND`] of the log is past it): then only a reading
/// of the whole log writes it.
pub fn extend(io: &Io) -> Result<bool, FsError> {
    let open = |path| match io.fs.open(path, false) {
        Ok(file) => Ok(Some(file)),
        Err(FsError::NotFound) => Ok(None),
        Err(e) => Err(e),
    };
    let (Some(log), Some(index)) = (open(HISTORY_LOG)?, open(HISTORY_PATHS)?) else {
        return Ok(false);
    };
    let size = log.stat()?.size;
    let Some((covered, head)) = head_of(&*index, &*log, size)? else {
        return Ok(false);
    };
    let uncovered = size - covered;
    if uncovered > MAX_EXTEND {
        return Ok(false);
    }
    let since = files::read_to_end(&*log, covered, Some(uncovered), Some(uncovered))?;
    let since = log::parse_placed(&since, covered);
    let Some((newest, at)) = since.last() else {
        return Ok(true);
    };
    // The records its header counts, when they are what the file holds (a
    // damaged count is not read, nor made room for).
    let len = u64_at(&head, 32).saturating_mul(RECORD as u64);
    if index.stat()?.size != (HEADER + FANOUT) as u64 + len {
        return Ok(false);
    }
    let body = files::read_to_end(&*index, (HEADER + FANOUT) as u64, Some(len), Some(len))?;
    if body.len() as u64 != len {
        return Ok(false);
    }
    let mut records: Vec<Record> = Vec::with_capacity(body.len() / RECORD + since.len() * 2);
    records.extend(body.chunks_exact(RECORD).map(|r| {
        let at = Placed {
            at: u64_at(r, 16),
            len: u32_at(r, 24),
        };
        (u64_at(r, 0), u64_at(r, 8), at)
    }));
    file(&mut records, since.iter().map(|(v, at)| (v, *at)));
    write_records(io, records, Some((newest, *at))).map(|()| true)
}

/// Removes the index (before a redaction rewrites the log: the hashes of
/// the names it erases go with it). A lookup that read the log before
/// the rewrite may write an index of it back; the next lookup finds it
/// does not match the log and writes it anew.
pub fn remove(io: &Io) -> Result<(), FsError> {
    match io.fs.remove_file(HISTORY_PATHS) {
        Ok(()) | Err(FsError::NotFound) => Ok(()),
        Err(e) => Err(e),
    }
}

/// The versions on record that touch `key` itself (as their path, or as
/// the name a rename moved a file from), oldest first, the newest
/// `newest` of them: [`Lookup::touching`] of a lookup opened for it.
pub fn touching(io: &Io, key: &str, newest: usize) -> Result<Vec<Version>, FsError> {
    Lookup::open(io)?.touching(io, key, newest)
}

/// [`Lookup::touching_from`] of a lookup opened for it.
pub fn touching_from(io: &Io, key: &str, from: u64) -> Result<Vec<Version>, FsError> {
    Lookup::open(io)?.touching_from(io, key, from)
}

/// Which of a path's versions a lookup gives.
#[derive(Clone, Copy, Debug)]
enum Keep {
    /// The newest this many.
    Newest(usize),
    /// Those from this number on, after the newest one before it (what
    /// the file was when that number was made).
    From(u64),
}

impl Keep {
    /// Drops from `found` (one path's versions, oldest first) what is not kept.
    fn apply(self, found: &mut Vec<Version>) {
        let drop = match self {
            Keep::Newest(newest) => found.len().saturating_sub(newest),
            Keep::From(from) => found.iter().rposition(|v| v.v < from).unwrap_or(0),
        };
        found.drain(..drop);
    }
}

/// Lookups by path for one call: the log and the index opened, the
/// index's head checked and the log's end past it read once, however
/// many paths are looked up (each result of a search, each key a host
/// reports).
pub struct Lookup {
    source: Source,
}

enum Source {
    /// No log: nothing on record.
    Empty,
    /// Through the index (when there is one the log matches: it and its
    /// header and table) and the log's lines past what it covers.
    Indexed {
        log: Box<dyn File>,
        index: Option<(Box<dyn File>, Vec<u8>)>,
        since: Vec<u8>,
    },
    /// The index could not say (the log no longer matches it, or more
    /// than [`MAX_BEHIND`] of the log is past it): the log, read whole
    /// once.
    Whole(Vec<Version>),
}

impl Lookup {
    /// Opens the log and its index. When the index cannot say, the log
    /// is read whole once and the index written from it, so the next
    /// calls are cheap again (a store that cannot be written, read-only,
    /// reads the whole log each call, as before the index).
    pub fn open(io: &Io) -> Result<Self, FsError> {
        let log = match io.fs.open(HISTORY_LOG, false) {
            Ok(file) => file,
            Err(FsError::NotFound) => {
                return Ok(Self {
                    source: Source::Empty,
                });
            }
            Err(e) => return Err(e),
        };
        let size = log.stat()?.size;
        let index = match io.fs.open(HISTORY_PATHS, false) {
            Ok(file) => Some(file),
            Err(FsError::NotFound) => None,
            Err(e) => return Err(e),
        };
        // What the index covers; nothing when it is not there or not the
        // log's (then the log's end is all of it).
        let mut covered = 0;
        let mut checked = None;
        if let Some(index) = index
            && let Some((upto, head)) = head_of(&*index, &*log, size)?
        {
            covered = upto;
            checked = Some((index, head));
        }
        let uncovered = size - covered;
        if uncovered > MAX_BEHIND {
            return Self::whole(io);
        }
        let since = match uncovered {
            0 => Vec::new(),
            _ => files::read_to_end(&*log, covered, Some(uncovered), Some(uncovered))?,
        };
        Ok(Self {
            source: Source::Indexed {
                log,
                index: checked,
                since,
            },
        })
    }

    /// The log read whole, and the index written from it.
    fn whole(io: &Io) -> Result<Self, FsError> {
        let (versions, placed) = log::read_all_placed(io)?;
        // An accelerator written from a read: a failure loses nothing (the
        // next upkeep writes it), so it is not the read's.
        let _ = write(io, &versions, &placed);
        Ok(Self {
            source: Source::Whole(versions),
        })
    }

    /// The versions on record that touch `key` itself, oldest first, the
    /// newest `newest` of them. A line the index names that is no longer
    /// the one it named (the log changed under it) makes this lookup,
    /// and the ones after it, read the log whole.
    pub fn touching(&mut self, io: &Io, key: &str, newest: usize) -> Result<Vec<Version>, FsError> {
        self.kept(io, key, Keep::Newest(newest))
    }

    /// As [`Self::touching`], the versions numbered `from` on, after the
    /// newest one before `from` (what was at `key` when `from` was made):
    /// what an undo back to `from` reads of a file with a long history,
    /// not all of it.
    pub fn touching_from(
        &mut self,
        io: &Io,
        key: &str,
        from: u64,
    ) -> Result<Vec<Version>, FsError> {
        self.kept(io, key, Keep::From(from))
    }

    fn kept(&mut self, io: &Io, key: &str, keep: Keep) -> Result<Vec<Version>, FsError> {
        if let Some(found) = self.indexed(key, keep)? {
            return Ok(found);
        }
        if !matches!(self.source, Source::Whole(_)) {
            *self = Self::whole(io)?;
        }
        let Source::Whole(versions) = &self.source else {
            return Ok(Vec::new());
        };
        let mut found: Vec<Version> = versions
            .iter()
            .filter(|v| v.touches(key, false))
            .cloned()
            .collect();
        keep.apply(&mut found);
        Ok(found)
    }

    /// [`Self::kept`] through the index and the log's end; `None` when
    /// that would not do.
    fn indexed(&self, key: &str, keep: Keep) -> Result<Option<Vec<Version>>, FsError> {
        let (log, index, since) = match &self.source {
            Source::Empty => return Ok(Some(Vec::new())),
            Source::Whole(_) => return Ok(None),
            Source::Indexed { log, index, since } => (log, index, since),
        };
        let named = match index {
            None => Vec::new(),
            Some((index, head)) => match records(&**index, head, key_hash(key))? {
                Some(named) => named,
                None => return Ok(None),
            },
        };
        let mut since = naming(since, key);
        // The lines since the index are newer than any it names: when they
        // hold the newest before `from`, no line the index names is read.
        let before_since = match keep {
            Keep::From(from) => since.iter().rposition(|v| v.v < from),
            Keep::Newest(_) => None,
        };
        let skip = match (keep, before_since) {
            (Keep::Newest(newest), _) => (named.len() + since.len()).saturating_sub(newest),
            (Keep::From(_), Some(before)) => named.len() + before,
            (Keep::From(from), None) => named.iter().rposition(|(v, _)| *v < from).unwrap_or(0),
        };
        let skip_named = skip.min(named.len());
        since.drain(..skip - skip_named);
        let Some(mut found) = read_named(&**log, &named[skip_named..], key)? else {
            return Ok(None);
        };
        // The newest before `from` the index named may be another path's
        // of the same hash (passed over): then all it names are read.
        if let Keep::From(from) = keep
            && before_since.is_none()
            && skip_named > 0
            && found.first().is_none_or(|v| v.v >= from)
        {
            match read_named(&**log, &named, key)? {
                Some(all) => found = all,
                None => return Ok(None),
            }
        }
        found.extend(since);
        keep.apply(&mut found);
        Ok(Some(found))
    }
}

/// The lines `named` names, read (lines close together as one run), those
/// that touch `key` parsed; `None` when a line is no longer the one named
/// (the log changed under the index).
fn read_named(log: &dyn File, named: &[Named], key: &str) -> Result<Option<Vec<Version>>, FsError> {
    let mut found = Vec::with_capacity(named.len());
    let mut i = 0;
    while i < named.len() {
        let start = named[i].1.at;
        let mut j = i + 1;
        let mut end = start + u64::from(named[i].1.len);
        while j < named.len()
            && named[j].1.at >= end
            && named[j].1.at - end <= GAP
            && named[j].1.at + u64::from(named[j].1.len) - start <= MAX_RUN
        {
            end = named[j].1.at + u64::from(named[j].1.len);
            j += 1;
        }
        let run = files::read_to_end(log, start, Some(end - start), Some(end - start))?;
        for (v, place) in &named[i..j] {
            let from = (place.at - start) as usize;
            let line = run.get(from..from + place.len as usize);
            match line.and_then(log::parse_line) {
                // Another path with the same hash is passed over.
                Some(version) if version.v == *v => {
                    if version.touches(key, false) {
                        found.push(version);
                    }
                }
                // The log changed under the index: read it whole.
                _ => return Ok(None),
            }
        }
        i = j;
    }
    Ok(Some(found))
}

/// A version's number and where its line is, as a record names it.
type Named = (u64, Placed);

/// The index's header and table, and how much of the log (`size` bytes)
/// it covers; `None` when the index is damaged or the log no longer ends
/// its covered part with the line it names last.
fn head_of(index: &dyn File, log: &dyn File, size: u64) -> Result<Option<(u64, Vec<u8>)>, FsError> {
    let head = files::read_to_end(index, 0, Some((HEADER + FANOUT) as u64), None)?;
    if head.len() < HEADER + FANOUT || &head[..8] != MAGIC {
        return Ok(None);
    }
    let (covered, last_at, last_v) = (u64_at(&head, 8), u64_at(&head, 16), u64_at(&head, 24));
    if size < covered || last_at > covered {
        return Ok(None);
    }
    if covered > 0 {
        let len = covered - last_at;
        let line = files::read_to_end(log, last_at, Some(len), Some(len))?;
        let same = line.last() == Some(&b'\n')
            && log::parse_line(&line[..line.len() - 1]).is_some_and(|v| v.v == last_v);
        if !same {
            return Ok(None);
        }
    }
    Ok(Some((covered, head)))
}

/// Where the index's records for `hash` say its versions are; `None`
/// when the index is cut short.
fn records(index: &dyn File, head: &[u8], hash: u64) -> Result<Option<Vec<Named>>, FsError> {
    let first = (hash >> 56) as usize;
    let upto = |b: usize| u64::from(u32_at(head, HEADER + 4 * b));
    let (from, to) = (if first == 0 { 0 } else { upto(first - 1) }, upto(first));
    let mut named = Vec::new();
    if to > from {
        let at = (HEADER + FANOUT) as u64 + from * RECORD as u64;
        let len = (to - from) * RECORD as u64;
        let records = files::read_to_end(index, at, Some(len), Some(len))?;
        if records.len() as u64 != len {
            return Ok(None);
        }
        for r in records.chunks_exact(RECORD) {
            if u64_at(r, 0) == hash {
                let place = Placed {
                    at: u64_at(r, 16),
                    len: u32_at(r, 24),
                };
                named.push((u64_at(r, 8), place));
            }
        }
    }
    Ok(Some(named))
}

/// The versions on record among the whole lines of `bytes` that touch
/// `key` itself. Only the lines that hold the key as a JSON string are
/// parsed (a key with a character JSON escapes is looked for in all).
fn naming(bytes: &[u8], key: &str) -> Vec<Version> {
    let whole = match bytes.iter().rposition(|&b| b == b'\n') {
        Some(end) => &bytes[..=end],
        None => return Vec::new(),
    };
    let plain = !key.chars().any(|c| c == '"' || c == '\\' || c.is_control());
    let text = std::str::from_utf8(whole).ok().filter(|_| plain);
    let lines: Vec<&[u8]> = match text {
        None => whole.split(|&b| b == b'\n').collect(),
        Some(text) => {
            let mut lines: Vec<&[u8]> = Vec::new();
            let mut after = 0;
            for (at, _) in text.match_indices(&format!("\"{key}\"")) {
                if at < after {
                    continue;
                }
                let start = text[..at].rfind('\n').map_or(0, |n| n + 1);
                let end = at + text[at..].find('\n').unwrap_or(text.len() - at);
                lines.push(&whole[start..end]);
                after = end;
            }
            lines
        }
    };
    lines
        .into_iter()
        .filter_map(log::parse_line)
        .filter(|v| v.touches(key, false))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn numbered(numbers: &[u64]) -> Vec<Version> {
        numbers
            .iter()
            .map(|&v| Version::sample(v, Op::Modified, "a.md", None, None))
            .collect()
    }

    fn kept(keep: Keep, numbers: &[u64]) -> Vec<u64> {
        let mut found = numbered(numbers);
        keep.apply(&mut found);
        found.iter().map(|v| v.v).collect()
    }

    #[test]
    fn a_lookup_keeps_the_newest_or_those_from_a_number_after_the_one_before() {
        let all = [2, 5, 9, 12];
        assert_eq!(kept(Keep::Newest(2), &all), [9, 12]);
        assert_eq!(kept(Keep::Newest(9), &all), all);
        assert_eq!(kept(Keep::Newest(0), &all), [] as [u64; 0]);
        // From 9: 9 and on, after 5 (what the file was before 9).
        assert_eq!(kept(Keep::From(9), &all), [5, 9, 12]);
        // From a number the file has none of: the one before it and on.
        assert_eq!(kept(Keep::From(7), &all), [5, 9, 12]);
        assert_eq!(kept(Keep::From(1), &all), all);
        assert_eq!(kept(Keep::From(2), &all), all);
        assert_eq!(kept(Keep::From(40), &all), [12]);
    }
}
