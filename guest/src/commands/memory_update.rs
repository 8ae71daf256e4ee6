//! `memory_update`: replace text in a note, as `str_replace` does, and move
//! its `updated` date to today.

use wasip2::filesystem::types::Descriptor;

use super::str_replace::{replace_once, snippet};
use crate::error::Result;
use crate::fs;
use crate::notes::{frontmatter, maintain, today};

pub fn memory_update(
    root: &Descriptor,
    filename: &str,
    old_str: &str,
    new_str: &str,
) -> Result<String> {
    let (path, shown) = super::note_path(filename)?;
    super::require_file(root, &path, &shown)?;
    let file = fs::read_for_edit(root, &path, &shown)?;
    let (replaced, line) = replace_once(&file.text, &shown, old_str, new_str)?;
    let updated = frontmatter::with_updated(&replaced, &today());
    fs::replace_file(root, &path, &shown, updated.as_bytes(), file.stamp)?;
    let note = maintain::after_change(root, &[&path]);
    Ok(snippet(&updated, line) + note.as_deref().unwrap_or(""))
}
