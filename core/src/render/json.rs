//! The JSON renderer: a command's output as its typed data, an error as its
//! kind and message.

use serde_json::{Value, json};

use crate::error::{ErrorKind, ToolError};
use crate::output::Output;

/// `{"output": "<kind>", ...fields}` for a success, `{"error": {"kind",
/// "message"}}` for a failure.
pub fn render(result: &Result<Output, ToolError>) -> Value {
    match result {
        Ok(output) => serde_json::to_value(output).expect("outputs always serialise"),
        Err(e) => error(e),
    }
}

/// A failure as JSON: its kind as the WIT names it, and the model's message.
pub fn error(e: &ToolError) -> Value {
    let mut value = failure(e.kind(), &e.to_string());
    // A failed precondition names the content's hash as data too, so a
    // program can decide from it without parsing the message.
    if let ToolError::PreconditionFailed { current, .. } = e {
        value["error"]["sha256"] = json!(current);
    }
    value
}

/// A failure of `kind` with `message` as JSON (a host's own failures, such
/// as a call it stopped, have no [`ToolError`]).
pub fn failure(kind: ErrorKind, message: &str) -> Value {
    json!({"error": {"kind": kind_name(kind), "message": message}})
}

/// The WIT `tool-error` case name of a kind (`invalid-input` and `denied`
/// keep their own names here: a program can tell them apart).
pub fn kind_name(kind: ErrorKind) -> &'static str {
    use ErrorKind as K;
    match kind {
        K::InvalidPath => "invalid-path",
        K::Escape => "escape",
        K::Protected => "protected",
        K::NotFound => "not-found",
        K::AlreadyExists => "already-exists",
        K::NotAFile => "not-a-file",
        K::NotADirectory => "not-a-directory",
        K::NoMatch => "no-match",
        K::MultipleMatches => "multiple-matches",
        K::InvalidLine => "invalid-line",
        K::NotText => "not-text",
        K::TooLarge => "too-large",
        K::Conflict => "conflict",
        K::Io => "io",
        K::Denied => "denied",
        K::InvalidNote => "invalid-note",
        K::InvalidInput => "invalid-input",
        K::TimedOut => "timed-out",
        K::OutOfMemory => "out-of-memory",
        K::GuestFailure => "guest-failure",
    }
}
