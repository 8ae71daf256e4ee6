//! The failures a command can report, each with the exact message the model
//! sees. No WASI here: `fs.rs` maps file-system errors onto these.

/// What kind of failure a command hit; mirrors the WIT `tool-error` cases, plus
/// `InvalidInput`, which only `call` produces (malformed tool input).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ErrorKind {
    InvalidPath,
    Escape,
    Protected,
    NotFound,
    AlreadyExists,
    NotAFile,
    NotADirectory,
    NoMatch,
    MultipleMatches,
    InvalidLine,
    NotText,
    TooLarge,
    Conflict,
    Io,
    /// The storage refused a write (read-only, or permission denied); shown
    /// to hosts as `io`. Reads still work on such a store.
    Denied,
    InvalidNote,
    InvalidInput,
}

/// A failed command: its kind and the message for the model.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ToolError {
    pub kind: ErrorKind,
    pub message: String,
}

impl ToolError {
    pub fn new(kind: ErrorKind, message: impl Into<String>) -> Self {
        Self {
            kind,
            message: message.into(),
        }
    }

    /// The SDK's message for a path that resolves outside the root.
    pub fn escape(path: &str) -> Self {
        Self::new(
            ErrorKind::Escape,
            format!("Path {path} would escape /memories directory"),
        )
    }

    /// The SDK's "does not exist" message used by view, str_replace and insert.
    pub fn missing(path: &str) -> Self {
        Self::new(
            ErrorKind::NotFound,
            format!("The path {path} does not exist. Please provide a valid path."),
        )
    }
}

pub type Result<T, E = ToolError> = std::result::Result<T, E>;
