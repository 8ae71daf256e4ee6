//! `memory_review`: what in the memory needs a decision, changing nothing:
//! notes that look written twice (the same title or description), notes
//! past their `valid_until`, superseded notes other notes still link to,
//! and what someone other than the asker changed lately. The agent (or the
//! person, through `memcap review`) decides; each decision is an ordinary
//! write, so the history can undo it.

use std::collections::{BTreeMap, BTreeSet};

use crate::error::Result;
use crate::graph::links::{Graph, NoteId};
use crate::history::{self, query};
use crate::indexes;
use crate::io::Io;
use crate::notes::catalog::Catalog;
use crate::notes::frontmatter::Meta;
use crate::notes::maintain::{self, Needs};
use crate::notes::validity::{SUPERSEDES, past};
use crate::output::{
    Compared, Duplicates, Expired, Listed, Output, ReviewAnswer, Shared, SupersededLinked,
    VersionInfo,
};
use crate::search::embedder::Embedder;
use crate::search::near;
use crate::text::{one_line, rfc3339};
use crate::vocab::Timeframe;

/// The most items of each list an answer holds.
pub const MAX_ITEMS: usize = 25;
/// The most changes by others read back from the history's end.
const MAX_CHANGES_READ: usize = 2_000;
/// The cosine at or above which two notes' titles and descriptions read as
/// one: paraphrases score 0.95 to 0.98 with the compiled-in model, and of
/// 294,528 pairs of distinct chat lines 2 reached 0.9, both near repeats
/// (docs/supersession.md).
const SAME_MEANING: f32 = 0.9;
/// The most notes one note may read alike before it counts as one of a
/// kind (notes titled from one template) rather than as a duplicate.
const MAX_NEIGHBOURS: usize = 3;
/// A description shorter than this many words is too plain to call two
/// notes the same.
const MIN_DESCRIPTION_WORDS: usize = 4;
/// The most characters of a title, description or date an item quotes.
const QUOTED_CHARS: usize = 80;

pub fn memory_review(io: &Io, timeframe: (&str, Timeframe)) -> Result<Output> {
    let since = timeframe.1.since(io.now_seconds());
    let (actor, actor_id) = history::actor(io);
    let changed = changed_by_others(io, since, (&actor, actor_id.as_deref()))?;
    maintain::fresh_catalog(io, Needs::Graph, |catalog| {
        let graph = indexes::graph(catalog)
            .graph()
            .expect("Needs::Graph decoded it");
        let superseded = superseded(&graph);
        let expired = expired(io, catalog);
        let (duplicates, compared_by_meaning) = duplicates(io, catalog, &graph, &superseded);
        Ok(Output::Review(ReviewAnswer {
            timeframe: timeframe.0.to_owned(),
            since: rfc3339(since),
            actor: actor.clone(),
            duplicates: listed(duplicates),
            compared_by_meaning,
            expired: listed(expired),
            superseded_linked: listed(still_linked(&graph, &superseded)),
            changed_by_others: listed(changed.clone()),
            notes: catalog.len(),
        }))
    })
}

fn listed<T>(mut all: Vec<T>) -> Listed<T> {
    let total = all.len();
    all.truncate(MAX_ITEMS);
    Listed { items: all, total }
}

fn shown(graph: &Graph, id: NoteId) -> String {
    format!("/memories/{}", graph.node(id).path)
}

/// Each superseded note and the notes that supersede it, resolved as
/// every relation is.
fn superseded(graph: &Graph) -> BTreeMap<NoteId, BTreeSet<NoteId>> {
    let mut by: BTreeMap<NoteId, BTreeSet<NoteId>> = BTreeMap::new();
    for id in graph.ids() {
        let node = graph.node(id);
        for target in node.superseded() {
            if let Some(old) = graph.resolve(&node.path, target)
                && old != id
            {
                by.entry(old).or_default().insert(id);
            }
        }
    }
    by
}

/// Superseded notes that other notes still link to by another relation:
/// a reader following that link reaches a fact that no longer holds.
fn still_linked(
    graph: &Graph,
    superseded: &BTreeMap<NoteId, BTreeSet<NoteId>>,
) -> Vec<SupersededLinked> {
    let mut out = Vec::new();
    for (&old, by) in superseded {
        let linked: BTreeSet<String> = graph
            .backlinks(old)
            .into_iter()
            .filter(|&(from, i)| {
                from != old
                    && !by.contains(&from)
                    && !graph.node(from).links()[i as usize]
                        .kind
                        .eq_ignore_ascii_case(SUPERSEDES)
            })
            .map(|(from, _)| shown(graph, from))
            .collect();
        if !linked.is_empty() {
            out.push(SupersededLinked {
                path: shown(graph, old),
                superseded_by: by.iter().map(|&id| shown(graph, id)).collect(),
                linked_from: linked.into_iter().collect(),
            });
        }
    }
    out.sort_by(|a, b| a.path.cmp(&b.path));
    out
}

/// Words of `text`, lowercased, as one key (`""` when it has none).
fn key(text: &str) -> String {
    text.split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(str::to_lowercase)
        .collect::<Vec<_>>()
        .join(" ")
}

/// Notes that hold, grouped by the same title, then (among the rest) by
/// the same description of at least [`MIN_DESCRIPTION_WORDS`] words, then
/// (among the rest) by titles and descriptions close in meaning. A
/// superseded note is left out: that pair was decided. With them, how far
/// the comparison by meaning got.
fn duplicates(
    io: &Io,
    catalog: &Catalog,
    graph: &Graph,
    superseded: &BTreeMap<NoteId, BTreeSet<NoteId>>,
) -> (Vec<Duplicates>, Option<Compared>) {
    let decided: BTreeSet<&str> = superseded
        .keys()
        .map(|&id| graph.node(id).path.as_str())
        .collect();
    let entries: Vec<_> = catalog
        .entries()
        .filter(|e| !decided.contains(e.path.as_str()) && e.meta.frontmatter)
        .collect();
    let mut out = Vec::new();
    let mut grouped: BTreeSet<&str> = BTreeSet::new();
    for same in [Shared::Title, Shared::Description] {
        let mut groups: BTreeMap<String, Vec<&str>> = BTreeMap::new();
        for e in &entries {
            if grouped.contains(e.path.as_str()) {
                continue;
            }
            let k = key(shared(&e.meta, same));
            let words = k.split(' ').filter(|w| !w.is_empty()).count();
            if words == 0 || (same == Shared::Description && words < MIN_DESCRIPTION_WORDS) {
                continue;
            }
            groups.entry(k).or_default().push(e.path.as_str());
        }
        for paths in groups.into_values().filter(|p| p.len() > 1) {
            let first = catalog.get(paths[0]).map(|e| shared(&e.meta, same));
            grouped.extend(paths.iter().copied());
            let mut paths: Vec<String> = paths.iter().map(|p| format!("/memories/{p}")).collect();
            paths.sort();
            out.push(Duplicates {
                paths,
                same,
                text: one_line(first.unwrap_or_default(), QUOTED_CHARS),
            });
        }
    }
    let rest: Vec<_> = entries
        .iter()
        .filter(|e| !grouped.contains(e.path.as_str()))
        .collect();
    let metas: Vec<&Meta> = rest.iter().map(|e| &e.meta).collect();
    let (groups, compared) = match io.env.embedder() {
        Some(embedder) => {
            let (groups, compared) = alike(embedder, &metas, || io.out_of_time());
            (groups, Some(compared))
        }
        None => (Vec::new(), None),
    };
    for group in groups {
        let first = rest[group[0]];
        let mut paths: Vec<String> = group
            .iter()
            .map(|&i| format!("/memories/{}", rest[i].path))
            .collect();
        paths.sort();
        out.push(Duplicates {
            paths,
            same: Shared::Meaning,
            text: one_line(&first.meta.name, QUOTED_CHARS),
        });
    }
    out.sort_by(|a, b| a.paths.cmp(&b.paths));
    (out, compared)
}

/// Groups (indexes into `notes`, each group in order) of notes whose
/// title and description read alike: their vectors at a cosine of at
/// least [`SAME_MEANING`], joined through shared members, leaving out
/// notes close to more than [`MAX_NEIGHBOURS`] others; and how far it
/// got. Embedded and compared until `stop` says the call is out of time.
fn alike(
    embedder: &dyn Embedder,
    notes: &[&Meta],
    stop: impl Fn() -> bool,
) -> (Vec<Vec<usize>>, Compared) {
    let mut vectors = Vec::with_capacity(notes.len());
    for meta in notes {
        if stop() {
            break;
        }
        vectors.push(embedder.embed(&format!("{}\n{}", meta.name, meta.description)));
    }
    let mut root: Vec<usize> = (0..vectors.len()).collect();
    fn find(root: &mut [usize], mut i: usize) -> usize {
        while root[i] != i {
            root[i] = root[root[i]];
            i = root[i];
        }
        i
    }
    let (pairs, searched) = near::pairs(&vectors, SAME_MEANING, &stop);
    let compared = Compared {
        notes: vectors.len(),
        of: notes.len(),
        whole: searched && vectors.len() == notes.len(),
    };
    let mut neighbours = vec![0usize; vectors.len()];
    for &(i, j) in &pairs {
        neighbours[i] += 1;
        neighbours[j] += 1;
    }
    // A note close to many others is one of a kind of note (session logs
    // titled alike, a template), not a copy of one of them.
    let few = |i: usize| neighbours[i] <= MAX_NEIGHBOURS;
    for (i, j) in pairs.into_iter().filter(|&(i, j)| few(i) && few(j)) {
        let (a, b) = (find(&mut root, i), find(&mut root, j));
        root[a.max(b)] = a.min(b);
    }
    let mut groups: BTreeMap<usize, Vec<usize>> = BTreeMap::new();
    for i in 0..vectors.len() {
        let r = find(&mut root, i);
        groups.entry(r).or_default().push(i);
    }
    (
        groups.into_values().filter(|g| g.len() > 1).collect(),
        compared,
    )
}

/// The text of a note's metadata that duplicates share.
fn shared(meta: &Meta, same: Shared) -> &str {
    match same {
        Shared::Title => &meta.name,
        Shared::Description => &meta.description,
        Shared::Meaning => &meta.name,
    }
}

/// Notes past their `valid_until`, as the catalog holds it (no note read).
fn expired(io: &Io, catalog: &Catalog) -> Vec<Expired> {
    let now = io.now_seconds();
    catalog
        .entries()
        .filter_map(|entry| {
            let until = entry.meta.valid_until.as_deref()?;
            past(Some(until), now).then(|| Expired {
                path: format!("/memories/{}", entry.path),
                valid_until: one_line(until, QUOTED_CHARS),
            })
        })
        .collect()
}

/// The newest change by someone other than `actor` of each file changed
/// since `since`, newest first.
fn changed_by_others(io: &Io, since: u64, actor: (&str, Option<&str>)) -> Result<Vec<VersionInfo>> {
    let versions = query::newest_by_others(io, since, actor, MAX_CHANGES_READ)?;
    let mut seen = BTreeSet::new();
    Ok(versions
        .iter()
        .filter(|v| seen.insert(v.path.clone()))
        .map(VersionInfo::of)
        .collect())
}

#[cfg(test)]
mod tests {
    use std::cell::Cell;

    use super::*;
    use crate::notes::frontmatter;

    /// Notes whose titles share a first word read as one.
    struct FirstWord;

    impl Embedder for FirstWord {
        fn model(&self) -> &str {
            "first-word"
        }

        fn embed(&self, text: &str) -> Vec<f32> {
            let first = text.split_whitespace().next().unwrap_or("");
            let slot = first.bytes().map(usize::from).sum::<usize>() % 16;
            (0..16).map(|i| f32::from(u8::from(i == slot))).collect()
        }
    }

    fn metas() -> Vec<Meta> {
        [
            "Standup at 9",
            "Standup daily",
            "Retro fridays",
            "Coffee oat",
        ]
        .iter()
        .map(|title| {
            let text = format!("---\nname: {title}\ndescription: d\n---\nx\n");
            frontmatter::read(&text, "n.md")
        })
        .collect()
    }

    #[test]
    fn a_comparison_by_meaning_says_how_far_it_got() {
        let metas = metas();
        let notes: Vec<&Meta> = metas.iter().collect();
        let (groups, compared) = alike(&FirstWord, &notes, || false);
        assert_eq!(groups, [vec![0, 1]]);
        assert_eq!(
            compared,
            Compared {
                notes: 4,
                of: 4,
                whole: true
            }
        );
        // Out of time after two notes were embedded: the others were not
        // compared, and the answer says so.
        let asked = Cell::new(0);
        let stop = || {
            asked.set(asked.get() + 1);
            asked.get() > 2
        };
        let (_, compared) = alike(&FirstWord, &notes, stop);
        assert_eq!(
            compared,
            Compared {
                notes: 2,
                of: 4,
                whole: false
            }
        );
        // Every note embedded, but out of time among the pairs.
        let asked = Cell::new(0);
        let stop = || {
            asked.set(asked.get() + 1);
            asked.get() > 5
        };
        let (_, compared) = alike(&FirstWord, &notes, stop);
        assert_eq!((compared.notes, compared.whole), (4, false));
    }
}
