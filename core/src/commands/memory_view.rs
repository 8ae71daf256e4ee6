//! `memory_view`: the index, or every note with its metadata, a page at a
//! time.


use super::Page;
use crate::io::Io;
use crate::error::Result;
use crate::notes::maintain;

/// Notes described per page with `all`; every field is one line of bounded
/// length, so a page is bounded too.
pub const NOTES_PER_PAGE: usize = 50;

pub fn memory_view(io: &Io, all: bool, page: Option<u32>) -> Result<String> {
    maintain::fresh_all(io, |catalog, index| {
        if !all {
            return Ok(if index.is_empty() {
                "No notes yet: the memory is empty. Save what you learn with memory_write."
                    .to_owned()
            } else {
                index.to_owned()
            });
        }
        let count = catalog.len();
        let page = Page::new(page, count, NOTES_PER_PAGE);
        let mut out = format!(
            "{count} {} in /memories:\n",
            if count == 1 { "note" } else { "notes" },
        );
        for entry in catalog.entries().skip(page.first()).take(NOTES_PER_PAGE) {
            let meta = &entry.meta;
            out.push_str(&format!(
                "\n/memories/{}\n  name: {}\n",
                entry.path, meta.name
            ));
            match &meta.declared_type {
                Some(declared) => out.push_str(&format!("  type: other (declared: {declared})\n")),
                None => out.push_str(&format!("  type: {}\n", meta.kind.as_str())),
            }
            if !meta.description.is_empty() {
                out.push_str(&format!("  description: {}\n", meta.description));
            }
            if let Some(updated) = &meta.updated {
                out.push_str(&format!("  updated: {updated}\n"));
            }
            if !meta.tags.is_empty() {
                out.push_str(&format!("  tags: {}\n", meta.tags.join(", ")));
            }
            if let Some(permalink) = &meta.permalink {
                out.push_str(&format!("  permalink: {permalink}\n"));
            }
            if let Some(problem) = &meta.problem {
                out.push_str(&format!("  problem: {problem}\n"));
            } else if !meta.frontmatter {
                out.push_str(
                    "  frontmatter: none (name and description come from the file; \
                     rewrite it with memory_write to give it a type)\n",
                );
            }
        }
        out.push_str(&page.footer("memory_view with all=true", "notes"));
        Ok(out)
    })
}
