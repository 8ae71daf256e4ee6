//! memcap's own directory on a file system that folds names (macOS's and
//! Windows's: case-insensitive, trailing dots and spaces dropped): no
//! spelling of `.memcap` reaches the history, the journal or the staging
//! directory, for any command. Runs on the in-memory storage set to fold.

mod common;

use common::Store;
use serde_json::json;

/// Spellings such a file system opens as `.memcap`.
const SPELLINGS: [&str; 6] = [
    ".MEMCAP",
    ".Memcap",
    ".memcap.",
    ".memcap ",
    ".mem\u{200c}cap",
    "MEMCAP~1",
];

#[test]
fn no_spelling_of_the_reserved_directory_is_reachable_where_names_fold() {
    let s = Store::folding_case();
    s.ok(json!({"command": "create", "path": "/memories/a.md", "file_text": "one\n"}));
    s.ok(json!({"command": "str_replace", "path": "/memories/a.md", "old_str": "one", "new_str": "two"}));
    let own = |files: &std::collections::BTreeMap<String, Vec<u8>>| {
        files
            .iter()
            .filter(|(k, _)| k.starts_with(".memcap/"))
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect::<Vec<_>>()
    };
    let before = own(&s.fs.files());
    assert!(
        before
            .iter()
            .any(|(k, _)| k.starts_with(".memcap/history/")),
        "the store keeps a history to protect: {:?}",
        before.iter().map(|(k, _)| k).collect::<Vec<_>>()
    );
    for spelling in SPELLINGS {
        let log = format!("/memories/{spelling}/history/log.jsonl");
        let dir = format!("/memories/{spelling}");
        for input in [
            json!({"command": "view", "path": log}),
            json!({"command": "view", "path": dir}),
            json!({"command": "create", "path": log, "file_text": "{}\n"}),
            json!({"command": "create", "path": format!("{dir}/notes.jsonl"), "file_text": "x"}),
            json!({"command": "str_replace", "path": log, "old_str": "a", "new_str": "b"}),
            json!({"command": "insert", "path": log, "insert_line": 0, "insert_text": "x"}),
            json!({"command": "delete", "path": dir}),
            json!({"command": "rename", "old_path": dir, "new_path": "/memories/stolen"}),
            json!({"command": "rename", "old_path": "/memories/a.md", "new_path": format!("{dir}/history/log.jsonl")}),
            json!({"command": "memory_history", "path": dir}),
        ] {
            let answer = s.err(input.clone());
            assert!(
                answer.contains("reserved") || answer.contains("memcap keeps"),
                "{input}: {answer}"
            );
        }
    }
    assert_eq!(
        own(&s.fs.files()),
        before,
        "memcap's own files are as they were"
    );
    assert_eq!(s.file("a.md").as_deref(), Some("two\n"));
}
