//! Writing a saved form: notes in path order, each one's chunks after it,
//! then the terms in byte order.

use super::format::put_leb128;
use super::{Meta, Posting, SavedChunk};

use crate::notes::entry::FileStamp;

/// Writes a saved form: notes in path order, each one's chunks after it,
/// then the terms in byte order.
pub struct Writer {
    meta: Meta,
    notes: Vec<u8>,
    note_offsets: Vec<u8>,
    chunks: Vec<u8>,
    vectors: Vec<u8>,
    offsets: Vec<u8>,
    postings: Vec<u8>,
    vocabulary: Vec<u8>,
    words: Vec<u8>,
}

impl Writer {
    /// A form whose vectors are `dims` values of `model`'s.
    pub fn new(model: Option<String>, dims: usize) -> Self {
        let dims = if model.is_some() { dims as u32 } else { 0 };
        Self {
            meta: Meta {
                model,
                dims,
                ..Meta::default()
            },
            notes: Vec::new(),
            note_offsets: 0u32.to_le_bytes().to_vec(),
            chunks: Vec::new(),
            vectors: Vec::new(),
            offsets: 0u32.to_le_bytes().to_vec(),
            postings: Vec::new(),
            vocabulary: 0u32.to_le_bytes().to_vec(),
            words: Vec::new(),
        }
    }

    /// Records the notes the index took only in part.
    pub fn cut(&mut self, paths: impl Iterator<Item = String>) {
        self.meta.cut = paths.collect();
    }

    /// Adds a note (after every note added so far, in path order); returns
    /// its index for its chunks.
    pub fn note(&mut self, path: &str, stamp: FileStamp) -> u32 {
        // Into a Vec, postcard cannot fail.
        self.notes = postcard::to_extend(&(path, stamp), std::mem::take(&mut self.notes))
            .expect("a note encodes");
        self.note_offsets
            .extend_from_slice(&(self.notes.len() as u32).to_le_bytes());
        self.meta.notes += 1;
        self.meta.notes - 1
    }

    /// Adds the next chunk, of the last note added; returns its id. A vector
    /// of another length than the form's is stored as zeros (it then
    /// matches nothing, as it would not have).
    pub fn chunk(&mut self, chunk: SavedChunk, vector: &[u8]) -> u32 {
        for field in [chunk.note, chunk.first, chunk.last, chunk.len] {
            self.chunks.extend_from_slice(&field.to_le_bytes());
        }
        let dims = self.meta.dims as usize;
        if vector.len() == dims {
            self.vectors.extend_from_slice(vector);
        } else {
            self.vectors.resize(self.vectors.len() + dims, 0);
        }
        self.meta.terms_total += u64::from(chunk.len);
        self.meta.chunks += 1;
        self.meta.chunks - 1
    }

    /// Adds a term after every term added so far (in byte order), with its
    /// postings sorted by chunk id; a term in no chunk is left out.
    pub fn term(&mut self, term: &[u8], postings: &[Posting]) {
        if postings.is_empty() {
            return;
        }
        let mut previous = 0;
        for posting in postings {
            put_leb128(&mut self.postings, posting.chunk - previous);
            put_leb128(&mut self.postings, posting.count);
            put_leb128(&mut self.postings, posting.lines);
            previous = posting.chunk;
        }
        self.words.extend_from_slice(term);
        self.meta.terms += 1;
        self.offsets
            .extend_from_slice(&(self.postings.len() as u32).to_le_bytes());
        self.vocabulary
            .extend_from_slice(&(self.words.len() as u32).to_le_bytes());
    }

    /// The saved form, in one buffer of its exact size.
    pub fn finish(mut self) -> Vec<u8> {
        self.meta.notes_len = self.notes.len() as u64;
        self.meta.postings_len = self.postings.len() as u64;
        self.meta.words_len = self.words.len() as u64;
        let meta = postcard::to_allocvec(&self.meta).unwrap_or_default();
        let sections = [
            &self.notes,
            &self.note_offsets,
            &self.chunks,
            &self.vectors,
            &self.offsets,
            &self.postings,
            &self.vocabulary,
            &self.words,
        ];
        let size = 4 + meta.len() + sections.iter().map(|s| s.len()).sum::<usize>();
        let mut bytes = Vec::with_capacity(size);
        bytes.extend_from_slice(&(meta.len() as u32).to_le_bytes());
        bytes.extend_from_slice(&meta);
        for section in sections {
            bytes.extend_from_slice(section);
        }
        bytes
    }
}
