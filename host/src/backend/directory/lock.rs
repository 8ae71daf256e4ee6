//! Cross-process locks on a directory store.
//!
//! WASI 0.2 has no file locks, so the host takes them: an exclusive
//! `flock` on `.memcap/lock` (which the guest refuses to touch) for other
//! handles and processes; a mutex in [`crate::Memory`] serialises threads.
//! A store with shared directories holds their locks too, always taken in
//! one order (by the lock file's device and inode), so two servers sharing
//! directories cannot deadlock.
//!
//! A wait for a lock is bounded by the call's time limit: anyone who can
//! open a lock file (a neighbour on a shared directory, a stuck process)
//! can hold it forever, and a call must still answer.

use std::fs::{File, TryLockError};
use std::time::{Duration, Instant};

/// The first pause between tries while another holder has the lock, and
/// the longest: short at first, since most calls take a millisecond or two.
const FIRST_PAUSE: Duration = Duration::from_micros(200);
const LONGEST_PAUSE: Duration = Duration::from_millis(10);

/// Why [`lock_all`] took no lock.
#[derive(Debug)]
pub(crate) enum LockError {
    /// Another holder kept one past the wait allowed.
    Busy,
    /// The system refused a lock.
    Io,
}

/// Puts lock files in the one order every holder takes them in.
pub(crate) fn sort(files: &mut [File]) {
    use std::os::unix::fs::MetadataExt;
    files.sort_by_key(|f| f.metadata().map_or((0, 0), |m| (m.dev(), m.ino())));
}

/// Takes every lock in order, waiting at most `wait` for all of them; on a
/// failure lets go of those taken.
pub(crate) fn lock_all(files: &[File], wait: Duration) -> Result<(), LockError> {
    let deadline = Instant::now() + wait;
    for (i, file) in files.iter().enumerate() {
        if let Err(e) = lock_before(file, deadline) {
            unlock_all(&files[..i]);
            return Err(e);
        }
    }
    Ok(())
}

fn lock_before(file: &File, deadline: Instant) -> Result<(), LockError> {
    let mut pause = FIRST_PAUSE;
    loop {
        match file.try_lock() {
            Ok(()) => return Ok(()),
            Err(TryLockError::Error(_)) => return Err(LockError::Io),
            Err(TryLockError::WouldBlock) => {}
        }
        let now = Instant::now();
        if now >= deadline {
            return Err(LockError::Busy);
        }
        std::thread::sleep(pause.min(deadline - now));
        pause = (pause * 3 / 2).min(LONGEST_PAUSE);
    }
}

/// Lets go of every lock, last taken first.
pub(crate) fn unlock_all(files: &[File]) {
    for file in files.iter().rev() {
        let _ = file.unlock();
    }
}
