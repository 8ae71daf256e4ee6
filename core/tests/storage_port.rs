//! The storage port's conformance suite on the in-memory storage the
//! core's tests run on, as it is and folding case as macOS does (the
//! guest's WASI adapter runs the same suite over a real directory:
//! `guest/src/wasi/port_suite.rs`).

use memcap_core::storage::Storage;
use memcap_core::storage::conformance::{self, Capabilities};
use memcap_core::storage::memory::MemoryStorage;

/// The suite on `fs`, which gives hard links and no read-write handles.
fn conforms(fs: &dyn Storage, folds_case: bool) {
    let caps = Capabilities {
        hard_links: true,
        rw_handles: false,
        folds_case,
    };
    let failures = conformance::run(fs, "suite", caps);
    assert!(failures.is_empty(), "{failures:#?}");
}

#[test]
fn the_in_memory_storage_conforms() {
    conforms(&MemoryStorage::new(), false);
}

#[test]
fn the_in_memory_storage_folding_case_conforms() {
    conforms(&MemoryStorage::folding_case(), true);
}
