//! The call's connection lent to the served file system ([`Source`]):
//! what a sparse or paged tree has not read yet (rows that name a path,
//! every row, a file's bytes) read during a call, on the call's
//! connection and in its snapshot (the call's transaction holds the
//! namespaces' locks, or a read's repeatable-read snapshot), so what is
//! read is of the version the tree holds.

use std::collections::HashMap;

use crate::backend::served::Source;
use crate::backend::served::tree::{Ino, PAGE, Row};

use super::conn::Conn;

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
}

impl Source for Pager {
    fn into_any(self: Box<Self>) -> Box<dyn std::any::Any> {
        self
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
