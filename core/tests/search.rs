//! `memory_search` natively, on the in-memory storage: ranking, bounds and
//! aliases, and answers that follow every change. (The real `.wasm`
//! through real hosts is `host/tests/`.)

mod common;

use common::Store;
use serde_json::{Value, json};

fn create(store: &Store, path: &str, text: &str) {
    store.ok(json!({"command": "create", "path": path, "file_text": text}));
}

fn search(store: &Store, input: Value) -> Value {
    let mut input = input;
    input["command"] = json!("memory_search");
    serde_json::from_str(&store.ok(input)).expect("the answer is JSON")
}

fn paths(store: &Store, query: &str) -> Vec<String> {
    search(store, json!({"query": query, "minScore": 0.0}))["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["path"].as_str().unwrap().to_owned())
        .collect()
}

fn sample() -> Store {
    let store = Store::new();
    create(
        &store,
        "/memories/architecture.md",
        "# Architecture\n\n## Auth\nDecided to use JWT with 15-minute expiry.\nRefresh tokens rotate daily.\n\n## Storage\nPostgres 17 with one replica.\n",
    );
    create(
        &store,
        "/memories/people/ana.md",
        "# Ana\nAna leads the payments team. Prefers tea.\n",
    );
    create(
        &store,
        "/memories/trips.md",
        "# Trips\n- Lisbon in May\n- Kyoto in autumn: 東京から京都へ\n",
    );
    store
}

#[test]
fn the_answer_has_the_agreed_shape() {
    let store = sample();
    let answer = search(&store, json!({"query": "API authentication decisions JWT"}));
    assert_eq!(answer["query"], "API authentication decisions JWT");
    assert_eq!(answer["method"], "bm25");
    assert!(
        answer["degraded"]
            .as_str()
            .unwrap()
            .contains("Keyword search only")
    );
    assert_eq!(answer["stats"]["totalFiles"], 3);
    let top = &answer["results"][0];
    assert_eq!(top["path"], "/memories/architecture.md");
    assert_eq!(top["lines"], "3-5");
    assert!(
        top["text"]
            .as_str()
            .unwrap()
            .contains("JWT with 15-minute expiry")
    );
    assert_eq!(top["source"], "memory");
    let score = top["score"].as_f64().unwrap();
    assert!((0.35..=1.0).contains(&score), "{score}");
    assert_eq!(
        answer["totalFound"],
        answer["results"].as_array().unwrap().len()
    );
}

#[test]
fn stems_case_accents_and_cjk_match() {
    let store = sample();
    assert_eq!(
        paths(&store, "ROTATING refresh token")[0],
        "/memories/architecture.md"
    );
    assert_eq!(paths(&store, "payment")[0], "/memories/people/ana.md");
    assert_eq!(paths(&store, "lisbôn")[0], "/memories/trips.md");
    assert_eq!(paths(&store, "京都")[0], "/memories/trips.md");
    assert!(paths(&store, "zebra").is_empty());
}

#[test]
fn bounds_and_aliases_are_taken_and_bad_values_say_what_to_send() {
    let store = sample();
    let one = search(
        &store,
        json!({"q": "postgres jwt ana", "limit": 1, "threshold": 0.0}),
    );
    assert_eq!(one["results"].as_array().unwrap().len(), 1);
    assert!(one["totalFound"].as_u64().unwrap() > 1);
    let snake = search(
        &store,
        json!({"query": "postgres", "max_results": 2, "min_score": 0.1}),
    );
    assert_eq!(snake["results"][0]["path"], "/memories/architecture.md");
    for (input, words) in [
        (
            json!({"command": "memory_search"}),
            "Missing required parameter \"query\"",
        ),
        (
            json!({"command": "memory_search", "query": "  "}),
            "is empty",
        ),
        (
            json!({"command": "memory_search", "query": "x", "maxResults": 0}),
            "from 1 to 20",
        ),
        (
            json!({"command": "memory_search", "query": "x", "maxResults": 21}),
            "from 1 to 20",
        ),
        (
            json!({"command": "memory_search", "query": "x", "minScore": 1.5}),
            "from 0.0 to 1.0",
        ),
        (
            json!({"command": "memory_search", "query": "x", "source": "web"}),
            "all, memory, chat, custom",
        ),
    ] {
        let done = store.call(input.clone());
        assert!(
            done.is_error && done.content.contains(words),
            "{input}: {}",
            done.content
        );
    }
}

#[test]
fn answers_follow_every_change_and_never_name_lines_gone() {
    let store = sample();
    store.call(json!({"command": "str_replace", "path": "/memories/architecture.md", "old_str": "Postgres 17", "new_str": "SQLite"}));
    assert!(paths(&store, "postgres").is_empty());
    assert_eq!(paths(&store, "sqlite")[0], "/memories/architecture.md");
    store.call(json!({"command": "rename", "old_path": "/memories/trips.md", "new_path": "/memories/travel/trips.md"}));
    assert_eq!(paths(&store, "lisbon"), ["/memories/travel/trips.md"]);
    store.call(json!({"command": "delete", "path": "/memories/people"}));
    assert!(paths(&store, "payments").is_empty());
    // Another program rewrites a note behind memcap's back: a shorter file
    // never yields lines it no longer has.
    use memcap_core::storage::Storage;
    store.fs.remove_file("architecture.md").unwrap();
    store
        .fs
        .write_new("architecture.md", b"# Architecture\n", false)
        .unwrap();
    for r in search(&store, json!({"query": "jwt refresh", "minScore": 0.0}))["results"]
        .as_array()
        .unwrap()
    {
        assert_ne!(r["path"], "/memories/architecture.md", "{r}");
    }
}

#[test]
fn a_new_instance_answers_from_the_saved_index_and_every_change_since() {
    let store = sample();
    // Past the records the journal keeps after its snapshot: the index is
    // saved with the notes in it.
    for i in 0..140 {
        create(
            &store,
            &format!("/memories/filler/{i}.md"),
            "Filler text.\n",
        );
    }
    store.restarted();
    // Taken before anything asks the index (which a new process restores
    // unparsed): a note put, one changed, one removed.
    create(&store, "/memories/june.md", "Lisbon again in June\n");
    store.ok(
        json!({"command": "str_replace", "path": "/memories/people/ana.md",
        "old_str": "Prefers tea", "new_str": "Prefers coffee"}),
    );
    store.ok(json!({"command": "delete", "path": "/memories/trips.md"}));
    for _ in 0..2 {
        assert_eq!(paths(&store, "Lisbon"), ["/memories/june.md"]);
        assert_eq!(paths(&store, "coffee"), ["/memories/people/ana.md"]);
        assert!(paths(&store, "tea").is_empty());
        assert_eq!(paths(&store, "JWT"), ["/memories/architecture.md"]);
        store.restarted();
    }
}

#[test]
fn changes_made_before_a_search_are_all_in_its_answer() {
    // Writes only queue their changes for the index: what a search finds
    // is every note as the last change left it.
    let store = sample();
    for word in ["plums", "pears", "quinces"] {
        create(&store, "/memories/fruit.md", &format!("We grow {word}.\n"));
        store.ok(json!({"command": "delete", "path": "/memories/fruit.md"}));
    }
    create(&store, "/memories/fruit.md", "We grow figs.\n");
    store.ok(json!({"command": "str_replace", "path": "/memories/people/ana.md", "old_str": "Prefers tea", "new_str": "Prefers mate"}));
    store.ok(json!({"command": "rename", "old_path": "/memories/trips.md", "new_path": "/memories/travel.md"}));
    store.ok(json!({"command": "delete", "path": "/memories/architecture.md"}));
    assert_eq!(paths(&store, "figs"), ["/memories/fruit.md"]);
    assert!(paths(&store, "quinces").is_empty());
    assert!(paths(&store, "plums").is_empty());
    assert_eq!(paths(&store, "mate"), ["/memories/people/ana.md"]);
    assert!(paths(&store, "tea").is_empty());
    assert_eq!(paths(&store, "Lisbon"), ["/memories/travel.md"]);
    assert!(paths(&store, "JWT").is_empty());
}
