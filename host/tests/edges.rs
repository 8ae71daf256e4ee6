//! The smaller ways a store or a caller can be odd: a missing, read-only or
//! mistyped root, memcap's own files replaced by links, an unreadable note,
//! a reader that closes the pipe, and inputs at the edges of what the note
//! commands take. Each gets an answer that says what to do.

#[macro_use]
mod common;

use std::os::unix::fs::PermissionsExt;
use std::os::unix::process::CommandExt;
use std::path::Path;
use std::process::{Command, Output, Stdio};

use common::Fixture;
use memcap::{Limits, Memory, NoteType, ToolErrorKind as K};

fn memcap(root: &Path) -> Command {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_memcap"));
    cmd.env("MEMCAP_CACHE_DIR", "off").arg("--root").arg(root);
    cmd
}

/// `memcap` on the fixture's store, whichever backend it is on.
fn memcap_on(f: &Fixture) -> Command {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_memcap"));
    cmd.env("MEMCAP_CACHE_DIR", "off").args(f.cli_args());
    cmd
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

fn is_root() -> bool {
    // SAFETY: geteuid has no preconditions.
    unsafe { libc::geteuid() == 0 }
}

/// `memcap --root ROOT`, run as `nobody` when the tests run as root (whom
/// permissions do not stop), so that the modes set in the test mean what
/// they say. `nobody` runs a copy of the binary in `dir` (made 0755): the
/// build directory may be out of its reach.
fn unprivileged(dir: &Path, root: &Path) -> Command {
    if !is_root() {
        return memcap(root);
    }
    chmod(dir, 0o755);
    let copy = dir.join("memcap-bin");
    if !copy.exists() {
        std::fs::copy(env!("CARGO_BIN_EXE_memcap"), &copy).unwrap();
        chmod(&copy, 0o755);
    }
    let mut cmd = Command::new(copy);
    cmd.env("MEMCAP_CACHE_DIR", "off")
        .arg("--root")
        .arg(root)
        .uid(65534)
        .gid(65534);
    cmd
}

fn chmod(path: &Path, mode: u32) {
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode)).unwrap();
}

fn give_to_unprivileged(path: &Path) {
    if is_root() {
        let c = std::ffi::CString::new(path.to_str().unwrap()).unwrap();
        // SAFETY: a valid NUL-terminated path.
        assert_eq!(unsafe { libc::chown(c.as_ptr(), 65534, 65534) }, 0);
    }
}

#[test]
fn reads_on_a_missing_root_create_nothing_and_the_first_write_creates_it() {
    // One backend: a root directory's creation.
    let tmp = tempfile::tempdir().unwrap();
    let top = tmp.path().join("typo");
    let root = top.join("a/b/memories");
    for args in [
        &["view", "/memories"][..],
        &["view", "/memories/x.md"],
        &["prompt"],
        &["memory-view", "--all"],
        &["memory-read"],
    ] {
        let out = memcap(&root).args(args).output().unwrap();
        assert!(!top.exists(), "{args:?} created {top:?}: {out:?}");
        let said = text(&out.stdout) + &text(&out.stderr);
        assert!(!said.contains("os error"), "{args:?}: {said}");
    }
    let empty = memcap(&root).args(["memory-view"]).output().unwrap();
    assert!(text(&empty.stdout).contains("No notes yet"), "{empty:?}");
    let missing = memcap(&root)
        .args(["view", "/memories/x.md"])
        .output()
        .unwrap();
    assert_eq!(
        text(&missing.stderr),
        "The path /memories/x.md does not exist. Please provide a valid path.\n"
    );
    // A `call` that only reads creates nothing either.
    let mut child = common::spawn_call(&root, Stdio::piped());
    drop(child.stdin.take());
    assert!(child.wait().unwrap().success());
    assert!(!top.exists());

    let created = memcap(&root)
        .args(["create", "/memories/x.md", "hello"])
        .output()
        .unwrap();
    assert!(created.status.success(), "{created:?}");
    assert_eq!(std::fs::read_to_string(root.join("x.md")).unwrap(), "hello");
    assert_eq!(
        std::fs::metadata(&root).unwrap().permissions().mode() & 0o777,
        0o700
    );

    // A library handle opened before the directory existed sees it once
    // another program makes it, and its own first write creates it.
    let later = tmp.path().join("later");
    let lazily = |root: &Path| Memory::builder(root).create_root(false).open().unwrap();
    let memory = lazily(&later);
    assert!(!later.exists());
    std::fs::create_dir(&later).unwrap();
    std::fs::write(later.join("made.md"), "made elsewhere\n").unwrap();
    assert!(memory.view("/memories", None).unwrap().contains("made.md"));
    let fresh = tmp.path().join("fresh");
    let memory = lazily(&fresh);
    assert!(!fresh.exists());
    memory
        .memory_write("a", "A", "", NoteType::User, "x")
        .unwrap();
    assert!(fresh.join("a.md").is_file());
}

#[test]
fn a_root_that_is_not_a_directory_is_named_once_with_the_fix() {
    // One backend: a root that is a file is a directory's problem.
    let tmp = tempfile::tempdir().unwrap();
    let file = tmp.path().join("file");
    std::fs::write(&file, "x").unwrap();
    for (root, says) in [
        (file.clone(), "is a file, not a directory"),
        (file.join("below"), "Not a directory"),
    ] {
        let out = memcap(&root)
            .args(["create", "/memories/a", "x"])
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "{out:?}");
        let said = text(&out.stderr);
        assert!(said.contains(says), "{said}");
        assert!(!said.contains("File exists"), "{said}");
        assert!(said.matches("os error").count() <= 1, "said twice: {said}");
        assert_eq!(said.lines().count(), 1, "{said}");
    }
}

#[test]
fn memcaps_own_files_replaced_by_links_are_named_or_rebuilt() {
    // One backend: links in place of memcap's files exist only in a directory.
    let f = Fixture::directory();
    f.memory.create("/memories/a.md", "note a\n").unwrap();
    let outside = f.dir.path().join("outside.txt");
    std::fs::write(&outside, "outside\n").unwrap();

    // The journal is a cache: a link in its place costs a rebuild, and the
    // file it points to is never written.
    let journal = f.root().join(".memcap/notes.jsonl");
    std::fs::remove_file(&journal).unwrap();
    std::os::unix::fs::symlink(&outside, &journal).unwrap();
    let memory = Memory::open(f.root()).unwrap();
    assert!(
        memory
            .memory_view(false)
            .unwrap()
            .contains("- [a](a.md) - note a")
    );
    memory.create("/memories/b.md", "note b\n").unwrap();
    assert!(
        memory
            .memory_view(false)
            .unwrap()
            .contains("- [b](b.md) - note b")
    );
    assert_eq!(std::fs::read_to_string(&outside).unwrap(), "outside\n");
    drop(memory);

    // The temp directory and the lock must be what memcap made: a link or a
    // file there stops the open with the path and the fix.
    for (name, make_dir) in [(".memcap/tmp", true), (".memcap/lock", false)] {
        let path = f.root().join(name);
        if make_dir {
            std::fs::remove_dir_all(&path).unwrap();
        } else {
            std::fs::remove_file(&path).unwrap();
        }
        std::os::unix::fs::symlink(f.dir.path(), &path).unwrap();
        let out = memcap(&f.root())
            .args(["view", "/memories"])
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "{out:?}");
        let said = text(&out.stderr);
        assert!(
            said.contains(&format!("{name} is a symbolic link")),
            "{said}"
        );
        assert!(said.contains("remove it"), "{said}");
        std::fs::remove_file(&path).unwrap();
        let again = memcap(&f.root())
            .args(["view", "/memories"])
            .output()
            .unwrap();
        assert!(again.status.success(), "{again:?}");
    }
}

#[test]
fn a_store_memcap_may_only_read_still_answers_reads() {
    // One backend: file permissions are a directory's (`read_only.rs` covers the database's read-only mode).
    let f = Fixture::directory();
    f.memory
        .memory_write("pref", "Pref", "likes tea", NoteType::User, "tea")
        .unwrap();
    // Readable by everyone, writable by nobody but its owner (root's tests
    // run the commands as `nobody`), and the root itself not even by that.
    chmod(f.dir.path(), 0o755);
    let mut stack = vec![f.root()];
    while let Some(dir) = stack.pop() {
        chmod(&dir, 0o755);
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                stack.push(path);
            } else {
                chmod(&path, 0o644);
            }
        }
    }
    chmod(&f.root(), 0o555);
    let before = common::snapshot(&f.root(), true);
    for args in [
        &["view", "/memories"][..],
        &["view", "/memories/MEMORY.md"],
        &["prompt"],
        &["memory-view", "--all"],
        &["memory-read", "pref"],
    ] {
        let out = unprivileged(f.dir.path(), &f.root())
            .args(args)
            .output()
            .unwrap();
        assert!(out.status.success(), "{args:?}: {out:?}");
        assert!(
            !text(&out.stdout).contains("could not be updated"),
            "{out:?}"
        );
    }
    let prompt = unprivileged(f.dir.path(), &f.root())
        .arg("prompt")
        .output()
        .unwrap();
    assert!(
        text(&prompt.stdout).contains("- [Pref](pref.md) - likes tea"),
        "{prompt:?}"
    );
    let create = unprivileged(f.dir.path(), &f.root())
        .args(["create", "/memories/n.md", "x"])
        .output()
        .unwrap();
    assert_eq!(create.status.code(), Some(1), "{create:?}");
    assert!(
        text(&create.stderr).contains("permission denied"),
        "{create:?}"
    );
    chmod(&f.root(), 0o700);
    assert_eq!(common::snapshot(&f.root(), true), before);
}

#[test]
fn an_unreadable_note_is_listed_with_its_problem_and_the_rest_still_answer() {
    // One backend: an unreadable file is a directory's.
    let f = Fixture::directory();
    f.memory.create("/memories/good.md", "good note\n").unwrap();
    f.memory.create("/memories/locked.md", "secret\n").unwrap();
    f.memory
        .create("/memories/shut/inner.md", "inner\n")
        .unwrap();
    std::fs::remove_file(f.root().join(".memcap/notes.jsonl")).unwrap();
    chmod(f.dir.path(), 0o755);
    let mut stack = vec![f.root()];
    while let Some(dir) = stack.pop() {
        give_to_unprivileged(&dir);
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            give_to_unprivileged(&path);
            if path.is_dir() {
                stack.push(path);
            }
        }
    }
    chmod(&f.root().join("locked.md"), 0o000);
    chmod(&f.root().join("shut"), 0o000);
    for args in [&["prompt"][..], &["memory-view", "--all"], &["memory-read"]] {
        let out = unprivileged(f.dir.path(), &f.root())
            .args(args)
            .output()
            .unwrap();
        assert!(out.status.success(), "{args:?}: {out:?}");
        let said = text(&out.stdout);
        assert!(said.contains("good.md"), "{args:?}: {said}");
        assert!(!said.contains("secret"), "{said}");
    }
    let all = unprivileged(f.dir.path(), &f.root())
        .args(["memory-view", "--all"])
        .output()
        .unwrap();
    assert!(
        text(&all.stdout).contains(
            "/memories/locked.md\n  name: locked\n  type: other\n  problem: memcap could not read this file (permission denied); check its permissions"
        ),
        "{all:?}"
    );
    chmod(&f.root().join("shut"), 0o700);
}

both_backends! {
processes fn a_reader_that_closes_the_pipe_ends_memcap_quietly() {
    let f = Fixture::new();
    f.plant("big.txt", "line\n".repeat(100_000));
    // A history whose list is longer than a pipe holds.
    let long = "n".repeat(150);
    for i in 0..400 {
        f.memory.create(&format!("/memories/v/{long}{i}.md"), "x").unwrap();
    }
    for args in [&["view", "/memories/big.txt"][..], &["memory-read"], &["history", "list"]] {
        let mut child = memcap_on(&f)
            .args(args)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let mut first = [0u8; 16];
        std::io::Read::read_exact(child.stdout.as_mut().unwrap(), &mut first).unwrap();
        drop(child.stdout.take());
        let out: Output = child.wait_with_output().unwrap();
        assert!(out.status.success(), "{args:?}: {out:?}");
        assert_eq!(text(&out.stderr), "", "{args:?}");
    }
}
}

both_backends! {
fn a_limit_hit_by_a_read_does_not_talk_about_changed_files() {
    let f = Fixture::new();
    // A read with no walk in it (walks stop at their share of the limit):
    // viewing 200,000 numbered lines takes longer than 1 ms.
    let lines: String = (0..200_000).map(|i| format!("line {i}\n")).collect();
    f.plant("big.txt", lines);
    // On a database the limit is each statement's timeout too, so opening
    // (a few statements) can itself run out of 1 ms on a busy machine:
    // tried again until it opens.
    let slow = (0..50)
        .find_map(|_| {
            f.builder()
                .limits(Limits {
                    call_timeout: std::time::Duration::from_millis(1),
                    ..Limits::default()
                })
                .open()
                .ok()
        })
        .expect("the store opens under a 1 ms limit within 50 tries");
    let e = slow.view("/memories/big.txt", None).unwrap_err();
    assert_eq!(e.kind, K::TimedOut, "{e:?}");
    assert!(!e.message.contains("changing"), "{}", e.message);
}
}

both_backends! {
processes fn inputs_at_the_edges_of_the_note_commands() {
    let f = Fixture::new();
    let call = |input: serde_json::Value| f.memory.call(&input.to_string());

    // description may be left out in `call`, as on the command line.
    let saved = call(serde_json::json!({
        "command": "memory_write", "filename": "a", "name": "A", "type": "user", "content": "x"
    }));
    assert!(!saved.is_error, "{saved:?}");
    let cli = memcap_on(&f)
        .args(["memory-write", "b", "--name", "B", "--type", "user", "y"])
        .output()
        .unwrap();
    assert!(cli.status.success(), "{cli:?}");

    // A description too long for frontmatter is refused, and nothing written.
    for chars in [1_001, 64 * 1024, 200_000] {
        let e = f
            .memory
            .memory_write("long", "Long", &"d".repeat(chars), NoteType::User, "x")
            .unwrap_err();
        assert_eq!(e.kind, K::InvalidNote, "{e:?}");
        assert!(e.message.contains("up to 1000"), "{}", e.message);
        assert!(!f.exists("long.md"));
    }
    let e = f
        .memory
        .memory_write("n", &"n".repeat(201), "", NoteType::User, "x")
        .unwrap_err();
    assert_eq!(e.kind, K::InvalidNote);
    f.memory
        .memory_write("edge", "Edge", &"d".repeat(1000), NoteType::User, "x")
        .unwrap();
    assert!(
        f.memory
            .memory_view(true)
            .unwrap()
            .contains("/memories/edge.md\n  name: Edge\n  type: user\n")
    );

    // memory_update must leave a note that reads back as written.
    let note = f.read("a.md");
    for (old, new) in [
        ("type: user", "type: admin"),
        ("type: user", ""),
        ("name: A", "name: [A"),
        ("---\n\nx", "\n\nx"),
        ("name: A", "name: &a A\ndescription: *a"),
    ] {
        let e = f.memory.memory_update("a", old, new).unwrap_err();
        assert_eq!(e.kind, K::InvalidNote, "{old:?} -> {new:?}: {e:?}");
        assert!(
            e.message.contains("would not be a valid note"),
            "{}",
            e.message
        );
        assert_eq!(f.read("a.md"), note, "{old:?} -> {new:?}");
    }
    f.memory.memory_update("a", "\nx\n", "\ny\n").unwrap();
    f.memory
        .memory_update("a", "type: user", "type: project")
        .unwrap();

    // A lone surrogate escape is named as such.
    let bad = f
        .memory
        .call(r#"{"command": "view", "path": "/memories/\ud800"}"#);
    assert!(bad.is_error);
    assert!(bad.content.contains("surrogate"), "{}", bad.content);
    assert!(
        !bad.content.contains("unexpected end of hex escape"),
        "{}",
        bad.content
    );
}
}
