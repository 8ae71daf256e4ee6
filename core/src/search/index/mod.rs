//! The search index: every note's chunks with their term counts and, when
//! the environment has an embedder, their vectors; a posting list per
//! term. Kept as a derived index of the catalog.
//!
//! It is two layers. The saved form (`frozen.rs`), as the journal's
//! snapshot holds it, answers in place: a new process decodes only the
//! note list and the query's posting lists. What changed since (this
//! call's or replayed from the journal) is added on top: chunks of a
//! changed or removed note are marked gone, new ones kept in memory. A
//! change costs what the changed note costs; saving merges both layers
//! into a new saved form, which the index then answers from.
//!
//! The index holds no text: a hit names a path and lines, and the search
//! reads them back from the file, so it never answers with text the file
//! no longer holds.

use std::borrow::Cow;
use std::cell::OnceCell;
use std::collections::{BTreeMap, BTreeSet};

use crate::error::FsError;
use crate::io::Io;
use crate::notes::derived::{DerivedIndex, NoteChange, Saved, SavedPart};
use crate::notes::entry::FileStamp;
use crate::notes::entry::NoteFacts;
use crate::search::frozen::Frozen;
use crate::search::terms::Analyzer;

mod merge;
mod overlay;
mod query;

use overlay::{Added, AddedTerms};
use query::HitNote;
#[cfg(test)]
mod tests;

/// Which passages a search may answer with: by note path, first and last
/// line.
pub type Keep<'a> = dyn Fn(&str, u32, u32) -> bool + 'a;

/// Each note's stamp and chunk ids, by path.
type Notes = BTreeMap<String, (FileStamp, Vec<u32>)>;

/// One search hit: a passage of a note and its 0–1 score. Its note's path
/// is [`SearchIndex::path_of`].
#[derive(Clone, Debug, PartialEq)]
pub struct Hit {
    note: HitNote,
    pub first: u32,
    pub last: u32,
    pub score: f32,
    /// Whether the passage holds a query term (else only its vector found it).
    pub keywords: bool,
    /// The cosine of the query's vector and the passage's (0 without vectors).
    pub cosine: f32,
}

/// A saved state not parsed yet (its meta read): a new process parses it
/// only when a call first asks the index something (`prompt`, `create` or
/// `view` never do), as the graph decodes its own. The changes after it wait
/// in the catalog's derived indexes until then ([`DerivedIndex::ready`]).
struct Unparsed {
    saved: Saved,
}

/// The search index.
#[derive(Default)]
pub struct SearchIndex {
    /// The saved state this instance restored, until it is first needed
    /// ([`DerivedIndex::ready`]); the fields below are empty meanwhile.
    unparsed: Option<Unparsed>,
    /// The saved form: chunk ids below its chunk count are its chunks.
    saved: Frozen,
    /// By saved chunk id: whether its note changed or went since.
    gone: Vec<bool>,
    /// Chunks added since, by id minus the saved chunk count; `None` once
    /// their note changed again or went.
    added: Vec<Option<Added>>,
    added_terms: AddedTerms,
    /// Each note's stamp and chunk ids: made from the saved form when first
    /// needed (a search that only reads it never does).
    notes: OnceCell<Notes>,
    /// Until `notes` is made: the notes put (`Some`) or removed (`None`)
    /// since the saved form, over it; a new process that takes a few
    /// changes finds each in the saved form by binary search instead of
    /// decoding every note.
    pending: BTreeMap<String, Option<(FileStamp, Vec<u32>)>>,
    /// Notes `pending` adds to the saved form's count (fewer when negative).
    pending_count: i64,
    /// The notes it took only in part: past [`MAX_NOTE_CHUNKS`], or when
    /// the store's budget was spent.
    cut: BTreeSet<String>,
    live_chunks: u32,
    live_terms_total: u64,
    /// Postings added since the saved form.
    added_postings: u64,
    /// What the added chunks hold: records and vectors.
    added_chunk_bytes: u64,
    /// The model the vectors come from (`None`: no vectors).
    model: Option<String>,
    /// Whether anything changed since the saved form.
    changed: bool,
    /// The most memory it may hold for the whole store, in bytes as
    /// [`SearchIndex::memory`] estimates them ([`Io::index_budget`]): a
    /// note put once it is spent is taken only in part, or not at all, and
    /// named in `cut` until it changes. (About 30 MB of prose made of words
    /// all its own, taken in by one warm instance, ran out of 256 MiB with
    /// twice this; at 64 MiB about 43,000 notes of 200 words are whole.)
    budget: Budget,
    analyzer: Analyzer,
}

/// [`SearchIndex::budget`]: the default until a call says otherwise.
#[derive(Clone, Copy)]
struct Budget(u64);

impl Default for Budget {
    fn default() -> Self {
        Self(crate::io::DEFAULT_INDEX_BUDGET)
    }
}

/// Its name among the derived indexes (and in the journal).
pub const NAME: &str = "search";

/// The most passages one note gives the index (about 50,000 lines): a
/// note's later passages are not searched.
pub const MAX_NOTE_CHUNKS: usize = 5_000;

/// Bytes an added posting, distinct term and chunk hold in memory (a
/// posting is three `u32`s; a term its word, a lookup entry and a list; a
/// chunk its record), beside a chunk's note path and vector.
const ADDED_POSTING: u64 = 12;
/// Bytes of the budget a byte of a note's text may take (a new term costs
/// [`ADDED_TERM`], and one can be a few bytes of text): room
/// [`SearchIndex::put`] wants before it takes a note without first merging
/// what was added.
const FOLD_MARGIN: u64 = 16;
const ADDED_TERM: u64 = 100;
const ADDED_CHUNK: u64 = 64;

impl SearchIndex {
    /// How many notes and chunks it holds.
    pub fn counts(&self) -> (usize, u32) {
        let notes = self.notes.get().map_or(
            (i64::from(self.saved.note_count()) + self.pending_count) as usize,
            BTreeMap::len,
        );
        (notes, self.live_chunks)
    }

    /// The notes it took only in part, in path order.
    pub fn cut(&self) -> impl Iterator<Item = &str> {
        self.cut.iter().map(String::as_str)
    }

    /// Every note it holds, with the stamp of the note it took.
    pub fn note_stamps(&self) -> BTreeMap<String, FileStamp> {
        self.notes()
            .iter()
            .map(|(path, (stamp, _))| (path.clone(), *stamp))
            .collect()
    }

    /// The paths of the notes it holds.
    pub fn paths(&self) -> impl Iterator<Item = &str> {
        self.notes().keys().map(String::as_str)
    }
}

impl DerivedIndex for SearchIndex {
    fn name(&self) -> &'static str {
        NAME
    }

    fn version(&self) -> u32 {
        6
    }

    fn apply(&mut self, io: &Io, change: NoteChange) -> Result<NoteFacts, FsError> {
        // The catalog readies it first; should it not, a change still lands
        // on the saved state, never beside it.
        self.ready(io)?;
        match change {
            NoteChange::Put(entry, text) => {
                // A note that cannot be read (no permission, gone meanwhile)
                // or is not UTF-8 text has no passages; the catalog lists its
                // problem, and the rest of the memory stays searchable.
                let text = text.unwrap_or_default();
                self.budget = Budget(io.index_budget());
                self.put(&entry.path, entry.stamp, text, io.env.embedder());
            }
            NoteChange::Removed(path) => self.remove(path),
        }
        Ok(NoteFacts::default())
    }

    fn ready(&mut self, io: &Io) -> Result<(), FsError> {
        let Some(unparsed) = self.unparsed.take() else {
            return Ok(());
        };
        // Damage found now costs the catalog a rebuild from the files, as a
        // graph that does not decode does.
        let saved = match unparsed.saved {
            Saved::Bytes(bytes) => Frozen::parse(bytes),
            // Its postings stay in the journal until a search or a merge
            // asks for them.
            Saved::Part(part) => Frozen::read(part),
        };
        let saved = saved.ok_or(FsError::Damaged)?;
        self.adopt(saved);
        self.budget = Budget(io.index_budget());
        Ok(())
    }

    fn persist(&mut self) -> Cow<'_, [u8]> {
        if self.unparsed.is_none() && self.changed {
            match self.merged() {
                Ok(merged) => {
                    let saved = Frozen::parse(merged).expect("a merged form parses");
                    self.adopt(saved);
                }
                // Postings that no longer read save nothing: it is rebuilt.
                Err(_) => return Cow::Borrowed(&[]),
            }
        }
        match &self.unparsed {
            // Never parsed, so never changed: the very bytes restored (a
            // part that no longer reads saves nothing, so it is rebuilt).
            Some(unparsed) => unparsed.saved.bytes().unwrap_or(Cow::Borrowed(&[])),
            None => self.saved.bytes().unwrap_or(Cow::Borrowed(&[])),
        }
    }

    fn restore(&mut self, io: &Io, bytes: Vec<u8>) -> bool {
        let meta = Frozen::peek(&bytes);
        self.restore_unparsed(io, meta, Saved::Bytes(bytes))
    }

    fn restore_saved(&mut self, io: &Io, part: SavedPart) -> bool {
        // The meta alone is read now: its length, then itself.
        let meta = part
            .head(4)
            .ok()
            .and_then(|len| Some(u32::from_le_bytes(len.try_into().ok()?)))
            .and_then(|len| part.head(4 + u64::from(len)).ok())
            .and_then(|head| Frozen::peek(&head));
        self.restore_unparsed(io, meta, Saved::Part(part))
    }

    fn stamps(&self) -> BTreeMap<String, u64> {
        debug_assert!(self.unparsed.is_none(), "asked before ready");
        self.notes()
            .iter()
            .map(|(path, (stamp, _))| (path.clone(), stamp.digest()))
            .collect()
    }

    fn clear(&mut self) {
        let analyzer = std::mem::take(&mut self.analyzer);
        *self = Self {
            analyzer,
            ..Self::default()
        };
    }

    fn as_any(&self) -> &dyn std::any::Any {
        self
    }
}

/// The notes of a saved form, each with its stamp and chunk ids (the
/// chunks are grouped by note, notes in path order).
fn notes_of(saved: &Frozen) -> Notes {
    let mut ids = vec![Vec::new(); saved.note_count() as usize];
    for id in 0..saved.chunks() {
        ids[saved.chunk(id).note as usize].push(id);
    }
    saved
        .notes()
        .map(|(index, path, stamp)| {
            let ids = std::mem::take(&mut ids[index as usize]);
            (path.to_owned(), (stamp, ids))
        })
        .collect()
}
