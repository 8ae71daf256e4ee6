//! Byte-string order eight bytes at a time: the component's `memcmp`.
//! wasi-libc's compares a byte at a time, and the sorted maps keyed by
//! paths spend a tenth of a one-shot call there. Written with word loads
//! and integer compares only: slice comparison would call `memcmp` itself.

/// How `a` orders against `b`, both `len` bytes long, as `memcmp` answers:
/// negative, zero or positive by the first byte that differs (unsigned).
///
/// # Safety
/// `a` and `b` must each point to `len` readable bytes.
#[inline]
pub unsafe fn compare(a: *const u8, b: *const u8, len: usize) -> i32 {
    // SAFETY: every word read ends at or before `len` (the last one may
    // overlap bytes already found equal).
    let word = |at: usize| unsafe {
        (
            a.add(at).cast::<u64>().read_unaligned(),
            b.add(at).cast::<u64>().read_unaligned(),
        )
    };
    let mut at = 0;
    while at < len {
        if len < 8 {
            // SAFETY: at < len.
            let (x, y) = unsafe { (*a.add(at), *b.add(at)) };
            if x != y {
                return i32::from(x) - i32::from(y);
            }
            at += 1;
            continue;
        }
        let start = at.min(len - 8);
        let (x, y) = word(start);
        if x != y {
            // The first differing byte in memory order, on either end.
            let byte = if cfg!(target_endian = "little") {
                (x ^ y).trailing_zeros() / 8
            } else {
                (x ^ y).leading_zeros() / 8
            } as usize;
            // SAFETY: start + byte < start + 8 <= len.
            let (x, y) = unsafe { (*a.add(start + byte), *b.add(start + byte)) };
            return i32::from(x) - i32::from(y);
        }
        at = start + 8;
    }
    0
}

#[cfg(test)]
mod tests {
    use super::compare;
    use std::cmp::Ordering;

    fn sign(a: &[u8], b: &[u8]) -> Ordering {
        assert_eq!(a.len(), b.len());
        // SAFETY: both slices hold `len` bytes.
        unsafe { compare(a.as_ptr(), b.as_ptr(), a.len()) }.cmp(&0)
    }

    #[test]
    fn orders_as_slices_do_at_every_length_and_position() {
        for len in 0..40 {
            let base: Vec<u8> = (0..len).map(|i| (i * 37 % 251) as u8).collect();
            assert_eq!(sign(&base, &base), Ordering::Equal);
            for at in 0..len {
                for delta in [1u8, 0x7f, 0x80, 0xff] {
                    let mut other = base.clone();
                    other[at] = other[at].wrapping_add(delta);
                    // A later byte that differs the other way must not count.
                    if at + 1 < len {
                        other[at + 1] = other[at + 1].wrapping_sub(delta);
                    }
                    assert_eq!(sign(&base, &other), base.cmp(&other), "len {len} at {at}");
                    assert_eq!(sign(&other, &base), other.cmp(&base), "len {len} at {at}");
                }
            }
        }
    }

    #[test]
    fn reads_from_any_alignment() {
        let bytes: Vec<u8> = (0..64u8).collect();
        let mut copy = bytes.clone();
        copy[40] = 0;
        for start in 0..8 {
            let (a, b) = (&bytes[start..start + 48], &copy[start..start + 48]);
            assert_eq!(sign(a, b), a.cmp(b));
        }
    }
}
