//! File operations with memcap's rules, on the storage port: reads bounded
//! at [`MAX_FILE_BYTES`] and checked to be text (here), atomic writes
//! (`write.rs`), parents made and trees removed (`tree.rs`). Failures come
//! back as a [`ToolError`] naming the path as the model sent it.

mod tree;
mod write;

pub use tree::{Parents, check_parents, create_parents, remove_tree};
pub use write::{
    create_file, create_file_as, create_file_stamped, put_private, replace_derived, replace_file,
    replace_file_as, rewrite,
};

use crate::error::{FsError, Result, ToolError};
use crate::io::Io;
use crate::storage::{File, Kind, Meta, Stamp};
use crate::vpath::MemPath;

/// The largest file memcap reads or writes.
pub const MAX_FILE_BYTES: u64 = 8 * 1024 * 1024;
/// The most one read asks for.
const READ_CHUNK: u64 = 256 * 1024;

/// [`ToolError::from_fs`], shorter.
pub fn tool_error(e: FsError, path: &str, doing: &'static str) -> ToolError {
    ToolError::from_fs(e, path, doing)
}

/// `stat` following symbolic links; the storage keeps them inside the root.
pub fn stat(io: &Io, path: &MemPath) -> Result<Meta, FsError> {
    io.fs.stat(&path.relative(), true)
}

/// `stat` of the name itself: a symbolic link is reported as a link.
pub fn lstat(io: &Io, path: &MemPath) -> Result<Meta, FsError> {
    io.fs.stat(&path.relative(), false)
}

/// Whether anything is at `path`. Links are followed, so a link out of the
/// root is an error rather than "exists"; a dangling link still counts as a
/// name that is taken.
pub fn exists(io: &Io, path: &MemPath) -> Result<bool, FsError> {
    // The name itself first: most names asked about are free (one call).
    match lstat(io, path) {
        Ok(meta) if meta.kind == Kind::Link => match stat(io, path) {
            Ok(_) | Err(FsError::NotFound | FsError::NotADirectory) => Ok(true),
            Err(e) => Err(e),
        },
        Ok(_) => Ok(true),
        Err(FsError::NotFound | FsError::NotADirectory) => Ok(false),
        Err(e) => Err(e),
    }
}

/// The stamp of what is at `path` now.
pub fn stamp(io: &Io, path: &MemPath) -> Result<Stamp, FsError> {
    io.fs.stamp(&path.relative())
}

/// A text file's content, with the stamp of what was read.
pub struct TextFile {
    pub text: String,
    pub stamp: Stamp,
}

/// Reads a regular file as UTF-8 text. `shown` is the path as the model sent
/// it. Callers have checked that `path` is a regular file.
pub fn read_text(io: &Io, path: &MemPath, shown: &str) -> Result<String> {
    let (bytes, _) = read_regular(io, path, shown, false)?;
    text_of(bytes, shown)
}

/// Like [`read_text`], plus the stamp of what was read, for an edit.
pub fn read_for_edit(io: &Io, path: &MemPath, shown: &str) -> Result<TextFile> {
    let (bytes, stamp) = read_bytes_for_edit(io, path, shown)?;
    Ok(TextFile {
        text: text_of(bytes, shown)?,
        stamp,
    })
}

/// A regular file's bytes, whatever they are, with the stamp of what was read.
pub fn read_bytes_for_edit(io: &Io, path: &MemPath, shown: &str) -> Result<(Vec<u8>, Stamp)> {
    let (bytes, stamp) = read_regular(io, path, shown, true)?;
    Ok((bytes, stamp.expect("a stamp was asked for")))
}

/// A regular file's bytes, within [`MAX_FILE_BYTES`], and (when `stamped`)
/// the stamp of what was read.
fn read_regular(
    io: &Io,
    path: &MemPath,
    shown: &str,
    stamped: bool,
) -> Result<(Vec<u8>, Option<Stamp>)> {
    let fail = |e| tool_error(e, shown, "read");
    let file = io.fs.open(&path.relative(), true).map_err(|e| match e {
        FsError::NotFound => ToolError::Vanished { path: shown.into() },
        e => fail(e),
    })?;
    // Taken from the open file before reading, so a change during the read
    // (or a replacement of the file) shows up as a different stamp.
    let (size, stamp) = if stamped {
        let stamp = file.stamp().map_err(fail)?;
        (stamp.size, Some(stamp))
    } else {
        (file.stat().map_err(fail)?.size, None)
    };
    if size > MAX_FILE_BYTES {
        return Err(too_large(shown, size));
    }
    let bytes = read_to_end(&*file, 0, Some(MAX_FILE_BYTES + 1), Some(size)).map_err(fail)?;
    if bytes.len() as u64 > MAX_FILE_BYTES {
        // It grew past the limit while being read.
        return Err(too_large(shown, bytes.len() as u64));
    }
    Ok((bytes, stamp))
}

fn text_of(bytes: Vec<u8>, shown: &str) -> Result<String> {
    let text = String::from_utf8(bytes).map_err(|_| not_text(shown))?;
    if text.contains('\0') {
        return Err(not_text(shown));
    }
    Ok(text)
}

/// The text of the regular file at root-relative `relative`, for the
/// indexes and the answers read from them; `None` when it cannot be read,
/// is not UTF-8, or is over [`MAX_FILE_BYTES`] (what `memory_get` could not
/// read back is not indexed: a search must never show lines it cannot
/// give). Only its first [`MAX_INDEXED_BYTES`] are given (whole lines), so
/// what one note costs every index and every answer parsed from it is
/// bounded. (One read may return less than asked: WASI hosts cut reads
/// short.)
pub fn read_indexed(io: &Io, relative: &str) -> Option<String> {
    read_indexed_timed(io, relative).map(|(text, _)| text)
}

/// [`read_indexed`], with when the file was last modified (seconds,
/// nanoseconds) by the stat it takes anyway.
pub fn read_indexed_timed(io: &Io, relative: &str) -> Option<(String, Option<(u64, u32)>)> {
    let file = io.fs.open(relative, false).ok()?;
    let meta = file.stat().ok()?;
    if meta.kind != Kind::File || meta.size > MAX_FILE_BYTES {
        return None;
    }
    let bytes = read_to_end(&*file, 0, Some(MAX_FILE_BYTES + 1), Some(meta.size)).ok()?;
    Some((indexed_text(bytes)?, meta.modified))
}

/// What [`read_indexed`] gives of a note's bytes read whole.
pub fn indexed_text(bytes: Vec<u8>) -> Option<String> {
    if bytes.len() as u64 > MAX_FILE_BYTES {
        return None;
    }
    let mut text = String::from_utf8(bytes).ok()?;
    text.truncate(indexed_len(&text));
    Some(text)
}

/// The most of one note's text the indexes take (and the answers read from
/// them parse): its first whole lines within this many bytes.
pub const MAX_INDEXED_BYTES: usize = 1024 * 1024;

/// How much of `text` the indexes take: all of it within
/// [`MAX_INDEXED_BYTES`], else up to the last line break within the bound
/// (a line longer than the bound is cut at a character boundary).
fn indexed_len(text: &str) -> usize {
    if text.len() <= MAX_INDEXED_BYTES {
        return text.len();
    }
    let head = &text.as_bytes()[..MAX_INDEXED_BYTES];
    match head.iter().rposition(|&b| b == b'\n') {
        Some(newline) => newline + 1,
        None => text.floor_char_boundary(MAX_INDEXED_BYTES),
    }
}

/// Whether the indexes take less than all of a note of `size` bytes.
pub fn indexed_in_part(size: u64) -> bool {
    size > MAX_INDEXED_BYTES as u64
}

/// The bytes of an open file from `offset` to its end, or at most `limit`
/// of them: the one chunked read loop. With the expected `size` (from
/// `offset`), the buffer is sized for it once, not grown by doubling (a
/// 10 MB journal would copy itself at every step), and the first read asks
/// for one byte more, to see the end in the same call (each read's buffer is
/// as large as asked).
pub fn read_to_end(
    file: &dyn File,
    offset: u64,
    limit: Option<u64>,
    size: Option<u64>,
) -> Result<Vec<u8>, FsError> {
    let expected = size.map_or(0, |size| limit.map_or(size, |limit| size.min(limit)));
    let mut bytes = Vec::with_capacity(usize::try_from(expected).unwrap_or(0));
    let mut at = offset;
    loop {
        let got = at - offset;
        let mut want = size.map_or(READ_CHUNK, |s| s.saturating_sub(got) + 1);
        want = want.min(READ_CHUNK);
        if let Some(limit) = limit {
            want = want.min(limit - got);
        }
        if want == 0 {
            return Ok(bytes);
        }
        let (chunk, end) = file.read_at(at, want)?;
        at += chunk.len() as u64;
        bytes.extend_from_slice(&chunk);
        if end || chunk.is_empty() {
            return Ok(bytes);
        }
        // WASI hosts say "end" only on an empty read, a call more: a read
        // short of the byte asked past the expected size has met the end.
        if size.is_some_and(|size| at - offset >= size) && (chunk.len() as u64) < want {
            return Ok(bytes);
        }
    }
}

/// Exactly `len` bytes of `file` from `offset`; a short file is damage.
pub fn read_exact(file: &dyn File, offset: u64, len: u64) -> Result<Vec<u8>, FsError> {
    // Checked against the file's size first, so a damaged length is refused
    // before anything is read, and the buffer is sized once.
    let size = file.stat()?.size;
    if offset.checked_add(len).is_none_or(|end| end > size) {
        return Err(FsError::Damaged);
    }
    let bytes = read_to_end(file, offset, Some(len), Some(size - offset))?;
    if bytes.len() as u64 == len {
        Ok(bytes)
    } else {
        Err(FsError::Damaged)
    }
}

pub fn not_text(shown: &str) -> ToolError {
    ToolError::NotText { path: shown.into() }
}

pub fn too_large(shown: &str, size: u64) -> ToolError {
    ToolError::FileTooLarge {
        path: shown.into(),
        size,
        max: MAX_FILE_BYTES,
    }
}

/// Makes a directory's entries (a create, rename or delete in it) durable.
pub fn sync_dir(io: &Io, dir: &MemPath) -> Result<(), FsError> {
    io.fs.sync_dir(&dir.relative())
}
