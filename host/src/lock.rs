//! Cross-process locks on a directory store.
//!
//! WASI 0.2 has no file locks, so the host takes them: an exclusive
//! `flock` on `.memcap/lock` (which the guest refuses to touch) for other
//! handles and processes; a mutex in [`crate::Memory`] serialises threads.
//! A store with shared directories holds their locks too, always taken in
//! one order (by the lock file's device and inode), so two servers sharing
//! directories cannot deadlock.

use std::fs::File;

/// Puts lock files in the one order every holder takes them in.
pub(crate) fn sort(files: &mut [File]) {
    use std::os::unix::fs::MetadataExt;
    files.sort_by_key(|f| f.metadata().map_or((0, 0), |m| (m.dev(), m.ino())));
}

/// Takes every lock in order; on a failure lets go of those taken.
pub(crate) fn lock_all(files: &[File]) -> std::io::Result<()> {
    for (i, file) in files.iter().enumerate() {
        if let Err(e) = file.lock() {
            unlock_all(&files[..i]);
            return Err(e);
        }
    }
    Ok(())
}

/// Lets go of every lock, last taken first.
pub(crate) fn unlock_all(files: &[File]) {
    for file in files.iter().rev() {
        let _ = file.unlock();
    }
}
