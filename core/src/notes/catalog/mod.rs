//! The catalog: every note's metadata with the stamp of the file it was read
//! from, and every note directory's stamp as of its last listing, so only
//! what changed is listed or read again (`walk.rs` does the looking).
//!
//! It lives in memory while the instance is warm (`Indexes`) and in a journal,
//! `/memories/.memcap/notes.jsonl`, between instances and processes: a
//! binary snapshot, then one record per change (`journal.rs`). The directory
//! stays the truth: a lost or torn journal costs time, never correctness.

use std::cmp::Reverse;
use std::collections::{BTreeMap, BTreeSet};
use std::ops::Bound;
use std::rc::Rc;

mod blocks;
mod changes;

use super::derived::{self, DerivedIndex, NoteFacts, Registry};
use super::journal::{IndexMark, Record};
use super::memory_md::Parts;
use super::snapshot::Blocks;
use crate::error::FsError;
use crate::io::Io;
use crate::storage::{Meta, Stamp};
use crate::vocab::NoteType;

pub use super::entry::{Entry, FileStamp};

/// A note (`false`) or directory (`true`) and its path, as
/// [`Catalog::verify_aged`](super::walk) orders those of one second.
pub(in crate::notes) type Aged = (bool, String);

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
}

impl Indexes {
    /// With the derived indexes `registry` makes instead of memcap's own.
    pub fn with_registry(registry: Registry) -> Self {
        Self {
            catalog: None,
            registry,
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
    /// Set when the snapshot's recent notes stopped at the first note
    /// older than its verified mark (not at their bound): every note at
    /// least that young is up to the horizon.
    young_all_recent: Option<u64>,
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
    /// Wall-clock seconds before which every change is trusted: each note
    /// and directory that changed earlier was read or listed once its stamp
    /// was old enough to show every change ([`Record::Verified`]).
    pub(super) verified: u64,
    /// The last note or directory of the second [`Catalog::verified`]
    /// already read once more ([`Record::VerifiedPast`]). (Not in the
    /// snapshot: a rewrite of the journal reads that second's again.)
    pub(super) verified_past: Option<Aged>,
    /// While a sweep is under way: the directory it goes on from. (Not in
    /// the snapshot: a rewrite of the journal starts the sweep again.)
    pub(super) sweep_from: Option<String>,
    /// In that directory, listed already: the last file checked ("" for
    /// none yet). Not in the snapshot either.
    pub(super) sweep_past: Option<String>,
    /// Wall-clock second of the last slice of once-more reads or sweep
    /// ([`Record::Sliced`]): one a second at most. (Not in the snapshot: a
    /// rewrite of the journal allows one more.)
    pub(super) sliced: u64,
    /// Files the walks have checked in listed directories (a count the
    /// sweep measures its slices with).
    pub(super) files_listed: usize,
    /// Whether the last walk stopped at its time budget before the end: the
    /// notes not reached yet are missing until a later call goes on.
    pub(super) incomplete: bool,
    /// Directories and notes the walks found but may not read (at most
    /// [`MAX_UNREADABLE`]): what was known of them is kept, and
    /// `memory_stats` names them. Not saved: each host finds them anew.
    pub(super) unreadable: BTreeSet<String>,
    pub(super) generation: u64,
    /// The journal's `stat` when this instance last read it whole or wrote
    /// it: while the file still stats so, nothing was added since.
    pub(super) journal_seen: Option<Meta>,
    /// Bytes of the journal already applied (whole lines only).
    pub(super) applied: u64,
    /// JSON records in the journal after its snapshot.
    pub(super) records: usize,
    /// Records this instance replayed when it read the journal, until its
    /// first save.
    pub(super) replayed: usize,
    pub(super) pending: Vec<Record>,
    /// Notes put since the walks' batch began, and their bytes: what the
    /// derived indexes take in next.
    pub(super) batch_notes: usize,
    pub(super) batch_bytes: u64,
    /// Records of `pending` the derived indexes have taken.
    fed: usize,
    pub(super) derived: derived::Derived,
    /// The last note a walk read whole (path, stamp, bytes), so the
    /// derived indexes take its text without reading it again.
    pub(super) read_whole: Option<(String, FileStamp, Vec<u8>)>,
    /// MEMORY.md as this instance last read or wrote it: trusted only after
    /// a stamp check, which costs less than reading the file again.
    pub(in crate::notes) index_file: Option<KeptIndex>,
    /// MEMORY.md as the last render left it, unless a note changed since
    /// (from the journal: another process's render counts too).
    pub(in crate::notes) index_mark: Option<IndexMark>,
}

/// MEMORY.md as an instance last read or wrote it.
pub(in crate::notes) struct KeptIndex {
    pub bytes: Vec<u8>,
    /// The file's stamp then.
    pub stamp: Stamp,
    /// The text split around its region, when this instance wrote it (and
    /// so knows it without cleaning and splitting it again).
    pub parts: Option<Parts>,
}

/// A note's place in "most recent first" order.
type RecencyKey = (Reverse<u64>, Rc<str>);

/// Below this many notes up to the horizon, the index could need a note
/// past it, so every block is read.
const HORIZON_NOTES: usize = 256;
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
        assert!(self.blocks.is_none(), "the catalog has unread notes");
        self.entries.values().map(|e| &**e)
    }

    pub fn len(&self) -> usize {
        self.notes
    }

    /// The note at `path`, among the notes read so far (all of them after
    /// [`Catalog::read_all`], as `maintain::fresh_all` and `Needs::Graph` do).
    pub fn get(&self, path: &str) -> Option<&Entry> {
        self.entries.get(path).map(|e| &**e)
    }

    pub fn is_empty(&self) -> bool {
        self.notes == 0
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

    /// Whether the last walk ran out of time before reaching every note
    /// (in this instance, or on record: no walk that reached every file).
    pub fn incomplete(&self) -> bool {
        self.incomplete || self.swept == 0
    }

    /// The directories and notes memcap may not read (root-relative), as
    /// the walks last found them.
    pub fn unreadable(&self) -> impl Iterator<Item = &str> {
        self.unreadable.iter().map(String::as_str)
    }

    /// Records whether `path` could be read when last looked at.
    pub(super) fn mark_readable(&mut self, path: &str, readable: bool) {
        if readable {
            self.unreadable.remove(path);
        } else if self.unreadable.len() < MAX_UNREADABLE {
            self.unreadable.insert(path.to_owned());
        }
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
        let all_recent = self.young_all_recent.is_some_and(|mark| since >= mark);
        !all_recent
            && self
                .horizon
                .as_ref()
                .is_some_and(|(Reverse(recency), _)| *recency >= since)
    }

    /// How many notes there are of each type, indexed by `NoteType as usize`.
    pub fn count_by_type(&self) -> [usize; NoteType::ALL.len()] {
        self.by_type
    }

    pub(super) fn empty(registry: Registry) -> Self {
        Self {
            blocks: None,
            entries: BTreeMap::new(),
            by_recency: BTreeMap::new(),
            horizon: None,
            before_horizon: 0,
            young_all_recent: None,
            notes: 0,
            by_type: [0; NoteType::ALL.len()],
            bytes: 0,
            others: BTreeMap::new(),
            other_bytes: 0,
            dirs: BTreeMap::new(),
            swept: 0,
            verified: 0,
            verified_past: None,
            sweep_from: None,
            sweep_past: None,
            sliced: 0,
            files_listed: 0,
            incomplete: false,
            read_whole: None,
            index_file: None,
            index_mark: None,
            unreadable: BTreeSet::new(),
            generation: 0,
            journal_seen: None,
            applied: 0,
            records: 0,
            replayed: 0,
            pending: Vec::new(),
            batch_notes: 0,
            batch_bytes: 0,
            fed: 0,
            derived: derived::Derived::new(registry),
        }
    }

    /// Makes every derived index ready to answer (a new process restores
    /// their saved states lazily): before a command asks one.
    pub fn derived_ready(&mut self, io: &Io) -> Result<(), FsError> {
        for (entry, facts) in self.derived.ready(io)? {
            if let Some(updated) = self.corrected(&entry, facts) {
                self.record(Record::Put(Rc::new(updated)))?;
            }
        }
        Ok(())
    }

    /// The note `entry` was put as, with the facts the derived indexes
    /// found, if the catalog still has it so and they say something new.
    pub(in crate::notes) fn corrected(&self, entry: &Entry, facts: NoteFacts) -> Option<Entry> {
        self.entries
            .get(entry.path.as_str())
            .filter(|current| current.stamp == entry.stamp)
            .and_then(|current| current.with_facts(facts))
    }

    /// The derived index named `name`, for the commands that answer from
    /// it, once [`Catalog::derived_ready`].
    pub fn derived(&self, name: &str) -> Option<&dyn DerivedIndex> {
        self.derived.get(name)
    }

    /// Checks every derived index against every note and repairs what
    /// differs; returns how many changes that took (0 when all agree).
    pub fn verify_derived(&mut self, io: &Io) -> Result<usize, FsError> {
        self.read_all()?;
        let notes = self.entries.values().map(|e| &**e);
        let verified = self.derived.verify_all(io, notes)?;
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
