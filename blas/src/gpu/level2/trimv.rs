//! Products with a stored triangle or a band on GPUs (`rocm_kernels::level2::trimv`):
//! symv/hemv (dense), spmv/hpmv (packed) and sbmv/hbmv (band) as y ← α·A·x + β·y in one
//! launch of ⌈n/32⌉ workgroups; gbmv the same with the general band ops (⌈len(y)/32⌉
//! workgroups, O(len(y)·(kl + ku + 1)) reads of A, no workspace); trmv/tpmv/tbmv as the
//! same kernel with α = 1, β = 0 writing op(A)·x into the handle's workspace (n
//! elements), then a Level 1 copy back into x (the kernel reads all of x, so it cannot
//! write x in place). The blocked trsv's updates on packed and band storage are the
//! windowed trmv products (`trsv`).

use super::{operands, raw_view, require, routine_error, vector_span, Kernels};
use crate::gpu::level1::{self, ScalarArg, Vector};
use crate::Blas;
use rocm_core::{DType, Result};
use rocm_kernels::exec::{execute, DeviceView};
use rocm_kernels::level1::L1Op;
use rocm_kernels::level2::gemv::GemvTrans;
use rocm_kernels::level2::plan::{self as l2plan, TriMvProblem, TriMvWindow};
use rocm_kernels::level2::trimv::TriMvOp;
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
/// except that a window's rows of y may share a vector with x outside its columns): the
/// kernels crate's plan run by the executor.
pub(crate) fn product(blas: &Blas, routine: &str, call: &TriMvCall<'_>) -> Result<()> {
    require(blas, routine, &[Kernels::TriMv])?;
    let (a, x, y) = operands(call.a, call.lda, call.x, call.y);
    let problem = TriMvProblem {
        op: call.op,
        storage: call.storage,
        band: call.band as u64,
        band_lower: call.band_lower as u64,
        window: call.window.map(|w| TriMvWindow {
            rows: (w.rows.0 as u64, w.rows.1 as u64),
            cols: (w.cols.0 as u64, w.cols.1 as u64),
            lens: (w.lens.0 as u64, w.lens.1 as u64),
        }),
        upper: call.upper,
        unit: call.unit,
        dtype: call.dtype,
        n: call.n as u64,
        a,
        x,
        y,
        alpha: call.alpha,
        beta: call.beta,
        read_y: call.read_y,
    };
    let plan = l2plan::plan_trimv(&problem, blas.device().target())
        .map_err(|e| routine_error(blas, routine, e))?;
    let (x_len, y_len) = call.window.map_or((call.n, call.n), |w| w.lens);
    let es = call.dtype.size();
    // SAFETY: the caller checked A's stored part (dense or band at lda, or packed) and
    // x, y (their full lengths at their increments from their lowest elements) on this
    // device and holds them across the queued work.
    let views = unsafe {
        [
            raw_view(blas, call.a, problem.a_elements(), es, false),
            raw_view(blas, call.x.0, vector_span(x_len, call.x.1), es, false),
            raw_view(blas, call.y.0, vector_span(y_len, call.y.1), es, true),
        ]
    };
    execute(&plan, blas.stream(), &views, None).map_err(|e| routine_error(blas, routine, e))
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
