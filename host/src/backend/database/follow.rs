//! Following other hosts' commits, for a long-lived host on a database (the
//! database's counterpart of [`crate::backend::directory::watch`]): a thread waits on the
//! store's commit channel and, when a namespace it serves was committed,
//! reads the changed rows at once (so the next call does not) and hands the
//! guest the paths changed behind the catalog's journal (the host's own
//! edits, `memcap copy`), so every index takes them in now.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::thread::JoinHandle;
use std::time::Duration;

use super::CommitListener;
use crate::backend::{CatchUp, Feed};

/// How long one wait lasts: how soon a dropped follower's thread ends.
const WAIT: Duration = Duration::from_millis(500);

/// Follows a [`Memory`] on a database while it lives.
pub struct Follower {
    stop: Arc<AtomicBool>,
    thread: Option<JoinHandle<()>>,
}

impl Follower {
    /// Starts following `memory`'s namespaces with `listener`. The thread
    /// does not keep the memory alive: it ends when the memory is dropped,
    /// or with the follower.
    pub(crate) fn start(
        mut listener: CommitListener,
        memory: Box<dyn CatchUp>,
    ) -> std::io::Result<Self> {
        let stop = Arc::new(AtomicBool::new(false));
        let stopped = Arc::clone(&stop);
        let thread = std::thread::Builder::new()
            .name("memcap-follow".into())
            .spawn(move || {
                while !stopped.load(Ordering::Relaxed) {
                    match listener.wait(WAIT) {
                        Ok(false) => {}
                        // A failure here is the next call's to meet.
                        Ok(true) => {
                            if !memory.catch_up() {
                                return;
                            }
                        }
                        // The database is away: try again after a wait.
                        Err(_) => std::thread::sleep(WAIT),
                    }
                    if !memory.alive() {
                        return;
                    }
                }
            })?;
        Ok(Self {
            stop,
            thread: Some(thread),
        })
    }
}

/// It catches up on its own thread, between calls: nothing to do around one.
impl Feed for Follower {
    fn news(&self) -> Vec<String> {
        Vec::new()
    }
    fn after_call(&self) {}
}

impl Drop for Follower {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}
