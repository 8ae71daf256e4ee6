//! `delete`: remove a file or a whole directory tree.

use crate::error::{FsError, Result, ToolError};
use crate::files;
use crate::history;
use crate::io::Io;
use crate::notes::maintain;
use crate::output::Output;
use crate::storage::Kind;
use crate::vocab::Precondition;
use crate::vpath::MemPath;

pub fn delete(io: &Io, shown: &str, pre: Option<&Precondition>) -> Result<Output> {
    let path = MemPath::parse(shown)?;
    super::refuse_chat(&path, shown)?;
    if path.is_root() {
        return Err(ToolError::DeleteRoot);
    }
    if let Some(pre) = pre {
        super::precondition::check_file(io, &path, shown, pre)?;
    }
    let missing = || ToolError::NoSuchPath { path: shown.into() };
    // Following links first refuses links that point outside the root.
    match files::stat(io, &path) {
        Ok(_) => {}
        Err(FsError::NotFound | FsError::NotADirectory) => return Err(missing()),
        Err(e) => return Err(files::tool_error(e, shown, "delete")),
    }
    let fail = |e| match e {
        FsError::NotFound => missing(),
        e => files::tool_error(e, shown, "delete"),
    };
    // The name itself is removed: a link goes, never what it points to.
    let target = files::lstat(io, &path).map_err(fail)?;
    let rel = path.relative();
    // Removing a shared directory would empty what other users see.
    if target.kind == Kind::Dir && io.fs.holds_mount(&rel) {
        return Err(fail(FsError::MountPoint));
    }
    history::tracked(io, history::removal(io, &rel, Some(target)), || {
        if target.kind == Kind::Dir {
            files::remove_tree(io, &rel).map_err(fail)
        } else {
            io.fs.remove_file(&rel).map_err(fail)
        }
    })?;
    files::sync_dir(io, &path.parent()).map_err(fail)?;
    Ok(Output::Deleted {
        path: shown.into(),
        index: maintain::after_change(io, &[&path]),
    })
}
