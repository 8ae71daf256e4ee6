//! `recent_activity`: what changed in the timeframe, newest first, by the
//! files' own stamps (so changes made by other programs count): the notes,
//! or their observations or relations, or the notes of one type.

use crate::error::Result;
use crate::indexes;
use crate::io::Io;
use crate::layout::CHAT;
use crate::notes::maintain;
use crate::output::{ActivityAnswer, ActivityItem, Output, Page};
use crate::text::rfc3339;
use crate::vocab::{ActivityType, Timeframe};

use super::build_context::{graph_note, note_type, read_items, resolved};
use super::shown;

/// Items on one page.
pub const PER_PAGE: usize = 10;

pub fn recent_activity(
    io: &Io,
    timeframe: (&str, Timeframe),
    kind: Option<ActivityType>,
    page: Option<u32>,
) -> Result<Output> {
    let since = timeframe.1.since(io.now_seconds());
    maintain::fresh_catalog(io, maintain::Needs::Graph, |catalog| {
        let graph = indexes::graph(catalog)
            .graph()
            .expect("Needs::Graph decoded it");
        // (note, how many items it gives), newest first: counted from the
        // index, so only the notes on the page are read.
        let mut changed = Vec::new();
        for entry in catalog.most_recent() {
            if entry.recency() < since {
                break;
            }
            // Conversation history (`chat/` at the root: granted
            // directories live under `shared/` and `extra/`) is not listed.
            if entry.path.split('/').next() == Some(CHAT) {
                continue;
            }
            let Some(id) = graph.id_of(&entry.path) else {
                continue;
            };
            let node = graph.node(id);
            let items = match &kind {
                None | Some(ActivityType::Entity) => 1,
                Some(ActivityType::Observation) => node.facts().len(),
                Some(ActivityType::Relation) => node.links().len(),
                Some(ActivityType::NoteType(t)) => {
                    usize::from(note_type(&entry.meta).eq_ignore_ascii_case(t))
                }
            };
            if items > 0 {
                changed.push((id, items));
            }
        }
        let total = changed.iter().map(|(_, n)| n).sum();
        let page = Page::new(page, total, PER_PAGE);
        let mut skip = page.first();
        let mut items = Vec::new();
        for (id, count) in changed {
            if items.len() == PER_PAGE {
                break;
            }
            if skip >= count {
                skip -= count;
                continue;
            }
            let node = graph.node(id);
            let entity = |item_type: &'static str| ActivityItem {
                item_type: item_type.into(),
                note: graph_note(catalog, node),
                observations: node.facts().len(),
                relations: node.links().len(),
                observation: None,
                relation: None,
            };
            match &kind {
                None | Some(ActivityType::Entity) | Some(ActivityType::NoteType(_)) => {
                    items.push(entity("entity"));
                }
                Some(ActivityType::Observation) | Some(ActivityType::Relation) => {
                    let (observations, relations) = read_items(io, node);
                    let wanted = PER_PAGE - items.len();
                    let read: Box<dyn Iterator<Item = ActivityItem>> = match kind {
                        Some(ActivityType::Observation) => {
                            Box::new(observations.into_iter().skip(skip).map(|o| ActivityItem {
                                observation: Some(shown::observation(o)),
                                ..entity("observation")
                            }))
                        }
                        _ => Box::new(relations.into_iter().skip(skip).map(|r| ActivityItem {
                            relation: Some(shown::relation(resolved(&graph, node, r))),
                            ..entity("relation")
                        })),
                    };
                    items.extend(read.take(wanted));
                }
            }
            skip = 0;
        }
        Ok(Output::Activity(ActivityAnswer {
            timeframe: timeframe.0.to_owned(),
            since: rfc3339(since),
            item_type: kind.as_ref().map(|k| k.name().to_owned()),
            items,
            page,
        }))
    })
}
