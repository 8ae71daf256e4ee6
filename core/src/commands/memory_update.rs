//! `memory_update`: replace text in a note, as `str_replace` does, and move
//! its `updated` date to today.

use super::str_replace::{edited, replace_once};
use crate::error::{Result, ToolError};
use crate::files;
use crate::io::Io;
use crate::notes::{frontmatter, maintain};
use crate::output::Output;
use crate::vocab::Precondition;
use crate::vpath::MemPath;

pub fn memory_update(
    io: &Io,
    filename: &str,
    old_str: &str,
    new_str: &str,
    pre: Option<&Precondition>,
) -> Result<Output> {
    let (path, shown) = super::note_path(filename)?;
    super::refuse_chat(&path, &shown)?;
    super::require_file(io, &path, &shown)?;
    let file = files::read_for_edit(io, &path, &shown)?;
    super::precondition::check_content(io, pre, &shown, file.text.as_bytes())?;
    let (replaced, line) = replace_once(&file.text, &shown, old_str, new_str)?;
    let updated = frontmatter::with_updated(&replaced, &io.today());
    refuse_breaking(&file.text, &updated, &path, &shown)?;
    files::rewrite(io, &path, &shown, &file, &updated)?;
    Ok(edited(
        io,
        &shown,
        &updated,
        line,
        maintain::after_change(io, &[&path]),
    ))
}

/// Refuses an update that would leave a readable note broken: frontmatter
/// that no longer parses, or a type outside the four. A note that was
/// already broken may be changed freely (that is how it gets fixed).
fn refuse_breaking(old: &str, new: &str, path: &MemPath, shown: &str) -> Result<()> {
    let before = frontmatter::read(old, path.file_name());
    if before.problem.is_some() {
        return Ok(());
    }
    let after = frontmatter::read(new, path.file_name());
    let problem = match (&after.problem, before.frontmatter && !after.frontmatter) {
        (Some(problem), _) => problem.clone(),
        (None, true) => "it would remove the note's frontmatter".to_owned(),
        (None, false) => return Ok(()),
    };
    Err(ToolError::UpdateBreaksNote {
        path: shown.into(),
        problem,
    })
}
