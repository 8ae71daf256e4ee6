//! One change feed per served store: what changed behind a long-lived
//! host's back (another program's edit in a directory, another host's
//! commit to a database) reaches the guest's indexes before the next call
//! instead of at its next sweep. The backend says what feeds it
//! ([`FeedSource`]); a server starts one [`ChangeFeed`] and never looks
//! inside.

use std::sync::Arc;

use crate::Memory;
#[cfg(feature = "database")]
use crate::backend::database::follow::Follower;
use crate::backend::directory::watch::Watcher;
use crate::backend::{Feed, FeedSource};

/// Why a change feed could not start (for the person running memcap).
#[derive(Debug, thiserror::Error)]
pub enum FeedError {
    #[error("could not watch the memory directory: {0}")]
    Watch(#[from] notify::Error),
    #[cfg(feature = "database")]
    #[error("could not start following the memory database: {0}")]
    Follow(std::io::Error),
}

/// A served store's change feed; it stops when dropped.
pub struct ChangeFeed {
    feed: Box<dyn Feed>,
}

impl ChangeFeed {
    /// Starts the feed `memory`'s backend asks for: a file watcher over its
    /// directories, or a follower of other hosts' commits that catches up
    /// on its own thread.
    pub fn start(memory: &Arc<Memory>) -> Result<ChangeFeed, FeedError> {
        let feed: Box<dyn Feed> = match memory.feed_source() {
            FeedSource::Watch(directories) => Box::new(Watcher::start(directories)?),
            #[cfg(feature = "database")]
            FeedSource::Follow(listener) => {
                Box::new(Follower::start(listener, memory).map_err(FeedError::Follow)?)
            }
        };
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
