//! Per-command latency: memcap with a warm instance, native Rust `std::fs`
//! doing the same durable steps, the Python SDK, and a cold `memcap` CLI call.
//! Figures are medians of one run, printed as a table with ratios; nothing is
//! asserted (targets live in the README). Run with `./dev bench`.

use std::collections::BTreeMap;
use std::fs::{self, File};
use std::io::Write;
use std::path::Path;
use std::process::Command;
use std::time::Instant;

use memcap::Memory;

const N: usize = 400;
const OPS: [&str; 7] = [
    "view file",
    "view dir",
    "create",
    "str_replace",
    "insert",
    "rename",
    "delete",
];

fn median_us(mut samples: Vec<f64>) -> f64 {
    samples.sort_by(f64::total_cmp);
    samples[samples.len() / 2]
}

const SWAP: [&str; 2] = ["alpha", "omega"];

/// One command, as memcap runs it and as native code doing the same steps.
type Step<'a> = Box<dyn FnMut(usize) + 'a>;

/// The same durable steps memcap takes: temp file, fsync, rename or link,
/// fsync of the directory.
fn durable_write(dir: &Path, name: &str, bytes: &[u8], replace: bool) {
    let temp = dir.join(".tmp-bench");
    let mut f = File::create(&temp).unwrap();
    f.write_all(bytes).unwrap();
    f.sync_all().unwrap();
    if replace {
        fs::rename(&temp, dir.join(name)).unwrap();
    } else {
        fs::hard_link(&temp, dir.join(name)).unwrap();
        fs::remove_file(&temp).unwrap();
    }
    File::open(dir).unwrap().sync_all().unwrap();
}

fn numbered(text: &str) -> String {
    let mut out = String::from("Here's the content of /memories/note.md with line numbers:\n");
    for (i, line) in text.split('\n').enumerate() {
        if i > 0 {
            out.push('\n');
        }
        out.push_str(&format!("{:>6}\t{line}", i + 1));
    }
    out
}

fn listing(root: &Path) -> Vec<String> {
    let mut listing = Vec::new();
    let mut names: Vec<_> = fs::read_dir(root)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    names.sort();
    for path in names {
        let meta = fs::metadata(&path).unwrap();
        listing.push(format!("{}\t{}", meta.len(), path.display()));
        if meta.is_dir() {
            for e in fs::read_dir(&path).unwrap() {
                let e = e.unwrap();
                listing.push(format!(
                    "{}\t{}",
                    e.metadata().unwrap().len(),
                    e.path().display()
                ));
            }
        }
    }
    listing
}

/// Each command's memcap and native steps, on identical starting trees.
fn steps<'a>(m: &'a Memory, root: &'a Path) -> Vec<(&'static str, Step<'a>, Step<'a>)> {
    vec![
        (
            "view file",
            Box::new(move |_| drop(m.view("/memories/note.md", None).unwrap())),
            Box::new(move |_| drop(numbered(&fs::read_to_string(root.join("note.md")).unwrap()))),
        ),
        (
            "view dir",
            Box::new(move |_| drop(m.view("/memories", None).unwrap())),
            Box::new(move |_| drop(listing(root))),
        ),
        (
            "create",
            Box::new(move |i| {
                drop(
                    m.create(&format!("/memories/new/{i}.md"), "hello\n")
                        .unwrap(),
                )
            }),
            Box::new(move |i| {
                durable_write(&root.join("new"), &format!("{i}.md"), b"hello\n", false)
            }),
        ),
        (
            "str_replace",
            Box::new(move |i| {
                drop(
                    m.str_replace("/memories/note.md", SWAP[i % 2], SWAP[(i + 1) % 2])
                        .unwrap(),
                )
            }),
            Box::new(move |i| {
                let text = fs::read_to_string(root.join("note.md")).unwrap();
                durable_write(
                    root,
                    "note.md",
                    text.replacen(SWAP[i % 2], SWAP[(i + 1) % 2], 1).as_bytes(),
                    true,
                );
            }),
        ),
        (
            "insert",
            Box::new(move |_| drop(m.insert("/memories/ins.md", 0, "x").unwrap())),
            Box::new(move |_| {
                let text = fs::read_to_string(root.join("ins.md")).unwrap();
                durable_write(root, "ins.md", format!("x\n{text}").as_bytes(), true);
            }),
        ),
        (
            "rename",
            Box::new(move |i| {
                m.rename(
                    &format!("/memories/r{}.md", i % 2),
                    &format!("/memories/r{}.md", (i + 1) % 2),
                )
                .unwrap();
            }),
            Box::new(move |i| {
                fs::rename(
                    root.join(format!("r{}.md", i % 2)),
                    root.join(format!("r{}.md", (i + 1) % 2)),
                )
                .unwrap();
                File::open(root).unwrap().sync_all().unwrap();
            }),
        ),
        (
            "delete",
            Box::new(move |i| drop(m.delete(&format!("/memories/new/{i}.md")).unwrap())),
            Box::new(move |i| {
                fs::remove_file(root.join(format!("new/{i}.md"))).unwrap();
                File::open(root.join("new")).unwrap().sync_all().unwrap();
            }),
        ),
    ]
}

fn seed(root: &Path) {
    fs::create_dir_all(root.join("dir")).unwrap();
    fs::create_dir_all(root.join("new")).unwrap();
    fs::write(
        root.join("note.md"),
        format!("alpha\n{}", "line\n".repeat(20)),
    )
    .unwrap();
    fs::write(root.join("ins.md"), "").unwrap();
    fs::write(root.join("r0.md"), "r").unwrap();
    for i in 0..20 {
        fs::write(root.join(format!("dir/f{i}.md")), "x").unwrap();
    }
}

fn elapsed_us(f: &mut Step<'_>, i: usize) -> f64 {
    let start = Instant::now();
    f(i);
    start.elapsed().as_secs_f64() * 1e6
}

/// memcap and native alternate call by call, so both see the same machine
/// noise; the ratio is the median of the per-pair ratios.
fn memcap_and_native(dir: &Path) -> BTreeMap<&'static str, (f64, f64, f64)> {
    let (mem_root, native_root) = (dir.join("memcap"), dir.join("native"));
    seed(&mem_root);
    seed(&native_root);
    let memory = Memory::open(&mem_root).unwrap();
    let mut out = BTreeMap::new();
    for (name, mut ours, mut native) in steps(&memory, &native_root) {
        let (mut a, mut b, mut ratio) = (Vec::new(), Vec::new(), Vec::new());
        for i in 0..N {
            let (x, y) = (elapsed_us(&mut ours, i), elapsed_us(&mut native, i));
            a.push(x);
            b.push(y);
            ratio.push(x / y);
        }
        out.insert(name, (median_us(a), median_us(b), median_us(ratio)));
    }
    out
}

fn sdk(dir: &Path) -> Option<BTreeMap<String, f64>> {
    let python = std::env::var("MEMCAP_PYTHON").ok()?;
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("benches/sdk_latency.py");
    let out = Command::new(python)
        .arg(script)
        .arg(N.to_string())
        .arg(dir)
        .output()
        .ok()?;
    if !out.status.success() {
        eprintln!(
            "SDK benchmark failed: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        return None;
    }
    serde_json::from_slice(&out.stdout).ok()
}

/// Ms of one `memcap ARGS` process.
fn process_ms(args: &[&std::ffi::OsStr]) -> f64 {
    let start = Instant::now();
    let status = Command::new(env!("CARGO_BIN_EXE_memcap"))
        .args(args)
        .stdout(std::process::Stdio::null())
        .status()
        .unwrap();
    assert!(status.success());
    start.elapsed().as_secs_f64() * 1e3
}

/// One `memcap view` process per call, compiled component cached on disk,
/// and `memcap --version` (the process floor): medians of 100 ms each,
/// taken in turns of 10 of one then 10 of the other, so a slow spell of the
/// machine lands on both sides of the ratio rather than on one (each turn
/// long enough that neither pays for the other's cold caches).
fn cold_cli_ms(dir: &Path) -> (f64, f64) {
    let root = dir.join("cold");
    Memory::open(&root)
        .unwrap()
        .create("/memories/note.md", "hello\n")
        .unwrap();
    let view: [&std::ffi::OsStr; 4] = [
        "--root".as_ref(),
        root.as_os_str(),
        "view".as_ref(),
        "/memories/note.md".as_ref(),
    ];
    let (mut views, mut floors) = (Vec::new(), Vec::new());
    for _ in 0..10 {
        views.extend((0..10).map(|_| process_ms(&view)));
        floors.extend((0..10).map(|_| process_ms(&["--version".as_ref()])));
    }
    (median_us(views), median_us(floors))
}

/// The WASI calls one `create` makes on a warm instance (the second create
/// of one process: the first also reads the journal), counted from the
/// wasmtime CLI's trace of the command component (`MEMCAP_WASMTIME`; the
/// venv's from `./dev setup`). Clock and random calls count too.
fn wasi_calls_per_create(dir: &Path) -> Option<usize> {
    let wasmtime = std::env::var("MEMCAP_WASMTIME").unwrap_or_else(|_| {
        concat!(env!("CARGO_MANIFEST_DIR"), "/../.venv/bin/wasmtime").to_owned()
    });
    let store = dir.join("traced");
    fs::create_dir_all(&store).unwrap();
    // Outputs go to stdout, one line per call: its writes split the trace.
    let input = (0..4)
        .map(|i| match i % 2 {
            0 => format!(
                r#"{{"command":"create","path":"/memories/n{i}.md","file_text":"note {i}\n"}}"#
            ),
            _ => r#"{"command":"view","path":"/memories/n0.md"}"#.to_owned(),
        })
        .collect::<Vec<_>>()
        .join("\n");
    let mut child = Command::new(&wasmtime)
        .args(["run", "--dir"])
        .arg(format!("{}::/memories", store.display()))
        .arg(memcap::COMMAND_WASM_PATH)
        .env("WASMTIME_LOG", "wasmtime_wasi=trace")
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .ok()?;
    child
        .stdin
        .take()?
        .write_all(format!("{input}\n").as_bytes())
        .ok()?;
    let out = child.wait_with_output().ok()?;
    let calls: Vec<&str> = std::str::from_utf8(&out.stderr)
        .ok()?
        .lines()
        .filter(|l| l.ends_with(": call") || l.contains(": call "))
        .collect();
    // stdout is resource 2 in the command component's table.
    let answers: Vec<usize> = calls
        .iter()
        .enumerate()
        .filter(|(_, l)| l.contains("output-stream.write") && l.contains("rep: 2"))
        .map(|(i, _)| i)
        .collect();
    // Between the second answer (the view's) and the third: the second
    // create, less the view's flush and the create's own `check-write`.
    Some(answers.get(2)? - answers.get(1)? - 3)
}

fn main() {
    // `cargo bench` passes --bench; there is nothing to filter.
    // On tmpfs an fsync is free, so memcap and the SDK (which syncs
    // nothing) are compared on CPU alone; MEMCAP_BENCH_DIR picks another
    // file system.
    let base = std::env::var("MEMCAP_BENCH_DIR").unwrap_or_else(|_| {
        if Path::new("/dev/shm").is_dir() {
            "/dev/shm".to_owned()
        } else {
            env!("CARGO_TARGET_TMPDIR").to_owned()
        }
    });
    let dir = tempfile::tempdir_in(&base).unwrap();
    let pairs = memcap_and_native(dir.path());
    let sdk = sdk(dir.path());
    println!("median latency per call, {N} calls each (µs) in {base}; ratios from this run");
    println!(
        "{:<12} {:>10} {:>10} {:>14} {:>10} {:>12}",
        "command", "memcap", "native", "memcap/native", "SDK", "SDK/memcap"
    );
    for op in OPS {
        let (m, n, ratio) = pairs[op];
        let s = sdk.as_ref().and_then(|s| s.get(op)).copied();
        println!(
            "{op:<12} {m:>10.1} {n:>10.1} {ratio:>13.2}x {:>10} {:>12}",
            s.map_or("-".into(), |s| format!("{s:.1}")),
            s.map_or("-".into(), |s| format!("{:.1}x", s / m)),
        );
    }
    if let Some(sdk) = &sdk {
        for op in ["create", "str_replace", "insert", "rename", "delete"] {
            let ratio = pairs[op].0 / sdk[op];
            println!(
                "warm `{op}` in {base}: {ratio:.2}× the Python SDK's: target ≤ 1.5× {}",
                if ratio <= 1.5 { "met" } else { "MISSED" }
            );
        }
    } else {
        println!(
            "(SDK column empty: set MEMCAP_PYTHON to a python with anthropic==2.12.0; ./dev bench does)"
        );
    }
    // What `cargo install --path host` installs is this profile's binary.
    let size = std::fs::metadata(env!("CARGO_BIN_EXE_memcap"))
        .unwrap()
        .len() as f64
        / 1e6;
    println!(
        "the memcap binary: {size:.1} MB: target ≤ 40 MB {}",
        if size <= 40.0 { "met" } else { "MISSED" }
    );
    match wasi_calls_per_create(dir.path()) {
        Some(calls) => println!(
            "WASI calls per warm `create` (wasmtime CLI trace): {calls}: target ≤ 20 {}",
            if calls <= 20 { "met" } else { "MISSED" }
        ),
        None => {
            println!("WASI calls per create: no wasmtime CLI (./dev setup, or MEMCAP_WASMTIME)")
        }
    }
    let (view, floor) = cold_cli_ms(dir.path());
    let ratio = view / floor;
    println!(
        "cold CLI call (`memcap view`, one process, cached compile): {view:.2} ms median of 100, \
         {ratio:.2}× `memcap --version` ({floor:.2} ms): target ≤ 2× {}",
        if ratio <= 2.0 { "met" } else { "MISSED" }
    );
}
