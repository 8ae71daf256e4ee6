//! A tree that holds only the rows read so far: a host's first call on a
//! namespace reads the rows that name the paths the guest looks up (one
//! query a lookup), not the namespace's every entry. A change of names
//! read (a file written, made, linked, renamed or removed; a directory
//! made) is made on the sparse tree: every path of the rows read is known
//! to be there or not. What a sparse tree cannot know (a listing, whether
//! a directory is empty, what lies under a directory moved, the other
//! names of a file linked at several) reads the rest first
//! ([`Tree::densify`]).

use std::collections::HashMap;

use super::{Body, Ino, ROOT_INO, Row, Tree, depth};

impl Tree {
    #[cfg_attr(not(feature = "database"), allow(dead_code))]
    /// A tree of the root alone, whose other rows are still to be read.
    pub fn sparse(next_ino: Ino) -> Self {
        let mut tree = Self::from_rows(Vec::new(), HashMap::new(), next_ino, true);
        tree.sparse = true;
        tree
    }

    pub fn is_sparse(&self) -> bool {
        self.sparse
    }

    /// Notes files read at one path that have others too: changed, all
    /// their rows would change, and only one is here.
    pub fn add_shared(&mut self, inos: impl IntoIterator<Item = Ino>) {
        self.shared.extend(inos);
    }

    /// Whether a change of `ino` needs the whole tree first: a file of a
    /// sparse tree with names not read.
    pub fn is_shared(&self, ino: Ino) -> bool {
        self.sparse && self.shared.contains(&ino)
    }

    /// The rows to read for `path` looked up from `base`: the path of each
    /// of its prefixes, relative to the root, as far as they can be named
    /// without the tree (`..` steps back lexically; the lookup itself then
    /// checks every step).
    pub fn prefixes(&self, base: Ino, path: &str) -> Vec<String> {
        let mut at: Vec<String> = match self.paths_of(base).into_iter().next() {
            Some(p) if !p.is_empty() => p.split('/').map(str::to_owned).collect(),
            _ => Vec::new(),
        };
        let mut out = vec![String::new()];
        for part in path.split('/') {
            match part {
                "" | "." => continue,
                ".." => {
                    at.pop();
                }
                name => {
                    at.push(name.to_owned());
                    out.push(at.join("/"));
                }
            }
        }
        out
    }

    /// Of `paths`, those whose rows are still to be asked for (now taken
    /// as asked): a path asked for once, or changed by this call, is as
    /// the tree has it.
    pub fn unasked(&mut self, paths: Vec<String>) -> Vec<String> {
        paths
            .into_iter()
            .filter(|path| !self.dirty.paths.contains(path) && self.asked.insert(path.clone()))
            .collect()
    }

    /// Adds the rows read (each whose parent is here and that is not), as
    /// [`Tree::from_rows`] would place them; a row of a path this call
    /// changed is left out (what the call made of it stands).
    pub fn add_rows(&mut self, mut rows: Vec<Row>) {
        rows.retain(|row| !self.dirty.paths.contains(&row.path));
        rows.sort_by_cached_key(|row| depth(&row.path));
        for row in rows {
            if row.path.is_empty() {
                if let Some(root) = self.nodes.get_mut(&ROOT_INO) {
                    root.mtime = row.mtime;
                    root.ctime = row.ctime;
                }
                continue;
            }
            let (parent_path, name) = row.path.rsplit_once('/').unwrap_or(("", &row.path));
            let Some(parent) = self.lookup_path(parent_path) else {
                continue;
            };
            let known = matches!(&self.node(parent).map(|n| &n.body),
                Some(Body::Dir(entries)) if entries.contains_key(name));
            if known || row.ino <= ROOT_INO {
                continue;
            }
            let body = || match row.size {
                Some(0) => Body::File(Vec::new()),
                Some(size) => Body::paged(size),
                None => Body::Dir(Default::default()),
            };
            self.place(parent, name, &row, body);
        }
    }

    /// The whole tree: the rows read now added to those here. What this
    /// call changed stands (a path it changed is not read back), as do the
    /// bytes read or written (every row is of the call's own snapshot).
    pub fn densify(&mut self, rows: Vec<Row>) {
        self.add_rows(rows);
        self.sparse = false;
        self.shared.clear();
        self.asked.clear();
    }
}

#[cfg(test)]
mod tests {
    use super::super::super::Code;
    use super::*;

    fn row(path: &str, ino: Ino, size: Option<u64>) -> Row {
        Row {
            path: path.into(),
            ino,
            mtime: 7,
            ctime: 7,
            size,
        }
    }

    /// The rows of `all` at `wanted`, as a lookup reads them.
    fn named(all: &[Row], wanted: &[String]) -> Vec<Row> {
        all.iter()
            .filter(|r| wanted.contains(&r.path))
            .cloned()
            .collect()
    }

    #[test]
    fn a_sparse_tree_answers_lookups_of_what_it_read_and_densifies_whole() {
        let all = vec![
            row("", ROOT_INO, None),
            row("a", 2, None),
            row("a/b.md", 3, Some(4)),
            row("a/c.md", 4, Some(0)),
            row("d", 5, None),
        ];
        let mut tree = Tree::sparse(6);
        assert_eq!(
            tree.prefixes(ROOT_INO, "a/./x/../b.md"),
            ["", "a", "a/x", "a/b.md"]
        );
        let wanted = tree.prefixes(ROOT_INO, "a/b.md");
        tree.add_rows(named(&all, &wanted));
        let b = tree.resolve(ROOT_INO, "a/b.md").unwrap();
        assert_eq!(tree.node(b).unwrap().size(), 4);
        assert!(tree.resolve(ROOT_INO, "d").is_err(), "not read yet");
        let a = tree.resolve(ROOT_INO, "a").unwrap();
        assert_eq!(tree.prefixes(a, "../d"), ["", "d"]);
        tree.fill(b, b"abcd".to_vec());
        tree.densify(all);
        assert!(!tree.is_sparse());
        assert_eq!(tree.data(b).unwrap(), b"abcd", "what was read is kept");
        assert!(tree.resolve(ROOT_INO, "d").is_ok() && tree.resolve(ROOT_INO, "a/c.md").is_ok());
        assert!(!tree.is_dirty());
    }

    #[test]
    fn a_sparse_tree_changes_what_it_read_and_densifies_without_undoing_it() {
        let all = vec![
            row("", ROOT_INO, None),
            row("a", 2, None),
            row("a/gone.md", 3, Some(4)),
            row("a/kept.md", 4, Some(4)),
            row("a/linked.md", 5, Some(4)),
            row("b/linked.md", 5, Some(4)),
            row("b", 6, None),
        ];
        let mut tree = Tree::sparse(7);
        let wanted = tree.unasked(tree.prefixes(ROOT_INO, "a/gone.md"));
        assert_eq!(wanted, ["", "a", "a/gone.md"]);
        let read = |wanted: &[String]| named(&all, wanted);
        tree.add_rows(read(&wanted));
        let a = tree.resolve(ROOT_INO, "a").unwrap();
        tree.unlink_file(a, "gone.md").unwrap();
        // Asked once, a path is as the tree has it: not read back.
        assert!(
            tree.unasked(tree.prefixes(ROOT_INO, "a/gone.md"))
                .is_empty()
        );
        tree.add_rows(read(&["a/gone.md".to_owned()]));
        assert_eq!(tree.resolve(ROOT_INO, "a/gone.md"), Err(Code::NoEntry));
        let new = tree.unasked(tree.prefixes(ROOT_INO, "a/new.md"));
        assert_eq!(new, ["a/new.md"]);
        let made = tree.create_file(a, "new.md").unwrap();
        assert!(made >= 7, "a new inode is past every one in use");

        // A file with a name not read: its change needs the whole tree.
        let linked = tree.unasked(tree.prefixes(ROOT_INO, "a/linked.md"));
        tree.add_rows(read(&linked));
        tree.add_shared([5]);
        assert!(tree.is_shared(5) && !tree.is_shared(4));

        tree.densify(all.clone());
        assert!(!tree.is_sparse() && !tree.is_shared(5));
        assert_eq!(tree.resolve(ROOT_INO, "a/gone.md"), Err(Code::NoEntry));
        assert_eq!(tree.resolve(ROOT_INO, "a/new.md"), Ok(made));
        assert_eq!(tree.resolve(ROOT_INO, "b/linked.md"), Ok(5));
        assert_eq!(tree.paths_of(5).len(), 2, "both names of the linked file");
        let dirty = tree.take_dirty();
        assert!(dirty.paths.contains("a/gone.md") && dirty.paths.contains("a/new.md"));
        assert_eq!(dirty.gone.iter().copied().collect::<Vec<_>>(), [3]);
    }
}
