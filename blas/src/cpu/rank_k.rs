//! Symmetric and Hermitian rank-k updates on the CPU (syrk/herk, syr2k/her2k), touching
//! only the referenced triangle of C.
//!
//! C (n×n) is split recursively: for the lower triangle, C₁₁ and C₂₂ recurse and C₂₁ —
//! a full rectangle — is one GEMM on the CPU engine. Diagonal blocks of at most `DIAG`
//! rows are computed whole into a scratch block by GEMM and only their triangle merged
//! into C (the other half is computed and dropped: a `DIAG/n` share of extra flops).

use crate::cpu::gemm::gemm_view;
use crate::cpu::mat::{MatMut, MatRef};
use crate::{Scalar, Transpose, Uplo};

/// Diagonal blocks of at most this order are computed whole into scratch.
const DIAG: usize = 64;

/// The product whose triangle is wanted: C = α·P₁·Q₁ (+ α₂·P₂·Q₂ for rank-2k) + β·C,
/// with P n×k and Q k×n views read conjugated when flagged.
#[derive(Clone, Copy)]
pub(crate) struct RankK<'a, T> {
    pub terms: [Option<Term<'a, T>>; 2],
    pub beta: T,
    /// Hermitian: the diagonal of C is kept real (its imaginary part set to zero).
    pub hermitian: bool,
}

#[derive(Clone, Copy)]
pub(crate) struct Term<'a, T> {
    pub alpha: T,
    pub p: MatRef<'a, T>,
    pub conj_p: bool,
    pub q: MatRef<'a, T>,
    pub conj_q: bool,
}

impl<T: Scalar> RankK<'_, T> {
    /// C[r0.., c0..] (the block `c`) = Σ α·P[r0..]·Q[.., c0..] + β·C.
    fn block(&self, r0: usize, c0: usize, beta: T, mut c: MatMut<'_, T>) {
        let (rows, cols) = (c.rows(), c.cols());
        let mut beta = beta;
        for t in self.terms.iter().flatten() {
            let k = t.p.cols();
            gemm_view(
                t.alpha,
                t.p.sub(r0, 0, rows, k),
                t.conj_p,
                t.q.sub(0, c0, k, cols),
                t.conj_q,
                beta,
                c.rb_mut(),
                true,
            );
            beta = T::one();
        }
    }

    /// β·c for the stored value `c` (β = 0 never reads it); real on a Hermitian diagonal.
    fn scaled(&self, c: T, diagonal: bool) -> T {
        if self.beta == T::zero() {
            T::zero()
        } else if diagonal && self.hermitian {
            T::from_real(c.re()) * self.beta
        } else {
            self.beta * c
        }
    }
}

/// The triangle `uplo` of C ← the update described by `r`.
pub(crate) fn update<T: Scalar>(uplo: Uplo, r: &RankK<'_, T>, c: MatMut<'_, T>) {
    rec(uplo, r, 0, c);
}

fn rec<T: Scalar>(uplo: Uplo, r: &RankK<'_, T>, off: usize, c: MatMut<'_, T>) {
    let n = c.rows();
    if n <= DIAG {
        return diagonal(uplo, r, off, c);
    }
    let k = (n / 2).div_ceil(DIAG) * DIAG;
    let (left, right) = c.split_cols(k);
    let (c11, c21) = left.split_rows(k);
    let (c12, c22) = right.split_rows(k);
    rec(uplo, r, off, c11);
    match uplo {
        Uplo::Lower => r.block(off + k, off, r.beta, c21),
        Uplo::Upper => r.block(off, off + k, r.beta, c12),
    }
    rec(uplo, r, off + k, c22);
}

fn diagonal<T: Scalar>(uplo: Uplo, r: &RankK<'_, T>, off: usize, mut c: MatMut<'_, T>) {
    let n = c.rows();
    let mut scratch = vec![T::zero(); n * n];
    r.block(
        off,
        off,
        T::zero(),
        MatMut::new(&mut scratch, n, n, n.max(1)),
    );
    for j in 0..n {
        let rows = match uplo {
            Uplo::Lower => j..n,
            Uplo::Upper => 0..j + 1,
        };
        for i in rows {
            let mut v = scratch[i + j * n] + r.scaled(c.get(i, j), i == j);
            if i == j && r.hermitian {
                v = T::from_real(v.re());
            }
            c.set(i, j, v);
        }
    }
}

/// The triangle `uplo` of C ← β·C (β = 0 writes zeros; a Hermitian diagonal made real).
pub(crate) fn scale_triangle<T: Scalar>(
    uplo: Uplo,
    beta: T,
    hermitian: bool,
    mut c: MatMut<'_, T>,
) {
    let n = c.rows();
    for j in 0..n {
        let rows = match uplo {
            Uplo::Lower => j..n,
            Uplo::Upper => 0..j + 1,
        };
        for i in rows {
            let v = if beta == T::zero() {
                T::zero()
            } else if i == j && hermitian {
                T::from_real(c.get(i, j).re()) * beta
            } else {
                beta * c.get(i, j)
            };
            c.set(i, j, v);
        }
    }
}

/// op(A) as an n×k view plus its conjugation, for `trans` on a stored A.
pub(crate) fn op_view<T: Scalar>(
    trans: Transpose,
    a: &[T],
    (n, k): (usize, usize),
    lda: usize,
) -> (MatRef<'_, T>, bool) {
    let (r, c) = trans.stored_dims(n, k);
    let v = MatRef::new(a, r, c, lda);
    (if trans.is_trans() { v.t() } else { v }, trans.is_conj())
}

/// syrk (`hermitian = false`: C = α·op(A)·op(A)ᵀ + β·C) or herk (C = α·op(A)·op(A)ᴴ + β·C)
/// on host slices.
#[allow(clippy::too_many_arguments)]
pub(crate) fn syrk<T: Scalar>(
    uplo: Uplo,
    trans: Transpose,
    (n, k): (usize, usize),
    alpha: T,
    a: &[T],
    lda: usize,
    beta: T,
    c: &mut [T],
    ldc: usize,
    hermitian: bool,
) {
    let cv = MatMut::new(c, n, n, ldc);
    if k == 0 || alpha == T::zero() {
        return scale_triangle(uplo, beta, hermitian, cv);
    }
    let (p, conj_p) = op_view(trans, a, (n, k), lda);
    let term = Term {
        alpha,
        p,
        conj_p,
        q: p.t(),
        conj_q: conj_p != hermitian,
    };
    let r = RankK {
        terms: [Some(term), None],
        beta,
        hermitian,
    };
    update(uplo, &r, cv);
}

/// syr2k (C = α·op(A)·op(B)ᵀ + α·op(B)·op(A)ᵀ + β·C) or her2k (C = α·op(A)·op(B)ᴴ +
/// ᾱ·op(B)·op(A)ᴴ + β·C) on host slices.
#[allow(clippy::too_many_arguments)]
pub(crate) fn syr2k<T: Scalar>(
    uplo: Uplo,
    trans: Transpose,
    (n, k): (usize, usize),
    alpha: T,
    (a, lda): (&[T], usize),
    (b, ldb): (&[T], usize),
    beta: T,
    c: &mut [T],
    ldc: usize,
    hermitian: bool,
) {
    let cv = MatMut::new(c, n, n, ldc);
    if k == 0 || alpha == T::zero() {
        return scale_triangle(uplo, beta, hermitian, cv);
    }
    let (pa, ca) = op_view(trans, a, (n, k), lda);
    let (pb, cb) = op_view(trans, b, (n, k), ldb);
    let first = Term {
        alpha,
        p: pa,
        conj_p: ca,
        q: pb.t(),
        conj_q: cb != hermitian,
    };
    let second = Term {
        alpha: if hermitian { alpha.conj() } else { alpha },
        p: pb,
        conj_p: cb,
        q: pa.t(),
        conj_q: ca != hermitian,
    };
    let r = RankK {
        terms: [Some(first), Some(second)],
        beta,
        hermitian,
    };
    update(uplo, &r, cv);
}
