//! A write the operating system refuses comes back as an error, never as
//! success, and leaves the previous version intact. The refusal is injected
//! without privileges: `memcap call` runs with a 3 MiB file-size limit
//! (RLIMIT_FSIZE, with SIGXFSZ ignored), so larger writes fail with EFBIG.
//! A directory the OS will not let memcap read is skipped and named, never
//! an error for every index call.

use std::io::Write;
use std::os::unix::process::CommandExt;
use std::process::{Command, Stdio};

use memcap::ToolResult;

/// Above the component's initial memory image (about 2.5 MiB with the
/// embedding model), which wasmtime writes to a memfd as it loads, and
/// which the limit covers too; twice it is within memcap's 8 MiB per file.
const LIMIT: u64 = 3 * 1024 * 1024;

fn call_with_file_size_limit(
    root: &std::path::Path,
    inputs: &[serde_json::Value],
) -> Vec<ToolResult> {
    call_with(root, inputs, &[("MEMCAP_CACHE_DIR", "off")], || {
        let limit = libc::rlimit {
            rlim_cur: LIMIT,
            rlim_max: LIMIT,
        };
        // SAFETY: setrlimit and signal are async-signal-safe.
        unsafe {
            if libc::setrlimit(libc::RLIMIT_FSIZE, &limit) != 0 {
                return Err(std::io::Error::last_os_error());
            }
            libc::signal(libc::SIGXFSZ, libc::SIG_IGN);
        }
        Ok(())
    })
}

/// `memcap --root ROOT call` with `inputs`, `env` set and `setup` run in
/// the child before it starts memcap; one answer an input.
fn call_with(
    root: &std::path::Path,
    inputs: &[serde_json::Value],
    env: &[(&str, &str)],
    setup: impl FnMut() -> std::io::Result<()> + Send + Sync + 'static,
) -> Vec<ToolResult> {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_memcap"));
    cmd.arg("--root")
        .arg(root)
        .arg("call")
        .envs(env.iter().copied())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped());
    // SAFETY: every `setup` here calls only async-signal-safe functions.
    unsafe {
        cmd.pre_exec(setup);
    }
    let mut child = cmd.spawn().unwrap();
    let mut stdin = child.stdin.take().unwrap();
    for input in inputs {
        writeln!(stdin, "{input}").unwrap();
    }
    drop(stdin);
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success());
    String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

#[test]
fn refused_writes_are_errors_and_keep_the_old_content() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("memories");
    let big = "b".repeat(2 * LIMIT as usize);
    let results = call_with_file_size_limit(
        &root,
        &[
            serde_json::json!({"command": "create", "path": "/memories/small.txt", "file_text": "small\n"}),
            serde_json::json!({"command": "create", "path": "/memories/big.txt", "file_text": big}),
            serde_json::json!({"command": "str_replace", "path": "/memories/small.txt", "old_str": "small", "new_str": big}),
            serde_json::json!({"command": "insert", "path": "/memories/small.txt", "insert_line": 1, "insert_text": big}),
            serde_json::json!({"command": "view", "path": "/memories/small.txt"}),
        ],
    );
    assert_eq!(results.len(), 5);
    assert!(!results[0].is_error, "{}", results[0].content);
    for (i, refused) in results[1..4].iter().enumerate() {
        assert!(
            refused.is_error,
            "write {i} reported success: {}",
            refused.content
        );
        assert!(
            refused.content.ends_with("the file is too large"),
            "{}",
            refused.content
        );
    }
    assert!(!results[4].is_error);
    assert_eq!(
        std::fs::read_to_string(root.join("small.txt")).unwrap(),
        "small\n"
    );
    assert!(
        !root.join("big.txt").exists(),
        "a refused create left a file"
    );
    assert_eq!(
        std::fs::read_dir(root.join(".memcap/tmp")).unwrap().count(),
        0
    );
}

/// `memcap --root ROOT call` with `inputs`, refused what file permissions
/// refuse: run by root, it gives up every capability first (as `setpriv
/// --bounding-set=-all` does), so a directory of mode 000 is closed to it.
fn call_without_privileges(
    root: &std::path::Path,
    inputs: &[serde_json::Value],
) -> Vec<ToolResult> {
    call_with(root, inputs, &[], || {
        // SAFETY: geteuid and prctl are async-signal-safe.
        unsafe {
            if libc::geteuid() == 0 {
                for cap in 0..64 {
                    libc::prctl(libc::PR_CAPBSET_DROP, cap, 0, 0, 0);
                }
            }
        }
        Ok(())
    })
}

#[test]
fn a_directory_made_unreadable_is_skipped_and_named() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("memories");
    let memory = memcap::Memory::open(&root).unwrap();
    memory
        .memory_write("sub/a", "A", "d", memcap::NoteType::User, "alpha words")
        .unwrap();
    memory
        .memory_write("b", "B", "d", memcap::NoteType::User, "beta words")
        .unwrap();
    drop(memory);
    // Right after a change, as in the report: the note is young, so the
    // next call looks at it again.
    let sub = root.join("sub");
    std::fs::set_permissions(&sub, std::fs::Permissions::from_mode(0o000)).unwrap();
    let answers = call_without_privileges(
        &root,
        &[
            serde_json::json!({"command": "memory_search", "query": "beta"}),
            serde_json::json!({"command": "memory_stats"}),
            serde_json::json!({"command": "memory_write", "filename": "c", "name": "C",
                "description": "d", "type": "user", "content": "gamma"}),
            serde_json::json!({"command": "recent_activity"}),
        ],
    );
    std::fs::set_permissions(&sub, std::fs::Permissions::from_mode(0o755)).unwrap();
    for answer in &answers {
        assert!(!answer.is_error, "{}", answer.content);
    }
    assert!(
        answers[0].content.contains("/memories/b.md"),
        "{}",
        answers[0].content
    );
    let stats: serde_json::Value = serde_json::from_str(&answers[1].content).unwrap();
    assert_eq!(stats["unreadable"][0], "/memories/sub", "{stats}");
    // Readable again, it is read again and no longer named.
    let stats = memcap::Memory::open(&root).unwrap().memory_stats().unwrap();
    assert!(stats.unreadable.is_empty(), "{stats:?}");
}
