//! A change through a shared grant is the shared store's: recorded in its
//! own history at once, with the real actor, so a revert there by that
//! actor undoes it. On both backends (a shared directory, a shared
//! namespace).

#[macro_use]
mod common;

use memcap::{Actor, Change, Memory, MemoryBuilder};

/// Alice's store with `team` shared writable, and the team's store as its
/// own host opens it.
struct Shared {
    _dirs: Vec<tempfile::TempDir>,
    alice: Memory,
    /// Alice's store again, with `team` shared read-only.
    alice_read_only: MemoryBuilder,
    team: MemoryBuilder,
}

fn shared() -> Shared {
    if common::on_database() {
        let (alice, team) = (
            common::fresh_namespace("alice"),
            common::fresh_namespace("team"),
        );
        let store = common::test_store();
        Memory::database(&store)
            .namespace(&team)
            .open()
            .unwrap()
            .create("/memories/readme.md", "the team's\n")
            .unwrap();
        let alice_read_only = Memory::database(&store)
            .namespace(&alice)
            .shared("team", &team, true);
        let alice = Memory::database(&store)
            .namespace(&alice)
            .shared("team", &team, false)
            .open()
            .unwrap();
        return Shared {
            _dirs: Vec::new(),
            alice,
            alice_read_only,
            team: Memory::database(&store).namespace(&team),
        };
    }
    let (base, team) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let alice = Memory::builder(base.path())
        .namespace("alice")
        .shared("team", team.path(), false)
        .open()
        .unwrap();
    let alice_read_only =
        Memory::builder(base.path())
            .namespace("alice")
            .shared("team", team.path(), true);
    let builder = Memory::builder(team.path());
    Shared {
        _dirs: vec![base, team],
        alice,
        alice_read_only,
        team: builder,
    }
}

both_backends! {
fn a_change_through_a_shared_grant_is_in_that_stores_history_at_once_with_its_actor() {
    let s = shared();
    s.alice.set_actor(Actor::named("alice"));
    s.alice.create("/memories/shared/team/plan.md", "ship friday\n").unwrap();
    s.alice
        .str_replace("/memories/shared/team/plan.md", "friday", "monday")
        .unwrap();
    // The team's own store, opened as its own host would: both versions,
    // by alice, before any walk of its files.
    let team = s.team.open().unwrap();
    let versions = team.history_list("/memories/plan.md", None, None).unwrap();
    let seen: Vec<(&str, &str)> = versions
        .iter()
        .map(|v| (v.actor.as_str(), v.path.as_str()))
        .collect();
    assert_eq!(seen, [("alice", "/memories/plan.md"); 2]);
    assert_eq!(team.history_show("/memories/plan.md", versions[0].number).unwrap(), b"ship monday\n");
    // So a revert by her puts the team's store back.
    let undone = team.history_revert("1h", Some("alice"), None).unwrap();
    assert_eq!(undone.removed, ["/memories/plan.md"], "{undone:?}");
    assert!(team.view("/memories/plan.md", None).is_err());
    // Alice's own history has none of it.
    assert!(s.alice.history_list("/memories", None, None).unwrap().is_empty());
}
}

both_backends! {
fn a_shared_paths_history_is_read_from_the_store_that_keeps_it() {
    let s = shared();
    s.alice.set_actor(Actor::named("alice"));
    let path = "/memories/shared/team/plan.md";
    s.alice.create(path, "ship friday\nwith tests\n").unwrap();
    s.alice.set_actor(Actor::named("bob"));
    s.alice.str_replace(path, "friday", "monday").unwrap();
    // Listed, shown and blamed as the caller names the path.
    let versions = s.alice.history_list(path, None, None).unwrap();
    let seen: Vec<(&str, &str)> = versions
        .iter()
        .map(|v| (v.actor.as_str(), v.path.as_str()))
        .collect();
    assert_eq!(seen, [("bob", path), ("alice", path)]);
    let recent = s.alice.history_recent(path, None, 10).unwrap();
    assert_eq!(recent.len(), 2);
    assert_eq!(recent[0].path, path);
    assert_eq!(
        s.alice.history_show(path, versions[1].number).unwrap(),
        b"ship friday\nwith tests\n"
    );
    let blame = s.alice.history_blame(path).unwrap();
    let owner = |line: usize| &blame.owners[blame.lines[line].owner as usize].actor;
    assert_eq!((owner(0).as_str(), owner(1).as_str()), ("bob", "alice"));
    // The agent's own view says the same.
    let listed = s.alice.memory_history(path, None, None).unwrap();
    assert!(listed.contains("bob") && listed.contains("alice"), "{listed}");
    let old = s.alice.memory_history(path, Some(versions[1].number), None).unwrap();
    assert!(old.contains("ship friday"), "{old}");
    // A path of the caller's own is its own history still.
    s.alice.create("/memories/mine.md", "x\n").unwrap();
    let mine = s.alice.history_list("/memories/mine.md", None, None).unwrap();
    assert_eq!(mine.len(), 1);
}
}

both_backends! {
fn a_shared_path_is_restored_from_the_version_its_own_store_numbers() {
    let s = shared();
    s.alice.set_actor(Actor::named("alice"));
    // Alice's own history numbers its versions apart from the team's.
    for i in 0..3 {
        s.alice.create(&format!("/memories/own-{i}.md"), "mine\n").unwrap();
    }
    let path = "/memories/shared/team/plan.md";
    s.alice.create(path, "ship friday\n").unwrap();
    s.alice.set_actor(Actor::named("bob"));
    s.alice.str_replace(path, "friday", "monday").unwrap();
    let versions = s.alice.history_list(path, None, None).unwrap();
    let first = versions.last().unwrap().number;
    // Alice's own history has a version of that number, of another file.
    assert!(s.alice.history_list("/memories", None, None).unwrap().iter().any(|v| v.number == first));
    s.alice.set_actor(Actor::named("carol"));
    let undone = s.alice.history_restore(path, first, None).unwrap();
    assert_eq!(undone.restored, [path], "{undone:?}");
    assert!(s.alice.view(path, None).unwrap().contains("ship friday"));
    // The restore is a version of the team's store, by carol.
    let team = s.team.open().unwrap();
    let newest = &team.history_list("/memories/plan.md", None, None).unwrap()[0];
    assert_eq!((newest.actor.as_str(), newest.change), ("carol", Change::Restored));
    // The whole shared folder as of then: what was made since is left.
    s.alice.create("/memories/shared/team/later.md", "later\n").unwrap();
    s.alice.str_replace(path, "friday", "sunday").unwrap();
    let undone = s.alice.history_restore("/memories/shared/team", first, None).unwrap();
    assert_eq!(undone.restored, [path], "{undone:?}");
    assert!(s.alice.view(path, None).unwrap().contains("ship friday"));
    assert!(s.alice.view("/memories/shared/team/later.md", None).is_ok());
    // Through a read-only grant the restore is refused, and nothing moves.
    s.alice.str_replace(path, "friday", "sunday").unwrap();
    let read_only = s.alice_read_only.open().unwrap();
    let refused = read_only.history_restore(path, first, None).unwrap_err();
    assert!(refused.message.contains("read-only"), "{}", refused.message);
    assert!(s.alice.view(path, None).unwrap().contains("ship sunday"));
}
}
