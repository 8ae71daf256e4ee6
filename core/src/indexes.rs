//! The composition root of the derived indexes: which ones an instance
//! keeps, and a typed accessor for each, so neither the trait's module
//! (`notes::derived`) nor the catalog has to know its implementors, and no
//! index reaches back into the catalog.
//!
//! Adding an index: implement [`DerivedIndex`], add it to [`registry`],
//! and give it an accessor here.

use std::cell::RefCell;

use crate::error::FsError;
use crate::graph::index::{self, GraphIndex};
use crate::graph::supersede::SupersededSet;
use crate::io::Io;
use crate::notes::catalog::{Catalog, Indexes};
use crate::notes::derived::DerivedIndex;
use crate::search::index::{self as search_index, SearchIndex};
use crate::storage::{Environment, Storage};

/// The derived indexes memcap keeps: full-text search (BM25 over chunks)
/// and the graph of observations and relations.
pub fn registry() -> Vec<Box<dyn DerivedIndex>> {
    vec![
        Box::new(SearchIndex::default()),
        Box::new(GraphIndex::default()),
    ]
}

impl Default for Indexes {
    /// The derived indexes memcap keeps ([`registry`]).
    fn default() -> Self {
        Self::with_registry(registry)
    }
}

impl<'a> Io<'a> {
    /// The ports one call runs against, with the instance's warm
    /// [`Indexes`] (what the catalog finds in [`Io::warm`]).
    pub fn new(
        fs: &'a dyn Storage,
        env: &'a dyn Environment,
        indexes: &'a RefCell<Indexes>,
    ) -> Self {
        // Borrowed only here, before any call borrows the catalog.
        let history = indexes.try_borrow().ok().map(|i| i.history.clone());
        Io::with_warm(fs, env, indexes, history)
    }
}

/// The search index among the catalog's derived indexes.
pub fn search(catalog: &Catalog) -> &SearchIndex {
    catalog
        .derived(search_index::NAME)
        .and_then(|d| d.as_any().downcast_ref::<SearchIndex>())
        .expect("the search index is registered")
}

/// The graph among the catalog's derived indexes.
pub fn graph(catalog: &Catalog) -> &GraphIndex {
    catalog
        .derived(index::NAME)
        .and_then(|d| d.as_any().downcast_ref::<GraphIndex>())
        .expect("the graph index is registered")
}

/// Which notes are superseded, and by which, as the graph stands (none
/// when no graph is registered, as in some tests' stores).
pub fn superseded(catalog: &Catalog) -> Result<SupersededSet, FsError> {
    match catalog
        .derived(index::NAME)
        .and_then(|d| d.as_any().downcast_ref::<GraphIndex>())
    {
        Some(graph) => graph.superseded(),
        None => Ok(SupersededSet::new()),
    }
}

/// A store the core's unit tests run on: its files, a fixed clock
/// (2026-11-23) and the indexes an instance keeps warm, all in memory.
/// A test module adds the helpers it needs in an `impl` of its own.
#[cfg(test)]
pub(crate) struct TestStore {
    pub fs: crate::storage::memory::MemoryStorage,
    pub env: crate::storage::memory::FixedEnvironment,
    pub indexes: RefCell<Indexes>,
}

#[cfg(test)]
impl TestStore {
    pub fn new() -> Self {
        Self {
            fs: crate::storage::memory::MemoryStorage::new(),
            env: crate::storage::memory::FixedEnvironment::at(1_795_392_000),
            indexes: RefCell::default(),
        }
    }

    /// One call's ports on this store.
    pub fn io(&self) -> Io<'_> {
        Io::new(&self.fs, &self.env, &self.indexes)
    }
}
