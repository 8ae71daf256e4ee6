//! The catalog: every note's metadata with the stamp of the file it was read
//! from, and every note directory's stamp as of its last listing, so only
//! what changed is listed or read again (`walk.rs` does the looking).
//!
//! It lives in guest memory while the instance is warm and in a journal,
//! `/memories/.memcap/notes.jsonl`, between instances and processes: a
//! binary snapshot, then one record per change (`journal.rs`). The directory
//! stays the truth: a lost or torn journal costs time, never correctness.

use std::cmp::Reverse;
use std::collections::BTreeMap;
use std::ops::Bound;
use std::rc::Rc;

use super::NoteType;
use super::journal::Record;
use super::snapshot::{Blocks, Head, RECENT_NOTES};
use crate::error::FsError;
use crate::io::Io;
use crate::storage::Meta;

pub use super::entry::{Entry, FileStamp};

/// The stamp of what `stat` saw.
pub(super) fn stamp_of(st: &Meta) -> FileStamp {
    FileStamp {
        size: st.size,
        modified: st.modified,
        changed: st.changed,
    }
}

/// What an instance keeps warm between calls: the catalog as the last call
/// left it.
#[derive(Default)]
pub struct Indexes {
    catalog: Option<Catalog>,
}

/// Every note, by path and by recency; every note directory with its stamp;
/// and where this instance is in the journal.
///
/// Notes come from the journal's snapshot lazily: the most recent ones at
/// once, the rest a block at a time when a call touches a path in it
/// ([`Blocks`]); the totals count them all from the start. Every change
/// reads the block of its path first, so a note is never changed, removed or
/// counted from a stale copy.
pub struct Catalog {
    /// The snapshot's blocks, while some are unread.
    pub(super) blocks: Option<Blocks>,
    /// Notes read so far, by path: all of them once no block is unread. The
    /// key is shared with `by_recency` (one allocation a note).
    entries: BTreeMap<Rc<str>, Rc<Entry>>,
    /// (newest first, path): the index lists from the front, so rendering
    /// costs the same for 100 notes as for 10,000.
    by_recency: BTreeMap<RecencyKey, Rc<Entry>>,
    /// While blocks are unread: the snapshot's last recent note. Every note
    /// up to it is in `by_recency`; past it some may be unread.
    horizon: Option<RecencyKey>,
    /// Notes in `by_recency` up to the horizon.
    before_horizon: usize,
    notes: usize,
    by_type: [usize; NoteType::ALL.len()],
    bytes: u64,
    /// Every other file outside `.memcap` (hidden ones, `node_modules`,
    /// MEMORY.md) with its size: they count toward the store's quota.
    pub(super) others: BTreeMap<String, u64>,
    other_bytes: u64,
    /// Directories outside `.memcap` ("" is the root), stamped when last listed.
    pub(super) dirs: BTreeMap<String, FileStamp>,
    /// Wall-clock seconds of the last walk that reached every file.
    pub(super) swept: u64,
    /// Whether the last walk stopped at its time budget before the end: the
    /// notes not reached yet are missing until a later call goes on.
    pub(super) incomplete: bool,
    pub(super) generation: u64,
    /// Bytes of the journal already applied (whole lines only).
    pub(super) applied: u64,
    /// JSON records in the journal after its snapshot.
    pub(super) records: usize,
    pub(super) pending: Vec<Record>,
}

/// A note's place in "most recent first" order.
type RecencyKey = (Reverse<u64>, Rc<str>);

/// Below this many notes up to the horizon, the index could need a note
/// past it, so every block is read.
const HORIZON_NOTES: usize = 256;

/// Runs `f` on the catalog, loaded or brought up to date with the journal
/// first (a cheap read of what other instances appended), then saves what
/// `f` changed. On any failure the in-memory copy is dropped, so the next
/// call starts again from the journal. When a block of the journal's
/// snapshot would not read ([`FsError::Damaged`]), the catalog is rebuilt
/// from the files and `f` runs again (what `f`s do here is safe to repeat).
pub fn with<T>(
    io: &Io,
    mut f: impl FnMut(&Io, &mut Catalog) -> Result<T, FsError>,
) -> Result<T, FsError> {
    io.start_budget();
    let mut indexes = io.indexes.borrow_mut();
    let mut outcome = current(io, indexes.catalog.take()).and_then(|c| run(io, c, &mut f));
    if let Err(FsError::Damaged) = outcome {
        // Used as built: on a store memcap cannot write, reading the
        // journal again would find the same damage.
        outcome = run(io, Catalog::rebuild(io)?, &mut f);
    }
    outcome.map(|(catalog, value)| {
        indexes.catalog = Some(catalog);
        value
    })
}

/// The warm catalog brought up to date with the journal, or the journal's.
fn current(io: &Io, warm: Option<Catalog>) -> Result<Catalog, FsError> {
    if let Some(mut warm) = warm
        && warm.catch_up(io)?
    {
        return Ok(warm);
    }
    Catalog::load(io)
}

fn run<T>(
    io: &Io,
    mut catalog: Catalog,
    f: &mut impl FnMut(&Io, &mut Catalog) -> Result<T, FsError>,
) -> Result<(Catalog, T), FsError> {
    let value = f(io, &mut catalog)?;
    // The journal is a cache: on a store memcap cannot write (or a full
    // disk) the answer stands and the next process rescans.
    if catalog.save(io).is_err() {
        catalog.pending.clear();
    }
    Ok((catalog, value))
}

impl Catalog {
    /// Every note, by path. Only a catalog with every block read has them
    /// all: callers run [`Catalog::read_all`] first (`maintain::fresh_all`).
    pub fn entries(&self) -> impl Iterator<Item = &Entry> {
        assert!(self.blocks.is_none(), "the catalog has unread notes");
        self.entries.values().map(|e| &**e)
    }

    pub fn len(&self) -> usize {
        self.notes
    }

    /// Files and bytes in the store (notes and every other file outside
    /// `.memcap`), as of the last look.
    pub fn usage(&self) -> (u64, u64) {
        (
            (self.notes + self.others.len()) as u64,
            self.bytes + self.other_bytes,
        )
    }

    /// The note at `path`, reading its block if need be.
    pub fn note(&mut self, path: &str) -> Result<Option<&Entry>, FsError> {
        self.read_under(path)?;
        Ok(self.entries.get(path).map(|e| &**e))
    }

    /// The size of the file at `path` as last seen, if the catalog has it.
    pub fn size_of(&mut self, path: &str) -> Result<Option<u64>, FsError> {
        let note = self.note(path)?.map(|e| e.stamp.size);
        Ok(note.or_else(|| self.others.get(path).copied()))
    }

    /// Whether the last walk ran out of time before reaching every note.
    pub fn incomplete(&self) -> bool {
        self.incomplete
    }

    /// Notes from the most recently changed on (ties by path). With blocks
    /// unread it stops at the horizon, past which it cannot tell the order,
    /// and yields at least [`HORIZON_NOTES`] notes first (or all of them).
    pub fn most_recent(&self) -> impl Iterator<Item = &Entry> {
        let upper = match &self.horizon {
            Some(horizon) => Bound::Included(horizon.clone()),
            None => Bound::Unbounded,
        };
        self.by_recency
            .range((Bound::Unbounded, upper))
            .map(|(_, e)| &**e)
    }

    /// Whether every note up to the horizon is young (changed at or after
    /// `since`), so notes past it may be too.
    pub(super) fn young_past_horizon(&self, since: u64) -> bool {
        self.horizon
            .as_ref()
            .is_some_and(|(Reverse(recency), _)| *recency >= since)
    }

    /// How many notes there are of each type, indexed by `NoteType as usize`.
    pub fn count_by_type(&self) -> [usize; NoteType::ALL.len()] {
        self.by_type
    }

    pub(super) fn empty() -> Self {
        Self {
            blocks: None,
            entries: BTreeMap::new(),
            by_recency: BTreeMap::new(),
            horizon: None,
            before_horizon: 0,
            notes: 0,
            by_type: [0; NoteType::ALL.len()],
            bytes: 0,
            others: BTreeMap::new(),
            other_bytes: 0,
            dirs: BTreeMap::new(),
            swept: 0,
            incomplete: false,
            generation: 0,
            applied: 0,
            records: 0,
            pending: Vec::new(),
        }
    }

    /// A catalog over a snapshot: its totals, other files, directories and
    /// recent notes now, its blocks when needed.
    pub(super) fn from_snapshot(mut head: Head, blocks: Blocks) -> Option<Self> {
        let mut catalog = Self::empty();
        catalog.by_type = head.counts()?;
        catalog.notes = usize::try_from(head.notes).ok()?;
        catalog.bytes = head.bytes;
        for (path, size) in std::mem::take(&mut head.others) {
            catalog.other_bytes += size;
            catalog.others.insert(path, size);
        }
        catalog.dirs = std::mem::take(&mut head.dirs).into_iter().collect();
        catalog.swept = head.swept;
        let recent = std::mem::take(&mut head.recent);
        catalog.horizon = recent
            .last()
            .map(|e| (Reverse(e.recency()), Rc::from(e.path.as_str())));
        for entry in recent {
            catalog.admit(entry);
        }
        catalog.blocks = Some(blocks);
        if catalog.before_horizon >= catalog.notes {
            // The recent notes are all of them.
            catalog.blocks = None;
            catalog.horizon = None;
        } else if catalog.before_horizon < HORIZON_NOTES {
            catalog.read_all().ok()?;
        }
        Some(catalog)
    }

    /// Reads every unread block: afterwards the catalog holds every note.
    pub fn read_all(&mut self) -> Result<(), FsError> {
        self.read_under("")
    }

    /// Reads the unread blocks that may hold `top` or notes below it.
    pub(super) fn read_under(&mut self, top: &str) -> Result<(), FsError> {
        let wanted = match &self.blocks {
            Some(blocks) => blocks.unread_under(top),
            None => return Ok(()),
        };
        self.read_blocks(wanted)
    }

    fn read_blocks(&mut self, wanted: Vec<usize>) -> Result<(), FsError> {
        let Some(blocks) = &mut self.blocks else {
            return Ok(());
        };
        let mut read = Vec::new();
        for i in wanted {
            // Any failure to read a block is damage: rebuild.
            read.extend(blocks.read(i).map_err(|_| FsError::Damaged)?);
        }
        let done = !blocks.unread();
        for entry in read {
            // A note read already (a recent one) may have changed since.
            if !self.entries.contains_key(entry.path.as_str()) {
                self.admit(entry);
            }
        }
        if done {
            self.blocks = None;
            self.horizon = None;
        }
        Ok(())
    }

    /// Applies one record, from this instance or read from the journal.
    pub(super) fn apply_record(&mut self, record: Record) -> Result<(), FsError> {
        match record {
            Record::Put(entry) => self.put(entry)?,
            Record::Del(path) => self.remove(&path)?,
            Record::Dir(path, stamp) => {
                self.dirs.insert(path, stamp);
            }
            Record::Undir(path) => {
                self.dirs.remove(&path);
            }
            Record::Swept(seconds) => self.swept = seconds,
            Record::Other(path, size) => {
                if let Some(old) = self.others.insert(path, size) {
                    self.other_bytes -= old;
                }
                self.other_bytes += size;
            }
            Record::Unother(path) => {
                if let Some(old) = self.others.remove(&path) {
                    self.other_bytes -= old;
                }
            }
        }
        Ok(())
    }

    /// Applies a change found here and queues it for the journal.
    pub(super) fn record(&mut self, record: Record) -> Result<(), FsError> {
        self.apply_record(record.clone())?;
        self.pending.push(record);
        Ok(())
    }

    fn put(&mut self, entry: Entry) -> Result<(), FsError> {
        self.remove(&entry.path)?;
        self.by_type[entry.meta.kind as usize] += 1;
        self.bytes += entry.stamp.size;
        self.notes += 1;
        self.admit(entry);
        Ok(())
    }

    /// Adds a note the totals already count (read from the snapshot, or
    /// counted by `put`).
    fn admit(&mut self, entry: Entry) {
        let key: Rc<str> = Rc::from(entry.path.as_str());
        let entry = Rc::new(entry);
        let recency = (Reverse(entry.recency()), Rc::clone(&key));
        if self.horizon.as_ref().is_some_and(|h| recency <= *h) {
            self.before_horizon += 1;
        }
        self.by_recency.insert(recency, Rc::clone(&entry));
        self.entries.insert(key, entry);
    }

    fn remove(&mut self, path: &str) -> Result<(), FsError> {
        self.read_under(path)?;
        let Some((key, old)) = self.entries.remove_entry(path) else {
            return Ok(());
        };
        let recency = (Reverse(old.recency()), key);
        self.by_recency.remove(&recency);
        self.by_type[old.meta.kind as usize] -= 1;
        self.bytes -= old.stamp.size;
        self.notes -= 1;
        if self.horizon.as_ref().is_some_and(|h| recency <= *h) {
            self.before_horizon -= 1;
            // The index could now need a note past the horizon.
            if self.before_horizon < HORIZON_NOTES {
                self.read_all()?;
            }
        }
        Ok(())
    }

    /// Paths in `map` at or below `top` ("" is everything).
    pub(super) fn under<'a, K: std::borrow::Borrow<str> + Ord, V>(
        map: &'a BTreeMap<K, V>,
        top: &'a str,
    ) -> impl Iterator<Item = &'a str> + 'a {
        map.range::<str, _>((Bound::Included(top), Bound::Unbounded))
            .map(|(path, _)| path.borrow())
            .take_while(move |path| path.starts_with(top))
            .filter(move |path| {
                top.is_empty() || path.len() == top.len() || path.as_bytes()[top.len()] == b'/'
            })
    }

    /// The notes at or below `top` (reading their blocks).
    pub(super) fn notes_under(&mut self, top: &str) -> Result<Vec<String>, FsError> {
        self.read_under(top)?;
        Ok(Self::under(&self.entries, top).map(str::to_owned).collect())
    }

    /// The notes directly in `dir` (reading their blocks).
    pub(super) fn notes_in(&mut self, dir: &str) -> Result<Vec<String>, FsError> {
        if dir.is_empty() {
            if let Some(blocks) = &self.blocks {
                self.read_blocks(blocks.unread_top_level())?;
            }
        } else {
            self.read_under(dir)?;
        }
        Ok(Self::under(&self.entries, dir)
            .filter(|path| super::walk::parent(path) == dir && *path != dir)
            .map(str::to_owned)
            .collect())
    }

    /// Forgets every file and directory at or below `top`.
    pub(super) fn forget(&mut self, top: &str) -> Result<(), FsError> {
        for path in self.notes_under(top)? {
            self.record(Record::Del(path))?;
        }
        let others: Vec<String> = Self::under(&self.others, top).map(str::to_owned).collect();
        for path in others {
            self.record(Record::Unother(path))?;
        }
        let dirs: Vec<String> = Self::under(&self.dirs, top).map(str::to_owned).collect();
        for path in dirs {
            self.record(Record::Undir(path))?;
        }
        Ok(())
    }

    /// The notes in path order, with the other parts of a snapshot.
    pub(super) fn snapshot_parts(&mut self) -> Result<(Head, Vec<Rc<Entry>>), FsError> {
        self.read_all()?;
        let head = Head {
            notes: self.notes as u64,
            by_type: self.by_type.iter().map(|&n| n as u64).collect(),
            bytes: self.bytes,
            others: self.others.iter().map(|(p, s)| (p.clone(), *s)).collect(),
            dirs: self.dirs.iter().map(|(d, s)| (d.clone(), *s)).collect(),
            swept: self.swept,
            recent: self.most_recent().take(RECENT_NOTES).cloned().collect(),
            ..Head::default()
        };
        Ok((head, self.entries.values().cloned().collect()))
    }
}
