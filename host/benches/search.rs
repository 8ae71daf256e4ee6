//! Search at scale: 1,000 and 10,000 notes of three sections each (100,000
//! with `MEMCAP_BENCH_100K=1`), words drawn from a 20,000-word vocabulary.
//! Measured: the rebuild when the index is lost (one-shot calls until a
//! search answers from a whole index), a one-shot `memcap search` (process,
//! index load and search), a search in a warm host, one changed note
//! (`str_replace`, the write and its re-indexing), and the index's size
//! against the text's. Medians of one run, the targets beside them.

mod common;

use std::path::Path;

use common::{median_ms, memcap, store_sizes, time_ms};
use memcap::Memory;

/// A deterministic word of the vocabulary: syllables from the number.
fn word(n: u64) -> String {
    const SYLLABLES: [&str; 24] = [
        "ka", "lo", "mi", "ten", "ras", "vo", "pel", "dor", "shi", "an", "el", "qua", "zu", "brin",
        "to", "nes", "ur", "fal", "gi", "hop", "ix", "jen", "sa", "wem",
    ];
    let mut n = n + 24;
    let mut out = String::new();
    while n > 0 {
        out.push_str(SYLLABLES[(n % 24) as usize]);
        n /= 24;
    }
    out
}

/// xorshift: the same store on every run.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    /// A word, common ones far more often (roughly Zipf).
    fn zipf_word(&mut self) -> String {
        let r = (self.next() % 1_000_000) as f64 / 1_000_000.0;
        word((20_000f64.powf(r) - 1.0) as u64)
    }
}

/// Writes `notes` notes; returns the bytes of text written.
fn plant(root: &Path, notes: usize) -> u64 {
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let mut bytes = 0;
    for i in 0..notes {
        let dir = root.join(format!("area-{:02}", i % 50));
        std::fs::create_dir_all(&dir).unwrap();
        let mut text = format!(
            "---\nname: Note {i}\ndescription: {} {}\ntype: project\n---\n",
            rng.zipf_word(),
            rng.zipf_word()
        );
        for section in 0..3 {
            text.push_str(&format!("\n## Part {section}\n"));
            for _ in 0..6 {
                let line: Vec<String> = (0..12).map(|_| rng.zipf_word()).collect();
                text.push_str(&line.join(" "));
                text.push('\n');
            }
        }
        bytes += text.len() as u64;
        std::fs::write(dir.join(format!("note-{i:06}.md")), text).unwrap();
    }
    bytes
}

struct Row {
    notes: usize,
    chunks: u64,
    rebuild_ms: f64,
    rebuild_calls: usize,
    one_shot: f64,
    warm: f64,
    change: f64,
    index_ratio: f64,
}

fn measure(notes: usize) -> Row {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("memories");
    std::fs::create_dir_all(&root).unwrap();
    let text_bytes = plant(&root, notes);
    // Stamps of the last two seconds are never trusted: let them age, as
    // they have in any store a new process finds.
    std::thread::sleep(std::time::Duration::from_secs(3));
    let queries: Vec<String> = {
        let mut rng = Rng(42);
        (0..200)
            .map(|_| format!("{} {}", rng.zipf_word(), word(rng.next() % 2_000)))
            .collect()
    };

    // The rebuild: calls until the catalog has read every file.
    let mut rebuild_calls = 0;
    let rebuild_ms = time_ms(|| {
        while {
            rebuild_calls += 1;
            let stats = memcap(&root, &["stats"]);
            let stats: serde_json::Value = serde_json::from_str(&stats).unwrap();
            stats["totalFiles"].as_u64().unwrap() < notes as u64
        } {}
    });
    let stats: serde_json::Value = serde_json::from_str(&memcap(&root, &["stats"])).unwrap();
    let chunks = stats["totalChunks"].as_u64().unwrap();
    let index_ratio = stats["indexBytes"].as_u64().unwrap() as f64 / text_bytes as f64;

    let runs = if notes >= 100_000 { 5 } else { 15 };
    let one_shot = median_ms(
        queries
            .iter()
            .take(runs)
            .map(|q| time_ms(|| drop(memcap(&root, &["search", q]))))
            .collect(),
    );

    let memory = Memory::open(&root).unwrap();
    memory
        .memory_search("warm up", None, None, None, None)
        .unwrap();
    let warm = median_ms(
        queries
            .iter()
            .map(|q| time_ms(|| drop(memory.memory_search(q, None, None, None, None).unwrap())))
            .collect(),
    );
    let change = median_ms(
        (0..50)
            .map(|i| {
                let path = format!("/memories/area-{:02}/note-{i:06}.md", i % 50);
                time_ms(|| {
                    memory
                        .str_replace(
                            &path,
                            &format!("name: Note {i}\n"),
                            &format!("name: Note {i}b\n"),
                        )
                        .unwrap();
                })
            })
            .collect(),
    );
    Row {
        notes,
        chunks,
        rebuild_ms,
        rebuild_calls,
        one_shot,
        warm,
        change,
        index_ratio,
    }
}

fn main() {
    let sizes = store_sizes();
    if sizes.is_empty() {
        return;
    }
    println!("memory_search, milliseconds (median of one run)");
    println!(
        "{:>7} | {:>7} | {:>22} | {:>14} | {:>11} | {:>18} | {:>12}",
        "notes",
        "chunks",
        "rebuild, no index",
        "one-shot CLI",
        "warm host",
        "one note changed",
        "index/text"
    );
    for notes in sizes {
        let r = measure(notes);
        println!(
            "{:>7} | {:>7} | {:>10.0} ms in {:>2} calls | {:>11.1} ms | {:>8.2} ms | {:>15.2} ms | {:>11.2}×",
            r.notes,
            r.chunks,
            r.rebuild_ms,
            r.rebuild_calls,
            r.one_shot,
            r.warm,
            r.change,
            r.index_ratio
        );
        if notes == 10_000 {
            let verdict = |ok: bool| if ok { "met" } else { "MISSED" };
            println!(
                "targets at 10,000 notes: warm ≤ 10 ms {}, one-shot ≤ 10 ms {}, change ≤ 5 ms {}, \
                 rebuild ≤ 2 s {}, index ≤ 1.5× text {}",
                verdict(r.warm <= 10.0),
                verdict(r.one_shot <= 10.0),
                verdict(r.change <= 5.0),
                verdict(r.rebuild_ms <= 2_000.0),
                verdict(r.index_ratio <= 1.5)
            );
        }
    }
}
