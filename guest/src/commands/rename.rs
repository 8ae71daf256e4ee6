//! `rename`: move a file or directory to a new path; never overwrites.

use wasip2::filesystem::types::{Descriptor, ErrorCode};

use crate::error::{Result, ToolError};
use crate::fs;
use crate::notes::maintain;
use crate::vpath::MemPath;

pub fn rename(root: &Descriptor, old_shown: &str, new_shown: &str) -> Result<String> {
    let old = MemPath::parse(old_shown)?;
    let new = MemPath::parse(new_shown)?;
    new.check_new(new_shown)?;
    if old.is_root() {
        return Err(ToolError::RenameRoot);
    }
    let taken = || ToolError::DestinationExists {
        path: new_shown.into(),
    };
    // As in the SDK, a taken destination is reported before the source is checked.
    match fs::exists(root, &new) {
        Ok(true) => return Err(taken()),
        Ok(false) => {}
        Err(e) => return Err(fs::tool_error(e, new_shown, "rename to")),
    }
    let missing = || ToolError::NoSuchPath {
        path: old_shown.into(),
    };
    match fs::stat(root, &old) {
        Ok(_) => {}
        Err(ErrorCode::NoEntry | ErrorCode::NotDirectory) => return Err(missing()),
        Err(e) => return Err(fs::tool_error(e, old_shown, "rename")),
    }
    if new.is_inside(&old) {
        return Err(ToolError::MoveIntoItself {
            from: old_shown.into(),
            to: new_shown.into(),
        });
    }
    fs::create_parents(root, &new, new_shown)?;
    root.rename_at(&old.relative(), root, &new.relative())
        .map_err(|e| match e {
            ErrorCode::NoEntry => missing(),
            e => fs::tool_error(e, new_shown, "rename to"),
        })?;
    let sync = |dir: &MemPath| {
        fs::sync_dir(root, dir).map_err(|e| fs::tool_error(e, new_shown, "rename to"))
    };
    sync(&new.parent())?;
    if old.parent() != new.parent() {
        sync(&old.parent())?;
    }
    let note = maintain::after_change(root, &[&old, &new]);
    Ok(format!("Successfully renamed {old_shown} to {new_shown}") + note.as_deref().unwrap_or(""))
}
