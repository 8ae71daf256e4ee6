//! A file system that stops answering mid-call (a hung FUSE or network
//! server behind an `--extra` directory) never holds a caller past the time
//! limit: the call that waits in the host's read answers TimedOut, later
//! calls on the store answer within their limit instead of queueing behind
//! it, another process is told the store is busy rather than blocked on
//! its lock, and once the file system answers again everything works.
//! Before, the read blocked the caller (and the store's lock) for as long
//! as the server hung. Also: a process that holds the store's lock file
//! forever makes other calls wait at most their limit.
//!
//! The stalled file system is `tests/fuse/stalled.py` (mfusepy, from
//! tests/requirements.txt), mounted as root; where FUSE cannot be mounted
//! (no /dev/fuse, not root) that part says so and is skipped.

mod common;

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use memcap::{Limits, Memory, ToolErrorKind};

const LIMIT: Duration = Duration::from_millis(1000);

fn limits() -> Limits {
    Limits {
        call_timeout: LIMIT,
        ..Limits::default()
    }
}

/// The stalled file system, mounted; unmounted (and released first, so
/// no reader stays blocked) when dropped.
struct Stalled {
    mount: PathBuf,
    release: PathBuf,
    server: Child,
}

impl Stalled {
    fn mount(dir: &Path) -> Option<Self> {
        let root = rustix::process::geteuid().is_root();
        if !root || !Path::new("/dev/fuse").exists() {
            eprintln!("SKIPPED the stalled file system: FUSE needs root and /dev/fuse here");
            return None;
        }
        let python = Path::new(env!("CARGO_MANIFEST_DIR")).join("../.venv/bin/python");
        let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/fuse/stalled.py");
        let mount = dir.join("mnt");
        let release = dir.join("release");
        std::fs::create_dir(&mount).unwrap();
        let server = Command::new(&python)
            .arg(&script)
            .arg(&mount)
            .arg(&release)
            .stdout(Stdio::null())
            .spawn()
            .unwrap_or_else(|e| panic!("{} (run ./dev setup): {e}", python.display()));
        let mut stalled = Stalled {
            mount,
            release,
            server,
        };
        common::eventually("the FUSE file system is mounted", || {
            if let Some(status) = stalled.server.try_wait().unwrap() {
                panic!("tests/fuse/stalled.py ended ({status}) before mounting: run ./dev setup");
            }
            stalled.mount.join("slow.md").exists()
        });
        Some(stalled)
    }

    fn answer_again(&self) {
        std::fs::write(&self.release, b"").unwrap();
    }
}

impl Drop for Stalled {
    fn drop(&mut self) {
        let _ = std::fs::write(&self.release, b"");
        let _ = Command::new("umount").arg(&self.mount).status();
        let _ = self.server.kill();
        let _ = self.server.wait();
    }
}

/// Runs `f`, returning what it gave and how long it took.
fn timed<T>(f: impl FnOnce() -> T) -> (T, Duration) {
    let started = Instant::now();
    let out = f();
    (out, started.elapsed())
}

/// `memcap --root ROOT view /memories` as another process, under the limit.
fn other_process_view(root: &Path) -> (std::process::Output, Duration) {
    timed(|| {
        common::spawn_memcap([
            "--root".as_ref(),
            root.as_os_str(),
            "--call-timeout-ms".as_ref(),
            "1000".as_ref(),
            "view".as_ref(),
            "/memories".as_ref(),
        ])
        .wait_with_output()
        .unwrap()
    })
}

#[test]
#[ignore = "needs FUSE (root, /dev/fuse, libfuse3) and ./dev setup's mfusepy: cargo test -p memcap-host --test stalled_fs -- --ignored"]
fn a_file_system_that_stops_answering_holds_no_caller_past_the_limit() {
    let dir = tempfile::tempdir().unwrap();
    let Some(stalled) = Stalled::mount(dir.path()) else {
        return;
    };
    let root = dir.path().join("store");
    Memory::builder(&root)
        .open()
        .unwrap()
        .create("/memories/a.md", "# A\nThe first note.\n")
        .unwrap();
    let memory = Memory::builder(&root)
        .extra("ref", &stalled.mount)
        .limits(limits())
        .open()
        .unwrap();

    // Search reads the extra directory's note, and the read never answers.
    let (stuck, took) = timed(|| memory.memory_search("slow note", None, None, None, None));
    let e = stuck.unwrap_err();
    assert_eq!(e.kind, ToolErrorKind::TimedOut, "{e:?}");
    assert!(e.message.contains("did not answer"), "{}", e.message);
    assert!(!e.message.contains(dir.path().to_str().unwrap()));
    assert!(
        took < Duration::from_secs(4),
        "the stuck call took {took:?}"
    );

    // The next call in this process waits its own limit, not forever.
    let (next, took) = timed(|| memory.view("/memories/a.md", None));
    let e = next.unwrap_err();
    assert_eq!(e.kind, ToolErrorKind::TimedOut, "{e:?}");
    assert!(e.message.contains("still waiting"), "{}", e.message);
    assert!(took < Duration::from_secs(3), "the next call took {took:?}");

    // Another process is told the store is busy, within its limit.
    let (out, took) = other_process_view(&root);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "{out:?}");
    assert!(stderr.contains("Another program held"), "{stderr}");
    assert!(
        took < Duration::from_secs(4),
        "the other process took {took:?}"
    );

    // The file system answers again: the stuck call ends, and every call
    // works, in this process and in others.
    stalled.answer_again();
    let found = memory
        .memory_search("slow note", None, None, None, None)
        .unwrap();
    assert!(
        found
            .results
            .iter()
            .any(|r| r.path == "/memories/extra/ref/slow.md"),
        "{found:?}"
    );
    assert_eq!(
        memory.view("/memories/a.md", None).unwrap(),
        "Here's the content of /memories/a.md with line numbers:\n     1\t# A\n     2\tThe first note.\n     3\t"
    );
    let (out, _) = other_process_view(&root);
    assert!(out.status.success(), "{out:?}");
}

#[test]
fn a_lock_held_forever_makes_other_calls_wait_at_most_their_limit() {
    let (dir, memory) = common::open_with(limits());
    let root = dir.path().join("memories");
    memory.create("/memories/a.md", "kept\n").unwrap();
    let lock = std::fs::File::open(root.join(".memcap/lock")).unwrap();
    lock.lock().unwrap();

    let (refused, took) = timed(|| memory.create("/memories/b.md", "not written\n"));
    let e = refused.unwrap_err();
    assert_eq!(e.kind, ToolErrorKind::TimedOut, "{e:?}");
    assert!(e.message.contains("nothing was changed"), "{}", e.message);
    assert!(took >= LIMIT && took < Duration::from_secs(3), "{took:?}");
    assert!(!root.join("b.md").exists());

    // A new process opens the store at once and is refused in its limit.
    let (out, took) = other_process_view(&root);
    assert!(!out.status.success(), "{out:?}");
    assert!(took < Duration::from_secs(4), "{took:?}");

    lock.unlock().unwrap();
    memory.create("/memories/b.md", "written\n").unwrap();
    assert_eq!(
        std::fs::read_to_string(root.join("b.md")).unwrap(),
        "written\n"
    );
}
