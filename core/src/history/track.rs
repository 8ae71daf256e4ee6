//! Recording a change as it is made: the content it leaves and the content
//! it replaces are kept first, its versions logged in flight, then the
//! change is made and its versions put on record ([`tracked`]). A content memcap
//! finds that it never recorded (written by another program, or there
//! before history was kept) is recorded first as a version of its own, by
//! [`OUTSIDE_ACTOR`], so nothing memcap overwrites or removes is lost.

use super::version::{Op, Version};
use super::{blobs, log, packs, pending, retention, shared};
use crate::error::{FsError, Result, ToolError};
use crate::io::Io;
use crate::layout::{INDEX_FILE, is_reserved};
use crate::storage::within::Within;
use crate::storage::{Grant, Meta, Stamp};
use crate::text::one_line;
use crate::vocab::settings::{ACTOR, ACTOR_ID, DEFAULT_ACTOR, OUTSIDE_ACTOR};

/// One file a change is about to touch.
pub struct Change {
    /// Relative to the root (`notes/a.md`); a rename's new path.
    pub path: String,
    pub op: Op,
    /// A rename's old path.
    pub from: Option<String>,
    /// The content replaced or removed (a rename's content), when there
    /// was one that could be read.
    pub old: Option<Vec<u8>>,
    /// The content the change leaves; `None` when the file goes.
    pub new: Option<Vec<u8>>,
    /// The stamp of the content replaced, as it was read.
    pub old_stamp: Option<Stamp>,
    /// The hash of the content replaced, when known without reading it
    /// (`old` is then `None`): this instance's last change left it.
    pub old_sha: Option<String>,
    /// The stamp the change leaves on the file, when the writer knows it.
    pub new_stamp: Option<Stamp>,
}

impl Change {
    /// A change of `op` at `path` from `old` to `new`, stamps unknown.
    pub fn new(path: String, op: Op, old: Option<Vec<u8>>, new: Option<Vec<u8>>) -> Self {
        Self {
            path,
            op,
            from: None,
            old,
            new,
            old_stamp: None,
            old_sha: None,
            new_stamp: None,
        }
    }
}

impl Change {
    /// Whether the version history covers `path` (relative): the root's
    /// own files, not memcap's, not the generated MEMORY.md, not what a
    /// host mounts from elsewhere (which has its own store).
    pub fn covers(io: &Io, path: &str) -> bool {
        !path.is_empty()
            && path != INDEX_FILE
            && !is_reserved(path.split('/'))
            && io.fs.grant(path) == Grant::Root
    }
}

/// The most characters of an actor's name a version keeps (a longer one
/// is cut, with `…` last).
pub const MAX_ACTOR_CHARS: usize = 64;
/// The most characters of an actor's id a version keeps.
const MAX_ACTOR_ID_CHARS: usize = 128;

/// Who the host says the calls are for, as versions record it: on one line
/// (control and invisible characters, which could forge lines of `history
/// list`, become a space or go), at most [`MAX_ACTOR_CHARS`] characters,
/// and never a name memcap keeps for itself (see [`own_marker`]): such a
/// name is recorded in quotes, so `(outside memcap)` from a client is
/// `'(outside memcap)'`, which revert does not skip as another program's.
pub fn actor(io: &Io) -> (String, Option<String>) {
    let name = io
        .env
        .var(ACTOR)
        .map(|a| one_line(&a, MAX_ACTOR_CHARS - 1))
        .filter(|a| !a.is_empty())
        .map(|a| if own_marker(&a) { format!("'{a}'") } else { a })
        .unwrap_or_else(|| DEFAULT_ACTOR.to_owned());
    let id = io
        .env
        .var(ACTOR_ID)
        .map(|id| one_line(&id, MAX_ACTOR_ID_CHARS - 1))
        .filter(|id| !id.is_empty());
    (name, id)
}

/// Whether `name` has the shape of the names memcap writes for itself
/// (`(outside memcap)`: in parentheses), which no host may take.
pub fn own_marker(name: &str) -> bool {
    name.starts_with('(') && name.ends_with(')')
}

/// Makes the change `apply` makes, with its versions recorded. When the
/// history cannot be written the change is refused before anything
/// changes; once made, a failure to log it leaves the versions in flight
/// for the next change to settle, and the answer is the change's.
pub fn tracked<T>(io: &Io, changes: Vec<Change>, apply: impl FnOnce() -> Result<T>) -> Result<T> {
    // A change in a shared directory is that store's: recorded in its own
    // history at once, with the real actor, as its own host would.
    if let Some(dir) = changes.first().and_then(|c| shared::store_of(io, &c.path)) {
        let view = Within::new(io.fs, &dir);
        let own = Io::with_warm(&view, io.env, io.warm(), None);
        let inside = |p: &str| Some(p.strip_prefix(&dir)?.strip_prefix('/')?.to_owned());
        let changes = changes
            .into_iter()
            .filter_map(|mut c| {
                c.path = inside(&c.path)?;
                c.from = match c.from.take() {
                    Some(from) => Some(inside(&from)?),
                    None => None,
                };
                Some(c)
            })
            .collect();
        return track_in(&own, changes, apply, true);
    }
    track_in(io, changes, apply, false)
}

/// [`tracked`] in the store `io` reaches (`shared`: a shared directory's,
/// whose grant may be read-only: the change is then refused by its own
/// check, with its own words).
fn track_in<T>(
    io: &Io,
    changes: Vec<Change>,
    apply: impl FnOnce() -> Result<T>,
    shared: bool,
) -> Result<T> {
    let changes: Vec<Change> = changes
        .into_iter()
        .filter(|c| Change::covers(io, &c.path))
        .collect();
    let retention = retention::Retention::of(io);
    if changes.is_empty() || !retention.enabled() {
        return apply();
    }
    let (planned, fresh, mut tail, flight) = match plan(io, changes) {
        Ok(planned) => planned,
        Err(FsError::ReadOnly | FsError::Denied) if shared => return apply(),
        Err(error) => {
            return Err(ToolError::Fs {
                error,
                path: crate::vpath::ROOT.to_owned(),
                doing: "record the history of",
            });
        }
    };
    let result = apply();
    // What is not put on record now stays in flight, for the next change
    // to settle; upkeep waits for that change too.
    let logged = match &result {
        Ok(_) => log::commit(io, &tail, &flight).map(|()| planned.len()),
        // Part of it may have been made (a tree half removed): that part is
        // logged again, on record, and the versions in flight left dead.
        Err(_) => {
            let done: Vec<Version> = planned
                .iter()
                .filter(|v| pending::holds(io, v))
                .cloned()
                .collect();
            // A failed change keeps nothing it brought.
            for sha in fresh {
                if !done
                    .iter()
                    .any(|v| v.sha256.as_deref() == Some(sha.as_str()))
                {
                    let _ = blobs::remove(io, &sha);
                }
            }
            log::abandon(io, &mut tail, flight, &done).map(|()| done.len())
        }
    };
    if let Ok(added @ 1..) = logged {
        retention::upkeep(io, &tail, added, &retention);
        // After a failed change the next one reads the log again.
        if result.is_ok() {
            tail.recent.remember(&planned);
            log::keep(io, tail);
        }
    }
    result
}

/// Keeps the contents, logs what memcap never recorded, and writes the
/// versions of `changes` as in flight; with the hashes of the contents
/// the versions brought (kept for the first time), and the log's end.
fn plan(
    io: &Io,
    changes: Vec<Change>,
) -> std::result::Result<(Vec<Version>, Vec<String>, log::Tail, log::Flight), FsError> {
    let mut tail = log::tail_for_write(io)?;
    pending::settle(io, &mut tail)?;
    let mut next = tail.last.as_ref().map_or(1, |v| v.v + 1);
    let mut total = match &tail.last {
        Some(v) => v.total,
        None => tail.end,
    };
    let (actor, actor_id) = actor(io);
    let t = io.now_seconds();
    let mut found = Vec::new();
    let mut planned = Vec::new();
    let mut fresh = Vec::new();
    for change in changes {
        // Replacing what memcap wrote last, still as it left it: its hash
        // is on record and its copy kept.
        let at = change.from.as_deref().unwrap_or(&change.path);
        let known = match &change.old_sha {
            // Known unread: still kept if the log says this instance left it.
            Some(sha) => Some(sha.clone()).filter(|sha| tail.recent.left(at, sha)),
            None => change
                .old_stamp
                .filter(|s| s.hash.is_some())
                .and_then(|s| tail.recent.known(at, &s)),
        };
        // Not kept after all (another instance's change came between): read.
        let read = match (&change.old, &change.old_sha) {
            (None, Some(_)) if known.is_none() => pending::whole_file(io, at),
            _ => None,
        };
        let prev = match change.old.as_ref().or(read.as_ref()) {
            _ if known.is_some() => known,
            Some(old) => {
                let sha = io.sha256_hex(old);
                if !tail.recent.left(at, &sha) && blobs::put(io, &sha, old)? {
                    // Never recorded: another program's, or older than the history.
                    let at = change.from.clone().unwrap_or_else(|| change.path.clone());
                    let mut version = Version {
                        v: next,
                        t,
                        path: at,
                        op: Op::Modified,
                        from: None,
                        sha256: Some(sha.clone()),
                        size: old.len() as u64,
                        actor: OUTSIDE_ACTOR.to_owned(),
                        actor_id: None,
                        prev: None,
                        redacted: None,
                        total: 0,
                        stamp: None,
                        n: 0,
                        over: false,
                    };
                    next += 1;
                    total += old.len() as u64 + packs::RECORD;
                    total = with_line(&mut version, total);
                    found.push(version);
                }
                Some(sha)
            }
            None => None,
        };
        let (sha256, size) = match &change.new {
            Some(new) => {
                let sha = io.sha256_hex(new);
                // The content the change replaces is kept by now: a
                // rename's, left as it was, is not written again.
                let kept = prev.as_deref() == Some(sha.as_str());
                if !kept && blobs::put_new(io, &sha, new)? {
                    total += new.len() as u64 + packs::RECORD;
                    fresh.push(sha.clone());
                }
                (Some(sha), new.len() as u64)
            }
            None => (None, 0),
        };
        let mut version = Version {
            v: next,
            t,
            path: change.path,
            op: change.op,
            from: change.from,
            sha256,
            size,
            actor: actor.clone(),
            actor_id: actor_id.clone(),
            prev,
            redacted: None,
            total: 0,
            stamp: change.new_stamp,
            n: 0,
            over: false,
        };
        next += 1;
        total = with_line(&mut version, total);
        planned.push(version);
    }
    log::append_at(io, &mut tail, &found)?;
    let flight = log::begin(io, &mut tail, &planned)?;
    Ok((planned, fresh, tail, flight))
}

/// Sets `version.total` to `total` plus its own line's bytes (and its
/// records in the index by path), and returns it.
pub(super) fn with_line(version: &mut Version, total: u64) -> u64 {
    version.total = total;
    let line = serde_json::to_string(version).map_or(0, |l| l.len() as u64 + 1)
        + super::paths::cost(version);
    // The total's own digits may grow the line, and the count it carries
    // once logged ([`log::append_at`]); a few bytes over is fine.
    version.total = total + line + 4 + 16;
    version.total
}

/// Whether versions are being recorded (the host did not turn history off).
pub fn recording(io: &Io) -> bool {
    retention::Retention::of(io).enabled()
}

/// The changes removing `rel` (a file, or a directory and all under it)
/// makes; `meta` is `rel`'s, not followed, when the caller has just read it.
pub fn removal(io: &Io, rel: &str, meta: Option<Meta>) -> Vec<Change> {
    files_under(io, rel, meta, true)
        .into_iter()
        .map(|found| Change {
            old_stamp: found.stamp,
            old_sha: found.sha256,
            ..Change::new(found.path, Op::Deleted, found.content, None)
        })
        .collect()
}

/// The changes moving `from` (a file, or a directory and all under it) to
/// `to` makes: one `renamed` a file, content kept.
pub fn moving(io: &Io, from: &str, to: &str) -> Vec<Change> {
    files_under(io, from, None, false)
        .into_iter()
        .map(|found| Change {
            from: Some(found.path.clone()),
            old_stamp: found.stamp,
            ..Change::new(
                format!("{to}{}", &found.path[from.len()..]),
                Op::Renamed,
                found.content.clone(),
                found.content,
            )
        })
        .collect()
}

/// A file [`files_under`] found.
struct Under {
    path: String,
    /// Its content, when read.
    content: Option<Vec<u8>>,
    /// For a large one read, the stamp of what was read.
    stamp: Option<Stamp>,
    /// Its content's hash, when known without reading it.
    sha256: Option<String>,
}

/// Every regular file at or under `rel` that the history covers, with its
/// content when it can be read (none past the largest file memcap reads).
/// With `unread`, a file this instance's last changes left, still as they
/// left it, is not read: its hash is known ([`log::seen_as`]).
/// Nothing when history is off. `known` is `rel`'s metadata, not
/// followed, if the caller has it.
fn files_under(io: &Io, rel: &str, mut known: Option<Meta>, unread: bool) -> Vec<Under> {
    use crate::storage::Kind;
    let mut found = Vec::new();
    if !recording(io) {
        return found;
    }
    let mut stack = vec![rel.to_owned()];
    while let Some(path) = stack.pop() {
        let Some(meta) = known.take().or_else(|| io.fs.stat(&path, false).ok()) else {
            continue;
        };
        match meta.kind {
            Kind::File if Change::covers(io, &path) => {
                let sha256 = unread.then(|| log::seen_as(io, &path, &meta)).flatten();
                let (content, stamp) = match sha256 {
                    Some(_) => (None, None),
                    None => match pending::whole_file_stamped(io, &path, &meta) {
                        Some((bytes, stamp)) => (Some(bytes), stamp),
                        None => (None, None),
                    },
                };
                found.push(Under {
                    path,
                    content,
                    stamp,
                    sha256,
                });
            }
            Kind::Dir if !crate::layout::is_reserved(path.split('/')) => {
                for entry in io.fs.list(&path).unwrap_or_default() {
                    stack.push(format!("{path}/{}", entry.name));
                }
            }
            _ => {}
        }
    }
    found.sort_by(|a, b| a.path.cmp(&b.path));
    found
}
