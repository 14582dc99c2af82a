//! tpsv, tbsv and gbmv on GPUs: the packed or band matrix is unpacked into a
//! dense one in the handle's outer workspace (`rocm_kernels::level2::unpack`, an exact
//! copy with zeros elsewhere), on which the blocked trsv solves (tpsv, tbsv) or the gemv
//! kernel multiplies (gbmv). The copy costs a dense matrix of workspace and one pass;
//! the work is then the dense routine's (O(m·n) for a band too, against the O(n·k) a
//! band kernel needs: correct first; band kernels would follow where bands are narrow
//! and matrices large).

use super::trsv::{trsv, TrsvCall};
use super::{gemv, load, require, GemvCall, Kernels};
use crate::Blas;
use rocm_core::{KernelArgs, Result};
use rocm_kernels::level2::gemv::GemvTuning;
use rocm_kernels::level2::unpack::{self, Unpack, UnpackParams, GENERAL, KERNEL, UPPER};
use rocm_kernels::level2::Storage;

/// x ← op(A)⁻¹·x for A stored as `storage` at `a` (leading dimension `lda` and
/// bandwidth `band` for band storage); `call` describes the dense solve (its `a` and
/// `lda` are replaced by the unpacked copy's).
pub(crate) fn solve(
    blas: &Blas,
    routine: &str,
    (storage, a, lda, band): (Storage, u64, usize, usize),
    call: &TrsvCall<'_>,
) -> Result<()> {
    require(
        blas,
        routine,
        &[Kernels::Unpack, Kernels::Trsv, Kernels::Gemv],
    )?;
    let n = call.n;
    let (n128, lda128) = (n as u128, lda as u128);
    // The dense copy (n×n) and A's band or packed storage.
    super::check_amdgpu_extent(
        blas,
        routine,
        call.dtype.size(),
        &[n128 * n128, lda128 * n128 + n128, n128 * (n128 + 1) / 2],
        &[lda128],
    )?;
    let cfg = unpack::launch_config(n)?;
    let p = UnpackParams {
        dtype: call.dtype,
        storage,
    };
    let loaded = load::<Unpack>(blas, routine, &p)?;
    let es = call.dtype.size();
    blas.with_outer_workspace((n * n * es).div_ceil(8), |work| {
        let dense = work.as_slice_mut().address();
        let dev = blas.device();
        let mut args = KernelArgs::new();
        args.push(n as u64)
            .push_pointer(a, dev)
            .push(lda as u64)
            .push_pointer(dense, dev)
            .push(if call.upper { UPPER } else { 0 });
        if storage == Storage::Band {
            args.push(band as u64);
        }
        let kernel = loaded.module.kernel(KERNEL)?;
        // SAFETY: the caller checked A's packed triangle (n(n+1)/2 elements) or band
        // (lda ≥ k + 1 by n) inside its view; the kernel reads only stored elements and
        // writes the n×n dense matrix inside the workspace (n² elements).
        unsafe { kernel.launch(blas.stream(), &cfg, &args)? };
        let dense_call = TrsvCall {
            a: dense,
            lda: n,
            ..*call
        };
        trsv(blas, routine, &dense_call)
    })
}

/// gbmv: y ← α·op(A)·x + β·y for the m×n band matrix (`kl` sub-, `ku` super-diagonals)
/// at `a` (leading dimension `lda`); `call` describes the dense product (its `a` and
/// `lda` are replaced by the unpacked copy's). m, n ≥ 1 and α ≠ 0 (the caller's quick
/// returns).
pub(crate) fn gbmv(
    blas: &Blas,
    (a, lda, kl, ku): (u64, usize, usize, usize),
    call: &GemvCall<'_>,
) -> Result<()> {
    let routine = "gbmv";
    require(blas, routine, &[Kernels::Unpack, Kernels::Gemv])?;
    let (m, n) = (call.m, call.n);
    let (m128, n128, lda128) = (m as u128, n as u128, lda as u128);
    // The dense copy (m×n) and the band storage.
    super::check_amdgpu_extent(
        blas,
        routine,
        call.dtype.size(),
        &[m128 * n128, lda128 * n128 + m128],
        &[lda128],
    )?;
    let cfg = unpack::general_launch_config(m, n)?;
    let p = UnpackParams {
        dtype: call.dtype,
        storage: Storage::Band,
    };
    let loaded = load::<Unpack>(blas, routine, &p)?;
    let es = call.dtype.size();
    blas.with_outer_workspace((m * n * es).div_ceil(8), |work| {
        let dense = work.as_slice_mut().address();
        let dev = blas.device();
        let mut args = KernelArgs::new();
        args.push(m as u64)
            .push(n as u64)
            .push_pointer(a, dev)
            .push(lda as u64)
            .push_pointer(dense, dev)
            .push(kl as u64)
            .push(ku as u64);
        let kernel = loaded.module.kernel(GENERAL)?;
        // SAFETY: the caller checked the band storage (lda ≥ kl + ku + 1 by n) inside A's
        // view; the kernel reads only the band and writes the m×n dense matrix inside
        // the workspace (m·n elements).
        unsafe { kernel.launch(blas.stream(), &cfg, &args)? };
        let dense_call = GemvCall {
            a: dense,
            lda: m,
            ..*call
        };
        gemv(blas, &dense_call, GemvTuning::default())
    })
}
