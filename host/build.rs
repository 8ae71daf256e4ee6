//! Builds the guest component for `wasm32-wasip2` and hands its paths and hash
//! to the host crate, which embeds it. Like wasmtime's test-programs artifacts,
//! it runs a nested cargo with its own target directory (no lock contention).

use std::path::PathBuf;
use std::process::Command;

use sha2::{Digest, Sha256};

fn main() {
    let manifest_dir = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").unwrap());
    let workspace = manifest_dir.parent().unwrap().to_path_buf();
    let target_dir = std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| workspace.join("target"))
        .join("guest");
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());

    let mut cmd = Command::new(cargo);
    cmd.args([
        "build",
        "--release",
        "-p",
        "guest",
        "--target",
        "wasm32-wasip2",
    ])
    .arg("--manifest-path")
    .arg(workspace.join("Cargo.toml"))
    .env("CARGO_TARGET_DIR", &target_dir);
    // Flags meant for the host build (and clippy's driver) must not reach the guest.
    for var in [
        "CARGO_ENCODED_RUSTFLAGS",
        "RUSTFLAGS",
        "RUSTC_WORKSPACE_WRAPPER",
        "CLIPPY_ARGS",
        "CARGO_BUILD_TARGET",
    ] {
        cmd.env_remove(var);
    }
    let status = cmd
        .status()
        .expect("could not run cargo to build the guest");
    assert!(
        status.success(),
        "building the guest component failed; if the wasm32-wasip2 target is missing, \
         run `rustup target add wasm32-wasip2`"
    );

    let out = target_dir.join("wasm32-wasip2").join("release");
    let library = out.join("memcap.wasm");
    let command = out.join("memcap-command.wasm");
    let bytes = std::fs::read(&library).expect("the guest build produced no memcap.wasm");
    let digest = Sha256::digest(&bytes);
    let hex: String = digest.iter().map(|b| format!("{b:02x}")).collect();

    println!("cargo:rustc-env=MEMCAP_GUEST_WASM={}", library.display());
    println!("cargo:rustc-env=MEMCAP_COMMAND_WASM={}", command.display());
    println!("cargo:rustc-env=MEMCAP_GUEST_SHA256={hex}");
    let lock = std::fs::read_to_string(workspace.join("Cargo.lock")).expect("Cargo.lock");
    let wasmtime = lock
        .split("[[package]]")
        .find_map(|p| {
            p.trim_start()
                .strip_prefix("name = \"wasmtime\"\nversion = \"")
                .and_then(|rest| rest.split('"').next())
        })
        .expect("Cargo.lock names a wasmtime version");
    println!("cargo:rustc-env=MEMCAP_WASMTIME_VERSION={wasmtime}");
    // Every file, not only the directories: an edit in place leaves a
    // directory's own time as it was, and the guest would go stale.
    for watched in ["core", "guest", "wit", "Cargo.lock", "Cargo.toml"] {
        watch(&workspace.join(watched));
    }
}

/// Asks cargo to rerun this script when `path`, or anything below it (a
/// build's own output aside), changes.
fn watch(path: &std::path::Path) {
    println!("cargo:rerun-if-changed={}", path.display());
    if let Ok(entries) = std::fs::read_dir(path) {
        for entry in entries.flatten() {
            if entry.file_name() != "target" {
                watch(&entry.path());
            }
        }
    }
}
