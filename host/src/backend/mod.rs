//! The backend seam: where a store's files live. A directory
//! ([`directory::DirectoryStore`]) and a PostgreSQL database
//! ([`database::DatabaseStore`]) are the two; [`crate::Memory`] runs the
//! same component, limits and warm instance above either, and calls the
//! backend at three points: before a call (take the store's lock, bring its
//! files up to date), when it makes an instance (grant the guest its
//! files), and after the call (save or throw away what it changed).

#[cfg(feature = "database")]
pub(crate) mod database;
pub(crate) mod directory;
pub(crate) mod entries;
#[cfg(feature = "in-memory")]
pub(crate) mod in_memory;
#[cfg(feature = "served")]
pub(crate) mod served;

use std::path::PathBuf;

use wasmtime_wasi::WasiCtxBuilder;

use memcap_core::layout::ROOT as GUEST_ROOT;
use memcap_core::storage::mounts::Place;

#[cfg(feature = "served")]
use crate::backend::served::Fs;
use crate::error::ToolError;
use entries::{CopyError, Entry, Exported, HostEdit, Reserved};

/// A directory or namespace granted beside the root: shared
/// (`/memories/shared/NAME`) or extra, read-only reference material
/// (`/memories/extra/NAME`).
#[derive(Clone, Debug)]
pub(crate) struct Grant {
    pub place: Place,
    pub name: String,
    /// A directory, or on a database store the namespace's name.
    pub target: PathBuf,
    pub read_only: bool,
}

/// Round trips this process has made to stores across a connection (a
/// database's), and how many of them failed: (0, 0) in a build without
/// such a backend. For the team server's metrics.
#[cfg(feature = "server")]
pub(crate) fn round_trips() -> (u64, u64) {
    #[cfg(feature = "database")]
    return database::round_trips();
    #[cfg(not(feature = "database"))]
    (0, 0)
}

/// The preopen name of a grant, as the guest finds it.
pub(crate) fn guest_path(place: Place, name: &str) -> String {
    format!("{GUEST_ROOT}/{}/{name}", place.dir())
}

/// What a backend grants a new instance: the runtime links the component
/// to wasmtime-wasi's file system for the one, to the served one for the
/// other.
pub(crate) enum Granted {
    /// Host directories, preopened on the instance's WASI context.
    Preopens,
    /// A file system the host serves itself (a database's namespaces).
    #[cfg(feature = "served")]
    Served(Fs),
}

impl Granted {
    /// Links the `wasi:filesystem` calls over host directories
    /// ([`Granted::Preopens`]): wasmtime-wasi's, with the directory
    /// backend's own non-blocking `open-at` over its one.
    pub(crate) fn link_preopens<T: wasmtime_wasi::WasiView + 'static>(
        linker: &mut wasmtime::component::Linker<T>,
    ) -> wasmtime::Result<()> {
        crate::wasi_link::add_host_filesystem(linker)?;
        directory::open_at::shadow(linker)
    }
}

/// The feed of a store nothing else changes (or that no one follows).
#[cfg(feature = "mcp")]
pub(crate) struct Quiet;

#[cfg(feature = "mcp")]
impl Feed for Quiet {
    fn news(&self) -> Vec<String> {
        Vec::new()
    }
    fn after_call(&self) {}
}

/// Why a change feed could not start (for the person running memcap).
#[cfg(feature = "mcp")]
#[derive(Debug, thiserror::Error)]
pub enum FeedError {
    #[error("could not watch the memory directory: {0}")]
    Watch(#[from] notify::Error),
    #[cfg(feature = "database")]
    #[error("could not start following the memory database: {0}")]
    Follow(std::io::Error),
}

/// What a feed that takes in changes on its own thread does to its
/// memory, which it must not keep alive. (Only a database's follower
/// does so far.)
#[cfg(feature = "mcp")]
#[cfg_attr(not(feature = "database"), allow(dead_code))]
pub(crate) trait CatchUp: Send + 'static {
    /// Takes in what changed behind the memory's back now (see
    /// [`Backend::take_news`]); `false` once the memory is gone.
    fn catch_up(&self) -> bool;
    /// Whether the memory is still there.
    fn alive(&self) -> bool;
}

/// What a change feed does around each call a server runs.
#[cfg(feature = "mcp")]
pub(crate) trait Feed: Send + Sync {
    /// Before a call: the paths (as the agent sees them) that changed
    /// behind the store's back since the last call, to hand the guest.
    fn news(&self) -> Vec<String>;
    /// After a call: what changed until now was the call's own doing.
    fn after_call(&self);
}

/// How a call the guest ran came out.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Outcome {
    /// It returned (its answer may still be a tool error): keep its changes.
    Returned,
    /// It trapped, ran out of time or memory, or the host gave up on it:
    /// nothing it changed may stay that the backend can take back.
    Stopped,
}

/// What [`Backend::begin`] or [`Backend::end`] says of the warm instance
/// and the call.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Instance {
    /// It must be made anew: the store's grants changed, or it saw changes
    /// that were not saved.
    pub stale: bool,
    /// (From `end` after [`Backend::begin_read_ahead`] only.) The call ran
    /// on files another host has changed since: its answer is thrown away
    /// and it must run again, after a plain `begin`.
    pub again: bool,
}

impl Instance {
    pub fn stale() -> Self {
        Self {
            stale: true,
            again: false,
        }
    }
}

/// One kind of store. Calls come one at a time (the caller holds a mutex),
/// and every [`Backend::begin`] that succeeds is followed by one
/// [`Backend::end`].
pub(crate) trait Backend: Send {
    /// Takes the store's cross-process lock and prepares the call; `writes`
    /// says the call may change files. An error means the call does not
    /// run, and holds nothing.
    fn begin(&mut self, writes: bool) -> Result<Instance, ToolError>;

    /// Like `begin(false)`, for a read that can run again: the backend may
    /// let it run before it knows its files are current, and `end` then
    /// says whether they were (`again` when not). A database asks for its
    /// versions and reads the answer after the call, so the round trip and
    /// the call overlap.
    fn begin_read_ahead(&mut self) -> Result<Instance, ToolError> {
        self.begin(false)
    }

    /// Ends the call and lets the lock go: a returned call's changes are
    /// saved, a stopped one's thrown away where the backend can. An error
    /// means the call's changes were not saved and the agent must hear so
    /// (the instance is made anew: it saw them).
    fn end(&mut self, outcome: Outcome) -> Result<Instance, ToolError>;

    /// Grants a new instance its files: preopened directories on `wasi`,
    /// or a file system of its own.
    fn grant(&self, wasi: &mut WasiCtxBuilder) -> wasmtime::Result<Granted>;

    /// Every directory and file of the root, with what `reserved` takes of
    /// `.memcap` (between begin and end).
    fn export(&mut self, reserved: Reserved) -> Result<Exported, CopyError>;

    /// The file at `path` (under the root), `None` where there is none
    /// (between begin and end).
    fn read_file(&mut self, path: &str) -> Result<Option<Vec<u8>>, CopyError>;

    /// Changes `path` (under the root) as another program would (between
    /// begin and end, saved by end).
    fn edit(&mut self, path: &str, edit: HostEdit<'_>) -> Result<(), CopyError>;

    /// Writes `entries` into the root, and `history` (a copy's version
    /// history, `.memcap/history/...`) beside them (between begin and end,
    /// saved by end). A root holding anything but `.memcap` is refused,
    /// unless `replace`: then everything in it goes first, memcap's derived
    /// state too, so it is rebuilt from what lands; its version history
    /// stays. A history is refused where one is kept already
    /// ([`CopyError::HasHistory`]), and with `replace`.
    fn import(
        &mut self,
        entries: &[Entry],
        history: &[Entry],
        replace: bool,
    ) -> Result<(), CopyError>;

    /// Makes what the last call erased (a redaction) leave the storage's
    /// own files too, where the storage keeps deleted bytes until it
    /// rewrites them (a database's dead rows); outside any call. A
    /// directory's removed files are gone from it already. The error is for
    /// the person who redacted: what remains where, and what clears it.
    fn purge(&mut self) -> Result<(), String> {
        Ok(())
    }

    /// Starts what tells a long-lived host of changes behind its back: a
    /// watcher of its directories whose news come before each call, or a
    /// follower of other hosts' commits that calls `memory`'s
    /// [`CatchUp::catch_up`] from its own thread.
    #[cfg(feature = "mcp")]
    fn start_feed(&mut self, memory: Box<dyn CatchUp>) -> Result<Box<dyn Feed>, FeedError>;

    /// The paths (as the guest names them) other hosts changed since the
    /// last time this was asked, found when the files were read again;
    /// only while a feed follows them, and at most [`MAX_NEWS`] at a time.
    #[cfg(feature = "mcp")]
    #[cfg_attr(not(feature = "database"), allow(dead_code))]
    fn take_news(&mut self) -> Vec<String> {
        Vec::new()
    }
}

/// The most paths one catching up hands the guest; the rest are found by
/// its sweep, as edits nobody reported are.
#[cfg(feature = "database")]
pub(crate) const MAX_NEWS: usize = 1_000;
