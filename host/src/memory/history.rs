//! The version history's functions (WIT `versions`): `memory_history`,
//! the one agents reach, and those for people, which `memcap history`
//! runs.

use super::{Actor, Memory};
use crate::bindings::{BlameAnswer, HistoryVersion, RedactReport, UndoReport};
use crate::error::ToolError;

impl Memory {
    /// A path's versions, newest first, a page at a time; with `version`,
    /// what that version said (WIT `memory-history`, the agent's command).
    pub fn memory_history(
        &self,
        path: &str,
        version: Option<u64>,
        page: Option<u32>,
    ) -> Result<String, ToolError> {
        let path = path.to_owned();
        self.typed("memory_history", path.len(), move |b, s| {
            b.memcap_memory_versions()
                .call_memory_history(s, &path, version, page)
        })
    }

    /// The versions that touch `path` (`/memories/...`: a file, or all
    /// under a directory), newest first, made at or after `since` (`2h`,
    /// `7d`, a date, RFC 3339) and by `by` (an actor's name or id).
    pub fn history_list(
        &self,
        path: &str,
        since: Option<&str>,
        by: Option<&str>,
    ) -> Result<Vec<HistoryVersion>, ToolError> {
        let (path, since, by) = (
            path.to_owned(),
            since.map(str::to_owned),
            by.map(str::to_owned),
        );
        let bytes =
            path.len() + since.as_ref().map_or(0, String::len) + by.as_ref().map_or(0, String::len);
        self.invoke("history_list", bytes, move |b, s| {
            b.memcap_memory_versions()
                .call_list_versions(s, &path, since.as_deref(), by.as_deref())
        })?
        .map_err(ToolError::from)
    }

    /// The newest versions that touch `path`, newest first, numbered below
    /// `before`, at most `limit` (1 to 200): read from the history's end,
    /// so the newest page costs the page.
    pub fn history_recent(
        &self,
        path: &str,
        before: Option<u64>,
        limit: u32,
    ) -> Result<Vec<HistoryVersion>, ToolError> {
        let path = path.to_owned();
        self.invoke("history_recent", path.len(), move |b, s| {
            b.memcap_memory_versions()
                .call_recent_versions(s, &path, before, limit)
        })?
        .map_err(ToolError::from)
    }

    /// The exact bytes version `number` of `path` left.
    pub fn history_show(&self, path: &str, number: u64) -> Result<Vec<u8>, ToolError> {
        let path = path.to_owned();
        self.invoke("history_show", path.len(), move |b, s| {
            b.memcap_memory_versions()
                .call_show_version(s, &path, number)
        })?
        .map_err(ToolError::from)
    }

    /// Who last changed each line of the text file `path` as it is now.
    pub fn history_blame(&self, path: &str) -> Result<BlameAnswer, ToolError> {
        let path = path.to_owned();
        self.invoke("history_blame", path.len(), move |b, s| {
            b.memcap_memory_versions().call_blame(s, &path)
        })?
        .map_err(ToolError::from)
    }

    /// Gives `path` (a file, or every file under a directory) the content
    /// of version `number`; each file restored is a new version, made
    /// by `actor` (the store's own when `None`).
    pub fn history_restore(
        &self,
        path: &str,
        number: u64,
        actor: Option<&Actor>,
    ) -> Result<UndoReport, ToolError> {
        let path = path.to_owned();
        self.invoke_as(actor, "history_restore", path.len(), move |b, s| {
            b.memcap_memory_versions().call_restore(s, &path, number)
        })?
        .map_err(ToolError::from)
    }

    /// Undoes every change made at or after `since` (only `by`'s, if
    /// given), leaving files someone else changed later, and says which;
    /// the undo is `actor`'s change.
    pub fn history_revert(
        &self,
        since: &str,
        by: Option<&str>,
        actor: Option<&Actor>,
    ) -> Result<UndoReport, ToolError> {
        let (since, by) = (since.to_owned(), by.map(str::to_owned));
        self.invoke_as(actor, "history_revert", since.len(), move |b, s| {
            b.memcap_memory_versions()
                .call_revert(s, &since, by.as_deref())
        })?
        .map_err(ToolError::from)
    }

    /// Records what is now at `paths` (`/memories/...`) where the history
    /// says otherwise, as `actor`'s changes (the store's own when `None`):
    /// for changes the host made itself for its user, so that a revert by
    /// that actor undoes them; with `outside`, as another program's. Every
    /// path is taken, in as many calls as the component's time per call
    /// needs. Returns how many calls it took.
    pub fn history_record(
        &self,
        paths: &[String],
        outside: bool,
        actor: Option<&Actor>,
    ) -> Result<usize, ToolError> {
        let mut rest = paths;
        let mut calls = 0;
        while !rest.is_empty() {
            let chunk = rest[..rest.len().min(10_000)].to_vec();
            let bytes = chunk.iter().map(String::len).sum();
            let taken = self
                .invoke_as(actor, "history_record", bytes, move |b, s| {
                    b.memcap_memory_versions()
                        .call_record_changes(s, &chunk, outside)
                })?
                .map_err(ToolError::from)?;
            calls += 1;
            // The component looks at one path at least a call; an answer
            // of none would loop for ever, so it is refused.
            let taken = (taken as usize).min(rest.len());
            if taken == 0 {
                return Err(ToolError::new(
                    crate::ToolErrorKind::Io,
                    "the history took none of the paths it was given: nothing more was recorded",
                ));
            }
            rest = &rest[taken..];
        }
        Ok(calls)
    }

    /// Erases for good the content of version `number` of `path` (all of
    /// its versions, and its name, when `None`); the records stay, marked
    /// redacted by `actor`. On a database the tables that held what was
    /// erased are rewritten before this returns, so no copy stays in their
    /// files; when that cannot be done, the error says so and what to run
    /// (the versions are redacted all the same).
    pub fn history_redact(
        &self,
        path: &str,
        number: Option<u64>,
        actor: Option<&Actor>,
    ) -> Result<RedactReport, ToolError> {
        let path = path.to_owned();
        let report = self
            .invoke_as(actor, "history_redact", path.len(), move |b, s| {
                b.memcap_memory_versions().call_redact(s, &path, number)
            })?
            .map_err(ToolError::from)?;
        // Even when nothing was left to redact: a redaction run again
        // after one cut short (the process killed while the tables were
        // rewritten) finishes its job.
        self.lock()
            .backend
            .purge()
            .map_err(|why| ToolError::new(crate::ToolErrorKind::Io, why))?;
        Ok(report)
    }
}
