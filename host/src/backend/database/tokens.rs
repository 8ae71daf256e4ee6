//! Tokens of a database store: the table `memcap_tokens`, made the first
//! time a token is created there (so a database with no tokens is never
//! changed). A store without the table has no tokens.

use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use super::conn::{self, Conn};
use crate::backend::database::Url;
use crate::error::OpenError;
use crate::tokens::{Access, TokenError, TokenRecord, TokenStore};

const CREATE: &str = "CREATE TABLE IF NOT EXISTS memcap_tokens (
    id text COLLATE \"C\" PRIMARY KEY,
    label text NOT NULL,
    access text NOT NULL,
    created bigint NOT NULL,
    last_used bigint,
    expires bigint,
    revoked bigint,
    hash text NOT NULL
)";

const COLUMNS: &str = "id, label, access, created, last_used, expires, revoked, hash";

/// The longest any one wait on the database lasts (connecting, or one
/// statement): a request's token check waits on it, and a database that
/// stopped answering must not hold the check, nor the next one.
const WAIT: Duration = Duration::from_secs(3);

/// The token table of one database, over one connection.
pub struct DatabaseTokens {
    url: Url,
    client: Mutex<Option<Conn>>,
    /// Whether the table was seen: it is never dropped, so a server asks
    /// once, not on every request.
    table_seen: AtomicBool,
}

impl DatabaseTokens {
    /// The tokens of the database at `url` (connected on first use).
    pub fn new(url: &str) -> Result<Self, OpenError> {
        Ok(Self {
            url: Url::parse(url)?,
            client: Mutex::new(None),
            table_seen: AtomicBool::new(false),
        })
    }

    /// Runs `f` on the connection, connecting (again) as needed.
    fn with<R>(
        &self,
        f: impl FnOnce(&mut Conn) -> Result<R, postgres::Error>,
    ) -> Result<R, TokenError> {
        let mut slot = self.client.lock().unwrap_or_else(|p| p.into_inner());
        if slot.as_ref().is_none_or(Conn::is_closed) {
            let runtime = conn::runtime().map_err(|e| TokenError::Database(e.to_string()))?;
            *slot = Some(self.url.connect_within(WAIT, runtime).map_err(database)?);
        }
        let client = slot.as_mut().expect("connected just above");
        let answer = f(client);
        if answer.is_err() && client.is_closed() {
            *slot = None;
        }
        answer.map_err(database)
    }

    fn has_table(&self, client: &mut Conn) -> Result<bool, postgres::Error> {
        if self.table_seen.load(Ordering::Relaxed) {
            return Ok(true);
        }
        let seen: bool = client
            .query_one("SELECT to_regclass('memcap_tokens') IS NOT NULL", &[])?
            .get(0);
        self.table_seen.store(seen, Ordering::Relaxed);
        Ok(seen)
    }
}

impl Drop for DatabaseTokens {
    /// The connection's runtime cannot be dropped inside another (a server
    /// that drops its gate on an async thread): there it is closed on a
    /// thread of its own.
    fn drop(&mut self) {
        let client = self
            .client
            .get_mut()
            .unwrap_or_else(|p| p.into_inner())
            .take();
        if client.is_some() && tokio::runtime::Handle::try_current().is_ok() {
            let _ = std::thread::Builder::new()
                .name("memcap-token-close".into())
                .spawn(move || drop(client));
        }
    }
}

fn database(e: postgres::Error) -> TokenError {
    TokenError::Database(match e.as_db_error() {
        Some(db) => db.message().to_owned(),
        None => e.to_string(),
    })
}

fn record(row: &postgres::Row) -> Result<TokenRecord, postgres::Error> {
    let access: String = row.try_get(2)?;
    // A row memcap did not write reads as a token that opens nothing.
    let access = serde_json::from_str(&access).unwrap_or_else(|_| Access {
        namespace: String::new(),
        shared: Vec::new(),
        read_only: true,
    });
    Ok(TokenRecord {
        id: row.try_get(0)?,
        label: row.try_get(1)?,
        access,
        created: row.try_get(3)?,
        last_used: row.try_get(4)?,
        expires: row.try_get(5)?,
        revoked: row.try_get(6)?,
        hash: row.try_get(7)?,
    })
}

impl TokenStore for DatabaseTokens {
    fn add(&self, r: &TokenRecord) -> Result<(), TokenError> {
        let access = serde_json::to_string(&r.access).expect("access always serialises");
        self.with(|client| {
            client.batch_execute(CREATE)?;
            client.execute(
                "INSERT INTO memcap_tokens (id, label, access, created, last_used, expires, revoked, hash) \
                 VALUES ($1, $2, $3, $4, $5, $6, $7, $8)",
                &[&r.id, &r.label, &access, &r.created, &r.last_used, &r.expires, &r.revoked, &r.hash],
            )?;
            Ok(())
        })
    }

    fn all(&self) -> Result<Vec<TokenRecord>, TokenError> {
        self.with(|client| {
            if !self.has_table(client)? {
                return Ok(Vec::new());
            }
            client
                .query(
                    &format!("SELECT {COLUMNS} FROM memcap_tokens ORDER BY created, id"),
                    &[],
                )?
                .iter()
                .map(record)
                .collect()
        })
    }

    fn find(&self, id: &str) -> Result<Option<TokenRecord>, TokenError> {
        self.with(|client| {
            if !self.has_table(client)? {
                return Ok(None);
            }
            client
                .query_opt(
                    &format!("SELECT {COLUMNS} FROM memcap_tokens WHERE id = $1"),
                    &[&id],
                )?
                .as_ref()
                .map(record)
                .transpose()
        })
    }

    fn revoke(&self, id: &str, at: i64) -> Result<bool, TokenError> {
        self.with(|client| {
            if !self.has_table(client)? {
                return Ok(false);
            }
            let rows = client.execute(
                "UPDATE memcap_tokens SET revoked = coalesce(revoked, $2) WHERE id = $1",
                &[&id, &at],
            )?;
            Ok(rows > 0)
        })
    }

    fn touch(&self, id: &str, at: i64) -> Result<(), TokenError> {
        self.with(|client| {
            client.execute(
                "UPDATE memcap_tokens SET last_used = $2 WHERE id = $1",
                &[&id, &at],
            )?;
            Ok(())
        })
    }

    fn configured(&self) -> Result<bool, TokenError> {
        self.with(|client| {
            Ok(self.has_table(client)?
                && client
                    .query_one("SELECT EXISTS (SELECT 1 FROM memcap_tokens)", &[])?
                    .get(0))
        })
    }
}
