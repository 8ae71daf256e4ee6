//! Typed notes through the real component: the agent scenario of issue 3,
//! the note commands' errors, and frontmatter as other tools write it.

#[macro_use]
mod common;

use common::Fixture;
use memcap::{NoteType, ToolErrorKind as K};
use serde_json::json;

fn call(f: &Fixture, input: serde_json::Value) -> String {
    let result = f.memory.call(&input.to_string());
    assert!(!result.is_error, "{input}: {}", result.content);
    result.content
}

fn call_err(f: &Fixture, input: serde_json::Value) -> String {
    let result = f.memory.call(&input.to_string());
    assert!(result.is_error, "{input} succeeded: {}", result.content);
    result.content
}

fn today() -> String {
    time::OffsetDateTime::now_utc().date().to_string()
}

/// The lines of MEMORY.md's generated region that list notes, and headings.
fn index_lines(index: &str) -> Vec<&str> {
    index
        .lines()
        .skip_while(|l| *l != "<!-- memcap:index:begin -->")
        .filter(|l| l.starts_with("- ") || l.starts_with("## "))
        .collect()
}

both_backends! {
fn agent_scenario_save_read_update_delete_list() {
    let f = Fixture::new();

    // 1. Save a user preference.
    let saved = call(
        &f,
        json!({"command": "memory_write", "filename": "prefs/coffee", "name": "Coffee preference",
               "description": "Takes coffee black", "type": "user",
               "content": "The user drinks black coffee, no sugar."}),
    );
    assert_eq!(
        saved,
        "Saved note /memories/prefs/coffee.md (user: Coffee preference). \
         The index /memories/MEMORY.md lists it."
    );
    assert_eq!(
        f.read("prefs/coffee.md"),
        format!(
            "---\nname: Coffee preference\ndescription: Takes coffee black\ntype: user\nupdated: {}\n---\n\n\
             The user drinks black coffee, no sugar.\n",
            today()
        )
    );
    assert_eq!(
        index_lines(&f.read("MEMORY.md")),
        [
            "## User",
            "- [Coffee preference](prefs/coffee.md) - Takes coffee black"
        ]
    );

    // 2. Save a project decision.
    call(
        &f,
        json!({"command": "memory_write", "filename": "decisions/database.md", "name": "Database choice",
               "description": "Postgres, not MySQL", "type": "project",
               "content": "We chose Postgres 16 for JSONB support."}),
    );
    assert!(f.read("decisions/database.md").contains("type: project\n"));
    assert_eq!(
        index_lines(&f.read("MEMORY.md")),
        [
            "## User",
            "- [Coffee preference](prefs/coffee.md) - Takes coffee black",
            "## Project",
            "- [Database choice](decisions/database.md) - Postgres, not MySQL",
        ]
    );

    // 3. Read the preferences back through the index: the index names the
    //    note's path, and memory_read returns it in full.
    let overview = call(&f, json!({"command": "memory_read"}));
    assert!(overview.starts_with(&f.read("MEMORY.md")), "{overview}");
    assert!(overview.ends_with(
        "Memory files (3):\n/memories/MEMORY.md\n/memories/decisions/database.md\n/memories/prefs/coffee.md\n"
    ));
    let line = index_lines(&overview)[1];
    let path = &line[line.find("](").unwrap() + 2..line.find(") - ").unwrap()];
    let read = call(&f, json!({"command": "memory_read", "topics": [path]}));
    assert_eq!(
        read,
        format!(
            "=== /memories/prefs/coffee.md (user: Coffee preference) ===\n{}\n",
            f.read("prefs/coffee.md")
        )
    );
    // By name or type works as well; topics that match nothing are named.
    let by_type = call(
        &f,
        json!({"command": "memory_read", "topics": ["user", "Coffee Preference", "tea"]}),
    );
    assert_eq!(by_type.matches("=== /memories/prefs/coffee.md").count(), 1);
    assert!(by_type.contains("No note matches \"tea\"."), "{by_type}");

    // 4. Update the preference: str_replace's rules and messages.
    let updated = call(
        &f,
        json!({"command": "memory_update", "filename": "prefs/coffee.md",
               "old_str": "Takes coffee black", "new_str": "Takes coffee with oat milk"}),
    );
    assert!(
        updated.starts_with("The memory file has been edited."),
        "{updated}"
    );
    assert!(
        f.read("prefs/coffee.md")
            .contains("description: Takes coffee with oat milk\n")
    );
    assert!(
        f.read("MEMORY.md")
            .contains("- [Coffee preference](prefs/coffee.md) - Takes coffee with oat milk\n")
    );

    // 5. Delete the decision.
    let deleted = call(
        &f,
        json!({"command": "memory_delete", "filename": "decisions/database.md"}),
    );
    assert_eq!(
        deleted,
        "Successfully deleted /memories/decisions/database.md; the index no longer lists it."
    );
    assert!(!f.exists("decisions/database.md"));
    assert_eq!(
        index_lines(&f.read("MEMORY.md")),
        [
            "## User",
            "- [Coffee preference](prefs/coffee.md) - Takes coffee with oat milk"
        ]
    );

    // 6. List all notes and the index.
    assert_eq!(
        call(&f, json!({"command": "memory_view"})),
        f.read("MEMORY.md")
    );
    assert_eq!(
        call(&f, json!({"command": "memory_view", "all": true})),
        format!(
            "1 note in /memories:\n\n/memories/prefs/coffee.md\n  name: Coffee preference\n  type: user\n  \
             description: Takes coffee with oat milk\n  updated: {}\n",
            today()
        )
    );
}
}

both_backends! {
fn note_commands_refuse_with_errors_that_say_what_to_do() {
    let f = Fixture::new();
    let bad_type = call_err(
        &f,
        json!({"command": "memory_write", "filename": "a", "name": "A", "description": "", "type": "fact", "content": ""}),
    );
    assert_eq!(
        bad_type,
        "Invalid note type \"fact\": use one of user, feedback, project, reference."
    );
    let (kind, message) = f
        .memory
        .memory_write("a", "  ", "d", NoteType::User, "x")
        .map_err(|e| (e.kind, e.message))
        .unwrap_err();
    assert_eq!(kind, K::InvalidNote);
    assert!(message.starts_with("A note needs a name"), "{message}");
    let index = f
        .memory
        .memory_write("MEMORY.md", "I", "", NoteType::User, "x")
        .unwrap_err();
    assert_eq!(index.kind, K::Protected);
    assert_eq!(
        f.memory
            .memory_write("../x", "X", "", NoteType::User, "x")
            .unwrap_err()
            .kind,
        K::Escape
    );
    assert_eq!(
        f.memory
            .memory_write("/etc/x", "X", "", NoteType::User, "x")
            .unwrap_err()
            .kind,
        K::InvalidPath
    );
    assert_eq!(
        f.memory.memory_delete("nope").unwrap_err().kind,
        K::NotFound
    );
    f.memory
        .memory_write("n.md", "N", "same same", NoteType::User, "same")
        .unwrap();
    let twice = f.memory.memory_update("n", "same", "x").unwrap_err();
    assert_eq!(twice.kind, K::MultipleMatches);
    assert!(twice.message.starts_with(
        "No replacement was performed. Multiple occurrences of old_str `same` in lines: 3, 3, 8."
    ));
    assert_eq!(
        f.memory.memory_update("n", "absent", "x").unwrap_err().kind,
        K::NoMatch
    );
    f.mkdir("dir.md");
    assert_eq!(
        f.memory.memory_delete("dir.md").unwrap_err().kind,
        K::NotAFile
    );
    // Nothing outside the root can match a topic.
    let outside = f.dir.path().join("secret.md");
    std::fs::write(&outside, "top secret").unwrap();
    let read = f
        .memory
        .memory_read(&["../secret.md".to_owned(), outside.display().to_string()])
        .unwrap();
    assert!(!read.contains("top secret"));
    assert!(
        read.starts_with("No note matches \"../secret.md\", "),
        "{read}"
    );
    // memory_write replaces an existing note.
    let again = f
        .memory
        .memory_write("n", "N2", "new", NoteType::Feedback, "body")
        .unwrap();
    assert!(
        again.starts_with("Updated note /memories/n.md (feedback: N2)."),
        "{again}"
    );
}
}

both_backends! {
fn frontmatter_edge_cases_still_give_notes() {
    let f = Fixture::new();
    f.plant("plain.md", "# Shopping\n\nMilk and eggs.\n");
    f.plant(
        "crlf.md",
        "---\r\nname: Windows note\r\ndescription: Written with CRLF\r\ntype: reference\r\n---\r\nBody\r\n",
    );
    f.plant(
        "extra.md",
        "---\nname: Extra keys\ndescription: Has keys memcap does not know\ntype: feedback\nowner: alice\npriority: 3\n---\n",
    );
    f.plant(
        "broken.md",
        "---\nname: [unclosed\ntype: user\n---\nBroken body line\n",
    );
    f.plant("unclosed.md", "---\nname: Never closed\n");
    f.plant(
        "dup-a.md",
        "---\nname: Same name\ndescription: first\ntype: project\n---\n",
    );
    f.plant(
        "dup-b.md",
        "---\nname: Same name\ndescription: second\ntype: project\n---\n",
    );
    f.plant(
        "ünï.md",
        "---\nname: Café ☕ notes\ndescription: Non-ASCII « quotes »\ntype: user\n---\n",
    );
    f.plant(
        "people/team/alice.md",
        "---\nname: Alice\ndescription: In a subdirectory\ntype: reference\n---\n",
    );
    f.plant(
        "vault/Bob.md",
        "---\ntitle: Bob Jones\ntype: person\ntags: [team, lead]\npermalink: people/bob-jones\n---\n\n# Bob Jones\n\nRuns the data team.\n",
    );
    f.plant("binary.bin", [0xffu8, 0xfe, 0x00, 0x01]);

    let index = f.memory.memory_view(false).unwrap();
    let lines = index_lines(&index);
    assert_eq!(
        lines,
        [
            "## User",
            "- [Café ☕ notes](ünï.md) - Non-ASCII « quotes »",
            "## Feedback",
            "- [Extra keys](extra.md) - Has keys memcap does not know",
            "## Project",
            "- [Same name](dup-a.md) - first",
            "- [Same name](dup-b.md) - second",
            "## Reference",
            "- [Alice](people/team/alice.md) - In a subdirectory",
            "- [Windows note](crlf.md) - Written with CRLF",
            "## Other",
            "- [binary](binary.bin) (problem: memory_view with all=true says what)",
            "- [Bob Jones](vault/Bob.md) - Runs the data team.",
            "- [broken](broken.md) - Broken body line (problem: memory_view with all=true says what)",
            "- [plain](plain.md) - Milk and eggs.",
            "- [unclosed](unclosed.md) - name: Never closed (problem: memory_view with all=true says what)",
        ],
        "{index}"
    );
    let all = f.memory.memory_view(true).unwrap();
    assert!(all.starts_with("11 notes in /memories:\n"), "{all}");
    for expected in [
        "/memories/broken.md\n  name: broken\n  type: other\n  description: Broken body line\n  \
         problem: the frontmatter is not valid YAML",
        "/memories/unclosed.md\n  name: unclosed\n  type: other\n  description: name: Never closed\n  \
         problem: the frontmatter opens with --- but no closing --- line follows",
        "/memories/vault/Bob.md\n  name: Bob Jones\n  type: other (declared: person)\n  \
         description: Runs the data team.\n  tags: team, lead\n  permalink: people/bob-jones\n",
        "/memories/binary.bin\n  name: binary\n  type: other\n  problem: the file is not UTF-8 text",
        "/memories/plain.md\n  name: plain\n  type: other\n  description: Milk and eggs.\n  \
         frontmatter: none (name and description come from the file;",
    ] {
        assert!(all.contains(expected), "missing {expected:?} in\n{all}");
    }
    // Duplicate names: a topic naming both returns both.
    let both = f.memory.memory_read(&["same name".to_owned()]).unwrap();
    assert!(both.contains("=== /memories/dup-a.md") && both.contains("=== /memories/dup-b.md"));
    // basic-memory's permalink and tags, and a directory, are topics too.
    let bob = f
        .memory
        .memory_read(&["people/bob-jones".to_owned(), "lead".to_owned()])
        .unwrap();
    assert_eq!(
        bob.matches("=== /memories/vault/Bob.md").count(),
        1,
        "{bob}"
    );
    let team = f.memory.memory_read(&["people".to_owned()]).unwrap();
    assert!(team.starts_with("=== /memories/people/team/alice.md (reference: Alice) ==="));
}
}
