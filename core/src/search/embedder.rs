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
        add_products(&mut lanes, q, k);
    }
    let rest: f32 = query_rest
        .iter()
        .zip(kept_rest)
        .map(|(q, &k)| q * f32::from(k as i8))
        .sum();
    (lanes.iter().sum::<f32>() + rest) / 127.0
}

/// `lanes[i] += q[i] * k[i]` (`k` as `i8`), lane by lane.
#[cfg(not(all(target_arch = "wasm32", target_feature = "simd128")))]
fn add_products(lanes: &mut [f32; LANES], q: &[f32; LANES], k: &[u8; LANES]) {
    for lane in 0..LANES {
        lanes[lane] += q[lane] * f32::from(k[lane] as i8);
    }
}

/// `lanes[i] += q[i] * k[i]` (`k` as `i8`), four lanes an instruction: the
/// bytes widened and converted as vectors (LLVM's own lowering of the loop
/// above converts them one at a time). The same multiply and add per lane
/// as the loop, so the same bits.
#[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
fn add_products(lanes: &mut [f32; LANES], q: &[f32; LANES], k: &[u8; LANES]) {
    use core::arch::wasm32::*;
    // SAFETY: each load reads within its array (8 bytes of `k`, 16 of
    // `q` twice, 16 of `lanes` twice), and wasm loads need no alignment.
    unsafe {
        let wide = i16x8_load_extend_i8x8(k.as_ptr().cast());
        let low = f32x4_convert_i32x4(i32x4_extend_low_i16x8(wide));
        let high = f32x4_convert_i32x4(i32x4_extend_high_i16x8(wide));
        let q_low = v128_load(q.as_ptr().cast());
        let q_high = v128_load(q.as_ptr().add(4).cast());
        let sum_low = v128_load(lanes.as_ptr().cast());
        let sum_high = v128_load(lanes.as_ptr().add(4).cast());
        v128_store(
            lanes.as_mut_ptr().cast(),
            f32x4_add(sum_low, f32x4_mul(q_low, low)),
        );
        v128_store(
            lanes.as_mut_ptr().add(4).cast(),
            f32x4_add(sum_high, f32x4_mul(q_high, high)),
        );
    }
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

    /// The cosine as one plain loop per lane: what [`cosine`] must give bit
    /// for bit on every target (the guest's uses WebAssembly SIMD; `just
    /// test` runs these tests as wasm32-wasip2 too).
    fn plain_cosine(query: &[f32], kept: &[u8]) -> f32 {
        let mut lanes = [0f32; LANES];
        let whole = query.len() / LANES * LANES;
        for (i, (q, &k)) in query[..whole].iter().zip(&kept[..whole]).enumerate() {
            lanes[i % LANES] += q * f32::from(k as i8);
        }
        let rest: f32 = query[whole..]
            .iter()
            .zip(&kept[whole..])
            .map(|(q, &k)| q * f32::from(k as i8))
            .sum();
        (lanes.iter().sum::<f32>() + rest) / 127.0
    }

    #[test]
    fn the_cosine_is_the_plain_loops_bit_for_bit() {
        let mut seed = 0x9e37_79b9_u32;
        let mut next = || {
            seed ^= seed << 13;
            seed ^= seed >> 17;
            seed ^= seed << 5;
            seed
        };
        for dims in [1, 7, 8, 9, 64, 67, 256] {
            for _ in 0..200 {
                let query: Vec<f32> = (0..dims)
                    .map(|_| (next() as f32 / u32::MAX as f32) * 2.0 - 1.0)
                    .collect();
                let kept: Vec<u8> = (0..dims).map(|_| next() as u8).collect();
                assert_eq!(
                    cosine(&query, &kept).to_bits(),
                    plain_cosine(&query, &kept).to_bits(),
                    "{dims} dims"
                );
            }
        }
    }
}
