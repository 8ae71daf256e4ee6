//! `delete`: remove a file or a whole directory tree.

use wasip2::filesystem::types::{Descriptor, DescriptorType, ErrorCode};

use crate::error::{Result, ToolError};
use crate::fs;
use crate::notes::maintain;
use crate::vpath::MemPath;

pub fn delete(root: &Descriptor, shown: &str) -> Result<String> {
    let path = MemPath::parse(shown)?;
    if path.is_root() {
        return Err(ToolError::DeleteRoot);
    }
    let missing = || ToolError::NoSuchPath { path: shown.into() };
    // Following links first refuses links that point outside the root.
    match fs::stat(root, &path) {
        Ok(_) => {}
        Err(ErrorCode::NoEntry | ErrorCode::NotDirectory) => return Err(missing()),
        Err(e) => return Err(fs::tool_error(e, shown, "delete")),
    }
    let fail = |e| match e {
        ErrorCode::NoEntry => missing(),
        e => fs::tool_error(e, shown, "delete"),
    };
    // The name itself is removed: a link goes, never what it points to.
    let target = fs::lstat(root, &path).map_err(fail)?;
    let rel = path.relative();
    if target.type_ == DescriptorType::Directory {
        fs::remove_tree(root, &rel).map_err(fail)?;
    } else {
        root.unlink_file_at(&rel).map_err(fail)?;
    }
    fs::sync_dir(root, &path.parent()).map_err(fail)?;
    let note = maintain::after_change(root, &[&path]);
    Ok(format!("Successfully deleted {shown}") + note.as_deref().unwrap_or(""))
}
