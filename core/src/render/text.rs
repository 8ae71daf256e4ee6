//! The text renderer: what the model reads, byte for byte the SDK's words
//! for the six file commands, memcap's own for the rest.

use std::fmt::Write;

use crate::notes::index_file::index_path;
use crate::output::{
    ActivityAnswer, ContextAnswer, GraphNote, IndexUpkeep, NoteInfo, NoteText, ObservationItem,
    Output, Page, RelationItem, Shown, VersionInfo,
};
use crate::text::{format_size, numbered};

/// What the note commands say of a store with no notes.
const EMPTY: &str = "No notes yet: the memory is empty. Save what you learn with memory_write.";

/// The text of one output.
pub fn render(output: &Output) -> String {
    match output {
        Output::Listing {
            path,
            size,
            entries,
            truncated,
        } => {
            let mut out = format!(
                "Here're the files and directories up to 2 levels deep in {path}, excluding hidden items:\n{}\t{path}",
                format_size(*size)
            );
            for entry in entries {
                let slash = if entry.is_dir { "/" } else { "" };
                let _ = write!(out, "\n{}\t{}{slash}", format_size(entry.size), entry.path);
            }
            if let Some(limit) = truncated {
                let _ = write!(
                    out,
                    "\n… the listing stops here: memcap lists at most {limit} entries. \
                     View a subdirectory to see what it holds."
                );
            }
            out
        }
        Output::FileLines {
            path,
            first_line,
            lines,
            ..
        } => {
            let mut out = format!("Here's the content of {path} with line numbers:\n");
            numbered(&mut out, *first_line, lines.lines());
            out
        }
        Output::Created { path, index, .. } => {
            format!("File created successfully at: {path}") + &upkeep(index)
        }
        Output::Edited {
            first_line,
            snippet,
            index,
            ..
        } => {
            let mut out = String::from(
                "The memory file has been edited. Here is the snippet showing the change (with line numbers):\n",
            );
            numbered(&mut out, *first_line, snippet.iter().map(String::as_str));
            out + &upkeep(index)
        }
        Output::Inserted { path, index, .. } => {
            format!("The file {path} has been edited.") + &upkeep(index)
        }
        Output::Deleted { path, index } => format!("Successfully deleted {path}") + &upkeep(index),
        Output::Refreshed { paths, index } => {
            format!("Took in {paths} changed path(s)") + &upkeep(index)
        }
        Output::TurnRecorded {
            path,
            session,
            turns,
            dropped,
            index,
        } => {
            let mut out = format!("Recorded turn {turns} of session {session} in {path}");
            if *dropped > 0 {
                out.push_str(&format!(
                    "; the {dropped} oldest turn(s) were dropped to keep the session within {} KiB",
                    crate::commands::record_turn::MAX_SESSION_BYTES / 1024
                ));
            }
            out + &upkeep(index)
        }
        Output::Renamed {
            from, to, index, ..
        } => format!("Successfully renamed {from} to {to}") + &upkeep(index),
        Output::NoteSaved {
            path,
            note_type,
            name,
            replaced,
            index,
            ..
        } => format!(
            "{} note {path} ({}: {name}). The index /memories/MEMORY.md lists it.{}",
            if *replaced { "Updated" } else { "Saved" },
            note_type.as_str(),
            upkeep(index)
        ),
        Output::NoteDeleted { path, index } => format!(
            "Successfully deleted {path}; the index no longer lists it.{}",
            upkeep(index)
        ),
        // Agents read search results as JSON, as from other memory tools.
        Output::Search(answer) => pretty(answer),
        Output::Get(answer) => pretty(answer),
        Output::Stats(answer) => pretty(answer),
        Output::Context(answer) => context(answer),
        Output::Activity(answer) => activity(answer),
        Output::Review(answer) => super::review::review(answer),
        Output::History {
            path,
            versions,
            page,
        } => history(path, versions, page),
        Output::OldVersion {
            path,
            version,
            text,
            binary,
        } => old_version(path, version, text, *binary),
        Output::Index { text } if text.is_empty() => EMPTY.to_owned(),
        Output::Index { text } | Output::Prompt { text } | Output::Guide { text } => text.clone(),
        Output::NoteList { total, notes, page } => note_list(*total, notes, page),
        Output::MemoryFiles {
            index,
            total,
            paths,
            page,
        } => {
            let mut out = match (index, page.first()) {
                (Some(index), _) => format!("{index}\n"),
                (None, 0) => format!("{EMPTY}\n"),
                (None, _) => String::new(),
            };
            let _ = writeln!(out, "Memory files ({total}):");
            for path in paths {
                let _ = writeln!(out, "{path}");
            }
            out + &footer(page, "memory_read without topics", "files")
        }
        Output::TopicNotes {
            notes,
            page,
            pages,
            more,
            unknown,
        } => topic_notes(notes, *page, *pages, *more, unknown),
    }
}

/// The sentence a change adds when the index could not follow it.
fn upkeep(index: &IndexUpkeep) -> String {
    match &index.index_problem {
        None => String::new(),
        Some(e) => format!(
            "\n\nNote: the change was made, but the index {} could not be updated: {e}",
            index_path().display()
        ),
    }
}

fn note_list(total: usize, notes: &[NoteInfo], page: &Page) -> String {
    let mut out = format!(
        "{total} {} in /memories:\n",
        if total == 1 { "note" } else { "notes" },
    );
    for note in notes {
        let _ = write!(out, "\n{}\n  name: {}\n", note.path, note.name);
        match &note.declared_type {
            Some(declared) => {
                let _ = writeln!(out, "  type: other (declared: {declared})");
            }
            None => {
                let _ = writeln!(out, "  type: {}", note.note_type.as_str());
            }
        }
        if !note.description.is_empty() {
            let _ = writeln!(out, "  description: {}", note.description);
        }
        if let Some(updated) = &note.updated {
            let _ = writeln!(out, "  updated: {updated}");
        }
        if !note.tags.is_empty() {
            let _ = writeln!(out, "  tags: {}", note.tags.join(", "));
        }
        if let Some(permalink) = &note.permalink {
            let _ = writeln!(out, "  permalink: {permalink}");
        }
        if note.relations > 0 {
            let _ = writeln!(
                out,
                "  relations: {} (build_context with this path shows them)",
                note.relations
            );
        }
        if let Some(until) = &note.valid_until {
            let past = if note.expired { " (expired)" } else { "" };
            let _ = writeln!(out, "  valid_until: {until}{past}");
        }
        if !note.superseded_by.is_empty() {
            let _ = writeln!(
                out,
                "  superseded by: {} (searches leave this note out)",
                note.superseded_by.join(", ")
            );
        }
        if let Some(problem) = &note.problem {
            let _ = writeln!(out, "  problem: {problem}");
        } else if !note.frontmatter {
            out.push_str(
                "  frontmatter: none (name and description come from the file; \
                 rewrite it with memory_write to give it a type)\n",
            );
        }
    }
    out + &footer(page, "memory_view with all=true", "notes")
}

fn topic_notes(
    notes: &[NoteText],
    page: usize,
    pages: usize,
    more: usize,
    unknown: &[String],
) -> String {
    let mut out = String::new();
    for note in notes {
        let _ = writeln!(
            out,
            "=== {} ({}: {}) ===",
            note.path,
            note.note_type.as_str(),
            note.name
        );
        if !note.superseded_by.is_empty() {
            let _ = writeln!(
                out,
                "(superseded by {}: it may no longer hold)",
                note.superseded_by.join(", ")
            );
        }
        if note.expired {
            out.push_str("(expired: past its valid_until)\n");
        }
        match (&note.text, note.cut) {
            (Shown::Content(text), Some(cut)) => {
                out.push_str(text);
                let _ = writeln!(
                    out,
                    "[… cut after line {}: the note is {} bytes; view {} with \
                     view_range [{}, -1] to read the rest]",
                    cut.next_line - 1,
                    cut.size,
                    note.path,
                    cut.next_line
                );
            }
            (Shown::Content(text), None) => {
                out.push_str(text);
                if !text.ends_with('\n') {
                    out.push('\n');
                }
            }
            (Shown::NotShown(e), _) => {
                let _ = writeln!(out, "(not shown: {e})");
            }
        }
        out.push('\n');
    }
    if notes.is_empty() && page > 1 {
        let _ = writeln!(
            out,
            "There are only {} pages of notes on these topics; page=1 shows the first.",
            pages.max(1)
        );
    }
    if page < pages {
        let _ = writeln!(
            out,
            "{more} more notes match, on pages {} to {pages}: memory_read with the same topics and \
             page={} returns the next.",
            page + 1,
            page + 1
        );
    }
    if !unknown.is_empty() {
        let quoted: Vec<String> = unknown.iter().map(|t| format!("{t:?}")).collect();
        let _ = writeln!(
            out,
            "No note matches {}. A topic is a note's name, file name, path, tag or directory, \
             or a type (user, feedback, project, reference, other); memory_read without topics \
             lists them all.",
            quoted.join(", ")
        );
    }
    out
}

/// The closing line of a page: which page this is and how to ask for the
/// next (`how` names the call), or that this page is past the last one.
/// Nothing when everything fits on one page.
fn footer(page: &Page, how: &str, what: &str) -> String {
    if page.number > page.pages {
        return format!(
            "\nThere are only {} pages of {what}; {how} and page=1 shows the first.\n",
            page.pages
        );
    }
    if page.pages == 1 {
        return String::new();
    }
    let mut out = format!("\nPage {} of {}.", page.number, page.pages);
    if page.number < page.pages {
        let shown_to = page.number * page.per_page;
        let pages = if page.number + 1 == page.pages {
            format!("page {}", page.pages)
        } else {
            format!("pages {} to {}", page.number + 1, page.pages)
        };
        let _ = write!(
            out,
            " {} more {what} on {pages}: {how} and page={} shows the next {}.",
            page.total - shown_to,
            page.number + 1,
            page.per_page.min(page.total - shown_to)
        );
    }
    out.push('\n');
    out
}

/// `build_context`: each primary note with its observations and relations,
/// then the notes they reach.
fn context(answer: &ContextAnswer) -> String {
    let mut out = format!(
        "Context for {} (depth {}{}): {} {} named, {} related shown.\n",
        answer.url,
        answer.depth,
        answer
            .timeframe
            .as_ref()
            .map_or(String::new(), |t| format!(", changed in {t}")),
        answer.page.total,
        if answer.page.total == 1 {
            "note"
        } else {
            "notes"
        },
        answer.related.len()
    );
    for primary in &answer.primary {
        let note = &primary.note;
        let _ = write!(
            out,
            "\n## {} - {}\n{}\n",
            note.title,
            note.path,
            note_facts(note)
        );
        if !primary.superseded_by.is_empty() {
            let _ = writeln!(
                out,
                "Superseded by {}: it may no longer hold.",
                primary.superseded_by.join(", ")
            );
        }
        if !primary.supersedes.is_empty() {
            let _ = writeln!(out, "Supersedes {}.", primary.supersedes.join(", "));
        }
        if primary.expired {
            out.push_str("Expired: past its valid_until.\n");
        }
        let observations = primary
            .observations
            .iter()
            .map(|o| (o.line, observation(o)));
        item_lines(
            &mut out,
            "Observations",
            observations,
            primary.more_observations,
        );
        let relations = primary.relations.iter().map(|r| (r.line, relation(r)));
        item_lines(&mut out, "Relations", relations, primary.more_relations);
        if primary.observations.is_empty() && primary.relations.is_empty() {
            out.push_str("No observations or relations written yet.\n");
        }
    }
    if !answer.related.is_empty() {
        out.push_str("\nRelated:\n");
    }
    for r in &answer.related {
        let _ = writeln!(
            out,
            "- depth {}: {} - {} ({}): {} {} {}",
            r.depth,
            r.note.title,
            r.note.path,
            note_facts(&r.note),
            r.from,
            r.relation_type,
            r.to
        );
    }
    if answer.more_related > 0 {
        let _ = writeln!(
            out,
            "{} more related notes are past what one answer shows: ask with a smaller max_related or depth, or for one of the notes above.",
            answer.more_related
        );
    }
    out + &footer(&answer.page, "build_context with the same url", "notes")
}

/// A heading (when there are items), one `- line N: …` line per item, and
/// how many more the note holds.
fn item_lines(
    out: &mut String,
    heading: &str,
    items: impl Iterator<Item = (u32, String)>,
    more: usize,
) {
    for (i, (line, text)) in items.enumerate() {
        if i == 0 {
            let _ = writeln!(out, "{heading}:");
        }
        let _ = writeln!(out, "- line {line}: {text}");
    }
    if more > 0 {
        let _ = writeln!(out, "- … {more} more: memory_get reads the file.");
    }
}

/// `recent_activity`: one line per change, newest first.
fn activity(answer: &ActivityAnswer) -> String {
    let what = answer.item_type.as_deref().unwrap_or("entity");
    let mut out = format!(
        "Changed since {} ({}), newest first, {}: {}.\n",
        answer.since,
        answer.timeframe,
        match what {
            "entity" | "observation" | "relation" => format!("{what} items"),
            note_type => format!("notes of type {note_type}"),
        },
        answer.page.total
    );
    if answer.page.total == 0 {
        out.push_str(
            "Nothing changed in that timeframe: ask with a longer one, such as \"30d\".\n",
        );
    }
    for item in &answer.items {
        let note = &item.note;
        let when = note.changed.as_deref().unwrap_or("unknown time");
        let _ = match (&item.observation, &item.relation) {
            (Some(o), _) => writeln!(
                out,
                "- {when} {} line {}: {}",
                note.path,
                o.line,
                observation(o)
            ),
            (_, Some(r)) => writeln!(
                out,
                "- {when} {} line {}: {}",
                note.path,
                r.line,
                relation(r)
            ),
            _ => writeln!(
                out,
                "- {when} {} - {} ({}): {} observations, {} relations",
                note.title, note.path, note.note_type, item.observations, item.relations
            ),
        };
    }
    out + &footer(
        &answer.page,
        "recent_activity with the same timeframe and type",
        "items",
    )
}

/// `permalink … · type … · changed …`.
fn note_facts(note: &GraphNote) -> String {
    format!(
        "permalink {}, type {}, changed {}",
        note.permalink,
        note.note_type,
        note.changed.as_deref().unwrap_or("at an unknown time")
    )
}

/// `[category] content #tags (context)`, as written.
fn observation(o: &ObservationItem) -> String {
    let mut line = format!("[{}] {}", o.category, o.content);
    if let Some(context) = &o.context {
        let _ = write!(line, " ({context})");
    }
    line
}

/// `type [[Target]] (context) → path`, or that no note has the name yet.
fn relation(r: &RelationItem) -> String {
    let mut line = format!("{} [[{}]]", r.relation_type, r.target);
    if let Some(context) = &r.context {
        let _ = write!(line, " ({context})");
    }
    match &r.resolved {
        Some(path) => {
            let _ = write!(line, " -> {path}");
        }
        None => line.push_str(" -> no note of that name yet"),
    }
    line
}

fn pretty(answer: &impl serde::Serialize) -> String {
    serde_json::to_string_pretty(answer).expect("answers always serialise")
}

/// `memory_history`'s list: a line a version, newest first.
fn history(path: &str, versions: &[VersionInfo], page: &Page) -> String {
    if page.total == 0 {
        return format!(
            "{path} has no recorded versions: memcap records a version of every change \
             it makes from now on."
        );
    }
    let mut out = format!(
        "Versions of {path}, newest first ({} in all; page {} of {}):\n",
        page.total, page.number, page.pages
    );
    for v in versions {
        let _ = writeln!(out, "- {}", version_line(v));
    }
    if page.number < page.pages {
        let _ = writeln!(
            out,
            "More on page {} (memory_history with \"page\").",
            page.number + 1
        );
    }
    out.push_str("Read one with memory_history and its \"version\".");
    out
}

/// One version as a line: number, time, what happened, by whom, size.
fn version_line(v: &VersionInfo) -> String {
    let actor = crate::text::one_line(&v.actor, 80);
    let what = match &v.from {
        Some(from) if v.path.is_empty() => format!("renamed from {from}"),
        Some(from) => format!("{} {} from {from}", v.op, v.path),
        None => format!("{} {}", v.op, v.path),
    };
    let mut line = format!(
        "version {} · {} · {what} by {actor} · {} bytes",
        v.version, v.time, v.size
    );
    if let Some(r) = &v.redacted {
        let by = crate::text::one_line(&r.by, 80);
        let _ = write!(line, " · redacted by {by} at {}", r.at);
    }
    line
}

/// `memory_history` with a version: what it held.
fn old_version(path: &str, v: &VersionInfo, text: &str, binary: bool) -> String {
    let head = format!("{path}, {}:", version_line(v));
    match (v.op.as_ref(), binary) {
        ("deleted", _) => format!(
            "{head}\nThis version removed the file; the version before it holds what it had."
        ),
        (_, true) => format!("{head}\nIts content is not text ({} bytes).", v.size),
        _ => format!("{head}\n{text}"),
    }
}
