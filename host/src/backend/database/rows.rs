//! The queries of the database backend: namespaces found and made, their
//! locks and versions, and a tree read from and saved to its rows.

use postgres::Client;

use super::LOCK_CLASS;
use crate::vfs::tree::{Row, Tree};

/// The namespace's id, if it exists.
pub(crate) fn find(client: &mut Client, name: &str) -> Result<Option<i64>, postgres::Error> {
    Ok(client
        .query_opt("SELECT id FROM memcap_namespaces WHERE name = $1", &[&name])?
        .map(|row| row.get(0)))
}

/// Makes the namespace (or finds it, when another host just made it).
pub(crate) fn create(client: &mut Client, name: &str) -> Result<i64, postgres::Error> {
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
pub(crate) fn lock(client: &mut Client, mut ids: Vec<(i64, bool)>) -> Result<(), postgres::Error> {
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

/// The namespace's version and next inode number, `None` if it is gone.
pub(crate) fn version(client: &mut Client, id: i64) -> Result<Option<(i64, u64)>, postgres::Error> {
    Ok(client
        .query_opt(
            "SELECT version, next_ino FROM memcap_namespaces WHERE id = $1",
            &[&id],
        )?
        .map(|row| (row.get(0), row.get::<_, i64>(1) as u64)))
}

/// The namespace's tree. Rows saved no later than `seen` (the version
/// `old` holds) keep the bytes `old` has; the rest are read.
pub(crate) fn load(
    client: &mut Client,
    id: i64,
    seen: Option<i64>,
    mut old: Tree,
    next_ino: u64,
) -> Result<Tree, postgres::Error> {
    let seen = seen.unwrap_or(-1);
    let rows = client.query(
        "SELECT path, ino, mtime_ns, ctime_ns, data IS NOT NULL, CASE WHEN ver > $2 THEN data END
         FROM memcap_entries WHERE ns = $1",
        &[&id, &seen],
    )?;
    let rows = rows.into_iter().map(|row| {
        let ino = row.get::<_, i64>(1) as u64;
        let is_file: bool = row.get(4);
        let data = match row.get::<_, Option<Vec<u8>>>(5) {
            Some(data) => Some(data),
            None if is_file => Some(old.take_data(ino)),
            None => None,
        };
        Row {
            path: row.get(0),
            ino,
            mtime: row.get(2),
            ctime: row.get(3),
            data,
        }
    });
    Ok(Tree::from_rows(rows.collect::<Vec<_>>(), next_ino))
}

/// Writes the paths the tree changed (in one upsert and one delete) and
/// the namespace's new version.
pub(crate) fn save(
    client: &mut Client,
    id: i64,
    tree: &mut Tree,
    version: i64,
) -> Result<(), postgres::Error> {
    let mut gone = Vec::new();
    let (mut paths, mut inos, mut mtimes, mut ctimes, mut datas) =
        (Vec::new(), Vec::new(), Vec::new(), Vec::new(), Vec::new());
    for path in tree.take_dirty() {
        match tree.row(&path) {
            Some(row) => {
                paths.push(row.path);
                inos.push(row.ino as i64);
                mtimes.push(row.mtime);
                ctimes.push(row.ctime);
                datas.push(row.data);
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
            "INSERT INTO memcap_entries (ns, path, ino, mtime_ns, ctime_ns, ver, data)
             SELECT $1, r.path, r.ino, r.mtime_ns, r.ctime_ns, $6, r.data
             FROM unnest($2::text[], $3::int8[], $4::int8[], $5::int8[], $7::bytea[])
                 AS r (path, ino, mtime_ns, ctime_ns, data)
             ON CONFLICT (ns, path) DO UPDATE SET ino = excluded.ino,
                 mtime_ns = excluded.mtime_ns, ctime_ns = excluded.ctime_ns,
                 ver = excluded.ver, data = excluded.data",
            &[&id, &paths, &inos, &mtimes, &ctimes, &version, &datas],
        )?;
    }
    client.execute(
        "UPDATE memcap_namespaces SET version = $2, next_ino = $3 WHERE id = $1",
        &[&id, &version, &(tree.next_ino() as i64)],
    )?;
    Ok(())
}
