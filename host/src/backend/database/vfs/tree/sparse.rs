//! A tree that holds only the rows read so far: a host's first call on a
//! namespace reads the rows that name the paths the guest looks up (one
//! query a lookup), not the namespace's every entry. Anything else (a
//! listing, any change) reads the rest first ([`Tree::densify`]), so every
//! change is made on a whole tree.

use std::collections::HashMap;

use super::{Body, Ino, ROOT_INO, Row, Tree, depth};

impl Tree {
    /// A tree of the root alone, whose other rows are still to be read.
    pub fn sparse(next_ino: Ino) -> Self {
        let mut tree = Self::from_rows(Vec::new(), HashMap::new(), next_ino, true);
        tree.sparse = true;
        tree
    }

    pub fn is_sparse(&self) -> bool {
        self.sparse
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

    /// Adds the rows read (each whose parent is here and that is not), as
    /// [`Tree::from_rows`] would place them.
    pub fn add_rows(&mut self, mut rows: Vec<Row>) {
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
                Some(size) => Body::Paged(size),
                None => Body::Dir(Default::default()),
            };
            self.place(parent, name, &row, body);
        }
    }

    /// The whole tree `rows` describe, keeping the bytes this sparse one
    /// read already (its inodes are the rows' own).
    pub fn densify(&mut self, rows: Vec<Row>) {
        let mut whole = Self::from_rows(rows, HashMap::new(), self.next_ino, true);
        for (ino, node) in self.nodes.drain() {
            if let Body::File(bytes) = node.body {
                whole.fill(ino, bytes);
            }
        }
        *self = whole;
    }
}

#[cfg(test)]
mod tests {
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
        tree.add_rows(
            all.iter()
                .filter(|r| wanted.contains(&r.path))
                .cloned()
                .collect(),
        );
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
}
