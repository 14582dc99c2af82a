//! CPU Level 2 on structured storage: band (gbmv, sbmv/hbmv, tbmv/tbsv), packed
//! (spmv/hpmv, spr/hpr, spr2/hpr2, tpmv/tpsv) and the dense symmetric / Hermitian forms
//! (symv/hemv, syr/her, syr2/her2), all through one description of where column j's
//! stored entries live.
//!
//! In every BLAS storage scheme the stored part of column j is one contiguous run of the
//! array: rows `r0..=r1` of the dense matrix, at `offset(j)`. [`Stored`] computes that run
//! for dense (lda), band (lda ≥ kl + ku + 1, A(i, j) at `ku + i − j + j·lda`) and packed
//! storage (upper: A(i, j) at `i + j(j+1)/2`; lower: at `i − j + j·n − j(j−1)/2`), and
//! the kernels below only walk those runs.

use crate::cpu::level2::{axpby_into, gather, scatter};
use crate::{Diag, Scalar, Transpose, Uplo};
use rayon::prelude::*;
use std::ops::Range;

/// Columns per parallel task of the symmetric / band products (fixed, so results do not
/// depend on the thread count).
const COLS: usize = 256;
/// Stored elements below which the products run on one thread.
const PARALLEL_MIN: usize = 1 << 15;

/// How the array is laid out.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Layout {
    /// Column-major with leading dimension `lda`.
    Dense(usize),
    /// BLAS band storage with leading dimension `lda`.
    Band(usize),
    /// Packed triangle (kl = 0: upper, ku = 0: lower).
    Packed,
}

/// Which entries of an m×n matrix are stored (rows j − ku ..= j + kl of column j) and where.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Stored {
    pub m: usize,
    pub n: usize,
    pub kl: usize,
    pub ku: usize,
    pub layout: Layout,
}

impl Stored {
    /// The `uplo` triangle of an n×n matrix, with bandwidth `k` (n − 1 for a full
    /// triangle).
    pub fn triangle(uplo: Uplo, n: usize, k: usize, layout: Layout) -> Self {
        let (kl, ku) = match uplo {
            Uplo::Upper => (0, k),
            Uplo::Lower => (k, 0),
        };
        Stored {
            m: n,
            n,
            kl,
            ku,
            layout,
        }
    }

    /// Stored rows of column j.
    #[inline]
    pub fn rows(&self, j: usize) -> Range<usize> {
        let r0 = j.saturating_sub(self.ku).min(self.m);
        let r1 = (j + self.kl + 1).min(self.m);
        r0..r1.max(r0)
    }

    /// Array index of (rows(j).start, j).
    #[inline]
    pub fn offset(&self, j: usize) -> usize {
        let rows = self.rows(j);
        if rows.is_empty() {
            // Column j holds no stored row of this matrix (band below the last row).
            return 0;
        }
        let r0 = rows.start;
        match self.layout {
            Layout::Dense(lda) => r0 + j * lda,
            Layout::Band(lda) => self.ku + r0 - j + j * lda,
            Layout::Packed if self.kl == 0 => j * (j + 1) / 2,
            Layout::Packed => j * self.n - j * j.saturating_sub(1) / 2,
        }
    }

    /// Column j's stored run.
    #[inline]
    pub fn col<'a, T>(&self, a: &'a [T], j: usize) -> (Range<usize>, &'a [T]) {
        let rows = self.rows(j);
        let o = self.offset(j);
        let len = rows.len();
        (rows, &a[o..o + len])
    }

    /// Number of stored elements, for the parallel threshold.
    fn size(&self) -> usize {
        self.n * (self.kl + self.ku + 1).min(self.m)
    }
}

/// Sums per-column-chunk partial vectors: `f(cols, t)` adds chunk `cols`'s contribution
/// into `t` (length `len`).
fn chunked_sum<T: Scalar>(
    len: usize,
    n: usize,
    parallel: bool,
    f: impl Fn(Range<usize>, &mut [T]) + Sync,
) -> Vec<T> {
    if !parallel || n <= COLS {
        let mut t = vec![T::zero(); len];
        f(0..n, &mut t);
        return t;
    }
    let parts: Vec<Vec<T>> = (0..n.div_ceil(COLS))
        .into_par_iter()
        .map(|c| {
            let mut t = vec![T::zero(); len];
            f(c * COLS..((c + 1) * COLS).min(n), &mut t);
            t
        })
        .collect();
    let mut total = vec![T::zero(); len];
    for p in parts {
        total.iter_mut().zip(p).for_each(|(s, v)| *s += v);
    }
    total
}

/// op(A)·x for a general band (or any `Stored`) matrix, x contiguous.
pub(crate) fn general_mv<T: Scalar>(s: &Stored, trans: Transpose, a: &[T], x: &[T]) -> Vec<T> {
    let par = s.size() >= PARALLEL_MIN;
    match trans {
        Transpose::N => chunked_sum(s.m, s.n, par, |cols, t| {
            for j in cols {
                let (rows, col) = s.col(a, j);
                let xj = x[j];
                t[rows]
                    .iter_mut()
                    .zip(col)
                    .for_each(|(ti, &v)| *ti += v * xj);
            }
        }),
        _ => {
            let conj = trans.is_conj();
            let col = |j: usize| {
                let (rows, col) = s.col(a, j);
                col.iter().zip(&x[rows]).fold(T::zero(), |acc, (&v, &xi)| {
                    acc + if conj { v.conj() } else { v } * xi
                })
            };
            if par {
                (0..s.n).into_par_iter().map(col).collect()
            } else {
                (0..s.n).map(col).collect()
            }
        }
    }
}

/// A·x for A symmetric (or Hermitian) with the triangle `s` stored, x contiguous. A
/// Hermitian diagonal is read as real.
pub(crate) fn symmetric_mv<T: Scalar>(s: &Stored, a: &[T], x: &[T], hermitian: bool) -> Vec<T> {
    let par = s.size() >= PARALLEL_MIN;
    chunked_sum(s.n, s.n, par, |cols, t| {
        for j in cols {
            let (rows, col) = s.col(a, j);
            let xj = x[j];
            let mut tj = T::zero();
            for (i, &v) in rows.zip(col) {
                if i == j {
                    let d = if hermitian { T::from_real(v.re()) } else { v };
                    tj += d * xj;
                } else {
                    t[i] += v * xj;
                    tj += if hermitian { v.conj() } else { v } * x[i];
                }
            }
            t[j] += tj;
        }
    })
}

/// y ← α·(A·x) + β·y with BLAS's quick returns, for the product `mv` of a gathered x.
#[allow(clippy::too_many_arguments)]
pub(crate) fn mv_update<T: Scalar>(
    lens: (usize, usize),
    alpha: T,
    (x, incx): (&[T], isize),
    beta: T,
    (y, incy): (&mut [T], isize),
    mv: impl FnOnce(&[T]) -> Vec<T>,
) {
    let (lx, ly) = lens;
    if lx == 0 || ly == 0 || (alpha == T::zero() && beta == T::one()) {
        return;
    }
    if alpha == T::zero() {
        return axpby_into(T::zero(), &vec![T::zero(); ly], beta, y, incy);
    }
    let t = mv(&gather(lx, x, incx));
    axpby_into(alpha, &t, beta, y, incy);
}

/// x ← op(T)·x (`solve = false`) or op(T)⁻¹·x for a triangular `Stored` T.
pub(crate) fn triangular<T: Scalar>(
    s: &Stored,
    (trans, diag): (Transpose, Diag),
    a: &[T],
    (x, incx): (&mut [T], isize),
    solve: bool,
) {
    let n = s.n;
    if n == 0 {
        return;
    }
    let lower = s.ku == 0;
    let unit = diag == Diag::Unit;
    let op = |v: T| if trans.is_conj() { v.conj() } else { v };
    let mut v = gather(n, x, incx);
    // Column j's diagonal entry and its off-diagonal (rows, values).
    let split = |j: usize| {
        let (rows, col) = s.col(a, j);
        let d = if unit {
            T::one()
        } else {
            op(col[j - rows.start])
        };
        (d, rows, col)
    };
    match (trans.is_trans(), solve) {
        (false, false) => {
            let mut t = vec![T::zero(); n];
            for (j, &vj) in v.iter().enumerate() {
                let (d, rows, col) = split(j);
                for (i, &aij) in rows.zip(col) {
                    t[i] += if i == j { d } else { aij } * vj;
                }
            }
            v = t;
        }
        (true, false) => {
            let t: Vec<T> = (0..n)
                .map(|j| {
                    let (d, rows, col) = split(j);
                    rows.zip(col)
                        .map(|(i, &aij)| if i == j { d * v[j] } else { op(aij) * v[i] })
                        .sum()
                })
                .collect();
            v = t;
        }
        (false, true) => {
            // Column-oriented substitution: finish x_j, then remove it from the rest.
            let order: Box<dyn Iterator<Item = usize>> = if lower {
                Box::new(0..n)
            } else {
                Box::new((0..n).rev())
            };
            for j in order {
                let (d, rows, col) = split(j);
                v[j] = v[j].robust_div(d);
                let xj = v[j];
                for (i, &aij) in rows.zip(col) {
                    if i != j {
                        v[i] -= aij * xj;
                    }
                }
            }
        }
        (true, true) => {
            // op(T) = Tᵀ: row j of op(T) is column j of T, so x_j needs the x_i of the
            // other stored rows first.
            let order: Box<dyn Iterator<Item = usize>> = if lower {
                Box::new((0..n).rev())
            } else {
                Box::new(0..n)
            };
            for j in order {
                let (d, rows, col) = split(j);
                let mut sum = v[j];
                for (i, &aij) in rows.zip(col) {
                    if i != j {
                        sum -= op(aij) * v[i];
                    }
                }
                v[j] = sum.robust_div(d);
            }
        }
    }
    scatter(&v, x, incx);
}

/// The stored triangle `s` of A ← α·x·y' + β'·y·x' + A, where ' is the transpose
/// (symmetric) or conjugate transpose (Hermitian) and the second term is present for the
/// rank-2 updates (β' = α for symmetric, ᾱ for Hermitian). A Hermitian diagonal is made
/// real, as reference BLAS does.
#[allow(clippy::too_many_arguments)]
pub(crate) fn rank_update<T: Scalar>(
    s: &Stored,
    alpha: T,
    (x, incx): (&[T], isize),
    y: Option<(&[T], isize)>,
    a: &mut [T],
    hermitian: bool,
) {
    let n = s.n;
    if n == 0 || alpha == T::zero() {
        return;
    }
    let cj = |v: T| if hermitian { v.conj() } else { v };
    let xg = gather(n, x, incx);
    let yg = y.map(|(y, incy)| gather(n, y, incy));
    let alpha2 = cj(alpha);
    let column = |j: usize, rows: Range<usize>, col: &mut [T]| {
        let xj = alpha * cj(xg[j]);
        let yj = yg
            .as_ref()
            .map(|yg| (alpha * cj(yg[j]), alpha2 * cj(xg[j])));
        for (i, v) in rows.zip(col.iter_mut()) {
            *v += match (&yg, yj) {
                (Some(yg), Some((ay, ax))) => xg[i] * ay + yg[i] * ax,
                _ => xg[i] * xj,
            };
            if hermitian && i == j {
                *v = T::from_real(v.re());
            }
        }
    };
    match s.layout {
        Layout::Dense(lda) if n * n >= PARALLEL_MIN => {
            let extent = crate::check::matrix_extent(n, n, lda);
            a[..extent]
                .par_chunks_mut(lda)
                .enumerate()
                .for_each(|(j, c)| {
                    let rows = s.rows(j);
                    let o = s.offset(j) - j * lda;
                    column(j, rows.clone(), &mut c[o..o + rows.len()]);
                });
        }
        _ => {
            for j in 0..n {
                let rows = s.rows(j);
                let o = s.offset(j);
                column(j, rows.clone(), &mut a[o..o + rows.len()]);
            }
        }
    }
}
