//! Directories mounted into the store: a [`Storage`] that serves
//! `shared/NAME/...` and `extra/NAME/...` from directories the host granted
//! separately (each its own preopen) and everything else from the root.
//! Shared directories are memory several users keep (read-write or
//! read-only); extra directories are reference material the agent may
//! search and read but never change (the `custom` search source).
//!
//! `shared` and `extra` are directories of mount points that exist only
//! here, and only while they hold a mount: their listings are the mounts,
//! and neither they nor a mount point can be created, removed or renamed
//! ([`FsError::MountPoint`]). Nothing moves between two grants
//! ([`FsError::CrossMount`]): each is its own file system as far as the
//! guest can tell. Writes into a shared directory are staged in its own
//! `.memcap/tmp`, so they are renamed into place within one grant.

use super::{Dir, DirEntry, File, FsError, Grant, Kind, Meta, Stamp, Storage};
use crate::layout::{EXTRA, SHARED, TEMP_DIR};

/// Where a mount appears, directly under the root.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Place {
    /// `shared/NAME`: memory shared with other users.
    Shared,
    /// `extra/NAME`: read-only reference material.
    Extra,
}

impl Place {
    const ALL: [Place; 2] = [Place::Shared, Place::Extra];

    /// The directory under the root that holds this place's mounts.
    pub fn dir(self) -> &'static str {
        match self {
            Place::Shared => SHARED,
            Place::Extra => EXTRA,
        }
    }
}

/// One mounted directory: where it appears, its name there and its storage.
pub struct Mount<'a> {
    pub place: Place,
    pub name: &'a str,
    pub storage: &'a dyn Storage,
    /// False for a read-only grant (always for [`Place::Extra`]): every
    /// change is refused as [`FsError::ReadOnly`] before it reaches the host.
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
    /// `shared` or `extra` itself, while it holds mounts.
    PlaceDir(Place),
    /// `PLACE/NAME` (rest "") or a path inside it.
    Mount(&'m Mount<'a>, String),
    /// A name under a place that is not a mount: a place holds only them.
    NoMount,
}

impl<'a> Mounted<'a> {
    pub fn new(root: &'a dyn Storage, mut mounts: Vec<Mount<'a>>) -> Self {
        for mount in &mut mounts {
            mount.writable &= mount.place == Place::Shared;
        }
        Self { root, mounts }
    }

    /// Whether `place` holds a mount (and so stands for its mounts).
    fn has(&self, place: Place) -> bool {
        self.mounts.iter().any(|m| m.place == place)
    }

    /// The places with mounts.
    fn places(&self) -> impl Iterator<Item = Place> + '_ {
        Place::ALL.into_iter().filter(|p| self.has(*p))
    }

    fn place_named(&self, name: &str) -> Option<Place> {
        self.places().find(|p| p.dir() == name)
    }

    fn target(&self, path: &str) -> Target<'_, 'a> {
        if self.mounts.is_empty() {
            return Target::Root;
        }
        let mut parts = path.split('/').filter(|p| !p.is_empty() && *p != ".");
        let Some(place) = parts.next().and_then(|first| self.place_named(first)) else {
            return Target::Root;
        };
        let Some(name) = parts.next() else {
            return Target::PlaceDir(place);
        };
        match self
            .mounts
            .iter()
            .find(|m| m.place == place && m.name == name)
        {
            Some(mount) => Target::Mount(mount, parts.collect::<Vec<_>>().join("/")),
            None => Target::NoMount,
        }
    }

    /// The storage a change at `path` goes to, and the path there; refuses
    /// a mount point, a place and a read-only grant.
    fn writable(&self, path: &str) -> Result<(&dyn Storage, String), FsError> {
        match self.target(path) {
            Target::Root => Ok((self.root, path.to_owned())),
            Target::PlaceDir(_) => Err(FsError::MountPoint),
            // A place holds the mounts and nothing else.
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

    /// A hash of the mounts' places and names (of `place` only, when
    /// given): what a stamp carries so that other grants look changed.
    fn grants_hash(&self, place: Option<Place>) -> u64 {
        let mut names: Vec<String> = self
            .mounts
            .iter()
            .filter(|m| place.is_none_or(|p| p == m.place))
            .map(|m| format!("{}/{}", m.place.dir(), m.name))
            .collect();
        names.sort_unstable();
        crate::graph::names::fnv1a(names.join("\n").as_bytes())
    }

    /// A place's stamp: fixed while an instance lives (its mounts do not
    /// change), and another for another set of mounts, so a catalog saved
    /// under other grants lists the place again. A time long past, so it
    /// is trusted at once.
    fn place_meta(&self, place: Place) -> Meta {
        let hash = self.grants_hash(Some(place));
        let at = Some((hash % (1 << 30), (hash >> 32) as u32 % 1_000_000_000));
        Meta {
            kind: Kind::Dir,
            size: 0,
            modified: at,
            changed: at,
        }
    }

    /// The root's stamp with the grants in it: the places appear in its
    /// listing, so a catalog saved under other grants must list it again
    /// (its time stays the directory's, for the rule on young stamps).
    fn root_meta(&self, mut meta: Meta) -> Meta {
        if !self.mounts.is_empty() {
            let hash = self.grants_hash(None);
            let mix = |(s, n): (u64, u32)| (s, ((u64::from(n) ^ hash) % 1_000_000_000) as u32);
            // The change time where the host gives one, else the modified.
            match meta.changed {
                Some(at) => meta.changed = Some(mix(at)),
                None => meta.modified = meta.modified.map(mix),
            }
        }
        meta
    }

    fn listing(&self, place: Place) -> Vec<DirEntry> {
        self.mounts
            .iter()
            .filter(|m| m.place == place)
            .map(|m| DirEntry {
                name: m.name.to_owned(),
                kind: Kind::Dir,
            })
            .collect()
    }

    /// The root's own names, with each place that holds mounts standing for
    /// them whatever the root holds under that name.
    fn with_places(&self, mut entries: Vec<DirEntry>) -> Vec<DirEntry> {
        entries.retain(|e| self.place_named(&e.name).is_none());
        entries.extend(self.places().map(|p| DirEntry {
            name: p.dir().to_owned(),
            kind: Kind::Dir,
        }));
        entries
    }
}

/// The listing of a place, as an open directory.
struct PlaceDir<'m, 'a> {
    mounted: &'m Mounted<'a>,
    place: Place,
}

impl Dir for PlaceDir<'_, '_> {
    fn list(&self) -> Result<Vec<DirEntry>, FsError> {
        Ok(self.mounted.listing(self.place))
    }
    fn stat(&self, name: &str, follow: bool) -> Result<Meta, FsError> {
        self.mounted
            .stat(&format!("{}/{name}", self.place.dir()), follow)
    }
    fn open(&self, name: &str) -> Result<Box<dyn File>, FsError> {
        self.mounted
            .open(&format!("{}/{name}", self.place.dir()), false)
    }
}

/// The root opened as a directory: its own names, with the places standing
/// for their mounts.
struct RootDir<'m, 'a> {
    mounted: &'m Mounted<'a>,
    inner: Box<dyn Dir + 'm>,
}

impl Dir for RootDir<'_, '_> {
    fn list(&self) -> Result<Vec<DirEntry>, FsError> {
        Ok(self.mounted.with_places(self.inner.list()?))
    }
    fn stat(&self, name: &str, follow: bool) -> Result<Meta, FsError> {
        if let Some(place) = self.mounted.place_named(name) {
            return Ok(self.mounted.place_meta(place));
        }
        self.inner.stat(name, follow)
    }
    fn open(&self, name: &str) -> Result<Box<dyn File>, FsError> {
        if self.mounted.place_named(name).is_some() {
            return Err(FsError::IsDirectory);
        }
        self.inner.open(name)
    }
}

fn is_root(path: &str) -> bool {
    path.split('/').all(|p| p.is_empty() || p == ".")
}

impl Storage for Mounted<'_> {
    fn stat(&self, path: &str, follow: bool) -> Result<Meta, FsError> {
        match self.target(path) {
            Target::Root if is_root(path) => Ok(self.root_meta(self.root.stat(path, follow)?)),
            Target::Root => self.root.stat(path, follow),
            Target::PlaceDir(place) => Ok(self.place_meta(place)),
            Target::Mount(m, rest) => m.storage.stat(&rest, follow),
            Target::NoMount => Err(FsError::NotFound),
        }
    }

    fn stamp(&self, path: &str) -> Result<Stamp, FsError> {
        match self.target(path) {
            Target::Root => self.root.stamp(path),
            Target::PlaceDir(_) => Err(FsError::IsDirectory),
            Target::Mount(m, rest) => m.storage.stamp(&rest),
            Target::NoMount => Err(FsError::NotFound),
        }
    }

    fn open(&self, path: &str, follow: bool) -> Result<Box<dyn File>, FsError> {
        match self.target(path) {
            Target::Root => self.root.open(path, follow),
            Target::PlaceDir(_) => Err(FsError::IsDirectory),
            Target::Mount(m, rest) => m.storage.open(&rest, follow),
            Target::NoMount => Err(FsError::NotFound),
        }
    }

    fn list(&self, dir: &str) -> Result<Vec<DirEntry>, FsError> {
        match self.target(dir) {
            Target::Root if is_root(dir) && !self.mounts.is_empty() => {
                Ok(self.with_places(self.root.list(dir)?))
            }
            Target::Root => self.root.list(dir),
            Target::PlaceDir(place) => Ok(self.listing(place)),
            Target::Mount(m, rest) => m.storage.list(&rest),
            Target::NoMount => Err(FsError::NotFound),
        }
    }

    fn open_dir(&self, dir: &str) -> Result<Box<dyn Dir + '_>, FsError> {
        match self.target(dir) {
            Target::Root if is_root(dir) && !self.mounts.is_empty() => Ok(Box::new(RootDir {
                mounted: self,
                inner: self.root.open_dir(dir)?,
            })),
            Target::Root => self.root.open_dir(dir),
            Target::PlaceDir(place) => Ok(Box::new(PlaceDir {
                mounted: self,
                place,
            })),
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

    fn write_new_stamped(&self, path: &str, bytes: &[u8], durable: bool) -> Result<Stamp, FsError> {
        let (fs, path) = self.writable(path)?;
        fs.write_new_stamped(&path, bytes, durable)
    }

    fn write_at(&self, path: &str, offset: u64, bytes: &[u8]) -> Result<(), FsError> {
        let (fs, path) = self.writable(path)?;
        fs.write_at(&path, offset, bytes)
    }

    fn write_at_stat(&self, path: &str, offset: u64, bytes: &[u8]) -> Result<Meta, FsError> {
        let (fs, path) = self.writable(path)?;
        fs.write_at_stat(&path, offset, bytes)
    }

    fn open_rw(&self, path: &str) -> Result<Option<Box<dyn File>>, FsError> {
        let (fs, path) = self.writable(path)?;
        fs.open_rw(&path)
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
            Target::PlaceDir(_) => Ok(()),
            Target::Mount(m, rest) => m.storage.sync_dir(&rest),
            Target::NoMount => Err(FsError::NotFound),
        }
    }

    fn holds_mount(&self, path: &str) -> bool {
        match self.target(path) {
            Target::Root => is_root(path) && !self.mounts.is_empty(),
            Target::PlaceDir(_) => true,
            Target::Mount(_, rest) => rest.is_empty(),
            Target::NoMount => false,
        }
    }

    fn grant(&self, path: &str) -> Grant {
        match self.target(path) {
            Target::Mount(m, _) if m.place == Place::Extra => Grant::Extra,
            Target::Mount(..) => Grant::Shared,
            _ => Grant::Root,
        }
    }

    fn staging_dir(&self, target: &str) -> String {
        match self.target(target) {
            Target::Mount(m, _) => format!("{}/{}/{TEMP_DIR}", m.place.dir(), m.name),
            _ => TEMP_DIR.to_owned(),
        }
    }
}
