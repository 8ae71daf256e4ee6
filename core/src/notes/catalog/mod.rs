//! The catalog: every note's metadata with the stamp of the file it was read
//! from, and every note directory's stamp as of its last listing, so only
//! what changed is listed or read again (`walk.rs` does the looking).
//!
//! It lives in memory while the instance is warm (`Indexes`) and in a journal,
//! `/memories/.memcap/notes.jsonl`, between instances and processes: a
//! binary snapshot, then one record per change (`journal.rs`, each a `Record` of `record.rs`). The directory
//! stays the truth: a lost or torn journal costs time, never correctness.

use std::cmp::Reverse;
use std::rc::Rc;

mod blocks;
mod changes;
mod index_feed;
mod journal;
mod journal_state;
mod memory_md_cache;
mod note_set;
mod walk_state;

pub(in crate::notes) use index_feed::IndexFeed;
pub(in crate::notes) use journal_state::JournalState;
pub(in crate::notes) use memory_md_cache::MemoryMdCache;
pub(in crate::notes) use note_set::NoteSet;
pub(in crate::notes) use walk_state::WalkState;

use super::derived::{self, DerivedIndex, Registry};
use super::memory_md::Parts;
use super::record::Record;
use crate::error::FsError;
use crate::io::Io;
use crate::storage::{Meta, Stamp};
use crate::vocab::NoteType;

pub use super::entry::{Entry, FileStamp, NoteFacts};
pub(in crate::notes) use super::record::Aged;

/// The stamp of what `stat` saw.
pub(crate) fn stamp_of(st: &Meta) -> FileStamp {
    FileStamp {
        size: st.size,
        modified: st.modified,
        changed: st.changed,
    }
}

/// What an instance keeps warm between calls: the catalog (with its
/// derived indexes) as the last call left it.
pub struct Indexes {
    catalog: Option<Catalog>,
    registry: Registry,
    /// The history's log, held open between changes (a slot of its own:
    /// a change writes it while the catalog is borrowed).
    pub(crate) history: crate::io::WarmSlot,
}

impl Indexes {
    /// With the derived indexes `registry` makes instead of memcap's own.
    pub fn with_registry(registry: Registry) -> Self {
        Self {
            catalog: None,
            registry,
            history: Default::default(),
        }
    }
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
    /// The notes and the other files, read so far.
    pub(super) notes: NoteSet,
    /// Where the walks are: directories' stamps, the sweep, what is trusted.
    pub(super) walk: WalkState,
    /// Where this instance is in the journal, and what it has not saved.
    pub(super) journal: JournalState,
    /// What the derived indexes are fed, and the indexes themselves.
    pub(super) feed: IndexFeed,
    /// MEMORY.md as this instance last knew it.
    pub(in crate::notes) memory_md: MemoryMdCache,
}

/// MEMORY.md as an instance last read or wrote it.
pub(in crate::notes) struct KeptIndex {
    pub bytes: Vec<u8>,
    /// The bytes' SHA-256 (hex), taken once: a warm call compares it with
    /// the catalog's mark instead of hashing the file's copy again.
    pub sha256: String,
    /// The file's stamp then.
    pub stamp: Stamp,
    /// The text split around its region, when this instance wrote it (and
    /// so knows it without cleaning and splitting it again).
    pub parts: Option<Parts>,
}

/// A note's place in "most recent first" order.
pub(in crate::notes) type RecencyKey = (Reverse<u64>, Rc<str>);

/// Below this many notes up to the horizon, the index could need a note
/// past it, so every block is read.
pub(in crate::notes) const HORIZON_NOTES: usize = 256;
/// The most unreadable paths a catalog keeps to name.
pub const MAX_UNREADABLE: usize = 100;

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
    let mut warm = io.warm().borrow_mut();
    let indexes = warm
        .downcast_mut::<Indexes>()
        .expect("Io::new takes the instance's Indexes");
    let registry = indexes.registry;
    let mut outcome =
        current(io, indexes.catalog.take(), registry).and_then(|c| run(io, c, &mut f));
    if let Err(FsError::Damaged) = outcome {
        // Used as built: on a store memcap cannot write, reading the
        // journal again would find the same damage.
        outcome = run(io, Catalog::rebuild(io, registry)?, &mut f);
    }
    outcome.map(|(catalog, value)| {
        io.mark_journal_read();
        indexes.catalog = Some(catalog);
        value
    })
}

/// Drops the warm catalog (and its derived indexes): the next call loads
/// them from the journal, or rebuilds them from the files when it is gone.
pub fn forget(io: &Io) {
    if let Some(indexes) = io.warm().borrow_mut().downcast_mut::<Indexes>() {
        indexes.catalog = None;
        indexes.history.borrow_mut().take();
    }
}

/// The warm catalog brought up to date with the journal, or the journal's.
fn current(io: &Io, warm: Option<Catalog>, registry: Registry) -> Result<Catalog, FsError> {
    if let Some(mut warm) = warm
        && (io.journal_read() || warm.catch_up(io)?)
    {
        return Ok(warm);
    }
    Catalog::load(io, registry)
}

fn run<T>(
    io: &Io,
    mut catalog: Catalog,
    f: &mut impl FnMut(&Io, &mut Catalog) -> Result<T, FsError>,
) -> Result<(Catalog, T), FsError> {
    let value = f(io, &mut catalog)?;
    catalog.follow(io)?;
    // The journal is a cache: on a store memcap cannot write (or a full
    // disk) the answer stands and the next process rescans.
    if catalog.save(io).is_err() {
        catalog.clear_pending();
    }
    Ok((catalog, value))
}

impl Catalog {
    /// Every note, by path. Only a catalog with every block read has them
    /// all: callers run [`Catalog::read_all`] first (`maintain::fresh_all`).
    pub fn entries(&self) -> impl Iterator<Item = &Entry> {
        assert!(self.notes.blocks.is_none(), "the catalog has unread notes");
        self.notes.entries.values().map(|e| &**e)
    }

    pub fn len(&self) -> usize {
        self.notes.count
    }

    /// The note at `path`, among the notes read so far (all of them after
    /// [`Catalog::read_all`], as `maintain::fresh_all` and `Needs::Graph` do).
    pub fn get(&self, path: &str) -> Option<&Entry> {
        self.notes.entries.get(path).map(|e| &**e)
    }

    pub fn is_empty(&self) -> bool {
        self.notes.count == 0
    }

    /// The note at `path`, reading its block if need be.
    pub fn note(&mut self, path: &str) -> Result<Option<&Entry>, FsError> {
        self.read_under(path)?;
        Ok(self.notes.entries.get(path).map(|e| &**e))
    }

    /// The size of the file at `path` as last seen, if the catalog has it.
    pub fn size_of(&mut self, path: &str) -> Result<Option<u64>, FsError> {
        let note = self.note(path)?.map(|e| e.stamp.size);
        Ok(note.or_else(|| self.notes.others.get(path).copied()))
    }

    /// Files and bytes in the store (notes and every other file outside
    /// `.memcap`), as of the last look.
    pub fn usage(&self) -> (u64, u64) {
        self.notes.usage()
    }

    /// Whether the last walk ran out of time before reaching every note
    /// (in this instance, or on record: no walk that reached every file).
    pub fn incomplete(&self) -> bool {
        self.walk.is_incomplete()
    }

    /// The directories and notes memcap may not read (root-relative), as
    /// the walks last found them.
    pub fn unreadable(&self) -> impl Iterator<Item = &str> {
        self.walk.unreadable()
    }

    /// Records whether `path` could be read when last looked at.
    pub(super) fn mark_readable(&mut self, path: &str, readable: bool) {
        self.walk.mark_readable(path, readable);
    }

    /// Notes from the most recently changed on (ties by path); see
    /// [`NoteSet::most_recent`].
    pub fn most_recent(&self) -> impl Iterator<Item = &Entry> {
        self.notes.most_recent()
    }

    /// Whether every note up to the horizon is young (changed at or after
    /// `since`), so notes past it may be too.
    pub(super) fn young_past_horizon(&self, since: u64) -> bool {
        self.notes.young_past_horizon(since)
    }

    /// How many notes there are of each type, indexed by `NoteType as usize`.
    pub fn count_by_type(&self) -> [usize; NoteType::ALL.len()] {
        self.notes.by_type
    }

    pub(super) fn empty(registry: Registry) -> Self {
        Self {
            notes: NoteSet::default(),
            walk: WalkState::default(),
            journal: JournalState::default(),
            feed: IndexFeed {
                batch_notes: 0,
                batch_bytes: 0,
                fed: 0,
                derived: derived::Derived::new(registry),
                read_whole: None,
            },
            memory_md: MemoryMdCache::default(),
        }
    }

    /// Makes every derived index ready to answer (a new process restores
    /// their saved states lazily): before a command asks one.
    pub fn derived_ready(&mut self, io: &Io) -> Result<(), FsError> {
        for (entry, facts) in self.feed.derived.ready(io)? {
            if let Some(updated) = self.corrected(&entry, facts) {
                self.record(Record::Put(Rc::new(updated)))?;
            }
        }
        Ok(())
    }

    /// Makes the derived indexes ready when a change waiting may change
    /// what MEMORY.md shows of notes other than the one changed (a note
    /// that supersedes another): before MEMORY.md is rendered. Any other
    /// change keeps waiting, so a write still costs no indexing.
    pub fn ready_for_index(&mut self, io: &Io) -> Result<(), FsError> {
        if self.feed.derived.behind_moves_others() {
            self.derived_ready(io)?;
        }
        Ok(())
    }

    /// The note `entry` was put as, with the facts the derived indexes
    /// found, if the catalog still has it so and they say something new.
    pub(in crate::notes) fn corrected(&self, entry: &Entry, facts: NoteFacts) -> Option<Entry> {
        self.notes
            .entries
            .get(entry.path.as_str())
            .filter(|current| current.stamp == entry.stamp)
            .and_then(|current| current.with_facts(facts))
    }

    /// The derived index named `name`, for the commands that answer from
    /// it, once [`Catalog::derived_ready`].
    pub fn derived(&self, name: &str) -> Option<&dyn DerivedIndex> {
        self.feed.derived.get(name)
    }

    /// Checks every derived index against every note and repairs what
    /// differs; returns how many changes that took (0 when all agree).
    pub fn verify_derived(&mut self, io: &Io) -> Result<usize, FsError> {
        self.read_all()?;
        let notes = self.notes.entries.values().map(|e| &**e);
        let verified = self.feed.derived.verify_all(io, notes)?;
        // An index that counts otherwise now (a new version of it): the
        // catalog takes its facts, and the journal with it.
        for (path, facts) in verified.facts {
            let updated = self.get(&path).and_then(|e| e.with_facts(facts));
            if let Some(updated) = updated {
                self.record(Record::Put(Rc::new(updated)))?;
            }
        }
        Ok(verified.changes)
    }
}
