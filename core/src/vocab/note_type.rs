//! What a note is about: the four types a note is written with, and
//! `other` for the rest.

use serde::{Deserialize, Serialize};

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

#[cfg(test)]
mod tests {
    use super::*;

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
