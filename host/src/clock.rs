//! [`TestClock`] (feature `testing`): a wall clock a test moves by hand, so
//! what ages in memcap (a stamp trusted after two seconds, the sweep every
//! 30, versions stamped in whole seconds) is tested without waiting.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use wasmtime_wasi::HostWallClock;

/// The system's wall clock plus what [`TestClock::advance`] added: given
/// to [`crate::MemoryBuilder::clock`], it is the component's wall clock.
/// Clones share one offset, so every [`crate::Memory`] a test opens with
/// it sees the same time. The monotonic clock (a call's time budget) is
/// the system's: a call never sees time jump under it.
///
/// Files keep the stamps the system gives them, so moving the clock ahead
/// makes what is on disk look as old as waiting would, and a file written
/// after the move looks that much older too.
#[derive(Clone, Debug, Default)]
pub struct TestClock {
    ahead_nanos: Arc<AtomicU64>,
}

impl TestClock {
    /// A clock at the system's time.
    pub fn new() -> Self {
        Self::default()
    }

    /// Moves the clock `by` ahead, for every memory opened with it.
    pub fn advance(&self, by: Duration) {
        let nanos = u64::try_from(by.as_nanos()).unwrap_or(u64::MAX);
        self.ahead_nanos.fetch_add(nanos, Ordering::SeqCst);
    }

    /// What the clock says now.
    pub fn now(&self) -> SystemTime {
        SystemTime::now() + Duration::from_nanos(self.ahead_nanos.load(Ordering::SeqCst))
    }
}

impl HostWallClock for TestClock {
    fn resolution(&self) -> Duration {
        Duration::from_nanos(1)
    }

    fn now(&self) -> Duration {
        TestClock::now(self)
            .duration_since(UNIX_EPOCH)
            .unwrap_or_default()
    }
}
