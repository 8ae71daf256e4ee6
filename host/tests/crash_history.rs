//! Crash safety of the history's own upkeep: `kill -9` of a `memcap` whose
//! small history budget has it prune, pack and rewrite segments every few
//! changes, and of a `memcap history redact` at random moments, never
//! leaves a version without its content or a change without its version,
//! and a redaction run again after a kill finishes the job.
//! `MEMCAP_CRASH_KILLS` sets the number of kills (60 by default).

mod common;

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Duration;

use memcap::{Limits, Memory};
use rand::{Rng, SeedableRng};
use sha2::{Digest, Sha256};

fn kills() -> usize {
    std::env::var("MEMCAP_CRASH_KILLS")
        .ok()
        .and_then(|n| n.parse::<usize>().ok())
        .map_or(60, |n| n / 3)
        .max(10)
}

fn open(root: &Path) -> Memory {
    Memory::builder(root)
        .limits(Limits {
            history_mib: 1,
            ..Limits::default()
        })
        .open()
        .unwrap()
}

/// A note's text for edit `n`: 8 KB that depend on `n`, so a 1 MiB
/// history prunes every dozen changes or so.
fn text(n: usize) -> String {
    format!("edit {n}\n{}\n", format!("{n:08} ").repeat(900))
}

/// Every version that names a content reads back exactly that content
/// (but those of `skip`), and the versions and the files agree
/// (`common::history_agrees`).
fn every_version_reads_back(memory: &Memory, skip: &str, after: &str) -> usize {
    common::history_agrees(memory, "");
    let versions = memory.history_list("/memories", None, None).unwrap();
    for v in &versions {
        let Some(sha) = &v.sha256 else { continue };
        if v.path == skip {
            continue;
        }
        let bytes = memory
            .history_show(&v.path, v.number)
            .unwrap_or_else(|e| panic!("version {} of {} {after}: {e}", v.number, v.path));
        let got: String = Sha256::digest(&bytes)
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect();
        assert_eq!(&got, sha, "version {} of {} {after}", v.number, v.path);
    }
    versions.len()
}

#[test]
fn kill_nine_while_pruning_and_packing_loses_no_version() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("memories");
    let memory = open(&root);
    for f in 0..4 {
        memory
            .create(&format!("/memories/{f}.md"), &text(0))
            .unwrap();
    }
    drop(memory);
    let mut rng = rand::rngs::StdRng::seed_from_u64(55);
    let mut n = 0;
    let packed = || root.join(".memcap/history/packs/index").exists();
    // At least `kills()` kills, and on until the upkeep has packed (a slow
    // or busy machine writes less before each kill), within four times.
    for kill in (0..kills() * 4).take_while(|&k| k < kills() || !packed()) {
        let mut child = Command::new(env!("CARGO_BIN_EXE_memcap"))
            .arg("--root")
            .arg(&root)
            .args(["--history-mib", "1", "call"])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .unwrap();
        let lines = (n..n + 200).map(|m| {
            serde_json::json!({
                "command": "memory_write", "filename": format!("{}", m % 4),
                "name": "A note", "description": "edited over and over",
                "type": "project", "content": text(m + 1),
            })
            .to_string()
        });
        let delay = Duration::from_micros(rng.random_range(2_000..60_000));
        common::kill_writing(&mut child, lines, delay);
        n += 200;
        // The next change settles what the kill left; then every version
        // kept reads back and the versions and the files agree.
        let memory = open(&root);
        memory
            .create(&format!("/memories/probe-{kill}.md"), "p\n")
            .unwrap();
        every_version_reads_back(&memory, "", &format!("after kill {kill}"));
        // What a kill leaves never stops the upkeep: no pruning failed.
        let problem = memory.memory_stats().unwrap().history_problem;
        assert_eq!(problem, None, "after kill {kill}");
    }
    // The budget held through it all, segments and their index included.
    let memory = open(&root);
    let held = memory.memory_stats().unwrap().history_bytes;
    assert!(held <= 1 << 20, "{held} bytes");
    assert!(packed(), "nothing was packed in {} kills", kills() * 4);
}

/// A store whose history holds `secret` in a packed version and in a
/// loose one, in files deleted since (so `--all` may erase them).
fn store_with_a_secret(root: &Path, secret: &str) {
    let memory = Memory::open(root).unwrap();
    memory
        .create("/memories/keys.md", &format!("key {secret} one\n"))
        .unwrap();
    memory.delete("/memories/keys.md").unwrap();
    for i in 0..300 {
        memory
            .create(&format!("/memories/f/{i}.md"), &format!("{i}\n"))
            .unwrap();
    }
    memory
        .create("/memories/keys.md", &format!("key {secret} two\n"))
        .unwrap();
    memory.delete("/memories/keys.md").unwrap();
}

fn redact(root: &Path) -> std::process::Child {
    Command::new(env!("CARGO_BIN_EXE_memcap"))
        .arg("--root")
        .arg(root)
        .args(["history", "redact", "/memories/keys.md", "--all"])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap()
}

fn holding(root: &Path, secret: &str) -> Vec<String> {
    common::snapshot(root, true)
        .into_iter()
        .filter(|(_, node)| {
            matches!(node, common::Node::File(bytes) if String::from_utf8_lossy(bytes).contains(secret))
        })
        .map(|(path, _)| path)
        .collect()
}

#[test]
fn kill_nine_during_a_redaction_and_the_next_one_finishes_it() {
    let secret = "Kx9-redact-me-7731";
    // How long a whole redaction takes here (start-up included), the
    // quickest of three (the first may pay for a cold start the others do
    // not): the kills land in its second half, where the redaction runs.
    let mut whole = u64::MAX;
    let mut before = 0;
    for _ in 0..3 {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("memories");
        store_with_a_secret(&root, secret);
        before = holding(&root, secret).len();
        let started = std::time::Instant::now();
        assert!(redact(&root).wait().unwrap().success());
        whole = whole.min(started.elapsed().as_micros() as u64);
        assert_eq!(holding(&root, secret), Vec::<String>::new());
    }
    let mut rng = rand::rngs::StdRng::seed_from_u64(56);
    let (mut cut_short, mut halfway) = (0, 0);
    for kill in 0..kills() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("memories");
        store_with_a_secret(&root, secret);
        let mut child = redact(&root);
        let delay = Duration::from_micros(rng.random_range(whole / 2..whole + 1));
        cut_short += usize::from(common::kill_after(&mut child, delay));
        // Part done: some copies of the secret gone or marked, not all.
        let left = holding(&root, secret).len();
        let log = std::fs::read_to_string(root.join(".memcap/history/log.jsonl")).unwrap();
        halfway += usize::from(left > 0 && (left < before || log.contains("\"redacted\"")));
        // Whatever the kill left, the other versions read back (those being
        // redacted may read as gone); a redaction run again leaves the
        // secret in no file, and every version left reads back.
        let memory = Memory::open(&root).unwrap();
        memory.create("/memories/probe.md", "p\n").unwrap();
        let after = format!("after kill {kill}");
        every_version_reads_back(&memory, "/memories/keys.md", &after);
        memory
            .history_redact("/memories/keys.md", None, None)
            .unwrap();
        every_version_reads_back(&memory, "", &after);
        drop(memory);
        assert_eq!(holding(&root, secret), Vec::<String>::new(), "{after}");
    }
    println!(
        "{cut_short} redactions cut short, {halfway} of them halfway (some copies gone, not all)"
    );
    assert!(cut_short > 0, "no kill landed before the redaction ended");
}
