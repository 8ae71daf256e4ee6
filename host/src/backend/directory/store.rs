//! The store on disk: the root directory and memcap's reserved `.memcap` in
//! it (temp files of unfinished writes, the lock), checked and prepared when
//! a store is opened or first written.

use std::fs::File;
use std::io::ErrorKind;
use std::path::{Path, PathBuf};

use cap_std::fs::Dir;
use memcap_core::layout::{LOCK_FILE, RESERVED, TEMP_DIR};

use crate::error::OpenError;

/// A store's directory as found when it was opened.
pub(crate) enum Found {
    /// Nothing there yet: reads see an empty store, the first write creates it.
    Missing,
    Present(Prepared),
}

/// memcap's files in an existing store.
pub(crate) struct Prepared {
    /// The cross-process lock; `None` on a store memcap cannot write and
    /// where no other writer ever made one.
    pub lock: Option<File>,
    /// `.memcap/tmp`, emptied after a call that stopped mid-write; `None`
    /// on a store memcap cannot write.
    pub temp: Option<Dir>,
}

/// Looks at `root` and prepares the store there if there is one.
pub(crate) fn open(root: &Path) -> Result<Found, OpenError> {
    match std::fs::metadata(root) {
        Ok(meta) if meta.is_dir() => prepare(root).map(Found::Present),
        Ok(_) => Err(OpenError::NotADirectory {
            path: root.to_path_buf(),
        }),
        Err(e) if e.kind() == ErrorKind::NotFound => Ok(Found::Missing),
        Err(cause) => Err(OpenError::Root {
            path: root.to_path_buf(),
            cause,
        }),
    }
}

/// Opens a shared directory: it must exist. A read-write one is prepared as
/// a store of its own (its writes are staged in its own `.memcap/tmp`, under
/// its own lock); in a read-only one nothing is created, and its lock is
/// taken when another writer made one, so reads never see a write half done
/// by memcap's rules.
pub(crate) fn open_shared(path: &Path, read_only: bool) -> Result<Prepared, OpenError> {
    match std::fs::metadata(path) {
        Ok(meta) if meta.is_dir() => {}
        Ok(_) => {
            return Err(OpenError::NotADirectory {
                path: path.to_path_buf(),
            });
        }
        Err(e) if e.kind() == ErrorKind::NotFound => {
            return Err(OpenError::SharedMissing {
                path: path.to_path_buf(),
            });
        }
        Err(cause) => {
            return Err(OpenError::Root {
                path: path.to_path_buf(),
                cause,
            });
        }
    }
    if !read_only {
        return prepare(path);
    }
    let dir = Dir::open_ambient_dir(path, cap_std::ambient_authority()).map_err(|cause| {
        OpenError::Root {
            path: path.to_path_buf(),
            cause,
        }
    })?;
    Ok(Prepared {
        lock: dir.open(LOCK_FILE).ok().map(|f| f.into_std()),
        temp: None,
    })
}

/// Creates `root` (mode 0700, with its parents) and prepares the store.
pub(crate) fn create(root: &Path) -> Result<Prepared, OpenError> {
    use std::os::unix::fs::DirBuilderExt;
    std::fs::DirBuilder::new()
        .recursive(true)
        .mode(0o700)
        .create(root)
        .map_err(|cause| OpenError::Root {
            path: root.to_path_buf(),
            cause,
        })?;
    prepare(root)
}

/// Makes `.memcap/tmp` and the lock file and removes the temp files a
/// crashed writer left, under the store lock when it is free. A store memcap may not write
/// (read-only, or another user's) is served for reading.
fn prepare(root: &Path) -> Result<Prepared, OpenError> {
    let store_err = |cause| OpenError::Store {
        path: root.to_path_buf(),
        cause,
    };
    let dir = Dir::open_ambient_dir(root, cap_std::ambient_authority()).map_err(|cause| {
        OpenError::Root {
            path: root.to_path_buf(),
            cause,
        }
    })?;
    let temp_made = check_reserved(&dir, root)?;
    let read_only = || Prepared {
        lock: dir.open(LOCK_FILE).ok().map(|f| f.into_std()),
        temp: None,
    };
    if !temp_made {
        match dir.create_dir_all(TEMP_DIR) {
            Ok(()) => {}
            Err(e) if denied(&e) => return Ok(read_only()),
            Err(cause) => return Err(store_err(cause)),
        }
    }
    let lock = match dir.open_with(
        LOCK_FILE,
        cap_std::fs::OpenOptions::new()
            .read(true)
            .write(true)
            .create(true),
    ) {
        Ok(lock) => lock.into_std(),
        Err(e) if denied(&e) => return Ok(read_only()),
        Err(cause) => return Err(store_err(cause)),
    };
    let temp = dir.open_dir(TEMP_DIR).map_err(store_err)?;
    // Opening never waits for the lock: whoever holds it is mid-call, and
    // its own call cleans up after a stop (a holder that never lets go must
    // not keep the store from opening).
    match lock.try_lock() {
        Ok(()) => {
            let cleaned = remove_leftovers(&temp);
            lock.unlock().map_err(store_err)?;
            cleaned.map_err(store_err)?;
        }
        Err(std::fs::TryLockError::WouldBlock) => {}
        Err(std::fs::TryLockError::Error(cause)) => return Err(store_err(cause)),
    }
    Ok(Prepared {
        lock: Some(lock),
        temp: Some(temp),
    })
}

fn denied(e: &std::io::Error) -> bool {
    matches!(
        e.kind(),
        ErrorKind::PermissionDenied | ErrorKind::ReadOnlyFilesystem
    )
}

/// memcap's own names must be what it made them: a link or a file in their
/// place is somebody else's doing, and is named with the way to fix it.
/// Whether `.memcap/tmp` is there already (most opens: nothing to make).
fn check_reserved(dir: &Dir, root: &Path) -> Result<bool, OpenError> {
    let mut temp_made = false;
    for (name, want_dir) in [(RESERVED, true), (TEMP_DIR, true), (LOCK_FILE, false)] {
        let Ok(meta) = dir.symlink_metadata(name) else {
            continue;
        };
        temp_made |= name == TEMP_DIR && meta.is_dir();
        let problem = if meta.file_type().is_symlink() {
            "is a symbolic link"
        } else if want_dir && !meta.is_dir() {
            "is not a directory"
        } else if !want_dir && !meta.is_file() {
            "is not a regular file"
        } else {
            continue;
        };
        return Err(OpenError::Reserved {
            path: root.join(name),
            problem,
        });
    }
    Ok(temp_made)
}

/// Every write goes through `.memcap/tmp`; with the lock held no write is in
/// flight, so whatever is there was left by a crash or a stopped call.
pub(crate) fn remove_leftovers(temp: &Dir) -> std::io::Result<()> {
    for entry in temp.entries()? {
        let entry = entry?;
        if entry.file_type()?.is_dir() {
            temp.remove_dir_all(entry.file_name())?;
        } else {
            temp.remove_file(entry.file_name())?;
        }
    }
    Ok(())
}

/// An empty directory nobody can write, served in place of a store that does
/// not exist yet, so reads answer as an empty store and create nothing.
pub(crate) struct EmptyDir(PathBuf);

impl EmptyDir {
    pub fn new() -> std::io::Result<Self> {
        use std::os::unix::fs::{DirBuilderExt, PermissionsExt};
        let nonce = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos());
        let path =
            std::env::temp_dir().join(format!("memcap-empty-{}-{nonce:x}", std::process::id()));
        std::fs::DirBuilder::new().mode(0o700).create(&path)?;
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o500))?;
        Ok(Self(path))
    }

    pub fn path(&self) -> &Path {
        &self.0
    }
}

impl Drop for EmptyDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir(&self.0);
    }
}
