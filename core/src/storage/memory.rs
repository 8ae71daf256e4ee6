//! An in-memory adapter of the storage port, so the core's commands and
//! indexes run natively in tests, fast and with nothing on disk. It has
//! files and directories (no symbolic links); every change moves a clock by
//! one nanosecond, so stamps always differ.
//!
//! Long because it is a whole (small) file system: each primitive must
//! fail as a real one does, or the core's tests would pass against a lie.

use std::cell::{Cell, RefCell};
use std::collections::BTreeMap;
use std::rc::Rc;

use super::{Dir, DirEntry, Environment, File, FsError, Kind, Meta, Stamp, Storage};

#[derive(Clone, Debug)]
enum Node {
    File {
        bytes: Vec<u8>,
        /// A new number for every file written, as an inode would be.
        id: u64,
        modified: (u64, u32),
    },
    Dir {
        modified: (u64, u32),
    },
}

/// A file tree held in memory; the root always exists.
#[derive(Debug)]
pub struct MemoryStorage {
    nodes: RefCell<BTreeMap<String, Node>>,
    clock: Cell<(u64, u32)>,
    next_id: Cell<u64>,
    /// Bytes read from open files so far: what a test of reading less
    /// counts.
    bytes_read: Rc<Cell<u64>>,
    /// One file's path and the bytes read from it since it was named
    /// ([`Self::count_reads_of`]).
    watched: RefCell<Option<(String, Rc<Cell<u64>>)>>,
    /// Directories listed so far: what a test of listing less counts.
    listings: Cell<u64>,
    /// Names fold as on a case-insensitive file system ([`key`]).
    fold: bool,
    /// A directory whose listing fails (permission denied): what a test
    /// of a failure the caller must not drop sets.
    unlistable: RefCell<Option<String>>,
    /// Changes left before every change fails, as if the process had
    /// stopped there: what a test of each crash point sets.
    changes_left: Cell<Option<u64>>,
    /// Whether a change was refused since [`Self::stop_after`].
    stopped: Cell<bool>,
}

impl Default for MemoryStorage {
    fn default() -> Self {
        Self::new()
    }
}

/// A path as this adapter keys it ("" is the root), or why it cannot be
/// one. With `fold`, names compare as on a case-insensitive file system
/// that drops trailing dots and spaces (as Windows does): lowercased and
/// trimmed, so `A.md`, `a.md.` and `a.md ` are one file.
fn key(path: &str, fold: bool) -> Result<String, FsError> {
    let mut parts = Vec::new();
    for part in path.split('/') {
        match part {
            "" | "." => {}
            ".." => return Err(FsError::Escape),
            name if fold => parts.push(name.trim_end_matches([' ', '.']).to_lowercase()),
            name => parts.push(name.to_owned()),
        }
    }
    Ok(parts.join("/"))
}

fn parent(key: &str) -> &str {
    key.rsplit_once('/').map_or("", |(dir, _)| dir)
}

impl MemoryStorage {
    pub fn new() -> Self {
        let start = (1_700_000_000, 0);
        let nodes = BTreeMap::from([(String::new(), Node::Dir { modified: start })]);
        Self {
            nodes: RefCell::new(nodes),
            clock: Cell::new(start),
            next_id: Cell::new(1),
            bytes_read: Rc::default(),
            watched: RefCell::new(None),
            listings: Cell::new(0),
            fold: false,
            unlistable: RefCell::new(None),
            changes_left: Cell::new(None),
            stopped: Cell::new(false),
        }
    }

    /// A store whose names fold as on macOS's or Windows's file systems
    /// (case-insensitive, trailing dots and spaces dropped): what a test of
    /// names that only such a file system confuses runs on.
    pub fn folding_case() -> Self {
        Self {
            fold: true,
            ..Self::new()
        }
    }

    /// Bytes read from open files since the store was made.
    pub fn bytes_read(&self) -> u64 {
        self.bytes_read.get()
    }

    /// From now on, counts the bytes read from the file at `path` (in
    /// place of the file counted before), in what this returns: what a
    /// test of reading one file less counts, whatever else is read.
    pub fn count_reads_of(&self, path: &str) -> Rc<Cell<u64>> {
        let count = Rc::new(Cell::new(0));
        let key = key(path, self.fold).unwrap_or_default();
        *self.watched.borrow_mut() = Some((key, Rc::clone(&count)));
        count
    }

    /// Directories listed since the store was made.
    pub fn listings(&self) -> u64 {
        self.listings.get()
    }

    /// Makes listing the directory `dir` fail with [`FsError::Denied`]
    /// (`None`: every directory lists again).
    pub fn refuse_listing(&self, dir: Option<&str>) {
        *self.unlistable.borrow_mut() = dir.map(str::to_owned);
    }

    /// Lets `changes` more changes (a write, rename, link, removal or new
    /// directory) through, then fails every one with [`FsError::Other`]
    /// and leaves the files as they were: a process stopped after its
    /// `changes`-th change. `None` lets every change through again.
    pub fn stop_after(&self, changes: Option<u64>) {
        self.changes_left.set(changes);
        self.stopped.set(false);
    }

    /// Whether a change was refused since [`Self::stop_after`]: the
    /// process "stopped" before it finished.
    pub fn stopped(&self) -> bool {
        self.stopped.get()
    }

    /// Whether a change may go through (counted), or the process stopped.
    fn change(&self) -> Result<(), FsError> {
        match self.changes_left.get() {
            None => Ok(()),
            Some(0) => {
                self.stopped.set(true);
                Err(FsError::Other)
            }
            Some(n) => {
                self.changes_left.set(Some(n - 1));
                Ok(())
            }
        }
    }

    /// Moves the files' clock to `seconds`: what is written next is that
    /// young (the clock starts years before a test's "now").
    pub fn set_clock(&self, seconds: u64) {
        self.clock.set((seconds, 0));
    }

    /// Every file with its content, by path: what a test compares.
    pub fn files(&self) -> BTreeMap<String, Vec<u8>> {
        self.nodes
            .borrow()
            .iter()
            .filter_map(|(k, n)| match n {
                Node::File { bytes, .. } => Some((k.clone(), bytes.clone())),
                Node::Dir { .. } => None,
            })
            .collect()
    }

    fn tick(&self) -> (u64, u32) {
        let (s, n) = self.clock.get();
        let next = if n == 999_999_999 {
            (s + 1, 0)
        } else {
            (s, n + 1)
        };
        self.clock.set(next);
        next
    }

    /// Checks that the parent of `key` is a directory, and marks it changed.
    fn touch_parent(&self, nodes: &mut BTreeMap<String, Node>, key: &str) -> Result<(), FsError> {
        let now = self.tick();
        match nodes.get_mut(parent(key)) {
            Some(Node::Dir { modified }) => {
                *modified = now;
                Ok(())
            }
            Some(Node::File { .. }) => Err(FsError::NotADirectory),
            None => Err(FsError::NotFound),
        }
    }

    /// Fails as a real file system would when a component above `key` is a file.
    fn lookup<'a>(nodes: &'a BTreeMap<String, Node>, key: &str) -> Result<&'a Node, FsError> {
        if let Some(node) = nodes.get(key) {
            return Ok(node);
        }
        let mut dir = parent(key);
        loop {
            match nodes.get(dir) {
                Some(Node::File { .. }) => return Err(FsError::NotADirectory),
                Some(Node::Dir { .. }) => return Err(FsError::NotFound),
                None if dir.is_empty() => return Err(FsError::NotFound),
                None => dir = parent(dir),
            }
        }
    }

    fn new_id(&self) -> u64 {
        let id = self.next_id.get();
        self.next_id.set(id + 1);
        id
    }
}

fn meta(node: &Node) -> Meta {
    match node {
        Node::File {
            bytes, modified, ..
        } => Meta {
            kind: Kind::File,
            size: bytes.len() as u64,
            modified: Some(*modified),
            changed: Some(*modified),
        },
        Node::Dir { modified } => Meta {
            kind: Kind::Dir,
            size: 4096,
            modified: Some(*modified),
            changed: Some(*modified),
        },
    }
}

fn stamp(node: &Node) -> Stamp {
    let m = meta(node);
    Stamp {
        size: m.size,
        modified: m.modified,
        hash: match node {
            Node::File { id, .. } => Some((*id, 0)),
            Node::Dir { .. } => None,
        },
    }
}

impl Storage for MemoryStorage {
    fn stat(&self, path: &str, _follow: bool) -> Result<Meta, FsError> {
        let key = key(path, self.fold)?;
        Self::lookup(&self.nodes.borrow(), &key).map(meta)
    }

    fn stamp(&self, path: &str) -> Result<Stamp, FsError> {
        let key = key(path, self.fold)?;
        Self::lookup(&self.nodes.borrow(), &key).map(stamp)
    }

    fn open(&self, path: &str, _follow: bool) -> Result<Box<dyn File>, FsError> {
        let key = key(path, self.fold)?;
        match Self::lookup(&self.nodes.borrow(), &key)? {
            node @ Node::File { bytes, .. } => Ok(Box::new(OpenFile {
                bytes: bytes.clone(),
                stamp: stamp(node),
                read: Rc::clone(&self.bytes_read),
                watched: match &*self.watched.borrow() {
                    Some((watched, count)) if *watched == key => Some(Rc::clone(count)),
                    _ => None,
                },
            })),
            Node::Dir { .. } => Err(FsError::IsDirectory),
        }
    }

    fn list(&self, dir: &str) -> Result<Vec<DirEntry>, FsError> {
        self.listings.set(self.listings.get() + 1);
        let key = key(dir, self.fold)?;
        if self.unlistable.borrow().as_deref() == Some(key.as_str()) {
            return Err(FsError::Denied);
        }
        let nodes = self.nodes.borrow();
        match Self::lookup(&nodes, &key)? {
            Node::Dir { .. } => {}
            Node::File { .. } => return Err(FsError::NotADirectory),
        }
        let prefix = if key.is_empty() {
            String::new()
        } else {
            format!("{key}/")
        };
        Ok(nodes
            .range(prefix.clone()..)
            .take_while(|(k, _)| k.starts_with(&prefix))
            .filter(|(k, _)| !k.is_empty() && !k[prefix.len()..].contains('/'))
            .map(|(k, n)| DirEntry {
                name: k[prefix.len()..].to_owned(),
                kind: meta(n).kind,
            })
            .collect())
    }

    fn open_dir(&self, dir: &str) -> Result<Box<dyn Dir + '_>, FsError> {
        let key = key(dir, self.fold)?;
        match Self::lookup(&self.nodes.borrow(), &key)? {
            Node::Dir { .. } => Ok(Box::new(OpenDir { fs: self, key })),
            Node::File { .. } => Err(FsError::NotADirectory),
        }
    }

    fn create_dir(&self, path: &str) -> Result<(), FsError> {
        self.change()?;
        let key = key(path, self.fold)?;
        let mut nodes = self.nodes.borrow_mut();
        if nodes.contains_key(&key) {
            return Err(FsError::Exists);
        }
        self.touch_parent(&mut nodes, &key)?;
        let modified = self.tick();
        nodes.insert(key, Node::Dir { modified });
        Ok(())
    }

    fn write_new(&self, path: &str, bytes: &[u8], _durable: bool) -> Result<(), FsError> {
        self.change()?;
        let key = key(path, self.fold)?;
        let mut nodes = self.nodes.borrow_mut();
        if nodes.contains_key(&key) {
            return Err(FsError::Exists);
        }
        self.touch_parent(&mut nodes, &key)?;
        let node = Node::File {
            bytes: bytes.to_vec(),
            id: self.new_id(),
            modified: self.tick(),
        };
        nodes.insert(key, node);
        Ok(())
    }

    fn write_at(&self, path: &str, offset: u64, new: &[u8]) -> Result<(), FsError> {
        self.change()?;
        let key = key(path, self.fold)?;
        let now = self.tick();
        match self.nodes.borrow_mut().get_mut(&key) {
            Some(Node::File {
                bytes, modified, ..
            }) => {
                let at = usize::try_from(offset).map_err(|_| FsError::TooLarge)?;
                if bytes.len() < at + new.len() {
                    bytes.resize(at + new.len(), 0);
                }
                bytes[at..at + new.len()].copy_from_slice(new);
                *modified = now;
                Ok(())
            }
            Some(Node::Dir { .. }) => Err(FsError::IsDirectory),
            None => Err(FsError::NotFound),
        }
    }

    fn rename(&self, from: &str, to: &str) -> Result<(), FsError> {
        self.change()?;
        let (from, to) = (key(from, self.fold)?, key(to, self.fold)?);
        let mut nodes = self.nodes.borrow_mut();
        Self::lookup(&nodes, &from)?;
        if from.is_empty() || to.is_empty() || to.starts_with(&format!("{from}/")) {
            return Err(FsError::Other);
        }
        match (nodes.get(&from), nodes.get(&to)) {
            (Some(Node::File { .. }), Some(Node::Dir { .. })) => return Err(FsError::IsDirectory),
            (Some(Node::Dir { .. }), Some(Node::File { .. })) => {
                return Err(FsError::NotADirectory);
            }
            (Some(Node::Dir { .. }), Some(Node::Dir { .. }))
                if nodes.keys().any(|k| k.starts_with(&format!("{to}/"))) =>
            {
                return Err(FsError::Other);
            }
            _ => {}
        }
        self.touch_parent(&mut nodes, &to)?;
        self.touch_parent(&mut nodes, &from)?;
        let moved: Vec<String> = nodes
            .keys()
            .filter(|k| **k == from || k.starts_with(&format!("{from}/")))
            .cloned()
            .collect();
        for old in moved {
            let node = nodes.remove(&old).expect("listed just now");
            nodes.insert(format!("{to}{}", &old[from.len()..]), node);
        }
        Ok(())
    }

    fn hard_link(&self, from: &str, to: &str) -> Result<(), FsError> {
        self.change()?;
        let (from, to) = (key(from, self.fold)?, key(to, self.fold)?);
        let mut nodes = self.nodes.borrow_mut();
        let node = match Self::lookup(&nodes, &from)? {
            node @ Node::File { .. } => node.clone(),
            Node::Dir { .. } => return Err(FsError::Denied),
        };
        if nodes.contains_key(&to) {
            return Err(FsError::Exists);
        }
        self.touch_parent(&mut nodes, &to)?;
        nodes.insert(to, node);
        Ok(())
    }

    fn remove_file(&self, path: &str) -> Result<(), FsError> {
        self.change()?;
        let key = key(path, self.fold)?;
        let mut nodes = self.nodes.borrow_mut();
        match Self::lookup(&nodes, &key)? {
            Node::File { .. } => {}
            Node::Dir { .. } => return Err(FsError::IsDirectory),
        }
        nodes.remove(&key);
        self.touch_parent(&mut nodes, &key)
    }

    fn remove_dir(&self, path: &str) -> Result<(), FsError> {
        self.change()?;
        let key = key(path, self.fold)?;
        let mut nodes = self.nodes.borrow_mut();
        match Self::lookup(&nodes, &key)? {
            Node::Dir { .. } if !key.is_empty() => {}
            Node::Dir { .. } => return Err(FsError::Denied),
            Node::File { .. } => return Err(FsError::NotADirectory),
        }
        if nodes.keys().any(|k| k.starts_with(&format!("{key}/"))) {
            return Err(FsError::Other);
        }
        nodes.remove(&key);
        self.touch_parent(&mut nodes, &key)
    }

    fn sync_dir(&self, dir: &str) -> Result<(), FsError> {
        self.stat(dir, true).map(|_| ())
    }
}

/// A directory, by its key.
struct OpenDir<'a> {
    fs: &'a MemoryStorage,
    key: String,
}

impl OpenDir<'_> {
    fn child(&self, name: &str) -> String {
        if self.key.is_empty() {
            name.to_owned()
        } else {
            format!("{}/{name}", self.key)
        }
    }
}

impl Dir for OpenDir<'_> {
    fn list(&self) -> Result<Vec<DirEntry>, FsError> {
        self.fs.list(&self.key)
    }

    fn stat(&self, name: &str, follow: bool) -> Result<Meta, FsError> {
        self.fs.stat(&self.child(name), follow)
    }

    fn open(&self, name: &str) -> Result<Box<dyn File>, FsError> {
        self.fs.open(&self.child(name), false)
    }
}

/// A file as it was when opened.
struct OpenFile {
    bytes: Vec<u8>,
    stamp: Stamp,
    read: Rc<Cell<u64>>,
    watched: Option<Rc<Cell<u64>>>,
}

impl File for OpenFile {
    fn stat(&self) -> Result<Meta, FsError> {
        Ok(Meta {
            kind: Kind::File,
            size: self.stamp.size,
            modified: self.stamp.modified,
            changed: self.stamp.modified,
        })
    }

    fn stamp(&self) -> Result<Stamp, FsError> {
        Ok(self.stamp)
    }

    fn read_at(&self, offset: u64, len: u64) -> Result<(Vec<u8>, bool), FsError> {
        let start = usize::try_from(offset).map_or(self.bytes.len(), |o| o.min(self.bytes.len()));
        let end = usize::try_from(len).map_or(self.bytes.len(), |l| {
            start.saturating_add(l).min(self.bytes.len())
        });
        self.read.set(self.read.get() + (end - start) as u64);
        if let Some(watched) = &self.watched {
            watched.set(watched.get() + (end - start) as u64);
        }
        Ok((self.bytes[start..end].to_vec(), end == self.bytes.len()))
    }
}

/// A clock that stands still unless moved, randomness from a counter, and
/// the settings given. Its monotonic clock moves `step` nanoseconds each
/// time it is read (none unless set), so time-bounded slices end.
#[derive(Debug, Default)]
pub struct FixedEnvironment {
    pub now: Cell<u64>,
    pub step: Cell<u64>,
    monotonic: Cell<u64>,
    counter: Cell<u64>,
    vars: std::cell::RefCell<BTreeMap<String, String>>,
}

impl FixedEnvironment {
    /// A clock at `now` seconds.
    pub fn at(now: u64) -> Self {
        Self {
            now: Cell::new(now),
            ..Self::default()
        }
    }

    /// Sets (or with `None` removes) the host's setting `name`.
    pub fn set_var(&self, name: &str, value: Option<&str>) {
        let mut vars = self.vars.borrow_mut();
        match value {
            Some(value) => vars.insert(name.to_owned(), value.to_owned()),
            None => vars.remove(name),
        };
    }
}

impl Environment for FixedEnvironment {
    fn now_seconds(&self) -> u64 {
        self.now.get()
    }

    fn monotonic_nanos(&self) -> u64 {
        let now = self.monotonic.get() + self.step.get();
        self.monotonic.set(now);
        now
    }

    fn random_u64(&self) -> u64 {
        let n = self.counter.get().wrapping_add(0x9e37_79b9_7f4a_7c15);
        self.counter.set(n);
        n
    }

    fn var(&self, name: &str) -> Option<String> {
        self.vars.borrow().get(name).cloned()
    }
}
