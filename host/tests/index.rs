//! The index, /memories/MEMORY.md: never stale after changes made behind
//! memcap's back, the agent's own text kept, the prompt budget, and two
//! processes writing notes at once.

#[macro_use]
mod common;

use std::io::Write;

use common::Fixture;
use memcap::{Memory, NoteType};

const BEGIN: &str = "<!-- memcap:index:begin -->";
const END: &str = "<!-- memcap:index:end -->";

fn note(name: &str, description: &str, kind: &str) -> String {
    format!("---\nname: {name}\ndescription: {description}\ntype: {kind}\n---\nBody of {name}.\n")
}

/// The note lines of an index, without headings.
fn listed(index: &str) -> Vec<String> {
    index
        .lines()
        .filter(|l| l.starts_with("- ["))
        .map(str::to_owned)
        .collect()
}

both_backends! {
fn edits_made_behind_memcaps_back_show_in_the_next_index() {
    let f = Fixture::new();
    for (file, name) in [
        ("keep.md", "Keep"),
        ("edit.md", "Edit"),
        ("gone.md", "Gone"),
    ] {
        f.memory
            .memory_write(
                file,
                name,
                &format!("{name} before"),
                NoteType::Project,
                "x",
            )
            .unwrap();
    }
    // Another program (on a directory) or the host's own access (on a
    // database): rewrites one note with the same size, adds one in a new
    // directory, deletes one, renames one.
    let before = f.read("edit.md");
    let after = before.replace("Edit before", "Edit AFTERS");
    assert_eq!(before.len(), after.len());
    f.plant("edit.md", &after);
    f.mkdir("new");
    f.plant("new/added.md", note("Added", "Added outside", "user"));
    f.remove("gone.md");
    f.rename("keep.md", "kept.md");
    assert_eq!(f.read("edit.md"), after);

    // Names made, removed or renamed show at the next call.
    let names: Vec<String> = listed(&f.memory.memory_view(false).unwrap())
        .into_iter()
        .map(|line| line[..line.find(" - ").unwrap()].to_owned())
        .collect();
    assert_eq!(
        names,
        [
            "- [Added](new/added.md)",
            "- [Edit](edit.md)",
            "- [Keep](kept.md)"
        ]
    );
    // The rewrite in place shows once the note's stamp is old enough to
    // trust (2 seconds; whole seconds, so up to 3): it was made in the same
    // seconds as memcap's own write, so its stamp alone may not show it.
    f.later(common::RACY);
    let want = [
        "- [Added](new/added.md) - Added outside",
        "- [Edit](edit.md) - Edit AFTERS",
        "- [Keep](kept.md) - Keep before",
    ];
    // Every call that shows the index sees exactly the new state, and
    // MEMORY.md on disk is rewritten to match.
    assert_eq!(listed(&f.memory.memory_view(false).unwrap()), want);
    assert_eq!(listed(&f.read("MEMORY.md")), want);
    assert_eq!(listed(&f.memory.prompt().unwrap()), want);
    assert_eq!(listed(&f.memory.memory_read(&[]).unwrap()), want);

    // A plain `view` of MEMORY.md is brought up to date first as well.
    f.remove("new/added.md");
    let viewed = f.memory.view("/memories/MEMORY.md", None).unwrap();
    assert!(!viewed.contains("Added"), "{viewed}");
    assert!(viewed.contains("- [Edit](edit.md) - Edit AFTERS"));

    // A fresh host on the same directory (its own catalog from the journal)
    // agrees. (The note moves to a new name: an edit in place of a note
    // this old shows within the sweep's 30 seconds.)
    f.remove("edit.md");
    f.plant("edit-3.md", note("Edit", "Third version", "feedback"));
    let other = f.reopen();
    assert_eq!(
        listed(&other.memory_view(false).unwrap()),
        [
            "- [Edit](edit-3.md) - Third version",
            "- [Keep](kept.md) - Keep before"
        ]
    );
}
}

#[test]
fn a_same_size_rewrite_that_keeps_the_modification_time_is_seen() {
    // One backend: file times are a directory's (a database row changes with its version).
    // File times tick every few milliseconds, so memcap's write and another
    // program's can share a stamp: once a stamp is old enough to trust
    // (two seconds, whole seconds so up to three), the note is read once more.
    let f = Fixture::directory();
    f.memory
        .memory_write("n.md", "N", "version one", NoteType::User, "x")
        .unwrap();
    let path = f.root().join("n.md");
    let modified = std::fs::metadata(&path).unwrap().modified().unwrap();
    let text = std::fs::read_to_string(&path).unwrap();
    let file = std::fs::File::options().write(true).open(&path).unwrap();
    (&file)
        .write_all(text.replace("version one", "version two").as_bytes())
        .unwrap();
    file.set_modified(modified).unwrap();
    f.later(common::RACY);
    assert_eq!(
        listed(&f.memory.memory_view(false).unwrap()),
        ["- [N](n.md) - version two"]
    );
}

both_backends! {
fn the_agents_text_outside_the_markers_survives_every_rebuild() {
    let f = Fixture::new();
    // The agent starts MEMORY.md itself, before any note exists.
    f.memory
        .create(
            "/memories/MEMORY.md",
            "# My memory\n\nAlways greet Sam by name.\n",
        )
        .unwrap();
    f.memory
        .memory_write("a.md", "A", "first", NoteType::User, "a")
        .unwrap();
    let text = f.read("MEMORY.md");
    assert!(
        text.starts_with(&format!(
            "# My memory\n\nAlways greet Sam by name.\n\n{BEGIN}\n"
        )),
        "{text}"
    );
    // Text added below the region, and an edit inside it that is replaced.
    f.memory
        .insert(
            "/memories/MEMORY.md",
            text.lines().count() as i64,
            "Footer: ask before deleting.",
        )
        .unwrap();
    f.memory
        .str_replace("/memories/MEMORY.md", "- [A](a.md) - first", "- hand edit")
        .unwrap();
    let mine_before = "# My memory\n\nAlways greet Sam by name.\n\n";
    let mine_after = "Footer: ask before deleting.\n";
    let check = |f: &Fixture, expect_listed: &[&str]| {
        let text = f.read("MEMORY.md");
        assert!(text.starts_with(mine_before), "{text}");
        assert!(text.ends_with(&format!("{END}\n{mine_after}")), "{text}");
        assert_eq!(listed(&text), expect_listed, "{text}");
    };
    check(&f, &["- [A](a.md) - first"]);
    f.memory
        .memory_write("b.md", "B", "second", NoteType::Project, "b")
        .unwrap();
    check(&f, &["- [A](a.md) - first", "- [B](b.md) - second"]);
    f.memory.memory_update("b.md", "second", "2nd").unwrap();
    check(&f, &["- [A](a.md) - first", "- [B](b.md) - 2nd"]);
    f.memory
        .rename("/memories/a.md", "/memories/old/a.md")
        .unwrap();
    check(&f, &["- [A](old/a.md) - first", "- [B](b.md) - 2nd"]);
    f.memory.memory_delete("b.md").unwrap();
    check(&f, &["- [A](old/a.md) - first"]);
    f.memory.delete("/memories/old").unwrap();
    check(&f, &[]);
    assert!(f.read("MEMORY.md").contains("No notes yet."));
    f.plant("c.md", note("C", "outside", "reference"));
    assert!(f.memory.prompt().unwrap().contains(mine_before));
    check(&f, &["- [C](c.md) - outside"]);
}
}

both_backends! {
fn an_empty_store_gets_no_index() {
    let f = Fixture::new();
    assert!(
        f.memory
            .memory_view(false)
            .unwrap()
            .starts_with("No notes yet")
    );
    assert!(
        f.memory
            .prompt()
            .unwrap()
            .contains("No notes yet. Save one with memory_write.")
    );
    assert!(!f.exists("MEMORY.md"));
}
}

both_backends! {
fn five_hundred_notes_keep_the_prompt_within_budget_and_say_what_is_left_out() {
    let f = Fixture::new();
    for i in 0..500 {
        let kind = ["user", "feedback", "project", "reference"][i % 4];
        f.plant(
            &format!("notes/note-{i:03}.md"),
            note(
                &format!("Note number {i} about a topic"),
                &format!("What note {i} holds, described in one sentence of moderate length"),
                kind,
            ),
        );
    }
    let prompt = f.memory.prompt().unwrap();
    assert!(
        prompt.lines().count() <= 200,
        "{} lines",
        prompt.lines().count()
    );
    assert!(prompt.len() <= 25_000, "{} bytes", prompt.len());
    assert!(prompt.contains("Check memory first"));
    let shown = listed(&prompt).len();
    let left_out_line = prompt
        .lines()
        .find(|l| l.starts_with("- … "))
        .expect("a line saying what is left out");
    assert!(shown > 50, "only {shown} notes shown");
    assert!(
        left_out_line.starts_with(&format!("- … {} more notes not listed here", 500 - shown)),
        "{left_out_line}"
    );
    assert!(left_out_line.contains("memory_view with all=true lists every note"));
    let file = f.read("MEMORY.md");
    assert!(file.lines().count() <= 200 && file.len() <= 25_000);
    // Every note is still reachable.
    assert!(
        f.memory
            .memory_view(true)
            .unwrap()
            .starts_with("500 notes in /memories:")
    );
}
}

both_backends! {
processes fn two_processes_writing_different_notes_both_land_in_the_index() {
    const EACH: usize = 40;
    let f = Fixture::new();
    let children: Vec<_> = ["alpha", "beta"]
        .into_iter()
        .map(|who| {
            let input: String = (0..EACH)
                .map(|i| {
                    serde_json::json!({"command": "memory_write", "filename": format!("{who}/{i}"),
                        "name": format!("{who} {i}"), "description": "d", "type": "project",
                        "content": "c"})
                    .to_string()
                        + "\n"
                })
                .collect();
            f.feed_call(input)
        })
        .collect();
    for child in children {
        let out = child.wait_with_output().unwrap();
        assert!(out.status.success());
        let text = String::from_utf8(out.stdout).unwrap();
        assert_eq!(text.lines().count(), EACH);
        assert!(!text.contains("\"is_error\":true"), "{text}");
    }
    // MEMORY.md as the last writer left it, without any rescan: each process
    // caught up with the other's journal records before rendering.
    let on_disk = f.read("MEMORY.md");
    assert_eq!(listed(&on_disk).len(), 2 * EACH, "{on_disk}");
    let fresh = f.reopen().memory_view(false).unwrap();
    assert_eq!(fresh, on_disk);
}
}

/// Puts something memcap cannot rewrite at the index path.
type MakeIndex<'a> = dyn Fn(&std::path::Path) + 'a;

#[test]
fn a_memory_md_memcap_cannot_rewrite_does_not_hide_the_notes() {
    // One backend: file permissions are a directory's.
    let f = Fixture::directory();
    f.plant("a.md", note("A", "first", "user"));
    let outside = f.dir.path().join("outside.md");
    std::fs::write(&outside, "outside\n").unwrap();
    // (A binary MEMORY.md is rebuilt as clean text: see `hostile.rs`.)
    let cases: [(&str, Box<MakeIndex<'_>>); 2] = [
        ("a directory", Box::new(|p| std::fs::create_dir(p).unwrap())),
        (
            "a link out of the root",
            Box::new(|p| std::os::unix::fs::symlink(&outside, p).unwrap()),
        ),
    ];
    for (what, make) in cases {
        let index = f.root().join("MEMORY.md");
        make(&index);
        let read = f.memory.memory_read(&[]).unwrap();
        assert!(read.contains("- [A](a.md) - first"), "{what}: {read}");
        assert!(
            read.contains("Note: /memories/MEMORY.md could not be updated: "),
            "{what}: {read}"
        );
        let written = f
            .memory
            .memory_write("b", "B", "second", NoteType::User, "b")
            .unwrap();
        assert!(
            written.contains("could not be updated"),
            "{what}: {written}"
        );
        assert_eq!(std::fs::read_to_string(&outside).unwrap(), "outside\n");
        f.memory.memory_delete("b").unwrap();
        match std::fs::symlink_metadata(&index).unwrap().is_dir() {
            true => std::fs::remove_dir(&index).unwrap(),
            false => std::fs::remove_file(&index).unwrap(),
        }
    }
}

#[test]
fn a_damaged_or_missing_journal_costs_a_rebuild_never_a_wrong_index() {
    // One backend: damages the journal file as another program would.
    let f = Fixture::directory();
    for name in ["a", "b", "c"] {
        f.memory
            .memory_write(name, name, &format!("{name} note"), NoteType::User, "x")
            .unwrap();
    }
    let journal = f.root().join(".memcap/notes.jsonl");
    let want = [
        "- [a](a.md) - a note",
        "- [b](b.md) - b note",
        "- [c](c.md) - c note",
    ];
    // A JSON header line, a binary snapshot, then JSON records.
    let bytes = std::fs::read(&journal).unwrap();
    let with = |tail: &[u8]| [&bytes[..], tail].concat();
    let header_end = bytes.iter().position(|&b| b == b'\n').unwrap();
    let other_format = [
        &b"{\"other_tool\""[..],
        &bytes[bytes.iter().position(|&b| b == b':').unwrap()..],
    ]
    .concat();
    let damaged: [Vec<u8>; 7] = [
        // A record torn by a crash, then garbage.
        with(b"{\"put\":{\"path\":\"x.md\""),
        with(b"not json\n\x00\x01\n"),
        // A header from another format.
        other_format,
        // Cut in the middle of the header, or of the snapshot.
        bytes[..10].to_vec(),
        bytes[..header_end + 8].to_vec(),
        // The snapshot's bytes garbled.
        [
            &bytes[..header_end + 1],
            &vec![0xff; bytes.len() - header_end - 1][..],
        ]
        .concat(),
        Vec::new(),
    ];
    for (i, bytes) in damaged.iter().enumerate() {
        std::fs::write(&journal, bytes).unwrap();
        // A fresh host reads the journal back; so does this one on its next call.
        for memory in [&Memory::open(f.root()).unwrap(), &f.memory] {
            assert_eq!(
                listed(&memory.memory_view(false).unwrap()),
                want,
                "case {i}"
            );
        }
        f.memory
            .memory_write("d", "d", "d note", NoteType::User, "x")
            .unwrap();
        f.memory.memory_delete("d").unwrap();
        assert_eq!(listed(&f.read("MEMORY.md")), want, "case {i}");
    }
    std::fs::remove_file(&journal).unwrap();
    assert_eq!(
        listed(&Memory::open(f.root()).unwrap().memory_view(false).unwrap()),
        want
    );
}

#[test]
fn an_in_place_edit_by_another_program_shows_within_thirty_seconds() {
    // One backend: edits in place behind memcap's back are a directory's (the database tells every change).
    // Rewritten in place (no directory changes), with an old modification
    // time: only the periodic walk of every file can see it. The bound is
    // stated in the WIT docs; this waits it out once.
    let f = Fixture::directory();
    f.memory
        .memory_write("n.md", "N", "before", NoteType::User, "x")
        .unwrap();
    f.memory.memory_view(false).unwrap();
    // Aged, and read once more as aged stamps are: from here on the
    // stamps are trusted.
    f.later(common::RACY);
    f.memory.memory_view(false).unwrap();
    let path = f.root().join("n.md");
    let text = f.read("n.md").replace("before", "AFTER!");
    let file = std::fs::File::options().write(true).open(&path).unwrap();
    (&file).write_all(text.as_bytes()).unwrap();
    let hour_ago = std::time::SystemTime::now() - std::time::Duration::from_secs(3600);
    file.set_modified(hour_ago).unwrap();
    drop(file);
    // Not before the sweep is due: the directory's stamp says nothing
    // changed.
    assert_eq!(
        listed(&f.memory.memory_view(false).unwrap()),
        ["- [N](n.md) - before"]
    );
    f.later(common::SWEEP);
    assert_eq!(
        listed(&f.memory.memory_view(false).unwrap()),
        ["- [N](n.md) - AFTER!"]
    );
    assert_eq!(
        listed(&f.reopen().prompt().unwrap()),
        ["- [N](n.md) - AFTER!"]
    );
}

#[test]
fn a_walk_one_process_left_unfinished_goes_on_in_the_next() {
    // One backend: the walk of a directory's files.
    // One-shot processes (the CLI, Wassette) each make one call. A walk
    // the time budget stopped had recorded a directory's stamp before
    // listing its subdirectories; the next process trusted the stamp and
    // called the index complete, missing those notes until the 30 s sweep.
    let f = Fixture::directory();
    let limits = memcap::Limits {
        call_timeout: std::time::Duration::from_millis(1000),
        ..memcap::Limits::default()
    };
    let open = || f.builder().limits(limits.clone()).open().unwrap();
    let first = open();
    first
        .create("/memories/first.md", "The first note.\n")
        .unwrap();
    // A walk that reaches every file, on record.
    first.memory_view(false).unwrap();
    drop(first);
    let started = std::time::Instant::now();
    let body = note("Note", "a fact", "project");
    for d in 0..100 {
        let dir = f.root().join(format!("big/d{d:02}"));
        std::fs::create_dir_all(&dir).unwrap();
        for n in 0..200 {
            std::fs::write(dir.join(format!("n{n}.md")), &body).unwrap();
        }
    }
    // Past the two seconds in which stamps are not trusted.
    f.later(common::RACY);
    let mut calls = 0;
    let mut unfinished = 0;
    loop {
        calls += 1;
        let index = open().memory_view(false).unwrap();
        if !index.contains("still reading") {
            break;
        }
        unfinished += 1;
        assert!(calls < 40, "still unfinished after {calls} calls");
    }
    let all = open().memory_view(true).unwrap();
    assert!(
        all.starts_with("20001 notes in /memories:\n"),
        "after {calls} calls ({unfinished} unfinished): {}",
        &all[..all.len().min(100)]
    );
    // Before the sweep would have found them anyway.
    assert!(
        unfinished > 0 && started.elapsed() + common::RACY < std::time::Duration::from_secs(30),
        "{unfinished} unfinished calls in {:?}",
        started.elapsed()
    );
}
