//! Cholesky factorisation and what builds on it: POTRF, POTRS, POSV, POTRI.
//!
//! POTRF computes A = L·Lᴴ (Lower) or A = Uᴴ·U (Upper) of a Hermitian positive definite
//! A, blocked and right-looking: for each block of `BlockSizes::potrf` columns (lower)
//!
//! ```text
//!   A11 = L11·L11ᴴ           (diagonal block, recursive)
//!   L21 ← A21·L11⁻ᴴ           (TRSM)
//!   A22 ← A22 − L21·L21ᴴ      (HERK, lower triangle only)
//! ```
//!
//! The diagonal block is factored by the same step recursively (halves) down to
//! `BlockSizes::unblocked`, where the unblocked POTF2 kernel runs. Only the `uplo`
//! triangle of A is read or written.

#![allow(clippy::too_many_arguments)]

use crate::blas3::{copied, gemm, herk, herk_lower_columns, trsm};
use crate::handle::{Info, Solver};
use crate::matrix::{MatMut, MatRef};
use crate::{check, kernels, Scalar};
use num_traits::One;
use rocm_core::linalg::{Diag, Side, Transpose, Uplo};
use rocm_core::{BufferSlice, BufferSliceMut, Result};

/// Width of the block columns the lookahead's trailing update is split into.
const TRAILING_COLUMNS: usize = 64;

impl Solver {
    /// Cholesky factor of the n×n Hermitian positive definite A in its `uplo` triangle.
    /// `info = k > 0`: the leading minor of order k is not positive definite (the
    /// factorisation stopped there).
    pub fn potrf<T: Scalar>(
        &self,
        uplo: Uplo,
        n: usize,
        a: &mut BufferSliceMut<'_, T>,
        lda: usize,
    ) -> Result<Info> {
        check::dim("n", n)?;
        check::matrix("a", "lda", a.len(), n, n, lda)?;
        check::device(self.device(), "a", a.device())?;
        self.engine("potrf")?;
        self.potrf_view(uplo, MatMut::new(a.reborrow(), n, n, lda))
    }

    pub(crate) fn potrf_view<T: Scalar>(&self, uplo: Uplo, mut a: MatMut<'_, T>) -> Result<Info> {
        let n = a.rows;
        if n <= self.sizes.small {
            let ld = a.ld;
            return Ok(Info(kernels::potf2(uplo, &mut a.host()?, n, ld)));
        }
        if uplo == Uplo::Lower {
            return self.potrf_lower_lookahead(a);
        }
        let nb = self.sizes.potrf;
        let mut k = 0;
        while k < n {
            let jb = nb.min(n - k);
            let info = self.potrf_rec(uplo, a.sub(k, k, jb, jb)?)?;
            if !info.is_ok() {
                return Ok(info.shifted(k));
            }
            if k + jb < n {
                self.cholesky_update(uplo, a.sub(k, k, n - k, n - k)?, jb)?;
            }
            k += jb;
        }
        Ok(Info::OK)
    }

    /// Lower POTRF with a lookahead of one block: once block column k is final, the next
    /// block column is updated with it first; then the next panel is factored (its
    /// diagonal block recursively, the rows below by TRSM) while the rest of the trailing
    /// matrix is updated (HERK), the two on disjoint column ranges under `rayon::join`.
    /// The panels, whose recursion is a chain of small operations, thus leave the
    /// critical path except for the first. Every block column still receives the
    /// updates of the blocks before it before it is factored (LAPACK's right-looking
    /// order), so `info` is the same as without the lookahead.
    fn potrf_lower_lookahead<T: Scalar>(&self, mut a: MatMut<'_, T>) -> Result<Info> {
        let n = a.rows;
        let nb = self.sizes.potrf;
        let blas = &self.blas;
        let one = <T::Real as One>::one();
        let mut jb = nb.min(n);
        let info = self.lower_panel(a.sub(0, 0, n, jb)?)?;
        if !info.is_ok() {
            return Ok(info);
        }
        let mut k = 0;
        while k + jb < n {
            let next = k + jb;
            let jb2 = nb.min(n - next);
            let below = n - next - jb2;
            let (done, rest) = a.rb().split_cols(next)?;
            let l = done.as_ref().sub(next, k, n - next, jb)?;
            let (l_top, l_low) = (l.sub(0, 0, jb2, jb)?, l.sub(jb2, 0, below, jb)?);
            let (mut panel, mut trailing) = rest.split_cols(jb2)?;
            // The next block column first: its diagonal block by HERK, the rows below by
            // GEMM.
            herk(
                blas,
                Uplo::Lower,
                Transpose::N,
                -one,
                &l_top,
                one,
                &mut panel.sub(next, 0, jb2, jb2)?,
            )?;
            gemm(
                blas,
                Transpose::N,
                Transpose::C,
                -T::one(),
                &l_low,
                &l_top,
                T::one(),
                &mut panel.sub(next + jb2, 0, below, jb2)?,
            )?;
            let (info, trailing_done) = rayon::join(
                || self.lower_panel(panel.into_sub(next, 0, n - next, jb2)?),
                || {
                    if below == 0 {
                        return Ok(());
                    }
                    herk_lower_columns(
                        blas,
                        -one,
                        &l_low,
                        trailing.sub(next + jb2, 0, below, below)?,
                        TRAILING_COLUMNS,
                    )
                },
            );
            trailing_done?;
            let info = info?;
            if !info.is_ok() {
                return Ok(info.shifted(next));
            }
            k = next;
            jb = jb2;
        }
        Ok(Info::OK)
    }

    /// Factors a Lower block column (rows × jb, its top jb×jb block on the diagonal):
    /// the diagonal block recursively, then the rows below by TRSM with its factor.
    fn lower_panel<T: Scalar>(&self, mut p: MatMut<'_, T>) -> Result<Info> {
        let (rows, jb) = (p.rows, p.cols);
        let info = self.potrf_rec(Uplo::Lower, p.sub(0, 0, jb, jb)?)?;
        if !info.is_ok() || rows == jb {
            return Ok(info);
        }
        let blas = &self.blas;
        let l11 = copied(blas, &p.as_ref().sub(0, 0, jb, jb)?)?;
        let l11 = MatRef::new(l11.as_slice(), jb, jb, jb);
        trsm(
            blas,
            Side::Right,
            Uplo::Lower,
            Transpose::C,
            Diag::NonUnit,
            T::one(),
            &l11,
            &mut p.sub(jb, 0, rows - jb, jb)?,
        )?;
        Ok(Info::OK)
    }

    /// Recursive Cholesky of a diagonal block.
    fn potrf_rec<T: Scalar>(&self, uplo: Uplo, mut a: MatMut<'_, T>) -> Result<Info> {
        let n = a.rows;
        if n <= self.sizes.unblocked {
            let ld = a.ld;
            return Ok(Info(kernels::potf2(uplo, &mut a.host()?, n, ld)));
        }
        let n1 = n / 2;
        let first = self.potrf_rec(uplo, a.sub(0, 0, n1, n1)?)?;
        if !first.is_ok() {
            return Ok(first);
        }
        self.cholesky_update(uplo, a.rb(), n1)?;
        Ok(self
            .potrf_rec(uplo, a.sub(n1, n1, n - n1, n - n1)?)?
            .shifted(n1))
    }

    /// After the leading jb×jb block of `a` holds its factor: the off-diagonal block by
    /// TRSM, then the trailing triangle by HERK.
    fn cholesky_update<T: Scalar>(&self, uplo: Uplo, a: MatMut<'_, T>, jb: usize) -> Result<()> {
        let n = a.rows;
        let r = n - jb;
        let blas = &self.blas;
        let one = <T::Real as One>::one();
        let (mut left, mut right) = a.split_cols(jb)?;
        match uplo {
            Uplo::Lower => {
                // L11 shares columns with A21: TRSM reads a copy.
                let l11 = copied(blas, &left.as_ref().sub(0, 0, jb, jb)?)?;
                let l11 = MatRef::new(l11.as_slice(), jb, jb, jb);
                let mut l21 = left.sub(jb, 0, r, jb)?;
                trsm(
                    blas,
                    Side::Right,
                    uplo,
                    Transpose::C,
                    Diag::NonUnit,
                    T::one(),
                    &l11,
                    &mut l21,
                )?;
                herk(
                    blas,
                    uplo,
                    Transpose::N,
                    -one,
                    &l21.as_ref(),
                    one,
                    &mut right.sub(jb, 0, r, r)?,
                )
            }
            Uplo::Upper => {
                let u11 = left.as_ref().sub(0, 0, jb, jb)?;
                trsm(
                    blas,
                    Side::Left,
                    uplo,
                    Transpose::C,
                    Diag::NonUnit,
                    T::one(),
                    &u11,
                    &mut right.sub(0, 0, jb, r)?,
                )?;
                // U12 shares columns with A22: HERK reads a copy.
                let u12 = copied(blas, &right.as_ref().sub(0, 0, jb, r)?)?;
                let u12 = MatRef::new(u12.as_slice(), jb, r, jb);
                herk(
                    blas,
                    uplo,
                    Transpose::C,
                    -one,
                    &u12,
                    one,
                    &mut right.sub(jb, 0, r, r)?,
                )
            }
        }
    }

    /// Solves A·X = B with the Cholesky factor of [`Solver::potrf`]; B (n×nrhs) is
    /// overwritten by X.
    pub fn potrs<T: Scalar>(
        &self,
        uplo: Uplo,
        n: usize,
        nrhs: usize,
        a: &BufferSlice<'_, T>,
        lda: usize,
        b: &mut BufferSliceMut<'_, T>,
        ldb: usize,
    ) -> Result<()> {
        check::dim("n", n)?;
        check::dim("nrhs", nrhs)?;
        check::matrix("a", "lda", a.len(), n, n, lda)?;
        check::matrix("b", "ldb", b.len(), n, nrhs, ldb)?;
        check::device(self.device(), "a", a.device())?;
        check::device(self.device(), "b", b.device())?;
        self.engine("potrs")?;
        self.potrs_view(
            uplo,
            &MatRef::new(*a, n, n, lda),
            MatMut::new(b.reborrow(), n, nrhs, ldb),
        )
    }

    pub(crate) fn potrs_view<T: Scalar>(
        &self,
        uplo: Uplo,
        a: &MatRef<'_, T>,
        mut b: MatMut<'_, T>,
    ) -> Result<()> {
        if a.rows == 0 || b.cols == 0 {
            return Ok(());
        }
        let blas = &self.blas;
        let one = T::one();
        // A = L·Lᴴ: L·Y = B, then Lᴴ·X = Y (for Upper, A = Uᴴ·U: Uᴴ first).
        let (first, second) = match uplo {
            Uplo::Lower => (Transpose::N, Transpose::C),
            Uplo::Upper => (Transpose::C, Transpose::N),
        };
        trsm(blas, Side::Left, uplo, first, Diag::NonUnit, one, a, &mut b)?;
        trsm(
            blas,
            Side::Left,
            uplo,
            second,
            Diag::NonUnit,
            one,
            a,
            &mut b,
        )
    }

    /// Solves A·X = B for Hermitian positive definite A (POTRF then POTRS). When `info >
    /// 0` B is left as it was.
    pub fn posv<T: Scalar>(
        &self,
        uplo: Uplo,
        n: usize,
        nrhs: usize,
        a: &mut BufferSliceMut<'_, T>,
        lda: usize,
        b: &mut BufferSliceMut<'_, T>,
        ldb: usize,
    ) -> Result<Info> {
        check::dim("nrhs", nrhs)?;
        check::matrix("b", "ldb", b.len(), n, nrhs, ldb)?;
        check::device(self.device(), "b", b.device())?;
        let info = self.potrf(uplo, n, a, lda)?;
        if info.is_ok() {
            self.potrs(uplo, n, nrhs, &a.as_slice(), lda, b, ldb)?;
        }
        Ok(info)
    }

    /// A⁻¹ from the Cholesky factor of [`Solver::potrf`], in the `uplo` triangle
    /// (TRTRI of the factor, then LAUUM: A⁻¹ = L⁻ᴴ·L⁻¹). `info = k > 0`: the factor's
    /// diagonal element k is zero.
    pub fn potri<T: Scalar>(
        &self,
        uplo: Uplo,
        n: usize,
        a: &mut BufferSliceMut<'_, T>,
        lda: usize,
    ) -> Result<Info> {
        check::dim("n", n)?;
        check::matrix("a", "lda", a.len(), n, n, lda)?;
        check::device(self.device(), "a", a.device())?;
        self.engine("potri")?;
        let mut a = MatMut::new(a.reborrow(), n, n, lda);
        let info = self.trtri_view(uplo, Diag::NonUnit, a.rb())?;
        if info.is_ok() {
            self.lauum_rec(uplo, a)?;
        }
        Ok(info)
    }
}
