//! Whether a note still holds, as answers mark it: the notes that say they
//! supersede it, and whether it is past its `valid_until`.

use crate::error::FsError;
use crate::graph::superseded::Superseded;
use crate::notes::frontmatter::{self, Meta};
use crate::notes::validity;

/// A note's standing.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Standing {
    /// The notes that supersede it (`/memories/...`, sorted).
    pub by: Vec<String>,
    /// Whether it is past its `valid_until`.
    pub expired: bool,
}

impl Standing {
    /// The standing of the note at root-relative `path`, which holds `text`,
    /// when it is `now` (seconds).
    pub fn of(
        superseded: &Superseded,
        path: &str,
        text: &str,
        now: u64,
    ) -> Result<Standing, FsError> {
        let file_name = path.rsplit('/').next().unwrap_or(path);
        Self::of_meta(superseded, path, &frontmatter::read(text, file_name), now)
    }

    /// As [`Standing::of`], for a note whose metadata the catalog holds
    /// (its `valid_until` among it): the note is not read.
    pub fn of_meta(
        superseded: &Superseded,
        path: &str,
        meta: &Meta,
        now: u64,
    ) -> Result<Standing, FsError> {
        let by = superseded.by(path)?;
        Ok(Standing {
            by: by.iter().map(|p| format!("/memories/{p}")).collect(),
            expired: validity::past(meta.valid_until.as_deref(), now),
        })
    }

    /// Whether the note holds: superseded by none, and not expired.
    pub fn holds(&self) -> bool {
        self.by.is_empty() && !self.expired
    }
}

/// Whether a note holding `text` is past its `valid_until` at `now`; a
/// `valid_until` that is no date or time is not.
pub fn expired(text: &str, now: u64) -> bool {
    validity::past(validity::read(text).valid_until.as_deref(), now)
}
