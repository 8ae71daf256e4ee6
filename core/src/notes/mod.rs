//! Typed notes. What memcap reads from a memory file's text: its
//! frontmatter (`fields` parses it within bounds, `frontmatter` makes it a
//! note's metadata), its type, and which files are notes at all. The
//! catalog that remembers every note (`catalog`, kept by `walk` and saved in
//! `catalog::journal`/`snapshot`) and the index `/memories/MEMORY.md` rendered from it
//! (`memory_md`, `index`, kept in step by `maintain`).

pub mod catalog;
pub mod derived;
pub mod entry;
pub mod fields;
pub mod frontmatter;
pub mod index;
pub mod index_file;
pub mod maintain;
pub mod memory_md;
mod record;
mod snapshot;
pub mod topics;
pub mod validity;
mod walk;

pub use crate::layout::INDEX_FILE;

/// Whether MEMORY.md lists the note at `relative`: only the agent's own
/// notes (source `memory`); conversation history and extra directories are
/// searched, not listed, so they never crowd out the agent's notes.
pub fn listed_in_index(io: &crate::io::Io, relative: &str) -> bool {
    crate::search::source::source_of(io, relative) == crate::vocab::Source::Memory
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
