//! Pages on demand on PostgreSQL (`tests/postgres/with-cluster`): a new
//! host's first call reads the entries and only the files it opens; what
//! it answers and what it writes (into files it never read whole, or over
//! several pages) is what a host that read everything would answer and
//! write, and its next call sees what other hosts changed meanwhile.

use std::sync::atomic::{AtomicUsize, Ordering};

use memcap::Memory;

fn open(ns: &str) -> Memory {
    let store = std::env::var("MEMCAP_TEST_STORE")
        .expect("MEMCAP_TEST_STORE is not set: run through tests/postgres/with-cluster");
    Memory::database(&store).namespace(ns).open().unwrap()
}

fn namespace() -> String {
    static NEXT: AtomicUsize = AtomicUsize::new(0);
    format!(
        "pages-{}-{}",
        std::process::id(),
        NEXT.fetch_add(1, Ordering::Relaxed)
    )
}

/// 3,000 numbered lines: about five 16 KB pages.
fn big() -> String {
    (0..3000)
        .map(|i| format!("line {i:05} of the big note\n"))
        .collect()
}

#[test]
#[ignore = "needs PostgreSQL: tests/postgres/with-cluster cargo test -p memcap-host -- --ignored"]
fn first_calls_read_what_they_open_and_write_whole_files() {
    let ns = namespace();
    let writer = open(&ns);
    writer.create("/memories/big.md", &big()).unwrap();
    for i in 0..40 {
        writer
            .create(&format!("/memories/n/{i}.md"), &format!("note {i}\n"))
            .unwrap();
    }
    let everything = open(&ns);
    let listing = everything.view("/memories", None).unwrap();

    // A read first: a range deep in the big note, and the listing.
    let reader = open(&ns);
    let tail = reader.view("/memories/big.md", Some((2999, 3000))).unwrap();
    assert!(
        tail.contains("line 02998") && tail.contains("line 02999"),
        "{tail}"
    );
    assert_eq!(reader.view("/memories", None).unwrap(), listing);

    // A write first, into a file the host never read whole: the middle
    // page changes, the others are kept.
    let editor = open(&ns);
    editor
        .str_replace(
            "/memories/big.md",
            "line 01500 of",
            "line 01500 (edited) of",
        )
        .unwrap();
    let fresh = open(&ns);
    let shown = fresh.view("/memories/big.md", Some((1500, 1502))).unwrap();
    assert!(shown.contains("line 01500 (edited) of"), "{shown}");
    let whole = fresh.host_read("big.md").unwrap().unwrap();
    assert_eq!(
        String::from_utf8(whole).unwrap(),
        big().replace("line 01500 of", "line 01500 (edited) of")
    );

    // An append first (a write at the end of a paged file), then a call on
    // the same host after another host's change: it sees that change.
    let appender = open(&ns);
    appender.insert("/memories/n/7.md", 1, "appended").unwrap();
    writer
        .create("/memories/n/later.md", "made elsewhere\n")
        .unwrap();
    writer
        .str_replace("/memories/n/3.md", "note 3", "note three")
        .unwrap();
    assert!(
        appender
            .view("/memories/n/later.md", None)
            .unwrap()
            .contains("made elsewhere")
    );
    assert!(
        appender
            .view("/memories/n/3.md", None)
            .unwrap()
            .contains("note three")
    );
    let seven = open(&ns).host_read("n/7.md").unwrap().unwrap();
    assert_eq!(seven, b"note 7\nappended\n");

    // A lookup too deep to name row by row reads the whole tree instead,
    // and answers as any lookup does.
    let deep = format!("/memories/{}x.md", "d/".repeat(70));
    let e = open(&ns).view(&deep, None).unwrap_err();
    assert_eq!(e.kind, memcap::ToolErrorKind::NotFound, "{e:?}");

    // Copying a namespace out first reads every file.
    let exported = open(&ns).export().unwrap();
    let files = exported
        .iter()
        .filter(|e| matches!(e, memcap::Entry::File(..)))
        .count();
    assert!(files >= 42, "{files} files copied out");
}

/// The listing of `/memories`, a directory's size left out (a file
/// system's own, 4K in the database).
fn listing(memory: &Memory) -> Vec<String> {
    let shown = memory.view("/memories", None).unwrap();
    shown
        .lines()
        .map(|line| match line.split_once('\t') {
            Some((_, path)) if path.ends_with('/') || path == "/memories" => path.to_owned(),
            _ => line.to_owned(),
        })
        .collect()
}

/// Each step on a host of its own (a first call: the tree holds only the
/// rows it names) and the same step on a directory: the answers, and the
/// tree and files left, are the same.
#[test]
#[ignore = "needs PostgreSQL: tests/postgres/with-cluster cargo test -p memcap-host -- --ignored"]
fn first_calls_change_what_they_name_as_a_whole_tree_would() {
    let ns = namespace();
    let dir = tempfile::tempdir().unwrap();
    let local = Memory::open(dir.path()).unwrap();
    type Step = fn(&Memory) -> Result<String, memcap::ToolError>;
    let steps: Vec<(&str, Step)> = vec![
        ("create", |m| m.create("/memories/a/one.md", "one\n")),
        ("create beside", |m| m.create("/memories/a/two.md", "two\n")),
        ("create deeper", |m| {
            m.create("/memories/a/b/c/three.md", "three\n")
        }),
        ("create over", |m| {
            m.create("/memories/a/one.md", "one again\n")
        }),
        ("edit", |m| m.str_replace("/memories/a/two.md", "two", "2")),
        ("append", |m| m.insert("/memories/a/two.md", 1, "more")),
        ("rename a file", |m| {
            m.rename("/memories/a/one.md", "/memories/x/one.md")
        }),
        ("rename onto a file", |m| {
            m.rename("/memories/a/two.md", "/memories/x/one.md")
        }),
        ("rename a directory", |m| {
            m.rename("/memories/a/b", "/memories/y")
        }),
        ("delete a file", |m| m.delete("/memories/y/c/three.md")),
        ("delete a directory", |m| m.delete("/memories/y")),
        ("create where one went", |m| {
            m.create("/memories/a/one.md", "back\n")
        }),
    ];
    for (what, step) in steps {
        let here = step(&open(&ns)).map_err(|e| e.message);
        let there = step(&local).map_err(|e| e.message);
        assert_eq!(here, there, "{what}");
        assert_eq!(
            listing(&open(&ns)),
            listing(&local),
            "the tree after {what}"
        );
        for path in ["a/one.md", "a/two.md", "x/one.md", "y/c/three.md"] {
            let file = format!("/memories/{path}");
            assert_eq!(
                open(&ns).view(&file, None).map_err(|e| e.message),
                local.view(&file, None).map_err(|e| e.message),
                "{path} after {what}"
            );
        }
    }
}
