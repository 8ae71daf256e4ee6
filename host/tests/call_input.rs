//! `call`: one tool input as JSON, through the real component in the real
//! host: dispatch, every kind of bad input and what it says to send
//! instead, fields a command does not take, and the line format of
//! `memcap call`.

#[macro_use]
mod common;

use common::Fixture;

both_backends! {
fn call_dispatches_json_and_explains_bad_input() {
    let f = Fixture::new();
    let call = |json: &str| f.memory.call(json);
    // A field the command does not take is refused before anything is
    // written (the SDK drops it: a documented deviation).
    let extra = call(
        r#"{"command": "create", "path": "/memories/n.txt", "file_text": "hi\n", "extra": 1}"#,
    );
    assert!(
        extra.is_error && extra.content.contains("Unknown parameter \"extra\" for command create"),
        "{}",
        extra.content
    );
    assert!(!f.exists("n.txt"));
    let ok = call(r#"{"command": "create", "path": "/memories/n.txt", "file_text": "hi\n"}"#);
    assert_eq!(
        (ok.content.as_str(), ok.is_error),
        ("File created successfully at: /memories/n.txt", false)
    );
    let view = call(r#"{"command": "view", "path": "/memories/n.txt", "view_range": [1, 1]}"#);
    assert_eq!(
        view.content,
        "Here's the content of /memories/n.txt with line numbers:\n     1\thi"
    );
    // view_range applies only with exactly two items, as in the SDK.
    for range in ["null", "[]", "[2]", "[1, 2, 3]"] {
        let whole = call(&format!(
            r#"{{"command": "view", "path": "/memories/n.txt", "view_range": {range}}}"#
        ));
        assert!(whole.content.ends_with("     1\thi\n     2\t"), "{range}");
    }
    let huge = call(
        r#"{"command": "view", "path": "/memories/n.txt", "view_range": [1, 9223372036854775808]}"#,
    );
    assert!(!huge.is_error);
    let err = call(r#"{"command": "view", "path": "/memories/none"}"#);
    assert!(err.is_error);
    assert_eq!(
        err.content,
        "The path /memories/none does not exist. Please provide a valid path."
    );

    for (input, expected) in [
        ("not json", "Invalid tool input: not valid JSON"),
        (
            "[1, 2]",
            "Invalid tool input: expected a JSON object with a \"command\" field, got an array.",
        ),
        (
            "{}",
            "Missing \"command\": use one of view, create, str_replace, insert, delete, rename, memory_read,",
        ),
        (
            r#"{"command": "foo"}"#,
            "Unknown command: foo. Use one of view, create, str_replace, insert, delete, rename, memory_read,",
        ),
        (
            r#"{"command": "create", "path": "/memories/x"}"#,
            "Missing required parameter \"file_text\" for command create: send it as a string.",
        ),
        (
            r#"{"command": "view", "path": 3}"#,
            "Parameter \"path\" for command view must be a string, got a number.",
        ),
        (
            r#"{"command": "insert", "path": "/memories/n.txt", "insert_line": "1", "insert_text": "x"}"#,
            "Parameter \"insert_line\" for command insert must be an integer, got a string.",
        ),
        (
            r#"{"command": "insert", "path": "/memories/n.txt", "insert_line": 1.5, "insert_text": "x"}"#,
            "Parameter \"insert_line\" for command insert must be a whole number, got 1.5.",
        ),
        (
            r#"{"command": "view", "path": "/memories/n.txt", "view_range": [1.5, 2]}"#,
            "Parameter \"view_range\" for command view must be two integers",
        ),
        (
            r#"{"command": "str_replace", "path": "/memories/n.txt", "old_str": "hi"}"#,
            "Missing required parameter \"new_str\" for command str_replace",
        ),
    ] {
        let result = call(input);
        assert!(result.is_error, "{input}");
        assert!(
            result.content.starts_with(expected),
            "{input}: {}",
            result.content
        );
    }
    assert_eq!(f.read("n.txt"), "hi\n");
}
}

both_backends! {
fn call_json_line_format() {
    let f = Fixture::new();
    let line = f
        .memory
        .call(r#"{"command": "delete", "path": "/memories/x"}"#)
        .to_json_line();
    assert_eq!(
        line,
        r#"{"content":"The path /memories/x does not exist","is_error":true}"#
    );
}
}

both_backends! {
fn view_range_must_hold_integers() {
    let f = Fixture::new();
    f.plant("n.txt", "a\nb\n");
    for range in ["[true, 2]", "[\"1\", 2]", "[1, 2.0]"] {
        let result = f.memory.call(&format!(
            r#"{{"command": "view", "path": "/memories/n.txt", "view_range": {range}}}"#
        ));
        assert!(result.is_error, "{range}");
        assert!(
            result.content.starts_with("Parameter \"view_range\""),
            "{range}: {}",
            result.content
        );
    }
}
}
