//! `changed`: a host's file watcher reports paths other programs changed,
//! so the catalog and every derived index take them on the next call
//! instead of when a sweep finds them (an edit in place leaves its
//! directory's stamp as it was).

use crate::error::Result;
use crate::io::Io;
use crate::notes::maintain;
use crate::output::Output;
use crate::vpath::MemPath;

/// Brings the indexes in line with what is now at `paths` (`/memories/...`).
/// Paths memcap would refuse (outside the root, its own files) are skipped:
/// a watcher reports whatever moved.
pub fn changed(io: &Io, paths: &[String]) -> Result<Output> {
    let valid: Vec<MemPath> = paths
        .iter()
        .filter_map(|p| MemPath::parse(p).ok())
        .filter(|p| !p.is_root())
        .collect();
    let refs: Vec<&MemPath> = valid.iter().collect();
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
