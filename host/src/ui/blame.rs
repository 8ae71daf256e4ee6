//! `/ui/blame/PATH`: a note's lines as they are now, each run of lines
//! beside the version, actor and time that last changed it, linked to
//! that version on the history page.

use std::sync::Arc;

use askama::Template;
use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::response::Response;

use super::Ui;
use super::files::crumbs;
use super::pages::{self, Frame, Viewer, href, memories, relative};
use crate::bindings::BlameAnswer;

/// A run of lines one owner wrote, as the page shows it.
struct Run {
    /// The owner's version, `~N` when the lines may be older, `-` for a
    /// change not recorded yet.
    version: String,
    /// The version's page, if it has one.
    version_href: Option<String>,
    actor: String,
    time: String,
    /// Whether the lines may be older than the version shown.
    inexact: bool,
    /// (line number, text)
    lines: Vec<(usize, String)>,
}

#[derive(Template)]
#[template(path = "ui/blame.html")]
struct BlamePage {
    frame: Frame,
    path: String,
    rel: String,
    crumbs: Vec<(String, String)>,
    runs: Vec<Run>,
    compared: u32,
}

/// `GET /ui/blame/PATH`.
pub async fn page(State(ui): State<Arc<Ui>>, viewer: Viewer, Path(path): Path<String>) -> Response {
    let full = memories(&path);
    let shown = full.clone();
    let blamed =
        pages::with_memory(&ui, &viewer, move |memory, _| memory.history_blame(&shown)).await;
    let answer = match blamed {
        Ok(Ok(answer)) => answer,
        Ok(Err(e)) => {
            return pages::message(
                &viewer,
                StatusCode::NOT_FOUND,
                "Not shown",
                &e.message,
                None,
            );
        }
        Err(answer) => return answer,
    };
    let rel = relative(&full).to_owned();
    pages::html(BlamePage {
        frame: viewer.frame(format!("Blame of {full}"), "files"),
        crumbs: crumbs(&rel),
        runs: runs(&answer, &full),
        compared: answer.compared,
        path: full,
        rel,
    })
}

/// The lines grouped into runs of one owner, in order.
fn runs(answer: &BlameAnswer, full: &str) -> Vec<Run> {
    let history = href("history", full);
    let mut runs: Vec<Run> = Vec::new();
    let mut last = None;
    for (i, line) in answer.lines.iter().enumerate() {
        if last == Some(line.owner)
            && let Some(run) = runs.last_mut()
        {
            run.lines.push((i + 1, line.text.clone()));
            continue;
        }
        last = Some(line.owner);
        let owner = answer.owners.get(line.owner as usize);
        let version = owner.and_then(|o| o.version);
        let inexact = owner.is_some_and(|o| !o.exact);
        runs.push(Run {
            version: match version {
                Some(v) if inexact => format!("~{v}"),
                Some(v) => v.to_string(),
                None => "-".to_owned(),
            },
            version_href: version.map(|v| format!("{history}?show={v}")),
            actor: owner.map_or_else(String::new, |o| match &o.actor_id {
                Some(id) => format!("{} ({id})", o.actor),
                None => o.actor.clone(),
            }),
            time: owner
                .and_then(|o| o.time.clone())
                .unwrap_or_else(|| "not recorded yet".to_owned()),
            inexact,
            lines: vec![(i + 1, line.text.clone())],
        });
    }
    runs
}
