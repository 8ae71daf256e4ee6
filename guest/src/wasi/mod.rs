//! The WASI 0.2 adapter: the only code in memcap that imports `wasip2`.
//! It finds the memory root and the shared directories among the
//! directories the host granted and hands the core its storage (the root
//! with the shared directories mounted at `shared/NAME`) and environment
//! ports, with the indexes this instance keeps warm between calls.

mod environment;
#[cfg(not(feature = "tools-world"))]
pub use environment::set_actor;
#[cfg(all(test, target_arch = "wasm32"))]
mod port_suite;
mod storage;

use std::cell::{OnceCell, RefCell};

use memcap_core::error::{Result, ToolError};
use memcap_core::layout::ROOT;
use memcap_core::storage::mounts::{Mount, Mounted, Place};
use memcap_core::{Indexes, Io};
use wasip2::filesystem::preopens::get_directories;
use wasip2::filesystem::types::{Descriptor, DescriptorFlags};

use crate::embedder::CompiledModel;
use environment::WasiEnvironment;
use storage::WasiStorage;

/// What an instance holds between calls: a handle on the root, never file
/// contents beyond the derived indexes (hosts that start a fresh instance
/// per call, Wassette and `wasmtime run --invoke`, lose only time by it).
struct Instance {
    storage: WasiStorage,
    environment: WasiEnvironment,
    shared: Shared,
    indexes: RefCell<Indexes>,
}

thread_local! {
    static INSTANCE: OnceCell<Instance> = const { OnceCell::new() };
}

/// Runs `f` with the ports of the memory root.
pub fn with_io<T>(f: impl FnOnce(&Io) -> Result<T>) -> Result<T> {
    INSTANCE.with(|cell| {
        if cell.get().is_none() {
            let (root, shared) = find_root()?;
            let instance = Instance {
                storage: WasiStorage::new(root),
                environment: WasiEnvironment {
                    model: CompiledModel::unless_off(
                        std::env::var(memcap_core::vocab::settings::VECTORS).ok(),
                    ),
                },
                shared,
                indexes: RefCell::default(),
            };
            let _ = cell.set(instance);
        }
        let instance = cell.get().expect("the instance was just set");
        if instance.shared.is_empty() {
            return f(&Io::new(
                &instance.storage,
                &instance.environment,
                &instance.indexes,
            ));
        }
        let mounts = instance
            .shared
            .iter()
            .map(|(place, name, storage, writable)| Mount {
                place: *place,
                name,
                storage,
                writable: *writable,
            })
            .collect();
        let mounted = Mounted::new(&instance.storage, mounts);
        f(&Io::new(&mounted, &instance.environment, &instance.indexes))
    })
}

/// Mounted directories: place, name, storage, and whether the grant is
/// writable.
type Shared = Vec<(Place, String, WasiStorage, bool)>;

/// The root is the only preopen, or the one named `/memories` when the host
/// granted several. Hosts name it differently (Wassette uses the host path,
/// `wasmtime run --dir H::G` uses G), so the name is not relied on otherwise.
/// Beside it, each preopen named `/memories/shared/NAME` is a shared
/// directory and each named `/memories/extra/NAME` an extra (read-only)
/// one; other preopens are ignored.
fn find_root() -> Result<(Descriptor, Shared)> {
    let mut dirs = get_directories();
    let index = match dirs.len() {
        0 => return Err(ToolError::NoRoot),
        1 => 0,
        _ => dirs
            .iter()
            .position(|(_, name)| name == ROOT)
            .ok_or(ToolError::NoRootAmongSeveral)?,
    };
    let root = dirs.swap_remove(index).0;
    let shared = dirs
        .into_iter()
        .filter_map(|(dir, name)| {
            let (place, name) = [Place::Shared, Place::Extra]
                .into_iter()
                .find_map(|place| {
                    let rest = name.strip_prefix(ROOT)?.strip_prefix('/')?;
                    Some((place, rest.strip_prefix(place.dir())?.strip_prefix('/')?))
                })?;
            if name.is_empty() || name.contains('/') || name.starts_with('.') {
                return None;
            }
            let writable = dir
                .get_flags()
                .is_ok_and(|f| f.contains(DescriptorFlags::MUTATE_DIRECTORY));
            Some((place, name.to_owned(), WasiStorage::new(dir), writable))
        })
        .collect();
    Ok((root, shared))
}
