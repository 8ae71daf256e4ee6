//! Who changed what, as agents see it (issue 59): `memory_get` and
//! `memory_search` say who last changed the lines they give
//! (`changedBy`, newest first, and `changedAt`), and `memory_search`'s
//! `by` / `notBy` keep or leave out passages by those actors. No tool
//! writes any of it.

mod common;

use common::Store;
use memcap_core::vocab::settings::{ACTOR, HISTORY_MIB, OUTSIDE_ACTOR};
use serde_json::{Value, json};

fn as_actor(s: &Store, name: &str) {
    s.env.set_var(ACTOR, Some(name));
}

fn get(s: &Store, lines: &str) -> Value {
    let (answer, error) =
        s.json(json!({"command": "memory_get", "path": "/memories/plan.md", "lines": lines}));
    assert!(!error, "{answer}");
    answer
}

/// The paths a search for `query` gives, with `filters`, and each one's
/// `changedBy`.
fn found(s: &Store, query: &str, filters: Value) -> Vec<(String, Value)> {
    let mut input = json!({"command": "memory_search", "query": query, "minScore": 0.0});
    input
        .as_object_mut()
        .unwrap()
        .extend(filters.as_object().unwrap().clone());
    let (answer, error) = s.json(input);
    assert!(!error, "{answer}");
    answer["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            (
                r["path"].as_str().unwrap().to_owned(),
                r["changedBy"].clone(),
            )
        })
        .collect()
}

fn three_notes(s: &Store) {
    as_actor(s, "alice");
    s.ok(json!({"command": "create", "path": "/memories/plan.md",
        "file_text": "# Plan\nThe harbour migration starts in March.\nOwner: the harbour team.\n"}));
    s.ok(json!({"command": "create", "path": "/memories/ops.md",
        "file_text": "# Ops\nThe harbour pager rotates weekly.\n"}));
    s.next_second();
    as_actor(s, "bob");
    s.ok(
        json!({"command": "str_replace", "path": "/memories/plan.md",
        "old_str": "starts in March", "new_str": "starts in April"}),
    );
    s.ok(json!({"command": "create", "path": "/memories/bob.md",
        "file_text": "# Bob's note\nThe harbour budget is approved.\n"}));
}

#[test]
fn memory_get_says_who_last_changed_the_lines_it_gives() {
    let s = Store::new();
    three_notes(&s);
    let first = get(&s, "1-1");
    assert_eq!(first["changedBy"], json!(["alice"]));
    assert_eq!(first["changedAt"], "2026-11-23T00:00:00Z");
    assert_eq!(get(&s, "2-2")["changedBy"], json!(["bob"]));
    // Several authors: the newest change's first.
    let all = get(&s, "1-3");
    assert_eq!(all["changedBy"], json!(["bob", "alice"]));
    assert_eq!(all["changedAt"], "2026-11-23T00:00:01Z");
    // Another program's edit the history has not recorded yet: its lines
    // are no one's in memcap, and when is not known.
    use memcap_core::storage::Storage;
    s.fs.write_new(
        "elsewhere.tmp",
        b"# Plan\nThe harbour migration starts in April.\nOwner: ops.\n",
        false,
    )
    .unwrap();
    s.fs.rename("elsewhere.tmp", "plan.md").unwrap();
    let outside = get(&s, "3-3");
    assert_eq!(outside["changedBy"], json!([OUTSIDE_ACTOR]));
    assert_eq!(outside.get("changedAt"), None);
    // MEMORY.md is rendered by memcap, written by no one.
    let (index, _) = s.json(json!({"command": "memory_get", "path": "/memories/MEMORY.md"}));
    assert_eq!(index.get("changedBy"), None, "{index}");
}

#[test]
fn memory_search_says_who_changed_each_passage_and_filters_by_them() {
    let s = Store::new();
    three_notes(&s);
    let every = found(&s, "harbour", json!({}));
    assert_eq!(every.len(), 3, "{every:?}");
    for (path, by) in &every {
        let expected = match path.as_str() {
            "/memories/plan.md" => json!(["bob", "alice"]),
            "/memories/ops.md" => json!(["alice"]),
            _ => json!(["bob"]),
        };
        assert_eq!(by, &expected, "{path}");
    }
    let paths = |found: Vec<(String, Value)>| {
        let mut paths: Vec<String> = found.into_iter().map(|(p, _)| p).collect();
        paths.sort();
        paths
    };
    // By: a passage one of whose lines bob changed last.
    assert_eq!(
        paths(found(&s, "harbour", json!({"by": ["bob"]}))),
        ["/memories/bob.md", "/memories/plan.md"]
    );
    // Not by: none of whose lines bob changed last.
    assert_eq!(
        paths(found(&s, "harbour", json!({"notBy": "bob"}))),
        ["/memories/ops.md"]
    );
    assert_eq!(
        paths(found(
            &s,
            "harbour",
            json!({"by": ["alice"], "not_by": ["bob"]})
        )),
        ["/memories/ops.md"]
    );
    assert!(found(&s, "harbour", json!({"by": ["mallory"]})).is_empty());
    // The filters refuse what is not a list of names.
    let (error, is_error) =
        s.json(json!({"command": "memory_search", "query": "harbour", "by": 3}));
    assert!(is_error, "{error}");
}

#[test]
fn with_the_history_off_nothing_is_said_and_by_keeps_nothing() {
    let s = Store::new();
    s.env.set_var(HISTORY_MIB, Some("0"));
    three_notes(&s);
    assert_eq!(get(&s, "1-3").get("changedBy"), None);
    let every = found(&s, "harbour", json!({}));
    assert_eq!(every.len(), 3);
    assert!(every.iter().all(|(_, by)| by.is_null()), "{every:?}");
    // Who wrote it cannot be known: neither filter keeps it.
    assert!(found(&s, "harbour", json!({"by": ["bob"]})).is_empty());
    assert!(found(&s, "harbour", json!({"notBy": ["bob"]})).is_empty());
}
