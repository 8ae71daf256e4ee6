//! memcap's guest: Claude's memory tool as a WebAssembly component that can
//! reach exactly one directory, the one its host preopened.
//!
//! This file runs commands for the WIT exports; `library.rs` (world `memcap`)
//! and `tools_world.rs` (world `memcap-tools`, the `tools-world` feature) are
//! the two sets of exports, and `wasi/` is the adapter that gives the core its
//! storage.

mod wasi;

#[cfg(not(feature = "tools-world"))]
mod library;
#[cfg(feature = "tools-world")]
mod tools_world;

use memcap_core::command::Command;
use memcap_core::error::ToolError;

pub use memcap_core::lines::ToolResult;

/// Runs one `tool_use` input (JSON) against the memory root. Never fails:
/// every problem becomes an error result.
pub fn call(input: &str) -> ToolResult {
    wasi::with_io(|io| Ok(memcap_core::call(io, input))).unwrap_or_else(|e| Err(e).into())
}

/// [`call`] with the result as JSON data.
pub fn call_json(input: &str) -> ToolResult {
    wasi::with_io(|io| Ok(memcap_core::call_json(io, input))).unwrap_or_else(|e| ToolResult {
        content: memcap_core::render::json::error(&e).to_string(),
        is_error: true,
    })
}

/// [`call`] and [`call_json`] from one run.
pub fn call_with_data(input: &str) -> (ToolResult, String) {
    wasi::with_io(|io| Ok(memcap_core::call_with_data(io, input))).unwrap_or_else(|e| {
        let data = memcap_core::render::json::error(&e).to_string();
        (Err(e).into(), data)
    })
}

/// Runs one command against the memory root and renders its text.
fn run(command: Command) -> Result<String, ToolError> {
    silence_panics();
    wasi::with_io(|io| memcap_core::execute(io, command))
        .map(|output| memcap_core::render::text::render(&output))
}

/// A panic is a bug and traps; the host reports it. Its message must not go to
/// stderr or stdout, which some hosts (Wassette) pass to their MCP channel.
fn silence_panics() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| std::panic::set_hook(Box::new(|_| {})));
}

/// The WIT `tool-error` case for a core error; each world has its own
/// generated `tool-error` type, so this is written once as a macro.
macro_rules! to_wit_error {
    ($wit:ident, $e:expr) => {{
        use memcap_core::error::ErrorKind as K;
        let e = $e;
        let m = e.to_string();
        match e.kind() {
            // Only `call` parses tool input; the typed functions cannot get it wrong.
            K::InvalidPath | K::InvalidInput => $wit::InvalidPath(m),
            K::Escape => $wit::Escape(m),
            K::Protected => $wit::Protected(m),
            K::NotFound => $wit::NotFound(m),
            K::AlreadyExists => $wit::AlreadyExists(m),
            K::NotAFile => $wit::NotAFile(m),
            K::NotADirectory => $wit::NotADirectory(m),
            K::NoMatch => $wit::NoMatch(m),
            K::MultipleMatches => $wit::MultipleMatches(m),
            K::InvalidLine => $wit::InvalidLine(m),
            K::NotText => $wit::NotText(m),
            K::TooLarge => $wit::TooLarge(m),
            K::Conflict => $wit::Conflict(m),
            // The last three are the host's (a call it stopped); the guest
            // never makes them.
            K::Io | K::Denied | K::TimedOut | K::OutOfMemory | K::GuestFailure => $wit::Io(m),
            K::InvalidNote => $wit::InvalidNote(m),
        }
    }};
}
pub(crate) use to_wit_error;

/// The WIT `note-type` enum to the core's, for either world's generated type.
macro_rules! note_type {
    ($wit:ident, $value:expr) => {
        match $value {
            $wit::User => memcap_core::notes::NoteType::User,
            $wit::Feedback => memcap_core::notes::NoteType::Feedback,
            $wit::Project => memcap_core::notes::NoteType::Project,
            $wit::Reference => memcap_core::notes::NoteType::Reference,
        }
    };
}
pub(crate) use note_type;
