//! [`Memory`]: one store, served by the component, whatever backend holds
//! its files (see [`crate::backend`]).

mod actor;
mod api;
mod builder;
mod history;
mod worker;

use std::path::Path;
use std::sync::Mutex;
use std::sync::atomic::Ordering;
use std::time::Duration;

use memcap_core::vocab::settings;
use wasmtime::Store;
use wasmtime::component::ResourceTable;
use wasmtime_wasi::WasiCtxBuilder;

#[cfg(feature = "mcp")]
use crate::backend::FeedSource;
#[cfg(feature = "database")]
use crate::backend::database::vfs::Fs;
use crate::backend::entries::{CopyError, Entry, Exported, HostEdit, Reserved, in_history};
use crate::backend::{Backend, Granted, Instance, Outcome};
use crate::bindings::{Memcap, WitResult};
use crate::error::{OpenError, ToolError, ToolErrorKind, ToolResult};
use crate::limits::Limits;
use crate::location::Location;
use crate::runtime::{self, GuestLimiter, Runtime, StoreData};

pub use actor::Actor;
pub use builder::{DEFAULT_NAMESPACE, MemoryBuilder};
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
}

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
        MemoryBuilder::at(Location::Database(url.to_owned()))
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
    ) -> Result<Self, OpenError> {
        let memory = Memory {
            name,
            limits,
            vectors,
            read_only,
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
    /// index take them in now rather than at the next sweep; see
    /// [`crate::backend::directory::watch::Watcher`].
    pub fn changed(&self, paths: &[String]) -> Result<String, ToolError> {
        let bytes = paths.iter().map(String::len).sum();
        let paths = paths.to_vec();
        self.typed(bytes, true, move |b, s| {
            b.memcap_memory_watch().call_changed(s, &paths)
        })
    }

    /// The limits every call runs under.
    pub fn limits(&self) -> &Limits {
        &self.limits
    }

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

    /// How a long-lived host hears of changes behind this store's back
    /// (for [`crate::feed::ChangeFeed`]).
    #[cfg(feature = "mcp")]
    pub(crate) fn feed_source(&self) -> FeedSource {
        self.lock().backend.feed()
    }

    /// Reads what other hosts committed now, off any caller's path, and
    /// hands the guest the paths they changed (see [`Memory::changed`]).
    pub fn catch_up(&self) -> Result<(), ToolError> {
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
    fn with_backend<R>(
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

    /// Runs a raw tool input through `f`; `Err` only when the host stopped
    /// the call.
    fn raw(
        &self,
        input: &str,
        f: impl FnMut(&Memcap, &mut Store<StoreData>) -> wasmtime::Result<WitResult> + Send + 'static,
    ) -> Result<ToolResult, ToolError> {
        self.invoke(input.len(), call_writes(input), f)
            .map(|r| ToolResult {
                content: r.content,
                is_error: r.is_error,
            })
    }

    fn typed(
        &self,
        input_bytes: usize,
        writes: bool,
        f: impl FnMut(
            &Memcap,
            &mut Store<StoreData>,
        ) -> wasmtime::Result<Result<String, crate::bindings::WitError>>
        + Send
        + 'static,
    ) -> Result<String, ToolError> {
        self.invoke(input_bytes, writes, f)?
            .map_err(ToolError::from)
    }

    /// Runs `f` on the warm instance within the limits, between the
    /// backend's begin and end. `writes`: whether the call may change files
    /// (then a missing store is created first).
    fn invoke<R: Send + 'static>(
        &self,
        input_bytes: usize,
        writes: bool,
        f: impl FnMut(&Memcap, &mut Store<StoreData>) -> wasmtime::Result<R> + Send + 'static,
    ) -> Result<R, ToolError> {
        self.invoke_as(None, input_bytes, writes, f)
    }

    /// [`Memory::invoke`] for `actor` (the store's own when `None`).
    fn invoke_as<R: Send + 'static>(
        &self,
        actor: Option<&Actor>,
        input_bytes: usize,
        writes: bool,
        f: impl FnMut(&Memcap, &mut Store<StoreData>) -> wasmtime::Result<R> + Send + 'static,
    ) -> Result<R, ToolError> {
        let wanted = actor.cloned().or_else(|| self.actor.lock().ok()?.clone());
        let max = self.limits.max_input_bytes;
        if input_bytes > max {
            return Err(ToolError::new(
                ToolErrorKind::TooLarge,
                format!(
                    "The tool input is {input_bytes} bytes; memcap accepts up to {max} bytes per call. \
                     Split the content into several smaller files."
                ),
            ));
        }
        if writes && self.read_only {
            return Err(read_only_refusal());
        }
        let mut served = self.lock();
        let served = &mut *served;
        self.settle(served)?;
        let mut f = f;
        // A read runs ahead of its freshness check where the backend can;
        // found stale, it runs once more after a plain check.
        let mut ahead = !writes;
        loop {
            let begun = if ahead {
                served.backend.begin_read_ahead()?
            } else {
                served.backend.begin(writes)?
            };
            // Ends the call if anything below unwinds, so no lock stays held.
            let mut call = Call {
                backend: served.backend.as_mut(),
                ended: false,
            };
            if begun.stale {
                served.warm = None;
            }
            if served.warm.is_none() {
                match self.instantiate(call.backend) {
                    Ok(warm) => served.warm = Some(warm),
                    Err(_) => {
                        let _ = call.end(Outcome::Stopped);
                        return Err(guest_failure(writes));
                    }
                }
            }
            let mut warm = served.warm.take().expect("instance was just created");
            warm.store
                .set_epoch_deadline(runtime::deadline_ticks(self.limits.call_timeout));
            warm.store.data_mut().limiter.refused = false;
            let runtime = self.runtime;
            let wanted = wanted.clone();
            let ran = served.worker.run(
                self.wait_limit(),
                || runtime.tick(),
                move || {
                    let r = tell_actor(&mut warm, wanted)
                        .and_then(|()| f(&warm.bindings, &mut warm.store));
                    (warm, f, r)
                },
            );
            let (warm, returned, r) = match ran {
                Ran::Done(done) => done,
                Ran::Late(stuck) => {
                    // Its end (and the lock's release) waits for it.
                    call.ended = true;
                    served.stuck = Some(stuck);
                    return Err(self.unanswered(writes));
                }
                Ran::Lost => {
                    let _ = call.end(Outcome::Stopped);
                    return Err(guest_failure(writes));
                }
            };
            f = returned;
            match r {
                Ok(r) => {
                    self.warm_bytes
                        .store(warm.store.data().limiter.held, Ordering::Relaxed);
                    served.warm = Some(warm);
                    match call.end(Outcome::Returned) {
                        Ok(ended) => {
                            if ended.stale {
                                served.warm = None;
                            }
                            if ended.again && ahead {
                                ahead = false;
                                continue;
                            }
                            return Ok(r);
                        }
                        Err(e) => {
                            // The instance saw changes that were not saved.
                            served.warm = None;
                            return Err(e);
                        }
                    }
                }
                Err(trap) => {
                    let out_of_memory = warm.store.data().limiter.refused;
                    // A trapped instance may be in any state: never reuse it.
                    drop(warm);
                    let _ = call.end(Outcome::Stopped);
                    return Err(self.stopped(&trap, out_of_memory, writes));
                }
            }
        }
    }

    /// How long a caller waits for the guest: the time limit, and a little
    /// more for the epoch's interrupt to land on a guest that computes (its
    /// ticks run late on a busy machine). Past it the guest is waiting in
    /// a host call.
    fn wait_limit(&self) -> Duration {
        let limit = self.limits.call_timeout;
        limit + (limit / 10).max(Duration::from_secs(1))
    }

    /// Before a call: waits, at most the time limit, for a call left stuck
    /// in a host call to end, and then ends it as stopped.
    fn settle(&self, served: &mut Served) -> Result<(), ToolError> {
        let Some(stuck) = &mut served.stuck else {
            return Ok(());
        };
        if !stuck.wait(self.limits.call_timeout) {
            return Err(ToolError::new(
                ToolErrorKind::TimedOut,
                format!(
                    "An earlier memory command is still waiting for the file system that \
                     holds this memory, which has not answered for over {} s, so this \
                     command did not run and nothing was changed. Try again later.",
                    self.limits.call_timeout.as_secs_f32()
                ),
            ));
        }
        served.stuck = None;
        let _ = served.backend.end(Outcome::Stopped);
        Ok(())
    }

    /// Said when the time limit passed while the guest waited in a host call.
    fn unanswered(&self, writes: bool) -> ToolError {
        ToolError::new(
            ToolErrorKind::TimedOut,
            format!(
                "The memory command was stopped after {} s, memcap's time limit per call: \
                 the file system that holds this memory did not answer. Until it does, \
                 other commands on this memory wait for it.{}",
                self.limits.call_timeout.as_secs_f32(),
                if writes { AFTER_WRITE } else { "" }
            ),
        )
    }

    fn stopped(&self, trap: &wasmtime::Error, out_of_memory: bool, writes: bool) -> ToolError {
        let after = if writes { AFTER_WRITE } else { "" };
        if trap.downcast_ref::<wasmtime::Trap>() == Some(&wasmtime::Trap::Interrupt) {
            ToolError::new(
                ToolErrorKind::TimedOut,
                format!(
                    "The memory command was stopped after {} s, memcap's time limit per call.{after}",
                    self.limits.call_timeout.as_secs_f32()
                ),
            )
        } else if out_of_memory {
            ToolError::new(
                ToolErrorKind::OutOfMemory,
                format!(
                    "The memory command needed more than {} MiB of memory and was stopped.{after}",
                    self.limits.memory_bytes >> 20
                ),
            )
        } else {
            guest_failure(writes)
        }
    }

    fn instantiate(&self, backend: &dyn Backend) -> wasmtime::Result<Warm> {
        let mut wasi = WasiCtxBuilder::new();
        // No args, stdio or network, and no environment but the quota,
        // the time limit and the memory limit (and vectors off, when
        // asked): the store is all it gets.
        wasi.allow_blocking_current_thread(true)
            .allow_tcp(false)
            .allow_udp(false)
            .allow_ip_name_lookup(false)
            .env(settings::MAX_FILES, self.limits.max_store_files.to_string())
            .env(settings::MAX_BYTES, self.limits.max_store_bytes.to_string())
            .env(
                settings::CALL_TIMEOUT_MS,
                self.limits.call_timeout.as_millis().to_string(),
            )
            .env(
                settings::MEMORY_MIB,
                (self.limits.memory_bytes >> 20).to_string(),
            )
            .env(settings::HISTORY_DAYS, self.limits.history_days.to_string())
            .env(settings::HISTORY_MIB, self.limits.history_mib.to_string());
        if !self.vectors {
            wasi.env(settings::VECTORS, "off");
        }
        let granted = backend.grant(&mut wasi)?;
        let pre = self.runtime.pre_for(&granted)?;
        let mut table = ResourceTable::new();
        table.set_max_capacity(1024);
        let data = StoreData {
            wasi: wasi.build(),
            table,
            #[cfg(feature = "database")]
            fs: match granted {
                Granted::Served(fs) => fs,
                Granted::Preopens => Fs::default(),
            },
            limiter: GuestLimiter {
                memory_bytes: self.limits.memory_bytes,
                refused: false,
                held: 0,
            },
        };
        let mut store = Store::new(&self.runtime.engine, data);
        store.limiter(|d| &mut d.limiter);
        store.set_epoch_deadline(u64::MAX / 2);
        let bindings = instantiate_retrying(|| pre.instantiate(&mut store))?;
        Ok(Warm {
            store,
            bindings,
            actor: None,
        })
    }
}

/// Tells the instance who the call is for, when it was told otherwise.
fn tell_actor(warm: &mut Warm, wanted: Option<Actor>) -> wasmtime::Result<()> {
    let Some(actor) = wanted else {
        return Ok(());
    };
    if warm.actor.as_ref() == Some(&actor) {
        return Ok(());
    }
    warm.bindings.memcap_memory_versions().call_set_actor(
        &mut warm.store,
        &actor.name,
        actor.id.as_deref(),
    )?;
    warm.actor = Some(actor);
    Ok(())
}

/// The first instance maps the component's memory image into a sealed
/// memfd, and Linux now and then refuses the seal for a moment (EBUSY while
/// the new pages settle: "cannot add seals to the memfd", seen once in
/// thousands of process starts): a failure there is tried again, twice.
fn instantiate_retrying<T>(mut make: impl FnMut() -> wasmtime::Result<T>) -> wasmtime::Result<T> {
    let mut tries = 0;
    loop {
        match make() {
            Err(e) if tries < 2 && format!("{e:#}").contains("memfd") => {
                tries += 1;
                std::thread::sleep(std::time::Duration::from_millis(5));
            }
            other => return other,
        }
    }
}

/// A call between [`Backend::begin`] and [`Backend::end`].
struct Call<'a> {
    backend: &'a mut dyn Backend,
    ended: bool,
}

impl Call<'_> {
    fn end(&mut self, outcome: Outcome) -> Result<Instance, ToolError> {
        self.ended = true;
        self.backend.end(outcome)
    }
}

impl Drop for Call<'_> {
    fn drop(&mut self) {
        if !self.ended {
            let _ = self.backend.end(Outcome::Stopped);
        }
    }
}

/// Whether a `call` input may change files, as the command table says
/// (`memcap_core::tools::COMMANDS`); an unknown command counts as a write (the
/// guest refuses it anyway). A missing store is created by the first call
/// that may write.
fn call_writes(input: &str) -> bool {
    // Parsed as the guest parses it (a JSON value, so of a repeated key the
    // last counts): a spelling that reads as a view here cannot run as a
    // create there. A command memcap does not know counts as a change.
    match serde_json::from_str::<serde_json::Value>(input) {
        Ok(serde_json::Value::Object(input)) => match input.get("command") {
            Some(serde_json::Value::String(c)) => {
                memcap_core::tools::command(c).is_none_or(|spec| spec.writes)
            }
            _ => false,
        },
        _ => false,
    }
}

/// What a call that would change files gets from a read-only memory.
fn read_only_refusal() -> ToolError {
    ToolError::new(
        ToolErrorKind::Denied,
        "This memory is read-only here: the command would change files, so it was refused \
         and nothing was changed. Read, view and search work; to save notes, ask for access \
         that may write.",
    )
}

/// Said after a stopped call that may have been writing.
const AFTER_WRITE: &str = " A file it was changing holds either its old or its new content; \
                           view it before retrying.";

fn guest_failure(writes: bool) -> ToolError {
    ToolError::new(
        ToolErrorKind::GuestFailure,
        format!(
            "The memory command failed inside memcap (an internal error).{}",
            if writes { AFTER_WRITE } else { "" }
        ),
    )
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
    fn feed(&mut self) -> FeedSource {
        FeedSource::Watch(Vec::new())
    }
}
