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
//! Long because the three ways of looking share one clock, one budget and
//! one rule for trusting a stamp; apart, they would drift.

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

    /// Brings the whole catalog in line with the files: lists the
    /// directories whose stamps moved (or, for names, are too young to
    /// trust), and reads once more what changed before its stamp could be
    /// trusted ([`Catalog::verify_aged`]); every
    /// [`SWEEP_SECONDS`], or to go on with an unfinished walk, walks it all.
    /// The derived indexes take what changed.
    pub fn refresh(&mut self, io: &Io) -> Result<(), FsError> {
        loop {
            self.feed.batch_notes = 0;
            self.feed.batch_bytes = 0;
            self.refresh_files(io)?;
            self.follow(io)?;
            // A walk its batch stopped goes on while the call has time; each
            // batch takes in at least one note, and the time bounds them.
            if !self.incomplete() || io.out_of_time() {
                return Ok(());
            }
        }
    }

    fn refresh_files(&mut self, io: &Io) -> Result<(), FsError> {
        let walk = Walk::new(io);
        let due = walk.now() >= self.walk.swept.saturating_add(SWEEP_SECONDS)
            || walk.now() < self.walk.swept;
        // Nothing known yet, or a walk this instance left unfinished.
        if self.walk.dirs.is_empty() || self.walk.incomplete {
            return self.sweep(io, &walk);
        }
        let mut young_left = YOUNG_LISTINGS;
        let known: Vec<(String, FileStamp)> = self
            .walk
            .dirs
            .iter()
            .map(|(d, s)| (d.clone(), *s))
            .collect();
        for (dir, old) in known {
            if self.must_stop(io) {
                return self.stop_unfinished();
            }
            if !self.walk.dirs.contains_key(&dir) {
                continue; // forgotten with a parent that went
            }
            match io.fs.stat(&dir, false) {
                Ok(st) if st.kind == Kind::Dir => {
                    let stamp = stamp_of(&st);
                    // Unchanged but young: a name made or removed in the
                    // same tick as the last look would not move it. A large
                    // directory waits for its once-more listing instead.
                    let young = stamp.young(walk.trust_before()) && young_left > 0 && {
                        young_left -= 1;
                        !self.holds_more_than(&dir, YOUNG_LISTING_NOTES)?
                    };
                    if stamp != old || young {
                        let names_only = stamp == old;
                        for sub in self.list_dir(io, &dir, names_only)? {
                            if !self.walk.dirs.contains_key(&sub) {
                                self.walk_from(io, &sub)?;
                            }
                        }
                    }
                }
                Ok(_) | Err(FsError::NotFound | FsError::NotADirectory) => self.forget(&dir)?,
                Err(FsError::Denied | FsError::Escape) => {}
                Err(e) => return Err(e),
            }
        }
        if self.walk.swept == 0 {
            // A walk another process left unfinished goes on from where it
            // stopped with the call's budget, not a slice behind the
            // once-more reads: until it ends the index says it is reading.
            return self.sweep_slice(io, &walk, None);
        }
        // One slice for both, reading aged changes once more and then the
        // sweep, in a call and in a second: they look for what stamps can
        // miss, at a pace set by the clock, so calls in quick succession
        // (an agent's turn) pay it once.
        let now = walk.now();
        if self.walk.sliced == now {
            return Ok(());
        }
        let slice = io.env.monotonic_nanos();
        let mut sliced = self.verify_aged(io, &walk, slice)?;
        if due || self.walk.sweep_from.is_some() {
            self.sweep_slice(io, &walk, Some(slice))?;
            sliced = true;
        }
        if sliced {
            self.record(Record::Sliced(now))?;
        }
        Ok(())
    }

    /// One call's part of the sweep: the known directories in path order
    /// from where the last call left off, every file in each checked, a
    /// stamp at a time, until [`SWEEP_SLICE_NANOS`] or [`SWEEP_SLICE_FILES`]
    /// have gone (the next call goes on from the next file); the sweep is
    /// recorded done once the last file of the last directory is checked.
    /// Without a slice (`started` none: a walk left unfinished), only the
    /// call's budget stops it, and each directory is listed first, for
    /// subdirectories never walked. A due slice lists none: this call's
    /// refresh found every directory's stamp unchanged and old enough to
    /// trust, or listed it (a listing of 200 names costs ~1.7 ms through
    /// WASI, more than the slice).
    fn sweep_slice(
        &mut self,
        io: &Io,
        walk: &Walk<'_>,
        started: Option<u64>,
    ) -> Result<(), FsError> {
        let files = self.walk.files_listed;
        let from = self.walk.sweep_from.clone().unwrap_or_default();
        let dirs: Vec<String> = self
            .walk
            .dirs
            .range::<str, _>((Bound::Included(from.as_str()), Bound::Unbounded))
            .map(|(dir, _)| dir.clone())
            .collect();
        let mut past = self
            .walk
            .sweep_past
            .clone()
            .filter(|_| dirs.first() == Some(&from));
        for dir in dirs {
            let slice_done = |catalog: &Self| {
                started.is_some_and(|started| {
                    io.env.monotonic_nanos().saturating_sub(started) >= SWEEP_SLICE_NANOS
                        || catalog.walk.files_listed - files >= SWEEP_SLICE_FILES
                }) || catalog.must_stop(io)
            };
            if past.is_none() {
                if slice_done(self) {
                    return self.sweep_goes_on_from(dir);
                }
                if !self.walk.dirs.contains_key(&dir) {
                    continue; // forgotten with a parent that went
                }
            }
            if past.is_none() && started.is_none() {
                for sub in self.list_dir(io, &dir, true)? {
                    if !self.walk.dirs.contains_key(&sub) {
                        self.walk_from(io, &sub)?;
                    }
                }
                if self.walk.incomplete {
                    // A new subdirectory's walk stopped: the next call lists
                    // this directory again, so the sweep does not pass it.
                    return self.sweep_goes_on_from(dir);
                }
            }
            // "" comes before every path in it.
            let mut last = past.take().unwrap_or_default();
            for path in self.files_in(&dir, &last)? {
                if slice_done(self) {
                    return self.record(Record::SweepPast(dir, last));
                }
                self.check_file(io, At::Path, &path, false)?;
                self.walk.files_listed += 1;
                last = path;
            }
        }
        self.record(Record::Swept(walk.now()))
    }

    /// Records that the sweep goes on at `dir`, from its first file (unless
    /// it is so on record already).
    fn sweep_goes_on_from(&mut self, dir: String) -> Result<(), FsError> {
        if self.walk.sweep_from.as_deref() == Some(dir.as_str()) && self.walk.sweep_past.is_none() {
            return Ok(());
        }
        self.record(Record::SweepFrom(dir))
    }

    /// The notes and other files directly in `dir` whose paths come after
    /// `after`, in path order.
    fn files_in(&mut self, dir: &str, after: &str) -> Result<Vec<String>, FsError> {
        let mut files = self.notes_in(dir)?;
        files.extend(
            Self::under(&self.notes.others, dir)
                .filter(|path| parent(path) == dir && *path != dir)
                .map(str::to_owned),
        );
        files.retain(|path| path.as_str() > after);
        files.sort_unstable();
        Ok(files)
    }

    /// Notes and directories that changed since [`Catalog::verified`] and
    /// whose stamps are now old enough to trust: each is read (or listed)
    /// once more, oldest first, so a change made in the same clock tick as
    /// the one memcap saw, which kept the stamp, shows. One sweep slice a
    /// call ([`SWEEP_SLICE_NANOS`], which the sweep gets what is left of);
    /// the next call goes on after the last one read, even within one
    /// second ([`Record::VerifiedPast`]).
    fn verify_aged(&mut self, io: &Io, walk: &Walk<'_>, started: u64) -> Result<bool, FsError> {
        let (from, upto) = (self.walk.verified, walk.trust_before());
        if from >= upto {
            return Ok(false);
        }
        let read_all = self.young_past_horizon(from);
        if read_all {
            self.read_all()?;
        }
        let aged = |time: u64| (from..upto).contains(&time);
        let mut due: Vec<(u64, Aged)> = self
            .walk
            .dirs
            .iter()
            .filter_map(|(dir, stamp)| {
                let time = stamp.last_change()?;
                aged(time).then(|| (time, (true, dir.clone())))
            })
            .collect();
        due.extend(
            self.most_recent()
                .skip_while(|e| e.recency() >= upto)
                .take_while(|e| e.recency() >= from)
                .map(|e| (e.recency(), (false, e.path.clone()))),
        );
        // Those of the mark's second a slice already read stay read.
        if let Some(past) = &self.walk.verified_past {
            due.retain(|(time, key)| *time > from || key > past);
        }
        if due.is_empty() {
            // Nothing to read: the mark moves on without a record (a call
            // that found nothing writes nothing; the next snapshot keeps
            // it), unless finding out decoded every note: then the record
            // spares the next processes the same (a bulk copy's notes,
            // too young to verify, had every one-shot call decode all of
            // them for two seconds, ~20 ms each at 10,000 notes).
            if read_all {
                self.record(Record::Verified(upto))?;
            } else {
                self.walk.verified = upto;
            }
            return Ok(false);
        }
        due.sort_unstable();
        let mut done: Option<(u64, Aged)> = None;
        for (time, (is_dir, path)) in due {
            let spent = io.env.monotonic_nanos().saturating_sub(started);
            if spent >= SWEEP_SLICE_NANOS || self.must_stop(io) {
                // Everything before `time` is done, and of its second,
                // everything up to the last one read.
                match done {
                    Some((last, key)) if last == time => {
                        self.record(Record::VerifiedPast(time, key))?
                    }
                    _ if time > from => self.record(Record::Verified(time))?,
                    _ => {}
                }
                return Ok(true);
            }
            if !is_dir {
                self.check_file(io, At::Path, &path, true)?;
            } else if self.walk.dirs.contains_key(&path) {
                for sub in self.list_dir(io, &path, false)? {
                    if !self.walk.dirs.contains_key(&sub) {
                        self.walk_from(io, &sub)?;
                    }
                }
            }
            done = Some((time, (is_dir, path)));
        }
        self.record(Record::Verified(upto))?;
        Ok(true)
    }

    /// Walks everything; only a walk that reached every file counts as a
    /// sweep (one stopped by the budget is taken up by the next call).
    fn sweep(&mut self, io: &Io, walk: &Walk<'_>) -> Result<(), FsError> {
        if self.walk.dirs.is_empty() && self.walk.verified < walk.trust_before() {
            // Nothing known: the walk reads every file, so what changed
            // before the stamps can be trusted is read as it is.
            self.record(Record::Verified(walk.trust_before()))?;
        }
        self.walk.incomplete = false;
        self.walk_from(io, "")?;
        if !self.walk.incomplete {
            self.record(Record::Swept(walk.now()))?;
        }
        Ok(())
    }

    /// Marks the walk unfinished, for this instance and in the journal: a
    /// parent's stamp may be recorded while some of its subdirectories were
    /// never listed, and the stamp alone would keep the next process from
    /// looking there until the sweep. No sweep on record makes the next
    /// process sweep every directory again (from where a stopped sweep
    /// left off) with its call's budget, saying it is still reading until
    /// the sweep ends.
    fn stop_unfinished(&mut self) -> Result<(), FsError> {
        self.walk.incomplete = true;
        if self.walk.swept != 0 {
            self.record(Record::Swept(0))?;
        }
        Ok(())
    }

    /// Whether this walk stops here: the call's time is up, or it found a
    /// batch (see [`BATCH_NOTES`]).
    fn must_stop(&self, io: &Io) -> bool {
        io.out_of_time()
            || self.feed.batch_notes >= BATCH_NOTES
            || self.feed.batch_bytes >= BATCH_BYTES
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

    /// Rereads the file at `path` when its stamp changed (or always, when
    /// `reread`), and records it when what memcap knows of it changed. `at`
    /// locates the file: through its directory's handle while listing it
    /// (one cheap lookup), or by its path.
    fn check_file(&mut self, io: &Io, at: At, path: &str, reread: bool) -> Result<(), FsError> {
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
enum At<'a> {
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

/// Why a read failed, in a few words (no OS text).
fn read_failure(e: FsError) -> &'static str {
    match e {
        FsError::Denied | FsError::Escape => "permission denied",
        FsError::IsDirectory => "it is a directory",
        FsError::Loop => "a symbolic link loop",
        _ => "the file system reported an error",
    }
}
