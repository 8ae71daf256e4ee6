//! Helpers shared by the integration tests: a fresh store per test and
//! snapshots of directory trees.
#![allow(dead_code)]

use std::collections::BTreeMap;
use std::path::Path;

use memcap::{Limits, Memory};

/// A fresh memory directory (inside its own tempdir) and a handle on it.
pub struct Fixture {
    pub dir: tempfile::TempDir,
    pub memory: Memory,
}

impl Fixture {
    /// A fresh, empty memory directory, opened as the CLI opens it: with
    /// the umask made private (`tests/umask.rs` checks the library default).
    pub fn new() -> Self {
        Self::with_vectors(true)
    }

    /// Likewise, with searches hybrid (`true`, the default) or keywords
    /// only.
    pub fn with_vectors(on: bool) -> Self {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join("memories")).unwrap();
        let memory = Memory::builder(dir.path().join("memories"))
            .private_umask(true)
            .vectors(on)
            .open()
            .unwrap();
        Self { dir, memory }
    }

    /// How `view` shows the size of the directory `rel` ("" for the root):
    /// directory sizes depend on the file system (4K on ext4, 40B and up on
    /// tmpfs), so tests read them rather than assume them.
    pub fn dir_size(&self, rel: &str) -> String {
        sdk_size(std::fs::metadata(self.root().join(rel)).unwrap().len())
    }

    pub fn root(&self) -> std::path::PathBuf {
        self.dir.path().join("memories")
    }

    /// Writes a file directly on the host, bypassing memcap.
    pub fn plant(&self, rel: &str, bytes: impl AsRef<[u8]>) {
        let path = self.root().join(rel);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, bytes).unwrap();
    }

    /// Sets the file `rel`'s modification time `seconds` back from now, as
    /// a file another program left long ago has it.
    pub fn age(&self, rel: &str, seconds: u64) {
        let then = std::time::SystemTime::now() - std::time::Duration::from_secs(seconds);
        std::fs::File::options()
            .write(true)
            .open(self.root().join(rel))
            .and_then(|file| file.set_modified(then))
            .unwrap();
    }

    /// Reads a file directly on the host.
    pub fn read(&self, rel: &str) -> String {
        std::fs::read_to_string(self.root().join(rel)).unwrap()
    }

    pub fn exists(&self, rel: &str) -> bool {
        self.root().join(rel).symlink_metadata().is_ok()
    }
}

/// A memory directory (not created yet) opened with `limits`, in its own
/// tempdir.
pub fn open_with(limits: Limits) -> (tempfile::TempDir, Memory) {
    let dir = tempfile::tempdir().unwrap();
    let memory = Memory::builder(dir.path().join("memories"))
        .limits(limits)
        .open()
        .unwrap();
    (dir, memory)
}

/// The SDK's `_format_file_size`: `0B`, `1023B`, `1K`, `1.5K`, up to `G`.
pub fn sdk_size(bytes: u64) -> String {
    let mut size = bytes as f64;
    for unit in ["B", "K", "M"] {
        if size < 1024.0 {
            return trim_size(size, unit);
        }
        size /= 1024.0;
    }
    trim_size(size, "G")
}

fn trim_size(size: f64, unit: &str) -> String {
    if size.fract() == 0.0 {
        format!("{}{unit}", size as u64)
    } else {
        format!("{size:.1}{unit}")
    }
}

/// Starts `memcap --root ROOT call` with piped stdin and the given stdout.
pub fn spawn_call(root: &Path, stdout: std::process::Stdio) -> std::process::Child {
    std::process::Command::new(env!("CARGO_BIN_EXE_memcap"))
        .arg("--root")
        .arg(root)
        .arg("call")
        .stdin(std::process::Stdio::piped())
        .stdout(stdout)
        .spawn()
        .unwrap()
}

/// Starts `memcap --root ROOT call` with `input` written to its stdin from a
/// thread (so a full pipe cannot stall the test) and stdout piped.
pub fn feed_call(root: &Path, input: String) -> std::process::Child {
    use std::io::Write;
    let mut child = spawn_call(root, std::process::Stdio::piped());
    let mut stdin = child.stdin.take().unwrap();
    std::thread::spawn(move || stdin.write_all(input.as_bytes()).unwrap());
    child
}

/// One entry of a tree snapshot.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Node {
    Dir,
    File(Vec<u8>),
    Link(std::path::PathBuf),
}

/// Every entry below `root` (not following links), keyed by relative path.
/// memcap's own `.memcap` directory is left out unless `with_reserved`.
pub fn snapshot(root: &Path, with_reserved: bool) -> BTreeMap<String, Node> {
    let mut out = BTreeMap::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let entry = entry.unwrap();
            let path = entry.path();
            let rel = path
                .strip_prefix(root)
                .unwrap()
                .to_string_lossy()
                .into_owned();
            if !with_reserved && rel.split('/').next() == Some(".memcap") {
                continue;
            }
            let kind = entry.file_type().unwrap();
            let node = if kind.is_symlink() {
                Node::Link(std::fs::read_link(&path).unwrap())
            } else if kind.is_dir() {
                stack.push(path.clone());
                Node::Dir
            } else {
                Node::File(std::fs::read(&path).unwrap())
            };
            out.insert(rel, node);
        }
    }
    out
}
