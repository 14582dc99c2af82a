//! QR factorisation (GEQRF) and the explicit Q (ORGQR / UNGQR), blocked with the compact
//! WY form.
//!
//! GEQRF writes A = Q·R with Q = H₁·H₂·…·H_k, H_i = I − τ_i·v_i·v_iᴴ (v_i(i) = 1, stored
//! below the diagonal, LAPACK's layout). Each panel of `BlockSizes::geqrf` columns is
//! factored by the unblocked GEQR2 kernel; its reflectors are gathered into
//! H = I − V·T·Vᴴ (LARFT, T upper triangular) and applied to the trailing columns as
//! C ← C − V·(Tᴴ·(Vᴴ·C)) (LARFB: GEMM, TRMM, GEMM through rocm-blas). ORMQR applies Q
//! the same way; GELS (m >= n) is GEQRF, ORMQR and a TRSM with R.

#![allow(clippy::too_many_arguments)]

use crate::blas3::{gemm, trmm, trsm, workspace};
use crate::handle::{Info, Solver};
use crate::matrix::{MatMut, MatRef};
use crate::{check, Scalar};
use num_traits::{Float, Zero};
use rocm_blas::{Diag, Side, Transpose, Uplo};
use rocm_core::{BufferSlice, BufferSliceMut, Error, Result};

/// LAPACK's LARFG: for (α, x) returns (β, τ) and scales x into v's tail so that
/// (I − τ·v·vᴴ)ᴴ·[α; x] = [β; 0], β real.
fn larfg<T: Scalar>(alpha: T, x: &mut [T]) -> (T, T) {
    let xnorm = x
        .iter()
        .map(|v| v.modulus())
        .fold(<T::Real as Zero>::zero(), |a, b| a.hypot(b));
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

/// Unblocked QR of an m×n host matrix (GEQR2); `tau` gets min(m, n) scalars.
fn geqr2<T: Scalar>(a: &mut [T], m: usize, n: usize, ld: usize, tau: &mut [T]) {
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

/// V (rows × k, unit lower trapezoidal with zeros above) copied out of the panel.
fn unit_v<T: Scalar>(panel: &[T], rows: usize, k: usize, ld: usize) -> Vec<T> {
    let mut v = vec![T::zero(); rows.max(1) * k];
    for j in 0..k {
        v[j + j * rows] = T::one();
        for i in j + 1..rows {
            v[i + j * rows] = panel[i + j * ld];
        }
    }
    v
}

/// LARFT (forward, columnwise): T (k×k upper) with H₁·…·H_k = I − V·T·Vᴴ.
fn larft<T: Scalar>(v: &[T], rows: usize, k: usize, tau: &[T]) -> Vec<T> {
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

impl Solver {
    /// A = Q·R (m×n): R on and above the diagonal, the reflectors below it, their scalars
    /// in `tau` (min(m, n) entries).
    pub fn geqrf<T: Scalar>(
        &self,
        m: usize,
        n: usize,
        a: &mut BufferSliceMut<'_, T>,
        lda: usize,
        tau: &mut BufferSliceMut<'_, T>,
    ) -> Result<()> {
        check::dim("m", m)?;
        check::dim("n", n)?;
        check::matrix("a", "lda", a.len(), m, n, lda)?;
        check::vector("tau", tau.len(), m.min(n))?;
        check::device(self.device(), "a", a.device())?;
        check::device(self.device(), "tau", tau.device())?;
        self.engine("geqrf")?;
        let k = m.min(n);
        let mut taus = vec![T::zero(); k];
        let mut a = MatMut::new(a.reborrow(), m, n, lda);
        let nb = self.sizes.geqrf;
        let mut j = 0;
        while j < k {
            let jb = nb.min(k - j);
            let rows = m - j;
            let mut panel = a.sub(j, j, rows, jb)?;
            let ld = panel.ld;
            geqr2(panel.host()?, rows, jb, ld, &mut taus[j..j + jb]);
            if j + jb < n {
                let v = unit_v(panel.host()?, rows, jb, ld);
                let t = larft(&v, rows, jb, &taus[j..j + jb]);
                self.larfb(
                    Transpose::C,
                    &v,
                    &t,
                    rows,
                    jb,
                    a.sub(j, j + jb, rows, n - j - jb)?,
                )?;
            }
            j += jb;
        }
        let device = tau.device();
        let h = tau
            .as_host_mut()
            .ok_or_else(|| Error::unsupported("host access to `tau`", device))?;
        h[..k].copy_from_slice(&taus);
        Ok(())
    }

    /// C ← op(H)·C with H = I − V·T·Vᴴ (op = N or C): C −= V·(op(T)·(Vᴴ·C)).
    fn larfb<T: Scalar>(
        &self,
        op: Transpose,
        v: &[T],
        t: &[T],
        rows: usize,
        k: usize,
        mut c: MatMut<'_, T>,
    ) -> Result<()> {
        let blas = &self.blas;
        let dev = self.device();
        let vb = dev.upload(v)?;
        let tb = dev.upload(t)?;
        let vr = MatRef::new(vb.as_slice(), rows, k, rows.max(1));
        let tr = MatRef::new(tb.as_slice(), k, k, k);
        let mut w = workspace::<T>(blas, k, c.cols)?;
        let mut wv = MatMut::new(w.as_slice_mut(), k, c.cols, k);
        gemm(
            blas,
            Transpose::C,
            Transpose::N,
            T::one(),
            &vr,
            &c.as_ref(),
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
            -T::one(),
            &vr,
            &wv.as_ref(),
            T::one(),
            &mut c,
        )
    }

    /// The first n columns of Q = H₁·…·H_k from [`Solver::geqrf`] (m >= n >= k),
    /// overwriting A (ORGQR for real types, UNGQR for complex).
    pub fn orgqr<T: Scalar>(
        &self,
        m: usize,
        n: usize,
        k: usize,
        a: &mut BufferSliceMut<'_, T>,
        lda: usize,
        tau: &BufferSlice<'_, T>,
    ) -> Result<()> {
        check::dim("m", m)?;
        rocm_core::ensure_arg!(n <= m, "n", "must be <= m = {m}, got {n}");
        rocm_core::ensure_arg!(k <= n, "k", "must be <= n = {n}, got {k}");
        check::matrix("a", "lda", a.len(), m, n, lda)?;
        check::vector("tau", tau.len(), k)?;
        check::device(self.device(), "a", a.device())?;
        check::device(self.device(), "tau", tau.device())?;
        self.engine("orgqr")?;
        let taus = tau
            .as_host()
            .ok_or_else(|| Error::unsupported("host access to `tau`", tau.device()))?;
        let mut a = MatMut::new(a.reborrow(), m, n, lda);
        // Q starts as the identity's first n columns; blocks apply from the last.
        let mut q = workspace::<T>(&self.blas, m, n)?;
        {
            let qh = q
                .as_host_mut()
                .ok_or_else(|| Error::unsupported("host access", self.device()))?;
            (0..n).for_each(|i| qh[i + i * m.max(1)] = T::one());
        }
        let nb = self.sizes.geqrf;
        let mut starts: Vec<usize> = (0..k).step_by(nb).collect();
        starts.reverse();
        for j in starts {
            let jb = nb.min(k - j);
            let rows = m - j;
            let ld = a.ld;
            let v = unit_v(a.sub(j, j, rows, jb)?.host()?, rows, jb, ld);
            let t = larft(&v, rows, jb, &taus[j..j + jb]);
            let qv = MatMut::new(q.as_slice_mut(), m, n, m.max(1)).into_sub(j, j, rows, n - j)?;
            self.larfb(Transpose::N, &v, &t, rows, jb, qv)?;
        }
        crate::blas3::copy(&MatRef::new(q.as_slice(), m, n, m.max(1)), &mut a)
    }

    /// [`Solver::orgqr`] under LAPACK's complex name.
    pub fn ungqr<T: Scalar>(
        &self,
        m: usize,
        n: usize,
        k: usize,
        a: &mut BufferSliceMut<'_, T>,
        lda: usize,
        tau: &BufferSlice<'_, T>,
    ) -> Result<()> {
        self.orgqr(m, n, k, a, lda, tau)
    }

    /// C ← op(Q)·C for Q = H₁·…·H_k from [`Solver::geqrf`] (m×m, reflectors in the m×k
    /// `a`), C m×n (ORMQR / UNMQR with side = Left; op = N, T or C, T meaning C for
    /// complex types only when it is real).
    pub fn ormqr<T: Scalar>(
        &self,
        trans: Transpose,
        m: usize,
        n: usize,
        k: usize,
        a: &BufferSlice<'_, T>,
        lda: usize,
        tau: &BufferSlice<'_, T>,
        c: &mut BufferSliceMut<'_, T>,
        ldc: usize,
    ) -> Result<()> {
        check::dim("m", m)?;
        check::dim("n", n)?;
        rocm_core::ensure_arg!(k <= m, "k", "must be <= m = {m}, got {k}");
        rocm_core::ensure_arg!(
            !(T::IS_COMPLEX && trans == Transpose::T),
            "trans",
            "complex Q takes N or C"
        );
        check::matrix("a", "lda", a.len(), m, k, lda)?;
        check::vector("tau", tau.len(), k)?;
        check::matrix("c", "ldc", c.len(), m, n, ldc)?;
        check::device(self.device(), "a", a.device())?;
        check::device(self.device(), "tau", tau.device())?;
        check::device(self.device(), "c", c.device())?;
        self.engine("ormqr")?;
        let taus = tau
            .as_host()
            .ok_or_else(|| Error::unsupported("host access to `tau`", tau.device()))?;
        let a = MatRef::new(*a, m, k, lda);
        let mut c = MatMut::new(c.reborrow(), m, n, ldc);
        let op = if trans == Transpose::N {
            Transpose::N
        } else {
            Transpose::C
        };
        let nb = self.sizes.geqrf;
        let mut starts: Vec<usize> = (0..k).step_by(nb).collect();
        // Qᴴ·C = H_kᴴ·…·H₁ᴴ·C applies the first block first; Q·C the last block first.
        if op == Transpose::N {
            starts.reverse();
        }
        for j in starts {
            let jb = nb.min(k - j);
            let rows = m - j;
            let v = unit_v(a.sub(j, j, rows, jb)?.host()?, rows, jb, lda);
            let t = larft(&v, rows, jb, &taus[j..j + jb]);
            self.larfb(op, &v, &t, rows, jb, c.sub(j, 0, rows, n)?)?;
        }
        Ok(())
    }

    /// [`Solver::ormqr`] under LAPACK's complex name.
    pub fn unmqr<T: Scalar>(
        &self,
        trans: Transpose,
        m: usize,
        n: usize,
        k: usize,
        a: &BufferSlice<'_, T>,
        lda: usize,
        tau: &BufferSlice<'_, T>,
        c: &mut BufferSliceMut<'_, T>,
        ldc: usize,
    ) -> Result<()> {
        self.ormqr(trans, m, n, k, a, lda, tau, c, ldc)
    }

    /// Least squares min ‖A·X − B‖ for an m×n A of full column rank, m >= n (GELS with
    /// trans = N, through GEQRF): A is overwritten by its QR factors, the first n rows of
    /// B (m×nrhs) by X. `info = i > 0`: R[i-1, i-1] is zero (A is rank deficient), B then
    /// holds Qᴴ·B. Under-determined systems (m < n) are not built yet and are refused.
    pub fn gels<T: Scalar>(
        &self,
        m: usize,
        n: usize,
        nrhs: usize,
        a: &mut BufferSliceMut<'_, T>,
        lda: usize,
        b: &mut BufferSliceMut<'_, T>,
        ldb: usize,
    ) -> Result<Info> {
        if m < n {
            return Err(Error::unsupported(
                "gels with m < n (under-determined)",
                self.device(),
            ));
        }
        check::dim("nrhs", nrhs)?;
        check::matrix("b", "ldb", b.len(), m, nrhs, ldb)?;
        check::device(self.device(), "b", b.device())?;
        let mut tau = self.device().alloc::<T>(n.max(1))?;
        self.geqrf(m, n, a, lda, &mut tau.as_slice_mut())?;
        self.ormqr(
            Transpose::C,
            m,
            nrhs,
            n,
            &a.as_slice(),
            lda,
            &tau.as_slice(),
            b,
            ldb,
        )?;
        let ar = MatRef::new(a.as_slice(), m, n, lda);
        let ah = ar.host()?;
        if let Some(i) = (0..n).find(|&i| ah[i + i * lda] == T::zero()) {
            return Ok(Info(i + 1));
        }
        trsm(
            &self.blas,
            Side::Left,
            Uplo::Upper,
            Transpose::N,
            Diag::NonUnit,
            T::one(),
            &ar.sub(0, 0, n, n)?,
            &mut MatMut::new(b.reborrow(), m, nrhs, ldb).into_sub(0, 0, n, nrhs)?,
        )?;
        Ok(Info::OK)
    }
}
