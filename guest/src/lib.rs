//! memcap's guest: Claude's memory tool as a WebAssembly component that can
//! reach exactly one directory, the one its host preopened.
//!
//! This file is the glue between the WIT exports and the core's commands;
//! `wasi/` is the adapter that gives the core its storage.

mod wasi;

use memcap_core::command::Command;
use memcap_core::error;
use memcap_core::notes::NoteType;

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

wit_bindgen::generate!({
    path: "../wit",
    world: "memcap",
});

use exports::memcap::memory::types::{
    DataResult as WitDataResult, NoteType as WitNoteType, ToolDefinition as WitTool,
    ToolError as WitError, ToolResult as WitResult,
};
use exports::memcap::memory::{files, notes as note_tools, tool};

struct Component;

export!(Component);

/// Runs one command against the memory root.
fn run(command: Command) -> Result<String, WitError> {
    silence_panics();
    wasi::with_io(|io| memcap_core::execute(io, command))
        .map(|output| memcap_core::render::text::render(&output))
        .map_err(to_wit)
}

/// A panic is a bug and traps; the host reports it. Its message must not go to
/// stderr or stdout, which some hosts (Wassette) pass to their MCP channel.
fn silence_panics() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| std::panic::set_hook(Box::new(|_| {})));
}

impl files::Guest for Component {
    fn view(path: String, view_range: Option<(i64, i64)>) -> Result<String, WitError> {
        run(Command::View { path, view_range })
    }

    fn create(path: String, file_text: String) -> Result<String, WitError> {
        run(Command::Create { path, file_text })
    }

    fn str_replace(path: String, old_str: String, new_str: String) -> Result<String, WitError> {
        run(Command::StrReplace {
            path,
            old_str,
            new_str,
        })
    }

    fn insert(path: String, insert_line: i64, insert_text: String) -> Result<String, WitError> {
        run(Command::Insert {
            path,
            insert_line,
            insert_text,
        })
    }

    fn delete(path: String) -> Result<String, WitError> {
        run(Command::Delete { path })
    }

    fn rename(old_path: String, new_path: String) -> Result<String, WitError> {
        run(Command::Rename { old_path, new_path })
    }
}

impl note_tools::Guest for Component {
    fn memory_read(topics: Vec<String>, page: Option<u32>) -> Result<String, WitError> {
        run(Command::MemoryRead { topics, page })
    }

    fn memory_view(all: bool, page: Option<u32>) -> Result<String, WitError> {
        run(Command::MemoryView { all, page })
    }

    fn memory_write(
        filename: String,
        name: String,
        description: String,
        type_: WitNoteType,
        content: String,
    ) -> Result<String, WitError> {
        let kind = match type_ {
            WitNoteType::User => NoteType::User,
            WitNoteType::Feedback => NoteType::Feedback,
            WitNoteType::Project => NoteType::Project,
            WitNoteType::Reference => NoteType::Reference,
        };
        run(Command::MemoryWrite {
            filename,
            name,
            description,
            kind,
            content,
        })
    }

    fn memory_update(
        filename: String,
        old_str: String,
        new_str: String,
    ) -> Result<String, WitError> {
        run(Command::MemoryUpdate {
            filename,
            old_str,
            new_str,
        })
    }

    fn memory_delete(filename: String) -> Result<String, WitError> {
        run(Command::MemoryDelete { filename })
    }
}

impl tool::Guest for Component {
    fn prompt() -> Result<String, WitError> {
        run(Command::Prompt)
    }

    fn describe() -> Vec<WitTool> {
        memcap_core::tools::describe()
            .into_iter()
            .map(|tool| WitTool {
                name: tool.name,
                description: tool.description,
                input_schema: tool.input_schema.to_string(),
            })
            .collect()
    }

    fn call(input: String) -> WitResult {
        silence_panics();
        to_wit_result(call(&input))
    }

    fn call_json(input: String) -> WitResult {
        silence_panics();
        to_wit_result(call_json(&input))
    }

    fn call_with_data(input: String) -> WitDataResult {
        silence_panics();
        let (text, data) = call_with_data(&input);
        WitDataResult {
            content: text.content,
            data,
            is_error: text.is_error,
        }
    }
}

fn to_wit_result(result: ToolResult) -> WitResult {
    WitResult {
        content: result.content,
        is_error: result.is_error,
    }
}

fn to_wit(e: error::ToolError) -> WitError {
    use error::ErrorKind as K;
    let m = e.to_string();
    match e.kind() {
        // Only `call` parses tool input; the typed functions cannot get it wrong.
        K::InvalidPath | K::InvalidInput => WitError::InvalidPath(m),
        K::Escape => WitError::Escape(m),
        K::Protected => WitError::Protected(m),
        K::NotFound => WitError::NotFound(m),
        K::AlreadyExists => WitError::AlreadyExists(m),
        K::NotAFile => WitError::NotAFile(m),
        K::NotADirectory => WitError::NotADirectory(m),
        K::NoMatch => WitError::NoMatch(m),
        K::MultipleMatches => WitError::MultipleMatches(m),
        K::InvalidLine => WitError::InvalidLine(m),
        K::NotText => WitError::NotText(m),
        K::TooLarge => WitError::TooLarge(m),
        K::Conflict => WitError::Conflict(m),
        // The last three are the host's (a call it stopped); the guest never
        // makes them.
        K::Io | K::Denied | K::TimedOut | K::OutOfMemory | K::GuestFailure => WitError::Io(m),
        K::InvalidNote => WitError::InvalidNote(m),
    }
}
