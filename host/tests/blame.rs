//! Blame through the real component, on every backend: each line of a
//! note is owned by the version and actor that last changed it, through
//! edits by three actors, a restore and a rename; `memcap history blame`
//! prints it, as lines or JSON, a note's control characters escaped.

#[macro_use]
mod common;

use common::Fixture;
use memcap::{Actor, BlameAnswer};

/// (line, actor, exact) of every line.
fn owners(b: &BlameAnswer) -> Vec<(String, String, bool)> {
    b.lines
        .iter()
        .map(|l| {
            let o = &b.owners[l.owner as usize];
            (l.text.clone(), o.actor.clone(), o.exact)
        })
        .collect()
}

both_backends! {
fn each_line_is_owned_by_its_last_writer_through_a_restore_and_a_rename() {
    let f = Fixture::new();
    let m = &f.memory;
    m.set_actor(Actor::named("alice"));
    m.create("/memories/a.md", "one\ntwo\nthree\n").unwrap();
    m.set_actor(Actor { name: "bob".into(), id: Some("tok-b".into()) });
    m.str_replace("/memories/a.md", "two", "TWO").unwrap();
    let bobs = m.history_list("/memories/a.md", None, None).unwrap()[0].number;
    m.set_actor(Actor::named("carol"));
    m.insert("/memories/a.md", 3, "four").unwrap();
    // Dave takes carol's line out by restoring bob's version: the lines it
    // brings back as they were keep their owners.
    m.set_actor(Actor::named("dave"));
    m.history_restore("/memories/a.md", bobs, None).unwrap();
    m.set_actor(Actor::named("erin"));
    m.str_replace("/memories/a.md", "three", "3").unwrap();
    m.rename("/memories/a.md", "/memories/b.md").unwrap();
    let l = |t: &str, a: &str| (t.to_owned(), a.to_owned(), true);
    let b = m.history_blame("/memories/b.md").unwrap();
    assert_eq!(owners(&b), [l("one", "alice"), l("TWO", "bob"), l("3", "erin")]);
    let bob = &b.owners[b.lines[1].owner as usize];
    assert_eq!((bob.version, bob.actor_id.as_deref()), (Some(bobs), Some("tok-b")));
    assert!(bob.time.as_deref().is_some_and(|t| t.ends_with('Z')), "{bob:?}");
    // Another process reads the same.
    let other = f.reopen();
    assert_eq!(owners(&other.history_blame("/memories/b.md").unwrap()), owners(&b));
    let e = m.history_blame("/memories/a.md").unwrap_err();
    assert!(e.message.contains("does not exist"), "{}", e.message);
}
}

both_backends! {
processes fn history_blame_prints_each_line_with_its_owner() {
    let f = Fixture::new();
    let m = &f.memory;
    m.set_actor(Actor::named("alice"));
    m.create("/memories/a.md", "one\ntwo\n").unwrap();
    m.set_actor(Actor::named("mallory"));
    m.str_replace("/memories/a.md", "two", "\u{1b}[2Jtrust me").unwrap();
    let run = |args: &[&str]| {
        let out = common::spawn_memcap(f.cli_args().iter().map(String::as_str).chain(args.iter().copied()))
            .wait_with_output()
            .unwrap();
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        String::from_utf8(out.stdout).unwrap()
    };
    let text = run(&["history", "blame", "/memories/a.md"]);
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 2, "{text}");
    assert!(lines[0].contains("alice") && lines[0].ends_with("1| one"), "{text}");
    assert!(
        lines[1].contains("mallory") && lines[1].ends_with("2| \\u{1b}[2Jtrust me"),
        "{text}"
    );
    assert!(!text.contains('\u{1b}'), "{text}");
    let json = run(&["history", "blame", "/memories/a.md", "--json"]);
    let rows: Vec<serde_json::Value> =
        json.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    assert_eq!(rows.len(), 2);
    assert_eq!(rows[1]["text"], "\u{1b}[2Jtrust me");
    assert_eq!(rows[1]["actor"], "mallory");
    assert_eq!(rows[1]["line"], 2);
    assert_eq!(rows[1]["exact"], true);
    assert_eq!(rows[0]["actor"], "alice");
    assert!(rows[0]["version"].as_u64().unwrap() < rows[1]["version"].as_u64().unwrap());
}
}
