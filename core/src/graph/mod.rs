//! The knowledge graph written in notes, in basic-memory's format:
//! observations (`- [category] text #tag (context)`) and relations
//! (`- relation_type [[Target]] (context)`, a bare `[[Target]]` in prose,
//! a markdown link to a note). `parse` reads them from a note's body
//! (`observation.rs` and `relation.rs` hold the rules for one line).
//!
//! Where basic-memory's own parser (PyPI `basic-memory`, through
//! markdown-it) and this one differ, the difference is listed in
//! `tests/graph/DEVIATIONS.md` and checked by `tests/graph/differential.mjs`.

pub mod index;
pub mod links;
pub mod names;
pub mod node;
pub mod observation;
pub mod parse;
pub mod relation;
pub mod supersede;
pub mod superseded;

pub use observation::Observation;
pub use parse::{Parsed, parse};
pub use relation::Relation;
