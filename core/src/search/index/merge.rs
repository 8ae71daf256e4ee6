//! The saved form and back: what was added merged with what was saved into
//! a new saved form, and a saved state restored (parsed when first needed).

use super::overlay::AddedTerms;
use super::{Notes, SearchIndex, Unparsed, notes_of};
use std::cell::OnceCell;
use std::collections::BTreeMap;

use crate::error::FsError;
use crate::io::Io;
use crate::notes::derived::{DerivedIndex, Saved};
use crate::search::frozen::{Frozen, Posting, SavedChunk, Writer};

impl SearchIndex {
    /// Answers from `saved` from now on, with nothing added since.
    pub(super) fn adopt(&mut self, saved: Frozen) {
        self.notes = OnceCell::new();
        self.pending = BTreeMap::new();
        self.pending_count = 0;
        self.cut = saved.cut().iter().cloned().collect();
        self.gone = vec![false; saved.chunks() as usize];
        self.added = Vec::new();
        self.added_terms = AddedTerms::default();
        self.added_postings = 0;
        self.added_chunk_bytes = 0;
        self.live_chunks = saved.chunks();
        self.live_terms_total = saved.terms_total();
        self.model = saved.model().map(str::to_owned);
        self.changed = false;
        self.saved = saved;
    }

    /// Each note's stamp and chunk ids, made from the saved form the first
    /// time they are asked for.
    pub(super) fn notes(&self) -> &Notes {
        self.notes.get_or_init(|| {
            let mut notes = notes_of(&self.saved);
            for (path, note) in &self.pending {
                match note {
                    Some(note) => notes.insert(path.clone(), note.clone()),
                    None => notes.remove(path),
                };
            }
            notes
        })
    }

    /// Both layers as one saved form: the live chunks renumbered in path
    /// order, gone ones and terms in no live chunk left out.
    pub(super) fn merged(&self) -> Result<Vec<u8>, FsError> {
        self.saved.read_postings()?;
        let saved = self.saved.chunks();
        let dims = match (0..saved + self.added.len() as u32).find(|&id| self.chunk(id).is_some()) {
            Some(id) => self.vector_of(id)?.len(),
            None => 0,
        };
        let mut writer = Writer::new(self.model.clone(), dims);
        writer.cut(self.cut.iter().cloned());
        let mut renumbered = vec![u32::MAX; (saved as usize) + self.added.len()];
        for (path, (stamp, ids)) in self.notes() {
            let note = writer.note(path, *stamp);
            for &id in ids {
                if let Some(chunk) = self.chunk(id) {
                    let saved_chunk = SavedChunk {
                        note,
                        first: chunk.first,
                        last: chunk.last,
                        len: chunk.len,
                    };
                    renumbered[id as usize] = writer.chunk(saved_chunk, self.vector_of(id)?);
                }
            }
        }
        // The saved terms and the added ones, merged in byte order.
        let mut added: Vec<u32> = (0..self.added_terms.names.len() as u32).collect();
        added.sort_unstable_by(|a, b| self.added_terms.name(*a).cmp(self.added_terms.name(*b)));
        let mut added = added.into_iter().peekable();
        let mut postings = Vec::new();
        // All read above: a list that fails now fails the merge.
        let mut unread = None;
        let added_name = |id: u32| self.added_terms.name(id).as_bytes();
        let write_added = |writer: &mut Writer, id: u32, postings: &mut Vec<Posting>| {
            for posting in &self.added_terms.postings[id as usize] {
                postings.push(Posting {
                    chunk: renumbered[posting.chunk as usize],
                    ..*posting
                });
            }
            postings.retain(|p| p.chunk != u32::MAX);
            postings.sort_unstable();
            writer.term(added_name(id), postings);
            postings.clear();
        };
        self.saved.each_term(&mut |term, index| {
            while let Some(&id) = added.peek()
                && added_name(id) < term
            {
                write_added(&mut writer, id, &mut postings);
                added.next();
            }
            if let Err(error) = self.saved.postings(index, &mut postings) {
                unread.get_or_insert(error);
            }
            for posting in &mut postings {
                posting.chunk = renumbered[posting.chunk as usize];
            }
            match added.peek() {
                Some(&id) if added_name(id) == term => {
                    write_added(&mut writer, id, &mut postings);
                    added.next();
                }
                _ => {
                    postings.retain(|p| p.chunk != u32::MAX);
                    postings.sort_unstable();
                    writer.term(term, &postings);
                    postings.clear();
                }
            }
        });
        for id in added {
            write_added(&mut writer, id, &mut postings);
        }
        match unread {
            Some(error) => Err(error),
            None => Ok(writer.finish()),
        }
    }

    /// Its state back from `bytes`, unless they do not parse or their
    /// vectors are not of `model` (another model's, or none, or some where
    /// vectors are now off, cannot be compared with this instance's).
    /// Keeps `saved` to parse on first use, when its meta (chunk count and
    /// model) suits this instance: vectors of another model, or none where
    /// this instance makes them, mean a rebuild.
    pub(super) fn restore_unparsed(
        &mut self,
        io: &Io,
        meta: Option<(u32, Option<String>)>,
        saved: Saved,
    ) -> bool {
        let model = io.env.embedder().map(|e| e.model());
        match meta {
            Some((chunks, kept)) if chunks == 0 || kept.as_deref() == model => {
                self.clear();
                self.unparsed = Some(Unparsed { saved });
                true
            }
            _ => false,
        }
    }

    /// Restores and parses at once (the tests' way).
    #[cfg(test)]
    pub(super) fn restore_state(&mut self, bytes: Vec<u8>, model: Option<&str>) -> bool {
        match Frozen::parse(bytes) {
            Some(saved) if saved.chunks() == 0 || saved.model() == model => {
                self.adopt(saved);
                true
            }
            _ => false,
        }
    }
}
