//! The JSON renderer: a command's output as its typed data, an error as its
//! kind and message.

use serde_json::{Value, json};

use crate::error::{ErrorKind, ToolError};
use crate::failure::Failure;
use crate::output::Output;

/// `{"output": "<kind>", ...fields}` for a success, `{"error": {"kind",
/// "message"}}` for a failure.
pub fn render(result: &Result<Output, ToolError>) -> Value {
    match result {
        Ok(output) => serde_json::to_value(output).expect("outputs always serialise"),
        Err(e) => error(e),
    }
}

/// A failure as JSON: its kind as the WIT names it, and the model's message
/// (a failed precondition adds the content's hash).
pub fn error(e: &ToolError) -> Value {
    json!({ "error": Failure::from(e) })
}

/// A failure of `kind` with `message` as JSON (a host's own failures, such
/// as a call it stopped, have no [`ToolError`]).
pub fn failure(kind: ErrorKind, message: &str) -> Value {
    json!({ "error": Failure::new(kind, message) })
}

/// Reads back what [`render`] or [`failure`] wrote: the typed output, or
/// the failure. `Err` when `data` is neither (not an answer of this
/// version of memcap).
pub fn read(data: &str) -> serde_json::Result<Result<Output, Failure>> {
    let mut value: Value = serde_json::from_str(data)?;
    match value.get_mut("error").map(Value::take) {
        Some(error) => Ok(Err(serde_json::from_value(error)?)),
        None => Ok(Ok(serde_json::from_value(value)?)),
    }
}
