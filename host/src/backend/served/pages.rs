//! Reading what a sparse or paged tree has not read yet, from the
//! backend's [`Source`], when the guest first needs it: a file's bytes
//! whole or some of its pages (with a read-ahead), the rows that name a
//! path, or every row.

use super::tree::{Ino, PAGE, Tree};
use super::{Code, FsState, Source};

/// The most rows one lookup asks for by name (one a path component).
const MAX_PREFIXES: usize = 64;

/// Brings `inos` of `tree` in through `pager` (a file with no pages is
/// zeros, as a file read whole is).
fn fill(
    pager: Option<&mut Box<dyn Source>>,
    mount: usize,
    tree: &mut Tree,
    inos: &[Ino],
) -> Result<(), Code> {
    if inos.is_empty() {
        return Ok(());
    }
    let mut files = pager.ok_or(Code::Io)?.read(mount, inos).ok_or(Code::Io)?;
    for &ino in inos {
        tree.fill(ino, files.remove(&ino).unwrap_or_default());
    }
    Ok(())
}

/// Pages read ahead of what is asked (a read of a file's head then a
/// few more of its pages cost one query, not one each)...
const READ_AHEAD: u64 = 2;
/// ...and at most, for a read that goes on where the last one ended: the
/// more of the file is here, the further ahead (a file read from start to
/// end costs a few queries, not one a page).
const MAX_READ_AHEAD: u64 = 256;

impl FsState {
    /// The file's bytes whole, read from the database first if they are
    /// not all here.
    pub fn data(&mut self, mount: usize, ino: Ino) -> Result<&[u8], Code> {
        let tree = &mut self.mounts.get_mut(mount).ok_or(Code::BadDescriptor)?.tree;
        if tree.is_paged(ino) {
            fill(self.pager.as_mut(), mount, tree, &[ino])?;
        }
        tree.data(ino)
    }

    /// The file's size (here whether or not its bytes are).
    pub fn size(&self, mount: usize, ino: Ino) -> Result<u64, Code> {
        let tree = &self.mounts.get(mount).ok_or(Code::BadDescriptor)?.tree;
        Ok(tree.node(ino).ok_or(Code::BadDescriptor)?.size())
    }

    /// Bytes `from..to` of the file (cut at its end), reading the pages
    /// that hold them first if they are not here.
    pub fn range(&mut self, mount: usize, ino: Ino, from: u64, to: u64) -> Result<&[u8], Code> {
        self.pages(mount, ino, from, to)?.range(ino, from, to)
    }

    /// The mount's tree, with the pages holding bytes `from..to` of the
    /// file here (to write them: the page `from` lies in is kept whole).
    pub fn pages(&mut self, mount: usize, ino: Ino, from: u64, to: u64) -> Result<&mut Tree, Code> {
        let tree = &mut self.mounts.get_mut(mount).ok_or(Code::BadDescriptor)?.tree;
        let missing = tree.missing(ino, from, to);
        if let (Some(&first), Some(&last)) = (missing.first(), missing.last()) {
            // Reading on from where the last read ended, further ahead.
            let on = first > 0
                && tree
                    .missing(ino, (first - 1) * PAGE, first * PAGE)
                    .is_empty();
            let ahead = match on {
                true => tree.held(ino).clamp(READ_AHEAD, MAX_READ_AHEAD),
                false => READ_AHEAD,
            };
            let wanted = first..last + 1 + ahead;
            let read = self
                .pager
                .as_mut()
                .ok_or(Code::Io)?
                .read_pages(mount, ino, &wanted)
                .ok_or(Code::Io)?;
            tree.fill_pages(ino, wanted, &read);
        }
        Ok(tree)
    }

    /// Reads the rows that name `path` looked up from `base`, if the
    /// mount's tree is sparse.
    pub fn reveal(&mut self, mount: usize, base: Ino, path: &str) -> Result<(), Code> {
        let tree = &mut self.mounts.get_mut(mount).ok_or(Code::BadDescriptor)?.tree;
        if !tree.is_sparse() {
            return Ok(());
        }
        let wanted = tree.prefixes(base, path);
        if wanted.len() > MAX_PREFIXES {
            // A path that deep reads the whole tree rather than a query
            // that grows with the square of its length.
            self.whole(mount)?;
            return Ok(());
        }
        let wanted = tree.unasked(wanted);
        if wanted.is_empty() {
            return Ok(());
        }
        let (rows, shared) = self
            .pager
            .as_mut()
            .and_then(|p| p.rows_at(mount, &wanted))
            .ok_or(Code::Io)?;
        tree.add_rows(rows);
        tree.add_shared(shared);
        Ok(())
    }

    /// The mount's tree, ready for a change of what `path` (looked up from
    /// `base`) names. A sparse tree reads the rows that name it, and then
    /// the rest too if the change needs them: `path` names a file with
    /// other names not read, or a directory and `moved` (a directory moved
    /// or removed: what lies under it, whether it is empty).
    pub fn for_change(
        &mut self,
        mount: usize,
        base: Ino,
        path: &str,
        moved: bool,
    ) -> Result<&mut Tree, Code> {
        self.reveal(mount, base, path)?;
        let tree = &self.mounts.get(mount).ok_or(Code::BadDescriptor)?.tree;
        let whole = tree.is_sparse()
            && tree.resolve(base, path).is_ok_and(|ino| {
                tree.is_shared(ino) || (moved && tree.node(ino).is_some_and(|n| n.is_dir()))
            });
        match whole {
            true => self.whole(mount),
            false => Ok(&mut self.mounts[mount].tree),
        }
    }

    /// Reads the rest of the mount's rows, if its tree is sparse: a
    /// listing or a change is made on the whole tree.
    pub fn whole(&mut self, mount: usize) -> Result<&mut Tree, Code> {
        let tree = &mut self.mounts.get_mut(mount).ok_or(Code::BadDescriptor)?.tree;
        if tree.is_sparse() {
            let rows = self
                .pager
                .as_mut()
                .and_then(|p| p.all_rows(mount))
                .ok_or(Code::Io)?;
            tree.densify(rows);
        }
        Ok(tree)
    }

    /// The mount's whole tree with every file's bytes here (to copy it).
    pub fn all_loaded(&mut self, mount: usize) -> Result<&mut Tree, Code> {
        self.whole(mount)?;
        let tree = &mut self.mounts.get_mut(mount).ok_or(Code::BadDescriptor)?.tree;
        let paged = tree.paged();
        fill(self.pager.as_mut(), mount, tree, &paged)?;
        Ok(tree)
    }
}
