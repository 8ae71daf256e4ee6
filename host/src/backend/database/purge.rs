//! Erased bytes out of PostgreSQL's own files. A deleted row stays in its
//! table's pages (a large value in the TOAST table's) until the table is
//! rewritten, so a redaction's `DELETE` alone leaves the secret readable
//! to anyone with the data directory or a file-level backup, even after a
//! plain `VACUUM`. `VACUUM FULL` writes the tables memcap keeps files and
//! names in anew and removes the old files, but it copies a deleted row
//! that another connection's snapshot may still see: so it runs only once
//! no connection to the database can see the deleted rows any more.

use std::sync::Arc;
use std::time::{Duration, Instant};

use super::DatabaseStore;
use super::conn::Conn;

/// The least time the rewrite is given, whatever a call's limit.
const MIN_TIME: Duration = Duration::from_secs(60);
/// How long it waits for the other calls on the tables to end (its lock
/// is exclusive: calls that come meanwhile wait behind it).
const LOCK_WAIT: &str = "SET lock_timeout = '5s'";
/// The tables that hold the files' bytes and their names.
const REWRITE: &str = "VACUUM FULL memcap_pages, memcap_entries";
/// The first transaction id not yet given out: the redaction's `DELETE`
/// committed before this connection opened, so its id is below.
const NEXT_XID: &str = "SELECT pg_snapshot_xmax(pg_current_snapshot())::text";
/// What may still see rows deleted before [`NEXT_XID`]: the snapshots and
/// open transactions of the database's other connections, its prepared
/// transactions and the replication slots that hold rows back. A plain
/// `VACUUM` (in `pg_stat_progress_vacuum`) holds a snapshot that no other
/// vacuum waits for, so neither does this.
const HOLDERS: &str = "\
    SELECT x::text FROM ( \
      SELECT unnest(ARRAY[backend_xmin, backend_xid]) AS x FROM pg_stat_activity \
       WHERE datname = current_database() AND pid <> pg_backend_pid() \
         AND pid NOT IN (SELECT pid FROM pg_stat_progress_vacuum) \
      UNION ALL SELECT transaction FROM pg_prepared_xacts WHERE database = current_database() \
      UNION ALL SELECT xmin FROM pg_replication_slots \
       WHERE database IS NULL OR database = current_database() \
    ) held WHERE x IS NOT NULL";
/// How often it looks again while a snapshot holds the rows.
const POLL: Duration = Duration::from_millis(50);

impl DatabaseStore {
    /// [`crate::backend::Backend::purge`].
    pub(super) fn purge_erased(&mut self) -> Result<(), String> {
        let Some(runtime) = self.runtime.as_ref().map(Arc::clone) else {
            return Err(unfinished("the store is closing"));
        };
        let limit = self.call_timeout.max(MIN_TIME);
        let mut conn = self.url.connect(limit, runtime).map_err(|e| refused(&e))?;
        // At most a call's time: a transaction left open for longer is
        // not going to end because this waits.
        let deadline = Instant::now() + self.call_timeout;
        unseen(&mut conn, deadline)?;
        conn.batch_execute(LOCK_WAIT)
            .and_then(|()| conn.batch_execute(REWRITE))
            .map_err(|e| refused(&e))
    }
}

/// Waits until no other connection can see the rows deleted before this
/// one opened, until `deadline`.
fn unseen(conn: &mut Conn, deadline: Instant) -> Result<(), String> {
    let next = conn.query_one(NEXT_XID, &[]).map_err(|e| refused(&e))?;
    let next = xid32(next.get(0)).ok_or_else(|| unfinished("PostgreSQL gave no transaction id"))?;
    loop {
        let rows = conn.query(HOLDERS, &[]).map_err(|e| refused(&e))?;
        let older = rows
            .iter()
            .filter_map(|row| xid32(row.get(0)))
            .any(|x| precedes(x, next));
        if !older {
            return Ok(());
        }
        if Instant::now() + POLL > deadline {
            return Err(unfinished(
                "another connection to the database kept a transaction open from before the \
                 redaction, and could still read the erased rows",
            ));
        }
        std::thread::sleep(POLL);
    }
}

/// A transaction id as the 32 bits a row and `pg_stat_activity` keep.
fn xid32(text: &str) -> Option<u32> {
    text.parse::<u64>().ok().map(|xid| xid as u32)
}

/// Whether `a` was given out before `b`: ids wrap around at 2^32 and are
/// compared within half of that, as PostgreSQL compares them.
fn precedes(a: u32, b: u32) -> bool {
    (a.wrapping_sub(b) as i32) < 0
}

/// The rewrite's failure, in the words of what it means.
fn refused(e: &postgres::Error) -> String {
    let code = e.code().map(|c| c.code().to_owned());
    unfinished(match code.as_deref() {
        Some("55P03") => "other calls held the tables for more than 5 seconds",
        Some("57014") => "it took longer than its time limit",
        Some("42501") => "the role memcap connects as does not own the tables",
        _ => "the database could not be reached or refused it",
    })
}

/// What is left where, and what clears it, for the person who redacted.
fn unfinished(why: &str) -> String {
    format!(
        "The versions are redacted and their rows deleted, but PostgreSQL still keeps the erased \
         bytes in its tables' files until they are rewritten, which did not finish ({why}): run \
         `{REWRITE}` as the tables' owner when the store is quiet. The WAL and backups keep them \
         too (docs/history.md says how to clear those)."
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn transaction_ids_compare_across_the_wrap() {
        assert!(precedes(5, 6));
        assert!(!precedes(6, 6));
        assert!(!precedes(7, 6));
        // Just past the wrap, an id near 2^32 came first.
        assert!(precedes(u32::MAX - 2, 3));
        assert!(!precedes(3, u32::MAX - 2));
        assert_eq!(xid32("4294967299"), Some(3));
        assert_eq!(xid32("x"), None);
    }
}
