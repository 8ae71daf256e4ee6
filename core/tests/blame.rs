//! Blame on the in-memory storage: each line of a file now is owned by the
//! version, actor and time that last changed it, through edits by several
//! actors, a rename, a restore, another program's change and a redaction.

mod common;

use common::Store;
use memcap_core::Io;
use memcap_core::history::blame::Blame;
use memcap_core::history::host as history;
use memcap_core::storage::Storage;
use memcap_core::vocab::settings::{ACTOR, OUTSIDE_ACTOR};
use serde_json::json;

fn blame(s: &Store, path: &str) -> Blame {
    let io = Io::new(&s.fs, &s.env, &s.indexes);
    history::blame(&io, path).unwrap()
}

/// (line, actor, version, exact) of every line.
fn owners(b: &Blame) -> Vec<(String, String, Option<u64>, bool)> {
    b.lines
        .iter()
        .map(|l| {
            let o = &b.owners[l.owner];
            (l.text.clone(), o.actor.clone(), o.version, o.exact)
        })
        .collect()
}

fn line(
    text: &str,
    actor: &str,
    v: Option<u64>,
    exact: bool,
) -> (String, String, Option<u64>, bool) {
    (text.into(), actor.into(), v, exact)
}

/// Another program replaces `path` (relative) with `text`.
fn outside(s: &Store, path: &str, text: &str) {
    s.fs.write_new("elsewhere.tmp", text.as_bytes(), false)
        .unwrap();
    s.fs.rename("elsewhere.tmp", path).unwrap();
}

fn as_actor(s: &Store, name: &str) {
    s.env.set_var(ACTOR, Some(name));
}

#[test]
fn each_line_is_owned_by_whoever_changed_it_last_through_a_rename_and_a_restore() {
    let s = Store::new();
    as_actor(&s, "alice");
    s.ok(json!({"command": "create", "path": "/memories/a.md", "file_text": "one\ntwo\nthree\n"}));
    as_actor(&s, "bob");
    s.ok(json!({"command": "str_replace", "path": "/memories/a.md", "old_str": "two", "new_str": "TWO"}));
    s.next_second();
    as_actor(&s, "carol");
    s.ok(json!({"command": "insert", "path": "/memories/a.md", "insert_line": 3, "insert_text": "four"}));
    let b = blame(&s, "/memories/a.md");
    assert_eq!(
        owners(&b),
        [
            line("one", "alice", Some(1), true),
            line("TWO", "bob", Some(2), true),
            line("three", "alice", Some(1), true),
            line("four", "carol", Some(3), true),
        ]
    );
    let bob = &b.owners[b.lines[1].owner];
    assert_eq!(bob.t, Some(1_795_392_000));
    assert_eq!(b.owners[b.lines[3].owner].t, Some(1_795_392_001));

    // Carol's line undone by dave's restore of bob's version: the lines
    // that come back unchanged keep their owners.
    as_actor(&s, "dave");
    let io = Io::new(&s.fs, &s.env, &s.indexes);
    history::restore(&io, "/memories/a.md", 2).unwrap();
    s.ok(json!({"command": "str_replace", "path": "/memories/a.md", "old_str": "three", "new_str": "3"}));
    // A rename keeps every owner.
    s.ok(json!({"command": "rename", "old_path": "/memories/a.md", "new_path": "/memories/b.md"}));
    assert_eq!(s.file("b.md").as_deref(), Some("one\nTWO\n3\n"));
    let b = blame(&s, "/memories/b.md");
    assert_eq!(
        owners(&b),
        [
            line("one", "alice", Some(1), true),
            line("TWO", "bob", Some(2), true),
            line("3", "dave", Some(5), true),
        ]
    );
    // An edit that moves lines keeps their owners.
    as_actor(&s, "erin");
    s.ok(json!({"command": "str_replace", "path": "/memories/b.md", "old_str": "one\nTWO\n3", "new_str": "zero\n3\none\nTWO"}));
    assert_eq!(
        owners(&blame(&s, "/memories/b.md"))
            .into_iter()
            .map(|(t, a, _, _)| (t, a))
            .collect::<Vec<_>>(),
        [
            ("zero".into(), "erin".into()),
            ("3".into(), "erin".into()),
            ("one".into(), "alice".into()),
            ("TWO".into(), "bob".into()),
        ]
    );
}

#[test]
fn a_change_not_recorded_yet_has_no_version_and_a_gap_in_the_history_is_not_exact() {
    let s = Store::new();
    as_actor(&s, "alice");
    s.ok(json!({"command": "create", "path": "/memories/a.md", "file_text": "one\n"}));
    as_actor(&s, "bob");
    s.ok(json!({"command": "str_replace", "path": "/memories/a.md", "old_str": "one", "new_str": "one\nsecret"}));
    as_actor(&s, "carol");
    s.ok(json!({"command": "str_replace", "path": "/memories/a.md", "old_str": "secret", "new_str": "two"}));
    // Another program adds a line memcap has not recorded yet.
    outside(&s, "a.md", "one\ntwo\nthree\n");
    assert_eq!(
        owners(&blame(&s, "/memories/a.md")),
        [
            line("one", "alice", Some(1), true),
            line("two", "carol", Some(3), true),
            line("three", OUTSIDE_ACTOR, None, true),
        ]
    );
    // Bob's version redacted: what carol's version has that alice's had
    // not may be bob's or hers, and is said to be not exact.
    outside(&s, "a.md", "one\ntwo\n");
    let io = Io::new(&s.fs, &s.env, &s.indexes);
    history::redact(&io, "/memories/a.md", Some(2)).unwrap();
    assert_eq!(
        owners(&blame(&s, "/memories/a.md")),
        [
            line("one", "carol", Some(3), false),
            line("two", "carol", Some(3), false),
        ]
    );
}

#[test]
fn a_file_made_again_after_a_deletion_starts_over() {
    let s = Store::new();
    as_actor(&s, "alice");
    s.ok(json!({"command": "create", "path": "/memories/a.md", "file_text": "one\n"}));
    s.ok(json!({"command": "delete", "path": "/memories/a.md"}));
    as_actor(&s, "bob");
    s.ok(json!({"command": "create", "path": "/memories/a.md", "file_text": "one\ntwo\n"}));
    let b = blame(&s, "/memories/a.md");
    assert_eq!(
        owners(&b),
        [
            line("one", "bob", Some(3), true),
            line("two", "bob", Some(3), true)
        ]
    );
    assert_eq!(b.compared, 1);
    let io = Io::new(&s.fs, &s.env, &s.indexes);
    let e = history::blame(&io, "/memories/gone.md").unwrap_err();
    assert!(e.to_string().contains("does not exist"), "{e}");
}

#[test]
fn a_note_with_hundreds_of_versions_packed_and_loose_blames_every_line() {
    let s = Store::new();
    let text = |k: usize, i: usize| format!("line {k}, as of edit {i}");
    let mut lines: Vec<String> = (0..20).map(|k| text(k, 0)).collect();
    as_actor(&s, "alice");
    s.ok(json!({"command": "create", "path": "/memories/busy.md", "file_text": lines.join("\n") + "\n"}));
    let actors = ["alice", "bob", "carol"];
    let mut last = vec![("alice", 1u64); 20];
    // 600 edits: packed at the 256th and 512th versions, loose since.
    for i in 1..=600 {
        let k = 1 + i % 18;
        as_actor(&s, actors[i % 3]);
        let new = text(k, i);
        s.ok(json!({"command": "str_replace", "path": "/memories/busy.md", "old_str": lines[k], "new_str": new}));
        lines[k] = new;
        last[k] = (actors[i % 3], i as u64 + 1);
    }
    assert!(
        s.fs.files()
            .keys()
            .any(|p| p.starts_with(".memcap/history/packs/"))
    );
    let index = ".memcap/history/packs/index";
    let index_bytes = s.fs.files()[index].len() as u64;
    let counted = s.fs.count_reads_of(index);
    let b = blame(&s, "/memories/busy.md");
    // Hundreds of lookups: a few of one first byte's records, then every
    // record once, not a read a lookup.
    assert!(
        counted.get() <= 2 * index_bytes,
        "{} bytes read of a {index_bytes}-byte index",
        counted.get()
    );
    let want: Vec<_> = (0..20)
        .map(|k| line(&lines[k], last[k].0, Some(last[k].1), true))
        .collect();
    assert_eq!(owners(&b), want);
    // Lines 0 and 19 are as old as the note: every version was compared.
    assert_eq!(b.compared, 601);
}

#[test]
fn a_note_toggled_back_and_forth_reads_each_content_once_and_a_few_index_records() {
    let s = Store::new();
    as_actor(&s, "alice");
    // 400 other contents, packed at the 256th version: an index of
    // hundreds of records.
    for i in 0..400 {
        s.ok(
            json!({"command": "create", "path": format!("/memories/other/n{i}.md"),
            "file_text": format!("note {i}\n")}),
        );
    }
    let body = "x".repeat(2000);
    let (on, off) = ("state: on", "state: off");
    s.ok(json!({"command": "create", "path": "/memories/busy.md",
        "file_text": format!("{on}\n{body}\n")}));
    // 300 toggles of one line: 301 versions of two contents, packed at
    // the 512th version and loose since.
    as_actor(&s, "bob");
    for i in 0..300 {
        let (old, new) = if i % 2 == 0 { (on, off) } else { (off, on) };
        s.ok(
            json!({"command": "str_replace", "path": "/memories/busy.md",
            "old_str": old, "new_str": new}),
        );
    }
    let index = ".memcap/history/packs/index";
    let index_bytes = s.fs.files()[index].len();
    assert!(index_bytes > 10_000, "{index_bytes}");
    let counted = s.fs.count_reads_of(index);
    let before = s.fs.bytes_read();
    let b = blame(&s, "/memories/busy.md");
    let read = s.fs.bytes_read() - before;
    // The body is as old as the note: every version was compared, and
    // the toggled line is the last edit's.
    assert_eq!(b.compared, 301);
    assert_eq!(
        owners(&b),
        vec![
            line(on, "bob", Some(701), true),
            line(&body, "alice", Some(401), true),
        ]
    );
    // The index's fan-out and one first byte's records, not all of it;
    // the versions' lines (about 100 KB) and each content once, not once
    // a version (301 of 2 KB).
    assert!(
        counted.get() < 2_000,
        "{} of {index_bytes} index bytes",
        counted.get()
    );
    assert!(read < 160 << 10, "{read} bytes read");
}
