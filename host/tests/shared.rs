//! Namespaces and shared directories: a store is one user's directory under
//! a base, and a shared directory is granted beside it as
//! `/memories/shared/NAME`, its own preopen with its own lock.

use std::path::Path;

use memcap::{Memory, OpenError, ToolErrorKind};

fn open(base: &Path, namespace: &str, shared: &[(&str, &Path, bool)]) -> Memory {
    let mut builder = Memory::builder(base).namespace(namespace);
    for (name, dir, read_only) in shared {
        builder = builder.shared(*name, dir, *read_only);
    }
    builder.open().unwrap()
}

#[test]
fn a_namespace_is_one_directory_under_the_base() {
    let base = tempfile::tempdir().unwrap();
    let alice = open(base.path(), "alice", &[]);
    alice.create("/memories/a.md", "alice's").unwrap();
    assert_eq!(
        std::fs::read_to_string(base.path().join("alice/a.md")).unwrap(),
        "alice's"
    );
    let bob = open(base.path(), "bob", &[]);
    assert!(bob.view("/memories", None).unwrap().lines().count() == 2);
    let e = bob.view("/memories/../alice/a.md", None).unwrap_err();
    assert_eq!(e.kind, ToolErrorKind::Escape);
}

#[test]
fn namespace_and_shared_names_that_could_name_another_directory_are_refused() {
    let base = tempfile::tempdir().unwrap();
    for bad in [
        "../bob",
        "..",
        ".",
        "",
        "a/b",
        "%2e%2e",
        "\u{ff0e}\u{ff0e}",
        ".hidden",
    ] {
        let e = Memory::builder(base.path()).namespace(bad).open().err();
        assert!(matches!(e, Some(OpenError::BadName { .. })), "{bad:?}");
        let e = Memory::builder(base.path())
            .shared(bad, base.path(), false)
            .open()
            .err();
        assert!(matches!(e, Some(OpenError::BadName { .. })), "{bad:?}");
    }
    assert_eq!(std::fs::read_dir(base.path()).unwrap().count(), 0);
}

#[test]
fn a_shared_directory_is_written_in_place_and_seen_by_every_user() {
    let base = tempfile::tempdir().unwrap();
    let team = tempfile::tempdir().unwrap();
    let alice = open(base.path(), "alice", &[("team", team.path(), false)]);
    let bob = open(base.path(), "bob", &[("team", team.path(), false)]);
    alice
        .create("/memories/shared/team/plan.md", "ship friday\n")
        .unwrap();
    assert_eq!(
        std::fs::read_to_string(team.path().join("plan.md")).unwrap(),
        "ship friday\n"
    );
    bob.str_replace("/memories/shared/team/plan.md", "friday", "monday")
        .unwrap();
    assert!(
        alice
            .view("/memories/shared/team/plan.md", None)
            .unwrap()
            .contains("ship monday")
    );
    // Each user's index lists the shared note; their own notes stay theirs.
    alice.create("/memories/mine.md", "alice only\n").unwrap();
    let listing = bob.memory_view(true).unwrap();
    assert!(
        listing.contains("/memories/shared/team/plan.md"),
        "{listing}"
    );
    assert!(!listing.contains("mine.md"), "{listing}");
    // The shared directory's writes are staged in its own .memcap.
    assert!(team.path().join(".memcap/tmp").is_dir());
    assert!(!base.path().join("alice/shared").exists());
}

#[test]
fn mount_points_cannot_be_removed_and_nothing_moves_across_grants() {
    let base = tempfile::tempdir().unwrap();
    let team = tempfile::tempdir().unwrap();
    let alice = open(base.path(), "alice", &[("team", team.path(), false)]);
    alice
        .create("/memories/shared/team/keep.md", "keep\n")
        .unwrap();
    alice.create("/memories/own.md", "own\n").unwrap();
    for path in ["/memories/shared", "/memories/shared/team"] {
        let e = alice.delete(path).unwrap_err();
        assert_eq!(e.kind, ToolErrorKind::Protected, "{}", e.message);
        let e = alice.rename(path, "/memories/elsewhere").unwrap_err();
        assert_eq!(e.kind, ToolErrorKind::Protected, "{}", e.message);
    }
    assert!(team.path().join("keep.md").exists());
    let e = alice
        .rename("/memories/own.md", "/memories/shared/team/own.md")
        .unwrap_err();
    assert_eq!(e.kind, ToolErrorKind::InvalidPath, "{}", e.message);
    assert!(e.message.contains("Create the file at the new place"));
    let e = alice
        .rename("/memories/shared/team/keep.md", "/memories/keep.md")
        .unwrap_err();
    assert_eq!(e.kind, ToolErrorKind::InvalidPath, "{}", e.message);
    assert!(base.path().join("alice/own.md").exists());
    assert!(team.path().join("keep.md").exists());
    let e = alice.create("/memories/shared/loose.md", "x").unwrap_err();
    assert_eq!(e.kind, ToolErrorKind::Protected, "{}", e.message);
    // A shared directory's own files are memcap's, as the root's are.
    let e = alice
        .view("/memories/shared/team/.memcap/lock", None)
        .unwrap_err();
    assert_eq!(e.kind, ToolErrorKind::InvalidPath, "{}", e.message);
}

#[test]
fn a_read_only_shared_directory_is_read_and_never_changed() {
    let base = tempfile::tempdir().unwrap();
    let docs = tempfile::tempdir().unwrap();
    std::fs::write(docs.path().join("guide.md"), "# Guide\n").unwrap();
    let alice = open(base.path(), "alice", &[("docs", docs.path(), true)]);
    assert!(
        alice
            .view("/memories/shared/docs/guide.md", None)
            .unwrap()
            .contains("# Guide")
    );
    let e = alice
        .create("/memories/shared/docs/new.md", "x")
        .unwrap_err();
    assert_eq!(e.kind, ToolErrorKind::Io, "{}", e.message);
    assert!(e.message.contains("read-only"), "{}", e.message);
    alice
        .str_replace("/memories/shared/docs/guide.md", "Guide", "Mine")
        .unwrap_err();
    alice.delete("/memories/shared/docs/guide.md").unwrap_err();
    assert_eq!(
        std::fs::read_to_string(docs.path().join("guide.md")).unwrap(),
        "# Guide\n"
    );
    // Nothing of memcap's is made in a directory granted read-only.
    let names: Vec<_> = std::fs::read_dir(docs.path())
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(names, vec!["guide.md"]);
}

#[test]
fn a_missing_shared_directory_is_named_at_open() {
    let base = tempfile::tempdir().unwrap();
    let e = Memory::builder(base.path())
        .shared("team", base.path().join("nope"), false)
        .open()
        .err()
        .unwrap();
    assert!(matches!(e, OpenError::SharedMissing { .. }), "{e}");
}

#[test]
fn changed_paths_reach_the_index_at_once() {
    let base = tempfile::tempdir().unwrap();
    let clock = memcap::TestClock::new();
    let alice = Memory::builder(base.path())
        .namespace("alice")
        .clock(clock.clone())
        .open()
        .unwrap();
    let file = base.path().join("alice/a.md");
    std::fs::write(
        &file,
        "---\nname: A\ndescription: first words\ntype: user\n---\nbody\n",
    )
    .unwrap();
    assert!(alice.memory_view(false).unwrap().contains("first words"));
    // Stamps younger than two seconds are never trusted (file times tick
    // coarsely, whole seconds here): once they have aged, the catalog
    // trusts them. Two seconds and a margin, in whole seconds.
    clock.advance(std::time::Duration::from_millis(3_100));
    assert!(alice.memory_view(false).unwrap().contains("first words"));
    // An edit in place, its time set back: the directory's stamp does not
    // move, so without a report the index keeps the old description.
    let text = std::fs::read_to_string(&file)
        .unwrap()
        .replace("first words", "other words");
    let seen = std::fs::metadata(&file).unwrap().modified().unwrap();
    std::fs::write(&file, text).unwrap();
    std::fs::File::open(&file)
        .unwrap()
        .set_modified(seen)
        .unwrap();
    assert!(alice.memory_view(false).unwrap().contains("first words"));
    alice.changed(&["/memories/a.md".to_owned()]).unwrap();
    let index = alice.memory_view(false).unwrap();
    assert!(index.contains("other words"), "{index}");
}
