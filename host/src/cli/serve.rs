//! `memcap mcp --http ADDR`: the MCP server over HTTP. With tokens made
//! (`memcap token create`), every request needs one, and its token alone
//! decides the namespace. Without, it is a server for the one user who
//! started it: loopback only, no `--allow-host`, never a base of namespaces
//! served as one store, and every request must show the token it prints
//! when it starts. `--no-auth` lets everyone in (for a proxy that
//! authenticates); it too stops admitting anyone once a token is made.

use std::net::SocketAddr;
use std::num::NonZeroU32;
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;

use anyhow::Context;
use clap::Args;
use memcap::mcp::MemoryServer;
use memcap::server::{
    Admission, Gate, HttpLimits, HttpOptions, Opener, Pool, PoolLimits, Principal,
};
use memcap::tokens::{Access, SharedAccess, TokenStore};
use memcap::ui::{SignIn, Ui, UiOptions};

use super::StoreSpec;

/// The HTTP server's bounds.
#[derive(Args, Clone, Debug)]
pub struct ServerArgs {
    /// A name clients reach the server by, checked against the Host header
    /// (repeat; loopback names are always allowed; `*` turns the check off
    /// behind a proxy that does it).
    #[arg(long = "allow-host", value_name = "HOST")]
    pub allow_hosts: Vec<String>,
    /// A browser origin allowed to call (repeat, e.g. https://app.example.com:443);
    /// a request carrying any other Origin header gets 403.
    #[arg(long = "allow-origin", value_name = "ORIGIN")]
    pub allow_origins: Vec<String>,
    /// Seconds a client has to send a request's headers, and then its body.
    #[arg(long, default_value_t = 10)]
    pub read_timeout_secs: u64,
    /// Seconds a new connection has to send its first bytes (it holds no
    /// slot until then).
    #[arg(long, default_value_t = 3)]
    pub first_bytes_secs: u64,
    /// Seconds a write may wait on a client that reads nothing of an answer
    /// before the connection is closed.
    #[arg(long, default_value_t = 30)]
    pub write_timeout_secs: u64,
    /// The most connections served at once (as many more may wait for a slot).
    #[arg(long, default_value_t = 512)]
    pub max_connections: usize,
    /// Slots besides --max-connections kept for calls with a valid token,
    /// one request each, for when every other slot is taken (by idle
    /// streams, say).
    #[arg(long, default_value_t = 32)]
    pub reserved_connections: usize,
    /// The most answer bytes (MiB) one token's clients may leave unread;
    /// past it the token's new requests get 429 with Retry-After.
    #[arg(long, default_value_t = 32)]
    pub max_unread_mib: u64,
    /// The most connections open at once from one address (more are closed
    /// at once). Behind a proxy every connection comes from the proxy: raise
    /// it to --max-connections there.
    #[arg(long, default_value_t = 128)]
    pub max_connections_per_peer: usize,
    /// The most MCP sessions at once.
    #[arg(long, default_value_t = 1000)]
    pub max_sessions: usize,
    /// The most MCP sessions one token holds; its next one closes its least
    /// recently used (so one token cannot fill the server's sessions).
    #[arg(long, default_value_t = 32)]
    pub max_sessions_per_token: usize,
    /// The most GET streams one token holds open at once.
    #[arg(long, default_value_t = 8)]
    pub max_streams_per_token: usize,
    /// End a GET stream after this many seconds (the client opens it again,
    /// and its token is checked again).
    #[arg(long, default_value_t = 3600)]
    pub max_stream_secs: u64,
    /// Close an MCP session unused this many seconds.
    #[arg(long, default_value_t = 300)]
    pub session_idle_secs: u64,
    /// Calls per second one token may make (bursts of twice that).
    #[arg(long, default_value_t = NonZeroU32::new(50).expect("nonzero"))]
    pub rate_limit: NonZeroU32,
    /// Request bytes one token may send a second, in MiB (bursts up to the
    /// largest request, 16 MiB): large writes cost more than small calls.
    /// 0: no limit.
    #[arg(long, default_value_t = 8)]
    pub rate_limit_mib: u32,
    /// The most namespaces kept warm at once.
    #[arg(long, default_value_t = 32)]
    pub warm_stores: usize,
    /// The most memory (MiB) the warm namespaces' instances may hold together.
    #[arg(long, default_value_t = 1024)]
    pub warm_memory_mib: usize,
    /// Drop a warm namespace unused this many seconds.
    #[arg(long, default_value_t = 600)]
    pub warm_idle_secs: u64,
    /// Failed sign-ins one address may make a minute before its requests
    /// are turned away until the minute is over (0: no limit; behind a
    /// proxy every request comes from the proxy's address).
    #[arg(long, default_value_t = 20)]
    pub max_failed_sign_ins: u32,
    /// Serve Prometheus metrics (`GET /metrics`) on this address, a listener
    /// of its own: calls, latency, refusals, stores, sessions, streams and
    /// database round trips; never a token, namespace or note. No token is
    /// asked there: bind it where only your scraper reaches.
    #[arg(long, value_name = "ADDR")]
    pub metrics: Option<SocketAddr>,
    /// Without tokens, admit every request (no printed token, any address):
    /// only for a server behind something that authenticates each request.
    #[arg(long)]
    pub no_auth: bool,
}

/// What the CLI asked to serve besides the address.
pub struct Serve<'a> {
    pub spec: StoreSpec,
    pub addr: SocketAddr,
    pub watch: bool,
    pub args: &'a ServerArgs,
    /// Whether --namespace, --shared, --extra or --read-only was given:
    /// refused with tokens, where each token decides them.
    pub flags_given: bool,
    /// Whether --namespace was given (without tokens, the store served is
    /// that namespace, not the base).
    pub namespace_given: bool,
    /// The store the flags name, served without tokens.
    pub open_flagged: Box<dyn Fn() -> Result<memcap::Memory, memcap::OpenError> + Send + Sync>,
    /// `memcap ui`: the page alone, for the store the flags name, to the
    /// person who started it; they sign in with a printed one-time link
    /// and their changes are recorded as this name's.
    pub owner: Option<String>,
}

pub fn http(serve: Serve<'_>) -> anyhow::Result<ExitCode> {
    let Serve {
        spec,
        addr,
        watch,
        args,
        flags_given,
        namespace_given,
        open_flagged,
        owner,
    } = serve;
    let tokens: Arc<dyn TokenStore> = Arc::from(spec.location.tokens()?);
    // `memcap ui` serves its owner the store the flags name, tokens or not:
    // whoever can start it reaches the store anyway.
    let with_tokens = owner.is_none() && tokens.configured()?;
    let spec = Arc::new(spec);
    let mut local_token = None;
    let (admission, open): (Admission, Box<Opener>) = if with_tokens {
        // A token file memcap cannot trust, or one that holds an id twice,
        // is refused now rather than at every request.
        tokens.all()?;
        if flags_given {
            anyhow::bail!(
                "with tokens, each token decides its namespace and grants: drop --namespace, --shared, --extra and --read-only (see memcap token list)"
            );
        }
        let spec = Arc::clone(&spec);
        let open = move |access: &Access| -> Result<MemoryServer, String> {
            let memory = open_access(&spec, access).map_err(|e| e.to_string())?;
            MemoryServer::new(memory, watch).map_err(|e| e.to_string())
        };
        (Admission::Tokens(tokens), Box::new(open))
    } else {
        let within = spec.location.namespaces_within(5);
        if !namespace_given && !within.is_empty() {
            anyhow::bail!(
                "{} holds the namespaces {}, and without tokens it would be served as one store with all of them in it. \
                 Serve one with --namespace NAME, or make tokens (memcap token create --namespace NAME) to serve each to its own token",
                spec.location.describe(None),
                within.join(", ")
            );
        }
        let admission = if owner.is_some() {
            if !addr.ip().is_loopback() {
                anyhow::bail!(
                    "{addr} is not a loopback address: memcap ui serves the person at this machine. \
                     Listen on 127.0.0.1, or serve a team with memcap mcp --http and tokens"
                );
            }
            // Nobody is shown this token: the page's owner signs in with
            // the printed code, and no MCP endpoint is served.
            Admission::Local {
                token: memcap::tokens::local_token()?,
                tokens,
            }
        } else if args.no_auth {
            Admission::Open(tokens)
        } else {
            if !addr.ip().is_loopback() {
                anyhow::bail!(
                    "{addr} is not a loopback address, and without tokens anyone who reaches it could read and change the memory. \
                     Make a token first (memcap token create --namespace NAME), or listen on 127.0.0.1"
                );
            }
            if !args.allow_hosts.is_empty() {
                anyhow::bail!(
                    "--allow-host is for a server others reach by name, and without tokens anyone who reaches it could read and change the memory. \
                     Make a token first (memcap token create --namespace NAME), or pass --no-auth if something in front of memcap authenticates every request"
                );
            }
            let token = memcap::tokens::local_token()?;
            local_token = Some(token.clone());
            Admission::Local { token, tokens }
        };
        let open = move |_: &Access| -> Result<MemoryServer, String> {
            let memory = open_flagged().map_err(|e| e.to_string())?;
            MemoryServer::new(memory, watch).map_err(|e| e.to_string())
        };
        (admission, Box::new(open))
    };
    let local = Access::new("local", Vec::new(), false);
    let burst = args
        .rate_limit
        .saturating_mul(NonZeroU32::new(2).expect("nonzero"));
    let mut gate = Gate::new(admission, local.clone(), args.rate_limit, burst);
    if let Some(mib) = NonZeroU32::new(args.rate_limit_mib) {
        // A burst holds the largest request, which must always be able to pass.
        let largest_kib = (spec.limits.max_input_bytes + (64 << 10)).div_ceil(1024);
        let burst_kib = NonZeroU32::new(u32::try_from(largest_kib).unwrap_or(u32::MAX))
            .expect("the largest request is not empty");
        gate = gate.with_byte_limit(
            mib.saturating_mul(NonZeroU32::new(1024).expect("nonzero")),
            burst_kib,
        );
    }
    let gate = Arc::new(gate);
    let pool = Pool::new(
        PoolLimits {
            max_stores: args.warm_stores.max(1),
            max_bytes: args.warm_memory_mib.saturating_mul(1 << 20),
            idle: Duration::from_secs(args.warm_idle_secs.max(1)),
        },
        open,
    );
    let mut allowed_hosts: Vec<String> =
        ["localhost", "127.0.0.1", "::1"].map(String::from).to_vec();
    if !addr.ip().is_unspecified() {
        allowed_hosts.push(addr.ip().to_string());
    }
    allowed_hosts.extend(args.allow_hosts.iter().cloned());
    let options = HttpOptions {
        allowed_hosts: allowed_hosts.clone(),
        allowed_origins: args.allow_origins.clone(),
        limits: HttpLimits {
            // The largest tool input, and room for JSON-RPC around it.
            max_body: spec.limits.max_input_bytes + (64 << 10),
            read_timeout: Duration::from_secs(args.read_timeout_secs.max(1)),
            first_bytes_timeout: Duration::from_secs(args.first_bytes_secs.max(1)),
            write_timeout: Duration::from_secs(args.write_timeout_secs.max(1)),
            max_connections: args.max_connections.max(1),
            reserved_connections: args.reserved_connections,
            max_unread_bytes: args.max_unread_mib.max(1).saturating_mul(1 << 20),
            max_connections_per_peer: args.max_connections_per_peer.max(1),
            max_sessions: args.max_sessions.max(1),
            max_sessions_per_token: args.max_sessions_per_token.max(1),
            session_idle: Duration::from_secs(args.session_idle_secs.max(1)),
            max_failed_sign_ins: args.max_failed_sign_ins,
            max_streams_per_token: args.max_streams_per_token.max(1),
            stream_lifetime: Duration::from_secs(args.max_stream_secs.max(1)),
        },
        shutdown_grace: spec.limits.call_timeout + Duration::from_secs(5),
        metrics: args.metrics,
        page_only: owner.is_some(),
    };
    let page = Ui::new(
        Arc::clone(&pool),
        Arc::clone(&gate),
        UiOptions {
            allowed_hosts: args.allow_hosts.clone(),
            origins: args.allow_origins.clone(),
            sign_in: if owner.is_some() {
                SignIn::Code
            } else {
                SignIn::Token
            },
            max_failed_sign_ins: args.max_failed_sign_ins,
            sessions_per_token: args.max_sessions_per_token.max(1),
        },
    );
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .context("starting the async runtime")?;
    runtime.block_on(async move {
        if !with_tokens {
            // The one store is opened now, so a bad path fails here and not
            // on the first request.
            pool.get(&local).await.map_err(anyhow::Error::msg)?;
        }
        let listener = tokio::net::TcpListener::bind(addr)
            .await
            .with_context(|| format!("listening on {addr}"))?;
        let bound = listener.local_addr().unwrap_or(addr);
        if let Some(owner) = owner {
            let code = page.issue_code(Principal {
                id: "local".into(),
                label: owner,
                access: local.clone(),
            });
            // stdout, one line, so a script can take the link. The page's
            // own name keeps its cookie from every other local server.
            println!("http://{}:{}/ui/?code={code}", page.name(), bound.port());
            eprintln!(
                "memcap: the page for {} is at the link above, for you alone: it works once, within 5 minutes (Ctrl-C stops)",
                spec.location.describe(None)
            );
            use std::io::Write;
            let _ = std::io::stdout().flush();
            let page = memcap::ui::router(page);
            return memcap::server::serve(listener, gate, pool, page, options, stop_signal())
                .await
                .context("serving the page");
        }
        eprintln!(
            "memcap: serving MCP at http://{bound}/mcp ({}; Host may be {})",
            match (&local_token, with_tokens) {
                (_, true) => "a bearer token decides each request's namespace".to_owned(),
                (Some(token), _) => format!(
                    "no tokens: for you alone, with the header Authorization: Bearer {token}"
                ),
                (None, _) => "no tokens, --no-auth: every request that reaches it may read and change the memory".to_owned(),
            },
            allowed_hosts.join(", "),
        );
        if bound.ip().is_loopback() || bound.ip().is_unspecified() {
            eprintln!(
                "memcap: the page for people is at http://{}:{}/ui/ on this machine{}",
                page.name(),
                bound.port(),
                if args.allow_hosts.is_empty() {
                    ""
                } else {
                    ", and at the --allow-host names over https"
                }
            );
        }
        let page = memcap::ui::router(page);
        memcap::server::serve(listener, gate, pool, page, options, stop_signal())
            .await
            .context("serving MCP over HTTP")
    })?;
    Ok(ExitCode::SUCCESS)
}

/// The store an access reaches: its namespace, its shared namespaces (a
/// directory missing beside the others is made), read-only as it says.
fn open_access(spec: &StoreSpec, access: &Access) -> anyhow::Result<memcap::Memory> {
    let mut builder = spec
        .builder()
        .create_root(true)
        .namespace(&access.namespace)
        .read_only(access.read_only);
    for SharedAccess {
        name,
        target,
        read_only,
    } in &access.shared
    {
        spec.location.ensure_shared(target)?;
        builder = builder.shared(name, spec.location.shared_target(target), *read_only);
    }
    Ok(builder.open()?)
}

/// Resolves on SIGTERM or SIGINT.
async fn stop_signal() {
    use tokio::signal::unix::{SignalKind, signal};
    let Ok(mut term) = signal(SignalKind::terminate()) else {
        let _ = tokio::signal::ctrl_c().await;
        return;
    };
    tokio::select! {
        _ = term.recv() => {}
        _ = tokio::signal::ctrl_c() => {}
    }
}
