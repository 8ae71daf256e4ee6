//! What a `content_sha256` precondition costs: warm `str_replace` and
//! `create` (replacing the whole file) of a 10 KB note with and without
//! one, and `view` of a 10 KB and a 1 MB file (whose JSON answer carries
//! the whole file's hash), through `call-json` on a directory. Medians of
//! one run, with ratios from it; nothing is asserted. Run with `./dev bench`.

mod common;

use common::median_ms;
use memcap::Memory;
use serde_json::{Value, json};

const N: usize = 300;

fn call(m: &Memory, input: Value) -> Value {
    let result = m.call_json(&input.to_string());
    assert!(!result.is_error, "{}", result.content);
    serde_json::from_str(&result.content).unwrap()
}

fn timed(mut f: impl FnMut(usize)) -> f64 {
    let samples = (0..N)
        .map(|i| {
            let start = std::time::Instant::now();
            f(i);
            start.elapsed().as_secs_f64() * 1e3
        })
        .collect();
    median_ms(samples) * 1e3
}

fn main() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("memories");
    std::fs::create_dir_all(&root).unwrap();
    let m = Memory::builder(&root).open().unwrap();
    // One word to swap back and forth, in ten kilobytes of lines.
    let body =
        "alpha\n".to_owned() + &"A line of a typical note, ten kilobytes in all.\n".repeat(200);
    let path = "/memories/note.md";
    call(
        &m,
        json!({"command": "create", "path": path, "file_text": body}),
    );
    let words = ["alpha", "omega"];

    let mut hash = call(&m, json!({"command": "view", "path": path}))["sha256"]
        .as_str()
        .unwrap()
        .to_owned();

    let mut word = 0;
    let mut edit = |guarded: bool, hash: &mut String| {
        let (from, to) = (words[word % 2], words[(word + 1) % 2]);
        word += 1;
        let mut input =
            json!({"command": "str_replace", "path": path, "old_str": from, "new_str": to});
        if guarded {
            input["precondition"] = json!({"type": "content_sha256", "content_sha256": hash});
        }
        *hash = call(&m, input)["sha256"].as_str().unwrap().to_owned();
    };
    let plain_edit = timed(|_| edit(false, &mut hash));
    let guarded_edit = timed(|_| edit(true, &mut hash));
    let plain_create = timed(|i| {
        let p = format!("/memories/new/{i}.md");
        call(
            &m,
            json!({"command": "create", "path": p, "file_text": body}),
        );
    });
    let guarded_create = timed(|_| {
        let input = json!({"command": "create", "path": path, "file_text": body,
            "precondition": {"type": "content_sha256", "content_sha256": hash}});
        hash = call(&m, input)["sha256"].as_str().unwrap().to_owned();
    });
    let view_10k = timed(|_| {
        call(&m, json!({"command": "view", "path": path}));
    });
    let big = "A longer line of a large reference file, one of many of them.\n".repeat(16_000);
    call(
        &m,
        json!({"command": "create", "path": "/memories/big2.md", "file_text": big}),
    );
    let view_1m = timed(|_| {
        call(&m, json!({"command": "view", "path": "/memories/big2.md"}));
    });

    println!(
        "warm calls through call-json on a directory, median of {N} (µs); ratios from this run"
    );
    println!("| call | without precondition | with | ratio |");
    println!("|---|---:|---:|---:|");
    println!(
        "| str_replace, 10 KB note | {plain_edit:.0} | {guarded_edit:.0} | {:.2}× |",
        guarded_edit / plain_edit
    );
    println!(
        "| create (new file) vs create replacing with a precondition, 10 KB | {plain_create:.0} | {guarded_create:.0} | {:.2}× |",
        guarded_create / plain_create
    );
    println!("| view with the whole file's sha256, 10 KB | {view_10k:.0} | | |");
    println!("| view with the whole file's sha256, 1 MB | {view_1m:.0} | | |");
}
