//! The directory backend: the store is a host directory (and the shared and
//! extra directories granted beside it), each granted to the guest as a
//! wasmtime-wasi preopen, so cap-std resolves every path against it at the
//! moment of the call. Calls are serialised across processes by `flock`.

pub(crate) mod lock;
pub(crate) mod open_at;
pub(crate) mod store;
#[cfg(feature = "server")]
pub(crate) mod tokens;
#[cfg(feature = "mcp")]
pub(crate) mod watch;

use std::fs::File;
use std::io::ErrorKind;
use std::path::PathBuf;
use std::time::Duration;

use wasmtime_wasi::{FsPerms, WasiCtxBuilder};

use super::entries::{
    CopyError, Entry, Exported, HostEdit, Reserved, Skipped, check_history, check_import,
};
use super::{Backend, Grant, Granted, Instance, Outcome, guest_path};
#[cfg(feature = "mcp")]
use super::{CatchUp, Feed, FeedError};
use crate::error::{OpenError, ToolError, ToolErrorKind};
use lock::LockError;
use memcap_core::layout::{HISTORY_DIR, RESERVED, ROOT as GUEST_ROOT};
use store::{EmptyDir, Found};

/// `.memcap/lock` and `.memcap/tmp` by their names in `.memcap`: kept when a
/// copy replaces the store (they are held, not derived).
const LOCK_NAME: &str = "lock";
const TEMP_NAME: &str = "tmp";
use memcap_core::storage::mounts::Place;

/// A directory granted beside the root.
struct SharedDir {
    place: Place,
    name: String,
    path: PathBuf,
    read_only: bool,
}

pub(crate) struct DirectoryStore {
    root: PathBuf,
    shared: Vec<SharedDir>,
    /// Every lock file, in the one order.
    locks: Vec<File>,
    /// The writable shared directories' `.memcap/tmp`, emptied as the
    /// root's is.
    shared_temps: Vec<cap_std::fs::Dir>,
    /// `.memcap/tmp`, emptied after a call that stopped mid-write; `None`
    /// while memcap cannot write the store.
    temp: Option<cap_std::fs::Dir>,
    /// While the store's directory does not exist, reads are served from
    /// this empty directory and nothing is created.
    empty: Option<EmptyDir>,
    /// The longest a call waits for the locks: its time limit.
    lock_wait: Duration,
}

impl DirectoryStore {
    /// Opens the store at `root` (absolute) with its grants; creates a
    /// missing root when `create_root`. A call waits at most `lock_wait`
    /// for the store's locks.
    pub fn open(
        root: PathBuf,
        grants: &[Grant],
        create_root: bool,
        lock_wait: Duration,
    ) -> Result<Self, OpenError> {
        let mut locks = Vec::new();
        let mut shared = Vec::new();
        let mut shared_temps = Vec::new();
        for grant in grants {
            let path = std::path::absolute(&grant.target).map_err(|cause| OpenError::Root {
                path: grant.target.clone(),
                cause,
            })?;
            let prepared = match store::open_shared(&path, grant.read_only) {
                Err(OpenError::SharedMissing { path }) if grant.place == Place::Extra => {
                    return Err(OpenError::ExtraMissing { path });
                }
                other => other?,
            };
            locks.extend(prepared.lock);
            shared_temps.extend(prepared.temp);
            shared.push(SharedDir {
                place: grant.place,
                name: grant.name.clone(),
                path,
                read_only: grant.read_only,
            });
        }
        let found = match store::open(&root)? {
            Found::Missing if create_root => Found::Present(store::create(&root)?),
            found => found,
        };
        let (temp, empty) = match found {
            Found::Present(prepared) => {
                locks.extend(prepared.lock);
                (prepared.temp, None)
            }
            Found::Missing => {
                let empty = EmptyDir::new().map_err(|cause| OpenError::Root {
                    path: root.clone(),
                    cause,
                })?;
                (None, Some(empty))
            }
        };
        lock::sort(&mut locks);
        Ok(Self {
            root,
            shared,
            locks,
            shared_temps,
            temp,
            empty,
            lock_wait,
        })
    }

    pub fn root(&self) -> &std::path::Path {
        &self.root
    }

    fn open_root(&self) -> Result<cap_std::fs::Dir, CopyError> {
        cap_std::fs::Dir::open_ambient_dir(&self.root, cap_std::ambient_authority()).map_err(io)
    }

    /// Creates the store's directory for its first write; from then on the
    /// instance serves it instead of the empty stand-in. The locks held are
    /// let go and taken again with the new one, in the one order.
    fn create_store(&mut self) -> Result<(), ToolError> {
        let prepared = store::create(&self.root).map_err(|_| {
            ToolError::new(
                ToolErrorKind::Io,
                "Could not create the memory directory, so nothing was written. \
                 The host must let memcap create it, or create it first.",
            )
        })?;
        if let Some(file) = prepared.lock {
            lock::unlock_all(&self.locks);
            self.locks.push(file);
            lock::sort(&mut self.locks);
            lock::lock_all(&self.locks, self.lock_wait).map_err(|e| self.lock_failed(e))?;
        }
        self.temp = prepared.temp;
        self.empty = None;
        Ok(())
    }
}

fn io(e: std::io::Error) -> CopyError {
    CopyError::Io(e.to_string())
}

impl DirectoryStore {
    fn lock_failed(&self, e: LockError) -> ToolError {
        match e {
            LockError::Busy => ToolError::new(
                ToolErrorKind::TimedOut,
                format!(
                    "Another program held the memory directory for longer than {} s, \
                     memcap's time limit per call, so this command did not run and \
                     nothing was changed. Try again in a moment.",
                    self.lock_wait.as_secs_f32()
                ),
            ),
            LockError::Io => ToolError::new(
                ToolErrorKind::Io,
                "Could not lock the memory directory; nothing was changed. Try again.",
            ),
        }
    }
}

impl Backend for DirectoryStore {
    fn begin(&mut self, writes: bool) -> Result<Instance, ToolError> {
        lock::lock_all(&self.locks, self.lock_wait).map_err(|e| self.lock_failed(e))?;
        // A missing store is created by its first write, and served as soon
        // as somebody else creates it.
        if self.empty.is_some() && (writes || self.root.is_dir()) {
            if let Err(e) = self.create_store() {
                lock::unlock_all(&self.locks);
                return Err(e);
            }
            return Ok(Instance::stale());
        }
        Ok(Instance::default())
    }

    fn end(&mut self, outcome: Outcome) -> Result<Instance, ToolError> {
        if outcome == Outcome::Stopped {
            // It may have stopped mid-write; the lock is still held, so no
            // other write is in flight and its temp file can go.
            for temp in self.temp.iter().chain(&self.shared_temps) {
                let _ = store::remove_leftovers(temp);
            }
        }
        lock::unlock_all(&self.locks);
        Ok(Instance::default())
    }

    fn export(&mut self, reserved: Reserved) -> Result<Exported, CopyError> {
        if self.empty.is_some() {
            return Ok(Exported::default());
        }
        let root = self.open_root()?;
        let mut out = Exported::default();
        let mut skip = |path: String, why: String| out.skipped.push(Skipped { path, why });
        let mut entries = Vec::new();
        let mut stack = vec![String::new()];
        while let Some(dir_path) = stack.pop() {
            let dir = if dir_path.is_empty() {
                root.try_clone().map_err(io)?
            } else {
                match root.open_dir(&dir_path) {
                    Ok(dir) => dir,
                    Err(e) => {
                        skip(dir_path, format!("the directory could not be read: {e}"));
                        continue;
                    }
                }
            };
            let listing = match dir.entries() {
                Ok(listing) => listing,
                Err(e) if !dir_path.is_empty() => {
                    skip(dir_path, format!("the directory could not be listed: {e}"));
                    continue;
                }
                Err(e) => return Err(io(e)),
            };
            for entry in listing {
                let entry = entry.map_err(io)?;
                let name = entry.file_name();
                let shown = |name: &str| {
                    if dir_path.is_empty() {
                        name.to_owned()
                    } else {
                        format!("{dir_path}/{name}")
                    }
                };
                let Some(name) = name.to_str() else {
                    skip(
                        shown(&name.to_string_lossy()),
                        "its name is not UTF-8 (memcap never lists it)".into(),
                    );
                    continue;
                };
                let path = shown(name);
                if !reserved.takes(&path) {
                    continue;
                }
                let kind = entry.file_type().map_err(io)?;
                if kind.is_dir() {
                    entries.push(Entry::Dir(path.clone()));
                    stack.push(path);
                } else if kind.is_file() {
                    match root.read(&path) {
                        Ok(bytes) => entries.push(Entry::File(path, bytes)),
                        Err(e) => skip(path, format!("it could not be read: {e}")),
                    }
                } else if kind.is_symlink() {
                    // Links are not memory: the guest never follows one out.
                    skip(path, "a symbolic link (links are not copied)".into());
                } else {
                    skip(
                        path,
                        "not a regular file or directory (a FIFO, socket or device)".into(),
                    );
                }
            }
        }
        entries.sort_by(|a, b| a.path().cmp(b.path()));
        out.entries = entries;
        out.skipped.sort_by(|a, b| a.path.cmp(&b.path));
        Ok(out)
    }

    fn read_file(&mut self, path: &str) -> Result<Option<Vec<u8>>, CopyError> {
        if self.empty.is_some() {
            return Ok(None);
        }
        match self.open_root()?.read(path) {
            Ok(bytes) => Ok(Some(bytes)),
            Err(e) if matches!(e.kind(), ErrorKind::NotFound | ErrorKind::IsADirectory) => Ok(None),
            Err(e) => Err(io(e)),
        }
    }

    fn edit(&mut self, path: &str, edit: HostEdit<'_>) -> Result<(), CopyError> {
        let root = self.open_root()?;
        let parent = || match path.rsplit_once('/') {
            Some((parent, _)) => root.create_dir_all(parent),
            None => Ok(()),
        };
        match edit {
            HostEdit::Write(bytes) => parent().and_then(|()| root.write(path, bytes)),
            HostEdit::MakeDir => root.create_dir_all(path),
            HostEdit::Modified(time) => root
                .open_with(path, cap_std::fs::OpenOptions::new().write(true))
                .and_then(|file| file.into_std().set_modified(time)),
            HostEdit::Remove => match root.symlink_metadata(path).map_err(io)?.is_dir() {
                true => root.remove_dir_all(path),
                false => root.remove_file(path),
            },
            HostEdit::RenameTo(to) => root.rename(path, &root, to),
        }
        .map_err(io)
    }

    fn import(
        &mut self,
        entries: &[Entry],
        history: &[Entry],
        replace: bool,
    ) -> Result<(), CopyError> {
        check_import(entries)?;
        check_history(history, replace)?;
        let root = self.open_root()?;
        let mut present = Vec::new();
        for entry in root.entries().map_err(io)? {
            let name = entry.map_err(io)?.file_name();
            if name != RESERVED {
                present.push(name);
            }
        }
        if !present.is_empty() && !replace {
            return Err(CopyError::NotEmpty);
        }
        if !history.is_empty() {
            let kept = match root.read_dir(HISTORY_DIR) {
                Ok(mut listing) => listing.next().is_some(),
                Err(e) if e.kind() == ErrorKind::NotFound => false,
                Err(e) => return Err(io(e)),
            };
            if kept {
                return Err(CopyError::HasHistory);
            }
        }
        if replace {
            for name in present {
                match root.symlink_metadata(&name).map_err(io)?.is_dir() {
                    true => root.remove_dir_all(&name).map_err(io)?,
                    false => root.remove_file(&name).map_err(io)?,
                }
            }
            // The derived state goes too, so it is rebuilt from what lands;
            // the version history stays (it cannot be rebuilt, and it is
            // what undoes this).
            let reserved = root.open_dir(RESERVED).map_err(io)?;
            let history = HISTORY_DIR.rsplit_once('/').map_or(HISTORY_DIR, |(_, n)| n);
            for entry in reserved.entries().map_err(io)? {
                let name = entry.map_err(io)?.file_name();
                if name == LOCK_NAME || name == TEMP_NAME || name == history {
                    continue;
                }
                match reserved.symlink_metadata(&name).map_err(io)?.is_dir() {
                    true => reserved.remove_dir_all(&name).map_err(io)?,
                    false => reserved.remove_file(&name).map_err(io)?,
                }
            }
        }
        for entry in entries.iter().chain(history) {
            match entry {
                Entry::Dir(path) => root.create_dir_all(path).map_err(io)?,
                Entry::File(path, data) => {
                    if let Some((parent, _)) = path.rsplit_once('/') {
                        root.create_dir_all(parent).map_err(io)?;
                    }
                    root.write(path, data).map_err(io)?;
                }
            }
        }
        Ok(())
    }

    fn grant(&self, wasi: &mut WasiCtxBuilder) -> wasmtime::Result<Granted> {
        let (dir, perms) = match &self.empty {
            Some(empty) => (empty.path(), FsPerms::ReadOnly),
            None => (self.root.as_path(), FsPerms::ReadWrite),
        };
        wasi.preopened_dir(dir, GUEST_ROOT, perms)?;
        for shared in &self.shared {
            let perms = if shared.read_only {
                FsPerms::ReadOnly
            } else {
                FsPerms::ReadWrite
            };
            wasi.preopened_dir(&shared.path, guest_path(shared.place, &shared.name), perms)?;
        }
        Ok(Granted::Preopens)
    }

    #[cfg(feature = "mcp")]
    fn start_feed(&mut self, _: Box<dyn CatchUp>) -> Result<Box<dyn Feed>, FeedError> {
        let mut grants = vec![(GUEST_ROOT.to_owned(), self.root.clone())];
        grants.extend(
            self.shared
                .iter()
                .map(|s| (guest_path(s.place, &s.name), s.path.clone())),
        );
        Ok(Box::new(watch::Watcher::start(grants)?))
    }
}
