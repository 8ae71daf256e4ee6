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
    let (query_lanes, query_rest) = query.as_chunks::<LANES>();
    let (kept_lanes, kept_rest) = kept.as_chunks::<LANES>();
    let lanes = lane_sums(query_lanes, kept_lanes);
    let rest: f32 = query_rest
        .iter()
        .zip(kept_rest)
        .map(|(q, &k)| q * f32::from(k as i8))
        .sum();
    (lanes.iter().sum::<f32>() + rest) / 127.0
}

/// The products summed in eight lanes, `lanes[i] += q[i] * k[i]` (`k` as
/// `i8`): eight running sums the compiler keeps in vector registers (one
/// running sum waits on each add: a hybrid search takes a cosine of every
/// chunk).
#[cfg(not(all(target_arch = "wasm32", target_feature = "simd128")))]
fn lane_sums(query: &[[f32; LANES]], kept: &[[u8; LANES]]) -> [f32; LANES] {
    let mut lanes = [0f32; LANES];
    for (q, k) in query.iter().zip(kept) {
        for lane in 0..LANES {
            lanes[lane] += q[lane] * f32::from(k[lane] as i8);
        }
    }
    lanes
}

/// As the loop above, four lanes an instruction: the bytes widened and
/// converted as vectors (LLVM's own lowering of the loop converts them one
/// at a time), the sums held in two vector values rather than in an array
/// in memory, which the compiled code loaded and stored again on every
/// step. The same multiply and add per lane as the loop, so the same bits.
#[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
fn lane_sums(query: &[[f32; LANES]], kept: &[[u8; LANES]]) -> [f32; LANES] {
    use core::arch::wasm32::*;
    let (mut sum_low, mut sum_high) = (f32x4_splat(0.0), f32x4_splat(0.0));
    for (q, k) in query.iter().zip(kept) {
        // SAFETY: each load reads within its array (8 bytes of `k`, 16 of
        // `q` twice), and wasm loads need no alignment.
        let (wide, q_low, q_high) = unsafe {
            (
                i16x8_load_extend_i8x8(k.as_ptr().cast()),
                v128_load(q.as_ptr().cast()),
                v128_load(q.as_ptr().add(4).cast()),
            )
        };
        let low = f32x4_convert_i32x4(i32x4_extend_low_i16x8(wide));
        let high = f32x4_convert_i32x4(i32x4_extend_high_i16x8(wide));
        sum_low = f32x4_add(sum_low, f32x4_mul(q_low, low));
        sum_high = f32x4_add(sum_high, f32x4_mul(q_high, high));
    }
    let lane = |sums: v128, i: usize| match i {
        0 => f32x4_extract_lane::<0>(sums),
        1 => f32x4_extract_lane::<1>(sums),
        2 => f32x4_extract_lane::<2>(sums),
        _ => f32x4_extract_lane::<3>(sums),
    };
    std::array::from_fn(|i| {
        if i < 4 {
            lane(sum_low, i)
        } else {
            lane(sum_high, i - 4)
        }
    })
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
