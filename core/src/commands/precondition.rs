//! A write's `content_sha256` precondition, checked against the file it
//! names before anything changes. Edits check the very text they replace
//! (the write then lands only if the file's stamp has not moved since that
//! read); `delete`, `rename` and `memory_delete` check the file as it is
//! just before they act, within the call's lock on the store.

use crate::error::{FsError, Result, ToolError};
use crate::files;
use crate::io::Io;
use crate::storage::Kind;
use crate::vocab::Precondition;
use crate::vpath::MemPath;

/// Refuses unless `content` is what `pre` expects.
/// (Hashed through `io`, so the history and the answer reuse the hash.)
pub fn check_content(
    io: &Io,
    pre: Option<&Precondition>,
    shown: &str,
    content: &[u8],
) -> Result<()> {
    let Some(pre) = pre else {
        return Ok(());
    };
    let sha = io.sha256_hex(content);
    if sha == pre.expected() {
        Ok(())
    } else {
        Err(failed(pre, shown, Some(sha), false))
    }
}

/// Refuses unless the file at `path` exists and holds what `pre` expects.
pub fn check_file(io: &Io, path: &MemPath, shown: &str, pre: &Precondition) -> Result<()> {
    match files::stat(io, path) {
        Ok(st) if st.kind == Kind::File => {
            let (bytes, _) = files::read_bytes_for_edit(io, path, shown)?;
            check_content(io, Some(pre), shown, &bytes)
        }
        Ok(st) => Err(failed(pre, shown, None, st.kind == Kind::Dir)),
        Err(FsError::NotFound | FsError::NotADirectory) => Err(failed(pre, shown, None, false)),
        Err(e) => Err(files::tool_error(e, shown, "read")),
    }
}

/// The refusal when there is no file to match (`directory`: a directory is there).
pub fn missing(pre: &Precondition, shown: &str, directory: bool) -> ToolError {
    failed(pre, shown, None, directory)
}

fn failed(pre: &Precondition, shown: &str, current: Option<String>, directory: bool) -> ToolError {
    ToolError::PreconditionFailed {
        path: shown.into(),
        expected: pre.expected(),
        current,
        directory,
    }
}
