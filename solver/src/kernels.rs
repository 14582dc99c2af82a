//! Unblocked kernels: the panel, base-case and auxiliary steps that run element by
//! element (on the CPU on host memory; on a GPU they become small kernels).
//!
//! They work on host slices with a leading dimension; callers pass views whose shapes
//! they have already checked.

use crate::matrix::MatMut;
use crate::Scalar;
use num_traits::{Float, One, Zero};
use rayon::prelude::*;
use rocm_core::linalg::{Diag, Uplo};
use rocm_core::Result;

/// Columns per rayon task in the column-parallel kernels.
const COLUMNS_PER_TASK: usize = 16;

/// Unblocked LU with partial pivoting of an m×n host matrix (right-looking, LAPACK's
/// GETF2). `piv[j]` receives the 0-based row swapped with row j. Returns the 1-based
/// index of the first exactly-zero pivot, or 0.
pub(crate) fn getf2<T: Scalar>(
    a: &mut [T],
    m: usize,
    n: usize,
    ld: usize,
    piv: &mut [usize],
) -> usize {
    let mut info = 0;
    let sfmin = <T::Real as Float>::min_positive_value();
    for j in 0..m.min(n) {
        let col = &a[j * ld..j * ld + m];
        let mut p = j;
        let mut best = col[j].abs1();
        for (i, x) in col.iter().enumerate().skip(j + 1) {
            let v = x.abs1();
            if v > best {
                best = v;
                p = i;
            }
        }
        piv[j] = p;
        let pivot = a[p + j * ld];
        if pivot != T::zero() {
            if p != j {
                for c in 0..n {
                    a.swap(j + c * ld, p + c * ld);
                }
            }
            let col = &mut a[j * ld..j * ld + m];
            if pivot.modulus() >= sfmin {
                let r = pivot.robust_recip();
                col[j + 1..].iter_mut().for_each(|x| *x *= r);
            } else {
                col[j + 1..]
                    .iter_mut()
                    .for_each(|x| *x = x.robust_div(pivot));
            }
        } else if info == 0 {
            info = j + 1;
        }
        // Rank-1 update of the trailing block.
        let (head, tail) = a.split_at_mut(((j + 1) * ld).min(a.len()));
        let lcol = &head[j * ld + j + 1..j * ld + m];
        for c in tail.chunks_mut(ld).take(n - j - 1) {
            let f = c[j];
            if f != T::zero() {
                for (y, &l) in c[j + 1..m].iter_mut().zip(lcol) {
                    *y -= l * f;
                }
            }
        }
    }
    info
}

/// Applies the row interchanges `piv` (row i swapped with row piv[i], in order, or in
/// reverse order when `forward` is false) to every column of `a`.
pub(crate) fn laswp<T: Scalar>(a: &mut MatMut<'_, T>, piv: &[usize], forward: bool) -> Result<()> {
    if a.cols == 0 || piv.is_empty() {
        return Ok(());
    }
    let ld = a.ld;
    let swap = |col: &mut [T]| {
        if forward {
            for (i, &p) in piv.iter().enumerate() {
                if p != i {
                    col.swap(i, p);
                }
            }
        } else {
            for (i, &p) in piv.iter().enumerate().rev() {
                if p != i {
                    col.swap(i, p);
                }
            }
        }
    };
    let rows = a.rows;
    // The host slice the view spans, cut to its extent.
    let need = crate::matrix::extent(a.rows, a.cols, a.ld);
    let mut staged = a.host()?;
    let len = need.min(staged.len());
    let h = &mut staged[..len];
    if h.len() >= 1 << 16 {
        h.par_chunks_mut(ld * COLUMNS_PER_TASK)
            .for_each(|cols| cols.chunks_mut(ld).for_each(|c| swap(&mut c[..rows])));
    } else {
        h.chunks_mut(ld).for_each(|c| swap(&mut c[..rows]));
    }
    Ok(())
}

/// Unblocked Cholesky of an n×n host matrix (LAPACK's POTF2). Returns the 1-based order
/// of the first leading minor that is not positive definite, or 0.
pub(crate) fn potf2<T: Scalar>(uplo: Uplo, a: &mut [T], n: usize, ld: usize) -> usize {
    // Both triangles are handled as the lower one: for Upper, element (i, j) of the lower
    // factor is conj(a[j, i]).
    let at = |i: usize, j: usize| match uplo {
        Uplo::Lower => i + j * ld,
        Uplo::Upper => j + i * ld,
    };
    let get = |a: &[T], i: usize, j: usize| match uplo {
        Uplo::Lower => a[at(i, j)],
        Uplo::Upper => a[at(i, j)].conj(),
    };
    for j in 0..n {
        let mut d = a[at(j, j)].re();
        for p in 0..j {
            let l = get(a, j, p);
            d -= (l * l.conj()).re();
        }
        if d <= <T::Real as Zero>::zero() || d.is_nan() {
            a[at(j, j)] = T::from_real(d);
            return j + 1;
        }
        let d = d.sqrt();
        a[at(j, j)] = T::from_real(d);
        let r = <T::Real as One>::one() / d;
        for i in j + 1..n {
            let mut s = get(a, i, j);
            for p in 0..j {
                s -= get(a, i, p) * get(a, j, p).conj();
            }
            let v = s * T::from_real(r);
            a[at(i, j)] = match uplo {
                Uplo::Lower => v,
                Uplo::Upper => v.conj(),
            };
        }
    }
    0
}

/// Inverts a triangular n×n host matrix in place (LAPACK's TRTI2); the caller has
/// checked the diagonal has no zero.
pub(crate) fn trti2<T: Scalar>(uplo: Uplo, diag: Diag, a: &mut [T], n: usize, ld: usize) {
    let unit = diag == Diag::Unit;
    match uplo {
        Uplo::Upper => {
            for j in 0..n {
                let ajj = if unit {
                    -T::one()
                } else {
                    let inv = a[j + j * ld].robust_recip();
                    a[j + j * ld] = inv;
                    -inv
                };
                // a[0..j, j] = inv(U[0..j,0..j]) · a[0..j, j], then scaled by -inv(ajj).
                for i in 0..j {
                    let mut s = T::zero();
                    for p in i..j {
                        let u = if p == i && unit {
                            T::one()
                        } else {
                            a[i + p * ld]
                        };
                        s += u * a[p + j * ld];
                    }
                    a[i + j * ld] = s;
                }
                for i in 0..j {
                    a[i + j * ld] *= ajj;
                }
            }
        }
        Uplo::Lower => {
            for j in (0..n).rev() {
                let ajj = if unit {
                    -T::one()
                } else {
                    let inv = a[j + j * ld].robust_recip();
                    a[j + j * ld] = inv;
                    -inv
                };
                for i in (j + 1..n).rev() {
                    let mut s = T::zero();
                    for p in j + 1..=i {
                        let l = if p == i && unit {
                            T::one()
                        } else {
                            a[i + p * ld]
                        };
                        s += l * a[p + j * ld];
                    }
                    a[i + j * ld] = s;
                }
                for i in j + 1..n {
                    a[i + j * ld] *= ajj;
                }
            }
        }
    }
}

/// A = Uᴴ... the product of a triangle with its conjugate transpose in place (LAPACK's
/// LAUU2): U·Uᴴ for Upper, Lᴴ·L for Lower; only that triangle is read and written.
pub(crate) fn lauu2<T: Scalar>(uplo: Uplo, a: &mut [T], n: usize, ld: usize) {
    match uplo {
        Uplo::Upper => {
            // (U·Uᴴ)[i, j] for i <= j = Σ_{p >= j} U[i, p]·conj(U[j, p]); row i of the
            // result needs rows i.. of U only, so rows are finished top to bottom.
            for i in 0..n {
                for j in i..n {
                    let mut s = T::zero();
                    for p in j..n {
                        s += a[i + p * ld] * a[j + p * ld].conj();
                    }
                    a[i + j * ld] = s;
                }
            }
        }
        Uplo::Lower => {
            // (Lᴴ·L)[i, j] for i >= j = Σ_{p >= i} conj(L[p, i])·L[p, j]; column j of the
            // result needs columns j.. of L only, so columns are finished left to right.
            for j in 0..n {
                for i in j..n {
                    let mut s = T::zero();
                    for p in i..n {
                        s += a[p + i * ld].conj() * a[p + j * ld];
                    }
                    a[i + j * ld] = s;
                }
            }
        }
    }
}
