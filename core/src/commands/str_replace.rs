//! `str_replace`: replace the single occurrence of a string in a file.

use crate::error::{Result, ToolError};
use crate::files;
use crate::io::Io;
use crate::notes::maintain;
use crate::output::{IndexUpkeep, Output};
use crate::vocab::Precondition;
use crate::vpath::MemPath;

/// Occurrences listed in a "multiple matches" error before the list is cut
/// short (the SDK lists every one, which is quadratic for an empty `old_str`).
const MAX_LISTED_MATCHES: usize = 1000;

pub fn str_replace(
    io: &Io,
    shown: &str,
    old_str: &str,
    new_str: &str,
    pre: Option<&Precondition>,
) -> Result<Output> {
    let path = MemPath::parse(shown)?;
    super::refuse_chat(&path, shown)?;
    super::require_file(io, &path, shown)?;
    let file = files::read_for_edit(io, &path, shown)?;
    super::precondition::check_content(io, pre, shown, file.text.as_bytes())?;
    let (updated, line) = replace_once(&file.text, shown, old_str, new_str)?;
    files::rewrite(io, &path, shown, &file, &updated)?;
    Ok(edited(
        io,
        shown,
        &updated,
        line,
        maintain::after_change(io, &[&path]),
    ))
}

/// `content` with its only occurrence of `old_str` replaced, and the line
/// (from 0) where it was; the SDK's errors when there is none or several.
pub fn replace_once(
    content: &str,
    shown: &str,
    old_str: &str,
    new_str: &str,
) -> Result<(String, usize)> {
    let mut matches = content.match_indices(old_str);
    let Some((pos, _)) = matches.next() else {
        return Err(ToolError::NoMatch {
            old_str: old_str.into(),
            path: shown.into(),
        });
    };
    if matches.next().is_some() {
        return Err(ToolError::MultipleMatches {
            old_str: old_str.into(),
            lines: occurrences(content, old_str),
        });
    }
    let mut updated = String::with_capacity(content.len() - old_str.len() + new_str.len());
    updated.push_str(&content[..pos]);
    updated.push_str(new_str);
    updated.push_str(&content[pos + old_str.len()..]);
    let line = content[..pos].matches('\n').count();
    Ok((updated, line))
}

/// The SDK's answer to an edit: the lines around `line` (from 0).
pub fn edited(io: &Io, shown: &str, updated: &str, line: usize, index: IndexUpkeep) -> Output {
    let lines: Vec<&str> = updated.split('\n').collect();
    let first = line.saturating_sub(2);
    let last = (line + 3).min(lines.len());
    Output::Edited {
        path: shown.into(),
        first_line: first + 1,
        snippet: lines[first..last].iter().map(|l| (*l).to_owned()).collect(),
        sha256: io.sha256_hex(updated.as_bytes()),
        index,
    }
}

/// The line of every occurrence, overlapping ones included (the SDK restarts
/// its search one character after each match), "…" after the last listed.
fn occurrences(content: &str, needle: &str) -> Vec<String> {
    let mut lines = Vec::new();
    let mut line = 1;
    let mut counted_to = 0;
    let mut from = 0;
    while let Some(found) = content[from..].find(needle) {
        let pos = from + found;
        line += content[counted_to..pos].matches('\n').count();
        counted_to = pos;
        lines.push(line.to_string());
        if lines.len() == MAX_LISTED_MATCHES {
            lines.push("…".to_owned());
            break;
        }
        match content[pos..].chars().next() {
            Some(c) => from = pos + c.len_utf8(),
            None => break,
        }
    }
    lines
}

#[cfg(test)]
mod tests {
    /// The lines as the message lists them.
    fn occurrence_lines(content: &str, needle: &str) -> String {
        super::occurrences(content, needle).join(", ")
    }

    #[test]
    fn overlapping_and_empty_needles() {
        assert_eq!(occurrence_lines("aa bb aa", "aa"), "1, 1");
        assert_eq!(occurrence_lines("aaaa", "aa"), "1, 1, 1");
        assert_eq!(occurrence_lines("x\ny\nx\ny\n", "x\ny"), "1, 3");
        let many = occurrence_lines(&"x\n".repeat(2000), "x");
        assert_eq!(many.split(", ").count(), 1001);
        assert!(many.ends_with("999, 1000, …"), "{many}");
        assert_eq!(
            occurrence_lines("Line 1\nSecond\nLine 3\n", ""),
            "1, 1, 1, 1, 1, 1, 1, 2, 2, 2, 2, 2, 2, 2, 3, 3, 3, 3, 3, 3, 3, 4"
        );
    }
}
