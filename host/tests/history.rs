//! The version history through the real component, on both backends:
//! versions carry the host's actor, a deleted directory comes back, a
//! revert by actor leaves someone else's later work, and a redacted secret
//! is gone from every file of the directory, from `pg_dump` and from the
//! database's own files.

#[macro_use]
mod common;

use common::Fixture;
use memcap::{Actor, Change};

fn store_bytes(f: &Fixture) -> Vec<(String, Vec<u8>)> {
    if f.in_memory() {
        // Every file the store holds, memcap's own among them.
        return f
            .memory
            .export_all()
            .unwrap()
            .into_iter()
            .filter_map(|entry| match entry {
                memcap::Entry::File(path, data) => Some((path, data)),
                memcap::Entry::Dir(_) => None,
            })
            .collect();
    }
    if common::on_database() {
        let out = std::process::Command::new("pg_dump")
            .args(["--data-only", "--dbname", &common::test_store()])
            .output()
            .expect("pg_dump runs");
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        // And the tables' own files: a deleted row stays in them until the
        // table is rewritten (written out by the checkpoint first).
        common::psql("CHECKPOINT");
        let base = std::path::Path::new(
            &std::env::var("MEMCAP_TEST_CLUSTER").expect("the test cluster's directory"),
        )
        .join("data/base");
        let mut found = vec![("pg_dump".to_owned(), out.stdout)];
        let mut stack = vec![base];
        while let Some(dir) = stack.pop() {
            for entry in std::fs::read_dir(&dir).expect("the cluster's files are readable") {
                let entry = entry.unwrap();
                match entry.file_type().unwrap().is_dir() {
                    true => stack.push(entry.path()),
                    false => found.push((
                        entry.path().display().to_string(),
                        std::fs::read(entry.path()).unwrap_or_default(),
                    )),
                }
            }
        }
        return found;
    }
    let mut found = Vec::new();
    let mut stack = vec![f.root()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let entry = entry.unwrap();
            if entry.file_type().unwrap().is_dir() {
                stack.push(entry.path());
            } else {
                let bytes = std::fs::read(entry.path()).unwrap();
                found.push((entry.path().display().to_string(), bytes));
            }
        }
    }
    found
}

both_backends! {
fn versions_name_the_actor_and_a_deleted_directory_comes_back() {
    let f = Fixture::new();
    let m = &f.memory;
    m.set_actor(Actor { name: "alice".into(), id: Some("tok-1".into()) });
    m.create("/memories/p/a.md", "a1\n").unwrap();
    m.create("/memories/p/b.md", "b1\n").unwrap();
    m.str_replace("/memories/p/a.md", "a1", "a2").unwrap();
    let before_delete = m.history_list("/memories", None, None).unwrap()[0].number;
    m.set_actor(Actor::named("bob"));
    m.delete("/memories/p").unwrap();
    assert!(!f.exists("p/a.md"));
    let all = m.history_list("/memories", None, None).unwrap();
    let seen: Vec<(String, Change, String)> = all
        .iter()
        .rev()
        .map(|v| (v.path.clone(), v.change, v.actor.clone()))
        .collect();
    let v = |p: &str, c, a: &str| (p.to_owned(), c, a.to_owned());
    assert_eq!(
        seen,
        vec![
            v("/memories/p/a.md", Change::Created, "alice"),
            v("/memories/p/b.md", Change::Created, "alice"),
            v("/memories/p/a.md", Change::Modified, "alice"),
            v("/memories/p/a.md", Change::Deleted, "bob"),
            v("/memories/p/b.md", Change::Deleted, "bob"),
        ]
    );
    assert_eq!(all[4].actor_id.as_deref(), Some("tok-1"));
    assert_eq!(m.history_list("/memories", None, Some("tok-1")).unwrap().len(), 3);
    assert_eq!(m.history_show("/memories/p/a.md", 1).unwrap(), b"a1\n");
    let done = m.history_restore("/memories/p", before_delete, None).unwrap();
    assert_eq!(done.restored, ["/memories/p/a.md", "/memories/p/b.md"]);
    assert_eq!(f.read("p/a.md"), "a2\n");
    assert_eq!(f.read("p/b.md"), "b1\n");
    // Another process sees the same history.
    let other = f.reopen();
    let newest = &other.history_list("/memories/p/b.md", None, None).unwrap()[0];
    assert_eq!((newest.change, newest.actor.as_str()), (Change::Restored, "bob"));
    // The agent's answers are as before: no trace of the history.
    let listing = m.view("/memories", None).unwrap();
    assert!(!listing.contains(".memcap"), "{listing}");
}
}

both_backends! {
fn a_revert_by_actor_undoes_their_changes_and_leaves_later_work() {
    let f = Fixture::new();
    let m = &f.memory;
    m.set_actor(Actor::named("alice"));
    m.create("/memories/keep.md", "alice's\n").unwrap();
    m.create("/memories/shared.md", "v1\n").unwrap();
    // Versions are stamped in whole seconds: the revert's time is after
    // alice's work.
    f.later(std::time::Duration::from_millis(1100));
    let since = time_at(f.clock.now());
    m.set_actor(Actor::named("mallory"));
    m.delete("/memories/keep.md").unwrap();
    m.create("/memories/junk.md", "junk\n").unwrap();
    m.str_replace("/memories/shared.md", "v1", "bad").unwrap();
    m.set_actor(Actor::named("bob"));
    m.str_replace("/memories/shared.md", "bad", "bob fixed").unwrap();
    let done = m.history_revert(&since, Some("mallory"), None).unwrap();
    assert_eq!(done.restored, ["/memories/keep.md"]);
    assert_eq!(done.removed, ["/memories/junk.md"]);
    assert_eq!(done.left.len(), 1);
    assert_eq!(done.left[0].path, "/memories/shared.md");
    assert!(done.left[0].why.contains("changed later by bob"), "{}", done.left[0].why);
    assert_eq!(f.read("keep.md"), "alice's\n");
    assert!(!f.exists("junk.md"));
    assert_eq!(f.read("shared.md"), "bob fixed\n");
}
}

both_backends! {
fn a_redacted_secret_is_gone_from_every_file_and_row() {
    let f = Fixture::new();
    let m = &f.memory;
    let secret = "Zebra-Quokka-7731-SECRET";
    m.memory_write("creds", "Creds", &format!("key {secret}"), memcap::NoteType::Reference,
        &format!("The key is {secret}.\n")).unwrap();
    m.memory_search(secret, None, None, None, None).unwrap();
    m.memory_write("creds", "Creds", "rotated", memcap::NoteType::Reference,
        "The key was rotated.\n").unwrap();
    let forms = [
        secret.to_owned(),
        secret.to_lowercase(),
        secret.bytes().map(|b| format!("{b:02x}")).collect::<String>(),
    ];
    let holds = |bytes: &[u8]| {
        let text = String::from_utf8_lossy(bytes).to_lowercase();
        forms.iter().any(|form| text.contains(&form.to_lowercase()))
    };
    // Kept in history until redacted (so this test can fail).
    assert!(store_bytes(&f).iter().any(|(_, b)| holds(b)));
    m.set_actor(Actor::named("security"));
    let report = m.history_redact("/memories/creds.md", None, None).unwrap();
    assert_eq!(report.versions.len(), 1);
    m.memory_view(false).unwrap();
    for (place, bytes) in store_bytes(&f) {
        assert!(!holds(&bytes), "the secret is still in {place}");
    }
    let found = m.memory_search(secret, None, None, None, None).unwrap();
    assert!(found.results.is_empty(), "{found:?}");
    let versions = m.history_list("/memories/creds.md", None, None).unwrap();
    let redacted = versions.iter().find(|v| v.redacted.is_some()).unwrap();
    assert_eq!(redacted.redacted.as_ref().unwrap().0, "security");
    assert_eq!(redacted.sha256, None);
}
}

/// A transaction another connection opened before a redaction can still
/// read the erased rows, and PostgreSQL's rewrite copies what it can read:
/// the redaction waits for it (at most a call's time), says the bytes are
/// still in the tables' files when it ends first, and a redaction run again
/// once the transaction has ended clears them.
#[test]
#[ignore = "needs PostgreSQL: tests/postgres/with-cluster cargo test -p memcap-host -- --ignored"]
fn a_redaction_waits_for_an_older_transaction_or_says_it_could_not() {
    use std::io::Write;
    common::on_backend(common::Kind::Database, || {
        let f = Fixture::new();
        let secret = "Okapi-Narwhal-4419-SECRET";
        f.memory
            .create("/memories/creds.md", &format!("key {secret}\n"))
            .unwrap();
        f.memory
            .str_replace("/memories/creds.md", secret, "rotated")
            .unwrap();
        let in_files = || {
            store_bytes(&f)
                .into_iter()
                .find(|(_, b)| String::from_utf8_lossy(b).contains(secret))
        };
        let m = f
            .builder()
            .limits(memcap::Limits {
                call_timeout: std::time::Duration::from_secs(2),
                ..memcap::Limits::default()
            })
            .open()
            .unwrap();
        let mut reader = std::process::Command::new("psql")
            .args([&common::test_store(), "-At", "-q"])
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .spawn()
            .expect("psql runs");
        let mut to_reader = reader.stdin.take().unwrap();
        to_reader
            .write_all(b"BEGIN ISOLATION LEVEL REPEATABLE READ;\nSELECT 'reading';\n")
            .unwrap();
        let line = common::Lines::of(reader.stdout.take().unwrap()).next("psql's snapshot");
        assert_eq!(
            line.trim(),
            "reading",
            "the other transaction holds its snapshot"
        );
        let cut_short = m
            .history_redact("/memories/creds.md", None, None)
            .unwrap_err();
        assert!(
            cut_short.message.contains("kept a transaction open")
                && cut_short.message.contains("VACUUM FULL"),
            "{cut_short:?}"
        );
        // The versions are redacted all the same.
        assert!(m.history_show("/memories/creds.md", 1).is_err());
        assert!(
            in_files().is_some(),
            "the rows the transaction reads stay in the files"
        );
        to_reader.write_all(b"COMMIT;\n").unwrap();
        drop(to_reader);
        assert!(reader.wait().unwrap().success());
        m.history_redact("/memories/creds.md", None, None).unwrap();
        if let Some((place, _)) = in_files() {
            panic!("the secret is still in {place}");
        }
    });
}

/// Now, as RFC 3339 in whole seconds.
fn time_at(now: std::time::SystemTime) -> String {
    let now = now.duration_since(std::time::UNIX_EPOCH).unwrap().as_secs();
    time::OffsetDateTime::from_unix_timestamp(now as i64)
        .unwrap()
        .format(&time::format_description::well_known::Rfc3339)
        .unwrap()
}

both_backends! {
fn five_thousand_edits_stay_within_a_one_mib_history() {
    let f = Fixture::new();
    let m = f
        .builder()
        .limits(memcap::Limits {
            history_mib: 1,
            ..memcap::Limits::default()
        })
        .open()
        .unwrap();
    let body = |i: usize| format!("{i:06}\n{}", "A line of a typical note.\n".repeat(400));
    m.create("/memories/big.md", &body(0)).unwrap();
    for i in 1..5_000 {
        m.str_replace("/memories/big.md", &format!("{:06}\n", i - 1), &format!("{i:06}\n"))
            .unwrap();
    }
    let held: usize = m
        .export_all()
        .unwrap()
        .into_iter()
        .filter_map(|e| match e {
            memcap::Entry::File(path, data) if path.starts_with(".memcap/history/") => {
                Some(data.len())
            }
            _ => None,
        })
        .sum();
    assert!(held <= 1 << 20, "the history holds {held} bytes");
    let kept = m.history_list("/memories/big.md", None, None).unwrap();
    assert_eq!(kept[0].number, 5_000);
    assert!(kept.len() >= 50, "{} versions kept", kept.len());
    for v in kept.iter().take(10) {
        let n = v.number as usize - 1;
        assert_eq!(m.history_show("/memories/big.md", v.number).unwrap(), body(n).as_bytes());
    }
    let stats = m.memory_stats().unwrap();
    assert_eq!(stats.history_versions, kept.len() as u64);
    assert!(stats.history_bytes <= 1 << 20 && stats.history_bytes > 0, "{}", stats.history_bytes);
}
}

both_backends! {
fn the_newest_versions_page_back_from_the_end_as_the_whole_list_does() {
    let f = Fixture::new();
    let m = &f.memory;
    // A log past the reader's first window (64 KiB: about 300 lines).
    for i in 0..600 {
        let dir = if i % 3 == 0 { "a" } else { "b" };
        m.create(&format!("/memories/{dir}/n{i}.md"), &format!("{i}\n")).unwrap();
    }
    m.str_replace("/memories/a/n0.md", "0", "zero").unwrap();
    for path in ["/memories", "/memories/a", "/memories/a/n0.md", "/memories/b/n599.md"] {
        let whole: Vec<u64> = m.history_list(path, None, None).unwrap().iter().map(|v| v.number).collect();
        let mut paged = Vec::new();
        let mut before = None;
        loop {
            let page = m.history_recent(path, before, 97).unwrap();
            assert!(page.len() <= 97);
            if page.is_empty() {
                break;
            }
            before = page.last().map(|v| v.number);
            paged.extend(page.iter().map(|v| v.number));
            // A page given again would loop for ever: it fails instead.
            assert!(paged.len() <= whole.len(), "{path}: pages past the whole list");
        }
        assert_eq!(paged, whole, "{path}");
    }
    let newest = m.history_recent("/memories", None, 1).unwrap();
    assert_eq!((newest[0].path.as_str(), newest[0].change), ("/memories/a/n0.md", Change::Modified));
    assert!(m.history_recent("/nowhere", None, 5).is_err());
    assert_eq!(m.memory_counts().unwrap().0, 600);
}
}

both_backends! {
fn two_warm_handles_taking_turns_number_every_version_once() {
    let f = Fixture::new();
    let other = f.reopen();
    // Each handle writes twice in a row (its second write takes the log's
    // end it kept), then the other writes after it.
    for turn in 0..6 {
        let m = if turn % 2 == 0 { &f.memory } else { &other };
        let path = format!("/memories/t{turn}.md");
        m.create(&path, "one\n").unwrap();
        m.str_replace(&path, "one", "two").unwrap();
    }
    let mut numbers: Vec<u64> = f
        .memory
        .history_list("/memories", None, None)
        .unwrap()
        .iter()
        .map(|v| v.number)
        .collect();
    numbers.sort_unstable();
    assert_eq!(numbers, (1..=12).collect::<Vec<u64>>());
    assert_eq!(common::history_agrees(&other, ""), 12);
}
}

#[test]
fn a_log_replaced_by_one_of_the_same_size_and_time_is_read_again() {
    let f = Fixture::directory();
    let m = &f.memory;
    m.create("/memories/a.md", "one\n").unwrap();
    m.str_replace("/memories/a.md", "one", "two").unwrap();
    // As a rewrite (retention, redaction, a copy) would leave it: another
    // file at the log's name, of the same size and modification time.
    let log = f.root().join(".memcap/history/log.jsonl");
    let then = std::fs::metadata(&log).unwrap().modified().unwrap();
    let copy = log.with_extension("copy");
    std::fs::copy(&log, &copy).unwrap();
    std::fs::File::options()
        .write(true)
        .open(&copy)
        .and_then(|file| file.set_modified(then))
        .unwrap();
    std::fs::rename(&copy, &log).unwrap();
    m.str_replace("/memories/a.md", "two", "three").unwrap();
    let numbers: Vec<u64> = m
        .history_list("/memories/a.md", None, None)
        .unwrap()
        .iter()
        .map(|v| v.number)
        .collect();
    assert_eq!(
        numbers,
        [3, 2, 1],
        "the third change is in the log at its name"
    );
}

both_backends! {
fn a_content_another_program_left_is_kept_before_a_warm_handle_replaces_it() {
    let f = Fixture::new();
    let m = &f.memory;
    m.create("/memories/a.md", "one\n").unwrap();
    // The newest version is another file's: what a.md holds is known
    // from what this handle's changes left, not from the newest version.
    m.create("/memories/b.md", "two\n").unwrap();
    f.plant("a.md", "theirs, and longer\n");
    m.str_replace("/memories/a.md", "theirs", "ours").unwrap();
    let versions = m.history_list("/memories/a.md", None, None).unwrap();
    let theirs = versions
        .iter()
        .find(|v| v.actor == "(outside memcap)")
        .expect("the other program's content is a version of its own");
    assert_eq!(m.history_show("/memories/a.md", theirs.number).unwrap(), b"theirs, and longer\n");
    assert_eq!(versions.len(), 3, "created, theirs, modified");
}
}

#[test]
fn a_note_replaced_by_one_of_the_same_size_and_time_is_kept_before_a_delete() {
    let f = Fixture::directory();
    let m = &f.memory;
    // (The first change creates the log; from the second on the handle
    // keeps it open, and what its changes left.)
    m.create("/memories/b.md", "first\n").unwrap();
    m.create("/memories/a.md", "ours-ours\n").unwrap();
    // Another program puts another file of the same size at the note this
    // handle just wrote, with its modification time: only the file's
    // status-change or creation time tells, which a delete that does not
    // read the file must look at. (A file made within the same tick of the
    // file system's clock would not tell: one is made until it does.)
    let path = f.root().join("a.md");
    let ours = std::fs::metadata(&path).unwrap();
    let theirs = f.root().join("theirs.tmp");
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(5);
    loop {
        std::fs::write(&theirs, "THEIRS-99\n").unwrap();
        let made = std::fs::metadata(&theirs).unwrap();
        if made.created().ok() != ours.created().ok() || made.created().is_err() {
            break;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "the clock never moved"
        );
        std::fs::remove_file(&theirs).unwrap();
    }
    std::fs::File::options()
        .write(true)
        .open(&theirs)
        .and_then(|file| file.set_modified(ours.modified().unwrap()))
        .unwrap();
    std::fs::rename(&theirs, &path).unwrap();
    m.delete("/memories/a.md").unwrap();
    let versions = m.history_list("/memories/a.md", None, None).unwrap();
    let theirs = versions
        .iter()
        .find(|v| v.actor == "(outside memcap)")
        .expect("the other program's content is a version of its own");
    assert_eq!(
        m.history_show("/memories/a.md", theirs.number).unwrap(),
        b"THEIRS-99\n"
    );
    assert_eq!(versions.len(), 3, "created, theirs, deleted");
    // Left as this handle wrote it, a note is deleted without being read,
    // and its content is the version before the deletion all the same.
    m.create("/memories/c.md", "ours-too\n").unwrap();
    m.delete("/memories/c.md").unwrap();
    let versions = m.history_list("/memories/c.md", None, None).unwrap();
    assert_eq!(versions.len(), 2, "created, deleted");
    assert_eq!(
        m.history_show("/memories/c.md", versions[1].number)
            .unwrap(),
        b"ours-too\n"
    );
}

#[test]
fn a_renamed_note_keeps_its_content_once() {
    let f = Fixture::directory();
    let m = &f.memory;
    let text = "a note that moves\n";
    m.create("/memories/a.md", text).unwrap();
    // Enough changes after it for the upkeep to pack its content.
    for i in 0..300 {
        m.create(&format!("/memories/more/{i}.md"), &format!("{i}\n"))
            .unwrap();
    }
    let loose =
        f.root()
            .join(".memcap/history/blobs")
            .join(memcap_core::vocab::precondition::sha256_hex(
                text.as_bytes(),
            ));
    assert!(!loose.exists(), "packed by the upkeep");
    m.rename("/memories/a.md", "/memories/b.md").unwrap();
    assert!(
        !loose.exists(),
        "a rename keeps no second copy of its content"
    );
    let versions = m.history_list("/memories/b.md", None, None).unwrap();
    assert_eq!(
        m.history_show("/memories/b.md", versions[0].number)
            .unwrap(),
        text.as_bytes()
    );
}
