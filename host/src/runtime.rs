//! The process-wide engine and the compiled component. Compiling takes
//! hundreds of milliseconds, so the compiled code is cached on disk and loaded
//! in a few milliseconds by later processes; within a process it is compiled
//! or loaded once.

use std::hash::{Hash, Hasher};
use std::path::{Path, PathBuf};
use std::sync::OnceLock;
use std::time::Duration;

use wasmtime::component::{Component, Linker, ResourceTable};
use wasmtime::{Config, Engine, ResourceLimiter};
use wasmtime_wasi::{WasiCtx, WasiCtxView, WasiView};

use crate::bindings::MemcapPre;
use crate::error::OpenError;

/// How often the epoch advances; call deadlines are counted in these ticks.
pub(crate) const EPOCH_TICK: Duration = Duration::from_millis(10);

/// What each call's store holds.
pub(crate) struct StoreData {
    pub wasi: WasiCtx,
    pub table: ResourceTable,
    pub limiter: GuestLimiter,
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
}

impl ResourceLimiter for GuestLimiter {
    fn memory_growing(
        &mut self,
        _current: usize,
        desired: usize,
        _maximum: Option<usize>,
    ) -> wasmtime::Result<bool> {
        let allowed = desired <= self.memory_bytes;
        self.refused |= !allowed;
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
    pub pre: MemcapPre<StoreData>,
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
    let engine = Engine::new(&config)?;
    let component = load_component(&engine)?;
    let mut linker = Linker::new(&engine);
    wasmtime_wasi::p2::add_to_linker_sync(&mut linker)?;
    let pre = MemcapPre::new(linker.instantiate_pre(&component)?)?;

    let ticker = engine.weak();
    std::thread::Builder::new()
        .name("memcap-epoch".into())
        .spawn(move || {
            while let Some(engine) = ticker.upgrade() {
                engine.increment_epoch();
                drop(engine);
                std::thread::sleep(EPOCH_TICK);
            }
        })?;
    Ok(Runtime { engine, pre })
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
    let Some(dir) = cache_dir() else {
        return Component::new(engine, crate::GUEST_WASM);
    };
    // The key covers the guest's bytes and everything about the engine that
    // makes compiled code incompatible (version, target, settings).
    let mut hasher = std::hash::DefaultHasher::new();
    engine.precompile_compatibility_hash().hash(&mut hasher);
    let guest = &env!("MEMCAP_GUEST_SHA256")[..32];
    let path = dir.join(format!("memcap-{guest}-{:016x}.cwasm", hasher.finish()));
    if path.is_file() {
        // SAFETY: the file was written by `store_compiled` below from our own
        // compilation, in a per-user cache directory created 0700. wasmtime
        // checks its header and engine compatibility before using it.
        if let Ok(component) = unsafe { Component::deserialize_file(engine, &path) } {
            return Ok(component);
        }
    }
    let component = Component::new(engine, crate::GUEST_WASM)?;
    // A cache that cannot be written only costs time on the next start.
    let _ = store_compiled(&component, &dir, &path);
    Ok(component)
}

fn store_compiled(component: &Component, dir: &Path, path: &Path) -> std::io::Result<()> {
    use std::os::unix::fs::DirBuilderExt;
    std::fs::DirBuilder::new()
        .recursive(true)
        .mode(0o700)
        .create(dir)?;
    let bytes = component.serialize().map_err(std::io::Error::other)?;
    // Written aside and renamed, so a reader never sees half a file.
    let temp = path.with_extension(format!("tmp{}", std::process::id()));
    std::fs::write(&temp, bytes)?;
    std::fs::rename(&temp, path).inspect_err(|_| {
        let _ = std::fs::remove_file(&temp);
    })
}
