//! [`execute`]: one [`Command`] run against a store; [`call`]: one
//! `tool_use` input object as JSON in, one tool result out, parsed first
//! (`command.rs`), then run.

use crate::command::{self, Call, Command};
use crate::commands;
use crate::error::Result;
use crate::io::Io;
use crate::lines::ToolResult;
use crate::output::Output;
use crate::render;

/// Runs one tool input. Never fails: every problem becomes an error result.
pub fn call(io: &Io, input: &str) -> ToolResult {
    command::parse(input)
        .and_then(|call| execute_call(io, call))
        .map(|output| render::text::render(&output))
        .into()
}

/// [`call`] for programs: the result as JSON data ([`render::json`]).
pub fn call_json(io: &Io, input: &str) -> ToolResult {
    let result = command::parse(input).and_then(|call| execute_call(io, call));
    ToolResult {
        content: render::json::render(&result).to_string(),
        is_error: result.is_err(),
    }
}

/// [`call`] and [`call_json`] from one run: the model's text and the
/// program's data for the same result (an MCP server's `content` and
/// `structuredContent`).
pub fn call_with_data(io: &Io, input: &str) -> (ToolResult, String) {
    let result = command::parse(input).and_then(|call| execute_call(io, call));
    let data = render::json::render(&result).to_string();
    let text = result.map(|output| render::text::render(&output)).into();
    (text, data)
}

/// Runs one command ([`commands::run`]).
pub fn execute(io: &Io, command: Command) -> Result<Output> {
    commands::run(io, command)
}

/// Runs one parsed tool input, with its precondition ([`commands::run_call`]).
pub fn execute_call(io: &Io, call: Call) -> Result<Output> {
    commands::run_call(io, call)
}
