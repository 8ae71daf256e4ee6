//! Newer first among passages on one subject: when a fact changes and the
//! agent writes a new note without saying it supersedes the old one, the
//! two say nearly the same words and the old one, often worded as the
//! question is, ranks first. A passage of a note changed later moves ahead
//! of the first passage above it that says nearly the same words in an
//! older note; every other passage keeps its rank.

/// What is known of one passage for the order.
pub struct Passage<'a> {
    /// The note it is from.
    pub note: &'a str,
    /// When the note last changed (seconds, nanoseconds), if known.
    pub changed: Option<(u64, u32)>,
    /// Its distinct terms, as the search index analyzes text.
    pub terms: Vec<String>,
    /// Its score (0 to 1).
    pub score: f32,
}

/// How near a passage's score must be to one above it to go ahead of it.
pub const NEAR: f32 = 0.85;

/// The share of the smaller passage's terms the other must hold for the
/// two to be on one subject.
pub const SAME_SUBJECT: f64 = 0.6;

/// The fewest terms a passage needs before it is compared: two or three
/// words in common say little.
const FEWEST_TERMS: usize = 4;

/// The order to give `passages` in (indexes into them): as ranked, but a
/// passage goes ahead of the first one above it that is on the same
/// subject in a note changed earlier.
pub fn order(passages: &[Passage]) -> Vec<usize> {
    let mut out: Vec<usize> = Vec::with_capacity(passages.len());
    for (at, passage) in passages.iter().enumerate() {
        let ahead_of = out.iter().position(|&above| {
            let above = &passages[above];
            above.note != passage.note
                && passage.score >= NEAR * above.score
                && newer(passage.changed, above.changed)
                && same_subject(&passage.terms, &above.terms)
        });
        match ahead_of {
            Some(place) => out.insert(place, at),
            None => out.push(at),
        }
    }
    out
}

/// Whether a note changed at `a` changed after one changed at `b` (an
/// unknown time is never newer, nor older).
fn newer(a: Option<(u64, u32)>, b: Option<(u64, u32)>) -> bool {
    matches!((a, b), (Some(a), Some(b)) if a > b)
}

/// Whether two passages' terms overlap by [`SAME_SUBJECT`] of the smaller.
fn same_subject(a: &[String], b: &[String]) -> bool {
    let smaller = a.len().min(b.len());
    if smaller < FEWEST_TERMS {
        return false;
    }
    let shared = a.iter().filter(|t| b.contains(t)).count();
    shared as f64 >= SAME_SUBJECT * smaller as f64
}

#[cfg(test)]
mod tests {
    use super::*;

    fn passage<'a>(note: &'a str, changed: u64, words: &str) -> Passage<'a> {
        Passage {
            note,
            changed: Some((changed, 0)),
            terms: words.split(' ').map(str::to_owned).collect(),
            score: 0.5,
        }
    }

    #[test]
    fn a_newer_note_on_the_same_subject_goes_ahead_and_nothing_else_moves() {
        let passages = [
            passage("old.md", 10, "deploy target billing api eu west"),
            passage("other.md", 5, "lunch menu friday pizza salad"),
            passage("new.md", 20, "deploy target billing api us east changed"),
            passage("old.md", 10, "deploy target billing api history notes"),
        ];
        assert_eq!(order(&passages), [2, 0, 1, 3]);
        // Older, or of the same note, or on another subject: as ranked.
        let older = [
            passage("new.md", 20, "deploy target billing api us east"),
            passage("old.md", 10, "deploy target billing api eu west"),
        ];
        assert_eq!(order(&older), [0, 1]);
        let same_note = [
            passage("a.md", 10, "deploy target billing api eu"),
            passage("a.md", 20, "deploy target billing api us"),
        ];
        assert_eq!(order(&same_note), [0, 1]);
        let unknown = Passage {
            changed: None,
            ..passage("new.md", 0, "deploy target billing api us east")
        };
        assert_eq!(
            order(&[
                passage("old.md", 10, "deploy target billing api eu"),
                unknown
            ]),
            [0, 1]
        );
        let few = [
            passage("a.md", 10, "tea milk"),
            passage("b.md", 20, "tea milk"),
        ];
        assert_eq!(order(&few), [0, 1]);
    }
}
