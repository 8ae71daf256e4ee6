//! Why a database store could not be opened, told in full to the person
//! running memcap: the database's own words kept, the connection string
//! never.

/// Why a database store could not be opened. For the person running
/// memcap: the database's own words are kept, the connection string never.
#[derive(Debug, thiserror::Error)]
pub enum OpenDbError {
    #[error(
        "the store {0:?} is not a PostgreSQL connection URL (postgres://user@host/db, as libpq takes it)"
    )]
    BadUrl(String),
    #[error(
        "the store URL {0:?} has {1}, which libpq does not take (sslmode is disable, allow, prefer, require, verify-ca or verify-full)"
    )]
    BadParameter(String, String),
    #[error("memcap could not set up its connection's event loop: {0}")]
    Runtime(std::io::Error),
    #[error("TLS to the memory database cannot be set up: {0}")]
    Tls(String),
    #[error("could not connect to the memory database: {0}")]
    Connect(Described),
    #[error("the memory database refused memcap's setup: {0}")]
    Query(Described),
    #[error(
        "could not create memcap's tables (the role needs CREATE on the database the first time): {0}"
    )]
    Create(Described),
    #[error(
        "the memory database was set up by a newer memcap (schema version {found}; this memcap knows version {known}): upgrade memcap"
    )]
    NewerSchema { found: i32, known: i32 },
    #[error(
        "the memory database's memcap_schema table holds no version memcap knows: was it changed by hand?"
    )]
    UnknownSchema,
    #[error(
        "the namespace {name:?} given with --{flag} does not exist in the memory database: write to it first (--namespace {name}) or copy a directory into it (memcap copy DIR URL#{name})"
    )]
    MissingNamespace { name: String, flag: &'static str },
}

impl OpenDbError {
    pub(crate) fn connect(e: postgres::Error) -> Self {
        Self::Connect(Described(e))
    }

    pub(crate) fn query(e: postgres::Error) -> Self {
        Self::Query(Described(e))
    }

    pub(crate) fn create(e: postgres::Error) -> Self {
        Self::Create(Described(e))
    }
}

/// A database error told in full: the server's message, or the client's
/// with its cause ("error connecting to server: Connection refused").
#[derive(Debug)]
pub struct Described(postgres::Error);

impl std::fmt::Display for Described {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&describe(&self.0))
    }
}

pub(crate) fn describe(e: &postgres::Error) -> String {
    if let Some(db) = e.as_db_error() {
        return format!("{}: {}", db.severity(), db.message());
    }
    let mut out = e.to_string();
    let mut cause = std::error::Error::source(e);
    while let Some(e) = cause {
        out.push_str(&format!(": {e}"));
        cause = e.source();
    }
    out
}
