//! Writes with a `content_sha256` precondition, natively on the in-memory
//! storage: the right hash applies the change, a stale one or a missing
//! file is a `conflict` that names the current hash and changes nothing,
//! and every answer a program reads carries the hash to send next.

mod common;

use common::Store;
use serde_json::{Value, json};
use sha2::{Digest, Sha256};

fn sha(text: &str) -> String {
    Sha256::digest(text.as_bytes())
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

fn pre(hash: &str) -> Value {
    json!({"type": "content_sha256", "content_sha256": hash})
}

/// Sends `input` with a precondition and expects a conflict that names
/// `current` (None: no file) and leaves every file as it was.
fn conflict(s: &Store, mut input: Value, hash: &str, current: Option<&str>) {
    input["precondition"] = pre(hash);
    let before = s.fs.files();
    let (answer, is_error) = s.json(input.clone());
    assert!(is_error, "{input}: {answer}");
    assert_eq!(answer["error"]["kind"], "conflict", "{input}: {answer}");
    assert_eq!(
        answer["error"]["sha256"],
        json!(current),
        "{input}: {answer}"
    );
    let message = answer["error"]["message"].as_str().unwrap();
    assert!(
        message.contains(hash) && message.contains("Nothing was changed"),
        "{message}"
    );
    assert_eq!(s.fs.files(), before, "{input} changed files");
}

#[test]
fn a_stale_hash_changes_nothing_and_names_the_current_one() {
    let s = Store::new();
    s.ok(json!({"command": "create", "path": "/memories/a.md", "file_text": "one\ntwo\n"}));
    let now = sha("one\ntwo\n");
    let stale = sha("one\n");
    let a = "/memories/a.md";
    for input in [
        json!({"command": "create", "path": a, "file_text": "x\n"}),
        json!({"command": "str_replace", "path": a, "old_str": "two", "new_str": "2"}),
        json!({"command": "insert", "path": a, "insert_line": 0, "insert_text": "zero"}),
        json!({"command": "delete", "path": a}),
        json!({"command": "rename", "old_path": a, "new_path": "/memories/b.md"}),
        json!({"command": "memory_update", "filename": "a", "old_str": "two", "new_str": "2"}),
        json!({"command": "memory_delete", "filename": "a"}),
        json!({"command": "memory_write", "filename": "a", "name": "A", "type": "user", "content": "c"}),
    ] {
        conflict(&s, input, &stale, Some(&now));
    }
    // No file to match: create, edits and deletes alike.
    for input in [
        json!({"command": "create", "path": "/memories/new.md", "file_text": "x\n"}),
        json!({"command": "memory_write", "filename": "new", "name": "N", "type": "user", "content": "c"}),
        json!({"command": "delete", "path": "/memories/d"}),
    ] {
        conflict(&s, input, &now, None);
    }
    // A directory holds no content to match.
    s.ok(json!({"command": "create", "path": "/memories/d/x.md", "file_text": "x\n"}));
    conflict(
        &s,
        json!({"command": "delete", "path": "/memories/d"}),
        &now,
        None,
    );
    let (answer, _) =
        s.json(json!({"command": "delete", "path": "/memories/d", "precondition": pre(&now)}));
    assert!(
        answer["error"]["message"]
            .as_str()
            .unwrap()
            .contains("is a directory"),
        "{answer}"
    );
}

#[test]
fn the_right_hash_applies_each_write_and_the_answer_gives_the_next() {
    let s = Store::new();
    let a = "/memories/a.md";
    let (created, _) = s.json(json!({"command": "create", "path": a, "file_text": "one\ntwo\n"}));
    let mut hash = created["sha256"].as_str().unwrap().to_owned();
    assert_eq!(hash, sha("one\ntwo\n"));
    let (viewed, _) = s.json(json!({"command": "view", "path": a, "view_range": [2, 2]}));
    assert_eq!(viewed["sha256"], hash, "a view's hash is the whole file's");

    // Each answer's hash is what the file now holds, and the next write's precondition.
    let steps = [
        (
            json!({"command": "str_replace", "path": a, "old_str": "two", "new_str": "2"}),
            "one\n2\n",
        ),
        (
            json!({"command": "insert", "path": a, "insert_line": 0, "insert_text": "zero"}),
            "zero\none\n2\n",
        ),
        // create with a precondition replaces the whole file.
        (
            json!({"command": "create", "path": a, "file_text": "whole\n"}),
            "whole\n",
        ),
    ];
    for (mut input, after) in steps {
        input["precondition"] = pre(&hash.to_uppercase());
        let (answer, is_error) = s.json(input.clone());
        assert!(!is_error, "{input}: {answer}");
        assert_eq!(s.file("a.md").unwrap(), after);
        assert_eq!(answer["sha256"], sha(after), "{input}");
        hash = sha(after);
    }
    let (renamed, is_error) = s.json(json!({"command": "rename", "old_path": a,
        "new_path": "/memories/b.md", "precondition": pre(&hash)}));
    assert!(!is_error && renamed["sha256"] == hash, "{renamed}");
    s.ok(json!({"command": "delete", "path": "/memories/b.md", "precondition": pre(&hash)}));
    assert_eq!(s.file("b.md"), None);

    // The typed notes: memory_write replaces, memory_update edits, memory_delete removes.
    let (saved, _) = s.json(
        json!({"command": "memory_write", "filename": "n", "name": "N",
        "type": "project", "content": "first"}),
    );
    let text = s.file("n.md").unwrap();
    assert_eq!(saved["sha256"], sha(&text));
    let (saved, is_error) = s.json(
        json!({"command": "memory_write", "filename": "n", "name": "N",
        "type": "project", "content": "second", "precondition": pre(&sha(&text))}),
    );
    assert!(!is_error && saved["replaced"] == true, "{saved}");
    let text = s.file("n.md").unwrap();
    let (updated, is_error) = s.json(json!({"command": "memory_update", "filename": "n",
        "old_str": "second", "new_str": "third", "precondition": pre(&sha(&text))}));
    assert!(!is_error, "{updated}");
    let text = s.file("n.md").unwrap();
    assert!(
        text.contains("third") && updated["sha256"] == sha(&text),
        "{updated}"
    );
    s.ok(json!({"command": "memory_delete", "filename": "n", "precondition": pre(&sha(&text))}));
    assert_eq!(s.file("n.md"), None);
}

#[test]
fn a_misspelled_or_malformed_precondition_is_refused_before_anything_changes() {
    let s = Store::new();
    s.ok(json!({"command": "create", "path": "/memories/a.md", "file_text": "x\n"}));
    let good = sha("x\n");
    let before = s.fs.files();
    let edit =
        json!({"command": "str_replace", "path": "/memories/a.md", "old_str": "x", "new_str": "y"});
    let cases = [
        (
            "precondtion",
            json!({"type": "content_sha256", "content_sha256": good}),
            "Unknown parameter \"precondtion\"",
        ),
        (
            "precondition",
            json!({"type": "sha256", "content_sha256": good}),
            "\"type\": \"content_sha256\"",
        ),
        (
            "precondition",
            json!({"type": "content_sha256", "content_sha": good}),
            "Unknown key \"content_sha\"",
        ),
        (
            "precondition",
            json!({"type": "content_sha256", "content_sha256": &good[1..]}),
            "64 hex digits",
        ),
        (
            "precondition",
            json!({"type": "content_sha256", "content_sha256": format!("+{}", &good[1..])}),
            "64 hex digits",
        ),
        ("precondition", json!(good), "must be an object"),
    ];
    for (key, value, words) in cases {
        let mut input = edit.clone();
        input[key] = value;
        let message = s.err(input.clone());
        assert!(message.contains(words), "{input}: {message}");
    }
    // The six file commands refuse an unknown field too (the SDK drops it).
    let message = s.err(json!({"command": "view", "path": "/memories/a.md", "extra": 1}));
    assert!(
        message.contains("Unknown parameter \"extra\" for command view"),
        "{message}"
    );
    // Only writes take a precondition.
    let message =
        s.err(json!({"command": "view", "path": "/memories/a.md", "precondition": pre(&good)}));
    assert!(
        message.contains("Unknown parameter \"precondition\""),
        "{message}"
    );
    assert_eq!(s.fs.files(), before);
    // A null precondition is refused, not taken for none: the client meant a guard.
    let mut input = edit.clone();
    input["precondition"] = Value::Null;
    let message = s.err(input);
    assert!(
        message.contains("\"precondition\": null") && message.contains("leave the field out"),
        "{message}"
    );
    assert_eq!(s.fs.files(), before);
    // Left out, the write is unguarded.
    s.ok(edit.clone());
    assert_eq!(s.file("a.md").unwrap(), "y\n");
}
