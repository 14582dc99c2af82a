//! GEMM on GPUs through `rocm_kernels::gemm`.
//!
//! The host describes the call ([`GemmProblem`]: class, shape, operand strides and
//! alignment, α, β, the device's compute units), asks `rocm_kernels::gemm::plan` for
//! the plan (the variant from the target's catalog, operand copies into the handle's
//! operand workspace, the kernel launches over the batch, split-K's finish; that module
//! documents the choices), and runs it with the one executor
//! (`rocm_kernels::exec::execute`) on views of A, B and C.
//!
//! - Strided batched: the plan's launches cover the batch with the strides.
//! - Arrays of matrices (`gemm_batched`): one call per problem (stride 0, batch 1).
//!   Simple and always correct; many tiny problems are better served by the strided
//!   form.
//! - Complex32 and Complex64 (`gemm`, `gemm_strided_batched`, `gemm_batched`, op ∈
//!   {N, T, C}) run on NVIDIA and AMD devices through these real kernels on a
//!   real-ified 2m × n × 2k problem (`gpu::gemm_complex`, which documents the
//!   formulation and its workspace).
//! - Other unsupported element types are `Unsupported` naming the device; a generator
//!   that cannot build the kernel returns its own error, unchanged.

#![allow(clippy::too_many_arguments)]

use crate::gemm::GemmShape;
use crate::{Blas, MathMode, Real, Scalar};
use rocm_core::{DType, Error, Result};
use rocm_kernels::catalog::Catalog;
use rocm_kernels::exec::{self, DeviceView};
use rocm_kernels::gemm::{self, GemmClass, GemmOperand, GemmParams, GemmProblem};

/// One matrix operand on the device: address of element (0, 0) of the first problem,
/// and elements between problems.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Operand {
    pub address: u64,
    pub stride: usize,
}

/// α or β as the kernels take it: a value of the compute type.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum Coefficient {
    F32(f32),
    F64(f64),
}

impl Coefficient {
    /// The value (exact: an f32 widens exactly).
    fn value(self) -> f64 {
        match self {
            Coefficient::F32(v) => v as f64,
            Coefficient::F64(v) => v,
        }
    }
}

/// A real `T`'s α or β.
fn coefficient<T: Scalar>(v: T) -> Coefficient {
    let re = v.re().as_f64();
    match <T::Real as rocm_core::Element>::DTYPE {
        // Exact: the value came from an f32.
        DType::F32 => Coefficient::F32(re as f32),
        _ => Coefficient::F64(re),
    }
}

/// The problem of class `class` on this handle's device.
fn problem(
    blas: &Blas,
    class: GemmClass,
    s: &GemmShape,
    (alpha, beta): (Coefficient, Coefficient),
    (a, b, c): (Operand, Operand, Operand),
    batch: usize,
) -> GemmProblem {
    let operand = |o: Operand| GemmOperand::at(o.address, o.stride);
    GemmProblem {
        class,
        trans_a: s.transa.is_trans(),
        trans_b: s.transb.is_trans(),
        m: s.m,
        n: s.n,
        k: s.k,
        lda: s.lda,
        ldb: s.ldb,
        ldc: s.ldc,
        a: operand(a),
        b: operand(b),
        c: operand(c),
        batch,
        alpha: alpha.value(),
        beta: beta.value(),
        compute_units: blas.device().info().compute_units,
    }
}

/// Plans `problem` for this handle's device and runs the plan on A, B and C (`batch`
/// problems each, whose extents the caller checked), with the operand workspace where
/// the plan needs one.
fn run(blas: &Blas, problem: &GemmProblem, (a, b, c): (Operand, Operand, Operand)) -> Result<()> {
    let device = blas.device();
    let target = device.target();
    let plan = gemm::plan(problem, target, Catalog::for_target(target))?;
    if plan.steps.is_empty() {
        return Ok(());
    }
    let [a_bytes, b_bytes, c_bytes] = problem.view_bytes();
    // SAFETY: the callers checked that each operand's `batch` matrices of this shape,
    // leading dimension and stride lie inside a live buffer (or workspace) of this
    // device from its address on, which is what these views span; C's problems do not
    // overlap, and A and B are only read. They stay borrowed by the caller until the
    // call returns, and later work on them is ordered on the handle's stream.
    let views = unsafe {
        [
            DeviceView::from_raw(a.address, a_bytes, device, false),
            DeviceView::from_raw(b.address, b_bytes, device, false),
            DeviceView::from_raw(c.address, c_bytes, device, true),
        ]
    };
    if plan.workspace_bytes == 0 {
        return exec::execute(&plan, blas.stream(), &views, None);
    }
    // The workspace holds f64 elements.
    let len = (plan.workspace_bytes as usize).div_ceil(8);
    blas.with_operand_workspace(len, |work| {
        exec::execute(
            &plan,
            blas.stream(),
            &views,
            Some(&DeviceView::buffer(work)),
        )
    })
}

/// C = α·op(A)·op(B) + β·C for `batch` problems `stride` elements apart; m, n ≥ 1.
pub(crate) fn gemm<T: Scalar>(
    blas: &Blas,
    s: &GemmShape,
    alpha: T,
    a: Operand,
    b: Operand,
    beta: T,
    c: Operand,
    batch: usize,
) -> Result<()> {
    if s.m == 0 || s.n == 0 || batch == 0 {
        return Ok(());
    }
    if T::IS_COMPLEX {
        return crate::gpu::gemm_complex::gemm(blas, s, alpha, a, b, beta, c, batch);
    }
    let dtype = T::DTYPE;
    if !matches!(dtype, DType::F32 | DType::F64) {
        return Err(Error::unsupported(
            format!("GEMM for {dtype}"),
            blas.device(),
        ));
    }
    let class = GemmClass::Real {
        dtype,
        reduced_f32: blas.math_mode() == MathMode::ReducedPrecisionF32,
    };
    let coefficients = (coefficient(alpha), coefficient(beta));
    let p = problem(blas, class, s, coefficients, (a, b, c), batch);
    run(blas, &p, (a, b, c))
}

/// The kernel variant for f16/bf16 inputs with f32 compute and `c` output on this
/// handle's device (`rocm_kernels::gemm::select`). `None` for 16-bit output when only
/// f32-output kernels fit: the caller stages C through f32.
pub(crate) fn ex_params(
    blas: &Blas,
    s: &GemmShape,
    ab: DType,
    c: DType,
    a: Operand,
    b: Operand,
    batch: usize,
) -> Result<Option<GemmParams>> {
    let zero = Coefficient::F32(0.0);
    // Only the operands' layout and alignment matter to the choice.
    let p = problem(
        blas,
        GemmClass::Mixed { ab, c },
        s,
        (zero, zero),
        (a, b, a),
        batch,
    );
    let target = blas.device().target();
    gemm::select(&p, target, Catalog::for_target(target))
}

/// Runs variant `p` over `batch` problems (C = β·C when k = 0 or α = 0), with the
/// operand copies and split-K its plan takes.
pub(crate) fn launch(
    blas: &Blas,
    s: &GemmShape,
    p: &GemmParams,
    alpha: Coefficient,
    a: Operand,
    b: Operand,
    beta: Coefficient,
    c: Operand,
    batch: usize,
) -> Result<()> {
    let class = GemmClass::Params(p.clone());
    let problem = problem(blas, class, s, (alpha, beta), (a, b, c), batch);
    run(blas, &problem, (a, b, c))
}
