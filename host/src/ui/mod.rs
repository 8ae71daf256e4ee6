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

mod calls;
mod checks;
mod edit;
mod files;
mod graph;
mod history;
mod home;
mod markdown;
mod pages;
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

/// What the page needs from the server it is part of.
pub struct Ui {
    pool: Arc<Pool>,
    gate: Arc<Gate>,
    sessions: Sessions,
    sign_ins: SignIns,
    /// Names the `Host` header may carry (`*`: any).
    hosts: Vec<String>,
    /// Other origins a form may be posted from.
    origins: Vec<String>,
    sign_in: SignIn,
}

impl Ui {
    pub fn new(
        pool: Arc<Pool>,
        gate: Arc<Gate>,
        hosts: Vec<String>,
        origins: Vec<String>,
        sign_in: SignIn,
        max_failed_sign_ins: u32,
    ) -> Arc<Self> {
        Arc::new(Self {
            pool,
            gate,
            sessions: Sessions::default(),
            sign_ins: SignIns::new(max_failed_sign_ins),
            hosts,
            origins,
            sign_in,
        })
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
