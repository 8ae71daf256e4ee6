//! `memory_delete`: remove one note; the index stops listing it.

use wasip2::filesystem::types::{Descriptor, DescriptorType, ErrorCode};

use crate::error::{Result, ToolError};
use crate::fs;
use crate::notes::maintain;

pub fn memory_delete(root: &Descriptor, filename: &str) -> Result<String> {
    let (path, shown) = super::note_path(filename)?;
    let missing = || ToolError::NoSuchNote {
        path: shown.clone(),
    };
    let fail = |e| match e {
        ErrorCode::NoEntry | ErrorCode::NotDirectory => missing(),
        e => fs::tool_error(e, &shown, "delete"),
    };
    // Following links first refuses links that point outside the root.
    fs::stat(root, &path).map_err(fail)?;
    let target = fs::lstat(root, &path).map_err(fail)?;
    if target.type_ == DescriptorType::Directory {
        return Err(ToolError::NoteIsDirectory { path: shown });
    }
    root.unlink_file_at(&path.relative()).map_err(fail)?;
    fs::sync_dir(root, &path.parent()).map_err(fail)?;
    let note = maintain::after_change(root, &[&path]);
    Ok(format!(
        "Successfully deleted {shown}; the index no longer lists it.{}",
        note.as_deref().unwrap_or("")
    ))
}
