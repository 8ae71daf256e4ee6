//! A write's `precondition` field, parsed strictly: only the one shape
//! Anthropic's memory stores use, every key checked.

use serde_json::Value;

use super::args::{invalid, type_name};
use crate::error::Result;
use crate::vocab::Precondition;
use crate::vocab::precondition::parse_hex;

/// A write's `precondition` (absent: none). Only the one shape is taken,
/// every key checked: a misspelled precondition that passed would be a
/// guard the model believes it set. `null` is refused too: a client that
/// sends it meant some guard, and an unguarded write is left out, not null.
pub(super) fn parse(command: &str, value: Option<&Value>) -> Result<Option<Precondition>> {
    const SHAPE: &str = "{\"type\": \"content_sha256\", \"content_sha256\": \"<64 hex digits>\"}";
    let fields = match value {
        None => return Ok(None),
        Some(Value::Null) => {
            return Err(invalid(format!(
                "\"precondition\": null for command {command} is not a precondition: send \
                 {SHAPE} to guard the write, or leave the field out for an unguarded one."
            )));
        }
        Some(Value::Object(fields)) => fields,
        Some(other) => {
            return Err(invalid(format!(
                "Parameter \"precondition\" for command {command} must be an object such as \
                 {SHAPE}, got {}.",
                type_name(other)
            )));
        }
    };
    if let Some(key) = fields
        .keys()
        .find(|k| !matches!(k.as_str(), "type" | "content_sha256"))
    {
        let key: String = key.chars().take(64).collect();
        return Err(invalid(format!(
            "Unknown key {key:?} in \"precondition\" for command {command}: send {SHAPE}."
        )));
    }
    if fields.get("type").and_then(Value::as_str) != Some("content_sha256") {
        return Err(invalid(format!(
            "\"precondition\" for command {command} must have \"type\": \"content_sha256\" \
             (the only kind memcap checks): send {SHAPE}."
        )));
    }
    let digest = fields
        .get("content_sha256")
        .and_then(Value::as_str)
        .and_then(parse_hex)
        .ok_or_else(|| {
            invalid(format!(
                "\"content_sha256\" in \"precondition\" for command {command} must be the \
                 file's SHA-256 as 64 hex digits (the `sha256` a view answered): send {SHAPE}."
            ))
        })?;
    Ok(Some(Precondition {
        content_sha256: digest,
    }))
}
