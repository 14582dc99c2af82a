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

/// Element (i, j) of the triangular matrix stored in the `uplo` triangle of `a`: zero
/// outside it, one on a unit diagonal.
pub fn tri_at<T: Scalar>(
    uplo: crate::Uplo,
    diag: crate::Diag,
    a: &[T],
    lda: usize,
    i: usize,
    j: usize,
) -> T {
    if i == j && diag == crate::Diag::Unit {
        T::one()
    } else if uplo.contains(i, j) {
        a[i + j * lda]
    } else {
        T::zero()
    }
}

/// Element (i, j) of the full symmetric (or Hermitian) matrix whose `uplo` triangle is
/// stored in `a`; a Hermitian diagonal is read as real.
pub fn sym_at<T: Scalar>(
    uplo: crate::Uplo,
    a: &[T],
    lda: usize,
    i: usize,
    j: usize,
    hermitian: bool,
) -> T {
    if i == j && hermitian {
        T::from_real(a[i + i * lda].re())
    } else if uplo.contains(i, j) {
        a[i + j * lda]
    } else if hermitian {
        a[j + i * lda].conj()
    } else {
        a[j + i * lda]
    }
}

/// α·op(A)·B (Left) or α·B·op(A) (Right) for triangular A, as an m×n matrix (ld = m)
/// with per-element magnitude |α|·Σ|op(A)||B|. Also the residual reference for trsm.
#[allow(clippy::too_many_arguments)]
pub fn trmm<T: Scalar>(
    side: crate::Side,
    uplo: crate::Uplo,
    trans: Transpose,
    diag: crate::Diag,
    m: usize,
    n: usize,
    alpha: T,
    a: &[T],
    lda: usize,
    b: &[T],
    ldb: usize,
) -> (Vec<T::Wide>, Vec<f64>) {
    let op = |i: usize, p: usize| -> T {
        match trans {
            Transpose::N => tri_at(uplo, diag, a, lda, i, p),
            Transpose::T => tri_at(uplo, diag, a, lda, p, i),
            Transpose::C => tri_at(uplo, diag, a, lda, p, i).conj(),
        }
    };
    let mut out = vec![T::Wide::zero(); m * n];
    let mut mag = vec![0.0; m * n];
    for j in 0..n {
        for i in 0..m {
            let (mut acc, mut size) = (T::Wide::zero(), 0.0);
            let ka = if side == crate::Side::Left { m } else { n };
            for p in 0..ka {
                let (x, y) = if side == crate::Side::Left {
                    (op(i, p), b[p + j * ldb])
                } else {
                    (b[i + p * ldb], op(p, j))
                };
                acc += x.widen() * y.widen();
                size += abs_wide(x) * abs_wide(y);
            }
            out[i + j * m] = alpha.widen() * acc;
            mag[i + j * m] = abs_wide(alpha) * size;
        }
    }
    (out, mag)
}

/// syrk/herk (`b = None`) or syr2k/her2k: the full n×n result (ld = n; only the `uplo`
/// triangle is meaningful) and magnitudes. A Hermitian diagonal is returned real.
#[allow(clippy::too_many_arguments)]
pub fn rank_k<T: Scalar>(
    uplo: crate::Uplo,
    trans: Transpose,
    n: usize,
    k: usize,
    alpha: T,
    a: &[T],
    lda: usize,
    b: Option<(&[T], usize)>,
    beta: T,
    c: &[T],
    ldc: usize,
    hermitian: bool,
) -> (Vec<T::Wide>, Vec<f64>) {
    let cj = |v: T| if hermitian { v.conj() } else { v };
    let mut out = vec![T::Wide::zero(); n * n];
    let mut mag = vec![0.0; n * n];
    for j in 0..n {
        for i in 0..n {
            if !uplo.contains(i, j) {
                continue;
            }
            let (mut acc, mut size) = (T::Wide::zero(), 0.0);
            for p in 0..k {
                let ai = op_at(trans, a, lda, i, p);
                let aj = op_at(trans, a, lda, j, p);
                match b {
                    None => {
                        acc += alpha.widen() * ai.widen() * cj(aj).widen();
                        size += abs_wide(alpha) * abs_wide(ai) * abs_wide(aj);
                    }
                    Some((b, ldb)) => {
                        let bi = op_at(trans, b, ldb, i, p);
                        let bj = op_at(trans, b, ldb, j, p);
                        acc += alpha.widen() * ai.widen() * cj(bj).widen()
                            + cj(alpha).widen() * bi.widen() * cj(aj).widen();
                        size += abs_wide(alpha)
                            * (abs_wide(ai) * abs_wide(bj) + abs_wide(bi) * abs_wide(aj));
                    }
                }
            }
            if beta != T::zero() {
                let cv = c[i + j * ldc];
                let cv = if hermitian && i == j {
                    T::from_real(cv.re())
                } else {
                    cv
                };
                acc += beta.widen() * cv.widen();
                size += abs_wide(beta) * abs_wide(cv);
            }
            if hermitian && i == j {
                acc = T::Wide::from_real(acc.re());
            }
            out[i + j * n] = acc;
            mag[i + j * n] = size;
        }
    }
    (out, mag)
}

/// symm/hemm: α·A·B + β·C (Left) or α·B·A + β·C (Right) as m×n (ld = m), magnitudes.
#[allow(clippy::too_many_arguments)]
pub fn symm<T: Scalar>(
    side: crate::Side,
    uplo: crate::Uplo,
    m: usize,
    n: usize,
    alpha: T,
    a: &[T],
    lda: usize,
    b: &[T],
    ldb: usize,
    beta: T,
    c: &[T],
    ldc: usize,
    hermitian: bool,
) -> (Vec<T::Wide>, Vec<f64>) {
    let mut out = vec![T::Wide::zero(); m * n];
    let mut mag = vec![0.0; m * n];
    let ka = if side == crate::Side::Left { m } else { n };
    for j in 0..n {
        for i in 0..m {
            let (mut acc, mut size) = (T::Wide::zero(), 0.0);
            for p in 0..ka {
                let (x, y) = if side == crate::Side::Left {
                    (sym_at(uplo, a, lda, i, p, hermitian), b[p + j * ldb])
                } else {
                    (b[i + p * ldb], sym_at(uplo, a, lda, p, j, hermitian))
                };
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

/// gemv: α·op(A)·x + β·y as a contiguous vector (logical order) with magnitudes.
#[allow(clippy::too_many_arguments)]
pub fn gemv<T: Scalar>(
    trans: Transpose,
    m: usize,
    n: usize,
    alpha: T,
    a: &[T],
    lda: usize,
    x: &[T],
    incx: isize,
    beta: T,
    y: &[T],
    incy: isize,
) -> (Vec<T::Wide>, Vec<f64>) {
    let (lx, ly) = if trans.is_trans() { (m, n) } else { (n, m) };
    let mut out = vec![T::Wide::zero(); ly];
    let mut mag = vec![0.0; ly];
    for i in 0..ly {
        let (mut acc, mut size) = (T::Wide::zero(), 0.0);
        for p in 0..lx {
            let (u, v) = (op_at(trans, a, lda, i, p), x[at(p, lx, incx)]);
            acc += u.widen() * v.widen();
            size += abs_wide(u) * abs_wide(v);
        }
        let mut r = alpha.widen() * acc;
        size *= abs_wide(alpha);
        if beta != T::zero() {
            let yv = y[at(i, ly, incy)];
            r += beta.widen() * yv.widen();
            size += abs_wide(beta) * abs_wide(yv);
        }
        out[i] = r;
        mag[i] = size;
    }
    (out, mag)
}

/// The dense m×n matrix (ld = m) of a general band matrix with `kl` sub- and `ku`
/// super-diagonals in BLAS band storage: A(i, j) = a[ku + i − j + j·lda] inside the band,
/// zero outside.
pub fn band_to_dense<T: Scalar>(
    m: usize,
    n: usize,
    kl: usize,
    ku: usize,
    a: &[T],
    lda: usize,
) -> Vec<T> {
    let mut d = vec![T::zero(); m * n];
    for j in 0..n {
        for i in 0..m {
            if i + ku >= j && i <= j + kl {
                d[i + j * m] = a[ku + i - j + j * lda];
            }
        }
    }
    d
}

/// The dense n×n matrix (ld = n) holding the `uplo` triangle of a band matrix with `k`
/// off-diagonals (upper: A(i, j) = a[k + i − j + j·lda]; lower: a[i − j + j·lda]), zero
/// elsewhere.
pub fn tri_band_to_dense<T: Scalar>(
    uplo: crate::Uplo,
    n: usize,
    k: usize,
    a: &[T],
    lda: usize,
) -> Vec<T> {
    match uplo {
        crate::Uplo::Upper => band_to_dense(n, n, 0, k, a, lda),
        crate::Uplo::Lower => band_to_dense(n, n, k, 0, a, lda),
    }
}

/// The dense n×n matrix (ld = n) holding a packed `uplo` triangle, zero elsewhere. The
/// packed array is read in order, column by column, as BLAS lays it out.
pub fn packed_to_dense<T: Scalar>(uplo: crate::Uplo, n: usize, ap: &[T]) -> Vec<T> {
    let mut d = vec![T::zero(); n * n];
    let mut next = ap.iter();
    for j in 0..n {
        for i in 0..n {
            if uplo.contains(i, j) {
                if let Some(&v) = next.next() {
                    d[i + j * n] = v;
                }
            }
        }
    }
    d
}
