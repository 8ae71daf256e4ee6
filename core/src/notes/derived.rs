//! Derived indexes: state computed from the notes (a search index, a
//! graph) kept in step with them by following the catalog's changes.
//!
//! The catalog is the one index that looks at the files; every note it
//! finds new, changed or gone reaches each derived index as a
//! [`NoteChange`], from this call or replayed from the journal that another
//! process appended to. Each index's state is saved as its own versioned
//! part of the journal's snapshot; a part that is missing, of another
//! version or that does not decode costs that index a rebuild from the
//! catalog, never a wrong answer. Adding an index is one implementation of
//! [`DerivedIndex`] and one line in `crate::indexes::registry`.

use std::borrow::Cow;
use std::collections::BTreeMap;
use std::rc::Rc;

#[cfg(doc)]
use super::entry::FileStamp;
use super::entry::{Entry, NoteFacts};
use super::record::Record;
use crate::error::FsError;
use crate::io::Io;
use crate::storage::File;

/// One change among the notes.
#[derive(Clone, Copy, Debug)]
pub enum NoteChange<'a> {
    /// A note is new, or changed since the index last took it, with its
    /// text as read now (read once for every index), `None` when it cannot
    /// be read or is not UTF-8 text.
    Put(&'a Entry, Option<&'a str>),
    /// The note at this root-relative path is gone.
    Removed(&'a str),
}

/// Where a record the derived indexes follow comes from, and so when they
/// take it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Arrival {
    /// This call's change, taken at once (unless others wait before it).
    Now,
    /// This call's change, left until the indexes are asked.
    Deferred,
    /// Replayed from the journal another process appended to: queued, the
    /// note's facts being those its writer found.
    Replayed,
}

/// An index derived from the notes.
pub trait DerivedIndex {
    /// Its name in the journal: unique among the registered indexes.
    fn name(&self) -> &'static str;

    /// The version of what [`DerivedIndex::persist`] writes: a saved state of
    /// another version is never restored (the index is rebuilt instead).
    fn version(&self) -> u32;

    /// Takes one change; the cost should be proportional to the note, not
    /// to the store. Returns what it learned of a note put that the
    /// catalog keeps with it ([`NoteFacts::default`] when nothing).
    fn apply(&mut self, io: &Io, change: NoteChange) -> Result<NoteFacts, FsError>;

    /// What [`DerivedIndex::apply`] would learn of a note put, without
    /// taking it (for a change that waits until the indexes are asked).
    fn facts_of(&self, _entry: &Entry, _text: Option<&str>) -> NoteFacts {
        NoteFacts::default()
    }

    /// Whether taking a change still waiting may change what it answers of
    /// notes other than the one changed in a way MEMORY.md shows (for the
    /// graph: which notes are superseded). `facts`: the note's, as its
    /// writer or [`DerivedIndex::facts_of`] found them. MEMORY.md is
    /// rendered after the indexes take such a change, and without them
    /// taking any other.
    fn moves_others(&self, _change: NoteChange, _facts: NoteFacts) -> bool {
        false
    }

    /// Makes what it restored answer: an index that takes its saved state
    /// lazily ([`DerivedIndex::restore`]) takes it now, with every change
    /// since. The catalog calls this before any command asks the index, and
    /// before checking it ([`verify`]). [`FsError::Damaged`] when the saved
    /// state does not decode after all (the catalog is then rebuilt).
    fn ready(&mut self, _io: &Io) -> Result<(), FsError> {
        Ok(())
    }

    /// As [`DerivedIndex::restore`], from its part of the journal's
    /// snapshot, read when the index wants it (by default at once, whole).
    fn restore_saved(&mut self, io: &Io, part: SavedPart) -> bool {
        part.read().is_ok_and(|bytes| self.restore(io, bytes))
    }

    /// Whether its state should be saved at the end of this call though
    /// it took few changes: answering cost what every next process would
    /// pay again until it is saved. [`DerivedIndex::persist`] clears it.
    fn save_soon(&self) -> bool {
        false
    }

    /// Its whole state, for the journal's snapshot. An index may answer
    /// from what it saved from then on (hence `&mut`), as the search index
    /// does, so it can hand out its own bytes.
    fn persist(&mut self) -> Cow<'_, [u8]>;

    /// Its state back from bytes [`DerivedIndex::persist`] wrote at this
    /// version; `false` when they do not decode or do not suit this
    /// instance's environment (it is then rebuilt).
    fn restore(&mut self, io: &Io, bytes: Vec<u8>) -> bool;

    /// Every note it holds, with the [`FileStamp::digest`] of the note it
    /// took: [`verify`] compares these with the catalog.
    fn stamps(&self) -> BTreeMap<String, u64>;

    /// Forgets everything (before a rebuild).
    fn clear(&mut self);

    /// Itself, for the command that queries it (`downcast_ref`).
    fn as_any(&self) -> &dyn std::any::Any;
}

/// Makes the derived indexes an instance keeps.
pub type Registry = fn() -> Vec<Box<dyn DerivedIndex>>;

/// What [`verify`] did.
#[derive(Debug, Default)]
pub struct Verified {
    /// Changes the index took.
    pub changes: usize,
    /// Notes put whose facts differ from what the catalog has (the index
    /// counts them otherwise than when the catalog last heard).
    pub facts: Vec<(String, NoteFacts)>,
}

/// Brings `index` in line with `notes` (every note, as the catalog has
/// them): notes it lacks or took at another stamp are put, notes it has
/// that are gone are removed.
pub fn verify<'a>(
    io: &Io,
    index: &mut dyn DerivedIndex,
    notes: impl Iterator<Item = &'a Entry>,
) -> Result<Verified, FsError> {
    let mut held = index.stamps();
    let mut verified = Verified::default();
    for entry in notes {
        if held.remove(&entry.path) != Some(entry.stamp.digest()) {
            let text = crate::files::read_indexed(io, &entry.path);
            let facts = index.apply(io, NoteChange::Put(entry, text.as_deref()))?;
            if entry.differs(facts) {
                verified.facts.push((entry.path.clone(), facts));
            }
            verified.changes += 1;
        }
    }
    for path in held.keys() {
        index.apply(io, NoteChange::Removed(path))?;
        verified.changes += 1;
    }
    Ok(verified)
}

/// A derived index's part of the journal's snapshot, not read yet: the
/// journal's file (the handle keeps reading the snapshot it opened when a
/// rewrite renames a new journal into place, as the catalog's blocks do)
/// and where the part lies in it.
#[derive(Clone)]
pub struct SavedPart {
    file: Rc<dyn File>,
    offset: u64,
    len: u64,
}

impl SavedPart {
    /// The `len` bytes of `file` from `offset`.
    pub fn new(file: Rc<dyn File>, offset: u64, len: u64) -> Self {
        Self { file, offset, len }
    }

    /// The whole part ([`FsError::Damaged`] when the file is shorter).
    pub fn read(&self) -> Result<Vec<u8>, FsError> {
        crate::files::read_exact(&*self.file, self.offset, self.len)
    }

    /// Its first `len` bytes (fewer when it is shorter).
    pub fn head(&self, len: u64) -> Result<Vec<u8>, FsError> {
        crate::files::read_exact(&*self.file, self.offset, len.min(self.len))
    }

    /// Its `len` bytes from `at` ([`FsError::Damaged`] past its end).
    pub fn range(&self, at: u64, len: u64) -> Result<Vec<u8>, FsError> {
        if at.checked_add(len).is_none_or(|end| end > self.len) {
            return Err(FsError::Damaged);
        }
        crate::files::read_exact(&*self.file, self.offset + at, len)
    }

    /// Its `len` bytes from `at`, one of many reads of a small block (no
    /// stat of the file first: [`FsError::Damaged`] when it reads short).
    /// A host that gives the whole block in one read (wasmtime gives up to
    /// 64 KiB) hands over the very buffer it filled, not a copy.
    pub fn block(&self, at: u64, len: u64) -> Result<Vec<u8>, FsError> {
        if at.checked_add(len).is_none_or(|end| end > self.len) {
            return Err(FsError::Damaged);
        }
        let (mut bytes, _) = self.file.read_at(self.offset + at, len)?;
        let got = bytes.len() as u64;
        if got < len && got > 0 {
            let rest = len - got;
            bytes.extend(crate::files::read_to_end(
                &*self.file,
                self.offset + at + got,
                Some(rest),
                Some(rest),
            )?);
        }
        if bytes.len() as u64 == len {
            Ok(bytes)
        } else {
            Err(FsError::Damaged)
        }
    }

    /// Its length in bytes.
    pub fn size(&self) -> u64 {
        self.len
    }
}

/// A saved state an index keeps undecoded: its bytes, or its part of the
/// journal not read yet.
pub enum Saved {
    Bytes(Vec<u8>),
    Part(SavedPart),
}

impl Saved {
    /// The bytes (read from the journal if need be).
    pub fn bytes(&self) -> Result<Cow<'_, [u8]>, FsError> {
        match self {
            Saved::Bytes(bytes) => Ok(Cow::Borrowed(bytes)),
            Saved::Part(part) => part.read().map(Cow::Owned),
        }
    }

    /// The bytes, taken.
    pub fn into_bytes(self) -> Result<Vec<u8>, FsError> {
        match self {
            Saved::Bytes(bytes) => Ok(bytes),
            Saved::Part(part) => part.read(),
        }
    }
}

/// Where a derived index's saved state lies in the journal's snapshot.
#[derive(serde::Serialize, serde::Deserialize, Clone, Debug, PartialEq, Eq)]
pub(super) struct Part {
    pub name: String,
    pub version: u32,
    pub len: u64,
}

/// The derived indexes of one catalog.
///
/// A change replayed from the journal, or made by a write, waits until a
/// command asks the indexes ([`Derived::ready`]) or the journal is
/// rewritten ([`Derived::settle`]): a write costs no indexing, and a
/// `prompt`, `view` or `create` in a new process reads no note the journal
/// already names. So does every change while the indexes are as restored.
/// A change a walk finds in live indexes with nothing waiting is taken at
/// once, so a store's first index is built batch by batch, each call
/// saving what it took in. The changes wait in order, as records (the
/// journal holds them too, so they are bounded as its records are); a note
/// changed many times before the indexes are asked is indexed once.
pub(super) struct Derived {
    indexes: Vec<Box<dyn DerivedIndex>>,
    /// The changes waiting.
    behind: Vec<Record>,
    /// Whether one of them may change what MEMORY.md shows of other notes
    /// ([`DerivedIndex::moves_others`]).
    behind_moves_others: bool,
    /// Whether the indexes answer as they stand: built here, or restored
    /// and made ready.
    live: bool,
    /// Changes the indexes took since their state was last saved (or
    /// restored): what a new process would take again.
    pub taken: usize,
}

/// The note a queued record changes (only puts and removals are queued).
fn changed_path(record: &Record) -> Option<&str> {
    match record {
        Record::Put(entry) => Some(&entry.path),
        Record::Del(path) => Some(path),
        _ => None,
    }
}

/// A note put whose facts the indexes found other than the catalog has:
/// the entry as put, and what they found.
pub(super) type Correction = (Rc<Entry>, NoteFacts);

impl Derived {
    pub fn new(registry: Registry) -> Self {
        Self {
            indexes: registry(),
            behind: Vec::new(),
            behind_moves_others: false,
            live: true,
            taken: 0,
        }
    }

    /// Hands one of the catalog's records to every index, or queues it
    /// (unless it arrives [`Arrival::Now`], or while others wait); returns
    /// what they learned of a note put (for a queued one, what they would:
    /// nothing for a replayed record, whose writer's facts the catalog
    /// keeps). `known`: the note's bytes, when the walk that found it read
    /// it whole.
    pub fn follow(
        &mut self,
        io: &Io,
        record: &Record,
        known: Option<Vec<u8>>,
        arrival: Arrival,
    ) -> Result<NoteFacts, FsError> {
        if self.indexes.is_empty() || !matches!(record, Record::Put(_) | Record::Del(_)) {
            return Ok(NoteFacts::default());
        }
        if self.live && self.behind.is_empty() && arrival == Arrival::Now {
            self.taken += 1;
            return self.apply(io, record, known);
        }
        self.behind.push(record.clone());
        let (change, facts, found) = match record {
            Record::Put(entry) if arrival != Arrival::Replayed => {
                let text = match known {
                    Some(bytes) => crate::files::indexed_text(bytes),
                    None => crate::files::read_indexed(io, &entry.path),
                };
                let found = self
                    .indexes
                    .iter()
                    .fold(NoteFacts::default(), |facts, index| {
                        facts.and(index.facts_of(entry, text.as_deref()))
                    });
                (NoteChange::Put(entry, None), found, found)
            }
            // The writer's facts, kept with the entry.
            Record::Put(entry) => (
                NoteChange::Put(entry, None),
                NoteFacts {
                    relations: Some(entry.relations),
                    supersedes: Some(entry.supersedes),
                },
                NoteFacts::default(),
            ),
            Record::Del(path) => (
                NoteChange::Removed(path),
                NoteFacts::default(),
                NoteFacts::default(),
            ),
            _ => return Ok(NoteFacts::default()),
        };
        if !self.behind_moves_others {
            self.behind_moves_others = self
                .indexes
                .iter()
                .any(|index| index.moves_others(change, facts));
        }
        Ok(found)
    }

    /// Whether a change waiting may change what MEMORY.md shows of other
    /// notes: it is then rendered with the indexes ready.
    pub fn behind_moves_others(&self) -> bool {
        self.behind_moves_others
    }

    /// Makes every index answer: each takes what it restored, then the
    /// changes that waited (of a note changed more than once, the last).
    /// Returns the notes whose facts they found other than the catalog has.
    pub fn ready(&mut self, io: &Io) -> Result<Vec<Correction>, FsError> {
        for index in &mut self.indexes {
            index.ready(io)?;
        }
        self.live = true;
        self.behind_moves_others = false;
        let behind = std::mem::take(&mut self.behind);
        let latest: Vec<bool> = {
            let mut last = std::collections::HashMap::new();
            for (at, record) in behind.iter().enumerate() {
                last.insert(changed_path(record), at);
            }
            (0..behind.len())
                .map(|at| last.get(&changed_path(&behind[at])) == Some(&at))
                .collect()
        };
        let mut corrections = Vec::new();
        for (record, latest) in behind.into_iter().zip(latest) {
            if !latest {
                continue;
            }
            let facts = self.apply(io, &record, None)?;
            self.taken += 1;
            if let Record::Put(entry) = record
                && entry.differs(facts)
            {
                corrections.push((entry, facts));
            }
        }
        Ok(corrections)
    }

    /// Whether an index asks to be saved at the end of this call
    /// ([`DerivedIndex::save_soon`]).
    pub fn save_soon(&self) -> bool {
        self.indexes.iter().any(|index| index.save_soon())
    }

    /// Every index ready to be saved: the changes that waited taken (as
    /// [`Derived::ready`]). Indexes still as restored, with nothing
    /// waiting, stay so: each saves the state it restored.
    pub fn settle(&mut self, io: &Io) -> Result<Vec<Correction>, FsError> {
        if self.behind.is_empty() {
            return Ok(Vec::new());
        }
        self.ready(io)
    }

    /// Hands `record` to every index now, with the note's text as it is now
    /// (`known`, when the walk read it whole).
    fn apply(
        &mut self,
        io: &Io,
        record: &Record,
        known: Option<Vec<u8>>,
    ) -> Result<NoteFacts, FsError> {
        let text;
        let change = match record {
            Record::Put(entry) => {
                text = match known {
                    Some(bytes) => crate::files::indexed_text(bytes),
                    None => crate::files::read_indexed(io, &entry.path),
                };
                NoteChange::Put(entry, text.as_deref())
            }
            Record::Del(path) => NoteChange::Removed(path),
            _ => return Ok(NoteFacts::default()),
        };
        let mut facts = NoteFacts::default();
        for index in &mut self.indexes {
            facts = facts.and(index.apply(io, change)?);
        }
        Ok(facts)
    }

    /// Every index's state, with where it will lie (the states one after
    /// another, in the order of the parts).
    pub fn persist(&mut self) -> (Vec<Part>, Vec<Cow<'_, [u8]>>) {
        let mut parts = Vec::new();
        let mut states = Vec::new();
        for index in &mut self.indexes {
            let (name, version) = (index.name(), index.version());
            let state = index.persist();
            parts.push(Part {
                name: name.to_owned(),
                version,
                len: state.len() as u64,
            });
            states.push(state);
        }
        (parts, states)
    }

    /// Restores every index from its part of the snapshot in `file`, the
    /// parts laid one after another from `start` as `parts` say. An index
    /// with no part of its name and version, or one that would not decode,
    /// is cleared; then this returns false, and [`Derived::verify_all`]
    /// rebuilds it.
    pub fn restore(&mut self, io: &Io, parts: &[Part], file: &Rc<dyn File>, start: u64) -> bool {
        let mut states = BTreeMap::new();
        let mut offset = start;
        for part in parts {
            let saved = SavedPart::new(Rc::clone(file), offset, part.len);
            states.insert((part.name.as_str(), part.version), saved);
            offset = offset.saturating_add(part.len);
        }
        let mut all = true;
        for index in &mut self.indexes {
            let restored = states
                .remove(&(index.name(), index.version()))
                .is_some_and(|part| index.restore_saved(io, part));
            if !restored {
                index.clear();
                all = false;
            }
        }
        // Restored whole, they wait until asked; else they are rebuilt now.
        self.live = !all;
        all
    }

    /// Checks every index against every note.
    pub fn verify_all<'a>(
        &mut self,
        io: &Io,
        notes: impl Iterator<Item = &'a Entry> + Clone,
    ) -> Result<Verified, FsError> {
        let mut all = Verified::default();
        for (entry, facts) in self.ready(io)? {
            all.facts.push((entry.path.clone(), facts));
        }
        for index in &mut self.indexes {
            let verified = verify(io, &mut **index, notes.clone())?;
            all.changes += verified.changes;
            all.facts.extend(verified.facts);
        }
        Ok(all)
    }

    /// The index named `name`, for the commands that answer from it.
    pub fn get(&self, name: &str) -> Option<&dyn DerivedIndex> {
        self.indexes.iter().find(|i| i.name() == name).map(|i| &**i)
    }
}
