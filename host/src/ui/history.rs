//! `/ui/history/PATH`: the versions that touch a file or everything under
//! a directory, newest first, with who made each; a version's content; a
//! diff of any two; and the undos: Restore a version, Revert one actor's
//! changes since a time, Redact a content (the store's owner only).

use std::collections::HashMap;
use std::sync::Arc;

use askama::Template;
use axum::extract::{Form, Path, Query, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Redirect, Response};
use serde::Deserialize;

use super::Ui;
use super::diff::{self, Diff};
use super::pages::{self, Frame, Viewer, href, memories};
use crate::bindings::{HistoryVersion, UndoReport};
use crate::error::ToolError;

/// Versions per page.
const PER_PAGE: usize = 50;

/// One version as the page lists it.
pub struct Row {
    pub number: u64,
    pub time: String,
    pub actor: String,
    pub change: &'static str,
    pub path: String,
    pub href: String,
    /// Where its Restore and Redact forms post.
    pub restore: String,
    pub redact: String,
    pub from: Option<String>,
    pub size: u64,
    pub sha: String,
    pub redacted: Option<String>,
    /// Whether it left content to show, diff and restore.
    pub has_content: bool,
}

/// A version as a row.
pub fn row(v: &HistoryVersion) -> Row {
    Row {
        number: v.number,
        time: v.time.clone(),
        actor: v.who(),
        change: v.change.as_str(),
        href: href("files", &v.path),
        restore: href("restore", &v.path),
        redact: href("redact", &v.path),
        path: v.path.clone(),
        from: v.from.clone(),
        size: v.size,
        sha: v
            .sha256
            .as_deref()
            .map(|s| s[..12.min(s.len())].to_owned())
            .unwrap_or_default(),
        redacted: v
            .redacted
            .as_ref()
            .map(|(by, at)| format!("redacted by {by} at {at}")),
        // A redacted name is no path to show, restore or redact.
        has_content: v.sha256.is_some() && v.path != memcap_core::history::version::REDACTED_SHOWN,
    }
}

#[derive(Template)]
#[template(path = "ui/history.html")]
struct HistoryPage {
    frame: Frame,
    path: String,
    self_href: String,
    rows: Vec<Row>,
    /// Filtered (since/by): pages of the whole list.
    page: usize,
    pages: usize,
    /// Unfiltered: the newest first, read from the history's end; where
    /// the next (older) page starts.
    before: Option<u64>,
    older: Option<u64>,
    since: String,
    by: String,
    can_redact: bool,
    shown: Option<(u64, String)>,
    /// The two versions compared, their diff or why there is none, and
    /// links to each.
    diff: Option<(u64, u64, Diff)>,
    error: Option<String>,
}

/// `GET /ui/history/PATH` (and `/ui/history/` for the root).
pub async fn page(
    ui: State<Arc<Ui>>,
    viewer: Viewer,
    path: Option<Path<String>>,
    query: Query<HashMap<String, String>>,
) -> Response {
    list(ui, viewer, path.map(|Path(p)| p).unwrap_or_default(), query).await
}

async fn list(
    State(ui): State<Arc<Ui>>,
    viewer: Viewer,
    path: String,
    Query(query): Query<HashMap<String, String>>,
) -> Response {
    let full = memories(&path);
    let field = |k: &str| {
        query
            .get(k)
            .map(|v| v.trim().to_owned())
            .filter(|v| !v.is_empty())
    };
    let (since, by) = (field("since"), field("by"));
    let number = |k: &str| field(k).and_then(|v| v.parse::<u64>().ok());
    let (show, a, b) = (number("show"), number("a"), number("b"));
    let page: usize = number("page").unwrap_or(1).max(1) as usize;
    let before = number("before");
    let filtered = since.is_some() || by.is_some();
    let (path_for, since_for, by_for) = (full.clone(), since.clone(), by.clone());
    let (slots, holder) = (Arc::clone(&ui.diffs), viewer.holder.clone());
    let looked = pages::with_memory(&ui, &viewer, move |memory, _| {
        // One more than a page, to know whether there is an older one.
        let versions = if filtered {
            memory.history_list(&path_for, since_for.as_deref(), by_for.as_deref())
        } else {
            memory.history_recent(&path_for, before, PER_PAGE as u32 + 1)
        };
        let shown = show.map(|n| memory.history_show(&path_for, n).map(|b| (n, b)));
        let diff = match (a, b) {
            (Some(a), Some(b)) => Some(memory.history_show(&path_for, a).and_then(|old| {
                let new = memory.history_show(&path_for, b)?;
                // A slot only while comparing, not through the reads.
                Ok((
                    a,
                    b,
                    match slots.take(&holder) {
                        Some(_slot) => diff::lines(&old, &new),
                        None => diff::busy(),
                    },
                ))
            })),
            _ => None,
        };
        (versions, shown, diff)
    })
    .await;
    let (versions, shown, diff) = match looked {
        Ok(found) => found,
        Err(answer) => return answer,
    };
    let mut out = HistoryPage {
        frame: viewer.frame(format!("History of {full}"), "history"),
        self_href: href("history", &full),
        path: full,
        rows: Vec::new(),
        page: 1,
        pages: 1,
        before,
        older: None,
        since: since.unwrap_or_default(),
        by: by.unwrap_or_default(),
        can_redact: viewer.can_redact(),
        shown: None,
        diff: None,
        error: None,
    };
    match versions {
        Ok(newest) if !filtered => {
            if newest.len() > PER_PAGE {
                out.older = newest.get(PER_PAGE - 1).map(|v| v.number);
            }
            out.rows = newest.iter().take(PER_PAGE).map(row).collect();
        }
        Ok(all) => {
            out.pages = all.len().div_ceil(PER_PAGE).max(1);
            out.page = page.min(out.pages);
            out.rows = all
                .iter()
                .skip((out.page - 1) * PER_PAGE)
                .take(PER_PAGE)
                .map(row)
                .collect();
        }
        Err(e) => out.error = Some(e.message),
    }
    match shown {
        Some(Ok((n, bytes))) => out.shown = Some((n, String::from_utf8_lossy(&bytes).into_owned())),
        Some(Err(e)) => out.error = Some(e.message),
        None => {}
    }
    match diff {
        Some(Ok(found)) => out.diff = Some(found),
        Some(Err(e)) => out.error = Some(e.message),
        None => {}
    }
    pages::html(out)
}

#[derive(Deserialize)]
pub struct NumberForm {
    csrf: String,
    number: Option<u64>,
}

/// Why a change's form is refused, if it is: a wrong session secret, or
/// grants that do not allow changes.
fn refusal(viewer: &Viewer, csrf: &str, action: &str, path: Option<&str>) -> Option<Response> {
    if !viewer.csrf_ok(csrf) {
        viewer.log(action, path, "bad-csrf");
        return Some(pages::bad_csrf());
    }
    if !viewer.can_write() {
        viewer.log(action, path, "read-only");
        return Some(pages::message(
            viewer,
            StatusCode::FORBIDDEN,
            "Read only",
            "Your token may read this memory but not change it.",
            None,
        ));
    }
    None
}

/// What an undo did, in words.
fn report(done: &UndoReport) -> String {
    let mut out = Vec::new();
    for (what, list) in [
        ("Restored", &done.restored),
        ("Removed", &done.removed),
        ("Already as wanted", &done.unchanged),
    ] {
        if !list.is_empty() {
            out.push(format!("{what}: {}.", list.join(", ")));
        }
    }
    for left in &done.left {
        out.push(format!("Left {}: {}", left.path, left.why));
    }
    if out.is_empty() {
        out.push("Nothing needed undoing.".to_owned());
    }
    out.join("\n")
}

/// The page after an undo: its report on success (or `done`'s own page),
/// the component's words under `failed` when it was refused.
fn undone<T>(
    viewer: &Viewer,
    (action, path): (&str, Option<&str>),
    outcome: Result<Result<T, ToolError>, Response>,
    done: impl FnOnce(T) -> Response,
    failed: &str,
    back: String,
) -> Response {
    match outcome {
        Ok(Ok(value)) => {
            viewer.log(action, path, "ok");
            done(value)
        }
        Ok(Err(e)) => {
            viewer.log(action, path, "refused");
            pages::message(viewer, StatusCode::CONFLICT, failed, &e.message, Some(back))
        }
        Err(answer) => {
            viewer.log(action, path, "failed");
            answer
        }
    }
}

/// `POST /ui/restore/PATH`: gives PATH version `number`'s content.
pub async fn restore(
    State(ui): State<Arc<Ui>>,
    viewer: Viewer,
    Path(path): Path<String>,
    Form(form): Form<NumberForm>,
) -> Response {
    let full = memories(&path);
    if let Some(answer) = refusal(&viewer, &form.csrf, "restore", Some(&full)) {
        return answer;
    }
    let Some(number) = form.number else {
        return pages::plain(StatusCode::BAD_REQUEST, "say which version to restore");
    };
    let target = full.clone();
    let done = pages::with_memory(&ui, &viewer, move |memory, actor| {
        memory.history_restore(&target, number, Some(actor))
    })
    .await;
    let back = href("history", &full);
    let shown = |done: UndoReport| {
        pages::message(
            &viewer,
            StatusCode::OK,
            "Restored",
            &report(&done),
            Some(back.clone()),
        )
    };
    undone(
        &viewer,
        ("restore", Some(&full)),
        done,
        shown,
        "Not restored",
        back.clone(),
    )
}

#[derive(Deserialize)]
pub struct RevertForm {
    csrf: String,
    since: String,
    by: String,
}

/// `POST /ui/revert`: undoes `by`'s changes made since `since`.
pub async fn revert(
    State(ui): State<Arc<Ui>>,
    viewer: Viewer,
    Form(form): Form<RevertForm>,
) -> Response {
    if let Some(answer) = refusal(&viewer, &form.csrf, "revert", None) {
        return answer;
    }
    let (since, by) = (form.since.trim().to_owned(), form.by.trim().to_owned());
    if since.is_empty() || by.is_empty() {
        return pages::message(
            &viewer,
            StatusCode::BAD_REQUEST,
            "Not reverted",
            "Say whose changes to undo and since when (2h, 7d, a date or an RFC 3339 time).",
            Some("/ui/history/".to_owned()),
        );
    }
    let done = pages::with_memory(&ui, &viewer, move |memory, actor| {
        memory.history_revert(&since, Some(&by), Some(actor))
    })
    .await;
    let back = "/ui/history/".to_owned();
    let shown = |done: UndoReport| {
        pages::message(
            &viewer,
            StatusCode::OK,
            "Reverted",
            &report(&done),
            Some(back.clone()),
        )
    };
    undone(
        &viewer,
        ("revert", None),
        done,
        shown,
        "Not reverted",
        back.clone(),
    )
}

/// `POST /ui/redact/PATH`: erases version `number`'s content (the
/// owner's only).
pub async fn redact(
    State(ui): State<Arc<Ui>>,
    viewer: Viewer,
    Path(path): Path<String>,
    Form(form): Form<NumberForm>,
) -> Response {
    let full = memories(&path);
    if let Some(answer) = refusal(&viewer, &form.csrf, "redact", Some(&full)) {
        return answer;
    }
    if !viewer.can_redact() {
        viewer.log("redact", Some(&full), "not-owner");
        return pages::message(
            &viewer,
            StatusCode::FORBIDDEN,
            "Not redacted",
            "Redaction erases history for good: it is for the store's owner (memcap ui, or memcap history redact), not for a token.",
            None,
        );
    }
    let target = full.clone();
    let number = form.number;
    let done = pages::with_memory(&ui, &viewer, move |memory, actor| {
        memory.history_redact(&target, number, Some(actor))
    })
    .await;
    let back = href("history", &full);
    let shown = |_| Redirect::to(&back).into_response();
    undone(
        &viewer,
        ("redact", Some(&full)),
        done,
        shown,
        "Not redacted",
        back.clone(),
    )
}
