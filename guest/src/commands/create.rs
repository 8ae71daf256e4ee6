//! `create`: a new file with the given text; never overwrites.

use wasip2::filesystem::types::Descriptor;

use crate::error::{Result, ToolError};
use crate::fs;
use crate::notes::maintain;
use crate::vpath::MemPath;

pub fn create(root: &Descriptor, shown: &str, file_text: &str) -> Result<String> {
    let path = MemPath::parse(shown)?;
    path.check_new(shown)?;
    let exists = || ToolError::FileExists { path: shown.into() };
    if path.is_root() {
        return Err(exists());
    }
    if file_text.contains('\0') {
        return Err(ToolError::TextHasNul { path: shown.into() });
    }
    // Refuse early, before any directory is made, when the name is taken.
    match fs::exists(root, &path) {
        Ok(true) => return Err(exists()),
        Ok(false) => {}
        Err(e) => return Err(fs::tool_error(e, shown, "create")),
    }
    fs::check_parents(root, &path, shown)?;
    crate::quota::check(root, &path, shown, file_text.len() as u64)?;
    fs::create_parents(root, &path, shown)?;
    fs::create_file(root, &path, shown, file_text.as_bytes())?;
    let note = maintain::after_change(root, &[&path]);
    Ok(format!("File created successfully at: {shown}") + note.as_deref().unwrap_or(""))
}
