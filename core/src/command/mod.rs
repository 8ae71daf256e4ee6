//! One tool input, parsed and checked before anything is touched: which
//! command, with every field it needs. Pure: no WASI, so it is fuzzed
//! natively (`fuzz/`).
//!
//! Long because every field's check and its message are here, where the
//! fuzzer reaches them; `tools.rs` keeps the list they are checked against.

use serde_json::Value;

use crate::error::Result;
use crate::tools;
use crate::vocab::timeframe::Timeframe;
use crate::vocab::{
    ActivityType, MAX_DEPTH, MAX_RELATED_DEFAULT, MAX_RELATED_LIMIT, MAX_RESULTS_LIMIT, NoteType,
    Precondition, Role, SearchFilters, Source,
};

mod args;
mod precondition;

use args::{Args, aliases, invalid, timeframe_param, type_name};

/// One tool input: the command, and the precondition a write was sent with.
#[derive(Debug, Clone, PartialEq)]
pub struct Call {
    pub command: Command,
    pub precondition: Option<Precondition>,
}

/// The commands `call` takes, with their fields.
#[derive(Debug, Clone, PartialEq)]
pub enum Command {
    View {
        path: String,
        view_range: Option<(i64, i64)>,
    },
    Create {
        path: String,
        file_text: String,
    },
    StrReplace {
        path: String,
        old_str: String,
        new_str: String,
    },
    Insert {
        path: String,
        insert_line: i64,
        insert_text: String,
    },
    Delete {
        path: String,
    },
    Rename {
        old_path: String,
        new_path: String,
    },
    MemoryRead {
        topics: Vec<String>,
        page: Option<u32>,
    },
    MemoryView {
        all: bool,
        page: Option<u32>,
    },
    MemoryWrite {
        filename: String,
        name: String,
        description: String,
        kind: NoteType,
        content: String,
    },
    MemoryUpdate {
        filename: String,
        old_str: String,
        new_str: String,
    },
    MemoryDelete {
        filename: String,
    },
    MemorySearch {
        query: String,
        max_results: u32,
        min_score: f32,
        source: Source,
        filters: SearchFilters,
    },
    /// Lines `first..=last` of a file (1-based); `last` `None` reads on to
    /// the cap.
    MemoryGet {
        path: String,
        first: u32,
        last: Option<u32>,
    },
    MemoryStats,
    MemoryGuide,
    /// `timeframe` keeps the words it was given in, for the answer.
    BuildContext {
        url: String,
        depth: u32,
        timeframe: Option<(String, Timeframe)>,
        max_related: u32,
        page: Option<u32>,
    },
    RecentActivity {
        timeframe: (String, Timeframe),
        kind: Option<ActivityType>,
        page: Option<u32>,
    },
    /// What needs a decision; changes by others within `timeframe` (as
    /// sent: read by [`timeframe_or_default`]).
    MemoryReview {
        timeframe: Option<String>,
    },
    /// A file's versions (`version` `None`), or one version's content.
    MemoryHistory {
        path: String,
        version: Option<u64>,
        page: Option<u32>,
    },
    Prompt,
    /// From the host: other programs changed these paths.
    Changed {
        paths: Vec<String>,
    },
    /// From the host: one turn of a conversation, for the `chat` source.
    RecordTurn {
        session: String,
        role: Role,
        text: String,
    },
}

impl Command {
    /// `memory_search` from typed arguments (the WIT function), with the
    /// bounds `call` checks.
    pub fn search(
        query: String,
        max_results: u32,
        min_score: f32,
        source: Source,
        filters: SearchFilters,
    ) -> Result<Command> {
        if query.trim().is_empty() {
            return Err(invalid(
                "The query is empty: send what to look for, in words, for example \
                 \"which database we chose\"."
                    .to_owned(),
            ));
        }
        if !(1..=MAX_RESULTS_LIMIT).contains(&max_results) {
            return Err(invalid(format!(
                "max-results must be a whole number from 1 to {MAX_RESULTS_LIMIT}, got \
                 {max_results}."
            )));
        }
        if !(0.0..=1.0).contains(&min_score) {
            return Err(invalid(format!(
                "min-score must be a number from 0.0 to 1.0 (the least score a result needs), \
                 got {min_score}."
            )));
        }
        Ok(Command::MemorySearch {
            query,
            max_results,
            min_score,
            source,
            filters,
        })
    }
}

/// `recent_activity`'s timeframe when none is sent.
pub const DEFAULT_TIMEFRAME: &str = "7d";

/// A command's `timeframe` as sent (none or blank: [`DEFAULT_TIMEFRAME`]),
/// with the words sent, or the error `call` gives for it.
pub fn timeframe_or_default(command: &str, text: Option<&str>) -> Result<(String, Timeframe)> {
    Ok(
        args::timeframe_param(command, "timeframe", text.unwrap_or_default())?
            .unwrap_or_else(|| (DEFAULT_TIMEFRAME.to_owned(), Timeframe::Span(7 * 86_400))),
    )
}

/// Every command's name, as error messages list them (from [`tools::COMMANDS`]).
fn command_names() -> String {
    let names: Vec<&str> = tools::COMMANDS.iter().map(|c| c.name).collect();
    names.join(", ")
}

/// Refuses a field the command does not take: a field silently dropped is
/// a filter, a bound or a precondition the model believes it set. (The SDK
/// ignores them in the six file commands; memcap refuses them there too, a
/// documented deviation.)
fn check_fields(command: &str, fields: &serde_json::Map<String, Value>) -> Result<()> {
    let Some(spec) = tools::command(command) else {
        return Ok(());
    };
    let known = |key: &str| {
        key == "command"
            || spec.fields.iter().any(|f| f.name == key)
            || aliases(command).contains(&key)
    };
    let Some(unknown) = fields.keys().find(|key| !known(key)) else {
        return Ok(());
    };
    let names: Vec<&str> = spec.fields.iter().map(|f| f.name).collect();
    let takes = if names.is_empty() {
        "it takes none".to_owned()
    } else {
        format!("its parameters are {}", names.join(", "))
    };
    let hint = if unknown == "filters" {
        " Send the filters' fields at the top level of the input."
    } else {
        ""
    };
    let unknown: String = unknown.chars().take(64).collect();
    Err(invalid(format!(
        "Unknown parameter {unknown:?} for command {command}: {takes}.{hint}"
    )))
}

/// Parses one `tool_use` input object. Every problem is an input error that
/// says what to send instead; fields a command does not take are refused
/// (see [`check_fields`]).
pub fn parse(input: &str) -> Result<Call> {
    let value: Value = serde_json::from_str(input).map_err(|e| invalid(json_problem(&e)))?;
    let Value::Object(fields) = value else {
        return Err(invalid(format!(
            "Invalid tool input: expected a JSON object with a \"command\" field, got {}.",
            type_name(&value)
        )));
    };
    let args = Args(&fields);
    let command = match fields.get("command") {
        Some(Value::String(c)) => c.as_str(),
        None | Some(Value::Null) => {
            return Err(invalid(format!(
                "Missing \"command\": use one of {}.",
                command_names()
            )));
        }
        Some(other) => {
            return Err(invalid(format!(
                "\"command\" must be a string, one of {}; got {}.",
                command_names(),
                type_name(other)
            )));
        }
    };
    check_fields(command, &fields)?;
    let precondition = precondition::parse(command, fields.get("precondition"))?;
    let text = |name: &str| args.string(command, name).map(str::to_owned);
    let command = match command {
        "view" => Command::View {
            path: text("path")?,
            view_range: args.view_range()?,
        },
        "create" => Command::Create {
            path: text("path")?,
            file_text: text("file_text")?,
        },
        "str_replace" => Command::StrReplace {
            path: text("path")?,
            old_str: text("old_str")?,
            new_str: text("new_str")?,
        },
        "insert" => Command::Insert {
            path: text("path")?,
            insert_line: args.integer(command, "insert_line")?,
            insert_text: text("insert_text")?,
        },
        "delete" => Command::Delete {
            path: text("path")?,
        },
        "rename" => Command::Rename {
            old_path: text("old_path")?,
            new_path: text("new_path")?,
        },
        "memory_read" => Command::MemoryRead {
            topics: args.strings(command, "topics")?,
            page: args.page(command)?,
        },
        "memory_view" => Command::MemoryView {
            all: args.boolean(command, "all")?,
            page: args.page(command)?,
        },
        "memory_write" => Command::MemoryWrite {
            filename: text("filename")?,
            name: text("name")?,
            description: args.optional_string(command, "description")?.to_owned(),
            kind: args.note_type(command)?,
            content: text("content")?,
        },
        "memory_update" => Command::MemoryUpdate {
            filename: text("filename")?,
            old_str: text("old_str")?,
            new_str: text("new_str")?,
        },
        "memory_delete" => Command::MemoryDelete {
            filename: text("filename")?,
        },
        "memory_search" => Command::MemorySearch {
            query: args.aliased_string(command, "query", &["q"])?,
            max_results: args.max_results(command)?,
            min_score: args.min_score(command)?,
            source: args.source(command)?,
            filters: search_filters(
                args.strings(command, "categories")?,
                args.strings(command, "tags")?,
                args.strings(command, "types")?,
                Some(args.after_date(command)?),
                args.include_superseded(command)?,
                (args.strings(command, "by")?, args.not_by(command)?),
            )?,
        },
        "memory_get" => {
            let (first, last) = args.line_window(command)?;
            Command::MemoryGet {
                path: text("path")?,
                first,
                last,
            }
        }
        "memory_stats" => Command::MemoryStats,
        "memory_guide" => Command::MemoryGuide,
        "build_context" => Command::BuildContext {
            url: args.url(command)?,
            depth: args.bounded(command, "depth", 1, MAX_DEPTH, 1)?,
            timeframe: args.timeframe(command)?,
            max_related: args.bounded_aliased(
                command,
                "max_related",
                "maxRelated",
                1,
                MAX_RELATED_LIMIT,
                MAX_RELATED_DEFAULT,
            )?,
            page: args.page(command)?,
        },
        "memory_history" => Command::MemoryHistory {
            path: text("path")?,
            version: args.whole(command, "version")?,
            page: args.page(command)?,
        },
        "memory_review" => Command::MemoryReview {
            timeframe: args.timeframe(command)?.map(|(text, _)| text),
        },
        "recent_activity" => Command::RecentActivity {
            timeframe: args
                .timeframe(command)?
                .unwrap_or_else(|| (DEFAULT_TIMEFRAME.to_owned(), Timeframe::Span(7 * 86_400))),
            kind: match args.optional_string(command, "type")? {
                "" => None,
                name => ActivityType::parse(name),
            },
            page: args.page(command)?,
        },
        "prompt" => Command::Prompt,
        // The host's commands: a tool input could forge a conversation's
        // turns or a watcher's reports with them.
        "changed" | "record_turn" => {
            return Err(invalid(format!(
                "{command} is the host's command, not a tool: the host that runs memcap \
                 calls it through its own API. Use one of {}.",
                command_names()
            )));
        }
        other => {
            return Err(invalid(format!(
                "Unknown command: {other}. Use one of {}.",
                command_names()
            )));
        }
    };
    Ok(Call {
        command,
        precondition,
    })
}

/// What is wrong with input that is not JSON, in words that say what to send.
fn json_problem(e: &serde_json::Error) -> String {
    let text = e.to_string();
    // serde_json words a lone UTF-16 surrogate as a broken escape.
    if text.contains("surrogate") || text.contains("end of hex escape") {
        return format!(
            "Invalid tool input: the \\u escape at line {} column {} is half of a UTF-16 \
             surrogate pair (\\ud800-\\udfff) without its other half, so it is not a character. \
             Send the text as UTF-8, or write a character outside the Basic Multilingual Plane \
             as a whole pair such as \\ud83d\\ude00.",
            e.line(),
            e.column()
        );
    }
    format!(
        "Invalid tool input: not valid JSON ({e}). Send one object such as \
         {{\"command\": \"view\", \"path\": \"/memories\"}}."
    )
}

/// `memory_search`'s filters from their parts, as `call` and the typed
/// function both take them: items trimmed, tags with or without `#`, empty
/// items dropped; `after_date` empty or missing is no bound.
pub fn search_filters(
    categories: Vec<String>,
    tags: Vec<String>,
    types: Vec<String>,
    after_date: Option<&str>,
    include_superseded: bool,
    (by, not_by): (Vec<String>, Vec<String>),
) -> Result<SearchFilters> {
    let clean = |items: Vec<String>, strip: &[char]| -> Vec<String> {
        items
            .iter()
            .map(|item| item.trim().trim_start_matches(strip).to_owned())
            .filter(|item| !item.is_empty())
            .collect()
    };
    Ok(SearchFilters {
        categories: clean(categories, &[]),
        tags: clean(tags, &['#']),
        types: clean(types, &[]),
        after: timeframe_param("memory_search", "after_date", after_date.unwrap_or(""))?,
        include_superseded,
        by: clean(by, &[]),
        not_by: clean(not_by, &[]),
    })
}

#[cfg(test)]
mod tools_agree;
