//! Householder reflectors, shared by QR, LQ, the tridiagonal and the bidiagonal
//! reductions.
//!
//! A reflector is H = I − τ·v·vᴴ with v(0) = 1 (LAPACK's convention; τ may be complex, so
//! H is unitary but not Hermitian). This module holds
//! - LARFG: the reflector that maps a vector to a multiple of e₁ (with a real β);
//! - GEQR2: the unblocked QR of a panel;
//! - GEQRT3: the recursive QR of a panel, Level 3 through rocm-blas, which builds T too;
//! - the compact WY form of k consecutive reflectors, H₁·…·H_k = I − V·T·Vᴴ (LARFT, T
//!   upper triangular), and its application to a matrix from either side through
//!   rocm-blas (LARFB: three GEMMs);
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
use rocm_core::linalg::{Diag, Side, Transpose, Uplo};
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
    let scale = (alpha - T::from_real(beta)).robust_recip();
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

/// xᴴ·y with eight independent partial sums: a single running sum waits on the latency
/// of every add, and these dot products are most of GEQR2's and LARFT's work.
#[inline]
fn dotc<T: Scalar>(x: &[T], y: &[T]) -> T {
    const LANES: usize = 8;
    let mut s = [T::zero(); LANES];
    let body = x.len().min(y.len()) / LANES * LANES;
    for (x8, y8) in x[..body]
        .chunks_exact(LANES)
        .zip(y[..body].chunks_exact(LANES))
    {
        for l in 0..LANES {
            s[l] += x8[l].conj() * y8[l];
        }
    }
    let tail: T = x[body..]
        .iter()
        .zip(&y[body..])
        .map(|(&a, &b)| a.conj() * b)
        .sum();
    ((s[0] + s[1]) + (s[2] + s[3])) + ((s[4] + s[5]) + (s[6] + s[7])) + tail
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
                let w = dotc(v, &c[j..m]);
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
            .map(|p| dotc(&v[p * rows..(p + 1) * rows], vi))
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
    /// Recursive QR of an m×n panel, m >= n (Elmroth–Gustavson; LAPACK's GEQRT3): the
    /// reflectors and τ of [`geqr2`] (the same in exact arithmetic), and the T (n×n upper,
    /// ld n) with H₁·…·H_n = I − V·T·Vᴴ, built along the way.
    ///
    /// With the columns split as [A₁ A₂] (n₁ = ⌊n/2⌋): factor A₁ = Q₁·R₁ recursively
    /// (V₁, T₁), update A₂ ← Q₁ᴴ·A₂ (LARFB), factor the rows of A₂ from n₁ down
    /// recursively (V₂, T₂), and join T = [T₁, −T₁·(V₁ᴴ·V₂)·T₂; 0, T₂] (V₂ is zero above
    /// row n₁, so V₁ᴴ·V₂ reads only V₁'s rows from n₁). Every step but the base case is a
    /// GEMM or TRMM through rocm-blas, so the panel runs at Level-3 speed where GEQR2 is
    /// memory bound; widths up to `BlockSizes::unblocked` take GEQR2 and LARFT.
    pub(crate) fn geqrt3<T: Scalar>(&self, mut a: MatMut<'_, T>, taus: &mut [T]) -> Result<Vec<T>> {
        let (m, n, ld) = (a.rows, a.cols, a.ld);
        rocm_core::ensure_arg!(m >= n, "panel", "internal: {m}×{n} panel wider than tall");
        if n <= self.sizes.unblocked {
            geqr2(&mut a.host()?, m, n, ld, &mut taus[..n]);
            let v = unit_v(&a.host()?, ld, Storage::Columns, 0, m, n);
            return Ok(larft(&v, m, n, &taus[..n]));
        }
        let (n1, n2) = (n / 2, n - n / 2);
        let (mut left, right) = a.split_cols(n1)?;
        let t1 = self.geqrt3(left.rb(), &mut taus[..n1])?;
        let dev = self.device();
        let v1 = dev.upload(&unit_v(&left.host()?, ld, Storage::Columns, 0, m, n1))?;
        let t1 = dev.upload(&t1)?;
        let v1 = MatRef::new(v1.as_slice(), m, n1, m);
        let t1 = MatRef::new(t1.as_slice(), n1, n1, n1);
        let mut right = right;
        self.larfb_views(Side::Left, Transpose::C, &v1, &t1, right.rb())?;
        let mut bottom = right.into_sub(n1, 0, m - n1, n2)?;
        let t2 = self.geqrt3(bottom.rb(), &mut taus[n1..n])?;
        let v2 = dev.upload(&unit_v(
            &bottom.host()?,
            ld,
            Storage::Columns,
            0,
            m - n1,
            n2,
        ))?;
        let t2b = dev.upload(&t2)?;
        let blas = &self.blas;
        let mut w = workspace::<T>(blas, n1, n2)?;
        let mut wv = MatMut::new(w.as_slice_mut(), n1, n2, n1);
        gemm(
            blas,
            Transpose::C,
            Transpose::N,
            T::one(),
            &v1.sub(n1, 0, m - n1, n1)?,
            &MatRef::new(v2.as_slice(), m - n1, n2, m - n1),
            T::zero(),
            &mut wv,
        )?;
        trmm(
            blas,
            Side::Left,
            Uplo::Upper,
            Transpose::N,
            Diag::NonUnit,
            &t1,
            &mut wv,
        )?;
        trmm(
            blas,
            Side::Right,
            Uplo::Upper,
            Transpose::N,
            Diag::NonUnit,
            &MatRef::new(t2b.as_slice(), n2, n2, n2),
            &mut wv,
        )?;
        let t1 = t1.host()?;
        let t12 = wv.host()?;
        let mut t = vec![T::zero(); n * n];
        for j in 0..n1 {
            t[j * n..j * n + n1].copy_from_slice(&t1[j * n1..(j + 1) * n1]);
        }
        for j in 0..n2 {
            let col = &mut t[(n1 + j) * n..(n1 + j + 1) * n];
            for (x, &y) in col[..n1].iter_mut().zip(&t12[j * n1..(j + 1) * n1]) {
                *x = -y;
            }
            col[n1..].copy_from_slice(&t2[j * n2..(j + 1) * n2]);
        }
        Ok(t)
    }

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
        c: MatMut<'_, T>,
    ) -> Result<()> {
        if c.rows == 0 || c.cols == 0 || k == 0 {
            return Ok(());
        }
        let dev = self.device();
        let vb = dev.upload(v)?;
        let tb = dev.upload(t)?;
        let vr = MatRef::new(vb.as_slice(), rows, k, rows.max(1));
        let tr = MatRef::new(tb.as_slice(), k, k, k);
        self.larfb_views(side, op, &vr, &tr, c)
    }

    /// [`Solver::larfb`] with V (rows×k, zeros above its unit diagonal) and T (k×k, zeros
    /// below its diagonal, as [`larft`] and [`Solver::geqrt3`] leave it) already on the
    /// device. op(T) is applied by a GEMM rather than a TRMM: twice the k²·cols
    /// multiply-adds of the triangle, but at GEMM speed, where they are a fraction k/(4·rows)
    /// of the two products with V (a TRMM's small diagonal blocks ran at a fraction of it).
    pub(crate) fn larfb_views<T: Scalar>(
        &self,
        side: Side,
        op: Transpose,
        vr: &MatRef<'_, T>,
        tr: &MatRef<'_, T>,
        mut c: MatMut<'_, T>,
    ) -> Result<()> {
        let k = vr.cols;
        if c.rows == 0 || c.cols == 0 || k == 0 {
            return Ok(());
        }
        let blas = &self.blas;
        let (one, zero) = (T::one(), T::zero());
        // W = Vᴴ·C (k×cols) or C·V (rows×k), then W' = op(T)·W or W·op(T), then
        // C −= V·W' or W'·Vᴴ.
        let (wr, wc) = match side {
            Side::Left => (k, c.cols),
            Side::Right => (c.rows, k),
        };
        let mut w = workspace::<T>(blas, wr, wc)?;
        let mut w2 = workspace::<T>(blas, wr, wc)?;
        let ldw = wr.max(1);
        let mut wv = MatMut::new(w.as_slice_mut(), wr, wc, ldw);
        let mut wv2 = MatMut::new(w2.as_slice_mut(), wr, wc, ldw);
        let cr = c.as_ref();
        match side {
            Side::Left => {
                gemm(
                    blas,
                    Transpose::C,
                    Transpose::N,
                    one,
                    vr,
                    &cr,
                    zero,
                    &mut wv,
                )?;
                gemm(
                    blas,
                    op,
                    Transpose::N,
                    one,
                    tr,
                    &wv.as_ref(),
                    zero,
                    &mut wv2,
                )?;
                gemm(
                    blas,
                    Transpose::N,
                    Transpose::N,
                    -one,
                    vr,
                    &wv2.as_ref(),
                    one,
                    &mut c,
                )
            }
            Side::Right => {
                gemm(
                    blas,
                    Transpose::N,
                    Transpose::N,
                    one,
                    &cr,
                    vr,
                    zero,
                    &mut wv,
                )?;
                gemm(
                    blas,
                    Transpose::N,
                    op,
                    one,
                    &wv.as_ref(),
                    tr,
                    zero,
                    &mut wv2,
                )?;
                gemm(
                    blas,
                    Transpose::N,
                    Transpose::C,
                    -one,
                    &wv2.as_ref(),
                    vr,
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
            let v = unit_v(&host, a.ld, storage, j, rows, jb);
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
            let mut qh = crate::staging::stage_buffer_mut(&mut q)?;
            (0..cols.min(nq)).for_each(|i| qh[i + i * ldq] = T::one());
        }
        let nb = self.sizes.geqrf;
        let mut starts: Vec<usize> = (0..k).step_by(nb).collect();
        starts.reverse();
        let host = a.host()?;
        for j in starts {
            let jb = nb.min(k - j);
            let rows = nq - j;
            let v = unit_v(&host, a.ld, storage, j, rows, jb);
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
    use super::{geqr2, larft, norm2, unit_v, Storage};
    use crate::matrix::MatMut;
    use crate::{BlockSizes, Scalar, Solver};
    use num_complex::{Complex32, Complex64};
    use num_traits::{NumCast, ToPrimitive};
    use proptest::prelude::*;
    use rand::{rngs::StdRng, Rng, SeedableRng};

    /// LAPACK's pass threshold for a scaled difference.
    const THRESHOLD: f64 = 30.0;
    /// Bound on the 2-norm condition number of [`well_conditioned`]'s leading k columns.
    const KAPPA: f64 = 3.0;

    /// A = G + s·[I 0; 0 0] (m×n, ld m), G uniform in [−1, 1) (real and imaginary parts),
    /// s = 2·(√m + √n) + 1. ‖G‖₂ is about √(2/3)·(√m + √n) <= s/2, so the leading
    /// min(m, n) columns have singular values in [s/2, 3s/2]: κ <= 3 = [`KAPPA`].
    fn well_conditioned<T: Scalar>(m: usize, n: usize, seed: u64) -> Vec<T> {
        let mut rng = StdRng::seed_from_u64(seed);
        let s = 2.0 * ((m as f64).sqrt() + (n as f64).sqrt()) + 1.0;
        let real = |x: f64| -> T::Real { NumCast::from(x).unwrap() };
        let mut a = vec![T::zero(); m * n];
        for j in 0..n {
            for i in 0..m {
                let re = rng.random_range(-1.0..1.0) + if i == j { s } else { 0.0 };
                let im = if T::IS_COMPLEX {
                    rng.random_range(-1.0..1.0)
                } else {
                    0.0
                };
                a[i + j * m] = T::from_parts(real(re), real(im));
            }
        }
        a
    }

    fn frobenius<T: Scalar>(x: &[T]) -> f64 {
        crate::reference::Wide::from(x, x.len(), 1, x.len().max(1)).norm_fro()
    }

    /// ‖x − y‖_F / (‖y‖_F · m · κ · ε): both are the same backward-stable factorisation
    /// of a matrix with condition <= κ (backward errors of order m·ε·‖A‖, so first-order
    /// perturbation theory bounds the factors' difference by a small multiple of κ·m·ε),
    /// so a correct pair gives a ratio of order 1 (0 when y is 0 and x equals it).
    fn difference<T: Scalar>(x: &[T], y: &[T], m: usize) -> f64 {
        let d: Vec<T> = x.iter().zip(y).map(|(&a, &b)| a - b).collect();
        let eps = T::eps().to_f64().unwrap();
        let scale = frobenius(y).max(f64::MIN_POSITIVE) * m.max(1) as f64 * KAPPA * eps;
        frobenius(&d) / scale
    }

    fn solver(nb: usize, base: usize) -> Solver {
        let mut sizes = BlockSizes::for_target(rocm_core::Device::cpu().target());
        sizes.geqrf = nb;
        sizes.unblocked = base;
        sizes.small = 0;
        Solver::new(&rocm_core::Device::cpu()).with_block_sizes(sizes)
    }

    /// The recursive panel (GEQRT3) against GEQR2 + LARFT on an m×n panel (m >= n):
    /// R, the reflectors, τ and T agree within [`difference`] < 30.
    fn panel_matches<T: Scalar>(m: usize, n: usize, base: usize, seed: u64) {
        let a = well_conditioned::<T>(m, n, seed);
        let mut reference = a.clone();
        let mut tau_ref = vec![T::zero(); n];
        geqr2(&mut reference, m, n, m, &mut tau_ref);
        let t_ref = larft(
            &unit_v(&reference, m, Storage::Columns, 0, m, n),
            m,
            n,
            &tau_ref,
        );
        let s = solver(64, base);
        let mut buf = s.device().upload(&a).unwrap();
        let mut tau = vec![T::zero(); n];
        let t = s
            .geqrt3(MatMut::new(buf.as_slice_mut(), m, n, m), &mut tau)
            .unwrap();
        let out = buf.to_vec().unwrap();
        let what = format!("{m}x{n} base {base} ({})", std::any::type_name::<T>());
        for (name, x, y) in [
            ("factor", &out, &reference),
            ("tau", &tau, &tau_ref),
            ("T", &t, &t_ref),
        ] {
            let r = difference(x, y, m);
            assert!(r < THRESHOLD, "{what}: {name} differs, ratio {r}");
        }
    }

    /// Blocked GEQRF (panels of `nb`, recursive down to `base`) against GEQR2 on the
    /// whole m×n matrix, any shape: the factor and τ agree within [`difference`] < 30.
    fn geqrf_matches<T: Scalar>(m: usize, n: usize, nb: usize, base: usize, seed: u64) {
        let a = well_conditioned::<T>(m, n, seed);
        let k = m.min(n);
        let mut reference = a.clone();
        let mut tau_ref = vec![T::zero(); k];
        geqr2(&mut reference, m, n, m.max(1), &mut tau_ref);
        let s = solver(nb, base);
        let mut buf = s.device().upload(&a).unwrap();
        let mut tau = vec![T::zero(); k];
        s.geqrf_view(MatMut::new(buf.as_slice_mut(), m, n, m.max(1)), &mut tau)
            .unwrap();
        let out = buf.to_vec().unwrap();
        let what = format!(
            "{m}x{n} nb {nb} base {base} ({})",
            std::any::type_name::<T>()
        );
        let r = difference(&out, &reference, m.max(n));
        assert!(r < THRESHOLD, "{what}: factor differs, ratio {r}");
        let r = difference(&tau, &tau_ref, m.max(n));
        assert!(r < THRESHOLD, "{what}: tau differs, ratio {r}");
    }

    fn every_dtype(f: impl Fn(u8)) {
        (0..4).for_each(f)
    }

    macro_rules! by_dtype {
        ($d:expr, $f:ident, $($arg:expr),*) => {
            match $d {
                0 => $f::<f32>($($arg),*),
                1 => $f::<f64>($($arg),*),
                2 => $f::<Complex32>($($arg),*),
                _ => $f::<Complex64>($($arg),*),
            }
        };
    }

    /// Widths around the CPU cut-off (16) and its doublings, square, one row taller and
    /// tall with odd heights, every dtype.
    #[test]
    fn recursive_panel_around_the_cut_off() {
        every_dtype(|d| {
            for n in [1usize, 2, 15, 16, 17, 31, 32, 33, 63, 64, 65] {
                for m in [n, n + 1, 3 * n + 7] {
                    by_dtype!(d, panel_matches, m, n, 16, (m * 131 + n) as u64);
                }
            }
        });
    }

    /// The recursive panel needs m >= n; a wider panel is an error, not a panic.
    #[test]
    fn recursive_panel_rejects_a_wide_panel() {
        let s = solver(64, 4);
        let mut buf = s.device().upload(&[1.0f64; 6]).unwrap();
        let mut tau = [0.0; 3];
        assert!(s
            .geqrt3(MatMut::new(buf.as_slice_mut(), 2, 3, 2), &mut tau)
            .is_err());
    }

    /// Blocked GEQRF with the CPU table's sizes around the panel width and cut-off,
    /// including wide shapes.
    #[test]
    fn blocked_geqrf_with_the_cpu_table() {
        let (nb, base) = (64, 16);
        every_dtype(|d| {
            for (m, n) in [
                (130, 130),
                (129, 65),
                (65, 129),
                (200, 17),
                (17, 200),
                (97, 96),
            ] {
                by_dtype!(d, geqrf_matches, m, n, nb, base, (m * 7 + n) as u64);
            }
        });
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(48))]

        /// Random tall or square panels and cut-offs.
        #[test]
        fn recursive_panel_any_shape(n in 1usize..48, extra in 0usize..40, base in 1usize..10,
                                     d in 0u8..4, seed in 0u64..1000) {
            by_dtype!(d, panel_matches, n + extra, n, base, seed);
        }

        /// Random shapes (m < n, m = n, m > n), panel widths and cut-offs.
        #[test]
        fn blocked_geqrf_any_shape(m in 1usize..60, n in 1usize..60, nb in 1usize..24,
                                   base in 1usize..8, d in 0u8..4, seed in 0u64..1000) {
            by_dtype!(d, geqrf_matches, m, n, nb, base, seed);
        }
    }

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
