//! `memory_search`, `memory_get` and `memory_stats` through the real
//! component: ranking basics, bounds and aliases, the typed functions, the
//! freshness rules, and the path rules `memory_get` shares with `view`.

#[macro_use]
mod common;

use common::Fixture;
use memcap::{Source, ToolErrorKind as K};
use serde_json::{Value, json};

fn call(f: &Fixture, input: Value) -> Value {
    let result = f.memory.call(&input.to_string());
    assert!(!result.is_error, "{input}: {}", result.content);
    serde_json::from_str(&result.content).expect("search tools answer JSON")
}

fn call_err(f: &Fixture, input: Value) -> String {
    let result = f.memory.call(&input.to_string());
    assert!(result.is_error, "{input} succeeded: {}", result.content);
    result.content
}

/// The paths of a search's results, best first.
fn found(f: &Fixture, query: &str) -> Vec<String> {
    let answer = call(f, json!({"command": "memory_search", "query": query}));
    answer["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["path"].as_str().unwrap().to_owned())
        .collect()
}

fn write(f: &Fixture, path: &str, text: &str) {
    let result = f.memory.call(
        &json!({"command": "create", "path": format!("/memories/{path}"), "file_text": text})
            .to_string(),
    );
    assert!(!result.is_error, "{}", result.content);
}

both_backends! {
fn a_long_note_is_indexed_to_its_end() {
    // WASI hosts cut one read short (at 64 KiB here): the index reads on.
    let f = Fixture::new();
    let filler: String = (0..20_000).map(|i| format!("filler line {i}\n")).collect();
    write(&f, "long.md", &format!("{filler}the quokka lives here\n"));
    assert_eq!(found(&f, "quokka"), ["/memories/long.md"]);
}
}

both_backends! {
fn ranking_finds_terms_stems_case_accents_and_cjk() {
    let f = Fixture::new();
    write(
        &f,
        "db.md",
        "# Database\nWe chose Postgres for its JSON support.\n",
    );
    write(
        &f,
        "run.md",
        "The nightly jobs are running on the old cluster.\n",
    );
    write(&f, "cafe.md", "Meeting at the Café Müller on Friday.\n");
    write(&f, "tokyo.md", "出張は東京タワーの近くのホテルに泊まる。\n");
    write(
        &f,
        "noise.md",
        "Nothing to see here: lunch, weather, traffic.\n",
    );

    assert_eq!(found(&f, "postgres"), ["/memories/db.md"]);
    assert_eq!(found(&f, "POSTGRES json"), ["/memories/db.md"]);
    // Stemming: "run" finds "running".
    assert_eq!(found(&f, "which jobs run"), ["/memories/run.md"]);
    // Accents and case fold both ways.
    assert_eq!(found(&f, "cafe muller"), ["/memories/cafe.md"]);
    assert_eq!(found(&f, "CAFÉ"), ["/memories/cafe.md"]);
    // CJK text has no spaces: overlapping pairs of characters match.
    assert_eq!(found(&f, "東京"), ["/memories/tokyo.md"]);
    assert!(found(&f, "kubernetes").is_empty());
}
}

both_backends! {
fn a_passage_with_every_word_ranks_above_one_with_some() {
    // Keywords only: the scores are BM25's, scaled by the fixed formula.
    let f = Fixture::with_vectors(false);
    write(&f, "a.md", "The deploy key rotates monthly.\n");
    write(&f, "b.md", "Deploy on Fridays is forbidden.\n");
    write(&f, "c.md", "The key to the office is at the desk.\n");
    let answer = call(
        &f,
        json!({"command": "memory_search", "query": "deploy key", "minScore": 0}),
    );
    let results = answer["results"].as_array().unwrap();
    assert_eq!(results[0]["path"], "/memories/a.md");
    assert_eq!(results.len(), 3);
    let scores: Vec<f64> = results
        .iter()
        .map(|r| r["score"].as_f64().unwrap())
        .collect();
    // Every word of the query once: past the knee, about 0.8, never 1.
    assert!(scores[0] > 0.7 && scores[0] < 1.0, "{scores:?}");
    assert!(scores[1] < scores[0] && scores[2] < scores[0], "{scores:?}");
    assert_eq!(answer["totalFound"], 3);
    assert_eq!(answer["method"], "bm25");
    assert!(
        answer["degraded"]
            .as_str()
            .unwrap()
            .contains("MEMCAP_VECTORS=off")
    );
    assert_eq!(answer["stats"], json!({"totalFiles": 3, "totalChunks": 3}));
    // The default threshold (0.35) keeps only passages that carry enough
    // of the query; every score shown is at least the one asked for.
    for r in call(
        &f,
        json!({"command": "memory_search", "query": "deploy key", "minScore": 0.5}),
    )["results"]
        .as_array()
        .unwrap()
    {
        assert!(r["score"].as_f64().unwrap() >= 0.5, "{r}");
    }
}
}

both_backends! {
fn a_phrase_like_query_prefers_its_words_on_one_line() {
    // Both notes hold "release" and "freeze" once, in as many words: only
    // one says them together, as the question does.
    let f = Fixture::with_vectors(false);
    write(
        &f,
        "scattered.md",
        "- The release went out late\n- Lunch was good\n- The pipes may freeze tonight\n",
    );
    write(
        &f,
        "together.md",
        "- The release freeze starts on Monday\n- Lunch was good\n- The pipes went out late tonight\n",
    );
    let answer = call(
        &f,
        json!({"command": "memory_search", "query": "when is the release freeze?", "minScore": 0}),
    );
    let results = answer["results"].as_array().unwrap();
    assert_eq!(results[0]["path"], "/memories/together.md", "{answer}");
    assert_eq!(results[1]["path"], "/memories/scattered.md", "{answer}");
    assert!(results[0]["score"].as_f64() > results[1]["score"].as_f64());
}
}

both_backends! {
fn results_name_lines_and_text_as_the_file_holds_them() {
    let f = Fixture::new();
    let mut text = String::from("# Notes\n");
    for i in 1..=40 {
        text.push_str(&format!("filler line {i}\n"));
    }
    text.push_str("## Auth\nWe use JWT with a 15-minute expiry.\n");
    write(&f, "arch.md", &text);
    let answer = call(
        &f,
        json!({"command": "memory_search", "query": "JWT expiry"}),
    );
    let hit = &answer["results"][0];
    assert_eq!(hit["path"], "/memories/arch.md");
    assert_eq!(hit["lines"], "42-43");
    assert_eq!(hit["text"], "## Auth\nWe use JWT with a 15-minute expiry.");
    assert_eq!(hit["source"], "memory");
    // memory_get takes the range as search gives it.
    let got = call(
        &f,
        json!({"command": "memory_get", "path": "/memories/arch.md", "lines": "42-43"}),
    );
    assert_eq!(got["text"], hit["text"]);
    assert_eq!(got["totalLines"], 44);
}
}

both_backends! {
fn bounds_aliases_and_bad_values() {
    let f = Fixture::new();
    for i in 0..25 {
        write(&f, &format!("n{i}.md"), &format!("apple note number {i}\n"));
    }
    let count = |input: Value| call(&f, input)["results"].as_array().unwrap().len();
    assert_eq!(
        count(json!({"command": "memory_search", "query": "apple"})),
        6
    );
    assert_eq!(
        count(json!({"command": "memory_search", "q": "apple", "maxResults": 20})),
        20
    );
    assert_eq!(
        count(json!({"command": "memory_search", "query": "apple", "limit": 2})),
        2
    );
    assert_eq!(
        count(json!({"command": "memory_search", "query": "apple", "max_results": 3})),
        3
    );
    assert_eq!(
        count(
            json!({"command": "memory_search", "query": "apple", "threshold": 1.0, "min_score": 0})
        ),
        6
    );
    let total = call(
        &f,
        json!({"command": "memory_search", "query": "apple", "maxResults": 1}),
    )["totalFound"]
        .clone();
    assert_eq!(total, 25);

    for (input, names) in [
        (json!({"query": "apple", "maxResults": 0}), "\"maxResults\""),
        (json!({"query": "apple", "limit": 21}), "\"limit\""),
        (
            json!({"query": "apple", "maxResults": "five"}),
            "from 1 to 20",
        ),
        (json!({"query": "apple", "minScore": 1.5}), "\"minScore\""),
        (
            json!({"query": "apple", "threshold": -0.1}),
            "\"threshold\"",
        ),
        (
            json!({"query": "apple", "source": "web"}),
            "all, memory, chat, custom",
        ),
        (json!({"query": "  "}), "is empty"),
        (json!({"query": 7}), "must be a string"),
        (json!({}), "Missing required parameter \"query\""),
    ] {
        let mut input = input;
        input["command"] = json!("memory_search");
        let message = call_err(&f, input.clone());
        assert!(message.contains(names), "{input}: {message}");
    }
}
}

both_backends! {
fn sources_filter_what_is_searched() {
    let f = Fixture::new();
    write(&f, "a.md", "apple\n");
    let search = |source: &str| {
        call(
            &f,
            json!({"command": "memory_search", "query": "apple", "source": source}),
        )
    };
    assert_eq!(search("memory")["results"][0]["source"], "memory");
    assert_eq!(search("all")["results"].as_array().unwrap().len(), 1);
    // Neither is there yet: the answer says so (`sources.rs` fills them).
    for source in ["chat", "custom"] {
        let answer = search(source);
        assert!(answer["results"].as_array().unwrap().is_empty(), "{answer}");
        assert!(
            answer["degraded"]
                .as_str()
                .unwrap()
                .contains("nothing to search"),
            "{answer}"
        );
    }
}
}

both_backends! {
fn the_typed_functions_answer_records() {
    let f = Fixture::new();
    write(&f, "db.md", "We chose Postgres.\nIt has JSON.\n");
    let answer = f
        .memory
        .memory_search("postgres", Some(1), None, Some(Source::Memory), None)
        .unwrap();
    assert_eq!(answer.results.len(), 1);
    assert_eq!(answer.results[0].path, "/memories/db.md");
    assert_eq!(answer.results[0].lines, "1-2");
    assert_eq!(answer.method, "hybrid");
    assert!(answer.degraded.is_none());
    assert_eq!((answer.total_files, answer.total_chunks), (1, 1));

    let e = f
        .memory
        .memory_search("postgres", Some(0), None, None, None)
        .unwrap_err();
    assert_eq!(e.kind, K::InvalidPath);
    assert!(e.message.contains("max-results"), "{}", e.message);
    let e = f
        .memory
        .memory_search("postgres", None, Some(2.0), None, None)
        .unwrap_err();
    assert!(e.message.contains("min-score"), "{}", e.message);
    let e = f
        .memory
        .memory_search(" ", None, None, None, None)
        .unwrap_err();
    assert!(e.message.contains("empty"), "{}", e.message);

    let got = f
        .memory
        .memory_get("/memories/db.md", Some(2), None)
        .unwrap();
    assert_eq!(
        (got.lines.as_str(), got.text.as_str()),
        ("2-3", "It has JSON.\n")
    );
    assert_eq!(got.total_lines, 3);
    assert!(got.more.is_none());

    let stats = f.memory.memory_stats().unwrap();
    assert_eq!((stats.total_files, stats.total_chunks), (1, 1));
    assert_eq!(stats.sources, [Source::Memory]);
    assert!(stats.vectors);
    assert_eq!(stats.method, "hybrid");
    assert_eq!(stats.model.as_deref(), Some("potion-base-2M"));
    assert!(stats.index_bytes > 0);
    assert!(stats.indexed_at.unwrap().ends_with('Z'));
}
}

both_backends! {
fn memory_get_ranges_counts_and_the_cap() {
    let f = Fixture::new();
    let text: String = (1..=10).map(|i| format!("line {i}\n")).collect();
    write(&f, "ten.md", &text);
    let get = |extra: Value| {
        let mut input = json!({"command": "memory_get", "path": "/memories/ten.md"});
        for (k, v) in extra.as_object().unwrap() {
            input[k] = v.clone();
        }
        call(&f, input)
    };
    let whole = get(json!({}));
    assert_eq!(whole["lines"], "1-11");
    assert_eq!(whole["text"], text);
    assert_eq!(get(json!({"lines": "3-4"}))["text"], "line 3\nline 4");
    assert_eq!(
        get(json!({"from": 3, "lines": 2}))["text"],
        "line 3\nline 4"
    );
    assert_eq!(get(json!({"from": 9}))["lines"], "9-11");
    assert_eq!(get(json!({"lines": 2}))["text"], "line 1\nline 2");
    // A range past the end is cut at the last line.
    assert_eq!(get(json!({"lines": "9-500"}))["lines"], "9-11");

    for (extra, says) in [
        (json!({"lines": "4-3"}), "line range such as \"42-56\""),
        (json!({"lines": "0-3"}), "line range"),
        (json!({"lines": "a-b"}), "line range"),
        (json!({"from": 0}), "\"from\""),
        (json!({"from": 2, "lines": "3-4"}), "line range"),
    ] {
        let mut input = json!({"command": "memory_get", "path": "/memories/ten.md"});
        for (k, v) in extra.as_object().unwrap() {
            input[k] = v.clone();
        }
        let message = call_err(&f, input);
        assert!(message.contains(says), "{extra}: {message}");
    }
    let past = f
        .memory
        .memory_get("/memories/ten.md", Some(50), None)
        .unwrap_err();
    assert_eq!(past.kind, K::InvalidLine);
    assert!(past.message.contains("has 11 lines"), "{}", past.message);

    // 12,000 characters at most, in whole lines, and where to go on.
    let long: String = (1..=400).map(|i| format!("{i:>49}\n")).collect();
    write(&f, "long.md", &long);
    let first = call(
        &f,
        json!({"command": "memory_get", "path": "/memories/long.md"}),
    );
    assert_eq!(first["lines"], "1-240");
    assert_eq!(
        first["text"].as_str().unwrap().chars().count(),
        240 * 50 - 1
    );
    let more = first["more"].as_str().unwrap();
    assert!(more.contains("lines \"241-401\""), "{more}");
    let next = call(
        &f,
        json!({"command": "memory_get", "path": "/memories/long.md", "lines": "241-401"}),
    );
    assert_eq!(next["lines"], "241-401");
    assert!(next.get("more").is_none());
}
}

#[test]
fn memory_get_keeps_views_path_rules() {
    // One backend: the rules on links are a directory's.
    // A link to outside is a directory's.
    let f = Fixture::directory();
    write(&f, "a.md", "a\n");
    std::fs::create_dir(f.root().join("dir")).unwrap();
    std::fs::write(f.dir.path().join("secret.txt"), "outside").unwrap();
    #[cfg(unix)]
    std::os::unix::fs::symlink(f.dir.path().join("secret.txt"), f.root().join("link.md")).unwrap();
    let get = |path: &str| f.memory.memory_get(path, None, None).unwrap_err();
    assert_eq!(get("/memories/../secret.txt").kind, K::Escape);
    assert_eq!(get("/etc/passwd").kind, K::InvalidPath);
    assert_eq!(get("/memories/.memcap/notes.jsonl").kind, K::InvalidPath);
    assert_eq!(get("/memories/nope.md").kind, K::NotFound);
    assert_eq!(get("/memories/dir").kind, K::NotAFile);
    #[cfg(unix)]
    {
        let e = get("/memories/link.md");
        assert_eq!(e.kind, K::Escape);
        assert!(!e.message.contains(&*f.dir.path().to_string_lossy()));
    }
}

both_backends! {
fn changes_through_memcap_and_other_programs_show_on_the_next_call() {
    let f = Fixture::new();
    write(&f, "a.md", "the zebra crossing\n");
    assert_eq!(found(&f, "zebra"), ["/memories/a.md"]);

    // Through memcap: edit, rename, delete.
    let edit = json!({"command": "str_replace", "path": "/memories/a.md",
                      "old_str": "zebra", "new_str": "pelican"});
    assert!(!f.memory.call(&edit.to_string()).is_error);
    assert!(found(&f, "zebra").is_empty());
    assert_eq!(found(&f, "pelican"), ["/memories/a.md"]);
    let rename = json!({"command": "rename", "old_path": "/memories/a.md",
                        "new_path": "/memories/b.md"});
    assert!(!f.memory.call(&rename.to_string()).is_error);
    assert_eq!(found(&f, "pelican"), ["/memories/b.md"]);

    // Other programs: create, rename, delete.
    f.plant("sub/c.md", "a walrus on the beach\n");
    assert_eq!(found(&f, "walrus"), ["/memories/sub/c.md"]);
    f.rename("sub/c.md", "d.md");
    assert_eq!(found(&f, "walrus"), ["/memories/d.md"]);
    f.remove("d.md");
    assert!(found(&f, "walrus").is_empty());
}
}

both_backends! {
fn a_result_never_names_lines_a_file_no_longer_holds() {
    let f = Fixture::new();
    let text: String = (1..=30)
        .map(|i| format!("line {i}{}\n", if i == 25 { " okapi" } else { "" }))
        .collect();
    write(&f, "a.md", &text);
    // Stamps younger than two seconds (whole seconds, so up to three) are
    // always checked again; past that, an in-place edit (the directory's
    // stamp unchanged) waits for the catalog's sweep, so only the read-back
    // keeps stale hits out.
    f.later(common::RACY);
    assert_eq!(found(&f, "okapi"), ["/memories/a.md"]);
    // Rewritten in place (truncated, the same file), as an editor saves.
    f.plant("a.md", b"short now\n");
    assert!(found(&f, "okapi").is_empty());
    assert!(found(&f, "short").is_empty(), "the edit is not indexed yet");
    // Same length, the word gone: not shown either.
    let same: String = (1..=30)
        .map(|i| format!("line {i}{}\n", if i == 25 { " zzzzz" } else { "" }))
        .collect();
    f.plant("a.md", same.as_bytes());
    assert!(found(&f, "okapi").is_empty());
    // memory_stats counts the note as changed since it was indexed.
    let stats = call(&f, json!({"command": "memory_stats"}));
    assert_eq!(stats["changedSinceIndexed"], 1, "{stats}");
    // The host's report brings it in at once.
    f.memory.changed(&["/memories/a.md".to_owned()]).unwrap();
    assert_eq!(found(&f, "zzzzz"), ["/memories/a.md"]);
    let stats = call(&f, json!({"command": "memory_stats"}));
    assert_eq!(stats["changedSinceIndexed"], 0, "{stats}");
}
}

/// A note that says "car commute" in other words, and one about nothing
/// like it.
fn commute_and_cake(f: &Fixture) {
    write(
        f,
        "commute.md",
        "# Getting to work\nI bought a new automobile to drive to the office.\n",
    );
    write(
        f,
        "baking.md",
        "# Baking\nThe chocolate cake recipe needs three eggs.\n",
    );
}

const PARAPHRASE: &str = "car commute";

/// The generation of the journal's snapshot: a new one each time it is
/// rewritten.
fn generation(f: &Fixture) -> u64 {
    // The header is the first line; binary snapshot bytes follow it.
    let journal = f.read_bytes(".memcap/notes.jsonl");
    let end = journal.iter().position(|&b| b == b'\n').unwrap();
    let header: Value = serde_json::from_slice(&journal[..end]).unwrap();
    header["generation"].as_u64().unwrap()
}

both_backends! {
fn vectors_find_a_passage_that_says_it_in_other_words() {
    let f = Fixture::new();
    let query = json!({"command": "memory_search", "query": PARAPHRASE, "minScore": 0});
    // An empty memory is hybrid too: nothing to find, nothing degraded.
    let empty = call(&f, query.clone());
    assert_eq!(empty["method"], "hybrid");
    assert!(empty["degraded"].is_null(), "{empty}");
    commute_and_cake(&f);
    // Neither note holds a word of the query: only the vectors find it.
    let answer = call(&f, query.clone());
    assert_eq!(answer["method"], "hybrid");
    assert!(answer["degraded"].is_null(), "{answer}");
    assert_eq!(answer["results"][0]["path"], "/memories/commute.md");
    // A passage found by its vector alone scores at most the vector's
    // weight (0.3), so the default threshold (0.35) leaves it out.
    let score = answer["results"][0]["score"].as_f64().unwrap();
    assert!(score > 0.1 && score <= 0.3, "{answer}");
    assert!(found(&f, PARAPHRASE).is_empty());
    // Words and meaning both: above the threshold, first.
    assert_eq!(found(&f, "automobile office"), ["/memories/commute.md"]);

    // Vectors off: keywords only, and the answer says why. An index saved
    // with vectors (the journal rebuilt from the files, so its snapshot
    // holds them) is rebuilt without them and saved (a new snapshot, under
    // a new generation), so a second process does not rebuild it again.
    f.remove(".memcap/notes.jsonl");
    assert_eq!(found(&f, "automobile office"), ["/memories/commute.md"]);
    let before = generation(&f);
    let off = f.builder().vectors(false).open().unwrap();
    let answer: Value = serde_json::from_str(&off.call(&query.to_string()).content).unwrap();
    let rebuilt = generation(&f);
    assert_ne!(rebuilt, before);
    let again = f.builder().vectors(false).open().unwrap();
    again
        .memory_search(PARAPHRASE, None, None, None, None)
        .unwrap();
    assert_eq!(generation(&f), rebuilt);
    drop(again);
    assert_eq!(answer["method"], "bm25");
    assert!(
        answer["degraded"]
            .as_str()
            .unwrap()
            .contains("MEMCAP_VECTORS=off"),
        "{answer}"
    );
    assert!(answer["results"].as_array().unwrap().is_empty(), "{answer}");
    let stats = off.memory_stats().unwrap();
    assert!(!stats.vectors && stats.model.is_none() && stats.method == "bm25");
    drop(off);
    // On again in a new process: its index (saved without vectors) is
    // rebuilt with them, and the paraphrase is found again.
    let on = f.reopen();
    let answer = on
        .memory_search(PARAPHRASE, None, Some(0.0), None, None)
        .unwrap();
    assert_eq!(answer.method, "hybrid");
    assert_eq!(answer.results[0].path, "/memories/commute.md");
}
}

both_backends! {
fn a_passage_found_by_its_vector_is_read_back_too() {
    let f = Fixture::new();
    commute_and_cake(&f);
    // Past the whole-second trust window, as in the test above: an
    // in-place edit now waits for the catalog's sweep.
    f.later(common::RACY);
    let search = || {
        f.memory
            .memory_search(PARAPHRASE, None, Some(0.0), None, None)
            .unwrap()
            .results
            .into_iter()
            .map(|r| r.path)
            .collect::<Vec<_>>()
    };
    assert_eq!(search()[0], "/memories/commute.md");
    // Another program rewrites it in place to say something else: its
    // indexed vector still matches, the lines read back no longer do.
    f.plant(
        "commute.md",
        "# Knitting\nThe wool scarf pattern uses a purl stitch.\n",
    );
    assert!(!search().contains(&"/memories/commute.md".to_owned()));
}
}

both_backends! {
fn a_damaged_or_deleted_index_is_rebuilt_from_the_files() {
    let f = Fixture::new();
    write(&f, "a.md", "the heron\n");
    write(&f, "b.md", "the egret\n");
    assert_eq!(found(&f, "heron"), ["/memories/a.md"]);
    let journal = ".memcap/notes.jsonl";
    let mut bytes = f.read_bytes(journal);
    let middle = bytes.len() / 2;
    for b in &mut bytes[middle..] {
        *b = b'#';
    }
    f.plant(journal, bytes);
    // A fresh handle: nothing warm in memory.
    let reopened = f.reopen();
    let answer = reopened
        .memory_search("egret heron", Some(5), Some(0.0), None, None)
        .unwrap();
    let mut paths: Vec<&str> = answer.results.iter().map(|r| r.path.as_str()).collect();
    paths.sort();
    assert_eq!(paths, ["/memories/a.md", "/memories/b.md"]);
    f.remove(journal);
    let again = f.reopen();
    assert_eq!(
        again
            .memory_search("egret", None, None, None, None)
            .unwrap()
            .results[0]
            .path,
        "/memories/b.md"
    );
}
}

both_backends! {
processes fn two_processes_write_while_a_third_searches() {
    let f = Fixture::new();
    const NOTES: usize = 40;
    let note = |w: usize, i: usize| {
        json!({"command": "create", "path": format!("/memories/w{w}/n{i}.md"),
               "file_text": format!("writer {w} note {i}: zebra{w}x{i} and the shared word quokka\n")})
        .to_string()
            + "\n"
    };
    let writers: Vec<_> = (0..2)
        .map(|w| f.feed_call((0..NOTES).map(|i| note(w, i)).collect()))
        .collect();
    // A third process searches while they write: every answer is whole and
    // every result names lines its file holds.
    let mut searcher = f.feed_call(
        (0..30)
            .map(|_| {
                json!({"command": "memory_search", "query": "quokka zebra", "maxResults": 20})
                    .to_string()
                    + "\n"
            })
            .collect(),
    );
    let searched = std::io::read_to_string(searcher.stdout.take().unwrap()).unwrap();
    assert!(searcher.wait().unwrap().success());
    for writer in writers {
        let out = writer.wait_with_output().unwrap();
        assert!(out.status.success());
        let text = String::from_utf8(out.stdout).unwrap();
        assert_eq!(text.matches("\"is_error\":false").count(), NOTES, "{text}");
    }
    assert_eq!(searched.lines().count(), 30);
    for line in searched.lines() {
        let result: Value = serde_json::from_str(line).unwrap();
        assert_eq!(result["is_error"], false, "{line}");
        let answer: Value = serde_json::from_str(result["content"].as_str().unwrap()).unwrap();
        for hit in answer["results"].as_array().unwrap() {
            let path = hit["path"]
                .as_str()
                .unwrap()
                .strip_prefix("/memories/")
                .unwrap();
            assert!(
                f.read(path).contains(hit["text"].as_str().unwrap()),
                "{hit}"
            );
        }
    }
    // Afterwards every note of both writers is found by its own word.
    for w in 0..2 {
        for i in 0..NOTES {
            assert_eq!(
                found(&f, &format!("zebra{w}x{i}")),
                [format!("/memories/w{w}/n{i}.md")]
            );
        }
    }
}
}

both_backends! {
fn a_hundred_thousand_note_store_answers_searches() {
    let f = Fixture::new();
    f.plant_many(
        (0..100_000)
            .map(|i| {
                let text = format!(
                    "# Note {i}\nTopic word{i} of project {} and item {}.\n",
                    i % 97,
                    i % 1013
                );
                (format!("d{:03}/n{i}.md", i / 1000), text.into_bytes())
            })
            .collect(),
    );
    // A new host, no index: under the default limits the first searches
    // answer (the index is built as far as each call's budget goes) and it
    // is complete within a few calls; a new process then loads it.
    let memory = f.reopen();
    let mut calls = 0;
    loop {
        calls += 1;
        let answer = memory
            .memory_search("word99999", None, None, None, None)
            .unwrap();
        if answer.total_files == 100_000 {
            assert_eq!(answer.results[0].path, "/memories/d099/n99999.md");
            break;
        }
        assert!(
            calls < 15,
            "still {} files after {calls} calls",
            answer.total_files
        );
    }
    let fresh = f.reopen();
    let answer = fresh
        .memory_search("project 42 item 42", Some(20), None, None, None)
        .unwrap();
    assert_eq!(answer.results.len(), 20);
    assert_eq!(fresh.memory_stats().unwrap().total_files, 100_000);
}
}

both_backends! {
fn a_file_memcap_cannot_read_back_is_not_searched() {
    let f = Fixture::new();
    write(&f, "small.md", "the okapi lives here\n");
    // Over the 8 MiB a file may hold, planted by another program.
    let mut big = "the okapi was here too\n".to_owned();
    big.push_str(&"filler text line\n".repeat(600_000));
    f.plant("big.md", big);
    assert_eq!(found(&f, "okapi"), ["/memories/small.md"]);
    let e = call_err(
        &f,
        json!({"command": "memory_get", "path": "/memories/big.md", "lines": "1-1"}),
    );
    assert!(
        e.contains("too large") || e.contains("8 MiB") || e.contains("over"),
        "{e}"
    );
}
}
