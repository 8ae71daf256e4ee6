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
    /// How many versions the log holds with this one, so `memory_stats`
    /// reads the log's end, not all of it (0: not known, a log written
    /// before memcap counted).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub n: u64,
    /// The last pruning could not bring the history within its bounds (the
    /// newest versions of live files alone pass them): carried from line
    /// to line, so pruning is tried again every few hundred versions, not
    /// after every change.
    #[serde(default, skip_serializing_if = "is_false")]
    pub over: bool,
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}

fn is_false(b: &bool) -> bool {
    !*b
}

#[cfg(test)]
impl Version {
    /// A version for unit tests: number `v` (its time too), one byte, by `a`.
    pub(crate) fn sample(
        v: u64,
        op: Op,
        path: &str,
        from: Option<&str>,
        sha: Option<&str>,
    ) -> Self {
        Version {
            v,
            t: v,
            path: path.to_owned(),
            op,
            from: from.map(str::to_owned),
            sha256: sha.map(str::to_owned),
            size: 1,
            actor: "a".to_owned(),
            actor_id: None,
            prev: None,
            redacted: None,
            total: 0,
            stamp: None,
            n: 0,
            over: false,
        }
    }
}

impl Version {
    /// Whether this version touches `path`, or (`under`) anything below
    /// the directory `path` ("" is the root).
    pub fn touches(&self, path: &str, under: bool) -> bool {
        let hit = |p: &str| p == path || (under && within(p, path));
        hit(&self.path) || self.from.as_deref().is_some_and(hit)
    }

    /// Whether `actor` (a name, or an actor's id) made this version.
    pub fn made_by(&self, actor: &str) -> bool {
        names_actor(&self.actor, self.actor_id.as_deref(), actor)
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

/// Whether `actor`, as a caller gives it (a name, or an actor's id),
/// names the actor called `name` with id `id`.
pub fn names_actor(name: &str, id: Option<&str>, actor: &str) -> bool {
    name == actor || id == Some(actor)
}

/// The path that stands for a redacted file name in every version that
/// had it: numbered by the first of them, so its versions still form one
/// chain, and nothing of the name is kept.
pub fn redacted_name(first: u64) -> String {
    format!("{}/{first}", crate::layout::HISTORY_REDACTED_NAMES)
}

/// Whether `path` stands for a redacted file name ([`redacted_name`]).
pub fn is_redacted_name(path: &str) -> bool {
    within(path, crate::layout::HISTORY_REDACTED_NAMES)
}

/// How answers show a redacted file name.
pub const REDACTED_SHOWN: &str = "(redacted)";

/// How answers show a path of the history: `/memories/...`, or
/// [`REDACTED_SHOWN`] for a redacted name.
pub fn shown(path: &str) -> String {
    match is_redacted_name(path) {
        true => REDACTED_SHOWN.to_owned(),
        false => format!("{}/{path}", crate::vpath::ROOT),
    }
}

/// Whether `path` is below the directory `dir` ("" is the root).
pub fn within(path: &str, dir: &str) -> bool {
    dir.is_empty()
        || path
            .strip_prefix(dir)
            .is_some_and(|rest| rest.starts_with('/'))
}
