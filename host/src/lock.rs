//! Serialises calls on one store, across threads and processes.
//!
//! WASI 0.2 has no file locks, so the host takes them: a mutex for threads
//! sharing a [`crate::Memory`], and an exclusive `flock` on `.memcap/lock`
//! (which the guest refuses to touch) for other handles and processes. A
//! store whose directory does not exist yet has no lock file until its
//! first write creates one.

use std::fs::File;
use std::sync::{Mutex, MutexGuard};

pub(crate) struct StoreLock<T> {
    state: Mutex<(Option<File>, T)>,
}

pub(crate) struct Held<'a, T> {
    state: MutexGuard<'a, (Option<File>, T)>,
}

impl<T> StoreLock<T> {
    pub fn new(file: Option<File>, state: T) -> Self {
        Self {
            state: Mutex::new((file, state)),
        }
    }

    /// Waits for both the in-process and the cross-process lock.
    pub fn lock(&self) -> std::io::Result<Held<'_, T>> {
        // A panic while holding the mutex cannot leave files half-written
        // (writes are atomic), so a poisoned lock is still usable.
        let state = self.state.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(file) = &state.0 {
            file.lock()?;
        }
        Ok(Held { state })
    }
}

impl<T> Held<'_, T> {
    /// Starts holding `file`'s lock too, from now until the guard drops
    /// (for a store created while the guard was held).
    pub fn add_file(&mut self, file: File) -> std::io::Result<()> {
        file.lock()?;
        if let Some(old) = self.state.0.replace(file) {
            let _ = old.unlock();
        }
        Ok(())
    }
}

impl<T> std::ops::Deref for Held<'_, T> {
    type Target = T;
    fn deref(&self) -> &T {
        &self.state.1
    }
}

impl<T> std::ops::DerefMut for Held<'_, T> {
    fn deref_mut(&mut self) -> &mut T {
        &mut self.state.1
    }
}

impl<T> Drop for Held<'_, T> {
    fn drop(&mut self) {
        if let Some(file) = &self.state.0 {
            let _ = file.unlock();
        }
    }
}
