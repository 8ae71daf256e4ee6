//! Parameters of memcap's own tools are taken as agents spell them or
//! refused with what to send: no filter or bound is silently dropped, no
//! number wraps, and a host's report of many paths stays bounded.

#[macro_use]
mod common;

use common::Fixture;
use serde_json::{Value, json};

fn call(f: &Fixture, input: Value) -> (bool, String) {
    let result = f.memory.call(&input.to_string());
    (result.is_error, result.content)
}

/// A store with one note, about alpha.
fn with_alpha() -> Fixture {
    let f = Fixture::new();
    f.memory
        .memory_write(
            "a",
            "Alpha",
            "about alpha",
            memcap::NoteType::Project,
            "alpha facts",
        )
        .unwrap();
    f
}

both_backends! {
fn unknown_or_nested_parameters_are_refused_and_both_spellings_taken() {
    let f = with_alpha();
    for (input, says) in [
        (
            json!({"command": "memory_search", "query": "alpha", "filters": {"types": ["user"]}}),
            "Send the filters' fields at the top level",
        ),
        (
            json!({"command": "memory_search", "query": "alpha", "after": "7d"}),
            "Unknown parameter \"after\" for command memory_search: its parameters are query, maxResults",
        ),
        (
            json!({"command": "build_context", "url": "memory://a", "max_depth": 2}),
            "Unknown parameter \"max_depth\" for command build_context",
        ),
        (
            json!({"command": "memory_stats", "verbose": true}),
            "for command memory_stats: it takes none",
        ),
        (
            json!({"command": "memory_search", "query": "alpha", "after_date": ""}),
            "\"after_date\" for command memory_search is empty",
        ),
        (
            json!({"command": "memory_search", "query": "alpha", "afterDate": "  "}),
            "\"afterDate\" for command memory_search is empty",
        ),
        (
            json!({"command": "memory_get", "path": "/memories/a.md", "from": 4_294_967_296u64}),
            "must be a line number from 1 to 4294967295",
        ),
    ] {
        let (error, content) = call(&f, input.clone());
        assert!(error, "{input}: {content}");
        assert!(content.contains(says), "{input}: {content}");
    }
    // The other spellings do what the listed names do.
    let (error, content) = call(
        &f,
        json!({"command": "memory_search", "query": "alpha", "afterDate": "2000-01-01", "max_results": 1}),
    );
    assert!(!error && content.contains("/memories/a.md"), "{content}");
    let (error, content) = call(
        &f,
        json!({"command": "memory_search", "query": "alpha", "afterDate": "2999-01-01"}),
    );
    assert!(!error && !content.contains("/memories/a.md"), "{content}");
    let (error, content) = call(
        &f,
        json!({"command": "build_context", "url": "memory://a", "maxRelated": 0}),
    );
    assert!(error && content.contains("\"maxRelated\""), "{content}");
    // The memory tool's six commands refuse other fields too (the SDK drops
    // them): a misspelled precondition must not pass as a write without one.
    let (error, content) = call(
        &f,
        json!({"command": "view", "path": "/memories/a.md", "extra": 1}),
    );
    assert!(error && content.contains("Unknown parameter \"extra\""), "{content}");
    let (error, content) = call(
        &f,
        json!({"command": "delete", "path": "/memories/a.md", "precondtion": {}}),
    );
    assert!(error && content.contains("\"precondtion\""), "{content}");
    assert!(f.exists("a.md"));
}
}

both_backends! {
fn a_report_of_many_paths_is_bounded() {
    let f = Fixture::new();
    f.memory.create("/memories/a.md", "a\n").unwrap();
    let many = vec!["/memories/a.md".to_owned(); 400_000];
    let start = std::time::Instant::now();
    f.memory.changed(&many).unwrap();
    let distinct: Vec<String> = (0..20_000).map(|i| format!("/memories/n{i}.md")).collect();
    let said = f.memory.changed(&distinct).unwrap();
    assert!(said.contains("10000"), "{said}");
    println!(
        "two reports (400,000 and 20,000 paths) in {:?}",
        start.elapsed()
    );
}
}

both_backends! {
fn echoed_input_is_cut() {
    let f = with_alpha();
    let query = format!("alpha {}", "word ".repeat(200_000));
    let data = f
        .memory
        .call_json(&json!({"command": "memory_search", "query": query}).to_string());
    assert!(
        !data.is_error,
        "{}",
        &data.content[..200.min(data.content.len())]
    );
    assert!(data.content.len() < 20_000, "{} bytes", data.content.len());
    let text = f
        .memory
        .call(&json!({"command": "memory_search", "query": query}).to_string());
    assert!(text.content.len() < 20_000, "{} bytes", text.content.len());
    let (error, content) = call(
        &f,
        json!({"command": "memory_search", "query": "alpha", "after_date": "x".repeat(15 << 20)}),
    );
    assert!(error);
    assert!(content.len() < 5_000, "{} bytes", content.len());
    assert!(content.contains("cut:"), "{content}");
}
}
