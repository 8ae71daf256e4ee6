//! Full-text search over the notes: terms (`terms.rs`), chunks that follow
//! the markdown (`chunks.rs`), BM25 scores in 0–1 (`score.rs`), vectors
//! from the embedder port fused with them (`embedder.rs`) and the source
//! each note belongs to (`source.rs`).
//!
//! Nothing here touches storage: the search index (a derived index) feeds
//! these the notes' text and keeps what they return.

pub mod chunks;
pub mod embedder;
pub mod frozen;
pub mod index;
pub mod near;
pub mod recency;
pub mod score;
pub mod source;
pub mod terms;
