//! `create`: a new file with the given text; never overwrites, but with a
//! precondition, which replaces the file's whole content while it still
//! holds what the precondition names.

use crate::error::{Result, ToolError};
use crate::files::{self, Parents};
use crate::io::Io;
use crate::notes::maintain;
use crate::output::Output;
use crate::storage::Kind;
use crate::vocab::Precondition;
use crate::vpath::MemPath;

pub fn create(io: &Io, shown: &str, file_text: &str, pre: Option<&Precondition>) -> Result<Output> {
    let path = MemPath::parse(shown)?;
    super::refuse_chat(&path, shown)?;
    path.check_new(shown)?;
    let exists = || ToolError::FileExists { path: shown.into() };
    if path.is_root() {
        return Err(exists());
    }
    if file_text.contains('\0') {
        return Err(ToolError::TextHasNul { path: shown.into() });
    }
    if let Some(pre) = pre {
        return replace(io, &path, shown, file_text, pre);
    }
    // A taken name is refused before anything else is said: looked up only
    // when something fails (the link into place fails on a taken name, so a
    // create that succeeds never pays for the lookup). A name that is taken
    // has its parents already, so nothing is made before it is refused.
    let taken = |e: ToolError| match files::exists(io, &path) {
        Ok(true) => exists(),
        Ok(false) => e,
        Err(e) => files::tool_error(e, shown, "create"),
    };
    files::check_parents(io, &path, shown)
        .and_then(|parents| {
            crate::quota::check(io, &path, shown, file_text)?;
            if parents == Parents::Missing {
                files::create_parents(io, &path, shown)?;
            }
            files::create_file(io, &path, shown, file_text.as_bytes())
        })
        .map_err(taken)?;
    Ok(Output::Created {
        path: shown.into(),
        sha256: io.sha256_hex(file_text.as_bytes()),
        index: maintain::after_change(io, &[&path]),
    })
}

/// `create` with a precondition: the file's content becomes `file_text` if
/// it still is what `pre` names (the write lands only if nothing changed
/// the file since it was read for the check).
fn replace(
    io: &Io,
    path: &MemPath,
    shown: &str,
    file_text: &str,
    pre: &Precondition,
) -> Result<Output> {
    match files::stat(io, path) {
        Ok(st) if st.kind == Kind::File => {}
        Ok(st) => {
            return Err(super::precondition::missing(
                pre,
                shown,
                st.kind == Kind::Dir,
            ));
        }
        Err(_) => return Err(super::precondition::missing(pre, shown, false)),
    }
    let (old, stamp) = files::read_bytes_for_edit(io, path, shown)?;
    super::precondition::check_content(io, Some(pre), shown, &old)?;
    crate::quota::check(io, path, shown, file_text)?;
    files::replace_file(io, path, shown, &old, file_text.as_bytes(), stamp)?;
    Ok(Output::Created {
        path: shown.into(),
        sha256: io.sha256_hex(file_text.as_bytes()),
        index: maintain::after_change(io, &[path]),
    })
}
