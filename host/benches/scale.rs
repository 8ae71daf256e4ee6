//! Store size against one-shot `memcap` calls (a new process each, compiled
//! code cached, journal present): `create`, `prompt` and `memory-view` for
//! 1,000 and 10,000 notes (100,000 with `MEMCAP_BENCH_100K=1`), and the
//! rebuild when the journal is lost: how many calls and how long until the
//! index is whole. Medians of one run; the targets of the hardening issue
//! (10,000 notes: create ≤ 30 ms, prompt ≤ 60 ms) are printed beside them.

mod common;

use common::{median_ms, memcap, plant, store_sizes, time_ms};

struct Row {
    notes: usize,
    create: f64,
    prompt: f64,
    memory_view: f64,
    rebuild_calls: usize,
    rebuild_ms: f64,
}

fn measure(notes: usize) -> Row {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("memories");
    std::fs::create_dir_all(&root).unwrap();
    plant(&root, notes);
    // Directory stamps of the last 2 seconds are not trusted (a change in
    // the same tick may not move them), so every directory would be listed
    // on every call: a store this fresh is not what a new process finds.
    std::thread::sleep(std::time::Duration::from_secs(3));
    let runs = if notes >= 100_000 { 5 } else { 15 };

    // The rebuild: no journal, no MEMORY.md; calls until the index is whole.
    let mut rebuild_calls = 0;
    let rebuild_ms = time_ms(|| {
        while {
            rebuild_calls += 1;
            memcap(&root, &["memory-view"]).contains("still reading")
        } {}
    });

    // Warm-up (page cache, compiled-code cache), then one-shot calls.
    memcap(&root, &["prompt"]);
    let create = (0..runs)
        .map(|i| {
            let path = format!("/memories/area-03/bench-{i}.md");
            time_ms(|| drop(memcap(&root, &["create", &path, "A new fact."])))
        })
        .collect();
    let prompt = (0..runs)
        .map(|_| time_ms(|| drop(memcap(&root, &["prompt"]))))
        .collect();
    let memory_view = (0..runs)
        .map(|_| time_ms(|| drop(memcap(&root, &["memory-view"]))))
        .collect();
    Row {
        notes,
        create: median_ms(create),
        prompt: median_ms(prompt),
        memory_view: median_ms(memory_view),
        rebuild_calls,
        rebuild_ms,
    }
}

fn main() {
    let sizes = store_sizes();
    if sizes.is_empty() {
        return;
    }
    println!("One-shot CLI calls, milliseconds (median of one run)");
    println!(
        "{:>7} | {:>8} | {:>8} | {:>11} | {:>24}",
        "notes", "create", "prompt", "memory-view", "rebuild, no journal"
    );
    for notes in sizes {
        let r = measure(notes);
        println!(
            "{:>7} | {:>8.1} | {:>8.1} | {:>11.1} | {:>10.0} ms in {} calls",
            r.notes, r.create, r.prompt, r.memory_view, r.rebuild_ms, r.rebuild_calls
        );
        if notes == 10_000 {
            let verdict = |ms: f64, target: f64| if ms <= target { "met" } else { "MISSED" };
            println!(
                "targets at 10,000 notes: create {:.1} ms (≤ 30: {}), prompt {:.1} ms (≤ 60: {})",
                r.create,
                verdict(r.create, 30.0),
                r.prompt,
                verdict(r.prompt, 60.0)
            );
        }
    }
}
