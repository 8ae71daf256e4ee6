//! `changed`: a host's file watcher reports paths other programs changed,
//! so the catalog and every derived index take them on the next call
//! instead of when a sweep finds them (an edit in place leaves its
//! directory's stamp as it was).

use crate::error::Result;
use crate::io::Io;
use crate::notes::maintain;
use crate::output::Output;
use crate::vpath::MemPath;

/// The most paths one report takes; the sweep finds the rest.
pub const MAX_PATHS: usize = 10_000;

/// Brings the indexes in line with what is now at `paths` (`/memories/...`).
/// Paths memcap would refuse (outside the root, its own files) are skipped:
/// a watcher reports whatever moved. A path given twice counts once, and
/// at most [`MAX_PATHS`] are taken, so a report's cost is bounded.
pub fn changed(io: &Io, paths: &[String]) -> Result<Output> {
    let mut seen = std::collections::HashSet::new();
    let valid: Vec<MemPath> = paths
        .iter()
        .filter(|p| seen.insert(p.as_str()))
        .filter_map(|p| MemPath::parse(p).ok())
        .filter(|p| !p.is_root())
        .take(MAX_PATHS)
        .collect();
    let refs: Vec<&MemPath> = valid.iter().collect();
    // Recorded before the indexes take them in; a history that cannot be
    // written does not keep the indexes stale (the next change memcap
    // makes to such a file keeps its content first, whatever happens here).
    let keys: Vec<String> = valid.iter().map(MemPath::key).collect();
    let _ = crate::history::found(io, &keys);
    let index = if refs.is_empty() {
        Default::default()
    } else {
        maintain::after_external_change(io, &refs)
    };
    Ok(Output::Refreshed {
        paths: valid.len(),
        index,
    })
}
