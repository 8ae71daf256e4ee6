//! Changes to the catalog: a record applied (found by a walk here, or read
//! from the journal), queued for the journal and handed to the derived
//! indexes; notes put, admitted, removed and forgotten by path.

use std::cmp::Reverse;
use std::collections::BTreeMap;
use std::ops::Bound;
use std::rc::Rc;

use super::{Catalog, HORIZON_NOTES};
use crate::error::FsError;
use crate::io::Io;
use crate::notes::entry::Entry;
use crate::notes::journal::Record;

impl Catalog {
    /// Applies one record, from this instance or read from the journal.
    pub(in crate::notes) fn apply_record(&mut self, record: Record) -> Result<(), FsError> {
        match record {
            Record::Put(entry) => self.put(entry)?,
            Record::Del(path) => self.remove(&path)?,
            Record::Dir(path, stamp) => {
                self.dirs.insert(path, stamp);
            }
            Record::Undir(path) => {
                self.dirs.remove(&path);
            }
            Record::Swept(seconds) => {
                self.swept = seconds;
                self.sweep_from = None;
                self.sweep_past = None;
            }
            Record::SweepFrom(dir) => {
                self.sweep_from = Some(dir);
                self.sweep_past = None;
            }
            Record::SweepPast(dir, file) => {
                self.sweep_from = Some(dir);
                self.sweep_past = Some(file);
            }
            Record::Sliced(second) => self.sliced = second,
            Record::Verified(seconds) => {
                self.verified = seconds;
                self.verified_past = None;
            }
            Record::VerifiedPast(seconds, last) => {
                self.verified = seconds;
                self.verified_past = Some(last);
            }
            Record::Other(path, size) => {
                if let Some(old) = self.others.insert(path, size) {
                    self.other_bytes -= old;
                }
                self.other_bytes += size;
            }
            Record::Index(mark) => self.index_mark = Some(mark),
            Record::Unother(path) => {
                if let Some(old) = self.others.remove(&path) {
                    self.other_bytes -= old;
                }
            }
        }
        Ok(())
    }

    /// Hands the changes found here since the last time to the derived
    /// indexes, and keeps what they learned of each note put with it (in
    /// the catalog and in the record the journal gets).
    pub(in crate::notes) fn follow(&mut self, io: &Io) -> Result<(), FsError> {
        self.follow_changes(io, false)
    }

    /// As [`Catalog::follow`] for the changes a write made: the indexes
    /// take them when next asked, so the write costs no indexing.
    pub(in crate::notes) fn follow_write(&mut self, io: &Io) -> Result<(), FsError> {
        self.follow_changes(io, true)
    }

    fn follow_changes(&mut self, io: &Io, deferred: bool) -> Result<(), FsError> {
        while self.fed < self.pending.len() {
            let at = self.fed;
            let known = match &self.pending[at] {
                Record::Put(entry)
                    if self.read_whole.as_ref().is_some_and(|(path, stamp, _)| {
                        *path == entry.path && *stamp == entry.stamp
                    }) =>
                {
                    self.read_whole.take().map(|(_, _, bytes)| bytes)
                }
                _ => None,
            };
            let facts = self
                .derived
                .follow(io, &self.pending[at], known, false, deferred)?;
            self.fed += 1;
            let Record::Put(entry) = &self.pending[at] else {
                continue;
            };
            let Some(updated) = entry.with_facts(facts) else {
                continue;
            };
            let updated = Rc::new(updated);
            // Unless a later change in this call replaced or removed it.
            let current = self.entries.get(entry.path.as_str());
            if current.is_some_and(|e| Rc::ptr_eq(e, entry)) {
                self.put(Rc::clone(&updated))?;
            }
            self.pending[at] = Record::Put(updated);
        }
        Ok(())
    }

    /// Drops the changes queued for the journal (written, or not to be).
    pub(in crate::notes) fn clear_pending(&mut self) {
        self.pending.clear();
        self.batch_notes = 0;
        self.batch_bytes = 0;
        self.fed = 0;
    }

    /// Applies a change found here and queues it for the journal.
    pub(in crate::notes) fn record(&mut self, record: Record) -> Result<(), FsError> {
        if let Record::Put(entry) = &record {
            self.batch_notes += 1;
            self.batch_bytes += entry.stamp.size;
        }
        self.apply_record(record.clone())?;
        self.pending.push(record);
        Ok(())
    }

    pub(in crate::notes) fn put(&mut self, entry: Rc<Entry>) -> Result<(), FsError> {
        self.remove(&entry.path)?;
        self.index_mark = None;
        self.by_type[entry.meta.kind as usize] += 1;
        self.bytes += entry.stamp.size;
        self.notes += 1;
        self.admit(entry);
        Ok(())
    }

    /// Adds a note the totals already count (read from the snapshot, or
    /// counted by `put`).
    pub(super) fn admit(&mut self, entry: Rc<Entry>) {
        let key: Rc<str> = Rc::from(entry.path.as_str());
        let recency = (Reverse(entry.recency()), Rc::clone(&key));
        if self.horizon.as_ref().is_some_and(|h| recency <= *h) {
            self.before_horizon += 1;
        }
        self.by_recency.insert(recency, Rc::clone(&entry));
        self.entries.insert(key, entry);
    }

    pub(super) fn remove(&mut self, path: &str) -> Result<(), FsError> {
        self.read_under(path)?;
        self.index_mark = None;
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
    pub(in crate::notes) fn under<'a, K: std::borrow::Borrow<str> + Ord, V>(
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
    pub(in crate::notes) fn notes_under(&mut self, top: &str) -> Result<Vec<String>, FsError> {
        self.read_under(top)?;
        Ok(Self::under(&self.entries, top).map(str::to_owned).collect())
    }

    /// The notes directly in `dir` (reading their blocks).
    pub(in crate::notes) fn notes_in(&mut self, dir: &str) -> Result<Vec<String>, FsError> {
        self.read_in(dir)?;
        Ok(Self::under(&self.entries, dir)
            .filter(|path| crate::notes::walk::parent(path) == dir && *path != dir)
            .map(str::to_owned)
            .collect())
    }

    /// Whether more than `most` notes lie directly in directory `dir`: of
    /// those read so far, and when they are too few, of all (the snapshot's
    /// blocks under `dir` read: decoding a block costs less than listing
    /// the directory this decides on).
    pub(in crate::notes) fn holds_more_than(
        &mut self,
        dir: &str,
        most: usize,
    ) -> Result<bool, FsError> {
        let more = |catalog: &Self| {
            Self::under(&catalog.entries, dir)
                .filter(|path| crate::notes::walk::parent(path) == dir && *path != dir)
                .nth(most)
                .is_some()
        };
        if more(self) {
            return Ok(true);
        }
        self.read_in(dir)?;
        Ok(more(self))
    }

    /// Reads the snapshot's blocks that may hold notes directly in `dir`.
    fn read_in(&mut self, dir: &str) -> Result<(), FsError> {
        match &self.blocks {
            Some(blocks) if dir.is_empty() => self.read_blocks(blocks.unread_top_level()),
            _ => self.read_under(dir),
        }
    }

    /// Forgets every file and directory at or below `top`.
    pub(in crate::notes) fn forget(&mut self, top: &str) -> Result<(), FsError> {
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
}
