//! CPU Level 2 on host slices.
//!
//! Strided (or negatively strided) vectors are gathered into contiguous scratch first —
//! O(n) next to the O(mn) matrix pass — so the kernels below see unit-stride vectors and
//! walk A column by column, the order it is stored in. gemv splits the rows (op = N) or
//! the columns (op = T, C) across rayon threads; ger splits the columns. Triangular
//! products and solves go through the blocked trmm/trsm core with one right-hand side.

use crate::check::vector_index as at;
use crate::cpu::mat::{MatMut, MatRef};
use crate::cpu::tri::{self, Tri};
use crate::{Diag, Scalar, Side, Transpose, Uplo};
use rayon::prelude::*;

/// Rows per parallel task of the op = N gemv (a multiple of every SIMD width).
const ROWS: usize = 512;
/// Matrix elements below which Level 2 runs on one thread.
const PARALLEL_MIN: usize = 1 << 15;

/// The n logical elements of a strided vector, in order.
pub(crate) fn gather<T: Scalar>(n: usize, x: &[T], inc: isize) -> Vec<T> {
    if inc == 1 {
        return x[..n].to_vec();
    }
    (0..n).map(|i| x[at(i, n, inc)]).collect()
}

/// Writes `v` back into a strided vector.
pub(crate) fn scatter<T: Scalar>(v: &[T], x: &mut [T], inc: isize) {
    let n = v.len();
    if inc == 1 {
        x[..n].copy_from_slice(v);
    } else {
        v.iter()
            .enumerate()
            .for_each(|(i, &e)| x[at(i, n, inc)] = e);
    }
}

/// y ← α·t + β·y over a strided y (β = 0 never reads y).
pub(crate) fn axpby_into<T: Scalar>(alpha: T, t: &[T], beta: T, y: &mut [T], incy: isize) {
    let n = t.len();
    for (i, &ti) in t.iter().enumerate() {
        let yi = &mut y[at(i, n, incy)];
        *yi = if beta == T::zero() {
            alpha * ti
        } else {
            alpha * ti + beta * *yi
        };
    }
}

/// Σ op(a)ᵢ·xᵢ with four independent partial sums (so the loop pipelines).
#[inline]
fn dot<T: Scalar>(a: &[T], x: &[T], conj: bool) -> T {
    let mut s = [T::zero(); 4];
    let (ac, ar) = a.split_at(a.len() / 4 * 4);
    let (xc, xr) = x.split_at(ac.len());
    let op = |v: T| if conj { v.conj() } else { v };
    for (a4, x4) in ac.chunks_exact(4).zip(xc.chunks_exact(4)) {
        for l in 0..4 {
            s[l] += op(a4[l]) * x4[l];
        }
    }
    for (&av, &xv) in ar.iter().zip(xr) {
        s[0] += op(av) * xv;
    }
    (s[0] + s[1]) + (s[2] + s[3])
}

/// t = op(A)·x for a stored m×n A and contiguous x.
fn matvec<T: Scalar>(
    trans: Transpose,
    (m, n): (usize, usize),
    a: &[T],
    lda: usize,
    x: &[T],
) -> Vec<T> {
    let par = m * n >= PARALLEL_MIN;
    match trans {
        Transpose::N => {
            let mut t = vec![T::zero(); m];
            let rows = |(c, tc): (usize, &mut [T])| {
                let r0 = c * ROWS;
                for (j, &xj) in x.iter().enumerate() {
                    let col = &a[r0 + j * lda..r0 + j * lda + tc.len()];
                    tc.iter_mut()
                        .zip(col)
                        .for_each(|(ti, &aij)| *ti += aij * xj);
                }
            };
            if par {
                t.par_chunks_mut(ROWS).enumerate().for_each(rows);
            } else {
                t.chunks_mut(ROWS).enumerate().for_each(rows);
            }
            t
        }
        _ => {
            let conj = trans.is_conj();
            let col = |j: usize| dot(&a[j * lda..j * lda + m], x, conj);
            if par {
                (0..n).into_par_iter().map(col).collect()
            } else {
                (0..n).map(col).collect()
            }
        }
    }
}

/// gemv: y = α·op(A)·x + β·y.
#[allow(clippy::too_many_arguments)]
pub(crate) fn gemv<T: Scalar>(
    trans: Transpose,
    (m, n): (usize, usize),
    alpha: T,
    (a, lda): (&[T], usize),
    (x, incx): (&[T], isize),
    beta: T,
    (y, incy): (&mut [T], isize),
) {
    let (lenx, leny) = if trans.is_trans() { (m, n) } else { (n, m) };
    if m == 0 || n == 0 || (alpha == T::zero() && beta == T::one()) {
        return;
    }
    if alpha == T::zero() {
        let zeros = vec![T::zero(); leny];
        return axpby_into(T::zero(), &zeros, beta, y, incy);
    }
    let xg = gather(lenx, x, incx);
    let t = matvec(trans, (m, n), a, lda, &xg);
    axpby_into(alpha, &t, beta, y, incy);
}

/// ger/geru (`conj = false`: A += α·x·yᵀ) and gerc (A += α·x·yᴴ).
#[allow(clippy::too_many_arguments)]
pub(crate) fn ger<T: Scalar>(
    (m, n): (usize, usize),
    alpha: T,
    (x, incx): (&[T], isize),
    (y, incy): (&[T], isize),
    (a, lda): (&mut [T], usize),
    conj: bool,
) {
    if m == 0 || n == 0 || alpha == T::zero() {
        return;
    }
    let xg = gather(m, x, incx);
    let yg = gather(n, y, incy);
    let extent = crate::check::matrix_extent(m, n, lda);
    let col = |(j, c): (usize, &mut [T])| {
        let s = alpha * if conj { yg[j].conj() } else { yg[j] };
        c[..m].iter_mut().zip(&xg).for_each(|(v, &xi)| *v += xi * s);
    };
    let a = &mut a[..extent];
    if m * n >= PARALLEL_MIN {
        a.par_chunks_mut(lda).enumerate().for_each(col);
    } else {
        a.chunks_mut(lda).enumerate().for_each(col);
    }
}

/// trmv (`solve = false`: x = op(A)·x) and trsv (x = op(A)⁻¹·x).
#[allow(clippy::too_many_arguments)]
pub(crate) fn trxv<T: Scalar>(
    uplo: Uplo,
    trans: Transpose,
    diag: Diag,
    n: usize,
    (a, lda): (&[T], usize),
    (x, incx): (&mut [T], isize),
    solve: bool,
) {
    if n == 0 {
        return;
    }
    let mut v = gather(n, x, incx);
    let t = Tri::new(MatRef::new(a, n, n, lda), Side::Left, uplo, trans, diag);
    let b = MatMut::col_vec(&mut v, n);
    if solve {
        tri::solve(t, b);
    } else {
        tri::multiply(t, b);
    }
    scatter(&v, x, incx);
}
