//! `memory_review` through the real component, on every backend: what
//! needs a decision, for the asking actor, and nothing changed by asking.

#[macro_use]
mod common;

use common::Fixture;
use memcap::Actor;

both_backends! {
fn a_review_names_duplicates_and_what_others_changed_and_changes_nothing() {
    let f = Fixture::new();
    let m = &f.memory;
    m.set_actor(Actor::named("alice"));
    m.create("/memories/a.md", "---\nname: Deploy target\ndescription: one\n---\neu-1\n").unwrap();
    m.create("/memories/b.md", "---\nname: deploy target\ndescription: two\n---\neu-1\n").unwrap();
    m.create("/memories/old.md", "---\nname: Old\ndescription: x\nvalid_until: 2020-01-01\n---\nA.\n").unwrap();
    m.set_actor(Actor::named("bob"));
    m.str_replace("/memories/b.md", "eu-1", "us-2").unwrap();
    let versions = m.history_list("/memories", None, None).unwrap().len();
    m.set_actor(Actor::named("alice"));
    let text = m.memory_review(None).unwrap();
    assert!(text.contains("- /memories/a.md, /memories/b.md (same title: \"Deploy target\")"), "{text}");
    assert!(text.contains("- /memories/old.md (valid_until 2020-01-01)"), "{text}");
    assert!(text.contains("- /memories/b.md (modified by bob at "), "{text}");
    assert!(!text.contains("created by alice"), "{text}");
    // Bob sees alice's, not his own.
    m.set_actor(Actor::named("bob"));
    let text = m.memory_review(Some("1d")).unwrap();
    assert!(text.contains("/memories/old.md (created by alice"), "{text}");
    assert!(!text.contains("by bob"), "{text}");
    assert_eq!(m.history_list("/memories", None, None).unwrap().len(), versions);
    assert_eq!(f.read("b.md"), "---\nname: deploy target\ndescription: two\n---\nus-2\n");
    let e = m.memory_review(Some("whenever")).unwrap_err();
    assert!(e.message.contains("timeframe"), "{}", e.message);
}
}

both_backends! {
fn notes_that_say_one_thing_in_other_words_are_likely_duplicates() {
    let f = Fixture::new();
    let m = &f.memory;
    let note = |path: &str, name: &str, description: &str| {
        let text = format!("---\nname: {name}\ndescription: {description}\n---\nx\n");
        m.create(path, &text).unwrap();
    };
    note("/memories/standup.md", "Standup time", "Daily standup is at 9:30");
    note("/memories/meeting.md", "Standup", "Daily standup at 9:30 in room 4");
    note("/memories/retro.md", "Retro time", "The retro is on Fridays at 4pm");
    note("/memories/coffee.md", "Coffee", "Alice likes oat milk in her coffee");
    let text = m.memory_review(None).unwrap();
    assert!(
        text.contains("- /memories/meeting.md, /memories/standup.md (same meaning: \""),
        "{text}"
    );
    assert!(text.contains("Likely duplicates (1;"), "{text}");
    // Decided: the kept note supersedes the other, and the pair leaves.
    m.str_replace("/memories/standup.md", "x\n", "x\n\n- supersedes [[meeting]]\n")
        .unwrap();
    let text = m.memory_review(None).unwrap();
    assert!(!text.contains("same meaning"), "{text}");
}
}
