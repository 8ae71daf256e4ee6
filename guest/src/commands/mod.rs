//! The memory commands, one module each: the six file commands of Claude's
//! memory tool, then the typed-note commands and the prompt.

pub mod create;
pub mod delete;
pub mod insert;
pub mod memory_delete;
pub mod memory_read;
pub mod memory_update;
pub mod memory_view;
pub mod memory_write;
pub mod prompt;
pub mod rename;
pub mod str_replace;
pub mod view;

use wasip2::filesystem::types::{Descriptor, DescriptorType, ErrorCode};

use crate::error::{ErrorKind, Result, ToolError};
use crate::fs;
use crate::notes::maintain;
use crate::vpath::MemPath;

/// Checks that `path` names a regular file, with the SDK's messages for
/// str_replace and insert.
fn require_file(root: &Descriptor, path: &MemPath, shown: &str) -> Result<()> {
    match fs::stat(root, path) {
        Ok(st) if st.type_ == DescriptorType::RegularFile => Ok(()),
        Ok(_) => Err(ToolError::new(
            ErrorKind::NotAFile,
            format!("The path {shown} is not a file."),
        )),
        Err(ErrorCode::NoEntry | ErrorCode::NotDirectory) => Err(ToolError::missing(shown)),
        Err(e) => Err(ToolError::from_fs(e, shown, "read")),
    }
}

/// A note's `filename` as the memory_* commands take it: relative to
/// `/memories` (`prefs/coffee.md`) or a full `/memories/...` path; `.md` is
/// added when the name has no extension. Returns the path and how messages
/// show it (`/memories/prefs/coffee.md`).
fn note_path(filename: &str) -> Result<(MemPath, String)> {
    let trimmed = filename.trim();
    let full = if trimmed == "/memories" || trimmed.starts_with("/memories/") {
        trimmed.to_owned()
    } else if trimmed.starts_with('/') {
        return Err(ToolError::new(
            ErrorKind::InvalidPath,
            format!(
                "Note filename {filename} must be relative to /memories (like prefs/coffee.md) \
                 or start with /memories/"
            ),
        ));
    } else {
        format!("/memories/{trimmed}")
    };
    let mut path = MemPath::parse(&full)?;
    if path.is_root() || trimmed.ends_with('/') {
        return Err(ToolError::new(
            ErrorKind::InvalidPath,
            format!(
                "Note filename {filename:?} names a directory; give a file name such as coffee.md"
            ),
        ));
    }
    if !path.file_name().contains('.') {
        path = MemPath::parse(&format!("{}.md", path.display()))?;
    }
    if maintain::is_index(&path) {
        return Err(ToolError::new(
            ErrorKind::Protected,
            "/memories/MEMORY.md is the index memcap keeps; it is not a note. Write notes to \
             other files; your own text in MEMORY.md goes outside its generated region \
             (edit it with str_replace or insert).",
        ));
    }
    let shown = path.display();
    Ok((path, shown))
}
