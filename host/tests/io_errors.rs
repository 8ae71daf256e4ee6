//! A write the operating system refuses comes back as an error, never as
//! success, and leaves the previous version intact. The refusal is injected
//! without privileges: `memcap call` runs with a 3 MiB file-size limit
//! (RLIMIT_FSIZE, with SIGXFSZ ignored), so larger writes fail with EFBIG.

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
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_memcap"));
    cmd.arg("--root")
        .arg(root)
        .arg("call")
        .env("MEMCAP_CACHE_DIR", "off")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped());
    // SAFETY: setrlimit and signal are async-signal-safe.
    unsafe {
        cmd.pre_exec(|| {
            let limit = libc::rlimit {
                rlim_cur: LIMIT,
                rlim_max: LIMIT,
            };
            if libc::setrlimit(libc::RLIMIT_FSIZE, &limit) != 0 {
                return Err(std::io::Error::last_os_error());
            }
            libc::signal(libc::SIGXFSZ, libc::SIG_IGN);
            Ok(())
        });
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
