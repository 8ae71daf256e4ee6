//! Which notes a note is superseded by, asked note by note as a search
//! gives them: the graph's `supersedes` relations, read without decoding
//! it ([`super::supersede`]), and the graph decoded only to resolve one
//! that may name the note.

use std::cell::OnceCell;
use std::collections::HashMap;

use super::index::GraphIndex;
use super::names;
use super::supersede::Supersession;
use crate::error::FsError;
use crate::notes::frontmatter::{self, Meta};

/// Which notes supersede which, asked note by note: the relations are read
/// once, and the graph is decoded only for a note some relation may name
/// (its target is one of the note's names), to resolve it as
/// `build_context` does.
pub struct Superseded<'a> {
    index: &'a GraphIndex,
    lookup: OnceCell<Lookup>,
}

/// The relations, each under every key its target is looked up by, so a
/// note's candidates cost its names, not every relation again.
struct Lookup {
    all: Vec<Supersession>,
    by_key: HashMap<String, Vec<usize>>,
}

impl Lookup {
    fn new(all: Vec<Supersession>) -> Self {
        let mut by_key: HashMap<String, Vec<usize>> = HashMap::new();
        for (at, (source, target)) in all.iter().enumerate() {
            for key in names::target_keys(source, target) {
                by_key.entry(key).or_default().push(at);
            }
        }
        Self { all, by_key }
    }
}

impl<'a> Superseded<'a> {
    pub fn new(index: &'a GraphIndex) -> Self {
        Self {
            index,
            lookup: OnceCell::new(),
        }
    }

    /// The notes (root-relative paths, sorted) whose `supersedes` relation
    /// resolves to the note at `path`, which holds `text` (its names are
    /// read from it, as the catalog reads them).
    pub fn by(&self, path: &str, text: &str) -> Result<Vec<String>, FsError> {
        let file_name = path.rsplit('/').next().unwrap_or(path);
        self.by_meta(path, &frontmatter::read(text, file_name))
    }

    /// As [`Superseded::by`], for a note whose metadata the catalog holds.
    pub fn by_meta(&self, path: &str, meta: &Meta) -> Result<Vec<String>, FsError> {
        let lookup = match self.lookup.get() {
            Some(lookup) => lookup,
            None => {
                let read = Lookup::new(self.index.supersessions()?);
                self.lookup.get_or_init(|| read)
            }
        };
        if lookup.all.is_empty() {
            return Ok(Vec::new());
        }
        let permalink = names::declared_permalink(meta.permalink.as_deref())
            .map_or_else(|| names::slug(path), str::to_owned);
        let keys = names::note_keys(path, &meta.name, &permalink);
        let mut named: Vec<usize> = keys
            .iter()
            .filter_map(|key| lookup.by_key.get(key))
            .flatten()
            .copied()
            .filter(|&at| lookup.all[at].0 != path)
            .collect();
        named.sort_unstable();
        named.dedup();
        if named.is_empty() {
            return Ok(Vec::new());
        }
        let graph = self.index.graph()?;
        let Some(id) = graph.id_of(path) else {
            return Ok(Vec::new());
        };
        let mut by: Vec<String> = named
            .into_iter()
            .map(|at| &lookup.all[at])
            .filter(|(source, target)| graph.resolve(source, target) == Some(id))
            .map(|(source, _)| source.clone())
            .collect();
        by.sort();
        by.dedup();
        Ok(by)
    }
}
