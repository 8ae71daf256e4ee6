//! `/ui/graph/PATH?depth=N`: a note's neighbourhood (`build_context`,
//! depth 1 to 3) drawn as SVG on the server: the note in the middle, the
//! notes it reaches on rings by distance, relations as labelled lines.
//! Every node is a link to its own graph, so a click moves there; no
//! script is involved.

use std::collections::HashMap;
use std::sync::Arc;

use askama::Template;
use axum::extract::{Path, Query, State};
use axum::http::StatusCode;
use axum::response::Response;

use super::Ui;
use super::pages::{self, Frame, Viewer, href, memories, relative};

/// The most related notes drawn.
const MAX_RELATED: u32 = 40;
/// The drawing's size (its viewBox).
pub const WIDTH: f64 = 900.0;
pub const HEIGHT: f64 = 640.0;
/// The longest label drawn, in characters.
const LABEL: usize = 28;

/// A note drawn.
pub struct Node {
    pub x: f64,
    pub y: f64,
    pub title: String,
    pub path: String,
    pub href: String,
    pub primary: bool,
}

/// A relation drawn, from one node to another.
pub struct Edge {
    pub x1: f64,
    pub y1: f64,
    pub x2: f64,
    pub y2: f64,
    pub label: String,
    pub from: String,
    pub to: String,
}

#[derive(Template)]
#[template(path = "ui/graph.html")]
struct GraphPage {
    frame: Frame,
    path: String,
    note_href: String,
    depth: u32,
    nodes: Vec<Node>,
    edges: Vec<Edge>,
    more: u32,
    error: Option<String>,
}

/// `text` cut to [`LABEL`] characters.
fn label(text: &str) -> String {
    if text.chars().count() <= LABEL {
        return text.to_owned();
    }
    let cut: String = text.chars().take(LABEL - 1).collect();
    format!("{cut}…")
}

/// `GET /ui/graph/PATH`.
pub async fn page(
    State(ui): State<Arc<Ui>>,
    viewer: Viewer,
    Path(path): Path<String>,
    Query(query): Query<HashMap<String, String>>,
) -> Response {
    let full = memories(&path);
    let depth = query
        .get("depth")
        .and_then(|d| d.parse().ok())
        .unwrap_or(1u32)
        .clamp(1, 3);
    let url = format!("memory://{}", relative(&full));
    let found = pages::with_memory(&ui, &viewer, move |memory, _| {
        memory.build_context(&url, Some(depth), None, Some(MAX_RELATED), None)
    })
    .await;
    let mut page = GraphPage {
        frame: viewer.frame(format!("Graph of {full}"), "graph"),
        note_href: href("files", &full),
        path: full.clone(),
        depth,
        nodes: Vec::new(),
        edges: Vec::new(),
        more: 0,
        error: None,
    };
    let answer = match found {
        Ok(Ok(answer)) => answer,
        Ok(Err(e)) => {
            page.error = Some(e.message);
            return (StatusCode::NOT_FOUND, pages::html(page)).into_response();
        }
        Err(answer) => return answer,
    };
    let Some(center) = answer
        .primary
        .iter()
        .find(|n| n.note.path == full)
        .or(answer.primary.first())
    else {
        page.error = Some(format!("{full} is not a note the graph knows."));
        return (StatusCode::NOT_FOUND, pages::html(page)).into_response();
    };
    let (cx, cy) = (WIDTH / 2.0, HEIGHT / 2.0);
    let mut at: HashMap<String, (f64, f64)> = HashMap::new();
    at.insert(center.note.path.clone(), (cx, cy));
    page.nodes.push(Node {
        x: cx,
        y: cy,
        title: label(&center.note.title),
        href: format!("{}?depth={depth}", href("graph", &center.note.path)),
        path: center.note.path.clone(),
        primary: true,
    });
    // Each note once, on the ring of its distance.
    let mut rings: Vec<Vec<&crate::bindings::RelatedNote>> = vec![Vec::new(); 3];
    for related in &answer.related {
        if at.contains_key(&related.note.path)
            || rings
                .iter()
                .flatten()
                .any(|r| r.note.path == related.note.path)
        {
            continue;
        }
        let ring = (related.depth.clamp(1, 3) - 1) as usize;
        rings[ring].push(related);
    }
    let used = rings.iter().filter(|r| !r.is_empty()).count().max(1) as f64;
    let step = (HEIGHT / 2.0 - 50.0) / used;
    for (i, ring) in rings.iter().filter(|r| !r.is_empty()).enumerate() {
        let radius = step * (i as f64 + 1.0);
        for (k, related) in ring.iter().enumerate() {
            let angle = std::f64::consts::TAU * (k as f64) / (ring.len() as f64) + 0.35 * i as f64
                - std::f64::consts::FRAC_PI_2;
            let (x, y) = (cx + radius * 1.3 * angle.cos(), cy + radius * angle.sin());
            at.insert(related.note.path.clone(), (x, y));
            page.nodes.push(Node {
                x,
                y,
                title: label(&related.note.title),
                href: format!("{}?depth={depth}", href("graph", &related.note.path)),
                path: related.note.path.clone(),
                primary: false,
            });
        }
    }
    for related in &answer.related {
        if let (Some(&(x1, y1)), Some(&(x2, y2))) = (at.get(&related.from), at.get(&related.to)) {
            page.edges.push(Edge {
                x1,
                y1,
                x2,
                y2,
                label: label(&related.relation_type),
                from: related.from.clone(),
                to: related.to.clone(),
            });
        }
    }
    page.more = answer.more_related;
    pages::html(page)
}

use axum::response::IntoResponse;
