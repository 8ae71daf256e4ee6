//! The queries of the database backend: namespaces found and made, their
//! locks and versions, and a tree read from and saved to its rows.

use super::LOCK_CLASS;
use super::conn::Conn;
use std::collections::HashMap;

use crate::vfs::tree::{PAGE, Row, Tree};

/// The namespace's id, if it exists.
pub(crate) fn find(client: &mut Conn, name: &str) -> Result<Option<i64>, postgres::Error> {
    Ok(client
        .query_opt("SELECT id FROM memcap_namespaces WHERE name = $1", &[&name])?
        .map(|row| row.get(0)))
}

/// Makes the namespace (or finds it, when another host just made it).
pub(crate) fn create(client: &mut Conn, name: &str) -> Result<i64, postgres::Error> {
    client.execute(
        "INSERT INTO memcap_namespaces (name) VALUES ($1) ON CONFLICT (name) DO NOTHING",
        &[&name],
    )?;
    Ok(client
        .query_one("SELECT id FROM memcap_namespaces WHERE name = $1", &[&name])?
        .get(0))
}

/// Takes the namespaces' advisory locks for this transaction, in id
/// order (so two hosts granting the same namespaces cannot deadlock):
/// exclusive where the call may write, shared where it only reads.
pub(crate) fn lock(client: &mut Conn, mut ids: Vec<(i64, bool)>) -> Result<(), postgres::Error> {
    ids.sort_unstable();
    ids.dedup_by_key(|(id, _)| *id);
    for (id, exclusive) in ids {
        // Ids past 2^31 share a key with a smaller one: a lock held more
        // widely than needed, never less.
        let key = id as i32;
        if exclusive {
            client.execute("SELECT pg_advisory_xact_lock($1, $2)", &[&LOCK_CLASS, &key])?;
        } else {
            client.execute(
                "SELECT pg_advisory_xact_lock_shared($1, $2)",
                &[&LOCK_CLASS, &key],
            )?;
        }
    }
    Ok(())
}

/// The namespaces' versions and next inode numbers, by id; a namespace
/// gone is missing.
pub(crate) fn versions(
    client: &mut Conn,
    ids: &[i64],
) -> Result<HashMap<i64, (i64, u64)>, postgres::Error> {
    Ok(client
        .query(
            "SELECT id, version, next_ino FROM memcap_namespaces WHERE id = ANY($1)",
            &[&ids],
        )?
        .into_iter()
        .map(|row| (row.get(0), (row.get(1), row.get::<_, i64>(2) as u64)))
        .collect())
}

/// The namespace's tree. Bytes saved no later than `seen` (the version
/// `old` holds; `None`: nothing is held) are `old`'s; only the pages
/// written since are read.
pub(crate) fn load(
    client: &mut Conn,
    id: i64,
    seen: Option<i64>,
    mut old: Tree,
    next_ino: u64,
) -> Result<Tree, postgres::Error> {
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
    for page in pages {
        let ino = page.get::<_, i64>(0) as u64;
        let at = page.get::<_, i32>(1).max(0) as usize * PAGE as usize;
        let bytes: &[u8] = page.get(2);
        let file = data.entry(ino).or_default();
        if file.len() < at + bytes.len() {
            file.resize(at + bytes.len(), 0);
        }
        file[at..at + bytes.len()].copy_from_slice(bytes);
    }
    Ok(Tree::from_rows(rows, data, next_ino))
}

/// Writes what the tree changed (entries in one upsert and one delete,
/// pages likewise) and the namespace's new version.
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
    if !gone.is_empty() {
        client.execute(
            "DELETE FROM memcap_entries WHERE ns = $1 AND path = ANY($2)",
            &[&id, &gone],
        )?;
    }
    if !paths.is_empty() {
        client.execute(
            "INSERT INTO memcap_entries (ns, path, ino, mtime_ns, ctime_ns, ver, size)
             SELECT $1, r.path, r.ino, r.mtime_ns, r.ctime_ns, $6, r.size
             FROM unnest($2::text[], $3::int8[], $4::int8[], $5::int8[], $7::int8[])
                 AS r (path, ino, mtime_ns, ctime_ns, size)
             ON CONFLICT (ns, path) DO UPDATE SET ino = excluded.ino,
                 mtime_ns = excluded.mtime_ns, ctime_ns = excluded.ctime_ns,
                 ver = excluded.ver, size = excluded.size",
            &[&id, &paths, &inos, &mtimes, &ctimes, &version, &sizes],
        )?;
    }
    let (mut page_inos, mut numbers, mut datas) = (Vec::new(), Vec::new(), Vec::new());
    for (ino, pages) in &dirty.pages {
        let Ok(bytes) = tree.data(*ino) else { continue };
        for &page in pages {
            let start = page * PAGE;
            if start >= bytes.len() as u64 {
                break;
            }
            let end = (start + PAGE).min(bytes.len() as u64);
            page_inos.push(*ino as i64);
            numbers.push(page as i32);
            datas.push(&bytes[start as usize..end as usize]);
        }
    }
    if !datas.is_empty() {
        client.execute(
            "INSERT INTO memcap_pages (ns, ino, page, ver, data)
             SELECT $1, p.ino, p.page, $5, p.data
             FROM unnest($2::int8[], $3::int4[], $4::bytea[]) AS p (ino, page, data)
             ON CONFLICT (ns, ino, page) DO UPDATE SET ver = excluded.ver, data = excluded.data",
            &[&id, &page_inos, &numbers, &datas, &version],
        )?;
    }
    // Pages past a file's new end; every page of a file gone.
    let (mut cut_inos, mut keep) = (Vec::new(), Vec::new());
    for ino in &dirty.shrunk {
        if let Ok(bytes) = tree.data(*ino) {
            cut_inos.push(*ino as i64);
            keep.push((bytes.len() as u64).div_ceil(PAGE) as i32);
        }
    }
    if !cut_inos.is_empty() {
        client.execute(
            "DELETE FROM memcap_pages WHERE ns = $1 AND ino = ANY($2)
                 AND page >= ($3::int4[])[array_position($2, ino)]",
            &[&id, &cut_inos, &keep],
        )?;
    }
    let gone: Vec<i64> = dirty.gone.iter().map(|&ino| ino as i64).collect();
    if !gone.is_empty() {
        client.execute(
            "DELETE FROM memcap_pages WHERE ns = $1 AND ino = ANY($2)",
            &[&id, &gone],
        )?;
    }
    client.execute(
        "UPDATE memcap_namespaces SET version = $2, next_ino = $3 WHERE id = $1",
        &[&id, &version, &(tree.next_ino() as i64)],
    )?;
    Ok(())
}
