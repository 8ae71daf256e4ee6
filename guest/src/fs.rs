//! File operations relative to the root descriptor: reads, atomic writes,
//! directory creation and removal. Everything goes through `wasi:filesystem`
//! (Rust `std::fs` cannot write under some hosts, such as Node's preview2-shim).

use wasip2::filesystem::types::{
    Descriptor, DescriptorFlags, DescriptorStat, DescriptorType, ErrorCode, MetadataHashValue,
    OpenFlags, PathFlags,
};

use wasip2::filesystem::types::filesystem_error_code;
use wasip2::io::streams::StreamError;

use crate::error::{FsError, Result, ToolError};
use crate::vpath::{MemPath, RESERVED};
use memcap_core::layout::TEMP_DIR;

/// The largest file memcap reads or writes.
pub const MAX_FILE_BYTES: u64 = 8 * 1024 * 1024;
/// Where unfinished writes live until they are renamed into place. The host
/// empties it when it opens the store, so a crash leaves nothing behind.
/// `blocking-write-and-flush` takes at most 4096 bytes per call.
const WRITE_CHUNK: usize = 4096;
const READ_CHUNK: u64 = 64 * 1024;

// Calls on the preopened root go through its path "." rather than the root
// descriptor itself: Node's preview2-shim refuses `stat` and `sync` on a preopen.

/// A WASI error code as the core's typed file-system error.
pub fn fs_error(code: ErrorCode) -> FsError {
    match code {
        ErrorCode::NoEntry => FsError::NotFound,
        // cap-std reports every attempt to leave the preopen (`..`, absolute
        // or outward symlinks) as a permission error, which WASI names this.
        ErrorCode::NotPermitted => FsError::Escape,
        ErrorCode::Loop => FsError::Loop,
        ErrorCode::NameTooLong => FsError::NameTooLong,
        ErrorCode::IllegalByteSequence | ErrorCode::Invalid => FsError::BadName,
        ErrorCode::NotDirectory => FsError::NotADirectory,
        ErrorCode::InsufficientSpace | ErrorCode::Quota => FsError::OutOfSpace,
        ErrorCode::ReadOnly => FsError::ReadOnly,
        ErrorCode::Access => FsError::Denied,
        ErrorCode::FileTooLarge => FsError::TooLarge,
        _ => FsError::Other,
    }
}

/// [`ToolError::from_fs`] for a WASI error code.
pub fn tool_error(code: ErrorCode, path: &str, doing: &'static str) -> ToolError {
    ToolError::from_fs(fs_error(code), path, doing)
}

/// `stat` following symbolic links; WASI keeps the links confined to the root.
pub fn stat(root: &Descriptor, path: &MemPath) -> Result<DescriptorStat, ErrorCode> {
    root.stat_at(PathFlags::SYMLINK_FOLLOW, &path.relative())
}

/// `stat` of the name itself: a symbolic link is reported as a link.
pub fn lstat(root: &Descriptor, path: &MemPath) -> Result<DescriptorStat, ErrorCode> {
    root.stat_at(PathFlags::empty(), &path.relative())
}

/// Whether anything is at `path`. Links are followed, so a link out of the
/// root is an error (not-permitted) rather than "exists"; a dangling link still
/// counts as a name that is taken.
pub fn exists(root: &Descriptor, path: &MemPath) -> Result<bool, ErrorCode> {
    match stat(root, path) {
        Ok(_) => Ok(true),
        Err(ErrorCode::NoEntry | ErrorCode::NotDirectory) => Ok(lstat(root, path).is_ok()),
        Err(e) => Err(e),
    }
}

/// What a writer compares to detect that a file changed under it.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct Stamp {
    size: u64,
    modified: Option<(u64, u32)>,
    hash: Option<(u64, u64)>,
}

impl Stamp {
    fn new(st: &DescriptorStat, hash: Result<MetadataHashValue, ErrorCode>) -> Self {
        Self {
            size: st.size,
            modified: st
                .data_modification_timestamp
                .map(|t| (t.seconds, t.nanoseconds)),
            hash: hash.ok().map(|h| (h.lower, h.upper)),
        }
    }
}

/// The stamp of what is at `path` now.
pub fn stamp(root: &Descriptor, path: &MemPath) -> Result<Stamp, ErrorCode> {
    let st = stat(root, path)?;
    let hash = root.metadata_hash_at(PathFlags::SYMLINK_FOLLOW, &path.relative());
    Ok(Stamp::new(&st, hash))
}

/// A text file's content, with the stamp of what was read.
pub struct TextFile {
    pub text: String,
    pub stamp: Stamp,
}

/// Reads a regular file as UTF-8 text. `shown` is the path as the model sent
/// it. Callers have checked that `path` is a regular file: opening a FIFO
/// for reading would block.
pub fn read_text(root: &Descriptor, path: &MemPath, shown: &str) -> Result<String> {
    let file = open_regular(root, path, shown)?;
    let size = file.stat().map_err(|e| tool_error(e, shown, "read"))?.size;
    decode(&file, size, shown)
}

/// Like [`read_text`], plus the stamp of what was read, for an edit.
pub fn read_for_edit(root: &Descriptor, path: &MemPath, shown: &str) -> Result<TextFile> {
    let (bytes, stamp) = read_bytes_for_edit(root, path, shown)?;
    Ok(TextFile {
        text: text_of(bytes, shown)?,
        stamp,
    })
}

/// A regular file's bytes, whatever they are, with the stamp of what was read.
pub fn read_bytes_for_edit(
    root: &Descriptor,
    path: &MemPath,
    shown: &str,
) -> Result<(Vec<u8>, Stamp)> {
    let fail = |e| tool_error(e, shown, "read");
    let file = open_regular(root, path, shown)?;
    // Taken from the open file before reading, so a change during the read
    // (or a replacement of the file) shows up as a different stamp.
    let st = file.stat().map_err(fail)?;
    let stamp = Stamp::new(&st, file.metadata_hash());
    Ok((read_bounded(&file, st.size, shown)?, stamp))
}

fn open_regular(root: &Descriptor, path: &MemPath, shown: &str) -> Result<Descriptor> {
    root.open_at(
        PathFlags::SYMLINK_FOLLOW,
        &path.relative(),
        OpenFlags::empty(),
        DescriptorFlags::READ,
    )
    .map_err(|e| match e {
        ErrorCode::NoEntry => ToolError::Vanished { path: shown.into() },
        e => tool_error(e, shown, "read"),
    })
}

fn decode(file: &Descriptor, size: u64, shown: &str) -> Result<String> {
    text_of(read_bounded(file, size, shown)?, shown)
}

fn read_bounded(file: &Descriptor, size: u64, shown: &str) -> Result<Vec<u8>> {
    if size > MAX_FILE_BYTES {
        return Err(too_large(shown, size));
    }
    let bytes = read_all(file, size).map_err(|e| tool_error(e, shown, "read"))?;
    if bytes.len() as u64 > MAX_FILE_BYTES {
        return Err(too_large(shown, bytes.len() as u64));
    }
    Ok(bytes)
}

fn text_of(bytes: Vec<u8>, shown: &str) -> Result<String> {
    let text = String::from_utf8(bytes).map_err(|_| not_text(shown))?;
    if text.contains('\0') {
        return Err(not_text(shown));
    }
    Ok(text)
}

fn read_all(file: &Descriptor, size: u64) -> Result<Vec<u8>, ErrorCode> {
    let mut bytes = Vec::with_capacity(size as usize);
    let mut offset = 0u64;
    loop {
        // One byte more than the size asks for the end-of-file mark in the
        // same call. A file that grows past the limit while being read is cut
        // off here and refused by the caller.
        let want = (size.saturating_sub(offset) + 1).min(READ_CHUNK);
        let (chunk, end) = file.read(want, offset)?;
        offset += chunk.len() as u64;
        bytes.extend_from_slice(&chunk);
        if end || chunk.is_empty() || offset > MAX_FILE_BYTES {
            return Ok(bytes);
        }
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

/// Checks, without creating anything, that every existing ancestor of
/// `path` is a directory: what [`create_parents`] would refuse first.
pub fn check_parents(root: &Descriptor, path: &MemPath, shown: &str) -> Result<()> {
    for dir in path.ancestors() {
        match stat(root, &dir) {
            Ok(st) if st.type_ == DescriptorType::Directory => {}
            Ok(_) => return Err(parent_is_file(shown, &dir)),
            Err(ErrorCode::NoEntry) => return Ok(()),
            Err(e) => return Err(tool_error(e, shown, "create")),
        }
    }
    Ok(())
}

/// Creates every missing directory above `path`, like `mkdir -p` of its parent.
pub fn create_parents(root: &Descriptor, path: &MemPath, shown: &str) -> Result<()> {
    let parent = path.parent();
    if parent.is_root() {
        return Ok(());
    }
    match stat(root, &parent) {
        Ok(st) if st.type_ == DescriptorType::Directory => return Ok(()),
        Ok(_) => return Err(parent_is_file(shown, &parent)),
        Err(ErrorCode::NoEntry) => {}
        Err(e) => return Err(tool_error(e, shown, "create")),
    }
    for dir in path.ancestors() {
        match root.create_directory_at(&dir.relative()) {
            Ok(()) => {}
            Err(ErrorCode::Exist) => match stat(root, &dir) {
                Ok(st) if st.type_ == DescriptorType::Directory => {}
                Ok(_) => return Err(parent_is_file(shown, &dir)),
                Err(e) => return Err(tool_error(e, shown, "create")),
            },
            Err(ErrorCode::NotDirectory) => return Err(parent_is_file(shown, &dir.parent())),
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

/// An unfinished write in [`TEMP_DIR`], removed on drop unless published.
struct TempFile<'a> {
    root: &'a Descriptor,
    name: String,
    published: bool,
}

impl Drop for TempFile<'_> {
    fn drop(&mut self) {
        if !self.published {
            let _ = self.root.unlink_file_at(&self.name);
        }
    }
}

/// Writes `bytes` to a new temporary file, and syncs it when `durable`.
fn write_temp<'a>(
    root: &'a Descriptor,
    bytes: &[u8],
    durable: bool,
) -> Result<TempFile<'a>, ErrorCode> {
    let name = format!(
        "{TEMP_DIR}/{:016x}{:016x}",
        wasip2::random::random::get_random_u64(),
        wasip2::random::random::get_random_u64()
    );
    // Only `write`, never `mutate-directory`: Node's preview2-shim refuses the latter.
    let open = || {
        root.open_at(
            PathFlags::empty(),
            &name,
            OpenFlags::CREATE | OpenFlags::EXCLUSIVE,
            DescriptorFlags::WRITE,
        )
    };
    let file = match open() {
        Err(ErrorCode::NoEntry) => {
            // First write under a host that did not prepare the store.
            for dir in [RESERVED, TEMP_DIR] {
                match root.create_directory_at(dir) {
                    Ok(()) | Err(ErrorCode::Exist) => {}
                    Err(e) => return Err(e),
                }
            }
            open()?
        }
        other => other?,
    };
    let temp = TempFile {
        root,
        name,
        published: false,
    };
    {
        let stream = file.write_via_stream(0)?;
        for chunk in bytes.chunks(WRITE_CHUNK) {
            stream
                .blocking_write_and_flush(chunk)
                .map_err(stream_error)?;
        }
    }
    if durable {
        // An fsync error is a failure: the data may never reach the disk.
        file.sync()?;
    }
    Ok(temp)
}

/// The file system's own error behind a failed stream write (disk full,
/// file too large, …), so the message can say what went wrong.
fn stream_error(e: StreamError) -> ErrorCode {
    match e {
        StreamError::LastOperationFailed(e) => filesystem_error_code(&e).unwrap_or(ErrorCode::Io),
        StreamError::Closed => ErrorCode::Io,
    }
}

/// Makes a directory's entries (a create, rename or delete in it) durable.
pub fn sync_dir(root: &Descriptor, dir: &MemPath) -> Result<(), ErrorCode> {
    root.open_at(
        PathFlags::SYMLINK_FOLLOW,
        &dir.relative(),
        OpenFlags::DIRECTORY,
        DescriptorFlags::READ,
    )?
    .sync()
}

/// Replaces the content of an existing file atomically: temp file, fsync,
/// rename over the original, fsync of the directory. Refuses with `conflict`
/// when the file changed since `expected` was taken.
pub fn replace_file(
    root: &Descriptor,
    path: &MemPath,
    shown: &str,
    bytes: &[u8],
    expected: Stamp,
) -> Result<()> {
    replace_derived(root, path, shown, bytes, expected, true)?;
    sync_dir(root, &path.parent()).map_err(|e| tool_error(e, shown, "write"))
}

/// Like [`replace_file`] without the directory fsync, and without the data
/// fsync unless `durable`, for the index. A stale index is rebuilt by the next
/// call that shows it, so only the agent's own text in it needs the data
/// synced (then a power loss leaves the old or the new content, both whole);
/// a file of generated text alone may come back empty and is regenerated.
pub fn replace_derived(
    root: &Descriptor,
    path: &MemPath,
    shown: &str,
    bytes: &[u8],
    expected: Stamp,
    durable: bool,
) -> Result<()> {
    if bytes.len() as u64 > MAX_FILE_BYTES {
        return Err(too_large(shown, bytes.len() as u64));
    }
    let fail = |e| tool_error(e, shown, "write");
    let mut temp = write_temp(root, bytes, durable).map_err(fail)?;
    match stamp(root, path) {
        Ok(now) if now == expected => {}
        _ => {
            return Err(ToolError::ChangedMeanwhile { path: shown.into() });
        }
    }
    root.rename_at(&temp.name, root, &path.relative())
        .map_err(fail)?;
    temp.published = true;
    Ok(())
}

/// Puts `bytes` at `relative` (under the reserved directory) atomically,
/// replacing whatever is there. For memcap's own derived files, which need
/// no conflict check and no directory sync: losing one costs a rebuild.
pub fn put_private(root: &Descriptor, relative: &str, bytes: &[u8]) -> Result<(), ErrorCode> {
    let mut temp = write_temp(root, bytes, false)?;
    root.rename_at(&temp.name, root, relative)?;
    temp.published = true;
    Ok(())
}

/// Up to `limit` bytes from the start of the regular file at `relative`,
/// never following a link.
pub fn read_head(root: &Descriptor, relative: &str, limit: u64) -> Result<Vec<u8>, ErrorCode> {
    let file = root.open_at(
        PathFlags::empty(),
        relative,
        OpenFlags::empty(),
        DescriptorFlags::READ,
    )?;
    read_at(&file, 0, Some(limit))
}

/// The bytes of an open file from `offset` to its end, or at most `limit`
/// of them: the one chunked read loop for memcap's own files.
pub fn read_at(file: &Descriptor, offset: u64, limit: Option<u64>) -> Result<Vec<u8>, ErrorCode> {
    const CHUNK: u64 = 256 * 1024;
    let mut bytes = Vec::new();
    let mut at = offset;
    loop {
        let want = limit.map_or(CHUNK, |limit| limit - (at - offset));
        if want == 0 {
            return Ok(bytes);
        }
        let (chunk, end) = file.read(want, at)?;
        at += chunk.len() as u64;
        bytes.extend_from_slice(&chunk);
        if end || chunk.is_empty() {
            return Ok(bytes);
        }
    }
}

/// Creates a new file with `bytes` atomically and without ever replacing an
/// existing one: the temp file is hard-linked to the final name (which fails
/// if the name is taken), so the name never shows partial content.
pub fn create_file(root: &Descriptor, path: &MemPath, shown: &str, bytes: &[u8]) -> Result<()> {
    if bytes.len() as u64 > MAX_FILE_BYTES {
        return Err(too_large(shown, bytes.len() as u64));
    }
    let fail = |e| tool_error(e, shown, "create");
    let temp = write_temp(root, bytes, true).map_err(fail)?;
    root.link_at(PathFlags::empty(), &temp.name, root, &path.relative())
        .map_err(|e| match e {
            ErrorCode::Exist => ToolError::FileExists { path: shown.into() },
            e => fail(e),
        })?;
    drop(temp);
    sync_dir(root, &path.parent()).map_err(fail)
}

/// Removes a directory and everything below it, without following links.
/// Iterative, so a deep tree cannot exhaust the stack.
pub fn remove_tree(root: &Descriptor, top: &str) -> Result<(), ErrorCode> {
    // (directory, entries already removed?) pairs, depth first.
    let mut stack: Vec<(String, bool)> = vec![(top.to_owned(), false)];
    while let Some((dir, emptied)) = stack.pop() {
        if emptied {
            root.remove_directory_at(&dir)?;
            continue;
        }
        stack.push((dir.clone(), true));
        let handle = root.open_at(
            PathFlags::empty(),
            &dir,
            OpenFlags::DIRECTORY,
            DescriptorFlags::READ,
        )?;
        let entries = handle.read_directory()?;
        while let Some(entry) = next_entry(&entries)? {
            let child = format!("{dir}/{}", entry.name);
            if entry.type_ == DescriptorType::Directory {
                stack.push((child, false));
            } else {
                root.unlink_file_at(&child)?;
            }
        }
    }
    Ok(())
}

/// The next directory entry, skipping names that are not valid UTF-8 (WASI
/// cannot name them; the listing continues after them).
pub fn next_entry(
    entries: &wasip2::filesystem::types::DirectoryEntryStream,
) -> Result<Option<wasip2::filesystem::types::DirectoryEntry>, ErrorCode> {
    loop {
        match entries.read_directory_entry() {
            Err(ErrorCode::IllegalByteSequence) => continue,
            other => return other,
        }
    }
}
