//! `memory_guide`: the whole protocol for keeping memory, with examples of
//! structured notes (observations and relations in basic-memory's format),
//! where notes go, and which tool to use when. `prompt` stays short and
//! points here.

use crate::error::Result;
use crate::output::Output;

/// The guide, as the agent reads it.
pub const GUIDE: &str = "\
# How to keep your memory

Your memory is a folder of markdown notes under /memories that outlives \
this conversation. Your context may be reset at any moment: what is not \
saved there is lost. /memories/MEMORY.md is the index, one line per note, \
kept by memcap.

## Where notes go
- user/: who the user is: role, preferences, what they know (type user).
- projects/: one note per project or topic: goals, decisions, status \
(type project).
- sessions/: what happened in one working session, named by date and \
subject: sessions/2026-11-24-auth-migration.md (type project).
- patterns/: how to work: the user's feedback, solutions that worked, \
mistakes not to repeat (type feedback).
- Where to find things outside memory (links, systems, documents): type \
reference, in the folder of what they serve.

## How to write a note
memory_write writes the frontmatter (name, description, type); write the \
rest as observations and relations:

    # Alpha

    ## Observations
    - [decision] Use Postgres 17 for storage #db (chosen for JSON support)
    - [risk] The migration window is tight #ops
    - [status] Schema migrated on 2026-11-20 #milestone
    - #later check the nightly backups

    ## Relations
    - depends_on [[Auth Service]]
    - owned_by [[Bob]] (since March)
    - \"based on\" [[Billing v1]]

- An observation is one fact a line: `- [category] content #tags (context)`. \
The category is a short word (decision, fact, preference, risk, status, \
idea, todo); tags are what you will look for later; the context says why, \
when or who. A line of #tags without a category is filed under `note`.
- A relation is `- relation_type [[Target]] (context)`: a snake_case verb \
(depends_on, part_of, owned_by, follows, contradicts), or several words in \
quotes. [[Target]] names a note by its name, its path (projects/alpha) or \
its permalink. Link to notes you have not written yet: the link reaches the \
note as soon as you write it. A [[Target]] inside a sentence counts too, as \
links_to.
- Not read as observations or relations: checkboxes (- [ ] / - [x]), \
[text](url) links, code blocks and quotes.
- Keep a note on one subject. Put `permalink: projects/alpha` in the \
frontmatter of a note many others link to: links follow it across renames \
(else they follow its name).

## When to do what
- Starting a task: read the index, then memory_search with the task's \
words; build_context memory://projects/alpha loads a note with the notes it \
links to and those linking to it (depth 2 for their neighbours too).
- Coming back after a break, or when other programs may have written: \
recent_activity (default the last 7 days; type observation or relation for \
the lines themselves).
- Before answering about earlier work, decisions, dates, people or \
preferences: memory_search, then memory_get or build_context to read more.
- Learned something: add an observation to the note on that subject \
(memory_update); write a new note only when none covers it.
- A decision or fact changed: replace its line (memory_update); never keep \
both versions. When the old fact is a note of its own, write the new note \
with `- supersedes [[Old Note]]`: memory_search then leaves the old note \
out (includeSuperseded shows it, marked) and MEMORY.md marks it \
`(superseded by …)`. A fact that holds until a date: \
`valid_until: 2027-03-31` in the frontmatter.
- Wrong or obsolete: remove the line, or the note (memory_delete).
- Tidying up, or after others worked in the memory: memory_review lists \
likely duplicates, notes past their valid_until, superseded notes still \
linked, and what others changed; it changes nothing, you decide.
- Progress: save it when it happens, in the project's note or the \
session's, not at the end.
- memory_stats says how many relations point at notes not written yet \
(unresolved): write them, or fix the names.

## The tools
- memory_view: the index; with all=true every note and its metadata.
- memory_read: notes in full, by name, path or topic.
- memory_write, memory_update, memory_delete: notes with frontmatter.
- memory_search: passages that answer a question, best first, each with \
who last changed its lines (changedBy, changedAt); by / notBy keep or leave \
out what given actors wrote.
- memory_get: lines of a note, as memory_search names them, and who last \
changed them.
- build_context: a note (memory:// URL, or a pattern with *) with its \
observations, relations and related notes.
- recent_activity: what changed lately, newest first.
- memory_review: what needs a decision (duplicates, expired, superseded \
but linked, others' changes).
- memory_stats: the state of the search index and of the graph.
- memory: the file commands (view, create, str_replace, insert, delete, \
rename) on any file under /memories.
";

pub fn memory_guide() -> Result<Output> {
    Ok(Output::Guide {
        text: GUIDE.to_owned(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::graph::parse;

    #[test]
    fn the_guides_example_reads_as_it_says() {
        let example: String = GUIDE
            .lines()
            .filter_map(|l| l.strip_prefix("    "))
            .map(|l| format!("{l}\n"))
            .collect();
        let parsed = parse(&example);
        let categories: Vec<Option<&str>> = parsed
            .observations
            .iter()
            .map(|o| o.category.as_deref())
            .collect();
        assert_eq!(
            categories,
            [Some("decision"), Some("risk"), Some("status"), None]
        );
        let relations: Vec<(&str, &str)> = parsed
            .relations
            .iter()
            .map(|r| (r.kind.as_str(), r.target.as_str()))
            .collect();
        assert_eq!(
            relations,
            [
                ("depends_on", "Auth Service"),
                ("owned_by", "Bob"),
                ("based on", "Billing v1")
            ]
        );
        assert!(GUIDE.lines().count() < 120);
    }
}
