//! `memcap history`: who changed what and when, a version's bytes, a diff,
//! and the undo and forget commands, over the component's `versions`.

use std::io::Write;

use anyhow::Context;
use clap::Subcommand;
use memcap::{BlameAnswer, HistoryVersion, Memory, ToolError, UndoReport};
use serde_json::json;

#[derive(Subcommand, Debug)]
pub enum HistoryAction {
    /// List versions, newest first: of PATH (a file, or everything under a
    /// directory; default /memories, the whole store), deleted files included.
    List {
        path: Option<String>,
        /// Only versions made at or after TIME (30m, 2h, 7d, a date, or an
        /// RFC 3339 time).
        #[arg(long, value_name = "TIME")]
        since: Option<String>,
        /// Only versions made by NAME (an actor's name or id).
        #[arg(long, value_name = "NAME")]
        by: Option<String>,
        /// One JSON object a version: version, path, op, time, actor,
        /// actor_id, sha256, size, from, redacted.
        #[arg(long)]
        json: bool,
    },
    /// Print the exact bytes version VERSION of PATH held.
    Show { path: String, version: u64 },
    /// A unified diff of PATH: FROM against TO (default: the version
    /// before the newest against the file as it is now).
    Diff {
        path: String,
        from: Option<u64>,
        to: Option<u64>,
    },
    /// Each line of PATH as it is now, with the version, actor and time
    /// that last changed it (`~` before a version: the line may be older,
    /// its history has a gap; `-`: another program's change, not recorded
    /// yet).
    Blame {
        path: String,
        /// One JSON object a line: line, text, version, actor, actor_id,
        /// time, exact.
        #[arg(long)]
        json: bool,
    },
    /// Make PATH what version VERSION held (a deleted file comes back); for
    /// a directory, every file under it as it was then. A new version.
    Restore { path: String, version: u64 },
    /// Undo every change made at or after TIME (only NAME's with --by),
    /// leaving files someone else changed later, and say which.
    Revert {
        #[arg(long, value_name = "TIME")]
        since: String,
        #[arg(long, value_name = "NAME")]
        by: Option<String>,
    },
    /// Erase for good the content of version VERSION of PATH, or of all its
    /// versions with --all; the records stay, marked redacted.
    Redact {
        path: String,
        version: Option<u64>,
        #[arg(long, conflicts_with = "version")]
        all: bool,
    },
}

/// Runs one `memcap history` command; the text to print.
pub fn run(memory: &Memory, action: HistoryAction) -> anyhow::Result<String> {
    Ok(match action {
        HistoryAction::List {
            path,
            since,
            by,
            json,
        } => {
            let path = path.unwrap_or_else(|| "/memories".to_owned());
            let versions = memory
                .history_list(&path, since.as_deref(), by.as_deref())
                .map_err(fail)?;
            if versions.len() == memcap_core::history::query::MAX_LISTED {
                eprintln!(
                    "memcap: a list stops at the newest {} versions; narrow it by PATH or \
                     --since to see older ones, if there are any",
                    versions.len()
                );
            }
            if json {
                versions
                    .iter()
                    .map(|v| version_json(v).to_string() + "\n")
                    .collect()
            } else if versions.is_empty() {
                format!("No versions of {path} recorded.\n")
            } else {
                versions.iter().map(|v| version_line(v) + "\n").collect()
            }
        }
        HistoryAction::Show { path, version } => {
            let bytes = memory.history_show(&path, version).map_err(fail)?;
            std::io::stdout()
                .write_all(&bytes)
                .context("could not write to stdout")?;
            String::new()
        }
        HistoryAction::Diff { path, from, to } => diff(memory, &path, from, to)?,
        HistoryAction::Blame { path, json } => {
            blame(&memory.history_blame(&path).map_err(fail)?, json)
        }
        HistoryAction::Restore { path, version } => {
            undo_report(&memory.history_restore(&path, version, None).map_err(fail)?)
        }
        HistoryAction::Revert { since, by } => undo_report(
            &memory
                .history_revert(&since, by.as_deref(), None)
                .map_err(fail)?,
        ),
        HistoryAction::Redact { path, version, all } => {
            if version.is_none() && !all {
                anyhow::bail!(
                    "say which version of {path} to redact (see `memcap history list {path}`), \
                     or --all for every one"
                );
            }
            let report = memory.history_redact(&path, version, None).map_err(fail)?;
            let mut out = match report.versions.len() {
                0 => "Nothing was redacted.\n".to_owned(),
                n => format!(
                    "Redacted {n} version(s) ({}): {} content(s) erased; the search index and \
                     catalog are rebuilt from the files on the next call.\n",
                    numbers(&report.versions),
                    report.contents
                ),
            };
            if report.names > 0 {
                out.push_str(&format!(
                    "Erased {} file name(s): their versions show (redacted) in its place.\n",
                    report.names
                ));
            }
            if !report.current.is_empty() {
                out.push_str(&format!(
                    "Left version(s) {}: their content is what a file holds now (change or \
                     delete the file, then redact again).\n",
                    numbers(&report.current)
                ));
            }
            out
        }
    })
}

fn fail(e: ToolError) -> anyhow::Error {
    anyhow::anyhow!("{}", e.message)
}

fn numbers(list: &[u64]) -> String {
    list.iter()
        .map(u64::to_string)
        .collect::<Vec<_>>()
        .join(", ")
}

fn version_json(v: &HistoryVersion) -> serde_json::Value {
    json!({
        "version": v.number,
        "path": v.path,
        "op": v.change.as_str(),
        "time": v.time,
        "actor": v.actor,
        "actor_id": v.actor_id,
        "sha256": v.sha256,
        "size": v.size,
        "from": v.from,
        "redacted": v.redacted.as_ref().map(|(by, at)| json!({"by": by, "at": at})),
    })
}

fn version_line(v: &HistoryVersion) -> String {
    let what = match &v.from {
        Some(from) => format!("renamed {from} -> {}", v.path),
        None => format!("{} {}", v.change.as_str(), v.path),
    };
    let by = v.who();
    let mut line = format!(
        "{:>6}  {}  {what}  by {by}  {} bytes",
        v.number, v.time, v.size
    );
    if let Some((who, at)) = &v.redacted {
        line.push_str(&format!("  [redacted by {who} at {at}]"));
    }
    line
}

/// A blame as lines (`VERSION ACTOR TIME | TEXT`, the columns aligned)
/// or, with `json`, one object a line.
fn blame(answer: &BlameAnswer, json: bool) -> String {
    let owner = |i: u32| answer.owners.get(i as usize);
    if json {
        return answer
            .lines
            .iter()
            .enumerate()
            .map(|(i, l)| {
                let o = owner(l.owner);
                json!({
                    "line": i + 1,
                    "text": l.text,
                    "version": o.and_then(|o| o.version),
                    "actor": o.map(|o| &o.actor),
                    "actor_id": o.and_then(|o| o.actor_id.as_ref()),
                    "time": o.and_then(|o| o.time.as_ref()),
                    "exact": o.is_some_and(|o| o.exact),
                })
                .to_string()
                    + "\n"
            })
            .collect();
    }
    let columns: Vec<(String, String, String)> = answer
        .owners
        .iter()
        .map(|o| {
            (
                o.version_label(),
                o.who(),
                o.time.clone().unwrap_or_default(),
            )
        })
        .collect();
    let width =
        |f: fn(&(String, String, String)) -> usize| columns.iter().map(f).max().unwrap_or(0);
    let (wv, wa, wt) = (
        width(|c| c.0.chars().count()),
        width(|c| c.1.chars().count()),
        width(|c| c.2.chars().count()),
    );
    let wn = answer.lines.len().to_string().len();
    let mut out = String::new();
    for (i, l) in answer.lines.iter().enumerate() {
        let empty = (String::new(), String::new(), String::new());
        let (v, a, t) = columns.get(l.owner as usize).unwrap_or(&empty);
        out.push_str(&format!(
            "{v:>wv$}  {a:<wa$}  {t:<wt$}  {n:>wn$}| {}\n",
            printable(&l.text),
            n = i + 1
        ));
    }
    out
}

/// A note's line for a terminal: control characters (escape sequences a
/// note could use to rewrite what the screen shows) as `\u{..}`.
fn printable(line: &str) -> String {
    line.chars()
        .map(|c| match c {
            '\t' => "\t".to_owned(),
            c if c.is_control() => c.escape_unicode().to_string(),
            c => c.to_string(),
        })
        .collect()
}

fn undo_report(report: &UndoReport) -> String {
    let mut out = String::new();
    for path in &report.restored {
        out.push_str(&format!("restored  {path}\n"));
    }
    for path in &report.removed {
        out.push_str(&format!("removed   {path}\n"));
    }
    for path in &report.unchanged {
        out.push_str(&format!("unchanged {path}\n"));
    }
    for left in &report.left {
        out.push_str(&format!("left      {}: {}\n", left.path, left.why));
    }
    if out.is_empty() {
        out.push_str("Nothing to undo.\n");
    }
    out
}

/// `diff`: FROM and TO default to the version before the newest and the
/// file as it is now.
fn diff(memory: &Memory, path: &str, from: Option<u64>, to: Option<u64>) -> anyhow::Result<String> {
    let versions = memory.history_list(path, None, None).map_err(fail)?;
    let of_file: Vec<&HistoryVersion> = versions.iter().filter(|v| v.path == path).collect();
    let from = match from {
        Some(n) => n,
        None => of_file
            .iter()
            .find(|v| v.sha256.is_some() && Some(v.number) != of_file.first().map(|n| n.number))
            .map(|v| v.number)
            .with_context(|| format!("{path} has no earlier version to compare with"))?,
    };
    let old = memory.history_show(path, from).map_err(fail)?;
    let (new, to_name) = match to {
        Some(n) => (
            memory.history_show(path, n).map_err(fail)?,
            format!("version {n}"),
        ),
        None => (
            memory
                .host_read(path.trim_start_matches("/memories/"))
                .map_err(|e| anyhow::anyhow!("{e}"))?
                .unwrap_or_default(),
            "now".to_owned(),
        ),
    };
    let old = String::from_utf8_lossy(&old);
    let new = String::from_utf8_lossy(&new);
    Ok(similar::TextDiff::from_lines(old.as_ref(), new.as_ref())
        .unified_diff()
        .header(
            &format!("{path} (version {from})"),
            &format!("{path} ({to_name})"),
        )
        .to_string())
}
