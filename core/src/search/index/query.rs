//! A search over both layers: each query term's postings, saved and added,
//! scored per chunk (BM25 with line counts, fused with the cosine where
//! there are vectors), the best passages kept.

use super::{Hit, Keep, SearchIndex};
use std::borrow::Cow;

use crate::error::FsError;
use crate::search::chunks;
use crate::search::embedder::{self};
use crate::search::frozen::Posting;
use crate::search::score;

/// How many of a query's terms each line of a chunk holds, as bit-sliced
/// counters (bit `l` of `bits[k]` is bit `k` of line `l`'s count, 0–255):
/// a term's lines are added with a few word operations, not one per line.
#[derive(Default)]
pub(super) struct LineCounts {
    pub(super) bits: [u32; 8],
}

impl LineCounts {
    /// The lines a chunk has: the rest of a mask is not counted.
    const LINES: u32 = (1 << chunks::MAX_LINES) - 1;

    /// One more term on each line of `lines` (255 at most).
    pub(super) fn add(&mut self, lines: u32) {
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
    pub(super) fn max(&self) -> u8 {
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
pub(super) struct ChunkRef<'a> {
    pub(super) note: NoteRef<'a>,
    pub(super) first: u32,
    pub(super) last: u32,
    pub(super) len: u32,
}

/// The note a chunk is in: its index in the saved form (its path read only
/// when asked for: a search names a few of the notes it ranks), or the
/// path of a note added since.
#[derive(Clone, Copy, PartialEq)]
pub(super) enum NoteRef<'a> {
    Saved(u32),
    Added(&'a str),
}

/// A [`NoteRef`] a hit keeps.
#[derive(Clone, Debug, PartialEq)]
pub(super) enum HitNote {
    Saved(u32),
    Added(String),
}

impl HitNote {
    pub(super) fn of(note: NoteRef<'_>) -> Self {
        match note {
            NoteRef::Saved(index) => HitNote::Saved(index),
            NoteRef::Added(path) => HitNote::Added(path.to_owned()),
        }
    }

    pub(super) fn as_ref(&self) -> NoteRef<'_> {
        match self {
            HitNote::Saved(index) => NoteRef::Saved(*index),
            HitNote::Added(path) => NoteRef::Added(path),
        }
    }

    pub(super) fn is(&self, note: NoteRef<'_>) -> bool {
        match (self, note) {
            (HitNote::Saved(a), NoteRef::Saved(b)) => *a == b,
            (HitNote::Added(a), NoteRef::Added(b)) => a == b,
            _ => false,
        }
    }
}

impl SearchIndex {
    /// Chunk `id`, unless its note changed or went.
    pub(super) fn chunk(&self, id: u32) -> Option<ChunkRef<'_>> {
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

    pub(super) fn note_path<'a>(&'a self, note: NoteRef<'a>) -> Option<Cow<'a, str>> {
        match note {
            NoteRef::Saved(index) => self.saved.note(index).map(|(path, _)| path),
            NoteRef::Added(path) => Some(Cow::Borrowed(path)),
        }
    }

    /// Chunk `id`'s term count, unless its note changed or went: what
    /// keyword scoring needs, without decoding its note's path.
    pub(super) fn len_of(&self, id: u32) -> Option<u32> {
        let saved = self.saved.chunks();
        if id < saved {
            (!self.gone[id as usize]).then(|| self.saved.chunk(id).len)
        } else {
            Some(self.added.get((id - saved) as usize)?.as_ref()?.len)
        }
    }

    /// Chunk `id`'s vector (live or not; the saved ones read whole).
    pub(super) fn vector_of(&self, id: u32) -> Result<&[u8], FsError> {
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
    pub(super) fn postings(&self, term: &str) -> Result<Vec<Posting>, FsError> {
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
}
