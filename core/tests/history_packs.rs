//! The history's contents packed: after a few hundred versions they are in
//! a few segment files, not one file each; every version still reads back
//! its exact content; redaction erases a packed content from every file;
//! and many tiny writes under a small budget keep the history's files
//! within it.

mod common;

use common::Store;
use memcap_core::Io;
use memcap_core::history::host as history;
use memcap_core::vocab::settings::{ACTOR, HISTORY_MIB};
use serde_json::json;

fn history_files(s: &Store) -> Vec<(String, usize)> {
    s.fs.files()
        .into_iter()
        .filter(|(p, _)| p.starts_with(".memcap/history/"))
        .map(|(p, b)| (p, b.len()))
        .collect()
}

#[test]
fn contents_are_packed_and_every_version_reads_back_whole() {
    let s = Store::new();
    let body = |i: usize| format!("Note {i}: what was learned, said once.\n");
    for i in 0..700 {
        s.ok(json!({"command": "create", "path": format!("/memories/n/{i}.md"), "file_text": body(i)}));
    }
    for i in 0..100 {
        s.ok(
            json!({"command": "str_replace", "path": format!("/memories/n/{i}.md"),
            "old_str": "once", "new_str": "twice"}),
        );
    }
    let files = history_files(&s);
    let loose = files.iter().filter(|(p, _)| p.contains("/blobs/")).count();
    let packed = files.iter().filter(|(p, _)| p.contains("/packs/")).count();
    // Packed at the 256th and 512th versions: what came since is loose.
    assert!(loose <= 300, "{loose} loose contents");
    assert!((2..=4).contains(&packed), "{files:?}");
    let io = Io::new(&s.fs, &s.env, &s.indexes);
    for i in (0..700).step_by(7) {
        let path = format!("/memories/n/{i}.md");
        let listed = history::list(&io, &path, None, None).unwrap();
        let first = listed.last().unwrap();
        assert_eq!(
            history::show(&io, &path, first.v).unwrap(),
            body(i).as_bytes()
        );
    }
    // The edited ones: both texts, one packed and one maybe loose.
    let listed = history::list(&io, "/memories/n/3.md", None, None).unwrap();
    assert_eq!(listed.len(), 2);
    assert_eq!(
        history::show(&io, "/memories/n/3.md", listed[0].v).unwrap(),
        body(3).replace("once", "twice").as_bytes()
    );
}

#[test]
fn a_packed_secret_is_redacted_from_every_file() {
    let s = Store::new();
    let secret = "Pk-7Q2-packed-SECRET-zz91";
    s.ok(json!({"command": "create", "path": "/memories/keys.md", "file_text": format!("key {secret}\n")}));
    s.ok(json!({"command": "create", "path": "/memories/keys.md", "file_text": "rotated\n",
        "precondition": {"type": "content_sha256",
        "content_sha256": memcap_core::vocab::precondition::sha256_hex(format!("key {secret}\n").as_bytes())}}));
    for i in 0..600 {
        s.ok(json!({"command": "create", "path": format!("/memories/f/{i}.md"), "file_text": format!("{i}\n")}));
    }
    let in_a_file = |s: &Store| {
        s.fs.files()
            .into_iter()
            .filter(|(_, b)| String::from_utf8_lossy(b).contains(secret))
            .map(|(p, _)| p)
            .collect::<Vec<_>>()
    };
    // Packed, not loose.
    let holding = in_a_file(&s);
    assert!(
        holding
            .iter()
            .all(|p| p.starts_with(".memcap/history/packs/")),
        "{holding:?}"
    );
    assert!(!holding.is_empty());
    s.env.set_var(ACTOR, Some("security"));
    let io = Io::new(&s.fs, &s.env, &s.indexes);
    let done = history::redact(&io, "/memories/keys.md", None).unwrap();
    assert_eq!(done.versions.len(), 1, "{done:?}");
    assert_eq!(in_a_file(&s), Vec::<String>::new());
    // What else the segment holds still reads back.
    let listed = history::list(&io, "/memories/f/5.md", None, None).unwrap();
    assert_eq!(
        history::show(&io, "/memories/f/5.md", listed[0].v).unwrap(),
        b"5\n"
    );
}

#[test]
fn many_tiny_writes_keep_the_history_files_within_a_small_budget() {
    let s = Store::new();
    s.env.set_var(HISTORY_MIB, Some("1"));
    // Ten notes, each edited 800 times: 8,000 versions of tiny contents,
    // many times what 1 MiB holds with their log lines.
    for n in 0..10 {
        s.ok(json!({"command": "create", "path": format!("/memories/{n}.md"), "file_text": "count 0\n"}));
    }
    for i in 0..800 {
        for n in 0..10 {
            s.ok(
                json!({"command": "str_replace", "path": format!("/memories/{n}.md"),
                "old_str": format!("count {i}\n"), "new_str": format!("count {}\n", i + 1)}),
            );
        }
    }
    let files = history_files(&s);
    let bytes: usize = files.iter().map(|(_, b)| b).sum();
    assert!(bytes <= 1 << 20, "{bytes} bytes in {} files", files.len());
    let io = Io::new(&s.fs, &s.env, &s.indexes);
    let listed = history::list(&io, "/memories/7.md", None, None).unwrap();
    assert!(listed.len() > 100, "{} versions kept", listed.len());
    assert_eq!(
        history::show(&io, "/memories/7.md", listed[0].v).unwrap(),
        b"count 800\n"
    );
    let oldest = listed.last().unwrap();
    let text = String::from_utf8(history::show(&io, "/memories/7.md", oldest.v).unwrap()).unwrap();
    assert!(text.starts_with("count "), "{text}");
}

#[test]
fn an_empty_segment_a_crash_left_is_packed_into() {
    use memcap_core::storage::Storage;
    let s = Store::new();
    let body = |i: usize| format!("Note {i}, packed after a crash.\n");
    for i in 0..300 {
        s.ok(json!({"command": "create", "path": format!("/memories/n/{i}.md"), "file_text": body(i)}));
    }
    // Killed between creating the next segment and writing its bytes:
    // the packing after it appends there rather than failing each time.
    let segments = |s: &Store| {
        history_files(s)
            .into_iter()
            .filter(|(p, _)| p.contains("/packs/0"))
            .collect::<Vec<_>>()
    };
    let newest = segments(&s).last().unwrap().0.clone();
    let number: u32 = newest.rsplit('/').next().unwrap().parse().unwrap();
    s.fs.write_new(
        &format!(".memcap/history/packs/{:08}", number + 1),
        b"",
        false,
    )
    .unwrap();
    for i in 300..600 {
        s.ok(json!({"command": "create", "path": format!("/memories/n/{i}.md"), "file_text": body(i)}));
    }
    let stats: serde_json::Value =
        serde_json::from_str(&s.ok(json!({"command": "memory_stats"}))).unwrap();
    assert_eq!(stats.get("historyProblem"), None, "{stats}");
    let after = segments(&s);
    let last = after.last().unwrap();
    assert!(
        last.0.ends_with(&format!("{:08}", number + 1)) && last.1 > 0,
        "{after:?}"
    );
    let loose = history_files(&s)
        .iter()
        .filter(|(p, _)| p.contains("/blobs/"))
        .count();
    assert!(
        loose < 100,
        "{loose} loose contents: the packing did not run"
    );
    let io = Io::new(&s.fs, &s.env, &s.indexes);
    for i in (0..600).step_by(13) {
        let path = format!("/memories/n/{i}.md");
        let listed = history::list(&io, &path, None, None).unwrap();
        assert_eq!(
            history::show(&io, &path, listed[0].v).unwrap(),
            body(i).as_bytes()
        );
    }
}
