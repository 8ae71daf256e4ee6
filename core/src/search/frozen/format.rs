//! The saved form's byte format: where its sections lie ([`Layout`], from
//! the meta), and the little-endian and LEB128 numbers they are made of.

use super::{Body, CHUNK_BYTES, Frozen, Meta};

pub(super) fn u32_at(bytes: &[u8], at: usize) -> u32 {
    u32::from_le_bytes(bytes[at..at + 4].try_into().expect("four bytes"))
}

/// Where a saved form's sections lie, from its meta.
pub(super) struct Layout {
    pub(super) meta: Meta,
    pub(super) notes_at: usize,
    pub(super) note_offsets_at: usize,
    pub(super) chunks_at: usize,
    pub(super) vectors_at: usize,
    pub(super) offsets_at: usize,
    pub(super) postings_at: usize,
    pub(super) vocabulary_at: usize,
    pub(super) words_at: usize,
    pub(super) len: usize,
}

impl Layout {
    /// The layout `bytes` (the form, or at least its length and meta) say;
    /// `None` when the meta does not decode or a size overflows.
    pub(super) fn of(bytes: &[u8]) -> Option<Self> {
        let meta_len = u32::from_le_bytes(bytes.get(..4)?.try_into().ok()?) as usize;
        let meta: Meta = postcard::from_bytes(bytes.get(4..4usize.checked_add(meta_len)?)?).ok()?;
        let chunks = meta.chunks as usize;
        let mut at = 4 + meta_len;
        let mut section = |len: usize| {
            let start = at;
            at = at.checked_add(len)?;
            Some(start)
        };
        let notes_at = section(usize::try_from(meta.notes_len).ok()?)?;
        let note_offsets_at = section((meta.notes as usize).checked_add(1)?.checked_mul(4)?)?;
        let chunks_at = section(chunks.checked_mul(CHUNK_BYTES)?)?;
        let vectors_at = section(chunks.checked_mul(meta.dims as usize)?)?;
        let offsets_at = section((meta.terms as usize).checked_add(1)?.checked_mul(4)?)?;
        let postings_at = section(usize::try_from(meta.postings_len).ok()?)?;
        let vocabulary_at = section((meta.terms as usize).checked_add(1)?.checked_mul(4)?)?;
        let words_at = section(usize::try_from(meta.words_len).ok()?)?;
        Some(Self {
            meta,
            notes_at,
            note_offsets_at,
            chunks_at,
            vectors_at,
            offsets_at,
            postings_at,
            vocabulary_at,
            words_at,
            len: at,
        })
    }

    /// The form over `body` (which holds the sections this layout says),
    /// if it is consistent.
    pub(super) fn into_frozen(self, body: Body) -> Option<Frozen> {
        let frozen = Frozen { body, layout: self };
        frozen.consistent().then_some(frozen)
    }
}

pub(super) fn put_leb128(out: &mut Vec<u8>, mut value: u32) {
    while value >= 0x80 {
        out.push(value as u8 | 0x80);
        value >>= 7;
    }
    out.push(value as u8);
}

/// The LEB128 `u32` at `*at` (moved past it); `None` when `bytes` end
/// first or it does not fit.
pub(super) fn leb128(bytes: &[u8], at: &mut usize) -> Option<u32> {
    let mut value = 0u32;
    for shift in (0..35).step_by(7) {
        let byte = *bytes.get(*at)?;
        *at += 1;
        value |= u32::from(byte & 0x7f).checked_shl(shift)?;
        if byte & 0x80 == 0 {
            return Some(value);
        }
    }
    None
}
