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
///
/// A name counts as `.memcap` as any file system would read it, so a
/// store on a case-insensitive one (macOS, Windows) cannot be reached by
/// another spelling: see [`is_reserved_name`].
pub fn is_reserved<'a>(mut components: impl Iterator<Item = &'a str>) -> bool {
    match components.next() {
        Some(name) if is_reserved_name(name) => true,
        Some(SHARED | EXTRA) => components.nth(1).is_some_and(is_reserved_name),
        _ => false,
    }
}

/// Whether a file system may open [`RESERVED`] for `name`: equal under
/// Unicode case folding, once the code points HFS+ ignores are dropped,
/// an NTFS stream suffix (`NAME:stream`) is cut and trailing dots and
/// spaces (which Windows strips) are trimmed; or the 8.3 short name
/// Windows gives `.memcap` (`MEMCAP~1` … `MEMCAP~9`). Git guards `.git`
/// the same way.
pub fn is_reserved_name(name: &str) -> bool {
    // Every spelling that folds to `.memcap` or `memcap~N` has an ASCII
    // `m`/`M` or a dot among its first bytes; most names are out at once.
    if name.len() < RESERVED.len() - 1 || !name.bytes().any(|b| b == b'.' || b | 0x20 == b'm') {
        return false;
    }
    let folded: String = name
        .chars()
        .filter(|&c| !ignorable(c))
        .take_while(|&c| c != ':')
        .flat_map(char::to_lowercase)
        .collect();
    let trimmed = folded.trim_end_matches([' ', '.']);
    trimmed == RESERVED
        || trimmed
            .strip_prefix("memcap~")
            .is_some_and(|n| n.len() == 1 && n.as_bytes()[0].is_ascii_digit() && n != "0")
}

/// The code points HFS+ leaves out when it compares names (zero-width
/// joiners and marks, bidirectional controls, the deprecated format
/// characters, the byte-order mark).
fn ignorable(c: char) -> bool {
    matches!(c,
        '\u{200c}'..='\u{200f}' | '\u{202a}'..='\u{202e}' | '\u{206a}'..='\u{206f}' | '\u{feff}')
}

/// Where the version history lives (`history/`): the log, the content of
/// every version kept, and the one change in flight.
pub const HISTORY_DIR: &str = ".memcap/history";
/// The log: one JSON line per version, oldest first.
pub const HISTORY_LOG: &str = ".memcap/history/log.jsonl";
/// Each version's content, once, named by its SHA-256, until packed.
pub const HISTORY_BLOBS: &str = ".memcap/history/blobs";
/// The contents packed: segments and their index (`history::packs`).
pub const HISTORY_PACKS: &str = ".memcap/history/packs";
/// The history's index by path: where each file's versions are in the
/// log (`history::paths`), rebuilt by the upkeep.
pub const HISTORY_PATHS: &str = ".memcap/history/paths.idx";
/// The versions of the change being made, written before it is: what a
/// crash leaves here is checked against the files by the next change.
pub const HISTORY_PENDING: &str = ".memcap/history/pending.jsonl";
/// Where the versions of a redacted file name are kept (`redacted/N`, N
/// the first version that had the name): inside memcap's own directory,
/// so no file of the root can ever have that path.
pub const HISTORY_REDACTED_NAMES: &str = ".memcap/redacted";
/// What the history's upkeep last failed at, until it succeeds again
/// (`memory_stats` shows it).
pub const HISTORY_PROBLEM: &str = ".memcap/history/problem.txt";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_spelling_a_file_system_may_fold_to_the_reserved_name_is_reserved() {
        for name in [
            ".memcap",
            ".MEMCAP",
            ".MemCap",
            ".memcap.",
            ".memcap ",
            ".memcap. . ",
            ".mem\u{200c}cap",
            "\u{feff}.memcap",
            ".memcap::$INDEX_ALLOCATION",
            ".memcap:stream",
            "MEMCAP~1",
            "memcap~9",
        ] {
            assert!(is_reserved_name(name), "{name:?}");
            assert!(is_reserved([name, "history"].into_iter()), "{name:?}");
            assert!(
                is_reserved(["shared", "team", name].into_iter()),
                "{name:?}"
            );
        }
        for name in [
            "memcap",
            ".memcaps",
            "x.memcap",
            ".mem cap",
            "memcap~0",
            "memcap~10",
            "notes",
            "",
        ] {
            assert!(!is_reserved_name(name), "{name:?}");
        }
        assert!(!is_reserved(["notes", ".memcap"].into_iter()));
    }
}
