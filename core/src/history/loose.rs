//! Contents kept one file each, named by their SHA-256 (`blobs/SHA256`):
//! what a change writes in one call, until the upkeep packs them
//! ([`super::packs`]). Written in place under their hash: a crash
//! mid-write leaves one short, which reads as gone ([`get`] checks the
//! hash) and is written again the next time that content is kept.

use crate::error::FsError;
use crate::files;
use crate::io::Io;
use crate::layout::HISTORY_BLOBS;
use crate::vocab::precondition::sha256_hex;

/// Where the loose content with hash `sha` is.
pub fn path(sha: &str) -> String {
    format!("{HISTORY_BLOBS}/{sha}")
}

/// Keeps `bytes` (whose SHA-256 is `sha`) as a file of its own; `true`
/// when it was not there yet. Not looked up first: the exclusive create
/// says.
pub fn put_new(io: &Io, sha: &str, bytes: &[u8]) -> Result<bool, FsError> {
    let at = path(sha);
    match io.fs.write_new(&at, bytes, false) {
        Ok(()) => Ok(true),
        Err(FsError::NotFound) => {
            super::log::ensure_dir(io)?;
            match io.fs.create_dir(HISTORY_BLOBS) {
                Ok(()) | Err(FsError::Exists) => {}
                Err(e) => return Err(e),
            }
            io.fs.write_new(&at, bytes, false).map(|()| true)
        }
        Err(FsError::Exists) => {
            if io.fs.stat(&at, false)?.size == bytes.len() as u64 {
                return Ok(false);
            }
            // Torn by a crash: written again.
            io.fs.remove_file(&at)?;
            io.fs.write_new(&at, bytes, false).map(|()| true)
        }
        Err(e) => Err(e),
    }
}

/// The loose content with hash `sha`, when there and whole.
pub fn get(io: &Io, sha: &str) -> Result<Option<Vec<u8>>, FsError> {
    let file = match io.fs.open(&path(sha), false) {
        Ok(file) => file,
        Err(FsError::NotFound) => return Ok(None),
        Err(e) => return Err(e),
    };
    let size = file.stat()?.size;
    if size > files::MAX_FILE_BYTES {
        return Ok(None);
    }
    let bytes = files::read_to_end(&*file, 0, Some(files::MAX_FILE_BYTES), Some(size))?;
    Ok((sha256_hex(&bytes) == sha).then_some(bytes))
}

/// Removes a loose content; `true` when there was one.
pub fn remove(io: &Io, sha: &str) -> Result<bool, FsError> {
    match io.fs.remove_file(&path(sha)) {
        Ok(()) => Ok(true),
        Err(FsError::NotFound) => Ok(false),
        Err(e) => Err(e),
    }
}

/// The hashes of every loose content.
pub fn list(io: &Io) -> Result<Vec<String>, FsError> {
    match io.fs.list(HISTORY_BLOBS) {
        Ok(entries) => Ok(entries.into_iter().map(|e| e.name).collect()),
        Err(FsError::NotFound) => Ok(Vec::new()),
        Err(e) => Err(e),
    }
}
