//! The PostgreSQL backend against a real server (`tests/postgres/with-cluster`
//! starts one and sets `MEMCAP_TEST_STORE`): the same answers as a
//! directory, namespaces that cannot reach each other, hosts that lose no
//! update and see each other's writes, crashes and a restarted server that
//! leave nothing half-written, clear errors for a bad setup, and `copy`.

mod common;

use common::{memcap_cli as cli, psql};

use std::io::Write;
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};

use memcap::{Entry, Memory, ToolErrorKind};

const MEMCAP: &str = env!("CARGO_BIN_EXE_memcap");

fn store() -> String {
    std::env::var("MEMCAP_TEST_STORE").expect(
        "MEMCAP_TEST_STORE is not set: run these tests through tests/postgres/with-cluster \
         (./dev test does), which starts a throwaway PostgreSQL",
    )
}

/// A namespace no other test uses.
fn namespace(tag: &str) -> String {
    static NEXT: AtomicUsize = AtomicUsize::new(0);
    format!(
        "{tag}-{}-{}",
        std::process::id(),
        NEXT.fetch_add(1, Ordering::Relaxed)
    )
}

fn open(ns: &str) -> Memory {
    Memory::database(&store()).namespace(ns).open().unwrap()
}

fn call(memory: &Memory, input: serde_json::Value) -> (String, bool) {
    let result = memory.call(&input.to_string());
    (result.content, result.is_error)
}

/// The calls an agent session makes, errors and escapes included.
fn session() -> Vec<serde_json::Value> {
    use serde_json::json;
    vec![
        json!({"command": "view", "path": "/memories"}),
        json!({"command": "create", "path": "/memories/notes/a.md", "file_text": "alpha\nbeta\n"}),
        json!({"command": "create", "path": "/memories/notes/a.md", "file_text": "again"}),
        json!({"command": "str_replace", "path": "/memories/notes/a.md", "old_str": "beta", "new_str": "gamma"}),
        json!({"command": "insert", "path": "/memories/notes/a.md", "insert_line": 1, "insert_text": "one"}),
        json!({"command": "view", "path": "/memories/notes/a.md", "view_range": [1, 2]}),
        json!({"command": "rename", "path": "/memories/notes/a.md", "old_path": "/memories/notes/a.md", "new_path": "/memories/b.md"}),
        json!({"command": "view", "path": "/memories/../etc/passwd"}),
        json!({"command": "create", "path": "/memories/.memcap/x", "file_text": "x"}),
        json!({"command": "memory_write", "filename": "people/ada", "name": "Ada", "description": "a person",
               "type": "user", "content": "- [role] engineer #ops\n- works_on [[Project X]]"}),
        json!({"command": "memory_write", "filename": "project-x", "name": "Project X", "description": "the project",
               "type": "project", "content": "- [goal] ship the database backend"}),
        json!({"command": "memory_view", "all": false}),
        json!({"command": "memory_read", "topics": ["Ada"]}),
        json!({"command": "memory_update", "filename": "people/ada.md", "old_str": "engineer", "new_str": "lead"}),
        json!({"command": "build_context", "url": "memory://people/ada", "depth": 2}),
        json!({"command": "view", "path": "/memories"}),
        json!({"command": "delete", "path": "/memories/notes"}),
        json!({"command": "delete", "path": "/memories/b.md"}),
        json!({"command": "memory_delete", "filename": "project-x.md"}),
        json!({"command": "view", "path": "/memories"}),
    ]
}

/// Times, and directories' sizes (file-system dependent on disk), differ
/// between stores; nothing else may.
fn comparable(text: &str) -> String {
    text.lines()
        .map(|line| match line.split_once('\t') {
            Some((_, path)) if path == "/memories" || path.ends_with('/') => {
                format!("<dir>\t{path}")
            }
            _ => blank_times(line),
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// Blanks dates and times (`2026-11-25T10:00:00Z`).
fn blank_times(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let bytes = text.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        let is_date = i + 10 <= bytes.len()
            && bytes[i..i + 4].iter().all(u8::is_ascii_digit)
            && bytes[i + 4] == b'-'
            && bytes[i + 7] == b'-';
        if is_date {
            out.push_str("<time>");
            i += 10;
            while i < bytes.len() && (bytes[i].is_ascii_digit() || b"T:.Z+-".contains(&bytes[i])) {
                i += 1;
            }
        } else {
            let ch = text[i..].chars().next().unwrap();
            out.push(ch);
            i += ch.len_utf8();
        }
    }
    out
}

#[test]
#[ignore = "needs PostgreSQL: tests/postgres/with-cluster cargo test -p memcap-host -- --ignored"]
fn a_session_answers_as_on_a_directory() {
    let dir = tempfile::tempdir().unwrap();
    let on_disk = Memory::open(dir.path().join("memories")).unwrap();
    let in_db = open(&namespace("session"));
    let mut compared = 0;
    for input in session() {
        let (a, a_err) = call(&on_disk, input.clone());
        let (b, b_err) = call(&in_db, input.clone());
        assert_eq!((comparable(&a), a_err), (comparable(&b), b_err), "{input}");
        compared += 1;
    }
    let stats = |m: &Memory| {
        let s = m.memory_stats().unwrap();
        (s.total_files, s.total_chunks)
    };
    assert_eq!(stats(&on_disk), stats(&in_db));
    assert_eq!(compared, session().len());
}

#[test]
#[ignore = "needs PostgreSQL: tests/postgres/with-cluster cargo test -p memcap-host -- --ignored"]
fn namespaces_reach_only_themselves_and_their_grants() {
    let (alice, bob, team) = (namespace("alice"), namespace("bob"), namespace("team"));
    open(&alice)
        .create("/memories/secret.md", "alice's secret")
        .unwrap();
    open(&team)
        .create("/memories/plan.md", "the team plan")
        .unwrap();
    let bob_mem = Memory::database(&store())
        .namespace(&bob)
        .shared("team", &team, true)
        .open()
        .unwrap();
    for path in [
        "/memories/secret.md",
        "/memories/../secret.md",
        &format!("/memories/../{alice}/secret.md"),
        &format!("/memories/shared/{alice}/secret.md"),
        "/memories/shared/../../secret.md",
    ] {
        let result = bob_mem.view(path, None);
        assert!(result.is_err(), "{path}: {result:?}");
    }
    let hits = bob_mem
        .memory_search("secret", None, Some(0.0), None, None)
        .unwrap();
    assert!(
        hits.results.iter().all(|r| !r.text.contains("alice")),
        "{hits:?}"
    );
    assert!(
        bob_mem
            .view("/memories/shared/team/plan.md", None)
            .unwrap()
            .contains("the team plan")
    );
    let refused = bob_mem
        .create("/memories/shared/team/new.md", "x")
        .unwrap_err();
    assert_ne!(refused.kind, ToolErrorKind::GuestFailure, "{refused:?}");
    assert!(open(&team).view("/memories/new.md", None).is_err());
    // A grant of a namespace that does not exist is refused at open.
    let missing = Memory::database(&store())
        .namespace(&bob)
        .shared("x", "no-such-namespace", false)
        .open();
    assert!(missing.is_err());
}

/// Starts `memcap --store URL --namespace NS call`, `input` fed to it from a
/// thread; its output piped when `piped`, else dropped.
fn spawn_call(ns: &str, input: String, piped: bool) -> std::process::Child {
    let out = || if piped { Stdio::piped() } else { Stdio::null() };
    let mut child = Command::new(MEMCAP)
        .args(["--store", &store(), "--namespace", ns, "call"])
        .stdin(Stdio::piped())
        .stdout(out())
        .stderr(out())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    // A killed child closes the pipe: the write's error is expected then.
    std::thread::spawn(move || stdin.write_all(input.as_bytes()));
    child
}

#[test]
#[ignore = "needs PostgreSQL: tests/postgres/with-cluster cargo test -p memcap-host -- --ignored"]
fn no_spelling_reaches_another_namespace() {
    use common::escape::{attempts, traversal_spellings};
    let (alice, bob) = (namespace("alice"), namespace("bob"));
    let bob_memory = open(&bob);
    for (path, text) in [
        ("outside/secret.txt", "top secret\n"),
        ("secret.txt", "top secret\n"),
    ] {
        bob_memory
            .host_edit(path, memcap::HostEdit::Write(text.as_bytes()))
            .unwrap();
    }
    let bob_before = bob_memory.export_all().unwrap();
    let memory = open(&alice);
    memory
        .create("/memories/hello.txt", "hello secret\n")
        .unwrap();
    for d in ["sub", "a", "d"] {
        memory.host_edit(d, memcap::HostEdit::MakeDir).unwrap();
    }
    let outside = std::path::PathBuf::from(format!("/{bob}"));
    let mut spellings = traversal_spellings(&outside);
    spellings.extend([
        format!("/memories/../{bob}/secret.txt"),
        format!("/memories/shared/{bob}/secret.txt"),
        format!("/memories/extra/{bob}/secret.txt"),
        format!("/memories/shared/../../{bob}/secret.txt"),
    ]);
    let url = store();
    let mut tried = 0;
    for path in &spellings {
        for (command, result) in attempts(&memory, path) {
            tried += 1;
            let text = match &result {
                Ok(text) => text,
                Err(e) => &e.message,
            };
            assert!(!text.contains("top secret"), "{command} {path:?}: {text}");
            let unechoed = text.replace(path.as_str(), "");
            assert!(
                !unechoed.contains(&url)
                    && !unechoed.contains("os error")
                    && !unechoed.contains("SELECT"),
                "{command} {path:?}: {text}"
            );
        }
    }
    assert_eq!(
        bob_memory.export_all().unwrap(),
        bob_before,
        "bob's namespace changed"
    );
    let found = memory
        .memory_search("top secret", None, Some(0.0), None, None)
        .unwrap();
    assert!(
        found.results.iter().all(|r| !r.text.contains("top secret")),
        "{found:?}"
    );
    println!("{tried} attempts through alice's namespace: bob's unchanged, never shown");
}

/// `ns` with the grants `(name, namespace, read_only)` as shared.
fn open_sharing(ns: &str, grants: &[(&str, &str, bool)]) -> Memory {
    let mut builder = Memory::database(&store()).namespace(ns);
    for (name, target, read_only) in grants {
        builder = builder.shared(*name, target, *read_only);
    }
    builder.open().unwrap()
}

#[test]
#[ignore = "needs PostgreSQL: tests/postgres/with-cluster cargo test -p memcap-host -- --ignored"]
fn a_shared_namespace_is_written_in_place_and_seen_by_every_user() {
    let (alice_ns, bob_ns, team) = (namespace("alice"), namespace("bob"), namespace("team"));
    open(&team)
        .create("/memories/readme.md", "the team's\n")
        .unwrap();
    let alice = open_sharing(&alice_ns, &[("team", &team, false)]);
    let bob = open_sharing(&bob_ns, &[("team", &team, false)]);
    alice
        .create("/memories/shared/team/plan.md", "ship friday\n")
        .unwrap();
    bob.str_replace("/memories/shared/team/plan.md", "friday", "monday")
        .unwrap();
    assert!(
        alice
            .view("/memories/shared/team/plan.md", None)
            .unwrap()
            .contains("ship monday")
    );
    assert_eq!(
        open(&team).host_read("plan.md").unwrap().unwrap(),
        b"ship monday\n"
    );
    alice.create("/memories/mine.md", "alice only\n").unwrap();
    let listing = bob.memory_view(true).unwrap();
    assert!(
        listing.contains("/memories/shared/team/plan.md"),
        "{listing}"
    );
    assert!(!listing.contains("mine.md"), "{listing}");
    // Mount points stay; nothing moves across grants.
    for path in ["/memories/shared", "/memories/shared/team"] {
        assert_eq!(
            alice.delete(path).unwrap_err().kind,
            ToolErrorKind::Protected
        );
    }
    let e = alice
        .rename("/memories/mine.md", "/memories/shared/team/mine.md")
        .unwrap_err();
    assert_eq!(e.kind, ToolErrorKind::InvalidPath, "{}", e.message);
    assert!(open(&alice_ns).host_read("mine.md").unwrap().is_some());
    assert!(
        alice
            .view("/memories/shared/team/.memcap/notes.jsonl", None)
            .is_err()
    );
    // Read-only: read, never changed, and nothing of memcap's made there.
    let carol = open_sharing(&namespace("carol"), &[("team", &team, true)]);
    assert!(
        carol
            .view("/memories/shared/team/plan.md", None)
            .unwrap()
            .contains("monday")
    );
    let before = open(&team).export_all().unwrap();
    let e = carol
        .create("/memories/shared/team/new.md", "x")
        .unwrap_err();
    assert!(e.message.contains("read-only"), "{}", e.message);
    carol
        .str_replace("/memories/shared/team/plan.md", "monday", "never")
        .unwrap_err();
    carol.delete("/memories/shared/team/plan.md").unwrap_err();
    assert_eq!(open(&team).export_all().unwrap(), before);
}

#[test]
#[ignore = "needs PostgreSQL: tests/postgres/with-cluster cargo test -p memcap-host -- --ignored"]
fn crossed_grants_never_deadlock_and_lose_nothing() {
    const EDITS: usize = 40;
    let (a, b) = (namespace("cross-a"), namespace("cross-b"));
    for ns in [&a, &b] {
        open(ns).create("/memories/log.md", "start\n").unwrap();
    }
    // Each holds its own namespace and shares the other's: locks are taken
    // in one order, so neither waits on the other forever.
    let hosts = [
        open_sharing(&a, &[("other", &b, false)]),
        open_sharing(&b, &[("other", &a, false)]),
    ];
    std::thread::scope(|scope| {
        for (h, host) in hosts.iter().enumerate() {
            scope.spawn(move || {
                for k in 0..EDITS {
                    for path in ["/memories/log.md", "/memories/shared/other/log.md"] {
                        host.insert(path, 1, &format!("h{h}-{k}")).unwrap();
                    }
                }
            });
        }
    });
    for ns in [&a, &b] {
        let log = String::from_utf8(open(ns).host_read("log.md").unwrap().unwrap()).unwrap();
        assert_eq!(log.lines().count(), 1 + 2 * EDITS, "{log}");
    }
}

#[test]
#[ignore = "needs PostgreSQL: tests/postgres/with-cluster cargo test -p memcap-host -- --ignored"]
fn an_extra_namespace_is_searched_as_custom_and_never_changed() {
    let (ns, docs) = (namespace("reader"), namespace("docs"));
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("guide.md"),
        "# Guide\nThe kestrel hovers.\n",
    )
    .unwrap();
    let (code, stderr) = cli(&[
        "copy",
        dir.path().to_str().unwrap(),
        &format!("{}#{docs}", store()),
    ]);
    assert_eq!(code, 0, "{stderr}");
    let memory = Memory::database(&store())
        .namespace(&ns)
        .extra("docs", &docs)
        .open()
        .unwrap();
    let hits = memory
        .memory_search("kestrel", None, None, Some(memcap::Source::Custom), None)
        .unwrap();
    assert_eq!(
        hits.results[0].path, "/memories/extra/docs/guide.md",
        "{hits:?}"
    );
    let before = open(&docs).export_all().unwrap();
    assert!(memory.create("/memories/extra/docs/x.md", "x").is_err());
    assert_eq!(open(&docs).export_all().unwrap(), before);
}

#[test]
#[ignore = "needs PostgreSQL: tests/postgres/with-cluster cargo test -p memcap-host -- --ignored"]
fn an_mcp_server_on_the_database_serves_and_exits_cleanly() {
    let ns = namespace("mcp");
    let mut server =
        common::spawn_memcap(["--store", &store(), "--namespace", &ns, "mcp", "--no-watch"]);
    let mut stdin = server.stdin.take().unwrap();
    let lines = common::Lines::of(server.stdout.take().unwrap());
    let mut send = |v: serde_json::Value| writeln!(stdin, "{v}").unwrap();
    send(
        serde_json::json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {},
        "clientInfo": {"name": "test", "version": "1"}}}),
    );
    send(serde_json::json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
    send(
        serde_json::json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {
        "name": "memory", "arguments": {"command": "create", "path": "/memories/m.md",
        "file_text": "over MCP"}}}),
    );
    let answer = lines.until("the create's answer", |line| line.contains("\"id\":2"));
    assert!(answer.contains("File created successfully"), "{answer}");
    drop(stdin);
    let out = server.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.success() && !stderr.contains("panicked"),
        "{stderr}"
    );
    assert_eq!(open(&ns).host_read("m.md").unwrap().unwrap(), b"over MCP");
}

/// `memcap --store URL --namespace NS call` with `input`, to its end.
fn run_call(ns: &str, input: String) -> std::process::Output {
    spawn_call(ns, input, true).wait_with_output().unwrap()
}

#[test]
#[ignore = "needs PostgreSQL: tests/postgres/with-cluster cargo test -p memcap-host -- --ignored"]
fn writers_on_two_hosts_lose_nothing_and_see_each_other() {
    const WRITERS: usize = 16;
    const EACH: usize = 10;
    let ns = namespace("hosts");
    let a = open(&ns);
    a.create("/memories/log.md", "start\n").unwrap();
    let b = open(&ns);
    // Host A writes a note; host B's next call finds it.
    a.create("/memories/found.md", "the zebra crossing is painted blue")
        .unwrap();
    let hits = b
        .memory_search("zebra crossing", None, None, None, None)
        .unwrap();
    assert!(
        hits.results.iter().any(|r| r.path == "/memories/found.md"),
        "{hits:?}"
    );
    std::thread::scope(|scope| {
        for w in 0..WRITERS {
            let ns = ns.clone();
            scope.spawn(move || {
                let input: String = (0..EACH)
                    .flat_map(|k| {
                        [
                            serde_json::json!({"command": "insert", "path": "/memories/log.md",
                                "insert_line": 1, "insert_text": format!("w{w}-{k}")}),
                            serde_json::json!({"command": "create",
                                "path": format!("/memories/w{w}/{k}.md"), "file_text": "x"}),
                        ]
                    })
                    .map(|v| v.to_string() + "\n")
                    .collect();
                let out = run_call(&ns, input);
                assert!(
                    out.status.success(),
                    "{}",
                    String::from_utf8_lossy(&out.stderr)
                );
                let errors = String::from_utf8_lossy(&out.stdout)
                    .lines()
                    .filter(|l| l.contains("\"is_error\":true"))
                    .count();
                assert_eq!(errors, 0, "{}", String::from_utf8_lossy(&out.stdout));
            });
        }
    });
    let log = b.view("/memories/log.md", None).unwrap();
    for w in 0..WRITERS {
        for k in 0..EACH {
            assert!(log.contains(&format!("w{w}-{k}\n")), "w{w}-{k} lost");
        }
    }
    let files = b
        .export()
        .unwrap()
        .into_iter()
        .filter(|e| matches!(e, Entry::File(p, _) if p.starts_with('w')))
        .count();
    assert_eq!(files, WRITERS * EACH);
    println!(
        "{} inserts and {} creates from {WRITERS} processes: 0 lost",
        WRITERS * EACH,
        files
    );
}

#[test]
#[ignore = "needs PostgreSQL: tests/postgres/with-cluster cargo test -p memcap-host -- --ignored"]
fn a_killed_host_leaves_old_or_new_text_and_nothing_staged() {
    let kills: usize = std::env::var("MEMCAP_DB_KILLS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(20);
    let ns = namespace("kill");
    let memory = open(&ns);
    for n in 0..4 {
        memory
            .create(&format!("/memories/n{n}.md"), "v0\n")
            .unwrap();
    }
    drop(memory);
    let mut rng_state = 0x9e3779b97f4a7c15_u64;
    for round in 0..kills {
        let input: String = (0..200)
            .map(|i| {
                let n = i % 4;
                serde_json::json!({"command": "memory_write", "filename": format!("n{n}.md"),
                    "name": format!("N{n}"), "description": "d", "type": "project",
                    "content": format!("v{round}-{i}\n{}", "body line\n".repeat(50))})
                .to_string()
                    + "\n"
            })
            .collect();
        let mut child = spawn_call(&ns, input, false);
        rng_state ^= rng_state << 13;
        rng_state ^= rng_state >> 7;
        rng_state ^= rng_state << 17;
        common::kill_after(
            &mut child,
            std::time::Duration::from_millis(30 + rng_state % 120),
        );
    }
    let memory = open(&ns);
    for entry in memory.export().unwrap() {
        if let Entry::File(path, data) = entry {
            let text = String::from_utf8(data).unwrap();
            if path.starts_with('n') {
                assert!(
                    text.starts_with("---") || text == "v0\n",
                    "{path}: {text:?}"
                );
                assert!(
                    text.ends_with("body line\n") || text == "v0\n",
                    "{path} cut: {text:?}"
                );
            }
        }
    }
    // Every committed write has its version and no version its change
    // missing: one transaction holds both.
    memory.create("/memories/probe.md", "p\n").unwrap();
    common::history_agrees(&memory, "n");
    // Nothing staged: `.memcap/tmp` is empty in the saved rows.
    let staged = psql(&format!(
        "SELECT count(*) FROM memcap_entries e JOIN memcap_namespaces n ON n.id = e.ns \
         WHERE n.name = '{ns}' AND e.path LIKE '.memcap/tmp/%'"
    ));
    assert_eq!(staged.trim(), "0");
    // The index agrees with the files.
    let index = memory.view("/memories/MEMORY.md", None).unwrap();
    for n in 0..4 {
        let view = memory.view(&format!("/memories/n{n}.md"), None).unwrap();
        if view.contains("name: N") {
            assert!(index.contains(&format!("[N{n}](n{n}.md)")), "{index}");
        }
    }
    println!("{kills} kill -9 of a writing host: every note old or new, 0 staged rows");
}

#[test]
#[ignore = "needs PostgreSQL: tests/postgres/with-cluster cargo test -p memcap-host -- --ignored"]
fn copy_to_the_database_and_back_gives_the_same_tree() {
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path().join("src");
    let memory = Memory::open(&src).unwrap();
    memory.create("/memories/a.md", "alpha").unwrap();
    memory
        .memory_write(
            "people/ada",
            "Ada",
            "a person",
            memcap::NoteType::User,
            "- [role] lead",
        )
        .unwrap();
    memory.create("/memories/deep/er/b.txt", "bytes\n").unwrap();
    drop(memory);
    let ns = namespace("copy");
    let target = format!("{}#{ns}", store());
    let back = dir.path().join("back");
    let (code, stderr) = cli(&["copy", src.to_str().unwrap(), &target]);
    assert_eq!(code, 0, "{stderr}");
    let (code, stderr) = cli(&["copy", src.to_str().unwrap(), &target]);
    assert_ne!(code, 0);
    assert!(stderr.contains("--replace"), "{stderr}");
    let (code, stderr) = cli(&["copy", &target, back.to_str().unwrap()]);
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(
        common::snapshot(&src, false),
        common::snapshot(&back, false)
    );
    // The copy serves: the note is indexed and found.
    let copied = open(&ns);
    assert!(
        copied
            .memory_view(false)
            .unwrap()
            .contains("[Ada](people/ada.md)")
    );
    let (code, stderr) = cli(&["copy", src.to_str().unwrap(), &target, "--replace"]);
    assert_eq!(code, 0, "{stderr}");
}

#[test]
#[ignore = "needs PostgreSQL: tests/postgres/with-cluster cargo test -p memcap-host -- --ignored"]
fn a_store_moved_to_the_database_and_back_keeps_every_version() {
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path().join("src");
    let memory = Memory::open(&src).unwrap();
    memory.set_actor(memcap::Actor::named("ada"));
    memory.create("/memories/a.md", "one\n").unwrap();
    memory.str_replace("/memories/a.md", "one", "two").unwrap();
    memory.rename("/memories/a.md", "/memories/b.md").unwrap();
    memory
        .history_redact("/memories/a.md", Some(1), None)
        .unwrap();
    let versions = |m: &Memory| -> Vec<String> {
        let all = m.history_list("/memories", None, None).unwrap();
        all.iter().map(|v| format!("{v:?}")).collect()
    };
    let held = versions(&memory);
    assert_eq!(held.len(), 3);
    drop(memory);
    let ns = namespace("moved");
    let target = format!("{}#{ns}", store());
    let back = dir.path().join("back");
    for (from, to) in [
        (src.to_str().unwrap(), target.as_str()),
        (&target, back.to_str().unwrap()),
    ] {
        let (code, stderr) = cli(&["copy", from, to]);
        assert_eq!(code, 0, "{stderr}");
    }
    assert_eq!(versions(&open(&ns)), held);
    let back = Memory::open(&back).unwrap();
    assert_eq!(versions(&back), held);
    assert_eq!(back.history_show("/memories/a.md", 2).unwrap(), b"two\n");
    assert!(
        back.history_show("/memories/a.md", 1).is_err(),
        "redacted stays redacted"
    );
}

#[test]
#[ignore = "needs PostgreSQL: tests/postgres/with-cluster cargo test -p memcap-host -- --ignored"]
fn a_following_host_takes_in_other_hosts_commits_between_calls() {
    let ns = namespace("follow");
    let clock = memcap::TestClock::new();
    let open = |ns: &str| {
        Memory::database(&store())
            .namespace(ns)
            .clock(clock.clone())
            .open()
            .unwrap()
    };
    let a = open(&ns);
    let note = |d: &str| format!("---\nname: N1\ndescription: {d}\ntype: user\n---\n\nbody\n");
    a.memory_write("n1", "N1", "old words", memcap::NoteType::User, "body")
        .unwrap();
    // An old note: memcap reads a note changed in the last two seconds once
    // more when its stamp has aged, whatever the stamp says.
    clock.advance(common::RACY);
    let followed = std::sync::Arc::new(open(&ns));
    let other = open(&ns);
    for memory in [&*followed, &other] {
        assert!(memory.memory_view(false).unwrap().contains("old words"));
    }
    // Their first calls rewrote MEMORY.md, so the root directory is young
    // again: once it has aged, each host lists it whole once more (the
    // check that a young stamp gets). That is done here, before the edit,
    // so the edit below can only be found by a sweep or a follower.
    clock.advance(common::RACY);
    for memory in [&*followed, &other] {
        for _ in 0..3 {
            assert!(memory.memory_view(false).unwrap().contains("old words"));
        }
    }
    // A change with no journal record (the host's own access, as `memcap
    // copy` or an operator's program makes): a warm host that nobody
    // follows finds it only when its sweep comes round.
    a.host_edit(
        "n1.md",
        memcap::HostEdit::Write(note("new words").as_bytes()),
    )
    .unwrap();
    for _ in 0..3 {
        let index = other.memory_view(false).unwrap();
        assert!(index.contains("old words"), "{index}");
    }
    clock.advance(common::SWEEP);
    let swept = (0..5).any(|_| other.memory_view(false).unwrap().contains("new words"));
    assert!(swept, "the sweep did not find the edit");
    // The followed host's sweep done too, so only its follower can show
    // what comes next.
    assert!(followed.memory_view(false).unwrap().contains("new words"));
    // Followed, such a change is in the index at once, and through the
    // journal in every other host's too.
    let follower =
        memcap::feed::ChangeFeed::start(&followed).expect("a database store can be followed");
    a.host_edit(
        "n1.md",
        memcap::HostEdit::Write(note("newer words").as_bytes()),
    )
    .unwrap();
    let took = common::eventually("the follower never caught up", || {
        followed.memory_view(false).unwrap().contains("newer words")
    });
    println!("caught up in {took:?}");
    assert!(other.memory_view(false).unwrap().contains("newer words"));
    // The thread ends with the follower.
    drop(follower);
}

#[test]
#[ignore = "needs PostgreSQL: tests/postgres/with-cluster cargo test -p memcap-host -- --ignored"]
fn a_warm_read_never_answers_from_before_another_hosts_commit() {
    // A warm host's read runs while its freshness check is in flight; each
    // read here follows a commit by the other host, so every one of them
    // ran on stale files and must have been run again.
    let ns = namespace("ahead");
    let a = open(&ns);
    let b = open(&ns);
    a.create("/memories/n.md", "word0\n").unwrap();
    assert!(b.view("/memories/n.md", None).unwrap().contains("word0"));
    for i in 1..=40 {
        a.str_replace(
            "/memories/n.md",
            &format!("word{}", i - 1),
            &format!("word{i}"),
        )
        .unwrap();
        let seen = b.view("/memories/n.md", None).unwrap();
        assert!(seen.contains(&format!("word{i}\n")), "read {i}: {seen}");
        // A read that also brings the guest's indexes up to date (files it
        // writes itself, thrown away when the read is run again).
        a.create(
            &format!("/memories/s/{i}.md"),
            &format!("quokka{i} lives here\n"),
        )
        .unwrap();
        let hits = b
            .memory_search(&format!("quokka{i}"), None, None, None, None)
            .unwrap();
        let want = format!("/memories/s/{i}.md");
        assert!(
            hits.results.iter().any(|r| r.path == want),
            "search {i}: {hits:?}"
        );
    }
    // What the host that ran ahead wrote of its own survives its reruns:
    // it still writes, and a third host sees all of it.
    b.create("/memories/from-b.md", "written by b\n").unwrap();
    let c = open(&ns);
    assert!(c.view("/memories/n.md", None).unwrap().contains("word40\n"));
    assert!(
        c.view("/memories/from-b.md", None)
            .unwrap()
            .contains("written by b")
    );
    let hits = c.memory_search("quokka17", None, None, None, None).unwrap();
    assert!(
        hits.results.iter().any(|r| r.path == "/memories/s/17.md"),
        "{hits:?}"
    );
}
