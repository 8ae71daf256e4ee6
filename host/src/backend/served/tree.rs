//! One namespace's files in memory: directories, files and their hard
//! links by inode, resolved as WASI resolves paths under a preopen (no
//! absolute paths, no `..` above the base, no symbolic links: none exist),
//! with the paths each change touched, for the backend to save.

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};

use super::Code;

mod paged;
mod sparse;

pub(crate) type Ino = u64;

/// The root directory's inode in every tree.
pub(crate) const ROOT_INO: Ino = 1;

/// Nanoseconds since the Unix epoch.
pub(crate) type Nanos = i64;

pub(crate) fn now() -> Nanos {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos() as Nanos)
}

#[derive(Clone, Debug)]
pub(crate) enum Body {
    File(Vec<u8>),
    /// A file some or all of whose pages are still in the database (see
    /// [`paged`]): read when the guest first needs them.
    Paged(Box<paged::Partial>),
    Dir(BTreeMap<String, Ino>),
}

#[derive(Clone, Debug)]
pub(crate) struct Node {
    pub body: Body,
    pub mtime: Nanos,
    pub ctime: Nanos,
    /// Where the node is linked: (parent directory, name). A directory has
    /// one; a file one per hard link; the root none.
    pub links: Vec<(Ino, String)>,
}

impl Node {
    pub fn is_dir(&self) -> bool {
        matches!(self.body, Body::Dir(_))
    }

    pub fn size(&self) -> u64 {
        match &self.body {
            Body::File(data) => data.len() as u64,
            Body::Paged(p) => p.size(),
            // What Linux file systems report, and what listings print.
            Body::Dir(_) => 4096,
        }
    }
}

/// A saved entry: one path of the tree, as a backend stores it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Row {
    /// Relative to the namespace root; "" is the root.
    pub path: String,
    pub ino: Ino,
    pub mtime: Nanos,
    pub ctime: Nanos,
    /// A file's size; `None` for a directory.
    pub size: Option<u64>,
}

/// Files are saved in pages of this many bytes, so a change (an append to
/// the journal above all) rewrites only the pages it touched.
pub(crate) const PAGE: u64 = 16 * 1024;

/// What changed since the last [`Tree::take_dirty`], for a backend to save.
#[derive(Clone, Debug, Default)]
pub(crate) struct Dirty {
    /// Paths whose saved row no longer matches the tree (changed, added or
    /// gone).
    pub paths: BTreeSet<String>,
    /// Pages of files written, by inode.
    pub pages: BTreeMap<Ino, BTreeSet<u64>>,
    /// Files cut shorter, whose pages past the end must go.
    pub shrunk: BTreeSet<Ino>,
    /// Files whose last link went: their pages go.
    pub gone: BTreeSet<Ino>,
}

#[derive(Clone, Debug)]
pub(crate) struct Tree {
    nodes: HashMap<Ino, Node>,
    next_ino: Ino,
    dirty: Dirty,
    /// Only the rows read so far are here (see [`sparse`]).
    sparse: bool,
    /// Of a sparse tree: files read at one path that have others too.
    shared: HashSet<Ino>,
    /// Of a sparse tree: the paths whose rows were asked for.
    asked: HashSet<String>,
}

impl Tree {
    /// An empty namespace: the root directory alone.
    pub fn empty() -> Self {
        let t = now();
        let root = Node {
            body: Body::Dir(BTreeMap::new()),
            mtime: t,
            ctime: t,
            links: Vec::new(),
        };
        let mut dirty = Dirty::default();
        dirty.paths.insert(String::new());
        Self {
            nodes: HashMap::from([(ROOT_INO, root)]),
            next_ino: ROOT_INO + 1,
            dirty,
            sparse: false,
            shared: HashSet::new(),
            asked: HashSet::new(),
        }
    }

    #[cfg_attr(not(feature = "database"), allow(dead_code))]
    /// The tree the rows describe, parents before children or not; rows
    /// whose parent is missing or a file are left out. A file's bytes are
    /// `data`'s for its inode, cut or zero-filled to the row's size; with
    /// `paged`, a file not in `data` is left in the database instead.
    /// `next_ino` is the first inode number no row uses.
    pub fn from_rows(
        rows: impl IntoIterator<Item = Row>,
        mut data: HashMap<Ino, Vec<u8>>,
        next_ino: Ino,
        paged: bool,
    ) -> Self {
        let mut rows: Vec<Row> = rows.into_iter().collect();
        // Parents before children; each path's depth counted once (counted
        // in every comparison, the sort took most of a 20,000-row load).
        rows.sort_by_cached_key(|row| depth(&row.path));
        let mut tree = Self::empty();
        tree.nodes.reserve(rows.len());
        tree.dirty = Dirty::default();
        tree.next_ino = next_ino.max(ROOT_INO + 1);
        let mut by_path: HashMap<String, Ino> = HashMap::from([(String::new(), ROOT_INO)]);
        for row in rows {
            if row.path.is_empty() {
                let root = tree.nodes.get_mut(&ROOT_INO).expect("root");
                root.mtime = row.mtime;
                root.ctime = row.ctime;
                continue;
            }
            let (parent_path, name) = row.path.rsplit_once('/').unwrap_or(("", &row.path));
            let Some(&parent) = by_path.get(parent_path) else {
                continue;
            };
            if row.ino <= ROOT_INO || !tree.node(parent).is_some_and(Node::is_dir) {
                continue;
            }
            let body = || match row.size {
                Some(size) => match data.remove(&row.ino) {
                    None if paged && size > 0 => Body::paged(size),
                    bytes => {
                        let mut bytes = bytes.unwrap_or_default();
                        bytes.resize(size as usize, 0);
                        Body::File(bytes)
                    }
                },
                None => Body::Dir(BTreeMap::new()),
            };
            if !tree.place(parent, name, &row, body) {
                continue;
            }
            // Only a directory is anyone's parent.
            if row.size.is_none() {
                by_path.insert(row.path, row.ino);
            }
        }
        tree
    }

    /// Links the node `row` names at `name` in `parent`: a new node with
    /// `body`, or a further hard link of a file already placed. `false`
    /// when the row names a node placed already some other way.
    fn place(&mut self, parent: Ino, name: &str, row: &Row, body: impl FnOnce() -> Body) -> bool {
        let link = (parent, name.to_owned());
        match self.nodes.get_mut(&row.ino) {
            Some(node) if !node.is_dir() && row.size.is_some() => node.links.push(link),
            Some(_) => return false,
            None => {
                let node = Node {
                    body: body(),
                    mtime: row.mtime,
                    ctime: row.ctime,
                    links: vec![link],
                };
                self.nodes.insert(row.ino, node);
            }
        }
        if let Some(Body::Dir(entries)) = self.nodes.get_mut(&parent).map(|n| &mut n.body) {
            entries.insert(name.to_owned(), row.ino);
        }
        self.next_ino = self.next_ino.max(row.ino + 1);
        true
    }

    pub fn node(&self, ino: Ino) -> Option<&Node> {
        self.nodes.get(&ino)
    }

    #[cfg_attr(not(feature = "database"), allow(dead_code))]
    pub fn next_ino(&self) -> Ino {
        self.next_ino
    }

    /// Every row of the tree (for copying a whole store out).
    pub fn rows(&self) -> Vec<Row> {
        let mut out = Vec::new();
        let mut stack = vec![(ROOT_INO, String::new())];
        while let Some((ino, path)) = stack.pop() {
            if let Some(row) = self.row(&path) {
                out.push(row);
            }
            if let Some(Body::Dir(entries)) = self.node(ino).map(|n| &n.body) {
                stack.extend(
                    entries
                        .iter()
                        .map(|(name, &child)| (child, join(&path, name))),
                );
            }
        }
        out
    }

    /// Makes the directory or file at `path` (relative to the root, no
    /// `.` or `..`), with its parents; a file gets `data`.
    pub fn put(&mut self, path: &str, data: Option<&[u8]>) -> Result<(), Code> {
        let mut dir = ROOT_INO;
        let parts: Vec<&str> = path.split('/').collect();
        for (i, part) in parts.iter().enumerate() {
            if part.is_empty() || *part == "." || *part == ".." || part.contains('\0') {
                return Err(Code::Invalid);
            }
            let last = i + 1 == parts.len();
            match (self.child(dir, part)?, last, data) {
                (Some(ino), false, _) | (Some(ino), true, None) => {
                    if !self.node(ino).is_some_and(Node::is_dir) {
                        return Err(Code::NotDirectory);
                    }
                    dir = ino;
                }
                (Some(_), true, Some(_)) => return Err(Code::Exist),
                (None, true, Some(bytes)) => {
                    let ino = self.create_file(dir, part)?;
                    self.write(ino, 0, bytes, u64::MAX)?;
                }
                (None, _, _) => dir = self.create_dir(dir, part)?,
            }
        }
        Ok(())
    }

    /// Sets a file's or directory's modification time.
    pub fn set_modified(&mut self, ino: Ino, mtime: Nanos) -> Result<(), Code> {
        self.nodes.get_mut(&ino).ok_or(Code::NoEntry)?.mtime = mtime;
        self.mark(ino);
        Ok(())
    }

    /// Renames `from` to `to` (both relative to the root), as `rename`.
    pub fn rename_path(&mut self, from: &str, to: &str) -> Result<(), Code> {
        let (from_dir, from_name) = self.resolve_parent(ROOT_INO, from)?;
        let (to_dir, to_name) = self.resolve_parent(ROOT_INO, to)?;
        match (from_name, to_name) {
            (Some(a), Some(b)) => self.rename(from_dir, &a, to_dir, &b),
            _ => Err(Code::Invalid),
        }
    }

    /// Removes the file or the directory tree at `path` (relative to the
    /// root).
    pub fn remove_all(&mut self, path: &str) -> Result<(), Code> {
        let (dir, name) = self.resolve_parent(ROOT_INO, path)?;
        let name = name.ok_or(Code::Invalid)?;
        let ino = self.child(dir, &name)?.ok_or(Code::NoEntry)?;
        let mut stack = vec![(dir, name, ino, false)];
        while let Some((parent, name, ino, emptied)) = stack.pop() {
            let children: Vec<(String, Ino)> = match &self.node(ino).map(|n| &n.body) {
                Some(Body::Dir(entries)) if !emptied => {
                    entries.iter().map(|(n, &i)| (n.clone(), i)).collect()
                }
                _ => {
                    self.detach(parent, &name, ino, now());
                    continue;
                }
            };
            stack.push((parent, name, ino, true));
            stack.extend(children.into_iter().map(|(n, i)| (ino, n, i, false)));
        }
        Ok(())
    }

    /// The row saved for `path` now, or `None` where nothing is there.
    pub fn row(&self, path: &str) -> Option<Row> {
        let ino = self.lookup_path(path)?;
        let node = self.node(ino)?;
        Some(Row {
            path: path.to_owned(),
            ino,
            mtime: node.mtime,
            ctime: node.ctime,
            size: (!node.is_dir()).then(|| node.size()),
        })
    }

    /// The paths changed since the last call, now forgotten.
    /// The entries directly in the root.
    pub fn top_names(&self) -> Vec<String> {
        match self.node(ROOT_INO).map(|n| &n.body) {
            Some(Body::Dir(entries)) => entries.keys().cloned().collect(),
            _ => Vec::new(),
        }
    }

    pub fn take_dirty(&mut self) -> Dirty {
        std::mem::take(&mut self.dirty)
    }

    #[cfg_attr(not(feature = "database"), allow(dead_code))]
    pub fn is_dirty(&self) -> bool {
        let d = &self.dirty;
        !(d.paths.is_empty() && d.pages.is_empty() && d.shrunk.is_empty() && d.gone.is_empty())
    }

    fn lookup_path(&self, path: &str) -> Option<Ino> {
        let mut ino = ROOT_INO;
        for part in path.split('/').filter(|p| !p.is_empty()) {
            match &self.node(ino)?.body {
                Body::Dir(entries) => ino = *entries.get(part)?,
                Body::File(_) | Body::Paged(_) => return None,
            }
        }
        Some(ino)
    }

    /// The node `path` names from the directory `base`, as WASI resolves
    /// it: an absolute path or a `..` above `base` is not permitted.
    pub fn resolve(&self, base: Ino, path: &str) -> Result<Ino, Code> {
        let (dir, name) = self.resolve_parent(base, path)?;
        match name {
            None => Ok(dir),
            Some(name) => self.child(dir, &name)?.ok_or(Code::NoEntry),
        }
    }

    /// The directory that holds the last component of `path`, and that
    /// component (`None` when the path ends at a directory: `.`, `a/..`).
    pub fn resolve_parent(&self, base: Ino, path: &str) -> Result<(Ino, Option<String>), Code> {
        if path.starts_with('/') {
            return Err(Code::NotPermitted);
        }
        if path.contains('\0') {
            return Err(Code::Invalid);
        }
        if path.is_empty() {
            return Err(Code::NoEntry);
        }
        let mut stack = vec![base];
        let parts: Vec<&str> = path.split('/').filter(|p| !p.is_empty()).collect();
        let mut last = None;
        for (i, part) in parts.iter().enumerate() {
            let here = *stack.last().expect("the stack keeps its base");
            match *part {
                "." => {}
                ".." => {
                    stack.pop();
                    if stack.is_empty() {
                        return Err(Code::NotPermitted);
                    }
                }
                name if i + 1 == parts.len() => {
                    if !self.node(here).is_some_and(Node::is_dir) {
                        return Err(Code::NotDirectory);
                    }
                    last = Some(name.to_owned());
                }
                name => match self.child(here, name)? {
                    Some(next) if self.node(next).is_some_and(Node::is_dir) => stack.push(next),
                    Some(_) => return Err(Code::NotDirectory),
                    None => return Err(Code::NoEntry),
                },
            }
        }
        let dir = *stack.last().expect("the stack keeps its base");
        if last.is_none() && !self.node(dir).is_some_and(Node::is_dir) {
            return Err(Code::NotDirectory);
        }
        Ok((dir, last))
    }

    fn child(&self, dir: Ino, name: &str) -> Result<Option<Ino>, Code> {
        match &self.node(dir).ok_or(Code::BadDescriptor)?.body {
            Body::Dir(entries) => Ok(entries.get(name).copied()),
            Body::File(_) | Body::Paged(_) => Err(Code::NotDirectory),
        }
    }

    fn entries_mut(&mut self, dir: Ino) -> Result<&mut BTreeMap<String, Ino>, Code> {
        match &mut self.nodes.get_mut(&dir).ok_or(Code::BadDescriptor)?.body {
            Body::Dir(entries) => Ok(entries),
            Body::File(_) | Body::Paged(_) => Err(Code::NotDirectory),
        }
    }

    /// The paths the node is linked at, relative to the root.
    pub fn paths_of(&self, ino: Ino) -> Vec<String> {
        if ino == ROOT_INO {
            return vec![String::new()];
        }
        let Some(node) = self.node(ino) else {
            return Vec::new();
        };
        node.links
            .iter()
            .filter_map(|(parent, name)| {
                // A directory has one path; its parents' first is the one.
                let base = self.paths_of(*parent).into_iter().next()?;
                Some(join(&base, name))
            })
            .collect()
    }

    fn mark(&mut self, ino: Ino) {
        let paths = self.paths_of(ino);
        self.dirty.paths.extend(paths);
    }

    /// Marks `ino` and, for a directory, everything under it.
    fn mark_tree(&mut self, ino: Ino) {
        let mut stack = vec![ino];
        while let Some(ino) = stack.pop() {
            self.mark(ino);
            if let Some(Body::Dir(entries)) = self.node(ino).map(|n| &n.body) {
                stack.extend(entries.values().copied());
            }
        }
    }

    fn touch_dir(&mut self, dir: Ino, t: Nanos) {
        if let Some(node) = self.nodes.get_mut(&dir) {
            node.mtime = t;
            node.ctime = t;
        }
        self.mark(dir);
    }

    fn insert(&mut self, dir: Ino, name: &str, body: Body) -> Result<Ino, Code> {
        if self.entries_mut(dir)?.contains_key(name) {
            return Err(Code::Exist);
        }
        let t = now();
        let ino = self.next_ino;
        self.next_ino += 1;
        self.nodes.insert(
            ino,
            Node {
                body,
                mtime: t,
                ctime: t,
                links: vec![(dir, name.to_owned())],
            },
        );
        self.entries_mut(dir)?.insert(name.to_owned(), ino);
        self.touch_dir(dir, t);
        self.mark(ino);
        Ok(ino)
    }

    pub fn create_file(&mut self, dir: Ino, name: &str) -> Result<Ino, Code> {
        self.insert(dir, name, Body::File(Vec::new()))
    }

    pub fn create_dir(&mut self, dir: Ino, name: &str) -> Result<Ino, Code> {
        self.insert(dir, name, Body::Dir(BTreeMap::new()))
    }

    /// A second name for the file `ino`.
    pub fn link(&mut self, ino: Ino, dir: Ino, name: &str) -> Result<(), Code> {
        match self.node(ino) {
            None => return Err(Code::NoEntry),
            Some(node) if node.is_dir() => return Err(Code::NotPermitted),
            Some(_) => {}
        }
        if self.entries_mut(dir)?.contains_key(name) {
            return Err(Code::Exist);
        }
        let t = now();
        self.entries_mut(dir)?.insert(name.to_owned(), ino);
        let node = self.nodes.get_mut(&ino).expect("checked above");
        node.links.push((dir, name.to_owned()));
        node.ctime = t;
        self.touch_dir(dir, t);
        self.mark(ino);
        Ok(())
    }

    /// Takes `name` out of `dir`; the node goes with its last link.
    fn detach(&mut self, dir: Ino, name: &str, ino: Ino, t: Nanos) {
        // Marked before the name goes, so the row it had is deleted.
        self.mark_tree(ino);
        if let Ok(entries) = self.entries_mut(dir) {
            entries.remove(name);
        }
        if let Some(node) = self.nodes.get_mut(&ino) {
            node.links.retain(|(p, n)| !(*p == dir && n == name));
            node.ctime = t;
            if node.links.is_empty() {
                self.nodes.remove(&ino);
                self.dirty.pages.remove(&ino);
                self.dirty.shrunk.remove(&ino);
                self.dirty.gone.insert(ino);
            }
        }
        self.touch_dir(dir, t);
    }

    pub fn unlink_file(&mut self, dir: Ino, name: &str) -> Result<(), Code> {
        let ino = self.child(dir, name)?.ok_or(Code::NoEntry)?;
        if self.node(ino).is_some_and(Node::is_dir) {
            return Err(Code::IsDirectory);
        }
        self.detach(dir, name, ino, now());
        Ok(())
    }

    pub fn remove_dir(&mut self, dir: Ino, name: &str) -> Result<(), Code> {
        let ino = self.child(dir, name)?.ok_or(Code::NoEntry)?;
        match &self.node(ino).ok_or(Code::NoEntry)?.body {
            Body::File(_) | Body::Paged(_) => return Err(Code::NotDirectory),
            Body::Dir(entries) if !entries.is_empty() => return Err(Code::NotEmpty),
            Body::Dir(_) => {}
        }
        self.detach(dir, name, ino, now());
        Ok(())
    }

    /// POSIX `rename`: a file replaces a file, a directory an empty
    /// directory; a directory never moves into itself.
    pub fn rename(&mut self, from_dir: Ino, from: &str, to_dir: Ino, to: &str) -> Result<(), Code> {
        let ino = self.child(from_dir, from)?.ok_or(Code::NoEntry)?;
        let moving_dir = self.node(ino).is_some_and(Node::is_dir);
        if let Some(existing) = self.child(to_dir, to)? {
            if existing == ino {
                return Ok(());
            }
            let target = self.node(existing).ok_or(Code::NoEntry)?;
            match (&target.body, moving_dir) {
                (Body::Dir(_), false) => return Err(Code::IsDirectory),
                (Body::File(_) | Body::Paged(_), true) => return Err(Code::NotDirectory),
                (Body::Dir(entries), true) if !entries.is_empty() => return Err(Code::NotEmpty),
                _ => {}
            }
        }
        if moving_dir && self.is_within(to_dir, ino) {
            return Err(Code::Invalid);
        }
        let t = now();
        if let Some(existing) = self.child(to_dir, to)? {
            self.detach(to_dir, to, existing, t);
        }
        self.mark_tree(ino);
        self.entries_mut(from_dir)?.remove(from);
        self.entries_mut(to_dir)?.insert(to.to_owned(), ino);
        let node = self.nodes.get_mut(&ino).expect("found above");
        if let Some(link) = node
            .links
            .iter_mut()
            .find(|(p, n)| *p == from_dir && n == from)
        {
            *link = (to_dir, to.to_owned());
        }
        node.ctime = t;
        self.touch_dir(from_dir, t);
        self.touch_dir(to_dir, t);
        self.mark_tree(ino);
        Ok(())
    }

    /// Whether `ino` is `ancestor` or lies under it.
    fn is_within(&self, mut ino: Ino, ancestor: Ino) -> bool {
        loop {
            if ino == ancestor {
                return true;
            }
            match self.node(ino).and_then(|n| n.links.first()) {
                Some((parent, _)) => ino = *parent,
                None => return false,
            }
        }
    }

    #[cfg_attr(not(feature = "database"), allow(dead_code))]
    /// Takes a file's bytes out (for a tree being rebuilt); empty if none
    /// (or still paged: a tree that holds paged files is read again whole).
    pub fn take_data(&mut self, ino: Ino) -> Vec<u8> {
        match self.nodes.get_mut(&ino).map(|n| &mut n.body) {
            Some(Body::File(data)) => std::mem::take(data),
            _ => Vec::new(),
        }
    }

    pub fn data(&self, ino: Ino) -> Result<&[u8], Code> {
        match &self.node(ino).ok_or(Code::BadDescriptor)?.body {
            Body::File(data) => Ok(data),
            // Brought in by [`super::FsState::data`] before it is asked for.
            Body::Paged(_) => Err(Code::Io),
            Body::Dir(_) => Err(Code::IsDirectory),
        }
    }

    /// The file's bytes to change where `from..to` is written (see
    /// [`Tree::bytes_mut`]), marked changed now.
    fn data_mut(&mut self, ino: Ino, from: u64, to: u64) -> Result<&mut Vec<u8>, Code> {
        if self.node(ino).ok_or(Code::BadDescriptor)?.is_dir() {
            return Err(Code::IsDirectory);
        }
        // Refused before anything is marked: the pages must be here first.
        self.bytes_mut(ino, from, to)?;
        self.mark(ino);
        let t = now();
        let node = self.nodes.get_mut(&ino).expect("checked above");
        node.mtime = t;
        node.ctime = t;
        self.bytes_mut(ino, from, to)
    }

    /// Writes `bytes` at `offset`, zero-filling a gap; refuses a file
    /// past `max_size`.
    pub fn write(
        &mut self,
        ino: Ino,
        offset: u64,
        bytes: &[u8],
        max_size: u64,
    ) -> Result<(), Code> {
        let end = offset
            .checked_add(bytes.len() as u64)
            .filter(|&end| end <= max_size)
            .ok_or(Code::FileTooLarge)?;
        let old_len = self.node(ino).ok_or(Code::BadDescriptor)?.size();
        // A gap zero-filled is written too.
        let first = offset.min(old_len);
        let data = self.data_mut(ino, first, end)?;
        if old_len < end {
            data.resize(end as usize, 0);
        }
        data[offset as usize..end as usize].copy_from_slice(bytes);
        self.settle(ino, first, end);
        if end > first {
            self.mark_pages(ino, first, end);
        }
        Ok(())
    }

    pub fn set_size(&mut self, ino: Ino, size: u64, max_size: u64) -> Result<(), Code> {
        if size > max_size {
            return Err(Code::FileTooLarge);
        }
        let old_len = self.node(ino).ok_or(Code::BadDescriptor)?.size();
        // Emptied, a paged file needs none of its old bytes.
        if let Some(node) = self.nodes.get_mut(&ino)
            && size == 0
            && matches!(node.body, Body::Paged(_))
        {
            node.body = Body::File(Vec::new());
        }
        // Growing keeps the bytes before the old end's page; shrinking
        // needs none.
        let data = self.data_mut(ino, old_len, size)?;
        data.resize(size as usize, 0);
        self.settle(ino, old_len, size);
        // Growing writes zeros; shrinking writes nothing (a page's bytes
        // past the size are cut when read back) but drops the pages past it.
        self.mark_pages(ino, old_len, size);
        if size < old_len {
            self.dirty.shrunk.insert(ino);
        }
        Ok(())
    }

    /// Marks the pages holding bytes `from..to` of `ino` as written.
    fn mark_pages(&mut self, ino: Ino, from: u64, to: u64) {
        if to <= from {
            return;
        }
        let pages = self.dirty.pages.entry(ino).or_default();
        pages.extend(from / PAGE..=(to - 1) / PAGE);
    }
}

fn depth(path: &str) -> usize {
    if path.is_empty() {
        0
    } else {
        path.matches('/').count() + 1
    }
}

pub(crate) fn join(base: &str, name: &str) -> String {
    if base.is_empty() {
        name.to_owned()
    } else {
        format!("{base}/{name}")
    }
}

#[cfg(test)]
mod tests;
