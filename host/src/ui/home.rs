//! `/ui/`: the memory at a glance: its index (MEMORY.md) rendered, how
//! many files and passages the index holds and changes were recorded, and
//! the latest changes with who made them; each read costs the same at any
//! size of store (no look at every note, the history read from its end).

use std::collections::HashMap;
use std::sync::Arc;

use askama::Template;
use axum::extract::{Query, State};
use axum::http::HeaderMap;
use axum::response::Response;

use super::Ui;
use super::calls::{self, Found};
use super::history::{Row, row};
use super::markdown;
use super::pages::{self, Frame};

/// The most changes listed.
const RECENT: u32 = 15;

#[derive(Template)]
#[template(path = "ui/home.html")]
struct HomePage {
    frame: Frame,
    index_html: String,
    index_error: Option<String>,
    notes: u32,
    chunks: u32,
    /// The newest version's number: how many changes were recorded.
    versions: u64,
    recent: Vec<Row>,
}

/// `GET /ui/` (and `?code=…`, the owner's sign-in).
pub async fn page(
    State(ui): State<Arc<Ui>>,
    headers: HeaderMap,
    Query(query): Query<HashMap<String, String>>,
) -> Response {
    if let Some(code) = query.get("code") {
        return pages::confirm_code(&ui, code);
    }
    let viewer = match pages::viewer(&ui, &headers).await {
        Ok(v) => v,
        Err(answer) => return answer,
    };
    let looked = pages::with_memory(&ui, &viewer, |memory, actor| {
        let index = calls::view(memory, actor, "/memories/MEMORY.md");
        let counts = memory.memory_counts();
        let recent = memory.history_recent("/memories", None, RECENT);
        (index, counts, recent)
    })
    .await;
    let (index, counts, recent) = match looked {
        Ok(found) => found,
        Err(answer) => return answer,
    };
    let (index_html, index_error) = match index {
        Ok(Found::File { text, .. }) => (markdown::to_html(markdown::split(&text).body), None),
        Ok(Found::Dir { .. }) => (String::new(), Some("MEMORY.md is a directory".to_owned())),
        Err(e) => (String::new(), Some(e.message)),
    };
    let (notes, chunks) = counts.unwrap_or_default();
    let recent: Vec<Row> = recent
        .map(|newest| newest.iter().map(row).collect())
        .unwrap_or_default();
    // Versions are numbered from 1 in the order they were made.
    let versions = recent.first().map_or(0, |r| r.number);
    pages::html(HomePage {
        frame: viewer.frame("Memory", "home"),
        index_html,
        index_error,
        notes,
        chunks,
        versions,
        recent,
    })
}
