//! Directories: the parents a new file needs, made as `mkdir -p` does, and
//! a whole tree removed without following links.

use super::{stat, tool_error};
use crate::error::{FsError, Result, ToolError};
use crate::io::Io;
use crate::storage::Kind;
use crate::vpath::MemPath;

/// Whether every directory above `path` is there.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Parents {
    Present,
    /// Some are missing: [`create_parents`] makes them.
    Missing,
}

/// Checks, without creating anything, that every existing ancestor of
/// `path` is a directory: what [`create_parents`] would refuse first.
pub fn check_parents(io: &Io, path: &MemPath, shown: &str) -> Result<Parents> {
    for dir in path.ancestors() {
        match stat(io, &dir) {
            Ok(st) if st.kind == Kind::Dir => {}
            Ok(_) => return Err(parent_is_file(shown, &dir)),
            Err(FsError::NotFound) => return Ok(Parents::Missing),
            Err(e) => return Err(tool_error(e, shown, "create")),
        }
    }
    Ok(Parents::Present)
}

/// Creates every missing directory above `path`, like `mkdir -p` of its parent.
pub fn create_parents(io: &Io, path: &MemPath, shown: &str) -> Result<()> {
    let parent = path.parent();
    if parent.is_root() {
        return Ok(());
    }
    match stat(io, &parent) {
        Ok(st) if st.kind == Kind::Dir => return Ok(()),
        Ok(_) => return Err(parent_is_file(shown, &parent)),
        Err(FsError::NotFound) => {}
        Err(e) => return Err(tool_error(e, shown, "create")),
    }
    for dir in path.ancestors() {
        match io.fs.create_dir(&dir.relative()) {
            Ok(()) => {}
            Err(FsError::Exists) => match stat(io, &dir) {
                Ok(st) if st.kind == Kind::Dir => {}
                Ok(_) => return Err(parent_is_file(shown, &dir)),
                Err(e) => return Err(tool_error(e, shown, "create")),
            },
            Err(FsError::NotADirectory) => return Err(parent_is_file(shown, &dir.parent())),
            Err(e) => return Err(tool_error(e, shown, "create")),
        }
    }
    Ok(())
}

fn parent_is_file(shown: &str, file: &MemPath) -> ToolError {
    ToolError::ParentIsFile {
        path: shown.into(),
        parent: file.display(),
    }
}

/// Removes a directory and everything below it, without following links.
/// Iterative, so a deep tree cannot exhaust the stack.
pub fn remove_tree(io: &Io, top: &str) -> Result<(), FsError> {
    // (directory, entries already removed?) pairs, depth first.
    let mut stack: Vec<(String, bool)> = vec![(top.to_owned(), false)];
    while let Some((dir, emptied)) = stack.pop() {
        if emptied {
            io.fs.remove_dir(&dir)?;
            continue;
        }
        stack.push((dir.clone(), true));
        for entry in io.fs.list(&dir)? {
            let child = format!("{dir}/{}", entry.name);
            if entry.kind == Kind::Dir {
                stack.push((child, false));
            } else {
                io.fs.remove_file(&child)?;
            }
        }
    }
    Ok(())
}
