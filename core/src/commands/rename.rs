//! `rename`: move a file or directory to a new path; never overwrites.

use crate::error::{FsError, Result, ToolError};
use crate::files;
use crate::history;
use crate::io::Io;
use crate::notes::maintain;
use crate::output::Output;
use crate::storage::Kind;
use crate::vocab::Precondition;
use crate::vpath::MemPath;

pub fn rename(
    io: &Io,
    old_shown: &str,
    new_shown: &str,
    pre: Option<&Precondition>,
) -> Result<Output> {
    let old = MemPath::parse(old_shown)?;
    let new = MemPath::parse(new_shown)?;
    super::refuse_chat(&old, old_shown)?;
    super::refuse_chat(&new, new_shown)?;
    new.check_new(new_shown)?;
    if old.is_root() {
        return Err(ToolError::RenameRoot);
    }
    if let Some(pre) = pre {
        super::precondition::check_file(io, &old, old_shown, pre)?;
    }
    let taken = || ToolError::DestinationExists {
        path: new_shown.into(),
    };
    // As in the SDK, a taken destination is reported before the source is checked.
    match files::exists(io, &new) {
        Ok(true) => return Err(taken()),
        Ok(false) => {}
        Err(e) => return Err(files::tool_error(e, new_shown, "rename to")),
    }
    let missing = || ToolError::NoSuchPath {
        path: old_shown.into(),
    };
    match files::stat(io, &old) {
        Ok(_) => {}
        Err(FsError::NotFound | FsError::NotADirectory) => return Err(missing()),
        Err(e) => return Err(files::tool_error(e, old_shown, "rename")),
    }
    if new.is_inside(&old) {
        return Err(ToolError::MoveIntoItself {
            from: old_shown.into(),
            to: new_shown.into(),
        });
    }
    files::create_parents(io, &new, new_shown)?;
    let (from, to) = (old.relative(), new.relative());
    history::tracked(io, history::moving(io, &from, &to), || {
        io.fs.rename(&from, &to).map_err(|e| match e {
            FsError::NotFound => missing(),
            e => files::tool_error(e, new_shown, "rename to"),
        })
    })?;
    let sync = |dir: &MemPath| {
        files::sync_dir(io, dir).map_err(|e| files::tool_error(e, new_shown, "rename to"))
    };
    sync(&new.parent())?;
    if old.parent() != new.parent() {
        sync(&old.parent())?;
    }
    Ok(Output::Renamed {
        sha256: moved_sha256(io, &new, new_shown),
        from: old_shown.into(),
        to: new_shown.into(),
        index: maintain::after_change(io, &[&old, &new]),
    })
}

/// The moved file's SHA-256 (a rename keeps the content); none for a
/// directory or what cannot be read whole.
fn moved_sha256(io: &Io, new: &MemPath, shown: &str) -> Option<String> {
    match files::lstat(io, new) {
        Ok(st) if st.kind == Kind::File => files::read_bytes_for_edit(io, new, shown)
            .ok()
            .map(|(bytes, _)| io.sha256_hex(&bytes)),
        _ => None,
    }
}
