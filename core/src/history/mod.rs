//! The version history: every change memcap makes to a file of the root
//! (and every outside change a host reports) is an immutable version in
//! the store's own reserved state, `.memcap/history/`: a log line (path,
//! operation, time, actor, content hash and size) and the content itself,
//! kept once per distinct content. A change and its versions land
//! together: on a database in the call's one transaction, on a directory
//! by writing the versions as in flight first and settling them against
//! the files after a crash (`pending.rs`).
//!
//! People read it, restore, revert and redact through the host's
//! `memcap history` (the WIT `versions` interface); agents read it through
//! the `memory_history` tool and can neither prune nor redact it.

pub mod blame;
mod blobs;
pub mod changed;
mod found;
pub mod host;
mod log;
mod loose;
mod packs;
pub mod paths;
mod pending;
pub mod problem;
pub mod query;
mod recent;
pub mod redact;
pub mod restore;
pub mod retention;
mod shared;
mod track;
pub mod version;

pub use found::{Author, MAX_FOUND_A_CALL, Recorded, found, record};
pub use log::seen as seen_written;
pub use pending::stamp_pays;
pub use shared::{reading, version, versions};
pub use track::{Change, MAX_ACTOR_CHARS, actor, moving, own_marker, recording, removal, tracked};
pub use version::{Op, Version};

use crate::error::FsError;
use crate::io::Io;

/// What the history holds, for `memory_stats`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Held {
    pub versions: u64,
    /// The log's bytes and every kept content's.
    pub bytes: u64,
    /// The oldest version's time (seconds since the epoch).
    pub oldest: Option<u64>,
}

/// What the history holds now: the log's newest line counts the versions
/// and their bytes, and its first has the oldest's time (a log written
/// before memcap counted is read whole).
pub fn held(io: &Io) -> Result<Held, FsError> {
    let tail = log::tail(io)?;
    match &tail.last {
        None if !tail.exists => return Ok(Held::default()),
        Some(last) if last.n > 0 => {
            return Ok(Held {
                versions: last.n,
                bytes: last.total,
                oldest: log::first(io)?.map(|v| v.t),
            });
        }
        _ => {}
    }
    let versions = log::read_all(io)?;
    let oldest = versions.first().map(|v| v.t);
    let bytes = versions.last().map_or(0, |v| v.total);
    Ok(Held {
        versions: versions.len() as u64,
        bytes,
        oldest,
    })
}
