//! [`execute`]: one [`Command`] run against a store; [`call`]: one
//! `tool_use` input object as JSON in, one tool result out, parsed first
//! (`command.rs`), then run.

use crate::command::{self, Command};
use crate::commands;
use crate::error::Result;
use crate::io::Io;
use crate::lines::ToolResult;
use crate::output::Output;
use crate::render;

/// Runs one tool input. Never fails: every problem becomes an error result.
pub fn call(io: &Io, input: &str) -> ToolResult {
    command::parse(input)
        .and_then(|command| execute(io, command))
        .map(|output| render::text::render(&output))
        .into()
}

/// [`call`] for programs: the result as JSON data ([`render::json`]).
pub fn call_json(io: &Io, input: &str) -> ToolResult {
    let result = command::parse(input).and_then(|command| execute(io, command));
    ToolResult {
        content: render::json::render(&result).to_string(),
        is_error: result.is_err(),
    }
}

/// [`call`] and [`call_json`] from one run: the model's text and the
/// program's data for the same result (an MCP server's `content` and
/// `structuredContent`).
pub fn call_with_data(io: &Io, input: &str) -> (ToolResult, String) {
    let result = command::parse(input).and_then(|command| execute(io, command));
    let data = render::json::render(&result).to_string();
    let text = result.map(|output| render::text::render(&output)).into();
    (text, data)
}

/// Runs one command.
pub fn execute(io: &Io, command: Command) -> Result<Output> {
    use commands::*;
    match command {
        Command::View { path, view_range } => view::view(io, &path, view_range),
        Command::Create { path, file_text } => create::create(io, &path, &file_text),
        Command::StrReplace {
            path,
            old_str,
            new_str,
        } => str_replace::str_replace(io, &path, &old_str, &new_str),
        Command::Insert {
            path,
            insert_line,
            insert_text,
        } => insert::insert(io, &path, insert_line, &insert_text),
        Command::Delete { path } => delete::delete(io, &path),
        Command::Rename { old_path, new_path } => rename::rename(io, &old_path, &new_path),
        Command::MemoryRead { topics, page } => memory_read::memory_read(io, &topics, page),
        Command::MemoryView { all, page } => memory_view::memory_view(io, all, page),
        Command::MemorySearch {
            query,
            max_results,
            min_score,
            source,
            filters,
        } => memory_search::memory_search(io, &query, max_results, min_score, source, &filters),
        Command::MemoryGet { path, first, last } => memory_get::memory_get(io, &path, first, last),
        Command::MemoryStats => memory_stats::memory_stats(io),
        Command::MemoryGuide => memory_guide::memory_guide(),
        Command::BuildContext {
            url,
            depth,
            timeframe,
            max_related,
            page,
        } => build_context::build_context(
            io,
            &url,
            depth,
            timeframe.as_ref().map(|(text, t)| (text.as_str(), *t)),
            max_related,
            page,
        ),
        Command::RecentActivity {
            timeframe,
            kind,
            page,
        } => recent_activity::recent_activity(io, (&timeframe.0, timeframe.1), kind, page),
        Command::MemoryWrite {
            filename,
            name,
            description,
            kind,
            content,
        } => memory_write::memory_write(io, &filename, &name, &description, kind, &content),
        Command::MemoryUpdate {
            filename,
            old_str,
            new_str,
        } => memory_update::memory_update(io, &filename, &old_str, &new_str),
        Command::MemoryDelete { filename } => memory_delete::memory_delete(io, &filename),
        Command::Prompt => prompt::prompt(io),
        Command::Changed { paths } => changed::changed(io, &paths),
        Command::RecordTurn {
            session,
            role,
            text,
        } => record_turn::record_turn(io, &session, role, &text),
    }
}
