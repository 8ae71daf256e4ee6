//! memcap's core: every command, from the tool input parsed into a
//! [`command::Command`] to a typed [`output::Output`] or
//! [`error::ToolError`], rendered as the model's text or as JSON
//! (`render`); the note catalog, the derived indexes and MEMORY.md
//! (`notes`). It reaches files only through the storage port
//! ([`storage::Storage`], [`storage::Environment`]), so it builds and tests
//! natively (`cargo test -p memcap-core`, on the in-memory adapter) and
//! libFuzzer drives its parsers (`fuzz/`); the guest (`guest/`) gives it a
//! WASI adapter over the one directory its host grants.
//!
//! One call: [`Io::new`] with the ports and the instance's warm
//! [`Indexes`], then [`call`] (text), [`call_json`] (JSON) or [`execute`]
//! (a parsed command, a typed result).

pub mod bytes;
pub mod command;
pub mod commands;
pub mod error;
pub mod execute;
pub mod failure;
pub mod files;
pub mod graph;
pub mod history;
pub mod indexes;
pub mod io;
pub mod layout;
pub mod lines;
pub mod notes;
pub mod output;
pub mod quota;
pub mod render;
pub mod search;
pub mod storage;
pub mod text;
pub mod tools;
pub mod vocab;
pub mod vpath;

pub use execute::{call, call_json, call_with_data, execute};
pub use io::Io;
pub use notes::catalog::Indexes;
