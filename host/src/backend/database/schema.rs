//! The tables memcap keeps in PostgreSQL, made and upgraded by memcap
//! itself under an advisory lock, so hosts starting together agree. A
//! database whose schema is newer than this memcap's is refused.

use super::conn::Conn;

use super::{LOCK_CLASS, OpenDbError};

/// The schema this memcap writes; stored in `memcap_schema`.
pub(crate) const VERSION: i32 = 1;

/// Version 1: namespaces (each a tree of entries, with the version every
/// committing write bumps and the next inode number), entries (one row a
/// path: its inode, times and, for a file, size) and pages (a file's bytes
/// by inode, in pages of `tree::PAGE` bytes, stored uncompressed; each row
/// and page carries the version that last wrote it, so a host reads again
/// only what changed since the version it holds).
const CREATE: &str = "
CREATE TABLE memcap_namespaces (
    id bigserial PRIMARY KEY,
    name text COLLATE \"C\" NOT NULL UNIQUE,
    version bigint NOT NULL DEFAULT 0,
    next_ino bigint NOT NULL DEFAULT 2,
    created timestamptz NOT NULL DEFAULT now()
);
CREATE TABLE memcap_entries (
    ns bigint NOT NULL REFERENCES memcap_namespaces (id) ON DELETE CASCADE,
    path text COLLATE \"C\" NOT NULL,
    ino bigint NOT NULL,
    mtime_ns bigint NOT NULL,
    ctime_ns bigint NOT NULL,
    ver bigint NOT NULL,
    size bigint,
    PRIMARY KEY (ns, path)
);
CREATE TABLE memcap_pages (
    ns bigint NOT NULL REFERENCES memcap_namespaces (id) ON DELETE CASCADE,
    ino bigint NOT NULL,
    page integer NOT NULL,
    ver bigint NOT NULL,
    data bytea NOT NULL,
    PRIMARY KEY (ns, ino, page)
);
ALTER TABLE memcap_pages ALTER COLUMN data SET STORAGE EXTERNAL;
CREATE INDEX memcap_pages_ver ON memcap_pages (ns, ver);
CREATE TABLE memcap_schema (version integer NOT NULL);
";

/// Makes the tables in an empty database, or checks the version of those
/// there. On an error the transaction is left open: the caller drops the
/// connection, which rolls it back.
pub(crate) fn ensure(client: &mut Conn) -> Result<(), OpenDbError> {
    client.batch_execute("BEGIN").map_err(OpenDbError::query)?;
    client
        .execute("SELECT pg_advisory_xact_lock($1, 0)", &[&LOCK_CLASS])
        .map_err(OpenDbError::query)?;
    let exists: bool = client
        .query_one("SELECT to_regclass('memcap_schema') IS NOT NULL", &[])
        .map_err(OpenDbError::query)?
        .get(0);
    if !exists {
        client.batch_execute(CREATE).map_err(OpenDbError::create)?;
        client
            .execute(
                "INSERT INTO memcap_schema (version) VALUES ($1)",
                &[&VERSION],
            )
            .map_err(OpenDbError::create)?;
        return client.batch_execute("COMMIT").map_err(OpenDbError::create);
    }
    let found: Option<i32> = client
        .query_opt("SELECT max(version) FROM memcap_schema", &[])
        .map_err(OpenDbError::query)?
        .and_then(|row| row.get(0));
    match found {
        Some(VERSION) => client.batch_execute("COMMIT").map_err(OpenDbError::query),
        Some(found) if found > VERSION => Err(OpenDbError::NewerSchema {
            found,
            known: VERSION,
        }),
        _ => Err(OpenDbError::UnknownSchema),
    }
}
