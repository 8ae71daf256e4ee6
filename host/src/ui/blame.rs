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
use crate::bindings::{BlameAnswer, LineOwner};

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
    let answered = pages::answered(&ui, &viewer, (StatusCode::NOT_FOUND, "Not shown"), {
        move |memory, _| memory.history_blame(&shown)
    });
    let answer = match answered.await {
        Ok(answer) => answer,
        Err(page) => return page,
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
        runs.push(Run {
            version: owner.map_or_else(|| "-".to_owned(), LineOwner::version_label),
            version_href: version.map(|v| format!("{history}?show={v}")),
            actor: owner.map_or_else(String::new, LineOwner::who),
            time: owner
                .and_then(|o| o.time.clone())
                .unwrap_or_else(|| "not recorded yet".to_owned()),
            inexact: owner.is_some_and(|o| !o.exact),
            lines: vec![(i + 1, line.text.clone())],
        });
    }
    runs
}
