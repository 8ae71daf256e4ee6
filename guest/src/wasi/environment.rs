//! The environment port over WASI 0.2: clocks, randomness, and the
//! settings the host passed as environment variables.

use memcap_core::storage::Environment;

pub struct WasiEnvironment;

impl Environment for WasiEnvironment {
    fn now_seconds(&self) -> u64 {
        wasip2::clocks::wall_clock::now().seconds
    }

    fn monotonic_nanos(&self) -> u64 {
        wasip2::clocks::monotonic_clock::now()
    }

    fn random_u64(&self) -> u64 {
        wasip2::random::random::get_random_u64()
    }

    fn var(&self, name: &str) -> Option<String> {
        std::env::var(name).ok()
    }
}
