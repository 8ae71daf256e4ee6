//! The version history on the in-memory storage: every change a command
//! makes is a version with its exact content and the host's actor, in
//! order; restore, undelete and revert give content back without touching
//! anyone else's later work; redaction leaves not one byte of a secret in
//! any file; retention keeps the history within its bound.

mod common;

use common::Store;
use memcap_core::history::host as history;
use memcap_core::history::{Op, Version};
use memcap_core::vocab::settings::{ACTOR, HISTORY_MIB};
use memcap_core::{Io, command::Command};
use serde_json::json;
use sha2::{Digest, Sha256};

fn sha(bytes: &[u8]) -> String {
    Sha256::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

fn versions(s: &Store, path: &str) -> Vec<Version> {
    let io = Io::new(&s.fs, &s.env, &s.indexes);
    history::list(&io, path, None, None).unwrap()
}

fn show(s: &Store, path: &str, n: u64) -> Vec<u8> {
    let io = Io::new(&s.fs, &s.env, &s.indexes);
    history::show(&io, path, n).unwrap()
}

/// (op, path, actor) of every version, oldest first.
fn ops(s: &Store) -> Vec<(Op, String, String)> {
    let mut all = versions(s, "/memories");
    all.reverse();
    all.into_iter().map(|v| (v.op, v.path, v.actor)).collect()
}

fn as_actor(s: &Store, name: &str) {
    s.env.set_var(ACTOR, Some(name));
}

#[test]
fn every_command_records_its_versions_in_order_with_the_exact_content() {
    let s = Store::new();
    as_actor(&s, "alice");
    s.ok(json!({"command": "create", "path": "/memories/a.md", "file_text": "one\n"}));
    s.ok(json!({"command": "str_replace", "path": "/memories/a.md", "old_str": "one", "new_str": "two"}));
    s.ok(json!({"command": "insert", "path": "/memories/a.md", "insert_line": 1, "insert_text": "three"}));
    as_actor(&s, "bob");
    s.ok(
        json!({"command": "rename", "old_path": "/memories/a.md", "new_path": "/memories/d/b.md"}),
    );
    s.ok(
        json!({"command": "memory_write", "filename": "n", "name": "N", "description": "d",
        "type": "user", "content": "note body"}),
    );
    s.ok(
        json!({"command": "memory_update", "filename": "n", "old_str": "body", "new_str": "text"}),
    );
    s.ok(json!({"command": "memory_delete", "filename": "n"}));
    s.ok(json!({"command": "delete", "path": "/memories/d"}));
    let io = Io::new(&s.fs, &s.env, &s.indexes);
    memcap_core::execute(
        &io,
        Command::RecordTurn {
            session: "s1".into(),
            role: memcap_core::vocab::Role::User,
            text: "hello".into(),
        },
    )
    .unwrap();
    // A view, a failed write and a search record nothing.
    s.ok(json!({"command": "view", "path": "/memories"}));
    s.err(json!({"command": "create", "path": "/memories/chat/s1.md", "file_text": "x"}));
    s.err(json!({"command": "str_replace", "path": "/memories/chat/s1.md", "old_str": "hello", "new_str": "x"}));
    let a = |op, p: &str, who: &str| (op, p.to_owned(), who.to_owned());
    assert_eq!(
        ops(&s),
        vec![
            a(Op::Created, "a.md", "alice"),
            a(Op::Modified, "a.md", "alice"),
            a(Op::Modified, "a.md", "alice"),
            a(Op::Renamed, "d/b.md", "bob"),
            a(Op::Created, "n.md", "bob"),
            a(Op::Modified, "n.md", "bob"),
            a(Op::Deleted, "n.md", "bob"),
            a(Op::Deleted, "d/b.md", "bob"),
            a(Op::Created, "chat/s1.md", "bob"),
        ]
    );
    let all = versions(&s, "/memories");
    assert!(all.windows(2).all(|w| w[0].v > w[1].v), "newest first");
    let a_versions = versions(&s, "/memories/a.md");
    assert_eq!(a_versions.len(), 4, "a.md's own and its rename away");
    assert_eq!(show(&s, "/memories/a.md", 1), b"one\n");
    assert_eq!(show(&s, "/memories/a.md", 2), b"two\n");
    assert_eq!(show(&s, "/memories/a.md", 3), b"two\nthree\n");
    let renamed = &versions(&s, "/memories/d/b.md")[1];
    assert_eq!(renamed.from.as_deref(), Some("a.md"));
    assert_eq!(
        renamed.sha256.as_deref(),
        Some(sha(b"two\nthree\n").as_str())
    );
    let deleted = &versions(&s, "/memories/d/b.md")[0];
    assert_eq!((deleted.sha256.as_deref(), deleted.size), (None, 0));
    assert_eq!(deleted.prev.as_deref(), Some(sha(b"two\nthree\n").as_str()));
    // Nothing of the history shows to the agent.
    let listing = s.ok(json!({"command": "view", "path": "/memories"}));
    assert!(
        !listing.contains(".memcap") && !listing.contains("history"),
        "{listing}"
    );
    let index = s.file("MEMORY.md").unwrap();
    assert!(!index.contains("history"), "{index}");
}

#[test]
fn restore_brings_back_a_file_a_deleted_file_and_a_directory() {
    let s = Store::new();
    s.ok(json!({"command": "create", "path": "/memories/p/a.md", "file_text": "a1\n"}));
    s.ok(json!({"command": "create", "path": "/memories/p/b.md", "file_text": "b1\n"}));
    s.ok(json!({"command": "str_replace", "path": "/memories/p/a.md", "old_str": "a1", "new_str": "a2"}));
    let io = Io::new(&s.fs, &s.env, &s.indexes);
    // A file: back to version 1, as a new version.
    let done = history::restore(&io, "/memories/p/a.md", 1).unwrap();
    assert_eq!(done.restored, ["/memories/p/a.md"]);
    assert_eq!(s.file("p/a.md").unwrap(), "a1\n");
    let newest = &versions(&s, "/memories/p/a.md")[0];
    assert_eq!((newest.op, newest.v), (Op::Restored, 4));
    // A deleted directory: undeleted as it was at version 3.
    s.ok(json!({"command": "delete", "path": "/memories/p"}));
    assert!(s.file("p/b.md").is_none());
    let io = Io::new(&s.fs, &s.env, &s.indexes);
    let done = history::restore(&io, "/memories/p", 3).unwrap();
    assert_eq!(done.restored, ["/memories/p/a.md", "/memories/p/b.md"]);
    assert_eq!(s.file("p/a.md").unwrap(), "a2\n");
    assert_eq!(s.file("p/b.md").unwrap(), "b1\n");
    // The agent sees them again, and the index lists them.
    let view = s.ok(json!({"command": "view", "path": "/memories/p/b.md"}));
    assert!(view.contains("b1"), "{view}");
    // A deletion has no content to give back: the error says what to pick.
    let deletion = versions(&s, "/memories/p/b.md")
        .into_iter()
        .find(|v| v.op == Op::Deleted)
        .unwrap();
    let e = history::restore(&io, "/memories/p/b.md", deletion.v).unwrap_err();
    assert!(e.to_string().contains("Pick the version before it"), "{e}");
    let e = history::restore(&io, "/memories/p/b.md", 999).unwrap_err();
    assert!(e.to_string().contains("no version 999"), "{e}");
}

#[test]
fn revert_undoes_one_actor_since_a_time_and_leaves_later_work_by_others() {
    let s = Store::new();
    as_actor(&s, "alice");
    s.ok(json!({"command": "create", "path": "/memories/keep.md", "file_text": "alice's\n"}));
    s.ok(json!({"command": "create", "path": "/memories/shared.md", "file_text": "v1\n"}));
    s.env.now.set(s.env.now.get() + 60);
    let since = "2026-11-23T00:01:00Z";
    as_actor(&s, "mallory");
    s.ok(json!({"command": "delete", "path": "/memories/keep.md"}));
    s.ok(json!({"command": "create", "path": "/memories/junk.md", "file_text": "junk\n"}));
    s.ok(json!({"command": "str_replace", "path": "/memories/shared.md", "old_str": "v1", "new_str": "bad"}));
    as_actor(&s, "bob");
    s.ok(json!({"command": "str_replace", "path": "/memories/shared.md", "old_str": "bad", "new_str": "bob fixed"}));
    s.ok(json!({"command": "create", "path": "/memories/bob.md", "file_text": "bob's\n"}));
    let io = Io::new(&s.fs, &s.env, &s.indexes);
    as_actor(&s, "admin");
    let done = history::revert(&io, since, Some("mallory")).unwrap();
    assert_eq!(done.restored, ["/memories/keep.md"]);
    assert_eq!(done.removed, ["/memories/junk.md"]);
    assert_eq!(done.left.len(), 1, "{done:?}");
    assert_eq!(done.left[0].0, "/memories/shared.md");
    assert!(done.left[0].1.contains("changed later by bob"), "{done:?}");
    assert_eq!(s.file("keep.md").unwrap(), "alice's\n");
    assert!(s.file("junk.md").is_none());
    assert_eq!(s.file("shared.md").unwrap(), "bob fixed\n");
    assert_eq!(s.file("bob.md").unwrap(), "bob's\n");
    let newest = &versions(&s, "/memories/keep.md")[0];
    assert_eq!((newest.op, newest.actor.as_str()), (Op::Restored, "admin"));
    // Without --by, everything since goes, bob's too; the reverts
    // themselves are after `since` as well, and are undone with it.
    let done = history::revert(&io, since, None).unwrap();
    assert!(s.file("bob.md").is_none(), "{done:?}");
    assert_eq!(s.file("shared.md").unwrap(), "v1\n");
    assert_eq!(s.file("keep.md").unwrap(), "alice's\n");
    let e = history::revert(&io, "yesterday-ish", None).unwrap_err();
    assert!(e.to_string().contains("is not a time"), "{e}");
}

#[test]
fn a_file_changed_behind_memcaps_back_is_kept_before_memcap_overwrites_it() {
    use memcap_core::storage::Storage;
    let s = Store::new();
    s.fs.write_new("outside.md", b"written by an editor\n", false)
        .unwrap();
    s.ok(json!({"command": "str_replace", "path": "/memories/outside.md", "old_str": "an editor", "new_str": "memcap"}));
    let all = versions(&s, "/memories/outside.md");
    assert_eq!(all.len(), 2);
    assert_eq!(all[1].actor, "(outside memcap)");
    assert_eq!(
        show(&s, "/memories/outside.md", all[1].v),
        b"written by an editor\n"
    );
    assert_eq!(all[0].actor, "memcap");
    // Reverting memcap's change since then does not remove the file
    // another program made.
    let io = Io::new(&s.fs, &s.env, &s.indexes);
    history::revert(&io, "2026-11-01", None).unwrap();
    assert_eq!(s.file("outside.md").unwrap(), "written by an editor\n");
}

#[test]
fn redaction_leaves_no_byte_of_a_secret_anywhere_and_search_cannot_find_it() {
    let s = Store::new();
    let secret = "Hunter2-SecretToken-9f8e7d";
    s.ok(
        json!({"command": "memory_write", "filename": "creds", "name": "Creds",
        "description": format!("the key is {secret}"), "type": "reference",
        "content": format!("Use {secret} to log in.\n")}),
    );
    s.ok(json!({"command": "memory_search", "query": secret}));
    s.ok(
        json!({"command": "memory_write", "filename": "creds", "name": "Creds",
        "description": "rotated", "type": "reference", "content": "The key was rotated.\n"}),
    );
    let io = Io::new(&s.fs, &s.env, &s.indexes);
    as_actor(&s, "security");
    // The current content cannot be redacted by number: the file holds it.
    let current = versions(&s, "/memories/creds.md")[0].v;
    let e = history::redact(&io, "/memories/creds.md", Some(current)).unwrap_err();
    assert!(
        e.to_string().contains("Change or delete the file first"),
        "{e}"
    );
    let done = history::redact(&io, "/memories/creds.md", None).unwrap();
    assert_eq!(done.versions.len(), 1, "{done:?}");
    assert_eq!(done.current, [current]);
    s.ok(json!({"command": "memory_view"}));
    let forms = [
        secret.to_owned(),
        secret.to_lowercase(),
        secret.bytes().map(|b| format!("{b:02x}")).collect(),
    ];
    for (path, bytes) in s.fs.files() {
        let text = String::from_utf8_lossy(&bytes).to_lowercase();
        for form in &forms {
            assert!(!text.contains(&form.to_lowercase()), "{form} in {path}");
        }
    }
    let (found, _) = s.json(json!({"command": "memory_search", "query": secret}));
    assert_eq!(found["results"], json!([]), "{found}");
    let (found, _) = s.json(json!({"command": "memory_search", "query": "rotated"}));
    assert_eq!(
        found["results"].as_array().map(Vec::len),
        Some(1),
        "{found}"
    );
    // The record stays, marked.
    let redacted = versions(&s, "/memories/creds.md")
        .into_iter()
        .find(|v| v.redacted.is_some())
        .unwrap();
    assert_eq!(redacted.sha256, None);
    assert_eq!(redacted.redacted.as_ref().unwrap().actor, "security");
    let e = history::show(&io, "/memories/creds.md", redacted.v).unwrap_err();
    assert!(e.to_string().contains("redacted by security"), "{e}");
}

#[test]
fn retention_keeps_history_within_its_bytes_and_the_newest_versions_whole() {
    let s = Store::new();
    s.env.set_var(HISTORY_MIB, Some("1"));
    let body = |i: usize| format!("{i:06}\n{}\n", "x".repeat(10_000));
    s.ok(json!({"command": "create", "path": "/memories/big.md", "file_text": body(0)}));
    for i in 1..1_000 {
        s.ok(json!({"command": "create", "path": "/memories/big.md", "file_text": body(i),
            "precondition": {"type": "content_sha256", "content_sha256": sha(body(i - 1).as_bytes())}}));
    }
    let history_bytes: u64 =
        s.fs.files()
            .iter()
            .filter(|(p, _)| p.starts_with(".memcap/history/"))
            .map(|(_, b)| b.len() as u64)
            .sum();
    assert!(
        history_bytes <= 1 << 20,
        "history holds {history_bytes} bytes"
    );
    let kept = versions(&s, "/memories/big.md");
    assert!(
        kept.len() >= 50 && kept.len() < 1_000,
        "{} kept",
        kept.len()
    );
    assert_eq!(kept[0].v, 1_000);
    for v in kept.iter().take(20) {
        assert_eq!(
            show(&s, "/memories/big.md", v.v),
            body(v.v as usize - 1).as_bytes()
        );
    }
    // History off: nothing recorded.
    let off = Store::new();
    off.env.set_var(HISTORY_MIB, Some("0"));
    off.ok(json!({"command": "create", "path": "/memories/a.md", "file_text": "x"}));
    assert!(versions(&off, "/memories").is_empty());
}

/// A version line as a crash leaves it (`mark`: `!` in flight, `` for a
/// memcap before marks).
fn crashed_line(mark: &str, v: u64, path: &str, content: &str) -> String {
    let line = json!({"v": v, "t": 1, "path": path, "op": "created",
        "sha256": sha(content.as_bytes()), "size": content.len(), "actor": "crashed"});
    format!("{mark}{line}\n")
}

#[test]
fn a_change_interrupted_between_its_versions_and_the_log_is_settled_by_the_next() {
    use memcap_core::storage::Storage;
    let s = Store::new();
    s.ok(json!({"command": "create", "path": "/memories/a.md", "file_text": "a\n"}));
    // As a crash leaves it: versions in flight at the log's end, one made
    // (b.md is there with that content), one not (c.md is not).
    let log = ".memcap/history/log.jsonl";
    let end = s.fs.files()[log].len() as u64;
    let flight = crashed_line("!", 2, "b.md", "b\n") + &crashed_line("!", 3, "c.md", "c\n");
    s.fs.write_at(log, end, flight.as_bytes()).unwrap();
    s.fs.write_new("b.md", b"b\n", false).unwrap();
    // Readers see only what is on record.
    assert_eq!(versions(&s, "/memories").len(), 1);
    s.ok(json!({"command": "create", "path": "/memories/d.md", "file_text": "d\n"}));
    let paths: Vec<(u64, String)> = versions(&s, "/memories")
        .into_iter()
        .map(|v| (v.v, v.path))
        .collect();
    assert_eq!(
        paths,
        [
            (3, "d.md".to_owned()),
            (2, "b.md".to_owned()),
            (1, "a.md".to_owned())
        ]
    );
    // Nothing is left in flight, and the count memory_stats reads is right.
    let text = String::from_utf8(s.fs.files()[log].clone()).unwrap();
    assert!(!text.lines().any(|l| l.starts_with('!')), "{text}");
    assert_eq!(text.lines().filter(|l| l.starts_with('#')).count(), 2);
    let (stats, _) = s.json(json!({"command": "memory_stats"}));
    assert_eq!(stats["historyVersions"], 3, "{text}");
}

#[test]
fn failed_changes_do_not_grow_the_log() {
    let s = Store::new();
    s.ok(json!({"command": "create", "path": "/memories/a.md", "file_text": "a\n"}));
    let log = ".memcap/history/log.jsonl";
    // A create over a file fails after its version was written in flight.
    let fail = |s: &Store| {
        s.err(json!({"command": "create", "path": "/memories/a.md", "file_text": "b\n"}));
    };
    fail(&s);
    let once = s.fs.files()[log].len();
    for _ in 0..500 {
        fail(&s);
    }
    // (A line's length varies by a few digits of its stamp.)
    assert!(
        s.fs.files()[log].len() < once + 32,
        "500 failed creates grew the log: {}",
        String::from_utf8_lossy(&s.fs.files()[log])
    );
    // The next change writes over what they left, and nothing is lost.
    s.ok(json!({"command": "create", "path": "/memories/c.md", "file_text": "c\n"}));
    s.ok(json!({"command": "create", "path": "/memories/long-name-for-a-longer-line.md", "file_text": "d\n"}));
    let text = String::from_utf8(s.fs.files()[log].clone()).unwrap();
    assert!(text.len() <= once * 3, "{text}");
    let listed: Vec<(u64, String)> = versions(&s, "/memories")
        .into_iter()
        .map(|v| (v.v, v.path))
        .collect();
    assert_eq!(
        listed,
        [
            (3, "long-name-for-a-longer-line.md".to_owned()),
            (2, "c.md".to_owned()),
            (1, "a.md".to_owned())
        ],
        "{text}"
    );
    let (stats, _) = s.json(json!({"command": "memory_stats"}));
    assert_eq!(stats["historyVersions"], 3, "{text}");
}

#[test]
fn a_change_a_memcap_before_marks_left_in_flight_is_settled_too() {
    use memcap_core::storage::Storage;
    let s = Store::new();
    s.ok(json!({"command": "create", "path": "/memories/a.md", "file_text": "a\n"}));
    // The log as such a memcap wrote it (no marks), its changes in flight
    // in a file of their own.
    let log = ".memcap/history/log.jsonl";
    let old = String::from_utf8(s.fs.files()[log].clone()).unwrap();
    s.fs.remove_file(log).unwrap();
    s.fs.write_new(log, old.trim_start().as_bytes(), false)
        .unwrap();
    let pending = crashed_line("", 2, "b.md", "b\n") + &crashed_line("", 3, "c.md", "c\n");
    s.fs.write_new(".memcap/history/pending.jsonl", pending.as_bytes(), false)
        .unwrap();
    s.fs.write_new("b.md", b"b\n", false).unwrap();
    s.ok(json!({"command": "create", "path": "/memories/d.md", "file_text": "d\n"}));
    let paths: Vec<u64> = versions(&s, "/memories").into_iter().map(|v| v.v).collect();
    assert_eq!(paths, [3, 2, 1]);
    assert!(!s.fs.files().contains_key(".memcap/history/pending.jsonl"));
}

#[test]
fn agents_read_history_and_cannot_change_it() {
    let s = Store::new();
    as_actor(&s, "claude-code");
    s.ok(json!({"command": "create", "path": "/memories/a.md", "file_text": "first\n"}));
    s.ok(json!({"command": "str_replace", "path": "/memories/a.md", "old_str": "first", "new_str": "second"}));
    let list = s.ok(json!({"command": "memory_history", "path": "/memories/a.md"}));
    assert!(
        list.contains("Versions of /memories/a.md, newest first (2 in all"),
        "{list}"
    );
    assert!(
        list.contains("version 2 ·") && list.contains("modified /memories/a.md by claude-code"),
        "{list}"
    );
    let old = s.ok(json!({"command": "memory_history", "path": "/memories/a.md", "version": 1}));
    assert!(old.ends_with("first\n"), "{old}");
    let (data, _) = s.json(json!({"command": "memory_history", "path": "/memories/a.md"}));
    assert_eq!(data["versions"][0]["actor"], "claude-code");
    assert_eq!(data["versions"][1]["sha256"], sha(b"first\n"));
    for forbidden in ["history_restore", "history_redact", "revert", "redact"] {
        let e = s.err(json!({"command": forbidden, "path": "/memories/a.md"}));
        assert!(
            e.contains("Unknown command") || e.contains("unknown"),
            "{e}"
        );
    }
    let e = s.err(json!({"command": "memory_history", "path": "/memories/.memcap/history"}));
    assert!(!e.is_empty());
    let e = s.err(json!({"command": "memory_history", "path": "/memories/a.md", "version": 9}));
    assert!(e.contains("no version 9"), "{e}");
}

#[test]
fn changes_a_watcher_reports_are_recorded_as_another_programs() {
    use memcap_core::storage::Storage;
    let s = Store::new();
    as_actor(&s, "alice");
    s.ok(json!({"command": "create", "path": "/memories/a.md", "file_text": "mine\n"}));
    s.fs.write_at("a.md", 0, b"MINE\n").unwrap();
    s.fs.write_new("new.md", b"dropped in\n", false).unwrap();
    let io = Io::new(&s.fs, &s.env, &s.indexes);
    let report = vec![
        "/memories/a.md".to_owned(),
        "/memories/new.md".to_owned(),
        "/memories/gone.md".to_owned(),
    ];
    memcap_core::execute(
        &io,
        Command::Changed {
            paths: report.clone(),
        },
    )
    .unwrap();
    // Reported again with nothing new: nothing more recorded.
    memcap_core::execute(&io, Command::Changed { paths: report }).unwrap();
    let a = |op, p: &str, who: &str| (op, p.to_owned(), who.to_owned());
    assert_eq!(
        ops(&s),
        vec![
            a(Op::Created, "a.md", "alice"),
            a(Op::Modified, "a.md", "(outside memcap)"),
            a(Op::Created, "new.md", "(outside memcap)"),
        ]
    );
    assert_eq!(show(&s, "/memories/a.md", 2), b"MINE\n");
}

#[test]
fn files_the_walk_finds_changed_by_another_program_are_recorded() {
    use memcap_core::storage::Storage;
    let s = Store::new();
    s.ok(json!({"command": "create", "path": "/memories/a.md", "file_text": "mine\n"}));
    s.fs.write_new("dropped.md", b"from an editor\n", false)
        .unwrap();
    s.fs.remove_file("a.md").unwrap();
    // Any answer that looks at the store finds them.
    s.ok(json!({"command": "view", "path": "/memories"}));
    s.ok(json!({"command": "memory_view"}));
    let a = |op, p: &str, who: &str| (op, p.to_owned(), who.to_owned());
    assert_eq!(
        ops(&s),
        vec![
            a(Op::Created, "a.md", "memcap"),
            // In the order the walk found them.
            a(Op::Created, "dropped.md", "(outside memcap)"),
            a(Op::Deleted, "a.md", "(outside memcap)"),
        ]
    );
}

#[test]
fn an_actor_name_is_one_bounded_line_and_never_one_memcap_keeps_for_itself() {
    let s = Store::new();
    let long = "x".repeat(1 << 20);
    let cases = [
        ("(outside memcap)", "'(outside memcap)'"),
        (
            "alice\n2026-11-23T00:00:00Z  created  /memories/forged.md  admin",
            "alice 2026-11-23T00:00:00Z created /memories/forged.md admin",
        ),
        ("\u{202e}bob\u{200b}", "bob"),
        ("  \t ", "memcap"),
    ];
    for (i, (sent, recorded)) in cases.iter().enumerate() {
        as_actor(&s, sent);
        let path = format!("/memories/a{i}.md");
        s.ok(json!({"command": "create", "path": path, "file_text": "x\n"}));
        assert_eq!(versions(&s, &path)[0].actor, *recorded, "{sent:?}");
    }
    as_actor(&s, &long);
    s.ok(json!({"command": "create", "path": "/memories/long.md", "file_text": "x\n"}));
    let actor = &versions(&s, "/memories/long.md")[0].actor;
    assert_eq!(actor.chars().count(), 64, "{actor}");
    // A client that called itself `(outside memcap)` is undone like anyone:
    // revert skips only what memcap found changed by another program.
    as_actor(&s, "(outside memcap)");
    s.ok(json!({"command": "create", "path": "/memories/planted.md", "file_text": "trust me\n"}));
    let io = Io::new(&s.fs, &s.env, &s.indexes);
    history::revert(&io, "2026-11-01", None).unwrap();
    assert!(s.file("planted.md").is_none());
}

/// The bytes the history keeps on disk: its log and its contents.
fn history_bytes(s: &Store) -> u64 {
    s.fs.files()
        .iter()
        .filter(|(p, _)| p.starts_with(".memcap/history/"))
        .map(|(_, b)| b.len() as u64)
        .sum()
}

#[test]
fn renames_of_a_long_path_keep_the_log_within_its_bound_and_counted() {
    // What an agent can do to jam a log: move one note back and forth
    // between two long paths, each move a long line and no new content.
    let s = Store::new();
    s.env.set_var(HISTORY_MIB, Some("1"));
    let dir = |c: char| {
        (0..4)
            .map(|_| c.to_string().repeat(200))
            .collect::<Vec<_>>()
            .join("/")
    };
    let (a, b) = (
        format!("/memories/{}/n.md", dir('a')),
        format!("/memories/{}/n.md", dir('b')),
    );
    s.ok(json!({"command": "create", "path": a, "file_text": "a note\n"}));
    for i in 0..1_500 {
        let (from, to) = if i % 2 == 0 { (&a, &b) } else { (&b, &a) };
        s.ok(json!({"command": "rename", "old_path": from, "new_path": to}));
    }
    let held = history_bytes(&s);
    assert!(held <= 1 << 20, "the history holds {held} bytes");
    // What memory_stats says is what the log holds, read from its ends.
    let (stats, _) = s.json(json!({"command": "memory_stats"}));
    let listed = versions(&s, "/memories").len() as u64;
    assert_eq!(stats["historyVersions"], listed, "{stats}");
    assert!(listed > 100 && listed < 1_501, "{listed} versions");
    assert_eq!(stats.get("historyProblem"), None, "{stats}");
    let before = s.fs.bytes_read();
    s.ok(json!({"command": "memory_stats"}));
    let log = s.fs.files()[".memcap/history/log.jsonl"].len() as u64;
    assert!(
        s.fs.bytes_read() - before < log / 2,
        "memory_stats read the whole log"
    );
}

#[test]
fn a_history_its_live_files_alone_fill_is_not_read_whole_by_every_change() {
    let s = Store::new();
    s.env.set_var(HISTORY_MIB, Some("1"));
    // 600 live files at long paths: their newest versions alone (log lines
    // and contents) pass the 1 MiB bound, so no pruning gets under it.
    let path = |i: usize| format!("/memories/{}/{i}.md", "p".repeat(200));
    for i in 0..600 {
        s.ok(json!({"command": "create", "path": path(i), "file_text": format!("{i}{}", "x".repeat(1_500))}));
    }
    assert!(history_bytes(&s) > 1 << 20);
    let log = s.fs.files()[".memcap/history/log.jsonl"].len() as u64;
    for i in 0..20 {
        let before = s.fs.bytes_read();
        s.ok(json!({"command": "create", "path": format!("/memories/small{i}.md"), "file_text": format!("{i}\n")}));
        let read = s.fs.bytes_read() - before;
        assert!(
            read < log / 4,
            "change {i} read {read} bytes of a {log}-byte log"
        );
    }
    // Deleting the files lets the next pruning due get under the bound.
    for i in 0..600 {
        s.ok(json!({"command": "delete", "path": path(i)}));
    }
    for i in 0..300 {
        s.ok(json!({"command": "create", "path": format!("/memories/again{i}.md"), "file_text": format!("{i}\n")}));
    }
    assert!(history_bytes(&s) <= 1 << 20, "{} bytes", history_bytes(&s));
}

#[test]
fn a_pruning_that_fails_is_shown_by_memory_stats_until_one_succeeds() {
    let s = Store::new();
    s.env.set_var(HISTORY_MIB, Some("1"));
    let problem = |s: &Store| {
        let (stats, _) = s.json(json!({"command": "memory_stats"}));
        stats
            .get("historyProblem")
            .and_then(|p| p.as_str())
            .map(str::to_owned)
    };
    for i in 0..255 {
        s.ok(json!({"command": "create", "path": format!("/memories/{i}.md"), "file_text": "x\n"}));
    }
    assert_eq!(problem(&s), None);
    // The 256th version is an upkeep's turn; it cannot list the contents,
    // and says at which step it stopped.
    s.fs.refuse_listing(Some(".memcap/history/blobs"));
    s.ok(json!({"command": "create", "path": "/memories/256.md", "file_text": "y\n"}));
    let said = problem(&s).expect("the failed pruning is shown");
    assert!(
        said.contains("Could not plan the packing of the history of /memories")
            && said.contains("permission denied"),
        "{said}"
    );
    assert_eq!(
        versions(&s, "/memories").len(),
        256,
        "the change is recorded all the same"
    );
    // The next pruning that succeeds clears it: one over the bytes.
    s.fs.refuse_listing(None);
    s.ok(json!({"command": "create", "path": "/memories/big.md", "file_text": "z".repeat(1_200_000)}));
    assert_eq!(problem(&s), None);
}

#[test]
fn redacting_every_version_of_a_path_erases_its_name_too() {
    let s = Store::new();
    let secret = "sk-live-Quokka-4417";
    let named = format!("/memories/keys/{secret}.md");
    s.ok(json!({"command": "create", "path": named, "file_text": "the key\n"}));
    s.ok(json!({"command": "rename", "old_path": named, "new_path": "/memories/keys/rotated.md"}));
    s.ok(json!({"command": "create", "path": "/memories/gone.md", "file_text": "x\n"}));
    s.ok(json!({"command": "delete", "path": "/memories/gone.md"}));
    let held = |s: &Store| {
        s.fs.files().into_iter().any(|(path, bytes)| {
            path.contains(secret) || String::from_utf8_lossy(&bytes).contains(secret)
        })
    };
    assert!(held(&s), "the log holds the name (so this test can fail)");
    let io = Io::new(&s.fs, &s.env, &s.indexes);
    let report = history::redact(&io, &named, None).unwrap();
    assert_eq!(report.names, 1);
    // The content stays: rotated.md holds it now.
    assert!(
        report.versions.is_empty() && !report.current.is_empty(),
        "{report:?}"
    );
    s.ok(json!({"command": "memory_view"}));
    assert!(!held(&s), "the name is still in the store");
    let shown = s.ok(json!({"command": "memory_history", "path": "/memories"}));
    assert!(
        shown.contains("(redacted)") && !shown.contains(secret),
        "{shown}"
    );
    // An undo cannot reach a redacted name, nor write into memcap's own.
    let undone = history::revert(&io, "1h", None).unwrap();
    assert!(
        undone
            .left
            .iter()
            .any(|(p, why)| p == "(redacted)" && why.contains("name was redacted")),
        "{undone:?}"
    );
    assert!(
        s.fs.files()
            .keys()
            .all(|p| !p.starts_with(".memcap/redacted"))
    );
    // A name a file has now is not erased: the file holds it.
    let io = Io::new(&s.fs, &s.env, &s.indexes);
    s.ok(json!({"command": "create", "path": "/memories/live.md", "file_text": "a\n"}));
    s.ok(json!({"command": "str_replace", "path": "/memories/live.md", "old_str": "a", "new_str": "b"}));
    let report = history::redact(&io, "/memories/live.md", None).unwrap();
    assert_eq!(report.names, 0);
    assert!(versions(&s, "/memories/live.md").len() >= 2);
}

#[test]
fn a_list_gives_the_newest_ten_thousand_versions_and_no_more() {
    let s = Store::new();
    s.plant("many", 10_003);
    let io = Io::new(&s.fs, &s.env, &s.indexes);
    let paths: Vec<String> = (0..10_003).map(|i| format!("many/n{i}.md")).collect();
    let mut at = 0;
    while at < paths.len() {
        let recorded =
            memcap_core::history::record(&io, &paths[at..], memcap_core::history::Author::Outside)
                .unwrap();
        assert!(recorded.taken > 0);
        at += recorded.taken;
    }
    let listed = versions(&s, "/memories");
    assert_eq!(listed.len(), memcap_core::history::query::MAX_LISTED);
    assert_eq!((listed[0].v, listed[listed.len() - 1].v), (10_003, 4));
    // Older ones are reached by a narrower list.
    assert_eq!(versions(&s, "/memories/many/n0.md").len(), 1);
}

#[test]
fn a_large_file_another_program_rewrote_is_kept_before_memcap_removes_or_moves_it() {
    use memcap_core::storage::Storage;
    // Large enough to be read with its stamp, so what memcap wrote is
    // known without hashing it again: another program's rewrite (same
    // size, a later time) must not pass for it.
    let ours = "o".repeat(5_000);
    let theirs = "t".repeat(5_000);
    for (command, gone) in [
        (
            json!({"command": "delete", "path": "/memories/a.md"}),
            Op::Deleted,
        ),
        (
            json!({"command": "rename", "old_path": "/memories/a.md", "new_path": "/memories/b.md"}),
            Op::Renamed,
        ),
    ] {
        let s = Store::new();
        s.ok(json!({"command": "create", "path": "/memories/a.md", "file_text": ours}));
        s.fs.set_clock(s.env.now.get() + 60);
        s.fs.write_at("a.md", 0, theirs.as_bytes()).unwrap();
        s.ok(command);
        let all = versions(&s, "/memories/a.md");
        let outside = all
            .iter()
            .find(|v| v.actor == "(outside memcap)")
            .unwrap_or_else(|| panic!("{gone:?}: the other program's content was not kept"));
        assert_eq!(show(&s, "/memories/a.md", outside.v), theirs.as_bytes());
        assert!(all.iter().any(|v| v.op == gone), "{all:?}");
    }
}
