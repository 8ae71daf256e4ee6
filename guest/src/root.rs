//! Finds the memory root among the directories the host granted.

use std::cell::OnceCell;

use wasip2::filesystem::preopens::get_directories;
use wasip2::filesystem::types::Descriptor;

use crate::error::{Result, ToolError};
use crate::vpath::ROOT;

thread_local! {
    // A handle only, never file contents: hosts that start a fresh instance per
    // call (Wassette, `wasmtime run --invoke`) lose nothing by it.
    static ROOT_DIR: OnceCell<Descriptor> = const { OnceCell::new() };
}

/// Runs `f` with the root directory descriptor.
///
/// The root is the only preopen, or the one named `/memories` when the host
/// granted several. Hosts name it differently (Wassette uses the host path,
/// `wasmtime run --dir H::G` uses G), so the name is not relied on otherwise.
pub fn with_root<T>(f: impl FnOnce(&Descriptor) -> Result<T>) -> Result<T> {
    ROOT_DIR.with(|cell| {
        if cell.get().is_none() {
            let _ = cell.set(find_root()?);
        }
        f(cell.get().expect("root was just set"))
    })
}

fn find_root() -> Result<Descriptor> {
    let mut dirs = get_directories();
    let index = match dirs.len() {
        0 => {
            return Err(ToolError::NoRoot);
        }
        1 => 0,
        _ => dirs
            .iter()
            .position(|(_, name)| name == ROOT)
            .ok_or(ToolError::NoRootAmongSeveral)?,
    };
    Ok(dirs.swap_remove(index).0)
}
