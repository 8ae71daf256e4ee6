//! Writes with a `content_sha256` precondition through the real component,
//! on both backends: answers carry the hash, a stale hash is a `conflict`
//! that changes nothing, and writers that each read, then write on what
//! they read, lose no update however they interleave.

#[macro_use]
mod common;

use common::Fixture;
use serde_json::{Value, json};
use sha2::{Digest, Sha256};

fn sha(bytes: &[u8]) -> String {
    Sha256::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

fn call_json(memory: &memcap::Memory, input: Value) -> (Value, bool) {
    let result = memory.call_json(&input.to_string());
    (
        serde_json::from_str(&result.content).unwrap(),
        result.is_error,
    )
}

fn pre(hash: &str) -> Value {
    json!({"type": "content_sha256", "content_sha256": hash})
}

both_backends! {
fn a_stale_hash_is_a_conflict_and_the_right_one_writes() {
    let f = Fixture::new();
    let m = &f.memory;
    let (created, _) = call_json(m, json!({"command": "create", "path": "/memories/a.md", "file_text": "v1\n"}));
    assert_eq!(created["sha256"], sha(b"v1\n"));
    let (viewed, _) = call_json(m, json!({"command": "view", "path": "/memories/a.md"}));
    let first = viewed["sha256"].as_str().unwrap().to_owned();
    assert_eq!(first, sha(b"v1\n"));

    // Someone else edits after our view.
    m.str_replace("/memories/a.md", "v1", "v2").unwrap();
    let (stale, is_error) = call_json(m, json!({"command": "str_replace", "path": "/memories/a.md",
        "old_str": "v", "new_str": "mine ", "precondition": pre(&first)}));
    assert!(is_error, "{stale}");
    assert_eq!(stale["error"]["kind"], "conflict");
    assert_eq!(stale["error"]["sha256"], sha(b"v2\n"));
    assert_eq!(f.read("a.md"), "v2\n");
    // The model's text names both hashes and says nothing changed.
    let text = m.call(&json!({"command": "delete", "path": "/memories/a.md",
        "precondition": pre(&first)}).to_string());
    assert!(text.is_error && text.content.contains(&first) && text.content.contains(&sha(b"v2\n")), "{}", text.content);
    assert!(f.exists("a.md"));

    // With the hash it answered, the whole file is replaced.
    let (replaced, is_error) = call_json(m, json!({"command": "create", "path": "/memories/a.md",
        "file_text": "v3\n", "precondition": pre(&sha(b"v2\n"))}));
    assert!(!is_error, "{replaced}");
    assert_eq!(f.read("a.md"), "v3\n");
    assert_eq!(replaced["sha256"], sha(b"v3\n"));
    // The index saw the change like any other.
    assert!(m.memory_view(true).unwrap().contains("a.md"));
}
}

both_backends! {
fn writers_that_write_on_what_they_read_lose_no_update() {
    const WRITERS: usize = 4;
    const EACH: usize = 15;
    let f = Fixture::new();
    f.memory.create("/memories/counter.md", "0\n").unwrap();
    let handles: Vec<memcap::Memory> = (0..WRITERS).map(|_| f.reopen()).collect();
    let conflicts: usize = std::thread::scope(|scope| {
        let workers: Vec<_> = handles
            .iter()
            .map(|m| {
                scope.spawn(move || {
                    let mut conflicts = 0;
                    for _ in 0..EACH {
                        // Read, add one, write on the hash read; on a conflict read again.
                        for attempt in 0.. {
                            assert!(attempt < 10_000, "a writer never got through");
                            let (view, _) = call_json(m, json!({"command": "view", "path": "/memories/counter.md"}));
                            let n: u64 = view["lines"][0].as_str().unwrap().parse().unwrap();
                            let (answer, is_error) = call_json(m, json!({"command": "create",
                                "path": "/memories/counter.md", "file_text": format!("{}\n", n + 1),
                                "precondition": pre(view["sha256"].as_str().unwrap())}));
                            if !is_error {
                                break;
                            }
                            assert_eq!(answer["error"]["kind"], "conflict", "{answer}");
                            conflicts += 1;
                        }
                    }
                    conflicts
                })
            })
            .collect();
        workers.into_iter().map(|w| w.join().unwrap()).sum()
    });
    assert_eq!(f.read("counter.md"), format!("{}\n", WRITERS * EACH));
    eprintln!("{} increments by {WRITERS} writers, {conflicts} conflicts retried", WRITERS * EACH);
}
}
