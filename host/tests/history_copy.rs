//! `memcap copy` and the version history, on both backends: a copy takes
//! every version along (actor, time, content, redactions), `--no-history`
//! leaves it behind, a store that keeps a history of its own is not mixed
//! with another, and `copy --replace` is undone by one `history revert`.
//! `database.rs` moves a store directory → PostgreSQL → directory.

#[macro_use]
mod common;

use common::{Fixture, Node, memcap_run as memcap};
use memcap::Actor;

/// The whole history of a store, as every host reads it.
fn versions(f: &Fixture) -> Vec<String> {
    f.memory
        .history_list("/memories", None, None)
        .unwrap()
        .iter()
        .map(|v| format!("{v:?}"))
        .collect()
}

/// The files a person wrote (MEMORY.md is generated and never versioned;
/// a directory a revert empties stays, as after any deletion).
fn files(f: &Fixture) -> Vec<(String, Node)> {
    f.snapshot(false)
        .into_iter()
        .filter(|(path, node)| path != "MEMORY.md" && !matches!(node, Node::Dir))
        .collect()
}

/// A store with a history of every kind of change, by two actors, and a
/// redacted content.
fn written(f: &Fixture) {
    let m = &f.memory;
    m.set_actor(Actor::named("ada"));
    m.create("/memories/a.md", "secret one\n").unwrap();
    m.set_actor(Actor::named("bob"));
    m.str_replace("/memories/a.md", "secret one", "two")
        .unwrap();
    m.create("/memories/b.md", "bee\n").unwrap();
    m.rename("/memories/b.md", "/memories/deep/c.md").unwrap();
    m.create("/memories/gone.md", "gone\n").unwrap();
    m.delete("/memories/gone.md").unwrap();
    let redacted = m.history_redact("/memories/a.md", Some(1), None).unwrap();
    assert_eq!(redacted.versions, [1]);
}

both_backends! {
processes fn a_copy_carries_every_version_with_its_actor_time_and_content() {
    let src = Fixture::new();
    written(&src);
    let dst = Fixture::new();
    let (code, out, err) = memcap(&["copy", &src.copy_spec(), &dst.copy_spec()]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("with its history"), "{out}");
    let held = versions(&src);
    assert_eq!(held.len(), 6, "{held:#?}");
    assert_eq!(versions(&dst), held);
    assert_eq!(files(&dst), files(&src));
    // Each kept content reads back; the redacted one stays erased.
    let dst = dst.reopen();
    assert_eq!(dst.history_show("/memories/a.md", 2).unwrap(), b"two\n");
    assert_eq!(dst.history_show("/memories/gone.md", 5).unwrap(), b"gone\n");
    assert!(dst.history_show("/memories/a.md", 1).is_err());
    // And the copy goes on from there: its next version is the seventh.
    dst.set_actor(Actor::named("cy"));
    dst.create("/memories/new.md", "new\n").unwrap();
    let newest = &dst.history_recent("/memories", None, 1).unwrap()[0];
    assert_eq!((newest.number, newest.actor.as_str()), (7, "cy"));
}
}

both_backends! {
processes fn a_copy_without_history_records_the_arrivals_by_whoever_copied() {
    let src = Fixture::new();
    written(&src);
    let dst = Fixture::new();
    let (code, out, err) = memcap(&[
        "--actor", "mover", "copy", "--no-history", &src.copy_spec(), &dst.copy_spec(),
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("without its history"), "{out}");
    let arrived = dst.memory.history_list("/memories", None, None).unwrap();
    let mut paths: Vec<&str> = arrived.iter().map(|v| v.path.as_str()).collect();
    paths.sort();
    assert_eq!(paths, ["/memories/a.md", "/memories/deep/c.md"]);
    assert!(arrived.iter().all(|v| v.actor == "mover"), "{arrived:#?}");
}
}

both_backends! {
processes fn a_store_with_a_history_of_its_own_is_not_mixed_with_anothers() {
    let src = Fixture::new();
    written(&src);
    let dst = Fixture::new();
    dst.memory.create("/memories/old.md", "old\n").unwrap();
    dst.memory.delete("/memories/old.md").unwrap();
    // Emptied of files (the generated index too), it still keeps a history.
    dst.remove("MEMORY.md");
    let before = versions(&dst);
    let (code, _, err) = memcap(&["copy", &src.copy_spec(), &dst.copy_spec()]);
    assert_ne!(code, 0, "copied over a history");
    assert!(err.contains("--no-history"), "{err}");
    assert!(files(&dst).is_empty());
    assert_eq!(versions(&dst), before);
    let (code, _, err) = memcap(&["copy", "--no-history", &src.copy_spec(), &dst.copy_spec()]);
    assert_eq!(code, 0, "{err}");
    let after = versions(&dst);
    assert_eq!(&after[after.len() - 2..], &before[..], "its own history is kept");
}
}

both_backends! {
processes fn copy_replace_is_undone_by_one_revert() {
    let src = Fixture::new();
    written(&src);
    let dst = Fixture::new();
    let m = &dst.memory;
    m.create("/memories/a.md", "mine\n").unwrap();
    m.str_replace("/memories/a.md", "mine", "mine, edited").unwrap();
    m.create("/memories/keep/k.md", "kept\n").unwrap();
    // Another program's edit the history has not seen yet comes back too.
    dst.plant("unseen.md", "written by another program\n");
    let before = files(&dst);
    let (code, out, err) = memcap(&[
        "--actor", "mover", "copy", "--replace", &src.copy_spec(), &dst.copy_spec(),
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("records the replacement"), "{out}");
    assert_eq!(files(&dst), files(&src));
    let mut args: Vec<String> = dst.cli_args();
    args.extend(["history", "revert", "--since", "1h", "--by", "mover"].map(String::from));
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let (code, out, err) = memcap(&args);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("removed   /memories/deep/c.md"), "{out}");
    assert_eq!(files(&dst), before);
}
}

both_backends! {
processes fn a_packed_history_is_carried_whole() {
    let src = Fixture::new();
    let body = |i: usize| format!("fact {i}: kept in a segment once packed\n");
    for i in 0..300 {
        src.memory.create(&format!("/memories/p/{i}.md"), &body(i)).unwrap();
    }
    // Packed at the 256th version: the contents are in a segment now.
    assert!(src.memory.host_read(".memcap/history/packs/index").unwrap().is_some());
    let dst = Fixture::new();
    let (code, _, err) = memcap(&["copy", &src.copy_spec(), &dst.copy_spec()]);
    assert_eq!(code, 0, "{err}");
    let dst = dst.reopen();
    for i in (0..300).step_by(13) {
        let path = format!("/memories/p/{i}.md");
        let v = dst.history_list(&path, None, None).unwrap()[0].number;
        assert_eq!(dst.history_show(&path, v).unwrap(), body(i).as_bytes());
    }
}
}
