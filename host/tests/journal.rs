//! The catalog's journal read lazily: a new host on a store of thousands
//! of notes reads the snapshot's head and only the blocks of notes it
//! touches. Every change made that way, and every change made behind
//! memcap's back, must leave exactly the index, listing and totals a rebuild
//! from the files gives.

#[macro_use]
mod common;

use std::time::{Duration, SystemTime};

use common::Fixture;
use memcap::{Entry, NoteType};

/// Notes in the stores below: enough that a few hundred changes stay in the
/// journal's records rather than a rewrite of its snapshot.
const NOTES: usize = 5_000;
/// The most recent notes, all in `hot/` (as an agent's current work is):
/// changes there read few blocks, so the catalog stays partly unread.
const HOT: usize = 450;

const JOURNAL: &str = ".memcap/notes.jsonl";

/// Each planted note's path and modification time: notes in 10 directories
/// and the root, changed over the last hours (many at the same second, so
/// ties are ordered by path), the newest in `hot/`; newest first.
fn planted(hours_ago: SystemTime) -> Vec<(SystemTime, String)> {
    let mut notes: Vec<(SystemTime, String)> = (0..NOTES)
        .map(|i| {
            let hot = i >= NOTES - HOT;
            let rel = match i % 11 {
                _ if hot => format!("hot/note-{i:04}.md"),
                10 => format!("top-{i:04}.md"),
                d => format!("d{d}/note-{i:04}.md"),
            };
            let seconds = if hot { 3_600 + i / 3 } else { i * 7 % 600 };
            (hours_ago + Duration::from_secs(seconds as u64), rel)
        })
        .collect();
    notes.sort_by(|a, b| b.0.cmp(&a.0).then_with(|| a.1.cmp(&b.1)));
    notes
}

/// A store of [`planted`] notes with the journal built; the notes newest
/// first.
fn store() -> (Fixture, Vec<(SystemTime, String)>) {
    let f = Fixture::new();
    let notes = planted(SystemTime::now() - Duration::from_secs(7_200));
    f.plant_many(
        notes
            .iter()
            .map(|(_, rel)| {
                let i: usize = rel[rel.len() - 7..rel.len() - 3].parse().unwrap();
                let kind = ["user", "feedback", "project", "reference"][i % 4];
                let text = format!(
                    "---\nname: Note {i}\ndescription: About {i}\ntype: {kind}\n---\n\nBody {i}.\n"
                );
                (rel.clone(), text.into_bytes())
            })
            .collect(),
    );
    for (then, rel) in &notes {
        f.set_modified(rel, *then);
    }
    // Stamps of the last two seconds are not trusted (they may hide a change
    // in the same tick), so every directory would be listed again: a store
    // this fresh is not what a new host usually finds.
    f.later(common::RACY);
    read_through(&f.reopen());
    (f, notes)
}

/// Calls `memory_view` until the index has read every note: each call goes
/// on from the last, and 5,000 notes take a few; a host that never got
/// there within a minute fails the test instead of hanging it.
fn read_through(memory: &memcap::Memory) {
    let deadline = std::time::Instant::now() + Duration::from_secs(60);
    while memory.memory_view(false).unwrap().contains("still reading") {
        assert!(
            std::time::Instant::now() < deadline,
            "the index was still reading after a minute of calls"
        );
    }
}

/// What a user of the store sees: MEMORY.md as the last change left it,
/// the prompt, MEMORY.md after it and the summary from a new host, and every
/// page of every note's metadata.
fn seen(f: &Fixture) -> Vec<String> {
    let index = || f.read("MEMORY.md");
    let before = index();
    let memory = f.reopen();
    let prompt = memory.prompt().unwrap();
    let mut seen = vec![before, prompt, index(), memory.memory_view(false).unwrap()];
    // 5,000 notes are a few dozen pages; more is a listing that never ends.
    for page in 1..=1_000 {
        let listing = memory.memory_view_page(true, Some(page)).unwrap();
        let more = listing.contains(&format!("Page {page} of "))
            && !listing.contains(&format!("Page {page} of {page}."));
        seen.push(listing);
        if !more {
            return seen;
        }
    }
    panic!("memory_view still had pages after 1,000");
}

/// What a host that rebuilds the catalog from the files sees (the journal
/// is put back afterwards, so the next step reads it lazily again).
fn rebuilt(f: &Fixture) -> Vec<String> {
    let aside = ".memcap/notes.aside";
    f.rename(JOURNAL, aside);
    read_through(&f.reopen());
    let seen = seen(f);
    f.rename(aside, JOURNAL);
    seen
}

/// Compares what a new host sees with what a rebuild shows. MEMORY.md as
/// it stands is compared only after a change memcap made (`written`): one
/// made behind its back shows from the next call.
fn check(f: &Fixture, step: &str, written: bool) {
    let lazy = seen(f);
    let full = rebuilt(f);
    assert_eq!(lazy.len(), full.len(), "{step}: pages");
    let skip = usize::from(!written);
    for (a, b) in lazy.iter().zip(&full).skip(skip) {
        assert_eq!(a, b, "{step}");
    }
}

fn note(name: &str) -> String {
    format!("---\nname: {name}\ndescription: {name} described\ntype: project\n---\n\nBody.\n")
}

both_backends! {
fn changes_from_new_hosts_leave_what_a_rebuild_shows() {
    let (f, notes) = store();
    let fresh = || f.reopen();
    check(&f, "planted", true);

    fresh().create("/memories/d3/new.md", &note("New")).unwrap();
    check(&f, "create", true);
    // The oldest notes are far past the snapshot's recent ones.
    fresh()
        .str_replace("/memories/d0/note-0000.md", "About 0", "About zero, edited")
        .unwrap();
    check(&f, "str_replace of an old note", true);
    fresh().delete("/memories/d1/note-0001.md").unwrap();
    check(&f, "delete of an old note", true);
    fresh()
        .rename("/memories/d2/note-0002.md", "/memories/moved/deeper/two.md")
        .unwrap();
    check(&f, "rename into a new directory", true);
    fresh().delete("/memories/d5").unwrap();
    check(&f, "delete of a directory of notes", true);
    fresh()
        .rename("/memories/d6", "/memories/d6-renamed")
        .unwrap();
    check(&f, "rename of a directory of notes", true);
    fresh()
        .memory_write(
            "written",
            "Written",
            "Written note",
            NoteType::User,
            "Body.",
        )
        .unwrap();
    check(&f, "memory_write", true);
    fresh()
        .insert("/memories/top-0010.md", 0, "Inserted line\n")
        .unwrap();
    check(&f, "insert that breaks a note's frontmatter", true);

    // Enough of the most recent notes deleted that the index reaches past
    // the snapshot's recent ones (400): one host, one call each.
    let memory = fresh();
    for (_, rel) in notes.iter().take(230) {
        memory.delete(&format!("/memories/{rel}")).unwrap();
    }
    drop(memory);
    check(&f, "230 most recent deleted", true);
}
}

both_backends! {
fn changes_behind_memcaps_back_leave_what_a_rebuild_shows() {
    let (f, notes) = store();
    // Another program deletes the 250 most recent notes, rewrites an old one
    // (now the newest), and adds one in a new directory.
    for (_, rel) in notes.iter().take(250) {
        f.remove(rel);
    }
    let (_, oldest) = notes.last().unwrap();
    // As editors save: a new file renamed over the old one (an edit in
    // place shows from the next walk of every file, within 30 s).
    let temp = format!("{oldest}.swp");
    f.plant(&temp, note("Rewritten"));
    f.rename(&temp, oldest);
    f.mkdir("elsewhere");
    f.plant("elsewhere/added.md", note("Added"));
    check(&f, "changed by another program", false);
}
}

both_backends! {
fn a_damaged_snapshot_costs_a_rebuild_never_a_failed_call() {
    let (f, _) = store();
    // Every block garbled, then 16 bytes in the middle of one; the head (read
    // by every call) stays whole, so the damage shows only when a block is
    // read: by the change, or by the listing `check` makes.
    for case in ["all blocks", "one block"] {
        // The journal as it stands, so it is otherwise true to the files.
        let mut bytes = f.read_bytes(JOURNAL);
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
        f.plant(JOURNAL, &bytes);
        let notes = walk(&f);
        let middle = &notes[notes.len() / 2];
        let answer = f
            .reopen()
            .str_replace(&format!("/memories/{middle}"), "Body", "Edited body")
            .unwrap();
        assert!(!answer.contains("could not be updated"), "{case}: {answer}");
        let answer = f
            .reopen()
            .create(&format!("/memories/{case}.md"), &note(case))
            .unwrap();
        assert!(!answer.contains("could not be updated"), "{case}: {answer}");
        check(&f, case, true);
    }
}
}

/// The number after `key` in the journal's JSON header line.
fn number_after(header: &str, key: &str) -> usize {
    let rest = &header[header.find(key).unwrap() + key.len()..];
    let digits: String = rest.chars().take_while(char::is_ascii_digit).collect();
    digits.parse().unwrap()
}

/// Every note's root-relative path, sorted.
fn walk(f: &Fixture) -> Vec<String> {
    let mut out: Vec<String> = f
        .memory
        .export()
        .unwrap()
        .into_iter()
        .filter_map(|entry| match entry {
            Entry::File(path, _) => Some(path),
            Entry::Dir(_) => None,
        })
        .filter(|path| path != "MEMORY.md" && !path.split('/').any(|c| c.starts_with('.')))
        .collect();
    out.sort();
    out
}

both_backends! {
fn a_burst_of_young_notes_is_read_from_the_journal_not_rebuilt() {
    // Past the head's 400 most recent notes, the snapshot holds every note
    // changed since the last once-more read of young stamps (after its
    // blocks): a new host must take such a snapshot as it is, not rebuild
    // the catalog from the files.
    let f = Fixture::new();
    f.memory
        .create("/memories/old.md", &note("Before"))
        .unwrap();
    let then = SystemTime::now() - Duration::from_secs(3_600);
    f.set_modified("old.md", then);
    f.memory.changed(&["/memories/old.md".to_owned()]).unwrap();
    for i in 0..450 {
        f.memory
            .create(&format!("/memories/burst/n{i:03}.md"), &note("Burst"))
            .unwrap();
    }
    // Edited in place behind memcap's back, its size and time kept: only a
    // rebuild from the files would see it before the sweep or a report.
    f.plant("old.md", note("Behind"));
    f.set_modified("old.md", then);
    let every_note = |memory: &memcap::Memory| {
        let mut all = String::new();
        for page in 1.. {
            let listing = memory.memory_view_page(true, Some(page)).unwrap();
            all.push_str(&listing);
            if !listing.contains(" more notes on page") {
                break;
            }
        }
        all
    };
    let listing = every_note(&f.reopen());
    assert!(listing.contains("Before described"), "{listing}");
    // The host's report brings the edit in.
    let memory = f.reopen();
    memory.changed(&["/memories/old.md".to_owned()]).unwrap();
    let listing = every_note(&memory);
    assert!(listing.contains("Behind described"), "{listing}");
}
}
