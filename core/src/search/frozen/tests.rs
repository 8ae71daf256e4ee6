//! The saved form's tests: written and read back whole and in place, read
//! from the journal in parts, and damaged forms refused without a panic.

use super::format::{leb128, put_leb128};
use super::*;
use crate::error::FsError;
use crate::notes::entry::FileStamp;

fn posting(chunk: u32, count: u32, lines: u32) -> Posting {
    Posting {
        chunk,
        count,
        lines,
    }
}

fn sample() -> Vec<u8> {
    let mut w = Writer::new(Some("m".into()), 2);
    let a = w.note("a.md", FileStamp::sized(1));
    w.chunk(
        SavedChunk {
            note: a,
            first: 1,
            last: 3,
            len: 4,
        },
        &[1, -2i8 as u8],
    );
    w.chunk(
        SavedChunk {
            note: a,
            first: 4,
            last: 9,
            len: 2,
        },
        &[3],
    );
    let b = w.note("b.md", FileStamp::sized(2));
    w.chunk(
        SavedChunk {
            note: b,
            first: 1,
            last: 1,
            len: 1,
        },
        &[-127i8 as u8, 127],
    );
    w.term(b"alpha", &[posting(0, 2, 0b101), posting(2, 1, 1)]);
    w.term(b"beta", &[]);
    w.term(b"gamma", &[posting(1, 300, 0)]);
    w.finish()
}

#[test]
fn a_written_form_reads_back_in_place() {
    let frozen = Frozen::parse(sample()).unwrap();
    assert_eq!(frozen.model(), Some("m"));
    assert_eq!((frozen.chunks(), frozen.terms_total()), (3, 7));
    assert_eq!(frozen.note(1), Some(("b.md".into(), FileStamp::sized(2))));
    assert_eq!(frozen.notes().count(), 2);
    assert_eq!(
        ["a.md", "b.md", "0.md", "c.md"].map(|p| frozen.find_note(p)),
        [Some(0), Some(1), None, None]
    );
    assert_eq!((frozen.chunks_of(0), frozen.chunks_of(1)), (0..2, 2..3));
    assert_eq!(
        frozen.chunk(1),
        SavedChunk {
            note: 0,
            first: 4,
            last: 9,
            len: 2
        }
    );
    assert_eq!(
        (
            frozen.vector(0).unwrap(),
            frozen.vector(1).unwrap(),
            frozen.vector(2).unwrap()
        ),
        (&[1, -2i8 as u8][..], &[0, 0][..], &[-127i8 as u8, 127][..])
    );
    let mut out = Vec::new();
    frozen
        .postings(frozen.term("alpha").unwrap(), &mut out)
        .unwrap();
    assert_eq!(out, [posting(0, 2, 0b101), posting(2, 1, 1)]);
    out.clear();
    frozen
        .postings(frozen.term("gamma").unwrap(), &mut out)
        .unwrap();
    assert_eq!(out, [posting(1, 300, 0)]);
    assert_eq!(frozen.term("beta"), None);
    let mut terms = Vec::new();
    frozen.each_term(&mut |t, i| terms.push((t.to_vec(), i)));
    assert_eq!(terms, [(b"alpha".to_vec(), 0), (b"gamma".to_vec(), 1)]);
    let empty = Frozen::default();
    assert_eq!(
        (empty.chunks(), empty.note_count(), empty.term("alpha")),
        (0, 0, None)
    );
}

/// A journal holding `bytes` after a few others, counting the bytes
/// read from it.
struct Journal {
    bytes: Vec<u8>,
    read: std::cell::Cell<u64>,
    /// The most one read gives (WASI hosts give 64 KiB at most).
    cap: usize,
}

impl crate::storage::File for Journal {
    fn stat(&self) -> Result<crate::storage::Meta, FsError> {
        Ok(crate::storage::Meta {
            kind: crate::storage::Kind::File,
            size: self.bytes.len() as u64,
            modified: None,
            changed: None,
        })
    }

    fn stamp(&self) -> Result<crate::storage::Stamp, FsError> {
        Err(FsError::Other)
    }

    fn read_at(&self, offset: u64, len: u64) -> Result<(Vec<u8>, bool), FsError> {
        let start = (offset as usize).min(self.bytes.len());
        let end = start
            .saturating_add((len as usize).min(self.cap))
            .min(self.bytes.len());
        self.read.set(self.read.get() + (end - start) as u64);
        Ok((self.bytes[start..end].to_vec(), end == self.bytes.len()))
    }
}

fn part_of(form: &[u8], cut: usize) -> (std::rc::Rc<Journal>, SavedPart) {
    let mut bytes = b"journal records before the part".to_vec();
    let offset = bytes.len() as u64;
    bytes.extend_from_slice(form);
    bytes.truncate(bytes.len() - cut);
    let journal = std::rc::Rc::new(Journal {
        bytes,
        read: Default::default(),
        cap: usize::MAX,
    });
    let file: std::rc::Rc<dyn crate::storage::File> = journal.clone();
    (journal, SavedPart::new(file, offset, form.len() as u64))
}

#[test]
fn a_form_read_from_the_journal_leaves_its_notes_vectors_and_postings_there_until_asked() {
    let form = sample();
    let whole = Frozen::parse(form.clone()).unwrap();
    let layout = &whole.layout;
    let postings_len = layout.vocabulary_at - layout.postings_at;
    let notes_len = layout.note_offsets_at - layout.notes_at;
    let vectors_len = layout.offsets_at - layout.vectors_at;
    let (journal, part) = part_of(&form, 0);
    let sparse = Frozen::read(part).unwrap();
    // Everything but the notes, the vectors and the postings (the
    // meta's length is read first, to find the meta).
    assert_eq!(
        journal.read.get(),
        (form.len() - postings_len - notes_len - vectors_len + 4) as u64
    );
    // The vectors streamed: each once, in id order, as the whole form has them.
    let every = |frozen: &Frozen| {
        let mut seen = Vec::new();
        frozen
            .each_vector(&mut |id, vector| seen.push((id, vector.to_vec())))
            .unwrap();
        seen
    };
    let before = journal.read.get();
    assert_eq!(every(&sparse), every(&whole));
    assert_eq!(every(&whole).len(), whole.chunks() as usize);
    assert_eq!(journal.read.get() - before, vectors_len as u64);
    // A note alone: its bytes.
    let before = journal.read.get();
    let (start, end) = whole.note_range(1).unwrap();
    assert_eq!(sparse.note(1), whole.note(1));
    assert_eq!(journal.read.get() - before, (end - start) as u64);
    assert_eq!(
        (
            sparse.chunks(),
            sparse.find_note("b.md"),
            sparse.vector(2).unwrap()
        ),
        (whole.chunks(), Some(1), whole.vector(2).unwrap())
    );
    for term in ["alpha", "gamma", "beta"] {
        assert_eq!(sparse.term(term), whole.term(term));
    }
    let (mut from_sparse, mut from_whole) = (Vec::new(), Vec::new());
    let before = journal.read.get();
    sparse.postings(1, &mut from_sparse).unwrap();
    whole.postings(1, &mut from_whole).unwrap();
    assert_eq!(from_sparse, from_whole);
    // One list read: its bytes alone.
    assert!(journal.read.get() - before < postings_len as u64);
    assert_eq!(sparse.bytes().unwrap(), &form[..]);
    assert_eq!(sparse.size(), form.len());
    // A part cut short is refused, as damaged bytes are.
    assert!(Frozen::read(part_of(&form, 1).1).is_none());
}

#[test]
fn vectors_streamed_in_blocks_come_out_whole_and_in_order() {
    // 2,500 chunks of 64 values: two full blocks and a part of one.
    let dims = 64;
    let mut w = Writer::new(Some("m".into()), dims);
    let note = w.note("a.md", FileStamp::sized(1));
    for id in 0..2_500u32 {
        let vector: Vec<u8> = (0..dims).map(|d| (id * 7 + d as u32) as u8).collect();
        let chunk = SavedChunk {
            note,
            first: id,
            last: id,
            len: 1,
        };
        w.chunk(chunk, &vector);
    }
    let form = w.finish();
    let (journal, part) = part_of(&form, 0);
    let sparse = Frozen::read(part).unwrap();
    let before = journal.read.get();
    // Chunk `id`'s vector as written above.
    let as_written = |id: u32, vector: &[u8]| {
        (vector.iter().enumerate()).all(|(d, &v)| v == (id * 7 + d as u32) as u8)
    };
    let mut next = 0;
    sparse
        .each_vector(&mut |id, vector| {
            assert_eq!(id, next);
            assert!(as_written(id, vector));
            next += 1;
        })
        .unwrap();
    assert_eq!(next, 2_500);
    assert_eq!(journal.read.get() - before, 2_500 * 64);
    // A host giving less than a block per read: the same vectors.
    let capped = std::rc::Rc::new(Journal {
        bytes: form.clone(),
        read: Default::default(),
        cap: 1_000,
    });
    let file: std::rc::Rc<dyn crate::storage::File> = capped.clone();
    let small_reads = Frozen::read(SavedPart::new(file, 0, form.len() as u64)).unwrap();
    let mut same = 0;
    small_reads
        .each_vector(&mut |id, vector| {
            assert!(as_written(id, vector));
            same += 1;
        })
        .unwrap();
    assert_eq!(same, 2_500);
    // Searched again: read whole once, then kept.
    for read in [2_500 * 64, 0] {
        let before = journal.read.get();
        let mut count = 0;
        sparse.each_vector(&mut |_, _| count += 1).unwrap();
        assert_eq!((count, journal.read.get() - before), (2_500, read));
    }
    // A journal cut short inside the vectors: the stream says so.
    let (_, part) = part_of(&form, 0);
    let cut = Frozen::read(part).unwrap();
    if let Body::Sparse { part, .. } = &cut.body {
        let short = SavedPart::new(
            std::rc::Rc::new(Journal {
                bytes: form[..cut.layout.vectors_at + 100_000].to_vec(),
                read: Default::default(),
                cap: usize::MAX,
            }),
            0,
            part.size(),
        );
        let mut seen = 0;
        let damaged = Frozen::read(short).map(|f| f.each_vector(&mut |_, _| seen += 1));
        assert!(
            matches!(damaged, None | Some(Err(FsError::Damaged))),
            "{seen} read"
        );
    }
}

#[test]
fn a_note_is_found_by_path_reading_one_window_of_the_list() {
    // 3,000 notes of ~70 bytes each: ~210 KB of note list, four windows.
    let mut w = Writer::new(None, 0);
    let path = |i: u32| format!("notes/area-{:02}/a-note-with-a-long-name-{i:05}.md", i % 7);
    let mut paths: Vec<String> = (0..3_000).map(path).collect();
    paths.sort();
    for (i, p) in paths.iter().enumerate() {
        let note = w.note(p, FileStamp::sized(i as u64));
        let chunk = SavedChunk {
            note,
            first: 1,
            last: 1,
            len: 1,
        };
        w.chunk(chunk, &[]);
    }
    let form = w.finish();
    let whole = Frozen::parse(form.clone()).unwrap();
    let notes_len = (whole.layout.note_offsets_at - whole.layout.notes_at) as u64;
    let (journal, part) = part_of(&form, 0);
    let sparse = Frozen::read(part).unwrap();
    let before = journal.read.get();
    assert_eq!(sparse.find_note(&paths[1_234]), Some(1_234));
    // The windows' first notes and one window: well under the list.
    assert!(journal.read.get() - before < notes_len / 2);
    for (i, p) in paths.iter().enumerate().step_by(37) {
        assert_eq!(sparse.find_note(p), Some(i as u32), "{p}");
    }
    for absent in [
        "",
        "a",
        "notes/area-03/b",
        "notes/area-03/a-note-with-a-long-name-99999.md",
        "z",
    ] {
        assert_eq!(
            sparse.find_note(absent),
            whole.find_note(absent),
            "{absent}"
        );
        assert_eq!(sparse.find_note(absent), None);
    }
    // Nothing else was read whole: the notes one at a time still.
    assert_eq!(
        sparse.note(5).map(|(p, _)| p.into_owned()),
        Some(paths[5].clone())
    );
}

#[test]
fn damaged_bytes_do_not_parse_and_never_panic() {
    let good = sample();
    assert!(Frozen::parse(good[..good.len() - 1].to_vec()).is_none());
    assert!(Frozen::parse(Vec::new()).is_none());
    assert!(Frozen::parse(b"\xff\xff\xff\xff".to_vec()).is_none());
    // Every single-byte change either fails to parse or reads without
    // panicking, every posting in range.
    for at in 0..good.len() {
        let mut bytes = good.clone();
        bytes[at] ^= 0x5a;
        if let Some(frozen) = Frozen::parse(bytes) {
            let mut out = Vec::new();
            for term in 0..4 {
                frozen.postings(term, &mut out).unwrap();
            }
            assert!(out.iter().all(|p| p.chunk < frozen.chunks()));
            frozen.each_term(&mut |_, _| {});
        }
    }
}

#[test]
fn a_form_breaking_any_rule_of_its_tables_is_refused() {
    let good = sample();
    let layout = Layout::of(&good).unwrap();
    let chunk = |id: usize, field: usize| layout.chunks_at + id * CHUNK_BYTES + 4 * field;
    let word = |value: u32| value.to_le_bytes().to_vec();
    // Each rule, and bytes written at a place that break it.
    let broken = [
        ("a chunk's first line after its last", chunk(0, 1), word(10)),
        ("a chunk of a note not listed", chunk(2, 0), word(2)),
        ("chunks not grouped by note", chunk(0, 0), word(1)),
        // The second of four posting offsets above the third.
        (
            "posting offsets falling",
            layout.offsets_at + 4,
            word(1 << 20),
        ),
        (
            "note offsets falling",
            layout.note_offsets_at + 4,
            word(1 << 20),
        ),
        // "alpha" made "zlpha": after "beta".
        ("words out of order", layout.words_at, b"z".to_vec()),
    ];
    assert!(Frozen::parse(good.clone()).is_some());
    for (rule, at, written) in broken {
        let mut bytes = good.clone();
        bytes[at..at + written.len()].copy_from_slice(&written);
        assert!(Frozen::parse(bytes).is_none(), "{rule}");
    }
}

#[test]
fn leb128_round_trips_and_refuses_overflow() {
    for value in [0, 1, 127, 128, 300, 1 << 21, u32::MAX] {
        let mut bytes = Vec::new();
        put_leb128(&mut bytes, value);
        let mut at = 0;
        assert_eq!(leb128(&bytes, &mut at), Some(value));
        assert_eq!(at, bytes.len());
    }
    assert_eq!(leb128(&[0xff, 0xff, 0xff, 0xff, 0xff, 0x01], &mut 0), None);
    assert_eq!(leb128(&[0x80], &mut 0), None);
}
