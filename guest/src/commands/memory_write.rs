//! `memory_write`: save a typed note, with memcap's frontmatter, creating or
//! replacing the file.

use wasip2::filesystem::types::{Descriptor, DescriptorType, ErrorCode};

use crate::error::{ErrorKind, Result, ToolError};
use crate::fs;
use crate::notes::{NoteType, frontmatter, maintain, today};

pub fn memory_write(
    root: &Descriptor,
    filename: &str,
    name: &str,
    description: &str,
    kind: NoteType,
    content: &str,
) -> Result<String> {
    let (path, shown) = super::note_path(filename)?;
    if name.trim().is_empty() {
        return Err(ToolError::new(
            ErrorKind::InvalidNote,
            "A note needs a name: a few words the index shows, such as \"Coffee preference\".",
        ));
    }
    if [name, description, content]
        .iter()
        .any(|s| s.contains('\0'))
    {
        return Err(ToolError::new(
            ErrorKind::NotText,
            format!("Cannot write {shown}: the note contains a NUL character; notes are text"),
        ));
    }
    let text = frontmatter::compose(name.trim(), description.trim(), kind, &today(), content);
    let verb = match fs::stat(root, &path) {
        Ok(st) if st.type_ == DescriptorType::RegularFile => {
            let old = fs::read_for_edit(root, &path, &shown)?;
            fs::replace_file(root, &path, &shown, text.as_bytes(), old.stamp)?;
            "Updated"
        }
        Ok(_) => {
            return Err(ToolError::new(
                ErrorKind::NotAFile,
                format!(
                    "{shown} is a directory or special file, not a note; choose another filename"
                ),
            ));
        }
        Err(ErrorCode::NoEntry) => {
            fs::create_parents(root, &path, &shown)?;
            fs::create_file(root, &path, &shown, text.as_bytes())?;
            "Saved"
        }
        Err(e) => return Err(ToolError::from_fs(e, &shown, "write")),
    };
    let note = maintain::after_change(root, &[&path]);
    Ok(format!(
        "{verb} note {shown} ({}: {}). The index /memories/MEMORY.md lists it.{}",
        kind.as_str(),
        name.trim(),
        note.as_deref().unwrap_or("")
    ))
}
