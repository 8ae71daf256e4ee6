//! The storage port: the few file primitives memcap needs, behind one trait
//! with a typed error, plus the clock and randomness a store's upkeep reads.
//!
//! Every path is relative to the memory root, `/`-separated, with "" (or
//! ".") for the root itself. An adapter must make any path that would leave
//! the root fail with [`FsError::Escape`] at the moment of the call; the WASI
//! adapter (the guest's `wasi/`) gets that from the one preopened directory,
//! the in-memory one ([`memory`]) has nothing outside to reach.

#[cfg(feature = "conformance")]
pub mod conformance;
pub mod memory;
pub mod mounts;
pub mod within;

pub use crate::error::FsError;

/// What a name is, as `stat` or a directory listing sees it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    File,
    Dir,
    /// A symbolic link (only when not followed).
    Link,
    /// A FIFO, socket or device: memcap neither reads nor lists it.
    Other,
}

/// `stat`'s answer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Meta {
    pub kind: Kind,
    pub size: u64,
    /// Modification time (seconds, nanoseconds).
    pub modified: Option<(u64, u32)>,
    /// Status-change time as the host reports it. A POSIX `ctime` moves on
    /// any write, rename or new link; wasmtime (48) reports the file's
    /// creation time here, which moves only when the name holds another
    /// file: neither can be set by a program.
    pub changed: Option<(u64, u32)>,
}

/// What a writer compares to detect that a file changed under it: size,
/// modification time and the adapter's hash of the file's identity.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Stamp {
    pub size: u64,
    pub modified: Option<(u64, u32)>,
    pub hash: Option<(u64, u64)>,
}

/// One name in a directory listing.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DirEntry {
    pub name: String,
    /// The kind of the name itself: a link is [`Kind::Link`].
    pub kind: Kind,
}

/// The file primitives. Implementations are the only code that touches a
/// real file system; everything above them is pure logic.
pub trait Storage {
    /// The metadata of `path`, following a last symbolic link when `follow`.
    fn stat(&self, path: &str, follow: bool) -> Result<Meta, FsError>;

    /// The stamp of the file at `path`, links followed.
    fn stamp(&self, path: &str) -> Result<Stamp, FsError>;

    /// Opens the file at `path` for reading (a last link followed when
    /// `follow`). Callers make sure it is a regular file first: opening a
    /// FIFO would block.
    fn open(&self, path: &str, follow: bool) -> Result<Box<dyn File>, FsError>;

    /// The names in directory `dir` (links followed), hidden ones included,
    /// in no particular order. Names that are not UTF-8 are left out.
    fn list(&self, dir: &str) -> Result<Vec<DirEntry>, FsError>;

    /// Opens directory `dir` (links followed) to look at many names in it:
    /// a `stat` through the handle costs one lookup, where a path from the
    /// root is resolved again component by component.
    fn open_dir(&self, dir: &str) -> Result<Box<dyn Dir + '_>, FsError>;

    /// Creates one directory; [`FsError::Exists`] when the name is taken.
    fn create_dir(&self, path: &str) -> Result<(), FsError>;

    /// Creates a new file holding `bytes`, never replacing anything
    /// ([`FsError::Exists`]), never following a link; synced to disk when
    /// `durable`. On any failure nothing is left at `path`.
    fn write_new(&self, path: &str, bytes: &[u8], durable: bool) -> Result<(), FsError>;

    /// As [`Storage::write_new`], with the new file's stamp, taken from
    /// the file written (an implementation can ask its open handle rather
    /// than look the path up again).
    fn write_new_stamped(&self, path: &str, bytes: &[u8], durable: bool) -> Result<Stamp, FsError> {
        self.write_new(path, bytes, durable)?;
        self.stamp(path)
    }

    /// Writes `bytes` at `offset` into the existing regular file at `path`
    /// (not followed if a link).
    fn write_at(&self, path: &str, offset: u64, bytes: &[u8]) -> Result<(), FsError>;

    /// Opens the existing regular file at `path` (not followed if a link)
    /// to read and to write in place ([`File::write_at`]), for what reads
    /// a file's end and writes there twice in one call (the history's log):
    /// one open, not three. `None` when this storage has no such handles;
    /// callers then write by path.
    fn open_rw(&self, _path: &str) -> Result<Option<Box<dyn File>>, FsError> {
        Ok(None)
    }

    /// As [`Storage::write_at`], with the file's metadata once written (as
    /// [`Storage::stat`] of `path`, not followed, would say unless another
    /// program replaced the file meanwhile).
    fn write_at_stat(&self, path: &str, offset: u64, bytes: &[u8]) -> Result<Meta, FsError> {
        self.write_at(path, offset, bytes)?;
        self.stat(path, false)
    }

    /// Renames `from` to `to`, replacing a file at `to`, atomically.
    fn rename(&self, from: &str, to: &str) -> Result<(), FsError>;

    /// Gives the file at `from` a second name `to`; [`FsError::Exists`]
    /// when `to` is taken. Never follows a link.
    fn hard_link(&self, from: &str, to: &str) -> Result<(), FsError>;

    /// Removes a name that is not a directory (a link goes, not its target).
    fn remove_file(&self, path: &str) -> Result<(), FsError>;

    /// Removes an empty directory.
    fn remove_dir(&self, path: &str) -> Result<(), FsError>;

    /// Makes the entries of directory `dir` durable.
    fn sync_dir(&self, dir: &str) -> Result<(), FsError>;

    /// The directory a write to `target` is staged in: one on the same
    /// grant as `target`, so the staged file can be renamed into place.
    fn staging_dir(&self, _target: &str) -> String {
        crate::layout::TEMP_DIR.to_owned()
    }

    /// Whether `path` is a mount point ([`mounts`]) or holds one, so the
    /// whole of it must not be removed.
    fn holds_mount(&self, _path: &str) -> bool {
        false
    }

    /// Which of the host's grants holds `path`.
    fn grant(&self, _path: &str) -> Grant {
        Grant::Root
    }
}

/// The grants a path can be in: the memory root, or a directory mounted
/// into it ([`mounts`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Grant {
    Root,
    /// `shared/NAME`: memory shared with other users.
    Shared,
    /// `extra/NAME`: read-only reference material.
    Extra,
}

/// An open file.
pub trait File {
    /// The metadata of what is open.
    fn stat(&self) -> Result<Meta, FsError>;

    /// The stamp of what is open (taken from the open file, so a
    /// replacement of the name does not change it).
    fn stamp(&self) -> Result<Stamp, FsError>;

    /// What [`File::stat`] says, with how many names the file has (its
    /// hard links) when the adapter knows: a file whose name was replaced
    /// or removed while it was open has one fewer. `None` when the adapter
    /// cannot tell.
    fn stat_named(&self) -> Result<(Meta, Option<u64>), FsError> {
        self.stat().map(|meta| (meta, None))
    }

    /// Up to `len` bytes from `offset`, and whether the end of the file was
    /// reached: a read that meets the end may say so, or leave it to the
    /// next read, which is empty (WASI hosts do), so callers stop at either.
    fn read_at(&self, offset: u64, len: u64) -> Result<(Vec<u8>, bool), FsError>;

    /// Writes `bytes` at `offset`, on a file [`Storage::open_rw`] opened
    /// (any other is read-only).
    fn write_at(&self, _offset: u64, _bytes: &[u8]) -> Result<(), FsError> {
        Err(FsError::ReadOnly)
    }
}

/// An open directory.
pub trait Dir {
    /// As [`Storage::list`].
    fn list(&self) -> Result<Vec<DirEntry>, FsError>;
    /// As [`Storage::stat`], for a name in this directory.
    fn stat(&self, name: &str, follow: bool) -> Result<Meta, FsError>;
    /// As [`Storage::open`] without following a link, for a name in this
    /// directory.
    fn open(&self, name: &str) -> Result<Box<dyn File>, FsError>;
}

/// The rest of the world a store's upkeep reads: clocks, randomness and the
/// host's settings.
pub trait Environment {
    /// Wall-clock seconds since the Unix epoch.
    fn now_seconds(&self) -> u64;
    /// A monotonic clock in nanoseconds, for time budgets.
    fn monotonic_nanos(&self) -> u64;
    /// 64 random bits (journal generations).
    fn random_u64(&self) -> u64;
    /// 128 random bits (names of temporary files); an adapter that can ask
    /// for them in one call should.
    fn random_u128(&self) -> u128 {
        (u128::from(self.random_u64()) << 64) | u128::from(self.random_u64())
    }
    /// A setting the host passed (`MEMCAP_MAX_FILES`, `MEMCAP_MAX_BYTES`).
    fn var(&self, name: &str) -> Option<String>;
    /// The text embedding model, when the adapter has one and the host has
    /// not turned vectors off: searches are then hybrid.
    fn embedder(&self) -> Option<&dyn crate::search::embedder::Embedder> {
        None
    }
}
