//! One tool input, parsed and checked before anything is touched: which
//! command, with every field it needs. Pure: no WASI, so it is fuzzed
//! natively (`fuzz/`).
//!
//! Long because every field's check and its message are here, where the
//! fuzzer reaches them; `tools.rs` keeps the list they are checked against.

use serde_json::{Map, Value};

use crate::error::{Result, ToolError};
use crate::tools;
use crate::vocab::timeframe::{self, Timeframe};
use crate::vocab::{
    ActivityType, MAX_DEPTH, MAX_RELATED_DEFAULT, MAX_RELATED_LIMIT, MAX_RESULTS_DEFAULT,
    MAX_RESULTS_LIMIT, MIN_SCORE_DEFAULT, NoteType, Precondition, Role, SearchFilters, Source,
};

mod precondition;

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

/// Every command's name, as error messages list them (from [`tools::COMMANDS`]).
fn command_names() -> String {
    let names: Vec<&str> = tools::COMMANDS.iter().map(|c| c.name).collect();
    names.join(", ")
}

/// The other names `call` takes for a command's fields: the spellings
/// models reach for (camelCase or snake_case, and a few synonyms).
fn aliases(command: &str) -> &'static [&'static str] {
    match command {
        "memory_search" => &[
            "q",
            "max_results",
            "limit",
            "min_score",
            "threshold",
            "afterDate",
        ],
        "build_context" => &["uri", "maxRelated"],
        _ => &[],
    }
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
    })
}

/// `text` sent as the field `name` read as a [`Timeframe`], with the words
/// sent; empty is none.
fn timeframe_param(command: &str, name: &str, text: &str) -> Result<Option<(String, Timeframe)>> {
    match text.trim() {
        "" => Ok(None),
        trimmed => Timeframe::parse(trimmed)
            .map(|t| Some((trimmed.to_owned(), t)))
            .ok_or_else(|| {
                invalid(format!(
                    "Parameter \"{name}\" for command {command} must be {}; got {text:?}.",
                    timeframe::ACCEPTED
                ))
            }),
    }
}

/// An input error; what it says back of the input is cut.
pub(crate) fn invalid(message: String) -> ToolError {
    ToolError::InvalidInput {
        problem: crate::text::cut_echo(message),
    }
}

pub(crate) fn type_name(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// Integers as JSON numbers; values past the `s64` range are clamped, which
/// gives the same outcome as Python's unbounded integers for every command.
fn as_integer(value: &Value) -> Option<i64> {
    let n = value.as_number()?;
    n.as_i64().or_else(|| n.as_u64().map(|_| i64::MAX))
}

struct Args<'a>(&'a Map<String, Value>);

impl Args<'_> {
    fn string(&self, command: &str, name: &str) -> Result<&str> {
        match self.0.get(name) {
            Some(Value::String(s)) => Ok(s),
            None | Some(Value::Null) => Err(invalid(format!(
                "Missing required parameter \"{name}\" for command {command}: send it as a string."
            ))),
            Some(other) => Err(invalid(format!(
                "Parameter \"{name}\" for command {command} must be a string, got {}.",
                type_name(other)
            ))),
        }
    }

    /// A string that may be left out (or null): then it is empty.
    fn optional_string(&self, command: &str, name: &str) -> Result<&str> {
        match self.0.get(name) {
            None | Some(Value::Null) => Ok(""),
            _ => self.string(command, name),
        }
    }

    fn integer(&self, command: &str, name: &str) -> Result<i64> {
        match self.0.get(name) {
            Some(value) if value.is_number() => as_integer(value).ok_or_else(|| {
                invalid(format!(
                    "Parameter \"{name}\" for command {command} must be a whole number, got {value}."
                ))
            }),
            None | Some(Value::Null) => Err(invalid(format!(
                "Missing required parameter \"{name}\" for command {command}: send it as an integer."
            ))),
            Some(other) => Err(invalid(format!(
                "Parameter \"{name}\" for command {command} must be an integer, got {}.",
                type_name(other)
            ))),
        }
    }

    /// An optional list of strings; missing or null is an empty list.
    fn strings(&self, command: &str, name: &str) -> Result<Vec<String>> {
        let bad = |got: &str| {
            invalid(format!(
                "Parameter \"{name}\" for command {command} must be a list of strings, \
                 for example [\"coffee preference\"]; got {got}."
            ))
        };
        match self.0.get(name) {
            None | Some(Value::Null) => Ok(Vec::new()),
            Some(Value::Array(items)) => items
                .iter()
                .map(|item| match item {
                    Value::String(s) => Ok(s.clone()),
                    other => Err(bad(&format!("an item that is {}", type_name(other)))),
                })
                .collect(),
            // One topic sent as a plain string is taken as a list of one.
            Some(Value::String(s)) => Ok(vec![s.clone()]),
            Some(other) => Err(bad(type_name(other))),
        }
    }

    /// The optional `page`, a whole number from 1; missing or null is page 1.
    fn page(&self, command: &str) -> Result<Option<u32>> {
        match self.0.get("page") {
            None | Some(Value::Null) => Ok(None),
            Some(value) => value
                .as_u64()
                .filter(|&n| n >= 1)
                .map(|n| Some(u32::try_from(n).unwrap_or(u32::MAX)))
                .ok_or_else(|| {
                    invalid(format!(
                        "Parameter \"page\" for command {command} must be a whole number from 1, \
                         got {value}."
                    ))
                }),
        }
    }

    /// An optional boolean; missing or null is false.
    fn boolean(&self, command: &str, name: &str) -> Result<bool> {
        match self.0.get(name) {
            None | Some(Value::Null) => Ok(false),
            Some(Value::Bool(b)) => Ok(*b),
            Some(other) => Err(invalid(format!(
                "Parameter \"{name}\" for command {command} must be true or false, got {}.",
                type_name(other)
            ))),
        }
    }

    fn note_type(&self, command: &str) -> Result<NoteType> {
        let name = self.string(command, "type")?;
        NoteType::parse(name).ok_or_else(|| {
            invalid(format!(
                "Invalid note type {name:?}: use one of {}.",
                NoteType::writable_list()
            ))
        })
    }

    /// The first of `name` and its `aliases` that is present (not null).
    fn first_of<'a>(&'a self, name: &'a str, aliases: &[&'a str]) -> (&'a str, Option<&'a Value>) {
        std::iter::once(name)
            .chain(aliases.iter().copied())
            .find_map(|n| self.0.get(n).filter(|v| !v.is_null()).map(|v| (n, Some(v))))
            .unwrap_or((name, None))
    }

    /// A required string sent under its name or one of the names models
    /// reach for (`q` for `query`).
    fn aliased_string(&self, command: &str, name: &str, aliases: &[&str]) -> Result<String> {
        match self.first_of(name, aliases) {
            (_, Some(Value::String(s))) if !s.trim().is_empty() => Ok(s.clone()),
            (_, Some(Value::String(_))) => Err(invalid(format!(
                "Parameter \"{name}\" for command {command} is empty: send what to look for, \
                 in words, for example \"which database we chose\"."
            ))),
            (_, None) => Err(invalid(format!(
                "Missing required parameter \"{name}\" for command {command}: send it as a string."
            ))),
            (used, Some(other)) => Err(invalid(format!(
                "Parameter \"{used}\" for command {command} must be a string, got {}.",
                type_name(other)
            ))),
        }
    }

    /// `maxResults` (or `max_results`, `limit`): a whole number from 1 to
    /// [`MAX_RESULTS_LIMIT`]; missing is [`MAX_RESULTS_DEFAULT`].
    fn max_results(&self, command: &str) -> Result<u32> {
        match self.first_of("maxResults", &["max_results", "limit"]) {
            (_, None) => Ok(MAX_RESULTS_DEFAULT),
            (used, Some(value)) => value
                .as_u64()
                .filter(|n| (1..=u64::from(MAX_RESULTS_LIMIT)).contains(n))
                .map(|n| n as u32)
                .ok_or_else(|| {
                    invalid(format!(
                        "Parameter \"{used}\" for command {command} must be a whole number from 1 \
                         to {MAX_RESULTS_LIMIT}, got {value}."
                    ))
                }),
        }
    }

    /// `minScore` (or `min_score`, `threshold`): a number from 0 to 1;
    /// missing is [`MIN_SCORE_DEFAULT`].
    fn min_score(&self, command: &str) -> Result<f32> {
        match self.first_of("minScore", &["min_score", "threshold"]) {
            (_, None) => Ok(MIN_SCORE_DEFAULT),
            (used, Some(value)) => value
                .as_f64()
                .filter(|n| (0.0..=1.0).contains(n))
                .map(|n| n as f32)
                .ok_or_else(|| {
                    invalid(format!(
                        "Parameter \"{used}\" for command {command} must be a number from 0.0 \
                         to 1.0 (the least score a result needs), got {value}."
                    ))
                }),
        }
    }

    /// `source`: `all` (missing), `memory`, `chat` or `custom`.
    fn source(&self, command: &str) -> Result<Source> {
        match self.0.get("source") {
            None | Some(Value::Null) => Ok(Source::All),
            Some(Value::String(s)) => Source::parse(s).ok_or_else(|| {
                invalid(format!(
                    "Invalid source {s:?} for command {command}: use one of all, memory, chat, custom."
                ))
            }),
            Some(other) => Err(invalid(format!(
                "Parameter \"source\" for command {command} must be one of all, memory, chat, \
                 custom, got {}.",
                type_name(other)
            ))),
        }
    }

    /// `memory_get`'s window: `lines` as search gives it (`"42-56"`), or a
    /// count of lines (a number, or digits in a string) from `from` (a line,
    /// default 1); neither is the top of the file.
    fn line_window(&self, command: &str) -> Result<(u32, Option<u32>)> {
        let bad = |name: &str, value: &Value| {
            invalid(format!(
                "Parameter \"{name}\" for command {command} must be a line range such as \
                 \"42-56\" (as memory_search gives it) or a count of lines from 1 (read from \
                 \"from\", default line 1); got {value}."
            ))
        };
        let from = match self.0.get("from") {
            None | Some(Value::Null) => None,
            Some(value) => Some(
                value
                    .as_u64()
                    .filter(|&n| n >= 1)
                    .and_then(|n| u32::try_from(n).ok())
                    .ok_or_else(|| {
                        invalid(format!(
                            "Parameter \"from\" for command {command} must be a line number from \
                         1 to {}, got {value}.",
                            u32::MAX
                        ))
                    })?,
            ),
        };
        let first = from.unwrap_or(1);
        let count = |value: &Value| match value {
            Value::String(s) => s.trim().parse::<u64>().ok(),
            other => other.as_u64(),
        };
        match self.0.get("lines") {
            None | Some(Value::Null) => Ok((first, None)),
            Some(value @ Value::String(range)) if range.contains('-') => {
                let (a, b) = range.split_once('-').expect("has a dash");
                match (a.trim().parse::<u32>(), b.trim().parse::<u32>()) {
                    (Ok(a), Ok(b)) if a >= 1 && b >= a && from.is_none() => Ok((a, Some(b))),
                    _ => Err(bad("lines", value)),
                }
            }
            Some(value) => match count(value).filter(|&n| n >= 1) {
                Some(n) => Ok((first, Some(first.saturating_add(clamp_u32(n) - 1)))),
                None => Err(bad("lines", value)),
            },
        }
    }

    /// `after_date` (or `afterDate`): missing is no bound; empty is refused.
    fn after_date(&self, command: &str) -> Result<&str> {
        match self.first_of("after_date", &["afterDate"]) {
            (_, None) => Ok(""),
            (used, Some(Value::String(s))) if s.trim().is_empty() => Err(invalid(format!(
                "Parameter \"{used}\" for command {command} is empty: send a date such as \
                 2026-11-01 or a span such as 7d, or leave it out."
            ))),
            (used, Some(_)) => self.string(command, used),
        }
    }

    /// [`Args::bounded`] under either of two names.
    fn bounded_aliased(
        &self,
        command: &str,
        name: &str,
        alias: &str,
        min: u32,
        max: u32,
        default: u32,
    ) -> Result<u32> {
        match self.first_of(name, &[alias]) {
            (used, Some(_)) => self.bounded(command, used, min, max, default),
            (_, None) => Ok(default),
        }
    }

    /// An optional whole number from `min` to `max`; missing or null is
    /// `default`.
    fn bounded(&self, command: &str, name: &str, min: u32, max: u32, default: u32) -> Result<u32> {
        match self.0.get(name) {
            None | Some(Value::Null) => Ok(default),
            Some(value) => value
                .as_u64()
                .filter(|n| (u64::from(min)..=u64::from(max)).contains(n))
                .map(|n| n as u32)
                .ok_or_else(|| {
                    invalid(format!(
                        "Parameter \"{name}\" for command {command} must be a whole number from \
                         {min} to {max}, got {value}."
                    ))
                }),
        }
    }

    /// `build_context`'s `url` (or `uri`): not empty.
    fn url(&self, command: &str) -> Result<String> {
        let (name, value) = self.first_of("url", &["uri"]);
        match value {
            Some(Value::String(url)) if !url.trim().is_empty() => Ok(url.clone()),
            Some(Value::String(_)) | None => Err(invalid(format!(
                "Parameter \"{name}\" for command {command} is missing or empty: send a \
                 memory:// URL such as memory://projects/alpha (a note's permalink, title or \
                 path), or memory://projects/* for every note under projects/."
            ))),
            Some(other) => Err(invalid(format!(
                "Parameter \"{name}\" for command {command} must be a string, got {}.",
                type_name(other)
            ))),
        }
    }

    /// The optional `timeframe` ([`Timeframe`]), with the words sent.
    fn timeframe(&self, command: &str) -> Result<Option<(String, Timeframe)>> {
        self.timeframe_named(command, "timeframe")
    }

    /// An optional field `name` read as a [`Timeframe`], with the words sent.
    fn timeframe_named(&self, command: &str, name: &str) -> Result<Option<(String, Timeframe)>> {
        timeframe_param(command, name, self.optional_string(command, name)?)
    }

    /// `view_range` is used only when it holds exactly two items, as in the SDK;
    /// null, `[]`, `[n]` and longer lists show the whole file.
    fn view_range(&self) -> Result<Option<(i64, i64)>> {
        let bad = || {
            invalid(
                "Parameter \"view_range\" for command view must be two integers [start, end], \
                 for example [1, 20] or [10, -1]."
                    .to_owned(),
            )
        };
        match self.0.get("view_range") {
            None | Some(Value::Null) => Ok(None),
            Some(Value::Array(items)) if items.len() == 2 => {
                let start = as_integer(&items[0]).ok_or_else(bad)?;
                let end = as_integer(&items[1]).ok_or_else(bad)?;
                Ok(Some((start, end)))
            }
            Some(Value::Array(_)) => Ok(None),
            Some(_) => Err(bad()),
        }
    }
}

fn clamp_u32(n: u64) -> u32 {
    u32::try_from(n).unwrap_or(u32::MAX)
}

#[cfg(test)]
mod tools_agree;
