//! Errors: a failed tool call (always safe to show the model) and a store that
//! could not be opened (for the embedding program).

#[cfg(feature = "database")]
pub(crate) mod open_db;

use crate::bindings::WitError;
#[cfg(feature = "database")]
pub use open_db::OpenDbError;

/// What kind of failure a call hit: the WIT `tool-error` cases, and the
/// host's own (`TimedOut`, `OutOfMemory`, `GuestFailure`). `Denied` never
/// reaches the host: the guest reports it as `Io`.
pub use memcap_core::error::ErrorKind as ToolErrorKind;

/// A failed call: its kind and the exact message for the model. Messages never
/// hold a host path or operating-system error text.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct ToolError {
    pub kind: ToolErrorKind,
    pub message: String,
}

impl ToolError {
    pub(crate) fn new(kind: ToolErrorKind, message: impl Into<String>) -> Self {
        Self {
            kind,
            message: message.into(),
        }
    }
}

impl From<WitError> for ToolError {
    fn from(e: WitError) -> Self {
        use ToolErrorKind as K;
        let (kind, message) = match e {
            WitError::InvalidPath(m) => (K::InvalidPath, m),
            WitError::Escape(m) => (K::Escape, m),
            WitError::Protected(m) => (K::Protected, m),
            WitError::NotFound(m) => (K::NotFound, m),
            WitError::AlreadyExists(m) => (K::AlreadyExists, m),
            WitError::NotAFile(m) => (K::NotAFile, m),
            WitError::NotADirectory(m) => (K::NotADirectory, m),
            WitError::NoMatch(m) => (K::NoMatch, m),
            WitError::MultipleMatches(m) => (K::MultipleMatches, m),
            WitError::InvalidLine(m) => (K::InvalidLine, m),
            WitError::NotText(m) => (K::NotText, m),
            WitError::TooLarge(m) => (K::TooLarge, m),
            WitError::Conflict(m) => (K::Conflict, m),
            WitError::Io(m) => (K::Io, m),
            WitError::InvalidNote(m) => (K::InvalidNote, m),
        };
        Self { kind, message }
    }
}

/// One tool result, as `memcap call` prints it: `{"content": …, "is_error": …}`.
pub use memcap_core::lines::ToolResult;

impl ToolError {
    /// The result the model gets for a call that failed this way.
    pub fn into_result(self) -> ToolResult {
        ToolResult::error(self.message)
    }
}

/// One run rendered twice ([`crate::Memory::call_with_data`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DataResult {
    /// The model's text, as [`crate::Memory::call`] gives it.
    pub content: String,
    /// The same result as JSON, as [`crate::Memory::call_json`] gives it.
    pub data: String,
    pub is_error: bool,
}

/// A tool the component offers, as [`crate::Memory::describe`] lists it.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct ToolDefinition {
    pub name: String,
    pub description: String,
    /// The JSON Schema of the tool's input.
    pub input_schema: serde_json::Value,
}

/// Why [`crate::Memory::open`] failed. These are for the program embedding
/// memcap, not for the model, so they may name host paths. Each message says
/// it all (the OS error is part of it, not a separate cause), once.
#[derive(Debug, thiserror::Error)]
pub enum OpenError {
    #[error("could not open the memory directory {}: {cause}", path.display())]
    Root {
        path: std::path::PathBuf,
        cause: std::io::Error,
    },
    #[error("the memory directory {} is a file, not a directory: give the path of a directory (it is created if missing)", path.display())]
    NotADirectory { path: std::path::PathBuf },
    #[error("could not prepare memcap's files in {}: {cause}", path.display())]
    Store {
        path: std::path::PathBuf,
        cause: std::io::Error,
    },
    #[error("{} {problem}, but memcap keeps its own files there: remove it (memcap makes it again) and retry", path.display())]
    Reserved {
        path: std::path::PathBuf,
        problem: &'static str,
    },
    #[error("could not load the memory component: {0}")]
    Component(String),
    #[error("{what} {name:?} {why}")]
    BadName {
        what: &'static str,
        name: String,
        why: &'static str,
    },
    #[error("the shared directory {} does not exist: create it first (with permissions for everyone who shares it)", path.display())]
    SharedMissing { path: std::path::PathBuf },
    #[error("the extra directory {} does not exist: check the path given with --extra", path.display())]
    ExtraMissing { path: std::path::PathBuf },
    #[error("--store takes a PostgreSQL URL (postgres://user@host/db); for a directory use --root")]
    NotADatabase,
    #[error(
        "this memcap was built without the database backend (Cargo feature `database`): install it with `cargo install --path host --features full` (what `./dev build` builds), or use a directory"
    )]
    NoDatabase,
    #[error("an in-memory store {0}")]
    InMemory(&'static str),
    #[cfg(feature = "database")]
    #[error(transparent)]
    Database(#[from] OpenDbError),
}
