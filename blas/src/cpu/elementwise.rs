//! Element-wise matrix operations on the CPU (geam, dgmm): one pass over C, columns split
//! across rayon threads.

use crate::check::vector_index as at;
use crate::cpu::mat::MatRef;
use crate::{Scalar, Side, Transpose};
use rayon::prelude::*;

/// Matrix elements below which the pass runs on one thread.
const PARALLEL_MIN: usize = 1 << 15;

/// Runs `f(j, column j of C)` over the columns of an m×n C with leading dimension ldc.
fn for_columns<T: Scalar>(
    (m, n): (usize, usize),
    c: &mut [T],
    ldc: usize,
    f: impl Fn(usize, &mut [T]) + Sync + Send,
) {
    let extent = crate::check::matrix_extent(m, n, ldc);
    let c = &mut c[..extent];
    let g = |(j, col): (usize, &mut [T])| f(j, &mut col[..m]);
    if m * n >= PARALLEL_MIN {
        c.par_chunks_mut(ldc).enumerate().for_each(g);
    } else {
        c.chunks_mut(ldc).enumerate().for_each(g);
    }
}

/// op(X) as an m×n view with its conjugation.
fn op_view<T: Scalar>(t: Transpose, x: &[T], (m, n): (usize, usize), ld: usize) -> MatRef<'_, T> {
    let (r, c) = t.stored_dims(m, n);
    let v = MatRef::new(x, r, c, ld);
    if t.is_trans() {
        v.t()
    } else {
        v
    }
}

/// C = α·op(A) + β·op(B); a zero coefficient does not read its matrix.
#[allow(clippy::too_many_arguments)]
pub(crate) fn geam<T: Scalar>(
    (ta, tb): (Transpose, Transpose),
    (m, n): (usize, usize),
    alpha: T,
    (a, lda): (&[T], usize),
    beta: T,
    (b, ldb): (&[T], usize),
    (c, ldc): (&mut [T], usize),
) {
    let av = (alpha != T::zero()).then(|| op_view(ta, a, (m, n), lda));
    let bv = (beta != T::zero()).then(|| op_view(tb, b, (m, n), ldb));
    let term = |coef: T, v: &Option<MatRef<'_, T>>, conj: bool, i: usize, j: usize| match v {
        Some(v) => {
            let x = v.get(i, j);
            coef * if conj { x.conj() } else { x }
        }
        None => T::zero(),
    };
    for_columns((m, n), c, ldc, |j, col| {
        for (i, cij) in col.iter_mut().enumerate() {
            *cij = term(alpha, &av, ta.is_conj(), i, j) + term(beta, &bv, tb.is_conj(), i, j);
        }
    });
}

/// C = A·diag(x) (Right) or diag(x)·A (Left), A and C m×n.
#[allow(clippy::too_many_arguments)]
pub(crate) fn dgmm<T: Scalar>(
    side: Side,
    (m, n): (usize, usize),
    (a, lda): (&[T], usize),
    (x, incx): (&[T], isize),
    (c, ldc): (&mut [T], usize),
) {
    let av = MatRef::new(a, m, n, lda);
    let k = if side == Side::Left { m } else { n };
    for_columns((m, n), c, ldc, |j, col| {
        for (i, cij) in col.iter_mut().enumerate() {
            let d = x[at(if side == Side::Left { i } else { j }, k, incx)];
            *cij = av.get(i, j) * d;
        }
    });
}
