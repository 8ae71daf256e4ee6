//! The memory commands, one module each: the six file commands of Claude's
//! memory tool, then the typed-note commands and the prompt.

pub mod create;
pub mod delete;
pub mod insert;
pub mod memory_delete;
pub mod memory_read;
pub mod memory_update;
pub mod memory_view;
pub mod memory_write;
pub mod prompt;
pub mod rename;
pub mod str_replace;
pub mod view;


use crate::error::{FsError, Result, ToolError};
use crate::io::Io;
use crate::storage::Kind;
use crate::files;
use crate::notes::maintain;
use crate::vpath::{MemPath, ROOT};

/// One page of a long answer: which items it shows, and the lines that say
/// where the rest is. Pages count from 1; a page past the last one is empty
/// and says how many there are.
pub struct Page {
    number: usize,
    pages: usize,
    per_page: usize,
    total: usize,
}

impl Page {
    pub fn new(asked: Option<u32>, total: usize, per_page: usize) -> Self {
        Self {
            number: asked.map_or(1, |n| (n as usize).max(1)),
            pages: total.div_ceil(per_page).max(1),
            per_page,
            total,
        }
    }

    /// Index of the first item on this page.
    pub fn first(&self) -> usize {
        (self.number - 1).saturating_mul(self.per_page)
    }

    /// The closing line: which page this is and how to ask for the next
    /// (`how` names the call), or that this page is past the last one.
    /// Nothing when everything fits on one page.
    pub fn footer(&self, how: &str, what: &str) -> String {
        if self.number > self.pages {
            return format!(
                "\nThere are only {} pages of {what}; {how} and page=1 shows the first.\n",
                self.pages
            );
        }
        if self.pages == 1 {
            return String::new();
        }
        let mut out = format!("\nPage {} of {}.", self.number, self.pages);
        if self.number < self.pages {
            let shown_to = self.number * self.per_page;
            let pages = if self.number + 1 == self.pages {
                format!("page {}", self.pages)
            } else {
                format!("pages {} to {}", self.number + 1, self.pages)
            };
            out.push_str(&format!(
                " {} more {what} on {pages}: {how} and page={} shows the next {}.",
                self.total - shown_to,
                self.number + 1,
                self.per_page.min(self.total - shown_to)
            ));
        }
        out.push('\n');
        out
    }
}

/// Checks that `path` names a regular file, with the SDK's messages for
/// str_replace and insert.
fn require_file(io: &Io, path: &MemPath, shown: &str) -> Result<()> {
    match files::stat(io, path) {
        Ok(st) if st.kind == Kind::File => Ok(()),
        Ok(_) => Err(ToolError::NotAFile { path: shown.into() }),
        Err(FsError::NotFound | FsError::NotADirectory) => Err(ToolError::missing(shown)),
        Err(e) => Err(files::tool_error(e, shown, "read")),
    }
}

/// A note's `filename` as the memory_* commands take it: relative to
/// `/memories` (`prefs/coffee.md`) or a full `/memories/...` path; `.md` is
/// added when the name has no extension. Returns the path and how messages
/// show it (`/memories/prefs/coffee.md`).
fn note_path(filename: &str) -> Result<(MemPath, String)> {
    let trimmed = filename.trim();
    let full = if trimmed == ROOT || trimmed.starts_with(&format!("{ROOT}/")) {
        trimmed.to_owned()
    } else if trimmed.starts_with('/') {
        return Err(ToolError::NoteNameAbsolute {
            filename: filename.into(),
        });
    } else {
        format!("/memories/{trimmed}")
    };
    let mut path = MemPath::parse(&full)?;
    if path.is_root() || trimmed.ends_with('/') {
        return Err(ToolError::NoteNameIsDirectory {
            filename: filename.into(),
        });
    }
    if !path.file_name().contains('.') {
        path = MemPath::parse(&format!("{}.md", path.display()))?;
    }
    if maintain::is_index(&path) {
        return Err(ToolError::IndexIsNotANote);
    }
    let shown = path.display();
    Ok((path, shown))
}
