//! How much history a store keeps: the host's `MEMCAP_HISTORY_DAYS`
//! (default 30) and `MEMCAP_HISTORY_MIB` (default 256; 0 keeps none).
//! Past either bound the oldest versions go first, down to 90% of the
//! bytes, and a file's newest version is never one of them while the
//! file is there.

use std::collections::{HashMap, HashSet};

use super::version::{Op, Version};
use super::{log, packs};
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

    /// The most bytes the log itself may take: its bytes, and never past
    /// half of what one read of it takes ([`log::MAX_LOG_BYTES`]), so no
    /// pattern of writes (long paths renamed over and over) makes it too
    /// large to read, whatever the host's bound.
    pub fn log_bound(&self) -> u64 {
        self.bytes.min(log::MAX_LOG_BYTES / 2)
    }
}

/// An upkeep that failed: the step it was at (as `doing` in "could not
/// DOING /memories") and what the file system said.
pub type Failed = (&'static str, FsError);

/// The upkeep's steps, named in [`super::problem`]'s note.
const READ_LOG: &str = "read the history's log of";
const REWRITE_LOG: &str = "rewrite the history's log of";
const FILE_BY_PATH: &str = "file by path the history of";
const PLAN_PACKING: &str = "plan the packing of the history of";
const PACK: &str = "pack the contents of the history of";
const CLEAR_PROBLEM: &str = "clear the last upkeep's failure in the history of";

fn at(doing: &'static str) -> impl Fn(FsError) -> Failed {
    move |error| (doing, error)
}

/// What a pruning did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Pruned {
    pub versions: usize,
    pub contents: usize,
}

/// After a change was logged (`tail`, the log as it left it): prunes when
/// the history is over its bytes or its log over [`Retention::log_bound`]
/// (unless the last pruning could not get under them: then only every
/// [`AGE_EVERY`] versions, so a history its live files alone fill does
/// not cost every change a read of the whole log), and each time the
/// versions' count passes a multiple of [`AGE_EVERY`] when the oldest
/// version is past its days. At the other multiples it only files the
/// versions since in the index by path and packs their contents
/// ([`step`]). `added`: how many versions the change logged (a copy of
/// many files logs them at once).
pub fn after(
    io: &Io,
    tail: &log::Tail,
    added: usize,
    retention: &Retention,
) -> Result<Pruned, Failed> {
    let Some(newest) = &tail.last else {
        return Ok(Pruned::default());
    };
    let over = newest.total > retention.bytes || tail.end > retention.log_bound();
    let first = newest.v.saturating_sub(added.max(1) as u64 - 1).max(1);
    let crossed = (first - 1) / AGE_EVERY != newest.v / AGE_EVERY;
    if over && !newest.over {
        return prune(io, retention);
    }
    if !crossed {
        return Ok(Pruned::default());
    }
    let aged = !within_days(io, newest, retention).map_err(at(READ_LOG))?;
    match over || aged || !step(io, tail, retention)? {
        true => prune(io, retention),
        false => Ok(Pruned::default()),
    }
}

/// Whether nothing is past its days: the oldest version (the log's first
/// line, read from its start) is not, and the log counts its versions
/// (one written before memcap counted them is pruned to be counted).
fn within_days(io: &Io, newest: &Version, retention: &Retention) -> Result<bool, FsError> {
    if newest.n == 0 {
        return Ok(false);
    }
    let cutoff = io
        .now_seconds()
        .saturating_sub(retention.days.saturating_mul(86_400));
    Ok(log::first(io)?.is_none_or(|oldest| oldest.t >= cutoff))
}

/// The upkeep of a history within its bounds, which drops nothing: the
/// versions since the last upkeep filed in the index by path and the
/// contents they kept packed, from the index and the log's end, so that it
/// costs what was written since, not a read of the whole log
/// (docs/benchmarks.md, "The upkeep without the whole log"). `false` when
/// only a pruning will do (the index by path cannot be extended).
fn step(io: &Io, tail: &log::Tail, retention: &Retention) -> Result<bool, Failed> {
    if !super::paths::extend(io).map_err(at(FILE_BY_PATH))? {
        return Ok(false);
    }
    // Nothing is dropped, so contents no version names (a crash's) are
    // packed too, and left for a pruning to sweep.
    let plan = packs::plan(
        io,
        &HashSet::new(),
        &[],
        false,
        retention.bytes / 10 * 9,
        tail.end,
    )
    .map_err(at(PLAN_PACKING))?;
    packs::apply(io, plan).map_err(at(PACK))?;
    Ok(true)
}

/// [`after`], its failure kept for `memory_stats` ([`super::problem`])
/// rather than dropped: the change it follows is made and recorded.
pub fn upkeep(io: &Io, tail: &log::Tail, added: usize, retention: &Retention) {
    if let Err((doing, error)) = after(io, tail, added, retention) {
        super::problem::record(io, doing, error);
    }
}

/// Drops the oldest versions past either bound (never a file's newest
/// while the file is there), their contents no version still needs, and
/// contents no version names (left by a crash).
pub fn prune(io: &Io, retention: &Retention) -> Result<Pruned, Failed> {
    let (versions, mut placed) = log::read_all_placed(io).map_err(at(READ_LOG))?;
    let newest_of_live = newest_of_live(&versions);
    let mut uses: HashMap<&str, usize> = HashMap::new();
    let mut sizes: HashMap<&str, u64> = HashMap::new();
    for v in &versions {
        if let Some(sha) = v.sha256.as_deref() {
            *uses.entry(sha).or_default() += 1;
            sizes.insert(sha, v.size);
        }
    }
    let mut log_bytes: u64 = versions.iter().map(line_bytes).sum();
    let mut total =
        super::paths::FIXED + log_bytes + sizes.values().map(|s| s + packs::RECORD).sum::<u64>();
    let target = retention.bytes / 10 * 9;
    let log_target = retention.log_bound() / 10 * 9;
    let cutoff = io
        .now_seconds()
        .saturating_sub(retention.days.saturating_mul(86_400));
    let mut dropped = HashSet::new();
    let mut gone = Vec::new();
    for (i, v) in versions.iter().enumerate() {
        if total <= target && log_bytes <= log_target && v.t >= cutoff {
            break;
        }
        if newest_of_live.contains(&i) {
            continue;
        }
        dropped.insert(i);
        total -= line_bytes(v).min(total);
        log_bytes -= line_bytes(v).min(log_bytes);
        if let Some(sha) = v.sha256.as_deref() {
            let left = uses.get_mut(sha).expect("counted above");
            *left -= 1;
            if *left == 0 {
                total -= (sizes[sha] + packs::RECORD).min(total);
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
    // The contents no version needs go (and, unless a change is in
    // flight, those no version names: kept for a change that never
    // happened); the others are packed, and segments mostly of dropped
    // bytes written anew. Planned first, done once the log no longer
    // names what goes, and counted in its totals: what the segments still
    // hold of dropped contents is history on disk.
    let sweep = !super::pending::exists(io).map_err(at(READ_LOG))?;
    let plan =
        packs::plan(io, &named, &gone, sweep, target, log_bytes).map_err(at(PLAN_PACKING))?;
    let dead = plan.dead;
    total += dead;
    // Still over: only the newest versions of live files are left, and
    // the next changes say so rather than prune again each time.
    let over = total > retention.bytes || log_bytes > retention.log_bound();
    let was_over = versions.last().is_some_and(|v| v.over);
    let uncounted = versions
        .last()
        .is_some_and(|v| v.n as usize != versions.len());
    let miscounted = versions.last().is_some_and(|v| v.total < total);
    let rewritten = !dropped.is_empty() || over != was_over || uncounted || miscounted;
    let kept = match rewritten {
        true => {
            let mut kept = with_totals(kept, &sizes, dead);
            if let Some(last) = kept.last_mut() {
                last.over = over;
            }
            placed = log::rewrite(io, &kept).map_err(at(REWRITE_LOG))?;
            kept
        }
        false => versions,
    };
    pruned.contents += packs::apply(io, plan).map_err(at(PACK))?.dropped;
    // The index by path, of the log as it is now.
    super::paths::write(io, &kept, &placed).map_err(at(FILE_BY_PATH))?;
    super::problem::clear(io).map_err(at(CLEAR_PROBLEM))?;
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
/// a rewritten log holds them: from `dead`, the bytes the segments hold
/// of contents no version names, and each content with its index record.
pub fn with_totals(
    mut versions: Vec<Version>,
    sizes: &HashMap<&str, u64>,
    dead: u64,
) -> Vec<Version> {
    let mut seen = HashSet::new();
    let mut total = dead + super::paths::FIXED;
    for (i, v) in versions.iter_mut().enumerate() {
        v.n = i as u64 + 1;
        v.over = false;
        if let Some(sha) = v.sha256.as_deref()
            && seen.insert(sha.to_owned())
        {
            total += sizes.get(sha).copied().unwrap_or(v.size) + packs::RECORD;
        }
        total += line_bytes(v);
        v.total = total;
    }
    versions
}

/// A version's line in the log, and its records in the index by path.
fn line_bytes(v: &Version) -> u64 {
    serde_json::to_string(v).map_or(0, |l| l.len() as u64 + 1) + super::paths::cost(v)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_newest_version_of_each_file_still_there_is_kept() {
        let versions = [
            Version::sample(1, Op::Created, "a.md", None, Some("1")),
            Version::sample(2, Op::Modified, "a.md", None, Some("2")),
            Version::sample(3, Op::Created, "b.md", None, Some("3")),
            Version::sample(4, Op::Renamed, "c.md", Some("b.md"), Some("3")),
            Version::sample(5, Op::Created, "d.md", None, Some("5")),
            Version::sample(6, Op::Deleted, "d.md", None, None),
        ];
        let mut live: Vec<u64> = newest_of_live(&versions)
            .into_iter()
            .map(|i| versions[i].v)
            .collect();
        live.sort_unstable();
        // a.md's newest, and c.md's (b.md moved there); d.md is gone.
        assert_eq!(live, [2, 4]);
    }

    #[test]
    fn totals_count_each_content_once_and_every_line() {
        let versions = vec![
            Version::sample(1, Op::Created, "a.md", None, Some("x")),
            Version::sample(2, Op::Created, "b.md", None, Some("x")),
            Version::sample(3, Op::Created, "c.md", None, Some("y")),
        ];
        let sizes = HashMap::from([("x", 100), ("y", 7)]);
        let totaled = with_totals(versions.clone(), &sizes, 5);
        // Each line as it was measured: numbered, its total not yet set.
        let lines: Vec<u64> = (versions.iter().zip(1..))
            .map(|(v, n)| line_bytes(&Version { n, ..v.clone() }))
            .collect();
        let start = 5 + super::super::paths::FIXED;
        let record = packs::RECORD;
        assert_eq!(totaled[0].total, start + 100 + record + lines[0]);
        // The same content again: only its line.
        assert_eq!(totaled[1].total, totaled[0].total + lines[1]);
        assert_eq!(totaled[2].total, totaled[1].total + 7 + record + lines[2]);
        assert_eq!(totaled.iter().map(|v| v.n).collect::<Vec<_>>(), [1, 2, 3]);
    }

    #[test]
    fn the_log_stays_below_what_one_read_of_it_takes_whatever_the_hosts_bound() {
        let bound = |mib: u64| Retention {
            days: 30,
            bytes: mib << 20,
        };
        assert_eq!(bound(1).log_bound(), 1 << 20);
        for mib in [256, 10_240, u64::MAX >> 20] {
            assert_eq!(bound(mib).log_bound(), log::MAX_LOG_BYTES / 2, "{mib} MiB");
        }
    }
}
