//! The database backend beside the directory backend, in one run on this
//! machine (PostgreSQL over a unix socket, from `tests/postgres/with-cluster`):
//! warm `view`, `create`, `str_replace` and `memory_search` and a one-shot
//! CLI `view` and `create` at 1,000 and 10,000 notes (100,000 with
//! `MEMCAP_BENCH_100K=1`), each as a ratio to the directory; then the throughput of one server
//! (one `Memory`: one warm instance and one connection, what one `memcap
//! mcp` process holds) against two, on distinct namespaces and on one, with
//! 8 and 32 concurrent clients.

mod common;

use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Instant;

use common::{median_ms, plant, store_sizes, time_ms};
use memcap::Memory;

fn store() -> Option<String> {
    std::env::var("MEMCAP_TEST_STORE").ok()
}

/// A namespace this run alone uses.
fn namespace(tag: &str) -> String {
    format!("bench-{tag}-{}", std::process::id())
}

/// One-shot `memcap OPTIONS COMMAND...`, timed.
fn one_shot(options: &[&str], command: &[&str]) -> f64 {
    time_ms(|| {
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_memcap"))
            .args(options)
            .args(command)
            .output()
            .unwrap();
        assert!(out.status.success(), "{out:?}");
    })
}

/// How long a new host takes to index the store: the calls until the
/// index is whole (a large store's is taken in across calls, each answering
/// "still reading"), and how many of them the time limit stopped.
fn first_index(memory: &Memory) -> (f64, usize, usize) {
    let start = Instant::now();
    let (mut calls, mut stopped) = (0, 0);
    loop {
        calls += 1;
        assert!(calls <= 60, "the index was not whole after 60 calls");
        match memory.memory_view(false) {
            Ok(index) if index.contains("still reading") => {}
            Ok(_) => break,
            Err(e) if e.kind == memcap::ToolErrorKind::TimedOut => stopped += 1,
            Err(e) => panic!("{e:?}"),
        }
    }
    memory.memory_stats().unwrap();
    (start.elapsed().as_secs_f64() * 1e3, calls, stopped)
}

/// Medians of the warm calls on one store, in milliseconds: view, create,
/// str_replace, memory_search.
fn warm(memory: &Memory, tag: &str) -> [f64; 4] {
    let runs = 200;
    let note = |i: usize| format!("/memories/area-{:02}/note-{i:05}.md", i % 50);
    memory
        .memory_search("warm up", None, None, None, None)
        .unwrap();
    let view = median_ms(
        (0..runs)
            .map(|i| time_ms(|| drop(memory.view(&note(i), None).unwrap())))
            .collect(),
    );
    let create = median_ms(
        (0..runs)
            .map(|i| {
                time_ms(|| {
                    drop(
                        memory
                            .create(&format!("/memories/new-{tag}/{i}.md"), "a new note\n")
                            .unwrap(),
                    )
                })
            })
            .collect(),
    );
    let replace = median_ms(
        (0..runs)
            .map(|i| {
                time_ms(|| {
                    drop(
                        memory
                            .str_replace(
                                &note(i),
                                &format!("name: Note {i}\n"),
                                &format!("name: Note {i}b\n"),
                            )
                            .unwrap(),
                    )
                })
            })
            .collect(),
    );
    let search = median_ms(
        (0..runs)
            .map(|i| {
                time_ms(|| {
                    drop(
                        memory
                            .memory_search(&format!("note {i} about"), None, None, None, None)
                            .unwrap(),
                    )
                })
            })
            .collect(),
    );
    [view, create, replace, search]
}

fn side_by_side(url: &str, notes: usize) {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("memories");
    std::fs::create_dir_all(&root).unwrap();
    plant(&root, notes);
    let on_disk = Memory::open(&root).unwrap();
    let ns = namespace(&format!("side-{notes}"));
    let in_db = Memory::database(url).namespace(&ns).open().unwrap();
    in_db.import(&on_disk.export().unwrap(), false).unwrap();
    // The first index call of each builds its catalog and indexes.
    let (first_db, calls_db, stopped_db) = first_index(&in_db);
    let (first_dir, calls_dir, stopped_dir) = first_index(&on_disk);
    let d = warm(&on_disk, "d");
    let b = warm(&in_db, "b");
    let shot = |options: &[&str], create: bool| {
        median_ms(
            (0..15)
                .map(|i| {
                    let path = match create {
                        false => format!("/memories/area-{:02}/note-{i:05}.md", i % 50),
                        true => format!("/memories/shot-{}/{i}.md", options.len()),
                    };
                    let command: &[&str] = match create {
                        false => &["view", &path],
                        true => &["create", &path, "a note made by one call\n"],
                    };
                    one_shot(options, command)
                })
                .collect(),
        )
    };
    let root_arg = root.to_str().unwrap();
    let shot_dir = shot(&["--root", root_arg], false);
    let shot_db = shot(&["--store", url, "--namespace", &ns], false);
    let make_dir = shot(&["--root", root_arg], true);
    let make_db = shot(&["--store", url, "--namespace", &ns], true);
    println!(
        "{notes} notes: a new host's index whole after directory {first_dir:.0} ms \
         ({calls_dir} calls, {stopped_dir} stopped by the time limit), \
         database {first_db:.0} ms ({calls_db} calls, {stopped_db} stopped)"
    );
    println!(
        "{:>24} | {:>10} | {:>10} | {:>6} | target",
        "median, ms", "directory", "database", "ratio"
    );
    let targets = [Some(3.0), Some(1.0), None, Some(1.5), Some(3.0), None];
    let names = [
        "warm view",
        "warm create",
        "warm str_replace",
        "warm memory_search",
        "one-shot CLI view",
        "one-shot CLI create",
    ];
    let dirs = [d[0], d[1], d[2], d[3], shot_dir, make_dir];
    let dbs = [b[0], b[1], b[2], b[3], shot_db, make_db];
    for i in 0..names.len() {
        let ratio = dbs[i] / dirs[i];
        let target = match targets[i] {
            Some(t) => format!("≤ {t}× {}", if ratio <= t { "met" } else { "MISSED" }),
            None => "-".to_owned(),
        };
        println!(
            "{:>24} | {:>10.3} | {:>10.3} | {:>5.2}× | {target}",
            names[i], dirs[i], dbs[i], ratio
        );
    }
}

/// Calls per second of `create` from `clients` threads spread over
/// `servers` (each a `Memory` on `namespaces[s]`).
fn throughput(url: &str, namespaces: &[String], clients: usize) -> f64 {
    const CALLS: usize = 800;
    let servers: Vec<Memory> = namespaces
        .iter()
        .map(|ns| Memory::database(url).namespace(ns).open().unwrap())
        .collect();
    for server in &servers {
        drop(server.view("/memories", None).unwrap());
    }
    let next = AtomicUsize::new(0);
    let start = Instant::now();
    std::thread::scope(|scope| {
        for c in 0..clients {
            let server = &servers[c % servers.len()];
            let next = &next;
            scope.spawn(move || {
                loop {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    if i >= CALLS {
                        break;
                    }
                    server
                        .create(
                            &format!("/memories/t{}/c{c}-{i}.md", std::process::id()),
                            "x\n",
                        )
                        .unwrap();
                }
            });
        }
    });
    CALLS as f64 / start.elapsed().as_secs_f64()
}

fn main() {
    let sizes = store_sizes();
    if sizes.is_empty() {
        return;
    }
    let Some(url) = store() else {
        eprintln!(
            "database bench: MEMCAP_TEST_STORE is not set; run it through tests/postgres/with-cluster"
        );
        std::process::exit(1);
    };
    println!("database backend vs directory backend (one run, PostgreSQL on a unix socket)");
    for notes in sizes {
        side_by_side(&url, notes);
    }
    println!("create throughput, calls/s (one server = one Memory: one instance, one connection)");
    println!(
        "{:>8} | {:>10} | {:>25} | {:>20}",
        "clients", "one server", "two, distinct namespaces", "two, one namespace"
    );
    for clients in [8, 32] {
        let one = throughput(&url, &[namespace(&format!("t1-{clients}"))], clients);
        let distinct = throughput(
            &url,
            &[
                namespace(&format!("t2a-{clients}")),
                namespace(&format!("t2b-{clients}")),
            ],
            clients,
        );
        let same = namespace(&format!("t3-{clients}"));
        let shared = throughput(&url, &[same.clone(), same], clients);
        println!("{clients:>8} | {one:>10.0} | {distinct:>25.0} | {shared:>20.0}");
    }
}
