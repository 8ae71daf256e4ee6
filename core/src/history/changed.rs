//! Who changed the lines an answer gives: `memory_get`'s and
//! `memory_search`'s `changedBy` / `changedAt`, and the search's `by` /
//! `notBy`. The owners blame finds for those lines (the file's versions
//! found through the history's index by path), so agents see authorship
//! and cannot write it.

use super::blame::{self, Blame};
use super::paths::Lookup;
use super::version::names_actor;
use crate::io::Io;
use crate::vpath::MemPath;

/// Who last changed some lines of a file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Changed {
    /// Each owner's name and id, the newest change's first (`(outside
    /// memcap)` for a change another program made).
    actors: Vec<(String, Option<String>)>,
    /// When the newest of those changes was made (seconds since the
    /// epoch); `None` when it is another program's the history has not
    /// recorded yet.
    pub at: Option<u64>,
}

impl Changed {
    /// Their actors' names, the newest change's first, each once.
    pub fn by(&self) -> Vec<String> {
        let mut by: Vec<String> = Vec::with_capacity(self.actors.len());
        for (name, _) in &self.actors {
            if !by.contains(name) {
                by.push(name.clone());
            }
        }
        by
    }

    /// `by` / `notBy`: whether an actor of `by` (when any) changed one of
    /// the lines, and none of `not_by` did (each a name or an actor's id).
    pub fn passes(&self, by: &[String], not_by: &[String]) -> bool {
        let names = |actor: &String| {
            self.actors
                .iter()
                .any(|(name, id)| names_actor(name, id.as_deref(), actor))
        };
        (by.is_empty() || by.iter().any(names)) && !not_by.iter().any(names)
    }
}

/// `changedBy` and `changedAt` as answers give them (empty and `None`
/// when nothing is known).
pub fn shown_changed(changed: Option<Changed>) -> (Vec<String>, Option<String>) {
    match changed {
        Some(c) => (c.by(), c.at.map(crate::text::rfc3339)),
        None => (Vec::new(), None),
    }
}

/// Blames files for one call: each store's history (the caller's, a
/// shared directory's) is opened once, however many files are blamed.
#[derive(Default)]
pub struct Blamer {
    /// Per store (`None`: the caller's own), its lookups by path; `None`
    /// when its history cannot be read.
    lookups: Vec<(Option<String>, Option<Lookup>)>,
}

impl Blamer {
    /// `text`, the file at `shown` (`/memories/...`) as the caller read
    /// it, blamed; `None` when the history is off or the file cannot be
    /// blamed (its history cannot be read): the answer then says nothing
    /// of who changed it.
    pub fn authors(&mut self, io: &Io, shown: &str, text: &str) -> Option<Authors> {
        if !super::recording(io) {
            return None;
        }
        let path = MemPath::parse(shown).ok()?;
        let store = super::shared::store_of(io, &path.key());
        let blame = super::reading(io, &path, |io, inner| {
            let at = match self.lookups.iter().position(|(s, _)| *s == store) {
                Some(at) => at,
                None => {
                    self.lookups.push((store.clone(), Lookup::open(io).ok()));
                    self.lookups.len() - 1
                }
            };
            match self.lookups[at].1.as_mut() {
                Some(lookup) => blame::blame_looked(io, lookup, inner, shown, text).map(Some),
                None => Ok(None),
            }
        })
        .ok()??;
        Some(Authors { blame })
    }
}

/// A file blamed once, for the lines of several answers.
pub struct Authors {
    blame: Blame,
}

impl Authors {
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
        let actors = owners
            .iter()
            .filter_map(|&o| self.blame.owners.get(o))
            .map(|o| (o.actor.clone(), o.actor_id.clone()))
            .collect();
        Some(Changed {
            actors,
            at: newest.t,
        })
    }
}
