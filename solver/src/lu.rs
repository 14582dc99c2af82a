//! LU factorisation with partial pivoting and what builds on it: GETRF, GETRS, GESV,
//! GETRI.
//!
//! GETRF computes P·A = L·U (L unit lower trapezoidal, U upper trapezoidal) blocked and
//! right-looking: for each panel of `BlockSizes::getrf` columns,
//!
//! ```text
//!   [A11]            [L11]
//!   [A21] = P_panel · [L21] · U11      (panel, recursive: LAPACK's GETRF2)
//!   A12 ← L11⁻¹ · A12                  (TRSM)
//!   A22 ← A22 − L21 · A12              (GEMM)
//! ```
//!
//! The panel itself is factored recursively (split its columns in halves: factor the
//! left half, TRSM + GEMM the right half, factor the rest), so almost all of its work is
//! GEMM as well; below `BlockSizes::unblocked` columns the unblocked GETF2 kernel runs.
//! Pivots are LAPACK's: `ipiv[i] = p` (1-based) means row i was swapped with row p.

#![allow(clippy::too_many_arguments)]

use crate::blas3::{copied, gemm, trsm, workspace};
use crate::handle::{Info, Solver};
use crate::matrix::{MatMut, MatRef};
use crate::{check, kernels, Scalar};
use rocm_core::linalg::{Diag, Side, Transpose, Uplo};
use rocm_core::{BufferSlice, BufferSliceMut, Result};

impl Solver {
    /// P·A = L·U of the m×n matrix A (overwritten by L below the diagonal and U on and
    /// above it); `ipiv` (at least min(m, n) entries) receives the 1-based pivots.
    /// `info = k > 0`: U[k-1, k-1] is exactly zero (the factorisation is complete, U is
    /// singular).
    pub fn getrf<T: Scalar>(
        &self,
        m: usize,
        n: usize,
        a: &mut BufferSliceMut<'_, T>,
        lda: usize,
        ipiv: &mut BufferSliceMut<'_, i32>,
    ) -> Result<Info> {
        check::dim("m", m)?;
        check::dim("n", n)?;
        check::matrix("a", "lda", a.len(), m, n, lda)?;
        check::vector("ipiv", ipiv.len(), m.min(n))?;
        check::device(self.device(), "a", a.device())?;
        check::device(self.device(), "ipiv", ipiv.device())?;
        self.engine("getrf")?;
        let mut piv = vec![0usize; m.min(n)];
        let info = self.getrf_view(MatMut::new(a.reborrow(), m, n, lda), &mut piv)?;
        write_pivots(ipiv, &piv).map(|_| info)
    }

    /// GETRF on a checked view with 0-based pivots.
    pub(crate) fn getrf_view<T: Scalar>(
        &self,
        mut a: MatMut<'_, T>,
        piv: &mut [usize],
    ) -> Result<Info> {
        let (m, n) = (a.rows, a.cols);
        let mn = m.min(n);
        if mn == 0 {
            return Ok(Info::OK);
        }
        if mn <= self.sizes.small {
            let ld = a.ld;
            return Ok(Info(kernels::getf2(&mut a.host()?, m, n, ld, piv)));
        }
        let nb = self.sizes.getrf;
        let mut info = Info::OK;
        let mut k = 0;
        while k < mn {
            let jb = nb.min(mn - k);
            let panel = self.getrf_panel(a.sub(k, k, m - k, jb)?, &mut piv[k..k + jb])?;
            info = info.first(panel.shifted(k));
            let local = &piv[k..k + jb];
            kernels::laswp(&mut a.sub(k, 0, m - k, k)?, local, true)?;
            if k + jb < n {
                kernels::laswp(&mut a.sub(k, k + jb, m - k, n - k - jb)?, local, true)?;
                self.lu_update(a.sub(k, k, m - k, n - k)?, jb)?;
            }
            piv[k..k + jb].iter_mut().for_each(|p| *p += k);
            k += jb;
        }
        Ok(info)
    }

    /// The right-looking update after the first `jb` columns of `a` hold L (rows already
    /// swapped): A12 ← L11⁻¹·A12, A22 ← A22 − L21·A12.
    fn lu_update<T: Scalar>(&self, a: MatMut<'_, T>, jb: usize) -> Result<()> {
        let (m, n) = (a.rows, a.cols);
        let (left, mut right) = a.split_cols(jb)?;
        let l11 = left.as_ref().sub(0, 0, jb, jb)?;
        trsm(
            &self.blas,
            Side::Left,
            Uplo::Lower,
            Transpose::N,
            Diag::Unit,
            T::one(),
            &l11,
            &mut right.sub(0, 0, jb, n - jb)?,
        )?;
        if m > jb {
            // A12 and A22 interleave in memory: GEMM reads a copy of A12.
            let u12 = copied(&self.blas, &right.as_ref().sub(0, 0, jb, n - jb)?)?;
            let u12 = MatRef::new(u12.as_slice(), jb, n - jb, jb);
            gemm(
                &self.blas,
                Transpose::N,
                Transpose::N,
                -T::one(),
                &left.as_ref().sub(jb, 0, m - jb, jb)?,
                &u12,
                T::one(),
                &mut right.sub(jb, 0, m - jb, n - jb)?,
            )?;
        }
        Ok(())
    }

    /// Recursive LU of a tall panel (m >= n), LAPACK's GETRF2.
    fn getrf_panel<T: Scalar>(&self, a: MatMut<'_, T>, piv: &mut [usize]) -> Result<Info> {
        let (m, n) = (a.rows, a.cols);
        if n <= self.sizes.unblocked {
            let mut a = a;
            let ld = a.ld;
            return Ok(Info(kernels::getf2(&mut a.host()?, m, n, ld, piv)));
        }
        let n1 = n / 2;
        let n2 = n - n1;
        let mut a = a;
        let first = {
            let (left, _) = a.rb().split_cols(n1)?;
            self.getrf_panel(left, &mut piv[..n1])?
        };
        kernels::laswp(&mut a.sub(0, n1, m, n2)?, &piv[..n1], true)?;
        self.lu_update(a.rb(), n1)?;
        let second = self.getrf_panel(a.sub(n1, n1, m - n1, n2)?, &mut piv[n1..n])?;
        kernels::laswp(&mut a.sub(n1, 0, m - n1, n1)?, &piv[n1..n], true)?;
        piv[n1..n].iter_mut().for_each(|p| *p += n1);
        Ok(first.first(second.shifted(n1)))
    }

    /// Solves op(A)·X = B with A = P·L·U from [`Solver::getrf`] (n×n); B (n×nrhs) is
    /// overwritten by X.
    pub fn getrs<T: Scalar>(
        &self,
        trans: Transpose,
        n: usize,
        nrhs: usize,
        a: &BufferSlice<'_, T>,
        lda: usize,
        ipiv: &BufferSlice<'_, i32>,
        b: &mut BufferSliceMut<'_, T>,
        ldb: usize,
    ) -> Result<()> {
        check::dim("n", n)?;
        check::dim("nrhs", nrhs)?;
        check::matrix("a", "lda", a.len(), n, n, lda)?;
        check::vector("ipiv", ipiv.len(), n)?;
        check::matrix("b", "ldb", b.len(), n, nrhs, ldb)?;
        check::device(self.device(), "a", a.device())?;
        check::device(self.device(), "ipiv", ipiv.device())?;
        check::device(self.device(), "b", b.device())?;
        self.engine("getrs")?;
        let piv = read_pivots(ipiv, n)?;
        self.getrs_view(
            trans,
            &MatRef::new(*a, n, n, lda),
            &piv,
            MatMut::new(b.reborrow(), n, nrhs, ldb),
        )
    }

    pub(crate) fn getrs_view<T: Scalar>(
        &self,
        trans: Transpose,
        a: &MatRef<'_, T>,
        piv: &[usize],
        mut b: MatMut<'_, T>,
    ) -> Result<()> {
        if a.rows == 0 || b.cols == 0 {
            return Ok(());
        }
        let blas = &self.blas;
        let one = T::one();
        if trans == Transpose::N {
            kernels::laswp(&mut b, piv, true)?;
            trsm(
                blas,
                Side::Left,
                Uplo::Lower,
                trans,
                Diag::Unit,
                one,
                a,
                &mut b,
            )?;
            trsm(
                blas,
                Side::Left,
                Uplo::Upper,
                trans,
                Diag::NonUnit,
                one,
                a,
                &mut b,
            )
        } else {
            trsm(
                blas,
                Side::Left,
                Uplo::Upper,
                trans,
                Diag::NonUnit,
                one,
                a,
                &mut b,
            )?;
            trsm(
                blas,
                Side::Left,
                Uplo::Lower,
                trans,
                Diag::Unit,
                one,
                a,
                &mut b,
            )?;
            kernels::laswp(&mut b, piv, false)
        }
    }

    /// Solves A·X = B (GETRF then GETRS); A is overwritten by its LU factors, B by X. When
    /// `info > 0` (A exactly singular) B is left as it was.
    pub fn gesv<T: Scalar>(
        &self,
        n: usize,
        nrhs: usize,
        a: &mut BufferSliceMut<'_, T>,
        lda: usize,
        ipiv: &mut BufferSliceMut<'_, i32>,
        b: &mut BufferSliceMut<'_, T>,
        ldb: usize,
    ) -> Result<Info> {
        check::dim("nrhs", nrhs)?;
        check::matrix("b", "ldb", b.len(), n, nrhs, ldb)?;
        check::device(self.device(), "b", b.device())?;
        let info = self.getrf(n, n, a, lda, ipiv)?;
        if info.is_ok() {
            self.getrs(
                Transpose::N,
                n,
                nrhs,
                &a.as_slice(),
                lda,
                &ipiv.as_slice(),
                b,
                ldb,
            )?;
        }
        Ok(info)
    }

    /// A⁻¹ from the LU factors of [`Solver::getrf`] (n×n), in place. `info = k > 0`: U[k-1,
    /// k-1] is zero, A is singular and left unchanged.
    ///
    /// Blocked as LAPACK's GETRI: invert U (TRTRI), then solve X·L = U⁻¹ block column by
    /// block column from the right (GEMM + TRSM), then undo the pivots on the columns.
    pub fn getri<T: Scalar>(
        &self,
        n: usize,
        a: &mut BufferSliceMut<'_, T>,
        lda: usize,
        ipiv: &BufferSlice<'_, i32>,
    ) -> Result<Info> {
        check::dim("n", n)?;
        check::matrix("a", "lda", a.len(), n, n, lda)?;
        check::vector("ipiv", ipiv.len(), n)?;
        check::device(self.device(), "a", a.device())?;
        check::device(self.device(), "ipiv", ipiv.device())?;
        self.engine("getri")?;
        let piv = read_pivots(ipiv, n)?;
        let mut a = MatMut::new(a.reborrow(), n, n, lda);
        let info = self.trtri_view(Uplo::Upper, Diag::NonUnit, a.rb())?;
        if !info.is_ok() || n == 0 {
            return Ok(info);
        }
        let nb = self.sizes.getri;
        let mut w = workspace::<T>(&self.blas, n, nb)?;
        let mut j = ((n - 1) / nb) * nb;
        loop {
            let jb = nb.min(n - j);
            // W = strictly lower part of block column j (rows below each diagonal element),
            // which is zeroed in A.
            {
                let mut wv = MatMut::new(w.as_slice_mut(), n, jb, n);
                let mut wh = wv.host()?;
                wh.iter_mut().for_each(|x| *x = T::zero());
                let mut ah = a.host()?;
                for c in 0..jb {
                    let col = j + c;
                    for i in col + 1..n {
                        wh[i + c * n] = ah[i + col * lda];
                        ah[i + col * lda] = T::zero();
                    }
                }
            }
            let (_, rest) = a.rb().split_cols(j)?;
            let (mut cur, next) = rest.split_cols(jb)?;
            let wr = MatRef::new(w.as_slice(), n, jb, n);
            if j + jb < n {
                gemm(
                    &self.blas,
                    Transpose::N,
                    Transpose::N,
                    -T::one(),
                    &next.as_ref(),
                    &wr.sub(j + jb, 0, n - j - jb, jb)?,
                    T::one(),
                    &mut cur,
                )?;
            }
            trsm(
                &self.blas,
                Side::Right,
                Uplo::Lower,
                Transpose::N,
                Diag::Unit,
                T::one(),
                &wr.sub(j, 0, jb, jb)?,
                &mut cur,
            )?;
            if j == 0 {
                break;
            }
            j -= nb;
        }
        // Undo the row interchanges of P as column interchanges, last first.
        let mut ah = a.host()?;
        for c in (0..n.saturating_sub(1)).rev() {
            let p = piv[c];
            if p != c {
                for i in 0..n {
                    ah.swap(i + c * lda, i + p * lda);
                }
            }
        }
        Ok(Info::OK)
    }
}

/// Stores 0-based pivots as LAPACK's 1-based `i32`.
pub(crate) fn write_pivots(ipiv: &mut BufferSliceMut<'_, i32>, piv: &[usize]) -> Result<()> {
    let mut h = crate::staging::stage_mut(ipiv, piv.len())?;
    for (o, &p) in h.iter_mut().zip(piv) {
        *o = (p + 1) as i32;
    }
    h.commit()
}

/// Reads and checks `n` 1-based pivots.
pub(crate) fn read_pivots(ipiv: &BufferSlice<'_, i32>, n: usize) -> Result<Vec<usize>> {
    let h = crate::staging::stage(ipiv, n)?;
    check::pivots("ipiv", &h[..n], n)
}
