//! A runaway or greedy guest becomes an error result and the host lives on.

#[macro_use]
mod common;

use std::time::{Duration, Instant};

use memcap::{Limits, ToolErrorKind};

#[test]
fn a_call_past_its_deadline_is_stopped_and_the_next_call_works() {
    // One backend: the deadline is the runtime's, the same whatever the store.
    let (dir, memory) = common::open_with(Limits {
        call_timeout: Duration::from_millis(10),
        ..Limits::default()
    });
    // Numbering a million lines takes far longer than one 10 ms epoch tick.
    std::fs::write(dir.path().join("memories/long.txt"), "x\n".repeat(990_000)).unwrap();
    // What a write stopped by the deadline would leave behind.
    let temp = dir.path().join("memories/.memcap/tmp/0123456789abcdef");
    std::fs::write(&temp, "half").unwrap();
    let started = Instant::now();
    let e = memory.view("/memories/long.txt", None).unwrap_err();
    let ran = started.elapsed();
    assert_eq!(e.kind, ToolErrorKind::TimedOut, "{}", e.message);
    // The message says it ran 0.01 s: it must not be stopped sooner.
    assert!(ran >= Duration::from_millis(10), "stopped after {ran:?}");
    assert!(!temp.exists(), "a stopped call's temp file survived");
    assert!(
        e.message
            .starts_with("The memory command was stopped after 0.01 s"),
        "{}",
        e.message
    );
    assert!(memory.view("/memories", None).unwrap().contains("long.txt"));
}

#[test]
fn a_guest_out_of_memory_is_reported_and_replaced() {
    // One backend: the memory limit is the runtime's, the same whatever the store.
    let (dir, memory) = common::open_with(Limits {
        memory_bytes: 4 << 20,
        ..Limits::default()
    });
    let e = memory
        .create("/memories/big.txt", &"y".repeat(6 << 20))
        .unwrap_err();
    assert_eq!(e.kind, ToolErrorKind::OutOfMemory, "{}", e.message);
    assert!(!dir.path().join("memories/big.txt").exists());
    let result =
        memory.call(r#"{"command": "create", "path": "/memories/small.txt", "file_text": "ok"}"#);
    assert!(!result.is_error, "{}", result.content);
}

#[test]
fn oversized_input_is_refused_before_the_guest_sees_it() {
    // One backend: the input is refused before any store is touched.
    let (dir, memory) = common::open_with(Limits {
        max_input_bytes: 1000,
        ..Limits::default()
    });
    let e = memory
        .create("/memories/a.txt", &"z".repeat(2000))
        .unwrap_err();
    assert_eq!(e.kind, ToolErrorKind::TooLarge);
    let json = serde_json::json!({"command": "create", "path": "/memories/a.txt", "file_text": "z".repeat(2000)});
    let result = memory.call(&json.to_string());
    assert!(result.is_error);
    assert!(
        result.content.contains("memcap accepts up to 1000 bytes"),
        "{}",
        result.content
    );
    assert!(!dir.path().join("memories/a.txt").exists());
}

both_backends! {
fn files_over_eight_mib_are_refused_by_the_guest() {
    let f = common::Fixture::new();
    f.plant("huge.txt", "h".repeat((8 << 20) + 1));
    let e = f
        .memory
        .str_replace("/memories/huge.txt", "h", "i")
        .unwrap_err();
    assert_eq!(e.kind, ToolErrorKind::TooLarge, "{}", e.message);
    let e = f
        .memory
        .create("/memories/new.txt", &"n".repeat((8 << 20) + 1))
        .unwrap_err();
    assert_eq!(e.kind, ToolErrorKind::TooLarge, "{}", e.message);
    assert!(!f.exists("new.txt"));
}
}
