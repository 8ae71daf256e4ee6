//! Notes changed too young to trust, read once more after a bulk copy:
//! over few calls, and not again after a rewrite of the journal (a second
//! of thousands of notes was read once more by every process, forever).

mod common;

use common::Store;
use memcap_core::storage::Storage;
use serde_json::json;

#[test]
fn a_call_that_decodes_every_block_to_find_what_is_due_reads_it_for_as_long() {
    let s = Store::new();
    // A bulk copy's notes: more in one second than the journal's head
    // holds, so each process decodes every block to find them.
    s.aged_burst(4_000);
    // Each read of the monotonic clock is 50 µs: a 1 ms slice reads about
    // ten notes once more, 400 calls for these (103 now, each as long as
    // the decoding of the 1,906 notes past the head, 3.8 ms).
    s.env.step.set(50_000);
    // The last of them in the order they are read once more.
    let last = s.fs.count_reads_of("burst/n999.md");
    let calls = (0..1_000).position(|_| {
        s.restarted();
        s.next_second();
        s.ok(json!({"command": "prompt"}));
        last.get() > 0
    });
    assert!(
        calls.is_some_and(|n| (1..=150).contains(&n)),
        "read once more in {calls:?} calls"
    );
}

#[test]
fn a_rewrite_of_the_journal_keeps_where_the_once_more_reads_are() {
    let s = Store::new();
    s.aged_burst(2_100);
    s.env.step.set(50_000);
    // The first of them in the order they are read once more.
    let first = s.fs.count_reads_of("burst/n0.md");
    let size = s.fs.stat("burst/n0.md", false).unwrap().size;
    // Each second a call reads some once more, and then writes in the same
    // second rewrite the journal every few seconds, long before these are
    // all read once more.
    let mut generations = std::collections::BTreeSet::new();
    for call in 0..400 {
        s.restarted();
        s.next_second();
        s.ok(json!({"command": "prompt"}));
        for i in 0..10 {
            s.ok(
                json!({"command": "create", "path": format!("/memories/later/{call}-{i}.md"),
                "file_text": "x\n"}),
            );
        }
        generations.insert(s.journal_generation().to_string());
    }
    assert!(
        generations.len() > 10,
        "rewritten {} times",
        generations.len()
    );
    assert_eq!(first.get(), size, "read once more {} bytes", first.get());
}
