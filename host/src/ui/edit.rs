//! `/ui/edit/PATH`: a file's text in a form, saved through the component
//! with a precondition on the hash it was loaded with (`create` with
//! `content_sha256`). When an agent wrote the file in between, nothing is
//! overwritten: the page shows what changed and offers the person's text
//! again, now against the new hash, to save on purpose or drop.

use std::sync::Arc;

use askama::Template;
use axum::extract::{Form, Path, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Redirect, Response};
use memcap_core::error::ErrorKind;
use serde::Deserialize;
use serde_json::json;

use super::Ui;
use super::calls::{self, Found};
use super::diff::{self, Diff};
use super::pages::{self, Frame, Viewer, href, memories};

#[derive(Template)]
#[template(path = "ui/edit.html")]
struct EditPage {
    frame: Frame,
    path: String,
    action: String,
    text: String,
    /// The hash the text was loaded with; empty for a new file.
    sha256: String,
    /// When the file changed since it was loaded: what it holds now, as
    /// a diff from the person's text (or why it is not shown).
    conflict: Option<Diff>,
    error: Option<String>,
}

/// `GET /ui/edit/PATH`.
pub async fn form(State(ui): State<Arc<Ui>>, viewer: Viewer, Path(path): Path<String>) -> Response {
    let full = memories(&path);
    let shown = full.clone();
    let found = pages::with_memory(&ui, &viewer, move |memory, actor| {
        calls::view(memory, actor, &shown)
    })
    .await;
    let (text, sha256) = match found {
        Ok(Ok(Found::File { text, sha256 })) => (text, sha256),
        Ok(Ok(Found::Dir { .. })) => {
            return pages::message(
                &viewer,
                StatusCode::BAD_REQUEST,
                "Not editable",
                "A directory is not edited as text.",
                None,
            );
        }
        // A file not there yet is written new.
        Ok(Err(e)) if e.kind == ErrorKind::NotFound || e.message.contains("does not exist") => {
            (String::new(), String::new())
        }
        Ok(Err(e)) => {
            return pages::message(
                &viewer,
                StatusCode::BAD_REQUEST,
                "Not editable",
                &e.message,
                None,
            );
        }
        Err(answer) => return answer,
    };
    pages::html(EditPage {
        frame: viewer.frame(format!("Edit {full}"), "files"),
        action: href("edit", &full),
        path: full,
        text,
        sha256,
        conflict: None,
        error: None,
    })
}

#[derive(Deserialize)]
pub struct SaveForm {
    csrf: String,
    text: String,
    #[serde(default)]
    sha256: String,
}

/// `POST /ui/edit/PATH`: saves the text if the file still has the hash it
/// was loaded with (or, for a new file, if there is still none).
pub async fn save(
    State(ui): State<Arc<Ui>>,
    viewer: Viewer,
    Path(path): Path<String>,
    Form(form): Form<SaveForm>,
) -> Response {
    let full = memories(&path);
    if !viewer.csrf_ok(&form.csrf) {
        viewer.log("edit", Some(&full), "bad-csrf");
        return pages::bad_csrf();
    }
    // Browsers send a textarea's lines with CRLF.
    let text = form.text.replace("\r\n", "\n");
    let mut input = json!({"command": "create", "path": full, "file_text": text});
    if !form.sha256.is_empty() {
        input["precondition"] = json!({"type": "content_sha256", "content_sha256": form.sha256});
    }
    let shown = full.clone();
    let (slots, holder) = (Arc::clone(&ui.diffs), viewer.holder.clone());
    let mine = text.clone();
    let saved = pages::with_memory(&ui, &viewer, move |memory, actor| {
        match calls::call(memory, actor, &input) {
            Ok(_) => Ok(()),
            Err(e) if e.kind == ErrorKind::Conflict => {
                // What the file holds now, and how it differs from the
                // person's text (bounded, off the async threads).
                let now = calls::view(memory, actor, &shown).ok().map(|found| {
                    let diff = match &found {
                        Found::File { text: current, .. } => match slots.take(&holder) {
                            Some(_slot) => diff::lines(current.as_bytes(), mine.as_bytes()),
                            None => diff::busy(),
                        },
                        Found::Dir { .. } => diff::busy(),
                    };
                    (found, diff)
                });
                Err(Box::new((e, now)))
            }
            Err(e) => Err(Box::new((e, None))),
        }
    })
    .await;
    let mut page = EditPage {
        frame: viewer.frame(format!("Edit {full}"), "files"),
        action: href("edit", &full),
        path: full.clone(),
        text: text.clone(),
        sha256: form.sha256,
        conflict: None,
        error: None,
    };
    match saved {
        Ok(Ok(())) => {
            viewer.log("edit", Some(&full), "ok");
            Redirect::to(&href("files", &full)).into_response()
        }
        Ok(Err(failed)) => {
            let (e, now) = *failed;
            viewer.log(
                "edit",
                Some(&full),
                if e.kind == ErrorKind::Conflict {
                    "conflict"
                } else {
                    "refused"
                },
            );
            match now {
                Some((Found::File { sha256, .. }, diff)) => {
                    page.conflict = Some(diff);
                    page.sha256 = sha256;
                }
                // Deleted since: saving again writes it anew.
                _ if e.kind == ErrorKind::Conflict => page.sha256.clear(),
                _ => {}
            }
            page.error = Some(e.message);
            (StatusCode::CONFLICT, pages::html(page)).into_response()
        }
        Err(answer) => {
            viewer.log("edit", Some(&full), "failed");
            answer
        }
    }
}
