//! What a host does to the store beside the agent's calls: copy it out
//! and in (`memcap copy`), read and edit one file, and take in what other
//! hosts committed; each under the store's lock, with no guest call.

use super::call::Call;
use super::*;
#[cfg(feature = "mcp")]
use crate::backend::{CatchUp, Feed, FeedError};

impl Memory {
    /// Every directory and file of the store, memcap's `.memcap` left out,
    /// read under the store's lock (for `memcap copy`).
    pub fn export(&self) -> Result<Vec<Entry>, CopyError> {
        self.export_naming_skipped().map(|e| e.entries)
    }

    /// [`Memory::export`], with what it left out and why: links, FIFOs and
    /// other special files, names that are not UTF-8, and files or
    /// directories that could not be read (the export goes on past each).
    pub fn export_naming_skipped(&self) -> Result<Exported, CopyError> {
        self.with_backend(false, |backend| backend.export(Reserved::Left))
    }

    /// [`Memory::export_naming_skipped`] with the store's version history
    /// in [`Exported::history`] (its files under `.memcap/history`), for a
    /// copy that carries it ([`Memory::import_with_history`]).
    pub fn export_with_history(&self) -> Result<Exported, CopyError> {
        let mut exported = self.with_backend(false, |backend| backend.export(Reserved::History))?;
        let (history, entries) = std::mem::take(&mut exported.entries)
            .into_iter()
            .filter(|e| e.path() != memcap_core::layout::RESERVED)
            .partition(|e| in_history(e.path()));
        exported.entries = entries;
        exported.history = history;
        Ok(exported)
    }

    /// [`Memory::export`] with memcap's own `.memcap` files too (its
    /// catalog journal and derived state), for tools that inspect them.
    pub fn export_all(&self) -> Result<Vec<Entry>, CopyError> {
        self.with_backend(false, |backend| backend.export(Reserved::All))
            .map(|e| e.entries)
    }

    /// The file at `path` (relative to the root: `notes/a.md`), read by the
    /// host under the store's lock, bypassing the component; `None` where
    /// there is no file. For tools and tests: the agent never reaches this.
    pub fn host_read(&self, path: &str) -> Result<Option<Vec<u8>>, CopyError> {
        self.with_backend(false, |backend| backend.read_file(path))
    }

    /// Changes `path` (relative to the root) as another program would,
    /// bypassing the component, under the store's lock; memcap's indexes
    /// take it in as they take any edit behind their back. For tools and
    /// tests: the agent never reaches this.
    pub fn host_edit(&self, path: &str, edit: HostEdit<'_>) -> Result<(), CopyError> {
        self.with_backend(true, |backend| backend.edit(path, edit))
    }

    /// Writes `entries` into the store under its lock, saved together; a
    /// store that holds anything is refused unless `replace`, which removes
    /// what is there first. memcap's derived state (the catalog, MEMORY.md's
    /// generated part, the search index and the graph) is rebuilt from the
    /// files by the next call.
    pub fn import(&self, entries: &[Entry], replace: bool) -> Result<(), CopyError> {
        self.import_with_history(entries, &[], replace)
    }

    /// [`Memory::import`] with a copy's version history (from
    /// [`Memory::export_with_history`]) kept beside the files, into a store
    /// that keeps none yet ([`CopyError::HasHistory`] otherwise). A store
    /// replaced keeps its own history; what the copy replaced is recorded
    /// by the caller ([`Memory::history_record`]), so a revert undoes it.
    pub fn import_with_history(
        &self,
        entries: &[Entry],
        history: &[Entry],
        replace: bool,
    ) -> Result<(), CopyError> {
        crate::backend::entries::check_limits(entries, self.limits())?;
        self.with_backend(true, |backend| backend.import(entries, history, replace))
    }

    /// Starts what tells this long-lived host of changes behind the
    /// store's back (for [`crate::feed::ChangeFeed`]).
    #[cfg(feature = "mcp")]
    pub(crate) fn start_feed(&self, memory: Box<dyn CatchUp>) -> Result<Box<dyn Feed>, FeedError> {
        self.lock().backend.start_feed(memory)
    }

    /// Reads what other hosts committed now, off any caller's path, and
    /// hands the guest the paths they changed (see [`Memory::changed`]).
    #[cfg(feature = "mcp")]
    pub(crate) fn catch_up(&self) -> Result<(), ToolError> {
        let news = {
            let mut served = self.lock();
            let served = &mut *served;
            self.settle(served)?;
            if served.backend.begin(false)?.stale {
                served.warm = None;
            }
            if served.backend.end(Outcome::Returned)?.stale {
                served.warm = None;
            }
            served.backend.take_news()
        };
        if !news.is_empty() {
            self.changed(&news)?;
        }
        Ok(())
    }

    /// Runs `f` on the backend between begin and end, with no guest call.
    /// The warm instance stays: like any change behind its back, what `f`
    /// wrote is found by its next call.
    pub(super) fn with_backend<R>(
        &self,
        writes: bool,
        f: impl FnOnce(&mut dyn Backend) -> Result<R, CopyError>,
    ) -> Result<R, CopyError> {
        let mut served = self.lock();
        let served = &mut *served;
        self.settle(served)?;
        if served.backend.begin(writes)?.stale {
            served.warm = None;
        }
        let mut call = Call {
            backend: served.backend.as_mut(),
            ended: false,
        };
        let result = f(&mut *call.backend);
        let ended = call.end(if result.is_ok() {
            Outcome::Returned
        } else {
            Outcome::Stopped
        });
        if ended.as_ref().is_ok_and(|e| e.stale) || ended.is_err() {
            served.warm = None;
        }
        let value = result?;
        ended?;
        Ok(value)
    }
}
