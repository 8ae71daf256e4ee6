//! The PostgreSQL backend's setup against a real server
//! (`tests/postgres/with-cluster` starts one and sets `MEMCAP_TEST_STORE`):
//! a bad URL, a missing database, an unreachable server, a read-only role
//! and a newer schema each get a clear message and a failing exit; TLS is
//! taken as libpq spells it.

mod common;

use std::process::Command;

use memcap::Memory;

fn store() -> String {
    common::test_store()
}

fn open(ns: &str) -> Memory {
    Memory::database(&store()).namespace(ns).open().unwrap()
}

use common::{fresh_namespace as namespace, memcap_cli as cli, psql};

#[test]
#[ignore = "needs PostgreSQL: tests/postgres/with-cluster cargo test -p memcap-host -- --ignored"]
fn a_bad_setup_gets_a_clear_message_and_a_failing_exit() {
    let url = store();
    let (host_part, _) = url.rsplit_once('/').unwrap();
    let cases = [
        ("postgres://[::1", "not a PostgreSQL connection URL"),
        (&format!("{host_part}/no_such_db") as &str, "does not exist"),
        (
            "postgres://nobody@%2Fno%2Fsuch%2Fdir:1/x",
            "could not connect",
        ),
    ];
    for (store, says) in cases {
        let (code, stderr) = cli(&["--store", store, "view", "/memories"]);
        assert_ne!(code, 0, "{store}");
        assert!(stderr.contains(says), "{store}: {stderr}");
    }
    // A read-only role reads, and its writes fail with a typed error.
    let ns = namespace("ro");
    open(&ns).create("/memories/a.md", "readable").unwrap();
    psql(
        "DO $$ BEGIN IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = 'memcap_reader') THEN \
          CREATE ROLE memcap_reader LOGIN; END IF; END $$; \
          GRANT SELECT ON ALL TABLES IN SCHEMA public TO memcap_reader",
    );
    let reader = url.replacen("postgres@", "memcap_reader@", 1);
    let (code, _) = cli(&[
        "--store",
        &reader,
        "--namespace",
        &ns,
        "view",
        "/memories/a.md",
    ]);
    assert_eq!(code, 0);
    let (code, stderr) = cli(&[
        "--store",
        &reader,
        "--namespace",
        &ns,
        "create",
        "/memories/b.md",
        "x",
    ]);
    assert_ne!(code, 0);
    // The tool error (the last line) is the agent's; the database's own
    // words before it are the operator's log.
    let told = stderr.lines().last().unwrap_or_default();
    assert!(
        told.contains("could not be saved") && told.contains("nothing was changed"),
        "{stderr}"
    );
    assert!(
        !told.contains("permission") && !told.contains("memcap_entries"),
        "{stderr}"
    );
}

/// A cluster of the test's own, stopped when dropped.
struct OwnCluster(std::path::PathBuf);

impl Drop for OwnCluster {
    fn drop(&mut self) {
        let script = concat!(env!("CARGO_MANIFEST_DIR"), "/../tests/postgres/cluster");
        let _ = Command::new(script).arg("stop").arg(&self.0).status();
    }
}

#[test]
#[ignore = "needs PostgreSQL: tests/postgres/with-cluster cargo test -p memcap-host -- --ignored"]
fn tls_is_taken_as_libpq_spells_it() {
    let scratch = tempfile::tempdir().unwrap();
    let dir = scratch.path().join("tls");
    let port = (54_400 + std::process::id() % 500).to_string();
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/../tests/postgres/cluster");
    let out = Command::new(script)
        .args(["start-tls", dir.to_str().unwrap(), &port])
        .output()
        .unwrap();
    let _cluster = OwnCluster(dir.clone());
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // The server takes TLS connections only (hostssl), for localhost.
    let base = String::from_utf8(out.stdout).unwrap().trim().to_owned();
    let ca = dir.join("ca.crt");
    let ca = ca.to_str().unwrap();
    let at_ip = base.replace("localhost", "127.0.0.1");
    let works = |url: String| {
        let (code, stderr) = cli(&["--store", &url, "create", "/memories/tls.md", "x"]);
        assert!(
            code == 0 || stderr.contains("already exists"),
            "{url}: {stderr}"
        );
    };
    works(format!("{base}?sslmode=require"));
    works(base.clone());
    works(format!("{base}?sslmode=verify-full&sslrootcert={ca}"));
    works(format!("{at_ip}?sslmode=verify-ca&sslrootcert={ca}"));
    let fails = |url: String, says: &str| {
        let (code, stderr) = cli(&["--store", &url, "view", "/memories"]);
        assert_ne!(code, 0, "{url}");
        assert!(stderr.contains(says), "{url}: {stderr}");
    };
    fails(format!("{base}?sslmode=disable"), "no encryption");
    fails(
        format!("{base}?sslmode=verify-full&sslrootcert=system"),
        "UnknownIssuer",
    );
    fails(
        format!("{at_ip}?sslmode=verify-full&sslrootcert={ca}"),
        "not valid for name",
    );
    fails(
        format!("{base}?sslmode=verify-full&sslrootcert=/no/such.crt"),
        "sslrootcert=FILE",
    );
    fails(format!("{base}?sslmode=sometimes"), "sslmode=sometimes");
}

#[test]
#[ignore = "needs PostgreSQL: tests/postgres/with-cluster cargo test -p memcap-host -- --ignored"]
fn a_newer_schema_is_refused() {
    // A database of its own, so the other tests keep theirs.
    let db = format!("newer_{}", std::process::id());
    psql(&format!("CREATE DATABASE {db}"));
    let url = format!("{}/{db}", store().rsplit_once('/').unwrap().0);
    open_url(&url);
    Command::new("psql")
        .args([&url, "-c", "INSERT INTO memcap_schema VALUES (99)"])
        .output()
        .unwrap();
    let (code, stderr) = cli(&["--store", &url, "view", "/memories"]);
    assert_ne!(code, 0);
    assert!(
        stderr.contains("newer memcap") && stderr.contains("99"),
        "{stderr}"
    );
}

fn open_url(url: &str) {
    Memory::database(url)
        .open()
        .unwrap()
        .create("/memories/x.md", "x")
        .unwrap();
}
