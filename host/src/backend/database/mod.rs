//! The database backend: a namespace is a tree of rows in PostgreSQL,
//! served to the guest as its file system ([`crate::backend::served`]), so the same
//! component runs unchanged and can name nothing outside its namespaces.
//!
//! One tool call is one transaction: [`Backend::begin`] takes each granted
//! namespace's advisory lock (the cross-host form of a directory's
//! `flock`, in one order: by namespace id) and reads its version; a
//! namespace another host changed since this one last saw it is read
//! again. The call runs on the trees held here, with no round trip per
//! file operation; [`Backend::end`] writes the paths it changed in one
//! batch, bumps the version and commits. A stopped call, a killed host or
//! a lost connection rolls back, so the database never holds a change the
//! agent was told failed, nor half of one.

mod conn;
mod copy;
mod ending;
mod error;
#[cfg(feature = "mcp")]
pub(crate) mod follow;
#[cfg(feature = "mcp")]
mod listen;
mod opening;
mod pager;
mod paging;
mod purge;
mod rows;
mod schema;
mod tls;
#[cfg(feature = "server")]
pub(crate) mod tokens;
mod url;

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

use memcap_core::layout::ROOT as GUEST_ROOT;
use memcap_core::storage::mounts::Place;
use tokio::runtime::Runtime;
use wasmtime_wasi::WasiCtxBuilder;

use super::entries::{CopyError, Entry, Exported, HostEdit, Reserved, is_reserved};
use super::{Backend, Grant, Granted, Instance, MAX_NEWS, Outcome, guest_path};
#[cfg(feature = "mcp")]
use super::{CatchUp, Feed, FeedError};
use crate::backend::served::tree::Tree;
use crate::backend::served::{Fs, FsState, Mount};
pub use crate::error::OpenDbError;
use crate::error::ToolError;
#[cfg(feature = "server")]
pub use conn::round_trips;
use conn::{Conn, Pending};
use ending::{news_of, stamps};
use error::{log, unreachable_error, unsaved_error};
#[cfg(feature = "mcp")]
use listen::CommitListener;
use rows::Versions;
pub(crate) use url::Url;

/// The first key of every advisory lock memcap takes ("memc"); the second
/// is a namespace id (0: the schema).
pub(crate) const LOCK_CLASS: i32 = 0x6d65_6d63;

/// The largest file the guest may write on a database store: PostgreSQL's
/// `bytea` holds at most 1 GB, and a call's memory is far less.
const MAX_FILE_BYTES: u64 = 512 << 20;

/// One namespace served, as this host last saw it.
struct Namespace {
    name: String,
    /// `None` until the namespace exists (the root's first write makes it).
    id: Option<i64>,
    /// The version the tree held here matches; `None`: read it again.
    version: Option<i64>,
    writable: bool,
    /// Its first read may leave the files' bytes in the database.
    lazy: bool,
}

/// How the call in progress reaches the database.
enum Mode {
    /// A call that may write: in a transaction holding the namespaces'
    /// locks.
    Locked,
    /// A read: no transaction and no lock; it runs on the trees as of the
    /// versions checked when it began (one round trip). Should the guest
    /// still change files (its own derived state), they are saved under the
    /// locks only if no other host committed since.
    Reading,
    /// A read that ran while its versions were asked for: its answer
    /// stands only if they are the trees' (see [`Backend::begin_read_ahead`]).
    ReadingAhead(Pending),
}

pub(crate) struct DatabaseStore {
    url: Url,
    client: Option<Conn>,
    /// Drives the connection, on the calling thread (taken by `drop`).
    runtime: Option<Arc<Runtime>>,
    call_timeout: Duration,
    /// The root first, then the grants in order: the mounts of `fs`.
    namespaces: Vec<Namespace>,
    fs: Fs,
    /// The call in progress, between begin and end.
    mode: Option<Mode>,
    /// While following: paths other hosts changed, not yet taken.
    news: Option<Vec<String>>,
    /// The call imported a store: the tables' statistics are refreshed
    /// after it commits.
    imported: bool,
    /// The id of the writing call's transaction, asked about if its
    /// commit's answer is lost.
    xid: Option<i64>,
    /// A tree holds files whose bytes are still in the database
    /// ([`paging`]).
    paged: bool,
    /// A read's repeatable-read snapshot is open (its paged files are read
    /// in it): committed when the call ends.
    snapshot: bool,
}

impl DatabaseStore {
    /// Connects, makes or checks the schema and finds the namespaces. The
    /// root namespace is made by its first write; granted ones must exist.
    pub fn open(
        url: Url,
        namespace: &str,
        grants: &[Grant],
        create_root: bool,
        call_timeout: Duration,
    ) -> Result<Self, OpenDbError> {
        let runtime = conn::runtime().map_err(OpenDbError::Runtime)?;
        let names: Vec<String> = std::iter::once(namespace.to_owned())
            .chain(
                grants
                    .iter()
                    .map(|g| g.target.to_string_lossy().into_owned()),
            )
            .collect();
        let (mut client, ids) = opening::connect(&url, &names, call_timeout, Arc::clone(&runtime))?;
        let mut ids = names.into_iter().zip(ids);
        let (name, id) = ids.next().expect("the root's name is first");
        let mut namespaces = vec![Namespace {
            name,
            id,
            version: None,
            writable: true,
            lazy: true,
        }];
        if namespaces[0].id.is_none() && create_root {
            namespaces[0].id =
                Some(rows::create(&mut client, namespace).map_err(OpenDbError::query)?);
        }
        let mut mounts = vec![Mount {
            guest_name: GUEST_ROOT.to_owned(),
            tree: Tree::empty(),
            writable: namespaces[0].id.is_some(),
        }];
        for (grant, (name, id)) in grants.iter().zip(ids) {
            let Some(id) = id else {
                let flag = match grant.place {
                    Place::Shared => "shared",
                    Place::Extra => "extra",
                };
                return Err(OpenDbError::MissingNamespace { name, flag });
            };
            namespaces.push(Namespace {
                name,
                id: Some(id),
                version: None,
                writable: !grant.read_only,
                lazy: true,
            });
            mounts.push(Mount {
                guest_name: guest_path(grant.place, &grant.name),
                tree: Tree::empty(),
                writable: !grant.read_only,
            });
        }
        let fs = Fs::default();
        *fs.lock() = FsState {
            mounts,
            max_file_bytes: MAX_FILE_BYTES,
            pager: None,
        };
        Ok(Self {
            url,
            client: Some(client),
            runtime: Some(runtime),
            call_timeout,
            namespaces,
            fs,
            mode: None,
            news: None,
            imported: false,
            xid: None,
            paged: false,
            snapshot: false,
        })
    }

    /// The open connection, made again if the last one was lost.
    fn client(&mut self) -> Result<&mut Conn, postgres::Error> {
        if self.client.as_ref().is_none_or(Conn::is_closed) {
            self.client = None;
            let runtime = Arc::clone(self.runtime.as_ref().expect("held until dropped"));
            self.client = Some(self.url.connect(self.call_timeout, runtime)?);
        }
        Ok(self.client.as_mut().expect("connected above"))
    }

    fn ids(&self) -> Vec<i64> {
        self.namespaces.iter().filter_map(|ns| ns.id).collect()
    }

    /// Whether every namespace's version is the one held here.
    fn current(&self, versions: &Versions) -> bool {
        self.namespaces.iter().all(|ns| match ns.id {
            Some(id) => versions.get(&id).map(|v| v.0) == ns.version,
            None => true,
        })
    }

    /// Brings the trees to `versions` (read in the call's snapshot): the
    /// namespaces another host changed are read again. Returns whether a
    /// mount's grant changed (a namespace made or gone).
    fn refresh(&mut self, versions: &Versions) -> Result<bool, postgres::Error> {
        let client = self.client.as_mut().expect("a call holds a connection");
        let mut state = self.fs.lock();
        let mut regranted = false;
        for (ns, mount) in self.namespaces.iter_mut().zip(&mut state.mounts) {
            if let Some(id) = ns.id {
                match versions.get(&id) {
                    Some(&(version, _)) if ns.version == Some(version) => {}
                    Some(&(version, next_ino)) => {
                        let old = std::mem::replace(&mut mount.tree, Tree::empty());
                        // A sparse tree's stamps are not the namespace's.
                        let before =
                            (self.news.is_some() && !old.is_sparse()).then(|| stamps(&old));
                        let lazy = std::mem::take(&mut ns.lazy) && ns.version.is_none();
                        mount.tree = rows::load(client, id, ns.version, old, next_ino, lazy)?;
                        self.paged |= lazy;
                        ns.version = Some(version);
                        if let (Some(news), Some(before)) = (self.news.as_mut(), before) {
                            news_of(news, &mount.guest_name, &before, &mount.tree);
                        }
                    }
                    // Removed since: served empty, as a namespace not made yet.
                    None => {
                        ns.id = None;
                        ns.version = None;
                        mount.tree = Tree::empty();
                    }
                }
            }
            let writable = ns.writable && ns.id.is_some();
            regranted |= mount.writable != writable;
            mount.writable = writable;
        }
        Ok(regranted)
    }

    fn start(&mut self, writes: bool) -> Result<bool, postgres::Error> {
        if writes {
            self.start_locked()
        } else {
            self.start_reading()
        }
    }

    /// A call that may write: opens its transaction, makes the root
    /// namespace if it is missing, takes the locks and reads again what
    /// others changed.
    fn start_locked(&mut self) -> Result<bool, postgres::Error> {
        self.client()?;
        let client = self.client.as_mut().expect("connected above");
        self.mode = Some(Mode::Locked);
        let root = &mut self.namespaces[0];
        let opened = root.id.is_none();
        if opened {
            // Made in the call's transaction: a call that fails makes nothing.
            client.batch_execute("BEGIN")?;
            root.id = match rows::find(client, &root.name)? {
                Some(id) => Some(id),
                None => Some(rows::create(client, &root.name)?),
            };
        }
        let locks = self.locks();
        let client = self.client.as_mut().expect("connected above");
        let (versions, xid) = rows::begin_locked(client, locks, opened, true)?;
        self.xid = xid;
        self.refresh(&versions)
    }

    /// The advisory locks a call takes: exclusive on what it may write.
    fn locks(&self) -> Vec<(i64, bool)> {
        self.namespaces
            .iter()
            .filter_map(|ns| Some((ns.id?, ns.writable)))
            .collect()
    }

    /// A read: checks the versions (one round trip) and, only where another
    /// host changed a namespace, reads it again in one consistent snapshot.
    fn start_reading(&mut self) -> Result<bool, postgres::Error> {
        self.client()?;
        let client = self.client.as_mut().expect("connected above");
        let root = &mut self.namespaces[0];
        if root.id.is_none() {
            root.id = rows::find(client, &root.name)?;
        }
        let ids = self.ids();
        self.mode = Some(Mode::Reading);
        // Trees never read (a process's first call) are read whatever the
        // versions say: no check before the snapshot.
        if self.namespaces.iter().all(|ns| ns.version.is_some()) {
            let versions = rows::versions(self.client.as_mut().expect("connected"), &ids)?;
            if self.current(&versions) && !self.regrant_needed(&versions) {
                return Ok(false);
            }
        }
        let client = self.client.as_mut().expect("connected");
        let versions = rows::begin_reading(client, &ids)?;
        let regranted = self.refresh(&versions)?;
        if self.paged {
            // Paged files are read in this snapshot while the call runs.
            self.snapshot = true;
        } else {
            self.client
                .as_mut()
                .expect("connected")
                .batch_execute("COMMIT")?;
        }
        Ok(regranted)
    }

    /// Whether a mount's grant differs from what the namespaces now allow.
    fn regrant_needed(&self, versions: &Versions) -> bool {
        let state = self.fs.lock();
        self.namespaces
            .iter()
            .zip(&state.mounts)
            .any(|(ns, mount)| {
                let exists = ns.id.is_some_and(|id| versions.contains_key(&id));
                mount.writable != (ns.writable && exists)
            })
    }

    /// Sends the read's version check without waiting; `None` when the
    /// trees were never read (or the root was never found): nothing to run
    /// ahead on.
    fn ask_ahead(&mut self) -> Result<Option<Pending>, postgres::Error> {
        if self.namespaces[0].id.is_none() || self.namespaces.iter().any(|ns| ns.version.is_none())
        {
            return Ok(None);
        }
        let ids = self.ids();
        rows::ask_versions(self.client()?, &ids).map(Some)
    }

    /// Ends a read that ran ahead: its answer stands if the versions it
    /// asked for are the trees'; otherwise what it changed is thrown away
    /// and it must run again (a read that waits for its check).
    fn end_read_ahead(&mut self, pending: Pending) -> Instance {
        let checked = self.client().and_then(|client| client.finish(pending));
        let versions = match checked {
            Ok(rows) => rows::versions_of(rows),
            Err(e) => {
                log(&e);
                self.discard();
                return Instance {
                    stale: true,
                    again: true,
                };
            }
        };
        if self.current(&versions) && !self.regrant_needed(&versions) {
            self.mode = Some(Mode::Reading);
            return self
                .end(Outcome::Returned)
                .unwrap_or_else(|_| Instance::stale());
        }
        let changed = self.fs.lock().mounts.iter().any(|m| m.tree.is_dirty());
        if changed {
            self.discard();
        }
        Instance {
            stale: changed,
            again: true,
        }
    }
}

impl Drop for DatabaseStore {
    /// Dropping the connection's runtime blocks, which panics inside
    /// another runtime (a server dropping its last handle on an async
    /// worker): there it is dropped on a thread of its own.
    fn drop(&mut self) {
        if tokio::runtime::Handle::try_current().is_ok() {
            let conn = self.client.take();
            let runtime = self.runtime.take();
            let _ = std::thread::Builder::new()
                .name("memcap-db-close".into())
                .spawn(move || drop((conn, runtime)));
        }
    }
}

impl Backend for DatabaseStore {
    fn begin(&mut self, writes: bool) -> Result<Instance, ToolError> {
        let mut started = self.start(writes);
        // A connection found dead (the server restarted while this host was
        // idle) is made anew once: nothing has run yet.
        if started.is_err() && self.client.as_ref().is_none_or(Conn::is_closed) {
            self.discard();
            self.mode = None;
            started = self.start(writes);
        }
        match started {
            Ok(regranted) => {
                self.lend_pager();
                Ok(Instance {
                    stale: regranted,
                    again: false,
                })
            }
            Err(e) => {
                self.discard();
                self.mode = None;
                Err(unreachable_error(&e, self.call_timeout))
            }
        }
    }

    fn begin_read_ahead(&mut self) -> Result<Instance, ToolError> {
        match self.ask_ahead() {
            Ok(Some(pending)) => {
                self.mode = Some(Mode::ReadingAhead(pending));
                Ok(Instance::default())
            }
            // Nothing held yet to run ahead on, or the connection failed:
            // the plain read, which connects again once.
            Ok(None) | Err(_) => self.begin(false),
        }
    }

    fn end(&mut self, outcome: Outcome) -> Result<Instance, ToolError> {
        let unread = self.reclaim_pager();
        let ended = self.end_call(outcome, unread);
        self.unpage();
        ended
    }

    fn export(&mut self, reserved: Reserved) -> Result<Exported, CopyError> {
        self.export_entries(reserved)
    }

    fn read_file(&mut self, path: &str) -> Result<Option<Vec<u8>>, CopyError> {
        crate::backend::served::access::read_file(&mut self.fs.lock(), path)
    }

    fn edit(&mut self, path: &str, edit: HostEdit<'_>) -> Result<(), CopyError> {
        crate::backend::served::access::edit(&mut self.fs.lock(), path, edit)
    }

    fn import(
        &mut self,
        entries: &[Entry],
        history: &[Entry],
        replace: bool,
    ) -> Result<(), CopyError> {
        self.import_entries(entries, history, replace)
    }

    fn grant(&self, _wasi: &mut WasiCtxBuilder) -> wasmtime::Result<Granted> {
        Ok(Granted::Served(self.fs.clone()))
    }

    fn purge(&mut self) -> Result<(), String> {
        self.purge_erased()
    }

    #[cfg(feature = "mcp")]
    fn start_feed(&mut self, memory: Box<dyn CatchUp>) -> Result<Box<dyn Feed>, FeedError> {
        self.news.get_or_insert_with(Vec::new);
        let ids: Option<Vec<i64>> = self.namespaces.iter().map(|ns| ns.id).collect();
        let listener = CommitListener::new(self.url.clone(), ids);
        let follower = follow::Follower::start(listener, memory).map_err(FeedError::Follow)?;
        Ok(Box::new(follower))
    }

    #[cfg(all(feature = "mcp", feature = "database"))]
    fn take_news(&mut self) -> Vec<String> {
        self.news.as_mut().map(std::mem::take).unwrap_or_default()
    }
}
