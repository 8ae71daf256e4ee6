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
    if let Some(c) = a.compared_by_meaning.filter(|c| !c.whole) {
        let _ = writeln!(
            out,
            "Compared by meaning: {} of {} notes, in part: the call ran out of time, so some \
             notes alike in meaning may be missing from this list.",
            c.notes, c.of
        );
    }
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::output::Compared;

    fn answer(compared: Option<Compared>) -> ReviewAnswer {
        ReviewAnswer {
            timeframe: "7d".into(),
            since: "2026-12-01T00:00:00Z".into(),
            actor: "alice".into(),
            duplicates: Listed::default(),
            compared_by_meaning: compared,
            expired: Listed::default(),
            superseded_linked: Listed::default(),
            changed_by_others: Listed::default(),
            notes: 40,
        }
    }

    #[test]
    fn a_comparison_by_meaning_cut_short_is_said() {
        let cut = Compared {
            notes: 12,
            of: 40,
            whole: false,
        };
        let text = review(&answer(Some(cut)));
        assert!(
            text.contains("Compared by meaning: 12 of 40 notes, in part: the call ran out of time"),
            "{text}"
        );
        for whole in [
            None,
            Some(Compared {
                notes: 40,
                of: 40,
                whole: true,
            }),
        ] {
            let text = review(&answer(whole));
            assert!(!text.contains("Compared by meaning"), "{text}");
        }
    }
}
