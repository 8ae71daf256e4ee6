//! The catalog over a snapshot: its totals and recent notes at once, the
//! rest a block at a time when a call touches a path in one, and the young
//! notes past the recent ones when a call needs them in recency order; and
//! the parts of a new snapshot.

use std::cmp::Reverse;
use std::rc::Rc;

use super::{Catalog, HORIZON_NOTES};
use crate::error::FsError;
use crate::notes::derived::Registry;
use crate::notes::entry::Entry;
use crate::notes::snapshot::{Blocks, Head, MAX_RECENT_NOTES, RECENT_NOTES};

/// What a snapshot is made of.
pub(in crate::notes) struct SnapshotParts {
    pub head: Head,
    /// The young notes that follow the head's in recency order.
    pub young: Vec<Entry>,
    /// Every note, in path order.
    pub entries: Vec<Rc<Entry>>,
}

impl Catalog {
    /// A catalog over a snapshot: its totals, other files, directories and
    /// recent notes now, its blocks when needed.
    pub(in crate::notes) fn from_snapshot(
        mut head: Head,
        blocks: Blocks,
        registry: Registry,
    ) -> Option<Self> {
        let mut catalog = Self::empty(registry);
        catalog.notes.by_type = head.counts()?;
        catalog.notes.count = usize::try_from(head.notes).ok()?;
        catalog.notes.bytes = head.bytes;
        for (path, size) in std::mem::take(&mut head.others) {
            catalog.notes.other_bytes += size;
            catalog.notes.others.insert(path, size);
        }
        catalog.walk.dirs = std::mem::take(&mut head.dirs).into_iter().collect();
        catalog.walk.swept = head.swept;
        catalog.walk.verified = head.verified;
        let recent = std::mem::take(&mut head.recent);
        // Past the head's, the young notes stop at the first note older than
        // the verified mark: with none, every note that young is in the head.
        catalog.notes.young_all_recent = (!blocks.young_unread()).then_some(head.verified);
        catalog.notes.horizon = recent
            .last()
            .map(|e| (Reverse(e.recency()), Rc::from(e.path.as_str())));
        // Built whole rather than an insert at a time: the head's notes come
        // in recency order, and up to 2,000 of them are read by every call.
        let keyed: Vec<(Rc<str>, Rc<Entry>)> = recent
            .into_iter()
            .map(|entry| (Rc::from(entry.path.as_str()), Rc::new(entry)))
            .collect();
        catalog.notes.by_recency = keyed
            .iter()
            .map(|(key, entry)| ((Reverse(entry.recency()), Rc::clone(key)), Rc::clone(entry)))
            .collect();
        catalog.notes.before_horizon = match &catalog.notes.horizon {
            Some(horizon) => catalog.notes.by_recency.range(..=horizon).count(),
            None => 0,
        };
        catalog.notes.entries = keyed.into_iter().collect();
        catalog.notes.blocks = Some(blocks);
        if catalog.notes.before_horizon >= catalog.notes.count {
            // The recent notes are all of them.
            catalog.notes.blocks = None;
            catalog.notes.horizon = None;
        } else if catalog.notes.before_horizon < HORIZON_NOTES {
            catalog.read_all().ok()?;
        }
        Some(catalog)
    }

    /// Reads the snapshot's young notes, if it has some and they are unread:
    /// the horizon moves past them. A young note whose block was read is
    /// taken from there (as it is now, or gone), not from here.
    pub(in crate::notes) fn read_young(&mut self) -> Result<(), FsError> {
        let Some(blocks) = &mut self.notes.blocks else {
            return Ok(());
        };
        let young = match blocks.read_young() {
            Ok(Some(young)) => young,
            Ok(None) => return Ok(()),
            Err(_) => return Err(FsError::Damaged),
        };
        let bounded = RECENT_NOTES + young.len() >= MAX_RECENT_NOTES;
        let mark = blocks.verified();
        if let Some(last) = young.last() {
            self.notes.horizon = Some((Reverse(last.recency()), Rc::from(last.path.as_str())));
        }
        let unread: Vec<Entry> = young
            .into_iter()
            .filter(|e| !blocks.holds_read(&e.path))
            .filter(|e| !self.notes.entries.contains_key(e.path.as_str()))
            .collect();
        for entry in unread {
            self.admit(Rc::new(entry));
        }
        if let Some(horizon) = &self.notes.horizon {
            self.notes.before_horizon = self.notes.by_recency.range(..=horizon).count();
        }
        self.notes.young_all_recent = (!bounded).then_some(mark);
        Ok(())
    }

    /// Reads every unread block: afterwards the catalog holds every note.
    pub fn read_all(&mut self) -> Result<(), FsError> {
        self.read_under("")
    }

    /// Reads the unread blocks that may hold `top` or notes below it.
    pub(in crate::notes) fn read_under(&mut self, top: &str) -> Result<(), FsError> {
        let wanted = match &self.notes.blocks {
            Some(blocks) => blocks.unread_under(top),
            None => return Ok(()),
        };
        self.read_blocks(wanted)
    }

    pub(super) fn read_blocks(&mut self, wanted: Vec<usize>) -> Result<(), FsError> {
        let Some(blocks) = &mut self.notes.blocks else {
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
            if !self.notes.entries.contains_key(entry.path.as_str()) {
                self.admit(Rc::new(entry));
            }
        }
        if done {
            self.notes.blocks = None;
            self.notes.horizon = None;
        }
        Ok(())
    }

    /// The parts of a snapshot.
    pub(in crate::notes) fn snapshot_parts(&mut self) -> Result<SnapshotParts, FsError> {
        self.read_all()?;
        let mut recent = self
            .most_recent()
            .enumerate()
            .take_while(|(i, e)| {
                *i < RECENT_NOTES || (*i < MAX_RECENT_NOTES && e.recency() >= self.walk.verified)
            })
            .map(|(_, e)| e.clone());
        let head = Head {
            notes: self.notes.count as u64,
            by_type: self.notes.by_type.iter().map(|&n| n as u64).collect(),
            bytes: self.notes.bytes,
            others: self
                .notes
                .others
                .iter()
                .map(|(p, s)| (p.clone(), *s))
                .collect(),
            dirs: self
                .walk
                .dirs
                .iter()
                .map(|(d, s)| (d.clone(), *s))
                .collect(),
            swept: self.walk.swept,
            verified: self.walk.verified,
            recent: recent.by_ref().take(RECENT_NOTES).collect(),
            ..Head::default()
        };
        Ok(SnapshotParts {
            head,
            young: recent.collect(),
            entries: self.notes.entries.values().cloned().collect(),
        })
    }
}
