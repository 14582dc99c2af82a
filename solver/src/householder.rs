//! Householder reflectors, shared by QR, LQ, the tridiagonal and the bidiagonal
//! reductions.
//!
//! A reflector is H = I − τ·v·vᴴ with v(0) = 1 (LAPACK's convention; τ may be complex, so
//! H is unitary but not Hermitian). This module holds
//! - LARFG: the reflector that maps a vector to a multiple of e₁ (with a real β);
//! - GEQR2: the unblocked QR of a panel;
//! - the compact WY form of k consecutive reflectors, H₁·…·H_k = I − V·T·Vᴴ (LARFT, T
//!   upper triangular), and its application to a matrix from either side through
//!   rocm-blas (LARFB: GEMM, TRMM, GEMM);
//! - [`Solver::apply_q`], the ORMQR / ORMLQ loop over blocks of a stored Q.
//!
//! Reflectors are stored as LAPACK stores them ([`Storage`]): in columns from the
//! diagonal down (GEQRF, and the Q of SYTRD and GEBRD), or conjugated in rows from the
//! diagonal on (GELQF, and the P of GEBRD).

#![allow(clippy::too_many_arguments)]

use crate::blas3::{gemm, trmm, workspace};
use crate::handle::Solver;
use crate::matrix::{MatMut, MatRef};
use crate::Scalar;
use num_traits::{Float, Zero};
use rocm_blas::{Diag, Side, Transpose, Uplo};
use rocm_core::Result;

/// LAPACK's LARFG: for (α, x) returns (β, τ) and scales x into v's tail so that
/// (I − τ·v·vᴴ)ᴴ·[α; x] = [β; 0] with β real; τ = 0 (H = I) when x = 0 and α is real.
pub(crate) fn larfg<T: Scalar>(alpha: T, x: &mut [T]) -> (T, T) {
    let xnorm = norm2(x);
    if xnorm == <T::Real as Zero>::zero() && alpha.im() == <T::Real as Zero>::zero() {
        return (alpha, T::zero());
    }
    let norm = alpha.re().hypot(alpha.im()).hypot(xnorm);
    let beta = if alpha.re() >= <T::Real as Zero>::zero() {
        -norm
    } else {
        norm
    };
    let tau = T::from_parts((beta - alpha.re()) / beta, -alpha.im() / beta);
    let scale = T::one() / (alpha - T::from_real(beta));
    x.iter_mut().for_each(|v| *v *= scale);
    (T::from_real(beta), tau)
}

/// ‖x‖₂: the plain sum of squares where it neither underflows nor overflows, else a
/// scaled sum (LAPACK's NRM2 in two passes).
pub(crate) fn norm2<T: Scalar>(x: &[T]) -> T::Real {
    let zero = <T::Real as Zero>::zero();
    let sq = |v: &T| v.re() * v.re() + v.im() * v.im();
    let s: T::Real = x.iter().map(sq).fold(zero, |a, b| a + b);
    let tiny = <T::Real as Float>::min_positive_value() / <T::Real as Float>::epsilon();
    if (s > tiny && s < <T::Real as Float>::max_value()) || s.is_nan() {
        return s.sqrt();
    }
    let big = x
        .iter()
        .map(|v| v.abs1())
        .fold(zero, |a, b| if b > a { b } else { a });
    if big == zero || !big.is_finite() {
        // Zero, or an infinity the plain sum already carries.
        return s.sqrt();
    }
    let inv = <T::Real as num_traits::One>::one() / big;
    let t: T::Real = x
        .iter()
        .map(|v| {
            let (re, im) = (v.re() * inv, v.im() * inv);
            re * re + im * im
        })
        .fold(zero, |a, b| a + b);
    big * t.sqrt()
}

/// Unblocked QR of an m×n host matrix (GEQR2); `tau` gets min(m, n) scalars.
pub(crate) fn geqr2<T: Scalar>(a: &mut [T], m: usize, n: usize, ld: usize, tau: &mut [T]) {
    for j in 0..m.min(n) {
        let (head, tail) = a.split_at_mut(((j + 1) * ld).min(a.len()));
        let col = &mut head[j * ld..j * ld + m];
        let (alpha, x) = col[j..]
            .split_first_mut()
            .map(|(a, x)| (*a, x))
            .unwrap_or((T::zero(), &mut []));
        let (beta, t) = larfg(alpha, x);
        tau[j] = t;
        col[j] = T::one();
        // Hᴴ·C for the trailing columns: C −= conj(τ)·v·(vᴴ·C).
        if t != T::zero() {
            let v = &col[j..m];
            for c in tail.chunks_mut(ld).take(n - j - 1) {
                let w: T = v
                    .iter()
                    .zip(&c[j..m])
                    .map(|(&vi, &ci)| vi.conj() * ci)
                    .sum();
                let f = t.conj() * w;
                for (ci, &vi) in c[j..m].iter_mut().zip(v) {
                    *ci -= vi * f;
                }
            }
        }
        col[j] = beta;
    }
}

/// Where a factorisation keeps its reflectors.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Storage {
    /// v_i in column i from row i down, v_i(i) = 1 implied (GEQRF): Q = H₁·…·H_k.
    Columns,
    /// conj(v_i) in row i from column i on, v_i(i) = 1 implied (GELQF):
    /// Q = H_kᴴ·…·H₁ᴴ.
    Rows,
}

/// V (rows × k, unit lower trapezoidal, zeros above) of reflectors j..j+k of `a` (host
/// slice with leading dimension `ld`), `rows` long from position j.
pub(crate) fn unit_v<T: Scalar>(
    a: &[T],
    ld: usize,
    storage: Storage,
    j: usize,
    rows: usize,
    k: usize,
) -> Vec<T> {
    let mut v = vec![T::zero(); rows.max(1) * k];
    for p in 0..k {
        v[p + p * rows] = T::one();
        for i in p + 1..rows {
            v[i + p * rows] = match storage {
                Storage::Columns => a[(j + i) + (j + p) * ld],
                Storage::Rows => a[(j + p) + (j + i) * ld].conj(),
            };
        }
    }
    v
}

/// LARFT (forward, columnwise): T (k×k upper) with H₁·…·H_k = I − V·T·Vᴴ.
pub(crate) fn larft<T: Scalar>(v: &[T], rows: usize, k: usize, tau: &[T]) -> Vec<T> {
    let mut t = vec![T::zero(); k * k];
    for i in 0..k {
        // T[0..i, i] = −τ_i·T[0..i, 0..i]·(V[:, 0..i]ᴴ·v_i).
        let vi = &v[i * rows..(i + 1) * rows];
        let w: Vec<T> = (0..i)
            .map(|p| {
                v[p * rows..(p + 1) * rows]
                    .iter()
                    .zip(vi)
                    .map(|(&a, &b)| a.conj() * b)
                    .sum()
            })
            .collect();
        for r in 0..i {
            let s: T = (r..i).map(|p| t[r + p * k] * w[p]).sum();
            t[r + i * k] = -tau[i] * s;
        }
        t[i + i * k] = tau[i];
    }
    t
}

/// N for N, C for T or C (the conjugate transpose of a real Q is its transpose).
pub(crate) fn normalized(trans: Transpose) -> Transpose {
    if trans == Transpose::N {
        Transpose::N
    } else {
        Transpose::C
    }
}

fn flipped(op: Transpose) -> Transpose {
    if op == Transpose::N {
        Transpose::C
    } else {
        Transpose::N
    }
}

impl Solver {
    /// LARFB: C ← op(H)·C (Left) or C·op(H) (Right) with H = I − V·T·Vᴴ (op = N or C),
    /// V rows×k, T k×k upper: C −= V·(op(T)·(Vᴴ·C)) or C −= ((C·V)·op(T))·Vᴴ.
    pub(crate) fn larfb<T: Scalar>(
        &self,
        side: Side,
        op: Transpose,
        v: &[T],
        t: &[T],
        rows: usize,
        k: usize,
        mut c: MatMut<'_, T>,
    ) -> Result<()> {
        if c.rows == 0 || c.cols == 0 || k == 0 {
            return Ok(());
        }
        let blas = &self.blas;
        let dev = self.device();
        let vb = dev.upload(v)?;
        let tb = dev.upload(t)?;
        let vr = MatRef::new(vb.as_slice(), rows, k, rows.max(1));
        let tr = MatRef::new(tb.as_slice(), k, k, k);
        let one = T::one();
        match side {
            Side::Left => {
                let mut w = workspace::<T>(blas, k, c.cols)?;
                let mut wv = MatMut::new(w.as_slice_mut(), k, c.cols, k);
                let cr = c.as_ref();
                gemm(
                    blas,
                    Transpose::C,
                    Transpose::N,
                    one,
                    &vr,
                    &cr,
                    T::zero(),
                    &mut wv,
                )?;
                trmm(
                    blas,
                    Side::Left,
                    Uplo::Upper,
                    op,
                    Diag::NonUnit,
                    &tr,
                    &mut wv,
                )?;
                gemm(
                    blas,
                    Transpose::N,
                    Transpose::N,
                    -one,
                    &vr,
                    &wv.as_ref(),
                    one,
                    &mut c,
                )
            }
            Side::Right => {
                let mut w = workspace::<T>(blas, c.rows, k)?;
                let ldw = c.rows.max(1);
                let mut wv = MatMut::new(w.as_slice_mut(), c.rows, k, ldw);
                let cr = c.as_ref();
                gemm(
                    blas,
                    Transpose::N,
                    Transpose::N,
                    one,
                    &cr,
                    &vr,
                    T::zero(),
                    &mut wv,
                )?;
                trmm(
                    blas,
                    Side::Right,
                    Uplo::Upper,
                    op,
                    Diag::NonUnit,
                    &tr,
                    &mut wv,
                )?;
                gemm(
                    blas,
                    Transpose::N,
                    Transpose::C,
                    -one,
                    &wv.as_ref(),
                    &vr,
                    one,
                    &mut c,
                )
            }
        }
    }

    /// C ← op(Q)·C (Left) or C·op(Q) (Right), op = N or C, for the Q whose k = `taus.len()`
    /// reflectors `a` keeps in `storage` (Columns: nq×k; Rows: k×nq; nq = C's rows for
    /// Left, columns for Right). Blocks of `BlockSizes::geqrf` reflectors, each applied
    /// by [`Solver::larfb`] to the part of C it touches (ORMQR / ORMLQ).
    pub(crate) fn apply_q<T: Scalar>(
        &self,
        storage: Storage,
        side: Side,
        trans: Transpose,
        a: &MatRef<'_, T>,
        taus: &[T],
        mut c: MatMut<'_, T>,
    ) -> Result<()> {
        let k = taus.len();
        let nq = match side {
            Side::Left => c.rows,
            Side::Right => c.cols,
        };
        if k == 0 || c.rows == 0 || c.cols == 0 {
            return Ok(());
        }
        // Q = P or Pᴴ with P = H₁·…·H_k = B₁·…·B_b (blocks), so op(Q) = op'(P).
        let p_op = match storage {
            Storage::Columns => normalized(trans),
            Storage::Rows => flipped(normalized(trans)),
        };
        // P·C = B₁·(…·(B_b·C)) and C·Pᴴ = C·B_bᴴ·…·B₁ᴴ start from the last block.
        let first_block_first = matches!(
            (side, p_op),
            (Side::Left, Transpose::C) | (Side::Right, Transpose::N)
        );
        let nb = self.sizes.geqrf;
        let mut starts: Vec<usize> = (0..k).step_by(nb).collect();
        if !first_block_first {
            starts.reverse();
        }
        let host = a.host()?;
        for j in starts {
            let jb = nb.min(k - j);
            let rows = nq - j;
            let v = unit_v(host, a.ld, storage, j, rows, jb);
            let t = larft(&v, rows, jb, &taus[j..j + jb]);
            let target = match side {
                Side::Left => c.sub(j, 0, rows, c.cols)?,
                Side::Right => c.sub(0, j, c.rows, rows)?,
            };
            self.larfb(side, p_op, &v, &t, rows, jb, target)?;
        }
        Ok(())
    }

    /// The first `cols` columns of P = H₁·…·H_k (nq×nq) for the reflectors `a` keeps in
    /// `storage`, into the fresh nq×cols workspace returned (k <= cols <= nq). Blocks apply
    /// from the last, each only to the rows and columns it changes (ORGQR's order).
    pub(crate) fn form_p<T: Scalar>(
        &self,
        storage: Storage,
        nq: usize,
        cols: usize,
        a: &MatRef<'_, T>,
        taus: &[T],
    ) -> Result<rocm_core::DeviceBuffer<T>> {
        let k = taus.len();
        let ldq = nq.max(1);
        let mut q = workspace::<T>(&self.blas, nq, cols)?;
        {
            let qh = q
                .as_host_mut()
                .ok_or_else(|| rocm_core::Error::unsupported("host access", self.device()))?;
            (0..cols.min(nq)).for_each(|i| qh[i + i * ldq] = T::one());
        }
        let nb = self.sizes.geqrf;
        let mut starts: Vec<usize> = (0..k).step_by(nb).collect();
        starts.reverse();
        let host = a.host()?;
        for j in starts {
            let jb = nb.min(k - j);
            let rows = nq - j;
            let v = unit_v(host, a.ld, storage, j, rows, jb);
            let t = larft(&v, rows, jb, &taus[j..j + jb]);
            let target =
                MatMut::new(q.as_slice_mut(), nq, cols, ldq).into_sub(j, j, rows, cols - j)?;
            self.larfb(Side::Left, Transpose::N, &v, &t, rows, jb, target)?;
        }
        Ok(q)
    }
}

/// Largest modulus of the `rows × cols` host matrix (LAPACK's LANGE('M')).
pub(crate) fn max_abs<T: Scalar>(a: &[T], rows: usize, cols: usize, ld: usize) -> T::Real {
    let mut m = <T::Real as Zero>::zero();
    for j in 0..cols {
        for x in &a[j * ld..j * ld + rows] {
            let v = x.modulus();
            if v > m || v.is_nan() {
                m = v;
            }
        }
    }
    m
}

/// The rows of column j that the `uplo` triangle of an n×n matrix stores.
fn triangle_rows(uplo: rocm_blas::Uplo, j: usize, n: usize) -> std::ops::Range<usize> {
    match uplo {
        rocm_blas::Uplo::Lower => j..n,
        rocm_blas::Uplo::Upper => 0..j + 1,
    }
}

/// Largest modulus in the `uplo` triangle of an n×n host matrix (LANHE('M')); NaN wins.
pub(crate) fn max_abs_triangle<T: Scalar>(
    a: &[T],
    uplo: rocm_blas::Uplo,
    n: usize,
    ld: usize,
) -> T::Real {
    let mut m = <T::Real as Zero>::zero();
    for j in 0..n {
        for i in triangle_rows(uplo, j, n) {
            let v = a[i + j * ld].modulus();
            if v > m || v.is_nan() {
                m = v;
            }
        }
    }
    m
}

/// Scales the `uplo` triangle of an n×n host matrix by the real `s`.
pub(crate) fn scale_triangle<T: Scalar>(
    a: &mut [T],
    uplo: rocm_blas::Uplo,
    n: usize,
    ld: usize,
    s: T::Real,
) {
    let s = T::from_real(s);
    for j in 0..n {
        for i in triangle_rows(uplo, j, n) {
            a[i + j * ld] *= s;
        }
    }
}

/// LAPACK's safe range for scaling before an eigen- or singular value computation:
/// (√(safe minimum / ε), its inverse); a matrix whose largest element lies outside is
/// scaled into it.
pub(crate) fn scaling_range<R: Float>() -> (R, R) {
    let smlnum = (R::min_positive_value() / R::epsilon()).sqrt();
    (smlnum, R::one() / smlnum)
}

#[cfg(test)]
mod tests {
    use super::norm2;
    use num_complex::Complex64;

    /// The plain, scaled and special paths of norm2.
    #[test]
    fn norm2_paths() {
        let n = |x: &[f64]| norm2(x);
        assert_eq!(n(&[]), 0.0);
        assert_eq!(n(&[0.0, 0.0]), 0.0);
        assert!((n(&[3.0, 4.0]) - 5.0).abs() < 1e-15);
        assert!((n(&[3e-200, 4e-200]) / 5e-200 - 1.0).abs() < 1e-15);
        assert!((n(&[3e200, -4e200]) / 5e200 - 1.0).abs() < 1e-15);
        assert!(n(&[1.0, f64::NAN]).is_nan());
        assert_eq!(n(&[f64::INFINITY, 1.0]), f64::INFINITY);
        let z = [Complex64::new(3e-300, 4e-300), Complex64::new(0.0, 0.0)];
        assert!((norm2(&z) / 5e-300 - 1.0).abs() < 1e-15);
    }
}
