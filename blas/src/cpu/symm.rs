//! Symmetric / Hermitian matrix products on the CPU (symm/hemm).
//!
//! The referenced triangle of A is expanded into a full scratch matrix (mirrored, and for
//! hemm conjugated with the diagonal's imaginary part dropped, as BLAS reads it), then
//! one GEMM on the CPU engine does the O(m²n) work. The expansion is O(m²), so the
//! routine runs at GEMM speed for any shape worth timing.

use crate::cpu::gemm::gemm_view;
use crate::cpu::mat::{MatMut, MatRef};
use crate::{Scalar, Side, Uplo};
use rayon::prelude::*;

/// The full n×n matrix whose `uplo` triangle is stored in `a`.
pub(crate) fn expand<T: Scalar>(uplo: Uplo, a: MatRef<'_, T>, hermitian: bool) -> Vec<T> {
    let n = a.rows();
    let mut full = vec![T::zero(); n * n];
    full.par_chunks_mut(n.max(1))
        .enumerate()
        .for_each(|(j, col)| {
            for (i, v) in col.iter_mut().enumerate() {
                *v = if i == j {
                    let d = a.get(i, i);
                    if hermitian {
                        T::from_real(d.re())
                    } else {
                        d
                    }
                } else if uplo.contains(i, j) {
                    a.get(i, j)
                } else if hermitian {
                    a.get(j, i).conj()
                } else {
                    a.get(j, i)
                };
            }
        });
    full
}

/// C = α·A·B + β·C (left) or α·B·A + β·C (right), A symmetric (or Hermitian) with its
/// `uplo` triangle stored.
#[allow(clippy::too_many_arguments)]
pub(crate) fn symm<T: Scalar>(
    side: Side,
    uplo: Uplo,
    (m, n): (usize, usize),
    alpha: T,
    (a, lda): (&[T], usize),
    (b, ldb): (&[T], usize),
    beta: T,
    c: &mut [T],
    ldc: usize,
    hermitian: bool,
) {
    if m == 0 || n == 0 {
        return;
    }
    let ka = if side == Side::Left { m } else { n };
    let cv = MatMut::new(c, m, n, ldc);
    let bv = MatRef::new(b, m, n, ldb);
    if alpha == T::zero() {
        return crate::cpu::gemm::scale_view(beta, cv);
    }
    let full = expand(uplo, MatRef::new(a, ka, ka, lda), hermitian);
    let av = MatRef::new(&full, ka, ka, ka.max(1));
    match side {
        Side::Left => gemm_view(alpha, av, false, bv, false, beta, cv, true),
        Side::Right => gemm_view(alpha, bv, false, av, false, beta, cv, true),
    }
}
