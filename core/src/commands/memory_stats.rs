//! `memory_stats`: what the search index holds, its size on disk, when it
//! last changed, which sources hold notes and how many notes were edited in
//! place since it took them; what the graph holds; what memcap may not
//! read.

use crate::error::Result;
use crate::graph::index::GraphIndex;
use crate::io::Io;
use crate::layout::JOURNAL;
use crate::notes::catalog::stamp_of;
use crate::notes::maintain;
use crate::output::{Output, StatsAnswer};
use crate::search::index::SearchIndex;
use crate::search::source::source_of;
use crate::text::rfc3339;
use crate::tools::Source;

pub fn memory_stats(io: &Io) -> Result<Output> {
    let (total_files, total_chunks, held, graph, unreadable) =
        maintain::fresh_graph(io, |catalog, _| {
            let index = SearchIndex::of(catalog);
            let (files, chunks) = index.counts();
            let graph = GraphIndex::of(catalog)
                .graph()
                .expect("fresh_graph decoded it")
                .counts();
            let unreadable: Vec<String> = catalog
                .unreadable()
                .map(|path| format!("/memories/{path}"))
                .collect();
            Ok((files, chunks, index.note_stamps(), graph, unreadable))
        })?;
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
        method: if model.is_some() { "hybrid" } else { "bm25" },
        vectors: model.is_some(),
        model,
        changed_since_indexed,
        entities: graph.entities,
        observations: graph.observations,
        relations: graph.relations,
        unresolved: graph.unresolved,
        unreadable,
    }))
}
