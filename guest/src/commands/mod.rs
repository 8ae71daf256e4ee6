//! The six memory commands, one module each.

pub mod create;
pub mod delete;
pub mod insert;
pub mod rename;
pub mod str_replace;
pub mod view;

use wasip2::filesystem::types::{Descriptor, DescriptorType, ErrorCode};

use crate::error::{ErrorKind, Result, ToolError};
use crate::fs;
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
