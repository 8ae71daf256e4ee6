//! Where a memory is kept: a [`Location`], parsed once from what a person
//! typed (a directory, or a PostgreSQL URL; a host may name a store in its
//! own memory), and everything that differs
//! between the two kinds of store above the backend: how a store and its
//! namespaces are opened, what a shared grant names, where tokens are kept
//! and how a message names the store. The CLI, `memcap copy`, the token
//! commands and the servers hold a `Location` and never ask which kind it
//! is.

use std::path::PathBuf;

use crate::error::OpenError;

#[cfg(feature = "server")]
use crate::tokens::TokenStore;

/// The namespace a database store serves when none is named.
pub const DEFAULT_NAMESPACE: &str = "default";

/// A directory (a store, or the base of its namespaces) or a database.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Location {
    /// A directory: the store itself, or with namespaces their base
    /// (`BASE/NAME` each).
    Directory(PathBuf),
    /// A PostgreSQL database, by its connection URL (libpq's spelling).
    /// Never shown: it may hold a password.
    Database(String),
    /// A store in this process's memory, by a name of the host's choosing
    /// (Cargo feature `in-memory`): every memory opened on one name and
    /// namespace shares it until the process ends. No command line names
    /// one; a host makes it with [`Location::in_memory`].
    InMemory(String),
}

impl Location {
    /// A database URL (`postgres://` or `postgresql://`) or else a
    /// directory.
    pub fn parse(spec: &str) -> Location {
        if Self::is_database_url(spec) {
            Location::Database(spec.to_owned())
        } else {
            Location::Directory(PathBuf::from(spec))
        }
    }

    /// A store as `memcap copy` takes it: a directory, a database URL (its
    /// `default` namespace), or `URL#NAME` for the namespace `NAME`.
    pub fn parse_with_namespace(spec: &str) -> (Location, Option<String>) {
        match spec.split_once('#') {
            Some((url, namespace)) if Self::is_database_url(url) => (
                Location::Database(url.to_owned()),
                Some(namespace.to_owned()),
            ),
            _ => (Self::parse(spec), None),
        }
    }

    /// The in-memory store `name` (see [`Location::InMemory`]).
    pub fn in_memory(name: &str) -> Location {
        Location::InMemory(name.to_owned())
    }

    /// The database at `url`, refusing anything that is not a database URL
    /// (for `--store`, which takes nothing else).
    pub fn database(url: &str) -> Result<Location, OpenError> {
        if Self::is_database_url(url) {
            Ok(Location::Database(url.to_owned()))
        } else {
            Err(OpenError::NotADatabase)
        }
    }

    /// The store a command line names: `--store URL` (a database URL
    /// only; empty counts as not given), else the directory `--root`.
    pub fn from_options(
        store: Option<&str>,
        root: &std::path::Path,
    ) -> Result<Location, OpenError> {
        match store {
            Some(url) if !url.is_empty() => Self::database(url),
            _ => Ok(Location::Directory(root.to_path_buf())),
        }
    }

    fn is_database_url(spec: &str) -> bool {
        spec.starts_with("postgres://") || spec.starts_with("postgresql://")
    }

    /// What a shared grant of the namespace `name` names: its directory
    /// beside the others, or (in a database) its name.
    pub fn shared_target(&self, name: &str) -> PathBuf {
        match self {
            Location::Directory(base) => base.join(name),
            Location::Database(_) | Location::InMemory(_) => PathBuf::from(name),
        }
    }

    /// The namespaces a directory holds as a base (its subdirectories that
    /// are memcap stores), at most `at_most` of them, by name; none for a
    /// database, whose namespaces are never served as one store.
    pub fn namespaces_within(&self, at_most: usize) -> Vec<String> {
        let Location::Directory(base) = self else {
            return Vec::new();
        };
        let Ok(entries) = std::fs::read_dir(base) else {
            return Vec::new();
        };
        let mut names: Vec<String> = entries
            .filter_map(Result::ok)
            .filter(|e| e.path().join(".memcap").is_dir())
            .filter_map(|e| e.file_name().into_string().ok())
            .filter(|name| !name.starts_with('.'))
            .take(at_most)
            .collect();
        names.sort();
        names
    }

    /// Whether `memcap copy` may write into the store here (the namespace
    /// `namespace`): a database's namespace, a directory that does not
    /// exist or is empty, or a memcap store (it has `.memcap`). Checked
    /// before the store is opened, since opening prepares `.memcap`: a
    /// project directory is never turned into a store and replaced.
    pub fn check_copy_target(&self, namespace: Option<&str>) -> Result<(), crate::CopyError> {
        let Location::Directory(base) = self else {
            return Ok(());
        };
        let dir = match namespace {
            Some(name) => base.join(name),
            None => base.clone(),
        };
        let holds_files = std::fs::read_dir(&dir).is_ok_and(|mut entries| entries.next().is_some());
        if holds_files && !dir.join(".memcap").is_dir() {
            return Err(crate::CopyError::NotAStore(dir));
        }
        Ok(())
    }

    /// The token store that goes with the store: a file in the base
    /// directory's `.memcap`, or a table in the database.
    #[cfg(feature = "server")]
    pub fn tokens(&self) -> Result<Box<dyn TokenStore>, OpenError> {
        Ok(match self {
            Location::Directory(base) => Box::new(
                crate::backend::directory::tokens::DirectoryTokens::new(base),
            ),
            #[cfg(feature = "database")]
            Location::Database(url) => {
                Box::new(crate::backend::database::tokens::DatabaseTokens::new(url)?)
            }
            #[cfg(not(feature = "database"))]
            Location::Database(_) => return Err(OpenError::NoDatabase),
            Location::InMemory(_) => return Err(OpenError::InMemory("keeps no tokens")),
        })
    }

    /// The store as messages name it, with the namespace opened there
    /// (`None`: the directory itself, or the database's `default`): never
    /// the URL, which may hold a password.
    pub fn describe(&self, namespace: Option<&str>) -> String {
        match (self, namespace) {
            (Location::Directory(base), None) => base.display().to_string(),
            (Location::Directory(base), Some(name)) => base.join(name).display().to_string(),
            (Location::Database(_), name) => format!(
                "the database's namespace {}",
                name.unwrap_or(DEFAULT_NAMESPACE)
            ),
            (Location::InMemory(store), name) => format!(
                "the in-memory store {store}'s namespace {}",
                name.unwrap_or(DEFAULT_NAMESPACE)
            ),
        }
    }
}
