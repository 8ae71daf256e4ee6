//! The graph in memory: every note's node, a map from every name a note
//! is found by to the notes holding it, and from every key a relation's
//! target is looked up by to the relations naming it. A relation is
//! resolved when it is read, so one whose target does not exist yet
//! resolves as soon as a note of that name appears, and unresolves when it
//! goes; a change costs what the changed note holds, never a pass over the
//! store.

use std::cmp::Reverse;
use std::collections::{BTreeSet, HashMap};

use super::names::{self, fold, hash};
use super::node::{Link, Node};

/// A note's place in the index (stable while the note is there).
pub type NoteId = u32;

/// Which relation: the note holding it and its place among its links.
pub type LinkId = (NoteId, u32);

/// The graph in memory. The maps are keyed by [`names::hash`] of a name,
/// not the name: at 100,000 notes, keeping every name as a string cost more
/// than the notes themselves.
#[derive(Default)]
pub struct Graph {
    nodes: Vec<Option<Node>>,
    free: Vec<NoteId>,
    by_path: IdsByHash,
    /// Every name key ([`names::note_keys`]) with the notes holding it.
    names: IdsByHash,
    /// Every target key ([`names::target_keys`]) with the relations naming it.
    pointing: HashMap<u64, BTreeSet<LinkId>>,
    facts: usize,
    links: usize,
}

/// Notes by the hash of a name: nearly always one a hash, so those are
/// kept apart from the few shared ones (half the memory of a list each).
#[derive(Default)]
struct IdsByHash {
    one: HashMap<u64, NoteId>,
    many: HashMap<u64, Vec<NoteId>>,
}

impl IdsByHash {
    fn insert(&mut self, key: u64, id: NoteId) {
        if let Some(ids) = self.many.get_mut(&key) {
            ids.push(id);
        } else if let Some(first) = self.one.remove(&key) {
            self.many.insert(key, vec![first, id]);
        } else {
            self.one.insert(key, id);
        }
    }

    fn remove(&mut self, key: u64, id: NoteId) {
        if let Some(ids) = self.many.get_mut(&key) {
            ids.retain(|&i| i != id);
            if let [last] = ids[..] {
                self.many.remove(&key);
                self.one.insert(key, last);
            }
        } else if self.one.get(&key) == Some(&id) {
            self.one.remove(&key);
        }
    }

    fn get(&self, key: u64) -> &[NoteId] {
        match (self.many.get(&key), self.one.get(&key)) {
            (Some(ids), _) => ids,
            (None, Some(id)) => std::slice::from_ref(id),
            (None, None) => &[],
        }
    }
}

/// What the graph holds, as `memory_stats` reports it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Counts {
    pub entities: usize,
    pub observations: usize,
    pub relations: usize,
    /// Relations whose target is no note (yet).
    pub unresolved: usize,
}

impl Graph {
    /// Takes `node` (replacing what its path held).
    pub fn put(&mut self, node: Node) {
        self.remove(&node.path);
        let id = match self.free.pop() {
            Some(id) => id,
            None => {
                self.nodes.push(None);
                (self.nodes.len() - 1) as NoteId
            }
        };
        for &key in &node.names {
            self.names.insert(key, id);
        }
        for (i, link) in node.links().iter().enumerate() {
            for key in names::target_keys(&node.path, &link.target) {
                self.pointing
                    .entry(hash(&key))
                    .or_default()
                    .insert((id, i as u32));
            }
        }
        self.facts += node.facts().len();
        self.links += node.links().len();
        self.by_path.insert(hash(&node.path), id);
        self.nodes[id as usize] = Some(node);
    }

    /// Forgets the note at `path`.
    pub fn remove(&mut self, path: &str) {
        let Some(id) = self.id_of(path) else {
            return;
        };
        self.by_path.remove(hash(path), id);
        let node = self.nodes[id as usize].take().expect("a listed note");
        for &key in &node.names {
            self.names.remove(key, id);
        }
        for (i, link) in node.links().iter().enumerate() {
            for key in names::target_keys(&node.path, &link.target) {
                let key = hash(&key);
                if let Some(links) = self.pointing.get_mut(&key) {
                    links.remove(&(id, i as u32));
                    if links.is_empty() {
                        self.pointing.remove(&key);
                    }
                }
            }
        }
        self.facts -= node.facts().len();
        self.links -= node.links().len();
        self.free.push(id);
    }

    /// The note `id`.
    pub fn node(&self, id: NoteId) -> &Node {
        self.nodes[id as usize].as_ref().expect("a live note id")
    }

    /// The note at root-relative `path`.
    pub fn id_of(&self, path: &str) -> Option<NoteId> {
        self.by_path
            .get(hash(path))
            .iter()
            .copied()
            .find(|&id| self.node(id).path == path)
    }

    /// Every note, in no particular order.
    pub fn ids(&self) -> impl Iterator<Item = NoteId> + '_ {
        self.nodes
            .iter()
            .enumerate()
            .filter(|(_, node)| node.is_some())
            .map(|(id, _)| id as NoteId)
    }

    /// Relations and observations together, of every note.
    pub fn items(&self) -> usize {
        self.facts + self.links
    }

    /// How many notes it holds.
    pub fn len(&self) -> usize {
        self.nodes.len() - self.free.len()
    }

    /// Whether it holds no note.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The notes holding the name `key` ([`names::note_keys`]).
    fn named(&self, key: &str) -> impl Iterator<Item = NoteId> + '_ {
        self.names.get(hash(key)).iter().copied()
    }

    /// The note a relation's `target`, written in the note at `source`,
    /// names: by path relative to `source`'s folder, then by title, path or
    /// permalink. Among several of one name, the one nearest `source` in
    /// the folders, then the shortest path, then the first.
    pub fn resolve(&self, source: &str, target: &str) -> Option<NoteId> {
        names::target_keys(source, target).iter().find_map(|key| {
            self.named(key).min_by_key(|&id| {
                let path = &self.node(id).path;
                (
                    Reverse(shared_folders(source, path)),
                    path.len(),
                    path.clone(),
                )
            })
        })
    }

    /// The note relation `link` of note `from` resolves to.
    pub fn target_of(&self, from: NoteId, link: &Link) -> Option<NoteId> {
        self.resolve(&self.node(from).path, &link.target)
    }

    /// The relations that resolve to note `id`, in path order of the notes
    /// holding them, then line order: the candidates come from the map of
    /// targets, so this costs what points at `id`, not the store.
    pub fn backlinks(&self, id: NoteId) -> Vec<LinkId> {
        let node = self.node(id);
        let mut found = BTreeSet::new();
        for key in &node.names {
            for &(from, i) in self.pointing.get(key).into_iter().flatten() {
                if !found.contains(&(from, i)) {
                    let link = &self.node(from).links()[i as usize];
                    if self.target_of(from, link) == Some(id) {
                        found.insert((from, i));
                    }
                }
            }
        }
        let mut found: Vec<LinkId> = found.into_iter().collect();
        found.sort_by(|a, b| {
            self.node(a.0)
                .path
                .cmp(&self.node(b.0).path)
                .then(a.1.cmp(&b.1))
        });
        found
    }

    /// The notes a `memory://` URL or a path names: one note by permalink,
    /// title or path; with `*` (any characters, `/` included), every note
    /// whose permalink or path matches, in path order.
    pub fn find(&self, pattern: &str) -> Vec<NoteId> {
        let pattern = pattern.trim();
        if !pattern.contains('*') {
            return self.resolve("", pattern).into_iter().collect();
        }
        let folded = fold(pattern);
        let mut found: Vec<NoteId> = self
            .ids()
            .filter(|&id| {
                let node = self.node(id);
                let path = fold(&node.path);
                glob(&folded, &path)
                    || glob(&folded, names::strip_extension(&path))
                    || glob(&folded, &fold(&node.permalink()))
            })
            .collect();
        found.sort_by(|a, b| self.node(*a).path.cmp(&self.node(*b).path));
        found
    }

    /// Notes, observations, relations, and relations that resolve to no
    /// note. The last is counted by resolving every relation: for a status
    /// call, never on a search's path.
    pub fn counts(&self) -> Counts {
        let unresolved = self
            .ids()
            .map(|id| {
                let node = self.node(id);
                node.links()
                    .iter()
                    .filter(|l| self.resolve(&node.path, &l.target).is_none())
                    .count()
            })
            .sum();
        Counts {
            entities: self.len(),
            observations: self.facts,
            relations: self.links,
            unresolved,
        }
    }
}

/// How many leading folders two root-relative paths share.
fn shared_folders(a: &str, b: &str) -> usize {
    let folders = |p: &str| p.rsplit_once('/').map_or("", |(f, _)| f).to_owned();
    folders(a)
        .split('/')
        .zip(folders(b).split('/'))
        .take_while(|(x, y)| !x.is_empty() && x == y)
        .count()
}

/// Whether `text` matches `pattern`, where `*` stands for any characters.
fn glob(pattern: &str, text: &str) -> bool {
    let mut parts = pattern.split('*');
    let first = parts.next().unwrap_or_default();
    let Some(mut rest) = text.strip_prefix(first) else {
        return false;
    };
    let parts: Vec<&str> = parts.collect();
    let Some((last, middle)) = parts.split_last() else {
        return rest.is_empty();
    };
    for part in middle {
        match rest.find(part) {
            Some(at) => rest = &rest[at + part.len()..],
            None => return false,
        }
    }
    rest.len() >= last.len() && rest.ends_with(last)
}
#[cfg(test)]
pub(super) mod tests {
    use super::*;
    use crate::notes::entry::{Entry, FileStamp};
    use crate::notes::frontmatter::read;

    pub(in crate::graph) fn node(path: &str, text: &str) -> Node {
        let name = path.rsplit('/').next().unwrap();
        let entry = Entry::new(
            path.to_owned(),
            FileStamp::sized(text.len() as u64),
            read(text, name),
            0,
        );
        Node::read(&entry, text, usize::MAX)
    }

    pub(in crate::graph) fn graph(notes: &[(&str, &str)]) -> Graph {
        let mut graph = Graph::default();
        for (path, text) in notes {
            graph.put(node(path, text));
        }
        graph
    }

    /// Where each relation of the note at `path` leads (`None`: nowhere yet).
    pub(in crate::graph) fn targets(graph: &Graph, path: &str) -> Vec<Option<String>> {
        let id = graph.id_of(path).unwrap();
        graph
            .node(id)
            .links()
            .iter()
            .map(|l| graph.target_of(id, l).map(|t| graph.node(t).path.clone()))
            .collect()
    }

    #[test]
    fn a_note_reads_with_file_lines_and_categories() {
        let text = "---\nname: Alpha\ntype: project\n---\n# Alpha\n- [decision] Use Postgres #db\n- #later check backups\n- depends_on [[Auth Service]]\n";
        let alpha = node("projects/alpha.md", text);
        // Found by its title and by its path (its permalink is made from it).
        assert_eq!(
            alpha.names.to_vec(),
            ["alpha", "projects/alpha"].map(names::hash)
        );
        assert_eq!(alpha.permalink(), "projects/alpha");
        let facts: Vec<(&str, u32)> = alpha
            .facts()
            .iter()
            .map(|f| (f.category.as_str(), f.line))
            .collect();
        assert_eq!(facts, [("decision", 6), ("note", 7)]);
        assert_eq!(alpha.links()[0].kind, "depends_on");
        assert_eq!(alpha.links()[0].line, 8);
    }

    #[test]
    fn relations_resolve_when_their_target_appears_and_unresolve_when_it_goes() {
        let mut graph = graph(&[("a.md", "- depends_on [[Auth Service]]\n- see [[b]]\n")]);
        assert_eq!(targets(&graph, "a.md"), [None, None]);
        assert_eq!(graph.counts().unresolved, 2);
        graph.put(node("services/Auth Service.md", "the service"));
        graph.put(node("b.md", "bee"));
        assert_eq!(
            targets(&graph, "a.md"),
            [Some("services/Auth Service.md".into()), Some("b.md".into())]
        );
        let auth = graph.id_of("services/Auth Service.md").unwrap();
        assert_eq!(graph.backlinks(auth), [(graph.id_of("a.md").unwrap(), 0)]);
        assert_eq!(graph.counts().unresolved, 0);
        graph.remove("services/Auth Service.md");
        assert_eq!(targets(&graph, "a.md"), [None, Some("b.md".into())]);
        assert_eq!(
            graph.counts(),
            Counts {
                entities: 2,
                observations: 0,
                relations: 2,
                unresolved: 1
            }
        );
    }

    #[test]
    fn a_permalink_in_the_frontmatter_keeps_links_across_a_rename() {
        let target = "---\nname: Decisions\npermalink: project/decisions\n---\nbody\n";
        let mut graph = graph(&[
            ("old/decisions.md", target),
            ("a.md", "- follows [[project/decisions]]\n"),
        ]);
        assert_eq!(targets(&graph, "a.md"), [Some("old/decisions.md".into())]);
        graph.remove("old/decisions.md");
        graph.put(node("archive/2026/decisions-v1.md", target));
        assert_eq!(
            targets(&graph, "a.md"),
            [Some("archive/2026/decisions-v1.md".into())]
        );
    }

    #[test]
    fn one_name_in_two_folders_resolves_to_the_nearer() {
        let graph = graph(&[
            ("notes.md", "root"),
            ("work/notes.md", "work"),
            ("work/a.md", "[[notes]]"),
            ("b.md", "[[notes]] and [[work/notes]]"),
        ]);
        assert_eq!(targets(&graph, "work/a.md"), [Some("work/notes.md".into())]);
        assert_eq!(
            targets(&graph, "b.md"),
            [Some("notes.md".into()), Some("work/notes.md".into())]
        );
    }

    #[test]
    fn urls_name_one_note_or_with_a_wildcard_many() {
        let graph = graph(&[
            ("projects/alpha.md", "a"),
            ("projects/beta plan.md", "b"),
            ("people/bob.md", "c"),
        ]);
        let paths = |pattern: &str| -> Vec<String> {
            graph
                .find(pattern)
                .into_iter()
                .map(|id| graph.node(id).path.clone())
                .collect()
        };
        assert_eq!(
            paths("projects/*"),
            ["projects/alpha.md", "projects/beta plan.md"]
        );
        assert_eq!(paths("projects/beta-plan"), ["projects/beta plan.md"]);
        assert_eq!(paths("*bob*"), ["people/bob.md"]);
        assert_eq!(paths("Bob"), ["people/bob.md"]);
        assert!(paths("nobody").is_empty());
        assert!(glob("a*b*c", "axxbyyc") && !glob("a*b", "ab c") && glob("*", ""));
    }

    #[test]
    fn cycles_self_links_and_crowds_of_links_stay_cheap_and_exact() {
        let mut notes = vec![
            ("self.md".to_owned(), "- is [[self]]\n".to_owned()),
            ("x.md".to_owned(), "[[y]]".to_owned()),
            ("y.md".to_owned(), "[[x]]".to_owned()),
            ("hub.md".to_owned(), "the hub".to_owned()),
        ];
        for i in 0..10_000 {
            notes.push((format!("n/{i}.md"), "- part_of [[hub]]\n".to_owned()));
        }
        let all: String = (0..10_000).map(|i| format!("[[n/{i}]] ")).collect();
        notes.push(("index-of-all.md".to_owned(), all));
        let mut graph = Graph::default();
        for (path, text) in &notes {
            graph.put(node(path, text));
        }
        let ids: HashMap<String, NoteId> = graph
            .ids()
            .map(|i| (graph.node(i).path.clone(), i))
            .collect();
        let id = |p: &str| ids[p];
        assert_eq!(graph.backlinks(id("self.md")), [(id("self.md"), 0)]);
        assert_eq!(graph.backlinks(id("x.md")), [(id("y.md"), 0)]);
        assert_eq!(graph.backlinks(id("hub.md")).len(), 10_000);
        assert_eq!(graph.backlinks(id("n/7.md")), [(id("index-of-all.md"), 7)]);
        assert_eq!(graph.counts().unresolved, 0);
        // Rewriting one of the ten thousand changes only its own entries.
        graph.put(node("n/7.md", "- part_of [[elsewhere]]\n"));
        assert_eq!(graph.backlinks(id("hub.md")).len(), 9_999);
        assert_eq!(graph.counts().unresolved, 1);
    }
}
