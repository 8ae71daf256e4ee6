//! memcap's guest: Claude's memory tool as a WebAssembly component that can
//! reach exactly one directory, the one its host preopened.
//!
//! This file runs commands for the WIT exports; `library.rs` (world `memcap`)
//! and `tools_world.rs` (world `memcap-tools`, the `tools-world` feature) are
//! the two sets of exports, and `wasi/` is the adapter that gives the core its
//! storage.

mod commands;
mod embedder;
#[cfg(target_arch = "wasm32")]
mod memcmp;
mod wasi;

#[cfg(not(feature = "tools-world"))]
mod library;
#[cfg(feature = "tools-world")]
mod tools_world;

use memcap_core::command::Command;
use memcap_core::error::ToolError;
use memcap_core::output::Output;

pub use memcap_core::lines::ToolResult;

/// Runs one `tool_use` input (JSON) against the memory root. Never fails:
/// every problem becomes an error result.
pub fn call(input: &str) -> ToolResult {
    wasi::with_io(|io| Ok(memcap_core::call(io, input))).unwrap_or_else(|e| Err(e).into())
}

/// [`call`] with the result as JSON data.
pub fn call_json(input: &str) -> ToolResult {
    wasi::with_io(|io| Ok(memcap_core::call_json(io, input))).unwrap_or_else(|e| ToolResult {
        content: memcap_core::render::json::error(&e).to_string(),
        is_error: true,
    })
}

/// [`call`] and [`call_json`] from one run.
pub fn call_with_data(input: &str) -> (ToolResult, String) {
    wasi::with_io(|io| Ok(memcap_core::call_with_data(io, input))).unwrap_or_else(|e| {
        let data = memcap_core::render::json::error(&e).to_string();
        (Err(e).into(), data)
    })
}

/// Runs one command against the memory root and renders its text.
fn run(command: Command) -> Result<String, ToolError> {
    execute(command).map(|output| memcap_core::render::text::render(&output))
}

/// Runs one command against the memory root, for a typed answer.
fn execute(command: Command) -> Result<Output, ToolError> {
    silence_panics();
    wasi::with_io(|io| memcap_core::execute(io, command))
}

/// A panic is a bug and traps; the host reports it. Its message must not go to
/// stderr or stdout, which some hosts (Wassette) pass to their MCP channel.
fn silence_panics() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| std::panic::set_hook(Box::new(|_| {})));
}

/// The WIT `tool-error` case for a core error; each world has its own
/// generated `tool-error` type, so this is written once as a macro.
macro_rules! to_wit_error {
    ($wit:ident, $e:expr) => {{
        use memcap_core::error::ErrorKind as K;
        let e = $e;
        let m = e.to_string();
        match e.kind() {
            // Only `call` parses tool input; the typed functions cannot get it wrong.
            K::InvalidPath | K::InvalidInput => $wit::InvalidPath(m),
            K::Escape => $wit::Escape(m),
            K::Protected => $wit::Protected(m),
            K::NotFound => $wit::NotFound(m),
            K::AlreadyExists => $wit::AlreadyExists(m),
            K::NotAFile => $wit::NotAFile(m),
            K::NotADirectory => $wit::NotADirectory(m),
            K::NoMatch => $wit::NoMatch(m),
            K::MultipleMatches => $wit::MultipleMatches(m),
            K::InvalidLine => $wit::InvalidLine(m),
            K::NotText => $wit::NotText(m),
            K::TooLarge => $wit::TooLarge(m),
            K::Conflict => $wit::Conflict(m),
            // The last three are the host's (a call it stopped); the guest
            // never makes them.
            K::Io | K::Denied | K::TimedOut | K::OutOfMemory | K::GuestFailure => $wit::Io(m),
            K::InvalidNote => $wit::InvalidNote(m),
        }
    }};
}
pub(crate) use to_wit_error;

/// The WIT `note-type` enum to the core's, for either world's generated type.
macro_rules! note_type {
    ($wit:ident, $value:expr) => {
        match $value {
            $wit::User => memcap_core::vocab::NoteType::User,
            $wit::Feedback => memcap_core::vocab::NoteType::Feedback,
            $wit::Project => memcap_core::vocab::NoteType::Project,
            $wit::Reference => memcap_core::vocab::NoteType::Reference,
        }
    };
}
pub(crate) use note_type;

/// The search functions of a world, over its generated types (each world
/// has its own): `memory_search`, `memory_get` and `memory_stats` as
/// associated functions of `$component`, each returning its WIT record.
macro_rules! search_functions {
    () => {
        fn search_answer(
            query: String,
            max_results: Option<u32>,
            min_score: Option<f32>,
            source: Option<WitSource>,
            filters: Option<WitSearchFilters>,
        ) -> Result<WitSearchAnswer, WitError> {
            use memcap_core::vocab::{MAX_RESULTS_DEFAULT, MIN_SCORE_DEFAULT, Source};
            let source = match source.unwrap_or(WitSource::All) {
                WitSource::All => Source::All,
                WitSource::Memory => Source::Memory,
                WitSource::Chat => Source::Chat,
                WitSource::Custom => Source::Custom,
            };
            let filters = filters.unwrap_or(WitSearchFilters {
                categories: Vec::new(),
                tags: Vec::new(),
                types: Vec::new(),
                after_date: None,
                include_superseded: false,
                by: Vec::new(),
                not_by: Vec::new(),
            });
            let command = memcap_core::command::search_filters(
                filters.categories,
                filters.tags,
                filters.types,
                filters.after_date.as_deref(),
                filters.include_superseded,
                (filters.by, filters.not_by),
            )
            .and_then(|filters| {
                memcap_core::command::Command::search(
                    query,
                    max_results.unwrap_or(MAX_RESULTS_DEFAULT),
                    min_score.unwrap_or(MIN_SCORE_DEFAULT),
                    source,
                    filters,
                )
            })
            .map_err(|e| $crate::to_wit_error!(WitError, e))?;
            match $crate::execute(command) {
                Ok(memcap_core::output::Output::Search(a)) => Ok(WitSearchAnswer {
                    query: a.query,
                    results: a
                        .results
                        .into_iter()
                        .map(|r| WitSearchResult {
                            path: r.path,
                            lines: r.lines,
                            text: r.text,
                            score: r.score,
                            source: wit_source(r.source),
                            observations: r.observations.into_iter().map(wit_observation).collect(),
                            relations: r
                                .relations
                                .into_iter()
                                .map(|r| WitWrittenRelation {
                                    relation_type: r.relation_type,
                                    target: r.target,
                                    context: r.context,
                                    line: r.line,
                                })
                                .collect(),
                            superseded_by: r.superseded_by,
                            expired: r.expired,
                            changed_by: r.changed_by,
                            changed_at: r.changed_at,
                        })
                        .collect(),
                    total_found: count(a.total_found),
                    method: a.method.into_owned(),
                    degraded: a.degraded,
                    total_files: count(a.stats.total_files),
                    total_chunks: a.stats.total_chunks,
                    left_out: count(a.left_out),
                }),
                Ok(_) => unreachable!("memory_search answers with a search"),
                Err(e) => Err($crate::to_wit_error!(WitError, e)),
            }
        }

        fn get_answer(
            path: String,
            first: Option<u32>,
            last: Option<u32>,
        ) -> Result<WitGetAnswer, WitError> {
            let command = memcap_core::command::Command::MemoryGet {
                path,
                first: first.unwrap_or(1).max(1),
                last,
            };
            match $crate::execute(command) {
                Ok(memcap_core::output::Output::Get(a)) => Ok(WitGetAnswer {
                    path: a.path,
                    lines: a.lines,
                    text: a.text,
                    total_lines: count(a.total_lines),
                    more: a.more,
                    changed_by: a.changed_by,
                    changed_at: a.changed_at,
                }),
                Ok(_) => unreachable!("memory_get answers with lines"),
                Err(e) => Err($crate::to_wit_error!(WitError, e)),
            }
        }

        fn stats_answer() -> Result<WitStatsAnswer, WitError> {
            match $crate::execute(memcap_core::command::Command::MemoryStats) {
                Ok(memcap_core::output::Output::Stats(a)) => Ok(WitStatsAnswer {
                    total_files: count(a.total_files),
                    total_chunks: a.total_chunks,
                    indexed_at: a.indexed_at,
                    sources: a.sources.into_iter().map(wit_source).collect(),
                    index_bytes: a.index_bytes,
                    method: a.method.into_owned(),
                    vectors: a.vectors,
                    model: a.model,
                    changed_since_indexed: count(a.changed_since_indexed),
                    entities: count(a.entities),
                    observations: count(a.observations),
                    relations: count(a.relations),
                    unresolved: count(a.unresolved),
                    unreadable: a.unreadable,
                    cut: a.cut,
                    history_versions: a.history_versions,
                    history_bytes: a.history_bytes,
                    history_since: a.history_since,
                    history_problem: a.history_problem,
                }),
                Ok(_) => unreachable!("memory_stats answers with stats"),
                Err(e) => Err($crate::to_wit_error!(WitError, e)),
            }
        }

        fn wit_observation(o: memcap_core::output::ObservationItem) -> WitObservation {
            WitObservation {
                category: o.category,
                content: o.content,
                tags: o.tags,
                context: o.context,
                line: o.line,
            }
        }

        fn wit_source(source: memcap_core::vocab::Source) -> WitSource {
            use memcap_core::vocab::Source;
            match source {
                Source::All => WitSource::All,
                Source::Memory => WitSource::Memory,
                Source::Chat => WitSource::Chat,
                Source::Custom => WitSource::Custom,
            }
        }

        fn count(n: usize) -> u32 {
            u32::try_from(n).unwrap_or(u32::MAX)
        }
    };
}
pub(crate) use search_functions;

/// The graph functions of a world, over its generated types (after
/// [`search_functions`], whose `wit_observation` they share):
/// `build_context` and `recent_activity`, each checked as `call` checks its
/// input (the typed arguments are that input) and returning its WIT record.
macro_rules! graph_functions {
    () => {
        /// Runs a graph command given as `call`'s input fields.
        fn graph_command(
            fields: serde_json::Value,
        ) -> Result<memcap_core::output::Output, WitError> {
            memcap_core::command::parse(&fields.to_string())
                .and_then(|call| $crate::execute(call.command))
                .map_err(|e| $crate::to_wit_error!(WitError, e))
        }

        fn context_answer(
            url: String,
            depth: Option<u32>,
            timeframe: Option<String>,
            max_related: Option<u32>,
            page: Option<u32>,
        ) -> Result<WitContextAnswer, WitError> {
            let fields = serde_json::json!({
                "command": "build_context", "url": url, "depth": depth,
                "timeframe": timeframe, "max_related": max_related, "page": page,
            });
            match graph_command(fields)? {
                memcap_core::output::Output::Context(a) => Ok(WitContextAnswer {
                    url: a.url,
                    depth: a.depth,
                    timeframe: a.timeframe,
                    primary: a
                        .primary
                        .into_iter()
                        .map(|p| WitContextNote {
                            note: wit_graph_note(p.note),
                            observations: p.observations.into_iter().map(wit_observation).collect(),
                            relations: p.relations.into_iter().map(wit_relation).collect(),
                            more_observations: count(p.more_observations),
                            more_relations: count(p.more_relations),
                            supersedes: p.supersedes,
                            superseded_by: p.superseded_by,
                            expired: p.expired,
                        })
                        .collect(),
                    related: a
                        .related
                        .into_iter()
                        .map(|r| WitRelatedNote {
                            note: wit_graph_note(r.note),
                            relation_type: r.relation_type,
                            from: r.from,
                            to: r.to,
                            depth: r.depth,
                            primary: r.primary,
                        })
                        .collect(),
                    more_related: count(a.more_related),
                    page: count(a.page.number),
                    pages: count(a.page.pages),
                    total: count(a.page.total),
                }),
                _ => unreachable!("build_context answers with a context"),
            }
        }

        fn activity_answer(
            timeframe: Option<String>,
            item_type: Option<String>,
            page: Option<u32>,
        ) -> Result<WitActivityAnswer, WitError> {
            let fields = serde_json::json!({
                "command": "recent_activity", "timeframe": timeframe, "type": item_type,
                "page": page,
            });
            match graph_command(fields)? {
                memcap_core::output::Output::Activity(a) => Ok(WitActivityAnswer {
                    timeframe: a.timeframe,
                    since: a.since,
                    item_type: a.item_type,
                    items: a
                        .items
                        .into_iter()
                        .map(|i| WitActivityItem {
                            item_type: i.item_type.into_owned(),
                            note: wit_graph_note(i.note),
                            observations: count(i.observations),
                            relations: count(i.relations),
                            observation: i.observation.map(wit_observation),
                            relation: i.relation.map(wit_relation),
                        })
                        .collect(),
                    page: count(a.page.number),
                    pages: count(a.page.pages),
                    total: count(a.page.total),
                }),
                _ => unreachable!("recent_activity answers with activity"),
            }
        }

        fn wit_graph_note(n: memcap_core::output::GraphNote) -> WitGraphNote {
            WitGraphNote {
                path: n.path,
                title: n.title,
                permalink: n.permalink,
                note_type: n.note_type,
                changed: n.changed,
            }
        }

        fn wit_relation(r: memcap_core::output::RelationItem) -> WitRelation {
            WitRelation {
                relation_type: r.relation_type,
                target: r.target,
                resolved: r.resolved,
                context: r.context,
                line: r.line,
            }
        }
    };
}
pub(crate) use graph_functions;
