//! The refresh: the directories whose stamps moved listed again, the notes
//! changed too young to trust read once more, and every
//! [`SWEEP_SECONDS`] a sweep of every file's stamp, a slice a call.

use super::*;

impl Catalog {
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
    /// call ([`SWEEP_SLICE_NANOS`], which the sweep gets what is left of;
    /// as long as decoding took when finding what is due decoded every
    /// block: [`DECODE_NANOS_PER_NOTE`]);
    /// the next call goes on after the last one read, even within one
    /// second ([`Record::VerifiedPast`]).
    fn verify_aged(&mut self, io: &Io, walk: &Walk<'_>, started: u64) -> Result<bool, FsError> {
        let (from, upto) = (self.walk.verified, walk.trust_before());
        if from >= upto {
            return Ok(false);
        }
        // The snapshot's young notes first: past them, none may be young.
        if self.young_past_horizon(from) {
            self.read_young()?;
        }
        let read_all = self.young_past_horizon(from);
        let mut budget = SWEEP_SLICE_NANOS;
        if read_all {
            let unread = self.notes.count.saturating_sub(self.notes.entries.len());
            self.read_all()?;
            // Every process pays that decoding again until the young notes
            // are read once more, so this one reads them for as long as it
            // took: after a bulk copy of 10,000 notes, 1 ms slices took
            // ~300 calls (one a second, each ~30 ms of decoding).
            budget = budget.max(unread as u64 * DECODE_NANOS_PER_NOTE);
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
        // Reading every block and sorting what is due (in proportion to the
        // store) is not the slice: the slice reads notes once more.
        let started = match read_all {
            true => io.env.monotonic_nanos(),
            false => started,
        };
        let mut done: Option<(u64, Aged)> = None;
        for (time, (is_dir, path)) in due {
            let spent = io.env.monotonic_nanos().saturating_sub(started);
            // At least one a slice, or a slice spent before its first would
            // record nothing, and every next process would start over.
            if (done.is_some() && spent >= budget) || self.must_stop(io) {
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
    pub(super) fn stop_unfinished(&mut self) -> Result<(), FsError> {
        self.walk.incomplete = true;
        if self.walk.swept != 0 {
            self.record(Record::Swept(0))?;
        }
        Ok(())
    }

    /// Whether this walk stops here: the call's time is up, or it found a
    /// batch (see [`BATCH_NOTES`]).
    pub(super) fn must_stop(&self, io: &Io) -> bool {
        io.out_of_time()
            || self.feed.batch_notes >= BATCH_NOTES
            || self.feed.batch_bytes >= BATCH_BYTES
    }
}
