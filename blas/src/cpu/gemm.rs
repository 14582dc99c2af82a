//! CPU GEMM through the `gemm` crate (packed, SIMD micro-kernels, rayon).
//!
//! The crate computes dst := α_g·dst + β_g·lhs·rhs on strided views, so BLAS's β is its
//! α_g and BLAS's α is its β_g; `read_dst = false` when β = 0, so C is never read then.

use crate::gemm::GemmShape;
use crate::{Scalar, Transpose};
use rayon::prelude::*;

/// Problems smaller than this many multiply-adds run on one thread.
const PARALLEL_MIN_FMAS: f64 = 64.0 * 64.0 * 64.0;

/// Row and column strides of op(X) for a stored column-major X with leading dim `ld`.
fn op_strides(t: Transpose, ld: usize) -> (isize, isize) {
    if t.is_trans() {
        (ld as isize, 1)
    } else {
        (1, ld as isize)
    }
}

/// C = β·C (β = 0 writes zeros without reading C).
pub(crate) fn scale_matrix<T: Scalar>(m: usize, n: usize, beta: T, c: &mut [T], ldc: usize) {
    for j in 0..n {
        let col = &mut c[j * ldc..j * ldc + m];
        if beta == T::zero() {
            col.fill(T::zero());
        } else if beta != T::one() {
            col.iter_mut().for_each(|x| *x *= beta);
        }
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
    let (m, n, k) = (s.m, s.n, s.k);
    if m == 0 || n == 0 {
        return;
    }
    if k == 0 || alpha == T::zero() {
        scale_matrix(m, n, beta, c, s.ldc);
        return;
    }
    let (a_rs, a_cs) = op_strides(s.transa, s.lda);
    let (b_rs, b_cs) = op_strides(s.transb, s.ldb);
    let par = if parallel && s.flops() / 2.0 >= PARALLEL_MIN_FMAS {
        gemm::Parallelism::Rayon(rayon::current_num_threads())
    } else {
        gemm::Parallelism::None
    };
    // SAFETY: the front end checked that `a`, `b` and `c` hold the extents of op(A) (m×k),
    // op(B) (k×n) and C (m×n) under these strides; `c` is borrowed mutably and cannot
    // alias `a` or `b`. T is one of f32, f64, Complex32, Complex64 (Scalar is sealed to
    // those), the types the crate dispatches on.
    unsafe {
        gemm::gemm(
            m,
            n,
            k,
            c.as_mut_ptr(),
            s.ldc as isize,
            1,
            beta != T::zero(),
            a.as_ptr(),
            a_cs,
            a_rs,
            b.as_ptr(),
            b_cs,
            b_rs,
            beta,
            alpha,
            false,
            s.transa.is_conj(),
            s.transb.is_conj(),
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
