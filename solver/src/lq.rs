//! LQ factorisation (GELQF), the explicit Q (ORGLQ / UNGLQ) and its application (ORMLQ /
//! UNMLQ).
//!
//! GELQF writes A = L·Q (A m×n) with Q = H_kᴴ·…·H₁ᴴ, H_i = I − τ_i·v_i·v_iᴴ, v_i(i) = 1
//! and conj(v_i) stored to the right of the diagonal in row i (LAPACK's layout), L on and
//! below the diagonal. It is the QR factorisation of Aᴴ written back conjugate-transposed:
//! each panel of `BlockSizes::geqrf` rows is copied conjugate-transposed, factored by the
//! unblocked GEQR2 kernel and copied back (the same reflectors and τ as LAPACK's GELQ2),
//! then its block H₁·…·H_b = I − V·T·Vᴴ is applied to the rows below from the right,
//! C ← C − ((C·V)·T)·Vᴴ (GEMM, TRMM, GEMM through rocm-blas).

#![allow(clippy::too_many_arguments)]

use crate::handle::Solver;
use crate::householder::{geqr2, larft, unit_v, Storage};
use crate::matrix::{MatMut, MatRef};
use crate::qr::{host_of, write_vector};
use crate::{check, Scalar};
use rocm_core::linalg::{Side, Transpose};
use rocm_core::{BufferSlice, BufferSliceMut, Result};

impl Solver {
    /// A = L·Q (m×n): L on and below the diagonal, the reflectors (conjugated) to the
    /// right of it, their scalars in `tau` (min(m, n) entries).
    pub fn gelqf<T: Scalar>(
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
        self.engine("gelqf")?;
        let mut taus = vec![T::zero(); m.min(n)];
        self.gelqf_view(MatMut::new(a.reborrow(), m, n, lda), &mut taus)?;
        write_vector("tau", tau, &taus)
    }

    /// GELQF on a checked view; `taus` holds min(rows, cols) scalars.
    pub(crate) fn gelqf_view<T: Scalar>(&self, mut a: MatMut<'_, T>, taus: &mut [T]) -> Result<()> {
        let (m, n) = (a.rows, a.cols);
        let k = m.min(n);
        let nb = self.sizes.geqrf;
        let mut j = 0;
        while j < k {
            let jb = nb.min(k - j);
            let cols = n - j;
            // The panel's rows, conjugate-transposed into a cols × jb column panel.
            let mut p = vec![T::zero(); cols * jb];
            {
                let mut panel = a.sub(j, j, jb, cols)?;
                let ld = panel.ld;
                let mut h = panel.host()?;
                for c in 0..cols {
                    for r in 0..jb {
                        p[c + r * cols] = h[r + c * ld].conj();
                    }
                }
                geqr2(&mut p, cols, jb, cols, &mut taus[j..j + jb]);
                for c in 0..cols {
                    for r in 0..jb {
                        h[r + c * ld] = p[c + r * cols].conj();
                    }
                }
            }
            if j + jb < m {
                let v = unit_v(&p, cols, Storage::Columns, 0, cols, jb);
                let t = larft(&v, cols, jb, &taus[j..j + jb]);
                self.larfb(
                    Side::Right,
                    Transpose::N,
                    &v,
                    &t,
                    cols,
                    jb,
                    a.sub(j + jb, j, m - j - jb, cols)?,
                )?;
            }
            j += jb;
        }
        Ok(())
    }

    /// The first m rows of Q = H_kᴴ·…·H₁ᴴ from [`Solver::gelqf`] (k <= m <= n),
    /// overwriting A (ORGLQ for real types, UNGLQ for complex): rows with orthonormal
    /// conjugates.
    pub fn orglq<T: Scalar>(
        &self,
        m: usize,
        n: usize,
        k: usize,
        a: &mut BufferSliceMut<'_, T>,
        lda: usize,
        tau: &BufferSlice<'_, T>,
    ) -> Result<()> {
        check::dim("n", n)?;
        rocm_core::ensure_arg!(m <= n, "m", "must be <= n = {n}, got {m}");
        rocm_core::ensure_arg!(k <= m, "k", "must be <= m = {m}, got {k}");
        check::matrix("a", "lda", a.len(), m, n, lda)?;
        check::vector("tau", tau.len(), k)?;
        check::device(self.device(), "a", a.device())?;
        check::device(self.device(), "tau", tau.device())?;
        self.engine("orglq")?;
        let taus = host_of("tau", tau)?;
        let mut a = MatMut::new(a.reborrow(), m, n, lda);
        // Q's first m rows = (P's first m columns)ᴴ with P = H₁·…·H_k.
        let x = self.form_p(
            Storage::Rows,
            n,
            m,
            &a.as_ref().sub(0, 0, k, n)?,
            &taus[..k],
        )?;
        let xh = MatRef::new(x.as_slice(), n, m, n.max(1));
        let xs = xh.host()?;
        let ld = a.ld;
        let mut h = a.host()?;
        for j in 0..n {
            for i in 0..m {
                h[i + j * ld] = xs[j + i * n.max(1)].conj();
            }
        }
        Ok(())
    }

    /// [`Solver::orglq`] under LAPACK's complex name.
    pub fn unglq<T: Scalar>(
        &self,
        m: usize,
        n: usize,
        k: usize,
        a: &mut BufferSliceMut<'_, T>,
        lda: usize,
        tau: &BufferSlice<'_, T>,
    ) -> Result<()> {
        self.orglq(m, n, k, a, lda, tau)
    }

    /// C ← op(Q)·C (`side` Left) or C·op(Q) (Right) for Q = H_kᴴ·…·H₁ᴴ from
    /// [`Solver::gelqf`], C m×n; the k reflectors sit in the rows of `a` (k×m for Left,
    /// k×n for Right, lda >= k). op is N or C; T is accepted for real types (ORMLQ /
    /// UNMLQ).
    pub fn ormlq<T: Scalar>(
        &self,
        side: Side,
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
        self.apply_reflectors(
            "ormlq",
            Storage::Rows,
            side,
            trans,
            (m, n, k),
            a,
            lda,
            tau,
            c,
            ldc,
        )
    }

    /// [`Solver::ormlq`] under LAPACK's complex name.
    pub fn unmlq<T: Scalar>(
        &self,
        side: Side,
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
        self.ormlq(side, trans, m, n, k, a, lda, tau, c, ldc)
    }
}
