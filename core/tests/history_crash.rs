//! A redaction stopped after any one of its changes (the in-memory store
//! refuses every change after the N-th, as a killed process makes none)
//! leaves every other version reading back, and the same redaction run
//! again leaves neither the secret content nor the secret name in any
//! file. `host/tests/crash_history.rs` kills real processes at random
//! times; this walks every crash point, one by one.

mod common;

use common::Store;
use memcap_core::Io;
use memcap_core::history::host as history;
use serde_json::json;

const SECRET: &str = "Kx9-redact-me-7731";
const NAME: &str = "/memories/vault-Qz4name.md";

/// The secret in a packed version and in a loose one, of a file deleted
/// since (so redacting every version may erase its name too).
fn store_with_a_secret() -> Store {
    let s = Store::new();
    let once = |text: &str| {
        s.ok(json!({"command": "create", "path": NAME, "file_text": text}));
        s.ok(json!({"command": "delete", "path": NAME}));
    };
    once(&format!("key {SECRET} one\n"));
    for i in 0..300 {
        s.ok(json!({"command": "create", "path": format!("/memories/f/{i}.md"), "file_text": format!("{i}\n")}));
    }
    once(&format!("key {SECRET} two\n"));
    s
}

/// Every file whose path or bytes hold the secret content or name.
fn holding(s: &Store) -> Vec<String> {
    let name = NAME.trim_start_matches("/memories/");
    s.fs.files()
        .into_iter()
        .filter(|(path, bytes)| {
            let text = String::from_utf8_lossy(bytes);
            path.contains(name) || text.contains(SECRET) || text.contains(name)
        })
        .map(|(path, _)| path)
        .collect()
}

fn others_read_back(s: &Store, when: &str) {
    let io = Io::new(&s.fs, &s.env, &s.indexes);
    for i in (0..300).step_by(23) {
        let path = format!("/memories/f/{i}.md");
        let listed = history::list(&io, &path, None, None).unwrap();
        let first = listed.last().expect(when);
        let shown = history::show(&io, &path, first.v).unwrap();
        assert_eq!(shown, format!("{i}\n").as_bytes(), "{path} {when}");
    }
}

#[test]
fn a_redaction_stopped_after_any_change_is_finished_by_running_it_again() {
    let mut points = 0;
    for changes in 0.. {
        let s = store_with_a_secret();
        assert!(!holding(&s).is_empty());
        s.fs.stop_after(Some(changes));
        let first = history::redact(&Io::new(&s.fs, &s.env, &s.indexes), NAME, None);
        let stopped = s.fs.stopped();
        s.fs.stop_after(None);
        let when = format!("stopped after {changes} changes");
        if !stopped {
            // The whole redaction fits: the last crash point was walked.
            first.unwrap();
            assert_eq!(holding(&s), Vec::<String>::new());
            break;
        }
        points += 1;
        // A new process on what the stopped one left: it works, and the
        // same redaction finishes the job.
        s.restarted();
        s.ok(json!({"command": "create", "path": "/memories/probe.md", "file_text": "p\n"}));
        others_read_back(&s, &when);
        let io = Io::new(&s.fs, &s.env, &s.indexes);
        history::redact(&io, NAME, None).unwrap();
        assert_eq!(holding(&s), Vec::<String>::new(), "{when}");
        others_read_back(&s, &when);
        assert!(
            s.ok(json!({"command": "view", "path": "/memories"}))
                .contains("probe.md")
        );
    }
    // Forgetting the derived state, erasing two contents (one packed, one
    // loose) and rewriting the log are several changes.
    assert!(points >= 4, "{points} crash points");
}

/// The newest version of `path` holds what the file holds now (or, for a
/// file that is not there, is a deletion or there is none).
fn history_holds(s: &Store, path: &str, when: &str) {
    let io = Io::new(&s.fs, &s.env, &s.indexes);
    let now = s.file(path.trim_start_matches("/memories/"));
    let listed = history::list(&io, path, None, None).unwrap_or_default();
    match (listed.first(), now) {
        (Some(newest), Some(text)) => {
            let shown = history::show(&io, path, newest.v).unwrap();
            assert_eq!(shown, text.as_bytes(), "{path} {when}");
        }
        (Some(newest), None) => assert!(
            history::show(&io, path, newest.v).is_err(),
            "{path} {when}: gone, but its newest version holds a content"
        ),
        (None, text) => assert_eq!(text, None, "{path} {when}: no version"),
    }
}

#[test]
fn a_change_stopped_after_any_of_its_writes_leaves_old_or_new_and_a_history_that_agrees() {
    let edits = [
        json!({"command": "str_replace", "path": "/memories/a.md", "old_str": "one", "new_str": "two"}),
        json!({"command": "create", "path": "/memories/b.md", "file_text": "bee\n"}),
        json!({"command": "rename", "old_path": "/memories/a.md", "new_path": "/memories/c.md"}),
        json!({"command": "delete", "path": "/memories/a.md"}),
    ];
    for edit in edits {
        let mut points = 0;
        for changes in 0.. {
            let s = Store::new();
            s.ok(json!({"command": "create", "path": "/memories/a.md", "file_text": "one\n"}));
            let before = s.fs.files();
            s.fs.stop_after(Some(changes));
            let answer = s.call(edit.clone());
            let stopped = s.fs.stopped();
            s.fs.stop_after(None);
            let when = format!("{edit} stopped after {changes} changes");
            if !stopped {
                assert!(!answer.is_error, "{when}: {}", answer.content);
                break;
            }
            points += 1;
            // What the agent saw is true: an error means the files as
            // they were; success means the change landed.
            let a = s.file("a.md");
            if answer.is_error {
                assert_eq!(
                    a.as_deref(),
                    before.get("a.md").map(|b| std::str::from_utf8(b).unwrap()),
                    "{when}"
                );
            }
            // A new process: its next change settles what was in flight
            // (readers take only lines on record until then), is recorded
            // itself, and leaves the history holding what the files hold.
            s.restarted();
            s.ok(json!({"command": "create", "path": "/memories/d.md", "file_text": "d\n"}));
            history_holds(&s, "/memories/d.md", &when);
            for path in ["/memories/a.md", "/memories/b.md", "/memories/c.md"] {
                history_holds(&s, path, &when);
            }
        }
        assert!(points >= 2, "{edit}: {points} crash points");
    }
}
