//! Reduction of a general matrix to real bidiagonal form (GEBRD): Qᴴ·A·P = B.
//!
//! For m >= n, B is upper bidiagonal (diagonal `d`, n values; superdiagonal `e`,
//! n − 1), Q = H₁·…·H_n with v_i(i) = 1 and v_i below the diagonal in column i (the
//! GEQRF layout, scalars `tauq`), and P = G₁·…·G_{n−1} with u_i(i + 1) = 1 and conj(u_i)
//! to the right of the superdiagonal in row i (the GELQF layout, scalars `taup`;
//! taup(n) = 0). For m < n, B is lower bidiagonal (subdiagonal `e`) and the layouts swap
//! places as in LAPACK: that reduction is the one of Aᴴ, conjugate-transposed, and is
//! computed so.
//!
//! Blocked like LAPACK's GEBRD: a LABRD panel reduces `BlockSizes::gebrd` rows and
//! columns and returns X and Y such that the trailing matrix is updated by
//! A₂₂ ← A₂₂ − V·Yᴴ − X·Uᴴ (two GEMMs through rocm-blas). The panel's two products with
//! the trailing matrix per column (Aᴴ·v and A·u) are GEMV calls through rocm-blas; its
//! O((m + n)·nb) corrections run on the host. The last columns are reduced by the
//! unblocked GEBD2 kernel.

#![allow(clippy::too_many_arguments)]

use crate::blas3::{copied, gemm, gemv, workspace};
use crate::handle::Solver;
use crate::householder::larfg;
use crate::matrix::{MatMut, MatRef};
use crate::qr::write_vector;
use crate::{check, Scalar};
use num_traits::Zero;
use rocm_core::linalg::Transpose;
use rocm_core::{BufferSliceMut, DeviceBuffer, Result};

/// LARFG on a row of a host matrix: the row's elements `first..end` of row `r` (stride
/// `ld`) as (α, x); returns (β, τ) and leaves v's tail in place.
fn larfg_row<T: Scalar>(h: &mut [T], r: usize, first: usize, end: usize, ld: usize) -> (T, T) {
    let mut x: Vec<T> = (first + 1..end).map(|j| h[r + j * ld]).collect();
    let (beta, tau) = larfg(h[r + first * ld], &mut x);
    for (j, v) in (first + 1..end).zip(x) {
        h[r + j * ld] = v;
    }
    (beta, tau)
}

/// Conjugates elements `from..to` of row `r`.
fn conj_row<T: Scalar>(h: &mut [T], r: usize, from: usize, to: usize, ld: usize) {
    if T::IS_COMPLEX {
        for j in from..to {
            h[r + j * ld] = h[r + j * ld].conj();
        }
    }
}

/// Unblocked reduction of an m×n host matrix, m >= n, to upper bidiagonal form (GEBD2).
fn gebd2_upper<T: Scalar>(
    a: &mut [T],
    m: usize,
    n: usize,
    ld: usize,
    d: &mut [T::Real],
    e: &mut [T::Real],
    tauq: &mut [T],
    taup: &mut [T],
) {
    for i in 0..n {
        // H(i) annihilates A[i+1.., i]; apply H(i)ᴴ to A[i.., i+1..].
        let (beta, tq) = {
            let col = &mut a[i * ld + i..i * ld + m];
            let (first, x) = col.split_first_mut().expect("i < m");
            larfg(*first, x)
        };
        d[i] = beta.re();
        tauq[i] = tq;
        a[i + i * ld] = T::one();
        if tq != T::zero() {
            let v: Vec<T> = a[i * ld + i..i * ld + m].to_vec();
            for j in i + 1..n {
                let col = &mut a[j * ld + i..j * ld + m];
                let w: T = v.iter().zip(col.iter()).map(|(&x, &y)| x.conj() * y).sum();
                let f = tq.conj() * w;
                col.iter_mut().zip(&v).for_each(|(c, &x)| *c -= x * f);
            }
        }
        a[i + i * ld] = T::from_real(d[i]);
        if i + 1 < n {
            // G(i) annihilates A[i, i+2..]; apply it to A[i+1.., i+1..] from the right.
            conj_row(a, i, i + 1, n, ld);
            let (beta, tp) = larfg_row(a, i, i + 1, n, ld);
            e[i] = beta.re();
            taup[i] = tp;
            a[i + (i + 1) * ld] = T::one();
            if tp != T::zero() {
                let u: Vec<T> = (i + 1..n).map(|j| a[i + j * ld]).collect();
                // w = C·u; C −= τ·w·uᴴ.
                let mut w = vec![T::zero(); m - i - 1];
                for (q, &uq) in u.iter().enumerate() {
                    let col = &a[(i + 1 + q) * ld + i + 1..(i + 1 + q) * ld + m];
                    w.iter_mut().zip(col).for_each(|(wr, &c)| *wr += c * uq);
                }
                for (q, &uq) in u.iter().enumerate() {
                    let f = tp * uq.conj();
                    let col = &mut a[(i + 1 + q) * ld + i + 1..(i + 1 + q) * ld + m];
                    col.iter_mut().zip(&w).for_each(|(c, &wr)| *c -= wr * f);
                }
            }
            conj_row(a, i, i + 1, n, ld);
            a[i + (i + 1) * ld] = T::from_real(e[i]);
        } else {
            taup[i] = T::zero();
        }
    }
}

/// Host access to a workspace.
fn host_mut<'a, T: Scalar>(
    w: &'a mut DeviceBuffer<T>,
    _dev: &rocm_core::Device,
) -> Result<crate::staging::HostMut<'a, T>> {
    crate::staging::stage_buffer_mut(w)
}

impl Solver {
    /// Qᴴ·A·P = B for the m×n A: B's diagonal in `d` (min(m, n)), its off-diagonal in
    /// `e` (min(m, n) − 1; superdiagonal for m >= n, subdiagonal otherwise), the
    /// reflectors of Q and P in A outside B with their scalars in `tauq` and `taup`
    /// (min(m, n) each), LAPACK's layout (see the module docs).
    pub fn gebrd<T: Scalar>(
        &self,
        m: usize,
        n: usize,
        a: &mut BufferSliceMut<'_, T>,
        lda: usize,
        d: &mut BufferSliceMut<'_, T::Real>,
        e: &mut BufferSliceMut<'_, T::Real>,
        tauq: &mut BufferSliceMut<'_, T>,
        taup: &mut BufferSliceMut<'_, T>,
    ) -> Result<()> {
        check::dim("m", m)?;
        check::dim("n", n)?;
        let k = m.min(n);
        check::matrix("a", "lda", a.len(), m, n, lda)?;
        check::vector("d", d.len(), k)?;
        check::vector("e", e.len(), k.saturating_sub(1))?;
        check::vector("tauq", tauq.len(), k)?;
        check::vector("taup", taup.len(), k)?;
        for (name, dev) in [
            ("a", a.device()),
            ("d", d.device()),
            ("e", e.device()),
            ("tauq", tauq.device()),
            ("taup", taup.device()),
        ] {
            check::device(self.device(), name, dev)?;
        }
        self.engine("gebrd")?;
        let mut dv = vec![T::Real::zero(); k];
        let mut ev = vec![T::Real::zero(); k.saturating_sub(1)];
        let mut tq = vec![T::zero(); k];
        let mut tp = vec![T::zero(); k];
        self.gebrd_view(
            MatMut::new(a.reborrow(), m, n, lda),
            &mut dv,
            &mut ev,
            &mut tq,
            &mut tp,
        )?;
        write_vector("d", d, &dv)?;
        write_vector("e", e, &ev)?;
        write_vector("tauq", tauq, &tq)?;
        write_vector("taup", taup, &tp)
    }

    /// GEBRD on a checked view (m < n through the conjugate transpose).
    pub(crate) fn gebrd_view<T: Scalar>(
        &self,
        mut a: MatMut<'_, T>,
        d: &mut [T::Real],
        e: &mut [T::Real],
        tauq: &mut [T],
        taup: &mut [T],
    ) -> Result<()> {
        let (m, n) = (a.rows, a.cols);
        if m.min(n) == 0 {
            return Ok(());
        }
        if m >= n {
            return self.gebrd_upper(a, d, e, tauq, taup);
        }
        let mut b = conj_transposed(self, &a.as_ref())?;
        self.gebrd_upper(MatMut::new(b.as_slice_mut(), n, m, n), d, e, taup, tauq)?;
        let bh = b.to_vec()?;
        let ld = a.ld;
        let mut h = a.host()?;
        for j in 0..n {
            for i in 0..m {
                h[i + j * ld] = bh[j + i * n].conj();
            }
        }
        Ok(())
    }

    fn gebrd_upper<T: Scalar>(
        &self,
        mut a: MatMut<'_, T>,
        d: &mut [T::Real],
        e: &mut [T::Real],
        tauq: &mut [T],
        taup: &mut [T],
    ) -> Result<()> {
        let (m, n) = (a.rows, a.cols);
        let nb = self.sizes.gebrd;
        let blas = &self.blas;
        let mut i = 0;
        while n - i > 2 * nb {
            let (rows, cols) = (m - i, n - i);
            let mut x = workspace::<T>(blas, rows, nb)?;
            let mut y = workspace::<T>(blas, cols, nb)?;
            self.labrd_upper(
                a.sub(i, i, rows, cols)?,
                nb,
                &mut d[i..i + nb],
                &mut e[i..i + nb],
                &mut tauq[i..i + nb],
                &mut taup[i..i + nb],
                &mut x,
                &mut y,
            )?;
            // A₂₂ ← A₂₂ − V·Yᴴ − X·Uᴴ (U's rows hold conj(u), so X·U as stored).
            let (r2, c2) = (rows - nb, cols - nb);
            {
                let trailing = a.sub(i, i, rows, cols)?;
                let (left, mut right) = trailing.split_cols(nb)?;
                let v = left.as_ref().sub(nb, 0, r2, nb)?;
                let u = copied(blas, &right.as_ref().sub(0, 0, nb, c2)?)?;
                let u = MatRef::new(u.as_slice(), nb, c2, nb);
                let yv = MatRef::new(y.as_slice(), cols, nb, cols).sub(nb, 0, c2, nb)?;
                let xv = MatRef::new(x.as_slice(), rows, nb, rows).sub(nb, 0, r2, nb)?;
                let mut a22 = right.sub(nb, 0, r2, c2)?;
                let one = T::one();
                gemm(
                    blas,
                    Transpose::N,
                    Transpose::C,
                    -one,
                    &v,
                    &yv,
                    one,
                    &mut a22,
                )?;
                gemm(
                    blas,
                    Transpose::N,
                    Transpose::N,
                    -one,
                    &xv,
                    &u,
                    one,
                    &mut a22,
                )?;
            }
            let ld = a.ld;
            let mut h = a.host()?;
            for j in i..i + nb {
                h[j + j * ld] = T::from_real(d[j]);
                h[j + (j + 1) * ld] = T::from_real(e[j]);
            }
            i += nb;
        }
        let ld = a.ld;
        let (rows, cols) = (m - i, n - i);
        let mut rest = a.sub(i, i, rows, cols)?;
        gebd2_upper(
            &mut rest.host()?,
            rows,
            cols,
            ld,
            &mut d[i..],
            &mut e[i..],
            &mut tauq[i..],
            &mut taup[i..],
        );
        Ok(())
    }

    /// LABRD (m >= n): reduces the first `nb` rows and columns of the M×N `a` and fills
    /// X (M×nb) and Y (N×nb) for the trailing update. Leaves A[i, i] = 1 and
    /// A[i, i + 1] = 1 (the reflectors' unit elements) for the caller to restore.
    fn labrd_upper<T: Scalar>(
        &self,
        mut a: MatMut<'_, T>,
        nb: usize,
        d: &mut [T::Real],
        e: &mut [T::Real],
        tauq: &mut [T],
        taup: &mut [T],
        x: &mut DeviceBuffer<T>,
        y: &mut DeviceBuffer<T>,
    ) -> Result<()> {
        let (m, n) = (a.rows, a.cols);
        let ld = a.ld;
        let (ldx, ldy) = (m, n);
        let dev = self.device().clone();
        let blas = &self.blas;
        for i in 0..nb {
            {
                let yh = host_mut(y, &dev)?.to_vec();
                let xh = host_mut(x, &dev)?.to_vec();
                let mut h = a.host()?;
                // A[i.., i] −= A[i.., 0..i]·conj(Y[i, 0..i]) + X[i.., 0..i]·A[0..i, i].
                for p in 0..i {
                    let (yip, api) = (yh[i + p * ldy].conj(), h[p + i * ld]);
                    for r in i..m {
                        let upd = h[r + p * ld] * yip + xh[r + p * ldx] * api;
                        h[r + i * ld] -= upd;
                    }
                }
                let col = &mut h[i * ld + i..i * ld + m];
                let (first, rest) = col.split_first_mut().expect("i < m");
                let (beta, tq) = larfg(*first, rest);
                d[i] = beta.re();
                tauq[i] = tq;
                *first = T::one();
            }
            // Y[i+1.., i] = A[i.., i+1..]ᴴ·v through rocm-blas.
            {
                let ar = a.as_ref();
                let mat = ar.sub(i, i + 1, m - i, n - i - 1)?;
                let v = ar.sub(i, i, m - i, 1)?;
                let mut ycol = y.slice_mut(i + 1 + i * ldy..)?;
                gemv(
                    blas,
                    Transpose::C,
                    T::one(),
                    &mat,
                    &v.buf,
                    1,
                    T::zero(),
                    &mut ycol,
                )?;
            }
            let xh = host_mut(x, &dev)?.to_vec();
            let mut h = a.host()?;
            let mut yh = host_mut(y, &dev)?;
            {
                let v: Vec<T> = h[i * ld + i..i * ld + m].to_vec();
                // Y[i+1.., i] −= Y[i+1.., 0..i]·(A[i.., 0..i]ᴴ·v) + A[0..i, i+1..]ᴴ·(X[i.., 0..i]ᴴ·v).
                let t1: Vec<T> = (0..i)
                    .map(|p| (0..m - i).map(|r| h[i + r + p * ld].conj() * v[r]).sum())
                    .collect();
                let t2: Vec<T> = (0..i)
                    .map(|p| (0..m - i).map(|r| xh[i + r + p * ldx].conj() * v[r]).sum())
                    .collect();
                for q in i + 1..n {
                    let mut s = T::zero();
                    for p in 0..i {
                        s += yh[q + p * ldy] * t1[p] + h[p + q * ld].conj() * t2[p];
                    }
                    yh[q + i * ldy] = (yh[q + i * ldy] - s) * tauq[i];
                }
            }
            // The row: conj, then A[i, i+1..] −= Y[i+1.., 0..=i]·conj(A[i, 0..=i]) +
            // A[0..i, i+1..]ᴴ·conj(X[i, 0..i]), in the conjugated frame.
            conj_row(&mut h, i, i + 1, n, ld);
            for q in i + 1..n {
                let mut s = T::zero();
                for p in 0..=i {
                    s += yh[q + p * ldy] * h[i + p * ld].conj();
                }
                for p in 0..i {
                    s += h[p + q * ld].conj() * xh[i + p * ldx].conj();
                }
                h[i + q * ld] -= s;
            }
            let (beta, tp) = larfg_row(&mut h, i, i + 1, n, ld);
            e[i] = beta.re();
            taup[i] = tp;
            h[i + (i + 1) * ld] = T::one();
            // Back to the device before the BLAS call reads them.
            drop(h);
            drop(yh);
            // X[i+1.., i] = A[i+1.., i+1..]·u through rocm-blas (u = the row, stride ld).
            {
                let ar = a.as_ref();
                let mat = ar.sub(i + 1, i + 1, m - i - 1, n - i - 1)?;
                let u = ar.sub(i, i + 1, 1, n - i - 1)?;
                let mut xcol = x.slice_mut(i + 1 + i * ldx..)?;
                gemv(
                    blas,
                    Transpose::N,
                    T::one(),
                    &mat,
                    &u.buf,
                    ld,
                    T::zero(),
                    &mut xcol,
                )?;
            }
            let yh = host_mut(y, &dev)?.to_vec();
            let mut h = a.host()?;
            let mut xh = host_mut(x, &dev)?;
            let u: Vec<T> = (i + 1..n).map(|q| h[i + q * ld]).collect();
            // X[i+1.., i] −= A[i+1.., 0..=i]·(Y[i+1.., 0..=i]ᴴ·u) + X[i+1.., 0..i]·(A[0..i, i+1..]·u).
            let t1: Vec<T> = (0..=i)
                .map(|p| {
                    (0..n - i - 1)
                        .map(|q| yh[i + 1 + q + p * ldy].conj() * u[q])
                        .sum()
                })
                .collect();
            let t2: Vec<T> = (0..i)
                .map(|p| (0..n - i - 1).map(|q| h[p + (i + 1 + q) * ld] * u[q]).sum())
                .collect();
            for r in i + 1..m {
                let mut s = T::zero();
                for p in 0..=i {
                    s += h[r + p * ld] * t1[p];
                }
                for p in 0..i {
                    s += xh[r + p * ldx] * t2[p];
                }
                xh[r + i * ldx] = (xh[r + i * ldx] - s) * tp;
            }
            conj_row(&mut h, i, i + 1, n, ld);
        }
        Ok(())
    }
}

/// Aᴴ of a view, in a fresh cols × rows workspace.
pub(crate) fn conj_transposed<T: Scalar>(
    solver: &Solver,
    a: &MatRef<'_, T>,
) -> Result<DeviceBuffer<T>> {
    let (m, n) = (a.rows, a.cols);
    let h = a.host()?;
    let mut out = vec![T::zero(); (m * n).max(1)];
    for j in 0..n {
        for i in 0..m {
            out[j + i * n] = h[i + j * a.ld].conj();
        }
    }
    solver.device().upload(&out)
}
