//! `--metrics ADDR`: what the team server does, as Prometheus text on a
//! listener of its own (`GET /metrics`), for an operator's scraper. Calls
//! by tool and outcome with their latency, refusals by reason, warm
//! stores, sessions and streams, and the database's round trips and
//! failures. Labels come from fixed sets (tool names memcap offers, error
//! kinds, refusal reasons): never a token, a namespace, a path or a note.

use std::sync::atomic::AtomicI64;
use std::sync::{Arc, OnceLock};
use std::time::Duration;

use axum::Router;
use axum::extract::State;
use axum::http::header;
use axum::response::IntoResponse;
use axum::routing::get;
use prometheus_client::encoding::EncodeLabelSet;
use prometheus_client::encoding::text::encode;
use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::gauge::Gauge;
use prometheus_client::metrics::histogram::{Histogram, exponential_buckets};
use prometheus_client::registry::Registry;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct CallLabels {
    tool: String,
    outcome: String,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct PageLabels {
    action: String,
    outcome: String,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct ToolLabel {
    tool: String,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct ReasonLabel {
    reason: String,
}

/// Every metric the server keeps, counted as things happen; the gauges of
/// state (stores, sessions) and the database's counts are read at scrape.
struct Metrics {
    registry: Registry,
    calls: Family<CallLabels, Counter>,
    latency: Family<ToolLabel, Histogram>,
    refusals: Family<ReasonLabel, Counter>,
    page: Family<PageLabels, Counter>,
    warm_stores: Gauge,
    warm_bytes: Gauge,
    sessions: Gauge,
    streams: Gauge<i64, AtomicI64>,
    // Read at scrape from the backends (none but a database makes any).
    db_round_trips: Counter,
    db_failures: Counter,
}

fn latency_histogram() -> Histogram {
    // 0.5 ms to about 16 s.
    Histogram::new(exponential_buckets(0.0005, 2.0, 16))
}

fn metrics() -> &'static Metrics {
    static METRICS: OnceLock<Metrics> = OnceLock::new();
    METRICS.get_or_init(|| {
        let mut registry = Registry::with_prefix("memcap");
        let calls = Family::<CallLabels, Counter>::default();
        registry.register("calls", "Tool calls by tool and outcome", calls.clone());
        let latency =
            Family::<ToolLabel, Histogram>::new_with_constructor(latency_histogram as fn() -> _);
        registry.register(
            "call_seconds",
            "Time from a call's arrival to its answer, by tool",
            latency.clone(),
        );
        let refusals = Family::<ReasonLabel, Counter>::default();
        registry.register(
            "refusals",
            "Requests turned away before any store saw them, by reason",
            refusals.clone(),
        );
        let page = Family::<PageLabels, Counter>::default();
        registry.register(
            "page_actions",
            "What people did on the page (sign-in, sign-out, edit, restore, revert, redact), by outcome",
            page.clone(),
        );
        let warm_stores = Gauge::default();
        registry.register("warm_stores", "Namespaces kept warm", warm_stores.clone());
        let warm_bytes = Gauge::default();
        registry.register(
            "warm_bytes",
            "Linear memory the warm namespaces' instances hold",
            warm_bytes.clone(),
        );
        let sessions = Gauge::default();
        registry.register("sessions", "MCP sessions open", sessions.clone());
        let streams = Gauge::<i64, AtomicI64>::default();
        registry.register("streams", "GET streams open", streams.clone());
        let db_round_trips = Counter::default();
        registry.register(
            "database_round_trips",
            "Round trips to PostgreSQL",
            db_round_trips.clone(),
        );
        let db_failures = Counter::default();
        registry.register(
            "database_failures",
            "Round trips to PostgreSQL that failed",
            db_failures.clone(),
        );
        Metrics {
            registry,
            calls,
            latency,
            refusals,
            page,
            warm_stores,
            warm_bytes,
            sessions,
            streams,
            db_round_trips,
            db_failures,
        }
    })
}

/// A tool name as a label: one memcap offers, or `other` (a client may
/// send any name, and labels must stay few).
fn tool_label(tool: &str) -> String {
    static NAMES: OnceLock<Vec<String>> = OnceLock::new();
    let names = NAMES.get_or_init(|| {
        memcap_core::tools::describe()
            .into_iter()
            .map(|t| t.name)
            .collect()
    });
    let known = names.iter().any(|n| n == tool) || matches!(tool, "prompts/get" | "resources/read");
    if known { tool } else { "other" }.to_owned()
}

/// One call answered.
pub fn call(tool: &str, outcome: &str, took: Duration) {
    let m = metrics();
    let tool = tool_label(tool);
    m.calls
        .get_or_create(&CallLabels {
            tool: tool.clone(),
            outcome: outcome.to_owned(),
        })
        .inc();
    m.latency
        .get_or_create(&ToolLabel { tool })
        .observe(took.as_secs_f64());
}

/// One request refused (`why` is one of the guard's fixed reasons).
pub fn refused(why: &str) {
    metrics()
        .refusals
        .get_or_create(&ReasonLabel {
            reason: why.to_owned(),
        })
        .inc();
}

/// One action on the page; both labels come from the page's fixed sets.
pub fn page(action: &str, outcome: &str) {
    metrics()
        .page
        .get_or_create(&PageLabels {
            action: action.to_owned(),
            outcome: outcome.to_owned(),
        })
        .inc();
}

/// An open GET stream, counted until dropped.
pub struct OpenStream(());

impl OpenStream {
    pub fn new() -> Self {
        metrics().streams.inc();
        Self(())
    }
}

impl Drop for OpenStream {
    fn drop(&mut self) {
        metrics().streams.dec();
    }
}

/// What the scrape reads besides the counters: the warm stores and their
/// bytes (from the pool, which logs through this module's caller, so it is
/// asked through a function rather than named here), and the sessions.
#[derive(Clone)]
pub struct Sources {
    pub warm: Arc<dyn Fn() -> (usize, usize) + Send + Sync>,
    pub sessions: Arc<LocalSessionManager>,
}

async fn scrape(State(sources): State<Sources>) -> impl IntoResponse {
    let m = metrics();
    let (stores, bytes) = (sources.warm)();
    m.warm_stores.set(stores as i64);
    m.warm_bytes.set(bytes as i64);
    m.sessions
        .set(sources.sessions.sessions.read().await.len() as i64);
    let (trips, failed) = crate::backend::round_trips();
    m.db_round_trips
        .inc_by(trips.saturating_sub(m.db_round_trips.get()));
    m.db_failures
        .inc_by(failed.saturating_sub(m.db_failures.get()));
    let mut text = String::new();
    let _ = encode(&mut text, &m.registry);
    (
        [(
            header::CONTENT_TYPE,
            "application/openmetrics-text; version=1.0.0; charset=utf-8",
        )],
        text,
    )
}

/// Serves `GET /metrics` on `listener` until the task is dropped.
pub async fn serve(listener: tokio::net::TcpListener, sources: Sources) -> std::io::Result<()> {
    let app = Router::new()
        .route("/metrics", get(scrape))
        .with_state(sources);
    axum::serve(listener, app).await
}
