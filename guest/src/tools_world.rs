//! The exports of world `memcap-tools`: the same commands as world-level
//! functions, which hosts such as Wassette list as tools one by one.

// wit-bindgen's world-level export shim for `memory-write` takes 9 arguments.
#![allow(clippy::too_many_arguments)]

use memcap_core::command::Command;

use crate::{note_type, run, to_wit_error};

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
    fn file_view(path: String, view_range: Option<(i64, i64)>) -> Result<String, WitError> {
        exec(Command::View { path, view_range })
    }

    fn file_create(path: String, file_text: String) -> Result<String, WitError> {
        exec(Command::Create { path, file_text })
    }

    fn file_str_replace(
        path: String,
        old_str: String,
        new_str: String,
    ) -> Result<String, WitError> {
        exec(Command::StrReplace {
            path,
            old_str,
            new_str,
        })
    }

    fn file_insert(
        path: String,
        insert_line: i64,
        insert_text: String,
    ) -> Result<String, WitError> {
        exec(Command::Insert {
            path,
            insert_line,
            insert_text,
        })
    }

    fn file_delete(path: String) -> Result<String, WitError> {
        exec(Command::Delete { path })
    }

    fn file_rename(old_path: String, new_path: String) -> Result<String, WitError> {
        exec(Command::Rename { old_path, new_path })
    }

    fn memory_read(topics: Vec<String>, page: Option<u32>) -> Result<String, WitError> {
        exec(Command::MemoryRead { topics, page })
    }

    fn memory_view(all: bool, page: Option<u32>) -> Result<String, WitError> {
        exec(Command::MemoryView { all, page })
    }

    fn memory_write(
        filename: String,
        name: String,
        description: String,
        type_: WitNoteType,
        content: String,
    ) -> Result<String, WitError> {
        exec(Command::MemoryWrite {
            filename,
            name,
            description,
            kind: note_type!(WitNoteType, type_),
            content,
        })
    }

    fn memory_update(
        filename: String,
        old_str: String,
        new_str: String,
    ) -> Result<String, WitError> {
        exec(Command::MemoryUpdate {
            filename,
            old_str,
            new_str,
        })
    }

    fn memory_delete(filename: String) -> Result<String, WitError> {
        exec(Command::MemoryDelete { filename })
    }

    fn memory_guide() -> Result<String, WitError> {
        exec(Command::MemoryGuide)
    }

    fn memory_history(
        path: String,
        version: Option<u64>,
        page: Option<u32>,
    ) -> Result<String, WitError> {
        exec(Command::MemoryHistory {
            path,
            version,
            page,
        })
    }

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

    fn prompt() -> Result<String, WitError> {
        exec(Command::Prompt)
    }
}
