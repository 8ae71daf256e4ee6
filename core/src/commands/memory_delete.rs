//! `memory_delete`: remove one note; the index stops listing it.

use crate::error::{FsError, Result, ToolError};
use crate::files;
use crate::history;
use crate::io::Io;
use crate::notes::maintain;
use crate::output::Output;
use crate::storage::Kind;
use crate::vocab::Precondition;

pub fn memory_delete(io: &Io, filename: &str, pre: Option<&Precondition>) -> Result<Output> {
    let (path, shown) = super::note_path(filename)?;
    super::refuse_chat(&path, &shown)?;
    if let Some(pre) = pre {
        super::precondition::check_file(io, &path, &shown, pre)?;
    }
    let missing = || ToolError::NoSuchNote {
        path: shown.clone(),
    };
    let fail = |e| match e {
        FsError::NotFound | FsError::NotADirectory => missing(),
        e => files::tool_error(e, &shown, "delete"),
    };
    // Following links first refuses links that point outside the root.
    files::stat(io, &path).map_err(fail)?;
    let target = files::lstat(io, &path).map_err(fail)?;
    if target.kind == Kind::Dir {
        return Err(ToolError::NoteIsDirectory { path: shown });
    }
    let rel = path.relative();
    history::tracked(io, history::removal(io, &rel, Some(target)), || {
        io.fs.remove_file(&rel).map_err(fail)
    })?;
    files::sync_dir(io, &path.parent()).map_err(fail)?;
    Ok(Output::NoteDeleted {
        index: maintain::after_change(io, &[&path]),
        path: shown,
    })
}
