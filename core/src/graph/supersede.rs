//! The graph's `supersedes` relations on their own, and the notes they
//! resolve to: saved apart from the notes, so a search or a view can
//! tell which notes are superseded without decoding the graph (~40 ms at
//! 10,000 notes, which a one-shot search paid whenever a result might be
//! superseded); the query is [`super::superseded`].

use std::collections::{BTreeMap, HashSet};

use super::links::Graph;
use super::names;
use super::node::Node;
use crate::notes::{frontmatter, validity};

/// One `supersedes` relation: the root-relative path of the note that
/// holds it and its target as written.
pub type Supersession = (String, String);

/// The superseded notes (root-relative paths), each with the notes that
/// supersede it (sorted).
pub type SupersededSet = BTreeMap<String, Vec<String>>;

/// What `relations` resolve to in `graph`, as `build_context` resolves
/// them; a note that names itself is not superseded by itself.
pub fn resolve(graph: &Graph, relations: &[Supersession]) -> SupersededSet {
    let mut set = SupersededSet::new();
    for (source, target) in relations {
        if let Some(id) = graph.resolve(source, target) {
            let path = &graph.node(id).path;
            if path != source {
                set.entry(path.clone()).or_default().push(source.clone());
            }
        }
    }
    for by in set.values_mut() {
        by.sort();
        by.dedup();
    }
    set
}

/// The saved relations and what they resolved to when saved, and whether
/// a note put or removed since may change that.
pub struct Saved {
    pub relations: Vec<Supersession>,
    pub resolved: SupersededSet,
    /// The [`names::hash`] of every key a relation's target is looked up by.
    target_keys: HashSet<u64>,
}

impl Saved {
    pub fn new(relations: Vec<Supersession>, resolved: SupersededSet) -> Self {
        let target_keys = relations
            .iter()
            .flat_map(|(source, target)| names::target_keys(source, target))
            .map(|key| names::hash(&key))
            .collect();
        Self {
            relations,
            resolved,
            target_keys,
        }
    }

    /// Whether putting `node` may change what the relations resolve to:
    /// it holds a relation or held one, it is a superseded note (its names
    /// may have changed), or one of its names is a key a target is looked
    /// up by (it may now be the note a target resolves to).
    pub fn moved_by_put(&self, node: &Node) -> bool {
        self.moved_by_removal(&node.path)
            || node.superseded().next().is_some()
            || node
                .names
                .iter()
                .any(|name| self.target_keys.contains(name))
    }

    /// Whether removing the note at `path` may change it: the note held a
    /// relation, or was superseded.
    pub fn moved_by_removal(&self, path: &str) -> bool {
        self.resolved.contains_key(path) || self.relations.iter().any(|(source, _)| source == path)
    }
}

/// At least as many `supersedes` relations as a note whose file holds
/// `text` writes (in its frontmatter and its body), before any bound the
/// graph puts on its relations: for the quota, how many notes it may mark
/// in MEMORY.md. The body is not parsed (a note of megabytes would cost
/// its parse twice): each `supersedes` in it counts, as a relation's type
/// must be written so.
pub fn written(text: &str) -> usize {
    // Every relation is a link, written with '[', and the frontmatter's
    // key is `supersedes`.
    if !text.contains('[') && !text.contains(validity::SUPERSEDES) {
        return 0;
    }
    let (body, _) = frontmatter::body(text);
    let in_body = match body.contains('[') {
        true => body
            .to_ascii_lowercase()
            .matches(validity::SUPERSEDES)
            .count(),
        false => 0,
    };
    validity::read(text).supersedes.len() + in_body
}

/// Every `supersedes` relation of `graph`.
pub fn of_graph(graph: &Graph) -> Vec<Supersession> {
    let mut all = Vec::new();
    for id in graph.ids() {
        put(&mut all, graph.node(id));
    }
    all
}

/// Adds `node`'s relations, in place of those its path held.
pub fn put(all: &mut Vec<Supersession>, node: &Node) {
    remove(all, &node.path);
    all.extend(
        node.superseded()
            .map(|target| (node.path.clone(), target.to_owned())),
    );
}

/// Drops the relations the note at `path` held.
pub fn remove(all: &mut Vec<Supersession>, path: &str) {
    all.retain(|(source, _)| source != path);
}

/// Every relation of `graph` and what each resolves to, as saved.
pub fn encode(graph: &Graph) -> Vec<u8> {
    let all = of_graph(graph);
    let resolved = resolve(graph, &all);
    postcard::to_allocvec(&(all, resolved)).expect("relations encode")
}

pub fn decode(bytes: &[u8]) -> Option<Saved> {
    let (relations, resolved) = postcard::from_bytes(bytes).ok()?;
    Some(Saved::new(relations, resolved))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::graph::links::tests::{graph, node};

    #[test]
    fn the_relations_of_a_note_replace_those_it_held() {
        let g = graph(&[
            (
                "new.md",
                "- supersedes [[old]]\n- Supersedes [[older]]\n- depends_on [[x]]\n",
            ),
            ("old.md", "- links [[older]]\n"),
        ]);
        let mut all = of_graph(&g);
        all.sort();
        assert_eq!(
            all,
            [
                ("new.md".to_owned(), "old".to_owned()),
                ("new.md".to_owned(), "older".to_owned())
            ]
        );
        let saved = decode(&encode(&g)).unwrap();
        assert_eq!(saved.relations, all);
        // `older` names no note: only `old` is superseded.
        assert_eq!(
            saved.resolved,
            SupersededSet::from([("old.md".to_owned(), vec!["new.md".to_owned()])])
        );
        remove(&mut all, "new.md");
        assert!(all.is_empty());
    }

    #[test]
    fn written_counts_at_least_every_supersedes_relation_of_a_note() {
        assert_eq!(written("plain text\n"), 0);
        assert_eq!(written("- links [[a]]\n"), 0);
        let text = "---\nsupersedes:\n  - a\n  - b\n---\n- Supersedes [[c]]\n- supersedes [[d]]\n";
        assert_eq!(written(text), 4);
        // Every mention counts: a bound, never less than the relations.
        assert_eq!(written("supersedes, said twice: supersedes [[x]]\n"), 2);
    }

    #[test]
    fn a_note_put_or_removed_moves_the_saved_resolution_only_when_it_may_change_it() {
        let g = graph(&[
            ("new.md", "- supersedes [[Old]]\n"),
            ("old.md", "x\n"),
            ("other.md", "- links [[old]]\n"),
        ]);
        let saved = decode(&encode(&g)).unwrap();
        // Unrelated notes, and a link of another type.
        assert!(!saved.moved_by_put(&node("other.md", "- links [[old]]\n")));
        assert!(!saved.moved_by_put(&node("notes/x.md", "text\n")));
        assert!(!saved.moved_by_removal("other.md"));
        // The superseded note, the note that supersedes, a new relation, and
        // a note another target's key now finds (`Old` in a folder).
        assert!(saved.moved_by_put(&node("old.md", "x\n")));
        assert!(saved.moved_by_put(&node("new.md", "text\n")));
        assert!(saved.moved_by_put(&node("x.md", "- supersedes [[y]]\n")));
        assert!(saved.moved_by_put(&node("a/old.md", "x\n")));
        assert!(saved.moved_by_removal("old.md"));
        assert!(saved.moved_by_removal("new.md"));
    }
}
