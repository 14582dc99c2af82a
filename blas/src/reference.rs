//! Reference implementations: naive loops, accumulating in f64 / Complex64, for tests.
//!
//! Each returns the exact-ish result in the wide type plus, where a tolerance needs it,
//! the magnitude the rounding error is proportional to (e.g. |α|·Σ|a||b| + |β||c| for
//! GEMM), so tests can state bounds like `(k + 2)·ε·magnitude`.

use crate::check::vector_index as at;
use crate::{Real, Scalar, Transpose};
use num_complex::Complex64;
use num_traits::Zero;

/// |x| in f64 (the modulus for complex numbers).
pub fn abs_wide<T: Scalar>(x: T) -> f64 {
    Complex64::new(x.re().as_f64(), x.im().as_f64()).norm()
}

/// A wide value as Complex64 (imaginary part 0 for reals), for comparisons.
pub fn to_c64<W: Scalar>(w: W) -> Complex64 {
    Complex64::new(w.re().as_f64(), w.im().as_f64())
}

/// op(A)[i, p] of a column-major A with leading dimension `lda`.
pub fn op_at<T: Scalar>(t: Transpose, a: &[T], lda: usize, i: usize, p: usize) -> T {
    match t {
        Transpose::N => a[i + p * lda],
        Transpose::T => a[p + i * lda],
        Transpose::C => a[p + i * lda].conj(),
    }
}

/// GEMM result (m×n, column-major, ld = m) and per-element error magnitude.
#[allow(clippy::too_many_arguments)]
pub fn gemm<T: Scalar>(
    transa: Transpose,
    transb: Transpose,
    m: usize,
    n: usize,
    k: usize,
    alpha: T,
    a: &[T],
    lda: usize,
    b: &[T],
    ldb: usize,
    beta: T,
    c: &[T],
    ldc: usize,
) -> (Vec<T::Wide>, Vec<f64>) {
    let mut out = vec![T::Wide::zero(); m * n];
    let mut mag = vec![0.0; m * n];
    for j in 0..n {
        for i in 0..m {
            let mut acc = T::Wide::zero();
            let mut size = 0.0;
            for p in 0..k {
                let (x, y) = (op_at(transa, a, lda, i, p), op_at(transb, b, ldb, p, j));
                acc += x.widen() * y.widen();
                size += abs_wide(x) * abs_wide(y);
            }
            let mut v = alpha.widen() * acc;
            size *= abs_wide(alpha);
            if beta != T::zero() {
                v += beta.widen() * c[i + j * ldc].widen();
                size += abs_wide(beta) * abs_wide(c[i + j * ldc]);
            }
            out[i + j * m] = v;
            mag[i + j * m] = size;
        }
    }
    (out, mag)
}

/// Σ op(xᵢ)·yᵢ in the wide type, and Σ|xᵢ||yᵢ|.
pub fn dot<T: Scalar>(
    n: usize,
    x: &[T],
    incx: isize,
    y: &[T],
    incy: isize,
    conj: bool,
) -> (T::Wide, f64) {
    let mut acc = T::Wide::zero();
    let mut mag = 0.0;
    for i in 0..n {
        let (a, b) = (x[at(i, n, incx)], y[at(i, n, incy)]);
        let a = if conj { a.conj() } else { a };
        acc += a.widen() * b.widen();
        mag += abs_wide(a) * abs_wide(b);
    }
    (acc, mag)
}

/// ‖x‖₂ in f64 (unscaled: callers keep inputs in range or compare relative to scale).
pub fn nrm2<T: Scalar>(n: usize, x: &[T], incx: isize) -> f64 {
    let scale = (0..n)
        .map(|i| abs_wide(x[at(i, n, incx)]))
        .fold(0.0, f64::max);
    if scale == 0.0 {
        return 0.0;
    }
    let s: f64 = (0..n)
        .map(|i| (abs_wide(x[at(i, n, incx)]) / scale).powi(2))
        .sum();
    scale * s.sqrt()
}

/// Σ |re| + |im| in f64.
pub fn asum<T: Scalar>(n: usize, x: &[T], incx: isize) -> f64 {
    (0..n)
        .map(|i| {
            let v = x[at(i, n, incx)];
            v.re().as_f64().abs() + v.im().as_f64().abs()
        })
        .sum()
}

/// 1-based index of the first max (or min) |re| + |im|, computed in the working
/// precision as reference BLAS's icamax does; 0 for n = 0.
pub fn iamax<T: Scalar>(n: usize, x: &[T], incx: isize, max: bool) -> usize {
    let mut best: Option<(usize, T::Real)> = None;
    for i in 0..n {
        let a = x[at(i, n, incx)].abs1();
        if num_traits::Float::is_nan(a) {
            continue;
        }
        match best {
            Some((_, b)) if (max && a <= b) || (!max && a >= b) => {}
            _ => best = Some((i, a)),
        }
    }
    match best {
        Some((i, _)) => i + 1,
        None if n > 0 => 1,
        None => 0,
    }
}
