//! Builds the guest component for `wasm32-wasip2` and hands its paths and hash
//! to the host crate, which embeds it. Like wasmtime's test-programs artifacts,
//! it runs a nested cargo with its own target directory (no lock contention).

use std::path::{Path, PathBuf};
use std::process::Command;

use sha2::{Digest, Sha256};
use wasm_encoder::ComponentSection;
use wit_parser::{PackageMetadata, Resolve, WorldItem};

fn main() {
    let manifest_dir = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").unwrap());
    let workspace = manifest_dir.parent().unwrap().to_path_buf();
    let target_dir = std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| workspace.join("target"))
        .join("guest");
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());

    let out = target_dir.join("wasm32-wasip2").join("release");
    let dist = target_dir.join("dist");
    std::fs::create_dir_all(&dist).expect("creating the guest's dist directory");
    // Both worlds build as `memcap.wasm`: finish each before the next build.
    cargo_guest(&cargo, &workspace, &target_dir, &[]);
    let library = dist.join("memcap.wasm");
    let command = dist.join("memcap-command.wasm");
    finish(&out.join("memcap.wasm"), &library, None);
    finish(&out.join("memcap-command.wasm"), &command, None);
    cargo_guest(
        &cargo,
        &workspace,
        &target_dir,
        &["--lib", "--features", "tools-world"],
    );
    let tools = dist.join("memcap-tools.wasm");
    let docs = tools_docs(&workspace.join("wit"));
    finish(&out.join("memcap.wasm"), &tools, Some(&docs));

    let bytes = std::fs::read(&library).expect("the guest build produced no memcap.wasm");
    let digest = Sha256::digest(&bytes);
    let hex: String = digest.iter().map(|b| format!("{b:02x}")).collect();
    // What the binary embeds: the component deflated (4.9 MB to 2.9 MB),
    // inflated only on a code cache miss, before a compile that takes
    // a second.
    let deflated = PathBuf::from(std::env::var_os("OUT_DIR").unwrap()).join("memcap.wasm.deflated");
    std::fs::write(&deflated, miniz_oxide::deflate::compress_to_vec(&bytes, 10))
        .expect("writing the deflated component");
    println!(
        "cargo:rustc-env=MEMCAP_GUEST_WASM_DEFLATED={}",
        deflated.display()
    );

    println!("cargo:rustc-env=MEMCAP_GUEST_WASM={}", library.display());
    println!("cargo:rustc-env=MEMCAP_COMMAND_WASM={}", command.display());
    println!("cargo:rustc-env=MEMCAP_TOOLS_WASM={}", tools.display());
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
    for watched in [
        "core",
        "embed",
        "guest",
        "wit",
        "Cargo.lock",
        "Cargo.toml",
        ".cargo",
    ] {
        watch(&workspace.join(watched));
    }
}

/// Builds the guest for `wasm32-wasip2` with `extra` arguments.
fn cargo_guest(cargo: &str, workspace: &Path, target_dir: &Path, extra: &[&str]) {
    let mut cmd = Command::new(cargo);
    cmd.args([
        "build",
        "--release",
        "-p",
        "guest",
        "--target",
        "wasm32-wasip2",
    ])
    .args(extra)
    .arg("--manifest-path")
    .arg(workspace.join("Cargo.toml"))
    .env("CARGO_TARGET_DIR", target_dir);
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
}

/// Copies a built component to `to` with the component name `memcap`
/// (Wassette's component id) and, given `docs`, a `package-docs` section.
fn finish(from: &Path, to: &Path, docs: Option<&[u8]>) {
    let bytes = std::fs::read(from).unwrap_or_else(|e| panic!("reading {}: {e}", from.display()));
    let mut metadata = wasm_metadata::AddMetadata::default();
    metadata.name = wasm_metadata::AddMetadataField::Set("memcap".into());
    let mut named = metadata.to_wasm(&bytes).expect("naming the component");
    if let Some(docs) = docs {
        wasm_encoder::CustomSection {
            name: PackageMetadata::SECTION_NAME.into(),
            data: docs.into(),
        }
        .append_to_component(&mut named);
    }
    std::fs::write(to, named).unwrap_or_else(|e| panic!("writing {}: {e}", to.display()));
}

/// The `package-docs` section for the `memcap-tools` component: the docs of
/// its world and of each function it exports, which Wassette shows as tool
/// descriptions. A component's section describes the package its decoder
/// makes (world `root`), so only the world's own functions can carry docs;
/// the WIT declares them without docs and each gets its namesake's in an
/// interface (`file-view` is `files.view`), so the text is written once.
fn tools_docs(wit: &Path) -> Vec<u8> {
    let mut resolve = Resolve::default();
    let (package, _) = resolve.push_dir(wit).expect("wit/ parses");
    let interface_docs: Vec<(String, String)> = resolve.packages[package]
        .interfaces
        .values()
        .flat_map(|id| resolve.interfaces[*id].functions.values())
        .filter_map(|f| Some((f.name.clone(), f.docs.contents.clone()?)))
        .collect();
    let world = resolve.packages[package].worlds["memcap-tools"];
    for item in resolve.worlds[world].exports.values_mut() {
        let WorldItem::Function(function) = item else {
            continue;
        };
        let name = function
            .name
            .strip_prefix("file-")
            .unwrap_or(&function.name);
        let mut found = interface_docs.iter().filter(|(n, _)| n == name);
        let (Some((_, doc)), None) = (found.next(), found.next()) else {
            panic!(
                "wit/: world function {} needs one namesake in an interface",
                function.name
            );
        };
        function.docs.contents = Some(doc.clone());
    }
    let decoded = &mut resolve.packages[package];
    decoded.worlds = [("root".to_owned(), world)].into_iter().collect();
    decoded.interfaces.clear();
    decoded.docs.contents = None;
    PackageMetadata::extract(&resolve, package)
        .encode()
        .expect("encoding package-docs")
}

/// Asks cargo to rerun this script when `path`, or anything below it (a
/// build's own output aside), changes.
fn watch(path: &Path) {
    println!("cargo:rerun-if-changed={}", path.display());
    if let Ok(entries) = std::fs::read_dir(path) {
        for entry in entries.flatten() {
            if entry.file_name() != "target" {
                watch(&entry.path());
            }
        }
    }
}
