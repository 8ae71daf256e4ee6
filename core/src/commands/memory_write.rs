//! `memory_write`: save a typed note, with memcap's frontmatter, creating or
//! replacing the file.

use crate::error::{FsError, Result, ToolError};
use crate::files;
use crate::io::Io;
use crate::notes::frontmatter::MAX_NAME_CHARS;
use crate::notes::{frontmatter, maintain};
use crate::output::Output;
use crate::storage::Kind;
use crate::vocab::{NoteType, Precondition};

/// The longest description `memory_write` takes; the index shows less.
const MAX_WRITTEN_DESCRIPTION_CHARS: usize = 1000;

pub fn memory_write(
    io: &Io,
    filename: &str,
    name: &str,
    description: &str,
    kind: NoteType,
    content: &str,
    pre: Option<&Precondition>,
) -> Result<Output> {
    let (path, shown) = super::note_path(filename)?;
    super::refuse_chat(&path, &shown)?;
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
    let text = frontmatter::compose(name, description, kind, &io.today(), content);
    let parents = files::check_parents(io, &path, &shown)?;
    crate::quota::check(io, &path, &shown, &text)?;
    let replaced = match files::stat(io, &path) {
        Ok(st) if st.kind == Kind::File => {
            let (old, stamp) = files::read_bytes_for_edit(io, &path, &shown)?;
            super::precondition::check_content(io, pre, &shown, &old)?;
            files::replace_file(io, &path, &shown, &old, text.as_bytes(), stamp)?;
            true
        }
        Ok(_) => {
            return Err(ToolError::NoteIsNotAFile { path: shown });
        }
        Err(FsError::NotFound) if pre.is_some() => {
            return Err(super::precondition::missing(
                pre.expect("checked"),
                &shown,
                false,
            ));
        }
        Err(FsError::NotFound) => {
            if parents == files::Parents::Missing {
                files::create_parents(io, &path, &shown)?;
            }
            files::create_file(io, &path, &shown, text.as_bytes())?;
            false
        }
        Err(e) => return Err(files::tool_error(e, &shown, "write")),
    };
    Ok(Output::NoteSaved {
        index: maintain::after_change(io, &[&path]),
        path: shown,
        note_type: kind,
        name: crate::text::one_line(name, MAX_NAME_CHARS),
        replaced,
        sha256: io.sha256_hex(text.as_bytes()),
    })
}
