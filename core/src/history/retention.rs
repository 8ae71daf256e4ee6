//! How much history a store keeps: the host's `MEMCAP_HISTORY_DAYS`
//! (default 30) and `MEMCAP_HISTORY_MIB` (default 256; 0 keeps none).
//! Past either bound the oldest versions go first, down to 90% of the
//! bytes, and a file's newest version is never one of them while the
//! file is there.

use std::collections::{HashMap, HashSet};

use super::version::{Op, Version};
use super::{blobs, log};
use crate::error::FsError;
use crate::io::Io;
use crate::vocab::settings::{HISTORY_DAYS, HISTORY_MIB};

const DEFAULT_DAYS: u64 = 30;
const DEFAULT_MIB: u64 = 256;
/// Ages are looked at once every this many versions (bytes every time:
/// the newest version carries the total).
const AGE_EVERY: u64 = 256;

/// The bounds the host set.
#[derive(Clone, Copy, Debug)]
pub struct Retention {
    pub days: u64,
    pub bytes: u64,
}

impl Retention {
    pub fn of(io: &Io) -> Self {
        let num = |name, default| {
            io.env
                .var(name)
                .and_then(|v| v.trim().parse::<u64>().ok())
                .unwrap_or(default)
        };
        Retention {
            days: num(HISTORY_DAYS, DEFAULT_DAYS),
            bytes: num(HISTORY_MIB, DEFAULT_MIB).saturating_mul(1 << 20),
        }
    }

    /// Whether versions are recorded at all.
    pub fn enabled(&self) -> bool {
        self.bytes > 0
    }
}

/// What a pruning did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Pruned {
    pub versions: usize,
    pub contents: usize,
}

/// After `newest` was logged: prunes when the history is over its bytes,
/// or (every [`AGE_EVERY`] versions) to drop what is past its days.
pub fn after(io: &Io, newest: &Version, retention: &Retention) -> Result<Pruned, FsError> {
    if newest.total > retention.bytes || newest.v.is_multiple_of(AGE_EVERY) {
        prune(io, retention)
    } else {
        Ok(Pruned::default())
    }
}

/// Drops the oldest versions past either bound (never a file's newest
/// while the file is there), their contents no version still needs, and
/// contents no version names (left by a crash).
pub fn prune(io: &Io, retention: &Retention) -> Result<Pruned, FsError> {
    let versions = log::read_all(io)?;
    let newest_of_live = newest_of_live(&versions);
    let mut uses: HashMap<&str, usize> = HashMap::new();
    let mut sizes: HashMap<&str, u64> = HashMap::new();
    for v in &versions {
        if let Some(sha) = v.sha256.as_deref() {
            *uses.entry(sha).or_default() += 1;
            sizes.insert(sha, v.size);
        }
    }
    let log_bytes: u64 = versions.iter().map(line_bytes).sum();
    let mut total = log_bytes + sizes.values().sum::<u64>();
    let target = retention.bytes / 10 * 9;
    let cutoff = io
        .now_seconds()
        .saturating_sub(retention.days.saturating_mul(86_400));
    let mut dropped = HashSet::new();
    let mut gone = Vec::new();
    for (i, v) in versions.iter().enumerate() {
        if total <= target && v.t >= cutoff {
            break;
        }
        if newest_of_live.contains(&i) {
            continue;
        }
        dropped.insert(i);
        total -= line_bytes(v).min(total);
        if let Some(sha) = v.sha256.as_deref() {
            let left = uses.get_mut(sha).expect("counted above");
            *left -= 1;
            if *left == 0 {
                total -= sizes[sha].min(total);
                gone.push(sha.to_owned());
            }
        }
    }
    let kept: Vec<Version> = versions
        .iter()
        .enumerate()
        .filter(|(i, _)| !dropped.contains(i))
        .map(|(_, v)| v.clone())
        .collect();
    let named: HashSet<&str> = kept.iter().filter_map(|v| v.sha256.as_deref()).collect();
    let mut pruned = Pruned {
        versions: dropped.len(),
        contents: 0,
    };
    if !dropped.is_empty() {
        log::rewrite(io, &with_totals(kept.clone(), &sizes))?;
    }
    for sha in gone {
        pruned.contents += usize::from(blobs::remove(io, &sha)?);
    }
    // Contents kept for a change that never happened (a crash between).
    if !super::pending::exists(io)? {
        for sha in blobs::list(io)? {
            if !named.contains(sha.as_str()) {
                pruned.contents += usize::from(blobs::remove(io, &sha)?);
            }
        }
    }
    Ok(pruned)
}

/// The versions that are the newest of a file that is still there (by
/// the log): their content is what a restore after the next change needs.
pub fn newest_of_live(versions: &[Version]) -> HashSet<usize> {
    let mut live: HashMap<&str, usize> = HashMap::new();
    for (i, v) in versions.iter().enumerate() {
        if let Some(from) = v.from.as_deref() {
            live.remove(from);
        }
        match v.op {
            Op::Deleted => {
                live.remove(v.path.as_str());
            }
            _ => {
                live.insert(v.path.as_str(), i);
            }
        }
    }
    live.into_values().collect()
}

/// `versions` with each one's running total of the history's bytes, as
/// a rewritten log holds them.
pub fn with_totals(mut versions: Vec<Version>, sizes: &HashMap<&str, u64>) -> Vec<Version> {
    let mut seen = HashSet::new();
    let mut total = 0;
    for v in &mut versions {
        if let Some(sha) = v.sha256.as_deref()
            && seen.insert(sha.to_owned())
        {
            total += sizes.get(sha).copied().unwrap_or(v.size);
        }
        total += line_bytes(v);
        v.total = total;
    }
    versions
}

fn line_bytes(v: &Version) -> u64 {
    serde_json::to_string(v).map_or(0, |l| l.len() as u64 + 1)
}
