//! The on-disk cache of compiled code. Loading a cached compile runs it as
//! native code, so one is used only from a directory and a file that belong
//! to the current user and that nobody else can write, read through a
//! descriptor opened without following links (what was checked is what is
//! loaded). Files are named for the exact component bytes, wasmtime version
//! and engine settings.

use std::fmt;
use std::io::{Read, Write};
use std::os::fd::OwnedFd;
use std::path::{Path, PathBuf};

use rustix::fs::{FileType, Mode, OFlags, Stat};

/// Why a cache directory or file is not used.
#[derive(Debug)]
pub(crate) enum Refusal {
    Link(PathBuf),
    NotDirectory(PathBuf),
    NotRegular(PathBuf),
    OtherOwner {
        path: PathBuf,
        uid: u32,
    },
    WritableByOthers {
        path: PathBuf,
        mode: u32,
    },
    Io {
        path: PathBuf,
        error: std::io::Error,
    },
}

impl fmt::Display for Refusal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Link(p) => write!(f, "{} is a symbolic link", p.display()),
            Self::NotDirectory(p) => write!(f, "{} is not a directory", p.display()),
            Self::NotRegular(p) => write!(f, "{} is not a regular file", p.display()),
            Self::OtherOwner { path, uid } => write!(
                f,
                "{} belongs to another user (uid {uid}), so its code cannot be trusted",
                path.display()
            ),
            Self::WritableByOthers { path, mode } => write!(
                f,
                "{} can be written by other users (mode {:03o}), so its code cannot be trusted",
                path.display(),
                mode & 0o777
            ),
            Self::Io { path, error } => write!(f, "{}: {error}", path.display()),
        }
    }
}

/// A cache directory that passed the checks, held open.
pub(crate) struct CodeCache {
    path: PathBuf,
    dir: OwnedFd,
}

impl CodeCache {
    /// Opens (creating it 0700 if missing) the cache directory `path`.
    pub fn open(path: &Path) -> Result<Self, Refusal> {
        use std::os::unix::fs::DirBuilderExt;
        let io = |error| Refusal::Io {
            path: path.to_path_buf(),
            error,
        };
        match std::fs::symlink_metadata(path) {
            Ok(meta) if meta.file_type().is_symlink() => {
                return Err(Refusal::Link(path.to_path_buf()));
            }
            Ok(_) => {}
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => std::fs::DirBuilder::new()
                .recursive(true)
                .mode(0o700)
                .create(path)
                .map_err(io)?,
            Err(e) => return Err(io(e)),
        }
        let dir = rustix::fs::open(
            path,
            OFlags::RDONLY | OFlags::DIRECTORY | OFlags::NOFOLLOW | OFlags::CLOEXEC,
            Mode::empty(),
        )
        .map_err(|e| io(e.into()))?;
        let st = rustix::fs::fstat(&dir).map_err(|e| io(e.into()))?;
        if FileType::from_raw_mode(st.st_mode) != FileType::Directory {
            return Err(Refusal::NotDirectory(path.to_path_buf()));
        }
        trusted(&st, path)?;
        Ok(Self {
            path: path.to_path_buf(),
            dir,
        })
    }

    /// The cached file `name`, opened and checked, `None` when there is
    /// none. What is loaded must come from this descriptor, never from the
    /// path again (it may have been replaced since the check).
    pub fn open_file(&self, name: &str) -> Result<Option<CachedFile>, Refusal> {
        let path = self.path.join(name);
        let io = |error| Refusal::Io {
            path: path.clone(),
            error,
        };
        let fd = match rustix::fs::openat(
            &self.dir,
            name,
            OFlags::RDONLY | OFlags::NOFOLLOW | OFlags::CLOEXEC | OFlags::NONBLOCK,
            Mode::empty(),
        ) {
            Ok(fd) => fd,
            Err(rustix::io::Errno::NOENT) => return Ok(None),
            Err(rustix::io::Errno::LOOP) => return Err(Refusal::Link(path)),
            Err(e) => return Err(io(e.into())),
        };
        let st = rustix::fs::fstat(&fd).map_err(|e| io(e.into()))?;
        if FileType::from_raw_mode(st.st_mode) != FileType::RegularFile {
            return Err(Refusal::NotRegular(path));
        }
        trusted(&st, &path)?;
        Ok(Some(CachedFile {
            fd,
            size: st.st_size.max(0) as u64,
            path,
        }))
    }

    /// Stores `bytes` as `name`: written aside (0600) and renamed, so a
    /// reader never sees half a file.
    pub fn store(&self, name: &str, bytes: &[u8]) -> std::io::Result<()> {
        let temp = format!("{name}.tmp{}", std::process::id());
        let fd = rustix::fs::openat(
            &self.dir,
            temp.as_str(),
            OFlags::WRONLY | OFlags::CREATE | OFlags::EXCL | OFlags::NOFOLLOW | OFlags::CLOEXEC,
            Mode::from_raw_mode(0o600),
        )?;
        let written = std::fs::File::from(fd).write_all(bytes).and_then(|()| {
            Ok(rustix::fs::renameat(
                &self.dir,
                temp.as_str(),
                &self.dir,
                name,
            )?)
        });
        if written.is_err() {
            let _ = rustix::fs::unlinkat(&self.dir, temp.as_str(), rustix::fs::AtFlags::empty());
        }
        written
    }
}

/// A cached file that passed the checks, held open.
pub(crate) struct CachedFile {
    fd: OwnedFd,
    size: u64,
    path: PathBuf,
}

impl CachedFile {
    /// A path that names this very file, not whatever the cache path names
    /// now: the descriptor's own link in `/proc/self/fd` (Linux), for an
    /// API that maps a file by path. `None` where there is no such link.
    pub fn own_path(&self) -> Option<PathBuf> {
        use std::os::fd::AsRawFd;
        let link = PathBuf::from(format!("/proc/self/fd/{}", self.fd.as_raw_fd()));
        let st = rustix::fs::stat(&link).ok()?;
        let held = rustix::fs::fstat(&self.fd).ok()?;
        (st.st_dev == held.st_dev && st.st_ino == held.st_ino).then_some(link)
    }

    /// The file's bytes, read from the descriptor.
    pub fn read(self) -> Result<Vec<u8>, Refusal> {
        let mut bytes = Vec::with_capacity(self.size as usize);
        std::fs::File::from(self.fd)
            .read_to_end(&mut bytes)
            .map_err(|error| Refusal::Io {
                path: self.path,
                error,
            })?;
        Ok(bytes)
    }
}

/// Owned by the current user and not writable by group or others.
fn trusted(st: &Stat, path: &Path) -> Result<(), Refusal> {
    let me = rustix::process::geteuid().as_raw();
    if st.st_uid != me {
        return Err(Refusal::OtherOwner {
            path: path.to_path_buf(),
            uid: st.st_uid,
        });
    }
    if st.st_mode & 0o022 != 0 {
        return Err(Refusal::WritableByOthers {
            path: path.to_path_buf(),
            mode: st.st_mode,
        });
    }
    Ok(())
}
