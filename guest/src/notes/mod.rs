//! Typed notes: what memcap reads from each memory file's frontmatter, the
//! catalog that remembers it, and the index (`/memories/MEMORY.md`) built from it.

pub mod catalog;
mod fields;
pub mod frontmatter;
pub mod index;
mod journal;
pub mod maintain;
pub mod topics;
mod walk;

use serde::{Deserialize, Serialize};

/// The index file, directly under the root. It is not a note itself.
pub const INDEX_FILE: &str = "MEMORY.md";

/// What a note is about; the index groups notes by it, in this order.
#[derive(Serialize, Deserialize, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Debug, Hash)]
#[serde(rename_all = "lowercase")]
pub enum NoteType {
    /// Who the user is: role, preferences, knowledge.
    User,
    /// Guidance the user gave about how to work.
    Feedback,
    /// Facts and decisions about the work in progress.
    Project,
    /// Where to find things outside memory.
    Reference,
    /// Files without (valid) memcap frontmatter, and other vaults' types.
    Other,
}

impl NoteType {
    /// The types a note can be written with.
    pub const WRITABLE: [NoteType; 4] = [
        NoteType::User,
        NoteType::Feedback,
        NoteType::Project,
        NoteType::Reference,
    ];
    pub const ALL: [NoteType; 5] = [
        NoteType::User,
        NoteType::Feedback,
        NoteType::Project,
        NoteType::Reference,
        NoteType::Other,
    ];

    /// One of the four writable types, spelled in any case.
    pub fn parse(name: &str) -> Option<Self> {
        Self::WRITABLE
            .into_iter()
            .find(|t| t.as_str().eq_ignore_ascii_case(name.trim()))
    }

    pub fn as_str(self) -> &'static str {
        match self {
            NoteType::User => "user",
            NoteType::Feedback => "feedback",
            NoteType::Project => "project",
            NoteType::Reference => "reference",
            NoteType::Other => "other",
        }
    }

    pub fn heading(self) -> &'static str {
        match self {
            NoteType::User => "User",
            NoteType::Feedback => "Feedback",
            NoteType::Project => "Project",
            NoteType::Reference => "Reference",
            NoteType::Other => "Other",
        }
    }

    /// "user, feedback, project, reference", for messages.
    pub fn writable_list() -> String {
        Self::WRITABLE.map(Self::as_str).join(", ")
    }
}

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

    #[test]
    fn types_parse_in_any_case() {
        assert_eq!(NoteType::parse("User"), Some(NoteType::User));
        assert_eq!(NoteType::parse(" reference "), Some(NoteType::Reference));
        assert_eq!(NoteType::parse("other"), None);
        assert_eq!(NoteType::parse("usr"), None);
        assert_eq!(
            NoteType::writable_list(),
            "user, feedback, project, reference"
        );
    }
}
