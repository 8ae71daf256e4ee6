//! The queries of the database backend: namespaces found and made, their
//! locks and versions, and a tree read from and saved to its rows.

use super::LOCK_CLASS;
use super::conn::{Answer, Ask, Conn, Pending};
use std::collections::HashMap;

use super::pager::put_page;
use crate::backend::served::tree::{PAGE, Row, Tree};

/// The namespace's id, if it exists.
pub(crate) fn find(client: &mut Conn, name: &str) -> Result<Option<i64>, postgres::Error> {
    Ok(client.query_opt(FIND, &[&name])?.map(|row| row.get(0)))
}

/// A namespace's id by its name (`$1`, text).
pub(crate) const FIND: &str = "SELECT id FROM memcap_namespaces WHERE name = $1";

/// Makes the namespace (or finds it, when another host just made it).
pub(crate) fn create(client: &mut Conn, name: &str) -> Result<i64, postgres::Error> {
    client.execute(
        "INSERT INTO memcap_namespaces (name) VALUES ($1) ON CONFLICT (name) DO NOTHING",
        &[&name],
    )?;
    Ok(client.query_one(FIND, &[&name])?.get(0))
}

/// Opens a transaction, takes the namespaces' advisory locks in id order
/// (so two hosts granting the same namespaces cannot deadlock), exclusive
/// where the call may write and shared where it only reads, and reads
/// their versions after the locks are held: one round trip. `opened`: the
/// transaction is open already. The ids are numbers memcap holds, written
/// into the text as such.
/// Also returns the transaction's id when `with_xid` (for a write: what
/// [`commit_status`] asks about should the commit's answer be lost).
pub(crate) fn begin_locked(
    client: &mut Conn,
    mut ids: Vec<(i64, bool)>,
    opened: bool,
    with_xid: bool,
) -> Result<(Versions, Option<i64>), postgres::Error> {
    ids.sort_unstable();
    ids.dedup_by_key(|(id, _)| *id);
    let mut sql = String::from(if opened { "" } else { "BEGIN;" });
    for &(id, exclusive) in &ids {
        // Ids past 2^31 share a key with a smaller one: a lock held more
        // widely than needed, never less.
        let key = id as i32;
        let shared = if exclusive { "" } else { "_shared" };
        sql.push_str(&format!(
            " SELECT pg_advisory_xact_lock{shared}({LOCK_CLASS}, {key});"
        ));
    }
    let listed: Vec<String> = ids.iter().map(|(id, _)| id.to_string()).collect();
    // Read committed: this statement's snapshot is taken after the locks.
    sql.push_str(&format!(
        " SELECT id, version, next_ino FROM memcap_namespaces WHERE id IN ({})",
        if listed.is_empty() {
            "NULL".to_owned()
        } else {
            listed.join(", ")
        }
    ));
    if with_xid {
        sql.push_str("; SELECT 'xid', txid_current()");
    }
    let mut versions = HashMap::new();
    let mut xid = None;
    for message in client.simple_query(&sql)? {
        // The locks' rows have one column, the transaction id's two, the
        // versions' three.
        if let postgres::SimpleQueryMessage::Row(row) = &message
            && row.len() == 2
            && row.get(0) == Some("xid")
        {
            xid = row.get(1).and_then(|v| v.parse::<i64>().ok());
        }
        if let postgres::SimpleQueryMessage::Row(row) = message
            && row.len() == 3
        {
            let number = |i| row.get(i).and_then(|v: &str| v.parse::<i64>().ok());
            if let (Some(id), Some(version), Some(next)) = (number(0), number(1), number(2)) {
                versions.insert(id, (version, next.max(0) as u64));
            }
        }
    }
    Ok((versions, xid))
}

/// What became of transaction `xid`, asked on another connection: `Some(true)`
/// committed, `Some(false)` aborted, `None` not known yet (the server has
/// not seen the first connection go) or at all.
pub(crate) fn commit_status(client: &mut Conn, xid: i64) -> Result<Option<bool>, postgres::Error> {
    let status: Option<String> = client.query_one("SELECT txid_status($1)", &[&xid])?.get(0);
    Ok(match status.as_deref() {
        Some("committed") => Some(true),
        Some("aborted") => Some(false),
        _ => None,
    })
}

/// What [`versions`] reads: by namespace id, its version and next inode
/// number; a namespace gone is missing.
pub(crate) type Versions = HashMap<i64, (i64, u64)>;

/// The namespaces' versions (one round trip).
pub(crate) fn versions(client: &mut Conn, ids: &[i64]) -> Result<Versions, postgres::Error> {
    let params = id_params(ids);
    Ok(versions_of(
        client.query(&versions_sql(ids.len()), &params)?,
    ))
}

/// The ids as the versions query's parameters, one each.
fn id_params(ids: &[i64]) -> Vec<&(dyn postgres::types::ToSql + Sync)> {
    ids.iter()
        .map(|id| id as &(dyn postgres::types::ToSql + Sync))
        .collect()
}

/// Opens a read's snapshot and reads the namespaces' versions in it: one
/// round trip.
pub(crate) fn begin_reading(client: &mut Conn, ids: &[i64]) -> Result<Versions, postgres::Error> {
    let params = id_params(ids);
    let sql = versions_sql(ids.len());
    let mut answers = client
        .pipeline(&[
            Ask::Simple("BEGIN ISOLATION LEVEL REPEATABLE READ, READ ONLY"),
            Ask::Prepared(&sql, &params),
        ])?
        .into_iter();
    if let Some(Answer::Simple(Err(e))) = answers.next() {
        return Err(e);
    }
    match answers.next() {
        Some(Answer::Rows(rows)) => Ok(versions_of(rows?)),
        _ => unreachable!("a query is answered with rows"),
    }
}

/// Asks for the namespaces' versions without waiting for the answer: read
/// it with [`Conn::finish`] and [`versions_of`].
pub(crate) fn ask_versions(client: &mut Conn, ids: &[i64]) -> Result<Pending, postgres::Error> {
    client.send(&versions_sql(ids.len()), ids.to_vec())
}

pub(crate) fn versions_of(rows: Vec<postgres::Row>) -> Versions {
    rows.into_iter()
        .map(|row| (row.get(0), (row.get(1), row.get::<_, i64>(2) as u64)))
        .collect()
}

/// The versions query for `n` ids. One parameter an id, not an array:
/// PostgreSQL plans a query on an array parameter again at every call
/// (~45 µs, most of a warm read).
pub(crate) fn versions_sql(n: usize) -> String {
    let listed: Vec<String> = (1..=n).map(|i| format!("${i}")).collect();
    format!(
        "SELECT id, version, next_ino FROM memcap_namespaces WHERE id IN ({})",
        if n == 0 {
            "NULL".to_owned()
        } else {
            listed.join(", ")
        }
    )
}

/// The namespace's tree. Bytes saved no later than `seen` (the version
/// `old` holds; `None`: nothing is held) are `old`'s; only the pages
/// written since are read. `paged` (with nothing held): nothing is read,
/// the rows and bytes are read as the call needs them (see `paging`).
pub(crate) fn load(
    client: &mut Conn,
    id: i64,
    seen: Option<i64>,
    mut old: Tree,
    next_ino: u64,
    paged: bool,
) -> Result<Tree, postgres::Error> {
    if paged && seen.is_none() {
        return Ok(Tree::sparse(next_ino));
    }
    let rows: Vec<Row> = client
        .query(
            "SELECT path, ino, mtime_ns, ctime_ns, size FROM memcap_entries WHERE ns = $1",
            &[&id],
        )?
        .into_iter()
        .map(|row| Row {
            path: row.get(0),
            ino: row.get::<_, i64>(1) as u64,
            mtime: row.get(2),
            ctime: row.get(3),
            size: row.get::<_, Option<i64>>(4).map(|s| s.max(0) as u64),
        })
        .collect();
    let mut data: HashMap<u64, Vec<u8>> = HashMap::new();
    if seen.is_some() {
        for row in &rows {
            if row.size.is_some() && !data.contains_key(&row.ino) {
                data.insert(row.ino, old.take_data(row.ino));
            }
        }
    }
    let pages = client.query(
        "SELECT ino, page, data FROM memcap_pages WHERE ns = $1 AND ver > $2",
        &[&id, &seen.unwrap_or(-1)],
    )?;
    for page in &pages {
        put_page(&mut data, page);
    }
    Ok(Tree::from_rows(rows, data, next_ino, false))
}

/// Writes what the tree changed and the namespace's new version in one
/// statement (one round trip): entries gone deleted and the others upserted,
/// pages written upserted, pages past a file's new end and every page of a
/// file gone deleted. No two of its parts touch the same row. Hosts that
/// listen hear of the commit on `listen::CHANNEL`.
const SAVE: &str = "
WITH gone_entries AS (
    DELETE FROM memcap_entries WHERE ns = $1 AND path = ANY($3::text[])
), put_entries AS (
    INSERT INTO memcap_entries (ns, path, ino, mtime_ns, ctime_ns, ver, size)
    SELECT $1, r.path, r.ino, r.mtime_ns, r.ctime_ns, $2, r.size
    FROM unnest($4::text[], $5::int8[], $6::int8[], $7::int8[], $8::int8[])
        AS r (path, ino, mtime_ns, ctime_ns, size)
    ON CONFLICT (ns, path) DO UPDATE SET ino = excluded.ino,
        mtime_ns = excluded.mtime_ns, ctime_ns = excluded.ctime_ns,
        ver = excluded.ver, size = excluded.size
), put_pages AS (
    INSERT INTO memcap_pages (ns, ino, page, ver, data)
    SELECT $1, p.ino, p.page, $2, p.data
    FROM unnest($9::int8[], $10::int4[], $11::bytea[]) AS p (ino, page, data)
    ON CONFLICT (ns, ino, page) DO UPDATE SET ver = excluded.ver, data = excluded.data
), cut_pages AS (
    DELETE FROM memcap_pages WHERE ns = $1 AND ino = ANY($12::int8[])
        AND page >= ($13::int4[])[array_position($12::int8[], ino)]
), gone_pages AS (
    DELETE FROM memcap_pages WHERE ns = $1 AND ino = ANY($14::int8[])
)
UPDATE memcap_namespaces SET version = $2, next_ino = $15 WHERE id = $1
RETURNING pg_notify('memcap', $1::text)";

/// Writes what the tree changed as of `version` (see [`SAVE`]).
pub(crate) fn save(
    client: &mut Conn,
    id: i64,
    tree: &mut Tree,
    version: i64,
) -> Result<(), postgres::Error> {
    let dirty = tree.take_dirty();
    let mut gone = Vec::new();
    let (mut paths, mut inos, mut mtimes, mut ctimes, mut sizes) =
        (Vec::new(), Vec::new(), Vec::new(), Vec::new(), Vec::new());
    for path in dirty.paths {
        match tree.row(&path) {
            Some(row) => {
                paths.push(row.path);
                inos.push(row.ino as i64);
                mtimes.push(row.mtime);
                ctimes.push(row.ctime);
                sizes.push(row.size.map(|s| s as i64));
            }
            None => gone.push(path),
        }
    }
    let (mut page_inos, mut numbers, mut datas) = (Vec::new(), Vec::new(), Vec::new());
    for (ino, pages) in &dirty.pages {
        for &page in pages {
            // Past the end (cut since): not saved; every page written is
            // here, paged file or not.
            let Some(bytes) = tree.page_bytes(*ino, page) else {
                continue;
            };
            page_inos.push(*ino as i64);
            numbers.push(page as i32);
            datas.push(bytes);
        }
    }
    let (mut cut_inos, mut keep) = (Vec::new(), Vec::new());
    for ino in &dirty.shrunk {
        if let Some(node) = tree.node(*ino).filter(|n| !n.is_dir()) {
            cut_inos.push(*ino as i64);
            keep.push(node.size().div_ceil(PAGE) as i32);
        }
    }
    let gone_inos: Vec<i64> = dirty.gone.iter().map(|&ino| ino as i64).collect();
    client.execute(
        SAVE,
        &[
            &id,
            &version,
            &gone,
            &paths,
            &inos,
            &mtimes,
            &ctimes,
            &sizes,
            &page_inos,
            &numbers,
            &datas,
            &cut_inos,
            &keep,
            &gone_inos,
            &(tree.next_ino() as i64),
        ],
    )?;
    Ok(())
}
