//! Who changed the lines an answer gives: `memory_get`'s and
//! `memory_search`'s `changedBy` / `changedAt`, and the search's `by` /
//! `notBy`. The owners blame finds for those lines (the file's versions
//! found through the history's index by path), so agents see authorship
//! and cannot write it.

use super::blame::{self, Blame};
use crate::io::Io;
use crate::vpath::MemPath;

/// Who last changed some lines of a file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Changed {
    /// Their actors, the newest change's first, each once (`(outside
    /// memcap)` for a change another program made).
    pub by: Vec<String>,
    /// When the newest of those changes was made (seconds since the
    /// epoch); `None` when it is another program's the history has not
    /// recorded yet.
    pub at: Option<u64>,
    /// Each owner's name and id, to match `by` / `notBy` against.
    actors: Vec<(String, Option<String>)>,
}

impl Changed {
    /// Whether one of the lines was last changed by `actor` (a name, or
    /// an actor's id).
    pub fn names(&self, actor: &str) -> bool {
        self.actors
            .iter()
            .any(|(name, id)| name == actor || id.as_deref() == Some(actor))
    }

    /// `by` / `notBy`: whether an actor of `by` (when any) changed one of
    /// the lines, and none of `not_by` did.
    pub fn passes(&self, by: &[String], not_by: &[String]) -> bool {
        (by.is_empty() || by.iter().any(|a| self.names(a))) && !not_by.iter().any(|a| self.names(a))
    }
}

/// `changedBy` and `changedAt` as answers give them (empty and `None`
/// when nothing is known).
pub fn shown_changed(changed: Option<Changed>) -> (Vec<String>, Option<String>) {
    match changed {
        Some(c) => (c.by, c.at.map(crate::text::rfc3339)),
        None => (Vec::new(), None),
    }
}

/// A file blamed once, for the lines of several answers.
pub struct Authors {
    blame: Blame,
}

impl Authors {
    /// `text`, the file at `shown` (`/memories/...`) as the caller read
    /// it, blamed; `None` when the history is off or the file cannot be
    /// blamed (its history cannot be read): the answer then says nothing
    /// of who changed it.
    pub fn of(io: &Io, shown: &str, text: &str) -> Option<Self> {
        if !super::recording(io) {
            return None;
        }
        let path = MemPath::parse(shown).ok()?;
        let blame = super::reading(io, &path, |io, inner| {
            blame::blame_text(io, inner, shown, text)
        })
        .ok()?;
        Some(Self { blame })
    }

    /// Of lines `first..=last` (1-based, as the answer numbers them);
    /// `None` when none of them has a line of text (past the end).
    pub fn lines(&self, first: u32, last: u32) -> Option<Changed> {
        let lines = &self.blame.lines;
        let from = (first.max(1) as usize - 1).min(lines.len());
        let to = (last as usize).clamp(from, lines.len());
        let mut owners: Vec<usize> = lines[from..to].iter().map(|l| l.owner).collect();
        // Owners are numbered newest first.
        owners.sort_unstable();
        owners.dedup();
        let newest = self.blame.owners.get(*owners.first()?)?;
        let mut changed = Changed {
            by: Vec::new(),
            at: newest.t,
            actors: Vec::new(),
        };
        for owner in owners.iter().filter_map(|&o| self.blame.owners.get(o)) {
            if !changed.by.contains(&owner.actor) {
                changed.by.push(owner.actor.clone());
            }
            changed
                .actors
                .push((owner.actor.clone(), owner.actor_id.clone()));
        }
        Some(changed)
    }
}
