//! memcap's host: runs the memory component in wasmtime with exactly one
//! preopened directory, serialises every call per store, and turns whatever
//! the guest does (including traps and runaway loops) into a tool result.
//!
//! ```no_run
//! let memory = memcap::Memory::open("./memories")?;
//! let result = memory.call(r#"{"command": "view", "path": "/memories"}"#);
//! println!("{}", result.content);
//! # Ok::<(), memcap::OpenError>(())
//! ```

mod backend;
mod bindings;
mod cache;
mod error;
#[cfg(feature = "server")]
pub mod feed;
mod limits;
pub mod location;
#[cfg(feature = "server")]
pub mod mcp;
mod memory;
pub mod namespace;
mod runtime;
#[cfg(feature = "server")]
pub mod server;
#[cfg(feature = "server")]
pub mod tokens;
#[cfg(feature = "server")]
pub mod ui;
mod wasi_link;

#[cfg(feature = "database")]
pub use backend::database::CommitListener;
pub use backend::entries::{CopyError, Entry, Exported, HostEdit, Skipped};
pub use bindings::{
    ActivityAnswer, ActivityItem, Change, ContextAnswer, ContextNote, GetAnswer, GraphNote,
    HistoryVersion, LeftFile, NoteType, Observation, RedactReport, RelatedNote, Relation, Role,
    SearchAnswer, SearchFilters, SearchResult, Source, StatsAnswer, UndoReport,
};
#[cfg(feature = "database")]
pub use error::OpenDbError;
pub use error::{DataResult, OpenError, ToolDefinition, ToolError, ToolErrorKind, ToolResult};
pub use limits::Limits;
pub use memory::{Actor, DEFAULT_NAMESPACE, Memory, MemoryBuilder};

/// The library component (`memcap.wasm`) this host embeds.
pub const GUEST_WASM: &[u8] = include_bytes!(env!("MEMCAP_GUEST_WASM"));
/// Where the build left the library component, for tests and packaging.
pub const GUEST_WASM_PATH: &str = env!("MEMCAP_GUEST_WASM");
/// Where the build left the command component (`wasi:cli/run` reading JSON lines).
pub const COMMAND_WASM_PATH: &str = env!("MEMCAP_COMMAND_WASM");
/// Where the build left the Wassette flavour (`memcap-tools.wasm`: world-level
/// functions and a `package-docs` section).
pub const TOOLS_WASM_PATH: &str = env!("MEMCAP_TOOLS_WASM");
