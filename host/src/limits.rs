//! Resource limits applied to every call.

use std::time::Duration;

/// How much a single call may use. The defaults fit memcap's 8 MiB file limit
/// with room to spare.
#[derive(Clone, Debug)]
pub struct Limits {
    /// Guest linear memory, in bytes.
    pub memory_bytes: usize,
    /// Wall-clock time per call; a guest still running then is stopped.
    pub call_timeout: Duration,
    /// The largest tool input accepted (JSON for `call`, the sum of string
    /// arguments for the typed methods).
    pub max_input_bytes: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Self {
            memory_bytes: 256 << 20,
            call_timeout: Duration::from_secs(10),
            max_input_bytes: 16 << 20,
        }
    }
}
