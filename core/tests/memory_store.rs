//! The core's commands natively, on the in-memory storage: the texts the
//! model reads, the JSON programs read, the index, and the journal's
//! warm/cold equivalence. (The real `.wasm` through real hosts is
//! `host/tests/`.)

mod common;

use common::Store;
use serde_json::json;

#[test]
fn the_file_commands_answer_in_the_sdks_words() {
    let s = Store::new();
    assert_eq!(
        s.ok(
            json!({"command": "create", "path": "/memories/a.md", "file_text": "one\ntwo\nthree\n"})
        ),
        "File created successfully at: /memories/a.md"
    );
    assert_eq!(
        s.ok(json!({"command": "view", "path": "/memories/a.md"})),
        "Here's the content of /memories/a.md with line numbers:\n     1\tone\n     2\ttwo\n     3\tthree\n     4\t"
    );
    assert_eq!(
        s.ok(json!({"command": "view", "path": "/memories/a.md", "view_range": [2, 2]})),
        "Here's the content of /memories/a.md with line numbers:\n     2\ttwo"
    );
    assert_eq!(
        s.ok(json!({"command": "str_replace", "path": "/memories/a.md", "old_str": "two", "new_str": "2"})),
        "The memory file has been edited. Here is the snippet showing the change (with line numbers):\n     1\tone\n     2\t2\n     3\tthree\n     4\t"
    );
    assert_eq!(
        s.ok(json!({"command": "insert", "path": "/memories/a.md", "insert_line": 0, "insert_text": "zero"})),
        "The file /memories/a.md has been edited."
    );
    assert_eq!(s.file("a.md").unwrap(), "zero\none\n2\nthree\n");
    assert_eq!(
        s.ok(json!({"command": "rename", "old_path": "/memories/a.md", "new_path": "/memories/d/b.md"})),
        "Successfully renamed /memories/a.md to /memories/d/b.md"
    );
    assert_eq!(
        s.ok(json!({"command": "view", "path": "/memories"})),
        "Here're the files and directories up to 2 levels deep in /memories, excluding hidden items:\n\
         4K\t/memories\n\
         237B\t/memories/MEMORY.md\n\
         4K\t/memories/d/\n\
         17B\t/memories/d/b.md"
    );
    assert_eq!(
        s.ok(json!({"command": "delete", "path": "/memories/d"})),
        "Successfully deleted /memories/d"
    );
    assert_eq!(s.file("d/b.md"), None);
}

#[test]
fn errors_say_what_to_do_and_change_nothing() {
    let s = Store::new();
    s.ok(json!({"command": "create", "path": "/memories/a.md", "file_text": "x x\n"}));
    let before = s.fs.files();
    assert_eq!(
        s.err(json!({"command": "create", "path": "/memories/a.md", "file_text": "y"})),
        "File /memories/a.md already exists"
    );
    assert_eq!(
        s.err(json!({"command": "str_replace", "path": "/memories/a.md", "old_str": "x", "new_str": "y"})),
        "No replacement was performed. Multiple occurrences of old_str `x` in lines: 1, 1. Please ensure it is unique"
    );
    assert_eq!(
        s.err(json!({"command": "view", "path": "/memories/../etc/passwd"})),
        "Path /memories/../etc/passwd would escape /memories directory"
    );
    assert_eq!(
        s.err(json!({"command": "insert", "path": "/memories/a.md", "insert_line": 9, "insert_text": "z"})),
        "Invalid `insert_line` parameter: 9. It should be within the range [0, 1]."
    );
    assert_eq!(
        s.err(json!({"command": "delete", "path": "/memories/nope"})),
        "The path /memories/nope does not exist"
    );
    assert!(
        s.err(json!({"command": "create", "path": "/memories/b.md"}))
            .contains("file_text")
    );
    assert_eq!(
        without_dead_lines(s.fs.files()),
        without_dead_lines(before),
        "a failed command changed the files"
    );
}

/// The store's files, the history log's lines whose change was not made
/// (`#`: a failed create's, written over by the next change) left out.
fn without_dead_lines(
    mut files: std::collections::BTreeMap<String, Vec<u8>>,
) -> std::collections::BTreeMap<String, Vec<u8>> {
    if let Some(log) = files.get_mut(".memcap/history/log.jsonl") {
        let text = String::from_utf8(log.clone()).unwrap();
        *log = text
            .split_inclusive('\n')
            .filter(|l| !l.starts_with('#'))
            .collect::<String>()
            .into_bytes();
    }
    files
}

#[test]
fn notes_are_indexed_and_read_back_by_topic() {
    let s = Store::new();
    let saved = s.ok(json!({"command": "memory_write", "filename": "prefs/coffee",
        "name": "Coffee", "description": "Takes it black", "type": "user", "content": "Black, no sugar."}));
    assert_eq!(
        saved,
        "Saved note /memories/prefs/coffee.md (user: Coffee). The index /memories/MEMORY.md lists it."
    );
    assert_eq!(
        s.file("prefs/coffee.md").unwrap(),
        "---\nname: Coffee\ndescription: Takes it black\ntype: user\nupdated: 2026-11-23\n---\n\nBlack, no sugar.\n"
    );
    let index = s.file("MEMORY.md").unwrap();
    assert!(
        index.contains("## User\n- [Coffee](prefs/coffee.md) - Takes it black\n"),
        "{index}"
    );
    let read = s.ok(json!({"command": "memory_read", "topics": ["coffee"]}));
    assert!(
        read.starts_with("=== /memories/prefs/coffee.md (user: Coffee) ===\n---\n"),
        "{read}"
    );
    s.ok(json!({"command": "memory_update", "filename": "prefs/coffee.md", "old_str": "Black", "new_str": "Oat milk"}));
    assert!(s.file("prefs/coffee.md").unwrap().contains("Oat milk"));
    let all = s.ok(json!({"command": "memory_view", "all": true}));
    assert!(
        all.starts_with(
            "1 note in /memories:\n\n/memories/prefs/coffee.md\n  name: Coffee\n  type: user\n"
        ),
        "{all}"
    );
    assert_eq!(
        s.ok(json!({"command": "memory_delete", "filename": "prefs/coffee"})),
        "Successfully deleted /memories/prefs/coffee.md; the index no longer lists it."
    );
    assert!(!s.file("MEMORY.md").unwrap().contains("Coffee"));
}

#[test]
fn programs_get_the_same_results_as_data() {
    let s = Store::new();
    let (created, is_error) =
        s.json(json!({"command": "create", "path": "/memories/a.md", "file_text": "hi\n"}));
    assert!(!is_error);
    assert_eq!(
        created,
        json!({"output": "created", "path": "/memories/a.md",
            "sha256": "98ea6e4f216f2fb4b69fff9b3a44842c38686ca685f3f55dc48c5d3fb1107be4"})
    );
    let (lines, _) = s.json(json!({"command": "view", "path": "/memories/a.md"}));
    assert_eq!(
        lines,
        json!({"output": "file_lines", "path": "/memories/a.md", "first_line": 1, "lines": ["hi", ""],
            "sha256": "98ea6e4f216f2fb4b69fff9b3a44842c38686ca685f3f55dc48c5d3fb1107be4"})
    );
    let (listing, _) = s.json(json!({"command": "view", "path": "/memories"}));
    assert_eq!(listing["output"], "listing");
    assert_eq!(
        listing["entries"][1],
        json!({"path": "/memories/a.md", "size": 3, "is_dir": false})
    );
    let (saved, _) = s.json(json!({"command": "memory_write", "filename": "n",
        "name": "N", "type": "project", "content": "c"}));
    assert_eq!(saved["output"], "note_saved");
    assert_eq!(saved["note_type"], "project");
    assert_eq!(saved["replaced"], false);
    let (list, _) = s.json(json!({"command": "memory_view", "all": true}));
    // Every file is a note: a.md (without frontmatter) and n.md.
    assert_eq!(list["total"], 2);
    assert_eq!(list["notes"][1]["path"], "/memories/n.md");
    assert_eq!(list["notes"][0]["frontmatter"], false);
    let (error, is_error) = s.json(json!({"command": "view", "path": "/memories/none"}));
    assert!(is_error);
    assert_eq!(error["error"]["kind"], "not-found");
    assert_eq!(
        error["error"]["message"],
        "The path /memories/none does not exist. Please provide a valid path."
    );
    let (bad, _) = s.json(json!({"command": "fly"}));
    assert_eq!(bad["error"]["kind"], "invalid-input");
}

#[test]
fn a_new_instance_sees_what_the_journal_and_the_files_say() {
    let s = Store::new();
    for i in 0..40 {
        s.ok(
            json!({"command": "memory_write", "filename": format!("n/{i}"),
            "name": format!("Note {i}"), "type": "reference", "content": "x"}),
        );
    }
    s.ok(json!({"command": "delete", "path": "/memories/n/7.md"}));
    let warm = s.ok(json!({"command": "prompt"}));
    s.restarted();
    assert_eq!(s.ok(json!({"command": "prompt"})), warm);
    // The journal gone: a rebuild from the files gives the same index.
    s.restarted();
    memcap_core::storage::Storage::remove_file(&s.fs, ".memcap/notes.jsonl").unwrap();
    assert_eq!(s.ok(json!({"command": "prompt"})), warm);
    assert!(!warm.contains("Note 7]"));
    assert!(warm.contains("[Note 39](n/39.md)"));
}

#[test]
fn a_due_sweep_goes_in_slices_and_finds_an_edit_in_place_within_them() {
    use memcap_core::storage::Storage;
    let s = Store::new();
    // Three directories of 600 notes: more than one call sweeps (1,000
    // files a call at most).
    for dir in ["a", "b", "c"] {
        s.plant(dir, 600);
    }
    s.ok(json!({"command": "prompt"}));
    // Rewritten in place: no directory changes, so only the sweep sees it.
    s.fs.write_at("c/n5.md", 0, b"---\nname: c5\ndescription: new\n---\nx\n")
        .unwrap();
    let found = |s: &Store| s.search_finds("new", "c/n5.md");
    s.env.now.set(s.env.now.get() + 31);
    // The sweep is due: this call checks a and 400 files of b, and stops
    // before c.
    assert!(!found(&s));
    // Another process goes on after the last file checked (from the
    // start of b, its 1,000 would stop before c/n5.md), and finds the edit.
    s.restarted();
    s.next_second();
    assert!(found(&s));
}

#[test]
fn after_a_burst_a_new_instance_reads_the_journals_head_not_every_note() {
    use memcap_core::storage::Storage;
    let s = Store::new();
    // 3,000 notes written long ago (the files' clock starts years back).
    for dir in 0..30 {
        s.fs.create_dir(&format!("d{dir}")).unwrap();
        for i in 0..100 {
            let text = format!("---\nname: Old {dir}-{i}\ndescription: old\n---\nx\n");
            s.fs.write_new(&format!("d{dir}/n{i}.md"), text.as_bytes(), false)
                .unwrap();
        }
    }
    s.ok(json!({"command": "prompt"}));
    // A burst of 600 notes written now: the journal is compacted during it,
    // its snapshot keeping every note younger than the verified mark.
    s.burst(600);
    // The next new process replays the burst's records once and rewrites
    // the journal, so the processes after it do not replay them again.
    let burst_records = journal_records(&s);
    assert!(burst_records > 256, "{burst_records} records");
    s.restarted();
    s.ok(json!({"command": "prompt"}));
    let records = journal_records(&s);
    assert!(
        records < 16,
        "{records} records left after a replay of {burst_records}"
    );
    // Seconds later (old enough to trust, the full sweep not due), a new
    // process reads its stamps once more from the journal's head.
    s.env.now.set(s.env.now.get() + 5);
    s.restarted();
    let prompt = answers_from_the_head(&s, json!({"command": "prompt"}));
    assert!(prompt.contains("Burst"), "{prompt}");
}

/// The answer to `input`, which must read less than half the journal: its
/// head, not every note.
fn answers_from_the_head(s: &Store, input: serde_json::Value) -> String {
    use memcap_core::storage::Storage;
    let journal = s.fs.stat(".memcap/notes.jsonl", false).unwrap().size;
    let before = s.fs.bytes_read();
    let answer = s.ok(input);
    let read = s.fs.bytes_read() - before;
    assert!(
        read < journal / 2,
        "read {read} of the journal's {journal} bytes: every note, not its head"
    );
    answer
}

#[test]
fn memory_view_shows_the_index_from_the_journals_head_not_every_note() {
    let s = Store::new();
    // 3,000 notes written long ago (the files' clock starts years back),
    // more than the journal's head holds whole.
    for dir in 0..30 {
        s.plant(&format!("d{dir}"), 100);
    }
    s.ok(json!({"command": "prompt"}));
    s.env.now.set(s.env.now.get() + 5);
    s.restarted();
    let text = answers_from_the_head(&s, json!({"command": "memory_view"}));
    // The same index a reader of the file sees, with every note counted.
    assert_eq!(Some(&text), s.file("MEMORY.md").as_ref());
    assert!(text.contains("more notes not listed here"), "{text}");
    // Every note is still there for `all`, which reads them.
    let all = s.ok(json!({"command": "memory_view", "all": true}));
    assert!(all.contains("3000"), "{all}");
}

#[test]
fn notes_changed_in_one_second_are_read_once_more_over_calls_not_again_in_each() {
    let s = Store::new();
    s.ok(json!({"command": "prompt"}));
    // 300 notes written in one second: more than one call's slice reads once
    // more when they are old enough to trust.
    s.burst(300);
    s.env.now.set(s.env.now.get() + 5);
    // Each read of the monotonic clock is 50 µs: a 2 ms slice checks a few
    // dozen notes.
    s.env.step.set(50_000);
    let reads = |s: &Store| {
        s.next_second();
        let before = s.fs.bytes_read();
        s.ok(json!({"command": "prompt"}));
        s.fs.bytes_read() - before
    };
    let first = reads(&s);
    assert!(first > 0, "the first call read none of them once more");
    // Each call goes on where the last stopped, so a bounded number of calls
    // reads them all and then the calls read nothing.
    let calls = (0..100).position(|_| reads(&s) == 0);
    assert!(
        calls.is_some_and(|n| n > 0),
        "after {calls:?} calls: not verified over calls"
    );
}

#[test]
fn a_call_whose_slice_went_on_reading_the_blocks_still_reads_a_note_once_more() {
    use memcap_core::storage::Storage;
    let s = Store::new();
    // More notes in one second than the journal's head holds whole: making
    // sure none past it is young reads every block first.
    s.aged_burst(2_100);
    // Each read of the monotonic clock is a whole slice: a call's slice is
    // spent before its first note, as the reading of the blocks spent it
    // at 10,000 notes.
    s.env.step.set(1_000_000);
    let journal = |s: &Store| {
        let file = s.fs.open(".memcap/notes.jsonl", false).unwrap();
        let (bytes, _) = file.read_at(0, u64::MAX).unwrap();
        String::from_utf8_lossy(&bytes).matches("verified").count()
    };
    for call in 0..3 {
        let before = journal(&s);
        s.restarted();
        s.next_second();
        s.ok(json!({"command": "prompt"}));
        assert!(
            journal(&s) > before,
            "call {call} read no note once more: the next process starts over"
        );
    }
}

#[test]
fn a_due_sweep_stops_inside_a_directory_when_its_slice_is_spent() {
    use memcap_core::storage::Storage;
    let s = Store::new();
    s.plant("d", 300);
    s.ok(json!({"command": "prompt"}));
    // Rewritten in place, and last in path order.
    s.fs.write_at("d/n99.md", 0, b"---\nname: d99\ndescription: new\n---\nx\n")
        .unwrap();
    let found = |s: &Store| s.search_finds("new", "d/n99.md");
    s.env.now.set(s.env.now.get() + 31);
    // Each read of the monotonic clock is 50 µs: a slice checks a few dozen
    // files, not the whole directory.
    s.env.step.set(50_000);
    assert!(!found(&s), "one call swept the whole directory");
    let calls = (0..100).position(|_| {
        s.restarted();
        s.next_second();
        found(&s)
    });
    assert!(
        calls.is_some_and(|n| n > 0),
        "found after {calls:?} more calls"
    );
}

#[test]
fn a_due_sweep_checks_files_without_listing_their_directories_again() {
    use memcap_core::storage::Storage;
    let s = Store::new();
    for dir in ["a", "b", "c"] {
        s.plant(dir, 300);
    }
    s.ok(json!({"command": "prompt"}));
    s.fs.write_at("c/n99.md", 0, b"---\nname: c99\ndescription: new\n---\nx\n")
        .unwrap();
    s.env.now.set(s.env.now.get() + 31);
    s.env.step.set(50_000);
    // Every directory's stamp is old and unchanged, so each call's refresh
    // has shown no name was made or removed: the sweep's slices only read
    // file stamps (a listing of a large directory costs more than a slice).
    let listings = s.fs.listings();
    let calls = (0..200).position(|_| {
        s.restarted();
        s.next_second();
        s.search_finds("new", "c/n99.md")
    });
    assert!(calls.is_some_and(|n| n > 0), "found after {calls:?} calls");
    assert_eq!(s.fs.listings(), listings, "the sweep listed directories");
}

#[test]
fn calls_within_one_second_spend_one_slice_on_the_sweep() {
    use memcap_core::storage::Storage;
    let s = Store::new();
    s.plant("d", 300);
    s.ok(json!({"command": "prompt"}));
    s.env.now.set(s.env.now.get() + 31);
    s.env.step.set(50_000);
    // Each slice records where the sweep goes on: the journal grows.
    let journal = |s: &Store| s.fs.stat(".memcap/notes.jsonl", false).unwrap().size;
    let before = journal(&s);
    s.ok(json!({"command": "prompt"}));
    let sliced = journal(&s);
    assert!(sliced > before, "the due sweep took no slice");
    for _ in 0..5 {
        s.restarted();
        s.ok(json!({"command": "prompt"}));
    }
    assert_eq!(journal(&s), sliced, "another slice in the same second");
    s.next_second();
    s.ok(json!({"command": "prompt"}));
    assert!(journal(&s) > sliced, "no slice in the next second");
}

/// The JSON records after the journal's snapshot: what a new process replays.
fn journal_records(s: &Store) -> usize {
    use memcap_core::storage::Storage;
    let file = s.fs.open(".memcap/notes.jsonl", false).unwrap();
    let (bytes, _) = file.read_at(0, u64::MAX).unwrap();
    let first = bytes.iter().position(|&b| b == b'\n').unwrap();
    let header: serde_json::Value = serde_json::from_slice(&bytes[..first]).unwrap();
    let size = |key: &str| header[key].as_u64().unwrap() as usize;
    let derived: usize = header["derived"]
        .as_array()
        .unwrap()
        .iter()
        .map(|part| part["len"].as_u64().unwrap() as usize)
        .sum();
    // The snapshot ends with a newline of its own.
    let tail = first + 1 + size("head") + size("blocks") + derived + 1;
    bytes[tail..]
        .split(|&b| b == b'\n')
        .filter(|line| !line.is_empty())
        .count()
}

#[test]
fn a_walk_left_unfinished_goes_on_as_a_walk_not_behind_the_once_more_reads() {
    use memcap_core::storage::Storage;
    let s = Store::new();
    // A call's walks get a share of 20 ms: a few hundred reads of a clock
    // that moves 50 µs a read.
    s.env.set_var("MEMCAP_CALL_TIMEOUT_MS", Some("20"));
    s.ok(
        json!({"command": "memory_write", "filename": "first", "name": "First",
        "description": "the first", "type": "user", "content": "x"}),
    );
    s.ok(json!({"command": "memory_view"}));
    // Notes another program wrote, old enough to trust by the next calls.
    s.fs.set_clock(s.env.now.get());
    s.fs.create_dir("big").unwrap();
    for d in 0..20 {
        s.plant(&format!("big/d{d:02}"), 100);
    }
    s.env.now.set(s.env.now.get() + 5);
    s.env.step.set(50_000);
    let mut unfinished = 0;
    for _ in 0..100 {
        s.restarted();
        if !s
            .ok(json!({"command": "memory_view"}))
            .contains("still reading")
        {
            break;
        }
        unfinished += 1;
    }
    assert!(unfinished > 0, "one call walked every file");
    s.restarted();
    let all = s.ok(json!({"command": "memory_view", "all": true}));
    assert!(
        all.starts_with("2001 notes in /memories:\n"),
        "after {unfinished} unfinished calls: {}",
        &all[..all.len().min(80)]
    );
}

/// A store holding one note, `n/a.md` ("Ant"), and the MEMORY.md it made.
fn store_with_ant() -> Store {
    let s = Store::new();
    s.ok(
        json!({"command": "memory_write", "filename": "n/a", "name": "Ant",
        "type": "reference", "content": "ants"}),
    );
    s
}

#[test]
fn a_search_leaves_memory_md_to_the_next_reader_and_every_reader_sees_it_fresh() {
    use memcap_core::storage::Storage;
    let s = store_with_ant();
    let index = "MEMORY.md";
    let before = s.file(index).unwrap();
    // Another program adds a note; a search finds it and does not rewrite
    // MEMORY.md, which no answer shows.
    s.fs.write_new(
        "n/b.md",
        b"---\nname: Bee\ndescription: buzz\n---\nbuzz\n",
        false,
    )
    .unwrap();
    assert!(s.search_finds("buzz", "n/b.md"));
    assert_eq!(s.file(index).unwrap(), before);
    // Each way of reading the index brings it up to date first.
    let listed = "[Bee](n/b.md)";
    let readers = [
        json!({"command": "view", "path": "/memories/MEMORY.md"}),
        json!({"command": "memory_get", "path": "/memories/MEMORY.md"}),
        json!({"command": "memory_read"}),
        json!({"command": "prompt"}),
    ];
    for reader in readers {
        s.restarted();
        s.fs.remove_file(index).unwrap();
        s.fs.write_new(index, before.as_bytes(), false).unwrap();
        assert!(s.ok(reader.clone()).contains(listed), "{reader}");
        assert!(s.file(index).unwrap().contains(listed), "{reader}");
    }
}

#[test]
fn memory_md_found_matching_is_trusted_until_a_note_or_the_file_changes() {
    use memcap_core::storage::Storage;
    let s = store_with_ant();
    let first = s.ok(json!({"command": "prompt"}));
    // The match is on record (the file is old enough to trust its stamp),
    // once: a new instance answers the same from it.
    let marks = |s: &Store| {
        let journal = s.fs.files().get(".memcap/notes.jsonl").cloned().unwrap();
        journal.windows(9).filter(|w| w == b"{\"index\":").count()
    };
    assert_eq!(marks(&s), 1);
    s.restarted();
    assert_eq!(s.ok(json!({"command": "prompt"})), first);
    assert_eq!(marks(&s), 1);
    // Another program adds a note: MEMORY.md is as it was, the notes are not.
    s.fs.write_new(
        "n/b.md",
        b"---\nname: Bee\ndescription: buzz\n---\nbuzz\n",
        false,
    )
    .unwrap();
    let listed = |s: &Store, line: &str| {
        s.ok(json!({"command": "view", "path": "/memories/MEMORY.md"}))
            .contains(line)
            && s.file("MEMORY.md").unwrap().contains(line)
    };
    assert!(listed(&s, "[Bee](n/b.md)"));
    // And a new instance, from the journal.
    s.restarted();
    assert!(listed(&s, "[Bee](n/b.md)"));
    // Another program edits MEMORY.md: its text is kept, the region renewed.
    let text = s.file("MEMORY.md").unwrap();
    s.fs.remove_file("MEMORY.md").unwrap();
    let edited = format!(
        "My own line\n{}",
        text.replace("[Bee](n/b.md)", "[Wasp](n/b.md)")
    );
    s.fs.write_new("MEMORY.md", edited.as_bytes(), false)
        .unwrap();
    s.restarted();
    let shown = s.ok(json!({"command": "view", "path": "/memories/MEMORY.md"}));
    assert!(
        shown.contains("My own line") && shown.contains("[Bee](n/b.md)"),
        "{shown}"
    );
    assert!(!shown.contains("Wasp"), "{shown}");
    // A note another instance changes (its record in the journal) shows in
    // a warm instance whose mark came before it.
    let other = std::cell::RefCell::new(memcap_core::Indexes::default());
    let io = memcap_core::Io::new(&s.fs, &s.env, &other);
    let renamed = json!({"command": "memory_write", "filename": "n/a", "name": "Ant queen",
        "type": "reference", "content": "ants"});
    assert!(!memcap_core::call(&io, &renamed.to_string()).is_error);
    assert!(listed(&s, "[Ant queen](n/a.md)"));
}

#[test]
fn the_first_search_after_a_few_notes_from_other_processes_saves_what_it_took() {
    let s = Store::new();
    s.plant("old", 40);
    s.ok(json!({"command": "memory_search", "query": "old"}));
    // Notes written one process each, as the CLI or a hook does: they wait
    // in the journal for whichever process next asks the search index.
    for i in 0..9 {
        s.restarted();
        s.ok(
            json!({"command": "memory_write", "filename": format!("n/{i}"),
            "name": format!("Note {i}"), "type": "reference", "content": "fresh"}),
        );
    }
    let waiting = journal_records(&s);
    assert!(waiting >= 9, "{waiting}");
    // The first search takes them and rewrites the journal with the index's
    // state, so a later process takes none of them again.
    s.restarted();
    let found = s.ok(json!({"command": "memory_search", "query": "fresh", "minScore": 0.0}));
    assert!(found.contains("/memories/n/"), "{found}");
    assert_eq!(journal_records(&s), 0);
    s.restarted();
    let again = s.ok(json!({"command": "memory_search", "query": "fresh", "minScore": 0.0}));
    assert_eq!(again, found);
}

#[test]
fn memory_md_written_is_marked_by_its_content_at_once_and_an_edit_in_that_second_is_found() {
    use memcap_core::storage::Storage;
    let s = store_with_ant();
    let marks = |s: &Store| {
        let journal = s.fs.files().get(".memcap/notes.jsonl").cloned().unwrap();
        journal.windows(9).filter(|w| w == b"{\"index\":").count()
    };
    // The write that rewrote MEMORY.md marked it: no wait for its stamp.
    let before = marks(&s);
    s.ok(
        json!({"command": "memory_write", "filename": "n/c", "name": "Cricket",
        "type": "reference", "content": "chirp"}),
    );
    assert_eq!(marks(&s), before + 1);
    let written = s.file("MEMORY.md").unwrap();
    s.restarted();
    assert!(
        s.ok(json!({"command": "prompt"}))
            .contains("[Cricket](n/c.md)")
    );
    assert_eq!(s.file("MEMORY.md").unwrap(), written);
    // Another program edits the region in place, same size, same second:
    // the content no longer matches the mark, so the region is renewed.
    let at = written.find("[Cricket]").unwrap();
    s.fs.write_at("MEMORY.md", at as u64, b"[Crooked]").unwrap();
    s.restarted();
    let shown = s.ok(json!({"command": "prompt"}));
    assert!(
        shown.contains("[Cricket](n/c.md)") && !shown.contains("Crooked"),
        "{shown}"
    );
    assert_eq!(s.file("MEMORY.md").unwrap(), written);
}

#[test]
fn right_after_a_bulk_copy_a_new_instance_reads_the_journals_head_not_every_note() {
    use memcap_core::storage::Storage;
    let s = Store::new();
    // 3,000 notes copied in just now, all beneath one directory (as
    // `memcap copy` or a checkout leaves them): every directory is too
    // young to trust its stamp for two seconds.
    s.fs.set_clock(s.env.now.get());
    s.fs.create_dir("n").unwrap();
    for dir in 0..30 {
        s.plant(&format!("n/d{dir}"), 100);
    }
    s.ok(json!({"command": "prompt"}));
    s.ok(json!({"command": "create", "path": "/memories/n/d3/new.md", "file_text": "new\n"}));
    // Within those two seconds, a new process answers from the journal's
    // head: `n` (no note of its own) is not counted by decoding every note
    // beneath it.
    s.restarted();
    let prompt = answers_from_the_head(&s, json!({"command": "prompt"}));
    assert!(prompt.contains("more notes not listed here"), "{prompt}");
    s.restarted();
    let view = answers_from_the_head(
        &s,
        json!({"command": "view", "path": "/memories/n/d3/new.md"}),
    );
    assert!(view.contains("new"), "{view}");
}

#[test]
fn a_call_lists_sixteen_young_directories_again_and_leaves_the_rest() {
    let s = Store::new();
    // Twenty small directories made this second: too young to trust their
    // stamps (a name made in the same tick might not move one), each small
    // enough to list again for names.
    s.fs.set_clock(s.env.now.get());
    for dir in 0..20 {
        s.plant(&format!("d{dir:02}"), 2);
    }
    s.ok(json!({"command": "prompt"}));
    let before = s.fs.listings();
    s.ok(json!({"command": "prompt"}));
    assert_eq!(
        s.fs.listings() - before,
        16,
        "a call lists YOUNG_LISTINGS (16) young directories again, no more"
    );
}

/// The bytes a new process's write reads after a burst of `count` young
/// notes, the journal rewritten since.
fn write_after_burst(count: usize) -> (Store, u64) {
    let s = Store::new();
    s.ok(json!({"command": "prompt"}));
    s.burst(count);
    s.restarted();
    s.ok(json!({"command": "prompt"}));
    s.restarted();
    let before = s.fs.bytes_read();
    s.ok(json!({"command": "create", "path": "/memories/other/x.md", "file_text": "x\n"}));
    let read = s.fs.bytes_read() - before;
    (s, read)
}

#[test]
fn a_write_after_a_burst_reads_the_head_and_not_the_young_notes_past_it() {
    // Past the head's 400 notes, the snapshot keeps the notes too young to
    // trust (up to 2,000) in recency order after its blocks: a write that
    // needs none of them reads about as much after 1,500 as after 400 (it read
    // ~3.4 times as much when the head held them all; the rest of the
    // difference is the journal's records after the snapshot).
    let (_, after_400) = write_after_burst(400);
    let (s, after_1500) = write_after_burst(1_500);
    assert!(
        after_1500 < after_400 * 2,
        "a write read {after_1500} bytes after 1,500 young notes, {after_400} after 400"
    );
    // The last of them (past the head's 400, ties going by path) deleted,
    // its block read; then the young notes read to check them once more:
    // the deleted one must not come back.
    s.ok(json!({"command": "delete", "path": "/memories/burst/n999.md"}));
    s.restarted();
    s.env.now.set(s.env.now.get() + 5);
    s.ok(json!({"command": "prompt"}));
    let mut all = String::new();
    for page in 1..=100 {
        let listing = s.ok(json!({"command": "memory_view", "all": true, "page": page}));
        all.push_str(&listing);
        if !listing.contains(" more notes on page") {
            break;
        }
    }
    assert!(!all.contains("burst/n999.md"), "the deleted note came back");
    assert!(
        all.contains("burst/n998.md"),
        "{}",
        &all[all.len().saturating_sub(400)..]
    );
    assert!(all.contains("1500 notes"), "{}", &all[..all.len().min(400)]);
}
