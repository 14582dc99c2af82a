//! The rank-1/2 updates on GPUs (`rocm_kernels::level2::rank`): ger/geru/gerc on
//! an m×n matrix, syr/her/syr2/her2 on a dense triangle and spr/hpr/spr2/hpr2 on a
//! packed one, in one launch: rows over grid x (one work-item per row), column groups
//! over grid y.

use super::{operands, raw_view, routine_error, vector_span};
use crate::gpu::level1::ScalarArg;
use crate::Blas;
use rocm_core::{DType, Result};
use rocm_kernels::exec::execute;
use rocm_kernels::level2::plan::{self as l2plan, RankProblem};
use rocm_kernels::level2::rank::RankOp;
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

/// A ← A + the call's update (m, n ≥ 1, α ≠ 0; views checked by the caller): the
/// kernels crate's plan run by the executor.
pub(crate) fn update(blas: &Blas, routine: &str, call: &RankCall<'_>) -> Result<()> {
    let (a, x, y) = operands(call.a, call.lda, call.x, call.y);
    let problem = RankProblem {
        op: call.op,
        storage: call.storage,
        upper: call.upper,
        dtype: call.dtype,
        m: call.m as u64,
        n: call.n as u64,
        a,
        x,
        y,
        alpha: call.alpha,
    };
    let plan = l2plan::plan_rank(&problem).map_err(|e| routine_error(blas, routine, e))?;
    let es = call.dtype.size();
    let a_elements = match call.storage {
        Storage::Packed => call.n * (call.n + 1) / 2,
        _ => (call.n - 1) * call.lda + call.m,
    } as u64;
    // SAFETY: the caller checked A (m×n at lda, or the packed triangle of order n) and
    // x, y (m and n elements at their increments from their lowest elements) on this
    // device and holds them across the queued work.
    let views = unsafe {
        [
            raw_view(blas, call.a, a_elements, es, true),
            raw_view(blas, call.x.0, vector_span(call.m, call.x.1), es, false),
            raw_view(blas, call.y.0, vector_span(call.n, call.y.1), es, false),
        ]
    };
    execute(&plan, blas.stream(), &views, None)
}
