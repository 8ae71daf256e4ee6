//! A store kept in this process's memory (Cargo feature `in-memory`): the
//! served file system ([`crate::backend::served`]) with nothing behind it.
//! For tests that need no real store, and for a host that wants a memory
//! for the length of one process. Every [`crate::Memory`] opened on the
//! same name and namespace in a process shares one store, which lives
//! until the process ends; calls on it are serialised across them, as a
//! directory's lock does across processes.

use std::collections::HashMap;
use std::sync::{Arc, Condvar, Mutex, OnceLock};
use std::time::Duration;

use memcap_core::layout::ROOT as GUEST_ROOT;
use wasmtime_wasi::WasiCtxBuilder;

use super::entries::{CopyError, Entry, Exported, HostEdit, Reserved};
use super::served::tree::Tree;
use super::served::{Fs, FsState, Mount, access};
use super::{Backend, Grant, Granted, Instance, Outcome};
#[cfg(feature = "mcp")]
use super::{CatchUp, Feed, FeedError, Quiet};
use crate::error::{OpenError, ToolError, ToolErrorKind};

/// The largest file the guest may write, as on a database.
const MAX_FILE_BYTES: u64 = 512 << 20;

/// One named store: its files, and whether a call holds it.
struct Shared {
    fs: Fs,
    held: Mutex<bool>,
    let_go: Condvar,
}

/// Every in-memory store of the process, by name and namespace.
fn stores() -> &'static Mutex<HashMap<String, Arc<Shared>>> {
    static STORES: OnceLock<Mutex<HashMap<String, Arc<Shared>>>> = OnceLock::new();
    STORES.get_or_init(Default::default)
}

/// A handle on an in-memory store, for one [`crate::Memory`].
pub(crate) struct InMemoryStore {
    shared: Arc<Shared>,
    /// How long a call waits for another to let the store go.
    wait: Duration,
    /// Whether this handle's call holds the store.
    holding: bool,
}

impl InMemoryStore {
    /// The store `name`'s namespace `namespace`, made empty on first use.
    /// It takes no grants: a shared or extra store of its own would be
    /// another process's, and there is none.
    pub fn open(
        name: &str,
        namespace: &str,
        grants: &[Grant],
        call_timeout: Duration,
    ) -> Result<Self, OpenError> {
        if !grants.is_empty() {
            return Err(OpenError::InMemory("takes no shared or extra grants"));
        }
        let key = format!("{name}#{namespace}");
        let mut all = stores().lock().unwrap_or_else(|e| e.into_inner());
        let shared = all.entry(key).or_insert_with(|| {
            let fs = Fs::default();
            *fs.lock() = FsState {
                mounts: vec![Mount {
                    guest_name: GUEST_ROOT.to_owned(),
                    tree: Tree::empty(),
                    writable: true,
                }],
                max_file_bytes: MAX_FILE_BYTES,
                pager: None,
            };
            Arc::new(Shared {
                fs,
                held: Mutex::new(false),
                let_go: Condvar::new(),
            })
        });
        Ok(Self {
            shared: Arc::clone(shared),
            wait: call_timeout,
            holding: false,
        })
    }

    fn hold(&mut self) -> Result<(), ToolError> {
        let held = self.shared.held.lock().unwrap_or_else(|e| e.into_inner());
        let (mut held, waited) = self
            .shared
            .let_go
            .wait_timeout_while(held, self.wait, |held| *held)
            .unwrap_or_else(|e| e.into_inner());
        if waited.timed_out() && *held {
            return Err(ToolError::new(
                ToolErrorKind::TimedOut,
                format!(
                    "Another call held the memory for longer than {} s, memcap's time limit \
                     per call, so this command did not run and nothing was changed. Try again \
                     in a moment.",
                    self.wait.as_secs_f32()
                ),
            ));
        }
        *held = true;
        self.holding = true;
        Ok(())
    }

    fn let_go(&mut self) {
        if std::mem::take(&mut self.holding) {
            *self.shared.held.lock().unwrap_or_else(|e| e.into_inner()) = false;
            self.shared.let_go.notify_one();
        }
    }
}

impl Drop for InMemoryStore {
    fn drop(&mut self) {
        self.let_go();
    }
}

impl Backend for InMemoryStore {
    fn begin(&mut self, _writes: bool) -> Result<Instance, ToolError> {
        self.hold()?;
        Ok(Instance::default())
    }

    /// What a call changed stays, whatever its outcome: as on a directory,
    /// a call stopped halfway leaves what the guest's own writes leave (a
    /// file whole, old or new; a temporary file the next call removes).
    fn end(&mut self, _: Outcome) -> Result<Instance, ToolError> {
        for mount in &mut self.shared.fs.lock().mounts {
            // Nothing saves it: what changed is already the store.
            mount.tree.take_dirty();
        }
        self.let_go();
        Ok(Instance::default())
    }

    fn grant(&self, _: &mut WasiCtxBuilder) -> wasmtime::Result<Granted> {
        Ok(Granted::Served(self.shared.fs.clone()))
    }

    fn export(&mut self, reserved: Reserved) -> Result<Exported, CopyError> {
        access::export(&mut self.shared.fs.lock(), reserved)
    }

    fn read_file(&mut self, path: &str) -> Result<Option<Vec<u8>>, CopyError> {
        access::read_file(&mut self.shared.fs.lock(), path)
    }

    fn edit(&mut self, path: &str, edit: HostEdit<'_>) -> Result<(), CopyError> {
        access::edit(&mut self.shared.fs.lock(), path, edit)
    }

    fn import(
        &mut self,
        entries: &[Entry],
        history: &[Entry],
        replace: bool,
    ) -> Result<(), CopyError> {
        access::import(&mut self.shared.fs.lock(), entries, history, replace)
    }

    /// Nothing changes its files behind memcap's back.
    #[cfg(feature = "mcp")]
    fn start_feed(&mut self, _: Box<dyn CatchUp>) -> Result<Box<dyn Feed>, FeedError> {
        Ok(Box::new(Quiet))
    }
}
