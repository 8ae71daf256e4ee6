//! What the benchmarks share: a planted store of typical notes, and timing.
#![allow(dead_code)]

use std::path::Path;
use std::time::Instant;

pub fn median_ms(mut samples: Vec<f64>) -> f64 {
    samples.sort_by(f64::total_cmp);
    samples[samples.len() / 2]
}

pub fn time_ms(f: impl FnOnce()) -> f64 {
    let start = Instant::now();
    f();
    start.elapsed().as_secs_f64() * 1e3
}

pub fn plant(root: &Path, notes: usize) {
    for i in 0..notes {
        let dir = root.join(format!("area-{:02}", i % 50));
        std::fs::create_dir_all(&dir).unwrap();
        let kind = ["user", "feedback", "project", "reference"][i % 4];
        let path = dir.join(format!("note-{i:05}.md"));
        std::fs::write(
            &path,
            format!(
                "---\nname: Note {i}\ndescription: What note {i} is about, in one sentence\n\
                 type: {kind}\nupdated: 2026-11-22\n---\n\n{}\n",
                "Body text of a typical note. ".repeat(20)
            ),
        )
        .unwrap();
        // A store's notes are mostly old; memcap rereads files changed in the
        // last seconds whatever their stamp says.
        make_old(&path);
    }
}

/// Sets a planted file's modification time an hour back.
pub fn make_old(path: &Path) {
    let hour_ago = std::time::SystemTime::now() - std::time::Duration::from_secs(3600);
    std::fs::File::options()
        .write(true)
        .open(path)
        .and_then(|file| file.set_modified(hour_ago))
        .unwrap();
}

/// One-shot `memcap --root ROOT ARGS…`: its stdout (it must succeed).
pub fn memcap(root: &Path, args: &[&str]) -> String {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_memcap"))
        .arg("--root")
        .arg(root)
        .args(args)
        .output()
        .unwrap();
    assert!(out.status.success(), "{args:?}: {out:?}");
    String::from_utf8(out.stdout).unwrap()
}

/// The store sizes a scale benchmark measures: 1,000 and 10,000 notes, and
/// 100,000 with `MEMCAP_BENCH_100K=1`; none for `--list` (cargo test's
/// listing of bench targets).
pub fn store_sizes() -> Vec<usize> {
    if std::env::args().any(|a| a == "--list") {
        return Vec::new();
    }
    let mut sizes = vec![1_000, 10_000];
    if std::env::var_os("MEMCAP_BENCH_100K").is_some() {
        sizes.push(100_000);
    }
    sizes
}
