//! Complex GEMM (Complex32, Complex64) on GPUs (NVIDIA, and AMD devices emulated or
//! HIP) through the real GEMM kernels.
//!
//! Formulation (the real-ified "1M" form of the 4M method): with op(A) m×k and op(B)
//! k×n complex, the handle's device workspace receives the real matrix Ã of 2m × 2k
//! whose 2×2 block at rows 2i, 2i+1 and columns 2l, 2l+1 is `[[re w, −im w],
//! [im w, re w]]`, w = α·op(A)(i, l) (conjugated for op = C). B̂ is op(B) stored
//! column-major as a plain k×n complex matrix viewed as real: 2k × n, real and
//! imaginary parts interleaved down each column. Then the real GEMM
//! Ĉ = Ã·B̂ + β·Ĉ, Ĉ the real 2m × n view of C (leading dimension 2·ldc), computes
//! C = α·op(A)·op(B) + β·C in the 4M arithmetic (8mkn real flops, the complex count).
//!
//! - op(B) = N: B̂ is B itself (leading dimension 2·ldb, no copy). op(B) ∈ {T, C}:
//!   op(B) is first copied (transposed, conjugated for C) into the workspace as a k×n
//!   complex matrix with leading dimension k.
//! - The expansion and copies are `rocm_kernels::complex`'s kernel, one launch per
//!   operand over every problem of a chunk (grid z).
//! - β real: re β goes to the real GEMM (β = 0 never reads C). β with a nonzero
//!   imaginary part: C is first scaled by β in place by the same kernel, then the real
//!   GEMM runs with β = 1.
//! - α = 0 or k = 0: C = β·C (the real GEMM with k = 0, or only the in-place scale);
//!   m = 0 or n = 0 returns at once.
//! - Workspace per problem: 4mk reals for Ã plus 2kn for op(B)'s copy (T, C only), in
//!   the handle's workspace (not the operand workspace, which the real GEMM uses for its
//!   own staging). Strided batches go in chunks of problems whose workspace stays within
//!   [`WORKSPACE_LIMIT`] bytes (at least one problem per chunk) and within the grid's z
//!   limit; arrays of matrices (`gemm_batched`) run problem by problem, as the real path.
//! - The real GEMM is chosen exactly as for a real call of 2m × n × 2k (catalog,
//!   wgmma, split-K, and tf32 for Complex32 under `MathMode::ReducedPrecisionF32`).
//! - AMD devices (emulated or HIP): the same steps, with the preparation kernel's
//!   AMDGPU back end and the target's real GEMM. That kernel's lane offsets are 32-bit:
//!   a leading dimension above `rocm_kernels::amdgpu::complex::max_leading_dimension`
//!   reals is `Unsupported` there.

#![allow(clippy::too_many_arguments)]

use crate::gemm::GemmShape;
use crate::gpu::gemm::{self as real, Operand};
use crate::gpu::level2::{raw_view, routine_error};
use crate::{Blas, Scalar, Transpose};
use num_traits::{One, Zero};
use rocm_core::{Real, Result};
use rocm_kernels::complex::{self as kern, PrepProblem};
use rocm_kernels::exec::execute;

/// Most workspace bytes one chunk of a strided batch takes (a single problem may need
/// more; it then runs alone).
pub(crate) const WORKSPACE_LIMIT: usize = 1 << 30;

/// One launch of the preparation kernel over op(X) (rows×cols) for `batch` problems;
/// leading dimensions and strides in reals.
struct Prep {
    out: u64,
    x: u64,
    rows: usize,
    cols: usize,
    ldx: usize,
    ldo: usize,
    stride_x: usize,
    stride_o: usize,
    flags: u32,
}

fn op_flags(t: Transpose) -> u32 {
    match t {
        Transpose::N => 0,
        Transpose::T => kern::TRANS,
        Transpose::C => kern::TRANS | kern::CONJ,
    }
}

impl Prep {
    /// Queues the kernel: the kernels crate's plan run by the executor. Safety: the
    /// caller guarantees every element the launch reads (op(X)'s rows×cols of each
    /// problem) and writes (the output region) lies in live device memory it may use,
    /// output regions of different problems disjoint.
    unsafe fn run<T: Scalar>(&self, blas: &Blas, alpha: T, batch: usize) -> Result<()> {
        let problem = PrepProblem {
            dtype: T::DTYPE,
            rows: self.rows as u64,
            cols: self.cols as u64,
            batch: batch as u64,
            x_slot: 0,
            out_slot: 1,
            ldx: self.ldx as u64,
            ldo: self.ldo as u64,
            stride_x: self.stride_x as u64,
            stride_o: self.stride_o as u64,
            alpha: (alpha.re().as_f64(), alpha.im().as_f64()),
            flags: self.flags,
        };
        let plan = kern::plan(&problem, blas.device().target())
            .map_err(|e| routine_error(blas, "gemm", e))?;
        let es = std::mem::size_of::<T::Real>();
        // SAFETY: the caller's guarantee above covers X's and the output's reals the
        // plan touches (`x_reals`, `out_reals` from their first elements).
        let views = unsafe {
            [
                raw_view(blas, self.x, problem.x_reals(), es, false),
                raw_view(blas, self.out, problem.out_reals(), es, true),
            ]
        };
        execute(&plan, blas.stream(), &views, None).map_err(|e| routine_error(blas, "gemm", e))
    }
}

/// C = α·op(A)·op(B) + β·C for complex `T` and `batch` problems `stride` (complex)
/// elements apart; operands checked by the caller.
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
    let (m, n, k) = (s.m, s.n, s.k);
    let es = std::mem::size_of::<T::Real>();
    let ces = 2 * es;
    let zero_r = <T::Real as Zero>::zero();
    let one_r = <T::Real as One>::one();
    // C's real view.
    let c_real = |z0: usize| Operand {
        address: c.address + (z0 * c.stride * ces) as u64,
        stride: 2 * c.stride,
    };
    let beta_r = if beta.im() != zero_r {
        // C = β·C in place, then β = 1.
        for z0 in (0..batch).step_by(kern::MAX_GRID_YZ) {
            let cnt = (batch - z0).min(kern::MAX_GRID_YZ);
            let at = c_real(z0);
            let prep = Prep {
                out: at.address,
                x: at.address,
                rows: m,
                cols: n,
                ldx: 2 * s.ldc,
                ldo: 2 * s.ldc,
                stride_x: at.stride,
                stride_o: at.stride,
                flags: kern::SCALE,
            };
            // SAFETY: C's m×n of every problem lies in its view (checked by the caller);
            // each element is read and written by one work-item.
            unsafe { prep.run(blas, beta, cnt)? };
        }
        one_r
    } else {
        beta.re()
    };
    if k == 0 || alpha == T::zero() {
        if beta_r == one_r {
            return Ok(());
        }
        // C = β·C: the real GEMM with k = 0 reads neither A nor B.
        let shape = GemmShape {
            transa: Transpose::N,
            transb: Transpose::N,
            m: 2 * m,
            n,
            k: 0,
            lda: 2 * m,
            ldb: 1,
            ldc: 2 * s.ldc,
        };
        let c0 = c_real(0);
        return real::gemm::<T::Real>(blas, &shape, zero_r, c0, c0, beta_r, c0, batch);
    }
    let copy_b = s.transb != Transpose::N;
    let len_a = 4 * m * k;
    let len_b = if copy_b { 2 * k * n } else { 0 };
    let per = (len_a + len_b) * es;
    let chunk = (WORKSPACE_LIMIT / per.max(1)).clamp(1, kern::MAX_GRID_YZ);
    let shape = GemmShape {
        transa: Transpose::N,
        transb: Transpose::N,
        m: 2 * m,
        n,
        k: 2 * k,
        lda: 2 * m,
        ldb: if copy_b { 2 * k } else { 2 * s.ldb },
        ldc: 2 * s.ldc,
    };
    for z0 in (0..batch).step_by(chunk) {
        let cnt = (batch - z0).min(chunk);
        let words = (cnt * per).div_ceil(8);
        blas.with_workspace(words, |work| {
            let base = work.as_slice_mut().address();
            let expand = Prep {
                out: base,
                x: a.address + (z0 * a.stride * ces) as u64,
                rows: m,
                cols: k,
                ldx: 2 * s.lda,
                ldo: 2 * m,
                stride_x: 2 * a.stride,
                stride_o: len_a,
                flags: kern::EXPAND | kern::SCALE | op_flags(s.transa),
            };
            // SAFETY: op(A)'s m×k of each problem lies in A's view (checked by the
            // caller); Ã of problem z is the workspace's reals z·4mk .. (z+1)·4mk,
            // inside its `words` f64s.
            unsafe { expand.run(blas, alpha, cnt)? };
            let b_hat = if copy_b {
                let to = base + (cnt * len_a * es) as u64;
                let copy = Prep {
                    out: to,
                    x: b.address + (z0 * b.stride * ces) as u64,
                    rows: k,
                    cols: n,
                    ldx: 2 * s.ldb,
                    ldo: 2 * k,
                    stride_x: 2 * b.stride,
                    stride_o: len_b,
                    flags: op_flags(s.transb),
                };
                // SAFETY: op(B)'s k×n of each problem lies in B's view; the copies
                // follow the cnt expansions inside the workspace.
                unsafe { copy.run(blas, T::one(), cnt)? };
                Operand {
                    address: to,
                    stride: len_b,
                }
            } else {
                Operand {
                    address: b.address + (z0 * b.stride * ces) as u64,
                    stride: 2 * b.stride,
                }
            };
            let a_hat = Operand {
                address: base,
                stride: len_a,
            };
            real::gemm::<T::Real>(blas, &shape, one_r, a_hat, b_hat, beta_r, c_real(z0), cnt)
        })?;
    }
    Ok(())
}
