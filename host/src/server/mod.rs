//! `memcap mcp --http`: MCP over streamable HTTP for a whole team. Each
//! request's bearer token decides the one namespace (and the shared ones)
//! it reaches ([`auth`]); many namespaces are served from one process by a
//! bounded pool of warm stores ([`pool`]). Everything a client can make
//! the server hold is bounded: connections and the time to send a request
//! ([`listen`]), body size and upload time, sessions and their idle time,
//! calls per second per token, failed sign-ins per peer ([`sign_ins`]).
//! `GET /healthz` answers without a token and
//! says nothing about any store.

mod answers;
mod auth;
mod busy;
mod guard;
mod listen;
pub(crate) mod log;
pub(crate) mod metrics;
mod owners;
mod pool;
pub(crate) mod sign_ins;
mod stall;
mod streams;
mod team;

use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

use axum::Router;
use axum::routing::get;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};

pub use auth::{Admission, Denial, Gate, Principal};
pub use pool::{Opener, Pool, PoolLimits};
pub use team::TeamServer;

/// What one client may make the server hold, and for how long.
#[derive(Clone, Debug)]
pub struct HttpLimits {
    /// The largest request body; a larger one gets 413 unread.
    pub max_body: usize,
    /// The time to send a request's headers, and then its body.
    pub read_timeout: Duration,
    /// The time a new connection has to send its first bytes; until then
    /// it holds no slot.
    pub first_bytes_timeout: Duration,
    /// The longest a write may wait on a client that reads nothing; then
    /// the connection closes.
    pub write_timeout: Duration,
    /// The most connections served at once (as many more may wait to be).
    pub max_connections: usize,
    /// Slots besides those, kept for calls with a valid token (one request
    /// each, no `GET` stream), for when the others are all taken.
    pub reserved_connections: usize,
    /// The most answer bytes one token's clients may leave unread; past it
    /// its new requests get 429 and another answer is dropped.
    pub max_unread_bytes: u64,
    /// The most of them from one peer address; more are closed at once.
    pub max_connections_per_peer: usize,
    /// The most MCP sessions at once; past it a token's new session closes
    /// its own least recently used one, or gets 503 if it holds none.
    pub max_sessions: usize,
    /// The most MCP sessions one token holds: its new session past this
    /// closes its least recently used one.
    pub max_sessions_per_token: usize,
    /// A session unused this long is closed.
    pub session_idle: Duration,
    /// The most `GET` streams one token holds open; past it a new one gets 429.
    pub max_streams_per_token: usize,
    /// A `GET` stream ends after this long (the client opens it again, and
    /// its token is checked again).
    pub stream_lifetime: Duration,
    /// Failed sign-ins one peer may make a minute before its requests are
    /// turned away until the minute is over (0: no limit).
    pub max_failed_sign_ins: u32,
}

/// How the server is reached.
#[derive(Clone, Debug)]
pub struct HttpOptions {
    /// Names the `Host` header may carry (`*`: any, for a proxy that checks it).
    pub allowed_hosts: Vec<String>,
    /// Browser origins allowed; a request with any other `Origin` gets 403.
    pub allowed_origins: Vec<String>,
    pub limits: HttpLimits,
    /// How long a shutdown waits for running calls.
    pub shutdown_grace: Duration,
    /// Where to serve `GET /metrics` (Prometheus text), if anywhere.
    pub metrics: Option<std::net::SocketAddr>,
    /// Serve only the page (`memcap ui`), not MCP.
    pub page_only: bool,
}

/// How long `/readyz` waits for the token store.
const READY_WAIT: Duration = Duration::from_secs(3);

/// `GET /readyz`: whether the server can admit anyone now: its token store
/// answers within [`READY_WAIT`] (a database that stopped answering is not
/// ready). 200 or 503, with no token and no data.
async fn readyz(
    axum::extract::State(gate): axum::extract::State<Arc<Gate>>,
) -> axum::response::Response {
    use axum::response::IntoResponse;
    let check = tokio::task::spawn_blocking(move || gate.ready());
    let (status, body) = match tokio::time::timeout(READY_WAIT, check).await {
        Ok(Ok(Ok(()))) => (
            axum::http::StatusCode::OK,
            "{\"status\":\"ready\"}\n".to_owned(),
        ),
        Ok(Ok(Err(why))) => (
            axum::http::StatusCode::SERVICE_UNAVAILABLE,
            serde_json::json!({"status": "unavailable", "why": why}).to_string() + "\n",
        ),
        Ok(Err(_)) | Err(_) => (
            axum::http::StatusCode::SERVICE_UNAVAILABLE,
            "{\"status\":\"unavailable\",\"why\":\"the token store did not answer in time\"}\n"
                .to_owned(),
        ),
    };
    (
        status,
        [(axum::http::header::CONTENT_TYPE, "application/json")],
        body,
    )
        .into_response()
}

/// `GET /healthz`: the process answers. No token, no data.
async fn healthz() -> impl axum::response::IntoResponse {
    (
        [(axum::http::header::CONTENT_TYPE, "application/json")],
        "{\"status\":\"ok\"}\n",
    )
}

/// Serves MCP at `/mcp` (unless `page_only`), `page` (the routes of
/// [`crate::ui`]) and `GET /healthz` on `listener` until `shutdown`
/// resolves; then stops taking connections, lets running calls finish
/// (within the grace time) and returns.
pub async fn serve(
    listener: tokio::net::TcpListener,
    gate: Arc<Gate>,
    pool: Arc<Pool>,
    page: Router,
    options: HttpOptions,
    shutdown: impl Future<Output = ()>,
) -> std::io::Result<()> {
    let metrics_listener = match options.metrics {
        Some(addr) => Some(tokio::net::TcpListener::bind(addr).await?),
        None => None,
    };
    let busy = busy::Busy::default();
    let team = TeamServer::new(Arc::clone(&pool), busy.clone());
    let mut config = StreamableHttpServerConfig::default()
        .with_allowed_origins(options.allowed_origins.clone())
        .enforce_origin_validation()
        .with_max_request_body_bytes(options.limits.max_body);
    config = if options.allowed_hosts.iter().any(|h| h == "*") {
        config.disable_allowed_hosts()
    } else {
        config.with_allowed_hosts(options.allowed_hosts.clone())
    };
    let stop_sessions = config.cancellation_token.clone();
    let mut sessions = LocalSessionManager::default();
    sessions.session_config.keep_alive = Some(options.limits.session_idle);
    let sessions = Arc::new(sessions);
    let mcp = StreamableHttpService::new(move || Ok(team.clone()), Arc::clone(&sessions), config);
    let metrics_task = metrics_listener.map(|listener| {
        let pool = Arc::clone(&pool);
        let sources = metrics::Sources {
            warm: Arc::new(move || pool.warm()),
            sessions: Arc::clone(&sessions),
        };
        tokio::spawn(metrics::serve(listener, sources))
    });
    let guard = guard::Guard::new(
        Arc::clone(&gate),
        sessions,
        options.limits.clone(),
        busy.clone(),
    );
    let mut app = Router::new()
        .merge(page)
        .route("/healthz", get(healthz))
        .route("/readyz", get(readyz).with_state(Arc::clone(&gate)));
    if !options.page_only {
        app = app.nest_service("/mcp", Arc::clone(&guard).wrap(mcp));
    }

    // Idle stores, quiet tokens' rate state and the sessions of revoked
    // tokens go on a timer too.
    let sweeper = {
        let (pool, gate) = (Arc::clone(&pool), Arc::clone(&gate));
        tokio::spawn(async move {
            let mut tick = tokio::time::interval(Duration::from_secs(2));
            for round in 0u64.. {
                tick.tick().await;
                guard.close_revoked().await;
                if round % 3 == 0 {
                    pool.sweep();
                    gate.forget_quiet();
                }
            }
        })
    };
    let listening = listen::Listening::start(listener, app, &options.limits);
    shutdown.await;
    log::event("stopping", serde_json::json!({"in_progress": busy.count()}));
    let deadline = tokio::time::Instant::now() + options.shutdown_grace;
    listening.stop_accepting();
    // Requests already taken and the calls they started finish; their
    // answers still go out.
    busy.settle(deadline).await;
    stop_sessions.cancel();
    listening.close(deadline).await;
    sweeper.abort();
    if let Some(task) = metrics_task {
        task.abort();
    }
    log::event("stopped", serde_json::json!({}));
    Ok(())
}
