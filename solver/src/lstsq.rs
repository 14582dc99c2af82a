//! Least squares and minimum-norm solutions (GELS) through QR or LQ.
//!
//! For A m×n of full rank and B max(m, n)×nrhs (LAPACK's layout):
//!
//! | case          | problem                      | steps                                    |
//! |---------------|------------------------------|------------------------------------------|
//! | m >= n, N     | min ‖A·X − B‖                | A = Q·R; B ← Qᴴ·B; R·X = B[..n]          |
//! | m >= n, C (T) | min ‖X‖ with Aᴴ·X = B        | A = Q·R; Rᴴ·Y = B[..n]; X = Q·[Y; 0]     |
//! | m < n, N      | min ‖X‖ with A·X = B         | A = L·Q; L·Y = B[..m]; X = Qᴴ·[Y; 0]     |
//! | m < n, C (T)  | min ‖Aᴴ·X − B‖               | A = L·Q; B ← Q·B; Lᴴ·X = B[..m]          |
//!
//! The triangular solves are TRSM calls through rocm-blas, the Q applications blocked
//! LARFB sweeps. T is accepted for real types (it means C there).

#![allow(clippy::too_many_arguments)]

use crate::blas3::trsm;
use crate::handle::{Info, Solver};
use crate::householder::{max_abs, normalized, Storage};
use crate::matrix::{MatMut, MatRef};
use crate::qr::check_q_trans;
use crate::{check, Scalar};
use num_traits::Zero;
use rocm_core::linalg::{Diag, Side, Transpose, Uplo};
use rocm_core::{BufferSliceMut, Result};

/// The 1-based position of the first exactly zero diagonal element of the k×k triangle.
fn zero_diagonal<T: Scalar>(a: &MatRef<'_, T>, k: usize) -> Result<Info> {
    let h = a.host()?;
    Ok((0..k)
        .find(|&i| h[i + i * a.ld] == T::zero())
        .map_or(Info::OK, |i| Info(i + 1)))
}

/// Zeroes rows `from..to` of B.
fn zero_rows<T: Scalar>(b: &mut MatMut<'_, T>, from: usize, to: usize) -> Result<()> {
    let ld = b.ld;
    let cols = b.cols;
    if from >= to || cols == 0 {
        return Ok(());
    }
    let mut h = b.host()?;
    for j in 0..cols {
        h[j * ld + from..j * ld + to].fill(T::zero());
    }
    Ok(())
}

impl Solver {
    /// Solves the over- or under-determined system op(A)·X = B (GELS), A m×n of full
    /// rank, op = N or C (T for real types): least squares when op(A) has more rows than
    /// columns, the minimum-norm solution otherwise. B is max(m, n)×nrhs (ldb >=
    /// max(1, m, n)); its first n (op = N) or m (op = C) rows receive X. For op = N and
    /// m >= n, ‖B[n..m, j]‖ is the residual norm of column j (likewise rows m..n for
    /// op = C and m < n). A is overwritten by its QR (m >= n) or LQ (m < n) factors.
    /// `info = i > 0`: the i-th diagonal element of R or L is exactly zero (A is rank
    /// deficient); B then holds intermediate values. A zero A gives X = 0, as LAPACK.
    pub fn gels<T: Scalar>(
        &self,
        trans: Transpose,
        m: usize,
        n: usize,
        nrhs: usize,
        a: &mut BufferSliceMut<'_, T>,
        lda: usize,
        b: &mut BufferSliceMut<'_, T>,
        ldb: usize,
    ) -> Result<Info> {
        check::dim("m", m)?;
        check::dim("n", n)?;
        check::dim("nrhs", nrhs)?;
        check_q_trans::<T>(trans)?;
        check::matrix("a", "lda", a.len(), m, n, lda)?;
        check::matrix("b", "ldb", b.len(), m.max(n), nrhs, ldb)?;
        check::device(self.device(), "a", a.device())?;
        check::device(self.device(), "b", b.device())?;
        self.engine("gels")?;
        self.gels_view(
            trans,
            MatMut::new(a.reborrow(), m, n, lda),
            MatMut::new(b.reborrow(), m.max(n), nrhs, ldb),
        )
    }

    /// GELS on checked views (B has max(m, n) rows).
    pub(crate) fn gels_view<T: Scalar>(
        &self,
        trans: Transpose,
        mut a: MatMut<'_, T>,
        mut b: MatMut<'_, T>,
    ) -> Result<Info> {
        let (m, n, nrhs) = (a.rows, a.cols, b.cols);
        let op = normalized(trans);
        let k = m.min(n);
        let blas = &self.blas;
        if nrhs == 0 {
            return Ok(Info::OK);
        }
        let all_zero = {
            let ld = a.ld;
            k == 0 || max_abs(&a.host()?, m, n, ld) == <T::Real as Zero>::zero()
        };
        if all_zero {
            let rows = m.max(n);
            zero_rows(&mut b, 0, rows)?;
            return Ok(Info::OK);
        }
        let mut taus = vec![T::zero(); k];
        let one = T::one();
        if m >= n {
            self.geqrf_view(a.rb(), &mut taus)?;
            let ar = a.as_ref();
            let r = ar.sub(0, 0, n, n)?;
            if op == Transpose::N {
                self.apply_q(
                    Storage::Columns,
                    Side::Left,
                    Transpose::C,
                    &ar,
                    &taus,
                    b.sub(0, 0, m, nrhs)?,
                )?;
                let info = zero_diagonal(&r, n)?;
                if !info.is_ok() {
                    return Ok(info);
                }
                trsm(
                    blas,
                    Side::Left,
                    Uplo::Upper,
                    Transpose::N,
                    Diag::NonUnit,
                    one,
                    &r,
                    &mut b.sub(0, 0, n, nrhs)?,
                )?;
            } else {
                let info = zero_diagonal(&r, n)?;
                if !info.is_ok() {
                    return Ok(info);
                }
                trsm(
                    blas,
                    Side::Left,
                    Uplo::Upper,
                    Transpose::C,
                    Diag::NonUnit,
                    one,
                    &r,
                    &mut b.sub(0, 0, n, nrhs)?,
                )?;
                zero_rows(&mut b, n, m)?;
                self.apply_q(
                    Storage::Columns,
                    Side::Left,
                    Transpose::N,
                    &ar,
                    &taus,
                    b.sub(0, 0, m, nrhs)?,
                )?;
            }
        } else {
            self.gelqf_view(a.rb(), &mut taus)?;
            let ar = a.as_ref();
            let l = ar.sub(0, 0, m, m)?;
            if op == Transpose::N {
                let info = zero_diagonal(&l, m)?;
                if !info.is_ok() {
                    return Ok(info);
                }
                trsm(
                    blas,
                    Side::Left,
                    Uplo::Lower,
                    Transpose::N,
                    Diag::NonUnit,
                    one,
                    &l,
                    &mut b.sub(0, 0, m, nrhs)?,
                )?;
                zero_rows(&mut b, m, n)?;
                self.apply_q(
                    Storage::Rows,
                    Side::Left,
                    Transpose::C,
                    &ar,
                    &taus,
                    b.sub(0, 0, n, nrhs)?,
                )?;
            } else {
                self.apply_q(
                    Storage::Rows,
                    Side::Left,
                    Transpose::N,
                    &ar,
                    &taus,
                    b.sub(0, 0, n, nrhs)?,
                )?;
                let info = zero_diagonal(&l, m)?;
                if !info.is_ok() {
                    return Ok(info);
                }
                trsm(
                    blas,
                    Side::Left,
                    Uplo::Lower,
                    Transpose::C,
                    Diag::NonUnit,
                    one,
                    &l,
                    &mut b.sub(0, 0, m, nrhs)?,
                )?;
            }
        }
        Ok(Info::OK)
    }
}
