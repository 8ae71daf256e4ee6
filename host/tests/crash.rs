//! Crash safety: `kill -9` of a writing `memcap` at random moments never
//! leaves a partial file, the next open removes every leftover temp file,
//! and the index after each recovery lists exactly the files there are.
//! `MEMCAP_CRASH_KILLS` sets the number of kills (200 by default; the long
//! run, `just crash`, does 1,000).

mod common;

use std::path::Path;
use std::process::Stdio;
use std::time::Duration;

use memcap::Memory;
use rand::{Rng, SeedableRng};

fn kills() -> usize {
    std::env::var("MEMCAP_CRASH_KILLS")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(200)
}

/// Recovery after a kill: a new host removes every temp file, and its index
/// lists exactly the files on disk (the kill may have landed in a journal
/// append or an index rewrite).
fn check_recovery(root: &Path, after: &str) {
    let memory = Memory::open(root).unwrap();
    assert_eq!(leftovers(root), 0, "temp files survived the open {after}");
    let files: Vec<String> = common::snapshot(root, false)
        .into_iter()
        .filter(|(path, node)| matches!(node, common::Node::File(_)) && path != "MEMORY.md")
        .map(|(path, _)| format!("/memories/{path}\n"))
        .collect();
    let mut listed = Vec::new();
    for page in 1.. {
        let all = memory.memory_view_page(true, Some(page)).unwrap();
        listed.extend(
            all.split_inclusive('\n')
                .filter(|l| l.starts_with("/memories/"))
                .map(str::to_owned),
        );
        if !all.contains(" more notes on page") {
            break;
        }
    }
    assert_eq!(listed, files, "index {after}");
}

/// Version `n` of a file: 64 KiB whose every byte depends on `n`.
fn version(n: usize) -> String {
    let letter = (b'a' + (n % 26) as u8) as char;
    format!(
        "version {n}\n{}\nend {n}\n",
        letter.to_string().repeat(64 * 1024)
    )
}

/// The version a file holds, if it holds a complete one.
fn parse(content: &str) -> Option<usize> {
    let n: usize = content
        .strip_prefix("version ")?
        .split('\n')
        .next()?
        .parse()
        .ok()?;
    (content == version(n)).then_some(n)
}

fn leftovers(root: &Path) -> usize {
    std::fs::read_dir(root.join(".memcap/tmp"))
        .map(|d| d.count())
        .unwrap_or(0)
}

#[test]
fn kill_nine_leaves_old_or_new_content_and_no_temp_files() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("memories");
    Memory::open(&root)
        .unwrap()
        .create("/memories/big.txt", &version(0))
        .unwrap();
    let mut rng = rand::rngs::StdRng::seed_from_u64(9);
    let mut interrupted_writes = 0;
    let mut created = 0;

    let kills = kills();
    for kill in 0..kills {
        let current = parse(&std::fs::read_to_string(root.join("big.txt")).unwrap())
            .unwrap_or_else(|| panic!("big.txt is partial after kill {kill}"));
        let mut child = common::spawn_call(&root, Stdio::null());
        let lines = (current..current + 50).map(move |n| {
            let replace = serde_json::json!({
                "command": "str_replace", "path": "/memories/big.txt",
                "old_str": version(n), "new_str": version(n + 1),
            });
            let create = serde_json::json!({
                "command": "create", "path": format!("/memories/new/k{kill}-{n}.txt"),
                "file_text": version(n),
            });
            format!("{replace}\n{create}")
        });
        let delay = Duration::from_micros(rng.random_range(0..40_000));
        common::kill_writer(&mut child, lines, delay);
        interrupted_writes += usize::from(leftovers(&root) > 0);

        let now = parse(&std::fs::read_to_string(root.join("big.txt")).unwrap())
            .unwrap_or_else(|| panic!("big.txt is partial after kill {kill}"));
        assert!(now >= current, "an acknowledged version was lost");
        check_recovery(&root, &format!("after kill {kill}"));
        if let Ok(entries) = std::fs::read_dir(root.join("new")) {
            for entry in entries {
                let path = entry.unwrap().path();
                let content = std::fs::read_to_string(&path).unwrap();
                assert!(
                    parse(&content).is_some(),
                    "{} is partial after kill {kill}",
                    path.display()
                );
                created += 1;
                std::fs::remove_file(path).unwrap();
            }
        }
    }
    check_recovery(&root, "at the end");
    // The next change settles what the kills left in flight; then every
    // version of big.txt replaced what the one before left, and the newest
    // is what it holds.
    let memory = Memory::open(&root).unwrap();
    memory.create("/memories/probe.txt", "p\n").unwrap();
    let versions = common::history_agrees(&memory, "big.txt");
    assert!(versions > kills / 4, "{versions} versions");
    println!(
        "{kills} kills: {interrupted_writes} interrupted a write, {created} files created whole, \
         the index exact after every recovery"
    );
    // The test must have hit writes in flight to mean anything.
    assert!(interrupted_writes > 0);
}
