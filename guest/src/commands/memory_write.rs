//! `memory_write`: save a typed note, with memcap's frontmatter, creating or
//! replacing the file.

use wasip2::filesystem::types::{Descriptor, DescriptorType, ErrorCode};

use crate::error::{Result, ToolError};
use crate::fs;
use crate::notes::frontmatter::MAX_NAME_CHARS;
use crate::notes::{NoteType, frontmatter, maintain, today};

/// The longest description `memory_write` takes; the index shows less.
const MAX_WRITTEN_DESCRIPTION_CHARS: usize = 1000;

pub fn memory_write(
    root: &Descriptor,
    filename: &str,
    name: &str,
    description: &str,
    kind: NoteType,
    content: &str,
) -> Result<String> {
    let (path, shown) = super::note_path(filename)?;
    path.check_new(&shown)?;
    if name.trim().is_empty() {
        return Err(ToolError::NoteNeedsName);
    }
    let (name, description) = (name.trim(), description.trim());
    for (field, value, max) in [
        ("name", name, MAX_NAME_CHARS),
        ("description", description, MAX_WRITTEN_DESCRIPTION_CHARS),
    ] {
        let chars = value.chars().count();
        if chars > max {
            return Err(ToolError::FieldTooLong { field, chars, max });
        }
    }
    if [name, description, content]
        .iter()
        .any(|s| s.contains('\0'))
    {
        return Err(ToolError::NoteHasNul { path: shown });
    }
    let text = frontmatter::compose(name, description, kind, &today(), content);
    fs::check_parents(root, &path, &shown)?;
    crate::quota::check(root, &path, &shown, text.len() as u64)?;
    let verb = match fs::stat(root, &path) {
        Ok(st) if st.type_ == DescriptorType::RegularFile => {
            let old = fs::read_for_edit(root, &path, &shown)?;
            fs::replace_file(root, &path, &shown, text.as_bytes(), old.stamp)?;
            "Updated"
        }
        Ok(_) => {
            return Err(ToolError::NoteIsNotAFile { path: shown });
        }
        Err(ErrorCode::NoEntry) => {
            fs::create_parents(root, &path, &shown)?;
            fs::create_file(root, &path, &shown, text.as_bytes())?;
            "Saved"
        }
        Err(e) => return Err(fs::tool_error(e, &shown, "write")),
    };
    let note = maintain::after_change(root, &[&path]);
    Ok(format!(
        "{verb} note {shown} ({}: {}). The index /memories/MEMORY.md lists it.{}",
        kind.as_str(),
        crate::text::one_line(name, MAX_NAME_CHARS),
        note.as_deref().unwrap_or("")
    ))
}
