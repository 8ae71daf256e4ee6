//! The CLI's parts beyond one store's commands: where the store is and how
//! it is opened ([`StoreSpec`]), copies ([`copy`]), the history
//! ([`history`]), tokens ([`token`]) and the HTTP server ([`serve`]), these two only in
//! a build with the `server` feature.

pub mod copy;
pub mod history;
#[cfg(feature = "server")]
pub mod serve;
#[cfg(feature = "server")]
pub mod token;

use memcap::location::Location;
use memcap::{Limits, MemoryBuilder};

/// Where the memory is kept and how stores there are opened; each
/// namespace (or the directory itself) is opened from it.
pub struct StoreSpec {
    /// The directory (a store, or with namespaces their base), or the
    /// database.
    pub location: Location,
    pub limits: Limits,
    pub vectors: bool,
}

impl StoreSpec {
    /// A builder for this store, with nothing granted yet.
    pub fn builder(&self) -> MemoryBuilder {
        self.location
            .builder()
            .private_umask(true)
            .vectors(self.vectors)
            .limits(self.limits.clone())
    }
}
