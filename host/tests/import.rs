//! The `import` contract (what `memcap copy` relies on), the same on every
//! backend: entries land as given into an empty store; a store that holds
//! files is refused unless `replace`, which takes everything out first
//! (memcap's derived state too, so it is rebuilt from what lands); and bad
//! entries are refused, naming the path, before anything is changed, so a
//! refused import (even with `replace`) leaves the store as it was.

#[macro_use]
mod common;

use memcap::{CopyError, Entry};

fn file(path: &str, text: &str) -> Entry {
    Entry::File(path.to_owned(), text.as_bytes().to_vec())
}

/// Every directory and file the store holds (memcap's own left out), in
/// path order.
fn tree(f: &common::Fixture) -> Vec<Entry> {
    let mut entries = f.memory.export().unwrap();
    entries.sort_by(|a, b| a.path().cmp(b.path()));
    entries
}

/// [`tree`] without MEMORY.md, which memcap writes after every change.
fn files(f: &common::Fixture) -> Vec<Entry> {
    tree(f)
        .into_iter()
        .filter(|e| e.path() != "MEMORY.md")
        .collect()
}

/// Whether searching for `word` finds the note at `path` (the answer
/// echoes the query, so the path is what tells).
fn search_finds(f: &common::Fixture, word: &str, path: &str) -> bool {
    let result = f.memory.call(
        &serde_json::json!({"command": "memory_search", "query": word, "minScore": 0}).to_string(),
    );
    assert!(!result.is_error, "{}", result.content);
    result.content.contains(path)
}

both_backends! {
fn entries_land_as_given_in_an_empty_store() {
    let f = common::Fixture::new();
    let entries = vec![
        Entry::Dir("empty".into()),
        file("notes/a.md", "alpha\n"),
        file("b.txt", "bravo"),
    ];
    f.memory.import(&entries, false).unwrap();
    assert_eq!(
        tree(&f),
        vec![
            file("b.txt", "bravo"),
            Entry::Dir("empty".into()),
            Entry::Dir("notes".into()),
            file("notes/a.md", "alpha\n"),
        ]
    );
    // What landed is served and indexed like anything written.
    let view = f.memory.view("/memories/notes/a.md", None).unwrap();
    assert!(view.contains("alpha"), "{view}");
    assert!(search_finds(&f, "alpha", "/memories/notes/a.md"));
}
}

both_backends! {
fn a_store_that_holds_files_is_refused_unless_replaced() {
    let f = common::Fixture::new();
    f.memory.create("/memories/old.md", "oldword\n").unwrap();
    let err = f.memory.import(&[file("new.md", "newword\n")], false).unwrap_err();
    assert!(matches!(err, CopyError::NotEmpty), "{err}");
    assert_eq!(files(&f), vec![file("old.md", "oldword\n")]);

    f.memory.import(&[file("new.md", "newword\n")], true).unwrap();
    // Everything went first, MEMORY.md too (the next call writes it anew).
    assert_eq!(tree(&f), vec![file("new.md", "newword\n")]);
    // The indexes were rebuilt from what landed: the old note is not found.
    assert!(search_finds(&f, "newword", "/memories/new.md"));
    assert!(!search_finds(&f, "oldword", "/memories/old.md"));
    let index = f.memory.view("/memories/MEMORY.md", None).unwrap_or_default();
    assert!(!index.contains("old.md"), "{index}");
}
}

both_backends! {
fn bad_entries_are_refused_by_path_and_change_nothing_even_with_replace() {
    let f = common::Fixture::new();
    f.memory.create("/memories/keep.md", "kept\n").unwrap();
    let before = tree(&f);
    let cases: Vec<(Vec<Entry>, &str)> = vec![
        (vec![file(".memcap/journal", "x")], ".memcap/journal"),
        (vec![file("../escape.md", "x")], "../escape.md"),
        (vec![file("/etc/passwd", "x")], "/etc/passwd"),
        (vec![file("a//b.md", "x")], "a//b.md"),
        (vec![file("a/./b.md", "x")], "a/./b.md"),
        (vec![file("nul\0.md", "x")], "nul\0.md"),
        (vec![file("twice.md", "1"), file("twice.md", "2")], "twice.md"),
        (vec![file("both", "x"), Entry::Dir("both".into())], "both"),
        (vec![file("f.md", "x"), file("f.md/under.md", "y")], "f.md/under.md"),
        // A good entry first: nothing of it may land either.
        (vec![file("good.md", "fine"), file("../bad.md", "x")], "../bad.md"),
    ];
    for (entries, named) in cases {
        for replace in [false, true] {
            let err = f.memory.import(&entries, replace).unwrap_err();
            match &err {
                CopyError::Refused(path, _) => assert_eq!(path, named, "{err}"),
                other => panic!("{named:?} (replace {replace}): {other}"),
            }
            assert_eq!(tree(&f), before, "{named:?} (replace {replace}) changed the store");
        }
    }
    assert!(search_finds(&f, "kept", "/memories/keep.md"));
}
}

both_backends! {
fn a_store_exported_and_imported_elsewhere_is_the_same_tree() {
    let from = common::Fixture::new();
    from.memory.create("/memories/a/b/c.md", "deep\n").unwrap();
    from.memory.create("/memories/top.md", "top\n").unwrap();
    from.memory
        .memory_write("people/bob", "Bob", "A colleague", memcap::NoteType::User, "Likes tea.")
        .unwrap();
    let entries = from.memory.export().unwrap();
    let to = common::Fixture::new();
    to.memory.import(&entries, false).unwrap();
    assert_eq!(tree(&to), tree(&from));
}
}
