//! `memory_search`: the passages of the notes that best answer a query,
//! ranked by the search index (BM25 scaled to 0–1, fused with the vectors'
//! cosine when the environment has an embedder), each read back from its
//! file before it is given, so no result names lines that no longer hold it.

use std::collections::HashMap;

use crate::error::Result;
use crate::files;
use crate::io::Io;
use crate::notes::maintain;
use crate::output::{Output, SearchAnswer, SearchResult, SearchStats};
use crate::search::chunks;
use crate::search::embedder::{self, Embedder};
use crate::search::index::{Hit, SearchIndex};
use crate::search::source::source_of;
use crate::tools::{MAX_RESULTS_LIMIT, Source};

/// The most characters of a passage a result shows; `memory_get` reads on.
pub const RESULT_CHARS: usize = 1_200;

/// Why the answer is less than it could be, when the host turned vectors off.
const NO_VECTORS: &str = "Keyword search only (BM25): vectors are turned off for this memory \
                          (MEMCAP_VECTORS=off), so passages that say the same thing in other \
                          words may be missed.";

/// How far a passage found by its vector alone may have drifted since it
/// was indexed (its cosine with the query, read back now) and still be given.
const DRIFT: f32 = 0.05;

/// Why `source: chat` finds nothing.
const NO_CHAT: &str = "No conversation history is recorded in this memory (/memories/chat is \
                       empty), so there was nothing to search: use source \"memory\" or \"all\".";

/// Why `source: custom` finds nothing.
const NO_CUSTOM: &str = "No extra directories are granted to this memory, or they hold no \
                         files, so there was nothing to search: use source \"memory\" or \"all\".";

pub fn memory_search(
    io: &Io,
    query: &str,
    max_results: u32,
    min_score: f32,
    source: Source,
) -> Result<Output> {
    maintain::fresh(io, |catalog, _| {
        let index = SearchIndex::of(catalog);
        let (total_files, total_chunks) = index.counts();
        let keep = |path: &str| source == Source::All || source_of(io, path) == source;
        // The index holds this embedder's vectors: one saved with another
        // model's, or none, was rebuilt when it was loaded.
        let embedder = io.env.embedder();
        let query_vector = embedder.map(|e| e.embed(query));
        let terms = index.query_terms(query);
        let hits = index.search(
            &terms,
            query_vector.as_deref(),
            MAX_RESULTS_LIMIT as usize * 2,
            min_score,
            &keep,
        );
        // Hits are read back in rank order only until enough are kept; the
        // rest count as found unless one already read turned out stale.
        let mut files = HashMap::new();
        let mut results = Vec::new();
        let mut stale = 0;
        for hit in &hits {
            if results.len() == max_results as usize {
                break;
            }
            let file = files
                .entry(hit.path.as_str())
                .or_insert_with(|| read_note(io, &hit.path));
            match file.as_ref().and_then(|(text, title)| {
                let lines = lines_of(text, hit)?;
                let holds = if hit.keywords {
                    index.still_matches(&terms, &format!("{title}\n{lines}"))
                } else {
                    still_close(embedder?, query_vector.as_deref()?, &lines, hit)
                };
                holds.then_some(lines)
            }) {
                Some(lines) => results.push(SearchResult {
                    path: format!("/memories/{}", hit.path),
                    lines: format!("{}-{}", hit.first, hit.last),
                    text: shown(lines),
                    score: (hit.score * 1000.0).round() / 1000.0,
                    source: source_of(io, &hit.path),
                }),
                None => stale += 1,
            }
        }
        let total_found = hits.len() - stale;
        Ok(Output::Search(SearchAnswer {
            query: query.to_owned(),
            results,
            total_found,
            method: if embedder.is_some() { "hybrid" } else { "bm25" },
            degraded: match source {
                // An empty source says so: a search of it can never answer.
                Source::Chat if !index.paths().any(keep) => Some(NO_CHAT),
                Source::Custom if !index.paths().any(keep) => Some(NO_CUSTOM),
                _ if embedder.is_none() => Some(NO_VECTORS),
                _ => None,
            }
            .map(str::to_owned),
            stats: SearchStats {
                total_files,
                total_chunks,
            },
        }))
    })
}

/// A note's text as the file holds it now, and its title; `None` when it
/// cannot be read any more.
fn read_note(io: &Io, path: &str) -> Option<(String, String)> {
    let text = files::read_indexed(io, path)?;
    let title = chunks::title(&text);
    Some((text, title))
}

/// The hit's lines in `text`, or `None` when the file no longer has them
/// (it shrank since it was indexed).
fn lines_of(text: &str, hit: &Hit) -> Option<String> {
    let wanted = (hit.last - hit.first + 1) as usize;
    let lines: Vec<&str> = text
        .split('\n')
        .skip(hit.first as usize - 1)
        .take(wanted)
        .collect();
    (lines.len() == wanted).then(|| lines.join("\n"))
}

/// Whether a passage its vector alone found still says what it said when
/// it was indexed: its lines as they are now, embedded, are as close to the
/// query (within [`DRIFT`]).
fn still_close(embedder: &dyn Embedder, query: &[f32], lines: &str, hit: &Hit) -> bool {
    let now = embedder::quantize(&embedder.embed(lines));
    embedder::cosine(query, &now) >= hit.cosine - DRIFT
}

/// A passage cut to [`RESULT_CHARS`], marked when cut.
fn shown(text: String) -> String {
    match text.char_indices().nth(RESULT_CHARS) {
        Some((cut, _)) => format!("{}…", &text[..cut]),
        None => text,
    }
}
