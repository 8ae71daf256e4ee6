//! BM25 (k1 1.2, b 0.75) with its score scaled to 0–1 by a fixed formula,
//! so a threshold means the same on any store:
//!
//! `x = Σ idf(t)·w(t) / Σ idf(t)` over the query's terms that occur
//! somewhere in the store (a term found nowhere tells no passage from
//! another), where
//! `w(t) = tf·(k1+1) / (tf + k1·(1 − b + b·len/avg_len))` is 1 for a term
//! found once in a chunk of average length (more with repeats, less in a
//! long chunk, 0 when absent) and `idf(t) = ln(1 + (N − df + 0.5)/(df + 0.5))`.
//! So `x` is about 1 for a chunk holding every query term once and about
//! 0.33 for one holding the terms that carry a third of the query's weight.
//! The score is `x` up to [`KNEE`] (0.5), then bends towards 1 without
//! reaching it: `1 − (1 − KNEE)·e^(−(x − KNEE)/(1 − KNEE))` (0.82 at
//! `x` = 1, 0.98 at 2). It keeps BM25's order: clipping at 1 would tie
//! every chunk holding all the terms, and hand their order to the vectors.
//!
//! BM25 counts a chunk's terms wherever they are in its 20 lines; a passage
//! that says what the query asks holds them together. So the keyword score
//! is `text = (1 − L)·bm25 + L·share²` with `L` = [`LINE_WEIGHT`], `bm25`
//! the scaled score above and `share` the part of the query's terms (those
//! found in the store) that the chunk's best line holds: a chunk with every
//! term on one line gets the whole `L`, one with half of them on its best
//! line a quarter of it. Still 0–1.
//!
//! With vectors the score is hybrid: `fused = (1 − W)·text + W·max(0, cos)`
//! with `W` = [`VECTOR_WEIGHT`], `text` the score above and `cos` the cosine
//! of the query's and the chunk's unit vectors. It stays in 0–1: a chunk
//! holding every query term, in words close to the query's, scores near 1;
//! one that only says the same thing in other words at most `W`.

const K1: f32 = 1.2;
const B: f32 = 0.75;

/// The vector half's weight in a hybrid score (chosen on `locomo-dev`).
pub const VECTOR_WEIGHT: f32 = 0.3;

/// The weight of the best line's share of the query in the keyword score
/// (chosen on `locomo-dev`, where it lifts hybrid MRR from 0.827 to 0.838).
pub const LINE_WEIGHT: f32 = 0.3;

/// Where the scaled BM25 score starts to bend towards 1 (chosen on
/// `locomo-dev`, where it lifts MRR from 0.810 to 0.827).
pub const KNEE: f32 = 0.5;

/// The inverse document frequency of a term found in `df` of `n` chunks.
pub fn idf(n: u32, df: u32) -> f32 {
    let (n, df) = (n as f32, df as f32);
    (1.0 + (n - df + 0.5) / (df + 0.5)).ln()
}

/// A term's weight in a chunk: `tf` occurrences, `len` terms long.
pub fn weight(tf: u32, len: u32, avg_len: f32) -> f32 {
    weight_in(tf, length_norm(len, avg_len))
}

/// The part of [`weight`] that depends on the chunk alone (`len` terms
/// long), worked out once for all of a query's terms.
pub fn length_norm(len: u32, avg_len: f32) -> f32 {
    K1 * (1.0 - B + B * len as f32 / at_least(avg_len, 1.0))
}

/// `x.max(floor)` for a `floor` that is a number, NaN and signed zeros
/// included: WebAssembly has no instruction with `max`'s meaning, so the
/// guest would call libm's `fmaxf` for every chunk a search scores.
fn at_least(x: f32, floor: f32) -> f32 {
    if x > floor { x } else { floor }
}

/// [`weight`] of `tf` occurrences in a chunk of [`length_norm`] `norm`.
pub fn weight_in(tf: u32, norm: f32) -> f32 {
    let tf = tf as f32;
    tf * (K1 + 1.0) / (tf + norm)
}

/// The 0–1 score from the sum of `idf·weight` and the query's `Σ idf`.
pub fn scaled(sum: f32, query_idf: f32) -> f32 {
    if query_idf <= 0.0 {
        return 0.0;
    }
    let x = sum / query_idf;
    if x <= KNEE {
        x
    } else {
        // Same value and slope as `x` at the knee; below 1 for any `x`.
        1.0 - (1.0 - KNEE) * (-(x - KNEE) / (1.0 - KNEE)).exp()
    }
}

/// The keyword score of a chunk: its scaled BM25 score and the part of the
/// query's terms its best line holds (0–1).
pub fn text(bm25: f32, line_share: f32) -> f32 {
    let share = line_share.clamp(0.0, 1.0);
    (1.0 - LINE_WEIGHT) * bm25 + LINE_WEIGHT * share * share
}

/// The hybrid score of a chunk: its 0–1 text score and its cosine.
pub fn fused(text: f32, cosine: f32) -> f32 {
    (1.0 - VECTOR_WEIGHT) * text + VECTOR_WEIGHT * at_least(cosine, 0.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_occurrence_at_average_length_weighs_one() {
        assert!((weight(1, 50, 50.0) - 1.0).abs() < 1e-6);
        assert!(weight(3, 50, 50.0) > 1.0);
        assert!(weight(1, 200, 50.0) < 1.0);
    }

    #[test]
    fn rare_terms_weigh_more_and_scores_stay_in_range() {
        assert!(idf(1000, 1) > idf(1000, 500));
        assert!(idf(1000, 1000) > 0.0);
        assert_eq!(scaled(1.0, 0.0), 0.0);
        assert!((scaled(1.0, 3.0) - 0.333).abs() < 0.001);
        // Past the knee: still rising, never reaching 1.
        assert!((scaled(1.0, 1.0) - 0.816).abs() < 0.001);
        assert!(scaled(2.0, 1.0) > scaled(1.5, 1.0) && scaled(2.0, 1.0) < 1.0);
        assert!(scaled(50.0, 1.0) <= 1.0);
        assert!((scaled(KNEE + 1e-4, 1.0) - (KNEE + 1e-4)).abs() < 1e-4);
    }

    #[test]
    fn at_least_is_max_for_every_kind_of_value() {
        for x in [
            f32::NAN,
            -0.0,
            0.0,
            -1.5,
            0.5,
            1.0,
            2.0,
            f32::INFINITY,
            f32::NEG_INFINITY,
        ] {
            for floor in [0.0, 1.0] {
                let (got, max) = (at_least(x, floor), x.max(floor));
                // `max` leaves the sign of a zero unspecified (it differs
                // between debug and release builds): compare values, and
                // pin `at_least`'s own choice, the floor's zero.
                assert!(got == max && !got.is_nan(), "{x} {floor}");
                if got == 0.0 {
                    assert_eq!(got.to_bits(), floor.to_bits(), "{x} {floor}");
                }
            }
        }
    }

    #[test]
    fn terms_together_on_a_line_add_to_the_keyword_score() {
        assert_eq!(text(0.0, 0.0), 0.0);
        assert!((text(1.0, 1.0) - 1.0).abs() < 1e-6);
        assert!(text(0.6, 1.0) > text(0.6, 0.5) && text(0.6, 0.5) > text(0.6, 0.0));
        assert!((text(0.5, 0.5) - (0.7 * 0.5 + 0.3 * 0.25)).abs() < 1e-6);
        assert!(text(0.999, 2.0) <= 1.0);
    }
}
