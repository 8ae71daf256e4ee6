//! `call`: one `tool_use` input object as JSON in, one tool result out:
//! parsed first (`command.rs`), then run.

use memcap_core::lines::ToolResult;
use wasip2::filesystem::types::Descriptor;

use crate::command::{self, Command};
use crate::error::Result;
use crate::{commands, root};

/// Runs one tool input. Never fails: every problem becomes an error result.
pub fn call(input: &str) -> ToolResult {
    command::parse(input)
        .and_then(|command| root::with_root(|root| execute(root, command)))
        .into()
}

fn execute(root: &Descriptor, command: Command) -> Result<String> {
    use commands::*;
    match command {
        Command::View { path, view_range } => view::view(root, &path, view_range),
        Command::Create { path, file_text } => create::create(root, &path, &file_text),
        Command::StrReplace {
            path,
            old_str,
            new_str,
        } => str_replace::str_replace(root, &path, &old_str, &new_str),
        Command::Insert {
            path,
            insert_line,
            insert_text,
        } => insert::insert(root, &path, insert_line, &insert_text),
        Command::Delete { path } => delete::delete(root, &path),
        Command::Rename { old_path, new_path } => rename::rename(root, &old_path, &new_path),
        Command::MemoryRead { topics, page } => memory_read::memory_read(root, &topics, page),
        Command::MemoryView { all, page } => memory_view::memory_view(root, all, page),
        Command::MemoryWrite {
            filename,
            name,
            description,
            kind,
            content,
        } => memory_write::memory_write(root, &filename, &name, &description, kind, &content),
        Command::MemoryUpdate {
            filename,
            old_str,
            new_str,
        } => memory_update::memory_update(root, &filename, &old_str, &new_str),
        Command::MemoryDelete { filename } => memory_delete::memory_delete(root, &filename),
        Command::Prompt => prompt::prompt(root),
    }
}
