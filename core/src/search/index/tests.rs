//! The search index's own tests: line counting, both layers, the budget,
//! and the saved form's round trip.

use super::query::LineCounts;
use super::*;
use crate::search::chunks;

#[test]
fn line_counts_give_the_busiest_line_as_counting_each_line_would() {
    // Line masks from a fixed generator: bits past the chunk's lines
    // included, and one line given 300 terms (counted to 255).
    let mut seed = 0x2545_f491_u32;
    let mut next = || {
        seed ^= seed << 13;
        seed ^= seed >> 17;
        seed ^= seed << 5;
        seed
    };
    for terms in [0, 1, 2, 3, 7, 40, 300] {
        let mut counts = LineCounts::default();
        let mut each = [0u8; chunks::MAX_LINES];
        for _ in 0..terms {
            let lines = if terms == 300 {
                1 << 4
            } else {
                next() & next()
            };
            counts.add(lines);
            for (line, count) in each.iter_mut().enumerate() {
                if lines & (1 << line) != 0 {
                    *count = count.saturating_add(1);
                }
            }
        }
        assert_eq!(
            counts.max(),
            each.iter().copied().max().unwrap(),
            "{terms} terms"
        );
    }
}

/// A hit with its note's path (a saved note's index changes when the
/// index is saved).
#[derive(Debug, PartialEq)]
struct Named {
    path: String,
    first: u32,
    last: u32,
    score: f32,
    keywords: bool,
}

/// The hits for `query`, keywords only, in every note.
fn find(index: &SearchIndex, query: &str, limit: usize, min_score: f32) -> Vec<Named> {
    let hits = index
        .search(&index.query_terms(query), None, limit, min_score, None)
        .unwrap();
    hits.iter()
        .map(|hit| Named {
            path: index.path_of(hit).unwrap().into_owned(),
            first: hit.first,
            last: hit.last,
            score: hit.score,
            keywords: hit.keywords,
        })
        .collect()
}

fn index(notes: &[(&str, &str)]) -> SearchIndex {
    let mut index = SearchIndex::default();
    for (path, text) in notes {
        index.put(path, FileStamp::sized(text.len() as u64), text, None);
    }
    index
}

#[test]
fn the_note_holding_the_terms_ranks_first_with_its_lines() {
    let index = index(&[
        (
            "api.md",
            "# API\nWe decided to use JWT with a 15-minute expiry.\nRefresh tokens rotate.",
        ),
        ("food.md", "# Food\nThe team likes pizza on Fridays."),
        ("db.md", "# Database\nPostgres 17, one primary."),
    ]);
    let hits = find(&index, "API authentication decisions JWT", 5, 0.0);
    assert_eq!(hits[0].path, "api.md");
    assert_eq!((hits[0].first, hits[0].last), (1, 3));
    assert!(hits.iter().all(|h| h.path != "food.md"));
    assert!(hits[0].score > 0.0 && hits[0].score <= 1.0);
}

#[test]
fn terms_on_one_line_rank_above_the_same_terms_apart() {
    // The same words, as often, in chunks as long: only where they stand
    // tells the two apart.
    let mut index = index(&[
        (
            "apart.md",
            "the deploy went out\nfiller words here\nkey rotates",
        ),
        (
            "together.md",
            "the deploy key rotates\nfiller words here\nwent out",
        ),
    ]);
    let hits = find(&index, "deploy key", 5, 0.0);
    assert_eq!(hits[0].path, "together.md");
    assert!(hits[0].score > hits[1].score);
    // Saved and read back, the lines are kept.
    let mut back = SearchIndex::default();
    assert!(back.restore_state(index.persist().into_owned(), None));
    assert_eq!(find(&back, "deploy key", 5, 0.0), hits);
}

#[test]
fn a_changed_or_removed_note_answers_with_what_it_holds_now() {
    let mut index = index(&[("a.md", "postgres here"), ("b.md", "mysql there")]);
    index.put("a.md", FileStamp::sized(1), "sqlite now", None);
    assert!(find(&index, "postgres", 5, 0.0).is_empty());
    assert_eq!(find(&index, "sqlite", 5, 0.0)[0].path, "a.md");
    index.remove("b.md");
    assert!(find(&index, "mysql", 5, 0.0).is_empty());
    assert_eq!(index.counts(), (1, 1));
}

#[test]
fn changes_to_a_saved_index_find_their_notes_without_decoding_all() {
    let mut index = index(&[
        ("a.md", "alpha words"),
        ("b.md", "beta words\n\n# Two\nbeta again"),
        ("c.md", "gamma words"),
    ]);
    let mut back = SearchIndex::default();
    assert!(back.restore_state(index.persist().into_owned(), None));
    back.put("b.md", FileStamp::sized(9), "beta changed", None);
    back.remove("c.md");
    back.remove("c.md");
    back.remove("none.md");
    back.put("d.md", FileStamp::sized(4), "delta words", None);
    back.put("d.md", FileStamp::sized(5), "delta twice", None);
    assert!(back.notes.get().is_none(), "every note decoded");
    assert_eq!(back.counts(), (3, 3));
    assert!(find(&back, "gamma", 5, 0.0).is_empty());
    assert_eq!(find(&back, "again", 5, 0.0), []);
    assert_eq!(find(&back, "twice", 5, 0.0)[0].path, "d.md");
    let stamps: Vec<(String, u64)> = back
        .note_stamps()
        .into_iter()
        .map(|(path, stamp)| (path, stamp.size))
        .collect();
    assert_eq!(
        stamps,
        [("a.md".into(), 11), ("b.md".into(), 9), ("d.md".into(), 5)]
    );
    assert_eq!(back.counts(), (3, 3));
}

#[test]
fn near_its_budget_the_index_merges_what_it_added_to_take_more() {
    let note = |i: usize| {
        (0..200)
            .map(|k| format!("word{i}x{k} shared"))
            .collect::<Vec<_>>()
            .join("\n")
    };
    let take = |budget: u64| {
        let mut index = SearchIndex {
            budget: Budget(budget),
            ..SearchIndex::default()
        };
        for i in 0..30 {
            index.put(&format!("n{i:02}.md"), FileStamp::sized(1), &note(i), None);
        }
        index
    };
    // Unbounded, all of it; what it then holds saved is the budget.
    let mut whole = take(u64::MAX);
    let unmerged = whole.memory();
    whole.persist();
    let budget = whole.saved.size() as u64 * 2;
    // Unmerged, what it added costs more than the budget.
    assert!(unmerged > budget, "{unmerged} {budget}");
    let index = take(budget);
    assert!(index.saved.chunks() > 0, "nothing merged on the way");
    assert!(index.cut.is_empty(), "{:?}", index.cut);
    assert_eq!(find(&index, "word29x150", 1, 0.0)[0].path, "n29.md");
}

#[test]
fn saving_merges_the_layers_and_keeps_every_live_answer() {
    let mut index = SearchIndex::default();
    for i in 0..200 {
        index.put(
            &format!("n{i}.md"),
            FileStamp::sized(i),
            &format!("topic{i} shared words"),
            None,
        );
    }
    // Equal scores are ordered by chunk id, which saving renumbers.
    let all = |index: &SearchIndex| {
        let mut hits = find(index, "shared", 300, 0.0);
        hits.sort_by(|a, b| a.path.cmp(&b.path));
        hits
    };
    index.persist();
    assert_eq!((index.saved.chunks(), index.added.len()), (200, 0));
    // Saved chunks go, added ones come and go, then all is saved again.
    for i in 0..150 {
        index.remove(&format!("n{i}.md"));
    }
    index.put(
        "n199.md",
        FileStamp::sized(1),
        "topic199 changed words",
        None,
    );
    index.put("new.md", FileStamp::sized(1), "topicnew shared", None);
    index.put("new.md", FileStamp::sized(2), "topicnew shared again", None);
    let before = all(&index);
    assert_eq!(before.len(), 50);
    assert!(find(&index, "topic3", 5, 0.0).is_empty());
    index.persist();
    assert_eq!((index.saved.chunks(), index.added.len()), (51, 0));
    assert_eq!(all(&index), before);
    for i in 150..199 {
        assert_eq!(
            find(&index, &format!("topic{i}"), 1, 0.0)[0].path,
            format!("n{i}.md")
        );
    }
    assert_eq!(find(&index, "again", 5, 0.0)[0].path, "new.md");
    assert_eq!(index.counts(), (51, 51));
    // The saved form restored elsewhere answers the same.
    let mut back = SearchIndex::default();
    assert!(back.restore_state(index.persist().into_owned(), None));
    assert_eq!(all(&back), before);
    assert_eq!(back.stamps(), index.stamps());
}

#[test]
fn a_note_past_its_passage_bound_is_taken_in_part_and_named_until_it_shrinks() {
    let long: String = (0..MAX_NOTE_CHUNKS + 5)
        .map(|i| format!("# part {i}\nword{i}\n"))
        .collect();
    let mut index = index(&[("long.md", &long), ("short.md", "alpha")]);
    assert_eq!(index.counts(), (2, MAX_NOTE_CHUNKS as u32 + 1));
    assert_eq!(index.cut().collect::<Vec<_>>(), ["long.md"]);
    assert_eq!(find(&index, "word0", 5, 0.0)[0].path, "long.md");
    let last = format!("word{}", MAX_NOTE_CHUNKS + 4);
    assert!(find(&index, &last, 5, 0.0).is_empty());
    // Saved and read back, the cut note is still named.
    let mut back = SearchIndex::default();
    assert!(back.restore_state(index.persist().into_owned(), None));
    assert_eq!(back.cut().collect::<Vec<_>>(), ["long.md"]);
    // Shrunk within the bound (or gone), it is whole again.
    back.put("long.md", FileStamp::sized(1), "# part\nword0", None);
    assert_eq!(back.cut().count(), 0);
    index.remove("long.md");
    assert_eq!(index.cut().count(), 0);
}

#[test]
fn min_score_and_limit_bound_the_answer_and_the_state_round_trips() {
    let mut index = index(&[("a.md", "alpha beta"), ("b.md", "alpha"), ("c.md", "gamma")]);
    let all = find(&index, "alpha beta", 10, 0.0);
    assert_eq!(all.len(), 2);
    assert!(all[0].score > all[1].score);
    assert_eq!(find(&index, "alpha beta", 1, 0.0).len(), 1);
    assert!(find(&index, "alpha beta", 10, 0.99).len() <= 1);
    let mut back = SearchIndex::default();
    assert!(back.restore_state(index.persist().into_owned(), None));
    assert!(!back.restore_state(index.persist().into_owned(), Some("a model")));
    assert_eq!(find(&back, "alpha beta", 10, 0.0), all);
    assert!(!SearchIndex::default().restore_state(b"not an index".to_vec(), None));
}
