//! `memory_view`: the index, or every note with its metadata, a page at a
//! time.

use super::standing::Standing;
use crate::error::Result;
use crate::files;
use crate::graph::superseded::Superseded;
use crate::indexes;
use crate::io::Io;
use crate::notes::maintain::{self, Needs};
use crate::output::{NoteInfo, Output, Page};

/// Notes described per page with `all`; every field is one line of bounded
/// length, so a page is bounded too.
pub const NOTES_PER_PAGE: usize = 50;

pub fn memory_view(io: &Io, all: bool, page: Option<u32>) -> Result<Output> {
    // The index alone needs only the recent notes and the totals: reading
    // every note (30 ms of a one-shot call at 10,000 notes) is for `all`.
    // A page of every note marks the superseded ones: the graph is asked.
    let needs = if all { Needs::AllReady } else { Needs::Recent };
    maintain::fresh_with(io, needs, |catalog, index| {
        if !all {
            return Ok(Output::Index {
                text: index.to_owned(),
            });
        }
        let total = catalog.len();
        let page = Page::new(page, total, NOTES_PER_PAGE);
        let superseded = Superseded::new(indexes::graph(catalog));
        let now = io.now_seconds();
        let notes = catalog
            .entries()
            .skip(page.first())
            .take(NOTES_PER_PAGE)
            .map(|entry| {
                let meta = &entry.meta;
                let standing = Standing::of_meta(&superseded, &entry.path, meta, now)
                    .map_err(|e| files::tool_error(e, "/memories", "view"))?;
                Ok(NoteInfo {
                    path: format!("/memories/{}", entry.path),
                    name: meta.name.clone(),
                    note_type: meta.kind,
                    declared_type: meta.declared_type.clone(),
                    description: meta.description.clone(),
                    updated: meta.updated.clone(),
                    tags: meta.tags.clone(),
                    permalink: meta.permalink.clone(),
                    problem: meta.problem.clone(),
                    frontmatter: meta.frontmatter,
                    relations: entry.relations,
                    valid_until: meta.valid_until.clone(),
                    superseded_by: standing.by,
                    expired: standing.expired,
                })
            })
            .collect::<Result<_>>()?;
        Ok(Output::NoteList { total, notes, page })
    })
}
