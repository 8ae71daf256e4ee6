//! Facts that no longer hold, as `memory_search` treats them: a note
//! another one supersedes, or one past its `valid_until`, is left out
//! (counted), or given last and marked when asked for; nothing is deleted.

mod common;

use common::Store;
use serde_json::{Value, json};

fn create(store: &Store, path: &str, text: &str) {
    store.ok(json!({"command": "create", "path": path, "file_text": text}));
}

fn search(store: &Store, query: &str, include: bool) -> Value {
    let input = json!({"command": "memory_search", "query": query, "minScore": 0.0,
        "includeSuperseded": include});
    serde_json::from_str(&store.ok(input)).expect("the answer is JSON")
}

/// The paths found, in order, each with the notes that supersede it and
/// whether it expired.
fn found(answer: &Value) -> Vec<(String, Vec<String>, bool)> {
    let mut seen = Vec::new();
    for r in answer["results"].as_array().unwrap() {
        let path = r["path"].as_str().unwrap().to_owned();
        let by = r["supersededBy"]
            .as_array()
            .map(|by| by.iter().map(|p| p.as_str().unwrap().to_owned()).collect())
            .unwrap_or_default();
        let expired = r["expired"].as_bool().unwrap_or(false);
        let row = (path, by, expired);
        if !seen.contains(&row) {
            seen.push(row);
        }
    }
    seen
}

fn holds(path: &str) -> (String, Vec<String>, bool) {
    (path.to_owned(), Vec::new(), false)
}

const OLD: &str = "# Deploy target\nThe deploy target is eu-1.\n";
const NEW: &str =
    "# Deploy target moved\nThe deploy target is us-2 now.\n\n- supersedes [[deploy-eu]]\n";

#[test]
fn a_superseded_note_is_left_out_or_given_last_and_comes_back_when_no_longer_superseded() {
    let store = Store::new();
    create(&store, "/memories/deploy-eu.md", OLD);
    create(&store, "/memories/deploy-us.md", NEW);
    // Enough notes that the journal is saved whole, so a new instance reads
    // the relations from the saved graph, not from the records after it.
    for i in 0..140 {
        create(
            &store,
            &format!("/memories/filler/{i}.md"),
            "Filler text.\n",
        );
    }
    for round in 0..2 {
        let answer = search(&store, "deploy target", false);
        assert_eq!(
            found(&answer),
            [holds("/memories/deploy-us.md")],
            "round {round}"
        );
        assert_eq!(answer["leftOut"], 1);
        assert_eq!(answer["totalFound"], 1);
        let all = search(&store, "deploy target eu-1", true);
        assert_eq!(
            found(&all),
            [
                holds("/memories/deploy-us.md"),
                (
                    "/memories/deploy-eu.md".to_owned(),
                    vec!["/memories/deploy-us.md".to_owned()],
                    false
                ),
            ],
            "round {round}: the old note comes after the one that holds, though it matches better"
        );
        assert!(all.get("leftOut").is_none());
        store.restarted();
    }
    // The relation gone, the old note holds again; nothing was deleted.
    store.ok(
        json!({"command": "str_replace", "path": "/memories/deploy-us.md",
        "old_str": "- supersedes [[deploy-eu]]\n", "new_str": ""}),
    );
    let answer = search(&store, "deploy target", false);
    assert_eq!(found(&answer).len(), 2);
    assert!(answer.get("leftOut").is_none());
}

#[test]
fn frontmatter_supersedes_names_notes_by_title_and_a_list() {
    let store = Store::new();
    create(
        &store,
        "/memories/team/bob.md",
        "---\nname: Bob on the team\ntype: user\n---\nBob works on payments.\n",
    );
    create(
        &store,
        "/memories/team/old-lead.md",
        "Payments lead is Carol.\n",
    );
    create(
        &store,
        "/memories/team/now.md",
        "---\nname: Team now\ntype: user\nsupersedes:\n  - \"[[Bob on the team]]\"\n  - old-lead\n---\nBob left; Dana leads payments.\n",
    );
    let answer = search(&store, "payments", false);
    assert_eq!(found(&answer), [holds("/memories/team/now.md")]);
    assert_eq!(answer["leftOut"], 2);
}

#[test]
fn a_relation_supersedes_the_note_it_resolves_to_and_no_other_of_that_name() {
    let store = Store::new();
    create(
        &store,
        "/memories/a/plan.md",
        "The plan is to ship in May.\n",
    );
    create(
        &store,
        "/memories/b/plan.md",
        "The plan is to hire in May.\n",
    );
    // `[[plan]]` resolves to the nearest note of that name: a/plan.md.
    create(
        &store,
        "/memories/a/plan-v2.md",
        "The plan is to ship in June.\n- supersedes [[plan]]\n",
    );
    let answer = search(&store, "plan May June", false);
    let paths: Vec<String> = found(&answer).into_iter().map(|(p, ..)| p).collect();
    assert!(
        paths.contains(&"/memories/b/plan.md".to_owned()),
        "{paths:?}"
    );
    assert!(
        !paths.contains(&"/memories/a/plan.md".to_owned()),
        "{paths:?}"
    );
    assert_eq!(answer["leftOut"], 1);
}

#[test]
fn a_note_past_its_valid_until_is_left_out_and_marked_expired_when_asked_for() {
    let store = Store::new();
    create(
        &store,
        "/memories/freeze.md",
        "---\nname: Freeze\ntype: project\nvalid_until: 2000-01-01\n---\nThe code freeze is on.\n",
    );
    create(
        &store,
        "/memories/window.md",
        "---\nname: Window\ntype: project\nvalid_until: 2999-01-01\n---\nThe code freeze window is short.\n",
    );
    let answer = search(&store, "code freeze", false);
    assert_eq!(found(&answer), [holds("/memories/window.md")]);
    assert_eq!(answer["leftOut"], 1);
    let all = search(&store, "code freeze", true);
    assert_eq!(
        found(&all),
        [
            holds("/memories/window.md"),
            ("/memories/freeze.md".to_owned(), Vec::new(), true)
        ]
    );
}

#[test]
fn a_newer_note_that_only_contradicts_comes_before_the_old_one_it_nearly_repeats() {
    let store = Store::new();
    create(
        &store,
        "/memories/deploy-eu.md",
        "The deploy target of the billing api is eu-1.\n",
    );
    create(
        &store,
        "/memories/lunch.md",
        "Lunch on Friday is pizza for the billing team.\n",
    );
    store.next_second();
    create(
        &store,
        "/memories/deploy-us.md",
        "The deploy target of the billing api changed: us-2 now.\n",
    );
    let answer = search(&store, "deploy target of the billing api", false);
    let paths: Vec<String> = found(&answer).into_iter().map(|(p, ..)| p).collect();
    assert_eq!(
        paths[..2],
        ["/memories/deploy-us.md", "/memories/deploy-eu.md"],
        "{answer}"
    );
}

#[test]
fn build_context_shows_the_chain_both_ways_and_memory_read_marks_notes_that_no_longer_hold() {
    let store = Store::new();
    create(&store, "/memories/deploy-eu.md", OLD);
    create(&store, "/memories/deploy-us.md", NEW);
    create(
        &store,
        "/memories/freeze.md",
        "---\nname: Freeze\ntype: project\nvalid_until: 2000-01-01\n---\nThe code freeze is on.\n",
    );
    let context = |url: &str| -> Value {
        let (answer, failed) = store.json(json!({"command": "build_context", "url": url}));
        assert!(!failed, "{answer}");
        answer
    };
    let old = context("memory://deploy-eu");
    assert_eq!(
        old["primary"][0]["supersededBy"],
        json!(["/memories/deploy-us.md"])
    );
    assert!(old["primary"][0].get("supersedes").is_none());
    let new = context("memory://deploy-us");
    assert_eq!(
        new["primary"][0]["supersedes"],
        json!(["/memories/deploy-eu.md"])
    );
    assert!(new["primary"][0].get("supersededBy").is_none());
    assert_eq!(context("memory://freeze")["primary"][0]["expired"], true);
    let text = store.ok(json!({"command": "build_context", "url": "memory://deploy-eu"}));
    assert!(
        text.contains("Superseded by /memories/deploy-us.md: it may no longer hold."),
        "{text}"
    );

    let read =
        store.ok(json!({"command": "memory_read", "topics": ["deploy-eu", "freeze", "deploy-us"]}));
    assert!(
        read.contains("deploy-eu.md (other: deploy-eu) ===\n(superseded by /memories/deploy-us.md: it may no longer hold)\n"),
        "{read}"
    );
    assert!(
        read.contains("(expired: past its valid_until)\n---\nname: Freeze"),
        "{read}"
    );
    assert_eq!(read.matches("no longer hold").count(), 1, "{read}");
}

#[test]
fn memory_view_and_memory_md_mark_notes_that_no_longer_hold_and_expiry_comes_with_time() {
    let store = Store::new();
    let now = store.env.now.get();
    let soon = memcap_core::text::rfc3339(now + 3_600);
    create(
        &store,
        "/memories/old.md",
        "---\nname: Old\ntype: fact\n---\nThe deploy target is eu-1.\n",
    );
    create(
        &store,
        "/memories/new.md",
        "---\nname: New\ntype: fact\n---\nThe deploy target is us-2.\n\n- supersedes [[Old]]\n",
    );
    create(
        &store,
        "/memories/promo.md",
        "---\nname: Promo\ntype: project\nvalid_until: 2020-01-31\n---\n20% off.\n",
    );
    create(
        &store,
        "/memories/soon.md",
        &format!("---\nname: Soon\ntype: project\nvalid_until: {soon}\n---\nThe window is open.\n"),
    );
    // memory_view lists each note with its standing, read from the catalog.
    let (all, error) = store.json(json!({"command": "memory_view", "all": true}));
    assert!(!error, "{all}");
    let note = |path: &str| {
        all["notes"]
            .as_array()
            .unwrap()
            .iter()
            .find(|n| n["path"] == path)
            .cloned()
            .unwrap_or_else(|| panic!("{path} in {all}"))
    };
    assert_eq!(
        note("/memories/old.md")["superseded_by"],
        json!(["/memories/new.md"])
    );
    assert_eq!(note("/memories/promo.md")["expired"], true);
    assert_eq!(note("/memories/promo.md")["valid_until"], "2020-01-31");
    assert_eq!(note("/memories/soon.md")["valid_until"], soon.as_str());
    for holds in ["/memories/new.md", "/memories/soon.md"] {
        assert!(note(holds).get("expired").is_none(), "{holds}: {all}");
        assert!(note(holds).get("superseded_by").is_none(), "{holds}: {all}");
    }
    let text = store.ok(json!({"command": "memory_view", "all": true}));
    assert!(
        text.contains("  superseded by: /memories/new.md (searches leave this note out)"),
        "{text}"
    );
    assert!(
        text.contains("  valid_until: 2020-01-31 (expired)\n"),
        "{text}"
    );
    assert!(text.contains(&format!("  valid_until: {soon}\n")), "{text}");
    // MEMORY.md marks the expired note, and the other once its time comes,
    // with no note changed.
    let line = |index: &str, name: &str| {
        index
            .lines()
            .find(|l| l.starts_with(&format!("- [{name}]")))
            .unwrap_or_else(|| panic!("{name} in {index}"))
            .to_owned()
    };
    let expired = memcap_core::notes::index::EXPIRED_MARK;
    let index = store.file("MEMORY.md").unwrap();
    assert!(line(&index, "Promo").ends_with(expired), "{index}");
    assert!(!line(&index, "Soon").ends_with(expired), "{index}");
    assert!(!line(&index, "New").ends_with(expired), "{index}");
    store.env.now.set(now + 3_601);
    let shown = store.ok(json!({"command": "memory_view"}));
    assert!(line(&shown, "Soon").ends_with(expired), "{shown}");
    let index = store.file("MEMORY.md").unwrap();
    assert!(line(&index, "Soon").ends_with(expired), "{index}");
    // A new instance, from the journal, finds the same.
    store.restarted();
    let shown = store.ok(json!({"command": "memory_view"}));
    assert!(line(&shown, "Soon").ends_with(expired), "{shown}");
}

#[test]
fn a_search_that_decoded_the_graph_to_tell_what_is_superseded_saves_it_for_the_next() {
    let store = Store::new();
    create(&store, "/memories/deploy-eu.md", OLD);
    // Enough notes that the journal is saved whole, graph and all.
    for i in 0..140 {
        create(
            &store,
            &format!("/memories/filler/{i}.md"),
            "Filler text.\n",
        );
    }
    store.restarted();
    search(&store, "deploy target", false);
    // A note that supersedes it, written through memcap: MEMORY.md marks
    // the note it supersedes, so the call decodes the graph to tell, and
    // saves what it found.
    let before = store.journal_generation();
    create(&store, "/memories/deploy-us.md", NEW);
    let written = store.journal_generation();
    assert_ne!(written, before, "not saved after decoding");
    store.restarted();
    let found_first = found(&search(&store, "deploy target", false));
    assert_eq!(found_first, [holds("/memories/deploy-us.md")]);
    assert_eq!(store.journal_generation(), written, "saved again");
    // One written behind memcap's back: the first search that finds it
    // decodes the graph and saves it; the next process reads it saved.
    {
        use memcap_core::storage::Storage;
        let newer = "# Deploy target moved again\nThe deploy target is ap-3.\n\n\
                     - supersedes [[deploy-us]]\n";
        store
            .fs
            .write_new("deploy-ap.md", newer.as_bytes(), false)
            .unwrap();
    }
    store.next_second();
    store.restarted();
    let found_first = found(&search(&store, "deploy target", false));
    assert_eq!(found_first, [holds("/memories/deploy-ap.md")]);
    let saved = store.journal_generation();
    assert_ne!(saved, written, "not saved after decoding");
    // The next process reads it saved: the same answer, nothing saved again.
    store.restarted();
    assert_eq!(found(&search(&store, "deploy target", false)), found_first);
    assert_eq!(store.journal_generation(), saved, "saved again");
}

/// The line MEMORY.md (or an answer showing it) gives the note at `path`.
fn index_line(index: &str, path: &str) -> String {
    index
        .lines()
        .find(|l| l.starts_with("- [") && l.contains(&format!("]({path})")))
        .unwrap_or_else(|| panic!("{path} in {index}"))
        .to_owned()
}

#[test]
fn memory_md_marks_a_superseded_note_from_the_call_that_supersedes_it_in_every_process() {
    let store = Store::new();
    let mark = " (superseded by deploy-us.md)";
    create(&store, "/memories/deploy-eu.md", OLD);
    create(&store, "/memories/deploy-us.md", NEW);
    // The call that wrote the relation marks it: its write is not indexed
    // yet when MEMORY.md is rendered, unless it may move a mark.
    let index = store.file("MEMORY.md").unwrap();
    assert!(
        index_line(&index, "deploy-eu.md").ends_with(mark),
        "{index}"
    );
    assert!(!index_line(&index, "deploy-us.md").contains("superseded"));
    // A new process, the relation in the records it replays, renders the
    // index again after a change of its own: still marked.
    store.restarted();
    create(&store, "/memories/other.md", "Unrelated.\n");
    let index = store.file("MEMORY.md").unwrap();
    assert!(
        index_line(&index, "deploy-eu.md").ends_with(mark),
        "{index}"
    );
    // `memory_view` and `prompt` show it so.
    store.restarted();
    let shown = store.ok(json!({"command": "memory_view"}));
    assert!(
        index_line(&shown, "deploy-eu.md").ends_with(mark),
        "{shown}"
    );
    let prompt = store.ok(json!({"command": "prompt"}));
    assert!(
        index_line(&prompt, "deploy-eu.md").ends_with(mark),
        "{prompt}"
    );
    // A second note superseding it is counted.
    create(
        &store,
        "/memories/deploy-zz.md",
        "---\nsupersedes: deploy-eu\n---\nAlso moved.\n",
    );
    let index = store.file("MEMORY.md").unwrap();
    assert!(
        index_line(&index, "deploy-eu.md").ends_with(" (superseded by deploy-us.md and 1 more)"),
        "{index}"
    );
    // Once no note supersedes it, in another process, the mark goes.
    store.restarted();
    store.ok(json!({"command": "delete", "path": "/memories/deploy-zz.md"}));
    store.restarted();
    store.ok(
        json!({"command": "str_replace", "path": "/memories/deploy-us.md",
        "old_str": "- supersedes [[deploy-eu]]", "new_str": "- relates_to [[deploy-eu]]"}),
    );
    let index = store.file("MEMORY.md").unwrap();
    assert!(!index.contains("superseded"), "{index}");
    store.restarted();
    let shown = store.ok(json!({"command": "memory_view"}));
    assert!(!shown.contains("superseded"), "{shown}");
    // Back again, written by another process while this one stays warm:
    // this one's next change replays it before rendering, and keeps the
    // mark the other process wrote.
    store.ok(json!({"command": "view", "path": "/memories"}));
    let other = std::cell::RefCell::new(memcap_core::Indexes::default());
    let in_other = |input: serde_json::Value| {
        let io = memcap_core::Io::new(&store.fs, &store.env, &other);
        let result = memcap_core::call(&io, &input.to_string());
        assert!(!result.is_error, "{}", result.content);
    };
    in_other(
        json!({"command": "str_replace", "path": "/memories/deploy-us.md",
        "old_str": "- relates_to [[deploy-eu]]", "new_str": "- supersedes [[deploy-eu]]"}),
    );
    let index = store.file("MEMORY.md").unwrap();
    assert!(
        index_line(&index, "deploy-eu.md").ends_with(mark),
        "{index}"
    );
    create(&store, "/memories/more.md", "Unrelated.\n");
    let index = store.file("MEMORY.md").unwrap();
    assert!(
        index_line(&index, "deploy-eu.md").ends_with(mark),
        "{index}"
    );
}
