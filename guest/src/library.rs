//! The exports of world `memcap`: one interface per capability (`files`,
//! `notes`, `search`, `graph`, `history`, `watch`, `tool`), each function a command of the
//! core.

use memcap_core::command::Command;

use crate::{ToolResult, call, call_json, call_with_data, run};
use crate::{silence_panics, to_wit_error};

wit_bindgen::generate!({
    path: "../wit",
    world: "memcap",
});

use exports::memcap::memory::history::{self, Role as WitRole};
use exports::memcap::memory::types::{
    ActivityAnswer as WitActivityAnswer, ActivityItem as WitActivityItem,
    ContextAnswer as WitContextAnswer, ContextNote as WitContextNote, DataResult as WitDataResult,
    GetAnswer as WitGetAnswer, GraphNote as WitGraphNote, IndexCounts as WitIndexCounts,
    NoteType as WitNoteType, Observation as WitObservation, RelatedNote as WitRelatedNote,
    Relation as WitRelation, SearchAnswer as WitSearchAnswer, SearchFilters as WitSearchFilters,
    SearchResult as WitSearchResult, Source as WitSource, StatsAnswer as WitStatsAnswer,
    ToolDefinition as WitTool, ToolError as WitError, ToolResult as WitResult,
    WrittenRelation as WitWrittenRelation,
};
use exports::memcap::memory::versions::{
    self, BlameAnswer as WitBlameAnswer, BlamedLine as WitBlamedLine, Change as WitChange,
    LeftFile as WitLeftFile, LineOwner as WitLineOwner, RedactReport as WitRedactReport,
    UndoReport as WitUndoReport, Version as WitVersion,
};
use exports::memcap::memory::{files, graph, notes as note_tools, search, tool, watch};
use memcap_core::history::{self as core_history, host as history_host};
use memcap_core::vocab::Role;

struct Component;

export!(Component);

/// Runs one command with its error as the WIT type.
fn exec(command: Command) -> Result<String, WitError> {
    run(command).map_err(|e| to_wit_error!(WitError, e))
}

impl files::Guest for Component {
    crate::commands::text_commands!(files, export_text, memcap);
}

impl note_tools::Guest for Component {
    crate::commands::text_commands!(notes, export_text, memcap);
}

crate::search_functions!();

impl search::Guest for Component {
    fn memory_search(
        query: String,
        max_results: Option<u32>,
        min_score: Option<f32>,
        source: Option<WitSource>,
        filters: Option<WitSearchFilters>,
    ) -> Result<WitSearchAnswer, WitError> {
        search_answer(query, max_results, min_score, source, filters)
    }

    fn memory_get(
        path: String,
        first: Option<u32>,
        last: Option<u32>,
    ) -> Result<WitGetAnswer, WitError> {
        get_answer(path, first, last)
    }

    fn memory_stats() -> Result<WitStatsAnswer, WitError> {
        stats_answer()
    }

    fn memory_counts() -> Result<WitIndexCounts, WitError> {
        with_history(memcap_core::commands::memory_stats::counts).map(|(files, chunks)| {
            WitIndexCounts {
                files: u32::try_from(files).unwrap_or(u32::MAX),
                chunks,
            }
        })
    }
}

crate::graph_functions!();

impl graph::Guest for Component {
    fn build_context(
        url: String,
        depth: Option<u32>,
        timeframe: Option<String>,
        max_related: Option<u32>,
        page: Option<u32>,
    ) -> Result<WitContextAnswer, WitError> {
        context_answer(url, depth, timeframe, max_related, page)
    }

    fn recent_activity(
        timeframe: Option<String>,
        item_type: Option<String>,
        page: Option<u32>,
    ) -> Result<WitActivityAnswer, WitError> {
        activity_answer(timeframe, item_type, page)
    }
}

impl history::Guest for Component {
    fn record_turn(session: String, role: WitRole, text: String) -> Result<String, WitError> {
        let role = match role {
            WitRole::User => Role::User,
            WitRole::Assistant => Role::Assistant,
            WitRole::System => Role::System,
            WitRole::Tool => Role::Tool,
        };
        exec(Command::RecordTurn {
            session,
            role,
            text,
        })
    }
}

impl watch::Guest for Component {
    fn changed(paths: Vec<String>) -> Result<String, WitError> {
        exec(Command::Changed { paths })
    }
}

impl versions::Guest for Component {
    fn set_actor(name: String, id: Option<String>) {
        crate::wasi::set_actor(name, id);
    }

    crate::commands::text_commands!(versions, export_text, memcap);

    fn list_versions(
        path: String,
        since: Option<String>,
        by: Option<String>,
    ) -> Result<Vec<WitVersion>, WitError> {
        with_history(|io| history_host::list(io, &path, since.as_deref(), by.as_deref()))
            .map(|versions| versions.iter().map(wit_version).collect())
    }

    fn recent_versions(
        path: String,
        before: Option<u64>,
        limit: u32,
    ) -> Result<Vec<WitVersion>, WitError> {
        with_history(|io| history_host::recent(io, &path, before, limit))
            .map(|versions| versions.iter().map(wit_version).collect())
    }

    fn show_version(path: String, number: u64) -> Result<Vec<u8>, WitError> {
        with_history(|io| history_host::show(io, &path, number))
    }

    fn blame(path: String) -> Result<WitBlameAnswer, WitError> {
        with_history(|io| history_host::blame(io, &path)).map(|b| WitBlameAnswer {
            lines: b
                .lines
                .into_iter()
                .map(|l| WitBlamedLine {
                    text: l.text,
                    owner: u32::try_from(l.owner).unwrap_or(u32::MAX),
                })
                .collect(),
            owners: b
                .owners
                .into_iter()
                .map(|o| WitLineOwner {
                    version: o.version,
                    time: o.t.map(memcap_core::text::rfc3339),
                    actor: o.actor,
                    actor_id: o.actor_id,
                    exact: o.exact,
                })
                .collect(),
            compared: u32::try_from(b.compared).unwrap_or(u32::MAX),
        })
    }

    fn restore(path: String, number: u64) -> Result<WitUndoReport, WitError> {
        with_history(|io| history_host::restore(io, &path, number)).map(wit_undo)
    }

    fn revert(since: String, by: Option<String>) -> Result<WitUndoReport, WitError> {
        with_history(|io| history_host::revert(io, &since, by.as_deref())).map(wit_undo)
    }

    fn record_changes(paths: Vec<String>, outside: bool) -> Result<u32, WitError> {
        with_history(|io| history_host::record(io, &paths, outside))
    }

    fn redact(path: String, number: Option<u64>) -> Result<WitRedactReport, WitError> {
        with_history(|io| history_host::redact(io, &path, number)).map(|r| WitRedactReport {
            versions: r.versions,
            contents: u32::try_from(r.contents).unwrap_or(u32::MAX),
            names: u32::try_from(r.names).unwrap_or(u32::MAX),
            current: r.current,
        })
    }
}

/// Runs a history function on the store, with its error as the WIT type.
fn with_history<T>(
    f: impl FnOnce(&memcap_core::Io) -> memcap_core::error::Result<T>,
) -> Result<T, WitError> {
    silence_panics();
    crate::wasi::with_io(f).map_err(|e| to_wit_error!(WitError, e))
}

fn wit_version(v: &core_history::Version) -> WitVersion {
    let info = memcap_core::output::VersionInfo::of(v);
    WitVersion {
        number: info.version,
        path: info.path,
        change: match v.op {
            core_history::Op::Created => WitChange::Created,
            core_history::Op::Modified => WitChange::Modified,
            core_history::Op::Deleted => WitChange::Deleted,
            core_history::Op::Renamed => WitChange::Renamed,
            core_history::Op::Restored => WitChange::Restored,
        },
        from: info.from,
        time: info.time,
        actor: info.actor,
        actor_id: info.actor_id,
        sha256: info.sha256,
        size: info.size,
        redacted: info.redacted.map(|r| (r.by, r.at)),
    }
}

fn wit_undo(undone: core_history::restore::Undone) -> WitUndoReport {
    WitUndoReport {
        restored: undone.restored,
        removed: undone.removed,
        unchanged: undone.unchanged,
        left: undone
            .left
            .into_iter()
            .map(|(path, why)| WitLeftFile { path, why })
            .collect(),
    }
}

impl tool::Guest for Component {
    crate::commands::text_commands!(tool, export_text, memcap);

    fn describe() -> Vec<WitTool> {
        memcap_core::tools::describe()
            .into_iter()
            .map(|tool| WitTool {
                name: tool.name,
                description: tool.description,
                input_schema: tool.input_schema.to_string(),
            })
            .collect()
    }

    fn call(input: String) -> WitResult {
        silence_panics();
        to_wit_result(call(&input))
    }

    fn call_json(input: String) -> WitResult {
        silence_panics();
        to_wit_result(call_json(&input))
    }

    fn call_with_data(input: String) -> WitDataResult {
        silence_panics();
        let (text, data) = call_with_data(&input);
        WitDataResult {
            content: text.content,
            data,
            is_error: text.is_error,
        }
    }
}

fn to_wit_result(result: ToolResult) -> WitResult {
    WitResult {
        content: result.content,
        is_error: result.is_error,
    }
}
