//! The log file: versions as JSON lines, one append before each change
//! and one byte a line flipped after it, rewritten whole only by retention
//! and redaction. A line torn by a crash (the last one, without its
//! newline) is ignored and written over.
//!
//! Each line starts with a mark: a space for a version on record, `!`
//! for one in flight (written before its change is made, so a crash
//! between leaves it for the next change to settle: [`super::pending`]),
//! `#` for one whose change was not made.
//! Readers parse only lines on record (a `!` line is not JSON); an in
//! flight line that a line on record follows is dead (settled by a
//! crash's recovery, which logs again what landed). A line with no mark
//! (`{`) was written by a memcap before marks, which kept its changes in
//! flight in a file of their own.

use super::recent::Recent;
use super::version::Version;
use crate::error::FsError;
use crate::files;
use crate::io::Io;
use crate::layout::{HISTORY_DIR, HISTORY_LOG, RESERVED};
use crate::storage::File;

/// The most of the log one call reads: far above what the default
/// retention (256 MiB of content and log together) lets it reach.
pub const MAX_LOG_BYTES: u64 = 128 << 20;
/// How much of the log's end is read to find the last version.
const TAIL: u64 = 4 * 1024;
/// The mark of a line on record.
const ON_RECORD: u8 = b' ';
/// The mark of a line in flight.
const IN_FLIGHT: u8 = b'!';
/// The mark of a line whose change was not made.
const DEAD: u8 = b'#';

/// Where the log ends, and its newest version: what a change needs to
/// number its versions and append them, read once.
#[derive(Default)]
pub struct Tail {
    pub last: Option<Version>,
    /// Where the next line goes: the log's end, or where the lines after
    /// the newest one on record or in flight start (dead ones, a line a
    /// crash tore), written over, so failed changes do not grow the log.
    pub end: u64,
    /// The log's size.
    pub size: u64,
    /// Whether the log is there at all.
    pub exists: bool,
    /// The versions in flight after the newest on record, oldest first:
    /// what a crash left between a change's versions and the change.
    pub flight: Vec<Version>,
    /// Where the first of them starts, and the log's text from there.
    flight_at: u64,
    flight_text: Vec<u8>,
    /// Whether the newest line on record was written by a memcap before
    /// marks (whose changes in flight were kept in a file of their own).
    pub unmarked: bool,
    /// The log, open to write, when read by a change ([`tail_for_write`]):
    /// its lines in flight and their commit go through the one open.
    file: Option<Box<dyn File>>,
    /// The identity of the open log ([`crate::storage::Stamp::hash`]),
    /// once asked: what a kept tail is checked against ([`keep`]) when the
    /// adapter does not count a file's names.
    identity: Option<(u64, u64)>,
    /// The open log as [`keep`] found it.
    held: Option<HeldAs>,
    /// The contents the log's newest version and, while the tail is kept,
    /// this instance's last changes left.
    pub recent: Recent,
}

/// What [`keep`] saw of the open log: what a write to it or a new file
/// at its name would move.
#[derive(Clone, Copy)]
struct HeldAs {
    modified: Option<(u64, u32)>,
    changed: Option<(u64, u32)>,
    /// Its names, when the adapter counts them.
    links: Option<u64>,
}

/// A change's versions written in flight ([`begin`]): where, and their
/// text, so [`commit`] puts them on record with one write.
#[derive(Debug)]
pub struct Flight {
    at: u64,
    text: Vec<u8>,
    /// The newest version on record before these.
    before: Option<Version>,
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
        // The first whole line on record (one in flight or torn is not).
        let whole = match bytes.iter().rposition(|&b| b == b'\n') {
            Some(at) => &bytes[..at],
            None => &[][..],
        };
        if let Some(first) = whole.split(|&b| b == b'\n').find_map(parse_line) {
            return Ok(Some(first));
        }
        if bytes.len() as u64 >= size || window >= MAX_LOG_BYTES {
            return Ok(None);
        }
        window *= 4;
    }
}

/// Every version in the log, oldest first.
pub fn read_all(io: &Io) -> Result<Vec<Version>, FsError> {
    read_all_placed(io).map(|(versions, _)| versions)
}

/// Where one version's line is in the log: its start and its length,
/// without the newline.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Placed {
    pub at: u64,
    pub len: u32,
}

/// [`read_all`], with where each version's line is.
pub fn read_all_placed(io: &Io) -> Result<(Vec<Version>, Vec<Placed>), FsError> {
    let Some(bytes) = read_from(io, 0)? else {
        return Ok((Vec::new(), Vec::new()));
    };
    Ok(parse_placed(&bytes, 0).into_iter().unzip())
}

/// The versions on record among the whole lines of `bytes` (read from
/// the log at `from`), with where each is; a line in flight, or one that
/// does not parse (torn by a crash), is left out, and so is the last
/// piece when no newline ends it.
pub fn parse_placed(bytes: &[u8], from: u64) -> Vec<(Version, Placed)> {
    let mut found = Vec::new();
    let mut at = 0usize;
    while let Some(len) = bytes[at..].iter().position(|&b| b == b'\n') {
        if let Some(version) = parse_line(&bytes[at..at + len]) {
            let len32 = u32::try_from(len).unwrap_or(u32::MAX);
            found.push((
                version,
                Placed {
                    at: from + at as u64,
                    len: len32,
                },
            ));
        }
        at += len + 1;
    }
    found
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
    newest_while(io, limit, keep, |_| true)
}

/// [`newest`], stopping also at the first version (from the end) that
/// `go_on` refuses: a page of the versions since a time reads only those.
pub fn newest_while(
    io: &Io,
    limit: usize,
    keep: impl Fn(&Version) -> bool,
    go_on: impl Fn(&Version) -> bool,
) -> Result<Vec<Version>, FsError> {
    scan_back(io, 16 * TAIL, limit, keep, go_on).map(|(found, _)| found)
}

/// Every version made at or after `since`, oldest first: the log read
/// back from its end to the first version older (versions are logged in
/// the order they are made, each with the host's time). `None` when
/// [`MAX_LOG_BYTES`] from the end were read before that.
pub fn since(io: &Io, since: u64) -> Result<Option<Vec<Version>>, FsError> {
    // From one tail's worth: the versions since a time are most often a
    // few lines, and the window grows fourfold while more are.
    let (mut found, whole) = scan_back(io, TAIL, usize::MAX, |_| true, |v| v.t >= since)?;
    found.reverse();
    Ok(whole.then_some(found))
}

/// [`newest_while`] from a first window of `window` bytes, and whether
/// it read all it was asked to: it came to a version `go_on` refuses or
/// to the log's start (not to `limit` or to [`MAX_LOG_BYTES`]).
fn scan_back(
    io: &Io,
    mut window: u64,
    limit: usize,
    keep: impl Fn(&Version) -> bool,
    go_on: impl Fn(&Version) -> bool,
) -> Result<(Vec<Version>, bool), FsError> {
    let file = match io.fs.open(HISTORY_LOG, false) {
        Ok(file) => file,
        Err(FsError::NotFound) => return Ok((Vec::new(), true)),
        Err(e) => return Err(e),
    };
    let size = file.stat()?.size;
    let mut found = Vec::new();
    // Where the part already read starts: lines before it are read next.
    let mut end = size;
    let mut stopped = false;
    while !stopped && end > 0 && found.len() < limit && size - end < MAX_LOG_BYTES {
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
        // Only lines a newline ends are whole: the log's last piece is not.
        let unended = usize::from(end == size);
        for line in whole.split(|&b| b == b'\n').rev().skip(unended) {
            if found.len() >= limit {
                break;
            }
            let Some(version) = parse_line(line) else {
                continue;
            };
            if !go_on(&version) {
                stopped = true;
                break;
            }
            if keep(&version) {
                found.push(version);
            }
        }
        end = from + start as u64;
        window *= 4;
    }
    Ok((found, stopped || end == 0))
}

/// The newest version in the log, if any.
pub fn last(io: &Io) -> Result<Option<Version>, FsError> {
    tail(io).map(|t| t.last)
}

/// Where the log ends, its newest version on record and the versions in
/// flight after it: its end read from the back, a window at a time, until
/// a whole line on record parses.
pub fn tail(io: &Io) -> Result<Tail, FsError> {
    match io.fs.open(HISTORY_LOG, false) {
        Ok(file) => read_tail(file, false),
        Err(FsError::NotFound) => Ok(Tail::default()),
        Err(e) => Err(e),
    }
}

/// [`tail`] for a change about to write the log: the log stays open for
/// its writes, where the storage can. The tail this instance's last change
/// kept ([`keep`]) is taken instead of reading the log again, when the
/// log is still the file it holds, at the size it left.
pub fn tail_for_write(io: &Io) -> Result<Tail, FsError> {
    if let Some(tail) = kept(io) {
        return Ok(tail);
    }
    match io.fs.open_rw(HISTORY_LOG) {
        Ok(Some(file)) => read_tail(file, true),
        Ok(None) => tail(io),
        Err(FsError::NotFound) => Ok(Tail::default()),
        Err(e) => Err(e),
    }
}

/// Keeps `tail` (as a change that put its versions on record left it) for
/// this instance's next change, the log held open: that change then checks
/// the log's stamp instead of opening it and reading its end. Only a tail
/// with nothing after its newest line is kept.
///
/// Why the check is enough: while the log is held open its file cannot be
/// freed, so no other file takes its identity; a log replaced (retention,
/// redaction, a copy) or removed is another file, and the one held loses
/// a name; every other change to it
/// appends (lines in flight go after the newest line, and are marked dead
/// or put on record only after), so a log written since is longer; and
/// any write moves its modification time. Where the adapter counts a
/// file's names, the held file's own metadata says all of it (one call,
/// no path walked); elsewhere the name's stamp is compared with the held
/// file's identity.
pub fn keep(io: &Io, mut tail: Tail) {
    let Some(slot) = io.warm_history() else {
        return;
    };
    let clean = tail.exists
        && tail.last.is_some()
        && tail.end == tail.size
        && tail.flight.is_empty()
        && !tail.unmarked;
    let held = match (&tail.file, clean) {
        (Some(file), true) => file.stat_named().ok(),
        _ => None,
    };
    *slot.borrow_mut() = held
        .filter(|(meta, links)| {
            meta.size == tail.size && meta.modified.is_some() && *links != Some(0)
        })
        .map(|(meta, links)| {
            tail.held = Some(HeldAs {
                modified: meta.modified,
                changed: meta.changed,
                links,
            });
            Box::new(tail) as Box<dyn std::any::Any>
        });
}

/// Tells the kept tail what a stat found at `path` right after this call
/// wrote `bytes` there ([`Recent::seen`]). The hash is this call's, known
/// already ([`Io::sha256_hex`]).
pub fn seen(io: &Io, path: &str, meta: &crate::storage::Meta, bytes: &[u8]) {
    let Some(slot) = io.warm_history() else {
        return;
    };
    let mut slot = slot.borrow_mut();
    let Some(tail) = slot.as_mut().and_then(|t| t.downcast_mut::<Tail>()) else {
        return;
    };
    if tail.recent.unseen(path) {
        tail.recent.seen(path, &io.sha256_hex(bytes), meta);
    }
}

/// The hash of the content at `path`, when a change of this instance left
/// it there and the file still has the metadata `meta` it had right after
/// ([`Recent::seen_as`]). Whether the content is still kept is for the
/// change to ask of the tail it reads ([`Recent::left`]).
pub fn seen_as(io: &Io, path: &str, meta: &crate::storage::Meta) -> Option<String> {
    let slot = io.warm_history()?.borrow();
    slot.as_ref()?
        .downcast_ref::<Tail>()?
        .recent
        .seen_as(path, meta)
}

/// The tail [`keep`] kept, taken, if the log is still the file it holds,
/// as it left it; `None` sends the caller to read the log.
fn kept(io: &Io) -> Option<Tail> {
    let mut tail = *io
        .warm_history()?
        .borrow_mut()
        .take()?
        .downcast::<Tail>()
        .ok()?;
    let held = tail.held?;
    if held.links.is_some() {
        let (meta, links) = tail.file.as_ref()?.stat_named().ok()?;
        let same = meta.size == tail.size
            && meta.modified == held.modified
            && meta.changed == held.changed
            && links == held.links;
        return same.then_some(tail);
    }
    let here = io.fs.stamp(HISTORY_LOG).ok()?;
    if here.size != tail.size || here.modified != held.modified || here.hash.is_none() {
        return None;
    }
    let identity = match tail.identity {
        Some(identity) => identity,
        None => tail.file.as_ref()?.stamp().ok()?.hash?,
    };
    tail.identity = Some(identity);
    (here.hash == Some(identity)).then_some(tail)
}

fn read_tail(file: Box<dyn File>, keep: bool) -> Result<Tail, FsError> {
    let size = file.stat()?.size;
    let mut tail = Tail {
        end: size,
        size,
        exists: true,
        ..Tail::default()
    };
    let mut window = TAIL;
    loop {
        let from = size.saturating_sub(window);
        let bytes = files::read_to_end(&*file, from, Some(window), Some(size - from))?;
        // The first line of a window that starts mid-file may be cut.
        let start = match from {
            0 => 0,
            _ => bytes
                .iter()
                .position(|&b| b == b'\n')
                .map_or(bytes.len(), |at| at + 1),
        };
        let mut lines = Vec::new();
        let mut at = start;
        for line in bytes[start..].split(|&b| b == b'\n') {
            lines.push((at, line));
            at += line.len() + 1;
        }
        let mut flight = Vec::new();
        let mut newest = None;
        // Whether a line on record or in flight was met (reading back).
        let mut live = false;
        // The last piece is no whole line (a newline ends each).
        for &(at, line) in lines.iter().rev().skip(1) {
            if let Some(version) = parse_line(line) {
                tail.unmarked = line.first() == Some(&b'{');
                newest = Some(version);
                if !live {
                    tail.end = (from + (at + line.len() + 1) as u64).min(size);
                }
                break;
            }
            if let Some(version) = line
                .strip_prefix(&[IN_FLIGHT])
                .and_then(|rest| serde_json::from_slice::<Version>(rest).ok())
            {
                if !live {
                    tail.end = (from + (at + line.len() + 1) as u64).min(size);
                    live = true;
                }
                flight.push(version);
                tail.flight_at = from + at as u64;
                tail.flight_text = bytes[at..].to_vec();
            }
        }
        if newest.is_none() && !live && from == 0 {
            tail.end = 0;
        }
        if newest.is_some() || from == 0 || window >= MAX_LOG_BYTES {
            flight.reverse();
            // What the newest version left is known as the contents a kept
            // tail's changes left are ([`Recent::known`]).
            if let Some(newest) = &newest {
                tail.recent.remember(std::slice::from_ref(newest));
            }
            tail.last = newest;
            tail.flight = flight;
            tail.file = keep.then_some(file);
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
    write_marked(io, tail, versions, ON_RECORD).map(drop)
}

/// Writes the versions of a change about to be made, in flight: with one
/// more write once it is made ([`commit`]) they are on record. `tail`
/// moves past them as if they were.
pub fn begin(io: &Io, tail: &mut Tail, versions: &[Version]) -> Result<Flight, FsError> {
    let before = tail.last.clone();
    let (at, text) = write_marked(io, tail, versions, IN_FLIGHT)?;
    Ok(Flight { at, text, before })
}

/// Puts the versions of [`begin`] on record (their change is made).
pub fn commit(io: &Io, tail: &Tail, flight: &Flight) -> Result<(), FsError> {
    if flight.text.is_empty() {
        return Ok(());
    }
    let text = marked_as(&flight.text, ON_RECORD);
    write(io, tail, flight.at, &text)
}

/// Writes `bytes` at `at` in the log: through the log `tail` holds open,
/// or by path.
fn write(io: &Io, tail: &Tail, at: u64, bytes: &[u8]) -> Result<(), FsError> {
    match &tail.file {
        Some(file) => file.write_at(at, bytes),
        None => io.fs.write_at(HISTORY_LOG, at, bytes),
    }
}

/// Leaves the versions of [`begin`] dead, their change not made or made
/// in part: the versions of the part made (`landed`) are logged again, on
/// record, then the others marked dead. A crash between the two leaves
/// them dead all the same: a line on record follows them. When none
/// landed, the next lines are written over them.
pub fn abandon(
    io: &Io,
    tail: &mut Tail,
    flight: Flight,
    landed: &[Version],
) -> Result<(), FsError> {
    tail.last = flight.before;
    append_at(io, tail, landed)?;
    if flight.text.is_empty() {
        return Ok(());
    }
    write(io, tail, flight.at, &marked_as(&flight.text, DEAD))?;
    if landed.is_empty() {
        tail.end = flight.at;
    }
    Ok(())
}

/// The versions a crash left in flight at the log's end, as [`begin`]
/// would have returned them (for [`abandon`]); `None` when there are none.
pub fn stranded(tail: &mut Tail) -> Option<(Flight, Vec<Version>)> {
    if tail.flight.is_empty() {
        return None;
    }
    let flight = Flight {
        at: tail.flight_at,
        text: std::mem::take(&mut tail.flight_text),
        before: tail.last.clone(),
    };
    Some((flight, std::mem::take(&mut tail.flight)))
}

/// `text` (lines each starting with a mark) with every line's mark `mark`.
fn marked_as(text: &[u8], mark: u8) -> Vec<u8> {
    let mut out = text.to_vec();
    let mut start = true;
    for b in out.iter_mut() {
        if start {
            *b = mark;
        }
        start = *b == b'\n';
    }
    out
}

/// Writes `versions` at the log's end, each line marked `mark`; where
/// their text starts, and the text.
fn write_marked(
    io: &Io,
    tail: &mut Tail,
    versions: &[Version],
    mark: u8,
) -> Result<(u64, Vec<u8>), FsError> {
    if versions.is_empty() {
        return Ok((tail.end, Vec::new()));
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
    let text = marked_as(lines(versions).as_bytes(), mark);
    if !tail.exists {
        let created = match io.fs.write_new(HISTORY_LOG, &text, false) {
            Err(FsError::NotFound) => {
                ensure_dir(io)?;
                io.fs.write_new(HISTORY_LOG, &text, false)
            }
            other => other,
        };
        match created {
            Ok(()) => {
                *tail = Tail {
                    end: text.len() as u64,
                    size: text.len() as u64,
                    exists: true,
                    last: versions.last().cloned(),
                    ..Tail::default()
                };
                return Ok((0, text));
            }
            // Made since it was looked at: append to it.
            Err(FsError::Exists) => *tail = tail_for_write(io)?,
            Err(e) => return Err(e),
        }
    }
    // What a failed change or a crash left after the last line is written
    // over, and what this text does not cover is left one dead line.
    let at = tail.end;
    let mut out = text.clone();
    out.extend_from_slice(&filler(tail.size.saturating_sub(at + text.len() as u64)));
    write(io, tail, at, &out)?;
    tail.end = at + text.len() as u64;
    tail.size = tail.size.max(at + out.len() as u64);
    tail.unmarked = false;
    tail.last = versions.last().cloned();
    Ok((at, text))
}

/// `len` bytes that read as no line: a dead line (an empty one for 1).
fn filler(len: u64) -> Vec<u8> {
    match len {
        0 => Vec::new(),
        1 => vec![b'\n'],
        _ => {
            let mut line = vec![b' '; len as usize];
            line[0] = DEAD;
            line[len as usize - 1] = b'\n';
            line
        }
    }
}

/// Replaces the whole log with `versions`, atomically; where each line is.
pub fn rewrite(io: &Io, versions: &[Version]) -> Result<Vec<Placed>, FsError> {
    ensure_dir(io)?;
    let (text, placed) = lines_placed(versions);
    files::put_private(io, HISTORY_LOG, text.as_bytes())?;
    Ok(placed)
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

/// The lines of `versions` on record, one each, newline-terminated.
pub fn lines(versions: &[Version]) -> String {
    lines_placed(versions).0
}

/// [`lines`], and where each line is in them.
fn lines_placed(versions: &[Version]) -> (String, Vec<Placed>) {
    let mut text = String::new();
    let mut placed = Vec::with_capacity(versions.len());
    for version in versions {
        let at = text.len();
        text.push(ON_RECORD as char);
        text.push_str(&serde_json::to_string(version).expect("a version serialises"));
        let len = u32::try_from(text.len() - at).unwrap_or(u32::MAX);
        placed.push(Placed { at: at as u64, len });
        text.push('\n');
    }
    (text, placed)
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

/// The version on one line, if it is on record and whole.
pub fn parse_line(line: &[u8]) -> Option<Version> {
    match line.first() {
        Some(&ON_RECORD | &b'{') => serde_json::from_slice(line).ok(),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::history::recent::tests::{stamp, version};
    use crate::history::version::Op;

    #[test]
    fn a_tail_read_from_the_log_knows_what_its_newest_version_left() {
        use crate::storage::Storage;
        let fs = crate::storage::memory::MemoryStorage::new();
        let text = lines(&[
            version("a.md", Op::Created, None, 1, Some("one")),
            version("b.md", Op::Created, None, 2, Some("two")),
        ]);
        fs.write_new("log", text.as_bytes(), false).unwrap();
        let tail = read_tail(fs.open("log", false).unwrap(), false).unwrap();
        assert_eq!(tail.recent.known("b.md", &stamp(2)).as_deref(), Some("two"));
        // Only the newest: an older one's content may since have gone.
        assert_eq!(tail.recent.known("a.md", &stamp(1)), None);
    }
}
