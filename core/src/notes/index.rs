//! The index region of `/memories/MEMORY.md`: one line per note, grouped by
//! type, rendered from the catalog within a budget. Finding the region in
//! the file and keeping the agent's text around it is `memory_md` in core.

use super::catalog::{Catalog, Entry};
use super::frontmatter::{MAX_NAME_CHARS, Meta};
pub use super::memory_md::{
    BEGIN, Budget, END, EXPLAIN, MIN_REGION, NO_NOTES, PROMPT_BUDGET, Parts, clean, compose,
    line_count, recomposed, split,
};
use super::validity;
use crate::graph::supersede::SupersededSet;
use crate::vocab::NoteType;
use std::fmt::Write as _;

use crate::io::Io;
use crate::text::one_line;

/// What a note past its `valid_until` shows after its line.
pub const EXPIRED_MARK: &str = " (expired: past its valid_until)";

/// The longest path a superseded note's mark names; a longer one is not
/// named, so the mark stays within [`SUPERSEDED_MARK_MAX`].
const SUPERSEDED_MARK_PATH: usize = 120;

/// The mark of a superseded note when the note that supersedes it is not
/// named.
const SUPERSEDED_UNNAMED: &str = " (superseded: memory_view with all=true says by which notes)";

/// The most bytes the mark after a superseded note's line takes.
pub const SUPERSEDED_MARK_MAX: usize = 200;

/// Characters of a description shown in the index.
const DESCRIPTION_CHARS: usize = 150;

/// How the region is written: a MEMORY.md found to match a render is
/// trusted (not rendered again) while this is the same, so a change to
/// what `render` writes for the same notes must bump it.
pub const RENDER_VERSION: u32 = 3;

/// The region for the notes in `catalog`, markers included, without a
/// trailing newline, within `budget`. When not every note fits, the most
/// recently changed ones are listed and a last line says how many are left
/// out, of which types, and how to reach them. Conversation history and
/// extra directories are never listed: `memory_search` reaches them.
/// A note another one supersedes (`superseded`: which, as the graph
/// resolves them) is marked so, as one past its `valid_until` is.
pub fn render(io: &Io, catalog: &Catalog, superseded: &SupersededSet, budget: Budget) -> String {
    render_marked(io, catalog, superseded, budget).0
}

/// As [`render`], with when the next note it lists stops holding (after
/// now), found in the same pass: a MEMORY.md rendered before then is
/// rendered again from then, to mark it.
pub fn render_marked(
    io: &Io,
    catalog: &Catalog,
    superseded: &SupersededSet,
    budget: Budget,
) -> (String, Option<u64>) {
    // Lines always present: markers and explanation.
    let fixed = [BEGIN, EXPLAIN, END];
    // Room is kept for the "left out" and "still reading" lines.
    let mut lines_left = budget.lines.saturating_sub(fixed.len() + 2);
    let mut bytes_left = budget
        .bytes
        .saturating_sub(fixed.iter().map(|l| l.len() + 1).sum::<usize>() + 600);
    // Lines are made for the notes shown only, so this costs the same for
    // 100 notes as for 100,000.
    let now = io.now_seconds();
    let mut shown: Vec<(&Entry, &str, &str)> = Vec::new();
    let mut has_heading = [false; NoteType::ALL.len()];
    let mut unlisted = [0; NoteType::ALL.len()];
    for entry in catalog.most_recent() {
        if !super::listed_in_index(io, &entry.path) {
            unlisted[entry.meta.kind as usize] += 1;
            continue;
        }
        let (line, key) = listing(entry);
        let group = entry.meta.kind as usize;
        let marked = line.len() + mark(entry, superseded, now).len();
        let (lines, bytes) = if has_heading[group] {
            (1, marked + 1)
        } else {
            (2, marked + 1 + entry.meta.kind.heading().len() + 4)
        };
        if lines > lines_left || bytes > bytes_left {
            break;
        }
        lines_left -= lines;
        bytes_left -= bytes;
        has_heading[group] = true;
        shown.push((entry, line, key));
    }
    shown.sort_by(|(a, _, a_key), (b, _, b_key)| {
        (a.meta.kind, a_key, &a.path).cmp(&(b.meta.kind, b_key, &b.path))
    });

    let mut left_out = catalog.count_by_type();
    for (entry, _, _) in &shown {
        left_out[entry.meta.kind as usize] -= 1;
    }
    for (count, skipped) in left_out.iter_mut().zip(unlisted) {
        *count -= skipped;
    }
    let mut out = String::with_capacity(budget.bytes.min(PROMPT_BUDGET.bytes));
    out.push_str(BEGIN);
    out.push('\n');
    out.push_str(EXPLAIN);
    out.push('\n');
    if shown.is_empty() && left_out.iter().sum::<usize>() == 0 && !catalog.incomplete() {
        out.push_str(NO_NOTES);
        out.push('\n');
    }
    let mut current = None;
    let mut next = None;
    for (entry, line, _) in &shown {
        if current != Some(entry.meta.kind) {
            current = Some(entry.meta.kind);
            out.push_str("## ");
            out.push_str(entry.meta.kind.heading());
            out.push('\n');
        }
        out.push_str(line);
        out.push_str(&mark(entry, superseded, now));
        out.push('\n');
        if let Some(end) = validity::ends(entry.meta.valid_until.as_deref()).filter(|&e| e > now) {
            next = Some(next.map_or(end, |n: u64| n.min(end)));
        }
    }
    if catalog.incomplete() {
        out.push_str(&format!(
            "- … memcap has read {} notes so far and is still reading the rest; \
             the next call goes on.\n",
            catalog.len()
        ));
    }
    if left_out.iter().sum::<usize>() > 0 {
        out.push_str(&left_out_line(left_out));
        out.push('\n');
    }
    out.push_str(END);
    (out, next)
}

/// What follows a note's line at `now`: that other notes supersede it
/// ([`superseded_mark`]), and [`EXPIRED_MARK`] when it is past its
/// `valid_until`. Not kept with the line, which holds until the note
/// changes: the marks come with other notes and with time.
fn mark(entry: &Entry, superseded: &SupersededSet, now: u64) -> String {
    let mut mark = superseded
        .get(&entry.path)
        .map_or_else(String::new, |by| superseded_mark(by));
    if validity::past(entry.meta.valid_until.as_deref(), now) {
        mark.push_str(EXPIRED_MARK);
    }
    mark
}

/// ` (superseded by new.md)`, ` (superseded by new.md and 2 more)`: the
/// first of the notes that supersede (root-relative paths, sorted), named
/// as MEMORY.md links it, unless that is too long to name within
/// [`SUPERSEDED_MARK_MAX`] (then `memory_view` with all=true names them).
fn superseded_mark(by: &[String]) -> String {
    let Some(first) = by
        .first()
        .map(|path| link(path))
        .filter(|link| link.len() <= SUPERSEDED_MARK_PATH)
    else {
        return SUPERSEDED_UNNAMED.to_owned();
    };
    match by.len() - 1 {
        0 => format!(" (superseded by {first})"),
        more => format!(" (superseded by {first} and {more} more)"),
    }
}

/// `- [Name](path) - description (3 relations)`, the count only when the
/// note writes relations, with a mark when the frontmatter is broken.
pub fn entry_line(entry: &Entry) -> &str {
    listing(entry).0
}

/// The entry's line and its sort key (its name in lower case), made once
/// per entry.
fn listing(entry: &Entry) -> (&str, &str) {
    entry.listing(|e| {
        (
            line_of(&e.path, &e.meta, e.relations),
            e.meta.name.to_lowercase(),
        )
    })
}

fn line_of(path: &str, meta: &Meta, relations: u32) -> String {
    let mut line = format!("- [{}]({})", escape_name(&meta.name), link(path));
    let description = one_line(&meta.description, DESCRIPTION_CHARS);
    if !description.is_empty() {
        line.push_str(" - ");
        line.push_str(&description);
    }
    match relations {
        0 => {}
        1 => line.push_str(" (1 relation)"),
        n => {
            let _ = write!(line, " ({n} relations)");
        }
    }
    if meta.problem.is_some() {
        line.push_str(" (problem: memory_view with all=true says what)");
    }
    line
}

/// The most the note at `path`, read as `meta`, can add to MEMORY.md: its
/// line (with room for any count of relations, which the derived indexes
/// count later, and for its marks), its group's heading, the region's
/// fixed lines when `fresh` (there is no MEMORY.md yet), and a mark on
/// each note its `supersedes` relations (`supersedes` of them) may name,
/// within the region's budget. For the quota: room is kept before the
/// change is admitted, since MEMORY.md is rewritten after it.
pub fn growth_bound(path: &str, meta: &Meta, fresh: bool, supersedes: usize) -> usize {
    let line = line_of(path, meta, u32::MAX).len() + SUPERSEDED_MARK_MAX + EXPIRED_MARK.len() + 1;
    let heading = "## ".len() + meta.kind.heading().len() + 1;
    let fixed = if fresh {
        [BEGIN, EXPLAIN, END].iter().map(|l| l.len() + 1).sum()
    } else {
        0
    };
    let marks = supersedes
        .saturating_mul(SUPERSEDED_MARK_MAX)
        .min(PROMPT_BUDGET.bytes);
    line + heading + fixed + marks
}

fn left_out_line(counts: [usize; NoteType::ALL.len()]) -> String {
    let total: usize = counts.iter().sum();
    let by_type: Vec<String> = NoteType::ALL
        .iter()
        .zip(counts)
        .filter(|(_, n)| *n > 0)
        .map(|(t, n)| format!("{n} {}", t.as_str()))
        .collect();
    let notes = if total == 1 { "note" } else { "notes" };
    format!(
        "- … {} more {notes} not listed here, the least recently changed ({}). \
         memory_view with all=true lists every note; memory_read with topics reads any by name or path.",
        total,
        by_type.join(", ")
    )
}

fn escape_name(name: &str) -> String {
    let one_line = one_line(name, MAX_NAME_CHARS);
    let mut out = String::with_capacity(one_line.len());
    for c in one_line.chars() {
        if matches!(c, '[' | ']' | '\\') {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

/// A link target that stays one token in markdown: `<…>` around paths with
/// spaces or brackets.
fn link(path: &str) -> String {
    if path.contains([' ', '(', ')', '<', '>']) {
        format!("<{}>", path.replace('<', "%3C").replace('>', "%3E"))
    } else {
        path.to_owned()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_and_links_stay_one_token() {
        assert_eq!(escape_name("a [b]\nc"), "a \\[b\\] c");
        assert_eq!(link("my notes/a (1).md"), "<my notes/a (1).md>");
        assert_eq!(link("a/b.md"), "a/b.md");
        assert_eq!(one_line("x y", 1), "x…");
    }

    #[test]
    fn a_superseded_mark_names_the_first_note_within_its_bound() {
        let by = |paths: &[&str]| paths.iter().map(|p| (*p).to_owned()).collect::<Vec<_>>();
        assert_eq!(superseded_mark(&by(&["b.md"])), " (superseded by b.md)");
        assert_eq!(
            superseded_mark(&by(&["my b.md", "c.md", "d.md"])),
            " (superseded by <my b.md> and 2 more)"
        );
        let long = format!("{}.md", "x".repeat(SUPERSEDED_MARK_PATH));
        assert_eq!(superseded_mark(&by(&[&long])), SUPERSEDED_UNNAMED);
        let at_most = format!("{}.md", "<".repeat(SUPERSEDED_MARK_PATH / 3 - 4));
        let many: Vec<String> = std::iter::once(at_most)
            .chain((0..10_000).map(|i| format!("{i}")))
            .collect();
        assert!(superseded_mark(&many).len() <= SUPERSEDED_MARK_MAX);
        assert!(SUPERSEDED_UNNAMED.len() <= SUPERSEDED_MARK_MAX);
    }

    #[test]
    fn a_line_counts_the_relations_a_note_writes() {
        let entry = |relations| {
            Entry::new(
                "a.md".to_owned(),
                crate::notes::entry::FileStamp::sized(0),
                crate::notes::frontmatter::read(
                    "---\nname: A\ndescription: d\ntype: user\n---\n",
                    "a.md",
                ),
                relations,
            )
        };
        assert_eq!(entry_line(&entry(0)), "- [A](a.md) - d");
        assert_eq!(entry_line(&entry(1)), "- [A](a.md) - d (1 relation)");
        assert_eq!(entry_line(&entry(12)), "- [A](a.md) - d (12 relations)");
    }
}
