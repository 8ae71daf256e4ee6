//! `create`: a new file with the given text; never overwrites.

use crate::error::{Result, ToolError};
use crate::files::{self, Parents};
use crate::io::Io;
use crate::notes::maintain;
use crate::output::Output;
use crate::vpath::MemPath;

pub fn create(io: &Io, shown: &str, file_text: &str) -> Result<Output> {
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
        index: maintain::after_change(io, &[&path]),
    })
}
