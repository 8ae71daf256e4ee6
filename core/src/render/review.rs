//! `memory_review`'s answer as text: each list under its heading, what to
//! do about it, and how much more there is.

use std::fmt::Write;

use crate::output::{Listed, ReviewAnswer};
use crate::text::one_line;

pub fn review(a: &ReviewAnswer) -> String {
    let mut out = String::from(
        "Review of /memories: nothing was changed. Each item needs a decision; make it with \
         the usual commands (every change is a version, so it can be undone).\n",
    );
    section(
        &mut out,
        "Likely duplicates",
        &a.duplicates,
        "merge: keep one, add `- supersedes [[Other]]` to it (or delete the other)",
        |d| format!("{} (same {}: \"{}\")", d.paths.join(", "), d.same, d.text),
    );
    section(
        &mut out,
        "Past their valid_until",
        &a.expired,
        "update the fact and its valid_until, or leave it: searches already leave it out",
        |e| format!("{} (valid_until {})", e.path, e.valid_until),
    );
    section(
        &mut out,
        "Superseded, but still linked from other notes",
        &a.superseded_linked,
        "point those links at the note that replaces it",
        |s| {
            format!(
                "{} (superseded by {}; linked from {})",
                s.path,
                s.superseded_by.join(", "),
                s.linked_from.join(", ")
            )
        },
    );
    let heading = format!(
        "Changed since {} ({}) by others than {}",
        a.since,
        a.timeframe,
        one_line(&a.actor, 80)
    );
    section(
        &mut out,
        &heading,
        &a.changed_by_others,
        "read them (memory_history shows what each said before) and keep, fix or restore",
        |v| {
            format!(
                "{} ({} by {} at {}, version {})",
                v.path,
                v.op,
                one_line(&v.actor, 80),
                v.time,
                v.version
            )
        },
    );
    out.truncate(out.trim_end().len());
    out
}

fn section<T>(
    out: &mut String,
    heading: &str,
    list: &Listed<T>,
    what_to_do: &str,
    line: impl Fn(&T) -> String,
) {
    if list.total == 0 {
        let _ = writeln!(out, "\n{heading}: none.");
        return;
    }
    let _ = writeln!(out, "\n{heading} ({}; {what_to_do}):", list.total);
    for item in &list.items {
        let _ = writeln!(out, "- {}", line(item));
    }
    if list.total > list.items.len() {
        let _ = writeln!(
            out,
            "- … and {} more (decide on these first)",
            list.total - list.items.len()
        );
    }
}
