//! The failures a command can report, each with the exact message the model
//! sees. No WASI here: the guest maps WASI's error codes onto [`FsError`].

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

/// What a file-system operation failed with, in the terms memcap reports.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FsError {
    NotFound,
    /// The path would leave the memory root (`..`, an outward link).
    Escape,
    Loop,
    NameTooLong,
    /// A name the file system does not accept.
    BadName,
    /// A parent of the path is a file.
    NotADirectory,
    OutOfSpace,
    ReadOnly,
    Denied,
    TooLarge,
    Other,
}

impl ToolError {
    /// Maps a file-system error on `path` to a fixed message. `NotFound` is
    /// left to callers where the SDK words it differently; here it is the
    /// view message. OS error text never reaches the model: only these fixed
    /// sentences do.
    pub fn from_fs(e: FsError, path: &str, doing: &str) -> Self {
        use ErrorKind as K;
        match e {
            FsError::NotFound => Self::missing(path),
            FsError::Escape => Self::escape(path),
            FsError::Loop => Self::new(
                K::InvalidPath,
                format!("Path {path} runs through a symbolic link loop"),
            ),
            FsError::NameTooLong => Self::new(
                K::InvalidPath,
                format!("Path {path} is too long for the file system"),
            ),
            FsError::BadName => Self::new(
                K::InvalidPath,
                format!("Path {path} is not a name the file system accepts"),
            ),
            FsError::NotADirectory => Self::new(
                K::NotADirectory,
                format!("Could not {doing} {path}: a parent of it is a file, not a directory"),
            ),
            FsError::OutOfSpace => Self::new(
                K::Io,
                format!(
                    "Could not {doing} {path}: the memory directory is out of space. Nothing was changed."
                ),
            ),
            FsError::ReadOnly => Self::new(
                K::Denied,
                format!("Could not {doing} {path}: the memory directory is read-only"),
            ),
            FsError::Denied => Self::new(
                K::Denied,
                format!("Could not {doing} {path}: permission denied"),
            ),
            FsError::TooLarge => Self::new(
                K::TooLarge,
                format!("Could not {doing} {path}: the file is too large"),
            ),
            FsError::Other => Self::new(
                K::Io,
                format!(
                    "Could not {doing} {path}: the file system reported an error. Nothing was changed."
                ),
            ),
        }
    }
}
