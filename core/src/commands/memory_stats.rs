//! `memory_stats`: what the search index holds, its size on disk, when it
//! last changed and how many notes were edited in place since it took them.

use crate::error::Result;
use crate::io::Io;
use crate::layout::JOURNAL;
use crate::notes::catalog::stamp_of;
use crate::notes::derived::DerivedIndex;
use crate::notes::maintain;
use crate::output::{Output, StatsAnswer};
use crate::search::index::SearchIndex;
use crate::tools::Source;

pub fn memory_stats(io: &Io) -> Result<Output> {
    let (total_files, total_chunks, held) = maintain::fresh(io, |catalog, _| {
        let index = SearchIndex::of(catalog);
        let (files, chunks) = index.counts();
        Ok((files, chunks, index.stamps()))
    })?;
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
        sources: vec![Source::Memory],
        index_bytes,
        method: "bm25",
        vectors: false,
        model: None,
        changed_since_indexed,
    }))
}

/// Seconds since the epoch as `YYYY-MM-DDTHH:MM:SSZ`.
fn rfc3339(seconds: u64) -> String {
    let seconds = i64::try_from(seconds).unwrap_or(i64::MAX);
    match time::OffsetDateTime::from_unix_timestamp(seconds) {
        Ok(t) => format!(
            "{}T{:02}:{:02}:{:02}Z",
            t.date(),
            t.hour(),
            t.minute(),
            t.second()
        ),
        Err(_) => "unknown".to_owned(),
    }
}
