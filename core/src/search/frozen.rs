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

use std::borrow::Cow;
use std::cell::{Cell, OnceCell, RefCell};

use serde::{Deserialize, Serialize};

use crate::error::FsError;
use crate::notes::derived::SavedPart;
use crate::notes::entry::FileStamp;

/// The sizes of the sections, and what holds for all of them.
#[derive(Serialize, Deserialize, Default, Debug)]
struct Meta {
    /// The model the vectors come from (`None`: no vectors).
    model: Option<String>,
    dims: u32,
    notes: u32,
    chunks: u32,
    terms: u32,
    /// Terms in all chunks, repeats counted (for the average length).
    terms_total: u64,
    notes_len: u64,
    postings_len: u64,
    words_len: u64,
    /// The notes the index took only in part (past its bounds), in path
    /// order.
    cut: Vec<String>,
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

impl Frozen {
    /// The chunk count and the vectors' model a saved index says it has,
    /// from its meta alone (the rest is checked by [`Frozen::parse`]).
    pub fn peek(bytes: &[u8]) -> Option<(u32, Option<String>)> {
        let meta_len = u32::from_le_bytes(bytes.get(..4)?.try_into().ok()?) as usize;
        let meta: Meta = postcard::from_bytes(bytes.get(4..4usize.checked_add(meta_len)?)?).ok()?;
        Some((meta.chunks, meta.model))
    }

    /// Reads `bytes` as a saved index: `None` unless every section is where
    /// the meta says and the note list, chunk table, offsets and vocabulary
    /// are consistent.
    pub fn parse(bytes: Vec<u8>) -> Option<Self> {
        let layout = Layout::of(&bytes)?;
        if layout.len != bytes.len() {
            return None;
        }
        layout.into_frozen(Body::Whole(bytes))
    }

    /// Reads a saved index from its part of the journal, all but its notes
    /// and postings: `None` when it does not read or is not consistent, as
    /// for [`Frozen::parse`].
    pub fn read(part: SavedPart) -> Option<Self> {
        let meta_len = u32::from_le_bytes(part.head(4).ok()?.try_into().ok()?);
        let meta = part.head(4 + u64::from(meta_len)).ok()?;
        let layout = Layout::of(&meta)?;
        if layout.len as u64 != part.size() {
            return None;
        }
        let section = |at: usize, end: usize| part.range(at as u64, (end - at) as u64).ok();
        let tables = section(layout.note_offsets_at, layout.vectors_at)?;
        let offsets = section(layout.offsets_at, layout.postings_at)?;
        let tail = section(layout.vocabulary_at, layout.len)?;
        layout.into_frozen(Body::Sparse {
            meta,
            tables,
            offsets,
            tail,
            part,
            notes: OnceCell::new(),
            notes_read: Cell::new(0),
            postings: OnceCell::new(),
            vectors: OnceCell::new(),
            streamed: Cell::new(false),
            windows: OnceCell::new(),
            window: RefCell::new(None),
        })
    }

    /// Chunks grouped by existing notes, lines in order, both offset tables
    /// rising to their section's end, and the words in byte order. Every
    /// new process checks this before its first search, so each check is
    /// one pass over its table's bytes.
    fn consistent(&self) -> bool {
        let notes = self.layout.meta.notes;
        let chunk_table = &self.chunk_table()[..self.layout.meta.chunks as usize * CHUNK_BYTES];
        let mut note = 0;
        for chunk in chunk_table.chunks_exact(CHUNK_BYTES) {
            let (this, first, last) = (u32_at(chunk, 0), u32_at(chunk, 4), u32_at(chunk, 8));
            if this < note || this >= notes || first > last {
                return false;
            }
            note = this;
        }
        // The offsets, each at least the last, the last at `end`.
        let rising = |table: &[u8], count: u32, end: u64| {
            let mut offset = 0;
            for next in table[..(count as usize + 1) * 4].chunks_exact(4) {
                let next = u32_at(next, 0);
                if next < offset {
                    return false;
                }
                offset = next;
            }
            u64::from(offset) == end
        };
        let notes_len = (self.layout.note_offsets_at - self.layout.notes_at) as u64;
        let terms = self.layout.meta.terms;
        if !(rising(self.note_offsets(), notes, notes_len)
            && rising(self.posting_offsets(), terms, self.layout.meta.postings_len)
            && rising(self.tail(), terms, self.layout.meta.words_len))
        {
            return false;
        }
        // The offsets rise within the words: each word is a slice of them.
        let tail = self.tail();
        let words = &tail[self.layout.words_at - self.layout.vocabulary_at..];
        let mut ends = tail[..(terms as usize + 1) * 4]
            .chunks_exact(4)
            .map(|end| u32_at(end, 0) as usize);
        let Some(mut start) = ends.next() else {
            return true;
        };
        let mut previous: Option<&[u8]> = None;
        for end in ends {
            let word = &words[start..end];
            if previous.is_some_and(|previous| previous >= word) {
                return false;
            }
            (previous, start) = (Some(word), end);
        }
        true
    }

    /// The bytes, as they are saved (the postings read if need be).
    pub fn bytes(&self) -> Result<Cow<'_, [u8]>, FsError> {
        match &self.body {
            Body::Whole(bytes) => Ok(Cow::Borrowed(bytes)),
            Body::Sparse {
                meta,
                tables,
                offsets,
                tail,
                ..
            } => {
                let mut bytes = Vec::with_capacity(self.layout.len);
                bytes.extend_from_slice(meta);
                bytes.extend_from_slice(self.all_notes()?);
                bytes.extend_from_slice(tables);
                bytes.extend_from_slice(self.all_vectors()?);
                bytes.extend_from_slice(offsets);
                bytes.extend_from_slice(self.all_postings()?);
                bytes.extend_from_slice(tail);
                Ok(Cow::Owned(bytes))
            }
        }
    }

    /// The saved form's length in bytes.
    pub fn size(&self) -> usize {
        self.layout.len
    }

    /// The notes section, read whole if it was left in the journal.
    fn all_notes(&self) -> Result<&[u8], FsError> {
        let (at, end) = (self.layout.notes_at, self.layout.note_offsets_at);
        match &self.body {
            Body::Whole(bytes) => Ok(&bytes[at..end]),
            Body::Sparse { part, notes, .. } => read_once(notes, part, at, end),
        }
    }

    /// The vectors section, read whole if it was left in the journal.
    fn all_vectors(&self) -> Result<&[u8], FsError> {
        let (at, end) = (self.layout.vectors_at, self.layout.offsets_at);
        match &self.body {
            Body::Whole(bytes) => Ok(&bytes[at..end]),
            Body::Sparse { part, vectors, .. } => read_once(vectors, part, at, end),
        }
    }

    /// Calls `each` with every chunk's id and quantized vector (empty
    /// without a model), in id order. From a form left in the journal the
    /// vectors are read a block at a time the first time, each into the
    /// memory the last one left (a one-shot search needs each once, and
    /// 10,000 chunks' take 160 fresh pages at once), then whole, for an
    /// instance that searches again.
    pub fn each_vector(&self, each: &mut dyn FnMut(u32, &[u8])) -> Result<(), FsError> {
        let dims = self.layout.meta.dims as usize;
        let chunks = self.layout.meta.chunks;
        if dims == 0 {
            (0..chunks).for_each(|id| each(id, &[]));
            return Ok(());
        }
        let in_blocks = match &self.body {
            Body::Sparse {
                part,
                vectors,
                streamed,
                ..
            } if vectors.get().is_none() && !streamed.replace(true) => Some(part),
            _ => None,
        };
        let Some(part) = in_blocks else {
            let vectors = self.all_vectors()?;
            (0..chunks)
                .zip(vectors.chunks_exact(dims))
                .for_each(|(id, v)| each(id, v));
            return Ok(());
        };
        let per_block = (VECTOR_BLOCK / dims).max(1) as u32;
        let mut id = 0;
        while id < chunks {
            let count = per_block.min(chunks - id);
            let at = self.layout.vectors_at + id as usize * dims;
            let block = part.block(at as u64, (count as usize * dims) as u64)?;
            for vector in block.chunks_exact(dims) {
                each(id, vector);
                id += 1;
            }
        }
        Ok(())
    }

    /// Reads every posting list now (a merge reads them all: one read
    /// instead of one per term).
    pub fn read_postings(&self) -> Result<(), FsError> {
        self.all_postings().map(drop)
    }

    /// The postings section, read whole if it was left in the journal.
    fn all_postings(&self) -> Result<&[u8], FsError> {
        let (at, end) = (self.layout.postings_at, self.layout.vocabulary_at);
        match &self.body {
            Body::Whole(bytes) => Ok(&bytes[at..end]),
            Body::Sparse { part, postings, .. } => read_once(postings, part, at, end),
        }
    }

    pub fn model(&self) -> Option<&str> {
        self.layout.meta.model.as_deref()
    }

    pub fn chunks(&self) -> u32 {
        self.layout.meta.chunks
    }

    /// Values in each chunk's vector (0 without a model).
    pub fn dims(&self) -> u32 {
        self.layout.meta.dims
    }

    pub fn terms_total(&self) -> u64 {
        self.layout.meta.terms_total
    }

    /// The notes the index took only in part, in path order.
    pub fn cut(&self) -> &[String] {
        &self.layout.meta.cut
    }

    /// How many notes it holds.
    pub fn note_count(&self) -> u32 {
        self.layout.meta.notes
    }

    /// Note `index` (below [`Frozen::note_count`]): its path and the stamp
    /// of the text it took; `None` when its bytes do not read or decode.
    pub fn note(&self, index: u32) -> Option<(Cow<'_, str>, FileStamp)> {
        let (start, end) = self.note_range(index)?;
        if let Body::Sparse {
            part,
            notes,
            notes_read,
            ..
        } = &self.body
            && notes.get().is_none()
            && notes_read.get() < NOTES_READ_ALONE
        {
            notes_read.set(notes_read.get() + 1);
            let bytes = part
                .range(
                    (self.layout.notes_at + start) as u64,
                    end.checked_sub(start)? as u64,
                )
                .ok()?;
            let (path, stamp): (String, FileStamp) = postcard::from_bytes(&bytes).ok()?;
            return Some((Cow::Owned(path), stamp));
        }
        let (path, stamp) = self.decoded_note(self.all_notes().ok()?, index)?;
        Some((Cow::Borrowed(path), stamp))
    }

    /// Where note `index`'s bytes lie in the notes section.
    fn note_range(&self, index: u32) -> Option<(usize, usize)> {
        if index >= self.layout.meta.notes {
            return None;
        }
        let offsets = self.note_offsets();
        let offset = |i: u32| u32_at(offsets, 4 * i as usize) as usize;
        Some((offset(index), offset(index + 1)))
    }

    /// Note `index` decoded from the whole notes section.
    fn decoded_note<'a>(&self, notes: &'a [u8], index: u32) -> Option<(&'a str, FileStamp)> {
        let (start, end) = self.note_range(index)?;
        postcard::from_bytes(notes.get(start..end)?).ok()
    }

    /// The index of the note at `path` (found by binary search: the notes
    /// are in path order). From a form left in the journal whose notes are
    /// not all read, only the window that can hold `path` is read.
    pub fn find_note(&self, path: &str) -> Option<u32> {
        if let Body::Sparse {
            part,
            notes,
            windows,
            window,
            ..
        } = &self.body
            && notes.get().is_none()
            && let Some(windows) = windows.get_or_init(|| self.note_windows(part)).as_deref()
        {
            // The last window starting at or before `path`.
            let k = windows.partition_point(|(_, first)| first.as_str() <= path);
            let k = k.checked_sub(1)?;
            let start = windows[k].0;
            let end = windows.get(k + 1).map_or(self.layout.meta.notes, |w| w.0);
            let mut cached = window.borrow_mut();
            if cached.as_ref().is_none_or(|(read, _)| *read != k) {
                // Dropped first: the next window takes the memory this one leaves.
                *cached = None;
                let (at, _) = self.note_range(start)?;
                let (_, last_end) = self.note_range(end - 1)?;
                let bytes = part
                    .block((self.layout.notes_at + at) as u64, (last_end - at) as u64)
                    .ok()?;
                *cached = Some((k, bytes));
            }
            let bytes = &cached.as_ref()?.1;
            let base = self.note_range(start)?.0;
            let decoded = |i: u32| {
                let (from, to) = self.note_range(i)?;
                let (p, _): (&str, FileStamp) =
                    postcard::from_bytes(bytes.get(from - base..to - base)?).ok()?;
                Some(p)
            };
            let at = start
                + first_not(end - start, |i| {
                    decoded(start + i).is_some_and(|p| p < path)
                });
            return (at < end && decoded(at)? == path).then_some(at);
        }
        let notes = self.all_notes().ok()?;
        let at = first_not(self.layout.meta.notes, |i| {
            self.decoded_note(notes, i).is_some_and(|(p, _)| p < path)
        });
        (self.decoded_note(notes, at)?.0 == path).then_some(at)
    }

    /// The note list cut into windows of about [`NOTE_WINDOW`] bytes (a
    /// note longer than that is a window of its own), each with its first
    /// note's index and path, read one note each; `None` when one does not
    /// read (lookups then read the whole list).
    fn note_windows(&self, part: &SavedPart) -> Option<Vec<(u32, String)>> {
        let count = self.layout.meta.notes;
        let mut windows = Vec::new();
        let mut start = 0;
        while start < count {
            let (from, to) = self.note_range(start)?;
            let bytes = part
                .block((self.layout.notes_at + from) as u64, (to - from) as u64)
                .ok()?;
            let (path, _): (String, FileStamp) = postcard::from_bytes(&bytes).ok()?;
            windows.push((start, path));
            // The next window starts at the first note ending past this one's room.
            let limit = from + NOTE_WINDOW;
            let next = start
                + 1
                + first_not(count - start - 1, |i| {
                    self.note_range(start + 1 + i)
                        .is_some_and(|(_, end)| end <= limit)
                });
            start = next;
        }
        Some(windows)
    }

    /// The ids of note `index`'s chunks (they are grouped by note, in the
    /// notes' order).
    pub fn chunks_of(&self, index: u32) -> std::ops::Range<u32> {
        let first = |note: u32| first_not(self.layout.meta.chunks, |i| self.chunk(i).note < note);
        first(index)..first(index + 1)
    }

    /// Every note that decodes, in path order, with the stamp of the text
    /// it took, and its index (none when the notes no longer read).
    pub fn notes(&self) -> impl Iterator<Item = (u32, &str, FileStamp)> {
        let notes = self.all_notes().unwrap_or_default();
        (0..self.layout.meta.notes).filter_map(move |index| {
            self.decoded_note(notes, index)
                .map(|(path, stamp)| (index, path, stamp))
        })
    }

    /// Chunk `id` (below [`Frozen::chunks`]).
    pub fn chunk(&self, id: u32) -> SavedChunk {
        let chunk = &self.chunk_table()[id as usize * CHUNK_BYTES..];
        let field = |i: usize| u32_at(chunk, 4 * i);
        SavedChunk {
            note: field(0),
            first: field(1),
            last: field(2),
            len: field(3),
        }
    }

    /// Chunk `id`'s quantized vector (empty without a model), as
    /// [`super::embedder::quantize`] makes them; the first one asked for
    /// reads them all.
    pub fn vector(&self, id: u32) -> Result<&[u8], FsError> {
        let dims = self.layout.meta.dims as usize;
        Ok(&self.all_vectors()?[id as usize * dims..][..dims])
    }

    /// The index of `term` in the vocabulary.
    pub fn term(&self, term: &str) -> Option<u32> {
        let at = first_not(self.layout.meta.terms, |i| self.word(i) < term.as_bytes());
        (at < self.layout.meta.terms && self.word(at) == term.as_bytes()).then_some(at)
    }

    /// Appends the posting of each chunk holding term `index` (its list
    /// read from the journal if the postings were left there).
    pub fn postings(&self, index: u32, out: &mut Vec<Posting>) -> Result<(), FsError> {
        if index >= self.layout.meta.terms {
            return Ok(());
        }
        let (start, end) = (self.offset(index) as usize, self.offset(index + 1) as usize);
        let list: Cow<[u8]> = match &self.body {
            Body::Sparse { part, postings, .. } if postings.get().is_none() => {
                Cow::Owned(part.range(
                    (self.layout.postings_at + start) as u64,
                    (end - start) as u64,
                )?)
            }
            _ => Cow::Borrowed(&self.all_postings()?[start..end]),
        };
        // Each posting takes three bytes or more: room for all of them at
        // once, not a copy at each doubling (fresh pages cost a one-shot
        // search more than decoding does).
        out.reserve(list.len() / 3);
        let mut at = 0;
        let mut chunk = 0u32;
        while at < list.len() {
            let mut next = || leb128(&list, &mut at);
            let (Some(gap), Some(count), Some(lines)) = (next(), next(), next()) else {
                break;
            };
            match chunk.checked_add(gap) {
                Some(id) if id < self.layout.meta.chunks => chunk = id,
                _ => break,
            }
            out.push(Posting {
                chunk,
                count,
                lines,
            });
        }
        Ok(())
    }

    /// Calls `each` with every term and its index, in byte order.
    pub fn each_term(&self, each: &mut dyn FnMut(&[u8], u32)) {
        for index in 0..self.layout.meta.terms {
            each(self.word(index), index);
        }
    }

    /// The bytes of term `index` (below the term count).
    fn word(&self, index: u32) -> &[u8] {
        let tail = self.tail();
        let offset = |i: u32| u32_at(tail, i as usize * 4) as usize;
        &tail[self.layout.words_at - self.layout.vocabulary_at..][offset(index)..offset(index + 1)]
    }

    fn offset(&self, term: u32) -> u32 {
        u32_at(self.posting_offsets(), term as usize * 4)
    }

    fn note_offsets(&self) -> &[u8] {
        let (at, end) = (self.layout.note_offsets_at, self.layout.chunks_at);
        match &self.body {
            Body::Whole(bytes) => &bytes[at..end],
            Body::Sparse { tables, .. } => &tables[..end - at],
        }
    }

    fn chunk_table(&self) -> &[u8] {
        let (at, end) = (self.layout.chunks_at, self.layout.vectors_at);
        match &self.body {
            Body::Whole(bytes) => &bytes[at..end],
            Body::Sparse { tables, .. } => &tables[at - self.layout.note_offsets_at..],
        }
    }

    fn posting_offsets(&self) -> &[u8] {
        match &self.body {
            Body::Whole(bytes) => &bytes[self.layout.offsets_at..self.layout.postings_at],
            Body::Sparse { offsets, .. } => offsets,
        }
    }

    /// Every byte after the postings: vocabulary offsets and words.
    fn tail(&self) -> &[u8] {
        match &self.body {
            Body::Whole(bytes) => &bytes[self.layout.vocabulary_at..],
            Body::Sparse { tail, .. } => tail,
        }
    }
}

/// Bytes `at..end` of a form left in the journal, read into `cell` the
/// first time they are asked for.
fn read_once<'a>(
    cell: &'a OnceCell<Vec<u8>>,
    part: &SavedPart,
    at: usize,
    end: usize,
) -> Result<&'a [u8], FsError> {
    if cell.get().is_none() {
        let _ = cell.set(part.range(at as u64, (end - at) as u64)?);
    }
    Ok(cell.get().expect("set just now"))
}

/// The first of `0..count` for which `before` is false (`count` if none):
/// a binary search over a section kept in order.
fn first_not(count: u32, before: impl Fn(u32) -> bool) -> u32 {
    let (mut low, mut high) = (0, count);
    while low < high {
        let middle = low + (high - low) / 2;
        if before(middle) {
            low = middle + 1;
        } else {
            high = middle;
        }
    }
    low
}

fn u32_at(bytes: &[u8], at: usize) -> u32 {
    u32::from_le_bytes(bytes[at..at + 4].try_into().expect("four bytes"))
}

/// Where a saved form's sections lie, from its meta.
struct Layout {
    meta: Meta,
    notes_at: usize,
    note_offsets_at: usize,
    chunks_at: usize,
    vectors_at: usize,
    offsets_at: usize,
    postings_at: usize,
    vocabulary_at: usize,
    words_at: usize,
    len: usize,
}

impl Layout {
    /// The layout `bytes` (the form, or at least its length and meta) say;
    /// `None` when the meta does not decode or a size overflows.
    fn of(bytes: &[u8]) -> Option<Self> {
        let meta_len = u32::from_le_bytes(bytes.get(..4)?.try_into().ok()?) as usize;
        let meta: Meta = postcard::from_bytes(bytes.get(4..4usize.checked_add(meta_len)?)?).ok()?;
        let chunks = meta.chunks as usize;
        let mut at = 4 + meta_len;
        let mut section = |len: usize| {
            let start = at;
            at = at.checked_add(len)?;
            Some(start)
        };
        let notes_at = section(usize::try_from(meta.notes_len).ok()?)?;
        let note_offsets_at = section((meta.notes as usize).checked_add(1)?.checked_mul(4)?)?;
        let chunks_at = section(chunks.checked_mul(CHUNK_BYTES)?)?;
        let vectors_at = section(chunks.checked_mul(meta.dims as usize)?)?;
        let offsets_at = section((meta.terms as usize).checked_add(1)?.checked_mul(4)?)?;
        let postings_at = section(usize::try_from(meta.postings_len).ok()?)?;
        let vocabulary_at = section((meta.terms as usize).checked_add(1)?.checked_mul(4)?)?;
        let words_at = section(usize::try_from(meta.words_len).ok()?)?;
        Some(Self {
            meta,
            notes_at,
            note_offsets_at,
            chunks_at,
            vectors_at,
            offsets_at,
            postings_at,
            vocabulary_at,
            words_at,
            len: at,
        })
    }

    /// The form over `body` (which holds the sections this layout says),
    /// if it is consistent.
    fn into_frozen(self, body: Body) -> Option<Frozen> {
        let frozen = Frozen { body, layout: self };
        frozen.consistent().then_some(frozen)
    }
}

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

fn put_leb128(out: &mut Vec<u8>, mut value: u32) {
    while value >= 0x80 {
        out.push(value as u8 | 0x80);
        value >>= 7;
    }
    out.push(value as u8);
}

/// The LEB128 `u32` at `*at` (moved past it); `None` when `bytes` end
/// first or it does not fit.
fn leb128(bytes: &[u8], at: &mut usize) -> Option<u32> {
    let mut value = 0u32;
    for shift in (0..35).step_by(7) {
        let byte = *bytes.get(*at)?;
        *at += 1;
        value |= u32::from(byte & 0x7f).checked_shl(shift)?;
        if byte & 0x80 == 0 {
            return Some(value);
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn posting(chunk: u32, count: u32, lines: u32) -> Posting {
        Posting {
            chunk,
            count,
            lines,
        }
    }

    fn sample() -> Vec<u8> {
        let mut w = Writer::new(Some("m".into()), 2);
        let a = w.note("a.md", FileStamp::sized(1));
        w.chunk(
            SavedChunk {
                note: a,
                first: 1,
                last: 3,
                len: 4,
            },
            &[1, -2i8 as u8],
        );
        w.chunk(
            SavedChunk {
                note: a,
                first: 4,
                last: 9,
                len: 2,
            },
            &[3],
        );
        let b = w.note("b.md", FileStamp::sized(2));
        w.chunk(
            SavedChunk {
                note: b,
                first: 1,
                last: 1,
                len: 1,
            },
            &[-127i8 as u8, 127],
        );
        w.term(b"alpha", &[posting(0, 2, 0b101), posting(2, 1, 1)]);
        w.term(b"beta", &[]);
        w.term(b"gamma", &[posting(1, 300, 0)]);
        w.finish()
    }

    #[test]
    fn a_written_form_reads_back_in_place() {
        let frozen = Frozen::parse(sample()).unwrap();
        assert_eq!(frozen.model(), Some("m"));
        assert_eq!((frozen.chunks(), frozen.terms_total()), (3, 7));
        assert_eq!(frozen.note(1), Some(("b.md".into(), FileStamp::sized(2))));
        assert_eq!(frozen.notes().count(), 2);
        assert_eq!(
            ["a.md", "b.md", "0.md", "c.md"].map(|p| frozen.find_note(p)),
            [Some(0), Some(1), None, None]
        );
        assert_eq!((frozen.chunks_of(0), frozen.chunks_of(1)), (0..2, 2..3));
        assert_eq!(
            frozen.chunk(1),
            SavedChunk {
                note: 0,
                first: 4,
                last: 9,
                len: 2
            }
        );
        assert_eq!(
            (
                frozen.vector(0).unwrap(),
                frozen.vector(1).unwrap(),
                frozen.vector(2).unwrap()
            ),
            (&[1, -2i8 as u8][..], &[0, 0][..], &[-127i8 as u8, 127][..])
        );
        let mut out = Vec::new();
        frozen
            .postings(frozen.term("alpha").unwrap(), &mut out)
            .unwrap();
        assert_eq!(out, [posting(0, 2, 0b101), posting(2, 1, 1)]);
        out.clear();
        frozen
            .postings(frozen.term("gamma").unwrap(), &mut out)
            .unwrap();
        assert_eq!(out, [posting(1, 300, 0)]);
        assert_eq!(frozen.term("beta"), None);
        let mut terms = Vec::new();
        frozen.each_term(&mut |t, i| terms.push((t.to_vec(), i)));
        assert_eq!(terms, [(b"alpha".to_vec(), 0), (b"gamma".to_vec(), 1)]);
        let empty = Frozen::default();
        assert_eq!(
            (empty.chunks(), empty.note_count(), empty.term("alpha")),
            (0, 0, None)
        );
    }

    /// A journal holding `bytes` after a few others, counting the bytes
    /// read from it.
    struct Journal {
        bytes: Vec<u8>,
        read: std::cell::Cell<u64>,
        /// The most one read gives (WASI hosts give 64 KiB at most).
        cap: usize,
    }

    impl crate::storage::File for Journal {
        fn stat(&self) -> Result<crate::storage::Meta, FsError> {
            Ok(crate::storage::Meta {
                kind: crate::storage::Kind::File,
                size: self.bytes.len() as u64,
                modified: None,
                changed: None,
            })
        }

        fn stamp(&self) -> Result<crate::storage::Stamp, FsError> {
            Err(FsError::Other)
        }

        fn read_at(&self, offset: u64, len: u64) -> Result<(Vec<u8>, bool), FsError> {
            let start = (offset as usize).min(self.bytes.len());
            let end = start
                .saturating_add((len as usize).min(self.cap))
                .min(self.bytes.len());
            self.read.set(self.read.get() + (end - start) as u64);
            Ok((self.bytes[start..end].to_vec(), end == self.bytes.len()))
        }
    }

    fn part_of(form: &[u8], cut: usize) -> (std::rc::Rc<Journal>, SavedPart) {
        let mut bytes = b"journal records before the part".to_vec();
        let offset = bytes.len() as u64;
        bytes.extend_from_slice(form);
        bytes.truncate(bytes.len() - cut);
        let journal = std::rc::Rc::new(Journal {
            bytes,
            read: Default::default(),
            cap: usize::MAX,
        });
        let file: std::rc::Rc<dyn crate::storage::File> = journal.clone();
        (journal, SavedPart::new(file, offset, form.len() as u64))
    }

    #[test]
    fn a_form_read_from_the_journal_leaves_its_notes_vectors_and_postings_there_until_asked() {
        let form = sample();
        let whole = Frozen::parse(form.clone()).unwrap();
        let layout = &whole.layout;
        let postings_len = layout.vocabulary_at - layout.postings_at;
        let notes_len = layout.note_offsets_at - layout.notes_at;
        let vectors_len = layout.offsets_at - layout.vectors_at;
        let (journal, part) = part_of(&form, 0);
        let sparse = Frozen::read(part).unwrap();
        // Everything but the notes, the vectors and the postings (the
        // meta's length is read first, to find the meta).
        assert_eq!(
            journal.read.get(),
            (form.len() - postings_len - notes_len - vectors_len + 4) as u64
        );
        // The vectors streamed: each once, in id order, as the whole form has them.
        let every = |frozen: &Frozen| {
            let mut seen = Vec::new();
            frozen
                .each_vector(&mut |id, vector| seen.push((id, vector.to_vec())))
                .unwrap();
            seen
        };
        let before = journal.read.get();
        assert_eq!(every(&sparse), every(&whole));
        assert_eq!(every(&whole).len(), whole.chunks() as usize);
        assert_eq!(journal.read.get() - before, vectors_len as u64);
        // A note alone: its bytes.
        let before = journal.read.get();
        let (start, end) = whole.note_range(1).unwrap();
        assert_eq!(sparse.note(1), whole.note(1));
        assert_eq!(journal.read.get() - before, (end - start) as u64);
        assert_eq!(
            (
                sparse.chunks(),
                sparse.find_note("b.md"),
                sparse.vector(2).unwrap()
            ),
            (whole.chunks(), Some(1), whole.vector(2).unwrap())
        );
        for term in ["alpha", "gamma", "beta"] {
            assert_eq!(sparse.term(term), whole.term(term));
        }
        let (mut from_sparse, mut from_whole) = (Vec::new(), Vec::new());
        let before = journal.read.get();
        sparse.postings(1, &mut from_sparse).unwrap();
        whole.postings(1, &mut from_whole).unwrap();
        assert_eq!(from_sparse, from_whole);
        // One list read: its bytes alone.
        assert!(journal.read.get() - before < postings_len as u64);
        assert_eq!(sparse.bytes().unwrap(), &form[..]);
        assert_eq!(sparse.size(), form.len());
        // A part cut short is refused, as damaged bytes are.
        assert!(Frozen::read(part_of(&form, 1).1).is_none());
    }

    #[test]
    fn vectors_streamed_in_blocks_come_out_whole_and_in_order() {
        // 2,500 chunks of 64 values: two full blocks and a part of one.
        let dims = 64;
        let mut w = Writer::new(Some("m".into()), dims);
        let note = w.note("a.md", FileStamp::sized(1));
        for id in 0..2_500u32 {
            let vector: Vec<u8> = (0..dims).map(|d| (id * 7 + d as u32) as u8).collect();
            let chunk = SavedChunk {
                note,
                first: id,
                last: id,
                len: 1,
            };
            w.chunk(chunk, &vector);
        }
        let form = w.finish();
        let (journal, part) = part_of(&form, 0);
        let sparse = Frozen::read(part).unwrap();
        let before = journal.read.get();
        // Chunk `id`'s vector as written above.
        let as_written = |id: u32, vector: &[u8]| {
            (vector.iter().enumerate()).all(|(d, &v)| v == (id * 7 + d as u32) as u8)
        };
        let mut next = 0;
        sparse
            .each_vector(&mut |id, vector| {
                assert_eq!(id, next);
                assert!(as_written(id, vector));
                next += 1;
            })
            .unwrap();
        assert_eq!(next, 2_500);
        assert_eq!(journal.read.get() - before, 2_500 * 64);
        // A host giving less than a block per read: the same vectors.
        let capped = std::rc::Rc::new(Journal {
            bytes: form.clone(),
            read: Default::default(),
            cap: 1_000,
        });
        let file: std::rc::Rc<dyn crate::storage::File> = capped.clone();
        let small_reads = Frozen::read(SavedPart::new(file, 0, form.len() as u64)).unwrap();
        let mut same = 0;
        small_reads
            .each_vector(&mut |id, vector| {
                assert!(as_written(id, vector));
                same += 1;
            })
            .unwrap();
        assert_eq!(same, 2_500);
        // Searched again: read whole once, then kept.
        for read in [2_500 * 64, 0] {
            let before = journal.read.get();
            let mut count = 0;
            sparse.each_vector(&mut |_, _| count += 1).unwrap();
            assert_eq!((count, journal.read.get() - before), (2_500, read));
        }
        // A journal cut short inside the vectors: the stream says so.
        let (_, part) = part_of(&form, 0);
        let cut = Frozen::read(part).unwrap();
        if let Body::Sparse { part, .. } = &cut.body {
            let short = SavedPart::new(
                std::rc::Rc::new(Journal {
                    bytes: form[..cut.layout.vectors_at + 100_000].to_vec(),
                    read: Default::default(),
                    cap: usize::MAX,
                }),
                0,
                part.size(),
            );
            let mut seen = 0;
            let damaged = Frozen::read(short).map(|f| f.each_vector(&mut |_, _| seen += 1));
            assert!(
                matches!(damaged, None | Some(Err(FsError::Damaged))),
                "{seen} read"
            );
        }
    }

    #[test]
    fn a_note_is_found_by_path_reading_one_window_of_the_list() {
        // 3,000 notes of ~70 bytes each: ~210 KB of note list, four windows.
        let mut w = Writer::new(None, 0);
        let path = |i: u32| format!("notes/area-{:02}/a-note-with-a-long-name-{i:05}.md", i % 7);
        let mut paths: Vec<String> = (0..3_000).map(path).collect();
        paths.sort();
        for (i, p) in paths.iter().enumerate() {
            let note = w.note(p, FileStamp::sized(i as u64));
            let chunk = SavedChunk {
                note,
                first: 1,
                last: 1,
                len: 1,
            };
            w.chunk(chunk, &[]);
        }
        let form = w.finish();
        let whole = Frozen::parse(form.clone()).unwrap();
        let notes_len = (whole.layout.note_offsets_at - whole.layout.notes_at) as u64;
        let (journal, part) = part_of(&form, 0);
        let sparse = Frozen::read(part).unwrap();
        let before = journal.read.get();
        assert_eq!(sparse.find_note(&paths[1_234]), Some(1_234));
        // The windows' first notes and one window: well under the list.
        assert!(journal.read.get() - before < notes_len / 2);
        for (i, p) in paths.iter().enumerate().step_by(37) {
            assert_eq!(sparse.find_note(p), Some(i as u32), "{p}");
        }
        for absent in [
            "",
            "a",
            "notes/area-03/b",
            "notes/area-03/a-note-with-a-long-name-99999.md",
            "z",
        ] {
            assert_eq!(
                sparse.find_note(absent),
                whole.find_note(absent),
                "{absent}"
            );
            assert_eq!(sparse.find_note(absent), None);
        }
        // Nothing else was read whole: the notes one at a time still.
        assert_eq!(
            sparse.note(5).map(|(p, _)| p.into_owned()),
            Some(paths[5].clone())
        );
    }

    #[test]
    fn damaged_bytes_do_not_parse_and_never_panic() {
        let good = sample();
        assert!(Frozen::parse(good[..good.len() - 1].to_vec()).is_none());
        assert!(Frozen::parse(Vec::new()).is_none());
        assert!(Frozen::parse(b"\xff\xff\xff\xff".to_vec()).is_none());
        // Every single-byte change either fails to parse or reads without
        // panicking, every posting in range.
        for at in 0..good.len() {
            let mut bytes = good.clone();
            bytes[at] ^= 0x5a;
            if let Some(frozen) = Frozen::parse(bytes) {
                let mut out = Vec::new();
                for term in 0..4 {
                    frozen.postings(term, &mut out).unwrap();
                }
                assert!(out.iter().all(|p| p.chunk < frozen.chunks()));
                frozen.each_term(&mut |_, _| {});
            }
        }
    }

    #[test]
    fn a_form_breaking_any_rule_of_its_tables_is_refused() {
        let good = sample();
        let layout = Layout::of(&good).unwrap();
        let chunk = |id: usize, field: usize| layout.chunks_at + id * CHUNK_BYTES + 4 * field;
        let word = |value: u32| value.to_le_bytes().to_vec();
        // Each rule, and bytes written at a place that break it.
        let broken = [
            ("a chunk's first line after its last", chunk(0, 1), word(10)),
            ("a chunk of a note not listed", chunk(2, 0), word(2)),
            ("chunks not grouped by note", chunk(0, 0), word(1)),
            // The second of four posting offsets above the third.
            (
                "posting offsets falling",
                layout.offsets_at + 4,
                word(1 << 20),
            ),
            (
                "note offsets falling",
                layout.note_offsets_at + 4,
                word(1 << 20),
            ),
            // "alpha" made "zlpha": after "beta".
            ("words out of order", layout.words_at, b"z".to_vec()),
        ];
        assert!(Frozen::parse(good.clone()).is_some());
        for (rule, at, written) in broken {
            let mut bytes = good.clone();
            bytes[at..at + written.len()].copy_from_slice(&written);
            assert!(Frozen::parse(bytes).is_none(), "{rule}");
        }
    }

    #[test]
    fn leb128_round_trips_and_refuses_overflow() {
        for value in [0, 1, 127, 128, 300, 1 << 21, u32::MAX] {
            let mut bytes = Vec::new();
            put_leb128(&mut bytes, value);
            let mut at = 0;
            assert_eq!(leb128(&bytes, &mut at), Some(value));
            assert_eq!(at, bytes.len());
        }
        assert_eq!(leb128(&[0xff, 0xff, 0xff, 0xff, 0xff, 0x01], &mut 0), None);
        assert_eq!(leb128(&[0x80], &mut 0), None);
    }
}
