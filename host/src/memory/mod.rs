//! [`Memory`]: one store, served by the component, whatever backend holds
//! its files (see [`crate::backend`]).

mod access;
mod actor;
mod api;
mod builder;
mod call;
mod history;
mod shown;
mod worker;

use std::path::Path;
use std::sync::Mutex;
use std::sync::atomic::Ordering;
use std::time::Duration;

use memcap_core::vocab::settings;
use wasmtime::Store;
use wasmtime::component::ResourceTable;
use wasmtime_wasi::WasiCtxBuilder;

use crate::backend::entries::{CopyError, Entry, Exported, HostEdit, Reserved, in_history};
#[cfg(feature = "served")]
use crate::backend::served::Fs;
use crate::backend::{Backend, Granted, Instance, Outcome};
#[cfg(feature = "mcp")]
use crate::backend::{CatchUp, Feed, FeedError};
use crate::bindings::{Memcap, WitResult};
use crate::error::{OpenError, ToolError, ToolErrorKind, ToolResult};
use crate::limits::Limits;
use crate::location::Location;
use crate::runtime::{self, GuestLimiter, Runtime, StoreData};

pub use actor::Actor;
pub use builder::{DEFAULT_NAMESPACE, MemoryBuilder};
use call::guest_failure;
use worker::{Ran, Stuck, Worker};

/// A memory store and the component that serves it.
///
/// Every call runs in the same sandbox: the guest sees the store as
/// `/memories`, with no environment, network, stdio or other files. Calls are
/// serialised per store, across threads, processes and (on a database)
/// hosts, so no edit is lost. A call that traps, runs too long or exhausts
/// its memory becomes an error result, and the next call gets a fresh
/// instance.
pub struct Memory {
    /// The store, for messages: its directory, or its namespace.
    name: String,
    limits: Limits,
    /// Whether searches use the compiled-in embedding model.
    vectors: bool,
    /// Whether every call that changes files is refused before it runs.
    read_only: bool,
    /// Who calls are for unless a call says (see [`Memory::set_actor`]).
    actor: Mutex<Option<Actor>>,
    /// The linear memory the warm instance held after its last call, for
    /// a host that keeps many stores warm within a memory budget.
    warm_bytes: std::sync::atomic::AtomicUsize,
    runtime: &'static Runtime,
    served: Mutex<Served>,
    /// The component's wall clock, when a test moves it.
    #[cfg_attr(not(feature = "testing"), allow(dead_code))]
    clock: Clock,
}

/// A wall clock a test moves ([`crate::TestClock`]), or the system's.
#[cfg(feature = "testing")]
pub(crate) type Clock = Option<crate::TestClock>;
/// (Without the `testing` feature: nothing, the system's clock.)
#[cfg(not(feature = "testing"))]
#[derive(Default)]
pub(crate) struct Clock;

/// What serves the calls, behind the mutex.
struct Served {
    backend: Box<dyn Backend>,
    /// A live instance, kept between calls so a call costs no instantiation.
    warm: Option<Warm>,
    /// The thread guest calls run on.
    worker: Worker,
    /// A call still waiting in a host call after its caller stopped
    /// waiting for it: the backend's lock stays held (its `end` waits)
    /// until it ends, so nothing it still writes lands outside the lock.
    stuck: Option<Stuck>,
}

impl Drop for Memory {
    fn drop(&mut self) {
        let served = self.served.get_mut().unwrap_or_else(|e| e.into_inner());
        if let Some(stuck) = &mut served.stuck
            && !stuck.wait(Duration::ZERO)
        {
            // Closing the backend would let its lock go under a call that
            // may still write: keep it until the process ends.
            let backend = std::mem::replace(&mut served.backend, Box::new(Gone));
            std::mem::forget(backend);
        }
    }
}

struct Warm {
    store: Store<StoreData>,
    bindings: Memcap,
    /// Who the instance was last told the calls are for.
    actor: Option<Actor>,
}

impl Memory {
    /// Opens the memory directory `root`, creating it (mode 0700, with its
    /// parents) if missing; see [`MemoryBuilder::create_root`] to leave that
    /// to the first write. A directory memcap may not write is served for
    /// reading. Leftovers of writes interrupted by a crash are removed. The
    /// first open in a process loads the compiled component from the
    /// on-disk cache (see `MEMCAP_CACHE_DIR`) or compiles it. The process
    /// umask is left alone unless [`MemoryBuilder::private_umask`] asks.
    pub fn open(root: impl AsRef<Path>) -> Result<Self, OpenError> {
        Self::builder(root).open()
    }

    /// Like [`Memory::open`], with options.
    pub fn builder(root: impl AsRef<Path>) -> MemoryBuilder {
        MemoryBuilder::directory(root.as_ref())
    }

    /// A store in PostgreSQL: `url` is a libpq connection URL
    /// (`postgres://user@host/db`, TLS as its `sslmode` says). Each namespace
    /// ([`MemoryBuilder::namespace`], `default` when none is given) is a
    /// tree of rows, served to the same component as its directory; memcap
    /// makes and upgrades its tables itself. One call is one transaction
    /// under the namespace's advisory lock, so hosts sharing the database
    /// never lose an edit, and a call that fails leaves nothing behind.
    pub fn database(url: &str) -> MemoryBuilder {
        MemoryBuilder::database(url)
    }

    /// Options for a store at `location`, a directory or a database.
    pub fn at(location: &Location) -> MemoryBuilder {
        MemoryBuilder::at(location.clone())
    }

    fn serve(
        backend: Box<dyn Backend>,
        name: String,
        limits: Limits,
        vectors: bool,
        read_only: bool,
        clock: Clock,
    ) -> Result<Self, OpenError> {
        let memory = Memory {
            name,
            limits,
            vectors,
            read_only,
            clock,
            actor: Mutex::new(None),
            warm_bytes: Default::default(),
            runtime: runtime::get()?,
            served: Mutex::new(Served {
                backend,
                warm: None,
                worker: Worker::default(),
                stuck: None,
            }),
        };
        // Instantiate now so a broken setup fails here, not on the first call.
        let mut served = memory.lock();
        let warm = memory
            .instantiate(served.backend.as_ref())
            .map_err(|e| OpenError::Component(format!("{e:#}")))?;
        served.warm = Some(warm);
        drop(served);
        Ok(memory)
    }

    /// Who the calls that follow are for, as the version history records
    /// them, unless a call names its own ([`Memory::call_with_data_as`]).
    /// Without it, versions name `memcap`.
    pub fn set_actor(&self, actor: Actor) {
        *self.actor.lock().unwrap_or_else(|e| e.into_inner()) = Some(actor);
    }

    /// The linear memory of the warm instance after the last call (0 when
    /// none is warm): what keeping this store warm costs.
    pub fn warm_bytes(&self) -> usize {
        self.warm_bytes.load(Ordering::Relaxed)
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Served> {
        // A panic while holding the mutex cannot leave files half-written
        // (writes are atomic, or rolled back), so a poisoned lock is usable.
        self.served.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// What the store is, for messages: its directory, or its namespace
    /// on a database.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Tells the guest that other programs changed `paths` (`/memories/...`,
    /// as a file watcher reports them), so the index and every derived
    /// index take them in now rather than at the next sweep (what a
    /// store's change feed does).
    pub fn changed(&self, paths: &[String]) -> Result<String, ToolError> {
        let bytes = paths.iter().map(String::len).sum();
        let paths = paths.to_vec();
        self.typed("changed", bytes, move |b, s| {
            b.memcap_memory_watch().call_changed(s, &paths)
        })
    }

    /// The limits every call runs under.
    pub fn limits(&self) -> &Limits {
        &self.limits
    }
}

/// Takes a dropped [`Memory`]'s backend's place while that backend is kept
/// open for a stuck call (see `Drop for Memory`); never called.
struct Gone;

impl Backend for Gone {
    fn begin(&mut self, writes: bool) -> Result<Instance, ToolError> {
        Err(guest_failure(writes))
    }
    fn end(&mut self, _: Outcome) -> Result<Instance, ToolError> {
        Ok(Instance::default())
    }
    fn grant(&self, _: &mut WasiCtxBuilder) -> wasmtime::Result<Granted> {
        Ok(Granted::Preopens)
    }
    fn export(&mut self, _: Reserved) -> Result<Exported, CopyError> {
        Ok(Exported::default())
    }
    fn read_file(&mut self, _: &str) -> Result<Option<Vec<u8>>, CopyError> {
        Ok(None)
    }
    fn edit(&mut self, _: &str, _: HostEdit<'_>) -> Result<(), CopyError> {
        Ok(())
    }
    fn import(&mut self, _: &[Entry], _: &[Entry], _: bool) -> Result<(), CopyError> {
        Ok(())
    }
    #[cfg(feature = "mcp")]
    fn start_feed(&mut self, _: Box<dyn CatchUp>) -> Result<Box<dyn Feed>, FeedError> {
        Ok(Box::new(crate::backend::Quiet))
    }
}
