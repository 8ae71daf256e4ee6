//! The catalog over a snapshot: its totals and recent notes at once, the
//! rest a block at a time when a call touches a path in one; and the parts
//! of a new snapshot.

use std::cmp::Reverse;
use std::rc::Rc;

use super::{Catalog, HORIZON_NOTES};
use crate::error::FsError;
use crate::notes::derived::Registry;
use crate::notes::entry::Entry;
use crate::notes::snapshot::{Blocks, Head, MAX_RECENT_NOTES, RECENT_NOTES};

impl Catalog {
    /// A catalog over a snapshot: its totals, other files, directories and
    /// recent notes now, its blocks when needed.
    pub(in crate::notes) fn from_snapshot(
        mut head: Head,
        blocks: Blocks,
        registry: Registry,
    ) -> Option<Self> {
        let mut catalog = Self::empty(registry);
        catalog.by_type = head.counts()?;
        catalog.notes = usize::try_from(head.notes).ok()?;
        catalog.bytes = head.bytes;
        for (path, size) in std::mem::take(&mut head.others) {
            catalog.other_bytes += size;
            catalog.others.insert(path, size);
        }
        catalog.dirs = std::mem::take(&mut head.dirs).into_iter().collect();
        catalog.swept = head.swept;
        catalog.verified = head.verified;
        let recent = std::mem::take(&mut head.recent);
        // Past the first few, the recent notes stop at the first note older
        // than the verified mark, unless their bound stops them first.
        catalog.young_all_recent = (recent.len() < MAX_RECENT_NOTES).then_some(head.verified);
        catalog.horizon = recent
            .last()
            .map(|e| (Reverse(e.recency()), Rc::from(e.path.as_str())));
        // Built whole rather than an insert at a time: the head's notes come
        // in recency order, and up to 2,000 of them are read by every call.
        let keyed: Vec<(Rc<str>, Rc<Entry>)> = recent
            .into_iter()
            .map(|entry| (Rc::from(entry.path.as_str()), Rc::new(entry)))
            .collect();
        catalog.by_recency = keyed
            .iter()
            .map(|(key, entry)| ((Reverse(entry.recency()), Rc::clone(key)), Rc::clone(entry)))
            .collect();
        catalog.before_horizon = match &catalog.horizon {
            Some(horizon) => catalog.by_recency.range(..=horizon).count(),
            None => 0,
        };
        catalog.entries = keyed.into_iter().collect();
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
    pub(in crate::notes) fn read_under(&mut self, top: &str) -> Result<(), FsError> {
        let wanted = match &self.blocks {
            Some(blocks) => blocks.unread_under(top),
            None => return Ok(()),
        };
        self.read_blocks(wanted)
    }

    pub(super) fn read_blocks(&mut self, wanted: Vec<usize>) -> Result<(), FsError> {
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
                self.admit(Rc::new(entry));
            }
        }
        if done {
            self.blocks = None;
            self.horizon = None;
        }
        Ok(())
    }

    /// The notes in path order, with the other parts of a snapshot.
    pub(in crate::notes) fn snapshot_parts(&mut self) -> Result<(Head, Vec<Rc<Entry>>), FsError> {
        self.read_all()?;
        let head = Head {
            notes: self.notes as u64,
            by_type: self.by_type.iter().map(|&n| n as u64).collect(),
            bytes: self.bytes,
            others: self.others.iter().map(|(p, s)| (p.clone(), *s)).collect(),
            dirs: self.dirs.iter().map(|(d, s)| (d.clone(), *s)).collect(),
            swept: self.swept,
            verified: self.verified,
            recent: self
                .most_recent()
                .enumerate()
                .take_while(|(i, e)| {
                    *i < RECENT_NOTES || (*i < MAX_RECENT_NOTES && e.recency() >= self.verified)
                })
                .map(|(_, e)| e.clone())
                .collect(),
            ..Head::default()
        };
        Ok((head, self.entries.values().cloned().collect()))
    }
}
