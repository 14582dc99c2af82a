//! CPU GEMM through the `gemm` crate (packed, SIMD micro-kernels, rayon).
//!
//! The crate computes dst := α_g·dst + β_g·lhs·rhs on strided views, so BLAS's β is its
//! α_g and BLAS's α is its β_g; `read_dst = false` when β = 0, so C is never read then.

use crate::cpu::mat::{MatMut, MatRef};
use crate::gemm::GemmShape;
use crate::{Scalar, Transpose};
use rayon::prelude::*;

/// Problems smaller than this many multiply-adds run on one thread.
const PARALLEL_MIN_FMAS: f64 = 64.0 * 64.0 * 64.0;
/// The same threshold for a call made from inside a rayon task: the caller already
/// spreads its work over the threads (attention's query blocks, a factorisation's block
/// columns), and splitting a small product again makes every piece re-pack the shared
/// operand while the other workers are busy anyway.
const NESTED_PARALLEL_MIN_FMAS: f64 = 256.0 * 256.0 * 256.0;

/// C = β·C on a view (β = 0 writes zeros without reading C; β = 1 touches nothing).
pub(crate) fn scale_view<T: Scalar>(beta: T, mut c: MatMut<'_, T>) {
    if beta == T::one() {
        return;
    }
    for j in 0..c.cols() {
        if let Some(col) = c.col_slice_mut(j) {
            if beta == T::zero() {
                col.fill(T::zero());
            } else {
                col.iter_mut().for_each(|x| *x *= beta);
            }
        } else {
            for i in 0..c.rows() {
                let v = if beta == T::zero() {
                    T::zero()
                } else {
                    beta * c.get(i, j)
                };
                c.set(i, j, v);
            }
        }
    }
}

/// op(X) as a view: X or its transpose.
fn op<T: Copy>(t: Transpose, x: MatRef<'_, T>) -> MatRef<'_, T> {
    if t.is_trans() {
        x.t()
    } else {
        x
    }
}

/// One GEMM on host slices that the caller checked hold the matrices.
pub(crate) fn gemm<T: Scalar>(
    s: &GemmShape,
    alpha: T,
    a: &[T],
    b: &[T],
    beta: T,
    c: &mut [T],
    parallel: bool,
) {
    if s.m == 0 || s.n == 0 {
        return;
    }
    let (ar, ac) = s.transa.stored_dims(s.m, s.k);
    let (br, bc) = s.transb.stored_dims(s.k, s.n);
    gemm_view(
        alpha,
        op(s.transa, MatRef::new(a, ar, ac, s.lda)),
        s.transa.is_conj(),
        op(s.transb, MatRef::new(b, br, bc, s.ldb)),
        s.transb.is_conj(),
        beta,
        MatMut::new(c, s.m, s.n, s.ldc),
        parallel,
    );
}

/// C = α·A·B + β·C on strided views, where A (m×k) and B (k×n) are read conjugated when
/// `conj_a` / `conj_b`. β = 0 never reads C. The engine behind every CPU GEMM and every
/// block update of the CPU Level 3 routines.
#[allow(clippy::too_many_arguments)]
pub(crate) fn gemm_view<T: Scalar>(
    alpha: T,
    a: MatRef<'_, T>,
    conj_a: bool,
    b: MatRef<'_, T>,
    conj_b: bool,
    beta: T,
    mut c: MatMut<'_, T>,
    parallel: bool,
) {
    let (m, n, k) = (c.rows(), c.cols(), a.cols());
    assert!(
        a.rows() == m && b.rows() == k && b.cols() == n,
        "gemm view shapes"
    );
    if m == 0 || n == 0 {
        return;
    }
    if k == 0 || alpha == T::zero() {
        scale_view(beta, c);
        return;
    }
    let fmas = m as f64 * n as f64 * k as f64;
    let min_fmas = if rayon::current_thread_index().is_some() {
        NESTED_PARALLEL_MIN_FMAS
    } else {
        PARALLEL_MIN_FMAS
    };
    let par = if parallel && fmas >= min_fmas {
        gemm::Parallelism::Rayon(rayon::current_num_threads())
    } else {
        gemm::Parallelism::None
    };
    // SAFETY: the three views lie inside the slices they were built from (MatRef/MatMut
    // constructors and `sub` assert it); `c` is an exclusive view, so it cannot share an
    // element with `a` or `b`. T is one of f32, f64, Complex32, Complex64 (Scalar is sealed
    // to those), the types the crate dispatches on.
    unsafe {
        gemm::gemm(
            m,
            n,
            k,
            c.as_mut_ptr(),
            c.col_stride(),
            c.row_stride(),
            beta != T::zero(),
            a.as_ptr(),
            a.col_stride(),
            a.row_stride(),
            b.as_ptr(),
            b.col_stride(),
            b.row_stride(),
            beta,
            alpha,
            false,
            conj_a,
            conj_b,
            par,
        )
    }
}

/// Strided batches: parallel across problems when each is small, else one by one with
/// each problem parallel inside.
pub(crate) fn gemm_strided_batched<T: Scalar>(
    s: &GemmShape,
    alpha: T,
    (a, sa): (&[T], usize),
    (b, sb): (&[T], usize),
    beta: T,
    (c, sc): (&mut [T], usize),
    batch: usize,
) {
    let c_ext = crate::check::matrix_extent(s.m, s.n, s.ldc);
    // Output problem i owns c[i*sc .. i*sc + c_ext]; the checks guarantee sc >= c_ext when
    // batch > 1, so these windows are disjoint.
    let mut outs: Vec<&mut [T]> = Vec::with_capacity(batch);
    let mut rest = c;
    for i in 0..batch {
        let take = if i + 1 == batch { rest.len() } else { sc };
        let len = rest.len();
        let (head, tail) = std::mem::take(&mut rest).split_at_mut(take.min(len));
        let keep = c_ext.min(head.len());
        outs.push(&mut head[..keep]);
        rest = tail;
    }
    let problems: Vec<(&[T], &[T], &mut [T])> = outs
        .into_iter()
        .enumerate()
        .map(|(i, c)| (&a[i * sa..], &b[i * sb..], c))
        .collect();
    gemm_many(s, alpha, beta, problems);
}

/// Many independent problems of one shape.
pub(crate) fn gemm_many<T: Scalar>(
    s: &GemmShape,
    alpha: T,
    beta: T,
    problems: Vec<(&[T], &[T], &mut [T])>,
) {
    let small = s.flops() / 2.0 < PARALLEL_MIN_FMAS * 8.0;
    if small && problems.len() > 1 {
        problems
            .into_par_iter()
            .for_each(|(a, b, c)| gemm(s, alpha, a, b, beta, c, false));
    } else {
        for (a, b, c) in problems {
            gemm(s, alpha, a, b, beta, c, true);
        }
    }
}
