//! Changes memcap did not make, recorded when a host reports them (a file
//! watcher, a `memcap copy`): each reported file whose content is not
//! what the log last recorded there gets a version by [`OUTSIDE_ACTOR`]
//! (or, when the host made the change itself for its user, by the calls'
//! actor: [`record`]), and a reported file that is gone where the log
//! still has one gets a `deleted`.

use std::collections::HashMap;

use super::track::Change;
use super::version::{Op, Version};
use super::{blobs, log, packs, pending, retention};
use crate::error::FsError;
use crate::io::Io;
use crate::vocab::settings::OUTSIDE_ACTOR;

/// The most files a walk's findings record in one call.
pub const MAX_FOUND_A_CALL: usize = 256;

/// Who a change a host reports is recorded for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Author {
    /// Another program ([`OUTSIDE_ACTOR`]): what a watcher or a walk finds.
    Outside,
    /// The calls' actor: the host changed the files itself, for its user.
    Caller,
}

/// What [`record`] did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Recorded {
    /// Versions added.
    pub added: usize,
    /// How many of the keys were looked at, from the first: the rest are
    /// left for another call once the call's walking budget runs out.
    pub taken: usize,
}

/// Records what is now at `keys` (relative paths) where the log says
/// otherwise, as another program's change, until the call's walking
/// budget runs out. Returns how many versions were added.
pub fn found(io: &Io, keys: &[String]) -> Result<usize, FsError> {
    record(io, keys, Author::Outside).map(|r| r.added)
}

/// [`found`], with the versions made by `author`.
pub fn record(io: &Io, keys: &[String], author: Author) -> Result<Recorded, FsError> {
    let retention = retention::Retention::of(io);
    if !keys.iter().any(|k| Change::covers(io, k)) || !retention.enabled() {
        return Ok(Recorded {
            added: 0,
            taken: keys.len(),
        });
    }
    pending::recover(io)?;
    let (state, last) = logged_now(io, keys)?;
    let (name, id) = match author {
        // Whoever the host serves did not make these: another program did.
        Author::Outside => (OUTSIDE_ACTOR.to_owned(), None::<String>),
        Author::Caller => super::track::actor(io),
    };
    let mut next = last.as_ref().map_or(1, |v| v.v + 1);
    let mut total = last.as_ref().map_or(0, |v| v.total);
    let t = io.now_seconds();
    let mut added = Vec::new();
    let mut taken = 0;
    for key in keys {
        if io.out_of_time() {
            break;
        }
        taken += 1;
        if !Change::covers(io, key) {
            continue;
        }
        let logged = state.get(key.as_str()).cloned().flatten();
        let logged = logged.as_deref();
        let now = pending::whole_file(io, key);
        let (op, sha, size, prev) = match (&now, logged) {
            (Some(bytes), logged) => {
                let sha = io.sha256_hex(bytes);
                if logged == Some(sha.as_str()) {
                    continue;
                }
                if blobs::put(io, &sha, bytes)? {
                    total += bytes.len() as u64 + packs::RECORD;
                }
                let op = if logged.is_some() {
                    Op::Modified
                } else {
                    Op::Created
                };
                (op, Some(sha), bytes.len() as u64, logged.map(str::to_owned))
            }
            (None, Some(logged)) => (Op::Deleted, None, 0, Some(logged.to_owned())),
            (None, None) => continue,
        };
        let mut version = Version {
            v: next,
            t,
            path: key.clone(),
            op,
            from: None,
            sha256: sha,
            size,
            actor: name.clone(),
            actor_id: id.clone(),
            prev: prev.filter(|p| !p.is_empty()),
            redacted: None,
            total: 0,
            stamp: None,
            n: 0,
            over: false,
        };
        next += 1;
        total = super::track::with_line(&mut version, total);
        added.push(version);
    }
    if !added.is_empty() {
        let mut tail = log::tail_for_write(io)?;
        log::append_at(io, &mut tail, &added)?;
        retention::upkeep(io, &tail, added.len(), &retention);
    }
    Ok(Recorded {
        added: added.len(),
        taken,
    })
}

/// The most keys looked up one at a time in the index by path; more are
/// found with one read of the whole log.
const LOOKED_UP: usize = 32;

/// Each key's content as the log last recorded it.
type Logged = HashMap<String, Option<String>>;

/// For each of `keys`, the content the log last recorded there (`""` for
/// a version whose content it did not keep; none for no file), and the
/// log's newest version. A few keys (what a watcher reports) are looked
/// up by path; many (a copy, a walk) read the log once.
fn logged_now(io: &Io, keys: &[String]) -> Result<(Logged, Option<Version>), FsError> {
    let left = |v: &Version, key: &str| {
        (v.path == key)
            .then(|| v.left_at(key).map(|s| s.unwrap_or("").to_owned()))
            .flatten()
    };
    let mut state = HashMap::new();
    if keys.len() <= LOOKED_UP {
        let mut lookup = super::paths::Lookup::open(io)?;
        for key in keys {
            let newest = lookup.touching(io, key, 1)?;
            state.insert(key.clone(), newest.last().and_then(|v| left(v, key)));
        }
        return Ok((state, log::last(io)?));
    }
    let versions = log::read_all(io)?;
    for v in &versions {
        if let Some(from) = v.from.as_deref() {
            state.insert(from.to_owned(), None);
        }
        state.insert(v.path.clone(), left(v, &v.path));
    }
    Ok((state, versions.last().cloned()))
}
