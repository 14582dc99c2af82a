//! Triangular inverse (TRTRI) and the triangle products LAUUM needs for POTRI.
//!
//! TRTRI is recursive: for an upper triangle
//!
//! ```text
//!   [T11 T12]⁻¹   [T11⁻¹  −T11⁻¹·T12·T22⁻¹]
//!   [ 0  T22]   = [  0          T22⁻¹     ]
//! ```
//!
//! so the off-diagonal block takes two TRSMs with the *original* diagonal blocks, then
//! both diagonal blocks are inverted recursively (lower is the mirror image).
//! LAUUM (U·Uᴴ or Lᴴ·L in place) is recursive the same way with HERK and TRMM.

use crate::blas3::{copied, herk, trmm, trsm};
use crate::handle::{Info, Solver};
use crate::matrix::{MatMut, MatRef};
use crate::{check, kernels, Scalar};
use num_traits::One;
use rocm_core::linalg::{Diag, Side, Transpose, Uplo};
use rocm_core::{BufferSliceMut, Result};

impl Solver {
    /// Inverts the n×n triangular matrix A in place. `info = k > 0`: A[k-1, k-1] is zero,
    /// A is singular and left unchanged.
    pub fn trtri<T: Scalar>(
        &self,
        uplo: Uplo,
        diag: Diag,
        n: usize,
        a: &mut BufferSliceMut<'_, T>,
        lda: usize,
    ) -> Result<Info> {
        check::dim("n", n)?;
        check::matrix("a", "lda", a.len(), n, n, lda)?;
        check::device(self.device(), "a", a.device())?;
        self.engine("trtri")?;
        self.trtri_view(uplo, diag, MatMut::new(a.reborrow(), n, n, lda))
    }

    /// TRTRI on a checked view: the zero-diagonal check, then the recursion.
    pub(crate) fn trtri_view<T: Scalar>(
        &self,
        uplo: Uplo,
        diag: Diag,
        mut a: MatMut<'_, T>,
    ) -> Result<Info> {
        let (n, ld) = (a.rows, a.ld);
        if diag == Diag::NonUnit {
            let h = a.host()?;
            if let Some(k) = (0..n).find(|&k| h[k + k * ld] == T::zero()) {
                return Ok(Info(k + 1));
            }
        }
        self.trtri_rec(uplo, diag, a)?;
        Ok(Info::OK)
    }

    fn trtri_rec<T: Scalar>(&self, uplo: Uplo, diag: Diag, a: MatMut<'_, T>) -> Result<()> {
        let n = a.rows;
        let mut a = a;
        if n <= self.sizes.unblocked {
            let ld = a.ld;
            kernels::trti2(uplo, diag, &mut a.host()?, n, ld);
            return Ok(());
        }
        let n1 = n / 2;
        let n2 = n - n1;
        let blas = &self.blas;
        let (mut left, mut right) = a.split_cols(n1)?;
        match uplo {
            Uplo::Upper => {
                // T12 ← −T11⁻¹·T12·T22⁻¹ (T22 shares columns with T12: read from a copy).
                let t22 = copied(blas, &right.as_ref().sub(n1, 0, n2, n2)?)?;
                let t22 = MatRef::new(t22.as_slice(), n2, n2, n2);
                let t11 = left.as_ref().sub(0, 0, n1, n1)?;
                let mut t12 = right.sub(0, 0, n1, n2)?;
                trsm(
                    blas,
                    Side::Left,
                    uplo,
                    Transpose::N,
                    diag,
                    -T::one(),
                    &t11,
                    &mut t12,
                )?;
                trsm(
                    blas,
                    Side::Right,
                    uplo,
                    Transpose::N,
                    diag,
                    T::one(),
                    &t22,
                    &mut t12,
                )?;
            }
            Uplo::Lower => {
                // T21 ← −T22⁻¹·T21·T11⁻¹ (T11 shares columns with T21: read from a copy).
                let t11 = copied(blas, &left.as_ref().sub(0, 0, n1, n1)?)?;
                let t11 = MatRef::new(t11.as_slice(), n1, n1, n1);
                let t22 = right.as_ref().sub(n1, 0, n2, n2)?;
                let mut t21 = left.sub(n1, 0, n2, n1)?;
                trsm(
                    blas,
                    Side::Left,
                    uplo,
                    Transpose::N,
                    diag,
                    -T::one(),
                    &t22,
                    &mut t21,
                )?;
                trsm(
                    blas,
                    Side::Right,
                    uplo,
                    Transpose::N,
                    diag,
                    T::one(),
                    &t11,
                    &mut t21,
                )?;
            }
        }
        self.trtri_rec(uplo, diag, left.sub(0, 0, n1, n1)?)?;
        self.trtri_rec(uplo, diag, right.sub(n1, 0, n2, n2)?)
    }

    /// U·Uᴴ (Upper) or Lᴴ·L (Lower) of the `uplo` triangle of A, in place (LAUUM).
    pub(crate) fn lauum_rec<T: Scalar>(&self, uplo: Uplo, a: MatMut<'_, T>) -> Result<()> {
        let n = a.rows;
        let mut a = a;
        if n <= self.sizes.unblocked {
            let ld = a.ld;
            kernels::lauu2(uplo, &mut a.host()?, n, ld);
            return Ok(());
        }
        let n1 = n / 2;
        let n2 = n - n1;
        let blas = &self.blas;
        let one = <T::Real as One>::one();
        let (mut left, mut right) = a.split_cols(n1)?;
        match uplo {
            Uplo::Upper => {
                // R11 = U11·U11ᴴ + U12·U12ᴴ, R12 = U12·U22ᴴ, R22 = U22·U22ᴴ.
                self.lauum_rec(uplo, left.sub(0, 0, n1, n1)?)?;
                let u12 = copied(blas, &right.as_ref().sub(0, 0, n1, n2)?)?;
                let u12 = MatRef::new(u12.as_slice(), n1, n2, n1);
                herk(
                    blas,
                    uplo,
                    Transpose::N,
                    one,
                    &u12,
                    one,
                    &mut left.sub(0, 0, n1, n1)?,
                )?;
                let u22 = copied(blas, &right.as_ref().sub(n1, 0, n2, n2)?)?;
                let u22 = MatRef::new(u22.as_slice(), n2, n2, n2);
                let mut r12 = right.sub(0, 0, n1, n2)?;
                trmm(
                    blas,
                    Side::Right,
                    uplo,
                    Transpose::C,
                    Diag::NonUnit,
                    &u22,
                    &mut r12,
                )?;
            }
            Uplo::Lower => {
                // R11 = L11ᴴ·L11 + L21ᴴ·L21, R21 = L22ᴴ·L21, R22 = L22ᴴ·L22.
                self.lauum_rec(uplo, left.sub(0, 0, n1, n1)?)?;
                let l21 = copied(blas, &left.as_ref().sub(n1, 0, n2, n1)?)?;
                let l21 = MatRef::new(l21.as_slice(), n2, n1, n2);
                herk(
                    blas,
                    uplo,
                    Transpose::C,
                    one,
                    &l21,
                    one,
                    &mut left.sub(0, 0, n1, n1)?,
                )?;
                let l22 = right.as_ref().sub(n1, 0, n2, n2)?;
                let mut r21 = left.sub(n1, 0, n2, n1)?;
                trmm(
                    blas,
                    Side::Left,
                    uplo,
                    Transpose::C,
                    Diag::NonUnit,
                    &l22,
                    &mut r21,
                )?;
            }
        }
        self.lauum_rec(uplo, right.sub(n1, 0, n2, n2)?)
    }
}
