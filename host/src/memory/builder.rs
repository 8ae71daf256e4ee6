//! [`MemoryBuilder`]: where a [`Memory`]'s store is (a directory or a
//! database), what is granted beside it, and the limits it runs under.

use std::path::Path;

use memcap_core::storage::mounts::Place;

use super::Memory;
#[cfg(feature = "database")]
use crate::backend::database::{DatabaseStore, Url};
use crate::backend::directory::DirectoryStore;
use crate::backend::{Backend, Grant};
use crate::error::OpenError;
use crate::limits::Limits;
use crate::location::Location;

pub use crate::location::DEFAULT_NAMESPACE;

/// Options for [`Memory`]; see [`Memory::builder`] and [`Memory::database`].
pub struct MemoryBuilder {
    location: Location,
    namespace: Option<String>,
    grants: Vec<Grant>,
    limits: Limits,
    vectors: bool,
    create_root: bool,
    private_umask: bool,
    read_only: bool,
    clock: super::Clock,
}

impl MemoryBuilder {
    pub(super) fn directory(root: &Path) -> Self {
        Self::at(Location::Directory(root.to_path_buf()))
    }

    pub(super) fn database(url: &str) -> Self {
        Self::at(Location::Database(url.to_owned()))
    }

    /// Options for a store at `location` (see [`Location::builder`]).
    pub(crate) fn at(location: Location) -> Self {
        Self {
            location,
            namespace: None,
            grants: Vec::new(),
            limits: Limits::default(),
            vectors: true,
            create_root: true,
            private_umask: false,
            read_only: false,
            clock: Default::default(),
        }
    }

    /// Serves one user's or project's store: on a directory store
    /// `BASE/name` instead of the base directory, on a database store the
    /// namespace `name` (`default` when none is given). Only that one is
    /// granted, so nothing under another namespace can be reached. `name`
    /// is 1 to 64 ASCII letters, digits, `-`, `_` or `.`, not starting with
    /// a dot; [`MemoryBuilder::open`] refuses others.
    pub fn namespace(mut self, name: impl Into<String>) -> Self {
        self.namespace = Some(name.into());
        self
    }

    /// Grants `target` too, seen by the agent as `/memories/shared/NAME/...`:
    /// memory shared by several users or projects. On a directory store
    /// `target` is an existing directory, on a database store the name of
    /// an existing namespace in the same database. It is its own preopen,
    /// so the grant is exactly that; `read_only` refuses every change in it.
    /// `name` follows the rules of [`MemoryBuilder::namespace`]. Files never
    /// move between it and the rest of the store (a rename across is
    /// refused), and it has its own lock, so servers of different users
    /// write it safely.
    pub fn shared(
        mut self,
        name: impl Into<String>,
        target: impl AsRef<Path>,
        read_only: bool,
    ) -> Self {
        self.grants.push(Grant {
            place: Place::Shared,
            name: name.into(),
            target: target.as_ref().to_path_buf(),
            read_only,
        });
        self
    }

    /// Grants `target` read-only, seen by the agent as
    /// `/memories/extra/NAME/...`: reference material (docs, a wiki, another
    /// project's notes) that `memory_search` finds as the `custom` source
    /// and `view` / `memory_get` read, and that nothing memcap runs can
    /// change. On a directory store `target` is an existing directory, on
    /// a database store an existing namespace (`memcap copy` imports one).
    /// `name` follows the rules of [`MemoryBuilder::namespace`].
    pub fn extra(mut self, name: impl Into<String>, target: impl AsRef<Path>) -> Self {
        self.grants.push(Grant {
            place: Place::Extra,
            name: name.into(),
            target: target.as_ref().to_path_buf(),
            read_only: true,
        });
        self
    }

    /// Replaces the default [`Limits`].
    pub fn limits(mut self, limits: Limits) -> Self {
        self.limits = limits;
        self
    }

    /// Whether searches are hybrid, with the embedding model compiled into
    /// the component (on by default), or keywords only (BM25) with `false`:
    /// the guest is told `MEMCAP_VECTORS=off`, says so in every search
    /// answer, and its index keeps no vectors (switching rebuilds it once).
    pub fn vectors(mut self, on: bool) -> Self {
        self.vectors = on;
        self
    }

    /// Whether [`MemoryBuilder::open`] creates a missing store (the
    /// default). With `false` nothing is created until the first call that
    /// writes: reads answer as an empty store, so a mistyped path or
    /// namespace leaves nothing behind (the CLI opens stores this way).
    pub fn create_root(mut self, create: bool) -> Self {
        self.create_root = create;
        self
    }

    /// Whether opening adds 0o077 to the process umask (off by default), so
    /// the files the guest creates are 0600 and its directories 0700 whatever
    /// the umask was: WASI cannot pass a file mode. The umask belongs to the
    /// whole process, so this is for programs that are memcap alone (the CLI
    /// turns it on). Without it the store memcap creates is still 0700, which
    /// keeps other users out of the files inside it.
    pub fn private_umask(mut self, private: bool) -> Self {
        self.private_umask = private;
        self
    }

    /// Whether every change is refused (off by default): calls that would
    /// change files answer a `denied` error before they run, while views,
    /// reads and searches work (memcap still keeps its own derived state).
    /// Shared grants keep their own `read_only`.
    pub fn read_only(mut self, read_only: bool) -> Self {
        self.read_only = read_only;
        self
    }

    /// Gives the component `clock` as its wall clock (feature `testing`):
    /// a test moves it ahead instead of waiting for stamps to age.
    #[cfg(feature = "testing")]
    pub fn clock(mut self, clock: crate::TestClock) -> Self {
        self.clock = Some(clock);
        self
    }

    /// Opens the store; see [`Memory::open`] and [`Memory::database`].
    pub fn open(self) -> Result<Memory, OpenError> {
        if let Some(name) = &self.namespace {
            crate::namespace::check("namespace", name)?;
        }
        for (i, grant) in self.grants.iter().enumerate() {
            let what = match grant.place {
                Place::Shared => "shared directory name",
                Place::Extra => "extra directory name",
            };
            crate::namespace::check(what, &grant.name)?;
            if self.grants[..i]
                .iter()
                .any(|g| g.place == grant.place && g.name == grant.name)
            {
                return Err(OpenError::BadName {
                    what,
                    name: grant.name.clone(),
                    why: "is given twice",
                });
            }
        }
        if self.private_umask {
            tighten_umask();
        }
        let (backend, name): (Box<dyn Backend>, String) = match &self.location {
            Location::Directory(base) => {
                let base = match &self.namespace {
                    Some(name) => base.join(name),
                    None => base.clone(),
                };
                let root = std::path::absolute(&base).map_err(|cause| OpenError::Root {
                    path: base.clone(),
                    cause,
                })?;
                let store = DirectoryStore::open(
                    root,
                    &self.grants,
                    self.create_root,
                    self.limits.call_timeout,
                )?;
                let name = store.root().display().to_string();
                (Box::new(store), name)
            }
            #[cfg(feature = "in-memory")]
            Location::InMemory(store) => {
                let namespace = self.namespace.as_deref().unwrap_or(DEFAULT_NAMESPACE);
                let store = crate::backend::in_memory::InMemoryStore::open(
                    store,
                    namespace,
                    &self.grants,
                    self.limits.call_timeout,
                )?;
                (Box::new(store), format!("in-memory namespace {namespace}"))
            }
            #[cfg(not(feature = "in-memory"))]
            Location::InMemory(_) => {
                return Err(OpenError::InMemory(
                    "is not in this build (Cargo feature `in-memory`)",
                ));
            }
            #[cfg(not(feature = "database"))]
            Location::Database(_) => return Err(OpenError::NoDatabase),
            #[cfg(feature = "database")]
            Location::Database(url) => {
                for grant in &self.grants {
                    let target = grant.target.to_string_lossy();
                    crate::namespace::check("namespace", &target)?;
                }
                let namespace = self.namespace.as_deref().unwrap_or(DEFAULT_NAMESPACE);
                let url = Url::parse(url)?;
                // The component loads while the database connects (a
                // one-shot call waited for one, then the other); whoever
                // asks first waits for it, its error included.
                let _ = std::thread::Builder::new()
                    .name("memcap-load".into())
                    .spawn(|| drop(crate::runtime::get()));
                let store = DatabaseStore::open(
                    url,
                    namespace,
                    &self.grants,
                    self.create_root,
                    self.limits.call_timeout,
                )?;
                (Box::new(store), format!("namespace {namespace}"))
            }
        };
        Memory::serve(
            backend,
            name,
            self.limits,
            self.vectors,
            self.read_only,
            self.clock,
        )
    }
}

/// WASI cannot pass a file mode, so the guest's files get the process umask:
/// tighten it so they are 0600 and directories 0700. Bits are only ever
/// removed from the umask, never added back.
fn tighten_umask() {
    use rustix::fs::Mode;
    use rustix::process::umask;
    let previous = umask(Mode::from_raw_mode(0o077));
    umask(previous | Mode::from_raw_mode(0o077));
}

/// Opening what a [`Location`] names.
impl Location {
    /// A builder for the store here: the directory itself, or the
    /// database's `default` namespace; [`MemoryBuilder::namespace`] picks
    /// another.
    pub fn builder(&self) -> MemoryBuilder {
        MemoryBuilder::at(self.clone())
    }

    /// Makes the namespace `name` if it is missing, so grants of it open.
    pub fn ensure_namespace(&self, name: &str) -> Result<(), OpenError> {
        crate::namespace::check("namespace", name)?;
        drop(self.builder().namespace(name).create_root(true).open()?);
        Ok(())
    }

    /// Makes the namespace a shared grant names when it is a directory
    /// missing beside the others (a team server's first use of it). A
    /// database's namespace is never made by a grant: opening refuses a
    /// grant of one that does not exist, naming it.
    pub fn ensure_shared(&self, name: &str) -> Result<(), OpenError> {
        match self {
            Location::Directory(base) if !base.join(name).is_dir() => self.ensure_namespace(name),
            _ => Ok(()),
        }
    }
}
