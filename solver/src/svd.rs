//! Singular value decomposition (GESVD): A = U·Σ·Vᴴ.
//!
//! For m >= n:
//! 1. GEBRD reduces A to upper bidiagonal B = Qᴴ·A·P (blocked, GEMM updates through
//!    rocm-blas);
//! 2. B = U_b·Σ·V_bᵀ by bidiagonal QR iteration ([`crate::bdsqr`], Golub–Kahan steps:
//!    the back end is QR iteration, not divide and conquer), U_b and V_b accumulated
//!    from the identity in real arithmetic;
//! 3. U = Q·[U_b 0; 0 I] and Vᴴ = V_bᵀ·Pᴴ by the blocked reflector applications (ORMQR
//!    and ORMLQ-style LARFB sweeps).
//!
//! For m < n the decomposition is that of Aᴴ = V·Σ·Uᴴ, conjugate-transposed. A is scaled
//! first when its largest element is outside LAPACK's safe range.

#![allow(clippy::too_many_arguments)]

use crate::bdsqr::{bdsqr, Vectors};
use crate::bidiag::conj_transposed;
use crate::blas3::workspace;
use crate::handle::{Info, Solver};
use crate::householder::{max_abs, scaling_range, Storage};
use crate::matrix::MatMut;
use crate::qr::write_vector;
use crate::rotations::RowPanels;
use crate::{check, Scalar};
use num_traits::{One, Zero};
use rocm_core::linalg::{Side, Transpose};
use rocm_core::{BufferSliceMut, Result};

/// Which singular vectors GESVD computes, for U and for Vᴴ separately (rocSOLVER's
/// `rocblas_svect`, LAPACK's JOBU / JOBVT).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Svect {
    /// None.
    None,
    /// The min(m, n) singular vectors (the thin or economy SVD; LAPACK's 'S').
    Singular,
    /// All of them: U m×m or Vᴴ n×n (LAPACK's 'A').
    All,
}

impl Svect {
    /// Columns of U (m×·) or rows of Vᴴ (·×n) for an m×n problem, `order` = m or n.
    fn count(self, order: usize, k: usize) -> usize {
        match self {
            Svect::None => 0,
            Svect::Singular => k,
            Svect::All => order,
        }
    }
}

/// Writes a host matrix (column-major, `rows × cols`, ld = rows) into a view.
fn store<T: Scalar>(dst: &mut MatMut<'_, T>, src: &[T]) -> Result<()> {
    let (rows, cols, ld) = (dst.rows, dst.cols, dst.ld);
    let mut h = dst.host()?;
    for j in 0..cols {
        h[j * ld..j * ld + rows].copy_from_slice(&src[j * rows..(j + 1) * rows]);
    }
    Ok(())
}

impl Solver {
    /// Singular values of the m×n A (descending, into `s`, min(m, n) entries) and, as
    /// `left` / `right` ask, the left singular vectors (U: m×min(m, n) for Singular, m×m
    /// for All, into `u` with `ldu`) and the conjugate-transposed right ones (Vᴴ:
    /// min(m, n)×n or n×n, into `vt` with `ldvt`). A is destroyed. `u` and `vt` are not
    /// read when not asked for (an empty buffer and ld 1 will do). `info = i > 0`: the
    /// bidiagonal QR iteration left i superdiagonal elements unconverged.
    pub fn gesvd<T: Scalar>(
        &self,
        left: Svect,
        right: Svect,
        m: usize,
        n: usize,
        a: &mut BufferSliceMut<'_, T>,
        lda: usize,
        s: &mut BufferSliceMut<'_, T::Real>,
        u: &mut BufferSliceMut<'_, T>,
        ldu: usize,
        vt: &mut BufferSliceMut<'_, T>,
        ldvt: usize,
    ) -> Result<Info> {
        check::dim("m", m)?;
        check::dim("n", n)?;
        let k = m.min(n);
        check::matrix("a", "lda", a.len(), m, n, lda)?;
        check::vector("s", s.len(), k)?;
        let ucols = left.count(m, k);
        let vrows = right.count(n, k);
        if left == Svect::None {
            check::leading_dimension_of("ldu", ldu, 1)?;
        } else {
            check::matrix("u", "ldu", u.len(), m, ucols, ldu)?;
            check::device(self.device(), "u", u.device())?;
        }
        if right == Svect::None {
            check::leading_dimension_of("ldvt", ldvt, 1)?;
        } else {
            check::matrix("vt", "ldvt", vt.len(), vrows, n, ldvt)?;
            check::device(self.device(), "vt", vt.device())?;
        }
        check::device(self.device(), "a", a.device())?;
        check::device(self.device(), "s", s.device())?;
        self.engine("gesvd")?;
        let mut sv = vec![T::Real::zero(); k];
        let info = if m >= n {
            let (uh, vh, info) =
                self.gesvd_tall(left, right, MatMut::new(a.reborrow(), m, n, lda), &mut sv)?;
            if let Some(uh) = uh {
                store(&mut MatMut::new(u.reborrow(), m, ucols, ldu), &uh)?;
            }
            if let Some(vh) = vh {
                store(&mut MatMut::new(vt.reborrow(), vrows, n, ldvt), &vh)?;
            }
            info
        } else {
            // Aᴴ = V·Σ·Uᴴ: U of A is V of Aᴴ and the other way round.
            let mut b = conj_transposed(self, &MatMut::new(a.reborrow(), m, n, lda).as_ref())?;
            let (uh, vh, info) =
                self.gesvd_tall(right, left, MatMut::new(b.as_slice_mut(), n, m, n), &mut sv)?;
            if let Some(vh) = vh {
                // (Vᴴ of Aᴴ, m×m)ᴴ is U.
                let mut h = vec![T::zero(); m * m];
                for j in 0..m {
                    for i in 0..m {
                        h[i + j * m] = vh[j + i * m].conj();
                    }
                }
                store(&mut MatMut::new(u.reborrow(), m, ucols, ldu), &h)?;
            }
            if let Some(uh) = uh {
                // (U of Aᴴ, n×vrows)ᴴ is Vᴴ.
                let mut h = vec![T::zero(); vrows * n];
                for j in 0..n {
                    for i in 0..vrows {
                        h[i + j * vrows] = uh[j + i * n].conj();
                    }
                }
                store(&mut MatMut::new(vt.reborrow(), vrows, n, ldvt), &h)?;
            }
            info
        };
        write_vector("s", s, &sv)?;
        Ok(info)
    }

    /// GESVD of a view with m >= n: returns U (m × left.count) and Vᴴ (n × n, when
    /// asked) as column-major host matrices with ld = rows.
    #[allow(clippy::type_complexity)]
    fn gesvd_tall<T: Scalar>(
        &self,
        left: Svect,
        right: Svect,
        mut a: MatMut<'_, T>,
        s: &mut [T::Real],
    ) -> Result<(Option<Vec<T>>, Option<Vec<T>>, Info)> {
        let (m, n) = (a.rows, a.cols);
        if n == 0 {
            let u = (left == Svect::All).then(|| {
                let mut h = vec![T::zero(); m * m];
                (0..m).for_each(|i| h[i + i * m] = T::one());
                h
            });
            let v = (right != Svect::None).then(Vec::new);
            return Ok((
                u.or_else(|| (left != Svect::None).then(Vec::new)),
                v,
                Info::OK,
            ));
        }
        let ld = a.ld;
        let anrm = max_abs(&a.host()?, m, n, ld);
        let (rmin, rmax) = scaling_range::<T::Real>();
        let sigma = if anrm > T::Real::zero() && anrm < rmin {
            rmin / anrm
        } else if anrm > rmax {
            rmax / anrm
        } else {
            T::Real::one()
        };
        if sigma != T::Real::one() {
            let f = T::from_real(sigma);
            let mut h = a.host()?;
            for j in 0..n {
                h[j * ld..j * ld + m].iter_mut().for_each(|x| *x *= f);
            }
        }
        let mut e = vec![T::Real::zero(); n - 1];
        let mut tauq = vec![T::zero(); n];
        let mut taup = vec![T::zero(); n];
        self.gebrd_view(a.rb(), s, &mut e, &mut tauq, &mut taup)?;
        let mut ub = (left != Svect::None).then(|| RowPanels::identity(n));
        let mut vb = (right != Svect::None).then(|| RowPanels::identity(n));
        let info = bdsqr(
            s,
            &mut e,
            Vectors {
                u: ub.as_mut(),
                v: vb.as_mut(),
            },
            30 * n,
        );
        if sigma != T::Real::one() {
            s.iter_mut().for_each(|x| *x /= sigma);
        }
        let host = |w: &rocm_core::DeviceBuffer<T>| -> Result<Vec<T>> { w.to_vec() };
        let uh = match ub {
            None => None,
            Some(ub) => {
                let cols = left.count(m, n);
                let mut w = workspace::<T>(&self.blas, m, cols)?;
                {
                    let mut h = crate::staging::stage_buffer_mut(&mut w)?;
                    // [U_b 0; 0 I].
                    for i in 0..n {
                        for j in 0..n {
                            h[i + j * m] = T::from_real(ub.get(i, j));
                        }
                    }
                    (n..cols).for_each(|i| h[i + i * m] = T::one());
                }
                self.apply_q(
                    Storage::Columns,
                    Side::Left,
                    Transpose::N,
                    &a.as_ref(),
                    &tauq,
                    MatMut::new(w.as_slice_mut(), m, cols, m),
                )?;
                Some(host(&w)?)
            }
        };
        let vh = match vb {
            None => None,
            Some(vb) => {
                let mut w = workspace::<T>(&self.blas, n, n)?;
                {
                    let mut h = crate::staging::stage_buffer_mut(&mut w)?;
                    // V_bᵀ.
                    for i in 0..n {
                        for j in 0..n {
                            h[j + i * n] = T::from_real(vb.get(i, j));
                        }
                    }
                }
                if n > 1 {
                    let refl = a.as_ref().sub(0, 1, n - 1, n - 1)?;
                    let target = MatMut::new(w.as_slice_mut(), n, n, n).into_sub(0, 1, n, n - 1)?;
                    self.apply_q(
                        Storage::Rows,
                        Side::Right,
                        Transpose::N,
                        &refl,
                        &taup[..n - 1],
                        target,
                    )?;
                }
                Some(host(&w)?)
            }
        };
        Ok((uh, vh, Info(info)))
    }
}
