//! `memory_stats`: what the search index holds, its size on disk, when it
//! last changed, which sources hold notes and how many notes were edited in
//! place since it took them; what the graph holds; what memcap may not
//! read, and the notes the indexes took only in part.

use std::borrow::Cow;
use std::collections::BTreeSet;

use crate::error::Result;
use crate::files;
use crate::indexes;
use crate::io::Io;
use crate::layout::JOURNAL;
use crate::notes::catalog::stamp_of;
use crate::notes::maintain;
use crate::output::{Output, StatsAnswer};
use crate::search::source::source_of;
use crate::text::rfc3339;
use crate::vocab::Source;

/// The most notes taken in part that `memory_stats` names.
pub const MAX_CUT_NAMED: usize = 100;

/// The files and passages the search index holds: the part of the stats
/// that costs no look at each note, for hosts that show it often.
pub fn counts(io: &Io) -> Result<(usize, u32)> {
    let counts = maintain::fresh_catalog(io, maintain::Needs::Search, |catalog| {
        Ok(indexes::search(catalog).counts())
    })?;
    Ok(counts)
}

pub fn memory_stats(io: &Io) -> Result<Output> {
    let (total_files, total_chunks, held, graph, unreadable, cut) =
        maintain::fresh_catalog(io, maintain::Needs::Graph, |catalog| {
            let index = indexes::search(catalog);
            let (files, chunks) = index.counts();
            let graph_index = indexes::graph(catalog);
            let graph = graph_index
                .graph()
                .expect("Needs::Graph decoded it")
                .counts();
            let unreadable: Vec<String> = catalog
                .unreadable()
                .map(|path| format!("/memories/{path}"))
                .collect();
            // Over the text the indexes take, or past the search index's or
            // the graph's bounds.
            let mut cut: BTreeSet<String> = catalog
                .entries()
                .filter(|e| files::indexed_in_part(e.stamp.size))
                .map(|e| e.path.clone())
                .collect();
            cut.extend(index.cut().map(str::to_owned));
            cut.extend(graph_index.cut().expect("Needs::Graph decoded it"));
            let cut = cut
                .into_iter()
                .take(MAX_CUT_NAMED)
                .map(|path| format!("/memories/{path}"))
                .collect();
            Ok((files, chunks, index.note_stamps(), graph, unreadable, cut))
        })?;
    // What cannot be read of the history is not worth failing the stats:
    // it is said instead.
    let (history, history_problem) = match crate::history::held(io) {
        Ok(held) => (held, crate::history::problem::read(io)),
        Err(error) => (
            Default::default(),
            Some(
                crate::error::ToolError::Fs {
                    error,
                    path: crate::vpath::ROOT.to_owned(),
                    doing: "read the history of",
                }
                .to_string(),
            ),
        ),
    };
    let model = io.env.embedder().map(|e| e.model().to_owned());
    // The sources that hold something, memory always: it is where notes go.
    let mut sources = vec![Source::Memory];
    for path in held.keys() {
        let source = source_of(io, path);
        if !sources.contains(&source) {
            sources.push(source);
        }
    }
    sources.sort_by_key(|s| *s as u8);
    // One stat a note: fine for a status call, never done by a search.
    let changed_since_indexed = held
        .iter()
        .filter(|(path, stamp)| match io.fs.stat(path, false) {
            Ok(meta) => stamp_of(&meta) != **stamp,
            Err(_) => true,
        })
        .count();
    // No journal yet (an empty store) is no index on disk.
    let (index_bytes, indexed_at) = match io.fs.stat(JOURNAL, false) {
        Ok(meta) => (meta.size, meta.modified.map(|(s, _)| rfc3339(s))),
        Err(_) => (0, None),
    };
    Ok(Output::Stats(StatsAnswer {
        total_files,
        total_chunks,
        indexed_at,
        sources,
        index_bytes,
        method: Cow::Borrowed(if model.is_some() { "hybrid" } else { "bm25" }),
        vectors: model.is_some(),
        model,
        changed_since_indexed,
        entities: graph.entities,
        observations: graph.observations,
        relations: graph.relations,
        unresolved: graph.unresolved,
        unreadable,
        cut,
        history_versions: history.versions,
        history_bytes: history.bytes,
        history_since: history.oldest.map(rfc3339),
        history_problem,
    }))
}
