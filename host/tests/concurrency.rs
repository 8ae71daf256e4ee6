//! No edit is ever lost: writers in separate processes (and threads) editing
//! different lines of one file are serialised by the store's lock (a
//! directory's `flock`, a database namespace's advisory lock).

#[macro_use]
mod common;

use common::Fixture;

const WRITERS: usize = 8;
const EDITS: usize = 200;

fn initial() -> String {
    (0..WRITERS).map(|w| format!("w{w}=0\n")).collect()
}

fn edit(w: usize, k: usize) -> String {
    serde_json::json!({
        "command": "str_replace",
        "path": "/memories/shared.txt",
        "old_str": format!("w{w}={k}\n"),
        "new_str": format!("w{w}={}\n", k + 1),
    })
    .to_string()
}

fn expected() -> String {
    (0..WRITERS).map(|w| format!("w{w}={EDITS}\n")).collect()
}

/// A fresh store holding `shared.txt`, one line per writer.
fn shared_file() -> Fixture {
    let f = Fixture::new();
    f.memory.create("/memories/shared.txt", &initial()).unwrap();
    f
}

both_backends! {
processes fn eight_processes_two_hundred_edits_each_lose_nothing() {
    let f = shared_file();

    let children: Vec<_> = (0..WRITERS)
        .map(|w| f.feed_call((0..EDITS).map(|k| edit(w, k) + "\n").collect()))
        .collect();
    for child in children {
        let out = child.wait_with_output().unwrap();
        assert!(out.status.success());
        let lines: Vec<memcap::ToolResult> = String::from_utf8(out.stdout)
            .unwrap()
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        assert_eq!(lines.len(), EDITS);
        for line in lines {
            assert!(!line.is_error, "{}", line.content);
        }
    }
    assert_eq!(f.read("shared.txt"), expected());
    // Every acknowledged edit has exactly one version, in an order whose
    // every step replaced what the step before left.
    assert_eq!(common::history_agrees(&f.memory, ""), 1 + WRITERS * EDITS);
}
}

both_backends! {
fn threads_with_separate_handles_lose_nothing() {
    let f = shared_file();
    std::thread::scope(|scope| {
        for w in 0..WRITERS {
            let f = &f;
            scope.spawn(move || {
                // One handle per thread: only the store's lock stands between them.
                let memory = f.reopen();
                for k in 0..EDITS / 4 {
                    let result = memory.call(&edit(w, k));
                    assert!(!result.is_error, "{}", result.content);
                }
            });
        }
    });
    let expected: String = (0..WRITERS)
        .map(|w| format!("w{w}={}\n", EDITS / 4))
        .collect();
    assert_eq!(f.read("shared.txt"), expected);
    assert_eq!(common::history_agrees(&f.memory, ""), 1 + WRITERS * EDITS / 4);
}
}

both_backends! {
fn racing_creates_have_exactly_one_winner() {
    let f = common::Fixture::new();
    let outcomes: Vec<Result<String, memcap::ToolError>> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..16)
            .map(|i| {
                let memory = &f.memory;
                scope.spawn(move || memory.create("/memories/race.txt", &format!("writer {i}")))
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    let winners: Vec<usize> = (0..16).filter(|&i| outcomes[i].is_ok()).collect();
    assert_eq!(winners.len(), 1, "{outcomes:?}");
    assert_eq!(f.read("race.txt"), format!("writer {}", winners[0]));
}
}
