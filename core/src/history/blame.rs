//! Blame: who last changed each line of a file as it is now. The file's
//! versions are walked from the newest back, as git's blame does: each
//! older content is compared with the one after it, a line the older one
//! lacks is owned by the newer version, and the walk stops once every line
//! has its owner, so a line changed last week costs last week's versions.
//!
//! The answer is honest about what it cannot know: a line the history
//! has not recorded yet (another program's change the watcher has not
//! reported) has no version, and a line first seen after a version whose
//! content is gone (pruned, redacted), after the oldest version kept, or
//! matched by the coarse comparison a very large change gets, is marked
//! not exact: it was written by that version or an earlier one.

use std::collections::HashMap;

use similar::{Algorithm, DiffOp, capture_diff_slices};

use super::blobs;
use super::paths::Lookup;
use super::query::content_by;
use super::version::{Op, Version};
use crate::error::Result;
use crate::files;
use crate::io::Io;
use crate::vpath::MemPath;

/// The most versions one blame compares: older lines are owned by the
/// oldest compared, not exactly.
pub const MAX_VERSIONS: usize = 10_000;
/// The most lines, after the common start and end are set aside, that one
/// comparison matches exactly (Myers' diff, whose cost grows with the
/// product of lines and changes); a larger change is matched line by line
/// by content, not exactly.
const MAX_EXACT_LINES: usize = 4_000;

/// How many contents one blame keeps read, by hash, and how large each
/// may be (what it holds stays within 1 MiB).
const RECENT: usize = 4;
const RECENT_BYTES: usize = 256 << 10;

/// Who wrote one line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Owner {
    /// The version that wrote it; `None` for a change not recorded yet.
    pub version: Option<u64>,
    /// Seconds since the epoch (`None` with `version`).
    pub t: Option<u64>,
    pub actor: String,
    pub actor_id: Option<String>,
    /// `false` when the line may be older than `version` (see the module).
    pub exact: bool,
}

/// One line of the file now and who wrote it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Line {
    pub text: String,
    /// An index into [`Blame::owners`].
    pub owner: usize,
}

/// A file's lines, each with its owner.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Blame {
    pub lines: Vec<Line>,
    /// The owners the lines name, newest first, each once.
    pub owners: Vec<Owner>,
    /// How many versions were compared.
    pub compared: usize,
}

/// Blames the text file at `path` (a file as `read_text` reads it).
pub fn blame(io: &Io, path: &MemPath, shown: &str) -> Result<Blame> {
    if matches!(files::stat(io, path), Err(crate::error::FsError::NotFound)) {
        return Err(crate::error::ToolError::missing(shown));
    }
    let text = files::read_text(io, path, shown)?;
    blame_text(io, path, shown, &text)
}

/// [`blame`] of `text`, the file at `path` as the caller read it.
pub fn blame_text(io: &Io, path: &MemPath, shown: &str, text: &str) -> Result<Blame> {
    let mut lookup = Lookup::open(io).map_err(read_error)?;
    blame_looked(io, &mut lookup, path, shown, text)
}

/// [`blame_text`] through `lookup`, the call's lookups by path (so that
/// blaming several files opens the index once).
pub fn blame_looked(
    io: &Io,
    lookup: &mut Lookup,
    path: &MemPath,
    shown: &str,
    text: &str,
) -> Result<Blame> {
    let key = path.key();
    let chain = chain(io, lookup, &key)?;
    let now = io.sha256_hex(text.as_bytes());
    let mut walk = Walk::new(text.lines().count());
    let mut owner = match chain.first() {
        Some(v) if v.sha256.as_deref() == Some(now.as_str()) => Some(v),
        _ => None,
    };
    let start = usize::from(owner.is_some());
    let mut newer = text.to_owned();
    let mut compared = start;
    let mut stopped = false;
    let mut kept = blobs::Reader::default();
    // The last few contents read, by hash: a file edited back and forth
    // (a line toggled, a revert) has many versions of a few contents.
    let mut recent: Vec<(String, String)> = Vec::with_capacity(RECENT);
    if text.len() <= RECENT_BYTES {
        recent.push((now.clone(), text.to_owned()));
    }
    for older in chain.iter().skip(start) {
        if walk.open.is_empty() {
            break;
        }
        if io.out_of_time() {
            stopped = true;
            break;
        }
        compared += 1;
        let same = owner.is_some_and(|o| o.sha256.is_some() && o.sha256 == older.sha256);
        if !same {
            let sha = older.sha256.as_deref().filter(|_| older.redacted.is_none());
            let old = match sha.and_then(|sha| recent.iter().position(|(s, _)| s == sha)) {
                Some(at) => recent[at].1.clone(),
                None => {
                    let Ok(bytes) = content_by(io, older, shown, |sha| kept.get(io, sha)) else {
                        stopped = true;
                        break;
                    };
                    let old = String::from_utf8_lossy(&bytes).into_owned();
                    if let Some(sha) = sha.filter(|_| old.len() <= RECENT_BYTES) {
                        if recent.len() == RECENT {
                            recent.remove(0);
                        }
                        recent.push((sha.to_owned(), old.clone()));
                    }
                    old
                }
            };
            let (map, exact) = matched(
                &old.lines().collect::<Vec<_>>(),
                &newer.lines().collect::<Vec<_>>(),
            );
            walk.step(&map, owner, exact);
            newer = old;
        }
        owner = Some(older);
    }
    // What is left was there in the oldest version compared: its own when
    // that version made the file, not known when the walk stopped short.
    let made = owner.is_some_and(|o| o.op == Op::Created) && chain.len() < MAX_VERSIONS;
    walk.finish(owner, !stopped && made);
    Ok(walk.into_blame(text, compared))
}

/// The versions that made the file now at `key`, newest first: back
/// through renames to where it was made (a deletion before it ends it,
/// as does a rename away from the name it had then), at most
/// [`MAX_VERSIONS`]. Each name's versions are looked up by path (the
/// older name's after a rename, below it), not the whole log read.
fn chain(io: &Io, lookup: &mut Lookup, key: &str) -> Result<Vec<Version>> {
    let mut at = key.to_owned();
    let mut below = u64::MAX;
    let mut chain: Vec<Version> = Vec::new();
    'names: loop {
        let found = lookup.touching(io, &at, MAX_VERSIONS).map_err(read_error)?;
        let older = below;
        for v in found.into_iter().rev().filter(|v| v.v < older) {
            if chain.len() == MAX_VERSIONS {
                break 'names;
            }
            if v.path == at {
                if v.op == Op::Deleted {
                    break 'names;
                }
                let from = v.from.clone().filter(|_| v.op == Op::Renamed);
                below = v.v;
                chain.push(v);
                if let Some(from) = from {
                    at = from;
                    continue 'names;
                }
            } else if v.op == Op::Renamed && v.from.as_deref() == Some(at.as_str()) {
                break 'names;
            }
        }
        break;
    }
    Ok(chain)
}

/// A failure to read the history, as the agent is told it.
fn read_error(e: crate::error::FsError) -> crate::error::ToolError {
    files::tool_error(e, crate::vpath::ROOT, "read the history of")
}

/// For each line of `new`, the line of `old` it is, if any; and whether
/// the match is exact (Myers' diff) rather than by content alone.
fn matched(old: &[&str], new: &[&str]) -> (Vec<Option<usize>>, bool) {
    let head = old.iter().zip(new).take_while(|(a, b)| a == b).count();
    let tail = old[head..]
        .iter()
        .rev()
        .zip(new[head..].iter().rev())
        .take_while(|(a, b)| a == b)
        .count();
    let mut map: Vec<Option<usize>> = vec![None; new.len()];
    for (i, slot) in map.iter_mut().enumerate().take(head) {
        *slot = Some(i);
    }
    for k in 0..tail {
        map[new.len() - 1 - k] = Some(old.len() - 1 - k);
    }
    let (old_mid, new_mid) = (&old[head..old.len() - tail], &new[head..new.len() - tail]);
    if old_mid.len() + new_mid.len() <= MAX_EXACT_LINES {
        for op in capture_diff_slices(Algorithm::Myers, old_mid, new_mid) {
            if let DiffOp::Equal {
                old_index,
                new_index,
                len,
            } = op
            {
                for k in 0..len {
                    map[head + new_index + k] = Some(head + old_index + k);
                }
            }
        }
        return (map, true);
    }
    // Too large to match exactly: a line is kept when the older content
    // has an unclaimed line equal to it.
    let mut unclaimed: HashMap<&str, Vec<usize>> = HashMap::new();
    for (i, line) in old_mid.iter().enumerate().rev() {
        unclaimed.entry(line).or_default().push(head + i);
    }
    for (i, line) in new_mid.iter().enumerate() {
        map[head + i] = unclaimed.get_mut(line).and_then(Vec::pop);
    }
    (map, false)
}

/// The lines of the file now without an owner yet, each with where it is
/// in the content being compared.
struct Walk {
    /// (line now, line in the newer content)
    open: Vec<(usize, usize)>,
    owned: Vec<Option<usize>>,
    owners: Vec<Owner>,
    /// Where each owner is in `owners`, by version and exactness (a
    /// version's actor and time are its own).
    found: HashMap<(Option<u64>, bool), usize>,
}

impl Walk {
    fn new(lines: usize) -> Self {
        Self {
            open: (0..lines).map(|i| (i, i)).collect(),
            owned: vec![None; lines],
            owners: Vec::new(),
            found: HashMap::new(),
        }
    }

    /// The lines the older content lacks go to `owner` (the newer
    /// content's version, `None` for the file's unrecorded state).
    fn step(&mut self, map: &[Option<usize>], owner: Option<&Version>, exact: bool) {
        let mut gone = Vec::new();
        self.open.retain_mut(|(now, at)| match map[*at] {
            Some(older) => {
                *at = older;
                true
            }
            None => {
                gone.push(*now);
                false
            }
        });
        if !gone.is_empty() {
            let o = self.owner(owner, exact);
            for now in gone {
                self.owned[now] = Some(o);
            }
        }
    }

    fn finish(&mut self, owner: Option<&Version>, exact: bool) {
        if self.open.is_empty() {
            return;
        }
        let o = self.owner(owner, exact);
        for (now, _) in std::mem::take(&mut self.open) {
            self.owned[now] = Some(o);
        }
    }

    fn owner(&mut self, v: Option<&Version>, exact: bool) -> usize {
        let owners = &mut self.owners;
        *self
            .found
            .entry((v.map(|v| v.v), exact))
            .or_insert_with(|| {
                owners.push(match v {
                    Some(v) => Owner {
                        version: Some(v.v),
                        t: Some(v.t),
                        actor: v.actor.clone(),
                        actor_id: v.actor_id.clone(),
                        exact,
                    },
                    None => Owner {
                        version: None,
                        t: None,
                        actor: crate::vocab::settings::OUTSIDE_ACTOR.to_owned(),
                        actor_id: None,
                        exact,
                    },
                });
                owners.len() - 1
            })
    }

    fn into_blame(self, text: &str, compared: usize) -> Blame {
        Blame {
            lines: text
                .lines()
                .zip(self.owned)
                .map(|(text, owner)| Line {
                    text: text.to_owned(),
                    owner: owner.unwrap_or(0),
                })
                .collect(),
            owners: self.owners,
            compared,
        }
    }
}
