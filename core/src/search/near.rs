//! Near-identical vectors among many without comparing every pair:
//! random-hyperplane hashing (SimHash) puts two vectors at a small angle in
//! one bucket of some table with high probability, and only vectors that
//! share a bucket are compared.

use std::collections::{BTreeSet, HashMap};

/// Tables, and the hyperplanes one table's key is made of. A pair at a
/// cosine of 0.9 (an angle of 25.8°) is split by a random hyperplane with
/// probability 0.143, so it shares a table's bucket with probability
/// 0.857^8 ≈ 0.29 and is missed by all eight with ≈ 0.065; at 0.95, ≈ 0.011.
const TABLES: usize = 8;
const BITS: usize = 8;
/// How many later members of its bucket each vector is compared with: a
/// bucket many alike vectors fill costs this many comparisons a vector,
/// not one for every pair.
const WINDOW: usize = 64;

/// The pairs `(i, j)`, `i < j`, of `vectors` whose cosine is at least
/// `min`, each once, sorted. The vectors are unit length; an empty or zero
/// one (a text the model knows no word of) is never paired. `stop` is
/// asked between tables: the pairs found before it said so are returned,
/// and `false` with them (`true`: every table was searched).
pub fn pairs(
    vectors: &[Vec<f32>],
    min: f32,
    stop: impl Fn() -> bool,
) -> (Vec<(usize, usize)>, bool) {
    let Some(dims) = vectors.iter().map(Vec::len).find(|&n| n > 0) else {
        return (Vec::new(), true);
    };
    let live: Vec<usize> = (0..vectors.len())
        .filter(|&i| vectors[i].len() == dims && vectors[i].iter().any(|v| *v != 0.0))
        .collect();
    let mut planes = Planes::new(dims);
    let mut found = BTreeSet::new();
    for _ in 0..TABLES {
        if stop() {
            return (found.into_iter().collect(), false);
        }
        let table: Vec<Vec<f32>> = (0..BITS).map(|_| planes.next()).collect();
        let mut buckets: HashMap<u32, Vec<usize>> = HashMap::new();
        for &i in &live {
            let key = table.iter().enumerate().fold(0u32, |key, (bit, plane)| {
                key | u32::from(dot(plane, &vectors[i]) >= 0.0) << bit
            });
            buckets.entry(key).or_default().push(i);
        }
        for members in buckets.values() {
            for (at, &i) in members.iter().enumerate() {
                for &j in members.iter().skip(at + 1).take(WINDOW) {
                    if dot(&vectors[i], &vectors[j]) >= min {
                        found.insert((i.min(j), i.max(j)));
                    }
                }
            }
        }
    }
    (found.into_iter().collect(), true)
}

fn dot(a: &[f32], b: &[f32]) -> f32 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}

/// Hyperplanes through the origin, the same for every call (a fixed
/// seed): each value uniform in [-1, 1].
struct Planes {
    dims: usize,
    seed: u64,
}

impl Planes {
    fn new(dims: usize) -> Self {
        Self {
            dims,
            seed: 0x9e37_79b9_7f4a_7c15,
        }
    }

    fn next(&mut self) -> Vec<f32> {
        (0..self.dims)
            .map(|_| {
                // xorshift64*
                self.seed ^= self.seed >> 12;
                self.seed ^= self.seed << 25;
                self.seed ^= self.seed >> 27;
                let bits = self.seed.wrapping_mul(0x2545_f491_4f6c_dd1d) >> 40;
                (bits as f32 / (1u64 << 24) as f32) * 2.0 - 1.0
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn unit(v: Vec<f32>) -> Vec<f32> {
        let norm = dot(&v, &v).sqrt();
        v.into_iter().map(|x| x / norm).collect()
    }

    /// `count` random unit vectors of 64 values, and beside each of the
    /// first `near`, one a small step from it (a cosine above 0.97).
    fn corpus(count: usize, near: usize) -> (Vec<Vec<f32>>, Vec<(usize, usize)>) {
        let mut planes = Planes {
            dims: 64,
            seed: 12345,
        };
        let mut vectors: Vec<Vec<f32>> = (0..count).map(|_| unit(planes.next())).collect();
        let mut twins = Vec::new();
        for i in 0..near {
            let step = planes.next();
            let twin = unit(
                vectors[i]
                    .iter()
                    .zip(&step)
                    .map(|(v, s)| v + 0.03 * s)
                    .collect(),
            );
            assert!(dot(&vectors[i], &twin) > 0.97);
            twins.push((i, vectors.len()));
            vectors.push(twin);
        }
        (vectors, twins)
    }

    #[test]
    fn near_twins_are_found_and_unrelated_vectors_are_not() {
        let (vectors, twins) = corpus(2_000, 50);
        let (found, whole) = pairs(&vectors, 0.9, || false);
        assert!(whole);
        // Random 64-value vectors are far apart: only the twins are near.
        assert_eq!(found, twins);
    }

    #[test]
    fn zero_and_empty_vectors_are_never_paired_and_stop_is_heeded() {
        let zero = vec![0.0; 64];
        let a = unit((0..64).map(|i| i as f32).collect());
        let vectors = vec![zero.clone(), zero, Vec::new(), a.clone(), a];
        assert_eq!(pairs(&vectors, 0.9, || false), (vec![(3, 4)], true));
        assert_eq!(pairs(&vectors, 0.9, || true), (vec![], false));
        assert_eq!(pairs(&[], 0.9, || false), (vec![], true));
    }
}
