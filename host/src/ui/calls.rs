//! The component's commands as the page runs them: through
//! `call-with-data`, as the signed-in person, reading the typed data of
//! each answer. Errors come back as the component words them for agents:
//! no host path, SQL or OS text.

use memcap_core::error::ErrorKind;
use memcap_core::failure::Failure;
use memcap_core::output::Output;
use memcap_core::render::json;
use serde_json::Value;

use crate::memory::{Actor, Memory};

/// One command's typed answer, or its error. An answer that does not read
/// as the core's types is a failure said as such, never filled in with
/// defaults.
pub fn call(memory: &Memory, actor: &Actor, input: &Value) -> Result<Output, Failure> {
    let answer = memory.call_with_data_as(&input.to_string(), Some(actor));
    match json::read(&answer.data) {
        Ok(Ok(output)) if !answer.is_error => Ok(output),
        Ok(Err(failure)) if answer.is_error => Err(failure),
        read => {
            // Where, not what: the answer may quote a note.
            let at = read.err().map(|e| (e.line(), e.column()));
            eprintln!("memcap: the page could not read an answer (at {at:?})");
            Err(unreadable())
        }
    }
}

fn unreadable() -> Failure {
    Failure::new(
        ErrorKind::GuestFailure,
        "memcap answered in a form this page does not read: update memcap, or use the CLI.",
    )
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
pub fn view(memory: &Memory, actor: &Actor, path: &str) -> Result<Found, Failure> {
    let input = serde_json::json!({"command": "view", "path": path});
    match call(memory, actor, &input)? {
        Output::Listing {
            entries, truncated, ..
        } => {
            let prefix = format!("{}/", path.trim_end_matches('/'));
            let entries = entries
                .into_iter()
                .filter(|e| {
                    e.path
                        .strip_prefix(&prefix)
                        .is_some_and(|rest| !rest.is_empty() && !rest.contains('/'))
                })
                .map(|e| Entry {
                    path: e.path,
                    size: e.size,
                    is_dir: e.is_dir,
                })
                .collect();
            Ok(Found::Dir {
                entries,
                truncated: truncated.is_some(),
            })
        }
        Output::FileLines { lines, sha256, .. } => Ok(Found::File {
            text: lines.lines().collect::<Vec<_>>().join("\n"),
            sha256,
        }),
        _ => Err(unreadable()),
    }
}
