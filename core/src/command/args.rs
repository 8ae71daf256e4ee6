//! The fields of one tool input, each checked with the message that says
//! what to send instead: [`Args`], and the input errors every check makes.

use serde_json::{Map, Value};

use crate::error::{Result, ToolError};
use crate::vocab::timeframe::{self, Timeframe};
use crate::vocab::{MAX_RESULTS_DEFAULT, MAX_RESULTS_LIMIT, MIN_SCORE_DEFAULT, NoteType, Source};

/// The other names `call` takes for a command's fields: the spellings
/// models reach for (camelCase or snake_case, and a few synonyms).
pub(super) fn aliases(command: &str) -> &'static [&'static str] {
    match command {
        "memory_search" => &[
            "q",
            "max_results",
            "limit",
            "min_score",
            "threshold",
            "afterDate",
            "include_superseded",
            "not_by",
        ],
        "build_context" => &["uri", "maxRelated"],
        _ => &[],
    }
}

/// `text` sent as the field `name` read as a [`Timeframe`], with the words
/// sent; empty is none.
pub(super) fn timeframe_param(
    command: &str,
    name: &str,
    text: &str,
) -> Result<Option<(String, Timeframe)>> {
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

pub(super) struct Args<'a>(pub(super) &'a Map<String, Value>);

impl Args<'_> {
    pub(super) fn string(&self, command: &str, name: &str) -> Result<&str> {
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
    pub(super) fn optional_string(&self, command: &str, name: &str) -> Result<&str> {
        match self.0.get(name) {
            None | Some(Value::Null) => Ok(""),
            _ => self.string(command, name),
        }
    }

    pub(super) fn integer(&self, command: &str, name: &str) -> Result<i64> {
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
    pub(super) fn strings(&self, command: &str, name: &str) -> Result<Vec<String>> {
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
    pub(super) fn page(&self, command: &str) -> Result<Option<u32>> {
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

    /// An optional whole number from 1 named `name`.
    pub(super) fn whole(&self, command: &str, name: &str) -> Result<Option<u64>> {
        match self.0.get(name) {
            None | Some(Value::Null) => Ok(None),
            Some(value) => value.as_u64().filter(|&n| n >= 1).map(Some).ok_or_else(|| {
                invalid(format!(
                    "Parameter \"{name}\" for command {command} must be a whole number from 1, \
                     got {value}."
                ))
            }),
        }
    }

    /// An optional boolean; missing or null is false.
    pub(super) fn boolean(&self, command: &str, name: &str) -> Result<bool> {
        match self.0.get(name) {
            None | Some(Value::Null) => Ok(false),
            Some(Value::Bool(b)) => Ok(*b),
            Some(other) => Err(invalid(format!(
                "Parameter \"{name}\" for command {command} must be true or false, got {}.",
                type_name(other)
            ))),
        }
    }

    pub(super) fn note_type(&self, command: &str) -> Result<NoteType> {
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
    pub(super) fn aliased_string(
        &self,
        command: &str,
        name: &str,
        aliases: &[&str],
    ) -> Result<String> {
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
    pub(super) fn max_results(&self, command: &str) -> Result<u32> {
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
    pub(super) fn min_score(&self, command: &str) -> Result<f32> {
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
    pub(super) fn source(&self, command: &str) -> Result<Source> {
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
    pub(super) fn line_window(&self, command: &str) -> Result<(u32, Option<u32>)> {
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

    /// `includeSuperseded` (or `include_superseded`): missing is `false`.
    pub(super) fn include_superseded(&self, command: &str) -> Result<bool> {
        let (used, _) = self.first_of("includeSuperseded", &["include_superseded"]);
        self.boolean(command, used)
    }

    /// `notBy` (or `not_by`): actors whose lines a search leaves out.
    pub(super) fn not_by(&self, command: &str) -> Result<Vec<String>> {
        let (used, _) = self.first_of("notBy", &["not_by"]);
        self.strings(command, used)
    }

    /// `after_date` (or `afterDate`): missing is no bound; empty is refused.
    pub(super) fn after_date(&self, command: &str) -> Result<&str> {
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
    pub(super) fn bounded_aliased(
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
    pub(super) fn bounded(
        &self,
        command: &str,
        name: &str,
        min: u32,
        max: u32,
        default: u32,
    ) -> Result<u32> {
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
    pub(super) fn url(&self, command: &str) -> Result<String> {
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
    pub(super) fn timeframe(&self, command: &str) -> Result<Option<(String, Timeframe)>> {
        self.timeframe_named(command, "timeframe")
    }

    /// An optional field `name` read as a [`Timeframe`], with the words sent.
    pub(super) fn timeframe_named(
        &self,
        command: &str,
        name: &str,
    ) -> Result<Option<(String, Timeframe)>> {
        timeframe_param(command, name, self.optional_string(command, name)?)
    }

    /// `view_range` is used only when it holds exactly two items, as in the SDK;
    /// null, `[]`, `[n]` and longer lists show the whole file.
    pub(super) fn view_range(&self) -> Result<Option<(i64, i64)>> {
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
