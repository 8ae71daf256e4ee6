//! The page for people (`/ui/`): browse, search, draw and review a memory
//! in the browser, and undo what an agent did. Served by `memcap ui` (one
//! store, signed in with a printed one-time code) and by the team server
//! (signed in with a token, seeing exactly its grants). Every read and
//! change goes through the component as the signed-in person, so paths,
//! grants, read-only stores and history behave as they do for agents.
//!
//! The page runs no script at all: the graph is SVG drawn on the server,
//! diffs fold with `<details>`. Its Content-Security-Policy says so, and
//! every note is rendered through [`markdown`]'s sanitizer.

mod blame;
mod calls;
mod checks;
mod diff;
mod edit;
mod files;
mod graph;
mod history;
mod home;
mod markdown;
mod pages;
mod review;
mod search;
mod session;

use std::sync::Arc;

use axum::Router;
use axum::routing::{get, post};

use crate::server::sign_ins::SignIns;
use crate::server::{Gate, Pool};

pub use pages::Viewer;
pub use session::Sessions;

/// How people sign in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SignIn {
    /// With the one-time code `memcap ui` printed (the owner of the store).
    Code,
    /// With a token, as the team server's clients do.
    Token,
}

/// How the page is served, as the server's flags say.
pub struct UiOptions {
    /// `--allow-host`: names a proxy in front reaches the page by (`*`:
    /// any the proxy sends, except the loopback names every local server
    /// shares).
    pub allowed_hosts: Vec<String>,
    /// Other origins a form may be posted from.
    pub origins: Vec<String>,
    pub sign_in: SignIn,
    /// Failed token sign-ins one address may make a minute.
    pub max_failed_sign_ins: u32,
    /// The most page sessions one token (or the owner) holds.
    pub sessions_per_token: usize,
}

/// What the page needs from the server it is part of.
pub struct Ui {
    pool: Arc<Pool>,
    gate: Arc<Gate>,
    sessions: Sessions,
    sign_ins: SignIns,
    diffs: Arc<diff::Slots>,
    /// The page's own name, `memcap-<128 random bits>.localhost`: browsers
    /// take it to loopback, and nothing else on the machine shares it, so
    /// its cookie goes nowhere else. Secret: never said to a request that
    /// did not come to it.
    name: String,
    /// Names a proxy reaches the page by (`--allow-host`), and whether any is.
    named: Vec<String>,
    any_name: bool,
    /// Other origins a form may be posted from.
    origins: Vec<String>,
    sign_in: SignIn,
}

impl Ui {
    pub fn new(pool: Arc<Pool>, gate: Arc<Gate>, options: UiOptions) -> Arc<Self> {
        let any_name = options.allowed_hosts.iter().any(|h| h == "*");
        Arc::new(Self {
            pool,
            gate,
            sessions: Sessions::new(options.sessions_per_token),
            sign_ins: SignIns::new(options.max_failed_sign_ins),
            diffs: Arc::default(),
            name: format!("memcap-{}.localhost", &session::secret()[..32]),
            named: options
                .allowed_hosts
                .into_iter()
                .filter(|h| h != "*")
                .collect(),
            any_name,
            origins: options.origins,
            sign_in: options.sign_in,
        })
    }

    /// The page's own host name (see [`Ui`]), for the address printed at
    /// start.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The one-time sign-in code for the store's owner (`memcap ui`).
    pub fn issue_code(&self, principal: crate::server::Principal) -> String {
        self.sessions.issue_code(principal)
    }
}

/// The page's routes, all under `/ui/` (`/ui` itself redirects there).
pub fn router(ui: Arc<Ui>) -> Router {
    Router::new()
        .route(
            "/ui",
            get(|| async { axum::response::Redirect::permanent("/ui/") }),
        )
        .route("/ui/", get(home::page))
        .route("/ui/sign-in", post(pages::sign_in))
        .route("/ui/sign-out", post(pages::sign_out))
        .route("/ui/style.css", get(pages::style))
        .route("/ui/files", get(files::page))
        .route("/ui/files/", get(files::page))
        .route("/ui/files/{*path}", get(files::page))
        .route("/ui/edit/{*path}", get(edit::form).post(edit::save))
        .route("/ui/search", get(search::page))
        .route("/ui/graph/{*path}", get(graph::page))
        .route("/ui/blame/{*path}", get(blame::page))
        .route("/ui/review", get(review::page))
        .route("/ui/review/merge", post(review::merge))
        .route("/ui/review/expire", post(review::expire))
        .route("/ui/review/restore", post(review::restore))
        .route("/ui/history", get(history::page))
        .route("/ui/history/", get(history::page))
        .route("/ui/history/{*path}", get(history::page))
        .route("/ui/restore/{*path}", post(history::restore))
        .route("/ui/revert", post(history::revert))
        .route("/ui/redact/{*path}", post(history::redact))
        .route("/ui/{*rest}", get(pages::not_found).post(pages::not_found))
        .layer(axum::middleware::from_fn_with_state(
            Arc::clone(&ui),
            checks::headers,
        ))
        .with_state(ui)
}
