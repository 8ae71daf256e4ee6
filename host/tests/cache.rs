//! The compiled-code cache runs as native code, so a cached compile is loaded
//! only from a directory and a file that are this user's alone; anything
//! else is skipped, once, with the reason on stderr, and the call still works.

mod common;

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::Output;

fn view(cache: &Path, root: &Path) -> Output {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_memcap"))
        .env("MEMCAP_CACHE_DIR", cache)
        .arg("--root")
        .arg(root)
        .args(["view", "/memories"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    assert!(
        String::from_utf8_lossy(&out.stdout).starts_with("Here're the files"),
        "{out:?}"
    );
    out
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

fn cwasm_in(dir: &Path) -> Vec<PathBuf> {
    std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "cwasm"))
        .collect()
}

fn chmod(path: &Path, mode: u32) {
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode)).unwrap();
}

fn is_root() -> bool {
    // SAFETY: geteuid has no preconditions.
    unsafe { libc::geteuid() == 0 }
}

#[test]
fn a_compiled_component_is_loaded_only_from_a_private_cache() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("memories");
    let private = tmp.path().join("private");

    // A private cache: made 0700, the file 0600, named for the exact
    // component, wasmtime version and engine; a second start loads it quietly.
    let first = view(&private, &root);
    assert_eq!(stderr(&first), "");
    let [cached] = &cwasm_in(&private)[..] else {
        panic!("one compiled file in {private:?}")
    };
    assert_eq!(
        std::fs::metadata(&private).unwrap().permissions().mode() & 0o777,
        0o700
    );
    assert_eq!(
        std::fs::metadata(cached).unwrap().permissions().mode() & 0o777,
        0o600
    );
    let name = cached.file_name().unwrap().to_str().unwrap().to_owned();
    assert!(name.starts_with("memcap-"), "{name}");
    assert!(name.contains("-wasmtime-48.0.8-"), "{name}");
    assert_eq!(
        name.split('-').nth(1).unwrap().len(),
        64,
        "full SHA-256: {name}"
    );
    assert_eq!(stderr(&view(&private, &root)), "");

    // The same valid compiled file planted in places it cannot be trusted.
    let shared = tmp.path().join("shared");
    let plant = |dir_mode: u32, file_mode: u32| {
        let _ = std::fs::remove_dir_all(&shared);
        std::fs::create_dir(&shared).unwrap();
        std::fs::copy(cached, shared.join(&name)).unwrap();
        chmod(&shared.join(&name), file_mode);
        chmod(&shared, dir_mode);
    };
    let refused = |what: &str, reason: &str| {
        let out = view(&shared, &root);
        let said = stderr(&out);
        assert!(
            said.contains("not using the compiled-code cache"),
            "{what}: {said}"
        );
        assert!(said.contains(reason), "{what}: {said}");
        assert_eq!(said.lines().count(), 1, "{what}: said once: {said}");
    };
    plant(0o777, 0o600);
    refused(
        "world-writable directory",
        "can be written by other users (mode 777)",
    );
    plant(0o770, 0o600);
    refused(
        "group-writable directory",
        "can be written by other users (mode 770)",
    );
    plant(0o700, 0o666);
    refused(
        "world-writable file",
        "can be written by other users (mode 666)",
    );
    plant(0o700, 0o620);
    refused(
        "group-writable file",
        "can be written by other users (mode 620)",
    );

    plant(0o700, 0o600);
    std::fs::remove_file(shared.join(&name)).unwrap();
    std::os::unix::fs::symlink(cached, shared.join(&name)).unwrap();
    refused("a link to a good file", "is a symbolic link");

    let link = tmp.path().join("link");
    std::os::unix::fs::symlink(&private, &link).unwrap();
    let out = view(&link, &root);
    assert!(stderr(&out).contains("is a symbolic link"), "{out:?}");

    if is_root() {
        // Files and directories of another user (nobody, 65534).
        let chown = |p: &Path| {
            let c = std::ffi::CString::new(p.to_str().unwrap()).unwrap();
            // SAFETY: a valid NUL-terminated path.
            assert_eq!(unsafe { libc::chown(c.as_ptr(), 65534, 65534) }, 0);
        };
        plant(0o700, 0o600);
        chown(&shared.join(&name));
        refused("another user's file", "belongs to another user (uid 65534)");
        plant(0o700, 0o600);
        chown(&shared);
        refused(
            "another user's directory",
            "belongs to another user (uid 65534)",
        );
    } else {
        eprintln!("not root: the other-uid cases need root to chown");
    }

    // A damaged file of our own is replaced, not trusted.
    plant(0o700, 0o600);
    std::fs::write(shared.join(&name), b"not compiled code").unwrap();
    assert_eq!(stderr(&view(&shared, &root)), "");
    assert_eq!(
        std::fs::read(shared.join(&name)).unwrap(),
        std::fs::read(cached).unwrap()
    );
}

#[test]
fn a_trusted_compile_is_mapped_from_its_file_not_copied() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("memories");
    let private = tmp.path().join("private");
    view(&private, &root);
    let [cached] = &cwasm_in(&private)[..] else {
        panic!("one compiled file in {private:?}")
    };
    // A long-lived process on the warm cache: its code is the file's pages.
    let mut server = std::process::Command::new(env!("CARGO_BIN_EXE_memcap"))
        .env("MEMCAP_CACHE_DIR", &private)
        .arg("--root")
        .arg(&root)
        .args(["mcp", "--no-watch"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let maps = format!("/proc/{}/maps", server.id());
    let cached = cached.to_str().unwrap().to_owned();
    let mapped = common::within(std::time::Duration::from_secs(10), || {
        let text = std::fs::read_to_string(&maps).unwrap_or_default();
        text.lines().any(|l| l.ends_with(&cached))
    })
    .is_some();
    server.kill().unwrap();
    server.wait().unwrap();
    assert!(mapped, "{cached} is not mapped by the server");
}
