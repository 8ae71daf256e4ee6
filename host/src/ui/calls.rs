//! The component's commands as the page runs them: through
//! `call-with-data`, as the signed-in person, reading the typed data of
//! each answer. Errors come back as the component words them for agents:
//! no host path, SQL or OS text.

use serde_json::{Value, json};

use crate::memory::{Actor, Memory};

/// An error the component answered with.
pub struct Failed {
    pub kind: String,
    pub message: String,
}

/// One command's data, or its error.
pub fn call(memory: &Memory, actor: &Actor, input: &Value) -> Result<Value, Failed> {
    let answer = memory.call_with_data_as(&input.to_string(), Some(actor));
    let data: Value = serde_json::from_str(&answer.data).unwrap_or(Value::Null);
    if answer.is_error {
        let error = &data["error"];
        return Err(Failed {
            kind: error["kind"].as_str().unwrap_or("error").to_owned(),
            message: error["message"]
                .as_str()
                .map_or_else(|| answer.content.clone(), str::to_owned),
        });
    }
    Ok(data)
}

/// What a path is.
pub enum Found {
    File {
        text: String,
        sha256: String,
    },
    Dir {
        entries: Vec<Entry>,
        truncated: bool,
    },
}

/// One entry of a listing.
pub struct Entry {
    pub path: String,
    pub size: u64,
    pub is_dir: bool,
}

/// `view` of `path` (`/memories/…`): a file's whole text and hash, or a
/// directory's entries one level down.
pub fn view(memory: &Memory, actor: &Actor, path: &str) -> Result<Found, Failed> {
    let data = call(memory, actor, &json!({"command": "view", "path": path}))?;
    if data["output"] == "listing" {
        let prefix = format!("{}/", path.trim_end_matches('/'));
        let entries = data["entries"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|e| {
                let path = e["path"].as_str()?.to_owned();
                let rest = path.strip_prefix(&prefix)?;
                (!rest.is_empty() && !rest.contains('/')).then(|| Entry {
                    size: e["size"].as_u64().unwrap_or(0),
                    is_dir: e["is_dir"].as_bool().unwrap_or(false),
                    path,
                })
            })
            .collect();
        return Ok(Found::Dir {
            entries,
            truncated: !data["truncated"].is_null(),
        });
    }
    let lines: Vec<&str> = data["lines"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
        .collect();
    Ok(Found::File {
        text: lines.join("\n"),
        sha256: data["sha256"].as_str().unwrap_or_default().to_owned(),
    })
}
