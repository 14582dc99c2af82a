//! Dense, obviously correct reference implementations of every operation.
//!
//! Everything here works on dense matrices of [`Complex64`] (an exact widening of every
//! [`Scalar`]) with straightforward loops, so a reference result carries only the
//! rounding of f64 arithmetic. Tests compare the optimised kernels against these with
//! tolerances derived from the arithmetic.

use crate::format::{Dense, SparseMatrix};
use crate::ops::{Diag, Transpose, Uplo};
use crate::scalar::{Index, Scalar};
use num_complex::Complex64;
use rocm_core::Result;

/// A dense complex matrix, column-major with `ld = nrows`.
pub type Mat = Dense<Complex64>;

/// Widens any matrix to a dense [`Mat`].
pub fn dense_of<I: Index, T: Scalar, M: SparseMatrix<I, T>>(a: &M) -> Result<Mat> {
    Ok(widen(&a.to_dense()?))
}

/// Widens a dense matrix.
pub fn widen<T: Scalar>(a: &Dense<T>) -> Mat {
    Dense::from_fn(a.nrows(), a.ncols(), |i, j| a.at(i, j).to_c64())
}

/// Widens a vector.
pub fn widen_vec<T: Scalar>(x: &[T]) -> Vec<Complex64> {
    x.iter().map(|v| v.to_c64()).collect()
}

/// `op(A)` as a new matrix.
pub fn apply_op(op: Transpose, a: &Mat) -> Mat {
    match op {
        Transpose::N => a.clone(),
        Transpose::T => Dense::from_fn(a.ncols(), a.nrows(), |i, j| a.at(j, i)),
        Transpose::C => Dense::from_fn(a.ncols(), a.nrows(), |i, j| a.at(j, i).conj()),
    }
}

/// `alpha * op(A) * x + beta * y`.
pub fn gemv(
    op: Transpose,
    alpha: Complex64,
    a: &Mat,
    x: &[Complex64],
    beta: Complex64,
    y: &[Complex64],
) -> Vec<Complex64> {
    let a = apply_op(op, a);
    (0..a.nrows())
        .map(|i| {
            let s: Complex64 = (0..a.ncols()).map(|j| a.at(i, j) * x[j]).sum();
            alpha * s + beta * y[i]
        })
        .collect()
}

/// `alpha * A * B + beta * C`.
pub fn gemm(alpha: Complex64, a: &Mat, b: &Mat, beta: Complex64, c: &Mat) -> Mat {
    Dense::from_fn(a.nrows(), b.ncols(), |i, j| {
        let s: Complex64 = (0..a.ncols()).map(|k| a.at(i, k) * b.at(k, j)).sum();
        alpha * s + beta * c.at(i, j)
    })
}

/// `alpha * A + beta * B`.
pub fn geam(alpha: Complex64, a: &Mat, beta: Complex64, b: &Mat) -> Mat {
    Dense::from_fn(a.nrows(), a.ncols(), |i, j| {
        alpha * a.at(i, j) + beta * b.at(i, j)
    })
}

/// Sampled product: for each `(i, j)` in `pattern`, `alpha * (A B)_ij + beta * C_ij`,
/// zero elsewhere.
pub fn sddmm(
    alpha: Complex64,
    a: &Mat,
    b: &Mat,
    beta: Complex64,
    c: &Mat,
    pattern: &[(usize, usize)],
) -> Mat {
    let mut out = Dense::zeros(c.nrows(), c.ncols());
    for &(i, j) in pattern {
        let s: Complex64 = (0..a.ncols()).map(|k| a.at(i, k) * b.at(k, j)).sum();
        out.set_at(i, j, alpha * s + beta * c.at(i, j));
    }
    out
}

/// Solves `op(T) y = alpha x` where `T` is the `fill` triangle of `A` (the other triangle
/// ignored) with its diagonal, or ones on the diagonal for [`Diag::Unit`].
pub fn trsv(
    op: Transpose,
    fill: Uplo,
    diag: Diag,
    a: &Mat,
    alpha: Complex64,
    x: &[Complex64],
) -> Vec<Complex64> {
    let n = a.nrows();
    let tri = Dense::from_fn(n, n, |i, j| {
        let keep = match fill {
            Uplo::Lower => j < i,
            Uplo::Upper => j > i,
        };
        if i == j {
            match diag {
                Diag::Unit => Complex64::new(1.0, 0.0),
                Diag::NonUnit => a.at(i, i),
            }
        } else if keep {
            a.at(i, j)
        } else {
            Complex64::new(0.0, 0.0)
        }
    });
    let t = apply_op(op, &tri);
    let lower = (fill == Uplo::Lower) == (op == Transpose::N);
    let mut y: Vec<Complex64> = x.iter().map(|v| alpha * v).collect();
    let order: Vec<usize> = if lower {
        (0..n).collect()
    } else {
        (0..n).rev().collect()
    };
    for &i in &order {
        let deps = if lower { 0..i } else { i + 1..n };
        let s = y[i] - deps.map(|j| t.at(i, j) * y[j]).sum::<Complex64>();
        y[i] = s / t.at(i, i);
    }
    y
}

/// ILU(0) on the pattern `nz` (`nz(i, j)`: whether (i, j) is stored): the classic IKJ
/// elimination restricted to the pattern. Returns the packed `L\U` factors (unit lower
/// diagonal implied) on the pattern.
pub fn ilu0(a: &Mat, nz: impl Fn(usize, usize) -> bool) -> Mat {
    let n = a.nrows();
    let mut m = a.clone();
    for i in 1..n {
        for k in 0..i {
            if !nz(i, k) {
                continue;
            }
            let l = m.at(i, k) / m.at(k, k);
            m.set_at(i, k, l);
            for j in k + 1..n {
                if nz(i, j) {
                    let v = m.at(i, j) - l * m.at(k, j);
                    m.set_at(i, j, v);
                }
            }
        }
    }
    m
}

/// IC(0) on the lower-triangle pattern `nz`: `L` with `A ≈ L Lᴴ` on the pattern.
pub fn ic0(a: &Mat, nz: impl Fn(usize, usize) -> bool) -> Mat {
    let n = a.nrows();
    let mut l: Mat = Dense::zeros(n, n);
    for i in 0..n {
        for k in 0..=i {
            if !nz(i, k) {
                continue;
            }
            let mut s = a.at(i, k);
            for j in 0..k {
                s -= l.at(i, j) * l.at(k, j).conj();
            }
            if k == i {
                l.set_at(i, i, s.sqrt());
            } else {
                let v = s / l.at(k, k);
                l.set_at(i, k, v);
            }
        }
    }
    l
}

/// Largest entry magnitude difference between two matrices of equal shape.
pub fn max_diff(a: &Mat, b: &Mat) -> f64 {
    let mut d: f64 = 0.0;
    for j in 0..a.ncols() {
        for i in 0..a.nrows() {
            d = d.max((a.at(i, j) - b.at(i, j)).norm());
        }
    }
    d
}

/// `alpha * op(A) * x + beta * y` straight from the stored entries (any format, through
/// COO), accumulated in Complex64: the reference for matrices too large to densify.
pub fn spmv_entries<I: Index, T: Scalar, M: SparseMatrix<I, T>>(
    op: Transpose,
    alpha: Complex64,
    a: &M,
    x: &[Complex64],
    beta: Complex64,
    y: &[Complex64],
) -> Result<Vec<Complex64>> {
    let coo = a.to_coo()?;
    let mut out: Vec<Complex64> = y.iter().map(|v| beta * v).collect();
    for ((r, c), v) in coo.row_idx().iter().zip(coo.col_idx()).zip(coo.values()) {
        let (i, j) = (r.to_usize(), c.to_usize());
        let v = v.to_c64();
        match op {
            Transpose::N => out[i] += alpha * v * x[j],
            Transpose::T => out[j] += alpha * v * x[i],
            Transpose::C => out[j] += alpha * v.conj() * x[i],
        }
    }
    Ok(out)
}
