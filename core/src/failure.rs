//! A failure as an answer carries it: its kind and the message agents
//! read. The wire form of [`ToolError`] both ways: the core writes it, and
//! hosts read it back typed.

use serde::{Deserialize, Serialize};

use crate::error::{ErrorKind, ToolError};

/// One failed call, as `{"error": {...}}` holds it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Failure {
    pub kind: ErrorKind,
    /// What the agent is told (no host path, SQL or OS text).
    pub message: String,
    /// Only a failed precondition has it: the file's current content hash
    /// (`null` when there is no file), so that a program can decide from
    /// it without parsing the message.
    #[serde(
        default,
        deserialize_with = "present",
        skip_serializing_if = "Option::is_none"
    )]
    pub sha256: Option<Option<String>>,
}

/// A `sha256` key that is there, even as `null`.
fn present<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<Option<String>>, D::Error> {
    Option::<String>::deserialize(d).map(Some)
}

impl Failure {
    /// A failure of `kind` with `message` (a host's own failures, such as
    /// a call it stopped, have no [`ToolError`]).
    pub fn new(kind: ErrorKind, message: impl Into<String>) -> Self {
        Self {
            kind,
            message: message.into(),
            sha256: None,
        }
    }
}

impl From<&ToolError> for Failure {
    fn from(e: &ToolError) -> Self {
        Self {
            kind: e.kind(),
            message: e.to_string(),
            sha256: match e {
                ToolError::PreconditionFailed { current, .. } => Some(current.clone()),
                _ => None,
            },
        }
    }
}

impl std::fmt::Display for Failure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}
