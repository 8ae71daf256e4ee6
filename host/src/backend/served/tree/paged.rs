//! Files whose bytes stay in the database until the guest needs them: a
//! host's first call on a namespace reads its entries only (a one-shot
//! `view` of one note at 100,000 notes reads that note, not every page),
//! and of a file only the pages a read or a write touches (an append to a
//! 4 MB journal reads its last page, not the journal).

use std::collections::{BTreeSet, HashMap};

use super::super::Code;
use super::{Body, Ino, PAGE, Tree};

/// A file some of whose pages are still in the database.
#[derive(Clone, Debug)]
pub(crate) struct Partial {
    size: u64,
    /// `size` bytes once a page is here, zeros where none is; else empty.
    bytes: Vec<u8>,
    /// The pages here (read, or written by this call).
    held: BTreeSet<u64>,
}

impl Partial {
    pub fn new(size: u64) -> Self {
        Self {
            size,
            bytes: Vec::new(),
            held: BTreeSet::new(),
        }
    }

    pub fn size(&self) -> u64 {
        self.size
    }

    fn open(&mut self) -> &mut Vec<u8> {
        if self.bytes.len() as u64 != self.size {
            self.bytes.resize(self.size as usize, 0);
        }
        &mut self.bytes
    }

    /// Puts a page read from the database in place, unless one is here
    /// already (this call may have written it): cut at the size, the rest
    /// of it zeros.
    fn put(&mut self, page: u64, data: &[u8]) {
        if self.held.contains(&page) || page * PAGE >= self.size {
            return;
        }
        let size = self.size;
        let at = (page * PAGE) as usize;
        let end = ((page + 1) * PAGE).min(size) as usize;
        let n = data.len().min(end - at);
        self.open()[at..at + n].copy_from_slice(&data[..n]);
        self.held.insert(page);
    }

    fn complete(&self) -> bool {
        self.held.len() as u64 >= self.size.div_ceil(PAGE)
    }
}

impl Body {
    /// A file of `size` bytes none of which is here yet.
    pub fn paged(size: u64) -> Self {
        Body::Paged(Box::new(Partial::new(size)))
    }
}

impl Tree {
    /// Whether `ino` is a file some of whose bytes are not here yet.
    pub fn is_paged(&self, ino: Ino) -> bool {
        self.node(ino)
            .is_some_and(|n| matches!(n.body, Body::Paged(_)))
    }

    /// The files some of whose bytes are not here yet.
    pub fn paged(&self) -> Vec<Ino> {
        self.nodes
            .iter()
            .filter(|(_, n)| matches!(n.body, Body::Paged(_)))
            .map(|(&ino, _)| ino)
            .collect()
    }

    /// The pages of `ino` that bytes `from..to` lie in, that the file has
    /// and that are not here (none for a file here whole). The page `from`
    /// lies in counts even at the end of the file: a write there keeps the
    /// bytes before it.
    pub fn missing(&self, ino: Ino, from: u64, to: u64) -> Vec<u64> {
        match self.node(ino).map(|n| &n.body) {
            Some(Body::Paged(p)) if to > from => (from / PAGE..=(to - 1) / PAGE)
                .filter(|&page| page * PAGE < p.size && !p.held.contains(&page))
                .collect(),
            _ => Vec::new(),
        }
    }

    /// How many pages of `ino` are here (to read further ahead the more a
    /// file is read).
    pub fn held(&self, ino: Ino) -> u64 {
        match self.node(ino).map(|n| &n.body) {
            Some(Body::Paged(p)) => p.held.len() as u64,
            _ => 0,
        }
    }

    /// Puts pages `pages` of `ino` read from the database in place: `read`
    /// holds those the database has; one it has not is zeros, as in a
    /// file read whole. A page here already is kept (this call may have
    /// written it); a file with every page here is then whole.
    pub fn fill_pages(
        &mut self,
        ino: Ino,
        pages: std::ops::Range<u64>,
        read: &HashMap<u64, Vec<u8>>,
    ) {
        if let Some(node) = self.nodes.get_mut(&ino)
            && let Body::Paged(p) = &mut node.body
        {
            for page in pages {
                p.put(page, read.get(&page).map_or(&[][..], Vec::as_slice));
            }
            if p.complete() {
                node.body = Body::File(std::mem::take(p.open()));
            }
        }
    }

    /// Puts a paged file's bytes here whole, cut or zero-filled to its size
    /// (pages here already kept); a file not paged is left as it is.
    pub fn fill(&mut self, ino: Ino, mut bytes: Vec<u8>) {
        if let Some(node) = self.nodes.get_mut(&ino)
            && let Body::Paged(p) = &mut node.body
        {
            bytes.resize(p.size as usize, 0);
            for &page in &p.held {
                let at = (page * PAGE) as usize;
                let end = ((page + 1) * PAGE).min(p.size) as usize;
                bytes[at..end].copy_from_slice(&p.bytes[at..end]);
            }
            node.body = Body::File(bytes);
        }
    }

    /// Bytes `from..to` of `ino`, cut at its end; `Io` if a page of them
    /// is not here (brought in by [`super::super::FsState::range`] first).
    pub fn range(&self, ino: Ino, from: u64, to: u64) -> Result<&[u8], Code> {
        let bytes: &[u8] = match &self.node(ino).ok_or(Code::BadDescriptor)?.body {
            Body::File(data) => data,
            Body::Paged(p) if self.missing(ino, from, to.min(p.size)).is_empty() => {
                if p.bytes.is_empty() { &[] } else { &p.bytes }
            }
            Body::Paged(_) => return Err(Code::Io),
            Body::Dir(_) => return Err(Code::IsDirectory),
        };
        let end = (to.min(bytes.len() as u64)) as usize;
        Ok(bytes
            .get(from.min(end as u64) as usize..end)
            .unwrap_or_default())
    }

    #[cfg_attr(not(feature = "database"), allow(dead_code))]
    /// The bytes of page `page` of `ino` to save, if the file reaches it
    /// and it is here (every page written is).
    pub fn page_bytes(&self, ino: Ino, page: u64) -> Option<&[u8]> {
        let bytes: &[u8] = match &self.node(ino)?.body {
            Body::File(data) => data,
            Body::Paged(p) if p.held.contains(&page) => &p.bytes,
            _ => return None,
        };
        let at = page * PAGE;
        (at < bytes.len() as u64)
            .then(|| &bytes[at as usize..(at + PAGE).min(bytes.len() as u64) as usize])
    }

    /// A file's bytes to change where `from..to` is written, every page
    /// that holds them here (`Io` if one is not); [`Tree::settle`] after.
    pub(super) fn bytes_mut(&mut self, ino: Ino, from: u64, to: u64) -> Result<&mut Vec<u8>, Code> {
        if !self.missing(ino, from, to).is_empty() {
            return Err(Code::Io);
        }
        match &mut self.nodes.get_mut(&ino).ok_or(Code::BadDescriptor)?.body {
            Body::File(data) => Ok(data),
            Body::Paged(p) => Ok(p.open()),
            Body::Dir(_) => Err(Code::IsDirectory),
        }
    }

    /// After a change made through [`Tree::bytes_mut`]: bytes `from..to`
    /// are this call's, and a file with every page here is whole.
    pub(super) fn settle(&mut self, ino: Ino, from: u64, to: u64) {
        if let Some(node) = self.nodes.get_mut(&ino)
            && let Body::Paged(p) = &mut node.body
        {
            p.size = p.bytes.len() as u64;
            if to > from {
                p.held.extend(from / PAGE..=(to - 1) / PAGE);
            }
            let pages = p.size.div_ceil(PAGE);
            p.held.retain(|&page| page < pages);
            if p.complete() {
                node.body = Body::File(std::mem::take(p.open()));
            }
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

    /// A file of three whole pages and 100 bytes, none of them here.
    fn partial() -> (Tree, Ino, u64) {
        let size = 3 * PAGE + 100;
        let rows = vec![Row {
            path: "j".into(),
            ino: 2,
            mtime: 1,
            ctime: 1,
            size: Some(size),
        }];
        let tree = Tree::from_rows(rows, HashMap::new(), 3, true);
        let j = tree.resolve(ROOT_INO, "j").unwrap();
        (tree, j, size)
    }

    /// What the database holds for page `n`: its number in every byte.
    fn stored(n: u64) -> Vec<u8> {
        vec![n as u8 + 1; PAGE as usize]
    }

    #[test]
    fn a_read_or_an_append_needs_only_the_pages_it_touches() {
        let (mut tree, j, size) = partial();
        assert_eq!(tree.missing(j, 0, size), [0, 1, 2, 3]);
        // The page an append lands in is needed (its head is kept)...
        assert_eq!(tree.missing(j, size, size + 10), [3]);
        // ...one that starts at the end is not (nothing of it is kept).
        assert!(tree.missing(j, 3 * PAGE, 3 * PAGE).is_empty());
        assert_eq!(tree.range(j, size - 5, size), Err(Code::Io));
        assert_eq!(
            tree.write(j, size, b"appended", u64::MAX),
            Err(Code::Io),
            "no write into a page not here"
        );
        assert!(!tree.is_dirty(), "a refused write marks nothing");

        tree.fill_pages(j, 3..5, &HashMap::from([(3, stored(3)), (4, stored(4))]));
        assert_eq!(tree.range(j, size - 2, size + 50).unwrap(), [4, 4]);
        assert_eq!(tree.range(j, 0, 1), Err(Code::Io), "page 0 is not here");
        tree.write(j, size, b"appended", u64::MAX).unwrap();
        assert_eq!(tree.node(j).unwrap().size(), size + 8);
        let dirty = tree.take_dirty();
        assert_eq!(dirty.pages[&j].iter().copied().collect::<Vec<_>>(), [3]);
        let page = tree.page_bytes(j, 3).unwrap();
        assert_eq!(page.len(), 108);
        assert_eq!(&page[98..], b"\x04\x04appended");
        assert!(tree.page_bytes(j, 0).is_none(), "only pages here are saved");

        // Read whole later, the pages this call wrote stay as written.
        let whole: Vec<u8> = (0..4).flat_map(stored).collect();
        tree.fill(j, whole);
        let data = tree.data(j).unwrap();
        assert_eq!(data.len() as u64, size + 8);
        assert_eq!(data[0], 1);
        assert!(data.ends_with(b"\x04appended"));
        assert!(tree.paged().is_empty());
    }

    #[test]
    fn a_file_with_every_page_here_is_whole_and_a_cut_page_reads_back_cut() {
        let (mut tree, j, size) = partial();
        tree.fill_pages(j, 0..2, &HashMap::from([(0, stored(0)), (1, stored(1))]));
        assert!(tree.is_paged(j));
        // Page 2 is not in the database: zeros, as in a file read whole.
        tree.fill_pages(j, 2..4, &HashMap::from([(3, stored(3))]));
        assert!(!tree.is_paged(j), "every page here: a whole file");
        assert_eq!(tree.data(j).unwrap()[2 * PAGE as usize], 0);
        assert_eq!(tree.data(j).unwrap().len() as u64, size);

        // Cut inside page 1 with nothing here, then grown again: the page
        // read back keeps no byte past the cut.
        let (mut tree, j, _) = partial();
        tree.set_size(j, PAGE + 10, u64::MAX).unwrap();
        assert!(tree.take_dirty().shrunk.contains(&j));
        assert_eq!(tree.missing(j, PAGE + 10, PAGE + 20), [1]);
        tree.fill_pages(j, 1..2, &HashMap::from([(1, stored(1))]));
        tree.set_size(j, PAGE + 20, u64::MAX).unwrap();
        let page = tree.page_bytes(j, 1).unwrap();
        assert_eq!(&page[..10], &[2; 10]);
        assert_eq!(&page[10..], &[0; 10]);
    }
}
