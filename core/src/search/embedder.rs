//! The embedder port: text to a unit vector, for the vector half of a
//! hybrid search. The adapter hands one in through the environment
//! ([`crate::storage::Environment::embedder`]); without one, search is
//! keywords only and says so.

/// A text embedding model.
pub trait Embedder {
    /// The model's name: an index whose vectors another model made is
    /// rebuilt, never compared.
    fn model(&self) -> &str;

    /// `text` as a unit vector (all zeros when the model knows none of its
    /// words). Every vector of one model has the same length.
    fn embed(&self, text: &str) -> Vec<f32>;
}

/// A unit vector as the index keeps it: each value times 127, rounded, an
/// `i8` kept as its byte (so a saved index's vectors are read in place).
pub fn quantize(vector: &[f32]) -> Vec<u8> {
    vector
        .iter()
        .map(|v| (v.clamp(-1.0, 1.0) * 127.0).round() as i8 as u8)
        .collect()
}

/// The cosine of a query's unit vector and a kept one (0 when either is
/// empty or they differ in length).
pub fn cosine(query: &[f32], kept: &[u8]) -> f32 {
    if query.len() != kept.len() {
        return 0.0;
    }
    // Summed in eight lanes, which the compiler keeps in vector registers
    // (one running sum waits on each add: a hybrid search takes a cosine
    // of every chunk).
    let mut lanes = [0f32; LANES];
    let (query_lanes, query_rest) = query.as_chunks::<LANES>();
    let (kept_lanes, kept_rest) = kept.as_chunks::<LANES>();
    for (q, k) in query_lanes.iter().zip(kept_lanes) {
        for lane in 0..LANES {
            lanes[lane] += q[lane] * f32::from(k[lane] as i8);
        }
    }
    let rest: f32 = query_rest
        .iter()
        .zip(kept_rest)
        .map(|(q, &k)| q * f32::from(k as i8))
        .sum();
    (lanes.iter().sum::<f32>() + rest) / 127.0
}

/// The running sums of [`cosine`].
const LANES: usize = 8;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_kept_vector_keeps_its_cosine() {
        let a = [0.6f32, 0.8, 0.0];
        let b = [0.0f32, 0.6, 0.8];
        assert!((cosine(&a, &quantize(&a)) - 1.0).abs() < 0.01);
        assert!((cosine(&a, &quantize(&b)) - 0.48).abs() < 0.01);
        assert_eq!(cosine(&a, &[]), 0.0);
    }
}
