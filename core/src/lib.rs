//! memcap's core: everything that needs no file system. Memory paths
//! (`vpath`), a note's frontmatter and type (`notes`), the tool input parsed
//! into a [`command::Command`], the failures a command reports (`error`) and
//! text helpers. No WASI imports, so it builds and tests natively (`cargo
//! test -p memcap-core`) and libFuzzer drives it (`fuzz/`); the guest
//! (`guest/`) runs these against the one directory its host grants.

pub mod command;
pub mod commands;
pub mod error;
pub mod execute;
pub mod files;
pub mod io;
pub mod layout;
pub mod lines;
pub mod notes;
pub mod output;
pub mod quota;
pub mod render;
pub mod storage;
pub mod text;
pub mod tools;
pub mod vpath;

pub use execute::{call, call_json, execute};
pub use io::Io;
pub use notes::catalog::Indexes;
