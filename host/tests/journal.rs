//! The catalog's journal read lazily: a new host on a store of thousands
//! of notes reads the snapshot's head and only the blocks of notes it
//! touches. Every change made that way, and every change made behind
//! memcap's back, must leave exactly the index, listing and totals a rebuild
//! from the files gives.

mod common;

use std::path::Path;
use std::time::{Duration, SystemTime};

use memcap::{Memory, NoteType};

/// Notes in the stores below: enough that a few hundred changes stay in the
/// journal's records rather than a rewrite of its snapshot.
const NOTES: usize = 5_000;
/// The most recent notes, all in `hot/` (as an agent's current work is):
/// changes there read few blocks, so the catalog stays partly unread.
const HOT: usize = 450;

/// Notes in 10 directories and the root, changed over the last hours (many
/// at the same second, so ties are ordered by path), the newest in `hot/`;
/// the journal built.
fn store() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("memories");
    let hours_ago = SystemTime::now() - Duration::from_secs(7_200);
    for i in 0..NOTES {
        let hot = i >= NOTES - HOT;
        let rel = match i % 11 {
            _ if hot => format!("hot/note-{i:04}.md"),
            10 => format!("top-{i:04}.md"),
            d => format!("d{d}/note-{i:04}.md"),
        };
        let path = root.join(&rel);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        let kind = ["user", "feedback", "project", "reference"][i % 4];
        std::fs::write(
            &path,
            format!(
                "---\nname: Note {i}\ndescription: About {i}\ntype: {kind}\n---\n\nBody {i}.\n"
            ),
        )
        .unwrap();
        let seconds = if hot { 3_600 + i / 3 } else { i * 7 % 600 };
        std::fs::File::options()
            .write(true)
            .open(&path)
            .unwrap()
            .set_modified(hours_ago + Duration::from_secs(seconds as u64))
            .unwrap();
    }
    // Stamps of the last two seconds are not trusted (they may hide a change
    // in the same tick), so every directory would be listed again: a store
    // this fresh is not what a new host usually finds.
    std::thread::sleep(Duration::from_secs(3));
    let memory = Memory::open(&root).unwrap();
    while memory.memory_view(false).unwrap().contains("still reading") {}
    dir
}

/// What a user of the store sees: MEMORY.md as the last change left it,
/// the prompt, MEMORY.md after it and the summary from a new host, and every
/// page of every note's metadata.
fn seen(root: &Path) -> Vec<String> {
    let index = || std::fs::read_to_string(root.join("MEMORY.md")).unwrap();
    let before = index();
    let memory = Memory::open(root).unwrap();
    let prompt = memory.prompt().unwrap();
    let mut seen = vec![before, prompt, index(), memory.memory_view(false).unwrap()];
    let mut page = 1;
    loop {
        let listing = memory.memory_view_page(true, Some(page)).unwrap();
        let more = listing.contains(&format!("Page {page} of "))
            && !listing.contains(&format!("Page {page} of {page}."));
        seen.push(listing);
        if !more {
            return seen;
        }
        page += 1;
    }
}

/// What a host that rebuilds the catalog from the files sees (the journal
/// is put back afterwards, so the next step reads it lazily again).
fn rebuilt(root: &Path) -> Vec<String> {
    let journal = root.join(".memcap/notes.jsonl");
    let aside = root.join(".memcap/notes.aside");
    std::fs::rename(&journal, &aside).unwrap();
    let memory = Memory::open(root).unwrap();
    while memory.memory_view(false).unwrap().contains("still reading") {}
    drop(memory);
    let seen = seen(root);
    std::fs::rename(&aside, &journal).unwrap();
    seen
}

/// Compares what a new host sees with what a rebuild shows. MEMORY.md as
/// it stands is compared only after a change memcap made (`written`): one
/// made behind its back shows from the next call.
fn check(root: &Path, step: &str, written: bool) {
    let lazy = seen(root);
    let full = rebuilt(root);
    assert_eq!(lazy.len(), full.len(), "{step}: pages");
    let skip = usize::from(!written);
    for (a, b) in lazy.iter().zip(&full).skip(skip) {
        assert_eq!(a, b, "{step}");
    }
}

fn note(name: &str) -> String {
    format!("---\nname: {name}\ndescription: {name} described\ntype: project\n---\n\nBody.\n")
}

#[test]
fn changes_from_new_hosts_leave_what_a_rebuild_shows() {
    let dir = store();
    let root = dir.path().join("memories");
    let fresh = || Memory::open(&root).unwrap();
    check(&root, "planted", true);

    fresh().create("/memories/d3/new.md", &note("New")).unwrap();
    check(&root, "create", true);
    // The oldest notes are far past the snapshot's recent ones.
    fresh()
        .str_replace("/memories/d0/note-0000.md", "About 0", "About zero, edited")
        .unwrap();
    check(&root, "str_replace of an old note", true);
    fresh().delete("/memories/d1/note-0001.md").unwrap();
    check(&root, "delete of an old note", true);
    fresh()
        .rename("/memories/d2/note-0002.md", "/memories/moved/deeper/two.md")
        .unwrap();
    check(&root, "rename into a new directory", true);
    fresh().delete("/memories/d5").unwrap();
    check(&root, "delete of a directory of notes", true);
    fresh()
        .rename("/memories/d6", "/memories/d6-renamed")
        .unwrap();
    check(&root, "rename of a directory of notes", true);
    fresh()
        .memory_write(
            "written",
            "Written",
            "Written note",
            NoteType::User,
            "Body.",
        )
        .unwrap();
    check(&root, "memory_write", true);
    fresh()
        .insert("/memories/top-0010.md", 0, "Inserted line\n")
        .unwrap();
    check(&root, "insert that breaks a note's frontmatter", true);

    // Enough of the most recent notes deleted that the index reaches past
    // the snapshot's recent ones (400): one host, one call each.
    let memory = fresh();
    let mut recent: Vec<(SystemTime, String)> = walk(&root)
        .into_iter()
        .map(|rel| (modified(&root.join(&rel)), rel))
        .collect();
    recent.sort_by(|a, b| b.0.cmp(&a.0).then_with(|| a.1.cmp(&b.1)));
    for (_, rel) in recent.iter().take(230) {
        memory.delete(&format!("/memories/{rel}")).unwrap();
    }
    drop(memory);
    check(&root, "230 most recent deleted", true);
}

#[test]
fn changes_behind_memcaps_back_leave_what_a_rebuild_shows() {
    let dir = store();
    let root = dir.path().join("memories");
    // Another program deletes the 250 most recent notes, rewrites an old one
    // (now the newest), and adds one in a new directory.
    let mut notes: Vec<(SystemTime, String)> = walk(&root)
        .into_iter()
        .map(|rel| (modified(&root.join(&rel)), rel))
        .collect();
    notes.sort_by(|a, b| b.0.cmp(&a.0).then_with(|| a.1.cmp(&b.1)));
    for (_, rel) in notes.iter().take(250) {
        std::fs::remove_file(root.join(rel)).unwrap();
    }
    let (_, oldest) = notes.last().unwrap();
    // As editors save: a new file renamed over the old one (an edit in
    // place shows from the next walk of every file, within 30 s).
    let temp = root.join(format!("{oldest}.swp"));
    std::fs::write(&temp, note("Rewritten")).unwrap();
    std::fs::rename(&temp, root.join(oldest)).unwrap();
    std::fs::create_dir(root.join("elsewhere")).unwrap();
    std::fs::write(root.join("elsewhere/added.md"), note("Added")).unwrap();
    check(&root, "changed by another program", false);
}

#[test]
fn a_damaged_snapshot_costs_a_rebuild_never_a_failed_call() {
    let dir = store();
    let root = dir.path().join("memories");
    let journal = root.join(".memcap/notes.jsonl");
    // Every block garbled, then 16 bytes in the middle of one; the head (read
    // by every call) stays whole, so the damage shows only when a block is
    // read: by the change, or by the listing `check` makes.
    for case in ["all blocks", "one block"] {
        // The journal as it stands, so it is otherwise true to the files.
        let mut bytes = std::fs::read(&journal).unwrap();
        let header_end = bytes.iter().position(|&b| b == b'\n').unwrap();
        let header = std::str::from_utf8(&bytes[..header_end]).unwrap();
        let start = header_end + 1 + number_after(header, "\"head\":");
        let blocks = number_after(header, "\"blocks\":");
        let damaged = match case {
            "all blocks" => start..start + blocks,
            _ => start + blocks / 2..start + blocks / 2 + 16,
        };
        for b in &mut bytes[damaged] {
            *b ^= 0x5a;
        }
        std::fs::write(&journal, &bytes).unwrap();
        let notes = walk(&root);
        let middle = &notes[notes.len() / 2];
        let answer = Memory::open(&root)
            .unwrap()
            .str_replace(&format!("/memories/{middle}"), "Body", "Edited body")
            .unwrap();
        assert!(!answer.contains("could not be updated"), "{case}: {answer}");
        let answer = Memory::open(&root)
            .unwrap()
            .create(&format!("/memories/{case}.md"), &note(case))
            .unwrap();
        assert!(!answer.contains("could not be updated"), "{case}: {answer}");
        check(&root, case, true);
    }
}

/// The number after `key` in the journal's JSON header line.
fn number_after(header: &str, key: &str) -> usize {
    let rest = &header[header.find(key).unwrap() + key.len()..];
    let digits: String = rest.chars().take_while(char::is_ascii_digit).collect();
    digits.parse().unwrap()
}

/// Every note's root-relative path, sorted.
fn walk(root: &Path) -> Vec<String> {
    let mut out = Vec::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let entry = entry.unwrap();
            let name = entry.file_name().into_string().unwrap();
            if name.starts_with('.') || name == "MEMORY.md" {
                continue;
            }
            let path = entry.path();
            if entry.file_type().unwrap().is_dir() {
                stack.push(path);
            } else {
                out.push(
                    path.strip_prefix(root)
                        .unwrap()
                        .to_str()
                        .unwrap()
                        .to_owned(),
                );
            }
        }
    }
    out.sort();
    out
}

fn modified(path: &Path) -> SystemTime {
    std::fs::metadata(path).unwrap().modified().unwrap()
}
