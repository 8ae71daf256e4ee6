//! Renderers of a command's [`Output`](crate::output::Output): `text`, the
//! SDK's strings byte for byte (what the model reads), and `json`, the same
//! data for programs (MCP structured results, Wassette).

pub mod json;
mod review;
pub mod text;
