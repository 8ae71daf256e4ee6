//! What goes wrong with a database store, told twice: in full to the
//! person running memcap (opening errors, the database's own words on
//! stderr), and as plain tool errors to the agent, which never see a
//! connection string, SQL or a server message.

use std::time::Duration;

use crate::error::open_db::describe;
use crate::error::{ToolError, ToolErrorKind};

/// Whether the database stopped a statement at the call's time limit
/// (`statement_timeout`, set to it on every connection).
fn timed_out(e: &postgres::Error) -> bool {
    e.code() == Some(&postgres::error::SqlState::QUERY_CANCELED)
}

/// A statement stopped at the call's time limit: the call's transaction is
/// rolled back, so the agent hears what any call over the limit says.
fn timed_out_error(limit: Duration) -> ToolError {
    ToolError::new(
        ToolErrorKind::TimedOut,
        format!(
            "The memory command was stopped after {} s, memcap's time limit per call; \
             nothing was changed.",
            limit.as_secs_f32()
        ),
    )
}

pub(crate) fn unreachable_error(e: &postgres::Error, limit: Duration) -> ToolError {
    log(e);
    if timed_out(e) {
        return timed_out_error(limit);
    }
    ToolError::new(
        ToolErrorKind::Io,
        "The memory database could not be reached or refused the call, so it did not run; \
         nothing was changed. Try again in a moment.",
    )
}

pub(crate) fn unsaved_error(e: &postgres::Error, limit: Duration) -> ToolError {
    log(e);
    if timed_out(e) {
        return timed_out_error(limit);
    }
    ToolError::new(
        ToolErrorKind::Io,
        "The change could not be saved in the memory database, so nothing was changed. \
         View the file before trying again.",
    )
}

/// A commit whose answer was lost, found not to have landed.
pub(crate) fn lost_commit_not_saved() -> ToolError {
    ToolError::new(
        ToolErrorKind::Io,
        "The connection to the memory database broke as the change was being saved, and the \
         database says it was not saved: nothing was changed. Try again in a moment.",
    )
}

/// A commit whose answer was lost, and whose fate the database would not tell.
pub(crate) fn lost_commit_unknown() -> ToolError {
    ToolError::new(
        ToolErrorKind::Io,
        "The connection to the memory database broke as the change was being saved, and memcap \
         could not learn whether it was saved. View the file before trying again.",
    )
}

/// The database's own words go to the operator (stderr), never the agent.
pub(crate) fn log(e: &postgres::Error) {
    eprintln!("memcap: memory database: {}", describe(e));
}

/// A file's bytes could not be read from the database mid-call: what the
/// call did is thrown away.
pub(crate) fn unread_error(e: &postgres::Error, limit: Duration) -> ToolError {
    log(e);
    if timed_out(e) {
        return timed_out_error(limit);
    }
    ToolError::new(
        ToolErrorKind::Io,
        "A file could not be read from the memory database during the call, so it was \
         stopped; nothing was changed. Try again in a moment.",
    )
}
