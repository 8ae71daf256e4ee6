//! The storage port's conformance suite on the in-memory storage the
//! core's tests run on, as it is and folding case as macOS does (the
//! guest's WASI adapter runs the same suite over a real directory:
//! `guest/src/wasi/port_suite.rs`).

use memcap_core::storage::Storage;
use memcap_core::storage::conformance::{self, Capabilities};
use memcap_core::storage::memory::MemoryStorage;

fn conforms(fs: &dyn Storage, caps: Capabilities) {
    let failures = conformance::run(fs, "suite", caps);
    assert!(failures.is_empty(), "{failures:#?}");
}

#[test]
fn the_in_memory_storage_conforms() {
    let caps = Capabilities {
        hard_links: true,
        rw_handles: false,
        folds_case: false,
    };
    conforms(&MemoryStorage::new(), caps);
}

#[test]
fn the_in_memory_storage_folding_case_conforms() {
    let caps = Capabilities {
        hard_links: true,
        rw_handles: false,
        folds_case: true,
    };
    conforms(&MemoryStorage::folding_case(), caps);
}
