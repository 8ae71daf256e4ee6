//! What the server is doing now: requests being read or routed and calls
//! running, counted so a shutdown can let them finish.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

/// The count of work in progress; clones count together.
#[derive(Clone, Default)]
pub struct Busy(Arc<AtomicUsize>);

/// Counts one piece of work until dropped.
pub struct Working(Arc<AtomicUsize>);

impl Drop for Working {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::SeqCst);
    }
}

impl Busy {
    /// Counts work from now until the returned value is dropped.
    pub fn start(&self) -> Working {
        self.0.fetch_add(1, Ordering::SeqCst);
        Working(Arc::clone(&self.0))
    }

    pub fn count(&self) -> usize {
        self.0.load(Ordering::SeqCst)
    }

    /// Waits until nothing is in progress, or `deadline`. A request hands
    /// its call to the session's task after its own count ends, so the
    /// count must stay at zero a moment before the work counts as done.
    pub async fn settle(&self, deadline: tokio::time::Instant) {
        const QUIET: Duration = Duration::from_millis(50);
        while tokio::time::Instant::now() < deadline {
            if self.count() == 0 {
                tokio::time::sleep(QUIET).await;
                if self.count() == 0 {
                    return;
                }
            }
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    }
}
