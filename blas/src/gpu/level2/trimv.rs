//! Products with a stored triangle or a band on GPUs (`rocm_kernels::level2::trimv`):
//! symv/hemv (dense), spmv/hpmv (packed) and sbmv/hbmv (band) as y ← α·A·x + β·y in one
//! launch of ⌈n/32⌉ workgroups; gbmv the same with the general band ops (⌈len(y)/32⌉
//! workgroups, O(len(y)·(kl + ku + 1)) reads of A, no workspace); trmv/tpmv/tbmv as the
//! same kernel with α = 1, β = 0 writing op(A)·x into the handle's workspace (n
//! elements), then a Level 1 copy back into x (the kernel reads all of x, so it cannot
//! write x in place). The blocked trsv's updates on packed and band storage are the
//! windowed trmv products (`trsv`).

use super::{check_amdgpu_extent, check_span, load, logical_start, push_scalars, require, Kernels};
use crate::gpu::level1::{self, ScalarArg, Vector};
use crate::Blas;
use rocm_core::{DType, KernelArgs, LaunchConfig, Result};
use rocm_kernels::exec::DeviceView;
use rocm_kernels::level1::L1Op;
use rocm_kernels::level2::gemv::GemvTrans;
use rocm_kernels::level2::trimv::{TriMv, TriMvOp, TriMvParams, KERNEL, UNIT, UPPER};
use rocm_kernels::level2::Storage;

/// The rows of y and columns (entries of x) a windowed product covers, as indices of A.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Window {
    pub rows: (usize, usize),
    pub cols: (usize, usize),
    /// The full lengths of x and y (a negative increment's logical element 0 is the far
    /// end).
    pub lens: (usize, usize),
}

/// One product on device addresses.
pub(crate) struct TriMvCall<'a> {
    pub op: TriMvOp,
    pub storage: Storage,
    /// Off-diagonals of band storage (the general ops: ku; unused otherwise).
    pub band: usize,
    /// The general ops' sub-diagonals kl.
    pub band_lower: usize,
    /// Rows and columns (the general ops always have one); without one, 0..n each.
    pub window: Option<Window>,
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

/// y ← α·op(A)·x + β·y (n ≥ 1; views checked by the caller; y must not overlap x,
/// except that a window's rows of y may share a vector with x outside its columns).
pub(crate) fn product(blas: &Blas, routine: &str, call: &TriMvCall<'_>) -> Result<()> {
    require(blas, routine, &[Kernels::TriMv])?;
    let (x_len, y_len) = call.window.map_or((call.n, call.n), |w| w.lens);
    // The order bounds every index into A's storage and the vectors.
    let dim = call.n.max(x_len).max(y_len) as u128;
    check_span(call.lda as u128 * dim + dim)?;
    let lda = call.lda as u128;
    let (ix, iy) = (
        call.x.1.unsigned_abs() as u128,
        call.y.1.unsigned_abs() as u128,
    );
    check_amdgpu_extent(
        blas,
        routine,
        call.dtype.size(),
        &[lda * dim + dim, dim * (dim + 1) / 2, ix * dim, iy * dim],
        &[lda, ix, iy],
    )?;
    let p = TriMvParams {
        window: call.window.is_some(),
        ..TriMvParams::fallback(call.dtype, call.op, call.storage, call.read_y)
    };
    let loaded = load::<TriMv>(blas, routine, &p)?;
    let es = call.dtype.size() as u64;
    let dev = blas.device();
    let x = logical_start(call.x.0, call.x.1, x_len, es);
    let y = logical_start(call.y.0, call.y.1, y_len, es);
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
    if call.op.is_general() {
        args.push(call.band_lower as u64);
    }
    let rows = match call.window {
        Some(w) => {
            args.push(w.rows.0 as u64)
                .push(w.rows.1 as u64)
                .push(w.cols.0 as u64)
                .push(w.cols.1 as u64);
            w.rows.1 - w.rows.0
        }
        None => call.n,
    };
    let cfg = LaunchConfig::linear(TriMvParams::groups(rows), p.block());
    let kernel = loaded.module.kernel(KERNEL)?;
    // SAFETY: the caller checked A's stored part (dense or band at lda, or packed) and
    // x, y at their increments and lengths; the kernel reads only the stored part within
    // the band and the window's x(j), and reads and writes the window's y(i).
    unsafe { kernel.launch(blas.stream(), &cfg, &args) }
}

/// gbmv: y ← α·op(A)·x + β·y for the m×n band matrix (`kl` sub-, `ku` super-diagonals)
/// at `a` with leading dimension `lda` (m, n ≥ 1 and α ≠ 0: the caller's quick
/// returns; views checked by the caller). One launch reading O(rows·(kl + ku + 1))
/// elements of A, no workspace.
pub(crate) fn gbmv(
    blas: &Blas,
    (trans, m, n): (GemvTrans, usize, usize),
    (a, lda, kl, ku): (u64, usize, usize, usize),
    call: &GemvLike<'_>,
) -> Result<()> {
    let (op, x_len, y_len) = match trans {
        GemvTrans::N => (TriMvOp::GeneralN, n, m),
        GemvTrans::T => (TriMvOp::GeneralT, m, n),
        GemvTrans::C => (TriMvOp::GeneralC, m, n),
    };
    let product_call = TriMvCall {
        op,
        storage: Storage::Band,
        band: ku,
        band_lower: kl,
        window: Some(Window {
            rows: (0, y_len),
            cols: (0, x_len),
            lens: (x_len, y_len),
        }),
        upper: true,
        unit: false,
        dtype: call.dtype,
        n,
        a,
        lda,
        x: call.x,
        y: call.y,
        alpha: call.alpha,
        beta: call.beta,
        read_y: call.read_y,
    };
    product(blas, "gbmv", &product_call)
}

/// The vectors and scalars of a gemv-shaped product.
pub(crate) struct GemvLike<'a> {
    pub dtype: DType,
    /// Lowest addresses of x and y and their increments.
    pub x: (u64, isize),
    pub y: (u64, isize),
    pub alpha: &'a [ScalarArg],
    pub beta: &'a [ScalarArg],
    pub read_y: bool,
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
            view: DeviceView::buffer(work),
            inc: 1,
            dtype: call.dtype,
        };
        let span = (call.n - 1) * call.x.1.unsigned_abs() + 1;
        // SAFETY: x (at its lowest address) is the caller's checked vector of n elements
        // at its increment, whose elements span `span` slots, alive until the stream's
        // work on it has run.
        let view =
            unsafe { DeviceView::from_raw(call.x.0, (span * es) as u64, blas.device(), true) };
        let to = Vector {
            name: "x",
            view,
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
