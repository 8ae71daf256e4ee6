//! The database server stopped under a host and started again: calls fail
//! with a clear error (no connection string, SQL or path reaches the
//! agent), then work again, and nothing acknowledged is lost. A file of its
//! own: test binaries run one at a time, so no other test's calls meet the
//! server down.

mod common;

use std::process::Command;

use memcap::{Memory, ToolErrorKind};

fn open(ns: &str) -> Memory {
    Memory::database(&common::test_store())
        .namespace(ns)
        .open()
        .unwrap()
}

fn namespace(tag: &str) -> String {
    common::fresh_namespace(tag)
}

/// Held by each test here: one at a time takes the server down.
static SERVER: std::sync::Mutex<()> = std::sync::Mutex::new(());

fn cluster(action: &str) {
    let dir = std::env::var("MEMCAP_TEST_CLUSTER").expect("MEMCAP_TEST_CLUSTER is set");
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/../tests/postgres/cluster");
    let status = Command::new(script).args([action, &dir]).status().unwrap();
    assert!(status.success(), "cluster {action}");
}

#[test]
#[ignore = "needs PostgreSQL: tests/postgres/with-cluster cargo test -p memcap-host -- --ignored"]
fn a_restarted_server_fails_calls_clearly_then_serves_them() {
    let _alone = SERVER.lock().unwrap_or_else(|e| e.into_inner());
    let ns = namespace("restart");
    let memory = open(&ns);
    memory.create("/memories/kept.md", "acknowledged").unwrap();
    cluster("down");
    let failed = memory.create("/memories/lost.md", "never acknowledged");
    let view = memory.view("/memories/kept.md", None);
    cluster("up");
    let error = failed.unwrap_err();
    assert_eq!(error.kind, ToolErrorKind::Io);
    assert!(error.message.contains("nothing was changed"), "{error:?}");
    for text in [&error.message, &view.unwrap_err().message] {
        assert!(
            !text.contains("postgres") && !text.contains("SELECT") && !text.contains("/tmp"),
            "{text}"
        );
    }
    assert!(
        memory
            .view("/memories/kept.md", None)
            .unwrap()
            .contains("acknowledged")
    );
    assert!(memory.view("/memories/lost.md", None).is_err());
    memory.create("/memories/after.md", "back").unwrap();
}

#[test]
#[ignore = "needs PostgreSQL: tests/postgres/with-cluster cargo test -p memcap-host -- --ignored"]
fn a_follower_hears_commits_again_once_the_server_is_back() {
    let _alone = SERVER.lock().unwrap_or_else(|e| e.into_inner());
    use std::time::Duration;
    let ns = namespace("refollow");
    let clock = memcap::TestClock::new();
    let open = |ns: &str| {
        Memory::database(&common::test_store())
            .namespace(ns)
            .clock(clock.clone())
            .open()
            .unwrap()
    };
    let writer = open(&ns);
    let note = |d: &str| format!("---\nname: N\ndescription: {d}\ntype: user\n---\n\nbody\n");
    writer.create("/memories/n.md", &note("first")).unwrap();
    // Old enough that only a report (or the sweep) shows an edit in place.
    clock.advance(common::RACY);
    let followed = std::sync::Arc::new(open(&ns));
    assert!(followed.memory_view(false).unwrap().contains("first"));
    let _follower = memcap::feed::ChangeFeed::start(&followed).unwrap();
    cluster("down");
    std::thread::sleep(Duration::from_millis(700));
    cluster("up");
    writer
        .host_edit("n.md", memcap::HostEdit::Write(note("second").as_bytes()))
        .unwrap();
    common::eventually("the follower did not come back", || {
        followed.memory_view(false).unwrap().contains("second")
    });
}
