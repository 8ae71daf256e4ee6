//! The exports of world `memcap-tools`: the same commands as world-level
//! functions, which hosts such as Wassette list as tools one by one.

// wit-bindgen's world-level export shim for `memory-write` takes 9 arguments.
#![allow(clippy::too_many_arguments)]

use memcap_core::command::Command;

use crate::{run, to_wit_error};

wit_bindgen::generate!({
    path: "../wit",
    world: "memcap-tools",
});

use memcap::memory::types::{
    ActivityAnswer as WitActivityAnswer, ActivityItem as WitActivityItem,
    ContextAnswer as WitContextAnswer, ContextNote as WitContextNote, GetAnswer as WitGetAnswer,
    GraphNote as WitGraphNote, NoteType as WitNoteType, Observation as WitObservation,
    RelatedNote as WitRelatedNote, Relation as WitRelation, SearchAnswer as WitSearchAnswer,
    SearchFilters as WitSearchFilters, SearchResult as WitSearchResult, Source as WitSource,
    StatsAnswer as WitStatsAnswer, ToolError as WitError, WrittenRelation as WitWrittenRelation,
};

struct Component;

export!(Component);

/// Runs one command with its error as the WIT type.
fn exec(command: Command) -> Result<String, WitError> {
    run(command).map_err(|e| to_wit_error!(WitError, e))
}

crate::search_functions!();
crate::graph_functions!();

impl Guest for Component {
    crate::commands::text_commands!(files, export_text, tools);
    crate::commands::text_commands!(notes, export_text, tools);
    crate::commands::text_commands!(versions, export_text, tools);
    crate::commands::text_commands!(tool, export_text, tools);

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
