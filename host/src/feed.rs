//! One change feed per served store: what changed behind a long-lived
//! host's back (another program's edit in a directory, another host's
//! commit to a database) reaches the guest's indexes before the next call
//! instead of at its next sweep. The backend starts the feed it has
//! ([`crate::backend::Backend::start_feed`]); a server starts one
//! [`ChangeFeed`] and never looks inside.

use std::sync::{Arc, Weak};

use crate::Memory;
pub use crate::backend::FeedError;
use crate::backend::{CatchUp, Feed};

/// A served store's change feed; it stops when dropped.
pub struct ChangeFeed {
    feed: Box<dyn Feed>,
}

impl ChangeFeed {
    /// Starts the feed `memory`'s backend has: a file watcher over its
    /// directories, or a follower of other hosts' commits that catches up
    /// on its own thread (holding the memory weakly).
    pub fn start(memory: &Arc<Memory>) -> Result<ChangeFeed, FeedError> {
        let feed = memory.start_feed(Box::new(Held(Arc::downgrade(memory))))?;
        Ok(ChangeFeed { feed })
    }

    /// Runs `call` on `memory` with the feed's news handed in first.
    pub fn around<T>(&self, memory: &Memory, call: impl FnOnce(&Memory) -> T) -> T {
        let news = self.feed.news();
        if !news.is_empty() {
            // A failure is left for the call itself to meet (and the
            // sweep to repair).
            let _ = memory.changed(&news);
        }
        let answer = call(memory);
        self.feed.after_call();
        answer
    }
}

/// A memory as a feed's own thread holds it: weakly.
struct Held(Weak<Memory>);

impl CatchUp for Held {
    fn catch_up(&self) -> bool {
        let Some(memory) = self.0.upgrade() else {
            return false;
        };
        // A failure here is the next call's to meet.
        let _ = memory.catch_up();
        true
    }

    fn alive(&self) -> bool {
        self.0.strong_count() > 0
    }
}
