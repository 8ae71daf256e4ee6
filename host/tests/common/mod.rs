//! Helpers shared by the integration tests: a fresh store per test and
//! snapshots of directory trees.
#![allow(dead_code)]

pub mod escape;

use std::collections::BTreeMap;
use std::path::Path;

use memcap::{Entry, HostEdit, Limits, Memory, TestClock};

/// A fresh store and a handle on it: a memory directory (inside its own
/// tempdir), or in a test's database variant (made by [`both_backends!`]) a
/// namespace of its own in the database `MEMCAP_TEST_STORE` names. The
/// helpers reach the files as another program would.
pub struct Fixture {
    pub dir: tempfile::TempDir,
    pub memory: Memory,
    /// The namespace, on the database or the in-memory backend.
    namespace: Option<String>,
    /// Whether the store is in this process's memory.
    in_memory: bool,
    /// The wall clock of every memory the fixture opens: see
    /// [`Fixture::later`].
    pub clock: TestClock,
}

/// The backend a test's fixtures are made on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    Directory,
    Database,
    InMemory,
}

thread_local! {
    /// The backend of the test variant this thread runs.
    static BACKEND: std::cell::Cell<Kind> = const { std::cell::Cell::new(Kind::Directory) };
}

/// Whether this test runs on the database backend (its fixtures are
/// database namespaces).
pub fn on_database() -> bool {
    BACKEND.with(std::cell::Cell::get) == Kind::Database
}

/// Runs a test body with its fixtures on `kind`.
pub fn on_backend(kind: Kind, body: impl FnOnce()) {
    BACKEND.with(|on| on.set(kind));
    body();
}

/// A test of the store, run on every backend by construction: `NAME`
/// becomes `NAME::directory`, `NAME::database` and `NAME::in_memory`,
/// whose [`Fixture`]s are directories, database namespaces and stores in
/// the test process's memory. The database variant is ignored in a plain
/// `cargo test`, since it needs PostgreSQL; `./dev test` runs it on a
/// throwaway cluster (`tests/postgres/with-cluster cargo test -p
/// memcap-host -- --include-ignored`). A test that runs `memcap`
/// processes on its store starts with `processes fn`: no process reaches
/// a store in the test's memory, so it has no in-memory variant. A test of
/// what only a directory has stays a plain `#[test]` on
/// [`Fixture::directory`] and says why.
#[macro_export]
macro_rules! both_backends {
    ($(#[$meta:meta])* processes fn $name:ident() $body:block) => {
        $crate::both_backends!(@served $(#[$meta])* fn $name() $body {});
    };
    ($(#[$meta:meta])* fn $name:ident() $body:block) => {
        $crate::both_backends!(@served $(#[$meta])* fn $name() $body {
            $(#[$meta])*
            #[test]
            fn in_memory() {
                $crate::common::on_backend($crate::common::Kind::InMemory, || $body)
            }
        });
    };
    (@served $(#[$meta:meta])* fn $name:ident() $body:block { $($in_memory:tt)* }) => {
        mod $name {
            #[allow(unused_imports)]
            use super::*;

            $(#[$meta])*
            #[test]
            fn directory() $body

            $(#[$meta])*
            #[test]
            #[ignore = "needs PostgreSQL: tests/postgres/with-cluster cargo test -p memcap-host -- --ignored"]
            fn database() {
                $crate::common::on_backend($crate::common::Kind::Database, || $body)
            }

            $($in_memory)*
        }
    };
}

/// A builder for the namespace `ns` of the store the served backends'
/// fixtures share: the test database, or the in-memory store `fixtures`.
fn served_builder(in_memory: bool, ns: &str) -> memcap::MemoryBuilder {
    match in_memory {
        true => Memory::at(&memcap::location::Location::in_memory("fixtures")).namespace(ns),
        false => Memory::database(&test_store()).namespace(ns),
    }
}

/// A fixture's memory: on `clock`, files 0600, vectors as `vectors` says.
fn opened(builder: memcap::MemoryBuilder, clock: &TestClock, vectors: bool) -> Memory {
    builder
        .clock(clock.clone())
        .private_umask(true)
        .vectors(vectors)
        .open()
        .unwrap()
}

/// The database the database backend's tests use.
pub fn test_store() -> String {
    std::env::var("MEMCAP_TEST_STORE").expect(
        "MEMCAP_TEST_STORE is not set: run the database tests through tests/postgres/with-cluster \
         (./dev test does), which starts a throwaway PostgreSQL",
    )
}

/// A namespace no other test uses.
pub fn fresh_namespace(tag: &str) -> String {
    use std::sync::atomic::{AtomicUsize, Ordering};
    static NEXT: AtomicUsize = AtomicUsize::new(0);
    format!(
        "{tag}-{}-{}",
        std::process::id(),
        NEXT.fetch_add(1, Ordering::Relaxed)
    )
}

impl Fixture {
    /// A fresh, empty store, opened as the CLI opens it: with the umask
    /// made private (`tests/umask.rs` checks the library default).
    pub fn new() -> Self {
        Self::with_vectors(true)
    }

    /// Likewise, with searches hybrid (`true`, the default) or keywords
    /// only.
    pub fn with_vectors(on: bool) -> Self {
        let kind = BACKEND.with(std::cell::Cell::get);
        if kind == Kind::Directory {
            return Self::directory_with_vectors(on);
        }
        let in_memory = kind == Kind::InMemory;
        let namespace = fresh_namespace("fixture");
        let clock = TestClock::new();
        let memory = opened(served_builder(in_memory, &namespace), &clock, on);
        Self {
            dir: tempfile::tempdir().unwrap(),
            memory,
            namespace: Some(namespace),
            in_memory,
            clock,
        }
    }

    /// A memory directory whatever the backend under test: for tests of
    /// what only a directory has (links, FIFOs, permissions, the lock file).
    pub fn directory() -> Self {
        Self::directory_with_vectors(true)
    }

    fn directory_with_vectors(on: bool) -> Self {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join("memories")).unwrap();
        let clock = TestClock::new();
        let memory = opened(Memory::builder(dir.path().join("memories")), &clock, on);
        Self {
            dir,
            memory,
            namespace: None,
            in_memory: false,
            clock,
        }
    }

    /// Another handle on the same store, as a new process opens it.
    pub fn reopen(&self) -> Memory {
        self.builder().open().unwrap()
    }

    /// A builder for the same store, to open it with other options.
    pub fn builder(&self) -> memcap::MemoryBuilder {
        match &self.namespace {
            Some(ns) => served_builder(self.in_memory, ns),
            None => Memory::builder(self.root()),
        }
        .clock(self.clock.clone())
    }

    /// Moves the clock of every memory this fixture opened `by` ahead: what
    /// is on disk then looks as old to memcap as waiting would make it
    /// (its stamps trusted once `RACY` has passed, the sweep due after
    /// [`SWEEP`]). Memory opened otherwise, and `memcap` processes, keep
    /// the system's time.
    pub fn later(&self, by: std::time::Duration) {
        self.clock.advance(by);
    }

    /// The options that give `memcap` this store.
    pub fn cli_args(&self) -> Vec<String> {
        assert!(
            !self.in_memory,
            "this test runs memcap processes, which cannot reach a store in the test's memory"
        );
        match &self.namespace {
            Some(ns) => vec![
                "--store".into(),
                test_store(),
                "--namespace".into(),
                ns.clone(),
            ],
            None => vec!["--root".into(), self.root().to_string_lossy().into_owned()],
        }
    }

    /// This store as `memcap copy` names it: a directory, or the
    /// database's URL with the namespace after `#`.
    pub fn copy_spec(&self) -> String {
        assert!(
            !self.in_memory,
            "this test runs memcap processes, which cannot reach a store in the test's memory"
        );
        match &self.namespace {
            Some(ns) => format!("{}#{ns}", test_store()),
            None => self.root().to_string_lossy().into_owned(),
        }
    }

    /// Starts `memcap … call` on this store with `input` written to its
    /// stdin from a thread and stdout piped.
    pub fn feed_call(&self, input: String) -> std::process::Child {
        use std::io::Write;
        let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_memcap"))
            .args(self.cli_args())
            .arg("call")
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        let mut stdin = child.stdin.take().unwrap();
        std::thread::spawn(move || stdin.write_all(input.as_bytes()).unwrap());
        child
    }

    /// Writes many files directly on the host, in one go.
    pub fn plant_many(&self, files: Vec<(String, Vec<u8>)>) {
        if self.namespace.is_some() {
            let entries: Vec<Entry> = files
                .into_iter()
                .map(|(path, data)| Entry::File(path, data))
                .collect();
            return self.memory.import(&entries, false).unwrap();
        }
        for (rel, bytes) in files {
            self.plant(&rel, bytes);
        }
    }

    /// Renames a file or directory directly on the host.
    pub fn rename(&self, from: &str, to: &str) {
        if self.namespace.is_some() {
            return self.memory.host_edit(from, HostEdit::RenameTo(to)).unwrap();
        }
        std::fs::rename(self.root().join(from), self.root().join(to)).unwrap();
    }

    /// Reads a file's bytes directly on the host.
    pub fn read_bytes(&self, rel: &str) -> Vec<u8> {
        if self.namespace.is_some() {
            return self
                .memory
                .host_read(rel)
                .unwrap()
                .expect("the file exists");
        }
        std::fs::read(self.root().join(rel)).unwrap()
    }

    /// How `view` shows the size of the directory `rel` ("" for the root):
    /// directory sizes depend on the file system (4K on ext4, 40B and up on
    /// tmpfs; 4K on the database), so tests read them rather than assume
    /// them.
    pub fn dir_size(&self, rel: &str) -> String {
        if self.namespace.is_some() {
            return "4K".to_owned();
        }
        sdk_size(std::fs::metadata(self.root().join(rel)).unwrap().len())
    }

    /// Whether the store is in the test process's memory.
    pub fn in_memory(&self) -> bool {
        self.in_memory
    }

    /// The store's directory; only for a directory store.
    pub fn root(&self) -> std::path::PathBuf {
        assert!(
            self.namespace.is_none(),
            "this test reaches the directory itself: make its store with Fixture::directory()"
        );
        self.dir.path().join("memories")
    }

    /// Writes a file directly on the host, bypassing memcap.
    pub fn plant(&self, rel: &str, bytes: impl AsRef<[u8]>) {
        if self.namespace.is_some() {
            return self
                .memory
                .host_edit(rel, HostEdit::Write(bytes.as_ref()))
                .unwrap();
        }
        let path = self.root().join(rel);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, bytes).unwrap();
    }

    /// Removes a file or directory tree directly on the host.
    pub fn remove(&self, rel: &str) {
        if self.namespace.is_some() {
            return self.memory.host_edit(rel, HostEdit::Remove).unwrap();
        }
        let path = self.root().join(rel);
        if path.is_dir() {
            std::fs::remove_dir_all(path).unwrap();
        } else {
            std::fs::remove_file(path).unwrap();
        }
    }

    /// Makes a directory directly on the host, with its parents.
    pub fn mkdir(&self, rel: &str) {
        if self.namespace.is_some() {
            return self.memory.host_edit(rel, HostEdit::MakeDir).unwrap();
        }
        std::fs::create_dir_all(self.root().join(rel)).unwrap();
    }

    /// Sets the file `rel`'s modification time `seconds` back from now, as
    /// a file another program left long ago has it.
    pub fn age(&self, rel: &str, seconds: u64) {
        let then = std::time::SystemTime::now() - std::time::Duration::from_secs(seconds);
        self.set_modified(rel, then);
    }

    /// Sets the file `rel`'s modification time directly on the host.
    pub fn set_modified(&self, rel: &str, then: std::time::SystemTime) {
        if self.namespace.is_some() {
            return self
                .memory
                .host_edit(rel, HostEdit::Modified(then))
                .unwrap();
        }
        std::fs::File::options()
            .write(true)
            .open(self.root().join(rel))
            .and_then(|file| file.set_modified(then))
            .unwrap();
    }

    /// Reads a file directly on the host.
    pub fn read(&self, rel: &str) -> String {
        String::from_utf8(self.read_bytes(rel)).unwrap()
    }

    pub fn exists(&self, rel: &str) -> bool {
        if self.namespace.is_some() {
            let entries = self.memory.export_all().unwrap();
            return entries
                .iter()
                .any(|e| e.path() == rel.trim_end_matches('/'));
        }
        self.root().join(rel).symlink_metadata().is_ok()
    }

    /// Every entry of the store (see [`snapshot`]).
    pub fn snapshot(&self, with_reserved: bool) -> BTreeMap<String, Node> {
        if self.namespace.is_none() {
            return snapshot(&self.root(), with_reserved);
        }
        self.memory
            .export_all()
            .unwrap()
            .into_iter()
            .filter(|e| with_reserved || !e.path().starts_with(".memcap"))
            .map(|e| match e {
                Entry::Dir(path) => (path, Node::Dir),
                Entry::File(path, data) => (path, Node::File(data)),
            })
            .collect()
    }
}

/// How long memcap distrusts a stamp (two seconds, in whole seconds: up
/// to three), plus a margin: once past, a stamp shows every change.
pub const RACY: std::time::Duration = std::time::Duration::from_millis(3_100);
/// Past the catalog's sweep (every 30 seconds), which finds an edit in
/// place that kept a file's stamp.
pub const SWEEP: std::time::Duration = std::time::Duration::from_secs(31);

/// Polls `done` every 20 ms until it holds and returns how long that took;
/// fails the test with `what` after ten seconds.
pub fn eventually(what: &str, done: impl FnMut() -> bool) -> std::time::Duration {
    match within(std::time::Duration::from_secs(10), done) {
        Some(took) => took,
        None => panic!("{what}"),
    }
}

/// Polls `done` every 20 ms until it holds or `limit` has passed: how long
/// it took, or `None` if it never held. The one place tests wait.
pub fn within(
    limit: std::time::Duration,
    mut done: impl FnMut() -> bool,
) -> Option<std::time::Duration> {
    let start = std::time::Instant::now();
    loop {
        if done() {
            return Some(start.elapsed());
        }
        if start.elapsed() >= limit {
            return None;
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
}

/// The lines a child writes, read on a thread of their own, so that a test
/// waits for one with a deadline instead of blocking for ever on a process
/// that never answers.
pub struct Lines(std::sync::mpsc::Receiver<String>);

impl Lines {
    /// How long a test waits for the line it needs before it fails.
    const PATIENCE: std::time::Duration = std::time::Duration::from_secs(60);

    pub fn of(out: impl std::io::Read + Send + 'static) -> Self {
        use std::io::BufRead;
        let (tx, rx) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            for line in std::io::BufReader::new(out).lines() {
                let Ok(line) = line else { return };
                if tx.send(line).is_err() {
                    return;
                }
            }
        });
        Lines(rx)
    }

    /// The first line for which `found` holds, skipping the others; fails
    /// the test with `what` when the stream ends first or a minute passes.
    pub fn until(&self, what: &str, mut found: impl FnMut(&str) -> bool) -> String {
        use std::sync::mpsc::RecvTimeoutError;
        let deadline = std::time::Instant::now() + Self::PATIENCE;
        loop {
            let left = deadline.saturating_duration_since(std::time::Instant::now());
            match self.0.recv_timeout(left) {
                Ok(line) if found(&line) => return line,
                Ok(_) => {}
                Err(RecvTimeoutError::Timeout) => panic!("{what}: nothing within a minute"),
                Err(RecvTimeoutError::Disconnected) => panic!("{what}: the output ended first"),
            }
        }
    }

    /// The next line, within a minute.
    pub fn next(&self, what: &str) -> String {
        self.until(what, |_| true)
    }
}

/// Kills `child` with SIGKILL once `delay` has passed (at a time a test
/// picks at random, to cut a write short), and reaps it; whether it was
/// still running.
pub fn kill_after(child: &mut std::process::Child, delay: std::time::Duration) -> bool {
    std::thread::sleep(delay);
    let running = child.try_wait().unwrap().is_none();
    let _ = child.kill();
    child.wait().unwrap();
    running
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

/// Starts `memcap ARGS` with stdin, stdout and stderr piped.
pub fn spawn_memcap<S: AsRef<std::ffi::OsStr>>(
    args: impl IntoIterator<Item = S>,
) -> std::process::Child {
    use std::process::Stdio;
    std::process::Command::new(env!("CARGO_BIN_EXE_memcap"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap()
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

/// A writer killed mid-stream: `lines` go to the child's stdin from a
/// thread, the child gets SIGKILL after `delay`, and both are reaped (a
/// line the dead child never read is dropped with the pipe).
pub fn kill_writer(
    child: &mut std::process::Child,
    lines: impl Iterator<Item = String> + Send + 'static,
    delay: std::time::Duration,
) {
    let writer = feed_lines(child, lines);
    kill_after(child, delay);
    let _ = writer.join();
}

/// Writes `lines` to the child's stdin from a thread, until the child
/// stops reading.
fn feed_lines(
    child: &mut std::process::Child,
    lines: impl Iterator<Item = String> + Send + 'static,
) -> std::thread::JoinHandle<()> {
    use std::io::Write;
    let mut stdin = child.stdin.take().expect("the child's stdin is piped");
    std::thread::spawn(move || {
        for line in lines {
            if writeln!(stdin, "{line}").is_err() {
                return;
            }
        }
    })
}

/// [`kill_writer`], the delay counted from the child's first answer
/// rather than its start: a start slowed by a busy machine (the
/// component's load) would otherwise take the whole delay, and the kill
/// land before any write. The child's stdout must be piped; its answers
/// are read and dropped (so a full pipe cannot stall it). A child that
/// answers nothing within a minute is killed then.
pub fn kill_writing(
    child: &mut std::process::Child,
    lines: impl Iterator<Item = String> + Send + 'static,
    delay: std::time::Duration,
) {
    use std::io::BufRead;
    let stdout = child.stdout.take().expect("the child's stdout is piped");
    let (first, answered) = std::sync::mpsc::channel();
    let reader = std::thread::spawn(move || {
        let mut lines = std::io::BufReader::new(stdout).lines();
        let _ = lines.next();
        let _ = first.send(());
        lines.for_each(drop);
    });
    let writer = feed_lines(child, lines);
    let _ = answered.recv_timeout(std::time::Duration::from_secs(60));
    kill_after(child, delay);
    let _ = writer.join();
    let _ = reader.join();
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

/// Runs SQL through `psql` against the test server.
pub fn psql(sql: &str) -> String {
    let out = std::process::Command::new("psql")
        .args([&test_store(), "-At", "-c", sql])
        .output()
        .expect("psql runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

/// `memcap ARGS`: its exit code and standard error.
pub fn memcap_cli(args: &[&str]) -> (i32, String) {
    let (code, _, stderr) = memcap_run(args);
    (code, stderr)
}

/// `memcap ARGS`: its exit code, standard output and standard error.
pub fn memcap_run(args: &[&str]) -> (i32, String, String) {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_memcap"))
        .args(args)
        .output()
        .unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// Checks that the version history and the files agree (after a change,
/// which settles what a crash left in flight): each file's versions form
/// one chain, every version replacing exactly the content the one before
/// left (so no change went unrecorded and no version was logged for a
/// change not made), and the newest version of each path under `under`
/// (relative; "" for all) is what is there now. Returns how many versions
/// the log holds.
pub fn history_agrees(memory: &Memory, under: &str) -> usize {
    use sha2::{Digest, Sha256};
    let log = memory
        .host_read(".memcap/history/log.jsonl")
        .unwrap()
        .unwrap_or_default();
    let text = String::from_utf8_lossy(&log);
    // Each line starts with its mark: ' ' on record, '!' in flight (its
    // change not yet made), '#' dead (its change not made).
    let on_record = |line: &str| line.starts_with(' ') || line.starts_with('{');
    let after_last = text
        .lines()
        .rev()
        .take_while(|l| !on_record(l))
        .collect::<Vec<_>>();
    assert!(
        !after_last.iter().any(|l| l.starts_with('!')),
        "a change is still in flight: {after_last:?}"
    );
    let mut last: BTreeMap<String, Option<String>> = BTreeMap::new();
    let mut count = 0;
    for line in text.split_inclusive('\n') {
        // A line a kill tore is ignored by memcap and written over; one in
        // flight that a line on record follows is dead (what landed of its
        // change is logged again, whole).
        let Some(line) = line.strip_suffix('\n').filter(|l| on_record(l)) else {
            continue;
        };
        let v: serde_json::Value = serde_json::from_str(line).unwrap();
        count += 1;
        let path = v["path"].as_str().unwrap().to_owned();
        let sha = v["sha256"].as_str().map(str::to_owned);
        let prev = v["prev"].as_str().map(str::to_owned);
        let before = match v["from"].as_str() {
            Some(from) => last.insert(from.to_owned(), None).flatten(),
            None => last.get(&path).cloned().flatten(),
        };
        // A path's first version kept may follow versions retention dropped.
        let first_kept = !last.contains_key(&path) && v["from"].is_null();
        match v["op"].as_str().unwrap() {
            "created" => assert_eq!(before, None, "{line}: created over a file"),
            _ if v["actor"] == "(outside memcap)" || first_kept => {}
            _ => assert_eq!(prev, before, "{line}: replaced a content no version left"),
        }
        last.insert(path, sha);
    }
    for (path, sha) in last {
        if !path.starts_with(under) {
            continue;
        }
        let now = memory.host_read(&path).unwrap().map(|bytes| {
            Sha256::digest(&bytes)
                .iter()
                .map(|b| format!("{b:02x}"))
                .collect::<String>()
        });
        assert_eq!(
            now, sha,
            "{path}: the files and the newest version disagree"
        );
    }
    count
}
