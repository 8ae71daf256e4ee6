//! The guest's pure modules (no WASI imports), compiled natively so that
//! libFuzzer can drive them with coverage: the same source files as the
//! component, included by path.

#[path = "../../guest/src/command.rs"]
pub mod command;
#[path = "../../guest/src/error.rs"]
pub mod error;
pub mod notes;
#[path = "../../guest/src/text.rs"]
pub mod text;
#[path = "../../guest/src/vpath.rs"]
pub mod vpath;
