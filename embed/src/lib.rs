//! A model2vec static embedder compiled in: text → BERT normalization and
//! WordPiece tokens (`tokens.rs`) → the mean of their embedding rows →
//! a unit vector. No I/O and no parsing at run time: the vocabulary is an
//! FST and the rows are int8 data built by `build.rs` from the model
//! (potion-base-2M by MinishLab, MIT, unless `MEMCAP_MODEL_DIR` names
//! another; see MODEL-LICENSE).

use std::cell::RefCell;

mod tokens;

mod model {
    include!(concat!(env!("OUT_DIR"), "/model.rs"));
}

pub use model::{DIMS, MODEL};

const VOCAB: &[u8] = include_bytes!(concat!(env!("OUT_DIR"), "/vocab.fst"));
/// Row after row, each value the row's scale times an int8.
const ROW_DATA: &[u8] = include_bytes!(concat!(env!("OUT_DIR"), "/rows.i8"));
/// Each row's scale, an `f32` (little-endian).
const SCALES: &[u8] = include_bytes!(concat!(env!("OUT_DIR"), "/scales.f32"));
const _: () = assert!(ROW_DATA.len() == model::ROWS * DIMS && SCALES.len() == model::ROWS * 4);

/// At most this many tokens of a text count (model2vec's default).
pub const MAX_TOKENS: usize = 512;

/// The compiled-in model.
pub struct StaticModel {
    vocab: fst::Map<&'static [u8]>,
    splits: RefCell<tokens::Splits>,
}

impl StaticModel {
    /// The model, ready at once: nothing is parsed or copied.
    pub fn load() -> Self {
        Self {
            vocab: fst::Map::new(VOCAB).expect("the vocabulary FST built by build.rs"),
            splits: RefCell::default(),
        }
    }

    /// `text` as a unit vector of [`DIMS`] values: the mean of its first
    /// [`MAX_TOKENS`] known tokens' rows, normalized; all zeros when it
    /// holds no known token.
    pub fn embed(&self, text: &str) -> Vec<f32> {
        let mut sum = vec![0f32; DIMS];
        let mut count = 0;
        self.splits
            .borrow_mut()
            .wordpiece(&self.vocab, text, &mut |id| {
                if Some(id) == model::UNK || count == MAX_TOKENS {
                    return;
                }
                let row = id as usize;
                let scale = f32::from_le_bytes(SCALES[row * 4..row * 4 + 4].try_into().unwrap());
                for (s, &q) in sum.iter_mut().zip(&ROW_DATA[row * DIMS..(row + 1) * DIMS]) {
                    *s += f32::from(q as i8) * scale;
                }
                count += 1;
            });
        let norm = sum.iter().map(|v| v * v).sum::<f32>().sqrt();
        if norm > 0.0 {
            sum.iter_mut().for_each(|v| *v /= norm);
        }
        sum
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cosine(a: &[f32], b: &[f32]) -> f32 {
        a.iter().zip(b).map(|(x, y)| x * y).sum()
    }

    #[test]
    fn vectors_are_unit_length_and_related_texts_are_closer() {
        let model = StaticModel::load();
        let car = model.embed("I bought a new car for commuting to work.");
        let auto = model.embed("She drives an automobile to her office every day.");
        let cake = model.embed("The chocolate cake recipe needs three eggs.");
        assert_eq!(car.len(), DIMS);
        assert!((cosine(&car, &car) - 1.0).abs() < 1e-4);
        assert!(cosine(&car, &auto) > cosine(&car, &cake));
    }

    #[test]
    fn text_with_no_known_token_is_all_zeros() {
        let model = StaticModel::load();
        assert!(model.embed("").iter().all(|v| *v == 0.0));
        assert!(model.embed("   \n\t").iter().all(|v| *v == 0.0));
    }
}
