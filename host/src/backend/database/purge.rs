//! Erased bytes out of PostgreSQL's own files. A deleted row stays in its
//! table's pages (a large value in the TOAST table's) until the table is
//! rewritten, so a redaction's `DELETE` alone leaves the secret readable
//! to anyone with the data directory or a file-level backup, even after a
//! plain `VACUUM`. `VACUUM FULL` writes the tables memcap keeps files and
//! names in anew and removes the old files.

use std::sync::Arc;
use std::time::Duration;

use super::DatabaseStore;

/// The least time the rewrite is given, whatever a call's limit.
const MIN_TIME: Duration = Duration::from_secs(60);
/// How long it waits for the other calls on the tables to end (its lock
/// is exclusive: calls that come meanwhile wait behind it).
const LOCK_WAIT: &str = "SET lock_timeout = '5s'";
/// The tables that hold the files' bytes and their names.
const REWRITE: &str = "VACUUM FULL memcap_pages, memcap_entries";

impl DatabaseStore {
    /// [`crate::backend::Backend::purge`].
    pub(super) fn purge_erased(&mut self) -> Result<(), String> {
        let Some(runtime) = self.runtime.as_ref().map(Arc::clone) else {
            return Err(unfinished("the store is closing"));
        };
        let limit = self.call_timeout.max(MIN_TIME);
        let rewritten = self.url.connect(limit, runtime).and_then(|mut conn| {
            conn.batch_execute(LOCK_WAIT)?;
            conn.batch_execute(REWRITE)
        });
        rewritten.map_err(|e| {
            let code = e.code().map(|c| c.code().to_owned());
            unfinished(match code.as_deref() {
                Some("55P03") => "other calls held the tables for more than 5 seconds",
                Some("57014") => "it took longer than its time limit",
                Some("42501") => "the role memcap connects as does not own the tables",
                _ => "the database could not be reached or refused it",
            })
        })
    }
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
