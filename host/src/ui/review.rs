//! `/ui/review`: what needs a decision (the component's `memory_review`,
//! asked as the signed-in person), with a button for each decision: Merge
//! (the note kept says it supersedes the others), Expire (its
//! `valid_until` set to now) and Restore (a file given back the version
//! before someone else's change). Each is the person's change with a
//! precondition, so a version the history can undo, and none overwrites a
//! change it did not see.

use std::collections::HashMap;
use std::sync::Arc;

use askama::Template;
use axum::extract::{Form, Query, State};
use axum::http::StatusCode;
use axum::response::Response;
use serde::Deserialize;
use serde_json::json;

use super::Ui;
use super::calls::{self, Found};
use super::pages::{self, Frame, Viewer, href};
use crate::memory::{Actor, Memory};
use memcap_core::failure::Failure;
use memcap_core::output::{Output, ReviewAnswer};

#[derive(Template)]
#[template(path = "ui/review.html")]
struct ReviewPage {
    frame: Frame,
    /// `memory_review`'s data, read as the core's own type: a field
    /// missing or of another type fails the page rather than showing a
    /// guess.
    answer: ReviewAnswer,
}

impl ReviewPage {
    fn link(&self, path: &str) -> String {
        href("files", path)
    }

    fn history(&self, path: &str, version: &u64) -> String {
        format!("{}?show={version}", href("history", path))
    }

    /// What to say when the comparison by meaning ran out of time: the
    /// list may lack notes alike in meaning.
    fn cut_short(&self) -> Option<String> {
        let c = self.answer.compared_by_meaning.filter(|c| !c.whole)?;
        Some(format!(
            "Compared by meaning: {} of {} notes, in part (the review ran out of time), so \
             some notes alike in meaning may be missing from this list.",
            c.notes, c.of
        ))
    }

    /// The other paths of a group, one a line, for a merge keeping `keep`.
    fn others(&self, paths: &[String], keep: &str) -> String {
        paths
            .iter()
            .filter(|p| *p != keep)
            .cloned()
            .collect::<Vec<_>>()
            .join("\n")
    }
}

/// `GET /ui/review?timeframe=7d`.
pub async fn page(
    State(ui): State<Arc<Ui>>,
    viewer: Viewer,
    Query(query): Query<HashMap<String, String>>,
) -> Response {
    let timeframe = query
        .get("timeframe")
        .map(|t| t.trim().to_owned())
        .filter(|t| !t.is_empty());
    let asked = pages::answered(&ui, &viewer, (StatusCode::BAD_REQUEST, "No review"), {
        move |memory, actor| {
            let input = json!({"command": "memory_review", "timeframe": timeframe});
            calls::call(memory, actor, &input)
        }
    });
    match asked.await {
        Ok(Output::Review(answer)) => pages::html(ReviewPage {
            frame: viewer.frame("Review", "review"),
            answer,
        }),
        Ok(_) => {
            eprintln!("memcap: memory_review answered with something other than a review");
            pages::plain(
                StatusCode::INTERNAL_SERVER_ERROR,
                "the review could not be read",
            )
        }
        Err(page) => page,
    }
}

#[derive(Deserialize)]
pub struct MergeForm {
    csrf: String,
    keep: String,
    /// The notes the kept one supersedes, one a line.
    others: String,
}

#[derive(Deserialize)]
pub struct PathForm {
    csrf: String,
    path: String,
    /// Restore: the other's change, whose previous version comes back.
    #[serde(default)]
    version: Option<u64>,
}

/// `POST /ui/review/merge`: the kept note gains `- supersedes [[…]]` for
/// each other note of its group (by path, so notes of one title resolve).
pub async fn merge(
    State(ui): State<Arc<Ui>>,
    viewer: Viewer,
    Form(form): Form<MergeForm>,
) -> Response {
    let Some(keep) = note_path(&form.keep) else {
        return bad_path(&viewer);
    };
    let others: Option<Vec<String>> = form
        .others
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(note_path)
        .collect();
    let Some(others) = others.filter(|o| !o.is_empty() && o.len() <= 25) else {
        return bad_path(&viewer);
    };
    let target = keep.clone();
    decide(
        ui,
        viewer,
        &form.csrf,
        "merge",
        keep,
        move |memory, actor| {
            edit(memory, actor, &target, |text| {
                with_supersedes(text, &others)
            })
        },
    )
    .await
}

/// `POST /ui/review/expire`: the note's `valid_until` becomes now.
pub async fn expire(
    State(ui): State<Arc<Ui>>,
    viewer: Viewer,
    Form(form): Form<PathForm>,
) -> Response {
    let Some(path) = note_path(&form.path) else {
        return bad_path(&viewer);
    };
    let target = path.clone();
    decide(
        ui,
        viewer,
        &form.csrf,
        "expire",
        path,
        move |memory, actor| {
            let now = std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(0, |d| d.as_secs());
            let until = memcap_core::text::rfc3339(now);
            edit(memory, actor, &target, |text| {
                with_valid_until(text, &until)
            })
        },
    )
    .await
}

/// `POST /ui/review/restore`: the file as it was before change `version`.
pub async fn restore(
    State(ui): State<Arc<Ui>>,
    viewer: Viewer,
    Form(form): Form<PathForm>,
) -> Response {
    let (Some(path), Some(version)) = (note_path(&form.path), form.version) else {
        return bad_path(&viewer);
    };
    let target = path.clone();
    decide(ui, viewer, &form.csrf, "restore", path, move |memory, actor| {
        let versions = memory
            .history_list(&target, None, None)
            .map_err(|e| e.message)?;
        let before = versions
            .iter()
            .find(|v| v.number < version && v.path == target && v.sha256.is_some())
            .ok_or("There is no earlier version to give back: delete the file instead, if it should go.")?;
        memory
            .history_restore(&target, before.number, Some(actor))
            .map(|_| ())
            .map_err(|e| e.message)
    })
    .await
}

/// Runs one decision as the viewer and says how it went, with a link back.
async fn decide(
    ui: Arc<Ui>,
    viewer: Viewer,
    csrf: &str,
    action: &'static str,
    path: String,
    f: impl FnOnce(&Memory, &Actor) -> Result<(), String> + Send + 'static,
) -> Response {
    if !viewer.csrf_ok(csrf) {
        viewer.log(action, Some(&path), "bad-csrf");
        return pages::bad_csrf();
    }
    if !viewer.can_write() {
        viewer.log(action, Some(&path), "read-only");
        return pages::message(
            &viewer,
            StatusCode::FORBIDDEN,
            "Read only",
            "Your token may read this memory but not change it.",
            None,
        );
    }
    let done = pages::with_memory(&ui, &viewer, f).await;
    let back = Some("/ui/review".to_owned());
    match done {
        Ok(Ok(())) => {
            viewer.log(action, Some(&path), "ok");
            let said = match action {
                "merge" => format!("{path} now supersedes the others: searches leave them out."),
                "expire" => format!("{path} is past its valid_until now: searches leave it out."),
                _ => format!("{path} has its earlier version back."),
            };
            pages::message(
                &viewer,
                StatusCode::OK,
                "Done",
                &format!("{said} The change is a version: History can undo it."),
                back,
            )
        }
        Ok(Err(message)) => {
            viewer.log(action, Some(&path), "refused");
            pages::message(&viewer, StatusCode::CONFLICT, "Not done", &message, back)
        }
        Err(answer) => answer,
    }
}

/// Rewrites the note at `path` with `change`, only if no one changed it
/// since it was read (a precondition on its hash).
fn edit(
    memory: &Memory,
    actor: &Actor,
    path: &str,
    change: impl FnOnce(&str) -> String,
) -> Result<(), String> {
    let failed = |e: Failure| e.message;
    let Found::File { text, sha256 } = calls::view(memory, actor, path).map_err(failed)? else {
        return Err(format!("{path} is a directory."));
    };
    let input = json!({
        "command": "create", "path": path, "file_text": change(&text),
        "precondition": {"type": "content_sha256", "content_sha256": sha256},
    });
    calls::call(memory, actor, &input)
        .map(|_| ())
        .map_err(failed)
}

/// `text` with a `- supersedes [[…]]` line for each of `others`
/// (`/memories/…` paths, named by path so notes of one title resolve),
/// after a blank line at its end.
pub fn with_supersedes(text: &str, others: &[String]) -> String {
    let mut text = text.to_owned();
    if !text.ends_with('\n') {
        text.push('\n');
    }
    text.push('\n');
    for other in others {
        let name = other
            .strip_prefix("/memories/")
            .unwrap_or(other)
            .trim_end_matches(".md");
        text.push_str(&format!("- supersedes [[{name}]]\n"));
    }
    text
}

/// `text` with its frontmatter's `valid_until` set to `until` (the line
/// replaced, or added at the block's end; a block made if there is none).
pub fn with_valid_until(text: &str, until: &str) -> String {
    let line = format!("valid_until: {until}");
    let Some(yaml) = memcap_core::notes::frontmatter::yaml(text) else {
        return format!("---\n{line}\n---\n{text}");
    };
    let start = yaml.as_ptr() as usize - text.as_ptr() as usize;
    let end = start + yaml.len();
    let mut lines: Vec<String> = yaml.lines().map(str::to_owned).collect();
    match lines.iter().position(|l| l.starts_with("valid_until:")) {
        Some(at) => lines[at] = line,
        None => lines.push(line),
    }
    let mut block = lines.join("\n");
    if yaml.ends_with('\n') || yaml.is_empty() {
        block.push('\n');
    }
    format!("{}{block}{}", &text[..start], &text[end..])
}

/// A note's path as a form sent it: `/memories/…`, else none.
fn note_path(path: &str) -> Option<String> {
    let path = path.trim();
    (path.starts_with("/memories/") && !path.contains("/../") && !path.contains('\0'))
        .then(|| path.to_owned())
}

fn bad_path(viewer: &Viewer) -> Response {
    pages::message(
        viewer,
        StatusCode::BAD_REQUEST,
        "Not done",
        "Say which notes: their /memories/ paths, as the review lists them.",
        Some("/ui/review".to_owned()),
    )
}

#[cfg(test)]
mod tests {
    use askama::Template;
    use memcap_core::output::{Compared, Listed, ReviewAnswer};

    use super::{ReviewPage, with_supersedes, with_valid_until};
    use crate::ui::pages::Frame;

    fn page(compared: Option<Compared>) -> String {
        let page = ReviewPage {
            frame: Frame {
                who: "alice".into(),
                grants: String::new(),
                csrf: "c".into(),
                can_write: true,
                title: "Review".into(),
                section: "review",
            },
            answer: ReviewAnswer {
                timeframe: "7d".into(),
                since: "2026-12-01T00:00:00Z".into(),
                actor: "alice".into(),
                duplicates: Listed::default(),
                compared_by_meaning: compared,
                expired: Listed::default(),
                superseded_linked: Listed::default(),
                changed_by_others: Listed::default(),
                notes: 40,
            },
        };
        page.render().unwrap()
    }

    #[test]
    fn a_review_that_ran_out_of_time_comparing_by_meaning_says_so() {
        let cut = Compared {
            notes: 12,
            of: 40,
            whole: false,
        };
        assert!(page(Some(cut)).contains("Compared by meaning: 12 of 40 notes, in part"));
        let whole = Compared {
            notes: 40,
            of: 40,
            whole: true,
        };
        assert!(!page(Some(whole)).contains("Compared by meaning"));
        assert!(!page(None).contains("Compared by meaning"));
    }

    #[test]
    fn a_merge_of_three_supersedes_each_other_by_path() {
        let others =
            ["/memories/a/old.md", "/memories/older.md", "/memories/x.md"].map(String::from);
        assert_eq!(
            with_supersedes("# Kept\nbody", &others),
            "# Kept\nbody\n\n- supersedes [[a/old]]\n- supersedes [[older]]\n- supersedes [[x]]\n"
        );
    }

    #[test]
    fn valid_until_is_replaced_added_or_given_a_block() {
        let at = "2026-12-06T10:00:00Z";
        assert_eq!(
            with_valid_until("---\nname: A\nvalid_until: 2027-01-01\n---\nbody\n", at),
            format!("---\nname: A\nvalid_until: {at}\n---\nbody\n")
        );
        assert_eq!(
            with_valid_until("---\nname: A\n---\nbody\n", at),
            format!("---\nname: A\nvalid_until: {at}\n---\nbody\n")
        );
        assert_eq!(
            with_valid_until("body\n", at),
            format!("---\nvalid_until: {at}\n---\nbody\n")
        );
    }
}
