//! The host's environment contract: the only variables a host hands the
//! component (as WASI environment variables), read by the core through
//! [`Environment::var`](crate::storage::Environment::var). A host that
//! sets none gets memcap's defaults; the guest sees nothing else of the
//! host's environment.

/// The most files the store may hold (the quota; default 10,000).
pub const MAX_FILES: &str = "MEMCAP_MAX_FILES";
/// The most bytes the store's files may hold (the quota; default 100 MiB).
pub const MAX_BYTES: &str = "MEMCAP_MAX_BYTES";
/// The host's limit on one call, in milliseconds: the core's walks take a
/// share of it so what they found is saved before the host stops the call.
pub const CALL_TIMEOUT_MS: &str = "MEMCAP_CALL_TIMEOUT_MS";
/// The memory one call may use, in MiB: the search index keeps a quarter.
pub const MEMORY_MIB: &str = "MEMCAP_MEMORY_MIB";
/// `off` turns the embedder off: search is keyword-only (BM25).
pub const VECTORS: &str = "MEMCAP_VECTORS";
/// Who the calls are made for, as the version history records it (the
/// host's name for its user: a token's label, a CLI `--actor`, an MCP
/// client's name). Hosts that pass nothing are recorded as
/// [`DEFAULT_ACTOR`].
pub const ACTOR: &str = "MEMCAP_ACTOR";
/// The id that goes with [`ACTOR`] where the host has one (a token's id).
pub const ACTOR_ID: &str = "MEMCAP_ACTOR_ID";
/// The actor of versions when the host names none.
pub const DEFAULT_ACTOR: &str = "memcap";
/// The actor of versions memcap records for content it finds changed by
/// another program (before it changes or removes that content itself).
pub const OUTSIDE_ACTOR: &str = "(outside memcap)";
/// How many days of history to keep (default 30).
pub const HISTORY_DAYS: &str = "MEMCAP_HISTORY_DAYS";
/// How many MiB of history to keep (default 256); `0` records none.
pub const HISTORY_MIB: &str = "MEMCAP_HISTORY_MIB";
