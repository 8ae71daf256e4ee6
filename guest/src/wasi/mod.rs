//! The WASI 0.2 adapter: the only code in memcap that imports `wasip2`.
//! It finds the memory root among the directories the host granted and
//! hands the core its storage and environment ports, with the indexes this
//! instance keeps warm between calls.

mod environment;
mod storage;

use std::cell::{OnceCell, RefCell};

use memcap_core::error::{Result, ToolError};
use memcap_core::layout::ROOT;
use memcap_core::{Indexes, Io};
use wasip2::filesystem::preopens::get_directories;
use wasip2::filesystem::types::Descriptor;

use environment::WasiEnvironment;
use storage::WasiStorage;

/// What an instance holds between calls: a handle on the root, never file
/// contents beyond the derived indexes (hosts that start a fresh instance
/// per call, Wassette and `wasmtime run --invoke`, lose only time by it).
struct Instance {
    storage: WasiStorage,
    indexes: RefCell<Indexes>,
}

thread_local! {
    static INSTANCE: OnceCell<Instance> = const { OnceCell::new() };
}

/// Runs `f` with the ports of the memory root.
pub fn with_io<T>(f: impl FnOnce(&Io) -> Result<T>) -> Result<T> {
    INSTANCE.with(|cell| {
        if cell.get().is_none() {
            let instance = Instance {
                storage: WasiStorage { root: find_root()? },
                indexes: RefCell::default(),
            };
            let _ = cell.set(instance);
        }
        let instance = cell.get().expect("the instance was just set");
        f(&Io::new(
            &instance.storage,
            &WasiEnvironment,
            &instance.indexes,
        ))
    })
}

/// The root is the only preopen, or the one named `/memories` when the host
/// granted several. Hosts name it differently (Wassette uses the host path,
/// `wasmtime run --dir H::G` uses G), so the name is not relied on otherwise.
fn find_root() -> Result<Descriptor> {
    let mut dirs = get_directories();
    let index = match dirs.len() {
        0 => return Err(ToolError::NoRoot),
        1 => 0,
        _ => dirs
            .iter()
            .position(|(_, name)| name == ROOT)
            .ok_or(ToolError::NoRootAmongSeveral)?,
    };
    Ok(dirs.swap_remove(index).0)
}
