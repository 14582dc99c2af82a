//! CPU GEMM through faer's matmul (packed, SIMD micro-kernels chosen at run time up to
//! AVX-512, rayon), on strided views.
//!
//! faer computes dst := α·lhs·rhs (`Accum::Replace`, dst never read) or dst += α·lhs·rhs
//! (`Accum::Add`), so BLAS's β = 0 never reads C and other β scale C first. It measured
//! ahead of the `gemm` crate (0.19, AVX2 only without its nightly feature) on the 2-vCPU
//! AVX-512 VM: 2048² f64 107 against 92 GFLOP/s.

use crate::cpu::mat::{MatMut, MatRef};
use crate::gemm::GemmShape;
use crate::{Scalar, Transpose};
use rayon::prelude::*;
use rocm_core::DType;

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
        faer::Par::rayon(rayon::current_num_threads())
    } else {
        faer::Par::Seq
    };
    // faer computes dst := α·lhs·rhs (Replace, C never read) or dst += α·lhs·rhs (Add):
    // BLAS's β = 0 is Replace, β = 1 Add, any other β scales C first.
    let accum = if beta == T::zero() {
        faer::Accum::Replace
    } else {
        scale_view(beta, c.rb_mut());
        faer::Accum::Add
    };
    let views = Views {
        m,
        n,
        k,
        a: (a.as_ptr(), a.row_stride(), a.col_stride()),
        b: (b.as_ptr(), b.row_stride(), b.col_stride()),
        c: (c.as_mut_ptr(), c.row_stride(), c.col_stride()),
        conj_a,
        conj_b,
        accum,
        par,
    };
    // SAFETY: `views` holds the three views as built above: each lies inside the slice it
    // came from, and `c` is exclusive. Each arm names the type T is (Scalar is sealed to
    // these four), so the pointer and value casts are identities.
    unsafe {
        match T::DTYPE {
            DType::F32 => views.run::<f32>(bytemuck::cast(alpha)),
            DType::F64 => views.run::<f64>(bytemuck::cast(alpha)),
            DType::C32 => views.run::<faer::c32>(bytemuck::cast(alpha)),
            _ => views.run::<faer::c64>(bytemuck::cast(alpha)),
        }
    }
}

/// One product's raw strided views (pointer, row stride, column stride), for faer.
struct Views<T> {
    m: usize,
    n: usize,
    k: usize,
    a: (*const T, isize, isize),
    b: (*const T, isize, isize),
    c: (*mut T, isize, isize),
    conj_a: bool,
    conj_b: bool,
    accum: faer::Accum,
    par: faer::Par,
}

impl<T> Views<T> {
    /// C (+)= α·op(A)·op(B) in faer's type `F`.
    ///
    /// # Safety
    /// `F` is `T`; the views are valid for their shapes and strides and `c` aliases
    /// neither `a` nor `b`.
    unsafe fn run<F: faer::traits::ComplexField>(&self, alpha: F) {
        let conj = |c: bool| if c { faer::Conj::Yes } else { faer::Conj::No };
        let (m, n, k) = (self.m, self.n, self.k);
        // SAFETY: the caller's contract.
        let (fa, fb, fc) = unsafe {
            (
                faer::MatRef::from_raw_parts(self.a.0 as *const F, m, k, self.a.1, self.a.2),
                faer::MatRef::from_raw_parts(self.b.0 as *const F, k, n, self.b.1, self.b.2),
                faer::MatMut::from_raw_parts_mut(self.c.0 as *mut F, m, n, self.c.1, self.c.2),
            )
        };
        faer::linalg::matmul::matmul_with_conj(
            fc,
            self.accum,
            fa,
            conj(self.conj_a),
            fb,
            conj(self.conj_b),
            alpha,
            self.par,
        );
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
