//! The catalog's journal, `/memories/.memcap/notes.jsonl`: a header line
//! with a format and a generation, then one record per change. Appended to
//! after every change, rewritten whole (a new generation) when it has grown
//! well past the number of notes. Not synced: it is a cache, and a lost or
//! torn record only means a note is read again.

use serde::{Deserialize, Serialize};
use wasip2::filesystem::types::{Descriptor, DescriptorFlags, ErrorCode, OpenFlags, PathFlags};

use super::catalog::{Catalog, Entry};
use crate::fs;

const JOURNAL: &str = ".memcap/notes.jsonl";
const FORMAT: u32 = 4;
const READ_CHUNK: u64 = 256 * 1024;

#[derive(Serialize, Deserialize)]
struct Header {
    memcap_notes: u32,
    generation: u64,
}

#[derive(Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub(super) enum Record {
    Put(Entry),
    Del(String),
}

impl Catalog {
    /// Reads the journal from the start; builds it from the directory when
    /// there is none (the first call on a store) or it is from another format.
    pub(super) fn load(root: &Descriptor) -> Result<Self, ErrorCode> {
        let mut catalog = Self::empty();
        // Whatever stands in the journal's place (nothing, a link, a
        // directory, garbage) only means the catalog is built again.
        if let Ok(bytes) = read_from(root, 0)
            && let Some((generation, body)) = header(&bytes)
        {
            catalog.generation = generation;
            catalog.apply(&bytes[body..], body as u64);
            return Ok(catalog);
        }
        catalog.scan(root, "")?;
        // Not written (a read-only store): this instance still has it.
        let _ = catalog.compact(root);
        Ok(catalog)
    }

    /// Applies what was appended since this instance last looked: reads only
    /// the header and the new tail. False when the journal was rewritten (or
    /// removed), so it must be read again from the start.
    pub(super) fn catch_up(&mut self, root: &Descriptor) -> Result<bool, ErrorCode> {
        let Ok(head) = fs::read_head(root, JOURNAL, 512) else {
            return Ok(false);
        };
        if header(&head).map(|(generation, _)| generation) != Some(self.generation) {
            return Ok(false);
        }
        let tail = read_from(root, self.applied)?;
        self.apply(&tail, self.applied);
        Ok(true)
    }

    /// Applies the whole lines of `bytes`, the journal from offset `base`.
    /// Lines that do not parse (a write torn by a crash) are skipped: a later
    /// scan rereads those notes.
    fn apply(&mut self, bytes: &[u8], base: u64) {
        let Some(last_newline) = bytes.iter().rposition(|&b| b == b'\n') else {
            self.applied = base;
            return;
        };
        for line in bytes[..last_newline].split(|&b| b == b'\n') {
            match serde_json::from_slice::<Record>(line) {
                Ok(Record::Put(entry)) => self.put(entry),
                Ok(Record::Del(path)) => self.remove(&path),
                Err(_) => continue,
            }
            self.records += 1;
        }
        self.applied = base + last_newline as u64 + 1;
    }

    /// Appends this call's changes to the journal, or rewrites it when it has
    /// grown well past the number of notes.
    pub(super) fn save(&mut self, root: &Descriptor) -> Result<(), ErrorCode> {
        if self.pending.is_empty() {
            return Ok(());
        }
        if self.records + self.pending.len() > 2 * self.entries.len() + 256 {
            self.pending.clear();
            return self.compact(root);
        }
        let mut bytes = Vec::new();
        for record in self.pending.drain(..) {
            serde_json::to_writer(&mut bytes, &record).map_err(|_| ErrorCode::Io)?;
            bytes.push(b'\n');
            self.records += 1;
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
        self.applied = end;
        Ok(())
    }

    /// Rewrites the journal as one record per note, under a new generation.
    pub(super) fn compact(&mut self, root: &Descriptor) -> Result<(), ErrorCode> {
        let generation = wasip2::random::random::get_random_u64();
        let header = Header {
            memcap_notes: FORMAT,
            generation,
        };
        let mut bytes = serde_json::to_vec(&header).map_err(|_| ErrorCode::Io)?;
        bytes.push(b'\n');
        for entry in self.entries.values() {
            serde_json::to_writer(&mut bytes, &Record::Put((**entry).clone()))
                .map_err(|_| ErrorCode::Io)?;
            bytes.push(b'\n');
        }
        fs::put_private(root, JOURNAL, &bytes)?;
        self.generation = generation;
        self.applied = bytes.len() as u64;
        self.records = self.entries.len();
        self.pending.clear();
        Ok(())
    }
}

/// The generation in the journal's header line, and where its records start.
fn header(bytes: &[u8]) -> Option<(u64, usize)> {
    let end = bytes.iter().position(|&b| b == b'\n')?;
    let header: Header = serde_json::from_slice(&bytes[..end]).ok()?;
    (header.memcap_notes == FORMAT).then_some((header.generation, end + 1))
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
