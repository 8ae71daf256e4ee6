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
#[cfg(feature = "testing")]
mod clock;
mod error;
#[cfg(feature = "mcp")]
pub mod feed;
mod limits;
pub mod location;
#[cfg(feature = "mcp")]
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

pub use backend::entries::{CopyError, Entry, Exported, HostEdit, Skipped};
pub use bindings::{
    ActivityAnswer, ActivityItem, BlameAnswer, BlamedLine, Change, ContextAnswer, ContextNote,
    GetAnswer, GraphNote, HistoryVersion, LeftFile, LineOwner, NoteType, Observation, RedactReport,
    RelatedNote, Relation, Role, SearchAnswer, SearchFilters, SearchResult, Source, StatsAnswer,
    UndoReport,
};
#[cfg(feature = "testing")]
pub use clock::TestClock;
#[cfg(feature = "database")]
pub use error::OpenDbError;
pub use error::{DataResult, OpenError, ToolDefinition, ToolError, ToolErrorKind, ToolResult};
pub use limits::Limits;
pub use memory::{Actor, DEFAULT_NAMESPACE, Memory, MemoryBuilder};

/// The library component (`memcap.wasm`) this host embeds, deflated: it
/// is read only to compile it, when the code cache has no copy.
const GUEST_WASM_DEFLATED: &[u8] = include_bytes!(env!("MEMCAP_GUEST_WASM_DEFLATED"));
/// The most the embedded component may inflate to.
const GUEST_WASM_MAX_BYTES: usize = 64 << 20;

/// The library component (`memcap.wasm`) this host embeds, the very bytes
/// at [`GUEST_WASM_PATH`] when it was built.
pub fn guest_wasm() -> std::io::Result<Vec<u8>> {
    miniz_oxide::inflate::decompress_to_vec_with_limit(GUEST_WASM_DEFLATED, GUEST_WASM_MAX_BYTES)
        .map_err(|e| {
            std::io::Error::new(
                std::io::ErrorKind::InvalidData,
                format!("the embedded component does not inflate ({e}): rebuild memcap"),
            )
        })
}

/// Where the build left the library component, for tests and packaging.
pub const GUEST_WASM_PATH: &str = env!("MEMCAP_GUEST_WASM");
/// Where the build left the command component (`wasi:cli/run` reading JSON lines).
pub const COMMAND_WASM_PATH: &str = env!("MEMCAP_COMMAND_WASM");
/// Where the build left the Wassette flavour (`memcap-tools.wasm`: world-level
/// functions and a `package-docs` section).
pub const TOOLS_WASM_PATH: &str = env!("MEMCAP_TOOLS_WASM");
