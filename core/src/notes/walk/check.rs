//! A file's check: its stamp compared with what the catalog has, and the
//! note read again (its head, or whole for the derived indexes) when it
//! changed.

use super::*;

impl Catalog {
    /// Rereads the file at `path` when its stamp changed (or always, when
    /// `reread`), and records it when what memcap knows of it changed. `at`
    /// locates the file: through its directory's handle while listing it
    /// (one cheap lookup), or by its path.
    pub(super) fn check_file(
        &mut self,
        io: &Io,
        at: At,
        path: &str,
        reread: bool,
    ) -> Result<(), FsError> {
        let st = match at.stat(io, path) {
            Ok(st) if st.kind == Kind::File => st,
            // Gone since the directory was listed: its listing drops it.
            Ok(_) | Err(FsError::NotFound) => {
                if self.note(path)?.is_some() {
                    self.record(Record::Del(path.to_owned()))?;
                }
                if self.notes.others.contains_key(path) {
                    self.record(Record::Unother(path.to_owned()))?;
                }
                return Ok(());
            }
            // A note in a directory memcap may no longer enter (one made
            // unreadable since): what was known of it is kept.
            Err(FsError::Denied | FsError::Escape) => {
                self.mark_readable(path, false);
                return Ok(());
            }
            Err(e) => return Err(e),
        };
        self.mark_readable(path, true);
        if !is_note_path(path) {
            // Not a note: only its size is kept, for the quota.
            if self.notes.others.get(path) != Some(&st.size) {
                self.record(Record::Other(path.to_owned(), st.size))?;
            }
            return Ok(());
        }
        let stamp = stamp_of(&st);
        // A note this call just wrote is not read back: its bytes are known.
        let mut whole = io.take_written(path, st.size);
        if let Some(bytes) = &whole {
            // The history's next change of it need not read it either.
            crate::history::seen_written(io, path, &st, bytes);
        }
        // A young stamp is trusted too: [`Catalog::verify_aged`] rereads
        // the note once it is old enough to show every change.
        let trusted = !reread && whole.is_none();
        if trusted && self.note(path)?.is_some_and(|e| e.stamp == stamp) {
            return Ok(());
        }
        let file_name = path.rsplit('/').next().unwrap_or(path);
        // Most notes say all memcap needs in their first few kilobytes; only
        // a frontmatter block still open there is read further.
        let head = match &whole {
            Some(bytes) => Ok(head_of(bytes).to_vec()),
            None => at
                .read_head(io, path, FIRST_BYTES, st.size)
                .and_then(|bytes| {
                    if bytes.len() as u64 == FIRST_BYTES && frontmatter::is_unclosed(&bytes) {
                        at.read_head(io, path, HEAD_BYTES, st.size)
                    } else {
                        Ok(bytes)
                    }
                }),
        };
        let meta = match head {
            Ok(bytes) => {
                // A cut in the middle of a character only loses that character.
                let text = match std::str::from_utf8(&bytes) {
                    Ok(text) => text.to_owned(),
                    Err(e) if e.error_len().is_none() => {
                        String::from_utf8_lossy(&bytes[..e.valid_up_to()]).into_owned()
                    }
                    Err(_) => String::new(),
                };
                let mut meta = frontmatter::read(&text, file_name);
                if text.is_empty() && !bytes.is_empty() {
                    meta.problem = Some(
                        "the file is not UTF-8 text, so memcap cannot read its metadata".to_owned(),
                    );
                }
                if whole.is_none() && bytes.len() as u64 == st.size {
                    whole = Some(bytes);
                }
                meta
            }
            Err(FsError::NotFound) => return Ok(()),
            // One file memcap may not read must not keep it from the rest:
            // it is listed, with what is wrong and how to fix it.
            Err(e) => {
                let mut meta = frontmatter::read("", file_name);
                meta.problem = Some(format!(
                    "memcap could not read this file ({}); check its permissions",
                    read_failure(e)
                ));
                meta
            }
        };
        // Relations are counted when the derived indexes take its text
        // (`follow`).
        let entry = Entry::new(path.to_owned(), stamp, meta, 0);
        if self
            .note(path)?
            .is_some_and(|e| e.stamp == entry.stamp && e.meta == entry.meta)
        {
            // Reread only to verify it: nothing to record.
            return Ok(());
        }
        // Read whole: the derived indexes take its text from here.
        self.feed.read_whole = whole.map(|bytes| (entry.path.clone(), entry.stamp, bytes));
        self.record(Record::Put(Rc::new(entry)))
    }
}

/// What [`At::read_head`] would bring of a note whose bytes are known.
fn head_of(bytes: &[u8]) -> &[u8] {
    let first = &bytes[..bytes.len().min(FIRST_BYTES as usize)];
    if first.len() as u64 == FIRST_BYTES && frontmatter::is_unclosed(first) {
        &bytes[..bytes.len().min(HEAD_BYTES as usize)]
    } else {
        first
    }
}

/// Where a file is looked up.
#[derive(Clone, Copy)]
pub(super) enum At<'a> {
    /// By its root-relative path.
    Path,
    /// By its name in an open directory.
    In(&'a dyn Dir, &'a str),
    /// By its root-relative path, its `stat` already taken.
    Stated(Meta),
}

impl At<'_> {
    /// `stat` of the name itself (a link is reported as a link).
    fn stat(self, io: &Io, path: &str) -> Result<Meta, FsError> {
        match self {
            At::Path => io.fs.stat(path, false),
            At::In(dir, name) => dir.stat(name, false),
            At::Stated(meta) => Ok(meta),
        }
    }

    /// Up to `limit` bytes from the start, never following a link; `size`
    /// is what its `stat` said (a read that brings it all ends there).
    fn read_head(self, io: &Io, path: &str, limit: u64, size: u64) -> Result<Vec<u8>, FsError> {
        let file = match self {
            At::Path | At::Stated(_) => io.fs.open(path, false)?,
            At::In(dir, name) => dir.open(name)?,
        };
        files::read_to_end(&*file, 0, Some(limit), Some(size))
    }
}

/// Why a read failed, in a few words (no OS text).
fn read_failure(e: FsError) -> &'static str {
    match e {
        FsError::Denied | FsError::Escape => "permission denied",
        FsError::IsDirectory => "it is a directory",
        FsError::Loop => "a symbolic link loop",
        _ => "the file system reported an error",
    }
}
