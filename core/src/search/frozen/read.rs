//! Reading a saved form in place: the tables at once, a note, a posting
//! list or a block of vectors when a search asks for it, each checked
//! against the layout before it is trusted.

use super::format::{Layout, leb128, u32_at};
use super::{
    Body, CHUNK_BYTES, Frozen, Meta, NOTE_WINDOW, NOTES_READ_ALONE, Posting, SavedChunk,
    VECTOR_BLOCK,
};
use std::borrow::Cow;
use std::cell::{Cell, OnceCell, RefCell};

use crate::error::FsError;
use crate::notes::derived::SavedPart;
use crate::notes::entry::FileStamp;

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
    pub(super) fn consistent(&self) -> bool {
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
    pub(super) fn all_notes(&self) -> Result<&[u8], FsError> {
        let (at, end) = (self.layout.notes_at, self.layout.note_offsets_at);
        match &self.body {
            Body::Whole(bytes) => Ok(&bytes[at..end]),
            Body::Sparse { part, notes, .. } => read_once(notes, part, at, end),
        }
    }

    /// The vectors section, read whole if it was left in the journal.
    pub(super) fn all_vectors(&self) -> Result<&[u8], FsError> {
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
    pub(super) fn all_postings(&self) -> Result<&[u8], FsError> {
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
    pub(super) fn note_range(&self, index: u32) -> Option<(usize, usize)> {
        if index >= self.layout.meta.notes {
            return None;
        }
        let offsets = self.note_offsets();
        let offset = |i: u32| u32_at(offsets, 4 * i as usize) as usize;
        Some((offset(index), offset(index + 1)))
    }

    /// Note `index` decoded from the whole notes section.
    pub(super) fn decoded_note<'a>(
        &self,
        notes: &'a [u8],
        index: u32,
    ) -> Option<(&'a str, FileStamp)> {
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
    pub(super) fn note_windows(&self, part: &SavedPart) -> Option<Vec<(u32, String)>> {
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
    pub(super) fn word(&self, index: u32) -> &[u8] {
        let tail = self.tail();
        let offset = |i: u32| u32_at(tail, i as usize * 4) as usize;
        &tail[self.layout.words_at - self.layout.vocabulary_at..][offset(index)..offset(index + 1)]
    }

    pub(super) fn offset(&self, term: u32) -> u32 {
        u32_at(self.posting_offsets(), term as usize * 4)
    }

    pub(super) fn note_offsets(&self) -> &[u8] {
        let (at, end) = (self.layout.note_offsets_at, self.layout.chunks_at);
        match &self.body {
            Body::Whole(bytes) => &bytes[at..end],
            Body::Sparse { tables, .. } => &tables[..end - at],
        }
    }

    pub(super) fn chunk_table(&self) -> &[u8] {
        let (at, end) = (self.layout.chunks_at, self.layout.vectors_at);
        match &self.body {
            Body::Whole(bytes) => &bytes[at..end],
            Body::Sparse { tables, .. } => &tables[at - self.layout.note_offsets_at..],
        }
    }

    pub(super) fn posting_offsets(&self) -> &[u8] {
        match &self.body {
            Body::Whole(bytes) => &bytes[self.layout.offsets_at..self.layout.postings_at],
            Body::Sparse { offsets, .. } => offsets,
        }
    }

    /// Every byte after the postings: vocabulary offsets and words.
    pub(super) fn tail(&self) -> &[u8] {
        match &self.body {
            Body::Whole(bytes) => &bytes[self.layout.vocabulary_at..],
            Body::Sparse { tail, .. } => tail,
        }
    }
}

/// Bytes `at..end` of a form left in the journal, read into `cell` the
/// first time they are asked for.
pub(super) fn read_once<'a>(
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
pub(super) fn first_not(count: u32, before: impl Fn(u32) -> bool) -> u32 {
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
