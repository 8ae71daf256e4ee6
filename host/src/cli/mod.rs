//! The CLI's parts beyond one store's commands: where the store is
//! ([`StoreSpec`]), tokens ([`token`]) and the HTTP server ([`serve`]).

pub mod serve;
pub mod token;

use std::path::{Path, PathBuf};

use memcap::{Limits, Memory, MemoryBuilder};

/// Where the memory is kept and how stores there are opened; each
/// namespace (or the directory itself) is opened from it.
pub struct StoreSpec {
    /// The directory (a store, or with namespaces their base).
    pub root: PathBuf,
    /// The database URL, when the memory is in PostgreSQL.
    pub url: Option<String>,
    pub limits: Limits,
    pub vectors: bool,
}

impl StoreSpec {
    /// A builder for this store, with nothing granted yet.
    pub fn builder(&self) -> MemoryBuilder {
        let builder = match &self.url {
            Some(url) => Memory::database(url),
            None => Memory::builder(&self.root),
        };
        builder
            .private_umask(true)
            .vectors(self.vectors)
            .limits(self.limits.clone())
    }

    /// What a shared grant of the namespace `target` names: its directory
    /// beside the others, or (in a database) its name.
    pub fn shared_target(&self, target: &str) -> PathBuf {
        match &self.url {
            Some(_) => PathBuf::from(target),
            None => self.root.join(target),
        }
    }

    /// Makes the namespace `name` if it is missing, so grants of it open.
    pub fn ensure_namespace(&self, name: &str) -> anyhow::Result<()> {
        memcap::namespace::check("namespace", name)?;
        drop(self.builder().namespace(name).create_root(true).open()?);
        Ok(())
    }

    /// The token store beside the namespaces.
    pub fn tokens(&self) -> anyhow::Result<Box<dyn memcap::tokens::TokenStore>> {
        Ok(match &self.url {
            Some(url) => Box::new(memcap::tokens::database::DatabaseTokens::new(url)?),
            None => Box::new(memcap::tokens::directory::DirectoryTokens::new(Path::new(
                &self.root,
            ))),
        })
    }
}
