//! The memory commands, one module each: the six file commands of Claude's
//! memory tool, then the typed-note commands, the prompt and the host's
//! report of changes made by other programs and of conversation turns.

pub mod build_context;
pub mod changed;
pub mod create;
pub mod delete;
pub mod insert;
pub mod memory_delete;
pub mod memory_get;
pub mod memory_guide;
pub mod memory_history;
pub mod memory_read;
pub mod memory_review;
pub mod memory_search;
pub mod memory_stats;
pub mod memory_update;
pub mod memory_view;
pub mod memory_write;
pub mod precondition;
pub mod prompt;
pub mod recent_activity;
pub mod record_turn;
pub mod rename;
pub mod shown;
pub mod standing;
pub mod str_replace;
pub mod view;

use crate::command::{Call, Command};
use crate::error::{FsError, Result, ToolError};
use crate::files;
use crate::io::Io;
use crate::notes::index_file;
use crate::output::Output;
use crate::storage::Kind;
use crate::vpath::{MemPath, ROOT};

/// Runs one command without a precondition.
pub fn run(io: &Io, command: Command) -> Result<Output> {
    run_call(
        io,
        Call {
            command,
            precondition: None,
        },
    )
}

/// Runs one command with the precondition it came with: the one place a
/// command is dispatched, beside its `mod` line above. (The parser takes a
/// precondition only for the writes below that pass it on.)
pub fn run_call(io: &Io, call: Call) -> Result<Output> {
    let pre = call.precondition.as_ref();
    match call.command {
        Command::View { path, view_range } => view::view(io, &path, view_range),
        Command::Create { path, file_text } => create::create(io, &path, &file_text, pre),
        Command::StrReplace {
            path,
            old_str,
            new_str,
        } => str_replace::str_replace(io, &path, &old_str, &new_str, pre),
        Command::Insert {
            path,
            insert_line,
            insert_text,
        } => insert::insert(io, &path, insert_line, &insert_text, pre),
        Command::Delete { path } => delete::delete(io, &path, pre),
        Command::Rename { old_path, new_path } => rename::rename(io, &old_path, &new_path, pre),
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
        Command::MemoryHistory {
            path,
            version,
            page,
        } => memory_history::memory_history(io, &path, version, page),
        Command::MemoryGuide => memory_guide::memory_guide(),
        Command::MemoryReview { timeframe } => {
            let (text, timeframe) =
                crate::command::timeframe_or_default("memory_review", timeframe.as_deref())?;
            memory_review::memory_review(io, (&text, timeframe))
        }
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
        } => memory_write::memory_write(io, &filename, &name, &description, kind, &content, pre),
        Command::MemoryUpdate {
            filename,
            old_str,
            new_str,
        } => memory_update::memory_update(io, &filename, &old_str, &new_str, pre),
        Command::MemoryDelete { filename } => memory_delete::memory_delete(io, &filename, pre),
        Command::Prompt => prompt::prompt(io),
        Command::Changed { paths } => changed::changed(io, &paths),
        Command::RecordTurn {
            session,
            role,
            text,
        } => record_turn::record_turn(io, &session, role, &text),
    }
}

/// Checks that `path` names a regular file, with the SDK's messages for
/// str_replace and insert.
fn require_file(io: &Io, path: &MemPath, shown: &str) -> Result<()> {
    match files::stat(io, path) {
        Ok(st) if st.kind == Kind::File => Ok(()),
        Ok(_) => Err(ToolError::NotAFile { path: shown.into() }),
        Err(FsError::NotFound | FsError::NotADirectory) => Err(ToolError::missing(shown)),
        Err(e) => Err(files::tool_error(e, shown, "read")),
    }
}

/// A note's `filename` as the memory_* commands take it: relative to
/// `/memories` (`prefs/coffee.md`) or a full `/memories/...` path; `.md` is
/// added when the name has no extension. Returns the path and how messages
/// show it (`/memories/prefs/coffee.md`).
/// Refuses a change the agent asks for in `/memories/chat`: the host's
/// record of the conversation (see `record_turn`), which the agent reads
/// but never writes, so pruning it can never take the agent's notes.
fn refuse_chat(path: &MemPath, shown: &str) -> Result<()> {
    let key = path.key();
    if key == crate::layout::CHAT || key.starts_with(&format!("{}/", crate::layout::CHAT)) {
        return Err(ToolError::ChatIsTheHosts {
            path: shown.to_owned(),
        });
    }
    Ok(())
}

fn note_path(filename: &str) -> Result<(MemPath, String)> {
    let trimmed = filename.trim();
    let full = if trimmed == ROOT || trimmed.starts_with(&format!("{ROOT}/")) {
        trimmed.to_owned()
    } else if trimmed.starts_with('/') {
        return Err(ToolError::NoteNameAbsolute {
            filename: filename.into(),
        });
    } else {
        format!("/memories/{trimmed}")
    };
    let mut path = MemPath::parse(&full)?;
    if path.is_root() || trimmed.ends_with('/') {
        return Err(ToolError::NoteNameIsDirectory {
            filename: filename.into(),
        });
    }
    if !path.file_name().contains('.') {
        path = MemPath::parse(&format!("{}.md", path.display()))?;
    }
    if index_file::is_index(&path) {
        return Err(ToolError::IndexIsNotANote);
    }
    let shown = path.display();
    Ok((path, shown))
}
