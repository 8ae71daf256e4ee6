//! The tables memcap keeps in PostgreSQL, made and upgraded by memcap
//! itself under an advisory lock, so hosts starting together agree. A
//! database whose schema is newer than this memcap's is refused.

use postgres::SimpleQueryMessage;

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

/// Since 2026-11-29, in version 1 too (made where it is missing; a memcap
/// before it works with it): a file's other names, found without a scan,
/// so a one-shot change can be made on the rows it read (see
/// `served::tree::sparse`).
const INO_INDEX: &str = "CREATE INDEX IF NOT EXISTS memcap_entries_ino ON memcap_entries (ns, ino)";

/// Whether the tables are there, of this version and with every index:
/// one statement without the lock (every process asks; a one-shot call
/// paid five round trips for it), sent with a connection's first requests.
/// Any other answer, an error too (no tables yet), is left to the locked
/// check of [`ensure`].
pub(crate) const CHECK: &str =
    "SELECT max(version), to_regclass('memcap_entries_ino') IS NOT NULL FROM memcap_schema";

/// Makes the tables in an empty database, or checks the version of those
/// there, unless `current` (the answer to [`CHECK`] said so already). On an
/// error the transaction is left open: the caller drops the connection,
/// which rolls it back.
pub(crate) fn ensure(client: &mut Conn, current: bool) -> Result<(), OpenDbError> {
    if current {
        return Ok(());
    }
    client.batch_execute("BEGIN").map_err(OpenDbError::query)?;
    client
        .execute("SELECT pg_advisory_xact_lock($1, 0)", &[&LOCK_CLASS])
        .map_err(OpenDbError::query)?;
    let found = client
        .query_one(
            "SELECT to_regclass('memcap_schema') IS NOT NULL, \
             to_regclass('memcap_entries_ino') IS NOT NULL",
            &[],
        )
        .map_err(OpenDbError::query)?;
    let (exists, indexed): (bool, bool) = (found.get(0), found.get(1));
    if !exists {
        client.batch_execute(CREATE).map_err(OpenDbError::create)?;
        client
            .batch_execute(INO_INDEX)
            .map_err(OpenDbError::create)?;
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
        Some(VERSION) => {
            if !indexed {
                add_ino_index(client)?;
            }
            client.batch_execute("COMMIT").map_err(OpenDbError::query)
        }
        Some(found) if found > VERSION => Err(OpenDbError::NewerSchema {
            found,
            known: VERSION,
        }),
        _ => Err(OpenDbError::UnknownSchema),
    }
}

/// Whether the answer to [`CHECK`] says the schema is this memcap's.
pub(crate) fn current(answer: &[SimpleQueryMessage]) -> bool {
    answer.iter().any(|message| match message {
        SimpleQueryMessage::Row(row) => {
            row.get(0) == Some(VERSION.to_string().as_str()) && row.get(1) == Some("t")
        }
        _ => false,
    })
}

/// Adds [`INO_INDEX`] to a database made before it. A role that may not
/// (it does not own the tables) goes on without it: a one-shot change then
/// scans the namespace's entries for a file's other names, as slow as
/// reading them all, never wrong.
fn add_ino_index(client: &mut Conn) -> Result<(), OpenDbError> {
    client
        .batch_execute("SAVEPOINT ino_index")
        .map_err(OpenDbError::query)?;
    if let Err(e) = client.batch_execute(INO_INDEX) {
        super::error::log(&e);
        client
            .batch_execute("ROLLBACK TO SAVEPOINT ino_index")
            .map_err(OpenDbError::query)?;
    }
    Ok(())
}
