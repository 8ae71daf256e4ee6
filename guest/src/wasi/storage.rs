//! The storage port over `wasi:filesystem` 0.2, relative to the one
//! preopened directory: every path is resolved by the host against that
//! descriptor, so nothing outside it can be named (cap-std refuses `..`,
//! absolute paths and links that leave it at the moment of the call).
//! Rust's `std::fs` is not used: it cannot write under some hosts (Node's
//! preview2-shim).

use std::cell::Cell;

use memcap_core::storage::{Dir, DirEntry, File, FsError, Kind, Meta, Stamp, Storage};
use wasip2::filesystem::types::{
    Descriptor, DescriptorFlags, DescriptorStat, DescriptorType, ErrorCode, MetadataHashValue,
    OpenFlags, PathFlags,
};

/// The memory root: the one directory the host granted.
pub struct WasiStorage {
    root: Descriptor,
    /// Whether the host syncs the granted descriptor itself (wasmtime
    /// does; Node's preview2-shim refuses, and the root is then opened by
    /// its path "." to be synced).
    root_syncs: Cell<bool>,
}

impl WasiStorage {
    pub fn new(root: Descriptor) -> Self {
        Self {
            root,
            root_syncs: Cell::new(true),
        }
    }
}

/// A WASI error code as the port's typed error.
fn fs_error(code: ErrorCode) -> FsError {
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
        ErrorCode::Exist => FsError::Exists,
        ErrorCode::IsDirectory => FsError::IsDirectory,
        _ => FsError::Other,
    }
}

/// Calls on the root itself go through its path "." rather than the root
/// descriptor: Node's preview2-shim refuses `stat` and `sync` on a preopen.
fn name(path: &str) -> &str {
    if path.is_empty() { "." } else { path }
}

fn flags(follow: bool) -> PathFlags {
    if follow {
        PathFlags::SYMLINK_FOLLOW
    } else {
        PathFlags::empty()
    }
}

fn kind(t: DescriptorType) -> Kind {
    match t {
        DescriptorType::RegularFile => Kind::File,
        DescriptorType::Directory => Kind::Dir,
        DescriptorType::SymbolicLink => Kind::Link,
        _ => Kind::Other,
    }
}

fn meta(st: &DescriptorStat) -> Meta {
    let time =
        |t: Option<wasip2::clocks::wall_clock::Datetime>| t.map(|t| (t.seconds, t.nanoseconds));
    Meta {
        kind: kind(st.type_),
        size: st.size,
        modified: time(st.data_modification_timestamp),
        changed: time(st.status_change_timestamp),
    }
}

fn stamp(st: &DescriptorStat, hash: Result<MetadataHashValue, ErrorCode>) -> Stamp {
    let meta = meta(st);
    Stamp {
        size: meta.size,
        modified: meta.modified,
        hash: hash.ok().map(|h| (h.lower, h.upper)),
    }
}

/// Writes all of `bytes` at `offset`: one `write` call for what a host
/// takes at once (wasmtime and Node take it all), again for any rest.
fn write_all(file: &Descriptor, mut offset: u64, mut bytes: &[u8]) -> Result<(), FsError> {
    while !bytes.is_empty() {
        let written = file.write(bytes, offset).map_err(fs_error)?;
        // A host that takes nothing would loop forever.
        let taken = usize::try_from(written)
            .ok()
            .filter(|&n| n > 0 && n <= bytes.len())
            .ok_or(FsError::Other)?;
        bytes = &bytes[taken..];
        offset += written;
    }
    Ok(())
}

fn list(dir: &Descriptor) -> Result<Vec<DirEntry>, FsError> {
    let entries = dir.read_directory().map_err(fs_error)?;
    let mut out = Vec::new();
    loop {
        match entries.read_directory_entry() {
            Ok(Some(entry)) => out.push(DirEntry {
                name: entry.name,
                kind: kind(entry.type_),
            }),
            Ok(None) => return Ok(out),
            // A name WASI cannot give as a string: left out, the listing
            // goes on after it.
            Err(ErrorCode::IllegalByteSequence) => continue,
            Err(e) => return Err(fs_error(e)),
        }
    }
}

fn open_file(dir: &Descriptor, path: &str, follow: bool) -> Result<Box<dyn File>, FsError> {
    let file = dir
        .open_at(
            flags(follow),
            path,
            OpenFlags::empty(),
            DescriptorFlags::READ,
        )
        .map_err(fs_error)?;
    Ok(Box::new(WasiFile(file)))
}

impl WasiStorage {
    /// Creates the file at `path` with `bytes` (synced when `durable`) and
    /// asks the still open file `then`; on any failure nothing stays.
    fn write_new_with<T>(
        &self,
        path: &str,
        bytes: &[u8],
        durable: bool,
        then: impl FnOnce(&Descriptor) -> Result<T, FsError>,
    ) -> Result<T, FsError> {
        // Only `write`, never `mutate-directory`: Node's preview2-shim refuses the latter.
        let file = self
            .root
            .open_at(
                PathFlags::empty(),
                path,
                OpenFlags::CREATE | OpenFlags::EXCLUSIVE,
                DescriptorFlags::WRITE,
            )
            .map_err(fs_error)?;
        let written = write_all(&file, 0, bytes).and_then(|()| {
            if durable {
                // An fsync error is a failure: the data may never reach the disk.
                file.sync().map_err(fs_error)?;
            }
            then(&file)
        });
        if written.is_err() {
            // Refused part-way (disk full, file too large): nothing stays.
            let _ = self.root.unlink_file_at(path);
        }
        written
    }

    /// The existing regular file at `path` (not followed), open to write.
    fn open_for_write(&self, path: &str) -> Result<Descriptor, FsError> {
        self.root
            .open_at(
                PathFlags::empty(),
                path,
                OpenFlags::empty(),
                DescriptorFlags::WRITE,
            )
            .map_err(fs_error)
    }

    fn descriptor_of(&self, path: &str) -> Result<Descriptor, FsError> {
        self.root
            .open_at(
                PathFlags::SYMLINK_FOLLOW,
                name(path),
                OpenFlags::DIRECTORY,
                DescriptorFlags::READ,
            )
            .map_err(fs_error)
    }
}

impl Storage for WasiStorage {
    fn stat(&self, path: &str, follow: bool) -> Result<Meta, FsError> {
        self.root
            .stat_at(flags(follow), name(path))
            .map(|st| meta(&st))
            .map_err(fs_error)
    }

    fn stamp(&self, path: &str) -> Result<Stamp, FsError> {
        let st = self
            .root
            .stat_at(PathFlags::SYMLINK_FOLLOW, name(path))
            .map_err(fs_error)?;
        let hash = self
            .root
            .metadata_hash_at(PathFlags::SYMLINK_FOLLOW, name(path));
        Ok(stamp(&st, hash))
    }

    fn open(&self, path: &str, follow: bool) -> Result<Box<dyn File>, FsError> {
        open_file(&self.root, name(path), follow)
    }

    fn list(&self, dir: &str) -> Result<Vec<DirEntry>, FsError> {
        list(&self.descriptor_of(dir)?)
    }

    fn open_dir(&self, dir: &str) -> Result<Box<dyn Dir + '_>, FsError> {
        Ok(Box::new(WasiDir(self.descriptor_of(dir)?)))
    }

    fn create_dir(&self, path: &str) -> Result<(), FsError> {
        self.root.create_directory_at(path).map_err(fs_error)
    }

    fn write_new(&self, path: &str, bytes: &[u8], durable: bool) -> Result<(), FsError> {
        self.write_new_with(path, bytes, durable, |_| Ok(()))
    }

    fn write_new_stamped(&self, path: &str, bytes: &[u8], durable: bool) -> Result<Stamp, FsError> {
        self.write_new_with(path, bytes, durable, |file| {
            let st = file.stat().map_err(fs_error)?;
            Ok(stamp(&st, file.metadata_hash()))
        })
    }

    fn write_at(&self, path: &str, offset: u64, bytes: &[u8]) -> Result<(), FsError> {
        self.open_for_write(path)
            .and_then(|file| write_all(&file, offset, bytes))
    }

    fn write_at_stat(&self, path: &str, offset: u64, bytes: &[u8]) -> Result<Meta, FsError> {
        let file = self.open_for_write(path)?;
        write_all(&file, offset, bytes)?;
        file.stat().map(|st| meta(&st)).map_err(fs_error)
    }

    fn open_rw(&self, path: &str) -> Result<Option<Box<dyn File>>, FsError> {
        let file = self
            .root
            .open_at(
                PathFlags::empty(),
                path,
                OpenFlags::empty(),
                DescriptorFlags::READ | DescriptorFlags::WRITE,
            )
            .map_err(fs_error)?;
        Ok(Some(Box::new(WasiFile(file))))
    }

    fn rename(&self, from: &str, to: &str) -> Result<(), FsError> {
        self.root.rename_at(from, &self.root, to).map_err(fs_error)
    }

    fn hard_link(&self, from: &str, to: &str) -> Result<(), FsError> {
        self.root
            .link_at(PathFlags::empty(), from, &self.root, to)
            .map_err(fs_error)
    }

    fn remove_file(&self, path: &str) -> Result<(), FsError> {
        self.root.unlink_file_at(path).map_err(fs_error)
    }

    fn remove_dir(&self, path: &str) -> Result<(), FsError> {
        self.root.remove_directory_at(path).map_err(fs_error)
    }

    fn sync_dir(&self, dir: &str) -> Result<(), FsError> {
        if name(dir) == "." && self.root_syncs.get() {
            match self.root.sync() {
                Ok(()) => return Ok(()),
                Err(_) => self.root_syncs.set(false),
            }
        }
        self.descriptor_of(dir)?.sync().map_err(fs_error)
    }
}

/// An open directory.
struct WasiDir(Descriptor);

impl Dir for WasiDir {
    fn list(&self) -> Result<Vec<DirEntry>, FsError> {
        list(&self.0)
    }

    fn stat(&self, name: &str, follow: bool) -> Result<Meta, FsError> {
        self.0
            .stat_at(flags(follow), name)
            .map(|st| meta(&st))
            .map_err(fs_error)
    }

    fn open(&self, name: &str) -> Result<Box<dyn File>, FsError> {
        open_file(&self.0, name, false)
    }
}

/// An open file.
struct WasiFile(Descriptor);

impl File for WasiFile {
    fn stat(&self) -> Result<Meta, FsError> {
        self.0.stat().map(|st| meta(&st)).map_err(fs_error)
    }

    fn stamp(&self) -> Result<Stamp, FsError> {
        let st = self.0.stat().map_err(fs_error)?;
        Ok(stamp(&st, self.0.metadata_hash()))
    }

    fn stat_named(&self) -> Result<(Meta, Option<u64>), FsError> {
        let st = self.0.stat().map_err(fs_error)?;
        Ok((meta(&st), Some(st.link_count)))
    }

    fn read_at(&self, offset: u64, len: u64) -> Result<(Vec<u8>, bool), FsError> {
        self.0.read(len, offset).map_err(fs_error)
    }

    fn write_at(&self, offset: u64, bytes: &[u8]) -> Result<(), FsError> {
        write_all(&self.0, offset, bytes)
    }
}
