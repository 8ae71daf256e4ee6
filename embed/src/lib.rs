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
    sums: RefCell<Sums>,
}

/// The summed rows of words of several tokens, by word: a word repeats,
/// and its sum is one vector to add instead of one per token.
#[derive(Default)]
struct Sums {
    /// The [`tokens::WordKey`] generation the slots belong to.
    generation: u32,
    /// By word: its slot in `rows` plus one (0: none yet).
    slot_of: Vec<u32>,
    /// [`DIMS`] values a slot.
    rows: Vec<f32>,
}

/// Words whose sums [`Sums`] keeps (256 bytes each with 64 dimensions).
const MAX_SUMS: usize = 20_000;

impl StaticModel {
    /// The model, ready at once: nothing is parsed or copied.
    pub fn load() -> Self {
        Self {
            vocab: fst::Map::new(VOCAB).expect("the vocabulary FST built by build.rs"),
            splits: RefCell::default(),
            sums: RefCell::default(),
        }
    }

    /// `text` as a unit vector of [`DIMS`] values: the mean of its first
    /// [`MAX_TOKENS`] known tokens' rows, normalized; all zeros when it
    /// holds no known token.
    pub fn embed(&self, text: &str) -> Vec<f32> {
        let mut sum = vec![0f32; DIMS];
        let mut count = 0;
        let mut sums = self.sums.borrow_mut();
        self.splits
            .borrow_mut()
            .wordpiece(&self.vocab, text, &mut |key, ids| {
                let known = ids.iter().filter(|&&id| Some(id) != model::UNK).count();
                if known > 1
                    && count + known <= MAX_TOKENS
                    && let Some(row) = sums.of(key, ids)
                {
                    add(&mut sum, row);
                    count += known;
                    return;
                }
                for &id in ids {
                    if Some(id) == model::UNK || count == MAX_TOKENS {
                        continue;
                    }
                    add_row(&mut sum, id);
                    count += 1;
                }
            });
        let norm = sum.iter().map(|v| v * v).sum::<f32>().sqrt();
        if norm > 0.0 {
            sum.iter_mut().for_each(|v| *v /= norm);
        }
        sum
    }
}

impl Sums {
    /// The sum of `ids`' rows (the unknown token's left out) for the word
    /// `key`, made now if need be; `None` once full.
    fn of(&mut self, key: tokens::WordKey, ids: &[u32]) -> Option<&[f32]> {
        if key.generation != self.generation {
            *self = Self {
                generation: key.generation,
                ..Self::default()
            };
        }
        let word = key.word as usize;
        let slot = match self.slot_of.get(word) {
            Some(&slot) if slot > 0 => slot as usize - 1,
            _ => {
                if self.rows.len() / DIMS == MAX_SUMS {
                    return None;
                }
                let slot = self.rows.len() / DIMS;
                self.rows.resize(self.rows.len() + DIMS, 0.0);
                let row = &mut self.rows[slot * DIMS..];
                for &id in ids.iter().filter(|&&id| Some(id) != model::UNK) {
                    add_row(row, id);
                }
                if self.slot_of.len() <= word {
                    self.slot_of.resize(word + 1, 0);
                }
                self.slot_of[word] = slot as u32 + 1;
                slot
            }
        };
        Some(&self.rows[slot * DIMS..(slot + 1) * DIMS])
    }
}

/// Adds row `id` of the model to `sum`.
fn add_row(sum: &mut [f32], id: u32) {
    let row = id as usize;
    let scale = f32::from_le_bytes(SCALES[row * 4..row * 4 + 4].try_into().unwrap());
    for (s, &q) in sum.iter_mut().zip(&ROW_DATA[row * DIMS..(row + 1) * DIMS]) {
        *s += f32::from(q as i8) * scale;
    }
}

fn add(sum: &mut [f32], row: &[f32]) {
    for (s, r) in sum.iter_mut().zip(row) {
        *s += r;
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
    fn a_words_kept_sum_gives_what_its_tokens_give() {
        let model = StaticModel::load();
        let text = "unbelievably tokenization unbelievably xylophonist tokenization ok";
        // Token by token, as a model with no kept sums adds them.
        let mut reference = vec![0f32; DIMS];
        tokens::Splits::default().wordpiece(&model.vocab, text, &mut |_, ids| {
            for &id in ids.iter().filter(|&&id| Some(id) != model::UNK) {
                add_row(&mut reference, id);
            }
        });
        let norm = reference.iter().map(|v| v * v).sum::<f32>().sqrt();
        reference.iter_mut().for_each(|v| *v /= norm);
        for _ in 0..2 {
            let vector = model.embed(text);
            let most = (0..DIMS).map(|i| (vector[i] - reference[i]).abs());
            assert!(most.fold(0f32, f32::max) < 1e-5);
        }
        assert!(
            !model.sums.borrow().rows.is_empty(),
            "no word of several tokens"
        );
    }

    #[test]
    fn text_with_no_known_token_is_all_zeros() {
        let model = StaticModel::load();
        assert!(model.embed("").iter().all(|v| *v == 0.0));
        assert!(model.embed("   \n\t").iter().all(|v| *v == 0.0));
    }
}
