//! What changed since the saved form: chunks of notes put since, kept in
//! memory with their terms, and the saved chunks they replace marked gone;
//! folded into a new saved form when the budget asks.

use super::{ADDED_CHUNK, ADDED_POSTING, ADDED_TERM, FOLD_MARGIN, MAX_NOTE_CHUNKS, SearchIndex};

use rustc_hash::FxBuildHasher;
use string_interner::StringInterner;
use string_interner::backend::StringBackend;
use string_interner::symbol::{Symbol, SymbolU32};

use crate::notes::entry::FileStamp;
use crate::search::chunks;
use crate::search::embedder::{self, Embedder};
use crate::search::frozen::{Frozen, Posting};
use crate::search::terms::TermKey;

/// A chunk added since the saved form.
#[derive(Clone, Debug, PartialEq)]
pub(super) struct Added {
    pub(super) note: String,
    pub(super) first: u32,
    pub(super) last: u32,
    /// Terms in the chunk (repeats counted).
    pub(super) len: u32,
    /// The chunk's unit vector, quantized; empty without an embedder.
    pub(super) vector: Vec<u8>,
}

/// The terms of the added chunks, each term's text kept once in one
/// buffer (a store's first build adds every term: a string apiece cost
/// megabytes at 100,000 notes, and a cache miss on each lookup).
pub(super) struct AddedTerms {
    /// A term's symbol is its id.
    pub(super) names: StringInterner<StringBackend<SymbolU32>, FxBuildHasher>,
    /// By the analyzer's [`TermKey`] symbol: the term's id plus one (0:
    /// not known yet), while the analyzer's generation is `keys_of`.
    pub(super) by_key: Vec<u32>,
    pub(super) keys_of: u32,
    /// By term id, gone chunks included until saved.
    pub(super) postings: Vec<Vec<Posting>>,
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
    pub(super) fn id(&mut self, term: &str) -> u32 {
        let id = self.names.get_or_intern(term).to_usize() as u32;
        if id as usize == self.postings.len() {
            self.postings.push(Vec::new());
        }
        id
    }

    /// [`AddedTerms::id`], found by `key` once the term has been seen.
    pub(super) fn id_by_key(&mut self, term: &str, key: Option<TermKey>) -> u32 {
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
    pub(super) fn get(&self, term: &str) -> Option<u32> {
        self.names.get(term).map(|symbol| symbol.to_usize() as u32)
    }

    /// The text of the term `id`.
    pub(super) fn name(&self, id: u32) -> &str {
        SymbolU32::try_from_usize(id as usize)
            .and_then(|symbol| self.names.resolve(symbol))
            .expect("an id this index gave out")
    }
}

impl SearchIndex {
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
    pub(super) fn fold(&mut self) {
        if let Ok(merged) = self.merged() {
            self.adopt(Frozen::parse(merged).expect("a merged form parses"));
            self.changed = true;
        }
    }

    /// About how many bytes of memory it holds, as its budget counts: the
    /// saved form (its bytes, vectors read in place) and what was added
    /// since (gone chunks included until the next save: memory holds them).
    pub(super) fn memory(&self) -> u64 {
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
    pub(super) fn remove_pending(&mut self, path: &str) -> Option<Vec<u32>> {
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
}
