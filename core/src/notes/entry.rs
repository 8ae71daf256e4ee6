//! One note as the catalog keeps it: its path, the stamp of the file it was
//! read from, and its metadata; what a note is, and how topics match it.

use std::cell::OnceCell;

use serde::{Deserialize, Serialize};

use super::frontmatter::Meta;

/// What an index learned of a note that the catalog lists with it (so a
/// listing never has to ask the index).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct NoteFacts {
    /// Relations the note writes (the graph counts them).
    pub relations: Option<u32>,
    /// Whether one of them is a `supersedes` relation.
    pub supersedes: Option<bool>,
}

impl NoteFacts {
    /// These facts, with what `other` knows that these do not.
    pub fn and(self, other: NoteFacts) -> NoteFacts {
        NoteFacts {
            relations: self.relations.or(other.relations),
            supersedes: self.supersedes.or(other.supersedes),
        }
    }
}

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
    /// Whether either time is at or after `since` (seconds), or missing: a
    /// stamp that young may not show a change made in the same clock tick.
    pub fn young(&self, since: u64) -> bool {
        [self.modified, self.changed]
            .iter()
            .any(|t| t.is_none_or(|(s, _)| s >= since))
    }

    /// The second it last changed (the later of its two times), unless
    /// a time is missing.
    pub fn last_change(&self) -> Option<u64> {
        Some(self.modified?.0.max(self.changed?.0))
    }

    /// The stamp as one number, for indexes that only need to tell whether
    /// a note changed since they took it (equal stamps, equal digests).
    pub fn digest(&self) -> u64 {
        let mut bytes = Vec::with_capacity(40);
        bytes.extend(self.size.to_le_bytes());
        for time in [self.modified, self.changed] {
            // A missing time as a value no stamp has (nanoseconds < 10^9).
            let (seconds, nanos) = time.unwrap_or((u64::MAX, u32::MAX));
            bytes.extend(seconds.to_le_bytes());
            bytes.extend(nanos.to_le_bytes());
        }
        crate::graph::names::fnv1a(&bytes)
    }

    /// A stamp of `size` bytes and no times, for tests.
    #[cfg(test)]
    pub(crate) fn sized(size: u64) -> Self {
        Self {
            size,
            modified: None,
            changed: None,
        }
    }
}

/// One note in the catalog.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
pub struct Entry {
    /// Relative to the root: `prefs/coffee.md`.
    pub path: String,
    pub stamp: FileStamp,
    pub meta: Meta,
    /// Relations the note writes (links to other notes), as the derived
    /// indexes counted them when they took its text; shown in the index
    /// and by `memory_view`, without asking the graph.
    pub relations: u32,
    /// Whether one of those is a `supersedes` relation: a change to such a
    /// note may change which other notes MEMORY.md marks superseded, so a
    /// process that replays it lets the graph take it before rendering.
    pub supersedes: bool,
    /// The note's line in MEMORY.md, made once: MEMORY.md is rendered after
    /// every change, and most of the notes it shows did not change.
    #[serde(skip)]
    listing: Listing,
}

/// A note's line in MEMORY.md and the key it is sorted by there. Neither
/// saved nor compared; a clone starts empty, since a clone is made to be
/// changed (an entry in the catalog never is: a changed note is a new one).
#[derive(Default)]
struct Listing(OnceCell<(Box<str>, Box<str>)>);

impl Clone for Listing {
    fn clone(&self) -> Self {
        Self::default()
    }
}

impl PartialEq for Listing {
    fn eq(&self, _: &Self) -> bool {
        true
    }
}

impl std::fmt::Debug for Listing {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Listing")
    }
}

impl Entry {
    pub fn new(path: String, stamp: FileStamp, meta: Meta, relations: u32) -> Self {
        Self {
            path,
            stamp,
            meta,
            relations,
            supersedes: false,
            listing: Listing::default(),
        }
    }

    /// A copy with what `facts` say, when they say something new.
    pub fn with_facts(&self, facts: NoteFacts) -> Option<Entry> {
        self.differs(facts).then(|| Entry {
            relations: facts.relations.unwrap_or(self.relations),
            supersedes: facts.supersedes.unwrap_or(self.supersedes),
            ..self.clone()
        })
    }

    /// Whether `facts` say something of the note other than it has.
    pub fn differs(&self, facts: NoteFacts) -> bool {
        facts.relations.is_some_and(|n| n != self.relations)
            || facts.supersedes.is_some_and(|s| s != self.supersedes)
    }

    /// The note's line in MEMORY.md and its name in lower case (what the
    /// lines are sorted by), made by `make` the first time they are asked for.
    pub fn listing(&self, make: impl FnOnce(&Entry) -> (String, String)) -> (&str, &str) {
        let (line, key) = self.listing.0.get_or_init(|| {
            let (line, key) = make(self);
            (line.into(), key.into())
        });
        (line, key)
    }

    /// Seconds since the epoch of the last change, for "most recent first".
    pub fn recency(&self) -> u64 {
        self.stamp.modified.map_or(0, |(s, _)| s)
    }
}
