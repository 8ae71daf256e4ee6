//! The component's `memcmp`, in place of wasi-libc's byte-at-a-time one
//! (which the linker then leaves out): see `memcap_core::bytes`.

/// # Safety
/// `a` and `b` must each point to `n` readable bytes, as C's `memcmp`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn memcmp(a: *const u8, b: *const u8, n: usize) -> i32 {
    // SAFETY: the caller's promise, passed on.
    unsafe { memcap_core::bytes::compare(a, b, n) }
}
