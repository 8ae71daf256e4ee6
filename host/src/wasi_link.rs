//! Links the WASI 0.2 interfaces the component imports, from
//! wasmtime-wasi: every one but the file system ([`add_all_but_filesystem`],
//! for a store whose files the host serves itself), and wasmtime-wasi's
//! file system over host directories ([`add_host_filesystem`]).
//! `LinkOptions` cannot leave an interface out, so this is
//! `wasmtime_wasi::p2::add_to_linker_sync`'s list less the file system and
//! `wasi:sockets`, which the component does not import (it is granted no
//! network; linking them cost every process start ~30 µs). Check it against
//! that function on every wasmtime bump: an interface missing here fails
//! instantiation loudly, and nothing falls back to the host's file system
//! where it is not linked.

use wasmtime::component::{HasData, Linker, ResourceTable};
use wasmtime_wasi::WasiView;
use wasmtime_wasi::cli::{WasiCli, WasiCliView};
use wasmtime_wasi::clocks::{WasiClocks, WasiClocksView};
use wasmtime_wasi::filesystem::{WasiFilesystem, WasiFilesystemView};
use wasmtime_wasi::p2::bindings::{self, cli, clocks, random};
use wasmtime_wasi::random::WasiRandom;

/// `HasData` for the io interfaces, which need only the resource table.
struct HasIo;

impl HasData for HasIo {
    type Data<'a> = &'a mut ResourceTable;
}

fn table<T: WasiView>(t: &mut T) -> &mut ResourceTable {
    t.ctx().table
}

pub(crate) fn add_all_but_filesystem<T: WasiView>(l: &mut Linker<T>) -> wasmtime::Result<()> {
    bindings::io::error::add_to_linker::<T, HasIo>(l, table::<T>)?;
    bindings::sync::io::poll::add_to_linker::<T, HasIo>(l, table::<T>)?;
    bindings::sync::io::streams::add_to_linker::<T, HasIo>(l, table::<T>)?;
    clocks::wall_clock::add_to_linker::<T, WasiClocks>(l, T::clocks)?;
    clocks::monotonic_clock::add_to_linker::<T, WasiClocks>(l, T::clocks)?;
    random::random::add_to_linker::<T, WasiRandom>(l, |t| t.ctx().ctx.random())?;
    random::insecure::add_to_linker::<T, WasiRandom>(l, |t| t.ctx().ctx.random())?;
    random::insecure_seed::add_to_linker::<T, WasiRandom>(l, |t| t.ctx().ctx.random())?;
    cli::exit::add_to_linker::<T, WasiCli>(l, T::cli)?;
    cli::environment::add_to_linker::<T, WasiCli>(l, T::cli)?;
    cli::stdin::add_to_linker::<T, WasiCli>(l, T::cli)?;
    cli::stdout::add_to_linker::<T, WasiCli>(l, T::cli)?;
    cli::stderr::add_to_linker::<T, WasiCli>(l, T::cli)?;
    cli::terminal_input::add_to_linker::<T, WasiCli>(l, T::cli)?;
    cli::terminal_output::add_to_linker::<T, WasiCli>(l, T::cli)?;
    cli::terminal_stdin::add_to_linker::<T, WasiCli>(l, T::cli)?;
    cli::terminal_stdout::add_to_linker::<T, WasiCli>(l, T::cli)?;
    cli::terminal_stderr::add_to_linker::<T, WasiCli>(l, T::cli)?;
    Ok(())
}

/// wasmtime-wasi's file system over the directories granted in the
/// context, as `add_to_linker_sync` links it.
pub(crate) fn add_host_filesystem<T: WasiView>(l: &mut Linker<T>) -> wasmtime::Result<()> {
    bindings::filesystem::preopens::add_to_linker::<T, WasiFilesystem>(l, T::filesystem)?;
    bindings::sync::filesystem::types::add_to_linker::<T, WasiFilesystem>(l, T::filesystem)?;
    Ok(())
}
