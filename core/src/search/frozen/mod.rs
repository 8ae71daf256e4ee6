//! The search index's saved form, read in place: a new process answers a
//! search from these bytes as they were read, decoding only the notes of
//! its answers and the posting lists of the query's terms (decoding the
//! whole index would cost more than the search at 10,000 notes). Read from
//! the journal, the tables a search looks things up in (chunks, offsets,
//! vocabulary) are read at once; the vectors (two thirds of those bytes)
//! stream through one block for a search's cosines; each query term's
//! posting list is read on its own, and the note list (a third of the rest
//! at 10,000 notes) a note at a time until [`NOTES_READ_ALONE`] were, then
//! whole; a note looked up by path reads one window of it: every fresh page
//! costs a one-shot call ~1.5–4 µs.
//!
//! Layout: a little-endian `u32`, the length of the [`Meta`] (postcard)
//! that follows it; then the sections the meta sizes, in this order:
//! - notes: each a postcard `(String, FileStamp)`, in path order;
//! - note offsets: `notes + 1` little-endian `u32`s into the notes, so a
//!   search decodes only the notes of its answers;
//! - chunks: 16 bytes each, grouped by note in the notes' order: note
//!   index, first line, last line, term count (little-endian `u32`s);
//! - vectors: `dims` int8 values per chunk (none without a model);
//! - posting offsets: `terms + 1` little-endian `u32`s into the postings;
//! - postings: per term, in the vocabulary's order, each chunk holding it
//!   as the LEB128 gap from the previous chunk id, then its LEB128 count,
//!   then the LEB128 mask of the chunk's lines that hold it;
//! - vocabulary offsets: `terms + 1` little-endian `u32`s into the words;
//! - words: the terms' bytes one after another, in byte order, so a term
//!   is found by binary search (and the index by its place).
//!
//! Nothing read from the bytes is trusted to be in range: a damaged form
//! fails [`Frozen::parse`] (the index is then rebuilt) or, for a posting
//! list only read at search time, ends that list early.

mod format;
mod read;
#[cfg(test)]
mod tests;
mod write;

use std::cell::{Cell, OnceCell, RefCell};

use serde::{Deserialize, Serialize};

use crate::notes::derived::SavedPart;

use format::Layout;
pub use write::Writer;

/// The sizes of the sections, and what holds for all of them.
#[derive(Serialize, Deserialize, Default, Debug)]
pub(super) struct Meta {
    /// The model the vectors come from (`None`: no vectors).
    pub(super) model: Option<String>,
    pub(super) dims: u32,
    pub(super) notes: u32,
    pub(super) chunks: u32,
    pub(super) terms: u32,
    /// Terms in all chunks, repeats counted (for the average length).
    pub(super) terms_total: u64,
    pub(super) notes_len: u64,
    pub(super) postings_len: u64,
    pub(super) words_len: u64,
    /// The notes the index took only in part (past its bounds), in path
    /// order.
    pub(super) cut: Vec<String>,
}

const CHUNK_BYTES: usize = 16;

/// Notes of a form read from the journal decoded from reads of their own
/// bytes; the next read takes the whole note list (a search's answers need
/// a few notes, a note looked up by path or every note needs them all).
const NOTES_READ_ALONE: u32 = 32;

/// Bytes of vectors a search reads at a time from a form left in the
/// journal (the block is read again into the same memory).
const VECTOR_BLOCK: usize = 64 * 1024;

/// Bytes of the note list a lookup by path reads at a time from a form left
/// in the journal: the list is cut into windows of about this size, each
/// known by its first path, and a lookup reads the one window that can hold
/// its path (a new process puts the notes changed since the form was saved,
/// each looked up first: at 10,000 notes the whole list is 380 KB).
const NOTE_WINDOW: usize = 64 * 1024;

/// A chunk as the saved form keeps it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SavedChunk {
    /// Its note's index in [`Frozen::notes`].
    pub note: u32,
    pub first: u32,
    pub last: u32,
    /// Terms in the chunk (repeats counted).
    pub len: u32,
}

/// A chunk holding a term: how often, and on which of its lines.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Posting {
    pub chunk: u32,
    /// Occurrences in the chunk, its title's included.
    pub count: u32,
    /// Bit `i` set: line `first + i` of the chunk holds the term (a chunk
    /// has at most 20 lines; the title is on none of them).
    pub lines: u32,
}

/// A saved index, answering from its bytes.
pub struct Frozen {
    body: Body,
    layout: Layout,
}

/// Where a saved form's bytes are.
// One per search index: the variants' sizes do not matter.
#[allow(clippy::large_enum_variant)]
enum Body {
    /// All of them, in memory.
    Whole(Vec<u8>),
    /// Read from the journal in parts: `meta` is every byte before the
    /// notes, `tables` the note offsets and the chunks, `offsets` the
    /// posting offsets, `tail` every byte after the postings. A note is
    /// read from `part` when asked for, or from `notes` once they are all
    /// read; a posting list likewise, from `postings`; the vectors a block
    /// at a time, or into `vectors` when one is asked for.
    Sparse {
        meta: Vec<u8>,
        tables: Vec<u8>,
        offsets: Vec<u8>,
        tail: Vec<u8>,
        part: SavedPart,
        notes: OnceCell<Vec<u8>>,
        /// Notes read one at a time so far.
        notes_read: Cell<u32>,
        postings: OnceCell<Vec<u8>>,
        vectors: OnceCell<Vec<u8>>,
        /// Whether the vectors were streamed once already.
        streamed: Cell<bool>,
        /// The note list's windows, by their first note's index and path.
        windows: OnceCell<Option<Vec<(u32, String)>>>,
        /// The window read last, by its number, with its bytes.
        window: RefCell<Option<(usize, Vec<u8>)>>,
    },
}

impl Default for Frozen {
    /// The saved form of an empty index.
    fn default() -> Self {
        Self::parse(Writer::new(None, 0).finish()).expect("an empty form parses")
    }
}
