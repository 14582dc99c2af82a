//! Reference implementations and LAPACK's test ratios, for tests and `rocm-bench`.
//!
//! Everything is computed naively in Complex64 (f64 components) whatever the input type,
//! so for f32/Complex32 the reference is far more accurate than the code under test, and
//! for f64/Complex64 it has the same precision, as LAPACK's own test programs do. The
//! ratios follow LAPACK's TESTING/LIN programs (xGET01, xGET02, xGET03, xPOT01, xTRT01):
//! a residual divided by n·‖A‖·ε (one-norms), so a correct backward-stable routine gives
//! ratios of order 1 and LAPACK's pass threshold is 30.

use crate::{Real, Scalar};
use num_complex::Complex64;

/// A column-major matrix in Complex64.
#[derive(Debug, Clone, PartialEq)]
pub struct Wide {
    pub rows: usize,
    pub cols: usize,
    pub data: Vec<Complex64>,
}

impl Wide {
    pub fn zeros(rows: usize, cols: usize) -> Wide {
        Wide {
            rows,
            cols,
            data: vec![Complex64::new(0.0, 0.0); rows * cols],
        }
    }

    pub fn identity(n: usize) -> Wide {
        let mut w = Wide::zeros(n, n);
        for i in 0..n {
            w.data[i + i * n] = Complex64::new(1.0, 0.0);
        }
        w
    }

    /// The `rows × cols` matrix stored in `a` with leading dimension `ld`.
    pub fn from<T: Scalar>(a: &[T], rows: usize, cols: usize, ld: usize) -> Wide {
        let mut w = Wide::zeros(rows, cols);
        for j in 0..cols {
            for i in 0..rows {
                let x = a[i + j * ld];
                w.data[i + j * rows] = Complex64::new(x.re().as_f64(), x.im().as_f64());
            }
        }
        w
    }

    pub fn at(&self, i: usize, j: usize) -> Complex64 {
        self.data[i + j * self.rows]
    }

    pub fn set(&mut self, i: usize, j: usize, v: Complex64) {
        self.data[i + j * self.rows] = v;
    }

    /// self · other.
    pub fn mul(&self, other: &Wide) -> Wide {
        let mut out = Wide::zeros(self.rows, other.cols);
        for j in 0..other.cols {
            for p in 0..self.cols {
                let b = other.at(p, j);
                if b == Complex64::new(0.0, 0.0) {
                    continue;
                }
                for i in 0..self.rows {
                    out.data[i + j * self.rows] += self.data[i + p * self.rows] * b;
                }
            }
        }
        out
    }

    /// The conjugate transpose.
    pub fn adjoint(&self) -> Wide {
        let mut out = Wide::zeros(self.cols, self.rows);
        for j in 0..self.cols {
            for i in 0..self.rows {
                out.set(j, i, self.at(i, j).conj());
            }
        }
        out
    }

    /// self − other.
    pub fn sub(&self, other: &Wide) -> Wide {
        Wide {
            rows: self.rows,
            cols: self.cols,
            data: self
                .data
                .iter()
                .zip(&other.data)
                .map(|(a, b)| a - b)
                .collect(),
        }
    }

    /// The one-norm (largest column sum of moduli).
    pub fn norm1(&self) -> f64 {
        (0..self.cols)
            .map(|j| (0..self.rows).map(|i| self.at(i, j).norm()).sum::<f64>())
            .fold(0.0, f64::max)
    }

    /// The Hermitian matrix whose `uplo`-lower (`lower = true`) or upper triangle is
    /// stored in `self` (the other triangle is ignored).
    pub fn hermitian_from(&self, lower: bool) -> Wide {
        let n = self.rows;
        let mut out = Wide::zeros(n, n);
        for j in 0..n {
            for i in 0..n {
                let stored = if lower == (i >= j) {
                    self.at(i, j)
                } else {
                    self.at(j, i).conj()
                };
                out.set(i, j, stored);
            }
            out.set(j, j, Complex64::new(self.at(j, j).re, 0.0));
        }
        out
    }

    /// The triangle (`lower` or upper) of `self`, zeros elsewhere; a unit diagonal when
    /// `unit`.
    pub fn triangle(&self, lower: bool, unit: bool) -> Wide {
        let mut out = Wide::zeros(self.rows, self.cols);
        for j in 0..self.cols {
            for i in 0..self.rows {
                let keep = if lower { i >= j } else { i <= j };
                if i == j && unit {
                    out.set(i, j, Complex64::new(1.0, 0.0));
                } else if keep {
                    out.set(i, j, self.at(i, j));
                }
            }
        }
        out
    }

    /// Rows interchanged as LAPACK's 0-based pivots say (row i with piv[i], in order).
    pub fn swap_rows(&mut self, piv: &[usize], forward: bool) {
        let order: Vec<usize> = if forward {
            (0..piv.len()).collect()
        } else {
            (0..piv.len()).rev().collect()
        };
        for i in order {
            let p = piv[i];
            for j in 0..self.cols {
                self.data.swap(i + j * self.rows, p + j * self.rows);
            }
        }
    }
}

/// `resid / (n · norm · ε)` with LAPACK's conventions for a zero denominator (1/ε when the
/// residual is not zero).
pub fn ratio(resid: f64, n: usize, norm: f64, eps: f64) -> f64 {
    let n = n.max(1) as f64;
    if norm <= 0.0 {
        if resid == 0.0 {
            0.0
        } else {
            1.0 / eps
        }
    } else {
        resid / norm / n / eps
    }
}

/// ε of `T`'s precision as f64.
pub fn eps<T: Scalar>() -> f64 {
    T::eps().as_f64()
}

/// ‖P·A − L·U‖₁ / (n·‖A‖₁·ε) for GETRF's output (`lu`, `piv` 0-based) of the m×n `a`.
pub fn lu_ratio<T: Scalar>(a: &Wide, lu: &Wide, piv: &[usize]) -> f64 {
    let (m, n) = (a.rows, a.cols);
    let k = m.min(n);
    let mut l = Wide::zeros(m, k);
    let mut u = Wide::zeros(k, n);
    for j in 0..k {
        l.set(j, j, Complex64::new(1.0, 0.0));
        for i in j + 1..m {
            l.set(i, j, lu.at(i, j));
        }
    }
    for j in 0..n {
        for i in 0..k.min(j + 1) {
            u.set(i, j, lu.at(i, j));
        }
    }
    let mut pa = a.clone();
    pa.swap_rows(piv, true);
    let r = pa.sub(&l.mul(&u)).norm1();
    ratio(r, n, a.norm1(), eps::<T>())
}

/// ‖A − L·Lᴴ‖₁ / (n·‖A‖₁·ε) (Lower) or ‖A − Uᴴ·U‖₁ / (n·‖A‖₁·ε) for POTRF's output;
/// `a` is the full Hermitian matrix.
pub fn cholesky_ratio<T: Scalar>(a: &Wide, factor: &Wide, lower: bool) -> f64 {
    let t = factor.triangle(lower, false);
    let prod = if lower {
        t.mul(&t.adjoint())
    } else {
        t.adjoint().mul(&t)
    };
    ratio(a.sub(&prod).norm1(), a.rows, a.norm1(), eps::<T>())
}

/// ‖B − op(A)·X‖₁ / (n·‖A‖₁·‖X‖₁·ε), the solve ratio of xGET02.
pub fn solve_ratio<T: Scalar>(a: &Wide, x: &Wide, b: &Wide) -> f64 {
    let r = b.sub(&a.mul(x)).norm1();
    ratio(r, a.rows, a.norm1() * x.norm1(), eps::<T>())
}

/// ‖I − A·A⁻¹‖₁ / (n·‖A‖₁·‖A⁻¹‖₁·ε), the inverse ratio of xGET03 / xTRT01.
pub fn inverse_ratio<T: Scalar>(a: &Wide, inv: &Wide) -> f64 {
    let n = a.rows;
    let r = Wide::identity(n).sub(&a.mul(inv)).norm1();
    ratio(r, n, a.norm1() * inv.norm1(), eps::<T>())
}

/// ‖A − Q·R‖₁ / (max(m, n)·‖A‖₁·ε) for an m×k Q and a k×n upper-trapezoidal R taken
/// from GEQRF's output `qr_out`.
pub fn qr_ratio<T: Scalar>(a: &Wide, q: &Wide, qr_out: &Wide) -> f64 {
    let (m, n) = (a.rows, a.cols);
    let k = q.cols;
    let mut r = Wide::zeros(k, n);
    for j in 0..n {
        for i in 0..k.min(j + 1) {
            r.set(i, j, qr_out.at(i, j));
        }
    }
    ratio(a.sub(&q.mul(&r)).norm1(), m.max(n), a.norm1(), eps::<T>())
}

/// ‖I − Qᴴ·Q‖₁ / (m·ε), the orthogonality ratio of xQRT01.
pub fn orthogonality_ratio<T: Scalar>(q: &Wide) -> f64 {
    let r = Wide::identity(q.cols).sub(&q.adjoint().mul(q)).norm1();
    ratio(r, q.rows, 1.0, eps::<T>())
}

impl Wide {
    /// The Frobenius norm.
    pub fn norm_fro(&self) -> f64 {
        self.data.iter().map(|x| x.norm_sqr()).sum::<f64>().sqrt()
    }

    /// The `rows × cols` block at (i, j).
    pub fn block(&self, i: usize, j: usize, rows: usize, cols: usize) -> Wide {
        let mut out = Wide::zeros(rows, cols);
        for c in 0..cols {
            for r in 0..rows {
                out.set(r, c, self.at(i + r, j + c));
            }
        }
        out
    }

    /// The transpose (no conjugation).
    pub fn transpose(&self) -> Wide {
        let mut out = self.adjoint();
        out.data.iter_mut().for_each(|z| *z = z.conj());
        out
    }

    /// A real diagonal matrix `rows × cols` with `d` on its diagonal.
    pub fn diagonal(rows: usize, cols: usize, d: &[f64]) -> Wide {
        let mut out = Wide::zeros(rows, cols);
        for (i, &x) in d.iter().enumerate().take(rows.min(cols)) {
            out.set(i, i, Complex64::new(x, 0.0));
        }
        out
    }
}

/// ‖A − L·Q‖₁ / (max(m, n)·‖A‖₁·ε) for GELQF's output `lq_out` (L is its m×k lower
/// trapezoid) and the k×n Q of ORGLQ (xLQT01).
pub fn lq_ratio<T: Scalar>(a: &Wide, lq_out: &Wide, q: &Wide) -> f64 {
    let (m, n) = (a.rows, a.cols);
    let k = q.rows;
    let mut l = Wide::zeros(m, k);
    for j in 0..k {
        for i in j..m {
            l.set(i, j, lq_out.at(i, j));
        }
    }
    ratio(a.sub(&l.mul(q)).norm1(), m.max(n), a.norm1(), eps::<T>())
}

/// ‖I − Q·Qᴴ‖₁ / (n·ε) for a k×n Q with orthonormal rows (xLQT01).
pub fn row_orthogonality_ratio<T: Scalar>(q: &Wide) -> f64 {
    let r = Wide::identity(q.rows).sub(&q.mul(&q.adjoint())).norm1();
    ratio(r, q.cols, 1.0, eps::<T>())
}

/// The least-squares ratio of xQRT17: ‖op(A)ᴴ·(B − op(A)·X)‖₁ /
/// (max(rows, cols, nrhs)·‖A‖₁·(‖A‖₁·‖X‖₁ + ‖B‖₁)·ε) for `op_a` = op(A): a backward
/// stable solver leaves a residual orthogonal to range(op(A)) up to rounding.
pub fn least_squares_ratio<T: Scalar>(op_a: &Wide, x: &Wide, b: &Wide) -> f64 {
    let resid = b.sub(&op_a.mul(x));
    let num = op_a.adjoint().mul(&resid).norm1();
    let an = op_a.norm1();
    let scale = op_a.rows.max(op_a.cols).max(x.cols) as f64;
    let den = an * (an * x.norm1() + b.norm1());
    ratio(num, scale as usize, den, eps::<T>())
}

/// The forward error ratio of xGET04: ‖X − X_true‖_F / (‖X_true‖_F·κ·max(rows, cols)·ε),
/// κ the 2-norm condition number of the problem.
pub fn forward_error_ratio<T: Scalar>(x: &Wide, x_true: &Wide, kappa: f64, dim: usize) -> f64 {
    ratio(
        x.sub(x_true).norm_fro(),
        dim,
        x_true.norm_fro() * kappa,
        eps::<T>(),
    )
}

/// ‖A − Z·Λ·Zᴴ‖₁ / (n·‖A‖₁·ε) for eigenvalues `w` and eigenvectors Z (xSYT21, test 1).
pub fn eigen_ratio<T: Scalar>(a: &Wide, z: &Wide, w: &[f64]) -> f64 {
    let n = a.rows;
    let prod = z.mul(&Wide::diagonal(n, n, w)).mul(&z.adjoint());
    ratio(a.sub(&prod).norm1(), n, a.norm1(), eps::<T>())
}

/// ‖A − U·Σ·Vᴴ‖₁ / (max(m, n)·‖A‖₁·ε) for U m×k, Σ = diag(s) k×k, Vᴴ k×n (xBDT01).
pub fn svd_ratio<T: Scalar>(a: &Wide, u: &Wide, s: &[f64], vt: &Wide) -> f64 {
    let (m, n) = (a.rows, a.cols);
    let k = s.len();
    let prod = u.mul(&Wide::diagonal(k, k, s)).mul(vt);
    ratio(a.sub(&prod).norm1(), m.max(n), a.norm1(), eps::<T>())
}

/// max |x_i − y_i| / (n·scale·ε): computed eigen- or singular values against others
/// (Weyl's bound: a backward stable method moves each by at most ‖E‖₂ ≤ c·n·‖A‖·ε).
pub fn values_ratio<T: Scalar>(x: &[f64], y: &[f64], scale: f64) -> f64 {
    let diff = x
        .iter()
        .zip(y)
        .map(|(a, b)| (a - b).abs())
        .fold(0.0, f64::max);
    if x.len() != y.len() {
        return f64::INFINITY;
    }
    ratio(diff, x.len(), scale, eps::<T>())
}
