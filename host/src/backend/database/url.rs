//! A store URL: libpq's spelling, parsed once, with TLS taken out of it
//! (`tls.rs`), and the connection it makes.

use std::str::FromStr;
use std::sync::Arc;
use std::time::Duration;

#[cfg(feature = "mcp")]
use postgres::Client;
use tokio::runtime::Runtime;
use tokio_postgres::Config;
use tokio_postgres_rustls::MakeRustlsConnect;

use super::conn::{Answer, Ask, Conn};
use super::tls::Tls;
use crate::error::OpenDbError;

/// How to reach the database, parsed once.
#[derive(Clone)]
pub(crate) struct Url {
    config: Config,
    tls: MakeRustlsConnect,
}

impl Url {
    pub fn parse(store: &str) -> Result<Self, OpenDbError> {
        let (url, tls) =
            Tls::split(store).map_err(|param| OpenDbError::BadParameter(redact(store), param))?;
        let mut config = Config::from_str(&url).map_err(|_| OpenDbError::BadUrl(redact(store)))?;
        if config.get_connect_timeout().is_none() {
            config.connect_timeout(Duration::from_secs(5));
        }
        config.application_name("memcap");
        config.ssl_mode(tls.mode());
        let connector = tls.connector().map_err(OpenDbError::Tls)?;
        Ok(Self {
            config,
            tls: connector,
        })
    }

    /// A connection for calls, driven on `runtime`.
    pub fn connect(
        &self,
        call_timeout: Duration,
        runtime: Arc<Runtime>,
    ) -> Result<Conn, postgres::Error> {
        self.connect_asking(call_timeout, runtime, &[])
            .map(|(conn, _)| conn)
    }

    /// [`Url::connect`], with `asks` sent in the same round trip as the
    /// connection's setting (see [`Conn::pipeline`]), and their answers.
    pub fn connect_asking(
        &self,
        call_timeout: Duration,
        runtime: Arc<Runtime>,
        asks: &[Ask<'_>],
    ) -> Result<(Conn, Vec<Answer>), postgres::Error> {
        // The server stops a statement at the call's limit; a server that
        // answers nothing at all is given up on a little after it.
        let deadline = call_timeout + Duration::from_secs(5);
        let mut conn = Conn::connect(&self.config, self.tls.clone(), runtime, deadline)?;
        let set = statement_timeout(call_timeout);
        let all: Vec<Ask<'_>> = std::iter::once(Ask::Simple(&set))
            .chain(asks.iter().copied())
            .collect();
        let mut answers = conn.pipeline(&all)?;
        if let Answer::Simple(Err(e)) = answers.remove(0) {
            return Err(e);
        }
        Ok((conn, answers))
    }

    /// A connection whose every wait (connecting too) ends within `wait`,
    /// and whose statements the server stops a little before: for the
    /// token checks, which a request waits on.
    #[cfg(feature = "server")]
    pub fn connect_within(
        &self,
        wait: Duration,
        runtime: Arc<Runtime>,
    ) -> Result<Conn, postgres::Error> {
        let mut conn = Conn::connect(&self.config, self.tls.clone(), runtime, wait)?;
        conn.batch_execute(&statement_timeout(wait.mul_f32(0.8)))?;
        Ok(conn)
    }

    /// A blocking connection of its own thread, for listening.
    #[cfg(feature = "mcp")]
    pub fn connect_blocking(&self, call_timeout: Duration) -> Result<Client, postgres::Error> {
        let config = postgres::Config::from(self.config.clone());
        let mut client = config.connect(self.tls.clone())?;
        client.batch_execute(&statement_timeout(call_timeout))?;
        Ok(client)
    }
}

/// No statement may outlast a call: a lock another host holds too long, or
/// a server that stopped answering, fails the call.
fn statement_timeout(call_timeout: Duration) -> String {
    let ms = call_timeout.as_millis().clamp(1, i32::MAX as u128);
    format!("SET statement_timeout = {ms}")
}

/// The URL with any password taken out, for messages.
pub(crate) fn redact(store: &str) -> String {
    match (store.find("://"), store.rfind('@')) {
        (Some(scheme), Some(at)) if at > scheme && store[scheme..at].contains(':') => {
            let user = &store[scheme + 3..at];
            let user = user.split(':').next().unwrap_or_default();
            format!("{}{user}:…{}", &store[..scheme + 3], &store[at..])
        }
        _ => store.to_owned(),
    }
}
