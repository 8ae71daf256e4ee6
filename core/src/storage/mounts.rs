//! Shared directories mounted into the store: a [`Storage`] that serves
//! `shared/NAME/...` from a directory the host granted separately (its own
//! preopen, read-write or read-only) and everything else from the root.
//!
//! `shared` itself is a directory of mount points that exists only here: its
//! listing is the mounts, and neither it nor a mount point can be created,
//! removed or renamed ([`FsError::MountPoint`]). Nothing moves between two
//! grants ([`FsError::CrossMount`]): each is its own file system as far as
//! the guest can tell. Writes into a mount are staged in that mount's own
//! `.memcap/tmp`, so they are renamed into place within one grant.

use super::{Dir, DirEntry, File, FsError, Kind, Meta, Stamp, Storage};
use crate::layout::{SHARED, TEMP_DIR};

/// One shared directory: the name it has under `shared/` and its storage.
pub struct Mount<'a> {
    pub name: &'a str,
    pub storage: &'a dyn Storage,
    /// False for a read-only grant: every change is refused as
    /// [`FsError::ReadOnly`] before it reaches the host.
    pub writable: bool,
}

/// The root with its mounts.
pub struct Mounted<'a> {
    root: &'a dyn Storage,
    mounts: Vec<Mount<'a>>,
}

/// Where a path lands.
enum Target<'m, 'a> {
    Root,
    /// `shared` itself, while there are mounts.
    SharedDir,
    /// `shared/NAME` (rest "") or a path inside it.
    Mount(&'m Mount<'a>, String),
    /// A name under `shared/` that is not a mount: `shared` holds only them.
    NoMount,
}

impl<'a> Mounted<'a> {
    pub fn new(root: &'a dyn Storage, mounts: Vec<Mount<'a>>) -> Self {
        Self { root, mounts }
    }

    fn target(&self, path: &str) -> Target<'_, 'a> {
        if self.mounts.is_empty() {
            return Target::Root;
        }
        let mut parts = path.split('/').filter(|p| !p.is_empty() && *p != ".");
        if parts.next() != Some(SHARED) {
            return Target::Root;
        }
        let Some(name) = parts.next() else {
            return Target::SharedDir;
        };
        match self.mounts.iter().find(|m| m.name == name) {
            Some(mount) => Target::Mount(mount, parts.collect::<Vec<_>>().join("/")),
            None => Target::NoMount,
        }
    }

    /// The storage a change at `path` goes to, and the path there; refuses
    /// a mount point, `shared` and a read-only grant.
    fn writable(&self, path: &str) -> Result<(&dyn Storage, String), FsError> {
        match self.target(path) {
            Target::Root => Ok((self.root, path.to_owned())),
            Target::SharedDir => Err(FsError::MountPoint),
            // `shared` holds the mounts and nothing else.
            Target::NoMount => Err(FsError::MountPoint),
            Target::Mount(_, rest) if rest.is_empty() => Err(FsError::MountPoint),
            Target::Mount(m, _) if !m.writable => Err(FsError::ReadOnly),
            Target::Mount(m, rest) => Ok((m.storage, rest)),
        }
    }

    /// The storage two paths share, and their paths there.
    fn both(&self, from: &str, to: &str) -> Result<(&dyn Storage, String, String), FsError> {
        let (a, from) = self.writable(from)?;
        let (b, to) = self.writable(to)?;
        if !std::ptr::addr_eq(a, b) {
            return Err(FsError::CrossMount);
        }
        Ok((a, from, to))
    }

    /// `shared` never changes while an instance lives: one fixed stamp.
    const SHARED_META: Meta = Meta {
        kind: Kind::Dir,
        size: 0,
        modified: Some((0, 0)),
        changed: Some((0, 0)),
    };

    fn shared_listing(&self) -> Vec<DirEntry> {
        self.mounts
            .iter()
            .map(|m| DirEntry {
                name: m.name.to_owned(),
                kind: Kind::Dir,
            })
            .collect()
    }
}

/// The listing of `shared`, as an open directory.
struct SharedDir<'m, 'a> {
    mounted: &'m Mounted<'a>,
}

impl Dir for SharedDir<'_, '_> {
    fn list(&self) -> Result<Vec<DirEntry>, FsError> {
        Ok(self.mounted.shared_listing())
    }
    fn stat(&self, name: &str, follow: bool) -> Result<Meta, FsError> {
        self.mounted.stat(&format!("{SHARED}/{name}"), follow)
    }
    fn open(&self, name: &str) -> Result<Box<dyn File>, FsError> {
        self.mounted.open(&format!("{SHARED}/{name}"), false)
    }
}

/// The root opened as a directory: its own names, with `shared` standing
/// for the mounts whatever the root holds under that name.
struct RootDir<'m> {
    inner: Box<dyn Dir + 'm>,
}

impl Dir for RootDir<'_> {
    fn list(&self) -> Result<Vec<DirEntry>, FsError> {
        Ok(with_shared(self.inner.list()?))
    }
    fn stat(&self, name: &str, follow: bool) -> Result<Meta, FsError> {
        if name == SHARED {
            return Ok(Mounted::SHARED_META);
        }
        self.inner.stat(name, follow)
    }
    fn open(&self, name: &str) -> Result<Box<dyn File>, FsError> {
        if name == SHARED {
            return Err(FsError::IsDirectory);
        }
        self.inner.open(name)
    }
}

fn with_shared(mut entries: Vec<DirEntry>) -> Vec<DirEntry> {
    entries.retain(|e| e.name != SHARED);
    entries.push(DirEntry {
        name: SHARED.to_owned(),
        kind: Kind::Dir,
    });
    entries
}

fn is_root(path: &str) -> bool {
    path.split('/').all(|p| p.is_empty() || p == ".")
}

impl Storage for Mounted<'_> {
    fn stat(&self, path: &str, follow: bool) -> Result<Meta, FsError> {
        match self.target(path) {
            Target::Root => self.root.stat(path, follow),
            Target::SharedDir => Ok(Self::SHARED_META),
            Target::Mount(m, rest) => m.storage.stat(&rest, follow),
            Target::NoMount => Err(FsError::NotFound),
        }
    }

    fn stamp(&self, path: &str) -> Result<Stamp, FsError> {
        match self.target(path) {
            Target::Root => self.root.stamp(path),
            Target::SharedDir => Err(FsError::IsDirectory),
            Target::Mount(m, rest) => m.storage.stamp(&rest),
            Target::NoMount => Err(FsError::NotFound),
        }
    }

    fn open(&self, path: &str, follow: bool) -> Result<Box<dyn File>, FsError> {
        match self.target(path) {
            Target::Root => self.root.open(path, follow),
            Target::SharedDir => Err(FsError::IsDirectory),
            Target::Mount(m, rest) => m.storage.open(&rest, follow),
            Target::NoMount => Err(FsError::NotFound),
        }
    }

    fn list(&self, dir: &str) -> Result<Vec<DirEntry>, FsError> {
        match self.target(dir) {
            Target::Root if is_root(dir) && !self.mounts.is_empty() => {
                Ok(with_shared(self.root.list(dir)?))
            }
            Target::Root => self.root.list(dir),
            Target::SharedDir => Ok(self.shared_listing()),
            Target::Mount(m, rest) => m.storage.list(&rest),
            Target::NoMount => Err(FsError::NotFound),
        }
    }

    fn open_dir(&self, dir: &str) -> Result<Box<dyn Dir + '_>, FsError> {
        match self.target(dir) {
            Target::Root if is_root(dir) && !self.mounts.is_empty() => Ok(Box::new(RootDir {
                inner: self.root.open_dir(dir)?,
            })),
            Target::Root => self.root.open_dir(dir),
            Target::SharedDir => Ok(Box::new(SharedDir { mounted: self })),
            Target::Mount(m, rest) => m.storage.open_dir(&rest),
            Target::NoMount => Err(FsError::NotFound),
        }
    }

    fn create_dir(&self, path: &str) -> Result<(), FsError> {
        let (fs, path) = self.writable(path)?;
        fs.create_dir(&path)
    }

    fn write_new(&self, path: &str, bytes: &[u8], durable: bool) -> Result<(), FsError> {
        let (fs, path) = self.writable(path)?;
        fs.write_new(&path, bytes, durable)
    }

    fn write_at(&self, path: &str, offset: u64, bytes: &[u8]) -> Result<(), FsError> {
        let (fs, path) = self.writable(path)?;
        fs.write_at(&path, offset, bytes)
    }

    fn rename(&self, from: &str, to: &str) -> Result<(), FsError> {
        let (fs, from, to) = self.both(from, to)?;
        fs.rename(&from, &to)
    }

    fn hard_link(&self, from: &str, to: &str) -> Result<(), FsError> {
        let (fs, from, to) = self.both(from, to)?;
        fs.hard_link(&from, &to)
    }

    fn remove_file(&self, path: &str) -> Result<(), FsError> {
        let (fs, path) = self.writable(path)?;
        fs.remove_file(&path)
    }

    fn remove_dir(&self, path: &str) -> Result<(), FsError> {
        let (fs, path) = self.writable(path)?;
        fs.remove_dir(&path)
    }

    fn sync_dir(&self, dir: &str) -> Result<(), FsError> {
        match self.target(dir) {
            Target::Root => self.root.sync_dir(dir),
            // Nothing on disk to sync.
            Target::SharedDir => Ok(()),
            Target::Mount(m, rest) => m.storage.sync_dir(&rest),
            Target::NoMount => Err(FsError::NotFound),
        }
    }

    fn holds_mount(&self, path: &str) -> bool {
        match self.target(path) {
            Target::Root => is_root(path) && !self.mounts.is_empty(),
            Target::SharedDir => true,
            Target::Mount(_, rest) => rest.is_empty(),
            Target::NoMount => false,
        }
    }

    fn staging_dir(&self, target: &str) -> String {
        match self.target(target) {
            Target::Mount(m, _) => format!("{SHARED}/{}/{TEMP_DIR}", m.name),
            _ => TEMP_DIR.to_owned(),
        }
    }
}
