//! `/ui/search?q=…`: what `memory_search` finds, each passage with its
//! score, who last changed its lines (the history's, not the note's own
//! words) and a link to the note at its lines.

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
    /// `changed by A, B at TIME` (empty when the history says nothing).
    pub changed: String,
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
                        changed: changed(&r.changed_by, r.changed_at.as_deref()),
                    }
                })
                .collect();
        }
        Ok(Err(e)) => page.error = Some(e.message),
        Err(answer) => return answer,
    }
    pages::html(page)
}

/// Who last changed a passage's lines, as a hit's line says it.
fn changed(by: &[String], at: Option<&str>) -> String {
    if by.is_empty() {
        return String::new();
    }
    let by: Vec<String> = by
        .iter()
        .map(|a| memcap_core::text::one_line(a, 80))
        .collect();
    match at {
        Some(at) => format!("changed by {} at {at}", by.join(", ")),
        None => format!("changed by {}", by.join(", ")),
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_hit_names_who_changed_its_lines_newest_first_on_one_line() {
        let by = ["bob".to_owned(), "alice\nforged".to_owned()];
        assert_eq!(
            super::changed(&by, Some("2026-12-06T10:00:00Z")),
            "changed by bob, alice forged at 2026-12-06T10:00:00Z"
        );
        assert_eq!(super::changed(&by[..1], None), "changed by bob");
        assert_eq!(super::changed(&[], None), "");
    }
}
