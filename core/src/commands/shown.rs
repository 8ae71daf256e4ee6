//! What the graph answers (`build_context`, `recent_activity`) show of a
//! note: each text cut to [`ITEM_BYTES`], at most [`TAGS_SHOWN`] tags an
//! observation, and the byte budgets that bound a whole answer. A note may
//! hold a 1 MB line or a 1 MB title; `memory_get` and `view` read it whole.

use crate::output::{GraphNote, ObservationItem, RelationItem};
use crate::text::cut;

/// The most bytes of one text an answer shows: an observation's content or
/// context, a relation's type, target or context, a category, a tag, a
/// note's title.
pub const ITEM_BYTES: usize = 1_000;
/// Tags shown of one observation, each cut to [`TAG_BYTES`].
pub const TAGS_SHOWN: usize = 20;
pub const TAG_BYTES: usize = 100;
/// What one primary note's observations and relations may take of a
/// `build_context` answer; the rest are counted as more.
pub const PRIMARY_BYTES: usize = 12_000;
/// What the related notes may take of a `build_context` answer.
pub const RELATED_BYTES: usize = 32_000;

/// Bytes a line of an answer takes beyond its texts (its path, numbers,
/// punctuation), counted so that many small items are bounded too.
const LINE_OVERHEAD: usize = 32;

pub fn observation(o: ObservationItem) -> ObservationItem {
    ObservationItem {
        category: cut(o.category, ITEM_BYTES),
        content: cut(o.content, ITEM_BYTES),
        tags: o
            .tags
            .into_iter()
            .take(TAGS_SHOWN)
            .map(|t| cut(t, TAG_BYTES))
            .collect(),
        context: o.context.map(|c| cut(c, ITEM_BYTES)),
        line: o.line,
    }
}

pub fn relation(r: RelationItem) -> RelationItem {
    RelationItem {
        relation_type: cut(r.relation_type, ITEM_BYTES),
        target: cut(r.target, ITEM_BYTES),
        resolved: r.resolved,
        context: r.context.map(|c| cut(c, ITEM_BYTES)),
        line: r.line,
    }
}

pub fn note(n: GraphNote) -> GraphNote {
    GraphNote {
        title: cut(n.title, ITEM_BYTES),
        note_type: cut(n.note_type, ITEM_BYTES),
        ..n
    }
}

/// The bytes an observation (as [`observation`] leaves it) adds to an
/// answer.
pub fn observation_bytes(o: &ObservationItem) -> usize {
    LINE_OVERHEAD
        + o.category.len()
        + o.content.len()
        + o.tags.iter().map(|t| t.len() + 2).sum::<usize>()
        + o.context.as_ref().map_or(0, String::len)
}

pub fn relation_bytes(r: &RelationItem) -> usize {
    LINE_OVERHEAD
        + r.relation_type.len()
        + r.target.len()
        + r.resolved.as_ref().map_or(0, String::len)
        + r.context.as_ref().map_or(0, String::len)
}

pub fn note_bytes(n: &GraphNote) -> usize {
    LINE_OVERHEAD + n.path.len() + n.title.len() + n.permalink.len() + n.note_type.len()
}

/// The items that fit in `budget` bytes (and `count`), in order, with how
/// many did not; at least the first always fits, as `shown` cut it.
pub fn within<T>(
    items: Vec<T>,
    count: usize,
    budget: usize,
    bytes: impl Fn(&T) -> usize,
) -> (Vec<T>, usize) {
    let total = items.len();
    let mut used = 0;
    let mut kept = Vec::new();
    for item in items.into_iter().take(count) {
        used += bytes(&item);
        if used > budget && !kept.is_empty() {
            break;
        }
        kept.push(item);
    }
    let more = total - kept.len();
    (kept, more)
}
