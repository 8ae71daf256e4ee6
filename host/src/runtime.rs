//! The process-wide engine and the compiled component. Compiling takes
//! hundreds of milliseconds, so the compiled code is cached on disk (see
//! `cache.rs` for when a cached compile is trusted) and loaded in a few
//! milliseconds by later processes; within a process it is compiled or
//! loaded once.

use std::hash::{Hash, Hasher};
use std::path::PathBuf;
use std::sync::OnceLock;
use std::time::Duration;

use wasmtime::component::{Component, Linker, ResourceTable};
use wasmtime::{Config, Engine, ResourceLimiter};
use wasmtime_wasi::{WasiCtx, WasiCtxView, WasiView};

use crate::backend::Granted;
#[cfg(feature = "served")]
use crate::backend::served::{Fs, FsView};
use crate::bindings::MemcapPre;
use crate::cache::{CodeCache, Refusal};
use crate::error::OpenError;

/// How often the epoch advances; call deadlines are counted in these ticks.
/// The thread that advances it starts when a call first outlasts its
/// caller's polling ([`Runtime::tick`]): a process whose calls all end
/// sooner (a one-shot CLI call, most of them) never starts it.
pub(crate) const EPOCH_TICK: Duration = Duration::from_millis(10);

/// The epoch deadline for a call limited to `limit`: never sooner than the
/// limit. The current tick is already partly gone when the call starts, so a
/// deadline of `limit / tick` ticks could stop a call before its time; one
/// tick more makes the limit a floor and the stop land within a tick after it.
pub(crate) fn deadline_ticks(limit: Duration) -> u64 {
    let tick = EPOCH_TICK.as_nanos();
    (limit.as_nanos().div_ceil(tick) + 1).min(u64::MAX as u128 / 2) as u64
}

/// What each call's store holds.
pub(crate) struct StoreData {
    pub wasi: WasiCtx,
    pub table: ResourceTable,
    /// The file system a backend serves itself (unused where the guest is
    /// granted host directories).
    #[cfg(feature = "served")]
    pub fs: Fs,
    pub limiter: GuestLimiter,
}

#[cfg(feature = "served")]
fn fs_view(data: &mut StoreData) -> FsView<'_> {
    FsView {
        table: &mut data.table,
        fs: &data.fs,
    }
}

impl WasiView for StoreData {
    fn ctx(&mut self) -> WasiCtxView<'_> {
        WasiCtxView {
            ctx: &mut self.wasi,
            table: &mut self.table,
        }
    }
}

/// Caps guest memory and remembers whether it refused to grow, so an
/// allocation failure can be reported as such rather than as a crash.
pub(crate) struct GuestLimiter {
    pub memory_bytes: usize,
    pub refused: bool,
    /// The linear memory the instance holds now, all its memories together.
    pub held: usize,
}

impl ResourceLimiter for GuestLimiter {
    fn memory_growing(
        &mut self,
        current: usize,
        desired: usize,
        _maximum: Option<usize>,
    ) -> wasmtime::Result<bool> {
        let allowed = desired <= self.memory_bytes;
        self.refused |= !allowed;
        if allowed {
            self.held += desired.saturating_sub(current);
        }
        Ok(allowed)
    }

    fn table_growing(
        &mut self,
        _current: usize,
        desired: usize,
        _maximum: Option<usize>,
    ) -> wasmtime::Result<bool> {
        Ok(desired <= 100_000)
    }

    fn instances(&self) -> usize {
        4
    }

    fn tables(&self) -> usize {
        8
    }

    fn memories(&self) -> usize {
        4
    }
}

pub(crate) struct Runtime {
    pub engine: Engine,
    /// The component linked to wasmtime-wasi's file system (host
    /// directories).
    pub pre: MemcapPre<StoreData>,
    #[cfg(feature = "served")]
    component: Component,
    /// Linked to the file system in [`StoreData::fs`] instead; made on
    /// first use.
    #[cfg(feature = "served")]
    served_fs: OnceLock<Result<MemcapPre<StoreData>, String>>,
    /// Whether the epoch thread was started.
    ticking: std::sync::Mutex<bool>,
}

impl Runtime {
    /// Makes sure the epoch advances, starting its thread on first use. A
    /// call's deadline is set before it runs, counted from the epoch then;
    /// its caller calls this when its wait for the answer turns from
    /// polling into sleeping, so the epoch moves for every call that lasts,
    /// and a deadline counts from at most that polling after the call
    /// began: the limit stays a floor. A guest already past its deadline
    /// stops at its next check, tick or no tick. Where no thread can be
    /// started the next lasting call tries again; meanwhile the caller's own
    /// timed wait still bounds every call.
    pub fn tick(&self) {
        let mut started = self.ticking.lock().unwrap_or_else(|e| e.into_inner());
        if *started {
            return;
        }
        let ticker = self.engine.weak();
        *started = std::thread::Builder::new()
            .name("memcap-epoch".into())
            .spawn(move || {
                while let Some(engine) = ticker.upgrade() {
                    engine.increment_epoch();
                    drop(engine);
                    std::thread::sleep(EPOCH_TICK);
                }
            })
            .is_ok();
    }

    /// The component linked for what a backend granted: wasmtime-wasi's
    /// file system over host preopens, or the one the backend serves.
    pub fn pre_for(&self, granted: &Granted) -> wasmtime::Result<&MemcapPre<StoreData>> {
        match granted {
            Granted::Preopens => Ok(&self.pre),
            #[cfg(feature = "served")]
            Granted::Served(_) => self.pre_served_fs(),
        }
    }

    /// The component linked to the file system a backend serves itself.
    #[cfg(feature = "served")]
    fn pre_served_fs(&self) -> wasmtime::Result<&MemcapPre<StoreData>> {
        self.served_fs
            .get_or_init(|| {
                let mut linker = Linker::new(&self.engine);
                crate::wasi_link::add_all_but_filesystem(&mut linker)
                    .and_then(|()| crate::backend::served::add_to_linker(&mut linker, fs_view))
                    .and_then(|()| MemcapPre::new(linker.instantiate_pre(&self.component)?))
                    .map_err(|e| format!("{e:#}"))
            })
            .as_ref()
            .map_err(|e| wasmtime::format_err!("{e}"))
    }
}

static RUNTIME: OnceLock<Result<Runtime, String>> = OnceLock::new();

/// The shared runtime, created on first use.
pub(crate) fn get() -> Result<&'static Runtime, OpenError> {
    RUNTIME
        .get_or_init(|| init().map_err(|e| format!("{e:#}")))
        .as_ref()
        .map_err(|e| OpenError::Component(e.clone()))
}

fn init() -> wasmtime::Result<Runtime> {
    let mut config = Config::new();
    config.epoch_interruption(true);
    // For profiling with `perf`: the guest's compiled functions named in
    // /tmp/perf-PID.map (with MEMCAP_CACHE_DIR=off, so they are compiled).
    if std::env::var_os("MEMCAP_PERFMAP").is_some() {
        config.profiler(wasmtime::ProfilingStrategy::PerfMap);
    }
    let engine = Engine::new(&config)?;
    let component = load_component(&engine)?;
    let mut linker = Linker::new(&engine);
    crate::wasi_link::add_all_but_filesystem(&mut linker)?;
    crate::backend::Granted::link_preopens(&mut linker)?;
    let pre = MemcapPre::new(linker.instantiate_pre(&component)?)?;
    Ok(Runtime {
        engine,
        pre,
        #[cfg(feature = "served")]
        component,
        #[cfg(feature = "served")]
        served_fs: OnceLock::new(),
        ticking: std::sync::Mutex::new(false),
    })
}

/// Where compiled components are kept: `$MEMCAP_CACHE_DIR`, else
/// `$XDG_CACHE_HOME/memcap`, else `~/.cache/memcap`. `MEMCAP_CACHE_DIR=off`
/// turns the cache off.
pub(crate) fn cache_dir() -> Option<PathBuf> {
    match std::env::var_os("MEMCAP_CACHE_DIR") {
        Some(dir) if dir == "off" => None,
        Some(dir) if !dir.is_empty() => Some(PathBuf::from(dir)),
        _ => std::env::var_os("XDG_CACHE_HOME")
            .filter(|d| !d.is_empty())
            .map(PathBuf::from)
            .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cache")))
            .map(|d| d.join("memcap")),
    }
}

fn load_component(engine: &Engine) -> wasmtime::Result<Component> {
    let compile = || Component::new(engine, crate::guest_wasm()?);
    let Some(dir) = cache_dir() else {
        return compile();
    };
    let cache = match CodeCache::open(&dir) {
        Ok(cache) => cache,
        Err(why) => {
            skip_cache(&why);
            return compile();
        }
    };
    // Named for everything that makes compiled code fit: the component's
    // bytes, the wasmtime version and the engine's settings and target.
    let mut hasher = std::hash::DefaultHasher::new();
    engine.precompile_compatibility_hash().hash(&mut hasher);
    let name = format!(
        "memcap-{}-wasmtime-{}-{:016x}.cwasm",
        env!("MEMCAP_GUEST_SHA256"),
        env!("MEMCAP_WASMTIME_VERSION"),
        hasher.finish()
    );
    match cache.open_file(&name) {
        Ok(Some(file)) => {
            // SAFETY (both loads): the file is this user's and nobody else
            // can write it, nor its directory (checked on the descriptor
            // held, which is what is loaded: `own_path` names that very
            // file, never the cache path again), and `store` below wrote it
            // from our own compilation. wasmtime checks the header and
            // engine compatibility before using it. Mapped rather than
            // copied: a cold call reads only the pages it runs, and the
            // memory image maps from the file. memcap replaces the file by
            // rename, never in place; were its owner to truncate it while
            // mapped, the process would stop with SIGBUS at the next touch
            // of a page that is gone.
            if let Some(own) = file.own_path()
                && let Ok(component) = unsafe { Component::deserialize_file(engine, &own) }
            {
                return Ok(component);
            }
            match file.read() {
                Ok(bytes) => {
                    if let Ok(component) = unsafe { Component::deserialize(engine, &bytes) } {
                        return Ok(component);
                    }
                }
                Err(why) => {
                    skip_cache(&why);
                    return compile();
                }
            }
        }
        Ok(None) => {}
        Err(why) => {
            skip_cache(&why);
            return compile();
        }
    }
    let component = compile()?;
    // A cache that cannot be written only costs time on the next start.
    if let Ok(bytes) = component.serialize() {
        let _ = cache.store(&name, &bytes);
    }
    Ok(component)
}

/// Says, once per process (the runtime is made once), why the cache is not
/// used. To stderr: this is for the person running memcap, not the model.
fn skip_cache(why: &Refusal) {
    eprintln!(
        "memcap: not using the compiled-code cache: {why}; compiling in memory instead \
         (set MEMCAP_CACHE_DIR to a private directory, or to `off`)"
    );
}
