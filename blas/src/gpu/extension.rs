//! geam and dgmm on GPUs: one launch of `rocm_kernels::extension`'s kernels over every
//! problem of a strided batch (a single call is a batch of one), planned by
//! `rocm_kernels::extension::plan` (flags, the kernels' 32-bit limits, the bytes each
//! batch touches) and run by the executor. NVIDIA: f32 and f64 (complex types answer
//! `Unsupported` from the generator, named for the routine and the device); AMD
//! devices: f32, f64, Complex32 and Complex64. [`offsets_fit`] and [`push_scalar`]
//! serve the Level 3 triangle kernels, which still launch directly.

#![allow(clippy::too_many_arguments)]

use crate::extension::{DgmmShape, GeamShape};
use crate::gpu::level1::ScalarArg;
use crate::gpu::level2::{raw_view, routine_error};
use crate::{Blas, Scalar, Side, Transpose};
use rocm_core::target::Family;
use rocm_core::{Error, Result};
use rocm_kernels::exec::{execute, DeviceView};
use rocm_kernels::extension::plan::{self as kern, DgmmProblem, GeamProblem, Matrices, Op};

/// A device operand of a strided batch: address of problem 0 and the element stride.
pub(crate) type Strided = (u64, usize);

/// The AMDGPU kernels address inside a problem with 32-bit byte offsets: `cols` columns
/// at leading dimension `ld` must span less than 4 GiB there; a larger (valid) matrix is
/// `Unsupported` on that device, naming the argument.
pub(crate) fn offsets_fit<T: Scalar>(
    blas: &Blas,
    what: &str,
    ld: usize,
    cols: usize,
) -> Result<()> {
    if blas.device().target().family() == Family::Nvidia {
        return Ok(());
    }
    let bytes = (ld as u128 + 1) * cols as u128 * std::mem::size_of::<T>() as u128;
    if bytes >= 1 << 32 {
        return Err(Error::unsupported(
            format!(
                "{what} = {ld} with {cols} columns: a matrix spanning 2^32 bytes or more \
                 (the AMDGPU kernels' 32-bit offsets)"
            ),
            blas.device(),
        ));
    }
    Ok(())
}

/// The reals of a scalar (complex: re, im), in its precision.
fn reals<T: Scalar>(v: T) -> Vec<ScalarArg> {
    let mut out = Vec::new();
    crate::level1::element_args(v, &mut out);
    out
}

/// A strided batch of `rows × cols` matrices at `ld` from `address` as the kernels
/// crate describes it, and a view of the elements it spans.
///
/// # Safety
/// The caller checked every problem's matrix against a view of the handle's device
/// that outlives the queued work.
unsafe fn matrices<'b>(
    blas: &'b Blas,
    slot: usize,
    (address, stride): Strided,
    (rows, cols, ld): (usize, usize, usize),
    batch: usize,
    es: usize,
    writable: bool,
) -> (Matrices, DeviceView<'b>) {
    let m = Matrices {
        slot,
        rows: rows as u64,
        cols: cols as u64,
        ld: ld as u64,
        stride: stride as u64,
    };
    let elements = if rows == 0 || cols == 0 || batch == 0 {
        0
    } else {
        ((batch - 1) * stride + (cols - 1) * ld + rows) as u64
    };
    // SAFETY: forwarded from this function's contract.
    let view = unsafe { raw_view(blas, address, elements, es, writable) };
    (m, view)
}

fn op(t: Transpose) -> Op {
    match t {
        Transpose::N => Op::N,
        Transpose::T => Op::T,
        Transpose::C => Op::C,
    }
}

/// C = α·op(A) + β·op(B) for every problem of the batch (m, n ≥ 1; views checked by
/// the caller): the kernels crate's plan run by the executor.
pub(crate) fn geam<T: Scalar>(
    blas: &Blas,
    s: &GeamShape,
    alpha: T,
    a: Strided,
    beta: T,
    b: Strided,
    c: Strided,
    batch: usize,
) -> Result<()> {
    let es = std::mem::size_of::<T>();
    let stored = |t: Transpose| {
        if t == Transpose::N {
            (s.m, s.n)
        } else {
            (s.n, s.m)
        }
    };
    let ((ar, ac), (br, bc)) = (stored(s.transa), stored(s.transb));
    // SAFETY: the caller checked each problem's A, B (as stored) and C (m×n) against
    // their views and batch strides; they outlive the queued launch.
    let ((am, av), (bm, bv), (cm, cv)) = unsafe {
        (
            matrices(blas, 1, a, (ar, ac, s.lda), batch, es, false),
            matrices(blas, 2, b, (br, bc, s.ldb), batch, es, false),
            matrices(blas, 0, c, (s.m, s.n, s.ldc), batch, es, true),
        )
    };
    let (alpha, beta) = (reals(alpha), reals(beta));
    let problem = GeamProblem {
        dtype: T::DTYPE,
        m: s.m as u64,
        n: s.n as u64,
        op_a: op(s.transa),
        op_b: op(s.transb),
        a: am,
        b: bm,
        c: cm,
        batch: batch as u64,
        alpha: &alpha,
        beta: &beta,
    };
    let plan = kern::plan_geam(&problem, blas.device().target())
        .map_err(|e| routine_error(blas, "geam", e))?;
    execute(&plan, blas.stream(), &[cv, av, bv], None)
}

/// C = A·diag(x) or diag(x)·A for every problem of the batch (m, n ≥ 1; views checked
/// by the caller): the kernels crate's plan run by the executor.
pub(crate) fn dgmm<T: Scalar>(
    blas: &Blas,
    s: &DgmmShape,
    a: Strided,
    (x, stride_x): Strided,
    c: Strided,
    batch: usize,
) -> Result<()> {
    let es = std::mem::size_of::<T>();
    let x_len = s.x_len();
    let span = if x_len == 0 {
        0
    } else {
        (x_len - 1) * s.incx.unsigned_abs() + 1
    };
    let x_elements = if span == 0 || batch == 0 {
        0
    } else {
        ((batch - 1) * stride_x + span) as u64
    };
    // SAFETY: the caller checked each problem's A and C (m×n) and x (x_len elements at
    // incx from its lowest element) against their views and batch strides; they outlive
    // the queued launch.
    let ((am, av), (cm, cv), xv) = unsafe {
        (
            matrices(blas, 1, a, (s.m, s.n, s.lda), batch, es, false),
            matrices(blas, 0, c, (s.m, s.n, s.ldc), batch, es, true),
            raw_view(blas, x, x_elements, es, false),
        )
    };
    let problem = DgmmProblem {
        dtype: T::DTYPE,
        m: s.m as u64,
        n: s.n as u64,
        left: s.side == Side::Left,
        a: am,
        c: cm,
        x_slot: 2,
        x_len: x_len as u64,
        incx: s.incx as i64,
        stride_x: stride_x as u64,
        batch: batch as u64,
    };
    let plan = kern::plan_dgmm(&problem, blas.device().target())
        .map_err(|e| routine_error(blas, "dgmm", e))?;
    execute(&plan, blas.stream(), &[cv, av, xv], None)
}
