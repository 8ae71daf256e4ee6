//! `prompt`: the text a host puts in the system prompt: how to use memory,
//! then the current index, within the prompt budget.

use crate::error::Result;
use crate::io::Io;
use crate::notes::index::{self, Budget, PROMPT_BUDGET};
use crate::notes::maintain;
use crate::output::Output;

const PROTOCOL: &str = "\
# Memory

You have a persistent memory in /memories that outlives this conversation. \
Your context may be reset at any moment: what is not saved there is lost.

Follow this protocol:
1. Check memory first. Before starting a task, read the index below.
2. Read the notes relevant to the task before working: memory_read with \
topics (names or paths from the index) returns them in full.
3. Save what you learn as you go, one fact per note, with memory_write: type \
user (who the user is, their preferences), feedback (how they want you to \
work), project (facts and decisions about the work) or reference (where to \
find things).
4. Update rather than duplicate: when a note on the subject exists, change it \
with memory_update instead of writing a second one.
5. Delete what turns out to be wrong or obsolete with memory_delete.
6. Assume the context may be reset at any moment: save progress and \
decisions when they happen, not at the end.
7. Write notes as observations (`- [decision] Use Postgres #db (why)`) and \
relations (`- depends_on [[Other Note]]`); build_context loads a note with \
the notes it links to, recent_activity shows what changed. memory_guide \
has the full protocol, with examples: read it once per conversation before \
you write notes.

With only the file commands (view, create, str_replace, insert, delete, \
rename), do the same on files under /memories: the index follows every change. \
Text you add to /memories/MEMORY.md outside its generated region is kept and \
shown here.

## Index: /memories/MEMORY.md
";

pub fn prompt(io: &Io) -> Result<Output> {
    maintain::fresh(io, |catalog, memory_md| {
        let mut out = PROTOCOL.to_owned();
        let left = Budget {
            lines: PROMPT_BUDGET.lines - index::line_count(PROTOCOL),
            bytes: PROMPT_BUDGET.bytes - PROTOCOL.len(),
        };
        let parts = index::split(memory_md);
        // The agent's own text gets what the region does not need at least.
        let (before, after) = fit_agent_text(&parts.before, &parts.after, left);
        let around = format!("{before}{after}");
        let superseded = maintain::superseded(catalog)?;
        let region = index::render(io, catalog, &superseded, left.after(&around));
        let shown = index::compose(
            &index::Parts {
                before,
                after,
                has_region: parts.has_region,
            },
            &region,
        );
        out.push_str(&shown);
        Ok(Output::Prompt { text: out })
    })
}

/// The agent's text around the region, cut (with a line saying so) when it
/// would leave the region less than its minimum.
fn fit_agent_text(before: &str, after: &str, left: Budget) -> (String, String) {
    let room = Budget {
        lines: left.lines.saturating_sub(index::MIN_REGION.lines + 1),
        bytes: left.bytes.saturating_sub(index::MIN_REGION.bytes + 200),
    };
    let mut lines_used = 0;
    let mut bytes_used = 0;
    let mut kept = [String::new(), String::new()];
    let mut dropped = 0;
    for (slot, text) in [before, after].into_iter().enumerate() {
        for line in text.split_inclusive('\n') {
            if dropped == 0 && lines_used < room.lines && bytes_used + line.len() <= room.bytes {
                lines_used += 1;
                bytes_used += line.len();
                kept[slot].push_str(line);
            } else {
                dropped += 1;
            }
        }
    }
    if dropped > 0 {
        let notice = format!(
            "[{dropped} more lines of your text in /memories/MEMORY.md are not shown here; view the file to read them]\n"
        );
        if after.is_empty()
            || kept[1].is_empty() && !kept[0].is_empty() && before.len() > kept[0].len()
        {
            kept[0].push_str(&notice);
        } else {
            kept[1].push_str(&notice);
        }
    }
    let [before, after] = kept;
    (before, after)
}
