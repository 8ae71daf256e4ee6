//! A change through a shared grant is the shared store's: recorded in its
//! own history at once, with the real actor, so a revert there by that
//! actor undoes it. On both backends (a shared directory, a shared
//! namespace).

#[macro_use]
mod common;

use memcap::{Actor, Memory, MemoryBuilder};

/// Alice's store with `team` shared writable, and the team's store as its
/// own host opens it.
struct Shared {
    _dirs: Vec<tempfile::TempDir>,
    alice: Memory,
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
        let alice = Memory::database(&store)
            .namespace(&alice)
            .shared("team", &team, false)
            .open()
            .unwrap();
        return Shared {
            _dirs: Vec::new(),
            alice,
            team: Memory::database(&store).namespace(&team),
        };
    }
    let (base, team) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let alice = Memory::builder(base.path())
        .namespace("alice")
        .shared("team", team.path(), false)
        .open()
        .unwrap();
    let builder = Memory::builder(team.path());
    Shared {
        _dirs: vec![base, team],
        alice,
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
