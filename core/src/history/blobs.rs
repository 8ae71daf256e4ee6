//! The content of versions, one file per distinct content, named by its
//! SHA-256: a note edited back to an earlier text costs nothing more, and
//! erasing a content (redaction) is removing one file.

use crate::error::FsError;
use crate::files;
use crate::io::Io;
use crate::layout::HISTORY_BLOBS;
use crate::vocab::precondition::sha256_hex;

fn path(sha: &str) -> String {
    format!("{HISTORY_BLOBS}/{sha}")
}

/// Keeps `bytes` (whose SHA-256 is `sha`); `true` when it was not kept
/// yet. Written in place under its hash: a crash mid-write leaves it
/// short, and a short one is written again the next time that content is
/// kept (and reads as gone meanwhile: [`get`] checks the hash).
pub fn put(io: &Io, sha: &str, bytes: &[u8]) -> Result<bool, FsError> {
    match io.fs.stat(&path(sha), false) {
        Ok(meta) if meta.size == bytes.len() as u64 => Ok(false),
        Ok(_) | Err(FsError::NotFound) => put_new(io, sha, bytes),
        Err(e) => Err(e),
    }
}

/// [`put`] for a content that is most likely not kept yet (what a change
/// writes): not looked up first, the exclusive create says.
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

/// The content with hash `sha`, when kept and whole (a content whose
/// bytes no longer hash to its name is treated as gone).
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

/// Erases a content; `true` when there was one.
pub fn remove(io: &Io, sha: &str) -> Result<bool, FsError> {
    match io.fs.remove_file(&path(sha)) {
        Ok(()) => Ok(true),
        Err(FsError::NotFound) => Ok(false),
        Err(e) => Err(e),
    }
}

/// The hashes of every content kept.
pub fn list(io: &Io) -> Result<Vec<String>, FsError> {
    match io.fs.list(HISTORY_BLOBS) {
        Ok(entries) => Ok(entries.into_iter().map(|e| e.name).collect()),
        Err(FsError::NotFound) => Ok(Vec::new()),
        Err(e) => Err(e),
    }
}
