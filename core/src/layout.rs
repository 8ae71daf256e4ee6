//! Where things are: the one directory the agent sees and the names memcap
//! keeps for itself inside it. The guest and the host both use these, so a
//! name is spelled once on each side of the boundary.

/// The virtual directory every path must live in; hosts preopen the memory
/// root under this name.
pub const ROOT: &str = "/memories";
/// The name, directly under the root, that memcap keeps for itself: agents
/// can neither see nor reach anything in it.
pub const RESERVED: &str = ".memcap";
/// Where writes are staged before they are linked or renamed into place.
pub const TEMP_DIR: &str = ".memcap/tmp";
/// The lock file a host may hold while a call writes.
pub const LOCK_FILE: &str = ".memcap/lock";
/// The catalog's journal.
pub const JOURNAL: &str = ".memcap/notes.jsonl";
/// The index file, directly under the root. It is not a note itself.
pub const INDEX_FILE: &str = "MEMORY.md";
/// The directory under the root where a host's shared directories appear,
/// each as `shared/NAME` (`storage::mounts`).
pub const SHARED: &str = "shared";
/// The directory under the root where a host's extra (read-only) directories
/// appear, each as `extra/NAME` (`storage::mounts`).
pub const EXTRA: &str = "extra";
/// The directory under the root holding the conversation history a host
/// records, a file per session (`chat/SESSION.md`).
pub const CHAT: &str = "chat";

/// Whether a root-relative path is memcap's own: `.memcap` at the top, or
/// in a mounted directory (`shared/NAME/.memcap`, `extra/NAME/.memcap`),
/// where that grant's writes are staged. Agents can neither see nor reach
/// these.
pub fn is_reserved<'a>(mut components: impl Iterator<Item = &'a str>) -> bool {
    match components.next() {
        Some(RESERVED) => true,
        Some(SHARED | EXTRA) => components.nth(1) == Some(RESERVED),
        _ => false,
    }
}

/// Where the version history lives (`history/`): the log, the content of
/// every version kept, and the one change in flight.
pub const HISTORY_DIR: &str = ".memcap/history";
/// The log: one JSON line per version, oldest first.
pub const HISTORY_LOG: &str = ".memcap/history/log.jsonl";
/// Each version's content, once, named by its SHA-256.
pub const HISTORY_BLOBS: &str = ".memcap/history/blobs";
/// The versions of the change being made, written before it is: what a
/// crash leaves here is checked against the files by the next change.
pub const HISTORY_PENDING: &str = ".memcap/history/pending.jsonl";
