//! Typed notes: what memcap reads from each memory file's frontmatter, the
//! catalog that remembers it, and the index (`/memories/MEMORY.md`) built from it.

pub mod catalog;
mod fields;
pub mod frontmatter;
pub mod index;
mod journal;
pub mod maintain;
mod note_type;
mod snapshot;
pub mod topics;
mod walk;

pub use note_type::NoteType;

/// The index file, directly under the root. It is not a note itself.
pub const INDEX_FILE: &str = "MEMORY.md";

/// Whether a root-relative file path is a note: every file except the index,
/// hidden names (as `view` hides them, `.memcap` included), `node_modules`,
/// and names with control or invisible characters (which memcap never
/// creates: only another program can, and such a name could forge lines of
/// the index).
pub fn is_note_path(relative: &str) -> bool {
    relative != INDEX_FILE
        && crate::text::unsafe_char(relative).is_none()
        && !relative
            .split('/')
            .any(|part| part.is_empty() || part.starts_with('.') || part == "node_modules")
}

/// Today's date in UTC, as `YYYY-MM-DD`, from the host's wall clock.
pub fn today() -> String {
    let now = wasip2::clocks::wall_clock::now();
    let seconds = i64::try_from(now.seconds).unwrap_or(i64::MAX);
    time::OffsetDateTime::from_unix_timestamp(seconds)
        .map(|t| t.date().to_string())
        .unwrap_or_else(|_| "1970-01-01".to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn which_files_are_notes() {
        assert!(is_note_path("prefs.md"));
        assert!(is_note_path("people/alice.md"));
        assert!(is_note_path("todo.txt"));
        assert!(is_note_path("sub/MEMORY.md"));
        assert!(!is_note_path("MEMORY.md"));
        assert!(!is_note_path(".memcap/notes.jsonl"));
        assert!(!is_note_path("a/.hidden.md"));
        assert!(!is_note_path("node_modules/x.md"));
        assert!(!is_note_path("a\n## User\n- [x](y).md"));
        assert!(!is_note_path("x\u{202e}dm.exe"));
    }
}
