//! Hermitian eigenvalue decomposition (SYEVD / HEEVD): A = Z·Λ·Zᴴ.
//!
//! Three steps, as LAPACK's:
//! 1. SYTRD / HETRD reduces A to a real symmetric tridiagonal T = Qᴴ·A·Q (blocked,
//!    HER2K updates through rocm-blas);
//! 2. the tridiagonal eigenproblem T = S·Λ·Sᵀ is solved by implicit QL iteration
//!    ([`crate::steqr`], STEQR's algorithm; with vectors the rotations accumulate into S,
//!    starting from the identity). This back end is QR iteration, not divide and conquer:
//!    the routine keeps LAPACK's SYEVD name and interface, its cost with vectors is about
//!    3·n³ flops more than STEDC's;
//! 3. with vectors, Z = Q·S by ORMTR / UNMTR (blocked reflector application).
//!
//! A is scaled first when its largest element is outside LAPACK's safe range, and the
//! eigenvalues scaled back.

#![allow(clippy::too_many_arguments)]

use crate::blas3::workspace;
use crate::handle::{Info, Solver};
use crate::householder::{max_abs_triangle, scale_triangle, scaling_range};
use crate::matrix::{MatMut, MatRef};
use crate::qr::write_vector;
use crate::rotations::RowPanels;
use crate::steqr::steqr;
use crate::{check, Scalar};
use num_traits::{One, Zero};
use rocm_core::linalg::{Side, Transpose, Uplo};
use rocm_core::{BufferSliceMut, Result};

/// Whether an eigensolver computes eigenvectors (rocSOLVER's `rocblas_evect`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Evect {
    /// Eigenvalues only.
    None,
    /// Eigenvalues and the eigenvectors of the original matrix.
    Original,
}

impl Solver {
    /// Eigenvalues (ascending, into `w`, n entries) and, with `evect` = Original, the
    /// orthonormal eigenvectors (the columns of A, overwriting it) of the n×n Hermitian
    /// A whose `uplo` triangle is stored (SYEVD for real types, HEEVD for complex). With
    /// `evect` = None the `uplo` triangle of A is destroyed. `info = i > 0`: the QL
    /// iteration left i off-diagonal elements of the tridiagonal form unconverged (w and
    /// the vectors are then unreliable).
    pub fn syevd<T: Scalar>(
        &self,
        evect: Evect,
        uplo: Uplo,
        n: usize,
        a: &mut BufferSliceMut<'_, T>,
        lda: usize,
        w: &mut BufferSliceMut<'_, T::Real>,
    ) -> Result<Info> {
        check::dim("n", n)?;
        check::matrix("a", "lda", a.len(), n, n, lda)?;
        check::vector("w", w.len(), n)?;
        check::device(self.device(), "a", a.device())?;
        check::device(self.device(), "w", w.device())?;
        self.engine("syevd")?;
        let mut vals = vec![T::Real::zero(); n];
        let info = self.syevd_view(evect, uplo, MatMut::new(a.reborrow(), n, n, lda), &mut vals)?;
        write_vector("w", w, &vals)?;
        Ok(info)
    }

    /// [`Solver::syevd`] under LAPACK's complex name.
    pub fn heevd<T: Scalar>(
        &self,
        evect: Evect,
        uplo: Uplo,
        n: usize,
        a: &mut BufferSliceMut<'_, T>,
        lda: usize,
        w: &mut BufferSliceMut<'_, T::Real>,
    ) -> Result<Info> {
        self.syevd(evect, uplo, n, a, lda, w)
    }

    pub(crate) fn syevd_view<T: Scalar>(
        &self,
        evect: Evect,
        uplo: Uplo,
        mut a: MatMut<'_, T>,
        w: &mut [T::Real],
    ) -> Result<Info> {
        let n = a.rows;
        let ld = a.ld;
        if n == 0 {
            return Ok(Info::OK);
        }
        // Scale into the safe range.
        let anrm = max_abs_triangle(&a.host()?, uplo, n, ld);
        let (rmin, rmax) = scaling_range::<T::Real>();
        let sigma = if anrm > T::Real::zero() && anrm < rmin {
            rmin / anrm
        } else if anrm > rmax {
            rmax / anrm
        } else {
            T::Real::one()
        };
        if sigma != T::Real::one() {
            scale_triangle(&mut a.host()?, uplo, n, ld, sigma);
        }
        let mut e = vec![T::Real::zero(); n - 1];
        let mut tau = vec![T::zero(); n - 1];
        self.sytrd_view(uplo, a.rb(), w, &mut e, &mut tau)?;
        let sweeps = 30 * n;
        let info = match evect {
            Evect::None => steqr::<T::Real>(w, &mut e, None, sweeps),
            Evect::Original => {
                let mut s = RowPanels::identity(n);
                let info = steqr::<T::Real>(w, &mut e, Some(&mut s), sweeps);
                // Z = Q·S: S into a workspace, ORMTR, then into A.
                let mut z = workspace::<T>(&self.blas, n, n)?;
                {
                    let mut zh = crate::staging::stage_buffer_mut(&mut z)?;
                    for j in 0..n {
                        for i in 0..n {
                            zh[i + j * n] = T::from_real(s.get(i, j));
                        }
                    }
                }
                self.ormtr_view(
                    Side::Left,
                    uplo,
                    Transpose::N,
                    &a.as_ref(),
                    &tau,
                    MatMut::new(z.as_slice_mut(), n, n, n),
                )?;
                crate::blas3::copy(&MatRef::new(z.as_slice(), n, n, n), &mut a)?;
                info
            }
        };
        if sigma != T::Real::one() {
            w.iter_mut().for_each(|x| *x /= sigma);
        }
        Ok(Info(info))
    }
}
