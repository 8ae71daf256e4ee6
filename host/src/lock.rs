//! Serialises calls on one store, across threads and processes.
//!
//! WASI 0.2 has no file locks, so the host takes them: a mutex for threads
//! sharing a [`crate::Memory`], and an exclusive `flock` on `.memcap/lock`
//! (which the guest refuses to touch) for other handles and processes. A
//! store whose directory does not exist yet has no lock file until its
//! first write creates one. A store with shared directories holds their
//! locks too, always taken in one order (by the lock file's device and
//! inode), so two servers sharing directories cannot deadlock.

use std::fs::File;
use std::sync::{Mutex, MutexGuard};

pub(crate) struct StoreLock<T> {
    state: Mutex<(Vec<File>, T)>,
}

pub(crate) struct Held<'a, T> {
    state: MutexGuard<'a, (Vec<File>, T)>,
}

/// The one order every holder takes lock files in.
fn sort(files: &mut [File]) {
    use std::os::unix::fs::MetadataExt;
    files.sort_by_key(|f| f.metadata().map_or((0, 0), |m| (m.dev(), m.ino())));
}

/// Takes every lock in order; on a failure lets go of those taken.
fn lock_all(files: &[File]) -> std::io::Result<()> {
    for (i, file) in files.iter().enumerate() {
        if let Err(e) = file.lock() {
            for taken in &files[..i] {
                let _ = taken.unlock();
            }
            return Err(e);
        }
    }
    Ok(())
}

impl<T> StoreLock<T> {
    pub fn new(mut files: Vec<File>, state: T) -> Self {
        sort(&mut files);
        Self {
            state: Mutex::new((files, state)),
        }
    }

    /// Waits for both the in-process and the cross-process locks.
    pub fn lock(&self) -> std::io::Result<Held<'_, T>> {
        // A panic while holding the mutex cannot leave files half-written
        // (writes are atomic), so a poisoned lock is still usable.
        let state = self.state.lock().unwrap_or_else(|e| e.into_inner());
        lock_all(&state.0)?;
        Ok(Held { state })
    }
}

impl<T> Held<'_, T> {
    /// Starts holding `file`'s lock too, from now until the guard drops
    /// (for a store created while the guard was held). Every lock is let
    /// go and taken again in the one order, so adding cannot deadlock.
    pub fn add_file(&mut self, file: File) -> std::io::Result<()> {
        for held in self.state.0.iter().rev() {
            let _ = held.unlock();
        }
        self.state.0.push(file);
        sort(&mut self.state.0);
        lock_all(&self.state.0)
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
        for file in self.state.0.iter().rev() {
            let _ = file.unlock();
        }
    }
}
