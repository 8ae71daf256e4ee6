//! Contents packed together: the contents a change keeps are written one
//! file each ([`super::loose`], what a change can write in one call), and
//! the upkeep that runs every few hundred versions moves them into a few
//! segment files (`packs/NNNNNNNN`, appended, each at most
//! [`segment_bytes`]) with one index sorted by SHA-256 (`packs/index`), so
//! the history on disk is about the bytes it holds, not a block a version.
//!
//! A content is looked up with two reads of the index (its fan-out table,
//! then the records of one first byte) and one of its segment. Packing is
//! crash-safe by its order: planned first, and done once the log no longer
//! names what goes ([`plan`], [`apply`]); segments are appended (or
//! written anew) first, the index replaced whole (atomically) after, loose
//! files and emptied segments removed last; what a crash leaves between is
//! a duplicate or bytes no record names, dropped by the next packing. Erasing a content
//! (redaction) overwrites its bytes in the segment with zeros and drops its
//! record.

use std::collections::{BTreeMap, HashSet};

use super::loose;
use crate::error::FsError;
use crate::files;
use crate::io::Io;
use crate::layout::HISTORY_PACKS;
use crate::vocab::precondition::hex;

const MAGIC: &[u8; 8] = b"MCPACK01";
/// Magic, then the record count.
const HEADER: usize = 16;
/// For each first byte of a hash, how many records have a first byte at
/// most it (little-endian `u32`s).
const FANOUT: usize = 256 * 4;
/// A record: the hash, its segment, its length, its offset.
const RECORD_BYTES: usize = 32 + 4 + 4 + 8;
/// What a content kept costs the history beyond its bytes (its record),
/// as the log's totals count it.
pub const RECORD: u64 = RECORD_BYTES as u64;
/// The most bytes one segment takes.
const MAX_SEGMENT: u64 = 8 << 20;
/// How many bytes packing holds before it writes them.
const BATCH: usize = 4 << 20;

/// Where a content to pack is read from.
enum Source {
    Packed(Place),
    Loose(String),
}

fn index_path() -> String {
    format!("{HISTORY_PACKS}/index")
}

fn segment_path(segment: u32) -> String {
    format!("{HISTORY_PACKS}/{segment:08}")
}

/// Where a packed content is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Place {
    segment: u32,
    offset: u64,
    len: u32,
}

/// How big a segment grows: at most [`MAX_SEGMENT`], and an eighth of the
/// history's bytes, so that retention, which drops the oldest versions
/// first, empties whole segments (removed, not rewritten).
pub fn segment_bytes(budget: u64) -> u64 {
    (budget / 8).clamp(64 << 10, MAX_SEGMENT)
}

fn hash_bytes(sha: &str) -> Option<[u8; 32]> {
    if sha.len() != 64 {
        return None;
    }
    let mut out = [0u8; 32];
    for (i, byte) in out.iter_mut().enumerate() {
        *byte = u8::from_str_radix(sha.get(2 * i..2 * i + 2)?, 16).ok()?;
    }
    Some(out)
}

fn u32_at(bytes: &[u8], at: usize) -> u32 {
    u32::from_le_bytes(bytes[at..at + 4].try_into().expect("four bytes"))
}

fn u64_at(bytes: &[u8], at: usize) -> u64 {
    u64::from_le_bytes(bytes[at..at + 8].try_into().expect("eight bytes"))
}

fn record(bytes: &[u8]) -> ([u8; 32], Place) {
    let hash: [u8; 32] = bytes[..32].try_into().expect("a hash");
    let place = Place {
        segment: u32_at(bytes, 32),
        len: u32_at(bytes, 36),
        offset: u64_at(bytes, 40),
    };
    (hash, place)
}

/// The pack index opened for lookups: its file and its fan-out table,
/// and its records once enough lookups were made to read them all.
struct Index {
    file: Box<dyn crate::storage::File>,
    head: Vec<u8>,
    records: Option<Vec<u8>>,
    lookups: usize,
}

/// Lookups one [`Index`] serves by reading the records of one first byte
/// each; the next reads every record once (a blame of hundreds of
/// versions makes one read, not one a version).
const BUCKET_LOOKUPS: usize = 8;

impl Index {
    /// The index as it is now; `None` when there is none (nothing packed).
    fn open(io: &Io) -> Result<Option<Index>, FsError> {
        let file = match io.fs.open(&index_path(), false) {
            Ok(file) => file,
            Err(FsError::NotFound) => return Ok(None),
            Err(e) => return Err(e),
        };
        let head = files::read_to_end(&*file, 0, Some((HEADER + FANOUT) as u64), None)?;
        if head.len() < HEADER + FANOUT || &head[..8] != MAGIC {
            return Err(FsError::Damaged);
        }
        Ok(Some(Index {
            file,
            head,
            records: None,
            lookups: 0,
        }))
    }

    /// Where the content whose hash is `hash` is packed, if it is: the
    /// records that share its first byte read (all of them, once, after
    /// [`BUCKET_LOOKUPS`] lookups), not the whole index each time.
    fn find(&mut self, hash: &[u8; 32]) -> Result<Option<Place>, FsError> {
        let first = usize::from(hash[0]);
        let upto = |b: usize| u32_at(&self.head, HEADER + 4 * b) as u64;
        let (from, to) = (if first == 0 { 0 } else { upto(first - 1) }, upto(first));
        if to <= from {
            return Ok(None);
        }
        self.lookups += 1;
        if self.records.is_none() && self.lookups > BUCKET_LOOKUPS {
            let len = upto(255) * RECORD;
            let at = (HEADER + FANOUT) as u64;
            self.records = Some(files::read_to_end(&*self.file, at, Some(len), Some(len))?);
        }
        let read;
        let records = match &self.records {
            Some(all) => all
                .get((from * RECORD) as usize..(to * RECORD) as usize)
                .ok_or(FsError::Damaged)?,
            None => {
                let at = (HEADER + FANOUT) as u64 + from * RECORD;
                let len = (to - from) * RECORD;
                read = files::read_to_end(&*self.file, at, Some(len), Some(len))?;
                &read[..]
            }
        };
        Ok(records
            .chunks_exact(RECORD_BYTES)
            .map(record)
            .find(|(h, _)| h == hash)
            .map(|(_, place)| place))
    }
}

/// Where the content with hash `sha` is packed, if it is: the index's
/// fan-out read, then the records that share the hash's first byte.
fn find(io: &Io, sha: &str) -> Result<Option<Place>, FsError> {
    let Some(hash) = hash_bytes(sha) else {
        return Ok(None);
    };
    match Index::open(io)? {
        Some(mut index) => index.find(&hash),
        None => Ok(None),
    }
}

/// Whether the content with hash `sha` is packed (a damaged index is
/// taken as no: the content is kept loose again, and the pruning that
/// reads the index says what is wrong in `memory_stats`).
pub fn contains(io: &Io, sha: &str) -> Result<bool, FsError> {
    match find(io, sha) {
        Ok(place) => Ok(place.is_some()),
        Err(FsError::Damaged) => Ok(false),
        Err(e) => Err(e),
    }
}

/// The packed content with hash `sha`, when packed and whole.
pub fn get(io: &Io, sha: &str) -> Result<Option<Vec<u8>>, FsError> {
    match find(io, sha)? {
        Some(place) => get_at(io, sha, place),
        None => Ok(None),
    }
}

/// Many packed contents read in a row (a blame): the index opened once
/// (its first lookups read one first byte's records each, the next every
/// record at once), each segment opened once. A content packed or moved after the index was opened is not
/// found here; [`super::blobs::Reader`] looks again the usual way.
#[derive(Default)]
pub struct Reader {
    /// Opened at the first lookup (a blame that needs no older content,
    /// most of a search's, opens none); `None` inside when it cannot be
    /// read or there is none.
    index: Option<Option<Index>>,
    open: Vec<(u32, Box<dyn crate::storage::File>)>,
}

impl Reader {
    /// The content with hash `sha`, when the index names it and its bytes
    /// are whole; none when the index cannot be read: each content is then
    /// looked up the usual way, which says why it cannot be.
    pub fn get(&mut self, io: &Io, sha: &str) -> Result<Option<Vec<u8>>, FsError> {
        let index = self
            .index
            .get_or_insert_with(|| Index::open(io).ok().flatten());
        let (Some(index), Some(hash)) = (index.as_mut(), hash_bytes(sha)) else {
            return Ok(None);
        };
        let Some(place) = index.find(&hash).ok().flatten() else {
            return Ok(None);
        };
        let at = match self.open.iter().position(|(n, _)| *n == place.segment) {
            Some(at) => at,
            None => {
                let file = match io.fs.open(&segment_path(place.segment), false) {
                    Ok(file) => file,
                    Err(FsError::NotFound) => return Ok(None),
                    Err(e) => return Err(e),
                };
                self.open.push((place.segment, file));
                self.open.len() - 1
            }
        };
        let len = u64::from(place.len);
        let bytes = files::read_to_end(&*self.open[at].1, place.offset, Some(len), Some(len))?;
        Ok((io.sha256_hex(&bytes) == sha).then_some(bytes))
    }
}

/// The whole index: every record, by hash.
fn read_index(io: &Io) -> Result<BTreeMap<[u8; 32], Place>, FsError> {
    let file = match io.fs.open(&index_path(), false) {
        Ok(file) => file,
        Err(FsError::NotFound) => return Ok(BTreeMap::new()),
        Err(e) => return Err(e),
    };
    let size = file.stat()?.size;
    let bytes = files::read_to_end(&*file, 0, Some(super::log::MAX_LOG_BYTES), Some(size))?;
    if bytes.len() < HEADER + FANOUT || &bytes[..8] != MAGIC {
        return Err(FsError::Damaged);
    }
    let count = u64_at(&bytes, 8) as usize;
    let records = &bytes[HEADER + FANOUT..];
    if records.len() != count * RECORD_BYTES {
        return Err(FsError::Damaged);
    }
    Ok(records.chunks_exact(RECORD_BYTES).map(record).collect())
}

/// Replaces the index with `records`, atomically.
fn write_index(io: &Io, records: &BTreeMap<[u8; 32], Place>) -> Result<(), FsError> {
    let mut bytes = Vec::with_capacity(HEADER + FANOUT + records.len() * RECORD_BYTES);
    bytes.extend_from_slice(MAGIC);
    bytes.extend_from_slice(&(records.len() as u64).to_le_bytes());
    let mut counts = [0u32; 256];
    for hash in records.keys() {
        counts[usize::from(hash[0])] += 1;
    }
    let mut upto = 0u32;
    for count in counts {
        upto += count;
        bytes.extend_from_slice(&upto.to_le_bytes());
    }
    for (hash, place) in records {
        bytes.extend_from_slice(hash);
        bytes.extend_from_slice(&place.segment.to_le_bytes());
        bytes.extend_from_slice(&place.len.to_le_bytes());
        bytes.extend_from_slice(&place.offset.to_le_bytes());
    }
    files::put_private(io, &index_path(), &bytes)
}

/// The segments there are, by number, with their sizes.
fn segments(io: &Io) -> Result<BTreeMap<u32, u64>, FsError> {
    let entries = match io.fs.list(HISTORY_PACKS) {
        Ok(entries) => entries,
        Err(FsError::NotFound) => return Ok(BTreeMap::new()),
        Err(e) => return Err(e),
    };
    let mut found = BTreeMap::new();
    for entry in entries {
        if let Ok(n) = entry.name.parse::<u32>()
            && entry.name.len() == 8
        {
            found.insert(n, io.fs.stat(&segment_path(n), false)?.size);
        }
    }
    Ok(found)
}

/// What a packing did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Packed {
    /// Contents no version names any more, dropped.
    pub dropped: usize,
    /// Loose contents moved into a segment.
    pub packed: usize,
    /// Segments written anew or removed.
    pub rewritten: usize,
    /// The bytes the segments still hold of contents no record names.
    pub dead: u64,
}

/// What a packing will do ([`plan`]), and what the segments will hold of
/// contents no record names once it is done ([`Plan::dead`]).
pub struct Plan {
    index: BTreeMap<[u8; 32], Place>,
    /// Contents dropped from the index (and loose ones to remove).
    dropped: usize,
    drop_loose: Vec<String>,
    loose: Vec<(String, [u8; 32])>,
    rewrite: Vec<u32>,
    sizes: BTreeMap<u32, u64>,
    limit: u64,
    /// The bytes the segments will still hold of contents no record names.
    pub dead: u64,
}

/// Plans keeping exactly the contents `named` (what the log's versions
/// name; all others go, loose or packed) when `sweep`, else dropping only
/// `gone`, and packing every loose content kept. A segment left holding
/// nothing is removed; one mostly of dropped bytes is written anew with
/// what it still holds, and so are those with the most dropped bytes
/// while the history on disk (`log` bytes of log, the segments) would
/// pass `budget`. Nothing is written: [`apply`] does it, after the log no
/// longer names what goes.
pub fn plan(
    io: &Io,
    named: &HashSet<&str>,
    gone: &[String],
    sweep: bool,
    budget: u64,
    log: u64,
) -> Result<Plan, FsError> {
    let mut index = read_index(io)?;
    let drop_it = |sha: &str| match sweep {
        true => !named.contains(sha),
        false => gone.iter().any(|g| g == sha),
    };
    let before = index.len();
    index.retain(|hash, _| !drop_it(&hex(hash)));
    let dropped = before - index.len();
    // Loose contents: dropped, or packed (unless packed already).
    let (mut drop_loose, mut loose) = (Vec::new(), Vec::new());
    for sha in loose::list(io)? {
        if drop_it(&sha) {
            drop_loose.push(sha);
        } else if let Some(hash) = hash_bytes(&sha) {
            loose.push((sha, hash));
        }
    }
    let sizes = segments(io)?;
    // Live bytes per segment; a segment mostly dead is written anew.
    let mut live: BTreeMap<u32, u64> = BTreeMap::new();
    for place in index.values() {
        *live.entry(place.segment).or_default() += u64::from(place.len);
    }
    let held = |n: &u32| live.get(n).copied().unwrap_or(0);
    let dead = |n: &u32, size: u64| size.saturating_sub(held(n));
    let mut rewrite: Vec<u32> = sizes
        .iter()
        .filter(|(n, size)| held(n) > 0 && held(n) * 2 < **size)
        .map(|(n, _)| *n)
        .collect();
    // What the history would take on disk once the loose contents are in
    // and emptied segments gone.
    let mut disk = log
        + sizes
            .iter()
            .filter(|(n, _)| held(n) > 0)
            .map(|(_, size)| size)
            .sum::<u64>();
    for (sha, _) in &loose {
        disk += io.fs.stat(&loose::path(sha), false).map_or(0, |m| m.size);
    }
    disk -= rewrite.iter().map(|n| dead(n, sizes[n])).sum::<u64>();
    let mut by_dead: Vec<(u64, u32)> = sizes
        .iter()
        .filter(|(n, _)| !rewrite.contains(n) && held(n) > 0)
        .map(|(n, size)| (dead(n, *size), *n))
        .filter(|(d, _)| *d > 0)
        .collect();
    by_dead.sort_unstable_by(|a, b| b.cmp(a));
    let mut left = by_dead.iter().map(|(d, _)| d).sum::<u64>();
    for (bytes, n) in by_dead {
        if disk <= budget {
            break;
        }
        rewrite.push(n);
        disk -= bytes;
        left -= bytes;
    }
    Ok(Plan {
        index,
        dropped: dropped + drop_loose.len(),
        drop_loose,
        loose,
        rewrite,
        sizes,
        limit: segment_bytes(budget),
        dead: left,
    })
}

/// Does what [`plan`] planned.
pub fn apply(io: &Io, plan: Plan) -> Result<Packed, FsError> {
    let Plan {
        mut index,
        dropped,
        drop_loose,
        loose,
        rewrite,
        sizes,
        limit,
        dead,
    } = plan;
    let mut done = Packed {
        dropped,
        dead,
        ..Packed::default()
    };
    for sha in &drop_loose {
        loose::remove(io, sha)?;
    }
    let mut next = sizes.keys().next_back().map_or(0, |n| n + 1);
    // The newest segment, appended to while it has room (and is not
    // being written anew).
    let current = sizes
        .iter()
        .next_back()
        .filter(|(n, size)| **size < limit && !rewrite.contains(n))
        .map(|(n, size)| (*n, *size));
    // What moves into the newest segments: what the segments written anew
    // still hold, and the loose contents not packed yet; read one at a
    // time, written a few MiB at a time.
    let mut moving: Vec<([u8; 32], Source)> = Vec::new();
    for segment in &rewrite {
        for (hash, place) in index.iter().filter(|(_, p)| p.segment == *segment) {
            moving.push((*hash, Source::Packed(*place)));
        }
    }
    let mut taken = Vec::new();
    for (sha, hash) in &loose {
        if !index.contains_key(hash) {
            moving.push((*hash, Source::Loose(sha.clone())));
        }
        taken.push(sha.clone());
    }
    if moving.is_empty() && rewrite.is_empty() && taken.is_empty() && dropped == 0 {
        return Ok(done);
    }
    super::log::ensure_dir(io)?;
    match io.fs.create_dir(HISTORY_PACKS) {
        Ok(()) | Err(FsError::Exists) => {}
        Err(e) => return Err(e),
    }
    let mut batch: Vec<u8> = Vec::new();
    let mut places = Vec::new();
    let flush = |segment: (u32, u64), batch: &mut Vec<u8>| -> Result<(), FsError> {
        if batch.is_empty() {
            return Ok(());
        }
        let path = segment_path(segment.0);
        // A segment there already is appended to, even an empty one (a
        // crash between its creation and its first bytes): only a new
        // number is created, which never replaces anything.
        let written = match (segment.1, sizes.contains_key(&segment.0)) {
            (0, false) => io.fs.write_new(&path, batch, false),
            (at, _) => io.fs.write_at(&path, at, batch),
        };
        batch.clear();
        written
    };
    let (mut seg, mut at) = current.unwrap_or_else(|| {
        next += 1;
        (next - 1, 0)
    });
    // Where the batch starts in its segment.
    let mut start = at;
    for (hash, source) in moving {
        let sha = hex(&hash);
        let bytes = match source {
            Source::Packed(place) => get_at(io, &sha, place)?,
            Source::Loose(sha) => loose::get(io, &sha)?,
        };
        // A content gone or torn meanwhile is not packed (a torn loose one
        // is written again by the next change that keeps it).
        let Some(bytes) = bytes else { continue };
        if at > start && at + bytes.len() as u64 > limit {
            flush((seg, start), &mut batch)?;
            (seg, at) = (next, 0);
            start = 0;
            next += 1;
        } else if batch.len() >= BATCH {
            flush((seg, start), &mut batch)?;
            start = at;
        }
        places.push((
            hash,
            Place {
                segment: seg,
                offset: at,
                len: bytes.len() as u32,
            },
        ));
        at += bytes.len() as u64;
        batch.extend_from_slice(&bytes);
    }
    flush((seg, start), &mut batch)?;
    done.packed = taken.len();
    for (hash, place) in places {
        index.insert(hash, place);
    }
    write_index(io, &index)?;
    for sha in taken {
        loose::remove(io, &sha)?;
    }
    // Segments no record names (emptied, written anew, or left by a crash).
    let named_segments: HashSet<u32> = index.values().map(|p| p.segment).collect();
    for n in segments(io)?.into_keys() {
        if !named_segments.contains(&n) {
            match io.fs.remove_file(&segment_path(n)) {
                Ok(()) | Err(FsError::NotFound) => {}
                Err(e) => return Err(e),
            }
            done.rewritten += 1;
        }
    }
    Ok(done)
}

/// The content at `place`, when its bytes are whole (hash to `sha`).
fn get_at(io: &Io, sha: &str, place: Place) -> Result<Option<Vec<u8>>, FsError> {
    let file = match io.fs.open(&segment_path(place.segment), false) {
        Ok(file) => file,
        Err(FsError::NotFound) => return Ok(None),
        Err(e) => return Err(e),
    };
    let len = u64::from(place.len);
    let bytes = files::read_to_end(&*file, place.offset, Some(len), Some(len))?;
    Ok((io.sha256_hex(&bytes) == sha).then_some(bytes))
}

/// Erases the packed content with hash `sha` for good: its bytes in the
/// segment overwritten with zeros, its record dropped. `true` when it was
/// packed.
pub fn erase(io: &Io, sha: &str) -> Result<bool, FsError> {
    let Some(hash) = hash_bytes(sha) else {
        return Ok(false);
    };
    let mut index = read_index(io)?;
    let Some(place) = index.remove(&hash) else {
        return Ok(false);
    };
    match io.fs.write_at(
        &segment_path(place.segment),
        place.offset,
        &vec![0u8; place.len as usize],
    ) {
        Ok(()) | Err(FsError::NotFound) => {}
        Err(e) => return Err(e),
    }
    write_index(io, &index)?;
    Ok(true)
}
