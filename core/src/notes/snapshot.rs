//! The catalog's snapshot, which opens the journal: a head read whole
//! (totals, directories, other files, the most recent notes, and where each
//! block of notes lies), then the notes by path in blocks, each read and
//! decoded only when a call needs a note in it, then the young notes past the
//! most recent ones, read only when a call needs them in recency order. So a
//! write reads the head and a block or two whatever the store's size; a walk
//! of everything reads all.

use std::rc::Rc;

use serde::{Deserialize, Serialize};

use super::entry::{Entry, FileStamp};
use crate::error::FsError;
use crate::files::read_exact;
use crate::storage::File;
use crate::vocab::NoteType;

/// Notes a block holds (about 7 KB of typical notes).
const BLOCK_NOTES: usize = 64;
/// The most recent notes the head holds whole. The index shows at most
/// [`super::index::PROMPT_BUDGET`]'s 200 lines, so this leaves room for many
/// of them to change before a call must read every block to list the index.
pub(super) const RECENT_NOTES: usize = 400;
/// The most notes the head and its young notes hold together: past
/// [`RECENT_NOTES`], the snapshot also holds the notes changed since the
/// catalog's verified mark (up to this many), which the next calls read
/// once more, so finding them does not read every block. They lie after the
/// blocks, decoded only by a call that reads notes once more (one a second
/// at most) or needs the recent notes past the head's: after a bulk copy of
/// 10,000 notes, decoding them in the head cost every one-shot call ~3 ms.
pub(super) const MAX_RECENT_NOTES: usize = 2_000;

/// What every call reads of the snapshot.
#[derive(Serialize, Deserialize, Default)]
pub(super) struct Head {
    pub notes: u64,
    /// Notes of each type, indexed by `NoteType as usize`.
    pub by_type: Vec<u64>,
    /// Bytes of all notes.
    pub bytes: u64,
    pub others: Vec<(String, u64)>,
    pub dirs: Vec<(String, FileStamp)>,
    pub swept: u64,
    pub verified: u64,
    /// The first [`RECENT_NOTES`] notes, newest first (ties by path).
    pub recent: Vec<Entry>,
    pub(super) blocks: Vec<BlockRef>,
    /// Where the young notes lie, when there are some.
    pub(super) young: Option<YoungRef>,
}

/// Where the young notes lie, after the blocks: the notes that follow
/// [`Head::recent`] in recency order and changed since the verified mark,
/// up to [`MAX_RECENT_NOTES`] with the head's.
#[derive(Serialize, Deserialize)]
pub(super) struct YoungRef {
    offset: u64,
    len: u64,
    notes: u32,
}

/// Where a block lies, after the head, and the first path in it.
#[derive(Serialize, Deserialize)]
pub(super) struct BlockRef {
    first: String,
    offset: u64,
    len: u64,
    notes: u32,
    /// Whether it holds notes directly in the root (listing the root
    /// reads only these).
    top_level: bool,
}

/// A snapshot's blocks as one call sees them: which are read, and the
/// journal file they are read from. A rewrite of the journal renames a new
/// file into its place, so this handle keeps reading the snapshot it opened.
pub(super) struct Blocks {
    file: Rc<dyn File>,
    /// Where the first block starts in the file.
    start: u64,
    refs: Vec<BlockRef>,
    read: Vec<bool>,
    unread: usize,
    /// The young notes, until they are read.
    young: Option<YoungRef>,
    /// The head's verified mark, which the young notes stop at.
    verified: u64,
}

impl Head {
    pub(super) fn counts(&self) -> Option<[usize; NoteType::ALL.len()]> {
        let mut counts = [0; NoteType::ALL.len()];
        if self.by_type.len() != counts.len() {
            return None;
        }
        for (count, &n) in counts.iter_mut().zip(&self.by_type) {
            *count = usize::try_from(n).ok()?;
        }
        Some(counts)
    }

    /// The blocks of this head, `len` bytes of `file` from `start`; none
    /// when the head does not describe such blocks.
    pub(super) fn take_blocks(
        &mut self,
        file: Rc<dyn File>,
        start: u64,
        len: u64,
    ) -> Option<Blocks> {
        let refs = std::mem::take(&mut self.blocks);
        let fits = refs
            .iter()
            .all(|b| b.offset.checked_add(b.len).is_some_and(|end| end <= len));
        let ordered = refs.windows(2).all(|w| w[0].first < w[1].first);
        // The totals and the recent notes must agree with the blocks, or the
        // index would count notes that are not there.
        let notes: u64 = refs.iter().map(|b| u64::from(b.notes)).sum();
        let typed: u64 = self.by_type.iter().sum();
        let young = self.young.take();
        let young_notes = young.as_ref().map_or(0, |y| u64::from(y.notes));
        let young_fit = young.as_ref().is_none_or(|y| {
            y.notes > 0 && y.offset.checked_add(y.len).is_some_and(|end| end <= len)
        });
        let recent = self.recent.len() as u64 == self.notes.min(RECENT_NOTES as u64)
            && self.recent.len() as u64 + young_notes <= self.notes.min(MAX_RECENT_NOTES as u64);
        let agree = notes == self.notes && typed == self.notes && recent;
        (fits && young_fit && ordered && agree).then(|| Blocks {
            file,
            start,
            read: vec![false; refs.len()],
            unread: refs.len(),
            refs,
            young,
            verified: self.verified,
        })
    }
}

impl Blocks {
    /// Whether some notes are still unread.
    pub(super) fn unread(&self) -> bool {
        self.unread > 0
    }

    /// The unread blocks that may hold `path` or notes below it (as a
    /// directory); `""` is every block.
    pub(super) fn unread_under(&self, top: &str) -> Vec<usize> {
        range_under(&self.refs, top)
            .filter(|&i| !self.read[i])
            .collect()
    }

    /// The unread blocks that hold notes directly in the root.
    pub(super) fn unread_top_level(&self) -> Vec<usize> {
        (0..self.refs.len())
            .filter(|&i| self.refs[i].top_level && !self.read[i])
            .collect()
    }

    /// Reads block `i`: its notes, in path order, checked to lie where the
    /// head says they do.
    pub(super) fn read(&mut self, i: usize) -> Result<Vec<Entry>, FsError> {
        let block = &self.refs[i];
        let bytes = read_exact(&*self.file, self.start + block.offset, block.len)?;
        let entries: Vec<Entry> = postcard::from_bytes(&bytes).map_err(|_| FsError::Damaged)?;
        let end = self.refs.get(i + 1).map(|b| b.first.as_str());
        let in_place = entries.len() == block.notes as usize
            && entries.first().is_some_and(|e| e.path == block.first)
            && entries.windows(2).all(|w| w[0].path < w[1].path)
            && entries
                .last()
                .is_some_and(|e| end.is_none_or(|end| e.path.as_str() < end));
        if !in_place {
            return Err(FsError::Damaged);
        }
        self.read[i] = true;
        self.unread -= 1;
        Ok(entries)
    }

    /// Whether young notes are still unread.
    pub(super) fn young_unread(&self) -> bool {
        self.young.is_some()
    }

    /// The snapshot's verified mark: every note changed since is in its
    /// head or its young notes, unless they were bounded.
    pub(super) fn verified(&self) -> u64 {
        self.verified
    }

    /// Reads the young notes, once: newest first (ties by path), checked to
    /// be as many as the head says and in that order. `None` when there are
    /// none, or they were read already.
    pub(super) fn read_young(&mut self) -> Result<Option<Vec<Entry>>, FsError> {
        let Some(young) = self.young.take() else {
            return Ok(None);
        };
        let bytes = read_exact(&*self.file, self.start + young.offset, young.len)?;
        let entries: Vec<Entry> = postcard::from_bytes(&bytes).map_err(|_| FsError::Damaged)?;
        let key = |e: &Entry| (std::cmp::Reverse(e.recency()), e.path.clone());
        let in_order = entries.windows(2).all(|w| key(&w[0]) < key(&w[1]));
        if entries.len() != young.notes as usize || !in_order {
            return Err(FsError::Damaged);
        }
        Ok(Some(entries))
    }

    /// Whether the block that would hold `path` was read (then the catalog
    /// has the note as it is now, or knows it is gone); true when no block
    /// could hold it.
    pub(super) fn holds_read(&self, path: &str) -> bool {
        let at = self.refs.partition_point(|b| b.first.as_str() <= path);
        at.checked_sub(1).is_none_or(|i| self.read[i])
    }
}

/// The blocks that may hold `top` or paths below it: from the one whose
/// range holds `top`'s place to the last that starts before `top0` (paths
/// below `top/` sort before it, as '0' follows '/').
fn range_under(refs: &[BlockRef], top: &str) -> std::ops::Range<usize> {
    if top.is_empty() {
        return 0..refs.len();
    }
    let first = refs
        .partition_point(|b| b.first.as_str() <= top)
        .saturating_sub(1);
    let past = format!("{top}0");
    let end = refs.partition_point(|b| b.first < past);
    first..end.max(first)
}

/// Encodes a snapshot: `entries` in path order, `head` without its blocks,
/// and the `young` notes that follow the head's in recency order. Returns
/// the head's bytes and the bytes of the blocks and young notes after it.
pub(super) fn encode<'a>(
    mut head: Head,
    entries: impl Iterator<Item = &'a Entry>,
    young: &[Entry],
) -> Result<(Vec<u8>, Vec<u8>), postcard::Error> {
    let entries: Vec<&Entry> = entries.collect();
    let mut body = Vec::new();
    for chunk in entries.chunks(BLOCK_NOTES) {
        let bytes = postcard::to_allocvec(chunk)?;
        head.blocks.push(BlockRef {
            first: chunk[0].path.clone(),
            offset: body.len() as u64,
            len: bytes.len() as u64,
            notes: chunk.len() as u32,
            top_level: chunk.iter().any(|e| !e.path.contains('/')),
        });
        body.extend_from_slice(&bytes);
    }
    if !young.is_empty() {
        let bytes = postcard::to_allocvec(young)?;
        head.young = Some(YoungRef {
            offset: body.len() as u64,
            len: bytes.len() as u64,
            notes: young.len() as u32,
        });
        body.extend_from_slice(&bytes);
    }
    Ok((postcard::to_allocvec(&head)?, body))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn refs(firsts: &[&str]) -> Vec<BlockRef> {
        firsts
            .iter()
            .map(|f| BlockRef {
                first: (*f).to_owned(),
                offset: 0,
                len: 0,
                notes: 0,
                top_level: false,
            })
            .collect()
    }

    #[test]
    fn the_blocks_under_a_path_are_every_block_that_may_hold_it() {
        // Blocks starting at: a.md | b-c.md | b/x.md | b/y.md | c/z.md
        // ('-' sorts before '/', which sorts before '0').
        let r = refs(&["a.md", "b-c.md", "b/x.md", "b/y.md", "c/z.md"]);
        assert_eq!(range_under(&r, ""), 0..5);
        // Before every block: none can hold it.
        assert_eq!(range_under(&r, "0.md"), 0..0);
        assert_eq!(range_under(&r, "a.md"), 0..1);
        // `b` as a directory: block 0 may end with `b` itself, block 1 may
        // hold `b/a.md`; `c/z.md` starts past everything below `b/`.
        assert_eq!(range_under(&r, "b"), 0..4);
        assert_eq!(range_under(&r, "b/y.md"), 3..4);
        // Not below `b/`: its own block only.
        assert_eq!(range_under(&r, "b-c.md"), 1..2);
        assert_eq!(range_under(&r, "c"), 3..5);
        assert_eq!(range_under(&r, "zz"), 4..5);
        assert_eq!(range_under(&[], "a"), 0..0);
    }
}
