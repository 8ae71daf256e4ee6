//! `/ui/search?q=…`: what `memory_search` finds, each passage with its
//! score and a link to the note at its lines.

use std::collections::HashMap;
use std::sync::Arc;

use askama::Template;
use axum::extract::{Query, State};
use axum::response::Response;

use super::Ui;
use super::pages::{self, Frame, Viewer, href};

/// The most passages shown (the most `memory_search` gives).
const MAX_RESULTS: u32 = 20;
/// The longest query taken; a longer one is cut.
const MAX_QUERY: usize = 1000;

/// One passage found.
pub struct Hit {
    pub path: String,
    pub href: String,
    pub lines: String,
    pub text: String,
    pub score: String,
}

#[derive(Template)]
#[template(path = "ui/search.html")]
struct SearchPage {
    frame: Frame,
    query: String,
    hits: Vec<Hit>,
    total: u32,
    method: String,
    error: Option<String>,
}

/// `GET /ui/search?q=…`.
pub async fn page(
    State(ui): State<Arc<Ui>>,
    viewer: Viewer,
    Query(query): Query<HashMap<String, String>>,
) -> Response {
    let mut q = query.get("q").cloned().unwrap_or_default();
    if q.len() > MAX_QUERY {
        let mut end = MAX_QUERY;
        while !q.is_char_boundary(end) {
            end -= 1;
        }
        q.truncate(end);
    }
    let mut page = SearchPage {
        frame: viewer.frame("Search", "search"),
        query: q.clone(),
        hits: Vec::new(),
        total: 0,
        method: String::new(),
        error: None,
    };
    if q.trim().is_empty() {
        return pages::html(page);
    }
    let found = pages::with_memory(&ui, &viewer, move |memory, _| {
        memory.memory_search(&q, Some(MAX_RESULTS), None, None, None)
    })
    .await;
    match found {
        Ok(Ok(answer)) => {
            page.total = answer.total_found;
            page.method = answer.method;
            page.hits = answer
                .results
                .into_iter()
                .map(|r| {
                    let first = r.lines.split('-').next().unwrap_or("1").to_owned();
                    Hit {
                        href: format!("{}?raw=1#L{first}", href("files", &r.path)),
                        path: r.path,
                        lines: r.lines,
                        text: r.text,
                        score: format!("{:.2}", r.score),
                    }
                })
                .collect();
        }
        Ok(Err(e)) => page.error = Some(e.message),
        Err(answer) => return answer,
    }
    pages::html(page)
}
