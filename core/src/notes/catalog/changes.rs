//! Changes to the catalog: a record applied (found by a walk here, or read
//! from the journal), queued for the journal and handed to the derived
//! indexes; notes put, admitted, removed and forgotten by path.

use crate::notes::derived::Arrival;
use std::cmp::Reverse;
use std::collections::BTreeMap;
use std::ops::Bound;
use std::rc::Rc;

use super::{Catalog, HORIZON_NOTES};
use crate::error::FsError;
use crate::io::Io;
use crate::notes::entry::Entry;
use crate::notes::record::Record;

/// The most snapshot blocks [`Catalog::holds_more_than`] decodes to count
/// a directory's notes.
const COUNT_BLOCKS: usize = 4;

impl Catalog {
    /// Applies one record, from this instance or read from the journal.
    pub(in crate::notes) fn apply_record(&mut self, record: Record) -> Result<(), FsError> {
        match record {
            Record::Put(entry) => self.put(entry)?,
            Record::Del(path) => self.remove(&path)?,
            Record::Dir(path, stamp) => {
                self.walk.dirs.insert(path, stamp);
            }
            Record::Undir(path) => {
                self.walk.dirs.remove(&path);
            }
            Record::Swept(seconds) => {
                self.walk.swept = seconds;
                self.walk.sweep_from = None;
                self.walk.sweep_past = None;
            }
            Record::SweepFrom(dir) => {
                self.walk.sweep_from = Some(dir);
                self.walk.sweep_past = None;
            }
            Record::SweepPast(dir, file) => {
                self.walk.sweep_from = Some(dir);
                self.walk.sweep_past = Some(file);
            }
            Record::Sliced(second) => self.walk.sliced = second,
            Record::Verified(seconds) => {
                self.walk.verified = seconds;
                self.walk.verified_past = None;
            }
            Record::VerifiedPast(seconds, last) => {
                self.walk.verified = seconds;
                self.walk.verified_past = Some(last);
            }
            Record::Other(path, size) => {
                if let Some(old) = self.notes.others.insert(path, size) {
                    self.notes.other_bytes -= old;
                }
                self.notes.other_bytes += size;
            }
            Record::Index(mark) => self.memory_md.index_mark = Some(mark),
            Record::Unother(path) => {
                if let Some(old) = self.notes.others.remove(&path) {
                    self.notes.other_bytes -= old;
                }
            }
        }
        Ok(())
    }

    /// Hands the changes found here since the last time to the derived
    /// indexes, and keeps what they learned of each note put with it (in
    /// the catalog and in the record the journal gets).
    pub(in crate::notes) fn follow(&mut self, io: &Io) -> Result<(), FsError> {
        self.follow_changes(io, Arrival::Now)
    }

    /// As [`Catalog::follow`] for the changes a write made: the indexes
    /// take them when next asked, so the write costs no indexing.
    pub(in crate::notes) fn follow_write(&mut self, io: &Io) -> Result<(), FsError> {
        self.follow_changes(io, Arrival::Deferred)
    }

    fn follow_changes(&mut self, io: &Io, arrival: Arrival) -> Result<(), FsError> {
        while self.feed.fed < self.journal.pending.len() {
            let at = self.feed.fed;
            let known = match &self.journal.pending[at] {
                Record::Put(entry)
                    if self
                        .feed
                        .read_whole
                        .as_ref()
                        .is_some_and(|(path, stamp, _)| {
                            *path == entry.path && *stamp == entry.stamp
                        }) =>
                {
                    self.feed.read_whole.take().map(|(_, _, bytes)| bytes)
                }
                _ => None,
            };
            let facts = self
                .feed
                .derived
                .follow(io, &self.journal.pending[at], known, arrival)?;
            self.feed.fed += 1;
            let Record::Put(entry) = &self.journal.pending[at] else {
                continue;
            };
            let Some(updated) = entry.with_facts(facts) else {
                continue;
            };
            let updated = Rc::new(updated);
            // Unless a later change in this call replaced or removed it.
            let current = self.notes.entries.get(entry.path.as_str());
            if current.is_some_and(|e| Rc::ptr_eq(e, entry)) {
                self.put(Rc::clone(&updated))?;
            }
            self.journal.pending[at] = Record::Put(updated);
        }
        Ok(())
    }

    /// How many changes are queued for the journal.
    pub(in crate::notes) fn queued(&self) -> usize {
        self.journal.pending.len()
    }

    /// The files the changes queued since `before` put or removed.
    pub(in crate::notes) fn paths_queued_since(&self, before: usize) -> Vec<String> {
        self.journal.pending[before.min(self.journal.pending.len())..]
            .iter()
            .filter_map(|record| match record {
                Record::Put(entry) => Some(entry.path.clone()),
                Record::Del(path) | Record::Other(path, _) | Record::Unother(path) => {
                    Some(path.clone())
                }
                _ => None,
            })
            .collect()
    }

    /// Drops the changes queued for the journal (written, or not to be).
    pub(in crate::notes) fn clear_pending(&mut self) {
        self.journal.pending.clear();
        self.feed.batch_notes = 0;
        self.feed.batch_bytes = 0;
        self.feed.fed = 0;
    }

    /// Applies a change found here and queues it for the journal.
    pub(in crate::notes) fn record(&mut self, record: Record) -> Result<(), FsError> {
        if let Record::Put(entry) = &record {
            self.feed.batch_notes += 1;
            self.feed.batch_bytes += entry.stamp.size;
        }
        self.apply_record(record.clone())?;
        self.journal.pending.push(record);
        Ok(())
    }

    pub(in crate::notes) fn put(&mut self, entry: Rc<Entry>) -> Result<(), FsError> {
        self.remove(&entry.path)?;
        self.memory_md.index_mark = None;
        self.notes.by_type[entry.meta.kind as usize] += 1;
        self.notes.bytes += entry.stamp.size;
        self.notes.count += 1;
        self.admit(entry);
        Ok(())
    }

    /// Adds a note the totals already count (read from the snapshot, or
    /// counted by `put`).
    pub(super) fn admit(&mut self, entry: Rc<Entry>) {
        let key: Rc<str> = Rc::from(entry.path.as_str());
        let recency = (Reverse(entry.recency()), Rc::clone(&key));
        if self.notes.horizon.as_ref().is_some_and(|h| recency <= *h) {
            self.notes.before_horizon += 1;
        }
        self.notes.by_recency.insert(recency, Rc::clone(&entry));
        self.notes.entries.insert(key, entry);
    }

    pub(super) fn remove(&mut self, path: &str) -> Result<(), FsError> {
        self.read_under(path)?;
        self.memory_md.index_mark = None;
        let Some((key, old)) = self.notes.entries.remove_entry(path) else {
            return Ok(());
        };
        let recency = (Reverse(old.recency()), key);
        self.notes.by_recency.remove(&recency);
        self.notes.by_type[old.meta.kind as usize] -= 1;
        self.notes.bytes -= old.stamp.size;
        self.notes.count -= 1;
        if self.notes.horizon.as_ref().is_some_and(|h| recency <= *h) {
            self.notes.before_horizon -= 1;
            // The index could now need a note past the horizon: the young
            // notes move it on, and if they are too few, every block.
            if self.notes.before_horizon < HORIZON_NOTES {
                self.read_young()?;
            }
            if self.notes.before_horizon < HORIZON_NOTES {
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
        Ok(Self::under(&self.notes.entries, top)
            .map(str::to_owned)
            .collect())
    }

    /// The notes directly in `dir` (reading their blocks).
    pub(in crate::notes) fn notes_in(&mut self, dir: &str) -> Result<Vec<String>, FsError> {
        self.read_in(dir)?;
        Ok(Self::under(&self.notes.entries, dir)
            .filter(|path| crate::notes::walk::parent(path) == dir && *path != dir)
            .map(str::to_owned)
            .collect())
    }

    /// Whether more than `most` notes lie directly in directory `dir`: of
    /// those read so far, and when they are too few, of all (the snapshot's
    /// blocks under `dir` read: decoding a block costs less than listing
    /// the directory this decides on). Where that would decode more than
    /// [`COUNT_BLOCKS`] blocks (a directory with many notes beneath it),
    /// it is taken as so: the caller treats `dir` as large, which costs
    /// less than decoding them (~0.13 ms a block of ~65 notes; a young
    /// `n/` above 10,000 notes decoded all 155 blocks, ~20 ms, in every
    /// call for two seconds after a bulk copy).
    pub(in crate::notes) fn holds_more_than(
        &mut self,
        dir: &str,
        most: usize,
    ) -> Result<bool, FsError> {
        let more = |catalog: &Self| {
            Self::under(&catalog.notes.entries, dir)
                .filter(|path| crate::notes::walk::parent(path) == dir && *path != dir)
                .nth(most)
                .is_some()
        };
        if more(self) {
            return Ok(true);
        }
        let unread = match &self.notes.blocks {
            Some(blocks) if dir.is_empty() => blocks.unread_top_level().len(),
            Some(blocks) => blocks.unread_under(dir).len(),
            None => 0,
        };
        if unread > COUNT_BLOCKS {
            return Ok(true);
        }
        self.read_in(dir)?;
        Ok(more(self))
    }

    /// Reads the snapshot's blocks that may hold notes directly in `dir`
    /// (the root's: only those that hold some).
    fn read_in(&mut self, dir: &str) -> Result<(), FsError> {
        match &self.notes.blocks {
            Some(blocks) if dir.is_empty() => self.read_blocks(blocks.unread_top_level()),
            _ => self.read_under(dir),
        }
    }

    /// Forgets every file and directory at or below `top`.
    pub(in crate::notes) fn forget(&mut self, top: &str) -> Result<(), FsError> {
        for path in self.notes_under(top)? {
            self.record(Record::Del(path))?;
        }
        let others: Vec<String> = Self::under(&self.notes.others, top)
            .map(str::to_owned)
            .collect();
        for path in others {
            self.record(Record::Unother(path))?;
        }
        let dirs: Vec<String> = Self::under(&self.walk.dirs, top)
            .map(str::to_owned)
            .collect();
        for path in dirs {
            self.record(Record::Undir(path))?;
        }
        Ok(())
    }
}
