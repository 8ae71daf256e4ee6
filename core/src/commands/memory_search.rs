//! `memory_search`: the passages of the notes that best answer a query,
//! ranked by the search index (BM25 scaled to 0–1, fused with the vectors'
//! cosine when the environment has an embedder), each read back from its
//! file before it is given, so no result names lines that no longer hold it.

use std::borrow::Cow;
use std::collections::HashMap;

use crate::commands::build_context::{note_type, written_items};
use crate::commands::standing::Standing;
use crate::error::Result;
use crate::files;
use crate::graph::links::Graph;
use crate::graph::superseded::Superseded;
use crate::history::changed::{Authors, Blamer, Changed, shown_changed};
use crate::indexes;
use crate::io::Io;
use crate::notes::catalog::Catalog;
use crate::notes::maintain::{self, Needs};
use crate::output::{
    ObservationItem, Output, SearchAnswer, SearchResult, SearchStats, WrittenRelation,
};
use crate::search::chunks;
use crate::search::embedder::{self, Embedder};
use crate::search::index::{Hit, Keep, SearchIndex};
use crate::search::recency;
use crate::search::source::source_of;
use crate::vocab::{MAX_RESULTS_LIMIT, SearchFilters, Source};

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

impl SearchFilters {
    /// Whether lines `first..=last` of the note at `path` pass.
    fn keep(
        &self,
        catalog: &Catalog,
        graph: &Graph,
        (path, first, last): (&str, u32, u32),
        since: Option<u64>,
    ) -> bool {
        let one_of = |wanted: &[String], value: &str| {
            wanted.is_empty() || wanted.iter().any(|w| w.eq_ignore_ascii_case(value))
        };
        let Some(entry) = catalog.get(path) else {
            return false;
        };
        if !one_of(&self.types, &note_type(&entry.meta))
            || since.is_some_and(|since| entry.recency() < since)
        {
            return false;
        }
        if self.categories.is_empty() && self.tags.is_empty() {
            return true;
        }
        let Some(node) = graph.id_of(path).map(|id| graph.node(id)) else {
            return false;
        };
        node.facts().iter().any(|fact| {
            (first..=last).contains(&fact.line)
                && one_of(&self.categories, &fact.category)
                && (self.tags.is_empty() || fact.tags.iter().any(|t| one_of(&self.tags, t)))
        })
    }
}

pub fn memory_search(
    io: &Io,
    query: &str,
    max_results: u32,
    min_score: f32,
    source: Source,
    filters: &SearchFilters,
) -> Result<Output> {
    // Filters ask the graph and every note's metadata; a plain search does
    // not decode the graph.
    let needs = match filters.is_empty() {
        true => Needs::Search,
        false => Needs::Graph,
    };
    let since = filters
        .after
        .as_ref()
        .map(|(_, t)| t.since(io.now_seconds()));
    maintain::fresh_catalog(io, needs, |catalog| {
        let index = indexes::search(catalog);
        let (total_files, total_chunks) = index.counts();
        let graph = match needs {
            Needs::Graph => Some(
                indexes::graph(catalog)
                    .graph()
                    .expect("Needs::Graph decoded it"),
            ),
            _ => None,
        };
        let in_source = |path: &str| source == Source::All || source_of(io, path) == source;
        let keep = |path: &str, first: u32, last: u32| {
            in_source(path)
                && graph
                    .as_ref()
                    .is_none_or(|graph| filters.keep(catalog, graph, (path, first, last), since))
        };
        // The index holds this embedder's vectors: one saved with another
        // model's, or none, was rebuilt when it was loaded.
        let embedder = io.env.embedder();
        let query_vector = embedder.map(|e| e.embed(query));
        let terms = index.query_terms(query);
        // `by` / `notBy` are asked of each hit read back: more hits are
        // read so that enough pass.
        let by_actor = !filters.by.is_empty() || !filters.not_by.is_empty();
        let hits = index
            .search(
                &terms,
                query_vector.as_deref(),
                MAX_RESULTS_LIMIT as usize * if by_actor { 8 } else { 2 },
                min_score,
                // Unfiltered, no hit's path is read until it is read back.
                (source != Source::All || graph.is_some()).then_some(&keep as &Keep<'_>),
            )
            // A posting list the journal no longer holds whole.
            .map_err(|e| files::tool_error(e, "/memories", "search"))?;
        // Hits are read back in rank order only until enough are kept; the
        // rest count as found unless one already read turned out stale or
        // no longer holds (superseded or expired, when those are left out).
        let superseded = Superseded::new(indexes::graph(catalog));
        let mut files: HashMap<String, Option<Note>> = HashMap::new();
        let mut results = Vec::new();
        // Of each result that holds: its note, and its lines whole.
        let mut passages = Vec::new();
        // Superseded or expired, when asked for: after every current one.
        let mut later = Vec::new();
        let (mut stale, mut left_out, mut not_theirs) = (0, 0, 0);
        let mut blamer = Blamer::default();
        for hit in &hits {
            if results.len() + later.len() == max_results as usize {
                break;
            }
            let Some(path) = index.path_of(hit) else {
                stale += 1;
                continue;
            };
            let file = files
                .entry(path.clone().into_owned())
                .or_insert_with(|| read_note(io, &path));
            let Some((lines, (observations, relations))) = file.as_ref().and_then(|note| {
                let lines = lines_of(&note.text, hit)?;
                let holds = if hit.keywords {
                    index.still_matches(&terms, &format!("{}\n{lines}", note.title))
                } else {
                    still_close(embedder?, query_vector.as_deref()?, &lines, hit)
                };
                holds.then(|| (lines, written_on(&path, &note.text, hit)))
            }) else {
                stale += 1;
                continue;
            };
            let note = file.as_mut().expect("read back above");
            let standing = note.standing(&superseded, &path, io.now_seconds())?;
            if !standing.holds() && !filters.include_superseded {
                left_out += 1;
                continue;
            }
            let changed = note.changed(io, &mut blamer, &path, (hit.first, hit.last));
            // Who changed it not known (the history is off or unreadable)
            // is no pass: these filters only keep what they can show.
            if by_actor
                && !changed
                    .as_ref()
                    .is_some_and(|c| c.passes(&filters.by, &filters.not_by))
            {
                not_theirs += 1;
                continue;
            }
            let (changed_by, changed_at) = shown_changed(changed);
            let result = SearchResult {
                path: format!("/memories/{path}"),
                lines: format!("{}-{}", hit.first, hit.last),
                text: shown(lines.clone()),
                score: (hit.score * 1000.0).round() / 1000.0,
                source: source_of(io, &path),
                observations,
                relations,
                superseded_by: standing.by.clone(),
                expired: standing.expired,
                changed_by,
                changed_at,
            };
            match standing.holds() {
                true => {
                    passages.push((path.into_owned(), note.modified, lines));
                    results.push(result);
                }
                false => later.push(result),
            }
        }
        let results = newer_first(index, results, &passages)
            .chain(later)
            .collect();
        let total_found = hits.len() - stale - left_out - not_theirs;
        Ok(Output::Search(SearchAnswer {
            // Said back, not searched in full: cut like any echo.
            query: crate::text::cut_echo(query.to_owned()),
            results,
            total_found,
            method: Cow::Borrowed(if embedder.is_some() { "hybrid" } else { "bm25" }),
            degraded: match source {
                // An empty source says so: a search of it can never answer.
                Source::Chat if !index.paths().any(in_source) => Some(NO_CHAT),
                Source::Custom if !index.paths().any(in_source) => Some(NO_CUSTOM),
                _ if embedder.is_none() => Some(NO_VECTORS),
                _ => None,
            }
            .map(str::to_owned),
            stats: SearchStats {
                total_files,
                total_chunks,
            },
            left_out,
        }))
    })
}

/// A note a hit was read back from: its text as the file holds it now, its
/// title, and whether it still holds (found when a hit of it is kept).
struct Note {
    text: String,
    title: String,
    /// When the file was last modified (seconds, nanoseconds).
    modified: Option<(u64, u32)>,
    standing: Option<Standing>,
    /// Who changed its lines, blamed the first time it is asked for.
    authors: Option<Option<Authors>>,
}

impl Note {
    /// Who last changed lines `first..=last` of the note at `path`.
    fn changed(
        &mut self,
        io: &Io,
        blamer: &mut Blamer,
        path: &str,
        (first, last): (u32, u32),
    ) -> Option<Changed> {
        let text = &self.text;
        self.authors
            .get_or_insert_with(|| blamer.authors(io, &format!("/memories/{path}"), text))
            .as_ref()?
            .lines(first, last)
    }

    /// Its standing, found the first time it is asked for.
    fn standing(&mut self, superseded: &Superseded, path: &str, now: u64) -> Result<Standing> {
        if let Some(standing) = &self.standing {
            return Ok(standing.clone());
        }
        let standing = Standing::of(superseded, path, &self.text, now)
            // A saved graph that does not decode (rebuilt at the next call).
            .map_err(|e| files::tool_error(e, "/memories", "search"))?;
        Ok(self.standing.insert(standing).clone())
    }
}

/// A note's text as the file holds it now, and its title; `None` when it
/// cannot be read any more.
fn read_note(io: &Io, path: &str) -> Option<Note> {
    let (text, modified) = files::read_indexed_timed(io, path)?;
    let title = chunks::title(&text);
    Some(Note {
        text,
        title,
        modified,
        standing: None,
        authors: None,
    })
}

/// A result that holds: its note, when that last changed, its lines whole.
type Kept = (String, Option<(u64, u32)>, String);

/// `results` (each with its note, when that changed and its lines, in
/// `passages`) newer first among those on one subject ([`recency`]).
fn newer_first(
    index: &SearchIndex,
    results: Vec<SearchResult>,
    passages: &[Kept],
) -> impl Iterator<Item = SearchResult> {
    let order = match results.len() {
        0 | 1 => (0..results.len()).collect(),
        _ => recency::order(
            &passages
                .iter()
                .zip(&results)
                .map(|((note, changed, lines), result)| recency::Passage {
                    note,
                    changed: *changed,
                    terms: index.query_terms(lines),
                    score: result.score,
                })
                .collect::<Vec<_>>(),
        ),
    };
    let mut slots: Vec<Option<SearchResult>> = results.into_iter().map(Some).collect();
    order
        .into_iter()
        .map(move |at| slots[at].take().expect("each result once"))
}

/// The observations and relations written on the hit's lines of the note
/// at `path` (markdown notes only, as the graph reads them), from its text
/// as read now.
fn written_on(path: &str, text: &str, hit: &Hit) -> (Vec<ObservationItem>, Vec<WrittenRelation>) {
    if !crate::graph::index::is_markdown(path) || !text.contains(['[', '#']) {
        return (Vec::new(), Vec::new());
    }
    let on_hit = |line: u32| (hit.first..=hit.last).contains(&line);
    let (mut observations, mut relations) = written_items(text);
    observations.retain(|o| on_hit(o.line));
    relations.retain(|r| on_hit(r.line));
    (observations, relations)
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
