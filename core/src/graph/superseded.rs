//! Which notes a note is superseded by, asked note by note as a search
//! gives them: the graph's `supersedes` relations, read without decoding
//! it ([`super::supersede`]), and the graph decoded only to resolve one
//! that may name the note.

use std::cell::OnceCell;

use super::index::GraphIndex;
use super::names;
use super::supersede::Supersession;
use crate::error::FsError;
use crate::notes::frontmatter;

/// Which notes supersede which, asked note by note: the relations are read
/// once, and the graph is decoded only for a note some relation may name
/// (its target is one of the note's names), to resolve it as
/// `build_context` does.
pub struct Superseded<'a> {
    index: &'a GraphIndex,
    all: OnceCell<Vec<Supersession>>,
}

impl<'a> Superseded<'a> {
    pub fn new(index: &'a GraphIndex) -> Self {
        Self {
            index,
            all: OnceCell::new(),
        }
    }

    /// The notes (root-relative paths, sorted) whose `supersedes` relation
    /// resolves to the note at `path`, which holds `text` (its names are
    /// read from it, as the catalog reads them).
    pub fn by(&self, path: &str, text: &str) -> Result<Vec<String>, FsError> {
        let all = match self.all.get() {
            Some(all) => all,
            None => {
                let read = self.index.supersessions()?;
                self.all.get_or_init(|| read)
            }
        };
        if all.is_empty() {
            return Ok(Vec::new());
        }
        let file_name = path.rsplit('/').next().unwrap_or(path);
        let meta = frontmatter::read(text, file_name);
        let permalink = names::declared_permalink(meta.permalink.as_deref())
            .map_or_else(|| names::slug(path), str::to_owned);
        let keys = names::note_keys(path, &meta.name, &permalink);
        let named: Vec<&Supersession> = all
            .iter()
            .filter(|(source, target)| {
                source != path
                    && names::target_keys(source, target)
                        .iter()
                        .any(|key| keys.contains(key))
            })
            .collect();
        if named.is_empty() {
            return Ok(Vec::new());
        }
        let graph = self.index.graph()?;
        let Some(id) = graph.id_of(path) else {
            return Ok(Vec::new());
        };
        let mut by: Vec<String> = named
            .into_iter()
            .filter(|(source, target)| graph.resolve(source, target) == Some(id))
            .map(|(source, _)| source.clone())
            .collect();
        by.sort();
        by.dedup();
        Ok(by)
    }
}
