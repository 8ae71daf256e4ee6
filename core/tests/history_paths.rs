//! The history's index by path (issue 55): a file's versions, one
//! version's text and a blame read through it give exactly what reading
//! the whole log gives, through edits, renames back and forth, a name
//! deleted and made again, versions past what the index covers, a
//! redaction, and an index the log no longer matches; a file's restore
//! and a revert read what they undo, of a file with a long history too.

mod common;

use common::Store;
use memcap_core::Io;
use memcap_core::history::host as history;
use memcap_core::history::paths;
use memcap_core::history::query;
use memcap_core::history::version::Version;
use memcap_core::layout::HISTORY_PATHS;
use memcap_core::storage::Storage;
use memcap_core::vocab::settings::ACTOR;
use serde_json::json;

const NAMES: [&str; 8] = [
    "/memories/a.md",
    "/memories/b.md",
    "/memories/c.md",
    "/memories/deep/d.md",
    "/memories/deep/e.md",
    "/memories/gone.md",
    "/memories/deep",
    "/memories/never.md",
];

/// Everything a person or an agent reads of each name's history: its
/// list, each version's text (or the error), its blame, `memory_history`.
fn seen(s: &Store) -> Vec<String> {
    let io = Io::new(&s.fs, &s.env, &s.indexes);
    let mut seen = Vec::new();
    for name in NAMES {
        let list = history::list(&io, name, None, None);
        seen.push(format!("{name} list {list:?}"));
        for v in list.iter().flatten() {
            let shown = history::show(&io, name, v.v);
            seen.push(format!("{name} show {} {shown:?}", v.v));
        }
        let blame = history::blame(&io, name);
        seen.push(format!("{name} blame {blame:?}"));
        let by_agent = s.json(json!({"command": "memory_history", "path": name}));
        seen.push(format!("{name} memory_history {by_agent:?}"));
    }
    seen
}

/// What the same reads give with no index: the whole log read.
fn seen_without_index(s: &Store) -> Vec<String> {
    let kept = s.fs.files().get(HISTORY_PATHS).cloned();
    let _ = s.fs.remove_file(HISTORY_PATHS);
    let seen = seen(s);
    if let Some(bytes) = kept {
        s.fs.write_new(HISTORY_PATHS, &bytes, false).unwrap();
    }
    seen
}

/// The versions of `all` (the whole log) that touch `key` itself: what a
/// lookup through the index must give.
fn own(all: &[Version], key: &str) -> Vec<Version> {
    all.iter()
        .filter(|v| v.touches(key, false))
        .cloned()
        .collect()
}

fn as_actor(s: &Store, name: &str) {
    s.env.set_var(ACTOR, Some(name));
}

/// A busy history: `rounds` rounds of edits by three actors, renames of
/// a note back and forth, a note deleted and made again under its name.
fn busy(s: &Store, rounds: usize) {
    for i in 0..rounds {
        as_actor(s, ["alice", "bob", "carol"][i % 3]);
        if i == 0 {
            for name in ["a", "b", "deep/d", "gone"] {
                s.ok(
                    json!({"command": "create", "path": format!("/memories/{name}.md"),
                    "file_text": format!("{name} one\n{name} two\n{name} three\n")}),
                );
            }
        }
        s.ok(json!({"command": "str_replace", "path": "/memories/a.md",
            "old_str": "a two", "new_str": format!("a two {i}\na")}));
        s.ok(
            json!({"command": "create", "path": format!("/memories/filler/{i}.md"),
            "file_text": "filler\n"}),
        );
        match i % 4 {
            0 => {
                s.ok(json!({"command": "rename", "old_path": "/memories/b.md",
                    "new_path": "/memories/c.md"}));
                s.ok(json!({"command": "insert", "path": "/memories/c.md",
                    "insert_line": 1, "insert_text": format!("c {i}")}));
            }
            2 => {
                s.ok(json!({"command": "rename", "old_path": "/memories/c.md",
                    "new_path": "/memories/b.md"}));
            }
            1 => {
                s.ok(json!({"command": "delete", "path": "/memories/gone.md"}));
                s.ok(json!({"command": "create", "path": "/memories/gone.md",
                    "file_text": format!("again {i}\n")}));
            }
            _ => {
                s.ok(
                    json!({"command": "rename", "old_path": "/memories/deep/d.md",
                    "new_path": "/memories/deep/e.md"}),
                );
                s.ok(
                    json!({"command": "rename", "old_path": "/memories/deep/e.md",
                    "new_path": "/memories/deep/d.md"}),
                );
            }
        }
        if i % 10 == 0 {
            s.next_second();
        }
    }
}

#[test]
fn a_files_versions_read_through_the_index_are_those_the_whole_log_holds() {
    let s = Store::new();
    busy(&s, 90);
    let io = Io::new(&s.fs, &s.env, &s.indexes);
    let all = query::read(&io).unwrap();
    assert!(all.len() > 300, "{} versions", all.len());
    // The upkeep wrote it, and it answers with what the log holds.
    assert!(s.fs.files().contains_key(HISTORY_PATHS));
    for key in ["a.md", "b.md", "c.md", "deep/d.md", "gone.md", "never.md"] {
        let own = own(&all, key);
        let found = paths::touching(&io, key, usize::MAX).unwrap();
        assert_eq!(found, own, "{key}");
        // The newest only, when asked for fewer.
        let newest = paths::touching(&io, key, 5).unwrap();
        assert_eq!(newest, own[own.len().saturating_sub(5)..], "{key}");
    }
    // A lookup reads the index and the log's end, not the whole log.
    let log = s.fs.files()[".memcap/history/log.jsonl"].len() as u64;
    let before = s.fs.bytes_read();
    assert!(
        paths::touching(&io, "never.md", usize::MAX)
            .unwrap()
            .is_empty()
    );
    let read = s.fs.bytes_read() - before;
    assert!(read < log / 2, "{read} bytes read of a {log}-byte log");
    assert_eq!(seen(&s), seen_without_index(&s));
}

#[test]
fn one_lookup_answers_many_paths_and_reads_the_log_end_once() {
    let s = Store::new();
    busy(&s, 90);
    // Versions past what the index covers.
    for i in 0..30 {
        s.ok(json!({"command": "str_replace", "path": "/memories/a.md",
            "old_str": "a one", "new_str": format!("a one {i}")}));
    }
    let io = Io::new(&s.fs, &s.env, &s.indexes);
    let keys = ["a.md", "b.md", "c.md", "deep/d.md", "gone.md", "never.md"];
    let before = s.fs.bytes_read();
    let apart: Vec<_> = keys
        .iter()
        .map(|k| paths::touching(&io, k, usize::MAX).unwrap())
        .collect();
    let read_apart = s.fs.bytes_read() - before;
    let before = s.fs.bytes_read();
    let mut lookup = paths::Lookup::open(&io).unwrap();
    let together: Vec<_> = keys
        .iter()
        .map(|k| lookup.touching(&io, k, usize::MAX).unwrap())
        .collect();
    let read_together = s.fs.bytes_read() - before;
    assert_eq!(together, apart);
    assert!(apart.iter().filter(|found| !found.is_empty()).count() == 5);
    // The log's end past what the index covers is read once, not six
    // times.
    let covered = u64::from_le_bytes(s.fs.files()[HISTORY_PATHS][8..16].try_into().unwrap());
    let end = s.fs.files()[".memcap/history/log.jsonl"].len() as u64 - covered;
    assert!(end > 4 << 10, "{end} bytes past the index");
    assert!(
        read_together + 5 * end <= read_apart,
        "{read_together} bytes read by one lookup, {read_apart} by six"
    );
    // The log rewritten under an open lookup (a redaction by another
    // call): what it names no longer matches, and it reads the log whole.
    let mut lookup = paths::Lookup::open(&io).unwrap();
    history::redact(&io, "/memories/gone.md", None).unwrap();
    let all = query::read(&io).unwrap();
    let own = own(&all, "a.md");
    assert_eq!(lookup.touching(&io, "a.md", usize::MAX).unwrap(), own);
}

#[test]
fn a_change_of_many_files_that_passes_the_upkeeps_mark_writes_the_index() {
    let s = Store::new();
    for i in 0..250 {
        s.ok(
            json!({"command": "create", "path": format!("/memories/many/{i}.md"),
            "file_text": "x\n"}),
        );
    }
    assert!(!s.fs.files().contains_key(HISTORY_PATHS));
    // One change of 250 versions, from 251 to 500, passes 256 without
    // ending on it: the upkeep runs all the same.
    s.ok(json!({"command": "delete", "path": "/memories/many"}));
    let io = Io::new(&s.fs, &s.env, &s.indexes);
    assert_eq!(query::read(&io).unwrap().len(), 500);
    assert!(s.fs.files().contains_key(HISTORY_PATHS));
}

#[test]
fn a_files_restore_reads_its_versions_not_the_whole_log() {
    let s = Store::new();
    busy(&s, 90);
    let io = Io::new(&s.fs, &s.env, &s.indexes);
    s.ok(
        json!({"command": "str_replace", "path": "/memories/filler/5.md",
        "old_str": "filler", "new_str": "changed"}),
    );
    let first = history::list(&io, "/memories/filler/5.md", None, None).unwrap();
    let first = first.last().unwrap().v;
    let log = s.fs.files()[".memcap/history/log.jsonl"].len() as u64;
    let before = s.fs.bytes_read();
    let undone = history::restore(&io, "/memories/filler/5.md", first).unwrap();
    let read = s.fs.bytes_read() - before;
    assert_eq!(undone.restored, ["/memories/filler/5.md"]);
    assert_eq!(s.file("filler/5.md").as_deref(), Some("filler\n"));
    assert!(read < log / 2, "{read} bytes read of a {log}-byte log");
    // A number that is not the file's is refused as before.
    let other = history::list(&io, "/memories/a.md", None, None).unwrap()[0].v;
    assert!(history::restore(&io, "/memories/filler/5.md", other).is_err());
}

#[test]
fn a_revert_reads_what_it_undoes_not_the_whole_log() {
    let s = Store::new();
    busy(&s, 90);
    s.next_second();
    let since = memcap_core::text::rfc3339(s.env.now.get());
    as_actor(&s, "mallory");
    s.ok(json!({"command": "create", "path": "/memories/junk.md", "file_text": "junk\n"}));
    s.ok(json!({"command": "delete", "path": "/memories/filler/7.md"}));
    s.ok(
        json!({"command": "str_replace", "path": "/memories/filler/8.md",
        "old_str": "filler", "new_str": "bad"}),
    );
    s.ok(
        json!({"command": "str_replace", "path": "/memories/filler/9.md",
        "old_str": "filler", "new_str": "bad"}),
    );
    as_actor(&s, "bob");
    s.ok(
        json!({"command": "str_replace", "path": "/memories/filler/9.md",
        "old_str": "bad", "new_str": "fixed"}),
    );
    let io = Io::new(&s.fs, &s.env, &s.indexes);
    let log = s.fs.files()[".memcap/history/log.jsonl"].len() as u64;
    // The log alone: the writes that undo (a version each) read the
    // catalog as any write does.
    let counted = s.fs.count_reads_of(".memcap/history/log.jsonl");
    let undone = history::revert(&io, &since, Some("mallory")).unwrap();
    let read = counted.get();
    assert_eq!(undone.removed, ["/memories/junk.md"]);
    assert_eq!(
        undone.restored,
        ["/memories/filler/7.md", "/memories/filler/8.md"]
    );
    assert_eq!(undone.left.len(), 1, "{:?}", undone.left);
    assert_eq!(undone.left[0].0, "/memories/filler/9.md");
    assert!(
        undone.left[0].1.contains("changed later by bob"),
        "{:?}",
        undone.left
    );
    assert_eq!(s.file("filler/7.md").as_deref(), Some("filler\n"));
    assert_eq!(s.file("filler/8.md").as_deref(), Some("filler\n"));
    assert_eq!(s.file("junk.md"), None);
    assert_eq!(s.file("filler/9.md").as_deref(), Some("fixed\n"));
    assert!(read < log / 2, "{read} bytes read of a {log}-byte log");
}

#[test]
fn an_undo_of_a_file_with_a_long_history_reads_its_last_versions() {
    let s = Store::new();
    as_actor(&s, "alice");
    s.ok(json!({"command": "create", "path": "/memories/long.md", "file_text": "v0\n"}));
    for i in 0..1000 {
        s.ok(
            json!({"command": "str_replace", "path": "/memories/long.md",
            "old_str": format!("v{i}\n"), "new_str": format!("v{}\n", i + 1)}),
        );
    }
    s.next_second();
    let since = memcap_core::text::rfc3339(s.env.now.get());
    as_actor(&s, "mallory");
    s.ok(
        json!({"command": "str_replace", "path": "/memories/long.md",
        "old_str": "v1000", "new_str": "bad"}),
    );
    let io = Io::new(&s.fs, &s.env, &s.indexes);
    let log = s.fs.files()[".memcap/history/log.jsonl"].len() as u64;
    // All 1,002 versions are the file's: reading them is reading the log.
    let counted = s.fs.count_reads_of(".memcap/history/log.jsonl");
    let undone = history::revert(&io, &since, Some("mallory")).unwrap();
    let read = counted.get();
    assert_eq!(undone.restored, ["/memories/long.md"]);
    assert_eq!(s.file("long.md").as_deref(), Some("v1000\n"));
    assert!(read < log / 3, "{read} bytes read of a {log}-byte log");
    // A restore of a recent version reads from it on, not the file's start.
    let versions = history::list(&io, "/memories/long.md", None, None).unwrap();
    let v998 = versions
        .iter()
        .find(|v| history::show(&io, "/memories/long.md", v.v).unwrap() == b"v998\n")
        .unwrap()
        .v;
    let counted = s.fs.count_reads_of(".memcap/history/log.jsonl");
    let undone = history::restore(&io, "/memories/long.md", v998).unwrap();
    let read = counted.get();
    assert_eq!(undone.restored, ["/memories/long.md"]);
    assert_eq!(s.file("long.md").as_deref(), Some("v998\n"));
    assert!(read < log / 3, "{read} bytes read of a {log}-byte log");
    // And the first version still restores, through the same lookup.
    let first = versions.last().unwrap().v;
    history::restore(&io, "/memories/long.md", first).unwrap();
    assert_eq!(s.file("long.md").as_deref(), Some("v0\n"));
}

#[test]
fn changes_a_host_reports_are_recorded_against_what_the_index_finds() {
    let s = Store::new();
    busy(&s, 90);
    let io = Io::new(&s.fs, &s.env, &s.indexes);
    let last = |path: &str| history::list(&io, path, None, None).unwrap()[0].clone();
    let before = last("/memories/a.md");
    // Another program edits a.md, removes gone.md and writes a new file;
    // a watcher reports them (and c.md, renamed away: nothing to record).
    s.fs.remove_file("a.md").unwrap();
    s.fs.write_new("a.md", b"edited elsewhere\n", false)
        .unwrap();
    s.fs.remove_file("gone.md").unwrap();
    s.fs.write_new("new.md", b"new\n", false).unwrap();
    let reported = ["/memories/a.md", "/memories/gone.md", "/memories/new.md"].map(String::from);
    history::record(&io, &reported, true).unwrap();
    let edited = last("/memories/a.md");
    assert_eq!(edited.op.as_str(), "modified");
    assert_eq!(edited.prev, before.sha256);
    assert_eq!(last("/memories/gone.md").op.as_str(), "deleted");
    assert_eq!(last("/memories/new.md").op.as_str(), "created");
    // Reported again, nothing is new.
    let count = query::read(&io).unwrap().len();
    history::record(&io, &reported, true).unwrap();
    assert_eq!(query::read(&io).unwrap().len(), count);
}

#[test]
fn a_lookup_far_past_the_index_writes_it_anew() {
    let s = Store::new();
    busy(&s, 170);
    let io = Io::new(&s.fs, &s.env, &s.indexes);
    let log = s.fs.files()[".memcap/history/log.jsonl"].len();
    assert!(log > 128 << 10, "a {log}-byte log");
    let all = query::read(&io).unwrap();
    let own = own(&all, "a.md");
    // No index (a store from before it, or one a copy left without):
    // the log is read whole once and the index written from it.
    s.fs.remove_file(HISTORY_PATHS).unwrap();
    assert_eq!(paths::touching(&io, "a.md", usize::MAX).unwrap(), own);
    assert!(s.fs.files().contains_key(HISTORY_PATHS));
    // Then a note written once costs its line and the log's end.
    let before = s.fs.bytes_read();
    assert_eq!(
        paths::touching(&io, "filler/5.md", usize::MAX)
            .unwrap()
            .len(),
        1
    );
    let read = s.fs.bytes_read() - before;
    assert!(
        read < log as u64 / 4,
        "{read} bytes read of a {log}-byte log"
    );
    // An index damaged on disk is written anew the same way.
    s.fs.remove_file(HISTORY_PATHS).unwrap();
    s.fs.write_new(HISTORY_PATHS, b"MCPATH01 and then nothing", false)
        .unwrap();
    assert_eq!(paths::touching(&io, "a.md", usize::MAX).unwrap(), own);
    assert!(s.fs.files()[HISTORY_PATHS].len() > 1_000);
}

#[test]
fn versions_past_the_index_and_a_redaction_read_as_the_log_has_them() {
    let s = Store::new();
    busy(&s, 80);
    // Versions since the index was written are read from the log's end.
    as_actor(&s, "dave");
    s.ok(json!({"command": "str_replace", "path": "/memories/a.md",
        "old_str": "a one", "new_str": "A ONE"}));
    s.ok(json!({"command": "rename", "old_path": "/memories/a.md",
        "new_path": "/memories/deep/e.md"}));
    assert_eq!(seen(&s), seen_without_index(&s));
    // A redaction rewrites the log, and the index with it.
    let io = Io::new(&s.fs, &s.env, &s.indexes);
    let before = s.fs.files().get(HISTORY_PATHS).cloned().unwrap();
    let redacted = history::redact(&io, "/memories/gone.md", None).unwrap();
    assert!(!redacted.versions.is_empty());
    assert_ne!(s.fs.files().get(HISTORY_PATHS), Some(&before));
    assert_eq!(seen(&s), seen_without_index(&s));
    // An index the log no longer matches (as a crash between the log's
    // rewrite and the index's would leave) is not believed: the log is
    // read instead.
    s.fs.remove_file(HISTORY_PATHS).unwrap();
    s.fs.write_new(HISTORY_PATHS, &before, false).unwrap();
    let stale = seen(&s);
    s.fs.remove_file(HISTORY_PATHS).unwrap();
    assert_eq!(stale, seen(&s));
}
