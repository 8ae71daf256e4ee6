//! The parts of the guest's `notes` module that read a note's text.

#[path = "../../guest/src/notes/fields.rs"]
pub mod fields;
#[path = "../../guest/src/notes/frontmatter.rs"]
pub mod frontmatter;
#[path = "../../guest/src/notes/note_type.rs"]
mod note_type;

pub use note_type::NoteType;
