//! `memcap copy` between directories: what it will not replace, what it
//! leaves out, and what it refuses whole (what memcap never writes). These
//! are about host directories (links, FIFOs, names that are not UTF-8, a
//! project that is not a store), so this suite runs on
//! directories only; `database.rs` copies to a database and back.

use std::os::unix::ffi::OsStrExt;
use std::path::Path;
use std::process::Command;

const MEMCAP: &str = env!("CARGO_BIN_EXE_memcap");

fn copy(args: &[&Path]) -> (i32, String, String) {
    let out = Command::new(MEMCAP)
        .arg("copy")
        .args(args)
        .output()
        .unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn store_with(dir: &Path, files: &[(&str, &str)]) {
    for (name, text) in files {
        let out = Command::new(MEMCAP)
            .arg("--root")
            .arg(dir)
            .args(["create", &format!("/memories/{name}"), text])
            .output()
            .unwrap();
        assert!(out.status.success(), "{out:?}");
    }
}

/// Every path under `dir`, with its bytes for files.
fn tree(dir: &Path) -> Vec<(String, Option<Vec<u8>>)> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(at) = stack.pop() {
        for entry in std::fs::read_dir(&at).unwrap() {
            let path = entry.unwrap().path();
            let rel = path
                .strip_prefix(dir)
                .unwrap()
                .to_string_lossy()
                .into_owned();
            let meta = std::fs::symlink_metadata(&path).unwrap();
            if meta.is_dir() {
                stack.push(path.clone());
                out.push((rel, None));
            } else {
                out.push((rel, std::fs::read(&path).ok()));
            }
        }
    }
    out.sort();
    out
}

#[test]
fn a_directory_that_is_not_a_store_is_never_replaced_nor_made_one() {
    let tmp = tempfile::tempdir().unwrap();
    let src = tmp.path().join("src");
    store_with(&src, &[("a.md", "hello\n")]);
    let project = tmp.path().join("project");
    std::fs::create_dir_all(project.join(".git")).unwrap();
    std::fs::write(project.join("main.rs"), "fn main() {}\n").unwrap();
    std::fs::write(project.join(".git/HEAD"), "ref: refs/heads/main\n").unwrap();
    let before = tree(&project);
    for replace in [false, true] {
        let mut args = vec![src.as_path(), project.as_path()];
        let flag = Path::new("--replace");
        if replace {
            args.push(flag);
        }
        let (code, _, stderr) = copy(&args);
        assert_ne!(code, 0, "{stderr}");
        assert!(
            stderr.contains("not a memcap store") && stderr.contains("project"),
            "{stderr}"
        );
        assert_eq!(
            tree(&project),
            before,
            "the project changed (replace {replace})"
        );
    }
    // An empty directory, and a store, are fine targets; a store is replaced.
    let empty = tmp.path().join("empty");
    std::fs::create_dir(&empty).unwrap();
    assert_eq!(copy(&[&src, &empty]).0, 0);
    let other = tmp.path().join("other");
    store_with(&other, &[("old.md", "old\n")]);
    let (code, _, stderr) = copy(&[&src, &other, Path::new("--replace")]);
    assert_eq!(code, 0, "{stderr}");
    assert!(other.join("a.md").is_file() && !other.join("old.md").exists());
}

#[test]
fn links_special_files_and_odd_names_are_named_as_skipped_and_the_rest_is_copied() {
    let tmp = tempfile::tempdir().unwrap();
    let src = tmp.path().join("src");
    store_with(&src, &[("a.md", "alpha\n"), ("sub/b.md", "bravo\n")]);
    std::os::unix::fs::symlink("/etc/passwd", src.join("passwd-link")).unwrap();
    std::os::unix::fs::symlink("a.md", src.join("sub/inner-link")).unwrap();
    rustix::fs::mknodat(
        rustix::fs::CWD,
        src.join("fifo"),
        rustix::fs::FileType::Fifo,
        rustix::fs::Mode::from_raw_mode(0o600),
        0,
    )
    .unwrap();
    let odd = std::ffi::OsStr::from_bytes(b"odd-\xff.md");
    std::fs::write(src.join(odd), "odd\n").unwrap();
    let dst = tmp.path().join("dst");
    let (code, stdout, stderr) = copy(&[&src, &dst]);
    assert_eq!(code, 0, "{stderr}");
    for (name, why) in [
        ("passwd-link", "symbolic link"),
        ("sub/inner-link", "symbolic link"),
        ("fifo", "FIFO"),
        ("odd-\u{fffd}.md", "not UTF-8"),
    ] {
        assert!(
            stderr
                .lines()
                .any(|l| l.contains(&format!("{name:?}")) && l.contains(why)),
            "{name} not named: {stderr}"
        );
    }
    assert!(stdout.contains("skipped 4"), "{stdout}");
    assert_eq!(
        std::fs::read_to_string(dst.join("a.md")).unwrap(),
        "alpha\n"
    );
    assert_eq!(
        std::fs::read_to_string(dst.join("sub/b.md")).unwrap(),
        "bravo\n"
    );
    assert!(!dst.join("passwd-link").exists() && !dst.join("fifo").exists());
}

#[test]
fn what_memcap_would_never_write_is_refused_whole_and_nothing_lands() {
    for (name, bytes, words) in [
        (
            "esc\u{1b}[31m.md",
            b"x\n".to_vec(),
            "control or invisible character",
        ),
        ("rlo\u{202e}dm.exe", b"x\n".to_vec(), "control or invisible"),
        ("big.md", vec![b'x'; 9 << 20], "over 8 MiB"),
    ] {
        let src = tempfile::tempdir().unwrap();
        store_with(src.path(), &[("fine.md", "fine\n")]);
        std::fs::write(src.path().join(name), &bytes).unwrap();
        let dst = tempfile::tempdir().unwrap();
        let to = dst.path().join("copy");
        let (code, _, err) = copy(&[src.path(), &to]);
        assert_ne!(code, 0, "{name:?} was copied");
        assert!(err.contains(words), "{name:?}: {err}");
        let landed: Vec<_> = tree(&to)
            .into_iter()
            .filter(|(p, _)| !p.starts_with(".memcap"))
            .collect();
        assert!(landed.is_empty(), "{name:?}: {landed:?}");
    }
}

#[test]
fn an_import_past_the_destinations_quota_writes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let limits = memcap::Limits {
        max_store_files: 2,
        ..memcap::Limits::default()
    };
    let memory = memcap::Memory::builder(dir.path())
        .create_root(true)
        .limits(limits)
        .open()
        .unwrap();
    let entries: Vec<memcap::Entry> = (0..3)
        .map(|i| memcap::Entry::File(format!("n{i}.md"), b"x\n".to_vec()))
        .collect();
    let err = memory.import(&entries, false).unwrap_err().to_string();
    assert!(
        err.contains("3 files, past the destination's quota of 2"),
        "{err}"
    );
    assert!(memory.view("/memories", None).unwrap().lines().count() <= 2);
    memory.import(&entries[..2], false).unwrap();
    assert!(memory.view("/memories/n1.md", None).is_ok());
}
