//! `memory_get`: lines of one file as it holds them now, the way to read on
//! from a search result. Paths and errors are `view`'s; the answer is capped
//! and says how to read the rest.

use crate::error::{FsError, Result, ToolError};
use crate::files;
use crate::history::changed::{Blamer, shown_changed};
use crate::io::Io;
use crate::notes::{index_file, maintain};
use crate::output::{GetAnswer, Output};
use crate::storage::Kind;
use crate::vpath::MemPath;

/// The most characters one answer holds (OpenClaw's figure): whole lines up
/// to it, and a line saying where to go on.
pub const MAX_GET_CHARS: usize = 12_000;

pub fn memory_get(io: &Io, shown: &str, first: u32, last: Option<u32>) -> Result<Output> {
    let path = MemPath::parse(shown)?;
    if index_file::is_index(&path) {
        // As `view`: the index is brought up to date before it is shown.
        maintain::fresh(io, |_, _| Ok(()))?;
    }
    let st = match files::stat(io, &path) {
        Ok(st) => st,
        Err(FsError::NotFound | FsError::NotADirectory) => return Err(ToolError::missing(shown)),
        Err(e) => return Err(files::tool_error(e, shown, "read")),
    };
    if st.kind != Kind::File {
        return Err(ToolError::NotAFile { path: shown.into() });
    }
    let text = files::read_text(io, &path, shown)?;
    let lines: Vec<&str> = text.split('\n').collect();
    let total = lines.len();
    let start = first as usize;
    if start > total {
        return Err(ToolError::LinesPastEnd {
            path: shown.into(),
            first,
            count: total,
        });
    }
    let asked_end = last.map_or(total, |l| (l as usize).min(total));
    let mut out = String::new();
    let mut chars = 0;
    let mut end = start - 1;
    for line in &lines[start - 1..asked_end] {
        let needed = line.chars().count() + usize::from(end >= start);
        if chars + needed > MAX_GET_CHARS {
            break;
        }
        if end >= start {
            out.push('\n');
        }
        out.push_str(line);
        chars += needed;
        end += 1;
    }
    let mut more = None;
    if end < start {
        // One line longer than the cap: its start, cut at a character.
        out = lines[start - 1].chars().take(MAX_GET_CHARS).collect();
        end = start;
        more = Some(format!(
            "Line {start} is longer than {MAX_GET_CHARS} characters and was cut; view the file \
             to read it whole."
        ));
    }
    if end < asked_end {
        more = Some(format!(
            "{}Lines {}-{asked_end} were left out to keep this answer under {MAX_GET_CHARS} \
             characters: call memory_get with path {shown:?} and lines \"{}-{asked_end}\" to \
             read on.",
            more.map(|m| m + " ").unwrap_or_default(),
            end + 1,
            end + 1
        ));
    }
    // MEMORY.md's index is rendered, not written by anyone: no authors.
    let changed = match index_file::is_index(&path) {
        true => None,
        false => Blamer::default()
            .authors(io, shown, &text)
            .and_then(|a| a.lines(first, end as u32)),
    };
    let (changed_by, changed_at) = shown_changed(changed);
    Ok(Output::Get(GetAnswer {
        path: shown.to_owned(),
        lines: format!("{start}-{end}"),
        text: out,
        total_lines: total,
        more,
        changed_by,
        changed_at,
    }))
}
