//! Products with a stored triangle on GPUs (`rocm_kernels::level2::trimv`):
//! symv/hemv (dense), spmv/hpmv (packed) and sbmv/hbmv (band) as y ← α·A·x + β·y in one
//! launch of ⌈n/32⌉ workgroups; trmv/tpmv/tbmv as the same kernel with α = 1, β = 0
//! writing op(A)·x into the
//! handle's workspace, then a Level 1 copy back into x (the kernel reads all of x, so it
//! cannot write x in place).

use super::{check_amdgpu_extent, check_span, load, logical_start, push_scalars, require, Kernels};
use crate::gpu::level1::{self, ScalarArg, Vector};
use crate::Blas;
use rocm_core::{DType, KernelArgs, LaunchConfig, Result};
use rocm_kernels::level1::L1Op;
use rocm_kernels::level2::trimv::{TriMv, TriMvOp, TriMvParams, KERNEL, UNIT, UPPER};
use rocm_kernels::level2::Storage;

/// One product on device addresses.
pub(crate) struct TriMvCall<'a> {
    pub op: TriMvOp,
    pub storage: Storage,
    /// Off-diagonals of band storage (unused otherwise).
    pub band: usize,
    pub upper: bool,
    /// Unit diagonal (trmv only).
    pub unit: bool,
    pub dtype: DType,
    pub n: usize,
    /// Lowest address of A (or AP); lda unused when packed.
    pub a: u64,
    pub lda: usize,
    /// Lowest addresses of x and y and their increments.
    pub x: (u64, isize),
    pub y: (u64, isize),
    pub alpha: &'a [ScalarArg],
    pub beta: &'a [ScalarArg],
    /// β ≠ 0 (else y is not read).
    pub read_y: bool,
}

/// y ← α·op(A)·x + β·y (n ≥ 1; views checked by the caller; y must not overlap x).
pub(crate) fn product(blas: &Blas, routine: &str, call: &TriMvCall<'_>) -> Result<()> {
    require(blas, routine, &[Kernels::TriMv])?;
    check_span(call.lda as u128 * call.n as u128 + call.n as u128)?;
    let (n, lda) = (call.n as u128, call.lda as u128);
    let (ix, iy) = (
        call.x.1.unsigned_abs() as u128,
        call.y.1.unsigned_abs() as u128,
    );
    check_amdgpu_extent(
        blas,
        routine,
        call.dtype.size(),
        &[lda * n + n, n * (n + 1) / 2, ix * n, iy * n],
        &[lda, ix, iy],
    )?;
    let p = TriMvParams::fallback(call.dtype, call.op, call.storage, call.read_y);
    let loaded = load::<TriMv>(blas, routine, &p)?;
    let es = call.dtype.size() as u64;
    let dev = blas.device();
    let x = logical_start(call.x.0, call.x.1, call.n, es);
    let y = logical_start(call.y.0, call.y.1, call.n, es);
    let mut args = KernelArgs::new();
    args.push(call.n as u64)
        .push_pointer(call.a, dev)
        .push(call.lda as u64)
        .push_pointer(x, dev)
        .push(call.x.1 as i64)
        .push_pointer(y, dev)
        .push(call.y.1 as i64);
    push_scalars(&mut args, call.alpha);
    if call.read_y {
        push_scalars(&mut args, call.beta);
    }
    let flags = if call.upper { UPPER } else { 0 } | if call.unit { UNIT } else { 0 };
    args.push(flags);
    if call.storage == Storage::Band {
        args.push(call.band as u64);
    }
    let cfg = LaunchConfig::linear(TriMvParams::groups(call.n), p.block());
    let kernel = loaded.module.kernel(KERNEL)?;
    // SAFETY: the caller checked A's triangle (dense or band at lda, or packed) and x, y
    // at their increments; the kernel reads only the stored triangle (within the band)
    // and x, and writes y(0..n).
    unsafe { kernel.launch(blas.stream(), &cfg, &args) }
}

/// x ← op(A)·x for a triangular A (n ≥ 1): the product into the workspace, copied back.
pub(crate) fn trmv(blas: &Blas, routine: &str, call: &TriMvCall<'_>) -> Result<()> {
    require(blas, routine, &[Kernels::TriMv])?;
    let es = call.dtype.size();
    let words = (call.n * es).div_ceil(8);
    blas.with_workspace(words, |work| {
        let staged = TriMvCall {
            y: (work.address(), 1),
            read_y: false,
            ..*call
        };
        product(blas, routine, &staged)?;
        let from = Vector {
            name: "x",
            address: work.address(),
            inc: 1,
            dtype: call.dtype,
        };
        let to = Vector {
            name: "x",
            address: call.x.0,
            inc: call.x.1,
            dtype: call.dtype,
        };
        level1::elementwise(
            blas,
            routine,
            L1Op::Copy,
            call.dtype,
            call.n,
            from,
            Some(to),
            &[],
        )
    })
}
