//! What the version history costs and how fast it reads, on a directory:
//! warm `str_replace` and `create` of a 10 KB note, `create` and `delete`
//! of a 100-byte one, with history and with it off (`history_mib` 0),
//! interleaved; a one-shot `create` (a fresh open, one call)
//! in a store of 10,000 notes whose history holds 10,000 versions;
//! `history list` of a note with 10,000 versions and of a 10,000-note
//! store; the history on disk (its files' blocks) against the bytes it
//! holds, for 10,000 notes of 100 bytes; the history's bytes per byte
//! written for a 10 KB note edited 1,000 times; and blame of a note with
//! 1,000 versions whose first line is as old as the note (so every
//! version is compared). Medians of one run, with ratios from it; nothing
//! is asserted. Run with `./dev bench` (`-- warm` or `-- blame` for one
//! part).

mod common;

use common::{median_ms, time_ms};
use memcap::{Limits, Memory};

const N: usize = 300;

fn open(root: &std::path::Path, history_mib: u64) -> Memory {
    Memory::builder(root)
        .limits(Limits {
            history_mib,
            ..Limits::default()
        })
        .open()
        .unwrap()
}

/// Warm `str_replace` and `create` of a 10 KB note, `create` of a
/// 100-byte one and `delete`, each with history on and off: the two
/// stores' calls interleaved (the order swapped each time), so the
/// machine's drift falls on both alike. Medians in µs, (on, off) each.
fn warm() -> Vec<(&'static str, f64, f64)> {
    let dirs = [tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap()];
    let stores = [open(dirs[0].path(), 256), open(dirs[1].path(), 0)];
    let body =
        "alpha\n".to_owned() + &"A line of a typical note, ten kilobytes in all.\n".repeat(200);
    let small = format!("{}\n", "A short fact the user stated once. ".repeat(3));
    for m in &stores {
        m.create("/memories/note.md", &body).unwrap();
    }
    let words = ["alpha", "omega"];
    let mut times: Vec<[Vec<f64>; 2]> = (0..4).map(|_| [Vec::new(), Vec::new()]).collect();
    for i in 0..N {
        for k in [i % 2, 1 - i % 2] {
            let m = &stores[k];
            times[0][k].push(time_ms(|| {
                m.str_replace("/memories/note.md", words[i % 2], words[(i + 1) % 2])
                    .unwrap();
            }));
            times[1][k].push(time_ms(|| {
                drop(m.create(&format!("/memories/new/{i}.md"), &body).unwrap())
            }));
            times[2][k].push(time_ms(|| {
                drop(
                    m.create(&format!("/memories/small/{i}.md"), &small)
                        .unwrap(),
                )
            }));
            times[3][k].push(time_ms(|| {
                drop(m.delete(&format!("/memories/small/{i}.md")).unwrap())
            }));
        }
    }
    let names = [
        "str_replace, 10 KB note",
        "create, 10 KB",
        "create, 100 bytes",
        "delete, 100 bytes",
    ];
    names
        .iter()
        .zip(times)
        .map(|(name, [on, off])| (*name, median_ms(on) * 1e3, median_ms(off) * 1e3))
        .collect()
}

/// The history's bytes on disk: its files' blocks (`st_blocks`, 512 bytes
/// each), what `du` counts.
fn history_on_disk(root: &std::path::Path) -> u64 {
    use std::os::unix::fs::MetadataExt;
    let mut total = 0;
    let mut stack = vec![root.join(".memcap/history")];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(dir).unwrap() {
            let meta = entry.as_ref().unwrap().metadata().unwrap();
            if meta.is_dir() {
                stack.push(entry.unwrap().path());
            } else {
                total += meta.blocks() * 512;
            }
        }
    }
    total
}

fn history_bytes(root: &std::path::Path) -> u64 {
    let mut total = 0;
    let mut stack = vec![root.join(".memcap/history")];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(dir).unwrap() {
            let entry = entry.unwrap();
            let meta = entry.metadata().unwrap();
            if meta.is_dir() {
                stack.push(entry.path());
            } else {
                total += meta.len();
            }
        }
    }
    total
}

fn main() {
    let warm = warm();
    let ratios = || {
        println!("the version history on a directory, medians of one run; ratios from it");
        println!("| measure | with history | without | ratio |");
        println!("|---|---:|---:|---:|");
        for (name, on, off) in &warm {
            println!(
                "| warm {name} (µs, {N} calls, interleaved) | {on:.0} | {off:.0} | {:.2}× |",
                on / off
            );
        }
    };
    // `cargo bench --bench history -- warm`: the warm calls only.
    if std::env::args().any(|a| a == "warm") {
        ratios();
        return;
    }
    let (blame_warm, blame_one_shot) = blame();
    let blamed = || {
        println!(
            "| blame of a 50-line note with 1,000 versions by 3 actors, warm (ms) | {blame_warm:.1} | | |"
        );
        println!("| the same, one-shot (fresh open + blame) (ms) | {blame_one_shot:.1} | | |");
    };
    if std::env::args().any(|a| a == "blame") {
        blamed();
        return;
    }

    // 10,000 notes of 100 bytes, each written once: the history on disk
    // against the bytes it holds (memory_stats).
    let dir = tempfile::tempdir().unwrap();
    let m = open(dir.path(), 256);
    for i in 0..10_000 {
        let text = format!("{i:05} {}", "A short fact the user stated. ".repeat(4));
        m.create(
            &format!("/memories/small/{i:05}.md"),
            &format!("{}\n", &text[..99]),
        )
        .unwrap();
    }
    let held = m.memory_stats().unwrap().history_bytes;
    let on_disk = history_on_disk(dir.path());
    drop(m);

    // A 10,000-note store whose history holds 10,000 versions.
    let dir = tempfile::tempdir().unwrap();
    let m = open(dir.path(), 256);
    for i in 0..10_000 {
        m.create(
            &format!("/memories/area-{:02}/note-{i:05}.md", i % 50),
            &format!(
                "---\nname: Note {i}\ndescription: note {i}\n---\n\n{}\n",
                "Body text. ".repeat(40)
            ),
        )
        .unwrap();
    }
    let list_store = median_ms(
        (0..20)
            .map(|_| {
                time_ms(|| {
                    assert_eq!(
                        m.history_list("/memories", None, None).unwrap().len(),
                        10_000
                    )
                })
            })
            .collect(),
    );
    // One note's versions and its blame, through the index by path; and
    // the same with the index removed before each (the whole log read,
    // as before the index, and the index written anew from it).
    let one_note = "/memories/area-07/note-00007.md";
    let index = dir.path().join(".memcap/history/paths.idx");
    assert!(index.exists(), "the upkeep wrote the index by path");
    let by_path = |m: &Memory, without: bool| {
        median_ms(
            (0..20)
                .map(|_| {
                    if without {
                        std::fs::remove_file(&index).unwrap();
                    }
                    time_ms(|| {
                        assert_eq!(m.history_list(one_note, None, None).unwrap().len(), 1);
                        assert_eq!(m.history_blame(one_note).unwrap().compared, 1);
                    })
                })
                .collect(),
        )
    };
    let one_indexed = by_path(&m, false);
    let one_whole_log = by_path(&m, true);
    drop(m);
    let one_shot = median_ms(
        (0..20)
            .map(|i| {
                time_ms(|| {
                    let m = open(dir.path(), 256);
                    m.create(&format!("/memories/one-shot-{i}.md"), "x\n")
                        .unwrap();
                })
            })
            .collect(),
    );

    // A note edited 10,000 times (10 KB): list its versions; bytes per byte.
    let dir = tempfile::tempdir().unwrap();
    let m = open(dir.path(), 256);
    let body = |i: usize| format!("{i:06}\n{}", "A line of a typical note.\n".repeat(400));
    m.create("/memories/busy.md", &body(0)).unwrap();
    let mut written = body(0).len() as u64;
    for i in 1..1_000 {
        m.create_or_replace_for_bench(&body(i));
        written += body(i).len() as u64;
    }
    let per_byte = history_bytes(dir.path()) as f64 / written as f64;
    for i in 1_000..10_000 {
        m.create_or_replace_for_bench(&body(i));
    }
    let list_note = median_ms(
        (0..20)
            .map(|_| {
                time_ms(|| {
                    assert!(
                        m.history_list("/memories/busy.md", None, None)
                            .unwrap()
                            .len()
                            >= 10_000
                    )
                })
            })
            .collect(),
    );

    ratios();
    println!(
        "| one-shot create (fresh open + call), 10,000 notes and versions (ms) | {one_shot:.1} | | |"
    );
    println!("| history list of a 10,000-note store (ms) | {list_store:.1} | | |");
    println!(
        "| history list + blame of one note in a 10,000-version store, by the index / with no index (the log read whole, the index written anew) (ms) | {one_indexed:.2} | {one_whole_log:.2} | {:.2}× |",
        one_indexed / one_whole_log
    );
    println!("| history list of a note with 10,000 versions (ms) | {list_note:.1} | | |");
    println!(
        "| history bytes per byte written, 10 KB note edited 1,000 times | {per_byte:.2} | | |"
    );
    println!(
        "| history on disk (blocks) / bytes it holds, 10,000 notes of 100 bytes | {:.2} ({on_disk} / {held}) | | |",
        on_disk as f64 / held as f64
    );
    blamed();
}

/// A 50-line note edited 999 times by three actors in turn, each edit one
/// of the middle lines; its first and last lines never change, so blame
/// compares every version. Medians of 20 (ms): warm, and one-shot.
fn blame() -> (f64, f64) {
    let dir = tempfile::tempdir().unwrap();
    let m = open(dir.path(), 256);
    let line = |k: usize, i: usize| format!("line {k}: a fact of a typical note, as of edit {i}");
    let mut lines: Vec<String> = (0..50).map(|k| line(k, 0)).collect();
    m.create("/memories/blamed.md", &(lines.join("\n") + "\n"))
        .unwrap();
    for i in 1..1_000 {
        m.set_actor(memcap::Actor::named(["alice", "bob", "carol"][i % 3]));
        let k = 1 + i % 48;
        let new = line(k, i);
        m.str_replace("/memories/blamed.md", &lines[k], &new)
            .unwrap();
        lines[k] = new;
    }
    let blame = |m: &Memory| {
        let b = m.history_blame("/memories/blamed.md").unwrap();
        assert_eq!((b.lines.len(), b.compared), (50, 1_000));
    };
    let warm = median_ms((0..20).map(|_| time_ms(|| blame(&m))).collect());
    drop(m);
    let one_shot = median_ms(
        (0..20)
            .map(|_| time_ms(|| blame(&open(dir.path(), 256))))
            .collect(),
    );
    (warm, one_shot)
}

trait ReplaceBusy {
    fn create_or_replace_for_bench(&self, text: &str);
}

impl ReplaceBusy for Memory {
    /// Replaces busy.md's whole content, as an agent's `create` with a
    /// precondition does.
    fn create_or_replace_for_bench(&self, text: &str) {
        let now = self.call_json(
            &serde_json::json!({"command": "view", "path": "/memories/busy.md"}).to_string(),
        );
        let sha = serde_json::from_str::<serde_json::Value>(&now.content).unwrap()["sha256"]
            .as_str()
            .unwrap()
            .to_owned();
        let r = self.call(
            &serde_json::json!({"command": "create", "path": "/memories/busy.md", "file_text": text,
                "precondition": {"type": "content_sha256", "content_sha256": sha}})
            .to_string(),
        );
        assert!(!r.is_error, "{}", r.content);
    }
}
