//! Which notes a note is superseded by, asked note by note as a search,
//! a view or MEMORY.md gives them: what the graph's `supersedes` relations
//! resolve to, read once a call without decoding the graph while it is
//! saved ([`super::index::GraphIndex::superseded`]).

use std::cell::OnceCell;

use super::index::GraphIndex;
use super::supersede::SupersededSet;
use crate::error::FsError;

/// Which notes supersede which, asked note by note: read once.
pub struct Superseded<'a> {
    index: &'a GraphIndex,
    set: OnceCell<SupersededSet>,
}

impl<'a> Superseded<'a> {
    pub fn new(index: &'a GraphIndex) -> Self {
        Self {
            index,
            set: OnceCell::new(),
        }
    }

    /// The notes (root-relative paths, sorted) whose `supersedes` relation
    /// resolves to the note at `path`, as `build_context` resolves it.
    pub fn by(&self, path: &str) -> Result<&[String], FsError> {
        let set = match self.set.get() {
            Some(set) => set,
            None => {
                let read = self.index.superseded()?;
                self.set.get_or_init(|| read)
            }
        };
        Ok(set.get(path).map_or(&[], Vec::as_slice))
    }
}
