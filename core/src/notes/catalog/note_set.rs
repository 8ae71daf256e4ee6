//! The notes a catalog has read and every other file outside `.memcap`,
//! with the totals (which count unread notes too) and the order by recency
//! the index lists from.

use std::cmp::Reverse;
use std::collections::BTreeMap;
use std::ops::Bound;
use std::rc::Rc;

#[cfg(test)]
use super::FileStamp;
use super::{Entry, RecencyKey};
use crate::notes::snapshot::Blocks;
use crate::vocab::NoteType;

/// The notes and every other file outside `.memcap`, read so far, with
/// their totals (which count unread notes too).
#[derive(Default)]
pub(in crate::notes) struct NoteSet {
    /// The snapshot's blocks, while some are unread.
    pub(in crate::notes) blocks: Option<Blocks>,
    /// Notes read so far, by path: all of them once no block is unread. The
    /// key is shared with `by_recency` (one allocation a note).
    pub(in crate::notes) entries: BTreeMap<Rc<str>, Rc<Entry>>,
    /// (newest first, path): the index lists from the front, so rendering
    /// costs the same for 100 notes as for 10,000.
    pub(in crate::notes) by_recency: BTreeMap<RecencyKey, Rc<Entry>>,
    /// While blocks are unread: the snapshot's last recent note. Every note
    /// up to it is in `by_recency`; past it some may be unread.
    pub(in crate::notes) horizon: Option<RecencyKey>,
    /// Notes in `by_recency` up to the horizon.
    pub(in crate::notes) before_horizon: usize,
    /// Set when the snapshot's recent notes, with its young notes once
    /// read, stopped at the first note older than its verified mark (not at
    /// their bound): every note at least that young is up to the horizon.
    pub(in crate::notes) young_all_recent: Option<u64>,
    /// Notes in the store (unread ones too).
    pub(in crate::notes) count: usize,
    pub(in crate::notes) by_type: [usize; NoteType::ALL.len()],
    pub(in crate::notes) bytes: u64,
    /// Every other file outside `.memcap` (hidden ones, `node_modules`,
    /// MEMORY.md) with its size: they count toward the store's quota.
    pub(in crate::notes) others: BTreeMap<String, u64>,
    pub(in crate::notes) other_bytes: u64,
}

impl NoteSet {
    /// Files and bytes in the store (notes and every other file outside
    /// `.memcap`), as of the last look.
    pub fn usage(&self) -> (u64, u64) {
        (
            (self.count + self.others.len()) as u64,
            self.bytes + self.other_bytes,
        )
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
    pub(in crate::notes) fn young_past_horizon(&self, since: u64) -> bool {
        let all_recent = self.young_all_recent.is_some_and(|mark| since >= mark);
        !all_recent
            && self
                .horizon
                .as_ref()
                .is_some_and(|(Reverse(recency), _)| *recency >= since)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn set(recent: &[(&str, u64)], horizon: Option<(&str, u64)>) -> NoteSet {
        let mut by_recency = BTreeMap::new();
        for (path, at) in recent {
            let entry = Rc::new(Entry::new(
                (*path).to_owned(),
                FileStamp::sized(1),
                crate::notes::frontmatter::read("x", path),
                0,
            ));
            by_recency.insert((Reverse(*at), Rc::from(*path)), entry);
        }
        NoteSet {
            by_recency,
            horizon: horizon.map(|(path, at)| (Reverse(at), Rc::from(path))),
            count: recent.len(),
            bytes: 10,
            others: BTreeMap::from([("MEMORY.md".to_owned(), 5)]),
            other_bytes: 5,
            ..NoteSet::default()
        }
    }

    #[test]
    fn usage_counts_notes_and_other_files() {
        assert_eq!(set(&[("a.md", 1), ("b.md", 2)], None).usage(), (3, 15));
    }

    #[test]
    fn most_recent_comes_newest_first_and_stops_at_the_horizon() {
        let notes = [("old.md", 1), ("mid.md", 5), ("new.md", 9)];
        let order =
            |s: &NoteSet| -> Vec<String> { s.most_recent().map(|e| e.path.clone()).collect() };
        assert_eq!(order(&set(&notes, None)), ["new.md", "mid.md", "old.md"]);
        // Past the horizon the order is not known: those notes wait.
        assert_eq!(
            order(&set(&notes, Some(("mid.md", 5)))),
            ["new.md", "mid.md"]
        );
    }

    #[test]
    fn notes_past_the_horizon_may_be_young_unless_all_recent_ones_were_read() {
        let mut s = set(&[("a.md", 10)], Some(("a.md", 10)));
        assert!(s.young_past_horizon(5));
        assert!(!s.young_past_horizon(11));
        s.young_all_recent = Some(3);
        assert!(!s.young_past_horizon(5));
    }
}
