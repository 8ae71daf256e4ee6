//! The catalog's journal, `/memories/.memcap/notes.jsonl`: a JSON header
//! line (format, generation, snapshot length), a binary snapshot of the
//! whole catalog (postcard), then one JSON record per change since. A new
//! process decodes the snapshot, which costs little, and parses only the
//! records after it as JSON; when those grow past a fraction of the notes
//! the file is rewritten with a fresh snapshot under a new generation.
//! Not synced: it is a cache, and a lost or torn record only means a note
//! is read again.

use serde::{Deserialize, Serialize};
use wasip2::filesystem::types::{Descriptor, DescriptorFlags, ErrorCode, OpenFlags, PathFlags};

use super::catalog::{Catalog, Entry, FileStamp};
use crate::fs;

const JOURNAL: &str = ".memcap/notes.jsonl";
const FORMAT: u32 = 6;
const READ_CHUNK: u64 = 256 * 1024;

#[derive(Serialize, Deserialize)]
struct Header {
    memcap_notes: u32,
    generation: u64,
    /// Bytes of the snapshot that follows the header line.
    snapshot: u64,
}

/// The catalog as it stood when the journal was last rewritten.
#[derive(Serialize, Deserialize)]
struct Snapshot {
    entries: Vec<Entry>,
    others: Vec<(String, u64)>,
    dirs: Vec<(String, FileStamp)>,
    swept: u64,
}

/// One change to the catalog.
#[derive(Serialize, Deserialize, Clone)]
#[serde(rename_all = "lowercase")]
pub(super) enum Record {
    Put(Entry),
    Del(String),
    /// A directory's stamp as of its last listing.
    Dir(String, FileStamp),
    Undir(String),
    /// When a walk last reached every file.
    Swept(u64),
    /// A file that is not a note, with its size (for the quota).
    Other(String, u64),
    Unother(String),
}

impl Catalog {
    /// Reads the journal; builds it from the directory when there is none
    /// (the first call on a store) or it cannot be used.
    pub(super) fn load(root: &Descriptor) -> Result<Self, ErrorCode> {
        // Whatever stands in the journal's place (nothing, a link, a
        // directory, garbage, another format) only means a rebuild.
        if let Ok(bytes) = read_from(root, 0)
            && let Some(catalog) = Self::decode(&bytes)
        {
            return Ok(catalog);
        }
        let mut catalog = Self::empty();
        catalog.refresh(root)?;
        // Not written (a read-only store): this instance still has it.
        let _ = catalog.compact(root);
        Ok(catalog)
    }

    fn decode(bytes: &[u8]) -> Option<Self> {
        let (header, body) = header(bytes)?;
        let end = body.checked_add(usize::try_from(header.snapshot).ok()?)?;
        let snapshot: Snapshot = postcard::from_bytes(bytes.get(body..end)?).ok()?;
        if bytes.get(end) != Some(&b'\n') {
            return None;
        }
        let mut catalog = Self::empty();
        catalog.generation = header.generation;
        for entry in snapshot.entries {
            catalog.insert_new(entry);
        }
        for (path, size) in snapshot.others {
            catalog.apply_record(Record::Other(path, size));
        }
        catalog.dirs = snapshot.dirs.into_iter().collect();
        catalog.swept = snapshot.swept;
        catalog.apply(&bytes[end + 1..], (end + 1) as u64);
        Some(catalog)
    }

    /// Applies what was appended since this instance last looked: reads only
    /// the header and the new tail. False when the journal was rewritten (or
    /// removed), so it must be read again from the start.
    pub(super) fn catch_up(&mut self, root: &Descriptor) -> Result<bool, ErrorCode> {
        let Ok(head) = fs::read_head(root, JOURNAL, 512) else {
            return Ok(false);
        };
        if header(&head).map(|(h, _)| h.generation) != Some(self.generation) {
            return Ok(false);
        }
        let tail = read_from(root, self.applied)?;
        self.apply(&tail, self.applied);
        Ok(true)
    }

    /// Applies the whole lines of `bytes`, the journal from offset `base`.
    /// Lines that do not parse (a write torn by a crash) are skipped: a later
    /// walk rereads those notes.
    fn apply(&mut self, bytes: &[u8], base: u64) {
        let Some(last_newline) = bytes.iter().rposition(|&b| b == b'\n') else {
            self.applied = base;
            return;
        };
        for line in bytes[..last_newline].split(|&b| b == b'\n') {
            if let Ok(record) = serde_json::from_slice::<Record>(line) {
                self.apply_record(record);
                self.records += 1;
            }
        }
        self.applied = base + last_newline as u64 + 1;
    }

    /// Appends this call's changes to the journal, or rewrites it when the
    /// records since the snapshot would pass a quarter of the notes (so a
    /// new process parses little JSON).
    pub(super) fn save(&mut self, root: &Descriptor) -> Result<(), ErrorCode> {
        if self.pending.is_empty() {
            return Ok(());
        }
        if self.records + self.pending.len() > self.entries.len() / 4 + 256 {
            return self.compact(root);
        }
        let mut bytes = Vec::new();
        for record in &self.pending {
            serde_json::to_writer(&mut bytes, record).map_err(|_| ErrorCode::Io)?;
            bytes.push(b'\n');
        }
        let file = match root.open_at(
            PathFlags::empty(),
            JOURNAL,
            OpenFlags::empty(),
            DescriptorFlags::WRITE,
        ) {
            Ok(file) => file,
            // Gone, or something else in its place: write a fresh one there.
            Err(_) => return self.compact(root),
        };
        let mut end = file.stat()?.size;
        if end != self.applied {
            // Bytes of a torn write: end them so our first line stands alone.
            bytes.insert(0, b'\n');
        }
        let stream = file.write_via_stream(end)?;
        for chunk in bytes.chunks(4096) {
            stream
                .blocking_write_and_flush(chunk)
                .map_err(|_| ErrorCode::Io)?;
        }
        end += bytes.len() as u64;
        self.records += self.pending.len();
        self.pending.clear();
        self.applied = end;
        Ok(())
    }

    /// Rewrites the journal as a snapshot of the catalog, under a new
    /// generation.
    pub(super) fn compact(&mut self, root: &Descriptor) -> Result<(), ErrorCode> {
        self.pending.clear();
        let snapshot = Snapshot {
            entries: self.entries.values().map(|e| (**e).clone()).collect(),
            others: self.others.iter().map(|(p, s)| (p.clone(), *s)).collect(),
            dirs: self.dirs.iter().map(|(d, s)| (d.clone(), *s)).collect(),
            swept: self.swept,
        };
        let body = postcard::to_allocvec(&snapshot).map_err(|_| ErrorCode::Io)?;
        let generation = wasip2::random::random::get_random_u64();
        let header = Header {
            memcap_notes: FORMAT,
            generation,
            snapshot: body.len() as u64,
        };
        let mut bytes = serde_json::to_vec(&header).map_err(|_| ErrorCode::Io)?;
        bytes.push(b'\n');
        bytes.extend_from_slice(&body);
        bytes.push(b'\n');
        fs::put_private(root, JOURNAL, &bytes)?;
        self.generation = generation;
        self.applied = bytes.len() as u64;
        self.records = 0;
        Ok(())
    }
}

/// The journal's header line, and where what follows it starts.
fn header(bytes: &[u8]) -> Option<(Header, usize)> {
    let end = bytes.iter().position(|&b| b == b'\n')?;
    let header: Header = serde_json::from_slice(&bytes[..end]).ok()?;
    (header.memcap_notes == FORMAT).then_some((header, end + 1))
}

/// The journal's bytes from `offset` to its end.
fn read_from(root: &Descriptor, offset: u64) -> Result<Vec<u8>, ErrorCode> {
    let file = root.open_at(
        PathFlags::empty(),
        JOURNAL,
        OpenFlags::empty(),
        DescriptorFlags::READ,
    )?;
    let mut bytes = Vec::new();
    let mut at = offset;
    loop {
        let (chunk, end) = file.read(READ_CHUNK, at)?;
        at += chunk.len() as u64;
        bytes.extend_from_slice(&chunk);
        if end || chunk.is_empty() {
            return Ok(bytes);
        }
    }
}
