//! The blocked trsv on GPUs: x ← op(A)⁻¹·x with A triangular, every uplo, trans
//! and diag, on dense, packed and band storage (trsv, tpsv, tbsv): the whole solve is
//! one plan of the kernels crate ([`rocm_kernels::level2::solve`]: every diagonal-block
//! solve and update), run by the executor on the handle's stream.

use super::{raw_view, require, routine_error, vector_span, Kernels};
use crate::Blas;
use rocm_core::{DType, Result};
use rocm_kernels::catalog::Catalog;
use rocm_kernels::exec::{execute, DeviceView};
use rocm_kernels::level2::gemv::GemvTrans;
use rocm_kernels::level2::plan::{Matrix, TrsvProblem, Vector as PlanVector};
use rocm_kernels::level2::solve::plan_trsv;
use rocm_kernels::level2::Storage;

/// One solve on device addresses.
pub(crate) struct TrsvCall {
    pub upper: bool,
    pub trans: GemvTrans,
    pub unit: bool,
    pub dtype: DType,
    pub n: usize,
    /// How A's triangle is stored, and the band's off-diagonals k (band only).
    pub storage: Storage,
    pub band: usize,
    /// Lowest address of A and its leading dimension (unused when packed).
    pub a: u64,
    pub lda: usize,
    /// Lowest address of x and its increment.
    pub x: (u64, isize),
}

/// x ← op(A)⁻¹·x (n ≥ 1; views checked by the caller).
pub(crate) fn trsv(blas: &Blas, routine: &str, call: &TrsvCall) -> Result<()> {
    let dense = call.storage == Storage::Dense;
    let update_kernels = if dense { Kernels::Gemv } else { Kernels::TriMv };
    require(blas, routine, &[Kernels::Trsv, update_kernels])?;
    let problem = TrsvProblem {
        upper: call.upper,
        trans: call.trans,
        unit: call.unit,
        dtype: call.dtype,
        n: call.n as u64,
        storage: call.storage,
        band: call.band as u64,
        a: Matrix {
            slot: 0,
            address: call.a,
            lda: call.lda as u64,
        },
        x: PlanVector {
            slot: 1,
            address: call.x.0,
            inc: call.x.1 as i64,
        },
    };
    let target = blas.device().target();
    let plan = plan_trsv(&problem, target, Catalog::for_target(target))
        .map_err(|e| routine_error(blas, routine, e))?;
    let es = call.dtype.size();
    // SAFETY: the caller checked A (n×n at lda, packed, or band at lda) and x (n at
    // incx from its lowest element) on this device and holds them across the queued work.
    let views = unsafe {
        [
            raw_view(blas, call.a, problem.a_elements(), es, false),
            raw_view(blas, call.x.0, vector_span(call.n, call.x.1), es, true),
        ]
    };
    let run = |work: Option<&DeviceView<'_>>| {
        execute(&plan, blas.stream(), &views, work).map_err(|e| routine_error(blas, routine, e))
    };
    if plan.workspace_bytes == 0 {
        return run(None);
    }
    // The handle's workspace (f64 elements) outlives the queued kernels.
    blas.with_workspace(plan.workspace_bytes.div_ceil(8) as usize, |work| {
        run(Some(&DeviceView::buffer(work)))
    })
}
