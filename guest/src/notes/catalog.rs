//! The catalog: every note's metadata with the stamp of the file it was read
//! from, and every note directory's stamp as of its last listing, so only
//! what changed is listed or read again (`walk.rs` does the looking).
//!
//! It lives in guest memory while the instance is warm and in a journal,
//! `/memories/.memcap/notes.jsonl`, between instances and processes: a
//! binary snapshot, then one record per change (`journal.rs`). The directory
//! stays the truth: a lost or torn journal costs time, never correctness.

use std::cell::RefCell;
use std::cmp::Reverse;
use std::collections::BTreeMap;
use std::rc::Rc;

use serde::{Deserialize, Serialize};
use wasip2::filesystem::types::{Descriptor, DescriptorStat, ErrorCode};

use super::NoteType;
use super::frontmatter::Meta;
use super::journal::Record;

/// When a file or directory last changed, as far as the catalog needs to know.
#[derive(Serialize, Deserialize, Clone, Copy, PartialEq, Eq, Debug)]
pub struct FileStamp {
    pub size: u64,
    /// Modification time (seconds, nanoseconds).
    pub modified: Option<(u64, u32)>,
    /// Status-change time, which also moves on a rename or in-place rewrite.
    pub changed: Option<(u64, u32)>,
}

impl FileStamp {
    pub(super) fn of(st: &DescriptorStat) -> Self {
        let time =
            |t: Option<wasip2::clocks::wall_clock::Datetime>| t.map(|t| (t.seconds, t.nanoseconds));
        Self {
            size: st.size,
            modified: time(st.data_modification_timestamp),
            changed: time(st.status_change_timestamp),
        }
    }

    /// Whether either time is at or after `since` (seconds): a stamp that
    /// young may not show a change made in the same clock tick.
    pub(super) fn young(&self, since: u64) -> bool {
        [self.modified, self.changed]
            .iter()
            .any(|t| t.is_none_or(|(s, _)| s >= since))
    }
}

/// One note in the catalog.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
pub struct Entry {
    /// Relative to the root: `prefs/coffee.md`.
    pub path: String,
    pub stamp: FileStamp,
    pub meta: Meta,
}

impl Entry {
    /// Seconds since the epoch of the last change, for "most recent first".
    pub fn recency(&self) -> u64 {
        self.stamp.modified.map_or(0, |(s, _)| s)
    }
}

/// Every note, by path and by recency; every note directory with its stamp;
/// and where this instance is in the journal.
pub struct Catalog {
    /// By path; the key is shared with `by_recency` (one allocation a note).
    pub(super) entries: BTreeMap<Rc<str>, Rc<Entry>>,
    /// (newest first, path): the index lists from the front, so rendering
    /// costs the same for 100 notes as for 10,000.
    by_recency: BTreeMap<(Reverse<u64>, Rc<str>), Rc<Entry>>,
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

thread_local! {
    static CATALOG: RefCell<Option<Catalog>> = const { RefCell::new(None) };
}

/// Runs `f` on the catalog, loaded or brought up to date with the journal
/// first (a cheap read of what other instances appended), then saves what
/// `f` changed. On any failure the in-memory copy is dropped, so the next
/// call starts again from the journal.
pub fn with<T>(
    root: &Descriptor,
    f: impl FnOnce(&Descriptor, &mut Catalog) -> Result<T, ErrorCode>,
) -> Result<T, ErrorCode> {
    super::walk::start_budget();
    CATALOG.with(|cell| {
        let mut slot = cell.borrow_mut();
        let outcome = (|| {
            let mut catalog = match slot.take() {
                Some(mut warm) => {
                    if warm.catch_up(root)? {
                        warm
                    } else {
                        Catalog::load(root)?
                    }
                }
                None => Catalog::load(root)?,
            };
            let value = f(root, &mut catalog)?;
            // The journal is a cache: on a store memcap cannot write (or a
            // full disk) the answer stands and the next process rescans.
            if catalog.save(root).is_err() {
                catalog.pending.clear();
            }
            Ok((catalog, value))
        })();
        outcome.map(|(catalog, value)| {
            *slot = Some(catalog);
            value
        })
    })
}

impl Catalog {
    pub fn entries(&self) -> impl Iterator<Item = &Entry> {
        self.entries.values().map(|e| &**e)
    }

    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Files and bytes in the store (notes and every other file outside
    /// `.memcap`), as of the last look.
    pub fn usage(&self) -> (u64, u64) {
        (
            (self.entries.len() + self.others.len()) as u64,
            self.bytes + self.other_bytes,
        )
    }

    /// The size of the file at `path` as last seen, if the catalog has it.
    pub fn size_of(&self, path: &str) -> Option<u64> {
        self.entries
            .get(path)
            .map(|e| e.stamp.size)
            .or_else(|| self.others.get(path).copied())
    }

    /// Whether the last walk ran out of time before reaching every note.
    pub fn incomplete(&self) -> bool {
        self.incomplete
    }

    /// Notes from the most recently changed on (ties by path).
    pub fn most_recent(&self) -> impl Iterator<Item = &Entry> {
        self.by_recency.values().map(|e| &**e)
    }

    /// How many notes there are of each type, indexed by `NoteType as usize`.
    pub fn count_by_type(&self) -> [usize; NoteType::ALL.len()] {
        self.by_type
    }

    pub(super) fn empty() -> Self {
        Self {
            entries: BTreeMap::new(),
            by_recency: BTreeMap::new(),
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

    /// Applies one record, from this instance or read from the journal.
    pub(super) fn apply_record(&mut self, record: Record) {
        match record {
            Record::Put(entry) => self.put(entry),
            Record::Del(path) => self.remove(&path),
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
    }

    /// Applies a change found here and queues it for the journal.
    pub(super) fn record(&mut self, record: Record) {
        self.apply_record(record.clone());
        self.pending.push(record);
    }

    pub(super) fn put(&mut self, entry: Entry) {
        self.remove(&entry.path);
        self.insert_new(entry);
    }

    /// Adds a note whose path is not in the catalog (a snapshot's entries).
    pub(super) fn insert_new(&mut self, entry: Entry) {
        self.by_type[entry.meta.kind as usize] += 1;
        self.bytes += entry.stamp.size;
        let key: Rc<str> = Rc::from(entry.path.as_str());
        let entry = Rc::new(entry);
        self.by_recency.insert(
            (Reverse(entry.recency()), Rc::clone(&key)),
            Rc::clone(&entry),
        );
        self.entries.insert(key, entry);
    }

    pub(super) fn remove(&mut self, path: &str) {
        if let Some((key, old)) = self.entries.remove_entry(path) {
            self.by_recency.remove(&(Reverse(old.recency()), key));
            self.by_type[old.meta.kind as usize] -= 1;
            self.bytes -= old.stamp.size;
        }
    }

    /// Paths in `map` at or below `top` ("" is everything).
    pub(super) fn under<'a, K: std::borrow::Borrow<str> + Ord, V>(
        map: &'a BTreeMap<K, V>,
        top: &'a str,
    ) -> impl Iterator<Item = &'a str> + 'a {
        map.range::<str, _>((std::ops::Bound::Included(top), std::ops::Bound::Unbounded))
            .map(|(path, _)| path.borrow())
            .take_while(move |path| path.starts_with(top))
            .filter(move |path| {
                top.is_empty() || path.len() == top.len() || path.as_bytes()[top.len()] == b'/'
            })
    }

    /// Forgets every file and directory at or below `top`.
    pub(super) fn forget(&mut self, top: &str) {
        let notes: Vec<String> = Self::under(&self.entries, top).map(str::to_owned).collect();
        for path in notes {
            self.record(Record::Del(path));
        }
        let others: Vec<String> = Self::under(&self.others, top).map(str::to_owned).collect();
        for path in others {
            self.record(Record::Unother(path));
        }
        let dirs: Vec<String> = Self::under(&self.dirs, top).map(str::to_owned).collect();
        for path in dirs {
            self.record(Record::Undir(path));
        }
    }
}
