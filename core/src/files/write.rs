//! Atomic writes: a temporary file in `.memcap/tmp`, synced, then renamed
//! over the old content (edits) or hard-linked to a new name (creates, which
//! never replace), so a name never shows partial content.

use super::{MAX_FILE_BYTES, TextFile, stamp, sync_dir, too_large, tool_error};
use crate::error::{FsError, Result, ToolError};
use crate::history::{self, Change, Op};
use crate::io::Io;
use crate::layout::RESERVED;
use crate::storage::Stamp;
use crate::vpath::MemPath;

/// An unfinished write in the staging directory ([`crate::layout::TEMP_DIR`]
/// or a shared directory's own), removed on drop unless published.
struct TempFile<'a> {
    io: &'a Io<'a>,
    name: String,
    published: bool,
}

impl Drop for TempFile<'_> {
    fn drop(&mut self) {
        if !self.published {
            let _ = self.io.fs.remove_file(&self.name);
        }
    }
}

/// Writes `bytes` to a new temporary file for `target` (staged where the
/// storage says, so it can be renamed there), and syncs it when `durable`.
fn write_temp<'a>(
    io: &'a Io<'a>,
    target: &str,
    bytes: &[u8],
    staging: Staging,
) -> Result<(TempFile<'a>, Option<Stamp>), FsError> {
    let dir = io.fs.staging_dir(target);
    let name = format!("{dir}/{:032x}", io.temp_name());
    let write = || match staging.stamped {
        true => io
            .fs
            .write_new_stamped(&name, bytes, staging.durable)
            .map(Some),
        false => io
            .fs
            .write_new(&name, bytes, staging.durable)
            .map(|()| None),
    };
    let stamp = match write() {
        Err(FsError::NotFound) => {
            // First write under a host that did not prepare the store.
            let reserved = dir.strip_suffix("/tmp").unwrap_or(RESERVED);
            for dir in [reserved, &dir] {
                match io.fs.create_dir(dir) {
                    Ok(()) | Err(FsError::Exists) => {}
                    Err(e) => return Err(e),
                }
            }
            write()?
        }
        other => other?,
    };
    let temp = TempFile {
        io,
        name,
        published: false,
    };
    Ok((temp, stamp))
}

/// How a write is staged: synced to disk or not, and whether the stamp it
/// will have is wanted.
#[derive(Clone, Copy)]
struct Staging {
    durable: bool,
    stamped: bool,
}

/// Writes `bytes` for `path` to a temporary file, with the stamp it has
/// when asked: the stamp the file will have once renamed or linked into
/// place, neither of which changes size, modification time or identity.
/// `verb` names the action in errors.
fn stage<'a>(
    io: &'a Io<'a>,
    path: &MemPath,
    shown: &str,
    bytes: &[u8],
    staging: Staging,
    verb: &'static str,
) -> Result<(TempFile<'a>, Option<Stamp>)> {
    if bytes.len() as u64 > MAX_FILE_BYTES {
        return Err(too_large(shown, bytes.len() as u64));
    }
    let fail = |e| tool_error(e, shown, verb);
    write_temp(io, &path.relative(), bytes, staging).map_err(fail)
}

/// Replaces the content of an existing file atomically: temp file, fsync,
/// rename over the original, fsync of the directory. Refuses with `conflict`
/// when the file changed since `expected` was taken.
/// `old` is the content replaced (as read with `expected`), which the
/// version history keeps if it does not hold it yet.
pub fn replace_file(
    io: &Io,
    path: &MemPath,
    shown: &str,
    old: &[u8],
    bytes: &[u8],
    expected: Stamp,
) -> Result<()> {
    replace_file_as(io, Op::Modified, path, shown, old, bytes, expected)
}

/// The edit of a file read with [`super::read_for_edit`]: `updated`
/// replaces `file`'s text if the quota allows and nothing changed it since.
pub fn rewrite(io: &Io, path: &MemPath, shown: &str, file: &TextFile, updated: &str) -> Result<()> {
    crate::quota::check(io, path, shown, updated)?;
    replace_file(
        io,
        path,
        shown,
        file.text.as_bytes(),
        updated.as_bytes(),
        file.stamp,
    )
}

/// [`replace_file`], recorded in the history as `op`.
pub fn replace_file_as(
    io: &Io,
    op: Op,
    path: &MemPath,
    shown: &str,
    old: &[u8],
    bytes: &[u8],
    expected: Stamp,
) -> Result<()> {
    // The history records the stamp the write leaves, so the next edit
    // knows the content it replaces without hashing it (when that pays).
    let staging = Staging {
        durable: true,
        stamped: history::recording(io) && history::stamp_pays(bytes.len() as u64),
    };
    let (mut temp, written) = stage(io, path, shown, bytes, staging, "write")?;
    let change = Change {
        old_stamp: Some(expected),
        new_stamp: written,
        ..Change::new(path.key(), op, Some(old.to_vec()), Some(bytes.to_vec()))
    };
    history::tracked(io, vec![change], || {
        publish_over(io, path, shown, &mut temp, expected)
    })?;
    io.remember_written(path.key(), bytes);
    sync_dir(io, &path.parent()).map_err(|e| tool_error(e, shown, "write"))
}

/// Like [`replace_file`] without the directory fsync, and without the data
/// fsync unless `durable`, for the index. A stale index is rebuilt by the next
/// call that shows it, so only the agent's own text in it needs the data
/// synced (then a power loss leaves the old or the new content, both whole);
/// a file of generated text alone may come back empty and is regenerated.
///
/// Returns the stamp the file now has: taken from the staged file before it
/// is renamed into place (a rename keeps size, modification time and
/// identity), so nothing another program does to the name afterwards can be
/// mistaken for this write.
pub fn replace_derived(
    io: &Io,
    path: &MemPath,
    shown: &str,
    bytes: &[u8],
    expected: Stamp,
    durable: bool,
) -> Result<Stamp> {
    let staging = Staging {
        durable,
        stamped: true,
    };
    replace_staged(io, path, shown, bytes, expected, staging)
        .map(|stamp| stamp.expect("a stamp was asked for"))
}

fn replace_staged(
    io: &Io,
    path: &MemPath,
    shown: &str,
    bytes: &[u8],
    expected: Stamp,
    staging: Staging,
) -> Result<Option<Stamp>> {
    let (mut temp, written) = stage(io, path, shown, bytes, staging, "write")?;
    publish_over(io, path, shown, &mut temp, expected)?;
    Ok(written)
}

/// Renames `temp` over `path` if the file there still has the stamp
/// `expected`; `conflict` otherwise.
fn publish_over(
    io: &Io,
    path: &MemPath,
    shown: &str,
    temp: &mut TempFile<'_>,
    expected: Stamp,
) -> Result<()> {
    match stamp(io, path) {
        Ok(now) if now == expected => {}
        _ => {
            return Err(ToolError::ChangedMeanwhile { path: shown.into() });
        }
    }
    io.fs
        .rename(&temp.name, &path.relative())
        .map_err(|e| tool_error(e, shown, "write"))?;
    temp.published = true;
    Ok(())
}

/// Puts `bytes` at `relative` (under the reserved directory) atomically,
/// replacing whatever is there. For memcap's own derived files, which need
/// no conflict check and no directory sync: losing one costs a rebuild.
pub fn put_private(io: &Io, relative: &str, bytes: &[u8]) -> Result<(), FsError> {
    let staging = Staging {
        durable: false,
        stamped: false,
    };
    let (mut temp, _) = write_temp(io, relative, bytes, staging)?;
    io.fs.rename(&temp.name, relative)?;
    temp.published = true;
    Ok(())
}

/// Creates a new file with `bytes` atomically and without ever replacing an
/// existing one: the temp file is hard-linked to the final name (which fails
/// if the name is taken), so the name never shows partial content.
pub fn create_file(io: &Io, path: &MemPath, shown: &str, bytes: &[u8]) -> Result<()> {
    create_file_as(io, Op::Created, path, shown, bytes)
}

/// [`create_file`], recorded in the history as `op`.
pub fn create_file_as(io: &Io, op: Op, path: &MemPath, shown: &str, bytes: &[u8]) -> Result<()> {
    let fail = |e| tool_error(e, shown, "create");
    let staging = Staging {
        durable: true,
        stamped: history::recording(io) && history::stamp_pays(bytes.len() as u64),
    };
    let (temp, written) = stage(io, path, shown, bytes, staging, "create")?;
    let change = Change {
        new_stamp: written,
        ..Change::new(path.key(), op, None, Some(bytes.to_vec()))
    };
    history::tracked(io, vec![change], || link_into_place(io, path, shown, temp))?;
    io.remember_written(path.key(), bytes);
    sync_dir(io, &path.parent()).map_err(fail)
}

/// As [`create_file`], returning the stamp the new file has (taken from the
/// staged file before it is linked into place, as [`replace_derived`] does).
pub fn create_file_stamped(io: &Io, path: &MemPath, shown: &str, bytes: &[u8]) -> Result<Stamp> {
    create_staged(io, path, shown, bytes, true).map(|stamp| stamp.expect("a stamp was asked for"))
}

fn create_staged(
    io: &Io,
    path: &MemPath,
    shown: &str,
    bytes: &[u8],
    stamped: bool,
) -> Result<Option<Stamp>> {
    let fail = |e| tool_error(e, shown, "create");
    let staging = Staging {
        durable: true,
        stamped,
    };
    let (temp, written) = stage(io, path, shown, bytes, staging, "create")?;
    link_into_place(io, path, shown, temp)?;
    io.remember_written(path.key(), bytes);
    sync_dir(io, &path.parent()).map_err(fail)?;
    Ok(written)
}

/// Links the staged `temp` to `path`, never replacing anything there
/// (`already-exists`); the staged name goes either way.
fn link_into_place(io: &Io, path: &MemPath, shown: &str, temp: TempFile<'_>) -> Result<()> {
    let linked = io.fs.hard_link(&temp.name, &path.relative());
    drop(temp);
    linked.map_err(|e| match e {
        FsError::Exists => ToolError::FileExists { path: shown.into() },
        e => tool_error(e, shown, "create"),
    })
}
