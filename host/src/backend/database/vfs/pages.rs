//! Reading what a sparse or paged tree has not read yet (rows that name a
//! path, every row, a file's bytes) during a call, on the call's
//! connection and in its snapshot (the call's transaction holds the
//! namespaces' locks, or a read's repeatable-read snapshot), so what is
//! read is of the version the tree holds.

use std::collections::HashMap;

use super::tree::{Ino, PAGE, Row, Tree};
use super::{Code, FsState};
use crate::backend::database::conn::Conn;

/// The most rows one lookup asks for by name (one a path component).
const MAX_PREFIXES: usize = 64;

/// The rows at some paths (`$2`) of a namespace (`$1`), each with whether
/// its file has other names too (by `memcap_entries_ino`).
pub(crate) const ROWS_AT: &str = "SELECT e.path, e.ino, e.mtime_ns, e.ctime_ns, e.size, \
     e.size IS NOT NULL AND EXISTS (SELECT 1 FROM memcap_entries o \
         WHERE o.ns = e.ns AND o.ino = e.ino AND o.path <> e.path) \
     FROM memcap_entries e WHERE e.ns = $1 AND e.path = ANY($2::text[])";

/// Some pages (`$3` to before `$4`) of a file (`$2`) of a namespace (`$1`).
pub(crate) const PAGES: &str = "SELECT page, data FROM memcap_pages \
     WHERE ns = $1 AND ino = $2 AND page >= $3 AND page < $4";

/// The call's connection, lent to the file system while the guest runs.
pub(crate) struct Pager {
    conn: Conn,
    /// Each mount's namespace id, in mount order.
    ids: Vec<Option<i64>>,
    /// Why a read failed: the call's answer cannot be trusted.
    pub failed: Option<postgres::Error>,
}

impl Pager {
    pub fn new(conn: Conn, ids: Vec<Option<i64>>) -> Self {
        Self {
            conn,
            ids,
            failed: None,
        }
    }

    /// The connection back when the call ends, and why a read failed.
    pub fn into_parts(self) -> (Conn, Option<postgres::Error>) {
        (self.conn, self.failed)
    }

    /// Runs one query on the namespace at `mount` (its id the first
    /// parameter); `None` once any query failed.
    fn query(
        &mut self,
        mount: usize,
        sql: &str,
        rest: &(dyn postgres::types::ToSql + Sync),
    ) -> Option<Vec<postgres::Row>> {
        let id = (*self.ids.get(mount)?)?;
        if self.failed.is_some() {
            return None;
        }
        let params: [&(dyn postgres::types::ToSql + Sync); 2] = [&id, rest];
        match self.conn.query(sql, &params[..]) {
            Ok(rows) => Some(rows),
            Err(e) => {
                self.failed = Some(e);
                None
            }
        }
    }

    /// The rows at `paths` of the namespace at `mount` (those there), and
    /// the files among them with other names too (by `memcap_entries_ino`).
    fn rows_at(&mut self, mount: usize, paths: &[String]) -> Option<(Vec<Row>, Vec<Ino>)> {
        let rows = self.query(mount, ROWS_AT, &paths)?;
        let shared = rows
            .iter()
            .filter(|row| row.get::<_, bool>(5))
            .map(|row| row.get::<_, i64>(1) as Ino)
            .collect();
        Some((rows.iter().map(entry).collect(), shared))
    }

    /// Every row of the namespace at `mount`.
    fn all_rows(&mut self, mount: usize) -> Option<Vec<Row>> {
        // The second parameter only keeps one shape for every query.
        let rows = self.query(
            mount,
            "SELECT path, ino, mtime_ns, ctime_ns, size FROM memcap_entries \
             WHERE ns = $1 AND $2::int8 IS NOT NULL",
            &0i64,
        )?;
        Some(rows.iter().map(entry).collect())
    }

    /// The bytes of `inos` of the namespace at `mount`, in one query.
    fn read(&mut self, mount: usize, inos: &[Ino]) -> Option<HashMap<Ino, Vec<u8>>> {
        let inos: Vec<i64> = inos.iter().map(|&i| i as i64).collect();
        let rows = self.query(
            mount,
            "SELECT ino, page, data FROM memcap_pages WHERE ns = $1 AND ino = ANY($2::int8[])",
            &inos,
        )?;
        let mut files: HashMap<Ino, Vec<u8>> = HashMap::new();
        for row in &rows {
            put_page(&mut files, row);
        }
        Some(files)
    }
}

impl Pager {
    /// Pages `pages` of `ino` of the namespace at `mount` (those there).
    fn read_pages(
        &mut self,
        mount: usize,
        ino: Ino,
        pages: &std::ops::Range<u64>,
    ) -> Option<HashMap<u64, Vec<u8>>> {
        let id = (*self.ids.get(mount)?)?;
        if self.failed.is_some() {
            return None;
        }
        let (ino, from, to) = (
            ino as i64,
            pages.start as i32,
            pages.end.min(i32::MAX as u64) as i32,
        );
        let read = self.conn.query(PAGES, &[&id, &ino, &from, &to]);
        match read {
            Ok(rows) => Some(
                rows.iter()
                    .map(|row| (row.get::<_, i32>(0).max(0) as u64, row.get::<_, Vec<u8>>(1)))
                    .collect(),
            ),
            Err(e) => {
                self.failed = Some(e);
                None
            }
        }
    }
}

/// Puts a `memcap_pages` row (ino, page, data) into its file's bytes.
pub(crate) fn put_page(files: &mut HashMap<Ino, Vec<u8>>, row: &postgres::Row) {
    let ino = row.get::<_, i64>(0) as u64;
    let at = row.get::<_, i32>(1).max(0) as usize * PAGE as usize;
    let bytes: &[u8] = row.get(2);
    let file = files.entry(ino).or_default();
    if file.len() < at + bytes.len() {
        file.resize(at + bytes.len(), 0);
    }
    file[at..at + bytes.len()].copy_from_slice(bytes);
}

/// An entry's row as the tree takes it.
fn entry(row: &postgres::Row) -> Row {
    Row {
        path: row.get(0),
        ino: row.get::<_, i64>(1) as u64,
        mtime: row.get(2),
        ctime: row.get(3),
        size: row.get::<_, Option<i64>>(4).map(|s| s.max(0) as u64),
    }
}

/// Brings `inos` of `tree` in through `pager` (a file with no pages is
/// zeros, as a file read whole is).
fn fill(
    pager: Option<&mut Pager>,
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
