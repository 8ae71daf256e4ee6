//! A file watcher for long-lived hosts: it collects the paths other
//! programs change in the store (and its shared directories), and hands
//! them to the guest before the next call (`changed`), so an edit made in
//! place by an editor shows at once instead of at the next sweep.
//!
//! The watcher also sees memcap's own writes. Those need no report (the
//! call that made them updated the indexes), so a path is reported only
//! when it is gone or its change time is later than the end of the last
//! call memcap served ([`Watcher::after_call`]).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::SystemTime;

use memcap_core::layout::{RESERVED, ROOT};
use notify::{RecursiveMode, Watcher as _};

use crate::backend::Feed;

/// Watches a store's directories while it lives.
pub struct Watcher {
    // Kept for its thread; dropping it stops the watching.
    _watcher: notify::RecommendedWatcher,
    /// `/memories/...` path → host path, for what changed since the last report.
    pending: Arc<Mutex<BTreeMap<String, PathBuf>>>,
    /// When the last call memcap served ended.
    own_until: Mutex<SystemTime>,
}

impl Watcher {
    /// Starts watching `grants` (each as the agent sees it, and on disk;
    /// those that exist).
    pub(crate) fn start(grants: Vec<(String, PathBuf)>) -> notify::Result<Self> {
        let pending = Arc::new(Mutex::new(BTreeMap::new()));
        let sink = Arc::clone(&pending);
        let mapping = grants.clone();
        let mut watcher =
            notify::recommended_watcher(move |event: notify::Result<notify::Event>| {
                let Ok(event) = event else { return };
                let mut pending = sink.lock().unwrap_or_else(|e| e.into_inner());
                for path in &event.paths {
                    if let Some(shown) = memory_path(&mapping, path) {
                        pending.insert(shown, path.clone());
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
            own_until: Mutex::new(SystemTime::UNIX_EPOCH),
        })
    }
}

impl Feed for Watcher {
    /// Marks the end of a call memcap served: what changed until now was
    /// memcap's own doing, unless its change time says later.
    fn after_call(&self) {
        *self.own_until.lock().unwrap_or_else(|e| e.into_inner()) = SystemTime::now();
    }

    /// What changed since the last report, memcap's own writes left out.
    fn news(&self) -> Vec<String> {
        let pending = {
            let mut pending = self.pending.lock().unwrap_or_else(|e| e.into_inner());
            std::mem::take(&mut *pending)
        };
        let own_until = *self.own_until.lock().unwrap_or_else(|e| e.into_inner());
        pending
            .into_iter()
            .filter(|(_, host)| changed_after(host, own_until))
            .map(|(shown, _)| shown)
            .collect()
    }
}

/// Whether `path` is gone or its status changed after `time` (the change
/// time moves with every write and rename, and cannot be set back).
fn changed_after(path: &Path, time: SystemTime) -> bool {
    use std::os::unix::fs::MetadataExt;
    let Ok(meta) = std::fs::symlink_metadata(path) else {
        return true;
    };
    let ctime = u64::try_from(meta.ctime()).ok().map(|secs| {
        SystemTime::UNIX_EPOCH
            + std::time::Duration::new(secs, u32::try_from(meta.ctime_nsec()).unwrap_or(0))
    });
    ctime.is_none_or(|c| c > time)
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
