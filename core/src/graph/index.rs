//! The graph as a derived index of the catalog ([`Graph`] in memory).
//!
//! A new process gets the graph's saved state with the journal, but decodes
//! it only when a call first asks the graph something: at 10,000 notes that
//! takes tens of milliseconds, which a `view` or a search should not pay.
//! Changes taken before then are kept, already read from their files, and
//! applied after the saved state; saving state never decoded gives the same
//! bytes back.

use std::borrow::Cow;
use std::cell::{Ref, RefCell};
use std::collections::BTreeMap;

use super::links::Graph;
use super::node::Node;
use crate::error::FsError;
use crate::io::Io;
use crate::layout::CHAT;
use crate::notes::catalog::Catalog;
use crate::notes::derived::{DerivedIndex, NoteChange, NoteFacts};

/// A saved state not decoded yet, and the changes taken since.
struct Undecoded {
    bytes: Vec<u8>,
    changes: Vec<Change>,
}

enum Change {
    Put(Node),
    Removed(String),
}

/// The graph index.
#[derive(Default)]
pub struct GraphIndex {
    undecoded: RefCell<Option<Undecoded>>,
    graph: RefCell<Graph>,
}

/// Its name among the derived indexes (and in the journal).
const NAME: &str = "graph";

impl GraphIndex {
    /// The graph among the catalog's derived indexes.
    pub fn of(catalog: &Catalog) -> &GraphIndex {
        catalog
            .derived(NAME)
            .and_then(|d| d.as_any().downcast_ref::<GraphIndex>())
            .expect("the graph index is registered")
    }

    /// The graph, decoded first if need be. [`FsError::Damaged`] when the
    /// saved state does not decode: the catalog is then rebuilt from the
    /// files ([`crate::notes::catalog::with`]).
    pub fn graph(&self) -> Result<Ref<'_, Graph>, FsError> {
        let mut slot = self.undecoded.borrow_mut();
        if let Some(undecoded) = slot.as_ref() {
            // Kept when it does not decode: every later use fails the same.
            let mut graph = decode(&undecoded.bytes).ok_or(FsError::Damaged)?;
            for change in slot.take().expect("checked").changes {
                change.apply(&mut graph);
            }
            *self.graph.borrow_mut() = graph;
        }
        drop(slot);
        Ok(self.graph.borrow())
    }
}

impl GraphIndex {
    fn apply_change(&mut self, change: Change) {
        match self.undecoded.get_mut() {
            Some(undecoded) => undecoded.changes.push(change),
            None => change.apply(self.graph.get_mut()),
        }
    }

    /// Takes saved bytes, to decode on first use.
    fn restore_bytes(&mut self, bytes: Vec<u8>) -> bool {
        // Nothing saved cannot be a graph (an empty one is one byte).
        if bytes.is_empty() {
            return false;
        }
        *self = Self::default();
        *self.undecoded.get_mut() = Some(Undecoded {
            bytes,
            changes: Vec::new(),
        });
        true
    }
}

impl Change {
    fn apply(self, graph: &mut Graph) {
        match self {
            Change::Put(node) => graph.put(node),
            Change::Removed(path) => graph.remove(&path),
        }
    }
}

/// Every note of `graph`, as a sequence (without a list of them first).
struct Nodes<'a>(&'a Graph);

impl serde::Serialize for Nodes<'_> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeSeq;
        let mut seq = serializer.serialize_seq(Some(self.0.len()))?;
        for id in self.0.ids() {
            seq.serialize_element(self.0.node(id))?;
        }
        seq.end()
    }
}

/// The saved state: every node, in a buffer of its exact size (at 100,000
/// notes one grown by doubling would hold megabytes more while the journal
/// is written).
fn encode(graph: &Graph) -> Vec<u8> {
    let nodes = Nodes(graph);
    let size = postcard::serialize_with_flavor(&nodes, postcard::ser_flavors::Size::default())
        .expect("a graph encodes");
    postcard::to_extend(&nodes, Vec::with_capacity(size)).expect("a graph encodes")
}

fn decode(bytes: &[u8]) -> Option<Graph> {
    let nodes: Vec<Node> = postcard::from_bytes(bytes).ok()?;
    let mut graph = Graph::default();
    for node in nodes {
        graph.put(node);
    }
    Some(graph)
}

/// Whether the file at `path` is markdown, by its name.
pub fn is_markdown(path: &str) -> bool {
    let lower = path.to_ascii_lowercase();
    lower.ends_with(".md") || lower.ends_with(".markdown")
}

impl DerivedIndex for GraphIndex {
    fn name(&self) -> &'static str {
        NAME
    }

    fn version(&self) -> u32 {
        2
    }

    fn apply(&mut self, _io: &Io, change: NoteChange) -> Result<NoteFacts, FsError> {
        let mut facts = NoteFacts::default();
        let change = match change {
            NoteChange::Put(entry, text) => {
                // Only markdown notes hold observations and relations (as in
                // basic-memory), and conversation history is searched, not
                // part of the graph; a note that cannot be read holds none.
                // Every note can still be linked to.
                let read = is_markdown(&entry.path) && entry.path.split('/').next() != Some(CHAT);
                let text = text.filter(|_| read).unwrap_or_default();
                let node = Node::read(entry, text);
                facts.relations = Some(u32::try_from(node.links().len()).unwrap_or(u32::MAX));
                Change::Put(node)
            }
            NoteChange::Removed(path) => Change::Removed(path.to_owned()),
        };
        self.apply_change(change);
        Ok(facts)
    }

    fn persist(&mut self) -> Cow<'_, [u8]> {
        if self
            .undecoded
            .get_mut()
            .as_ref()
            .is_some_and(|u| u.changes.is_empty())
        {
            let undecoded = self.undecoded.get_mut().as_ref().expect("checked");
            return Cow::Borrowed(&undecoded.bytes);
        }
        if self.graph().is_err() {
            // Saved as nothing, which does not restore: the next process
            // rebuilds the graph rather than answer from a broken one.
            return Cow::Borrowed(&[]);
        }
        Cow::Owned(encode(self.graph.get_mut()))
    }

    fn restore(&mut self, _io: &Io, bytes: Vec<u8>) -> bool {
        self.restore_bytes(bytes)
    }

    fn stamps(&self) -> BTreeMap<String, u64> {
        // Asked only when the catalog checks every index against the notes;
        // a state that does not decode holds nothing, so all is put again.
        match self.graph() {
            Ok(graph) => graph
                .ids()
                .map(|id| {
                    let node = graph.node(id);
                    (node.path.clone(), node.stamp)
                })
                .collect(),
            Err(_) => BTreeMap::new(),
        }
    }

    fn clear(&mut self) {
        *self = Self::default();
    }

    fn as_any(&self) -> &dyn std::any::Any {
        self
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::graph::links::tests::{graph, node, targets};

    fn saved(notes: &[(&str, &str)]) -> Vec<u8> {
        encode(&graph(notes))
    }

    fn restored(bytes: Vec<u8>) -> GraphIndex {
        let mut index = GraphIndex::default();
        assert!(index.restore_bytes(bytes));
        index
    }

    #[test]
    fn the_saved_state_decodes_on_first_use_with_the_changes_taken_since() {
        let bytes = saved(&[("a.md", "- depends_on [[b]]\n"), ("b.md", "[[a]]")]);
        let mut index = restored(bytes.clone());
        // Saved again before any use: the very bytes, never decoded.
        assert_eq!(index.persist(), bytes.as_slice());
        index.apply_change(Change::Removed("b.md".into()));
        index.apply_change(Change::Put(node("c/b.md", "moved")));
        {
            let graph = index.graph().unwrap();
            assert_eq!(targets(&graph, "a.md"), [Some("c/b.md".into())]);
            assert_eq!(graph.counts().entities, 2);
        }
        assert!(index.undecoded.get_mut().is_none());
        let back = restored(index.persist().into_owned());
        assert_eq!(back.stamps(), index.stamps());
        assert!(back.graph().unwrap().id_of("c/b.md").is_some());
    }

    #[test]
    fn a_state_that_does_not_decode_is_damage_not_an_empty_graph() {
        let mut index = restored(b"\xff\xff\xff".to_vec());
        assert!(matches!(index.graph(), Err(FsError::Damaged)));
        assert!(index.stamps().is_empty());
        // Saved again untouched, the bytes stay as they were (the next
        // process finds the same damage); with changes taken since, they are
        // saved as nothing, which does not restore.
        assert_eq!(index.persist(), b"\xff\xff\xff".as_slice());
        let mut changed = restored(b"\xff".to_vec());
        changed.apply_change(Change::Removed("a.md".into()));
        assert!(changed.persist().is_empty());
        assert!(!changed.restore_bytes(Vec::new()));
    }
}
