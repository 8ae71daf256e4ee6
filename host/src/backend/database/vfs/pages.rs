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

    /// The rows at `paths` of the namespace at `mount` (those there).
    fn rows_at(&mut self, mount: usize, paths: &[String]) -> Option<Vec<Row>> {
        let rows = self.query(
            mount,
            "SELECT path, ino, mtime_ns, ctime_ns, size FROM memcap_entries \
             WHERE ns = $1 AND path = ANY($2::text[])",
            &paths,
        )?;
        Some(rows.iter().map(entry).collect())
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

impl FsState {
    /// The file's bytes, read from the database first if they are not here.
    pub fn data(&mut self, mount: usize, ino: Ino) -> Result<&[u8], Code> {
        self.loaded(mount, ino)?.data(ino)
    }

    /// The mount's tree, with the file's bytes here (to change them).
    pub fn loaded(&mut self, mount: usize, ino: Ino) -> Result<&mut Tree, Code> {
        let tree = &mut self.mounts.get_mut(mount).ok_or(Code::BadDescriptor)?.tree;
        if tree.is_paged(ino) {
            fill(self.pager.as_mut(), mount, tree, &[ino])?;
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
        let rows = self
            .pager
            .as_mut()
            .and_then(|p| p.rows_at(mount, &wanted))
            .ok_or(Code::Io)?;
        tree.add_rows(rows);
        Ok(())
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
