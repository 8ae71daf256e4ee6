//! The storage port's conformance suite (`memcap_core::storage::conformance`)
//! on this adapter over a real directory, through a real WASI host: `cargo
//! test -p guest --target wasm32-wasip2` with wasmtime as the runner and a
//! directory granted (`./dev port-suite` sets both up).

use memcap_core::storage::conformance::{self, Capabilities};
use wasip2::filesystem::preopens::get_directories;

use super::storage::WasiStorage;

#[test]
fn the_wasi_adapter_conforms_over_a_granted_directory() {
    let (root, name) = get_directories()
        .into_iter()
        .next()
        .expect("the runner grants a directory (see ./dev port-suite)");
    let fs = WasiStorage::new(root);
    // A directory of its own in what the runner granted.
    let base = format!("port-suite-{}", wasip2::random::random::get_random_u64());
    let caps = Capabilities {
        hard_links: true,
        rw_handles: true,
        folds_case: false,
    };
    let failures = conformance::run(&fs, &base, caps);
    assert!(
        failures.is_empty(),
        "on {name}/{base}: {failures:#?} ({} checks)",
        conformance::count()
    );
}
