//! Where the walks are: every directory's stamp, how far the sweep went,
//! what is trusted, and what could not be read.

use std::collections::{BTreeMap, BTreeSet};

use super::{Aged, FileStamp, MAX_UNREADABLE};
use crate::notes::record::Record;

/// Where the walks are: every directory's stamp, how far the sweep went,
/// what is trusted, and what could not be read.
#[derive(Default)]
pub(in crate::notes) struct WalkState {
    /// Directories outside `.memcap` ("" is the root), stamped when last listed.
    pub(in crate::notes) dirs: BTreeMap<String, FileStamp>,
    /// Wall-clock seconds of the last walk that reached every file.
    pub(in crate::notes) swept: u64,
    /// Wall-clock seconds before which every change is trusted: each note
    /// and directory that changed earlier was read or listed once its stamp
    /// was old enough to show every change ([`Record::Verified`]).
    pub(in crate::notes) verified: u64,
    /// The last note or directory of the second [`Catalog::verified`]
    /// already read once more ([`Record::VerifiedPast`]). (Not in the
    /// snapshot's head: a rewrite of the journal writes it after the head,
    /// [`WalkState::progress`].)
    pub(in crate::notes) verified_past: Option<Aged>,
    /// While a sweep is under way: the directory it goes on from. (As
    /// `verified_past`.)
    pub(in crate::notes) sweep_from: Option<String>,
    /// In that directory, listed already: the last file checked ("" for
    /// none yet). (As `verified_past`.)
    pub(in crate::notes) sweep_past: Option<String>,
    /// Wall-clock second of the last slice of once-more reads or sweep
    /// ([`Record::Sliced`]): one a second at most. (As `verified_past`.)
    pub(in crate::notes) sliced: u64,
    /// Files the walks have checked in listed directories (a count the
    /// sweep measures its slices with).
    pub(in crate::notes) files_listed: usize,
    /// Whether the last walk stopped at its time budget before the end: the
    /// notes not reached yet are missing until a later call goes on.
    pub(in crate::notes) incomplete: bool,
    /// Directories and notes the walks found but may not read (at most
    /// [`MAX_UNREADABLE`]): what was known of them is kept, and
    /// `memory_stats` names them. Not saved: each host finds them anew.
    pub(in crate::notes) unreadable: BTreeSet<String>,
}

impl WalkState {
    /// Whether the last walk ran out of time before reaching every note
    /// (in this instance, or on record: no walk that reached every file).
    pub fn is_incomplete(&self) -> bool {
        self.incomplete || self.swept == 0
    }

    /// The directories and notes memcap may not read (root-relative), as
    /// the walks last found them.
    pub fn unreadable(&self) -> impl Iterator<Item = &str> {
        self.unreadable.iter().map(String::as_str)
    }

    /// Where the sweep and the once-more reads are, as the records that
    /// put them there: written after a new snapshot, which holds only the
    /// marks they go on from. Without them every rewrite of the journal
    /// started the once-more reads of a second over, so a second of more
    /// notes than the calls between two rewrites read (a bulk copy's) was
    /// never done, and every process decoded every block to look again.
    pub(in crate::notes) fn progress(&self) -> Vec<Record> {
        let mut records = Vec::with_capacity(3);
        if let Some(past) = &self.verified_past {
            records.push(Record::VerifiedPast(self.verified, past.clone()));
        }
        match (&self.sweep_from, &self.sweep_past) {
            (Some(dir), Some(file)) => records.push(Record::SweepPast(dir.clone(), file.clone())),
            (Some(dir), None) => records.push(Record::SweepFrom(dir.clone())),
            (None, _) => {}
        }
        if self.sliced != 0 {
            records.push(Record::Sliced(self.sliced));
        }
        records
    }

    /// Records whether `path` could be read when last looked at.
    pub(in crate::notes) fn mark_readable(&mut self, path: &str, readable: bool) {
        if readable {
            self.unreadable.remove(path);
        } else if self.unreadable.len() < MAX_UNREADABLE {
            self.unreadable.insert(path.to_owned());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn state() -> WalkState {
        WalkState::default()
    }

    #[test]
    fn a_store_never_swept_whole_is_incomplete() {
        let mut walk = state();
        assert!(walk.is_incomplete());
        walk.swept = 100;
        assert!(!walk.is_incomplete());
        walk.incomplete = true;
        assert!(walk.is_incomplete());
    }

    #[test]
    fn unreadable_paths_are_kept_within_their_bound_and_forgotten_once_read() {
        let mut walk = state();
        for i in 0..MAX_UNREADABLE + 10 {
            walk.mark_readable(&format!("n{i:03}.md"), false);
        }
        assert_eq!(walk.unreadable().count(), MAX_UNREADABLE);
        walk.mark_readable("n000.md", true);
        assert_eq!(walk.unreadable().count(), MAX_UNREADABLE - 1);
        assert!(walk.unreadable().all(|p| p != "n000.md"));
    }
}
