//! The bounds on what commands take and give that the tool descriptions,
//! the parser and the commands share.

/// Results `memory_search` gives when `maxResults` is not sent, and the most it gives.
pub const MAX_RESULTS_DEFAULT: u32 = 6;
pub const MAX_RESULTS_LIMIT: u32 = 20;
/// The least score a result needs when `minScore` is not sent.
pub const MIN_SCORE_DEFAULT: f32 = 0.35;

/// The deepest `depth`, and `max_related`'s default and bound.
pub const MAX_DEPTH: u32 = 3;
pub const MAX_RELATED_DEFAULT: u32 = 10;
pub const MAX_RELATED_LIMIT: u32 = 50;
