//! The search index: every note's chunks with their term counts and, when
//! the environment has an embedder, their vectors; a posting list per
//! term. Kept as a derived index of the catalog.
//!
//! It is two layers. The saved form (`frozen.rs`), as the journal's
//! snapshot holds it, answers in place: a new process decodes only the
//! note list and the query's posting lists. What changed since (this
//! call's or replayed from the journal) is added on top: chunks of a
//! changed or removed note are marked gone, new ones kept in memory. A
//! change costs what the changed note costs; saving merges both layers
//! into a new saved form, which the index then answers from.
//!
//! The index holds no text: a hit names a path and lines, and the search
//! reads them back from the file, so it never answers with text the file
//! no longer holds.

use std::borrow::Cow;
use std::cell::OnceCell;
use std::collections::{BTreeMap, BTreeSet};

use rustc_hash::FxBuildHasher;
use string_interner::StringInterner;
use string_interner::backend::StringBackend;
use string_interner::symbol::{Symbol, SymbolU32};

use super::chunks;
use super::embedder::{self, Embedder};
use super::frozen::{Frozen, Posting, SavedChunk, Writer};
use super::score;
use super::terms::{Analyzer, TermKey};
use crate::error::FsError;
use crate::io::Io;
use crate::notes::catalog::Catalog;
use crate::notes::derived::{DerivedIndex, NoteChange, NoteFacts, Saved, SavedPart};
use crate::notes::entry::FileStamp;

/// A chunk added since the saved form.
#[derive(Clone, Debug, PartialEq)]
struct Added {
    note: String,
    first: u32,
    last: u32,
    /// Terms in the chunk (repeats counted).
    len: u32,
    /// The chunk's unit vector, quantized; empty without an embedder.
    vector: Vec<u8>,
}

/// The terms of the added chunks, each term's text kept once in one
/// buffer (a store's first build adds every term: a string apiece cost
/// megabytes at 100,000 notes, and a cache miss on each lookup).
struct AddedTerms {
    /// A term's symbol is its id.
    names: StringInterner<StringBackend<SymbolU32>, FxBuildHasher>,
    /// By the analyzer's [`TermKey`] symbol: the term's id plus one (0:
    /// not known yet), while the analyzer's generation is `keys_of`.
    by_key: Vec<u32>,
    keys_of: u32,
    /// By term id, gone chunks included until saved.
    postings: Vec<Vec<Posting>>,
}

impl Default for AddedTerms {
    fn default() -> Self {
        Self {
            names: StringInterner::with_hasher(FxBuildHasher),
            by_key: Vec::new(),
            keys_of: 0,
            postings: Vec::new(),
        }
    }
}

impl AddedTerms {
    fn id(&mut self, term: &str) -> u32 {
        let id = self.names.get_or_intern(term).to_usize() as u32;
        if id as usize == self.postings.len() {
            self.postings.push(Vec::new());
        }
        id
    }

    /// [`AddedTerms::id`], found by `key` once the term has been seen.
    fn id_by_key(&mut self, term: &str, key: Option<TermKey>) -> u32 {
        let Some(key) = key else {
            return self.id(term);
        };
        if key.generation != self.keys_of {
            self.by_key.clear();
            self.keys_of = key.generation;
        }
        let slot = key.symbol as usize;
        if let Some(&known) = self.by_key.get(slot)
            && known > 0
        {
            return known - 1;
        }
        let id = self.id(term);
        if self.by_key.len() <= slot {
            self.by_key.resize(slot + 1, 0);
        }
        self.by_key[slot] = id + 1;
        id
    }

    /// The id of `term`, if an added chunk holds it.
    fn get(&self, term: &str) -> Option<u32> {
        self.names.get(term).map(|symbol| symbol.to_usize() as u32)
    }

    /// The text of the term `id`.
    fn name(&self, id: u32) -> &str {
        SymbolU32::try_from_usize(id as usize)
            .and_then(|symbol| self.names.resolve(symbol))
            .expect("an id this index gave out")
    }
}

/// How many of a query's terms each line of a chunk holds, as bit-sliced
/// counters (bit `l` of `bits[k]` is bit `k` of line `l`'s count, 0–255):
/// a term's lines are added with a few word operations, not one per line.
#[derive(Default)]
struct LineCounts {
    bits: [u32; 8],
}

impl LineCounts {
    /// The lines a chunk has: the rest of a mask is not counted.
    const LINES: u32 = (1 << chunks::MAX_LINES) - 1;

    /// One more term on each line of `lines` (255 at most).
    fn add(&mut self, lines: u32) {
        let mut carry = lines & Self::LINES;
        for bits in &mut self.bits {
            if carry == 0 {
                return;
            }
            let held = *bits;
            *bits = held ^ carry;
            carry &= held;
        }
        // Past 255: those lines stay at 255.
        for bits in &mut self.bits {
            *bits |= carry;
        }
    }

    /// The count of the line holding the most terms.
    fn max(&self) -> u8 {
        let mut lines = Self::LINES;
        let mut max = 0;
        for (k, bits) in self.bits.iter().enumerate().rev() {
            if lines & bits != 0 {
                lines &= bits;
                max |= 1 << k;
            }
        }
        max
    }
}

/// A live chunk, whichever layer holds it.
struct ChunkRef<'a> {
    note: NoteRef<'a>,
    first: u32,
    last: u32,
    len: u32,
}

/// The note a chunk is in: its index in the saved form (its path read only
/// when asked for: a search names a few of the notes it ranks), or the
/// path of a note added since.
#[derive(Clone, Copy, PartialEq)]
enum NoteRef<'a> {
    Saved(u32),
    Added(&'a str),
}

/// A [`NoteRef`] a hit keeps.
#[derive(Clone, Debug, PartialEq)]
enum HitNote {
    Saved(u32),
    Added(String),
}

impl HitNote {
    fn of(note: NoteRef<'_>) -> Self {
        match note {
            NoteRef::Saved(index) => HitNote::Saved(index),
            NoteRef::Added(path) => HitNote::Added(path.to_owned()),
        }
    }

    fn as_ref(&self) -> NoteRef<'_> {
        match self {
            HitNote::Saved(index) => NoteRef::Saved(*index),
            HitNote::Added(path) => NoteRef::Added(path),
        }
    }

    fn is(&self, note: NoteRef<'_>) -> bool {
        match (self, note) {
            (HitNote::Saved(a), NoteRef::Saved(b)) => *a == b,
            (HitNote::Added(a), NoteRef::Added(b)) => a == b,
            _ => false,
        }
    }
}

/// Which passages a search may answer with: by note path, first and last
/// line.
pub type Keep<'a> = dyn Fn(&str, u32, u32) -> bool + 'a;

/// Each note's stamp and chunk ids, by path.
type Notes = BTreeMap<String, (FileStamp, Vec<u32>)>;

/// One search hit: a passage of a note and its 0–1 score. Its note's path
/// is [`SearchIndex::path_of`].
#[derive(Clone, Debug, PartialEq)]
pub struct Hit {
    note: HitNote,
    pub first: u32,
    pub last: u32,
    pub score: f32,
    /// Whether the passage holds a query term (else only its vector found it).
    pub keywords: bool,
    /// The cosine of the query's vector and the passage's (0 without vectors).
    pub cosine: f32,
}

/// A saved state not parsed yet (its meta read): a new process parses it
/// only when a call first asks the index something (`prompt`, `create` or
/// `view` never do), as the graph decodes its own. The changes after it wait
/// in the catalog's derived indexes until then ([`DerivedIndex::ready`]).
struct Unparsed {
    saved: Saved,
}

/// The search index.
#[derive(Default)]
pub struct SearchIndex {
    /// The saved state this instance restored, until it is first needed
    /// ([`DerivedIndex::ready`]); the fields below are empty meanwhile.
    unparsed: Option<Unparsed>,
    /// The saved form: chunk ids below its chunk count are its chunks.
    saved: Frozen,
    /// By saved chunk id: whether its note changed or went since.
    gone: Vec<bool>,
    /// Chunks added since, by id minus the saved chunk count; `None` once
    /// their note changed again or went.
    added: Vec<Option<Added>>,
    added_terms: AddedTerms,
    /// Each note's stamp and chunk ids: made from the saved form when first
    /// needed (a search that only reads it never does).
    notes: OnceCell<Notes>,
    /// Until `notes` is made: the notes put (`Some`) or removed (`None`)
    /// since the saved form, over it; a new process that takes a few
    /// changes finds each in the saved form by binary search instead of
    /// decoding every note.
    pending: BTreeMap<String, Option<(FileStamp, Vec<u32>)>>,
    /// Notes `pending` adds to the saved form's count (fewer when negative).
    pending_count: i64,
    /// The notes it took only in part: past [`MAX_NOTE_CHUNKS`], or when
    /// the store's budget was spent.
    cut: BTreeSet<String>,
    live_chunks: u32,
    live_terms_total: u64,
    /// Postings added since the saved form.
    added_postings: u64,
    /// What the added chunks hold: records and vectors.
    added_chunk_bytes: u64,
    /// The model the vectors come from (`None`: no vectors).
    model: Option<String>,
    /// Whether anything changed since the saved form.
    changed: bool,
    /// The most memory it may hold for the whole store, in bytes as
    /// [`SearchIndex::memory`] estimates them ([`Io::index_budget`]): a
    /// note put once it is spent is taken only in part, or not at all, and
    /// named in `cut` until it changes. (About 30 MB of prose made of words
    /// all its own, taken in by one warm instance, ran out of 256 MiB with
    /// twice this; at 64 MiB about 43,000 notes of 200 words are whole.)
    budget: Budget,
    analyzer: Analyzer,
}

/// [`SearchIndex::budget`]: the default until a call says otherwise.
#[derive(Clone, Copy)]
struct Budget(u64);

impl Default for Budget {
    fn default() -> Self {
        Self(crate::io::DEFAULT_INDEX_BUDGET)
    }
}

/// Its name among the derived indexes (and in the journal).
const NAME: &str = "search";

/// The most passages one note gives the index (about 50,000 lines): a
/// note's later passages are not searched.
pub const MAX_NOTE_CHUNKS: usize = 5_000;

/// Bytes an added posting, distinct term and chunk hold in memory (a
/// posting is three `u32`s; a term its word, a lookup entry and a list; a
/// chunk its record), beside a chunk's note path and vector.
const ADDED_POSTING: u64 = 12;
/// Bytes of the budget a byte of a note's text may take (a new term costs
/// [`ADDED_TERM`], and one can be a few bytes of text): room
/// [`SearchIndex::put`] wants before it takes a note without first merging
/// what was added.
const FOLD_MARGIN: u64 = 16;
const ADDED_TERM: u64 = 100;
const ADDED_CHUNK: u64 = 64;

impl SearchIndex {
    /// The search index among the catalog's derived indexes.
    pub fn of(catalog: &Catalog) -> &SearchIndex {
        catalog
            .derived(NAME)
            .and_then(|d| d.as_any().downcast_ref::<SearchIndex>())
            .expect("the search index is registered")
    }

    /// Indexes `text` as the note at `path` (replacing what it held), with
    /// each chunk's vector when there is an `embedder`.
    pub fn put(
        &mut self,
        path: &str,
        stamp: FileStamp,
        text: &str,
        embedder: Option<&dyn Embedder>,
    ) {
        self.remove(path);
        self.changed = true;
        self.model = embedder.map(|e| e.model().to_owned());
        // Near the budget, chunks added since the saved form (which cost
        // several times what they do saved) are merged into it first: a
        // store built in one call fits as much as one built over several.
        let added = self.memory() - self.saved.size() as u64;
        if self.memory() + FOLD_MARGIN * text.len() as u64 > self.budget.0
            && added > self.budget.0 / 8
        {
            self.fold();
        }
        let mut ids = Vec::new();
        let mut title = Vec::new();
        let added_terms = &mut self.added_terms;
        self.analyzer
            .each_term(&chunks::title(text), &mut |term, key| {
                title.push(added_terms.id_by_key(term, key));
            });
        // Each term of a chunk with the mask of the line it is on.
        let mut occurrences: Vec<(u32, u32)> = Vec::new();
        let mut cut = false;
        for (n, chunk) in chunks::chunks(text).into_iter().enumerate() {
            if n == MAX_NOTE_CHUNKS {
                cut = true;
                break;
            }
            occurrences.clear();
            let added_terms = &mut self.added_terms;
            for (line, text) in chunk.text.split('\n').enumerate() {
                let bit = 1u32.checked_shl(line as u32).unwrap_or(0);
                self.analyzer.each_term(text, &mut |term, key| {
                    occurrences.push((added_terms.id_by_key(term, key), bit));
                });
            }
            // The title belongs to every passage of the note, on no line.
            occurrences.extend(title.iter().map(|&term| (term, 0)));
            let len = occurrences.len() as u32;
            // By term id: its count and the mask of the lines holding it.
            occurrences.sort_unstable_by_key(|&(term, _)| term);
            let mut found: Vec<(u32, (u32, u32))> = Vec::new();
            for &(term, bit) in &occurrences {
                match found.last_mut() {
                    Some((last, (count, lines))) if *last == term => {
                        *count += 1;
                        *lines |= bit;
                    }
                    _ => found.push((term, (1, bit))),
                }
            }
            if len == 0 {
                continue;
            }
            if self.memory() + ADDED_POSTING * found.len() as u64 > self.budget.0 {
                // Terms this chunk named first stay with no posting; saving
                // leaves them out.
                cut = true;
                break;
            }
            let id = self.saved.chunks() + self.added.len() as u32;
            self.added_postings += found.len() as u64;
            for &(term, (count, lines)) in &found {
                self.added_terms.postings[term as usize].push(Posting {
                    chunk: id,
                    count,
                    lines,
                });
            }
            self.live_chunks += 1;
            self.live_terms_total += u64::from(len);
            let vector = embedder
                .map(|e| embedder::quantize(&e.embed(&chunk.text)))
                .unwrap_or_default();
            self.added_chunk_bytes += ADDED_CHUNK + (path.len() + vector.len()) as u64;
            self.added.push(Some(Added {
                note: path.to_owned(),
                first: chunk.first,
                last: chunk.last,
                len,
                vector,
            }));
            ids.push(id);
        }
        match self.notes.get_mut() {
            Some(notes) => drop(notes.insert(path.to_owned(), (stamp, ids))),
            None => {
                self.pending.insert(path.to_owned(), Some((stamp, ids)));
                self.pending_count += 1;
            }
        }
        if cut {
            self.cut.insert(path.to_owned());
        }
    }

    /// Both layers merged into the saved form (still to be saved), unless
    /// the saved postings no longer read.
    fn fold(&mut self) {
        if let Ok(merged) = self.merged() {
            self.adopt(Frozen::parse(merged).expect("a merged form parses"));
            self.changed = true;
        }
    }

    /// About how many bytes of memory it holds, as its budget counts: the
    /// saved form (its bytes, vectors read in place) and what was added
    /// since (gone chunks included until the next save: memory holds them).
    fn memory(&self) -> u64 {
        self.saved.size() as u64
            + ADDED_POSTING * self.added_postings
            + ADDED_TERM * self.added_terms.names.len() as u64
            + self.added_chunk_bytes
    }

    /// Forgets the note at `path`.
    pub fn remove(&mut self, path: &str) {
        let taken = match self.notes.get_mut() {
            Some(notes) => notes.remove(path).map(|(_, ids)| ids),
            None => self.remove_pending(path),
        };
        let Some(ids) = taken else {
            return;
        };
        self.cut.remove(path);
        self.changed = true;
        let saved = self.saved.chunks();
        for id in ids {
            let len = if id < saved {
                let gone = std::mem::replace(&mut self.gone[id as usize], true);
                (!gone).then(|| self.saved.chunk(id).len)
            } else {
                self.added[(id - saved) as usize].take().map(|c| c.len)
            };
            if let Some(len) = len {
                self.live_chunks -= 1;
                self.live_terms_total -= u64::from(len);
            }
        }
    }

    /// The chunk ids of the note at `path` taken out, while `notes` is not
    /// made: from `pending`, or from the saved form (and marked removed).
    fn remove_pending(&mut self, path: &str) -> Option<Vec<u32>> {
        let ids = match self.pending.get_mut(path) {
            Some(slot) => slot.take().map(|(_, ids)| ids),
            None => {
                let index = self.saved.find_note(path)?;
                self.pending.insert(path.to_owned(), None);
                Some(self.saved.chunks_of(index).collect())
            }
        };
        if ids.is_some() {
            self.pending_count -= 1;
        }
        ids
    }

    /// How many notes and chunks it holds.
    pub fn counts(&self) -> (usize, u32) {
        let notes = self.notes.get().map_or(
            (i64::from(self.saved.note_count()) + self.pending_count) as usize,
            BTreeMap::len,
        );
        (notes, self.live_chunks)
    }

    /// The notes it took only in part, in path order.
    pub fn cut(&self) -> impl Iterator<Item = &str> {
        self.cut.iter().map(String::as_str)
    }

    /// Every note it holds, with the stamp of the note it took.
    pub fn note_stamps(&self) -> BTreeMap<String, FileStamp> {
        self.notes()
            .iter()
            .map(|(path, (stamp, _))| (path.clone(), *stamp))
            .collect()
    }

    /// The paths of the notes it holds.
    pub fn paths(&self) -> impl Iterator<Item = &str> {
        self.notes().keys().map(String::as_str)
    }

    /// Chunk `id`, unless its note changed or went.
    fn chunk(&self, id: u32) -> Option<ChunkRef<'_>> {
        let saved = self.saved.chunks();
        if id < saved {
            if self.gone[id as usize] {
                return None;
            }
            let chunk = self.saved.chunk(id);
            Some(ChunkRef {
                note: NoteRef::Saved(chunk.note),
                first: chunk.first,
                last: chunk.last,
                len: chunk.len,
            })
        } else {
            let chunk = self.added.get((id - saved) as usize)?.as_ref()?;
            Some(ChunkRef {
                note: NoteRef::Added(&chunk.note),
                first: chunk.first,
                last: chunk.last,
                len: chunk.len,
            })
        }
    }

    /// The path of a hit's note; `None` when its bytes no longer read or
    /// decode (such a note is put again: its stamp is missing from
    /// `notes`).
    pub fn path_of<'a>(&'a self, hit: &'a Hit) -> Option<Cow<'a, str>> {
        self.note_path(hit.note.as_ref())
    }

    fn note_path<'a>(&'a self, note: NoteRef<'a>) -> Option<Cow<'a, str>> {
        match note {
            NoteRef::Saved(index) => self.saved.note(index).map(|(path, _)| path),
            NoteRef::Added(path) => Some(Cow::Borrowed(path)),
        }
    }

    /// Chunk `id`'s term count, unless its note changed or went: what
    /// keyword scoring needs, without decoding its note's path.
    fn len_of(&self, id: u32) -> Option<u32> {
        let saved = self.saved.chunks();
        if id < saved {
            (!self.gone[id as usize]).then(|| self.saved.chunk(id).len)
        } else {
            Some(self.added.get((id - saved) as usize)?.as_ref()?.len)
        }
    }

    /// Chunk `id`'s vector (live or not; the saved ones read whole).
    fn vector_of(&self, id: u32) -> Result<&[u8], FsError> {
        let saved = self.saved.chunks();
        if id < saved {
            self.saved.vector(id)
        } else {
            Ok(self.added[(id - saved) as usize]
                .as_ref()
                .map_or(&[], |chunk| &chunk.vector))
        }
    }

    /// The postings of `term` in live chunks.
    fn postings(&self, term: &str) -> Result<Vec<Posting>, FsError> {
        let mut out = Vec::new();
        if let Some(index) = self.saved.term(term) {
            self.saved.postings(index, &mut out)?;
            out.retain(|p| !self.gone[p.chunk as usize]);
        }
        if let Some(id) = self.added_terms.get(term) {
            let saved = self.saved.chunks();
            out.extend(
                self.added_terms.postings[id as usize]
                    .iter()
                    .filter(|p| self.added[(p.chunk - saved) as usize].is_some()),
            );
        }
        Ok(out)
    }

    /// The best `limit` passages for a query (its [`SearchIndex::query_terms`]
    /// and, with vectors, its unit vector) that `keep` accepts (by note
    /// path, first and last line; without it, every one), best first, at
    /// least `min_score` each; a passage overlapping a better one of the
    /// same note is left out, so the answers are distinct places. With the
    /// query's unit vector the scores are hybrid ([`score::fused`]) and
    /// every chunk is a candidate.
    pub fn search(
        &self,
        query_terms: &[String],
        query_vector: Option<&[f32]>,
        limit: usize,
        min_score: f32,
        keep: Option<&Keep<'_>>,
    ) -> Result<Vec<Hit>, FsError> {
        let n = self.live_chunks;
        if n == 0 {
            return Ok(Vec::new());
        }
        let avg_len = self.live_terms_total as f32 / n as f32;
        // Terms found nowhere in the store tell no passage from another:
        // they are left out of the query's weight.
        let mut terms: Vec<(f32, Vec<Posting>)> = Vec::new();
        for term in query_terms {
            let postings = self.postings(term)?;
            if !postings.is_empty() {
                terms.push((score::idf(n, postings.len() as u32), postings));
            }
        }
        let query_idf: f32 = terms.iter().map(|(idf, _)| idf).sum();
        // Ids are dense: every chunk saved or added since.
        let all = self.saved.chunks() + self.added.len() as u32;
        // The chunks holding query terms, in id order, with their keyword
        // scores: the terms' lists (each in chunk order) merged in one pass,
        // so nothing is kept per chunk (a table of every chunk cost a
        // one-shot search at 10,000 notes 70 fresh pages, ~0.3 ms).
        for (_, postings) in &mut terms {
            postings.sort_by_key(|p| p.chunk);
        }
        let mut at = vec![0; terms.len()];
        let mut matched = std::iter::from_fn(|| {
            let chunk = (terms.iter().zip(&at))
                .filter_map(|((_, postings), &i)| postings.get(i).map(|p| p.chunk))
                .min()
                .filter(|&chunk| chunk < all)?;
            let norm = score::length_norm(self.len_of(chunk).unwrap_or(0), avg_len);
            let mut sum = 0.0;
            let mut terms_on_line = LineCounts::default();
            for ((idf, postings), i) in terms.iter().zip(&mut at) {
                while let Some(posting) = postings.get(*i).filter(|p| p.chunk == chunk) {
                    *i += 1;
                    sum += idf * score::weight_in(posting.count, norm);
                    terms_on_line.add(posting.lines);
                }
            }
            let best_line = terms_on_line.max();
            let text = score::text(
                score::scaled(sum, query_idf),
                f32::from(best_line) / terms.len() as f32,
            );
            Some((chunk, text))
        })
        .peekable();
        // (score, chunk, text score, cosine), of the chunks that may be shown.
        let shown = |score: f32| score >= min_score && score > 0.0;
        let mut ranked: Vec<(f32, u32, f32, f32)> = match query_vector {
            None => matched
                .map(|(chunk, text)| (text, chunk, text, 0.0))
                .filter(|&(score, ..)| shown(score))
                .collect(),
            Some(query_vector) => {
                let mut ranked = Vec::with_capacity(self.live_chunks as usize);
                // Every live chunk in id order: the saved ones, then those
                // added since.
                let mut rank = |id: u32, vector: &[u8]| {
                    let text = matched
                        .next_if(|&(chunk, _)| chunk == id)
                        .map_or(0.0, |m| m.1);
                    let cosine = embedder::cosine(query_vector, vector);
                    let score = score::fused(text, cosine);
                    if shown(score) {
                        ranked.push((score, id, text, cosine));
                    }
                };
                self.saved.each_vector(&mut |id, vector| {
                    if !self.gone[id as usize] {
                        rank(id, vector);
                    }
                })?;
                let saved = self.saved.chunks();
                for (id, chunk) in (saved..).zip(&self.added) {
                    if let Some(chunk) = chunk {
                        rank(id, &chunk.vector);
                    }
                }
                ranked
            }
        };
        // Ties by chunk id, so equal scores come out in one order every time.
        let order = |a: &(f32, u32, f32, f32), b: &(f32, u32, f32, f32)| {
            b.0.total_cmp(&a.0).then(a.1.cmp(&b.1))
        };
        // Only the best are put in order, a window at a time: a hybrid
        // search ranks every chunk, and its answer needs the first few.
        let (mut sorted, mut windows) = (0, 0);
        let mut hits: Vec<Hit> = Vec::new();
        let mut at = 0;
        while at < ranked.len() && hits.len() < limit {
            if at == sorted {
                // Each window four times the last, for a search whose best
                // chunks `keep` refuses.
                let window = (limit.max(16) * 4) << (2 * windows).min(12);
                windows += 1;
                let end = sorted.saturating_add(window).min(ranked.len());
                if end < ranked.len() {
                    ranked[sorted..].select_nth_unstable_by(end - sorted - 1, order);
                }
                ranked[sorted..end].sort_unstable_by(order);
                sorted = end;
            }
            let (s, id, text, cosine) = ranked[at];
            at += 1;
            let Some(chunk) = self.chunk(id) else {
                continue;
            };
            if let Some(keep) = keep {
                // None: its note's bytes no longer decode.
                let path = self.note_path(chunk.note);
                if !path.is_some_and(|path| keep(&path, chunk.first, chunk.last)) {
                    continue;
                }
            }
            let overlaps = hits
                .iter()
                .any(|h| h.note.is(chunk.note) && h.first <= chunk.last && chunk.first <= h.last);
            if !overlaps {
                hits.push(Hit {
                    note: HitNote::of(chunk.note),
                    first: chunk.first,
                    last: chunk.last,
                    score: s,
                    keywords: text > 0.0,
                    cosine,
                });
            }
        }
        Ok(hits)
    }

    /// The distinct terms of a query, as the index compares them.
    pub fn query_terms(&self, query: &str) -> Vec<String> {
        self.analyzer.query(query)
    }

    /// Whether `text` still holds one of the query's `terms`: a hit whose
    /// lines another program rewrote since they were indexed is dropped,
    /// not shown.
    pub fn still_matches(&self, terms: &[String], text: &str) -> bool {
        let mut found = Vec::new();
        self.analyzer.terms(text, &mut found);
        found.iter().any(|t| terms.contains(t))
    }

    /// Answers from `saved` from now on, with nothing added since.
    fn adopt(&mut self, saved: Frozen) {
        self.notes = OnceCell::new();
        self.pending = BTreeMap::new();
        self.pending_count = 0;
        self.cut = saved.cut().iter().cloned().collect();
        self.gone = vec![false; saved.chunks() as usize];
        self.added = Vec::new();
        self.added_terms = AddedTerms::default();
        self.added_postings = 0;
        self.added_chunk_bytes = 0;
        self.live_chunks = saved.chunks();
        self.live_terms_total = saved.terms_total();
        self.model = saved.model().map(str::to_owned);
        self.changed = false;
        self.saved = saved;
    }

    /// Each note's stamp and chunk ids, made from the saved form the first
    /// time they are asked for.
    fn notes(&self) -> &Notes {
        self.notes.get_or_init(|| {
            let mut notes = notes_of(&self.saved);
            for (path, note) in &self.pending {
                match note {
                    Some(note) => notes.insert(path.clone(), note.clone()),
                    None => notes.remove(path),
                };
            }
            notes
        })
    }

    /// Both layers as one saved form: the live chunks renumbered in path
    /// order, gone ones and terms in no live chunk left out.
    fn merged(&self) -> Result<Vec<u8>, FsError> {
        self.saved.read_postings()?;
        let saved = self.saved.chunks();
        let dims = match (0..saved + self.added.len() as u32).find(|&id| self.chunk(id).is_some()) {
            Some(id) => self.vector_of(id)?.len(),
            None => 0,
        };
        let mut writer = Writer::new(self.model.clone(), dims);
        writer.cut(self.cut.iter().cloned());
        let mut renumbered = vec![u32::MAX; (saved as usize) + self.added.len()];
        for (path, (stamp, ids)) in self.notes() {
            let note = writer.note(path, *stamp);
            for &id in ids {
                if let Some(chunk) = self.chunk(id) {
                    let saved_chunk = SavedChunk {
                        note,
                        first: chunk.first,
                        last: chunk.last,
                        len: chunk.len,
                    };
                    renumbered[id as usize] = writer.chunk(saved_chunk, self.vector_of(id)?);
                }
            }
        }
        // The saved terms and the added ones, merged in byte order.
        let mut added: Vec<u32> = (0..self.added_terms.names.len() as u32).collect();
        added.sort_unstable_by(|a, b| self.added_terms.name(*a).cmp(self.added_terms.name(*b)));
        let mut added = added.into_iter().peekable();
        let mut postings = Vec::new();
        // All read above: a list that fails now fails the merge.
        let mut unread = None;
        let added_name = |id: u32| self.added_terms.name(id).as_bytes();
        let write_added = |writer: &mut Writer, id: u32, postings: &mut Vec<Posting>| {
            for posting in &self.added_terms.postings[id as usize] {
                postings.push(Posting {
                    chunk: renumbered[posting.chunk as usize],
                    ..*posting
                });
            }
            postings.retain(|p| p.chunk != u32::MAX);
            postings.sort_unstable();
            writer.term(added_name(id), postings);
            postings.clear();
        };
        self.saved.each_term(&mut |term, index| {
            while let Some(&id) = added.peek()
                && added_name(id) < term
            {
                write_added(&mut writer, id, &mut postings);
                added.next();
            }
            if let Err(error) = self.saved.postings(index, &mut postings) {
                unread.get_or_insert(error);
            }
            for posting in &mut postings {
                posting.chunk = renumbered[posting.chunk as usize];
            }
            match added.peek() {
                Some(&id) if added_name(id) == term => {
                    write_added(&mut writer, id, &mut postings);
                    added.next();
                }
                _ => {
                    postings.retain(|p| p.chunk != u32::MAX);
                    postings.sort_unstable();
                    writer.term(term, &postings);
                    postings.clear();
                }
            }
        });
        for id in added {
            write_added(&mut writer, id, &mut postings);
        }
        match unread {
            Some(error) => Err(error),
            None => Ok(writer.finish()),
        }
    }

    /// Its state back from `bytes`, unless they do not parse or their
    /// vectors are not of `model` (another model's, or none, or some where
    /// vectors are now off, cannot be compared with this instance's).
    /// Keeps `saved` to parse on first use, when its meta (chunk count and
    /// model) suits this instance: vectors of another model, or none where
    /// this instance makes them, mean a rebuild.
    fn restore_unparsed(
        &mut self,
        io: &Io,
        meta: Option<(u32, Option<String>)>,
        saved: Saved,
    ) -> bool {
        let model = io.env.embedder().map(|e| e.model());
        match meta {
            Some((chunks, kept)) if chunks == 0 || kept.as_deref() == model => {
                self.clear();
                self.unparsed = Some(Unparsed { saved });
                true
            }
            _ => false,
        }
    }

    /// Restores and parses at once (the tests' way).
    #[cfg(test)]
    fn restore_state(&mut self, bytes: Vec<u8>, model: Option<&str>) -> bool {
        match Frozen::parse(bytes) {
            Some(saved) if saved.chunks() == 0 || saved.model() == model => {
                self.adopt(saved);
                true
            }
            _ => false,
        }
    }
}

impl DerivedIndex for SearchIndex {
    fn name(&self) -> &'static str {
        NAME
    }

    fn version(&self) -> u32 {
        6
    }

    fn apply(&mut self, io: &Io, change: NoteChange) -> Result<NoteFacts, FsError> {
        // The catalog readies it first; should it not, a change still lands
        // on the saved state, never beside it.
        self.ready(io)?;
        match change {
            NoteChange::Put(entry, text) => {
                // A note that cannot be read (no permission, gone meanwhile)
                // or is not UTF-8 text has no passages; the catalog lists its
                // problem, and the rest of the memory stays searchable.
                let text = text.unwrap_or_default();
                self.budget = Budget(io.index_budget());
                self.put(&entry.path, entry.stamp, text, io.env.embedder());
            }
            NoteChange::Removed(path) => self.remove(path),
        }
        Ok(NoteFacts::default())
    }

    fn ready(&mut self, io: &Io) -> Result<(), FsError> {
        let Some(unparsed) = self.unparsed.take() else {
            return Ok(());
        };
        // Damage found now costs the catalog a rebuild from the files, as a
        // graph that does not decode does.
        let saved = match unparsed.saved {
            Saved::Bytes(bytes) => Frozen::parse(bytes),
            // Its postings stay in the journal until a search or a merge
            // asks for them.
            Saved::Part(part) => Frozen::read(part),
        };
        let saved = saved.ok_or(FsError::Damaged)?;
        self.adopt(saved);
        self.budget = Budget(io.index_budget());
        Ok(())
    }

    fn persist(&mut self) -> Cow<'_, [u8]> {
        if self.unparsed.is_none() && self.changed {
            match self.merged() {
                Ok(merged) => {
                    let saved = Frozen::parse(merged).expect("a merged form parses");
                    self.adopt(saved);
                }
                // Postings that no longer read save nothing: it is rebuilt.
                Err(_) => return Cow::Borrowed(&[]),
            }
        }
        match &self.unparsed {
            // Never parsed, so never changed: the very bytes restored (a
            // part that no longer reads saves nothing, so it is rebuilt).
            Some(unparsed) => unparsed.saved.bytes().unwrap_or(Cow::Borrowed(&[])),
            None => self.saved.bytes().unwrap_or(Cow::Borrowed(&[])),
        }
    }

    fn restore(&mut self, io: &Io, bytes: Vec<u8>) -> bool {
        let meta = Frozen::peek(&bytes);
        self.restore_unparsed(io, meta, Saved::Bytes(bytes))
    }

    fn restore_saved(&mut self, io: &Io, part: SavedPart) -> bool {
        // The meta alone is read now: its length, then itself.
        let meta = part
            .head(4)
            .ok()
            .and_then(|len| Some(u32::from_le_bytes(len.try_into().ok()?)))
            .and_then(|len| part.head(4 + u64::from(len)).ok())
            .and_then(|head| Frozen::peek(&head));
        self.restore_unparsed(io, meta, Saved::Part(part))
    }

    fn stamps(&self) -> BTreeMap<String, u64> {
        debug_assert!(self.unparsed.is_none(), "asked before ready");
        self.notes()
            .iter()
            .map(|(path, (stamp, _))| (path.clone(), stamp.digest()))
            .collect()
    }

    fn clear(&mut self) {
        let analyzer = std::mem::take(&mut self.analyzer);
        *self = Self {
            analyzer,
            ..Self::default()
        };
    }

    fn as_any(&self) -> &dyn std::any::Any {
        self
    }
}

/// The notes of a saved form, each with its stamp and chunk ids (the
/// chunks are grouped by note, notes in path order).
fn notes_of(saved: &Frozen) -> Notes {
    let mut ids = vec![Vec::new(); saved.note_count() as usize];
    for id in 0..saved.chunks() {
        ids[saved.chunk(id).note as usize].push(id);
    }
    saved
        .notes()
        .map(|(index, path, stamp)| {
            let ids = std::mem::take(&mut ids[index as usize]);
            (path.to_owned(), (stamp, ids))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn line_counts_give_the_busiest_line_as_counting_each_line_would() {
        // Line masks from a fixed generator: bits past the chunk's lines
        // included, and one line given 300 terms (counted to 255).
        let mut seed = 0x2545_f491_u32;
        let mut next = || {
            seed ^= seed << 13;
            seed ^= seed >> 17;
            seed ^= seed << 5;
            seed
        };
        for terms in [0, 1, 2, 3, 7, 40, 300] {
            let mut counts = LineCounts::default();
            let mut each = [0u8; chunks::MAX_LINES];
            for _ in 0..terms {
                let lines = if terms == 300 {
                    1 << 4
                } else {
                    next() & next()
                };
                counts.add(lines);
                for (line, count) in each.iter_mut().enumerate() {
                    if lines & (1 << line) != 0 {
                        *count = count.saturating_add(1);
                    }
                }
            }
            assert_eq!(
                counts.max(),
                each.iter().copied().max().unwrap(),
                "{terms} terms"
            );
        }
    }

    /// A hit with its note's path (a saved note's index changes when the
    /// index is saved).
    #[derive(Debug, PartialEq)]
    struct Named {
        path: String,
        first: u32,
        last: u32,
        score: f32,
        keywords: bool,
    }

    /// The hits for `query`, keywords only, in every note.
    fn find(index: &SearchIndex, query: &str, limit: usize, min_score: f32) -> Vec<Named> {
        let hits = index
            .search(&index.query_terms(query), None, limit, min_score, None)
            .unwrap();
        hits.iter()
            .map(|hit| Named {
                path: index.path_of(hit).unwrap().into_owned(),
                first: hit.first,
                last: hit.last,
                score: hit.score,
                keywords: hit.keywords,
            })
            .collect()
    }

    fn index(notes: &[(&str, &str)]) -> SearchIndex {
        let mut index = SearchIndex::default();
        for (path, text) in notes {
            index.put(path, FileStamp::sized(text.len() as u64), text, None);
        }
        index
    }

    #[test]
    fn the_note_holding_the_terms_ranks_first_with_its_lines() {
        let index = index(&[
            (
                "api.md",
                "# API\nWe decided to use JWT with a 15-minute expiry.\nRefresh tokens rotate.",
            ),
            ("food.md", "# Food\nThe team likes pizza on Fridays."),
            ("db.md", "# Database\nPostgres 17, one primary."),
        ]);
        let hits = find(&index, "API authentication decisions JWT", 5, 0.0);
        assert_eq!(hits[0].path, "api.md");
        assert_eq!((hits[0].first, hits[0].last), (1, 3));
        assert!(hits.iter().all(|h| h.path != "food.md"));
        assert!(hits[0].score > 0.0 && hits[0].score <= 1.0);
    }

    #[test]
    fn terms_on_one_line_rank_above_the_same_terms_apart() {
        // The same words, as often, in chunks as long: only where they stand
        // tells the two apart.
        let mut index = index(&[
            (
                "apart.md",
                "the deploy went out\nfiller words here\nkey rotates",
            ),
            (
                "together.md",
                "the deploy key rotates\nfiller words here\nwent out",
            ),
        ]);
        let hits = find(&index, "deploy key", 5, 0.0);
        assert_eq!(hits[0].path, "together.md");
        assert!(hits[0].score > hits[1].score);
        // Saved and read back, the lines are kept.
        let mut back = SearchIndex::default();
        assert!(back.restore_state(index.persist().into_owned(), None));
        assert_eq!(find(&back, "deploy key", 5, 0.0), hits);
    }

    #[test]
    fn a_changed_or_removed_note_answers_with_what_it_holds_now() {
        let mut index = index(&[("a.md", "postgres here"), ("b.md", "mysql there")]);
        index.put("a.md", FileStamp::sized(1), "sqlite now", None);
        assert!(find(&index, "postgres", 5, 0.0).is_empty());
        assert_eq!(find(&index, "sqlite", 5, 0.0)[0].path, "a.md");
        index.remove("b.md");
        assert!(find(&index, "mysql", 5, 0.0).is_empty());
        assert_eq!(index.counts(), (1, 1));
    }

    #[test]
    fn changes_to_a_saved_index_find_their_notes_without_decoding_all() {
        let mut index = index(&[
            ("a.md", "alpha words"),
            ("b.md", "beta words\n\n# Two\nbeta again"),
            ("c.md", "gamma words"),
        ]);
        let mut back = SearchIndex::default();
        assert!(back.restore_state(index.persist().into_owned(), None));
        back.put("b.md", FileStamp::sized(9), "beta changed", None);
        back.remove("c.md");
        back.remove("c.md");
        back.remove("none.md");
        back.put("d.md", FileStamp::sized(4), "delta words", None);
        back.put("d.md", FileStamp::sized(5), "delta twice", None);
        assert!(back.notes.get().is_none(), "every note decoded");
        assert_eq!(back.counts(), (3, 3));
        assert!(find(&back, "gamma", 5, 0.0).is_empty());
        assert_eq!(find(&back, "again", 5, 0.0), []);
        assert_eq!(find(&back, "twice", 5, 0.0)[0].path, "d.md");
        let stamps: Vec<(String, u64)> = back
            .note_stamps()
            .into_iter()
            .map(|(path, stamp)| (path, stamp.size))
            .collect();
        assert_eq!(
            stamps,
            [("a.md".into(), 11), ("b.md".into(), 9), ("d.md".into(), 5)]
        );
        assert_eq!(back.counts(), (3, 3));
    }

    #[test]
    fn near_its_budget_the_index_merges_what_it_added_to_take_more() {
        let note = |i: usize| {
            (0..200)
                .map(|k| format!("word{i}x{k} shared"))
                .collect::<Vec<_>>()
                .join("\n")
        };
        let take = |budget: u64| {
            let mut index = SearchIndex {
                budget: Budget(budget),
                ..SearchIndex::default()
            };
            for i in 0..30 {
                index.put(&format!("n{i:02}.md"), FileStamp::sized(1), &note(i), None);
            }
            index
        };
        // Unbounded, all of it; what it then holds saved is the budget.
        let mut whole = take(u64::MAX);
        let unmerged = whole.memory();
        whole.persist();
        let budget = whole.saved.size() as u64 * 2;
        // Unmerged, what it added costs more than the budget.
        assert!(unmerged > budget, "{unmerged} {budget}");
        let index = take(budget);
        assert!(index.saved.chunks() > 0, "nothing merged on the way");
        assert!(index.cut.is_empty(), "{:?}", index.cut);
        assert_eq!(find(&index, "word29x150", 1, 0.0)[0].path, "n29.md");
    }

    #[test]
    fn saving_merges_the_layers_and_keeps_every_live_answer() {
        let mut index = SearchIndex::default();
        for i in 0..200 {
            index.put(
                &format!("n{i}.md"),
                FileStamp::sized(i),
                &format!("topic{i} shared words"),
                None,
            );
        }
        // Equal scores are ordered by chunk id, which saving renumbers.
        let all = |index: &SearchIndex| {
            let mut hits = find(index, "shared", 300, 0.0);
            hits.sort_by(|a, b| a.path.cmp(&b.path));
            hits
        };
        index.persist();
        assert_eq!((index.saved.chunks(), index.added.len()), (200, 0));
        // Saved chunks go, added ones come and go, then all is saved again.
        for i in 0..150 {
            index.remove(&format!("n{i}.md"));
        }
        index.put(
            "n199.md",
            FileStamp::sized(1),
            "topic199 changed words",
            None,
        );
        index.put("new.md", FileStamp::sized(1), "topicnew shared", None);
        index.put("new.md", FileStamp::sized(2), "topicnew shared again", None);
        let before = all(&index);
        assert_eq!(before.len(), 50);
        assert!(find(&index, "topic3", 5, 0.0).is_empty());
        index.persist();
        assert_eq!((index.saved.chunks(), index.added.len()), (51, 0));
        assert_eq!(all(&index), before);
        for i in 150..199 {
            assert_eq!(
                find(&index, &format!("topic{i}"), 1, 0.0)[0].path,
                format!("n{i}.md")
            );
        }
        assert_eq!(find(&index, "again", 5, 0.0)[0].path, "new.md");
        assert_eq!(index.counts(), (51, 51));
        // The saved form restored elsewhere answers the same.
        let mut back = SearchIndex::default();
        assert!(back.restore_state(index.persist().into_owned(), None));
        assert_eq!(all(&back), before);
        assert_eq!(back.stamps(), index.stamps());
    }

    #[test]
    fn a_note_past_its_passage_bound_is_taken_in_part_and_named_until_it_shrinks() {
        let long: String = (0..MAX_NOTE_CHUNKS + 5)
            .map(|i| format!("# part {i}\nword{i}\n"))
            .collect();
        let mut index = index(&[("long.md", &long), ("short.md", "alpha")]);
        assert_eq!(index.counts(), (2, MAX_NOTE_CHUNKS as u32 + 1));
        assert_eq!(index.cut().collect::<Vec<_>>(), ["long.md"]);
        assert_eq!(find(&index, "word0", 5, 0.0)[0].path, "long.md");
        let last = format!("word{}", MAX_NOTE_CHUNKS + 4);
        assert!(find(&index, &last, 5, 0.0).is_empty());
        // Saved and read back, the cut note is still named.
        let mut back = SearchIndex::default();
        assert!(back.restore_state(index.persist().into_owned(), None));
        assert_eq!(back.cut().collect::<Vec<_>>(), ["long.md"]);
        // Shrunk within the bound (or gone), it is whole again.
        back.put("long.md", FileStamp::sized(1), "# part\nword0", None);
        assert_eq!(back.cut().count(), 0);
        index.remove("long.md");
        assert_eq!(index.cut().count(), 0);
    }

    #[test]
    fn min_score_and_limit_bound_the_answer_and_the_state_round_trips() {
        let mut index = index(&[("a.md", "alpha beta"), ("b.md", "alpha"), ("c.md", "gamma")]);
        let all = find(&index, "alpha beta", 10, 0.0);
        assert_eq!(all.len(), 2);
        assert!(all[0].score > all[1].score);
        assert_eq!(find(&index, "alpha beta", 1, 0.0).len(), 1);
        assert!(find(&index, "alpha beta", 10, 0.99).len() <= 1);
        let mut back = SearchIndex::default();
        assert!(back.restore_state(index.persist().into_owned(), None));
        assert!(!back.restore_state(index.persist().into_owned(), Some("a model")));
        assert_eq!(find(&back, "alpha beta", 10, 0.0), all);
        assert!(!SearchIndex::default().restore_state(b"not an index".to_vec(), None));
    }
}
