//! The content of versions, once per distinct content, by its SHA-256: a
//! note edited back to an earlier text costs nothing more. A change writes
//! a content loose, a file of its own (one call: [`super::loose`]); the
//! upkeep packs them ([`super::packs`]). Lookups take the loose file
//! first, then the packs.

use super::{loose, packs};
use crate::error::FsError;
use crate::io::Io;

pub use super::loose::{put_new, remove};

/// Keeps `bytes` (whose SHA-256 is `sha`); `true` when it was not kept
/// yet, loose or packed.
pub fn put(io: &Io, sha: &str, bytes: &[u8]) -> Result<bool, FsError> {
    match io.fs.stat(&loose::path(sha), false) {
        Ok(meta) if meta.size == bytes.len() as u64 => Ok(false),
        Err(FsError::NotFound) if packs::contains(io, sha)? => Ok(false),
        Ok(_) | Err(FsError::NotFound) => put_new(io, sha, bytes),
        Err(e) => Err(e),
    }
}

/// The content with hash `sha`, when kept and whole (a content whose
/// bytes no longer hash to its name is treated as gone): loose, or packed
/// (looked for twice: a packing between the two lookups moves it).
pub fn get(io: &Io, sha: &str) -> Result<Option<Vec<u8>>, FsError> {
    for _ in 0..2 {
        if let Some(bytes) = loose::get(io, sha)? {
            return Ok(Some(bytes));
        }
        if let Some(bytes) = packs::get(io, sha)? {
            return Ok(Some(bytes));
        }
    }
    Ok(None)
}

/// Many contents read in a row: packed ones through one read of the pack
/// index, the rest as [`get`] finds them.
#[derive(Default)]
pub struct Reader {
    packs: packs::Reader,
}

impl Reader {
    /// As [`get`].
    pub fn get(&mut self, io: &Io, sha: &str) -> Result<Option<Vec<u8>>, FsError> {
        match self.packs.get(io, sha)? {
            Some(bytes) => Ok(Some(bytes)),
            None => get(io, sha),
        }
    }
}

/// Erases a content for good, loose and packed; `true` when there was one.
pub fn erase(io: &Io, sha: &str) -> Result<bool, FsError> {
    let loose = remove(io, sha)?;
    Ok(packs::erase(io, sha)? || loose)
}
