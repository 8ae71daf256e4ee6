//! The `memcap` CLI: one subcommand per command, and the `memcap call`
//! JSON-lines contract that agent loops in any language depend on.

#[macro_use]
mod common;

use std::io::Write;
use std::process::Output;

use common::Fixture;

/// `memcap` on the fixture's store (a directory, or a database namespace).
fn memcap(f: &Fixture, args: &[&str], stdin: &[u8]) -> Output {
    run(&f.cli_args(), args, stdin)
}

fn run(store: &[String], args: &[&str], stdin: &[u8]) -> Output {
    let mut child =
        common::spawn_memcap(store.iter().map(String::as_str).chain(args.iter().copied()));
    let mut input = child.stdin.take().unwrap();
    let bytes = stdin.to_vec();
    let writer = std::thread::spawn(move || {
        let _ = input.write_all(&bytes);
    });
    let out = child.wait_with_output().unwrap();
    writer.join().unwrap();
    out
}

fn text(bytes: &[u8]) -> &str {
    std::str::from_utf8(bytes).unwrap()
}

both_backends! {
processes fn subcommands_print_results_and_fail_with_status_one() {
    let f = Fixture::new();
    let out = memcap(&f, &["create", "/memories/n.md"], b"from stdin\n");
    assert!(out.status.success());
    assert_eq!(
        text(&out.stdout),
        "File created successfully at: /memories/n.md\n"
    );
    assert_eq!(f.read("n.md"), "from stdin\n");

    let out = memcap(&f, &["view", "/memories/n.md", "--range", "1", "-1"], b"");
    assert_eq!(
        text(&out.stdout),
        "Here's the content of /memories/n.md with line numbers:\n     1\tfrom stdin\n     2\t\n"
    );
    let out = memcap(&f, &["str-replace", "/memories/n.md", "stdin", "args"], b"");
    assert!(out.status.success());
    let out = memcap(&f, &["insert", "/memories/n.md", "0", "top"], b"");
    assert!(out.status.success());
    assert_eq!(f.read("n.md"), "top\nfrom args\n");
    let out = memcap(&f, &["rename", "/memories/n.md", "/memories/m.md"], b"");
    assert!(out.status.success());

    let out = memcap(&f, &["delete", "/memories/n.md"], b"");
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        text(&out.stderr),
        "The path /memories/n.md does not exist\n"
    );
    assert!(out.stdout.is_empty());
}
}

both_backends! {
processes fn call_answers_every_line_in_order_and_skips_blank_ones() {
    let f = Fixture::new();
    let input = b"{\"command\": \"create\", \"path\": \"/memories/a.md\", \"file_text\": \"x\"}\n\n   \n\xff\xfe\n{\"command\": \"view\", \"path\": \"/memories/a.md\"}";
    let out = memcap(&f, &["call"], input);
    assert!(out.status.success());
    let lines: Vec<&str> = text(&out.stdout).lines().collect();
    assert_eq!(
        lines,
        [
            r#"{"content":"File created successfully at: /memories/a.md","is_error":false}"#,
            r#"{"content":"Invalid tool input: the line is not UTF-8 text.","is_error":true}"#,
            r#"{"content":"Here's the content of /memories/a.md with line numbers:\n     1\tx","is_error":false}"#,
        ]
    );
}
}

both_backends! {
processes fn call_refuses_a_line_over_the_input_limit_and_carries_on() {
    let f = Fixture::new();
    let mut input = b"{\"command\": \"view\", \"path\": \"/memories\"}\n".to_vec();
    input.extend(std::iter::repeat_n(b'a', (16 << 20) + 10));
    input.extend(b"\n{\"command\": \"view\", \"path\": \"/memories/x\"}\n");
    let out = memcap(&f, &["call"], &input);
    let lines: Vec<memcap::ToolResult> = text(&out.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 3);
    assert!(!lines[0].is_error);
    assert!(
        lines[1].is_error
            && lines[1]
                .content
                .starts_with("The tool input is over 16777216 bytes")
    );
    assert_eq!(
        lines[2].content,
        "The path /memories/x does not exist. Please provide a valid path."
    );
}
}

#[test]
fn the_root_is_created_private() {
    // One backend: a root directory's creation and mode.
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("a/b/mem");
    // A read creates nothing (see `edges.rs`); the first write creates it.
    let store = ["--root".to_owned(), root.to_string_lossy().into_owned()];
    let out = run(&store, &["create", "/memories/x", "y"], b"");
    assert!(out.status.success());
    assert_eq!(
        std::fs::metadata(&root).unwrap().permissions().mode() & 0o777,
        0o700
    );
}

both_backends! {
processes fn call_json_gives_programs_the_same_results_as_data() {
    let f = Fixture::new();
    let lines = [
        r#"{"command": "create", "path": "/memories/a.md", "file_text": "one\ntwo\n"}"#,
        r#"{"command": "view", "path": "/memories/a.md", "view_range": [2, 2]}"#,
        r#"{"command": "memory_write", "filename": "prefs/tea", "name": "Tea", "type": "user", "content": "Green"}"#,
        r#"{"command": "memory_view", "all": true}"#,
        r#"{"command": "view", "path": "/memories/missing.md"}"#,
        "\u{1}not json",
    ];
    let mut input = lines.join("\n").into_bytes();
    input.extend_from_slice(b"\n\xff\n");
    let out = memcap(&f, &["call", "--json"], &input);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let results: Vec<(serde_json::Value, bool)> = text(&out.stdout)
        .lines()
        .map(|line| {
            let result: serde_json::Value = serde_json::from_str(line).unwrap();
            let content = result["content"].as_str().unwrap();
            (
                serde_json::from_str(content).unwrap(),
                result["is_error"].as_bool().unwrap(),
            )
        })
        .collect();
    assert_eq!(results.len(), 7);
    assert_eq!(
        results[0],
        (
            serde_json::json!({"output": "created", "path": "/memories/a.md",
                "sha256": "c3f9c8c283a2b1f2f1896f27a01cbe3cddc0c9d93f752e4639035a0f5b36f6e8"}),
            false
        )
    );
    assert_eq!(
        results[1].0,
        // The hash is the whole file's, whatever the range showed.
        serde_json::json!({"output": "file_lines", "path": "/memories/a.md", "first_line": 2, "lines": ["two"],
            "sha256": "c3f9c8c283a2b1f2f1896f27a01cbe3cddc0c9d93f752e4639035a0f5b36f6e8"})
    );
    assert_eq!(results[2].0["output"], "note_saved");
    assert_eq!(results[2].0["path"], "/memories/prefs/tea.md");
    assert_eq!(results[3].0["total"], 2);
    assert_eq!(results[3].0["notes"][1]["name"], "Tea");
    assert_eq!(results[3].0["notes"][1]["note_type"], "user");
    for (i, kind) in [(4, "not-found"), (5, "invalid-input"), (6, "invalid-input")] {
        assert!(results[i].1, "{:?}", results[i]);
        assert_eq!(results[i].0["error"]["kind"], kind, "{:?}", results[i]);
        assert!(results[i].0["error"]["message"].is_string());
    }
    // The effects are those of the text calls.
    assert_eq!(f.read("a.md"), "one\ntwo\n");
    assert!(f.read("MEMORY.md").contains("[Tea](prefs/tea.md)"));
}
}
