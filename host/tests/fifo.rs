//! A FIFO put where memcap reads (an indexed note, its journal, a chat
//! session, a file of a shared or extra directory), or a file its owner
//! holds under a write lease, never makes a call wait: memcap opens
//! non-blocking and hands the guest only regular files and directories.
//! Before, the open blocked inside the host call (forever for a FIFO, 45 s
//! per open for a lease), past the time limit, holding the store's lock for
//! every other process. Each call runs as its own `memcap` process, waited
//! for within a bound.

mod common;

use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use memcap::{Memory, Role};

/// Well past the 2 s limit the calls run under; a call still running then
/// is blocked, and is killed.
const WAIT: Duration = Duration::from_secs(20);

fn mkfifo(path: &Path) {
    if path.exists() {
        std::fs::remove_file(path).unwrap();
    }
    rustix::fs::mkfifoat(
        rustix::fs::CWD,
        path,
        rustix::fs::Mode::from_raw_mode(0o600),
    )
    .unwrap();
}

/// The answer of `memcap ARGS call` to `input`, or a failure naming what
/// blocked once [`WAIT`] has passed.
fn call(args: &[String], input: &serde_json::Value) -> memcap::ToolResult {
    let mut child = common::spawn_memcap(args.iter().map(String::as_str).chain([
        "--call-timeout-ms",
        "2000",
        "call",
    ]));
    let mut stdin = child.stdin.take().unwrap();
    writeln!(stdin, "{input}").unwrap();
    drop(stdin);
    if common::within(WAIT, || child.try_wait().unwrap().is_some()).is_none() {
        let _ = child.kill();
        let _ = child.wait();
        panic!("{input} was still running after {WAIT:?}: blocked");
    }
    let out = child.wait_with_output().unwrap();
    serde_json::from_slice(out.stdout.trim_ascii()).unwrap()
}

struct Store {
    _dir: tempfile::TempDir,
    root: PathBuf,
    shared: PathBuf,
    extra: PathBuf,
}

impl Store {
    /// A store with notes, a chat session, and a shared and an extra
    /// directory with a note each, all indexed once.
    fn new() -> Self {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("memories");
        let shared = dir.path().join("team");
        let extra = dir.path().join("docs");
        for d in [&root, &shared, &extra] {
            std::fs::create_dir_all(d).unwrap();
        }
        std::fs::write(root.join("a.md"), "alpha note\n").unwrap();
        std::fs::write(root.join("b.md"), "bravo note\n").unwrap();
        std::fs::write(shared.join("s.md"), "shared note\n").unwrap();
        std::fs::write(extra.join("e.md"), "extra note\n").unwrap();
        let store = Store {
            _dir: dir,
            root,
            shared,
            extra,
        };
        let memory = Memory::builder(&store.root)
            .shared("team", &store.shared, false)
            .extra("docs", &store.extra)
            .open()
            .unwrap();
        memory.record_turn("s1", Role::User, "a chat turn").unwrap();
        let stats = memory.memory_stats().unwrap();
        assert_eq!(stats.total_files, 5, "{stats:?}");
        store
    }

    fn args(&self) -> Vec<String> {
        vec![
            "--root".into(),
            self.root.display().to_string(),
            "--shared".into(),
            format!("team={}", self.shared.display()),
            "--extra".into(),
            format!("docs={}", self.extra.display()),
        ]
    }

    /// The chat session `record_turn` wrote.
    fn chat_file(&self) -> PathBuf {
        std::fs::read_dir(self.root.join("chat"))
            .unwrap()
            .map(|e| e.unwrap().path())
            .find(|p| p.extension().is_some_and(|e| e == "md"))
            .expect("a chat session")
    }
}

fn search(word: &str) -> serde_json::Value {
    serde_json::json!({"command": "memory_search", "query": word})
}

#[test]
fn a_fifo_anywhere_memcap_reads_never_makes_a_call_wait() {
    let store = Store::new();
    let places = [
        ("an indexed note", store.root.join("a.md")),
        ("the journal", store.root.join(".memcap/notes.jsonl")),
        ("a chat session", store.chat_file()),
        ("a shared directory's note", store.shared.join("s.md")),
        ("an extra directory's note", store.extra.join("e.md")),
    ];
    let args = store.args();
    for (what, path) in &places {
        mkfifo(path);
        // The index calls walk and read every note (and the journal).
        for input in [
            search("note"),
            serde_json::json!({"command": "memory_stats"}),
            serde_json::json!({"command": "view", "path": "/memories"}),
        ] {
            let result = call(&args, &input);
            assert!(
                !result.content.contains("time limit"),
                "with a FIFO as {what}, {input} was stopped: {}",
                result.content
            );
        }
        // Another process on the store is not held up either, and what is
        // still a note is still found.
        let found = call(&args, &search("bravo"));
        assert!(!found.is_error, "with a FIFO as {what}: {}", found.content);
        assert!(found.content.contains("b.md"), "{what}: {}", found.content);
    }
}

#[test]
fn a_fifo_is_never_opened_for_the_agent_either() {
    let store = Store::new();
    let args = store.args();
    mkfifo(&store.root.join("a.md"));
    for input in [
        serde_json::json!({"command": "view", "path": "/memories/a.md"}),
        serde_json::json!({"command": "memory_get", "path": "/memories/a.md"}),
        serde_json::json!({"command": "str_replace", "path": "/memories/a.md",
            "old_str": "alpha", "new_str": "x"}),
        serde_json::json!({"command": "insert", "path": "/memories/a.md",
            "insert_line": 0, "insert_text": "x"}),
        serde_json::json!({"command": "memory_read", "paths": ["/memories/a.md"]}),
    ] {
        let result = call(&args, &input);
        assert!(result.is_error, "{input}: {}", result.content);
        assert!(
            !result.content.contains("time limit"),
            "{input}: {}",
            result.content
        );
    }
}

#[test]
fn a_note_held_under_a_lease_never_makes_a_call_wait() {
    use std::os::fd::AsRawFd;
    let store = Store::new();
    let args = store.args();
    // Replaced, so the next index call reads it again; then its owner
    // takes a write lease, which makes every other open of it wait for the
    // owner to let go (or for the kernel's lease-break time, 45 s).
    let new = store.shared.join("s.md.new");
    std::fs::write(&new, "shared note, changed\n").unwrap();
    std::fs::rename(&new, store.shared.join("s.md")).unwrap();
    let holder = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .open(store.shared.join("s.md"))
        .unwrap();
    // SAFETY: plain fcntl and signal calls on a descriptor this test owns;
    // the lease's break is signalled with SIGIO, ignored here.
    unsafe {
        libc::signal(libc::SIGIO, libc::SIG_IGN);
        assert_eq!(
            libc::fcntl(holder.as_raw_fd(), libc::F_SETLEASE, libc::F_WRLCK),
            0,
            "taking a lease: {}",
            std::io::Error::last_os_error()
        );
    }
    let started = Instant::now();
    let found = call(&args, &search("bravo"));
    assert!(!found.is_error, "{}", found.content);
    assert!(found.content.contains("b.md"), "{}", found.content);
    assert!(
        started.elapsed() < Duration::from_secs(10),
        "the call waited {:?} for the lease",
        started.elapsed()
    );
    drop(holder);
}
