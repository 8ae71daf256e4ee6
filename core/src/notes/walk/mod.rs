//! Looking at the files for the catalog: a walk that lists every directory
//! below a path, a refresh that lists only the directories whose stamps
//! moved, and a check that rereads a note only when its stamp changed.
//!
//! A file edited in place by another program leaves its directory's stamp
//! as it was, so once the last full walk is [`SWEEP_SECONDS`] old the
//! refreshes sweep every file again, a slice of them per call and one a
//! second at most (bounded by [`SWEEP_SLICE_NANOS`]): that is how late
//! such an edit can show.
//! Walks stop at a time budget, well inside the host's limit per call, and
//! keep what they found; the next call goes on from there. They go in
//! batches the derived indexes take in one at a time.
//!
//! The three ways of looking share one clock ([`Walk`]), one budget and
//! one rule for trusting a stamp ([`RACY_SECONDS`]): the walk is here, the
//! refresh and its sweep in `sweep.rs`, a file's check in `check.rs`.

mod check;
mod sweep;

use check::At;

use std::ops::Bound;
use std::rc::Rc;

use super::catalog::{Aged, Catalog, Entry, FileStamp, stamp_of};
use super::frontmatter;
use super::record::Record;
use super::{INDEX_FILE, is_note_path};
use crate::error::FsError;
use crate::files;
use crate::io::Io;
use crate::storage::{Dir, Kind, Meta};

/// Frontmatter and a first line fit in this much of a note.
const HEAD_BYTES: u64 = 64 * 1024;
/// What is read of a note first (each read's buffer is as large as asked).
const FIRST_BYTES: u64 = 4 * 1024;
/// How old a stamp must be before it is trusted to show every change: file
/// times tick coarsely, so a rewrite in the same tick keeps its stamp (git's
/// "racily clean" entries). A directory that young is listed again on every
/// call, for names only; a note that young is not read again on every call
/// (after a burst of writes that was every note of the burst, each call):
/// once its stamp is older, the first calls read each such note (and list
/// each such directory whole) once more ([`Record::Verified`]), a slice a
/// call as the sweep goes.
pub(in crate::notes) const RACY_SECONDS: u64 = 2;
/// How often a refresh reads every file's stamp, not only the directories'.
pub const SWEEP_SECONDS: u64 = 30;
/// What one call gives the sweep once it is due, and before it the notes
/// and directories read once more ([`Catalog::verify_aged`]): files are
/// checked in path order until this much time or this many files have
/// gone, and the next call goes on from the next file; a call in the same
/// wall-clock second as the last slice takes none ([`Record::Sliced`]). A
/// store of a few dozen notes is swept in one call; 10,000 notes take ~100
/// slices of ~1 ms (a file's stamp costs ~10 µs through WASI), where one
/// call took ~180 ms.
const SWEEP_SLICE_NANOS: u64 = 1_000_000;
const SWEEP_SLICE_FILES: usize = 1_000;
/// What decoding a note of the snapshot's blocks costs, about (a call that
/// decoded all 10,000 of a store's spent ~25 ms more, 2026-12-07): the
/// once-more reads of a call that had to decode every block to find what
/// is due get as long as that took ([`Catalog::verify_aged`]).
const DECODE_NANOS_PER_NOTE: u64 = 2_000;
/// The most notes a directory whose stamp is young but unchanged may hold
/// (as far as the catalog knows) to be listed again for names on every
/// call; a larger one (after a burst of writes into it) is listed whole
/// once its stamp is old enough ([`RACY_SECONDS`]). A listing costs ~4 µs
/// a name through wasmtime (it stats every entry): 200 names took a call
/// right after a write into their directory ~1 ms.
const YOUNG_LISTING_NOTES: usize = 64;
/// How many young directories one call considers for that listing, in
/// path order; the rest wait for their once-more listing, as a large one
/// does. After a bulk copy into 100 directories, every call for two
/// seconds counted the notes of each (decoding every note of a 10,000-note
/// store, ~20 ms a call) only to list none.
const YOUNG_LISTINGS: usize = 16;
/// The most notes found new or changed (and bytes of them) a walk hands the
/// derived indexes at a time: taking a note in costs far more than finding
/// it, so a walk goes in batches, each taken in before the next, until the
/// call's time budget is spent. A large store's first index is then spread
/// over calls that each answer within the time limit ("still reading"),
/// each saving what it took in, and a few large notes never take one call
/// past its limit together.
const BATCH_NOTES: usize = 5_000;
const BATCH_BYTES: u64 = 4 << 20;

/// One walk's clock: now, and which stamps are too young, read when first
/// needed (a walk that only takes in a note just written never reads it).
/// When it must stop is the call's budget ([`Io::out_of_time`]).
struct Walk<'a> {
    io: &'a Io<'a>,
}

impl<'a> Walk<'a> {
    fn new(io: &'a Io<'a>) -> Self {
        Self { io }
    }

    fn now(&self) -> u64 {
        self.io.now_seconds()
    }

    /// Stamps from before this are trusted to show every change.
    fn trust_before(&self) -> u64 {
        self.now().saturating_sub(RACY_SECONDS)
    }
}

/// memcap's own directory, `.memcap`, and everything in it.
fn is_reserved(path: &str) -> bool {
    crate::layout::is_reserved(path.split('/'))
}

pub(super) fn parent(path: &str) -> &str {
    path.rsplit_once('/').map_or("", |(dir, _)| dir)
}

impl Catalog {
    /// Brings the catalog in line with everything at and below `top` (a
    /// root-relative path, "" for everything) after a change there, and
    /// records the new stamps of the directories above it. The derived
    /// indexes take what changed.
    pub fn update(&mut self, io: &Io, top: &str) -> Result<(), FsError> {
        self.update_files(io, top)?;
        self.follow(io)
    }

    /// As [`Catalog::update`] for a path another program reported changed:
    /// a note there is read again even when its stamp looks the same (an
    /// edit in place that kept the size and set the time back, where the
    /// host reports no change time).
    pub fn reread(&mut self, io: &Io, top: &str) -> Result<(), FsError> {
        if self.note(top)?.is_some() {
            self.record(Record::Del(top.to_owned()))?;
        }
        self.update(io, top)
    }

    fn update_files(&mut self, io: &Io, top: &str) -> Result<(), FsError> {
        self.update_file_only(io, top)?;
        self.stamp_parents(io, top, &mut Vec::new())
    }

    /// As [`Catalog::update`] without recording the new stamps of the
    /// directories above `top`: for a command that changes several files
    /// and then stamps their directories once ([`Catalog::stamp_parents`]).
    pub(in crate::notes) fn update_file_only(&mut self, io: &Io, top: &str) -> Result<(), FsError> {
        self.walk_from(io, top)
    }

    /// Records MEMORY.md's size as [`write_index`](super::index_file::write_index) left it:
    /// from the stamp it kept, or else from the file.
    pub(in crate::notes) fn update_index_file(&mut self, io: &Io) -> Result<(), FsError> {
        match &self.memory_md.index_file {
            Some(kept) => {
                let size = kept.stamp.size;
                if self.notes.others.get(INDEX_FILE) != Some(&size) {
                    self.record(Record::Other(INDEX_FILE.to_owned(), size))?;
                }
                Ok(())
            }
            None => self.update_file_only(io, INDEX_FILE),
        }
    }

    /// Records the stamps of the directories above `top`, up to the first
    /// one known before, leaving out those in `done` (and adding the rest).
    pub(in crate::notes) fn stamp_parents(
        &mut self,
        io: &Io,
        top: &str,
        done: &mut Vec<String>,
    ) -> Result<(), FsError> {
        let mut dir = top;
        while !dir.is_empty() {
            dir = parent(dir);
            let known = self.walk.dirs.contains_key(dir);
            if !done.iter().any(|d| d == dir) {
                done.push(dir.to_owned());
                if let Ok(st) = io.fs.stat(dir, false)
                    && st.kind == Kind::Dir
                {
                    self.stamp_dir(dir, stamp_of(&st))?;
                }
            }
            if known {
                break;
            }
        }
        Ok(())
    }

    /// Lists every directory at and below `top`, or checks the file there.
    fn walk_from(&mut self, io: &Io, top: &str) -> Result<(), FsError> {
        let mut stated = None;
        let kind = if top.is_empty() {
            Some(Kind::Dir)
        } else {
            match io.fs.stat(top, false) {
                Ok(st) => {
                    stated = Some(st);
                    Some(st.kind)
                }
                Err(FsError::NotFound | FsError::NotADirectory) => None,
                // What was known of it is kept.
                Err(FsError::Denied | FsError::Escape) => {
                    self.mark_readable(top, false);
                    return Ok(());
                }
                Err(e) => return Err(e),
            }
        };
        match kind {
            Some(Kind::Dir) if !is_reserved(top) => {
                if self.note(top)?.is_some() {
                    self.record(Record::Del(top.to_owned()))?;
                }
                if self.notes.others.contains_key(top) {
                    self.record(Record::Unother(top.to_owned()))?;
                }
                let mut stack = vec![top.to_owned()];
                while let Some(dir) = stack.pop() {
                    if self.must_stop(io) {
                        return self.stop_unfinished();
                    }
                    stack.extend(self.list_dir(io, &dir, false)?);
                }
            }
            Some(Kind::File) if !is_reserved(top) => {
                let dirs: Vec<String> = Self::under(&self.walk.dirs, top)
                    .map(str::to_owned)
                    .collect();
                for dir in dirs {
                    self.record(Record::Undir(dir))?;
                }
                let at = stated.map_or(At::Path, At::Stated);
                self.check_file(io, at, top, false)?;
            }
            _ => self.forget(top)?,
        }
        Ok(())
    }

    /// Lists one directory: checks every note in it (with `names_only`, only
    /// those it does not know), forgets the notes and directories that left
    /// it, and records its stamp. Returns its subdirectories. A directory
    /// memcap may not read keeps what was known of it.
    fn list_dir(&mut self, io: &Io, dir: &str, names_only: bool) -> Result<Vec<String>, FsError> {
        // Stamped before listing: a change during the listing moves the
        // stamp past this one, so the next refresh lists it again.
        let st = match io.fs.stat(dir, false) {
            Ok(st) if st.kind == Kind::Dir => st,
            Ok(_) | Err(FsError::NotFound | FsError::NotADirectory) => {
                self.forget(dir)?;
                return Ok(Vec::new());
            }
            Err(FsError::Denied | FsError::Escape) if !dir.is_empty() => {
                self.mark_readable(dir, false);
                return Ok(Vec::new());
            }
            Err(e) => return Err(e),
        };
        let listed = io
            .fs
            .open_dir(dir)
            .and_then(|handle| Ok((handle.list()?, handle)));
        let (listed, handle) = match listed {
            Ok(listed) => listed,
            Err(FsError::Denied | FsError::Escape) if !dir.is_empty() => {
                self.mark_readable(dir, false);
                return Ok(Vec::new());
            }
            Err(e) => return Err(e),
        };
        self.mark_readable(dir, true);
        let mut files = Vec::new();
        let mut subdirs = Vec::new();
        for entry in listed {
            let path = if dir.is_empty() {
                entry.name.clone()
            } else {
                format!("{dir}/{}", entry.name)
            };
            if is_reserved(&path) {
                continue;
            }
            match entry.kind {
                Kind::Dir => subdirs.push(path),
                Kind::File if names_only && self.knows(&path)? => files.push(path),
                Kind::File => {
                    if self.must_stop(io) {
                        // Unfinished: no stamp, nothing forgotten.
                        self.stop_unfinished()?;
                        return Ok(Vec::new());
                    }
                    self.check_file(io, At::In(&*handle, &entry.name), &path, false)?;
                    self.walk.files_listed += 1;
                    files.push(path);
                }
                _ => {}
            }
        }
        files.sort_unstable();
        subdirs.sort_unstable();
        for path in self.notes_in(dir)? {
            if files.binary_search(&path).is_err() {
                self.record(Record::Del(path))?;
            }
        }
        for path in gone_from(&self.notes.others, dir, &files) {
            self.record(Record::Unother(path))?;
        }
        for path in gone_from(&self.walk.dirs, dir, &subdirs) {
            self.forget(&path)?;
        }
        self.stamp_dir(dir, stamp_of(&st))?;
        Ok(subdirs)
    }

    /// Whether `path` is a note or another file the catalog has.
    fn knows(&mut self, path: &str) -> Result<bool, FsError> {
        Ok(self.notes.others.contains_key(path) || self.note(path)?.is_some())
    }

    fn stamp_dir(&mut self, dir: &str, stamp: FileStamp) -> Result<(), FsError> {
        if self.walk.dirs.get(dir) != Some(&stamp) {
            self.record(Record::Dir(dir.to_owned(), stamp))?;
        }
        Ok(())
    }
}

/// The paths of `map` directly in `dir` that its listing (`listed`, sorted)
/// no longer has.
fn gone_from<K: std::borrow::Borrow<str> + Ord, V>(
    map: &std::collections::BTreeMap<K, V>,
    dir: &str,
    listed: &[String],
) -> Vec<String> {
    Catalog::under(map, dir)
        .filter(|path| parent(path) == dir && *path != dir)
        .filter(|path| listed.binary_search_by(|l| l.as_str().cmp(path)).is_err())
        .map(str::to_owned)
        .collect()
}

#[cfg(test)]
mod tests;
