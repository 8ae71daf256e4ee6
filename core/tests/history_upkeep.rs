//! The history's upkeep every 256 versions (issue 55): between prunings
//! it files the versions since in the index by path from the log's end,
//! never reading the whole log; a version past its days still goes at the
//! next upkeep, and a file's newest version stays while the file is there.

mod common;

use common::Store;
use memcap_core::Io;
use memcap_core::history::host as history;
use memcap_core::history::version::Version;
use memcap_core::storage::Storage;
use serde_json::json;

const LOG: &str = ".memcap/history/log.jsonl";

fn versions(s: &Store, path: &str) -> Vec<Version> {
    let io = Io::new(&s.fs, &s.env, &s.indexes);
    history::list(&io, path, None, None).unwrap()
}

/// Version `n` of the store's history, one of 20 notes made by the 20
/// calls from `first` on, then edited in turn: one version a call.
fn write(s: &Store, n: u64, first: u64) {
    let note = format!("/memories/notes/{}.md", n % 20);
    if n < first + 20 {
        s.ok(json!({"command": "create", "path": note, "file_text": format!("v{n}\n")}));
    } else {
        s.ok(json!({"command": "str_replace", "path": note,
            "old_str": format!("v{}\n", n - 20), "new_str": format!("v{n}\n")}));
    }
}

#[test]
fn the_upkeep_between_prunings_reads_the_logs_end_not_all_of_it() {
    let s = Store::new();
    for n in 1..2560 {
        write(&s, n, 1);
    }
    let log = s.fs.files()[LOG].len() as u64;
    // Version 2,560 is an upkeep's (ten times 256).
    let counted = s.fs.count_reads_of(LOG);
    write(&s, 2560, 1);
    let read = counted.get();
    assert!(read < log / 3, "{read} bytes read of a {log}-byte log");
    // What it filed: a file's versions are read through the index, all
    // of them, in order.
    let counted = s.fs.count_reads_of(LOG);
    let found = versions(&s, "/memories/notes/7.md");
    assert!(counted.get() < log / 3, "{} bytes read", counted.get());
    let numbers: Vec<u64> = found.iter().map(|v| v.v).collect();
    let expected: Vec<u64> = (1..=2560).rev().filter(|n| n % 20 == 7).collect();
    assert_eq!(numbers, expected);
    // And the same as a new instance reading the whole log finds.
    s.fs.remove_file(memcap_core::layout::HISTORY_PATHS)
        .unwrap();
    s.restarted();
    assert_eq!(versions(&s, "/memories/notes/7.md"), found);
}

#[test]
fn a_version_past_its_days_goes_at_the_next_upkeep() {
    let s = Store::new();
    s.ok(json!({"command": "create", "path": "/memories/kept.md", "file_text": "one\n"}));
    s.ok(
        json!({"command": "str_replace", "path": "/memories/kept.md",
        "old_str": "one", "new_str": "two"}),
    );
    s.ok(json!({"command": "create", "path": "/memories/gone.md", "file_text": "x\n"}));
    s.ok(json!({"command": "delete", "path": "/memories/gone.md"}));
    // Past one upkeep (which writes the index by path).
    for n in 5..=300 {
        write(&s, n, 5);
    }
    // 31 days on, past the 30 the history keeps by default.
    s.env.now.set(s.env.now.get() + 31 * 86_400);
    for n in 301..512 {
        write(&s, n, 5);
    }
    // Not yet: ages are looked at every 256 versions.
    assert_eq!(versions(&s, "/memories/kept.md").len(), 2);
    write(&s, 512, 5);
    let kept: Vec<u64> = versions(&s, "/memories/kept.md")
        .iter()
        .map(|v| v.v)
        .collect();
    assert_eq!(kept, [2], "the newest version of a file still there stays");
    assert_eq!(versions(&s, "/memories/gone.md"), []);
    // Of a note's versions, those written within the days.
    let note: Vec<u64> = versions(&s, "/memories/notes/7.md")
        .iter()
        .map(|v| v.v)
        .collect();
    assert_eq!(
        note,
        (301..=512)
            .rev()
            .filter(|n| n % 20 == 7)
            .collect::<Vec<u64>>()
    );
}
