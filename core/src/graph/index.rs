//! The graph as a derived index of the catalog ([`Graph`] in memory).
//!
//! A new process gets the graph's saved state with the journal, but decodes
//! it only when a call first asks the graph something: at 10,000 notes that
//! takes tens of milliseconds, which a `view` or a search should not pay.
//! Changes taken before then are kept, already read from their files, and
//! applied after the saved state; saving state never decoded gives the same
//! bytes back.
//!
//! The store's relations and observations together are bounded
//! ([`MAX_STORE_ITEMS`]), and so its memory: the saved state starts with
//! their count, so a write can tell without decoding whether a note fits.

use std::borrow::Cow;
use std::cell::{Cell, Ref, RefCell};
use std::collections::BTreeMap;
use std::rc::Rc;

use super::links::Graph;
use super::node::{MAX_NOTE_ITEMS, Node};
use super::supersede::{self, SupersededSet};
use crate::error::FsError;
use crate::io::Io;
use crate::layout::CHAT;
use crate::notes::catalog::Entry;
use crate::notes::derived::{DerivedIndex, NoteChange, Saved, SavedPart};
use crate::notes::entry::NoteFacts;
use crate::notes::validity::SUPERSEDES;

/// A saved state not decoded yet, and the changes taken since.
struct Undecoded {
    saved: Saved,
    changes: Vec<Change>,
    /// At least the relations and observations of the graph these make
    /// (the saved count plus every note put since, none taken off).
    items: usize,
    /// Where the saved `supersedes` relations lie in it: offset and length.
    supersessions: (u64, u64),
}

/// The most bytes the count a saved graph starts with takes (a varint
/// `u64`), and so the length of its `supersedes` relations after it.
const COUNT_BYTES: usize = 10;

/// What a saved graph starts with: both counts ([`COUNT_BYTES`] each).
const HEAD_BYTES: u64 = 2 * COUNT_BYTES as u64;

/// The most relations and observations together the graph holds for the
/// whole store (about 100 bytes each in memory): a note put once they are
/// spent is taken in part, or without them, and named in `cut` until it
/// changes.
pub const MAX_STORE_ITEMS: usize = 1_000_000;

enum Change {
    Put(Node),
    Removed(String),
}

/// The graph index.
#[derive(Default)]
pub struct GraphIndex {
    undecoded: RefCell<Option<Undecoded>>,
    graph: RefCell<Graph>,
    /// Set when telling what is superseded decoded a saved graph (a change
    /// since may have moved it): saved at the end of the call, the next
    /// processes read it again without decoding.
    decoded_for_superseded: Cell<bool>,
    /// The `supersedes` relations of the graph as taken and what they
    /// resolve to, once asked for, until a change taken may move them: a
    /// write asks whether it may ([`DerivedIndex::moves_others`]), and so
    /// does each record a new process replays.
    supersessions: RefCell<Option<Rc<supersede::Saved>>>,
}

/// Its name among the derived indexes (and in the journal).
pub const NAME: &str = "graph";

impl GraphIndex {
    /// The graph, decoded first if need be. [`FsError::Damaged`] when the
    /// saved state does not decode: the catalog is then rebuilt from the
    /// files ([`crate::notes::catalog::with`]).
    pub fn graph(&self) -> Result<Ref<'_, Graph>, FsError> {
        let mut slot = self.undecoded.borrow_mut();
        if let Some(undecoded) = slot.as_ref() {
            // Kept when it does not decode: every later use fails the same.
            let bytes = undecoded.saved.bytes().map_err(|_| FsError::Damaged)?;
            let mut graph = decode(&bytes).ok_or(FsError::Damaged)?;
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
        let kept = self.supersessions.get_mut();
        if kept.as_ref().is_some_and(|saved| match &change {
            Change::Put(node) => saved.moved_by_put(node),
            Change::Removed(path) => saved.moved_by_removal(path),
        }) {
            *kept = None;
        }
        match self.undecoded.get_mut() {
            Some(undecoded) => {
                if let Change::Put(node) = &change {
                    undecoded.items += node.items();
                }
                undecoded.changes.push(change);
            }
            None => change.apply(self.graph.get_mut()),
        }
    }

    /// How many relations and observations a note put at `path` may hold,
    /// within the store's bound. Decodes the saved state only when the
    /// count it keeps says the store may be near the bound.
    fn room_for(&mut self, path: &str) -> usize {
        let most = 2 * MAX_NOTE_ITEMS;
        if let Some(undecoded) = self.undecoded.get_mut()
            && undecoded.items + most <= MAX_STORE_ITEMS
        {
            return most;
        }
        match self.graph() {
            Ok(graph) => {
                let held = graph.id_of(path).map_or(0, |id| graph.node(id).items());
                MAX_STORE_ITEMS.saturating_sub(graph.items() - held)
            }
            // Damage, found again (and rebuilt) at the first answer.
            Err(_) => most,
        }
    }

    /// The notes of which the graph took only some relations or
    /// observations.
    pub fn cut(&self) -> Result<Vec<String>, FsError> {
        let graph = self.graph()?;
        Ok(graph
            .ids()
            .map(|id| graph.node(id))
            .filter(|node| node.cut())
            .map(|node| node.path.clone())
            .collect())
    }

    /// Takes saved bytes, to decode on first use.
    fn restore_bytes(&mut self, bytes: Vec<u8>) -> bool {
        let head = bytes
            .get(..(HEAD_BYTES as usize).min(bytes.len()))
            .map(<[u8]>::to_vec);
        self.keep_undecoded(head, Saved::Bytes(bytes))
    }

    /// Keeps `saved` to decode on first use, having read the counts it
    /// starts with from `head` (nothing saved cannot be a graph: an empty
    /// one is three bytes).
    fn keep_undecoded(&mut self, head: Option<Vec<u8>>, saved: Saved) -> bool {
        let Some(head) = head else {
            return false;
        };
        let Ok((items, rest)) = postcard::take_from_bytes::<u64>(&head) else {
            return false;
        };
        let Ok((len, after)) = postcard::take_from_bytes::<u64>(rest) else {
            return false;
        };
        *self = Self::default();
        *self.undecoded.get_mut() = Some(Undecoded {
            saved,
            changes: Vec::new(),
            items: usize::try_from(items).unwrap_or(usize::MAX),
            supersessions: ((head.len() - after.len()) as u64, len),
        });
        true
    }

    /// Which notes are superseded, and by which. Without decoding a saved
    /// graph while no note put or removed since may change what its
    /// `supersedes` relations resolve to: they are saved apart, ahead of
    /// its notes, with what they resolved to. Else from the graph, decoded.
    pub fn superseded(&self) -> Result<SupersededSet, FsError> {
        Ok(self.supersessions()?.resolved.clone())
    }

    /// The `supersedes` relations of the graph as taken, and what they
    /// resolve to: kept once found.
    fn supersessions(&self) -> Result<Rc<supersede::Saved>, FsError> {
        if let Some(kept) = self.supersessions.borrow().as_ref() {
            return Ok(Rc::clone(kept));
        }
        let found = match self.saved_supersessions()? {
            Some(saved) => saved,
            None => {
                if self.undecoded.borrow().is_some() {
                    self.decoded_for_superseded.set(true);
                }
                let graph = self.graph()?;
                let all = supersede::of_graph(&graph);
                let resolved = supersede::resolve(&graph, &all);
                supersede::Saved::new(all, resolved)
            }
        };
        let found = Rc::new(found);
        *self.supersessions.borrow_mut() = Some(Rc::clone(&found));
        Ok(found)
    }

    /// The saved relations and what they resolved to, while the graph is
    /// undecoded and no change taken since may move that.
    fn saved_supersessions(&self) -> Result<Option<supersede::Saved>, FsError> {
        let slot = self.undecoded.borrow();
        let Some(undecoded) = slot.as_ref() else {
            return Ok(None);
        };
        let (at, len) = undecoded.supersessions;
        // None saved (no relation, nothing resolved: two bytes): no read at
        // all, as in most stores.
        let saved = match len > 2 {
            true => {
                let bytes = match &undecoded.saved {
                    Saved::Bytes(bytes) => usize::try_from(at + len)
                        .ok()
                        .and_then(|end| bytes.get(at as usize..end))
                        .map(<[u8]>::to_vec)
                        .ok_or(FsError::Damaged)?,
                    Saved::Part(part) => part.range(at, len)?,
                };
                supersede::decode(&bytes).ok_or(FsError::Damaged)?
            }
            false => supersede::Saved::new(Vec::new(), SupersededSet::new()),
        };
        let moved = undecoded.changes.iter().any(|change| match change {
            Change::Put(node) => saved.moved_by_put(node),
            Change::Removed(path) => saved.moved_by_removal(path),
        });
        Ok((!moved).then_some(saved))
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

/// The graph's node for a note put. Only markdown notes hold observations
/// and relations (as in basic-memory), and conversation history is
/// searched, not part of the graph; a note that cannot be read holds none.
/// Every note can still be linked to.
fn node_of(entry: &Entry, text: Option<&str>, room: usize) -> Node {
    let read = is_markdown(&entry.path) && entry.path.split('/').next() != Some(CHAT);
    Node::read(entry, text.filter(|_| read).unwrap_or_default(), room)
}

/// What the catalog keeps of a node: how many relations it writes, and
/// whether one supersedes.
fn facts(node: &Node) -> NoteFacts {
    NoteFacts {
        relations: Some(relations(node)),
        supersedes: Some(node.superseded().next().is_some()),
    }
}

/// The relations a node writes, as the catalog lists them.
fn relations(node: &Node) -> u32 {
    u32::try_from(node.links().len()).unwrap_or(u32::MAX)
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

/// The saved state: the count of relations and observations, the
/// `supersedes` relations (as bytes, so a reader can skip or take them
/// alone), then every node, in a buffer of its exact size (at 100,000
/// notes one grown by doubling would hold megabytes more while the journal
/// is written).
fn encode(graph: &Graph) -> Vec<u8> {
    let supersessions = supersede::encode(graph);
    let state = (graph.items() as u64, supersessions, Nodes(graph));
    let size = postcard::serialize_with_flavor(&state, postcard::ser_flavors::Size::default())
        .expect("a graph encodes");
    postcard::to_extend(&state, Vec::with_capacity(size)).expect("a graph encodes")
}

fn decode(bytes: &[u8]) -> Option<Graph> {
    let (_, _, nodes): (u64, Vec<u8>, Vec<Node>) = postcard::from_bytes(bytes).ok()?;
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
        // 5: what the `supersedes` relations resolve to is saved with them.
        5
    }

    fn apply(&mut self, _io: &Io, change: NoteChange) -> Result<NoteFacts, FsError> {
        let mut facts = NoteFacts::default();
        let change = match change {
            NoteChange::Put(entry, text) => {
                let room = self.room_for(&entry.path);
                let node = node_of(entry, text, room);
                facts = self::facts(&node);
                Change::Put(node)
            }
            NoteChange::Removed(path) => Change::Removed(path.to_owned()),
        };
        self.apply_change(change);
        Ok(facts)
    }

    fn facts_of(&self, entry: &Entry, text: Option<&str>) -> NoteFacts {
        // Every relation is a link, written with '[' (a wikilink or a
        // markdown link): a note without one is not parsed.
        // A note's frontmatter names what it supersedes without one.
        if !text.is_some_and(|text| text.contains('[') || text.contains(SUPERSEDES)) {
            return NoteFacts {
                relations: Some(0),
                supersedes: Some(false),
            };
        }
        // As `apply` finds them wherever the store is far from its bound.
        facts(&node_of(entry, text, 2 * MAX_NOTE_ITEMS))
    }

    fn moves_others(&self, change: NoteChange, facts: NoteFacts) -> bool {
        // Damage is found again, and rebuilt, when the indexes are ready.
        let Ok(saved) = self.supersessions() else {
            return true;
        };
        match change {
            NoteChange::Put(_, _) if facts.supersedes != Some(false) => true,
            // With no relation, nothing else can move (most stores, and
            // every record a new process replays there: no names made).
            _ if saved.relations.is_empty() => false,
            // Its names, to tell whether a target may now find it.
            NoteChange::Put(entry, _) => saved.moved_by_put(&Node::read(entry, "", 0)),
            NoteChange::Removed(path) => saved.moved_by_removal(path),
        }
    }

    fn save_soon(&self) -> bool {
        self.decoded_for_superseded.get()
    }

    fn persist(&mut self) -> Cow<'_, [u8]> {
        self.decoded_for_superseded.set(false);
        if self
            .undecoded
            .get_mut()
            .as_ref()
            .is_some_and(|u| u.changes.is_empty())
        {
            let undecoded = self.undecoded.get_mut().as_ref().expect("checked");
            // A part that no longer reads saves nothing: it is rebuilt.
            return undecoded.saved.bytes().unwrap_or(Cow::Borrowed(&[]));
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

    fn restore_saved(&mut self, _io: &Io, part: SavedPart) -> bool {
        self.keep_undecoded(part.head(HEAD_BYTES).ok(), Saved::Part(part))
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

    fn entry(path: &str, text: &str) -> crate::notes::entry::Entry {
        crate::notes::entry::Entry::new(
            path.to_owned(),
            crate::notes::entry::FileStamp::sized(text.len() as u64),
            crate::notes::frontmatter::read(text, path),
            0,
        )
    }

    #[test]
    fn one_note_gives_at_most_its_share_and_the_store_at_most_its_bound() {
        let relations: String = (0..MAX_NOTE_ITEMS + 10)
            .map(|i| format!("- r [[B{i}]]\n- [c] fact {i}\n"))
            .collect();
        let node = Node::read(&entry("hub.md", &relations), &relations, usize::MAX);
        assert_eq!((node.links().len(), node.facts().len()), (1000, 1000));
        assert!(node.cut());
        let small = Node::read(&entry("a.md", "- r [[b]]\n"), "- r [[b]]\n", usize::MAX);
        assert!(!small.cut());
        // The store's room left: relations first, then observations.
        let node = Node::read(&entry("hub.md", &relations), &relations, 1_500);
        assert_eq!((node.links().len(), node.facts().len()), (1000, 500));
        let node = Node::read(&entry("hub.md", &relations), &relations, 0);
        assert_eq!(node.items(), 0);
        assert!(node.cut());
    }

    #[test]
    fn the_saved_count_lets_a_write_skip_decoding_until_the_store_nears_its_bound() {
        let bytes = saved(&[("a.md", "- depends_on [[b]]\n- [c] one\n")]);
        let mut index = restored(bytes);
        assert_eq!(index.undecoded.get_mut().as_ref().unwrap().items, 2);
        assert_eq!(index.room_for("x.md"), 2 * MAX_NOTE_ITEMS);
        assert!(index.undecoded.get_mut().is_some(), "not decoded for room");
        // Near the bound, the graph is decoded and the room is exact: a
        // note put again gets back what it held.
        index.undecoded.get_mut().as_mut().unwrap().items = MAX_STORE_ITEMS;
        assert_eq!(index.room_for("a.md"), MAX_STORE_ITEMS);
        assert!(index.undecoded.get_mut().is_none());
        assert_eq!(index.room_for("x.md"), MAX_STORE_ITEMS - 2);
        assert_eq!(index.graph().unwrap().items(), 2);
        assert_eq!(index.cut().unwrap(), Vec::<String>::new());
    }

    #[test]
    fn what_is_superseded_is_read_without_decoding_the_graph_until_a_change_may_move_it() {
        let bytes = saved(&[
            ("new.md", "- supersedes [[old]]\n- depends_on [[old]]\n"),
            ("old.md", "x"),
            ("other.md", "---\nsupersedes: \"[[gone]]\"\n---\n"),
        ]);
        let mut index = restored(bytes);
        let old = |by: &[&str]| {
            (
                "old.md".to_owned(),
                by.iter().map(|s| s.to_string()).collect(),
            )
        };
        assert_eq!(
            index.superseded().unwrap(),
            SupersededSet::from([old(&["new.md"])])
        );
        // A note that no relation may name: still not decoded.
        index.apply_change(Change::Put(node("notes/plain.md", "- links [[old]]\n")));
        assert_eq!(
            index.superseded().unwrap(),
            SupersededSet::from([old(&["new.md"])])
        );
        assert!(index.undecoded.get_mut().is_some(), "read without decoding");
        // A new relation: resolved in the graph, decoded.
        index.apply_change(Change::Put(node("newer.md", "---\nsupersedes: new\n---\n")));
        let want = SupersededSet::from([
            ("new.md".to_owned(), vec!["newer.md".to_owned()]),
            old(&["new.md"]),
        ]);
        assert_eq!(index.superseded().unwrap(), want);
        assert!(index.undecoded.get_mut().is_none());
        // That decoding asks for the state to be saved, once.
        assert!(index.save_soon());
        // Saved and restored, the same without decoding.
        let mut again = restored(index.persist().into_owned());
        assert!(!index.save_soon());
        assert_eq!(again.superseded().unwrap(), want);
        assert!(again.undecoded.get_mut().is_some());
        assert!(!again.save_soon());
        // The note that supersedes goes: so does what it superseded.
        again.apply_change(Change::Removed("new.md".into()));
        assert_eq!(again.superseded().unwrap(), SupersededSet::new());
    }

    #[test]
    fn a_state_that_does_not_decode_is_damage_not_an_empty_graph() {
        let mut index = restored(b"\x00\x00\xff\xff\xff".to_vec());
        assert!(matches!(index.graph(), Err(FsError::Damaged)));
        assert!(index.stamps().is_empty());
        // Saved again untouched, the bytes stay as they were (the next
        // process finds the same damage); with changes taken since, they are
        // saved as nothing, which does not restore.
        assert_eq!(index.persist(), b"\x00\x00\xff\xff\xff".as_slice());
        let mut changed = restored(b"\x00\x00\xff".to_vec());
        changed.apply_change(Change::Removed("a.md".into()));
        assert!(changed.persist().is_empty());
        assert!(!changed.restore_bytes(Vec::new()));
    }
}
