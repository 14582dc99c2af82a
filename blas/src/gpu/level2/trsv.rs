//! The blocked trsv on CUDA devices: x ← op(A)⁻¹·x with A triangular, every uplo, trans
//! and diag.
//!
//! M = op(A) is lower (forward substitution) for (Lower, N) and (Upper, T/C), upper
//! (backward) otherwise. The diagonal blocks of order NB are taken in substitution
//! order; for each, one launch of `rocm_blas_trsv_block` solves x(K) ← M(K, K)⁻¹·x(K)
//! in shared memory (one workgroup), then the generated gemv (α = −1, β = 1) subtracts
//! M(R, K)·x(K) from the rows R not yet solved (R after K forward, before K backward):
//! A's sub-block (R, K) with N, (K, R) with T/C. Everything is queued on the handle's
//! stream; the host only walks the blocks. This is the right-looking blocked
//! substitution, backward stable like the unblocked one (Higham, §8.3).

use super::{gemv, load, logical_start, require_ptx, GemvCall};
use crate::gpu::level1::ScalarArg;
use crate::Blas;
use rocm_core::{DType, KernelArgs, LaunchConfig, Result};
use rocm_kernels::level2::gemv::{GemvTrans, GemvTuning};
use rocm_kernels::level2::trsv::{TrsvBlock, TrsvParams, CONJ, KERNEL, TRANS, UNIT, UPPER};

/// One solve on device addresses.
pub(crate) struct TrsvCall<'a> {
    pub upper: bool,
    pub trans: GemvTrans,
    pub unit: bool,
    pub dtype: DType,
    pub n: usize,
    /// Lowest address of A and its leading dimension.
    pub a: u64,
    pub lda: usize,
    /// Lowest address of x and its increment.
    pub x: (u64, isize),
    /// −1 and 1 as the dtype's reals (the gemv updates' α and β).
    pub minus_one: &'a [ScalarArg],
    pub one: &'a [ScalarArg],
}

/// Lowest address of logical elements `start..start + len` of a vector whose logical
/// element 0 is at `x0`.
fn sub_vector(x0: u64, inc: isize, start: usize, len: usize, es: u64) -> u64 {
    let step = inc.unsigned_abs() as u64 * es;
    if inc > 0 {
        x0 + start as u64 * step
    } else {
        x0 - (start + len - 1) as u64 * step
    }
}

/// x ← op(A)⁻¹·x (n ≥ 1; views checked by the caller).
pub(crate) fn trsv(blas: &Blas, routine: &str, call: &TrsvCall<'_>) -> Result<()> {
    require_ptx(blas, routine)?;
    super::check_span(call.lda as u128 * call.n as u128)?;
    let p = TrsvParams::fallback(call.dtype);
    let nb = p.block as usize;
    let loaded = load::<TrsvBlock>(blas, routine, &p)?;
    let kernel = loaded.module.kernel(KERNEL)?;
    let (n, es, dev) = (call.n, call.dtype.size() as u64, blas.device());
    let x0 = logical_start(call.x.0, call.x.1, n, es);
    let transposed = call.trans != GemvTrans::N;
    let forward = call.upper == transposed;
    let flags = if call.upper { UPPER } else { 0 }
        | if call.unit { UNIT } else { 0 }
        | if transposed { TRANS } else { 0 }
        | if call.trans == GemvTrans::C { CONJ } else { 0 };
    let blocks = n.div_ceil(nb);
    for step in 0..blocks {
        let kb = if forward { step } else { blocks - 1 - step };
        let k0 = kb * nb;
        let bs = nb.min(n - k0);
        let mut args = KernelArgs::new();
        args.push(n as u64)
            .push(k0 as u64)
            .push_pointer(call.a, dev)
            .push(call.lda as u64)
            .push_pointer(x0, dev)
            .push(call.x.1 as i64)
            .push(flags);
        let cfg = LaunchConfig::linear(1, p.block);
        // SAFETY: the caller checked A (n×n at lda) and x (n at incx); the kernel reads
        // the stored triangle of diagonal block k0..k0 + bs and reads and writes x there.
        unsafe { kernel.launch(blas.stream(), &cfg, &args)? };
        let (r0, rlen) = if forward {
            (k0 + bs, n - k0 - bs)
        } else {
            (0, k0)
        };
        if rlen == 0 {
            continue;
        }
        let (row, col, m, cols) = if transposed {
            (k0, r0, bs, rlen)
        } else {
            (r0, k0, rlen, bs)
        };
        let update = GemvCall {
            trans: call.trans,
            dtype: call.dtype,
            m,
            n: cols,
            a: call.a + (row as u64 + col as u64 * call.lda as u64) * es,
            lda: call.lda,
            x: (sub_vector(x0, call.x.1, k0, bs, es), call.x.1),
            y: (sub_vector(x0, call.x.1, r0, rlen, es), call.x.1),
            alpha: call.minus_one,
            beta: call.one,
            read_y: true,
        };
        gemv(blas, &update, GemvTuning::default())?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sub_vectors_start_at_their_lowest_element() {
        // Logical element 0 at 1000, 8-byte elements.
        assert_eq!(sub_vector(1000, 2, 3, 4, 8), 1000 + 3 * 2 * 8);
        // Negative: logical element 3 + 4 − 1 = 6 is the lowest, 6·3·8 below x0.
        assert_eq!(sub_vector(1000, -3, 3, 4, 8), 1000 - 6 * 3 * 8);
    }
}
