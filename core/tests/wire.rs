//! The answers' JSON is the core's output and failure types both ways: what
//! every command answers reads back as the same typed value and writes
//! again as the same JSON, so hosts read answers typed, never by string
//! keys with defaults.

mod common;

use std::collections::BTreeSet;

use common::Store;
use memcap_core::command::{self, Command};
use memcap_core::error::ErrorKind;
use memcap_core::failure::Failure;
use memcap_core::output::Output;
use memcap_core::render::json;
use memcap_core::tools::COMMANDS;
use memcap_core::vocab::Role;
use memcap_core::vocab::settings::ACTOR;
use memcap_core::{Io, execute};
use serde_json::{Value, json as j};

/// Every variant's name as `"output"` tags it. A new variant fails to
/// compile here until it is named, and then the test below until a call
/// answers with it.
fn tag(output: &Output) -> &'static str {
    match output {
        Output::Listing { .. } => "listing",
        Output::FileLines { .. } => "file_lines",
        Output::Created { .. } => "created",
        Output::Edited { .. } => "edited",
        Output::Inserted { .. } => "inserted",
        Output::Deleted { .. } => "deleted",
        Output::Renamed { .. } => "renamed",
        Output::NoteSaved { .. } => "note_saved",
        Output::NoteDeleted { .. } => "note_deleted",
        Output::Index { .. } => "index",
        Output::NoteList { .. } => "note_list",
        Output::MemoryFiles { .. } => "memory_files",
        Output::TopicNotes { .. } => "topic_notes",
        Output::Search(_) => "search",
        Output::Get(_) => "get",
        Output::Stats(_) => "stats",
        Output::Context(_) => "context",
        Output::Activity(_) => "activity",
        Output::History { .. } => "history",
        Output::OldVersion { .. } => "old_version",
        Output::Review(_) => "review",
        Output::Guide { .. } => "guide",
        Output::Prompt { .. } => "prompt",
        Output::Refreshed { .. } => "refreshed",
        Output::TurnRecorded { .. } => "turn_recorded",
    }
}

const EVERY_TAG: &[&str] = &[
    "listing",
    "file_lines",
    "created",
    "edited",
    "inserted",
    "deleted",
    "renamed",
    "note_saved",
    "note_deleted",
    "index",
    "note_list",
    "memory_files",
    "topic_notes",
    "search",
    "get",
    "stats",
    "context",
    "activity",
    "history",
    "old_version",
    "review",
    "guide",
    "prompt",
    "refreshed",
    "turn_recorded",
];

/// `output` written as JSON, read back and written again: the same value
/// and the same JSON, tagged as [`tag`] names it.
fn round_trip(output: Output) -> &'static str {
    let written = json::render(&Ok(output.clone()));
    assert_eq!(written["output"], tag(&output), "{written}");
    let read = json::read(&written.to_string())
        .unwrap_or_else(|e| panic!("{} does not read back: {e}\n{written}", tag(&output)))
        .unwrap_or_else(|f| panic!("{} read back as a failure: {f}", tag(&output)));
    assert_eq!(read, output, "{written}");
    assert_eq!(json::render(&Ok(read)), written);
    tag(&output)
}

fn run(s: &Store, input: Value) -> Output {
    let io = Io::new(&s.fs, &s.env, &s.indexes);
    let call = command::parse(&input.to_string()).unwrap();
    memcap_core::execute::execute_call(&io, call).unwrap_or_else(|e| panic!("{input} failed: {e}"))
}

/// A store with notes that supersede, expire, relate and observe, so the
/// answers carry their optional fields too.
fn store() -> Store {
    let s = Store::new();
    s.env.set_var(ACTOR, Some("alice"));
    s.ok(j!({"command": "memory_write", "filename": "deploy-eu", "name": "Deploy target",
        "description": "where we deploy", "type": "project",
        "content": "The deploy target is eu-1.\n\n- [fact] deploys go to eu-1 #ops\n- relates_to [[Runbook]]\n"}));
    s.env.set_var(ACTOR, Some("bob"));
    s.ok(
        j!({"command": "memory_write", "filename": "deploy-us", "name": "Deploy target moved",
        "description": "the deploy target now", "type": "project",
        "content": "The deploy target is us-2 now.\n\n- supersedes [[deploy-eu]]\n"}),
    );
    s.ok(j!({"command": "create", "path": "/memories/old.md",
        "file_text": "---\nname: Old fact\ndescription: a fact that expired\nvalid_until: 2020-01-01\n---\nThe office is on floor 3.\n"}));
    s
}

#[test]
fn every_answer_reads_back_as_the_same_typed_value() {
    let s = store();
    let mut seen = BTreeSet::new();
    let mut ran = BTreeSet::new();
    let inputs = [
        j!({"command": "view", "path": "/memories"}),
        j!({"command": "view", "path": "/memories/old.md", "view_range": [2, 4]}),
        j!({"command": "create", "path": "/memories/d/a.md", "file_text": "one\ntwo\n"}),
        j!({"command": "str_replace", "path": "/memories/d/a.md", "old_str": "two", "new_str": "2"}),
        j!({"command": "insert", "path": "/memories/d/a.md", "insert_line": 1, "insert_text": "1.5"}),
        j!({"command": "rename", "old_path": "/memories/d/a.md", "new_path": "/memories/d/b.md"}),
        j!({"command": "rename", "old_path": "/memories/d", "new_path": "/memories/e"}),
        j!({"command": "memory_write", "filename": "runbook", "name": "Runbook",
            "description": "how to deploy", "type": "reference", "content": "Run make deploy.\n"}),
        j!({"command": "memory_update", "filename": "deploy-us", "old_str": "now.", "new_str": "now!"}),
        j!({"command": "memory_view"}),
        j!({"command": "memory_view", "all": true}),
        j!({"command": "memory_read"}),
        j!({"command": "memory_read", "topics": ["deploy", "nothing-like-it"]}),
        j!({"command": "memory_search", "query": "deploy target", "includeSuperseded": true, "minScore": 0.0}),
        j!({"command": "memory_get", "path": "/memories/deploy-us.md", "from": 1, "lines": 2}),
        j!({"command": "memory_stats"}),
        j!({"command": "build_context", "url": "memory://deploy-us", "depth": 2}),
        j!({"command": "recent_activity"}),
        j!({"command": "recent_activity", "type": "observation"}),
        j!({"command": "recent_activity", "type": "relation"}),
        j!({"command": "memory_history", "path": "/memories/e/b.md"}),
        j!({"command": "memory_review", "timeframe": "30d"}),
        j!({"command": "memory_guide"}),
        j!({"command": "prompt"}),
        j!({"command": "delete", "path": "/memories/e/b.md"}),
        j!({"command": "memory_delete", "filename": "old"}),
    ];
    for input in inputs {
        ran.insert(input["command"].as_str().unwrap().to_owned());
        let output = run(&s, input);
        if let Output::History { versions, .. } = &output {
            let old = j!({"command": "memory_history", "path": "/memories/e/b.md",
                "version": versions.last().unwrap().version});
            seen.insert(round_trip(run(&s, old)));
        }
        seen.insert(round_trip(output));
    }
    let io = Io::new(&s.fs, &s.env, &s.indexes);
    let turn = Command::RecordTurn {
        session: "s1".into(),
        role: Role::User,
        text: "hello".into(),
    };
    seen.insert(round_trip(execute(&io, turn).unwrap()));
    let changed = Command::Changed {
        paths: vec!["/memories/deploy-us.md".into()],
    };
    seen.insert(round_trip(execute(&io, changed).unwrap()));

    let every: BTreeSet<&str> = EVERY_TAG.iter().copied().collect();
    assert_eq!(seen, every, "an output no call here answers with");
    let commands: BTreeSet<String> = COMMANDS.iter().map(|c| c.name.to_owned()).collect();
    assert_eq!(ran, commands, "a command this test does not run");
}

#[test]
fn optional_fields_survive_the_trip() {
    let s = store();
    let Output::Search(answer) = run(
        &s,
        j!({"command": "memory_search", "query": "deploy target", "includeSuperseded": true, "minScore": 0.0}),
    ) else {
        panic!("not a search answer");
    };
    let old = answer
        .results
        .iter()
        .find(|r| r.path == "/memories/deploy-eu.md")
        .expect("the superseded note, asked for");
    assert_eq!(old.superseded_by, ["/memories/deploy-us.md"]);
    assert_eq!(old.changed_by, ["alice"]);
    let written = json::render(&Ok(Output::Search(answer.clone())));
    assert!(
        written.to_string().contains("\"supersededBy\""),
        "{written}"
    );
    let Ok(Output::Search(read)) = json::read(&written.to_string()).unwrap() else {
        panic!("not read back as a search answer");
    };
    assert_eq!(read, answer);

    let Output::TopicNotes { notes, .. } =
        run(&s, j!({"command": "memory_read", "topics": ["old"]}))
    else {
        panic!("not topic notes");
    };
    assert!(notes.iter().any(|n| n.expired), "{notes:?}");
}

#[test]
fn failures_read_back_with_their_kind_and_hash() {
    let s = store();
    let cases = [
        (
            j!({"command": "view", "path": "/memories/none.md"}),
            ErrorKind::NotFound,
            "not-found",
        ),
        (
            j!({"command": "create", "path": "/memories/old.md", "file_text": "x"}),
            ErrorKind::AlreadyExists,
            "already-exists",
        ),
        (
            j!({"command": "view", "path": "/etc/passwd"}),
            ErrorKind::InvalidPath,
            "invalid-path",
        ),
        (
            j!({"command": "fly"}),
            ErrorKind::InvalidInput,
            "invalid-input",
        ),
        (
            j!({"command": "create", "path": "/memories/old.md", "file_text": "x",
                "precondition": {"type": "content_sha256", "content_sha256": "0".repeat(64)}}),
            ErrorKind::Conflict,
            "conflict",
        ),
        (
            j!({"command": "create", "path": "/memories/none.md", "file_text": "x",
                "precondition": {"type": "content_sha256", "content_sha256": "0".repeat(64)}}),
            ErrorKind::Conflict,
            "conflict",
        ),
    ];
    let mut hashes = Vec::new();
    for (input, kind, name) in cases {
        let (written, is_error) = s.json(input.clone());
        assert!(is_error, "{input} succeeded");
        assert_eq!(written["error"]["kind"], name, "{written}");
        let failure = json::read(&written.to_string())
            .unwrap()
            .expect_err("a failure reads back as one");
        assert_eq!(failure.kind, kind);
        assert_eq!(
            failure.message,
            written["error"]["message"].as_str().unwrap()
        );
        assert_eq!(j!({ "error": failure }), written);
        hashes.push(failure.sha256);
    }
    // Only a failed precondition names the file's hash: null when there is
    // no file (the key still there).
    assert!(hashes[..4].iter().all(Option::is_none), "{hashes:?}");
    assert!(
        matches!(&hashes[4], Some(Some(h)) if h.len() == 64),
        "{hashes:?}"
    );
    assert_eq!(hashes[5], Some(None));
    // A host's own failure (a call it stopped) reads back the same way.
    let stopped = json::failure(ErrorKind::TimedOut, "the call took too long");
    assert_eq!(stopped["error"]["kind"], "timed-out");
    assert_eq!(
        json::read(&stopped.to_string()).unwrap(),
        Err(Failure::new(ErrorKind::TimedOut, "the call took too long"))
    );
}

#[test]
fn what_is_not_an_answer_is_refused_not_guessed() {
    for data in [
        "",
        "{}",
        r#"{"output": "teleported", "path": "/memories"}"#,
        r#"{"output": "created"}"#,
        r#"{"error": {"kind": "gone-fishing", "message": "x"}}"#,
        r#"{"error": {"message": "no kind"}}"#,
    ] {
        assert!(json::read(data).is_err(), "{data} read as an answer");
    }
}
