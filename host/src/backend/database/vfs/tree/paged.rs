//! Files whose bytes stay in the database until the guest needs them: a
//! host's first call on a namespace reads its entries only (a one-shot
//! `view` of one note at 100,000 notes reads that note, not every page).

use super::{Body, Ino, Tree};

impl Tree {
    /// Whether `ino` is a file whose bytes are not here yet.
    pub fn is_paged(&self, ino: Ino) -> bool {
        self.node(ino)
            .is_some_and(|n| matches!(n.body, Body::Paged(_)))
    }

    /// The files whose bytes are not here yet.
    pub fn paged(&self) -> Vec<Ino> {
        self.nodes
            .iter()
            .filter(|(_, n)| matches!(n.body, Body::Paged(_)))
            .map(|(&ino, _)| ino)
            .collect()
    }

    /// Puts a paged file's bytes here, cut or zero-filled to its size (as a
    /// file read whole would be); a file not paged is left as it is.
    pub fn fill(&mut self, ino: Ino, mut bytes: Vec<u8>) {
        if let Some(node) = self.nodes.get_mut(&ino)
            && let Body::Paged(size) = node.body
        {
            bytes.resize(size as usize, 0);
            node.body = Body::File(bytes);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::{ROOT_INO, Row};
    use super::*;
    use std::collections::HashMap;

    #[test]
    fn a_paged_file_has_its_size_until_filled_and_emptying_needs_no_bytes() {
        let rows = vec![
            Row {
                path: "a".into(),
                ino: 2,
                mtime: 1,
                ctime: 1,
                size: Some(5),
            },
            Row {
                path: "b".into(),
                ino: 3,
                mtime: 1,
                ctime: 1,
                size: Some(3),
            },
        ];
        let mut tree = Tree::from_rows(rows, HashMap::new(), 4, true);
        let a = tree.resolve(ROOT_INO, "a").unwrap();
        let b = tree.resolve(ROOT_INO, "b").unwrap();
        assert!(tree.is_paged(a) && tree.node(a).unwrap().size() == 5);
        assert_eq!(tree.row("a").unwrap().size, Some(5));
        assert!(tree.data(a).is_err(), "no bytes are made up");
        tree.fill(a, b"hello, world".to_vec());
        assert_eq!(tree.data(a).unwrap(), b"hello");
        tree.set_size(b, 0, u64::MAX).unwrap();
        assert_eq!(tree.data(b).unwrap(), b"");
        assert!(tree.take_dirty().shrunk.contains(&b), "its old pages go");
        assert!(tree.paged().is_empty());
    }
}
