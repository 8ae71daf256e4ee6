//! `memory_review` on the in-memory storage: the four lists, what they
//! leave out, and that the review changes nothing.

mod common;

use common::Store;
use memcap_core::output::ReviewAnswer;
use memcap_core::vocab::settings::ACTOR;
use serde_json::{Value, json};

fn note(s: &Store, path: &str, text: &str) {
    s.ok(json!({"command": "create", "path": path, "file_text": text}));
}

fn review(s: &Store, input: Value) -> Value {
    let (answer, error) = s.json(input);
    assert!(!error, "{answer}");
    answer
}

fn paths(list: &Value, field: &str) -> Vec<String> {
    list["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i[field].as_str().unwrap().to_owned())
        .collect()
}

#[test]
fn a_review_lists_duplicates_expired_still_linked_and_others_changes_and_changes_nothing() {
    let s = Store::new();
    s.env.set_var(ACTOR, Some("alice"));
    note(
        &s,
        "/memories/a/deploy.md",
        "---\nname: Deploy target\ndescription: where the billing api runs\n---\nIt runs in eu-1.\n",
    );
    note(
        &s,
        "/memories/b/deploy-2.md",
        "---\nname: deploy  TARGET\ndescription: other words\n---\nIt runs in eu-1.\n",
    );
    note(
        &s,
        "/memories/c.md",
        "---\nname: Coffee\ndescription: what the user drinks in the morning\n---\nTea.\n",
    );
    note(
        &s,
        "/memories/d.md",
        "---\nname: Drinks\ndescription: What the user drinks, in the morning!\n---\nTea.\n",
    );
    note(
        &s,
        "/memories/promo.md",
        "---\nname: Promo\ndescription: the spring promo\nvalid_until: 2026-01-31\n---\n20% off.\n",
    );
    note(
        &s,
        "/memories/later.md",
        "---\nname: Later\ndescription: a later promo\nvalid_until: 2027-01-31\n---\n10% off.\n",
    );
    note(
        &s,
        "/memories/old.md",
        "---\nname: Old plan\ndescription: the first plan\n---\nPlan A.\n",
    );
    note(
        &s,
        "/memories/new.md",
        "---\nname: New plan\ndescription: the plan now\n---\nPlan B.\n\n- supersedes [[Old plan]]\n",
    );
    note(
        &s,
        "/memories/uses.md",
        "---\nname: Uses\ndescription: what relies on the plan\n---\n- depends_on [[Old plan]]\n",
    );
    s.env.set_var(ACTOR, Some("bob"));
    s.ok(json!({"command": "str_replace", "path": "/memories/c.md", "old_str": "Tea.", "new_str": "Coffee, black."}));
    let files_before = s.fs.files();

    s.env.set_var(ACTOR, Some("alice"));
    let a = review(&s, json!({"command": "memory_review"}));
    assert_eq!(a["output"], "review");
    assert_eq!(a["actor"], "alice");
    assert_eq!(a["timeframe"], "7d");
    let dups = a["duplicates"]["items"].as_array().unwrap();
    assert_eq!(dups.len(), 2, "{a}");
    assert_eq!(
        dups[0]["paths"],
        json!(["/memories/a/deploy.md", "/memories/b/deploy-2.md"])
    );
    assert_eq!(dups[0]["same"], "title");
    assert_eq!(
        dups[1]["paths"],
        json!(["/memories/c.md", "/memories/d.md"])
    );
    assert_eq!(dups[1]["same"], "description");
    // 2026-11-23 is past the promo's day, not the later one's.
    assert_eq!(paths(&a["expired"], "path"), ["/memories/promo.md"]);
    assert_eq!(a["expired"]["items"][0]["validUntil"], "2026-01-31");
    let linked = &a["supersededLinked"]["items"][0];
    assert_eq!(linked["path"], "/memories/old.md");
    assert_eq!(linked["supersededBy"], json!(["/memories/new.md"]));
    assert_eq!(linked["linkedFrom"], json!(["/memories/uses.md"]));
    assert_eq!(a["supersededLinked"]["total"], 1);
    // Bob's change, not alice's own.
    assert_eq!(paths(&a["changedByOthers"], "path"), ["/memories/c.md"]);
    assert_eq!(a["changedByOthers"]["items"][0]["actor"], "bob");
    // Bob sees alice's changes, newest first, one per file.
    s.env.set_var(ACTOR, Some("bob"));
    let b = review(&s, json!({"command": "memory_review", "timeframe": "1d"}));
    let theirs = paths(&b["changedByOthers"], "path");
    assert_eq!(theirs.len(), 9, "{theirs:?}");
    assert_eq!(theirs[0], "/memories/uses.md");
    // The data is the core's own type both ways (the page reads it so):
    // read back and written again, it is what the answer said.
    let typed: ReviewAnswer = serde_json::from_value(b.clone()).unwrap();
    let mut written = b.clone();
    written.as_object_mut().unwrap().remove("output");
    assert_eq!(serde_json::to_value(&typed).unwrap(), written);
    // Nothing changed.
    assert_eq!(
        s.fs.files()
            .keys()
            .filter(|p| !p.starts_with(".memcap"))
            .collect::<Vec<_>>(),
        files_before
            .keys()
            .filter(|p| !p.starts_with(".memcap"))
            .collect::<Vec<_>>()
    );
    for (path, bytes) in &files_before {
        if !path.starts_with(".memcap") {
            assert_eq!(s.fs.files().get(path), Some(bytes), "{path}");
        }
    }
    // The text says each list and what to do.
    s.env.set_var(ACTOR, Some("alice"));
    let text = s.ok(json!({"command": "memory_review"}));
    assert!(text.contains("Likely duplicates (2; merge"), "{text}");
    assert!(
        text.contains("- /memories/promo.md (valid_until 2026-01-31)"),
        "{text}"
    );
    assert!(
        text.contains(
            "/memories/old.md (superseded by /memories/new.md; linked from /memories/uses.md)"
        ),
        "{text}"
    );
    assert!(text.contains("by others than alice (1;"), "{text}");
}

#[test]
fn a_decided_pair_leaves_the_review_and_a_bad_timeframe_is_refused() {
    let s = Store::new();
    note(
        &s,
        "/memories/a.md",
        "---\nname: Plan\ndescription: one\n---\nA.\n",
    );
    note(
        &s,
        "/memories/b.md",
        "---\nname: Plan\ndescription: two\n---\nB.\n",
    );
    let a = review(&s, json!({"command": "memory_review"}));
    assert_eq!(a["duplicates"]["total"], 1);
    s.ok(json!({"command": "str_replace", "path": "/memories/b.md", "old_str": "B.", "new_str": "B.\n\n- supersedes [[a]]"}));
    let a = review(&s, json!({"command": "memory_review"}));
    assert_eq!(a["duplicates"]["total"], 0, "{a}");
    assert_eq!(a["supersededLinked"]["total"], 0, "{a}");
    let e = s.err(json!({"command": "memory_review", "timeframe": "whenever"}));
    assert!(e.contains("timeframe"), "{e}");
}
