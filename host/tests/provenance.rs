//! Who changed what, as agents see it, through the real component on
//! every backend: `memory_get` and `memory_search` (the tool and the
//! typed functions) say who last changed the lines they give, and the
//! search's `by` / `notBy` keep or leave out passages by actor, its name
//! or its id.

#[macro_use]
mod common;

use common::Fixture;
use memcap::{Actor, SearchFilters};
use serde_json::{Value, json};

fn notes(f: &Fixture) {
    let m = &f.memory;
    m.set_actor(Actor {
        name: "alice".into(),
        id: Some("tok-a1".into()),
    });
    m.create(
        "/memories/plan.md",
        "# Plan\nThe harbour migration starts in March.\nOwner: the harbour team.\n",
    )
    .unwrap();
    m.create(
        "/memories/ops.md",
        "# Ops\nThe harbour pager rotates weekly.\n",
    )
    .unwrap();
    m.set_actor(Actor::named("bob"));
    m.str_replace("/memories/plan.md", "starts in March", "starts in April")
        .unwrap();
    m.create(
        "/memories/bob.md",
        "# Bob's note\nThe harbour budget is approved.\n",
    )
    .unwrap();
}

fn filters(by: &[&str], not_by: &[&str]) -> SearchFilters {
    SearchFilters {
        categories: Vec::new(),
        tags: Vec::new(),
        types: Vec::new(),
        after_date: None,
        include_superseded: false,
        by: by.iter().map(|s| s.to_string()).collect(),
        not_by: not_by.iter().map(|s| s.to_string()).collect(),
    }
}

/// The paths the typed search gives, sorted, and each one's authors.
fn searched(f: &Fixture, filters: Option<&SearchFilters>) -> Vec<(String, Vec<String>)> {
    let answer = f
        .memory
        .memory_search("harbour", None, Some(0.0), None, filters)
        .unwrap();
    let mut found: Vec<(String, Vec<String>)> = answer
        .results
        .into_iter()
        .map(|r| (r.path, r.changed_by))
        .collect();
    found.sort();
    found
}

both_backends! {
fn get_and_search_say_who_last_changed_their_lines() {
    let f = Fixture::new();
    notes(&f);
    let m = &f.memory;
    let line = m.memory_get("/memories/plan.md", Some(1), Some(1)).unwrap();
    assert_eq!(line.changed_by, ["alice"]);
    let whole = m.memory_get("/memories/plan.md", None, None).unwrap();
    assert_eq!(whole.changed_by, ["bob", "alice"]);
    assert!(whole.changed_at.is_some_and(|t| t.ends_with('Z')));
    // The tool's answer carries the same.
    let answer = m.call(
        &json!({"command": "memory_get", "path": "/memories/plan.md", "lines": "2-2"}).to_string(),
    );
    let answer: Value = serde_json::from_str(&answer.content).unwrap();
    assert_eq!(answer["changedBy"], json!(["bob"]));
    assert_eq!(
        searched(&f, None),
        [
            ("/memories/bob.md".to_owned(), vec!["bob".to_owned()]),
            ("/memories/ops.md".to_owned(), vec!["alice".to_owned()]),
            ("/memories/plan.md".to_owned(), vec!["bob".to_owned(), "alice".to_owned()]),
        ]
    );
}
}

both_backends! {
fn search_keeps_or_leaves_out_passages_by_who_changed_them() {
    let f = Fixture::new();
    notes(&f);
    let paths = |found: Vec<(String, Vec<String>)>| {
        found.into_iter().map(|(p, _)| p).collect::<Vec<_>>()
    };
    assert_eq!(
        paths(searched(&f, Some(&filters(&["bob"], &[])))),
        ["/memories/bob.md", "/memories/plan.md"]
    );
    assert_eq!(paths(searched(&f, Some(&filters(&[], &["bob"])))), ["/memories/ops.md"]);
    // An actor's id names it as well as its name.
    assert_eq!(
        paths(searched(&f, Some(&filters(&["tok-a1"], &["bob"])))),
        ["/memories/ops.md"]
    );
    assert!(searched(&f, Some(&filters(&["mallory"], &[]))).is_empty());
    // Asking changes nothing: no version is made by reading authorship.
    let versions = f.memory.history_list("/memories", None, None).unwrap().len();
    searched(&f, Some(&filters(&["bob"], &[])));
    assert_eq!(f.memory.history_list("/memories", None, None).unwrap().len(), versions);
}
}
