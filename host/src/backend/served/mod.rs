//! `wasi:filesystem` served from memory: the guest's preopens are
//! [`tree::Tree`]s the host holds (one per mount), so a backend that is
//! not a directory can give the unchanged component its files, and read
//! what a tree has not loaded yet from its own [`Source`]. The guest can name nothing but the trees it is handed: there is no
//! host path behind them, no `..` above a root and no symbolic link.

pub(crate) mod access;
mod host;
mod pages;
mod stream;
pub(crate) mod tree;

use std::sync::{Arc, Mutex, MutexGuard};

use wasmtime::component::{HasData, Linker, ResourceTable};

use bindings::wasi::filesystem::types::DescriptorFlags;
pub(crate) use bindings::wasi::filesystem::types::ErrorCode as Code;
use tree::{Ino, Row, Tree};

mod bindings {
    wasmtime::component::bindgen!({
        path: "wit",
        world: "memcap:host/vfs",
        imports: { default: trappable },
        trappable_error_type: {
            "wasi:filesystem/types.error-code" => super::FsError,
        },
        with: {
            "wasi:io": wasmtime_wasi::p2::bindings::io,
            "wasi:clocks": wasmtime_wasi::p2::bindings::clocks,
            "wasi:filesystem/types.descriptor": super::Descriptor,
            "wasi:filesystem/types.directory-entry-stream": super::EntryStream,
        },
        require_store_data_send: true,
    });
}

/// A failed file-system call: a WASI error code for the guest, or a trap.
pub enum FsError {
    Code(Code),
    Trap(wasmtime::Error),
}

impl From<Code> for FsError {
    fn from(code: Code) -> Self {
        Self::Code(code)
    }
}

impl From<wasmtime::component::ResourceTableError> for FsError {
    fn from(e: wasmtime::component::ResourceTableError) -> Self {
        Self::Trap(e.into())
    }
}

/// An error code carried through a stream error (`wasi:io/error`), so
/// `filesystem-error-code` can give it back.
#[derive(Debug)]
struct CodeError(Code);

impl std::fmt::Display for CodeError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "file system error {:?}", self.0)
    }
}

impl std::error::Error for CodeError {}

/// One tree granted to the guest.
pub(crate) struct Mount {
    /// The preopen's name (`/memories`, `/memories/shared/team`).
    pub guest_name: String,
    pub tree: Tree,
    pub writable: bool,
}

/// What the guest's file system is: the mounts, shared by the store's
/// host functions, its output streams and the backend that loads and
/// saves them.
#[derive(Clone, Default)]
pub(crate) struct Fs(Arc<Mutex<FsState>>);

#[derive(Default)]
pub(crate) struct FsState {
    pub mounts: Vec<Mount>,
    /// The largest file the guest may write, in bytes.
    pub max_file_bytes: u64,
    /// While a call runs on trees with paged files: how their bytes are read.
    pub pager: Option<Box<dyn Source>>,
}

/// Where the rows and bytes a sparse or paged tree has not loaded come
/// from during a call (a database's connection, in the call's snapshot).
/// `None` from any method fails the guest's file call with an I/O error;
/// the backend then learns why from the source itself.
pub(crate) trait Source: Send {
    #[cfg_attr(not(feature = "database"), allow(dead_code))]
    /// The source back as what the backend lent (to take its parts).
    fn into_any(self: Box<Self>) -> Box<dyn std::any::Any>;
    /// The rows at `paths` of the mount's store (those there), and the
    /// files among them that have other names too.
    fn rows_at(&mut self, mount: usize, paths: &[String]) -> Option<(Vec<Row>, Vec<Ino>)>;
    /// Every row of the mount's store.
    fn all_rows(&mut self, mount: usize) -> Option<Vec<Row>>;
    /// The bytes of `inos`, whole.
    fn read(
        &mut self,
        mount: usize,
        inos: &[Ino],
    ) -> Option<std::collections::HashMap<Ino, Vec<u8>>>;
    /// Pages `pages` of `ino` (those there).
    fn read_pages(
        &mut self,
        mount: usize,
        ino: Ino,
        pages: &std::ops::Range<u64>,
    ) -> Option<std::collections::HashMap<u64, Vec<u8>>>;
}

impl Fs {
    pub fn lock(&self) -> MutexGuard<'_, FsState> {
        // Calls are serialised above this lock; a panic mid-change is a
        // trap, after which the backend reloads the trees.
        self.0.lock().unwrap_or_else(|e| e.into_inner())
    }
}

/// An open file or directory of one mount.
pub struct Descriptor {
    mount: usize,
    ino: Ino,
    flags: DescriptorFlags,
}

/// A directory listing, taken whole when it is opened.
pub struct EntryStream(
    std::collections::VecDeque<bindings::wasi::filesystem::types::DirectoryEntry>,
);

/// What the host functions see of the store: the resource table and the
/// file system.
pub(crate) struct FsView<'a> {
    pub table: &'a mut ResourceTable,
    pub fs: &'a Fs,
}

/// `HasData` marker for [`FsView`].
pub(crate) struct HasFs;

impl HasData for HasFs {
    type Data<'a> = FsView<'a>;
}

/// Links `wasi:filesystem/types` and `preopens` served from `fs`; the
/// other WASI interfaces come from wasmtime-wasi.
pub(crate) fn add_to_linker<T: Send + 'static>(
    linker: &mut Linker<T>,
    view: fn(&mut T) -> FsView<'_>,
) -> wasmtime::Result<()> {
    bindings::wasi::filesystem::types::add_to_linker::<T, HasFs>(linker, view)?;
    bindings::wasi::filesystem::preopens::add_to_linker::<T, HasFs>(linker, view)?;
    Ok(())
}
