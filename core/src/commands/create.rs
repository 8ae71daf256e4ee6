//! `create`: a new file with the given text; never overwrites.

use crate::error::{Result, ToolError};
use crate::files;
use crate::io::Io;
use crate::notes::maintain;
use crate::output::Output;
use crate::vpath::MemPath;

pub fn create(io: &Io, shown: &str, file_text: &str) -> Result<Output> {
    let path = MemPath::parse(shown)?;
    super::refuse_chat(&path, shown)?;
    path.check_new(shown)?;
    let exists = || ToolError::FileExists { path: shown.into() };
    if path.is_root() {
        return Err(exists());
    }
    if file_text.contains('\0') {
        return Err(ToolError::TextHasNul { path: shown.into() });
    }
    // Refuse early, before any directory is made, when the name is taken.
    match files::exists(io, &path) {
        Ok(true) => return Err(exists()),
        Ok(false) => {}
        Err(e) => return Err(files::tool_error(e, shown, "create")),
    }
    files::check_parents(io, &path, shown)?;
    crate::quota::check(io, &path, shown, file_text)?;
    files::create_parents(io, &path, shown)?;
    files::create_file(io, &path, shown, file_text.as_bytes())?;
    Ok(Output::Created {
        path: shown.into(),
        index: maintain::after_change(io, &[&path]),
    })
}
