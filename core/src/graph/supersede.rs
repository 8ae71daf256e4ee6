//! The graph's `supersedes` relations on their own: saved apart from the
//! notes, so a search can tell which notes are superseded without decoding
//! the graph (tens of milliseconds at 10,000 notes); the query is
//! [`super::superseded`].

use super::links::Graph;
use super::node::Node;

/// One `supersedes` relation: the root-relative path of the note that
/// holds it and its target as written.
pub type Supersession = (String, String);

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

pub fn encode(all: &[Supersession]) -> Vec<u8> {
    postcard::to_allocvec(all).expect("relations encode")
}

pub fn decode(bytes: &[u8]) -> Option<Vec<Supersession>> {
    postcard::from_bytes(bytes).ok()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::graph::links::tests::graph;

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
        assert_eq!(decode(&encode(&all)), Some(all.clone()));
        remove(&mut all, "new.md");
        assert!(all.is_empty());
    }
}
