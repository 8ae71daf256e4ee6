//! Size: a store's quota, answers that page instead of growing with the
//! store, and a 100,000-note store with no journal (and, where the machine
//! allows it, a cold page cache) that answers every call.

#[macro_use]
mod common;

use common::{Fixture, snapshot};
use memcap::{Limits, Memory, NoteType, ToolErrorKind as K};

#[test]
fn a_change_past_the_quota_is_refused_and_writes_nothing() {
    // One backend: counts files another program put in the directory.
    let (dir, memory) = common::open_with(Limits {
        max_store_files: 4,
        max_store_bytes: 2_000,
        ..Limits::default()
    });
    let root = dir.path().join("memories");
    // MEMORY.md counts as a file too; hidden files and node_modules count.
    memory.create("/memories/a.md", "a\n").unwrap();
    memory.create("/memories/.hidden", "h").unwrap();
    memory.create("/memories/node_modules/x.js", "x").unwrap();
    let before = snapshot(&root, false);
    for (what, result) in [
        ("create", memory.create("/memories/b.md", "b")),
        (
            "memory_write",
            memory.memory_write("c", "C", "", NoteType::User, "c"),
        ),
        ("hidden create", memory.create("/memories/.again", "h")),
    ] {
        let e = result.expect_err(what);
        assert_eq!(e.kind, K::TooLarge, "{what}: {e:?}");
        assert!(
            e.message.contains("5 files, over its limit of 4"),
            "{what}: {}",
            e.message
        );
        assert!(e.message.contains("Nothing was written"), "{}", e.message);
        assert_eq!(snapshot(&root, false), before, "{what}");
    }
    // Editing an existing file adds no file; growing it past the bytes does.
    memory.str_replace("/memories/a.md", "a", "aa").unwrap();
    let e = memory
        .str_replace("/memories/a.md", "aa", &"z".repeat(2_000))
        .unwrap_err();
    assert_eq!(e.kind, K::TooLarge);
    assert!(
        e.message.contains("bytes, over its limit of 2000"),
        "{}",
        e.message
    );
    let e = memory
        .insert("/memories/a.md", 0, &"z".repeat(2_000))
        .unwrap_err();
    assert_eq!(e.kind, K::TooLarge);
    assert_eq!(std::fs::read_to_string(root.join("a.md")).unwrap(), "aa\n");
    // Deleting makes room again.
    memory.delete("/memories/node_modules").unwrap();
    memory.create("/memories/b.md", "b").unwrap();

    // The command line takes the same limits.
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_memcap"))
        .args(["--max-files", "3", "--root"])
        .arg(&root)
        .args(["create", "/memories/d.md", "d"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    assert!(String::from_utf8_lossy(&out.stderr).contains("over its limit of 3"));
}

both_backends! {
fn long_answers_page_with_a_line_saying_how_to_get_the_rest() {
    let f = Fixture::new();
    for i in 0..120 {
        f.plant(&format!("n/{i:03}.md"), format!("note {i}\n"));
    }
    let page = |n: Option<u32>| f.memory.memory_view_page(true, n).unwrap();
    let first = page(None);
    assert!(first.starts_with("120 notes in /memories:\n"), "{first}");
    assert_eq!(first.matches("\n/memories/").count(), 50);
    assert!(first.ends_with(
        "\nPage 1 of 3. 70 more notes on pages 2 to 3: memory_view with all=true and page=2 shows the next 50.\n"
    ), "{first}");
    let third = page(Some(3));
    assert_eq!(third.matches("\n/memories/").count(), 20);
    assert!(third.contains("/memories/n/119.md"));
    assert!(third.ends_with("\nPage 3 of 3.\n"), "{third}");
    assert!(page(Some(4)).contains("There are only 3 pages of notes"));
    // Through `call`, with the page as a field; bad pages are input errors.
    let via_call = f
        .memory
        .call(r#"{"command": "memory_view", "all": true, "page": 2}"#);
    assert!(
        via_call
            .content
            .ends_with("\nPage 2 of 3. 20 more notes on page 3: memory_view with all=true and page=3 shows the next 20.\n"),
        "{via_call:?}"
    );
    for bad in ["0", "-1", "\"2\"", "1.5"] {
        let r = f.memory.call(&format!(
            r#"{{"command": "memory_view", "all": true, "page": {bad}}}"#
        ));
        assert!(r.is_error && r.content.contains("\"page\""), "{bad}: {r:?}");
    }

    // The file list pages by 500 paths.
    for i in 0..1_000 {
        f.plant(&format!("m/{i:04}.md"), "x\n");
    }
    let list = f.memory.memory_read(&[]).unwrap();
    assert!(list.contains("Memory files (1121):\n/memories/MEMORY.md\n"));
    assert_eq!(list.matches("\n/memories/").count() + 1, 500 + 1);
    assert!(list.ends_with(
        "\nPage 1 of 3. 621 more files on pages 2 to 3: memory_read without topics and page=2 shows the next 500.\n"
    ));
    let last = f.memory.memory_read_page(&[], Some(3)).unwrap();
    assert!(
        !last.contains("memcap:index:begin"),
        "the index is on page 1 only"
    );
    assert_eq!(last.matches("\n/memories/").count(), 121);

    // Notes in full page by bytes; one larger than a page is cut at a line.
    let line = format!("{}\n", "y".repeat(99));
    for name in ["big/a.md", "big/b.md", "big/c.md"] {
        f.plant(name, line.repeat(400)); // 40,000 bytes each
    }
    f.plant("big/huge.md", line.repeat(3_000)); // 300,000 bytes
    let topics = ["big".to_owned()];
    let one = f.memory.memory_read_page(&topics, Some(1)).unwrap();
    assert_eq!(
        one.matches("=== /memories/big/").count(),
        2,
        "{}",
        &one[..200]
    );
    assert!(
        one.contains("2 more notes match, on pages 2 to 3"),
        "{}",
        &one[one.len() - 300..]
    );
    let three = f.memory.memory_read_page(&topics, Some(3)).unwrap();
    assert!(three.starts_with("=== /memories/big/huge.md"));
    assert!(three.len() < 101_000, "{}", three.len());
    assert!(
        three.contains("[… cut after line 1000: the note is 300000 bytes; view /memories/big/huge.md with view_range [1001, -1] to read the rest]"),
        "{}",
        &three[three.len() - 300..]
    );
}
}

both_backends! {
fn a_directory_listing_stops_at_a_thousand_entries_and_says_so() {
    let f = Fixture::new();
    for i in 0..1_500 {
        f.plant(&format!("{i:04}.txt"), "x");
    }
    let listing = f.memory.view("/memories", None).unwrap();
    assert_eq!(listing.lines().count(), 1 + 1 + 1_000 + 1);
    assert!(listing.ends_with(
        "… the listing stops here: memcap lists at most 1000 entries. View a subdirectory to see what it holds."
    ));
}
}

/// Drops the page cache when the machine lets this process (root, not in a
/// container that forbids it); says so when it cannot.
fn drop_page_cache() {
    // SAFETY: sync has no preconditions.
    unsafe { libc::sync() };
    if std::fs::write("/proc/sys/vm/drop_caches", "3\n").is_err() {
        eprintln!("could not drop the page cache: the store is read warm");
    }
}

#[test]
#[cfg_attr(
    debug_assertions,
    ignore = "a debug host walks 100,000 files in many more calls than the 15 this allows: run it with --release (./dev test does)"
)]
fn a_hundred_thousand_notes_with_no_journal_answer_every_call() {
    // One backend: drops a directory's page cache; the database's 100,000-note
    // namespace is `search.rs`'s.
    let f = Fixture::directory();
    let body = "---\nname: Note\ndescription: a fact\ntype: project\n---\n\nBody.\n";
    for i in 0..100_000 {
        let dir = f.root().join(format!("d{:02}", i % 100));
        if i < 100 {
            std::fs::create_dir(&dir).unwrap();
        }
        std::fs::write(dir.join(format!("n{i}.md")), body).unwrap();
    }
    drop_page_cache();
    // A new host, no journal: every call answers within the limits, an
    // unfinished index says so, and each call goes on from the last.
    let memory = Memory::open(f.root()).unwrap();
    let mut read_so_far = 0;
    let mut calls = 0;
    loop {
        calls += 1;
        let index = memory.memory_view(false).unwrap();
        match index.split("memcap has read ").nth(1) {
            Some(rest) => {
                let n: usize = rest.split(' ').next().unwrap().parse().unwrap();
                assert!(n > read_so_far, "call {calls} made no progress: {n}");
                read_so_far = n;
            }
            None => {
                assert!(
                    index.contains("99850 more notes not listed here")
                        || index.contains("more notes not listed here"),
                    "{index}"
                );
                break;
            }
        }
        assert!(calls < 15, "still unfinished after {calls} calls");
    }
    eprintln!("100,000 notes indexed from nothing in {calls} calls");
    // Writes and the other reads answer too, and stay bounded.
    memory.create("/memories/d00/new.md", "new note\n").unwrap();
    let prompt = memory.prompt().unwrap();
    assert!(prompt.lines().count() <= 200 && prompt.len() <= 25_000);
    let all = memory.memory_view(true).unwrap();
    assert!(
        all.starts_with("100001 notes in /memories:\n"),
        "{}",
        &all[..100]
    );
    assert!(all.contains("\nPage 1 of 2001. "));
    assert!(memory.memory_read(&[]).unwrap().len() < 100_000);
    assert!(memory.view("/memories", None).unwrap().lines().count() <= 1_003);
    // A new process reads the journal back and answers at once.
    let fresh = Memory::open(f.root()).unwrap();
    assert!(!fresh.memory_view(false).unwrap().contains("still reading"));
}

#[test]
fn memory_md_growth_never_takes_the_store_past_its_quota() {
    // One backend: fills a directory to the byte by writing its files directly.
    let limit = 20_000;
    let (dir, memory) = common::open_with(Limits {
        max_store_bytes: limit,
        ..Limits::default()
    });
    let root = dir.path().join("memories");
    let total = || -> u64 {
        snapshot(&root, false)
            .values()
            .map(|node| match node {
                common::Node::File(bytes) => bytes.len() as u64,
                _ => 0,
            })
            .sum()
    };
    let mut refused = None;
    for i in 0..500 {
        let description =
            format!("What note {i} holds, in a long sentence that makes its index line long");
        match memory.memory_write(
            &format!("n{i:03}"),
            &format!("Note {i}"),
            &description,
            NoteType::Project,
            "A short body.",
        ) {
            Ok(_) => assert!(total() <= limit, "after note {i}: {} bytes", total()),
            Err(e) => {
                assert_eq!(e.kind, K::TooLarge, "{e:?}");
                refused = Some(i);
                break;
            }
        }
    }
    let refused = refused.expect("the quota was never reached");
    // A note that fills the store to the byte: its index line would not fit.
    let head = "---\nname: Filler\ndescription: fills the store\ntype: user\n---\n\n";
    let gap = (limit - total()) as usize;
    let filler = format!("{head}{}\n", "f".repeat(gap.saturating_sub(head.len() + 1)));
    let result = memory.create("/memories/filler.md", &filler);
    assert!(total() <= limit, "{} bytes after {result:?}", total());
    assert_eq!(result.unwrap_err().kind, K::TooLarge);
    let before = snapshot(&root, false);
    // Edits that grow a note's line are admitted only with room for it too.
    let e = memory
        .memory_update("n000", "A short body.", &"x".repeat(limit as usize))
        .unwrap_err();
    assert_eq!(e.kind, K::TooLarge);
    assert_eq!(snapshot(&root, false), before);
    assert!(total() <= limit);
    println!(
        "{refused} notes fit; the store holds {} of {limit} bytes",
        total()
    );

    // The first note of an empty store brings MEMORY.md: two files.
    let (dir, memory) = common::open_with(Limits {
        max_store_files: 1,
        ..Limits::default()
    });
    let e = memory
        .memory_write("only", "Only", "d", NoteType::User, "x")
        .unwrap_err();
    assert_eq!(e.kind, K::TooLarge, "{e:?}");
    assert!(
        e.message.contains("2 files, over its limit of 1"),
        "{}",
        e.message
    );
    assert!(snapshot(&dir.path().join("memories"), false).is_empty());
}

both_backends! {
fn a_store_too_large_to_index_in_one_call_is_indexed_across_calls_that_answer() {
    // 24 notes of 1 MiB of words: taking them all in at once runs past the
    // 10 s limit, call after call, and nothing is ever saved. Taken in
    // batches, every call answers and each goes on from the last.
    let f = Fixture::new();
    let notes = (0..24)
        .map(|i| {
            let mut text =
                format!("---\nname: Big {i}\ndescription: large\ntype: reference\n---\n\n");
            let mut k = 0;
            while text.len() < 1 << 20 {
                text.push_str(&format!(
                    "line {k} of note {i}: rivers carry silt downstream w{i}x{k}\n"
                ));
                k += 1;
            }
            (format!("big/n{i:02}.md"), text.into_bytes())
        })
        .collect();
    f.plant_many(notes);
    // Past the seconds in which fresh stamps are listed again each call.
    f.later(common::RACY);
    let memory = f.reopen();
    let mut calls = 0;
    loop {
        calls += 1;
        let index = memory.memory_view(false).unwrap();
        if !index.contains("still reading") {
            break;
        }
        assert!(calls < 20, "still unfinished after {calls} calls");
    }
    eprintln!("24 MiB of notes indexed in {calls} calls");
    let hits = memory
        .memory_search("w23x100", None, None, None, None)
        .unwrap();
    assert!(
        hits.results
            .iter()
            .any(|r| r.path == "/memories/big/n23.md"),
        "{hits:?}"
    );
}
}

/// A note of `bytes` bytes, every line a relation: `- r [[B123]]`.
fn relation_note(bytes: usize, tag: &str) -> String {
    let mut text = format!("---\nname: Hub {tag}\ndescription: relations\ntype: project\n---\n");
    let mut i = 0;
    while text.len() < bytes {
        text.push_str(&format!("- r [[{tag}{i}]]\n"));
        i += 1;
    }
    text
}

both_backends! {
fn one_huge_note_is_indexed_in_part_and_never_takes_the_others_down() {
    // 4.4 MB of 280,000 relation lines: the create was reported as stopped
    // for memory, yet landed, and every index call after it failed.
    let f = Fixture::new();
    let memory = &f.memory;
    memory
        .create("/memories/small.md", "a small note about kestrels\n")
        .unwrap();
    let huge = relation_note(4_400_000, "B");
    memory
        .create("/memories/huge.md", &huge)
        .expect("the create lands and says so");
    assert_eq!(f.read("huge.md"), huge);
    let stats = memory.memory_stats().unwrap();
    assert_eq!(stats.cut, ["/memories/huge.md"], "{stats:?}");
    assert!(stats.relations <= 1_000, "{stats:?}");
    let hits = memory
        .memory_search("kestrels", None, None, None, None)
        .unwrap();
    assert_eq!(hits.results[0].path, "/memories/small.md");
    // The first relations are in the graph; the note reads back whole.
    memory.memory_search("B10", None, None, None, None).unwrap();
    let context = memory
        .build_context("memory://huge", None, None, None, None)
        .unwrap();
    assert_eq!(context.primary.len(), 1, "{context:?}");
    memory.memory_read(&["hub".to_owned()]).unwrap();
    // Five notes of 1.4 MB together, as well.
    for i in 0..5 {
        memory
            .create(
                &format!("/memories/mid{i}.md"),
                &relation_note(1_400_000, &format!("M{i}x")),
            )
            .unwrap();
    }
    let stats = memory.memory_stats().unwrap();
    assert_eq!(stats.cut.len(), 6, "{stats:?}");
    memory
        .memory_search("kestrels", None, None, None, None)
        .unwrap();
    // Shrunk, a note is whole again and no longer named.
    memory.create("/memories/tmp.md", "x").unwrap();
    memory.delete("/memories/huge.md").unwrap();
    assert_eq!(memory.memory_stats().unwrap().cut.len(), 5);
}
}

both_backends! {
fn a_long_lived_host_takes_large_notes_one_by_one_within_its_memory() {
    // Notes of 6 MB each, one a call, in one warm instance: the indexes
    // kept all of every note, and the 6th create was stopped for memory,
    // then every call after it.
    let f = Fixture::new();
    let memory = &f.memory;
    let words = [
        "granite", "harbor", "lantern", "meadow", "orchid", "pepper", "quartz", "saddle",
    ];
    for n in 0..10 {
        let mut text = String::with_capacity(6_100_000);
        let mut k = 0usize;
        while text.len() < 6_000_000 {
            // Words of their own on every line, as prose has (a new term
            // costs the index more than a repeated one).
            text.push_str(&format!(
                "{} note{n} line{k} q{k:x}z{n} r{k:o}y{n} {} s{}t{n}\n",
                words[k % 8],
                words[(k / 8) % 8],
                k * 7919 % 1_000_003
            ));
            k += 1;
        }
        memory
            .create(&format!("/memories/big{n}.md"), &text)
            .unwrap_or_else(|e| panic!("note {n}: {e:?}"));
        // Every call answers; once the store's index budget is spent, a
        // new note is taken in part or not at all (and named as cut).
        memory
            .memory_search(&format!("note{n} line1"), None, None, None, None)
            .unwrap_or_else(|e| panic!("after note {n}: {e:?}"));
    }
    let hits = memory
        .memory_search("note0 line1", None, None, None, None)
        .unwrap();
    assert_eq!(hits.results[0].path, "/memories/big0.md", "{hits:?}");
    let stats = memory.memory_stats().unwrap();
    assert_eq!(stats.cut.len(), 10, "{stats:?}");
}
}
