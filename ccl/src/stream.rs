//! Streaming (non-temporal) copies for large transfers between ranks.
//!
//! On the machine the figures are taken on (2 vCPUs of an AMD EPYC under KVM),
//! moving a cache line from one core to the other costs more than a trip through memory.
//! A shared-memory ring written with ordinary stores makes every line travel from the
//! writer's cache to the reader's and back (the writer's next store invalidates the
//! reader's copy); writing ring data with streaming stores sends it to memory once and
//! the reader fetches it from there. Measured with 2 processes under SCHED_FIFO (an idle
//! machine's conditions): all_reduce ran 1.9-2× faster from 64 KiB to 4 MiB and 1.3-1.4×
//! at 16 and 64 MiB; pieces under 2 KiB were slower streamed (512 B: 1.0 vs 1.3 µs), so
//! they keep ordinary stores. The direct all_reduce between threads writes large
//! results with streaming stores as well, which skips reading every destination line
//! before overwriting it (64 MiB over 2 threads: 13.5-14.7 ms → 9-13 ms).
//!
//! Streaming stores are weakly ordered even on x86: [`fence`] must separate them from
//! the store that publishes the data (a ring's head, a rank's done flag).

/// Ring pieces at least this long are written with streaming stores.
pub(crate) const RING_MIN_BYTES: usize = 2048;

/// Direct all_reduce outputs at least this long are written with streaming stores
/// (smaller ones may still be in cache when the caller reads them).
pub(crate) const OUTPUT_MIN_BYTES: usize = 4 << 20;

/// Copies `len` bytes from `src` to `dst` with streaming stores for the 16-byte-aligned
/// middle (x86-64; a plain copy elsewhere). Call [`fence`] before publishing `dst`.
///
/// # Safety
/// `src` must be readable and `dst` writable for `len` bytes, and the ranges must not
/// overlap (as for `std::ptr::copy_nonoverlapping`).
pub(crate) unsafe fn copy(src: *const u8, dst: *mut u8, len: usize) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: the caller's contract covers [0, len) of both ranges; every access below
    // stays inside it, and the streaming stores go to 16-byte-aligned addresses (`head`
    // aligns `dst + head`). SSE2 is part of the x86-64 baseline.
    unsafe {
        use std::arch::x86_64::{__m128i, _mm_loadu_si128, _mm_stream_si128};
        let head = ((dst as usize).wrapping_neg() & 15).min(len);
        std::ptr::copy_nonoverlapping(src, dst, head);
        let mut i = head;
        while i + 64 <= len {
            let a = _mm_loadu_si128(src.add(i) as *const __m128i);
            let b = _mm_loadu_si128(src.add(i + 16) as *const __m128i);
            let c = _mm_loadu_si128(src.add(i + 32) as *const __m128i);
            let d = _mm_loadu_si128(src.add(i + 48) as *const __m128i);
            _mm_stream_si128(dst.add(i) as *mut __m128i, a);
            _mm_stream_si128(dst.add(i + 16) as *mut __m128i, b);
            _mm_stream_si128(dst.add(i + 32) as *mut __m128i, c);
            _mm_stream_si128(dst.add(i + 48) as *mut __m128i, d);
            i += 64;
        }
        std::ptr::copy_nonoverlapping(src.add(i), dst.add(i), len - i);
    }
    #[cfg(not(target_arch = "x86_64"))]
    // SAFETY: the caller's contract.
    unsafe {
        std::ptr::copy_nonoverlapping(src, dst, len)
    }
}

/// Orders every earlier streaming store before every later store.
#[inline]
pub(crate) fn fence() {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: sfence has no operands and no preconditions (SSE, x86-64 baseline).
    unsafe {
        std::arch::x86_64::_mm_sfence()
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn copies_every_length_and_alignment() {
        let src: Vec<u8> = (0..700u32).map(|i| (i * 37 + 11) as u8).collect();
        for len in [0usize, 1, 15, 16, 63, 64, 65, 200, 511] {
            for off in 0..17 {
                let mut dst = vec![0u8; 700];
                // SAFETY: both ranges lie inside their vectors and do not overlap.
                unsafe { super::copy(src.as_ptr().add(3), dst.as_mut_ptr().add(off), len) };
                super::fence();
                assert_eq!(
                    &dst[off..off + len],
                    &src[3..3 + len],
                    "len {len} off {off}"
                );
                assert!(dst[..off].iter().all(|&b| b == 0));
                assert!(dst[off + len..].iter().all(|&b| b == 0));
            }
        }
    }
}
