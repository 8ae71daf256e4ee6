//! Index upkeep for stores of 100, 1,000 and 10,000 notes: a full rebuild
//! (no catalog yet), a check that finds nothing changed, one note changed
//! through memcap, and one note changed behind memcap's back. Medians of one
//! run, printed as a table; nothing is asserted. Run with `./dev bench`.

mod common;

use common::{median_ms, plant, time_ms};
use memcap::{Memory, NoteType};

const SIZES: [usize; 3] = [100, 1_000, 10_000];

struct Row {
    notes: usize,
    full: f64,
    unchanged: f64,
    via_memcap: f64,
    behind_back: f64,
    cold_process_change: f64,
}

fn measure(notes: usize) -> Row {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("memories");
    std::fs::create_dir_all(&root).unwrap();
    plant(&root, notes);
    let runs = if notes >= 10_000 { 3 } else { 7 };

    // Full rebuild: a new instance, no journal and no MEMORY.md, so every
    // note is read and parsed.
    let mut full = Vec::new();
    for _ in 0..runs {
        let _ = std::fs::remove_file(root.join(".memcap/notes.jsonl"));
        let _ = std::fs::remove_file(root.join("MEMORY.md"));
        let memory = Memory::open(&root).unwrap();
        full.push(time_ms(|| {
            memory.memory_view(false).unwrap();
        }));
    }

    let memory = Memory::open(&root).unwrap();
    memory.memory_view(false).unwrap();
    // Nothing changed: a call that shows the index still checks every file.
    let unchanged = (0..runs * 3)
        .map(|_| time_ms(|| drop(memory.memory_view(false).unwrap())))
        .collect();

    // One note changed through memcap: only that note is reread.
    let target = "area-07/note-00007.md";
    let words = ["sentence", "phrase"];
    let via_memcap = (0..100)
        .map(|i| {
            let (old, new) = (words[i % 2], words[(i + 1) % 2]);
            time_ms(|| drop(memory.memory_update(target, old, new).unwrap()))
        })
        .collect();

    // One note changed by another program, then the index is shown.
    let path = root.join(target);
    let behind_back = (0..runs * 3)
        .map(|i| {
            let text = std::fs::read_to_string(&path).unwrap();
            std::fs::write(
                &path,
                text.replacen("Note 7\n", &format!("Note 7 v{i}\n"), 1),
            )
            .unwrap();
            time_ms(|| drop(memory.memory_view(false).unwrap()))
        })
        .collect();

    // One change from a fresh instance (a new `memcap` process, say): the
    // catalog is read back from the journal first.
    let cold_process_change = (0..runs)
        .map(|i| {
            let fresh = Memory::open(&root).unwrap();
            time_ms(|| {
                fresh
                    .memory_write(&format!("cold/{i}.md"), "Cold", "d", NoteType::Project, "c")
                    .unwrap();
            })
        })
        .collect();

    Row {
        notes,
        full: median_ms(full),
        unchanged: median_ms(unchanged),
        via_memcap: median_ms(via_memcap),
        behind_back: median_ms(behind_back),
        cold_process_change: median_ms(cold_process_change),
    }
}

fn main() {
    if std::env::args().any(|a| a == "--list") {
        return;
    }
    println!("Index upkeep, milliseconds (median of one run)");
    println!(
        "{:>7} | {:>12} | {:>14} | {:>18} | {:>21} | {:>19}",
        "notes",
        "full rebuild",
        "check, no edit",
        "1 edit via memcap",
        "1 edit behind its back",
        "1 edit, new process"
    );
    let rows: Vec<Row> = SIZES.iter().map(|&n| measure(n)).collect();
    for r in &rows {
        println!(
            "{:>7} | {:>12.2} | {:>14.2} | {:>18.2} | {:>21.2} | {:>19.2}",
            r.notes, r.full, r.unchanged, r.via_memcap, r.behind_back, r.cold_process_change
        );
    }
    let (small, large) = (&rows[0], &rows[rows.len() - 1]);
    println!(
        "one edit via memcap, {} vs {} notes: {:.2}x",
        large.notes,
        small.notes,
        large.via_memcap / small.via_memcap
    );
}
