//! Host bindings generated from `wit/` for the `memcap` world.

wasmtime::component::bindgen!({
    path: "../wit",
    world: "memcap",
});

pub use exports::memcap::memory::history::Role;
pub use exports::memcap::memory::types::NoteType;
pub use exports::memcap::memory::types::ToolError as WitError;
pub use exports::memcap::memory::types::ToolResult as WitResult;
pub use exports::memcap::memory::types::{
    ActivityAnswer, ActivityItem, ContextAnswer, ContextNote, GetAnswer, GraphNote, Observation,
    RelatedNote, Relation, SearchAnswer, SearchFilters, SearchResult, Source, StatsAnswer,
};
pub use exports::memcap::memory::versions::{
    BlameAnswer, BlamedLine, Change, LeftFile, LineOwner, RedactReport, UndoReport,
    Version as HistoryVersion,
};
