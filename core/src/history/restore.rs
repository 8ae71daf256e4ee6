//! Undoing: a file or a directory given back an earlier version's content
//! (`restore`), and every change made since a time, or one actor's, undone
//! where nobody changed the file after (`revert`). Each undo is a change
//! like any other: recorded as a version (`restored`, or `deleted` for a
//! file the undone change had made).

use std::collections::{BTreeMap, BTreeSet};

use super::pending::content_hash;
use super::query::{Filter, content_of, read};
use super::track::{Change, tracked};
use super::version::{Op, Version, is_redacted_name, within};
use crate::error::{FsError, Result, ToolError};
use crate::files;
use crate::io::Io;
use crate::notes::maintain;
use crate::storage::Kind;
use crate::vocab::settings::OUTSIDE_ACTOR;
use crate::vpath::MemPath;

/// What an undo did, path by path (`/memories/...`).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Undone {
    /// Given back an earlier content.
    pub restored: Vec<String>,
    /// Removed: the undone change had made them.
    pub removed: Vec<String>,
    /// Already as they were: nothing to do.
    pub unchanged: Vec<String>,
    /// Left as they are, with why (changed later by someone else, or by
    /// another program; content pruned or redacted).
    pub left: Vec<(String, String)>,
}

impl Undone {
    /// `shown` is left: what is there now is not a file.
    fn not_a_file(&mut self, shown: String) {
        self.left
            .push((shown, "a directory or link is there now".to_owned()));
    }
}

/// Gives `path` the content of version `number`: a file that version
/// touched, or every file under a directory as it was then (files made
/// since are left in place). A path in a shared directory is restored
/// from that store's history (where its versions, and their numbers,
/// are), written as the caller's change through the grant, so a
/// read-only grant refuses it and the version it makes is the shared
/// store's, with the caller as its actor.
pub fn restore(io: &Io, path: &MemPath, shown: &str, number: u64) -> Result<Undone> {
    let dir = super::shared::store_of(io, &path.key());
    super::shared::reading(io, path, |history, inner| {
        let caller = |key: &str| match &dir {
            Some(dir) => format!("{dir}/{key}"),
            None => key.to_owned(),
        };
        restore_from(history, io, &caller, &inner.key(), shown, number)
    })
}

/// [`restore`] of `key`, with the versions of `history` (whose paths
/// `caller` names as the caller does), written through `into`.
fn restore_from(
    history: &Io,
    into: &Io,
    caller: &dyn Fn(&str) -> String,
    key: &str,
    shown: &str,
    number: u64,
) -> Result<Undone> {
    // A file's own versions from the one asked for on, from the index by
    // path, when the version is one of them: the read costs what it
    // returns. A directory's, or a number that is not the file's, need
    // the whole log.
    let own = super::paths::touching_from(history, key, number)
        .map_err(|e| files::tool_error(e, crate::vpath::ROOT, "read the history of"))?;
    let versions = match own.iter().any(|v| v.v == number) {
        true => own,
        false => read(history)?,
    };
    let Some(chosen) = versions.iter().find(|v| v.v == number) else {
        return Err(ToolError::NoSuchVersion {
            path: shown.into(),
            version: number,
        });
    };
    let mut undone = Undone::default();
    if chosen.touches(key, false) {
        let Some(Some(_)) = state_at(&versions, key, number) else {
            return Err(ToolError::VersionIsDeletion {
                path: shown.into(),
                version: number,
            });
        };
        let at = versions
            .iter()
            .rev()
            .find(|v| v.v <= number && v.touches(key, false));
        let source = at.expect("a state was found");
        let bytes = source_content(history, source, shown)?;
        put(into, &caller(key), &bytes, &mut undone)?;
    } else if within(&chosen.path, key) || chosen.from.as_deref().is_some_and(|f| within(f, key)) {
        let paths: BTreeSet<&str> = versions
            .iter()
            .filter(|v| v.v <= number)
            .flat_map(|v| [Some(v.path.as_str()), v.from.as_deref()])
            .flatten()
            .filter(|p| within(p, key) && !is_redacted_name(p))
            .collect();
        for p in paths {
            if let Some(Some(_)) = state_at(&versions, p, number) {
                let source = versions
                    .iter()
                    .rev()
                    .find(|v| v.v <= number && v.touches(p, false))
                    .expect("a state was found");
                let outside = caller(p);
                match source_content(history, source, &shown_of(&outside)) {
                    Ok(bytes) => put(into, &outside, &bytes, &mut undone)?,
                    Err(e) => undone.left.push((shown_of(&outside), e.to_string())),
                }
            }
        }
    } else {
        return Err(ToolError::NoSuchVersion {
            path: shown.into(),
            version: number,
        });
    }
    Ok(undone)
}

/// Undoes every change made at or after `since` (only `by`'s, if given),
/// file by file: a file someone else changed after the first change undone
/// is left as it is and reported, as is one changed by another program
/// since memcap last recorded it.
pub fn revert(io: &Io, since: u64, by: Option<&str>) -> Result<Undone> {
    let unread = |e| files::tool_error(e, crate::vpath::ROOT, "read the history of");
    // The versions since the time, from the log's end, and each path's
    // own through the index by path: the reads cost what is undone, not
    // the whole history.
    let recent = match super::log::since(io, since).map_err(unread)? {
        Some(recent) => recent,
        None => read(io)?.into_iter().filter(|v| v.t >= since).collect(),
    };
    let mut lookup = super::paths::Lookup::open(io).map_err(unread)?;
    // What memcap found another program had done is a fact about the
    // files, not a change of memcap's to undo (unless asked for by name).
    let mine = Filter {
        since: Some(since),
        by: Some(by.unwrap_or_default().to_owned()).filter(|b| !b.is_empty()),
    };
    let undoes = |v: &Version| mine.keeps(v) && (by.is_some() || v.actor != OUTSIDE_ACTOR);
    let anyone = Filter {
        since: Some(since),
        by: None,
    };
    // Each path the changes to undo touched, with the first of them.
    let mut first: BTreeMap<&str, u64> = BTreeMap::new();
    for v in recent.iter().filter(|v| undoes(v)) {
        for p in [Some(v.path.as_str()), v.from.as_deref()]
            .into_iter()
            .flatten()
        {
            first.entry(p).or_insert(v.v);
        }
    }
    let mut undone = Undone::default();
    for (path, first_v) in first {
        let shown = shown_of(path);
        if is_redacted_name(path) {
            undone
                .left
                .push((shown, "its name was redacted".to_owned()));
            continue;
        }
        // From the first change undone on, after what was there before it.
        let touching = lookup.touching_from(io, path, first_v).map_err(unread)?;
        if let Some(other) = touching
            .iter()
            .find(|v| v.v > first_v && anyone.keeps(v) && !undoes(v))
        {
            undone.left.push((
                shown,
                format!(
                    "changed later by {} (version {}, {})",
                    other.actor,
                    other.v,
                    crate::text::rfc3339(other.t)
                ),
            ));
            continue;
        }
        // Another process rewrote the log between the two reads (a
        // redaction, retention): nothing is undone on what may be stale.
        let Some(latest) = touching.last() else {
            undone.left.push((
                shown,
                "its history changed while this ran: run the revert again".to_owned(),
            ));
            continue;
        };
        let expected = latest.left_at(path).map(|sha| sha.map(str::to_owned));
        let now = content_hash(io, path);
        let as_logged = match &expected {
            Some(Some(sha)) => now.as_deref() == Some(sha.as_str()),
            Some(None) => false,
            None => now.is_none(),
        };
        if !as_logged {
            undone
                .left
                .push((shown, "changed by another program since".to_owned()));
            continue;
        }
        match state_at(&touching, path, first_v - 1) {
            None => remove(io, path, &mut undone)?,
            Some(None) => undone
                .left
                .push((shown, "its earlier content was redacted".to_owned())),
            Some(Some(_)) => {
                let source = touching
                    .iter()
                    .rev()
                    .find(|v| v.v < first_v)
                    .expect("a state was found");
                match source_content(io, source, &shown) {
                    Ok(bytes) => put(io, path, &bytes, &mut undone)?,
                    Err(e) => undone.left.push((shown, e.to_string())),
                }
            }
        }
    }
    Ok(undone)
}

/// What was at `path` as of version `number`: `None` for no file,
/// `Some(hash)` for a file (`Some(None)` when its content was redacted).
fn state_at<'a>(versions: &'a [Version], path: &str, number: u64) -> Option<Option<&'a str>> {
    let last = versions
        .iter()
        .rev()
        .find(|v| v.v <= number && v.touches(path, false))?;
    last.left_at(path)
}

/// The content a version left at its path (a rename's too).
fn source_content(io: &Io, version: &Version, shown: &str) -> Result<Vec<u8>> {
    content_of(io, version, shown)
}

fn shown_of(path: &str) -> String {
    super::version::shown(path)
}

/// Gives the file at `key` the content `bytes` (making it, and its parents,
/// when missing), as a `restored` version.
fn put(io: &Io, key: &str, bytes: &[u8], undone: &mut Undone) -> Result<()> {
    let shown = shown_of(key);
    let path = MemPath::parse(&shown)?;
    let text = String::from_utf8_lossy(bytes);
    match files::lstat(io, &path) {
        Ok(meta) if meta.kind == Kind::File => {
            let (old, stamp) = files::read_bytes_for_edit(io, &path, &shown)?;
            if io.sha256_hex(&old) == io.sha256_hex(bytes) {
                undone.unchanged.push(shown);
                return Ok(());
            }
            crate::quota::check(io, &path, &shown, &text)?;
            files::replace_file_as(io, Op::Restored, &path, &shown, &old, bytes, stamp)?;
        }
        Ok(_) => {
            undone.not_a_file(shown);
            return Ok(());
        }
        Err(FsError::NotFound) => {
            crate::quota::check(io, &path, &shown, &text)?;
            files::create_parents(io, &path, &shown)?;
            files::create_file_as(io, Op::Restored, &path, &shown, bytes)?;
        }
        Err(e) => return Err(files::tool_error(e, &shown, "restore")),
    }
    let _ = maintain::after_change(io, &[&path]);
    undone.restored.push(shown);
    Ok(())
}

/// Removes the file at `key`, which the change undone had made.
fn remove(io: &Io, key: &str, undone: &mut Undone) -> Result<()> {
    let shown = shown_of(key);
    let path = MemPath::parse(&shown)?;
    match files::lstat(io, &path) {
        Ok(meta) if meta.kind == Kind::File => {}
        Ok(_) => {
            undone.not_a_file(shown);
            return Ok(());
        }
        Err(FsError::NotFound) => {
            undone.unchanged.push(shown);
            return Ok(());
        }
        Err(e) => return Err(files::tool_error(e, &shown, "remove")),
    }
    let old = files::read_bytes_for_edit(io, &path, &shown)
        .ok()
        .map(|(b, _)| b);
    let change = Change::new(key.to_owned(), Op::Deleted, old, None);
    tracked(io, vec![change], || {
        io.fs
            .remove_file(key)
            .map_err(|e| files::tool_error(e, &shown, "remove"))
    })?;
    let _ = files::sync_dir(io, &path.parent());
    let _ = maintain::after_change(io, &[&path]);
    undone.removed.push(shown);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// a.md made, changed, moved to b.md, made again, its content redacted;
    /// b.md deleted.
    fn story() -> Vec<Version> {
        vec![
            Version::sample(1, Op::Created, "a.md", None, Some("one")),
            Version::sample(2, Op::Modified, "a.md", None, Some("two")),
            Version::sample(3, Op::Renamed, "b.md", Some("a.md"), Some("two")),
            Version::sample(4, Op::Created, "a.md", None, Some("four")),
            Version::sample(5, Op::Deleted, "b.md", None, None),
            Version::sample(6, Op::Modified, "a.md", None, None),
        ]
    }

    #[test]
    fn the_state_at_a_version_is_what_the_newest_version_up_to_it_left() {
        let all = story();
        let at = |path: &str, n: u64| state_at(&all, path, n);
        assert_eq!(at("a.md", 0), None, "before its first version: no file");
        assert_eq!(at("a.md", 1), Some(Some("one")));
        assert_eq!(at("a.md", 2), Some(Some("two")));
        // Moved away: no file at the old name, the content at the new one.
        assert_eq!(at("a.md", 3), None);
        assert_eq!(at("b.md", 3), Some(Some("two")));
        assert_eq!(at("b.md", 2), None);
        assert_eq!(at("a.md", 4), Some(Some("four")));
        assert_eq!(at("b.md", 5), None, "deleted");
        assert_eq!(at("b.md", 99), None);
        // A redacted content: a file was there, its bytes are gone.
        assert_eq!(at("a.md", 6), Some(None));
        assert_eq!(at("a.md", 99), Some(None));
    }

    #[test]
    fn the_state_needs_only_the_newest_version_before_and_those_after() {
        // What `touching_from` gives a revert of a.md back to version 4:
        // version 4 on, after the newest before it. The answers up from
        // the one before are those of the whole story.
        let all = story();
        let from_4: Vec<Version> = all
            .iter()
            .filter(|v| v.touches("a.md", false))
            .skip_while(|v| v.v < 3)
            .cloned()
            .collect();
        assert_eq!(from_4.first().map(|v| v.v), Some(3));
        for n in 3..=7 {
            assert_eq!(
                state_at(&from_4, "a.md", n),
                state_at(&all, "a.md", n),
                "at {n}"
            );
        }
    }
}
