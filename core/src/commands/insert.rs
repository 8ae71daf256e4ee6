//! `insert`: add text as new lines after a given line of a file.

use crate::error::{Result, ToolError};
use crate::files;
use crate::io::Io;
use crate::notes::maintain;
use crate::output::Output;
use crate::vocab::Precondition;
use crate::vpath::MemPath;

pub fn insert(
    io: &Io,
    shown: &str,
    insert_line: i64,
    insert_text: &str,
    pre: Option<&Precondition>,
) -> Result<Output> {
    let path = MemPath::parse(shown)?;
    super::refuse_chat(&path, shown)?;
    super::require_file(io, &path, shown)?;
    let file = files::read_for_edit(io, &path, shown)?;
    super::precondition::check_content(io, pre, shown, file.text.as_bytes())?;
    let mut lines: Vec<&str> = file.text.split('\n').collect();
    if lines.last() == Some(&"") {
        lines.pop();
    }
    let count = lines.len();
    let at = usize::try_from(insert_line)
        .ok()
        .filter(|&at| at <= count)
        .ok_or(ToolError::InvalidLine {
            line: insert_line,
            count,
        })?;
    lines.insert(at, insert_text.trim_end_matches('\n'));
    let mut updated = lines.join("\n");
    if !updated.ends_with('\n') {
        updated.push('\n');
    }
    files::rewrite(io, &path, shown, &file, &updated)?;
    Ok(Output::Inserted {
        path: shown.into(),
        sha256: io.sha256_hex(updated.as_bytes()),
        index: maintain::after_change(io, &[&path]),
    })
}
