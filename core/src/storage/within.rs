//! One directory of a storage seen as a storage of its own: every path is
//! taken under `dir`. What a shared directory's own history is written
//! through, so the code that keeps a store's history keeps that store's
//! too, in the store's own `.memcap`.

use super::{Dir, DirEntry, File, Grant, Meta, Stamp, Storage};
use crate::error::FsError;

/// `inner`'s directory `dir` (relative, no trailing `/`), as a root.
pub struct Within<'a> {
    inner: &'a dyn Storage,
    dir: String,
}

impl<'a> Within<'a> {
    pub fn new(inner: &'a dyn Storage, dir: &str) -> Self {
        Self {
            inner,
            dir: dir.trim_end_matches('/').to_owned(),
        }
    }

    fn at(&self, path: &str) -> String {
        match path {
            "" => self.dir.clone(),
            _ => format!("{}/{path}", self.dir),
        }
    }
}

impl Storage for Within<'_> {
    fn stat(&self, path: &str, follow: bool) -> Result<Meta, FsError> {
        self.inner.stat(&self.at(path), follow)
    }

    fn stamp(&self, path: &str) -> Result<Stamp, FsError> {
        self.inner.stamp(&self.at(path))
    }

    fn open(&self, path: &str, follow: bool) -> Result<Box<dyn File>, FsError> {
        self.inner.open(&self.at(path), follow)
    }

    fn open_rw(&self, path: &str) -> Result<Option<Box<dyn File>>, FsError> {
        self.inner.open_rw(&self.at(path))
    }

    fn list(&self, dir: &str) -> Result<Vec<DirEntry>, FsError> {
        self.inner.list(&self.at(dir))
    }

    fn open_dir(&self, dir: &str) -> Result<Box<dyn Dir + '_>, FsError> {
        self.inner.open_dir(&self.at(dir))
    }

    fn create_dir(&self, path: &str) -> Result<(), FsError> {
        self.inner.create_dir(&self.at(path))
    }

    fn write_new(&self, path: &str, bytes: &[u8], durable: bool) -> Result<(), FsError> {
        self.inner.write_new(&self.at(path), bytes, durable)
    }

    fn write_new_stamped(&self, path: &str, bytes: &[u8], durable: bool) -> Result<Stamp, FsError> {
        self.inner.write_new_stamped(&self.at(path), bytes, durable)
    }

    fn write_at(&self, path: &str, offset: u64, bytes: &[u8]) -> Result<(), FsError> {
        self.inner.write_at(&self.at(path), offset, bytes)
    }

    fn write_at_stat(&self, path: &str, offset: u64, bytes: &[u8]) -> Result<Meta, FsError> {
        self.inner.write_at_stat(&self.at(path), offset, bytes)
    }

    fn rename(&self, from: &str, to: &str) -> Result<(), FsError> {
        self.inner.rename(&self.at(from), &self.at(to))
    }

    fn hard_link(&self, from: &str, to: &str) -> Result<(), FsError> {
        self.inner.hard_link(&self.at(from), &self.at(to))
    }

    fn remove_file(&self, path: &str) -> Result<(), FsError> {
        self.inner.remove_file(&self.at(path))
    }

    fn remove_dir(&self, path: &str) -> Result<(), FsError> {
        self.inner.remove_dir(&self.at(path))
    }

    fn sync_dir(&self, dir: &str) -> Result<(), FsError> {
        self.inner.sync_dir(&self.at(dir))
    }

    fn staging_dir(&self, target: &str) -> String {
        let staged = self.inner.staging_dir(&self.at(target));
        match staged
            .strip_prefix(&self.dir)
            .and_then(|s| s.strip_prefix('/'))
        {
            Some(inside) => inside.to_owned(),
            // Not under this directory: its own `.memcap/tmp`.
            None => crate::layout::TEMP_DIR.to_owned(),
        }
    }

    /// The directory is a whole store: nothing is mounted in it.
    fn grant(&self, _path: &str) -> Grant {
        Grant::Root
    }
}
