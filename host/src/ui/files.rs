//! `/ui/files/PATH`: a directory listed a page at a time, or a note shown
//! as a person reads it: frontmatter as fields, markdown as sanitized
//! HTML, its observations and relations as lists whose targets are links;
//! with `?raw=1`, its exact text with numbered lines to link to.

use std::collections::HashMap;
use std::sync::Arc;

use askama::Template;
use axum::extract::{Path, Query, State};
use axum::http::StatusCode;
use axum::response::Response;

use super::Ui;
use super::calls::{self, Found};
use super::markdown;
use super::pages::{self, Frame, Viewer, href, memories, relative};
use crate::bindings::{ContextNote, Observation};

/// Entries per page of a listing.
pub const PER_PAGE: usize = 100;

/// One entry of a listing, as the page links it.
pub struct Listed {
    pub name: String,
    pub href: String,
    pub size: u64,
    pub is_dir: bool,
}

#[derive(Template)]
#[template(path = "ui/dir.html")]
struct DirPage {
    frame: Frame,
    path: String,
    rel: String,
    crumbs: Vec<(String, String)>,
    entries: Vec<Listed>,
    page: usize,
    pages: usize,
    truncated: bool,
}

/// A relation as the note page lists it.
pub struct Link {
    pub kind: String,
    pub target: String,
    /// The page of the note it reaches, if any.
    pub href: Option<String>,
    pub line: u32,
}

#[derive(Template)]
#[template(path = "ui/note.html")]
struct NotePage {
    frame: Frame,
    path: String,
    rel: String,
    crumbs: Vec<(String, String)>,
    fields: Vec<(String, String)>,
    body_html: String,
    observations: Vec<Observation>,
    links: Vec<Link>,
    is_note: bool,
    standing: Standing,
}

/// What the note says of its own standing: the notes it replaces, those
/// that replace it (paths and their pages), and whether it is past its
/// `valid_until`.
#[derive(Default)]
struct Standing {
    supersedes: Vec<(String, String)>,
    superseded_by: Vec<(String, String)>,
    expired: bool,
}

impl Standing {
    fn of(note: &ContextNote) -> Self {
        let linked = |paths: &[String]| {
            paths
                .iter()
                .map(|p| (p.clone(), href("files", p)))
                .collect()
        };
        Self {
            supersedes: linked(&note.supersedes),
            superseded_by: linked(&note.superseded_by),
            expired: note.expired,
        }
    }
}

#[derive(Template)]
#[template(path = "ui/raw.html")]
struct RawPage {
    frame: Frame,
    path: String,
    rel: String,
    crumbs: Vec<(String, String)>,
    lines: Vec<(usize, String)>,
}

/// `GET /ui/files/PATH` (and `/ui/files/` for the root).
pub async fn page(
    ui: State<Arc<Ui>>,
    viewer: Viewer,
    path: Option<Path<String>>,
    query: Query<HashMap<String, String>>,
) -> Response {
    show(ui, viewer, path.map(|Path(p)| p).unwrap_or_default(), query).await
}

/// The links above a page: `/memories`, then each folder down to `rel`.
pub fn crumbs(rel: &str) -> Vec<(String, String)> {
    let mut out = vec![("memories".to_owned(), "/ui/files/".to_owned())];
    let mut at = String::new();
    for part in rel.split('/').filter(|p| !p.is_empty()) {
        at.push_str(part);
        out.push((part.to_owned(), href("files", &at)));
        at.push('/');
    }
    out
}

async fn show(
    State(ui): State<Arc<Ui>>,
    viewer: Viewer,
    path: String,
    Query(query): Query<HashMap<String, String>>,
) -> Response {
    let full = memories(&path);
    let raw = query.contains_key("raw");
    let page: usize = query
        .get("page")
        .and_then(|p| p.parse().ok())
        .unwrap_or(1)
        .max(1);
    let shown = full.clone();
    let found = pages::with_memory(&ui, &viewer, move |memory, actor| {
        let found = calls::view(memory, actor, &shown)?;
        let context = match &found {
            Found::File { .. } if shown.ends_with(".md") && !raw => memory
                .build_context(
                    &format!("memory://{}", relative(&shown)),
                    Some(1),
                    None,
                    Some(1),
                    None,
                )
                .ok()
                .and_then(|c| c.primary.into_iter().find(|n| n.note.path == shown)),
            _ => None,
        };
        Ok((found, context))
    })
    .await;
    let (found, context) = match found {
        Ok(Ok(found)) => found,
        Ok(Err(e)) => {
            let e: memcap_core::failure::Failure = e;
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
    match found {
        Found::Dir { entries, truncated } => {
            let pages = entries.len().div_ceil(PER_PAGE).max(1);
            let page = page.min(pages);
            let entries = entries
                .into_iter()
                .skip((page - 1) * PER_PAGE)
                .take(PER_PAGE)
                .map(|e| {
                    let name = e.path.rsplit('/').next().unwrap_or_default().to_owned();
                    Listed {
                        name,
                        href: href("files", &e.path),
                        size: e.size,
                        is_dir: e.is_dir,
                    }
                })
                .collect();
            pages::html(DirPage {
                frame: viewer.frame(full.clone(), "files"),
                crumbs: crumbs(&rel),
                path: full,
                rel,
                entries,
                page,
                pages,
                truncated,
            })
        }
        Found::File { text, .. } if raw => pages::html(RawPage {
            frame: viewer.frame(full.clone(), "files"),
            crumbs: crumbs(&rel),
            lines: text
                .split('\n')
                .enumerate()
                .map(|(i, l)| (i + 1, l.to_owned()))
                .collect(),
            path: full,
            rel,
        }),
        Found::File { text, .. } => {
            let split = markdown::split(&text);
            let standing = context.as_ref().map(Standing::of).unwrap_or_default();
            let (observations, links) = context.map(facts).unwrap_or_default();
            let is_note = full.ends_with(".md");
            let body_html = if is_note {
                markdown::to_html(split.body)
            } else {
                format!("<pre>{}</pre>", ammonia::clean_text(&text))
            };
            pages::html(NotePage {
                frame: viewer.frame(full.clone(), "files"),
                crumbs: crumbs(&rel),
                fields: if is_note { split.fields } else { Vec::new() },
                body_html,
                observations,
                links,
                is_note,
                standing,
                path: full,
                rel,
            })
        }
    }
}

/// A note's observations, and its relations as links.
fn facts(note: ContextNote) -> (Vec<Observation>, Vec<Link>) {
    let links = note
        .relations
        .into_iter()
        .map(|r| Link {
            href: r.resolved.as_deref().map(|p| href("files", p)),
            kind: r.relation_type,
            target: r.target,
            line: r.line,
        })
        .collect();
    (note.observations, links)
}
