//! The rank-1/2 updates on GPUs (`rocm_kernels::level2::rank`): ger/geru/gerc on
//! an m×n matrix, syr/her/syr2/her2 on a dense triangle and spr/hpr/spr2/hpr2 on a
//! packed one, in one launch: rows over grid x (one work-item per row), column groups
//! over grid y.

use super::{check_amdgpu_extent, check_span, load, logical_start, push_scalars, require, Kernels};
use crate::gpu::level1::ScalarArg;
use crate::Blas;
use rocm_core::{DType, KernelArgs, LaunchConfig, Result};
use rocm_kernels::level2::rank::{Rank, RankOp, RankParams, KERNEL, UPPER};
use rocm_kernels::level2::Storage;

/// One update on device addresses.
pub(crate) struct RankCall<'a> {
    pub op: RankOp,
    pub storage: Storage,
    /// The upper triangle is stored (triangle ops).
    pub upper: bool,
    pub dtype: DType,
    /// A is m×n (n×n for the triangle ops).
    pub m: usize,
    pub n: usize,
    /// Lowest address of A (or AP) and its leading dimension (unused when packed).
    pub a: u64,
    pub lda: usize,
    /// Lowest addresses of x (m elements) and y (n elements) with their increments;
    /// syr/her pass x again as y.
    pub x: (u64, isize),
    pub y: (u64, isize),
    /// The reals of α.
    pub alpha: &'a [ScalarArg],
}

/// A ← A + the call's update (m, n ≥ 1, α ≠ 0; views checked by the caller).
pub(crate) fn update(blas: &Blas, routine: &str, call: &RankCall<'_>) -> Result<()> {
    require(blas, routine, &[Kernels::Rank])?;
    check_span(call.lda as u128 * call.n as u128 + call.m as u128)?;
    let (m, n, lda) = (call.m as u128, call.n as u128, call.lda as u128);
    let (ix, iy) = (
        call.x.1.unsigned_abs() as u128,
        call.y.1.unsigned_abs() as u128,
    );
    check_amdgpu_extent(
        blas,
        routine,
        call.dtype.size(),
        &[lda * n + m, n * (n + 1) / 2, ix * m, iy * n],
        &[lda, ix, iy],
    )?;
    let p = RankParams::fallback(call.dtype, call.op, call.storage);
    let loaded = load::<Rank>(blas, routine, &p)?;
    let es = call.dtype.size() as u64;
    let dev = blas.device();
    let x = logical_start(call.x.0, call.x.1, call.m, es);
    let y = logical_start(call.y.0, call.y.1, call.n, es);
    let mut args = KernelArgs::new();
    args.push(call.m as u64)
        .push(call.n as u64)
        .push_pointer(call.a, dev)
        .push(call.lda as u64)
        .push_pointer(x, dev)
        .push(call.x.1 as i64)
        .push_pointer(y, dev)
        .push(call.y.1 as i64);
    push_scalars(&mut args, call.alpha);
    args.push(if call.upper { UPPER } else { 0 });
    let cfg = LaunchConfig {
        grid: p.grid(call.m, call.n),
        block: [p.block, 1, 1],
        shared_bytes: 0,
    };
    let kernel = loaded.module.kernel(KERNEL)?;
    // SAFETY: the caller checked that A (m×n at lda, or the packed triangle of order n)
    // and x, y hold their elements at their increments; the kernel reads x(0..m),
    // y(0..n) and reads and writes only A's elements of the updated region.
    unsafe { kernel.launch(blas.stream(), &cfg, &args) }
}
