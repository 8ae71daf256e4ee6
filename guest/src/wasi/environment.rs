//! The environment port over WASI 0.2: clocks, randomness, the settings
//! the host passed as environment variables, and the embedder.

use memcap_core::search::embedder::Embedder;
use memcap_core::storage::Environment;

use crate::embedder::CompiledModel;

thread_local! {
    /// Who the host said the calls are for (`versions.set-actor`), over
    /// `MEMCAP_ACTOR` from the environment.
    static ACTOR_SET: std::cell::RefCell<Option<(String, Option<String>)>> =
        const { std::cell::RefCell::new(None) };
}

/// Names who the calls that follow are for, as versions record them.
#[cfg(not(feature = "tools-world"))]
pub fn set_actor(name: String, id: Option<String>) {
    ACTOR_SET.with(|a| *a.borrow_mut() = Some((name, id)));
}

pub struct WasiEnvironment {
    /// The compiled-in model, unless the host set `MEMCAP_VECTORS=off`.
    pub model: Option<CompiledModel>,
}

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

    fn random_u128(&self) -> u128 {
        let bytes = wasip2::random::random::get_random_bytes(16);
        let mut raw = [0u8; 16];
        raw[..bytes.len().min(16)].copy_from_slice(&bytes[..bytes.len().min(16)]);
        u128::from_le_bytes(raw)
    }

    fn var(&self, name: &str) -> Option<String> {
        use memcap_core::vocab::settings::{ACTOR, ACTOR_ID};
        let set = ACTOR_SET.with(|a| a.borrow().clone());
        match (name, set) {
            (ACTOR, Some((actor, _))) => Some(actor),
            (ACTOR_ID, Some((_, id))) => id,
            _ => std::env::var(name).ok(),
        }
    }

    fn embedder(&self) -> Option<&dyn Embedder> {
        self.model.as_ref().map(|m| m as &dyn Embedder)
    }
}
