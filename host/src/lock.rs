//! Serialises calls on one store, across threads and processes.
//!
//! WASI 0.2 has no file locks, so the host takes them: a mutex for threads
//! sharing a [`crate::Memory`], and an exclusive `flock` on `.memcap/lock`
//! (which the guest refuses to touch) for other handles and processes.

use std::fs::File;
use std::sync::{Mutex, MutexGuard};

pub(crate) struct StoreLock<T> {
    file: File,
    state: Mutex<T>,
}

pub(crate) struct Held<'a, T> {
    file: &'a File,
    state: MutexGuard<'a, T>,
}

impl<T> StoreLock<T> {
    pub fn new(file: File, state: T) -> Self {
        Self {
            file,
            state: Mutex::new(state),
        }
    }

    /// Waits for both the in-process and the cross-process lock.
    pub fn lock(&self) -> std::io::Result<Held<'_, T>> {
        // A panic while holding the mutex cannot leave files half-written
        // (writes are atomic), so a poisoned lock is still usable.
        let state = self.state.lock().unwrap_or_else(|e| e.into_inner());
        self.file.lock()?;
        Ok(Held {
            file: &self.file,
            state,
        })
    }
}

impl<T> std::ops::Deref for Held<'_, T> {
    type Target = T;
    fn deref(&self) -> &T {
        &self.state
    }
}

impl<T> std::ops::DerefMut for Held<'_, T> {
    fn deref_mut(&mut self) -> &mut T {
        &mut self.state
    }
}

impl<T> Drop for Held<'_, T> {
    fn drop(&mut self) {
        let _ = self.file.unlock();
    }
}
