//! Host bindings generated from `wit/` for the `memcap` world.

wasmtime::component::bindgen!({
    path: "../wit",
    world: "memcap",
});

pub use exports::memcap::memory::memory::NoteType;
pub use exports::memcap::memory::memory::ToolError as WitError;
