//! A read-only memory (`MemoryBuilder::read_only`, `--read-only`, a
//! read-only token): every call that would change files is refused as
//! `denied` before it runs, however the input is spelled; reads, views and
//! searches answer as usual.

#[macro_use]
mod common;

use memcap::{NoteType, Role, ToolErrorKind};

both_backends! {
fn every_change_is_refused_and_every_read_answers() {
    let f = common::Fixture::new();
    f.memory.create("/memories/a.md", "alpha line\n").unwrap();
    let before = f.snapshot(false);
    let ro = f.builder().read_only(true).open().unwrap();

    let refusals = [
        ro.create("/memories/b.md", "x").unwrap_err(),
        ro.str_replace("/memories/a.md", "alpha", "beta")
            .unwrap_err(),
        ro.insert("/memories/a.md", 0, "x").unwrap_err(),
        ro.delete("/memories/a.md").unwrap_err(),
        ro.rename("/memories/a.md", "/memories/c.md").unwrap_err(),
        ro.memory_write("n", "n", "d", NoteType::User, "x")
            .unwrap_err(),
        ro.memory_delete("a").unwrap_err(),
        ro.record_turn("s1", Role::User, "hello").unwrap_err(),
        ro.memory_update("a", "alpha", "beta").unwrap_err(),
        ro.history_restore("/memories/a.md", 1, None).unwrap_err(),
    ];
    for e in &refusals {
        assert_eq!(e.kind, ToolErrorKind::Denied, "{}", e.message);
        assert!(e.message.contains("read-only"), "{}", e.message);
    }
    // Through `call`: a repeated key counts as the guest reads it (the
    // last), and a command memcap does not know counts as a change.
    for input in [
        r#"{"command": "create", "path": "/memories/b.md", "file_text": "x"}"#,
        r#"{"command": "view", "path": "/memories/b.md", "command": "create", "file_text": "x"}"#,
        r#"{"command": "no_such_command", "path": "/memories/b.md"}"#,
    ] {
        let result = ro.call(input);
        assert!(result.is_error, "{input}: {}", result.content);
        assert!(
            result.content.contains("read-only"),
            "{input}: {}",
            result.content
        );
    }
    assert_eq!(
        f.snapshot(false),
        before,
        "a read-only memory changed files"
    );

    assert!(
        ro.view("/memories/a.md", None)
            .unwrap()
            .contains("alpha line")
    );
    let versions = ro.memory_history("/memories/a.md", None, None).unwrap();
    assert!(versions.contains("created"), "{versions}");
    let found = ro.call(r#"{"command": "memory_search", "query": "alpha"}"#);
    assert!(
        !found.is_error && found.content.contains("a.md"),
        "{}",
        found.content
    );
    // The writer is unaffected.
    f.memory.create("/memories/b.md", "bravo\n").unwrap();
    assert!(ro.view("/memories", None).unwrap().contains("b.md"));
}
}

both_backends! {
processes fn the_cli_read_only_flag_refuses_changes() {
    let f = common::Fixture::new();
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_memcap"))
        .args(f.cli_args())
        .args(["--read-only", "create", "/memories/x.md", "x"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("read-only"));
    assert!(!f.exists("x.md"));
}
}
