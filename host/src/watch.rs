//! A file watcher for long-lived hosts: it collects the paths other
//! programs change in the store (and its shared directories), and hands
//! them to the guest before the next call (`changed`), so an edit made in
//! place by an editor shows at once instead of at the next sweep.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use memcap_core::layout::{RESERVED, ROOT};
use notify::{RecursiveMode, Watcher as _};

use crate::Memory;

/// Watches a [`Memory`]'s directories while it lives.
pub struct Watcher {
    // Kept for its thread; dropping it stops the watching.
    _watcher: notify::RecommendedWatcher,
    pending: Arc<Mutex<BTreeSet<String>>>,
}

impl Watcher {
    /// Starts watching every directory `memory` grants (those that exist).
    pub fn start(memory: &Memory) -> notify::Result<Self> {
        let grants: Vec<(String, PathBuf)> = memory.grants();
        let pending = Arc::new(Mutex::new(BTreeSet::new()));
        let sink = Arc::clone(&pending);
        let mapping = grants.clone();
        let mut watcher =
            notify::recommended_watcher(move |event: notify::Result<notify::Event>| {
                let Ok(event) = event else { return };
                let mut pending = sink.lock().unwrap_or_else(|e| e.into_inner());
                for path in &event.paths {
                    if let Some(shown) = memory_path(&mapping, path) {
                        pending.insert(shown);
                    }
                }
            })?;
        for (_, dir) in &grants {
            if dir.is_dir() {
                watcher.watch(dir, RecursiveMode::Recursive)?;
            }
        }
        Ok(Self {
            _watcher: watcher,
            pending,
        })
    }

    /// Hands what changed since the last report to the guest. A failure is
    /// left for the call that follows to meet (and the sweep to repair).
    pub fn report(&self, memory: &Memory) {
        let paths: Vec<String> = {
            let mut pending = self.pending.lock().unwrap_or_else(|e| e.into_inner());
            std::mem::take(&mut *pending).into_iter().collect()
        };
        if !paths.is_empty() {
            let _ = memory.changed(&paths);
        }
    }
}

/// The `/memories/...` path a host path has, if it is in a grant and not
/// memcap's own (`.memcap`). The longest grant wins: shared directories may
/// sit inside the root on disk.
fn memory_path(grants: &[(String, PathBuf)], path: &Path) -> Option<String> {
    let (shown, rest) = grants
        .iter()
        .filter_map(|(shown, dir)| Some((shown, path.strip_prefix(dir).ok()?)))
        .min_by_key(|(_, rest)| rest.components().count())?;
    let mut out = shown.clone();
    for (i, part) in rest.components().enumerate() {
        let part = part.as_os_str().to_str()?;
        if i == 0 && part == RESERVED {
            return None;
        }
        out.push('/');
        out.push_str(part);
    }
    (out != ROOT).then_some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn host_paths_map_to_memory_paths_and_memcaps_own_are_dropped() {
        let grants = vec![
            ("/memories".to_owned(), PathBuf::from("/s/alice")),
            (
                "/memories/shared/team".to_owned(),
                PathBuf::from("/s/alice/t"),
            ),
        ];
        let at = |p: &str| memory_path(&grants, Path::new(p));
        assert_eq!(at("/s/alice/a/b.md").as_deref(), Some("/memories/a/b.md"));
        assert_eq!(
            at("/s/alice/t/x.md").as_deref(),
            Some("/memories/shared/team/x.md")
        );
        assert_eq!(at("/s/alice/.memcap/notes.jsonl"), None);
        assert_eq!(at("/s/alice/t/.memcap/tmp/1"), None);
        assert_eq!(at("/s/alice"), None);
        assert_eq!(at("/s/bob/a.md"), None);
    }
}
