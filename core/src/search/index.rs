//! The search index: every note's chunks with their term counts and, when
//! the environment has an embedder, their vectors; a posting list per
//! term. Kept as a derived index of the catalog.
//!
//! A change costs what the changed note costs: its chunks are added, or
//! marked gone (their postings are skipped until a compaction, which runs
//! when a quarter of the chunks are gone). The index holds no text: a hit
//! names a path and lines, and the search reads them back from the file,
//! so it never answers with text the file no longer holds.

use std::collections::{BTreeMap, HashMap};

use serde::{Deserialize, Serialize};

use super::chunks;
use super::embedder::{self, Embedder};
use super::score;
use super::terms::Analyzer;
use crate::error::FsError;
use crate::files::MAX_FILE_BYTES;
use crate::io::Io;
use crate::notes::catalog::Catalog;
use crate::notes::derived::{DerivedIndex, NoteChange};
use crate::notes::entry::FileStamp;

/// A chunk of a note, as the index keeps it.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
struct ChunkEntry {
    note: String,
    first: u32,
    last: u32,
    /// Terms in the chunk (repeats counted).
    len: u32,
    /// (term id, count) for each distinct term.
    terms: Vec<(u32, u32)>,
    /// The chunk's unit vector, quantized; empty without an embedder.
    vector: Vec<i8>,
}

/// The index's whole state (what the snapshot holds).
#[derive(Serialize, Deserialize, Default, Debug, PartialEq)]
struct State {
    /// Each note's stamp and chunk ids.
    notes: BTreeMap<String, (FileStamp, Vec<u32>)>,
    /// By chunk id; `None` once its note changed or went.
    chunks: Vec<Option<ChunkEntry>>,
    /// Term text by id.
    term_names: Vec<String>,
    /// By term id: (chunk id, count), gone chunks included until compaction.
    postings: Vec<Vec<(u32, u32)>>,
    /// By term id: how many live chunks hold the term.
    df: Vec<u32>,
    live_chunks: u32,
    live_terms_total: u64,
    /// The model the vectors come from (`None`: no vectors).
    model: Option<String>,
}

/// One search hit: a passage of a note and its 0–1 score.
#[derive(Clone, Debug, PartialEq)]
pub struct Hit {
    pub path: String,
    pub first: u32,
    pub last: u32,
    pub score: f32,
    /// Whether the passage holds a query term (else only its vector found it).
    pub keywords: bool,
    /// The cosine of the query's vector and the passage's (0 without vectors).
    pub cosine: f32,
}

/// The search index.
#[derive(Default)]
pub struct SearchIndex {
    state: State,
    analyzer: Analyzer,
    /// Term text → id, rebuilt from `term_names` on restore.
    ids: HashMap<String, u32>,
}

/// Its name among the derived indexes (and in the journal).
const NAME: &str = "search";

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
        self.state.model = embedder.map(|e| e.model().to_owned());
        let mut ids = Vec::new();
        let mut terms = Vec::new();
        let mut title = Vec::new();
        self.analyzer.terms(&chunks::title(text), &mut title);
        for chunk in chunks::chunks(text) {
            terms.clear();
            self.analyzer.terms(&chunk.text, &mut terms);
            // The title belongs to every passage of the note.
            terms.extend(title.iter().cloned());
            if terms.is_empty() {
                continue;
            }
            let id = self.state.chunks.len() as u32;
            let mut counts: BTreeMap<u32, u32> = BTreeMap::new();
            for term in &terms {
                *counts.entry(self.term_id(term)).or_default() += 1;
            }
            for (&term, &count) in &counts {
                self.state.postings[term as usize].push((id, count));
                self.state.df[term as usize] += 1;
            }
            self.state.live_chunks += 1;
            self.state.live_terms_total += terms.len() as u64;
            self.state.chunks.push(Some(ChunkEntry {
                note: path.to_owned(),
                first: chunk.first,
                last: chunk.last,
                len: terms.len() as u32,
                terms: counts.into_iter().collect(),
                vector: embedder
                    .map(|e| embedder::quantize(&e.embed(&chunk.text)))
                    .unwrap_or_default(),
            }));
            ids.push(id);
        }
        self.state.notes.insert(path.to_owned(), (stamp, ids));
    }

    /// Forgets the note at `path`.
    pub fn remove(&mut self, path: &str) {
        let Some((_, ids)) = self.state.notes.remove(path) else {
            return;
        };
        for id in ids {
            if let Some(chunk) = self.state.chunks[id as usize].take() {
                for (term, _) in chunk.terms {
                    self.state.df[term as usize] -= 1;
                }
                self.state.live_chunks -= 1;
                self.state.live_terms_total -= u64::from(chunk.len);
            }
        }
        let gone = self.state.chunks.len() as u32 - self.state.live_chunks;
        if gone > 64 && gone > self.state.chunks.len() as u32 / 4 {
            self.compact();
        }
    }

    /// How many notes and chunks it holds.
    pub fn counts(&self) -> (usize, u32) {
        (self.state.notes.len(), self.state.live_chunks)
    }

    /// The paths of the notes it holds.
    pub fn paths(&self) -> impl Iterator<Item = &str> {
        self.state.notes.keys().map(String::as_str)
    }

    /// The best `limit` passages for `query` in the notes whose paths `keep`
    /// accepts, best first, at least `min_score` each; a passage
    /// overlapping a better one of the same note is left out, so the
    /// answers are distinct places. With the query's unit vector the scores
    /// are hybrid ([`score::fused`]) and every chunk is a candidate.
    pub fn search(
        &self,
        query: &str,
        query_vector: Option<&[f32]>,
        limit: usize,
        min_score: f32,
        keep: &dyn Fn(&str) -> bool,
    ) -> Vec<Hit> {
        let n = self.state.live_chunks;
        if n == 0 {
            return Vec::new();
        }
        let avg_len = self.state.live_terms_total as f32 / n as f32;
        let query_terms = self.analyzer.query(query);
        let terms: Vec<(u32, f32)> = query_terms
            .iter()
            .filter_map(|t| self.ids.get(t).copied())
            .map(|id| (id, score::idf(n, self.state.df[id as usize])))
            .collect();
        // Terms found nowhere in the store tell no passage from another:
        // they are left out of the query's weight.
        let query_idf: f32 = terms.iter().map(|(_, idf)| idf).sum();
        let mut sums: HashMap<u32, f32> = HashMap::new();
        for &(term, idf) in &terms {
            for &(chunk, count) in &self.state.postings[term as usize] {
                if let Some(entry) = &self.state.chunks[chunk as usize] {
                    *sums.entry(chunk).or_default() +=
                        idf * score::weight(count, entry.len, avg_len);
                }
            }
        }
        // (score, chunk, text score, cosine)
        let mut ranked: Vec<(f32, u32, f32, f32)> = match query_vector {
            None => sums
                .into_iter()
                .map(|(chunk, sum)| {
                    let text = score::scaled(sum, query_idf);
                    (text, chunk, text, 0.0)
                })
                .collect(),
            Some(query_vector) => self
                .state
                .chunks
                .iter()
                .enumerate()
                .filter_map(|(id, entry)| {
                    let entry = entry.as_ref()?;
                    let id = id as u32;
                    let text = sums
                        .get(&id)
                        .map_or(0.0, |sum| score::scaled(*sum, query_idf));
                    let cosine = embedder::cosine(query_vector, &entry.vector);
                    Some((score::fused(text, cosine), id, text, cosine))
                })
                .collect(),
        };
        ranked.retain(|(s, ..)| *s >= min_score && *s > 0.0);
        // Ties by chunk id, so equal scores come out in one order every time.
        ranked.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
        let mut hits: Vec<Hit> = Vec::new();
        for (s, chunk, text, cosine) in ranked {
            let entry = self.state.chunks[chunk as usize]
                .as_ref()
                .expect("scored chunks are live");
            if !keep(&entry.note) {
                continue;
            }
            let overlaps = hits
                .iter()
                .any(|h| h.path == entry.note && h.first <= entry.last && entry.first <= h.last);
            if !overlaps {
                hits.push(Hit {
                    path: entry.note.clone(),
                    first: entry.first,
                    last: entry.last,
                    score: s,
                    keywords: text > 0.0,
                    cosine,
                });
                if hits.len() == limit {
                    break;
                }
            }
        }
        hits
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

    fn term_id(&mut self, term: &str) -> u32 {
        if let Some(&id) = self.ids.get(term) {
            return id;
        }
        let id = self.state.term_names.len() as u32;
        self.state.term_names.push(term.to_owned());
        self.state.postings.push(Vec::new());
        self.state.df.push(0);
        self.ids.insert(term.to_owned(), id);
        id
    }

    /// Its state back from `bytes`, unless they do not decode or their
    /// vectors are not of `model` (another model's, or none, or some where
    /// vectors are now off, cannot be compared with this instance's).
    fn restore_state(&mut self, bytes: &[u8], model: Option<&str>) -> bool {
        match postcard::from_bytes::<State>(bytes) {
            Ok(state)
                if state.postings.len() == state.term_names.len()
                    && (state.live_chunks == 0 || state.model.as_deref() == model) =>
            {
                self.ids = state
                    .term_names
                    .iter()
                    .enumerate()
                    .map(|(id, t)| (t.clone(), id as u32))
                    .collect();
                self.state = state;
                true
            }
            _ => false,
        }
    }

    /// Renumbers the live chunks and drops the postings of gone ones.
    fn compact(&mut self) {
        let old = std::mem::take(&mut self.state.chunks);
        let mut renumber = HashMap::new();
        for (id, chunk) in old.into_iter().enumerate() {
            if let Some(chunk) = chunk {
                renumber.insert(id as u32, self.state.chunks.len() as u32);
                self.state.chunks.push(Some(chunk));
            }
        }
        for list in &mut self.state.postings {
            list.retain_mut(|(chunk, _)| match renumber.get(chunk) {
                Some(&new) => {
                    *chunk = new;
                    true
                }
                None => false,
            });
        }
        for (_, ids) in self.state.notes.values_mut() {
            for id in ids {
                *id = renumber[id];
            }
        }
    }
}

impl DerivedIndex for SearchIndex {
    fn name(&self) -> &'static str {
        NAME
    }

    fn version(&self) -> u32 {
        2
    }

    fn apply(&mut self, io: &Io, change: NoteChange) -> Result<(), FsError> {
        match change {
            NoteChange::Put(entry) => {
                // A note that cannot be read (no permission, gone meanwhile)
                // or is not UTF-8 text has no passages; the catalog lists its
                // problem, and the rest of the memory stays searchable.
                let text = io
                    .fs
                    .open(&entry.path, false)
                    .and_then(|file| file.read_at(0, MAX_FILE_BYTES))
                    .ok()
                    .and_then(|(bytes, _)| String::from_utf8(bytes).ok())
                    .unwrap_or_default();
                self.put(&entry.path, entry.stamp, &text, io.env.embedder());
            }
            NoteChange::Removed(path) => self.remove(path),
        }
        Ok(())
    }

    fn persist(&self) -> Vec<u8> {
        // Sized first: a vector grown by doubling would hold up to twice the
        // state (tens of MB at 100,000 notes) inside the guest's memory bound.
        let size =
            postcard::serialize_with_flavor(&self.state, postcard::ser_flavors::Size::default())
                .unwrap_or(0);
        postcard::to_extend(&self.state, Vec::with_capacity(size)).unwrap_or_default()
    }

    fn restore(&mut self, io: &Io, bytes: &[u8]) -> bool {
        self.restore_state(bytes, io.env.embedder().map(|e| e.model()))
    }

    fn stamps(&self) -> BTreeMap<String, FileStamp> {
        self.state
            .notes
            .iter()
            .map(|(path, (stamp, _))| (path.clone(), *stamp))
            .collect()
    }

    fn clear(&mut self) {
        self.state = State::default();
        self.ids.clear();
    }

    fn as_any(&self) -> &dyn std::any::Any {
        self
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn stamp(size: u64) -> FileStamp {
        FileStamp {
            size,
            modified: None,
            changed: None,
        }
    }

    fn index(notes: &[(&str, &str)]) -> SearchIndex {
        let mut index = SearchIndex::default();
        for (path, text) in notes {
            index.put(path, stamp(text.len() as u64), text, None);
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
        let hits = index.search("API authentication decisions JWT", None, 5, 0.0, &|_| true);
        assert_eq!(hits[0].path, "api.md");
        assert_eq!((hits[0].first, hits[0].last), (1, 3));
        assert!(hits.iter().all(|h| h.path != "food.md"));
        assert!(hits[0].score > 0.0 && hits[0].score <= 1.0);
    }

    #[test]
    fn a_changed_or_removed_note_answers_with_what_it_holds_now() {
        let mut index = index(&[("a.md", "postgres here"), ("b.md", "mysql there")]);
        index.put("a.md", stamp(1), "sqlite now", None);
        assert!(index.search("postgres", None, 5, 0.0, &|_| true).is_empty());
        assert_eq!(
            index.search("sqlite", None, 5, 0.0, &|_| true)[0].path,
            "a.md"
        );
        index.remove("b.md");
        assert!(index.search("mysql", None, 5, 0.0, &|_| true).is_empty());
        assert_eq!(index.counts(), (1, 1));
    }

    #[test]
    fn compaction_keeps_every_live_answer() {
        let mut index = SearchIndex::default();
        for i in 0..200 {
            index.put(
                &format!("n{i}.md"),
                stamp(i),
                &format!("topic{i} shared words"),
                None,
            );
        }
        for i in 0..150 {
            index.remove(&format!("n{i}.md"));
        }
        assert!(index.state.chunks.len() < 200, "compacted");
        for i in 150..200 {
            assert_eq!(
                index.search(&format!("topic{i}"), None, 1, 0.0, &|_| true)[0].path,
                format!("n{i}.md")
            );
        }
        assert_eq!(index.search("shared", None, 100, 0.0, &|_| true).len(), 50);
    }

    #[test]
    fn min_score_and_limit_bound_the_answer_and_the_state_round_trips() {
        let index = index(&[("a.md", "alpha beta"), ("b.md", "alpha"), ("c.md", "gamma")]);
        let all = index.search("alpha beta", None, 10, 0.0, &|_| true);
        assert_eq!(all.len(), 2);
        assert!(all[0].score > all[1].score);
        assert_eq!(index.search("alpha beta", None, 1, 0.0, &|_| true).len(), 1);
        assert!(index.search("alpha beta", None, 10, 0.99, &|_| true).len() <= 1);
        let mut back = SearchIndex::default();
        assert!(back.restore_state(&index.persist(), None));
        assert!(!back.restore_state(&index.persist(), Some("a model")));
        assert_eq!(back.search("alpha beta", None, 10, 0.0, &|_| true), all);
        assert!(!SearchIndex::default().restore_state(b"not an index", None));
    }
}
