//! Store size against one-shot `memcap` calls (a new process each, compiled
//! code cached, journal present): `create`, `prompt`, `memory-view` and
//! `search` for 1,000 and 10,000 notes (100,000 with `MEMCAP_BENCH_100K=1`);
//! the rebuild when the journal is lost (how many calls and how long until
//! the index is whole); the spread of 1,000 creates in one warm host; the
//! one-shot calls again right after that burst, and calls once the full
//! sweep is due (each a second after the last, so each takes a slice). Medians of one run; the speed issue's targets at
//! 10,000 notes are printed beside them.

mod common;

use common::{median_ms, memcap, plant, store_sizes, time_ms};

struct Row {
    notes: usize,
    create: f64,
    prompt: f64,
    memory_view: f64,
    search: f64,
    rebuild_calls: usize,
    rebuild_ms: f64,
    /// p50 and p99 of 1,000 creates in one warm host.
    burst_p50: f64,
    burst_p99: f64,
    /// One-shot prompt, create and search right after the burst.
    after_burst: [f64; 3],
    /// Median of 5 one-shot prompts a second apart once the sweep is due
    /// (10,000 notes only).
    sweep_due: Option<f64>,
}

fn percentile(mut samples: Vec<f64>, p: f64) -> f64 {
    samples.sort_by(f64::total_cmp);
    samples[((samples.len() - 1) as f64 * p).round() as usize]
}

/// Median one-shot prompt, create and search, `runs` each (creates named
/// after `tag`).
fn one_shots(root: &std::path::Path, runs: usize, tag: &str) -> [f64; 3] {
    let prompt = (0..runs)
        .map(|_| time_ms(|| drop(memcap(root, &["prompt"]))))
        .collect();
    let create = (0..runs)
        .map(|i| {
            let path = format!("/memories/area-03/{tag}-{i}.md");
            time_ms(|| drop(memcap(root, &["create", &path, "A new fact."])))
        })
        .collect();
    let search = (0..runs)
        .map(|_| time_ms(|| drop(memcap(root, &["search", "typical note"]))))
        .collect();
    [median_ms(prompt), median_ms(create), median_ms(search)]
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

    // Warm-up (page cache, compiled-code cache, the search index), then
    // one-shot calls.
    memcap(&root, &["prompt"]);
    memcap(&root, &["search", "warm up"]);
    let [prompt, create, search] = one_shots(&root, runs, "bench");
    let memory_view = (0..runs)
        .map(|_| time_ms(|| drop(memcap(&root, &["memory-view"]))))
        .collect();

    // A burst of 1,000 creates in one warm host: is any caller made to wait
    // for upkeep (compaction) far past the others?
    let burst: Vec<f64> = {
        let memory = memcap::Memory::open(&root).unwrap();
        (0..1_000)
            .map(|i| {
                let path = format!("/memories/burst/note-{i:04}.md");
                let text = format!(
                    "---\nname: Burst {i}\ndescription: Written in a burst\n---\nA fact.\n"
                );
                time_ms(|| drop(memory.create(&path, &text).unwrap()))
            })
            .collect()
    };
    let after_burst = one_shots(&root, runs, "after");
    // The full sweep falls due 30 s after the last; it goes a slice a
    // second, so each of these prompts, a second apart, takes one.
    let sweep_due = (notes == 10_000).then(|| {
        std::thread::sleep(std::time::Duration::from_secs(31));
        let prompts = (0..5)
            .map(|_| {
                let ms = time_ms(|| drop(memcap(&root, &["prompt"])));
                std::thread::sleep(std::time::Duration::from_millis(1_100));
                ms
            })
            .collect();
        median_ms(prompts)
    });
    Row {
        notes,
        create,
        prompt,
        memory_view: median_ms(memory_view),
        search,
        rebuild_calls,
        rebuild_ms,
        burst_p50: percentile(burst.clone(), 0.5),
        burst_p99: percentile(burst, 0.99),
        after_burst,
        sweep_due,
    }
}

fn main() {
    let sizes = store_sizes();
    if sizes.is_empty() {
        return;
    }
    println!("One-shot CLI calls, milliseconds (median of one run)");
    println!(
        "{:>7} | {:>7} | {:>7} | {:>7} | {:>11} | {:>22} | {:>17} | {:>26}",
        "notes",
        "create",
        "prompt",
        "search",
        "memory-view",
        "rebuild, no journal",
        "1,000 warm creates",
        "after them: prompt/create/search"
    );
    for notes in sizes {
        let r = measure(notes);
        let [p, c, s] = r.after_burst;
        println!(
            "{:>7} | {:>7.1} | {:>7.1} | {:>7.1} | {:>11.1} | {:>9.0} ms in {:>2} calls | p50 {:.2} p99 {:.2} | {p:>8.1} / {c:>5.1} / {s:>5.1}",
            r.notes,
            r.create,
            r.prompt,
            r.search,
            r.memory_view,
            r.rebuild_ms,
            r.rebuild_calls,
            r.burst_p50,
            r.burst_p99
        );
        if notes == 10_000 {
            let verdict = |ok: bool| if ok { "met" } else { "MISSED" };
            let one_shot = |name: &str, ms: f64| {
                println!(
                    "target at 10,000 notes: one-shot {name} {ms:.1} ms ≤ 10 ms {}",
                    verdict(ms <= 10.0)
                );
            };
            one_shot("prompt", r.prompt);
            one_shot("create", r.create);
            one_shot("search", r.search);
            one_shot("prompt after 1,000 writes", p);
            one_shot("create after 1,000 writes", c);
            one_shot("search after 1,000 writes", s);
            if let Some(ms) = r.sweep_due {
                one_shot("prompt with the sweep due", ms);
            }
            let spread = r.burst_p99 / r.burst_p50;
            println!(
                "target at 10,000 notes: p99 of 1,000 warm creates {:.2} ms = {spread:.1}× p50 ({:.2} ms), ≤ 3× {}",
                r.burst_p99,
                r.burst_p50,
                verdict(spread <= 3.0)
            );
        }
    }
}
