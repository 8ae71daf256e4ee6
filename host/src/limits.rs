//! Resource limits applied to every call.

use std::time::Duration;

/// How much a single call may use, and how much the store may hold. The
/// defaults fit memcap's 8 MiB file limit with room to spare; the store
/// quota defaults (200,000 files, 1 GiB) are the guest's own.
#[derive(Clone, Debug)]
pub struct Limits {
    /// Guest linear memory, in bytes.
    pub memory_bytes: usize,
    /// Wall-clock time per call; a guest still running then is stopped.
    pub call_timeout: Duration,
    /// The largest tool input accepted (JSON for `call`, the sum of string
    /// arguments for the typed methods).
    pub max_input_bytes: usize,
    /// The store's quota: files it may hold (every file outside `.memcap`).
    /// A change past it is refused and writes nothing.
    pub max_store_files: u64,
    /// The store's quota in bytes, likewise.
    pub max_store_bytes: u64,
    /// How many days of version history to keep (the oldest go first).
    pub history_days: u64,
    /// How many MiB of version history to keep (log and contents); 0
    /// records no history.
    pub history_mib: u64,
}

impl Default for Limits {
    fn default() -> Self {
        Self {
            memory_bytes: 256 << 20,
            call_timeout: Duration::from_secs(10),
            max_input_bytes: memcap_core::lines::DEFAULT_MAX_INPUT_BYTES,
            max_store_files: 200_000,
            max_store_bytes: 1 << 30,
            history_days: 30,
            history_mib: 256,
        }
    }
}
