//! What a note's frontmatter says of the note's own validity: the notes it
//! supersedes (`supersedes:`, one name or a list, `[[brackets]]` or not)
//! and when it stops holding (`valid_until:`, a date or an RFC 3339 time).
//! The block is parsed only when it names either key.

use super::fields::{self, Value};
use super::frontmatter::{self, MAX_NAME_CHARS};
use crate::text::one_line;

/// The relation type that says a note replaces another, in a body's list
/// (`- supersedes [[Old Note]]`) or as a frontmatter key.
pub const SUPERSEDES: &str = "supersedes";

pub use super::frontmatter::VALID_UNTIL;

/// The most notes one note's frontmatter says it supersedes (the first ones).
pub const MAX_SUPERSEDED: usize = 32;

/// Whether a fact whose `valid_until` is written so (none: it has none) is
/// past at `now` (seconds); one that is no date or time is not.
pub fn past(valid_until: Option<&str>, now: u64) -> bool {
    ends(valid_until).is_some_and(|end| now >= end)
}

/// When a fact whose `valid_until` is written so stops holding (seconds).
pub fn ends(valid_until: Option<&str>) -> Option<u64> {
    valid_until.and_then(crate::vocab::timeframe::until)
}

/// What the frontmatter says; empty when it says neither.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Validity {
    /// The notes it supersedes, as written (without brackets).
    pub supersedes: Vec<String>,
    /// The file's 1-based line of the `supersedes` key.
    pub line: u32,
    /// `valid_until` as written.
    pub valid_until: Option<String>,
}

/// Reads the validity keys of `text`'s frontmatter. Never fails: a block
/// that does not parse says nothing here (the catalog names its problem).
pub fn read(text: &str) -> Validity {
    let mut validity = Validity::default();
    let Some(yaml) = frontmatter::yaml(text) else {
        return validity;
    };
    if !yaml.contains(SUPERSEDES) && !yaml.contains(VALID_UNTIL) {
        return validity;
    }
    let Ok(fields) = fields::parse(yaml) else {
        return validity;
    };
    for (key, value) in &fields {
        match (key.as_str(), value) {
            (VALID_UNTIL, Value::Text(Some(until))) => {
                validity.valid_until = Some(one_line(until, 100)).filter(|u| !u.is_empty());
            }
            (SUPERSEDES, value) => {
                let (line, raw) = key_lines(yaml);
                let written: Vec<&str> = match value {
                    Value::Text(Some(name)) => vec![name],
                    Value::List(names) => names.iter().map(String::as_str).collect(),
                    _ => Vec::new(),
                };
                // Unquoted, `[[Old Note]]` is a YAML list in a list, which
                // the fields leave out: its names are read from the lines.
                let written = match written.is_empty() {
                    true => wikilinks(raw),
                    false => written,
                };
                validity.supersedes = written
                    .into_iter()
                    .map(|name| one_line(bare(name), MAX_NAME_CHARS))
                    .filter(|name| !name.is_empty())
                    .take(MAX_SUPERSEDED)
                    .collect();
                if !validity.supersedes.is_empty() {
                    validity.line = line;
                }
            }
            _ => {}
        }
    }
    validity
}

/// A name without the `[[ ]]` around it.
fn bare(name: &str) -> &str {
    let name = name.trim();
    name.strip_prefix("[[")
        .and_then(|n| n.strip_suffix("]]"))
        .unwrap_or(name)
        .trim()
}

/// The file's line of the `supersedes` key in `yaml`, and the text of that
/// line with the indented or list lines after it.
fn key_lines(yaml: &str) -> (u32, &str) {
    let mut offset = 0;
    for (at, line) in yaml.split_inclusive('\n').enumerate() {
        if line
            .strip_prefix(SUPERSEDES)
            .is_some_and(|rest| rest.trim_start().starts_with(':'))
        {
            let rest = &yaml[offset..];
            let end = rest
                .split_inclusive('\n')
                .skip(1)
                .take_while(|l| l.starts_with([' ', '\t', '-']))
                .map(str::len)
                .sum::<usize>()
                + line.len();
            // The opening fence is line 1.
            return (at as u32 + 2, &rest[..end]);
        }
        offset += line.len();
    }
    (0, "")
}

/// The names written as `[[Name]]` in `text`.
fn wikilinks(text: &str) -> Vec<&str> {
    let mut names = Vec::new();
    let mut rest = text;
    while let Some(start) = rest.find("[[") {
        let Some(len) = rest[start + 2..].find("]]") else {
            break;
        };
        names.push(&rest[start + 2..start + 2 + len]);
        rest = &rest[start + 2 + len + 2..];
    }
    names
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn supersedes_is_read_as_one_name_a_list_or_bare_wikilinks() {
        let one = read("---\nname: New\nsupersedes: \"[[Old Note]]\"\n---\nbody\n");
        assert_eq!(one.supersedes, ["Old Note"]);
        assert_eq!(one.line, 3);
        let list = read("---\nsupersedes:\n  - Old A\n  - \"[[Old B]]\"\ntype: project\n---\n");
        assert_eq!(
            (list.supersedes, list.line),
            (vec!["Old A".into(), "Old B".into()], 2)
        );
        let unquoted = read("---\nname: N\nsupersedes: [[Old Note]]\n---\n");
        assert_eq!(unquoted.supersedes, ["Old Note"]);
        let many = read("---\nsupersedes:\n  - [[A]]\n  - [[B]]\nvalid_until: 2027-01-01\n---\n");
        assert_eq!(many.supersedes, ["A", "B"]);
        assert_eq!(many.valid_until.as_deref(), Some("2027-01-01"));
    }

    #[test]
    fn a_note_that_says_neither_or_does_not_parse_says_nothing() {
        for text in [
            "no frontmatter\nsupersedes: [[X]]\n",
            "---\nname: x\n---\n- supersedes [[Y]]\n",
            "---\nsupersedes: [unclosed\n---\n",
            "---\nsupersedes:\n---\n",
        ] {
            assert_eq!(read(text), Validity::default(), "{text}");
        }
        let capped = format!(
            "---\nsupersedes:\n{}---\n",
            (0..40).map(|i| format!("  - N{i}\n")).collect::<String>()
        );
        assert_eq!(read(&capped).supersedes.len(), MAX_SUPERSEDED);
    }
}
