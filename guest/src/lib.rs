//! memcap's guest: Claude's memory tool as a WebAssembly component that can
//! reach exactly one directory, the one its host preopened.
//!
//! This file is the glue between the WIT exports and the command modules.

mod call;
mod commands;
mod fs;
mod notes;
mod quota;
mod root;

use memcap_core::{command, error, text, vpath};

pub use call::call;
pub use memcap_core::lines::ToolResult;

wit_bindgen::generate!({
    path: "../wit",
    world: "memcap",
});

use exports::memcap::memory::types::{
    NoteType as WitNoteType, ToolDefinition as WitTool, ToolError as WitError,
    ToolResult as WitResult,
};
use exports::memcap::memory::{files, notes as note_tools, tool};

struct Component;

export!(Component);

fn run(
    f: impl FnOnce(&wasip2::filesystem::types::Descriptor) -> error::Result<String>,
) -> Result<String, WitError> {
    silence_panics();
    root::with_root(f).map_err(to_wit)
}

/// A panic is a bug and traps; the host reports it. Its message must not go to
/// stderr or stdout, which some hosts (Wassette) pass to their MCP channel.
fn silence_panics() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| std::panic::set_hook(Box::new(|_| {})));
}

impl files::Guest for Component {
    fn view(path: String, view_range: Option<(i64, i64)>) -> Result<String, WitError> {
        run(|root| commands::view::view(root, &path, view_range))
    }

    fn create(path: String, file_text: String) -> Result<String, WitError> {
        run(|root| commands::create::create(root, &path, &file_text))
    }

    fn str_replace(path: String, old_str: String, new_str: String) -> Result<String, WitError> {
        run(|root| commands::str_replace::str_replace(root, &path, &old_str, &new_str))
    }

    fn insert(path: String, insert_line: i64, insert_text: String) -> Result<String, WitError> {
        run(|root| commands::insert::insert(root, &path, insert_line, &insert_text))
    }

    fn delete(path: String) -> Result<String, WitError> {
        run(|root| commands::delete::delete(root, &path))
    }

    fn rename(old_path: String, new_path: String) -> Result<String, WitError> {
        run(|root| commands::rename::rename(root, &old_path, &new_path))
    }
}

impl note_tools::Guest for Component {
    fn memory_read(topics: Vec<String>, page: Option<u32>) -> Result<String, WitError> {
        run(|root| commands::memory_read::memory_read(root, &topics, page))
    }

    fn memory_view(all: bool, page: Option<u32>) -> Result<String, WitError> {
        run(|root| commands::memory_view::memory_view(root, all, page))
    }

    fn memory_write(
        filename: String,
        name: String,
        description: String,
        type_: WitNoteType,
        content: String,
    ) -> Result<String, WitError> {
        let kind = match type_ {
            WitNoteType::User => notes::NoteType::User,
            WitNoteType::Feedback => notes::NoteType::Feedback,
            WitNoteType::Project => notes::NoteType::Project,
            WitNoteType::Reference => notes::NoteType::Reference,
        };
        run(|root| {
            commands::memory_write::memory_write(
                root,
                &filename,
                &name,
                &description,
                kind,
                &content,
            )
        })
    }

    fn memory_update(
        filename: String,
        old_str: String,
        new_str: String,
    ) -> Result<String, WitError> {
        run(|root| commands::memory_update::memory_update(root, &filename, &old_str, &new_str))
    }

    fn memory_delete(filename: String) -> Result<String, WitError> {
        run(|root| commands::memory_delete::memory_delete(root, &filename))
    }
}

impl tool::Guest for Component {
    fn prompt() -> Result<String, WitError> {
        run(commands::prompt::prompt)
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
        let result = call::call(&input);
        WitResult {
            content: result.content,
            is_error: result.is_error,
        }
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
