//! `memory_history`: the agent's read-only view of a file's versions (or
//! of everything under a directory), or one version's text. Nothing here
//! changes the history: restoring, pruning and redacting are the host's.

use crate::error::Result;
use crate::history;
use crate::history::query::{self, Filter};
use crate::io::Io;
use crate::output::{Output, Page, VersionInfo};
use crate::vpath::MemPath;

/// Versions on one page of the list.
pub const PER_PAGE: usize = 50;
/// The most bytes of an old version's text one answer holds.
pub const MAX_TEXT_BYTES: usize = 64 * 1024;

pub fn memory_history(
    io: &Io,
    shown: &str,
    version: Option<u64>,
    page: Option<u32>,
) -> Result<Output> {
    let path = MemPath::parse(shown)?;
    if let Some(number) = version {
        let (found, content) =
            history::version(io, &path, |io, inner| query::show(io, inner, shown, number))?;
        let bytes = content.unwrap_or_default();
        let (text, binary) = match String::from_utf8(bytes) {
            Ok(text) => (crate::text::cut(text, MAX_TEXT_BYTES), false),
            Err(_) => (String::new(), true),
        };
        return Ok(Output::OldVersion {
            path: shown.into(),
            version: VersionInfo::of(&found),
            text,
            binary,
        });
    }
    let versions = history::versions(io, &path, |io, inner| {
        query::list(io, inner, &Filter::default())
    })?;
    let page = Page::new(page, versions.len(), PER_PAGE);
    let shown_versions = versions
        .iter()
        .skip(page.first())
        .take(PER_PAGE)
        .map(VersionInfo::of)
        .collect();
    Ok(Output::History {
        path: shown.into(),
        versions: shown_versions,
        page,
    })
}
