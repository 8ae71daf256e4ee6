//! The catalog's journal, `/memories/.memcap/notes.jsonl`: a JSON header
//! line (format, generation, the snapshot's parts' lengths), a binary
//! snapshot of the catalog (`snapshot.rs`: a head, then blocks of notes read
//! only when needed), then one JSON record per change since. A new process
//! decodes the head and parses only the records after the snapshot as JSON;
//! when those grow past a fraction of the notes the file is rewritten with a
//! fresh snapshot under a new generation. Not synced: it is a cache, and a
//! lost or torn record only means a note is read again.

use std::rc::Rc;

use serde::{Deserialize, Serialize};

use super::Catalog;
use crate::error::FsError;
use crate::files::{self, read_exact};
use crate::io::Io;
use crate::layout::JOURNAL;
use crate::notes::derived::{Arrival, Part, Registry};
use crate::notes::record::Record;
use crate::notes::snapshot::{self, Head};
use crate::storage::{File, Kind, Meta};

const FORMAT: u32 = 13;
/// Changes the derived indexes may take in one instance before it rewrites
/// the journal with their state: one per this many notes, within bounds.
/// Taking one costs a read of the note and its indexing (~0.1 ms a note
/// for a one-shot search at 10,000 notes), and every later process takes
/// it again until the journal is rewritten, which costs about as much as
/// taking ~500 of them (~50 ms at 10,000 notes, in proportion to the
/// notes). So a process per call (the CLI, hooks) that wrote a few notes
/// has the first search after them rewrite it once, and the searches after
/// that take nothing, where up to 256 were taken again by every process.
const NOTES_PER_TAKEN_BEFORE_SAVE: usize = 1_000;
const TAKEN_BEFORE_SAVE: std::ops::RangeInclusive<usize> = 8..=256;
/// The most records a new process replays before it rewrites the journal
/// (once its own append went through): after a burst of writes by one warm
/// host, the next process pays the rewrite once instead of every process
/// parsing the burst's records (~3 µs each) until the next rewrite.
const REPLAYED_BEFORE_SAVE: usize = 256;
/// What is read first: the header line and, in most stores, the whole head.
const FIRST_READ: u64 = 64 * 1024;

#[derive(Serialize, Deserialize)]
struct Header {
    memcap_notes: u32,
    generation: u64,
    /// Bytes of the snapshot's head, which follows the header line.
    head: u64,
    /// Bytes of the snapshot's blocks, which follow the head.
    blocks: u64,
    /// The derived indexes' saved states, in this order after the blocks.
    derived: Vec<Part>,
}

impl Catalog {
    /// Reads the journal; builds it from the directory when there is none
    /// (the first call on a store) or it cannot be used.
    pub(in crate::notes) fn load(io: &Io, registry: Registry) -> Result<Self, FsError> {
        // Whatever stands in the journal's place (nothing, a link, a
        // directory, garbage, another format) only means a rebuild.
        match Self::open(io, registry) {
            Some(catalog) => Ok(catalog),
            None => Self::rebuild(io, registry),
        }
    }

    /// Builds the catalog from the files, and the journal from it.
    /// Every note found is a change the derived indexes take.
    pub(in crate::notes) fn rebuild(io: &Io, registry: Registry) -> Result<Self, FsError> {
        let mut catalog = Self::empty(registry);
        catalog.refresh(io)?;
        // Not written (a read-only store): this instance still has it.
        let _ = catalog.compact(io);
        Ok(catalog)
    }

    /// The catalog the journal holds: its snapshot's head (blocks are read
    /// later, as needed) and the records after it.
    fn open(io: &Io, registry: Registry) -> Option<Self> {
        let file: Rc<dyn File> = Rc::from(open_journal(io).ok()?);
        let first = files::read_to_end(&*file, 0, Some(FIRST_READ), None).ok()?;
        let (header, body) = header(&first)?;
        let head_end = body.checked_add(usize::try_from(header.head).ok()?)?;
        let head_bytes = match first.get(body..head_end) {
            Some(bytes) => bytes.to_vec(),
            None => read_exact(&*file, body as u64, header.head).ok()?,
        };
        let mut head: Head = postcard::from_bytes(&head_bytes).ok()?;
        let blocks_end = (head_end as u64).checked_add(header.blocks)?;
        let derived_len = header
            .derived
            .iter()
            .try_fold(0u64, |sum, part| sum.checked_add(part.len))?;
        let end = blocks_end.checked_add(derived_len)?;
        let tail = files::read_to_end(&*file, end, None, None).ok()?;
        if tail.first() != Some(&b'\n') {
            return None;
        }
        let blocks = head.take_blocks(Rc::clone(&file), head_end as u64, header.blocks)?;
        let mut catalog = Self::from_snapshot(head, blocks, registry)?;
        catalog.journal.generation = header.generation;
        // Each index reads its part when it wants it (most calls never do).
        let restored = catalog
            .feed
            .derived
            .restore(io, &header.derived, &file, blocks_end);
        catalog.apply(io, &tail[1..], end + 1).ok()?;
        catalog.journal.replayed = catalog.journal.records;
        if !restored {
            // A part of another version, or damaged, or of another model:
            // that index (cleared) is built again from every note, and saved,
            // so the next call does not build it again. Not written (a
            // read-only store): this instance still has it.
            catalog.verify_derived(io).ok()?;
            let _ = catalog.compact(io);
        }
        Some(catalog)
    }

    /// Applies what was appended since this instance last looked: reads only
    /// the header and the new tail. False when the journal was rewritten (or
    /// removed), so it must be read again from the start.
    pub(in crate::notes) fn catch_up(&mut self, io: &Io) -> Result<bool, FsError> {
        // As this instance last left it: nothing to apply, for one stat.
        if let Some(seen) = self.journal.journal_seen.take()
            && io.fs.stat(JOURNAL, false) == Ok(seen)
        {
            self.journal.journal_seen = Some(seen);
            return Ok(true);
        }
        // One handle for both reads, so a rewrite between them cannot mix
        // two journals.
        let Ok(file) = open_journal(io) else {
            return Ok(false);
        };
        // Taken before reading: whatever is appended later changes it.
        let seen = file.stat().ok();
        let Ok(head) = files::read_to_end(&*file, 0, Some(512), None) else {
            return Ok(false);
        };
        if header(&head).map(|(h, _)| h.generation) != Some(self.journal.generation) {
            return Ok(false);
        }
        let tail = files::read_to_end(&*file, self.journal.applied, None, None)?;
        self.apply(io, &tail, self.journal.applied)?;
        // Not when it ends in a torn line: the next save must see its end.
        self.journal.journal_seen = seen.filter(|st| st.size == self.journal.applied);
        Ok(true)
    }

    /// Applies the whole lines of `bytes`, the journal from offset `base`.
    /// Lines that do not parse (a write torn by a crash) are skipped: a later
    /// walk rereads those notes. The derived indexes take each record too.
    fn apply(&mut self, io: &Io, bytes: &[u8], base: u64) -> Result<(), FsError> {
        let Some(last_newline) = bytes.iter().rposition(|&b| b == b'\n') else {
            self.journal.applied = base;
            return Ok(());
        };
        for line in bytes[..last_newline].split(|&b| b == b'\n') {
            if let Ok(mut record) = serde_json::from_slice::<Record>(line) {
                // The writer's entry holds the facts its indexes found; an
                // index of another version here may count otherwise.
                let facts = self
                    .feed
                    .derived
                    .follow(io, &record, None, Arrival::Replayed)?;
                if let Record::Put(entry) = &record
                    && let Some(updated) = entry.with_facts(facts)
                {
                    record = Record::Put(std::rc::Rc::new(updated));
                }
                self.apply_record(record)?;
                self.journal.records += 1;
            }
        }
        self.journal.applied = base + last_newline as u64 + 1;
        Ok(())
    }

    /// Appends this call's changes to the journal, or rewrites it when the
    /// records since the snapshot would pass an eighth of the notes (so a
    /// new process parses little JSON).
    pub(in crate::notes) fn save(&mut self, io: &Io) -> Result<(), FsError> {
        // A call that had the derived indexes take many changes the journal
        // names saves them, so the next process does not take them again.
        let may_take = (self.len() / NOTES_PER_TAKEN_BEFORE_SAVE)
            .clamp(*TAKEN_BEFORE_SAVE.start(), *TAKEN_BEFORE_SAVE.end());
        if self.feed.derived.taken > may_take {
            return self.compact(io);
        }
        // So does one whose answer cost what every next process would pay
        // again until then (the graph decoded to tell what is superseded),
        // when the store takes the rewrite: opening the journal to write
        // (and writing nothing) shows it, where a store memcap may only
        // read would have every such process build the snapshot in vain.
        if self.feed.derived.save_soon() && io.fs.write_at(JOURNAL, 0, &[]).is_ok() {
            return self.compact(io);
        }
        let replayed = std::mem::take(&mut self.journal.replayed);
        if self.journal.pending.is_empty() {
            // Nothing to append: opening the journal to write (and writing
            // nothing) shows whether the store takes the rewrite.
            if replayed > REPLAYED_BEFORE_SAVE && io.fs.write_at(JOURNAL, 0, &[]).is_ok() {
                return self.compact(io);
            }
            return Ok(());
        }
        if self.journal.records + self.journal.pending.len() > self.len() / 8 + 128 {
            return self.compact(io);
        }
        let mut bytes = Vec::new();
        for record in &self.journal.pending {
            serde_json::to_writer(&mut bytes, record).map_err(|_| FsError::Other)?;
            bytes.push(b'\n');
        }
        // Its end is known when this call found it as this instance left it
        // (the host's lock keeps other writers out meanwhile).
        let known = self.journal.journal_seen.take().map(|st| st.size);
        let mut end = match known {
            Some(end) if end == self.journal.applied => end,
            _ => match io.fs.stat(JOURNAL, false) {
                Ok(st) if st.kind == Kind::File => st.size,
                // Gone, or something else in its place: write a fresh one there.
                _ => return self.compact(io),
            },
        };
        if end != self.journal.applied {
            // Bytes of a torn write: end them so our first line stands alone.
            bytes.insert(0, b'\n');
        }
        let written = io.fs.write_at_stat(JOURNAL, end, &bytes)?;
        end += bytes.len() as u64;
        self.journal.records += self.journal.pending.len();
        self.clear_pending();
        self.journal.applied = end;
        // As the next call will find it, unless another process wrote since.
        self.journal.journal_seen =
            Some(written).filter(|st| st.kind == Kind::File && st.size == end);
        if replayed > REPLAYED_BEFORE_SAVE {
            // The append went through, so the store takes writes.
            return self.compact(io);
        }
        Ok(())
    }

    /// Rewrites the journal as a snapshot of the catalog, under a new
    /// generation.
    pub(in crate::notes) fn compact(&mut self, io: &Io) -> Result<(), FsError> {
        self.follow(io)?;
        self.clear_pending();
        // The indexes take what waited before the catalog is written, so it
        // is written with what they found.
        for (entry, facts) in self.feed.derived.settle(io)? {
            if let Some(updated) = self.corrected(&entry, facts) {
                self.put(Rc::new(updated))?;
            }
        }
        // Saved now, or never from this instance (a store it may only read).
        self.feed.derived.taken = 0;
        let snap = self.snapshot_parts()?;
        let entries = snap.entries.iter().map(|e| &**e);
        let (head, blocks) =
            snapshot::encode(snap.head, entries, &snap.young).map_err(|_| FsError::Other)?;
        let generation = io.env.random_u64();
        let (parts, derived) = self.feed.derived.persist();
        let header = Header {
            memcap_notes: FORMAT,
            generation,
            head: head.len() as u64,
            blocks: blocks.len() as u64,
            derived: parts,
        };
        let header = serde_json::to_vec(&header).map_err(|_| FsError::Other)?;
        // Where the walks are goes on after the snapshot, as records.
        let mut progress = Vec::new();
        let walked = self.walk.progress();
        for record in &walked {
            serde_json::to_writer(&mut progress, record).map_err(|_| FsError::Other)?;
            progress.push(b'\n');
        }
        // One buffer of the exact size: at 100,000 notes the snapshot is tens
        // of MB, and copies grown by doubling would not fit the guest's bound.
        let size = header.len() + head.len() + blocks.len() + 2 + progress.len();
        let mut bytes =
            Vec::with_capacity(size + derived.iter().map(|state| state.len()).sum::<usize>());
        bytes.extend_from_slice(&header);
        bytes.push(b'\n');
        bytes.extend_from_slice(&head);
        drop(head);
        bytes.extend_from_slice(&blocks);
        drop(blocks);
        for state in derived {
            bytes.extend_from_slice(&state);
        }
        bytes.push(b'\n');
        bytes.extend_from_slice(&progress);
        files::put_private(io, JOURNAL, &bytes)?;
        self.journal.generation = generation;
        self.journal.applied = bytes.len() as u64;
        self.journal.records = walked.len();
        self.journal.journal_seen = journal_as_written(io, self.journal.applied);
        Ok(())
    }
}

/// The journal's header line, and where what follows it starts.
fn header(bytes: &[u8]) -> Option<(Header, usize)> {
    let end = bytes.iter().position(|&b| b == b'\n')?;
    let header: Header = serde_json::from_slice(&bytes[..end]).ok()?;
    (header.memcap_notes == FORMAT).then_some((header, end + 1))
}

/// The journal's `stat` right after this instance wrote it to `end` bytes:
/// what the next call's catch-up compares (none if it is not that).
fn journal_as_written(io: &Io, end: u64) -> Option<Meta> {
    io.fs
        .stat(JOURNAL, false)
        .ok()
        .filter(|st| st.kind == Kind::File && st.size == end)
}

fn open_journal(io: &Io) -> Result<Box<dyn File>, FsError> {
    io.fs.open(JOURNAL, false)
}
