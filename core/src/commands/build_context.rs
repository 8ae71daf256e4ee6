//! `build_context`: the notes a `memory://` URL (or a path) names, each with
//! its observations and relations read from its file now, and the notes its
//! relations reach both ways, up to `depth` steps, nearest first.

use std::collections::{HashSet, VecDeque};

use crate::error::{Result, ToolError};
use crate::files;
use crate::graph::links::{Graph, NoteId};
use crate::graph::node::{Node, UNCATEGORIZED};
use crate::indexes;
use crate::io::Io;
use crate::notes::catalog::Catalog;
use crate::notes::frontmatter::Meta;
use crate::notes::validity::SUPERSEDES;
use crate::notes::{frontmatter, maintain};
use crate::output::{
    ContextAnswer, ContextNote, GraphNote, ObservationItem, Output, Page, RelatedNote,
    RelationItem, WrittenRelation,
};
use crate::text::rfc3339;
use crate::vocab::Timeframe;

use super::{shown, standing};

/// Primary notes on one page.
pub const PRIMARY_PER_PAGE: usize = 5;
/// Observations and relations shown of one primary note; `memory_get` or
/// `view` reads the rest.
pub const ITEMS_SHOWN: usize = 50;
/// What a URL names, as the graph looks it up: `memory://` and a leading
/// `/memories/` taken off.
fn pattern_of(url: &str) -> &str {
    let url = url.trim();
    let url = url.strip_prefix("memory://").unwrap_or(url);
    let url = url.strip_prefix("/memories/").unwrap_or(url);
    url.trim_start_matches('/')
}

pub fn build_context(
    io: &Io,
    url: &str,
    depth: u32,
    timeframe: Option<(&str, Timeframe)>,
    max_related: u32,
    page: Option<u32>,
) -> Result<Output> {
    let pattern = pattern_of(url);
    let since = timeframe.map(|(_, t)| t.since(io.now_seconds()));
    maintain::fresh_catalog(io, maintain::Needs::Graph, |catalog| {
        let graph = indexes::graph(catalog)
            .graph()
            .expect("Needs::Graph decoded it");
        let mut primaries = graph.find(pattern);
        let named = primaries.len();
        // A pattern's notes are those changed in the timeframe; a note named
        // alone is shown whatever its age (the timeframe bounds what it reaches).
        if pattern.contains('*')
            && let Some(since) = since
        {
            primaries.retain(|&id| changed_since(catalog, graph.node(id), since));
        }
        if primaries.is_empty() {
            return Err(ToolError::NoNoteAt {
                url: url.to_owned(),
                matched_before_timeframe: named,
            });
        }
        let page = Page::new(page, primaries.len(), PRIMARY_PER_PAGE);
        let shown: Vec<NoteId> = primaries
            .iter()
            .copied()
            .skip(page.first())
            .take(PRIMARY_PER_PAGE)
            .collect();
        let mut primary = Vec::new();
        let mut related = Vec::new();
        for id in shown {
            primary.push(context_note(io, catalog, &graph, id));
            related.extend(reach(
                catalog,
                &graph,
                id,
                depth,
                max_related as usize,
                since,
            ));
        }
        let (related, more_related) =
            shown::within(related, usize::MAX, shown::RELATED_BYTES, related_bytes);
        Ok(Output::Context(ContextAnswer {
            url: url.to_owned(),
            depth,
            timeframe: timeframe.map(|(text, _)| text.to_owned()),
            primary,
            related,
            more_related,
            page,
        }))
    })
}

/// Whether the note's file changed at or after `since`.
fn changed_since(catalog: &Catalog, node: &Node, since: u64) -> bool {
    catalog
        .get(&node.path)
        .is_some_and(|entry| entry.stamp.modified.is_some_and(|(s, _)| s >= since))
}

/// A note as answers name it: its title, type and time from the catalog.
pub fn graph_note(catalog: &Catalog, node: &Node) -> GraphNote {
    let entry = catalog.get(&node.path);
    shown::note(GraphNote {
        path: format!("/memories/{}", node.path),
        title: entry.map_or_else(|| node.path.clone(), |e| e.meta.name.clone()),
        permalink: node.permalink().into_owned(),
        note_type: entry.map_or_else(|| "other".to_owned(), |e| note_type(&e.meta)),
        changed: entry
            .and_then(|e| e.stamp.modified)
            .map(|(s, _)| rfc3339(s)),
    })
}

/// A note's type as answers name it: memcap's four, `other`, or the type
/// another vault gave it (`person`).
pub fn note_type(meta: &Meta) -> String {
    match &meta.declared_type {
        Some(declared) => declared.clone(),
        None => meta.kind.as_str().to_owned(),
    }
}

/// The observations and relations written in a note's `text`, with the
/// file's line numbers (the body after the frontmatter is what is read).
pub fn written_items(text: &str) -> (Vec<ObservationItem>, Vec<WrittenRelation>) {
    let (body, before) = frontmatter::body(text);
    let parsed = crate::graph::parse(body);
    let observations = parsed
        .observations
        .into_iter()
        .map(|o| ObservationItem {
            category: o.category.unwrap_or_else(|| UNCATEGORIZED.to_owned()),
            content: o.content,
            tags: o.tags,
            context: o.context,
            line: o.line + before,
        })
        .collect();
    let relations = parsed
        .relations
        .into_iter()
        .map(|r| WrittenRelation {
            relation_type: r.kind,
            target: r.target,
            context: r.context,
            line: r.line + before,
        })
        .collect();
    (observations, relations)
}

/// What the note's file holds now ([`written_items`]; nothing when it
/// cannot be read).
pub fn read_items(io: &Io, node: &Node) -> (Vec<ObservationItem>, Vec<WrittenRelation>) {
    files::read_indexed(io, &node.path)
        .map(|text| written_items(&text))
        .unwrap_or_default()
}

/// A relation of the note `node` with the note it reaches, if any.
pub fn resolved(graph: &Graph, node: &Node, written: WrittenRelation) -> RelationItem {
    RelationItem {
        resolved: graph
            .resolve(&node.path, &written.target)
            .map(|id| format!("/memories/{}", graph.node(id).path)),
        relation_type: written.relation_type,
        target: written.target,
        context: written.context,
        line: written.line,
    }
}

fn context_note(io: &Io, catalog: &Catalog, graph: &Graph, id: NoteId) -> ContextNote {
    let node = graph.node(id);
    let text = files::read_indexed(io, &node.path);
    let (observations, relations) = text.as_deref().map(written_items).unwrap_or_default();
    let expired = text
        .as_deref()
        .is_some_and(|text| standing::expired(text, io.now_seconds()));
    let observations = observations.into_iter().map(shown::observation).collect();
    let relations = relations
        .into_iter()
        .map(|r| shown::relation(resolved(graph, node, r)))
        .collect();
    // Each kind gets half of the note's share of the answer.
    let half = shown::PRIMARY_BYTES / 2;
    let (observations, more_observations) =
        shown::within(observations, ITEMS_SHOWN, half, shown::observation_bytes);
    let (relations, more_relations) =
        shown::within(relations, ITEMS_SHOWN, half, shown::relation_bytes);
    let (supersedes, superseded_by) = supersession(graph, id);
    ContextNote {
        note: graph_note(catalog, node),
        observations,
        relations,
        more_observations,
        more_relations,
        supersedes,
        superseded_by,
        expired,
    }
}

/// The notes note `id` supersedes, and those that supersede it (paths,
/// sorted): the chain both ways, resolved as every relation is.
fn supersession(graph: &Graph, id: NoteId) -> (Vec<String>, Vec<String>) {
    let node = graph.node(id);
    let shown = |id: NoteId| format!("/memories/{}", graph.node(id).path);
    let mut supersedes: Vec<String> = node
        .superseded()
        .filter_map(|target| graph.resolve(&node.path, target))
        .filter(|&target| target != id)
        .map(shown)
        .collect();
    let mut by: Vec<String> = graph
        .backlinks(id)
        .into_iter()
        .filter(|&(from, i)| {
            from != id
                && graph.node(from).links()[i as usize]
                    .kind
                    .eq_ignore_ascii_case(SUPERSEDES)
        })
        .map(|(from, _)| shown(from))
        .collect();
    for list in [&mut supersedes, &mut by] {
        list.sort();
        list.dedup();
    }
    (supersedes, by)
}

/// The bytes a related note adds to an answer.
fn related_bytes(r: &RelatedNote) -> usize {
    shown::note_bytes(&r.note) + r.relation_type.len() + r.from.len() + r.to.len() + r.primary.len()
}

/// The notes reached from `start` through relations either way, breadth
/// first (nearest first; at one distance, a note's own relations in line
/// order, then those pointing at it by path), each once, up to `depth`
/// steps and `limit` notes. With `since`, notes that did not change since
/// are passed through but not listed. Cycles and self-links end where they
/// meet a note already seen.
fn reach(
    catalog: &Catalog,
    graph: &Graph,
    start: NoteId,
    depth: u32,
    limit: usize,
    since: Option<u64>,
) -> Vec<RelatedNote> {
    let primary = format!("/memories/{}", graph.node(start).path);
    let mut seen = HashSet::from([start]);
    let mut queue = VecDeque::from([(start, 0)]);
    let mut found = Vec::new();
    while let Some((at, steps)) = queue.pop_front() {
        if steps == depth {
            continue;
        }
        let node = graph.node(at);
        let outgoing = node
            .links()
            .iter()
            .filter_map(|link| Some((graph.target_of(at, link)?, &link.kind, at)));
        let backlinks = graph.backlinks(at);
        let incoming = backlinks
            .iter()
            .map(|&(from, i)| (from, &graph.node(from).links()[i as usize].kind, from));
        for (other, kind, from) in outgoing.chain(incoming) {
            if !seen.insert(other) {
                continue;
            }
            queue.push_back((other, steps + 1));
            let note = graph.node(other);
            if since.is_some_and(|since| !changed_since(catalog, note, since)) {
                continue;
            }
            let to = if from == at { other } else { at };
            found.push(RelatedNote {
                note: graph_note(catalog, note),
                relation_type: crate::text::cut(kind.clone(), shown::ITEM_BYTES),
                from: format!("/memories/{}", graph.node(from).path),
                to: format!("/memories/{}", graph.node(to).path),
                depth: steps + 1,
                primary: primary.clone(),
            });
            if found.len() == limit {
                return found;
            }
        }
    }
    found
}
