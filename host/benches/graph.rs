//! The graph at scale: 1,000 and 10,000 notes (100,000 with
//! `MEMCAP_BENCH_100K=1`), each with three observations and about five
//! relations to other notes (a few to notes not written). Measured in a
//! warm host: `build_context` at depth 2, `recent_activity`, and one changed
//! note (a `str_replace` that rewrites a relation: the write, the catalog,
//! the search index and the graph); then the first `build_context` of a new
//! process (the graph's saved state decoded) and the graph's counts. Medians
//! of one run, the targets beside them.

mod common;

use std::path::Path;

use common::{make_old, median_ms, memcap, store_sizes, time_ms};
use memcap::Memory;

#[path = "../../core/benches/common/graph_notes.rs"]
mod graph_notes;

/// Writes `notes` notes, an hour old ([`make_old`]); returns how many relations they hold.
fn plant(root: &Path, notes: usize) -> usize {
    for i in 0..notes {
        let dir = root.join(format!("area-{:02}", i % 50));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join(format!("topic-{i:06}.md"));
        let text = graph_notes::text(i, notes, graph_notes::RELATION_TYPES[0]);
        std::fs::write(&path, text).unwrap();
        make_old(&path);
    }
    notes * graph_notes::RELATION_TYPES.len()
}

struct Row {
    notes: usize,
    relations: usize,
    context: f64,
    activity: f64,
    change: f64,
    first_context: f64,
    unresolved: u32,
}

fn measure(notes: usize) -> Row {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("memories");
    std::fs::create_dir_all(&root).unwrap();
    let relations = plant(&root, notes);
    // Stamps of the last two seconds are never trusted: let them age, as
    // they have in any store a new process finds.
    std::thread::sleep(std::time::Duration::from_secs(3));
    // The catalog, search index and graph built by one-shot calls.
    while {
        let stats: serde_json::Value = serde_json::from_str(&memcap(&root, &["stats"])).unwrap();
        stats["entities"].as_u64().unwrap() < notes as u64
    } {}
    let first_context = median_ms(
        (0..7)
            .map(|i| {
                let url = format!("memory://topics/topic-{}", i * 7);
                time_ms(|| drop(memcap(&root, &["context", &url, "--depth", "2"])))
            })
            .collect(),
    );

    let memory = Memory::open(&root).unwrap();
    let unresolved = memory.memory_stats().unwrap().unresolved;
    let context = median_ms(
        (0..200)
            .map(|i| {
                let url = format!("memory://topics/topic-{}", (i * 37) % notes);
                time_ms(|| {
                    let answer = memory
                        .build_context(&url, Some(2), None, None, None)
                        .unwrap();
                    assert!(!answer.related.is_empty());
                })
            })
            .collect(),
    );
    // Some notes changed lately, most an hour ago: what the tool is for.
    for i in 0..20 {
        let path = format!("/memories/area-{:02}/topic-{i:06}.md", i % 50);
        memory
            .str_replace(&path, "- [idea] Link", "- [idea] Join")
            .unwrap();
    }
    // A stamp of the last two seconds is never trusted (the note is read
    // once more when it ages): measured once they have aged and were read.
    std::thread::sleep(std::time::Duration::from_secs(3));
    let activity = median_ms(
        (0..100)
            .map(|i| {
                let kind = ["entity", "observation", "relation"][i % 3];
                time_ms(|| {
                    let answer = memory
                        .recent_activity(Some("1d"), Some(kind), None)
                        .unwrap();
                    assert!(answer.total >= 20);
                })
            })
            .collect(),
    );
    let change = median_ms(
        (20..70)
            .map(|i| {
                let path = format!("/memories/area-{:02}/topic-{i:06}.md", i % 50);
                time_ms(|| {
                    memory
                        .str_replace(&path, "- follows [[", "- precedes [[")
                        .unwrap();
                })
            })
            .collect(),
    );
    Row {
        notes,
        relations,
        context,
        activity,
        change,
        first_context,
        unresolved,
    }
}

fn main() {
    let sizes = store_sizes();
    if sizes.is_empty() {
        return;
    }
    println!("the graph, milliseconds (median of one run)");
    println!(
        "{:>7} | {:>9} | {:>10} | {:>22} | {:>16} | {:>16} | {:>24}",
        "notes",
        "relations",
        "unresolved",
        "build_context depth 2",
        "recent_activity",
        "one note changed",
        "first context, new process"
    );
    for notes in sizes {
        let r = measure(notes);
        println!(
            "{:>7} | {:>9} | {:>10} | {:>19.2} ms | {:>13.2} ms | {:>13.2} ms | {:>21.1} ms",
            r.notes, r.relations, r.unresolved, r.context, r.activity, r.change, r.first_context
        );
        if notes == 10_000 {
            let verdict = |ok: bool| if ok { "met" } else { "MISSED" };
            println!(
                "targets at 10,000 notes: build_context depth 2 ≤ 10 ms {}, recent_activity ≤ 10 ms {}",
                verdict(r.context <= 10.0),
                verdict(r.activity <= 10.0),
            );
        }
    }
}
