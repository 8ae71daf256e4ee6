//! One version: what one change did to one file, when and for whom. The
//! log holds one per line, oldest first; nothing in it is ever changed
//! except by redaction (which blanks hashes) and retention (which drops
//! the oldest).

use serde::{Deserialize, Serialize};

/// What a change did to a file.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Op {
    Created,
    Modified,
    Deleted,
    /// Moved from [`Version::from`] to [`Version::path`], content kept.
    Renamed,
    /// Given an earlier version's content back (`history restore`,
    /// `history revert`).
    Restored,
}

impl Op {
    /// The word answers and listings use.
    pub fn as_str(self) -> &'static str {
        match self {
            Op::Created => "created",
            Op::Modified => "modified",
            Op::Deleted => "deleted",
            Op::Renamed => "renamed",
            Op::Restored => "restored",
        }
    }
}

/// Who erased a version's content, and when.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Redaction {
    /// Seconds since the Unix epoch.
    pub t: u64,
    pub actor: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub actor_id: Option<String>,
}

/// One line of the log.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Version {
    /// Numbered from 1 in the order the changes were made, per store.
    pub v: u64,
    /// Seconds since the Unix epoch.
    pub t: u64,
    /// The file, relative to the root (`notes/a.md`).
    pub path: String,
    pub op: Op,
    /// A rename's old path.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub from: Option<String>,
    /// The content's SHA-256 after the change: `None` when the file went
    /// (`deleted`) or the content was redacted.
    #[serde(default)]
    pub sha256: Option<String>,
    /// The content's size after the change (0 for `deleted`).
    pub size: u64,
    pub actor: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub actor_id: Option<String>,
    /// The SHA-256 of the content the change replaced or removed, when
    /// there was one and it is kept.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prev: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub redacted: Option<Redaction>,
    /// The history's bytes (log and kept content) once this version was
    /// added: what retention compares with its bound without a walk.
    #[serde(default)]
    pub total: u64,
    /// The stamp memcap's write left on the file: the next edit of a file
    /// still so stamped replaces this content, known without hashing it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stamp: Option<crate::storage::Stamp>,
}

impl Version {
    /// Whether this version touches `path`, or (`under`) anything below
    /// the directory `path` ("" is the root).
    pub fn touches(&self, path: &str, under: bool) -> bool {
        let hit = |p: &str| p == path || (under && within(p, path));
        hit(&self.path) || self.from.as_deref().is_some_and(hit)
    }

    /// What this version left at `path`: the content's hash (`Some(None)`
    /// when redacted), or `None` when it left no file there.
    pub fn left_at(&self, path: &str) -> Option<Option<&str>> {
        if self.path == path && self.op != Op::Deleted {
            Some(self.sha256.as_deref())
        } else {
            None
        }
    }
}

/// Whether `path` is below the directory `dir` ("" is the root).
pub fn within(path: &str, dir: &str) -> bool {
    dir.is_empty()
        || path
            .strip_prefix(dir)
            .is_some_and(|rest| rest.starts_with('/'))
}
