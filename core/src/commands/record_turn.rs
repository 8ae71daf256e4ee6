//! `record_turn`: the host appends one turn of a conversation to its
//! session's file, `chat/SESSION.md`, which `memory_search` finds as the
//! `chat` source. Bounded: a turn holds at most [`MAX_TURN_BYTES`], a
//! session file keeps its newest turns within [`MAX_SESSION_BYTES`], and
//! the chat directory keeps the [`MAX_SESSIONS`] most recent sessions.

use crate::error::{FsError, Result, ToolError};
use crate::files;
use crate::io::Io;
use crate::layout::{CHAT, ROOT};
use crate::notes::maintain;
use crate::output::Output;
use crate::storage::Kind;
use crate::text::rfc3339;
use crate::vocab::Role;
use crate::vpath::MemPath;

/// The most text one turn may hold.
pub const MAX_TURN_BYTES: usize = 64 * 1024;
/// A session's file stays within this; its oldest turns go first.
pub const MAX_SESSION_BYTES: usize = 256 * 1024;
/// How many session files `chat/` keeps; the least recently changed go.
pub const MAX_SESSIONS: usize = 100;
/// The longest session name.
const MAX_SESSION_NAME: usize = 64;

/// Appends a turn to session `session`'s file.
pub fn record_turn(io: &Io, session: &str, role: Role, text: &str) -> Result<Output> {
    check_session(session)?;
    if text.len() > MAX_TURN_BYTES {
        return Err(ToolError::InvalidInput {
            problem: format!(
                "The turn's text is {} bytes; a turn holds at most {MAX_TURN_BYTES}: record \
                 it as several turns, or save it as a note.",
                text.len()
            ),
        });
    }
    let shown = format!("{ROOT}/{CHAT}/{session}.md");
    let path = MemPath::parse(&shown)?;
    if text.contains('\0') {
        return Err(ToolError::TextHasNul { path: shown });
    }
    let turn = format!(
        "## {} · {}\n{}\n\n",
        role.as_str(),
        rfc3339(io.now_seconds()),
        escaped(text.trim_end_matches('\n'))
    );
    // Never through a link (nor into a file) another program put there:
    // turns would land, and pruning would remove files, elsewhere.
    match io.fs.stat(CHAT, false) {
        Ok(st) if st.kind != Kind::Dir => {
            return Err(ToolError::InvalidInput {
                problem: format!(
                    "Could not record a turn: {ROOT}/{CHAT} is not a directory memcap made (a \
                     link or a file), and memcap does not follow it. Move it aside; the next \
                     turn makes the directory."
                ),
            });
        }
        Ok(_) | Err(FsError::NotFound) => {}
        Err(e) => return Err(files::tool_error(e, &shown, "record a turn in")),
    }
    let mut changed = vec![path.clone()];
    let (turns, dropped) = match files::exists(io, &path) {
        Ok(true) => {
            let file = files::read_for_edit(io, &path, &shown)?;
            let (updated, turns, dropped) = appended(&file.text, &turn);
            files::rewrite(io, &path, &shown, &file, &updated)?;
            (turns, dropped)
        }
        Ok(false) => {
            let (text, turns, dropped) = appended(&format!("# Conversation {session}\n\n"), &turn);
            let parents = files::check_parents(io, &path, &shown)?;
            crate::quota::check(io, &path, &shown, &text)?;
            if parents == files::Parents::Missing {
                files::create_parents(io, &path, &shown)?;
            }
            files::create_file(io, &path, &shown, text.as_bytes())?;
            changed.extend(prune_sessions(io, &path));
            (turns, dropped)
        }
        Err(e) => return Err(files::tool_error(e, &shown, "record a turn in")),
    };
    let refs: Vec<&MemPath> = changed.iter().collect();
    Ok(Output::TurnRecorded {
        path: shown,
        session: session.to_owned(),
        turns,
        dropped,
        index: maintain::after_change(io, &refs),
    })
}

/// A session name: a file name memcap can show and search as it is.
fn check_session(session: &str) -> Result<()> {
    let fine = !session.is_empty()
        && session.len() <= MAX_SESSION_NAME
        && !session.starts_with('.')
        && session
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'));
    if fine {
        return Ok(());
    }
    Err(ToolError::InvalidInput {
        problem: format!(
            "The session name {session:?} cannot name a file: use 1 to {MAX_SESSION_NAME} \
             letters, digits, '-', '_' or '.', not starting with '.', for example \"2026-11-24-a\"."
        ),
    })
}

/// Whether `line` starts a turn (the heading [`record_turn`] writes).
fn is_turn_heading(line: &str) -> bool {
    line.strip_prefix("## ")
        .and_then(|rest| rest.split_once(" · "))
        .is_some_and(|(role, _)| Role::parse(role).is_some())
}

/// `text` with every line that would read as a turn's heading escaped
/// (`\## assistant · …`, which markdown shows as written), so one turn can
/// never forge another: not for a reader, nor for search's chunks, nor
/// for the trimming below.
fn escaped(text: &str) -> String {
    text.split_inclusive('\n')
        .map(|line| {
            let body = line.trim_start();
            if is_turn_heading(body.trim_end_matches(['\n', '\r'])) {
                format!("{}\\{body}", &line[..line.len() - body.len()])
            } else {
                line.to_owned()
            }
        })
        .collect()
}

/// `file` with `turn` appended and its oldest turns dropped until it fits
/// [`MAX_SESSION_BYTES`]; with how many turns it holds and how many went.
fn appended(file: &str, turn: &str) -> (String, usize, usize) {
    let text = format!("{file}{turn}");
    // Byte offsets where each turn starts; what comes before the first is
    // the file's title, kept.
    let mut starts = Vec::new();
    let mut offset = 0;
    for line in text.split_inclusive('\n') {
        if is_turn_heading(line.trim_end_matches('\n')) {
            starts.push(offset);
        }
        offset += line.len();
    }
    let Some(&first) = starts.first() else {
        return (text, 0, 0);
    };
    // The newest turn always stays: it was checked to fit on its own.
    let keep_from = starts
        .iter()
        .position(|&start| text.len() - (start - first) <= MAX_SESSION_BYTES)
        .unwrap_or(starts.len() - 1);
    let dropped = keep_from;
    let text = format!("{}{}", &text[..first], &text[starts[keep_from]..]);
    (text, starts.len() - dropped, dropped)
}

/// Removes the least recently changed session files beyond
/// [`MAX_SESSIONS`], never `keep`; returns what it removed.
fn prune_sessions(io: &Io, keep: &MemPath) -> Vec<MemPath> {
    let Ok(entries) = io.fs.list(CHAT) else {
        return Vec::new();
    };
    let mut sessions: Vec<(u64, u32, String)> = entries
        .into_iter()
        .filter(|e| e.kind == Kind::File)
        .filter(|e| {
            e.name
                .strip_suffix(".md")
                .is_some_and(|session| check_session(session).is_ok())
        })
        .filter_map(|e| {
            let path = format!("{CHAT}/{}", e.name);
            let meta = io.fs.stat(&path, false).ok()?;
            let (s, n) = meta.modified.unwrap_or((0, 0));
            Some((s, n, path))
        })
        .collect();
    if sessions.len() <= MAX_SESSIONS {
        return Vec::new();
    }
    sessions.sort();
    let excess = sessions.len() - MAX_SESSIONS;
    let mut removed = Vec::new();
    // Oldest first; a file record_turn did not write is passed over.
    for (_, _, path) in sessions {
        if removed.len() == excess {
            break;
        }
        let Ok(mem) = MemPath::parse(&format!("{ROOT}/{path}")) else {
            continue;
        };
        if &mem == keep || !recorded_here(io, &path) {
            continue;
        }
        let changes = crate::history::removal(io, &path, None);
        let gone = crate::history::tracked(io, changes, || match io.fs.remove_file(&path) {
            Ok(()) | Err(FsError::NotFound) => Ok(()),
            Err(e) => Err(crate::files::tool_error(e, &mem.display(), "remove")),
        });
        if gone.is_ok() {
            removed.push(mem);
        }
    }
    removed
}

/// Whether the file at `path` (in `chat/`) is a session `record_turn`
/// wrote: it opens with the title it gives, `# Conversation SESSION`.
fn recorded_here(io: &Io, path: &str) -> bool {
    let session = path
        .rsplit('/')
        .next()
        .and_then(|name| name.strip_suffix(".md"))
        .unwrap_or_default();
    let title = format!("# Conversation {session}\n\n");
    io.fs
        .open(path, false)
        .and_then(|file| files::read_exact(file.as_ref(), 0, title.len() as u64))
        .is_ok_and(|head| head == title.as_bytes())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn turn(n: usize, size: usize) -> String {
        format!(
            "## user · 2026-11-24T00:00:00Z\n{n} {}\n\n",
            "x".repeat(size)
        )
    }

    #[test]
    fn turns_are_counted_and_the_title_kept() {
        let (text, turns, dropped) = appended("# Conversation a\n\n", &turn(1, 10));
        assert_eq!((turns, dropped), (1, 0));
        assert!(text.starts_with("# Conversation a\n\n## user · "));
        let (text, turns, dropped) = appended(&text, &turn(2, 10));
        assert_eq!((turns, dropped), (2, 0));
        assert!(text.contains("\n1 x") && text.contains("\n2 x"));
    }

    #[test]
    fn the_oldest_turns_go_when_the_session_is_full() {
        let mut text = "# Conversation a\n\n".to_owned();
        let mut dropped_total = 0;
        for n in 0..40 {
            let (next, _, dropped) = appended(&text, &turn(n, 10_000));
            text = next;
            dropped_total += dropped;
        }
        assert!(text.len() <= MAX_SESSION_BYTES, "{}", text.len());
        assert!(dropped_total > 0);
        assert!(text.starts_with("# Conversation a\n\n## user"));
        assert!(text.contains("\n39 x"), "the newest turn stays");
        assert!(!text.contains("\n0 x"), "the oldest turn went");
    }

    #[test]
    fn roles_and_headings() {
        assert_eq!(Role::parse("assistant"), Some(Role::Assistant));
        assert_eq!(Role::parse("bot"), None);
        assert!(is_turn_heading("## tool · 2026-01-01T00:00:00Z"));
        assert!(!is_turn_heading("## Plans · later"));
        assert!(!is_turn_heading("# user · x"));
    }

    #[test]
    fn session_names_are_file_names() {
        assert!(check_session("2026-11-24_a.b").is_ok());
        for bad in ["", ".hidden", "a/b", "../x", "a b", &"x".repeat(65)] {
            assert!(check_session(bad).is_err(), "{bad:?}");
        }
    }
}
