//! Reduction of a Hermitian matrix to real symmetric tridiagonal form (SYTRD / HETRD),
//! and its Q (ORGTR / UNGTR, ORMTR / UNMTR).
//!
//! Qᴴ·A·Q = T with T tridiagonal (diagonal `d`, off-diagonal `e`, both real) and, for
//! `uplo` = Lower, Q = H₁·…·H_{n−1}, H_i = I − τ_i·v_i·v_iᴴ, v_i zero above row i + 1,
//! v_i(i + 1) = 1 and the rest of v_i stored below the subdiagonal in column i (LAPACK's
//! layout). For Upper, Q = H_{n−1}·…·H₁ with v_i stored above the superdiagonal in
//! column i + 1, which is the Lower reduction of J·A·J (J the reversal permutation) read
//! backwards: the Upper forms run the Lower ones on a reversed copy (the same reflectors
//! and τ as LAPACK's).
//!
//! Blocked like LAPACK's SYTRD: a LATRD panel reduces `BlockSizes::sytrd` columns and
//! returns W such that the trailing matrix update is A₂₂ ← A₂₂ − V·Wᴴ − W·Vᴴ (one HER2K
//! through rocm-blas); the panel's products with the trailing matrix are HEMV calls
//! through rocm-blas, its O(n·nb) corrections run on the host. The last columns are
//! reduced by the unblocked SYTD2 kernel.

#![allow(clippy::too_many_arguments)]

use crate::blas3::{hemv, her2k, workspace};
use crate::handle::Solver;
use crate::householder::{larfg, normalized, Storage};
use crate::matrix::{MatMut, MatRef};
use crate::qr::{check_q_trans, host_of, write_vector};
use crate::{check, Scalar};
use num_traits::{One, Zero};
use rocm_core::linalg::{Side, Transpose, Uplo};
use rocm_core::{BufferSlice, BufferSliceMut, Result};

/// The n×n matrix B = J·A·J (B[p, q] = A[n−1−p, n−1−q]) of a host matrix.
pub(crate) fn reversed<T: Scalar>(a: &[T], n: usize, ld: usize) -> Vec<T> {
    let mut b = vec![T::zero(); (n * n).max(1)];
    for q in 0..n {
        for p in 0..n {
            b[p + q * n] = a[(n - 1 - p) + (n - 1 - q) * ld];
        }
    }
    b
}

/// Unblocked reduction of the lower triangle of an n×n host matrix (HETD2, Lower).
fn hetd2_lower<T: Scalar>(
    a: &mut [T],
    n: usize,
    ld: usize,
    d: &mut [T::Real],
    e: &mut [T::Real],
    tau: &mut [T],
) {
    if n == 0 {
        return;
    }
    a[0] = T::from_real(a[0].re());
    let half = T::from_real(<T::Real as One>::one() / (T::Real::one() + T::Real::one()));
    for i in 0..n - 1 {
        let (alpha, taui) = {
            let col = &mut a[i * ld + i + 1..i * ld + n];
            let (first, x) = col.split_first_mut().expect("i + 1 < n");
            let (beta, t) = larfg(*first, x);
            *first = T::one();
            (beta, t)
        };
        e[i] = alpha.re();
        let len = n - i - 1;
        if taui != T::zero() {
            let v: Vec<T> = a[i * ld + i + 1..i * ld + n].to_vec();
            let off = (i + 1) * ld + i + 1;
            // x = τ·A₂₂·v (lower triangle of the trailing matrix).
            let mut x = vec![T::zero(); len];
            for q in 0..len {
                let col = &a[off + q * ld..off + q * ld + len];
                x[q] += T::from_real(col[q].re()) * v[q];
                for p in q + 1..len {
                    x[p] += col[p] * v[q];
                    x[q] += col[p].conj() * v[p];
                }
            }
            x.iter_mut().for_each(|xi| *xi *= taui);
            // x ← x − ½·τ·(xᴴ·v)·v.
            let dot: T = x.iter().zip(&v).map(|(&xi, &vi)| xi.conj() * vi).sum();
            let alpha2 = -(half * taui * dot);
            x.iter_mut()
                .zip(&v)
                .for_each(|(xi, &vi)| *xi += alpha2 * vi);
            // A₂₂ ← A₂₂ − v·xᴴ − x·vᴴ (lower triangle).
            for q in 0..len {
                let col = &mut a[off + q * ld..off + q * ld + len];
                let (xq, vq) = (x[q].conj(), v[q].conj());
                for p in q..len {
                    col[p] -= v[p] * xq + x[p] * vq;
                }
                col[q] = T::from_real(col[q].re());
            }
        } else {
            let p = (i + 1) + (i + 1) * ld;
            a[p] = T::from_real(a[p].re());
        }
        a[i * ld + i + 1] = T::from_real(e[i]);
        d[i] = a[i + i * ld].re();
        tau[i] = taui;
    }
    d[n - 1] = a[(n - 1) + (n - 1) * ld].re();
}

impl Solver {
    /// Qᴴ·A·Q = T for the n×n Hermitian A whose `uplo` triangle is stored: `d` (n) gets
    /// T's diagonal, `e` (n − 1) its off-diagonal, `tau` (n − 1) the reflectors' scalars,
    /// the reflectors overwrite the `uplo` triangle outside T (SYTRD for real types, HETRD
    /// for complex). The other triangle is not touched.
    pub fn sytrd<T: Scalar>(
        &self,
        uplo: Uplo,
        n: usize,
        a: &mut BufferSliceMut<'_, T>,
        lda: usize,
        d: &mut BufferSliceMut<'_, T::Real>,
        e: &mut BufferSliceMut<'_, T::Real>,
        tau: &mut BufferSliceMut<'_, T>,
    ) -> Result<()> {
        check::dim("n", n)?;
        check::matrix("a", "lda", a.len(), n, n, lda)?;
        check::vector("d", d.len(), n)?;
        check::vector("e", e.len(), n.saturating_sub(1))?;
        check::vector("tau", tau.len(), n.saturating_sub(1))?;
        check::device(self.device(), "a", a.device())?;
        check::device(self.device(), "d", d.device())?;
        check::device(self.device(), "e", e.device())?;
        check::device(self.device(), "tau", tau.device())?;
        self.engine("sytrd")?;
        let m = n.saturating_sub(1);
        let (mut dv, mut ev, mut tv) = (
            vec![T::Real::zero(); n],
            vec![T::Real::zero(); m],
            vec![T::zero(); m],
        );
        self.sytrd_view(
            uplo,
            MatMut::new(a.reborrow(), n, n, lda),
            &mut dv,
            &mut ev,
            &mut tv,
        )?;
        write_vector("d", d, &dv)?;
        write_vector("e", e, &ev)?;
        write_vector("tau", tau, &tv)
    }

    /// [`Solver::sytrd`] under LAPACK's complex name.
    pub fn hetrd<T: Scalar>(
        &self,
        uplo: Uplo,
        n: usize,
        a: &mut BufferSliceMut<'_, T>,
        lda: usize,
        d: &mut BufferSliceMut<'_, T::Real>,
        e: &mut BufferSliceMut<'_, T::Real>,
        tau: &mut BufferSliceMut<'_, T>,
    ) -> Result<()> {
        self.sytrd(uplo, n, a, lda, d, e, tau)
    }

    /// SYTRD on a checked view.
    pub(crate) fn sytrd_view<T: Scalar>(
        &self,
        uplo: Uplo,
        mut a: MatMut<'_, T>,
        d: &mut [T::Real],
        e: &mut [T::Real],
        tau: &mut [T],
    ) -> Result<()> {
        let n = a.rows;
        if n == 0 {
            return Ok(());
        }
        match uplo {
            Uplo::Lower => self.sytrd_lower(a, d, e, tau),
            Uplo::Upper => {
                let ld = a.ld;
                let mut b = self.device().upload(&reversed(&a.host()?, n, ld))?;
                self.sytrd_lower(MatMut::new(b.as_slice_mut(), n, n, n), d, e, tau)?;
                let bh = b.to_vec()?;
                let mut h = a.host()?;
                for j in 0..n {
                    for i in 0..=j {
                        h[i + j * ld] = bh[(n - 1 - i) + (n - 1 - j) * n];
                    }
                }
                d.reverse();
                e.reverse();
                tau.reverse();
                Ok(())
            }
        }
    }

    fn sytrd_lower<T: Scalar>(
        &self,
        mut a: MatMut<'_, T>,
        d: &mut [T::Real],
        e: &mut [T::Real],
        tau: &mut [T],
    ) -> Result<()> {
        let n = a.rows;
        let nb = self.sizes.sytrd;
        let mut i = 0;
        // Panels while more than one block remains (LAPACK's crossover).
        while n - i > 2 * nb {
            let order = n - i;
            let mut w = workspace::<T>(&self.blas, order, nb)?;
            self.latrd_lower(
                a.sub(i, i, order, order)?,
                nb,
                &mut e[i..i + nb],
                &mut tau[i..i + nb],
                &mut w,
            )?;
            // A₂₂ ← A₂₂ − V·Wᴴ − W·Vᴴ; V keeps its unit elements until afterwards.
            let rest = order - nb;
            {
                let trailing = a.sub(i, i, order, order)?;
                let (left, mut right) = trailing.split_cols(nb)?;
                let v = left.as_ref().sub(nb, 0, rest, nb)?;
                let wv = MatRef::new(w.as_slice(), order, nb, order).sub(nb, 0, rest, nb)?;
                her2k(
                    &self.blas,
                    Uplo::Lower,
                    -T::one(),
                    &v,
                    &wv,
                    &mut right.sub(nb, 0, rest, rest)?,
                )?;
            }
            let ld = a.ld;
            let mut h = a.host()?;
            for j in i..i + nb {
                h[(j + 1) + j * ld] = T::from_real(e[j]);
                d[j] = h[j + j * ld].re();
            }
            i += nb;
        }
        let ld = a.ld;
        let order = n - i;
        let mut rest = a.sub(i, i, order, order)?;
        hetd2_lower(
            &mut rest.host()?,
            order,
            ld,
            &mut d[i..],
            &mut e[i..],
            &mut tau[i..],
        );
        Ok(())
    }

    /// LATRD (Lower): reduces the first `nb` columns of the N×N Hermitian `a` and fills
    /// W (N×nb) so that the trailing matrix is updated by A₂₂ − V·Wᴴ − W·Vᴴ. Leaves the
    /// unit first element of each reflector in place (A[j + 1, j] = 1).
    fn latrd_lower<T: Scalar>(
        &self,
        mut a: MatMut<'_, T>,
        nb: usize,
        e: &mut [T::Real],
        tau: &mut [T],
        w: &mut rocm_core::DeviceBuffer<T>,
    ) -> Result<()> {
        let n = a.rows;
        let ld = a.ld;
        let ldw = n;
        let half = T::from_real(<T::Real as One>::one() / (T::Real::one() + T::Real::one()));
        for j in 0..nb {
            {
                let wh = w.to_vec()?;
                let mut h = a.host()?;
                // A[j.., j] −= A[j.., 0..j]·conj(W[j, 0..j]) + W[j.., 0..j]·conj(A[j, 0..j]).
                for p in 0..j {
                    let (wjp, ajp) = (wh[j + p * ldw].conj(), h[j + p * ld].conj());
                    for r in j..n {
                        let upd = h[r + p * ld] * wjp + wh[r + p * ldw] * ajp;
                        h[r + j * ld] -= upd;
                    }
                }
                h[j + j * ld] = T::from_real(h[j + j * ld].re());
                if j + 1 >= n {
                    break;
                }
                let col = &mut h[j * ld + j + 1..j * ld + n];
                let (first, x) = col.split_first_mut().expect("j + 1 < n");
                let (beta, t) = larfg(*first, x);
                *first = T::one();
                e[j] = beta.re();
                tau[j] = t;
            }
            let len = n - j - 1;
            // W[j+1.., j] = A₂₂·v through rocm-blas.
            {
                let ar = a.as_ref();
                let a22 = ar.sub(j + 1, j + 1, len, len)?;
                let v = ar.sub(j + 1, j, len, 1)?;
                let mut wcol = w.slice_mut(j + 1 + j * ldw..)?;
                hemv(&self.blas, Uplo::Lower, &a22, &v.buf, &mut wcol, len)?;
            }
            let h = a.host()?;
            let mut wh = crate::staging::stage_buffer_mut(w)?;
            let v: Vec<T> = h[j * ld + j + 1..j * ld + n].to_vec();
            // W[j+1.., j] −= A[j+1.., 0..j]·(W[j+1.., 0..j]ᴴ·v) + W[j+1.., 0..j]·(A[j+1.., 0..j]ᴴ·v).
            let dots = |m: &[T], ldm: usize| -> Vec<T> {
                (0..j)
                    .map(|p| {
                        m[p * ldm + j + 1..p * ldm + n]
                            .iter()
                            .zip(&v)
                            .map(|(&x, &y)| x.conj() * y)
                            .sum()
                    })
                    .collect()
            };
            let wv = dots(&wh, ldw);
            let av = dots(&h, ld);
            for p in 0..j {
                for r in 0..len {
                    let upd = h[(j + 1 + r) + p * ld] * wv[p] + wh[(j + 1 + r) + p * ldw] * av[p];
                    wh[(j + 1 + r) + j * ldw] -= upd;
                }
            }
            let t = tau[j];
            let wcol = &mut wh[j * ldw + j + 1..j * ldw + n];
            wcol.iter_mut().for_each(|x| *x *= t);
            let dot: T = wcol.iter().zip(&v).map(|(&x, &y)| x.conj() * y).sum();
            let alpha = -(half * t * dot);
            wcol.iter_mut().zip(&v).for_each(|(x, &y)| *x += alpha * y);
        }
        Ok(())
    }

    /// The reflectors of an n×n SYTRD output as (storage offset, reversed copy): Lower
    /// keeps them in A[1.., 0..n−1] by columns; Upper is the Lower layout of J·A·J.
    fn tridiagonal_q<T: Scalar>(
        &self,
        uplo: Uplo,
        a: &MatRef<'_, T>,
    ) -> Result<Option<rocm_core::DeviceBuffer<T>>> {
        Ok(match uplo {
            Uplo::Lower => None,
            Uplo::Upper => Some(self.device().upload(&reversed(&a.host()?, a.rows, a.ld))?),
        })
    }

    /// C ← op(Q)·C (`side` Left) or C·op(Q) (Right) for the Q of [`Solver::sytrd`] with
    /// the same `uplo` (A nq×nq, nq = m for Left, n for Right; tau nq − 1), op = N or C
    /// (T for real types) (ORMTR / UNMTR).
    pub fn ormtr<T: Scalar>(
        &self,
        side: Side,
        uplo: Uplo,
        trans: Transpose,
        m: usize,
        n: usize,
        a: &BufferSlice<'_, T>,
        lda: usize,
        tau: &BufferSlice<'_, T>,
        c: &mut BufferSliceMut<'_, T>,
        ldc: usize,
    ) -> Result<()> {
        check::dim("m", m)?;
        check::dim("n", n)?;
        check_q_trans::<T>(trans)?;
        let nq = if side == Side::Left { m } else { n };
        check::matrix("a", "lda", a.len(), nq, nq, lda)?;
        check::vector("tau", tau.len(), nq.saturating_sub(1))?;
        check::matrix("c", "ldc", c.len(), m, n, ldc)?;
        check::device(self.device(), "a", a.device())?;
        check::device(self.device(), "tau", tau.device())?;
        check::device(self.device(), "c", c.device())?;
        self.engine("ormtr")?;
        let taus = host_of("tau", tau)?;
        self.ormtr_view(
            side,
            uplo,
            trans,
            &MatRef::new(*a, nq, nq, lda),
            &taus[..nq.saturating_sub(1)],
            MatMut::new(c.reborrow(), m, n, ldc),
        )
    }

    /// [`Solver::ormtr`] under LAPACK's complex name.
    pub fn unmtr<T: Scalar>(
        &self,
        side: Side,
        uplo: Uplo,
        trans: Transpose,
        m: usize,
        n: usize,
        a: &BufferSlice<'_, T>,
        lda: usize,
        tau: &BufferSlice<'_, T>,
        c: &mut BufferSliceMut<'_, T>,
        ldc: usize,
    ) -> Result<()> {
        self.ormtr(side, uplo, trans, m, n, a, lda, tau, c, ldc)
    }

    /// ORMTR on checked views.
    pub(crate) fn ormtr_view<T: Scalar>(
        &self,
        side: Side,
        uplo: Uplo,
        trans: Transpose,
        a: &MatRef<'_, T>,
        taus: &[T],
        mut c: MatMut<'_, T>,
    ) -> Result<()> {
        let nq = a.rows;
        let (m, n) = (c.rows, c.cols);
        if nq <= 1 || m == 0 || n == 0 {
            return Ok(());
        }
        let op = normalized(trans);
        // Lower: Q acts on rows (Left) or columns (Right) 1..nq through the reflectors in
        // A[1.., 0..nq−1]. Upper: op(Q)·C = J·op(Q')·(J·C) with Q' the Lower Q of J·A·J.
        let rev = self.tridiagonal_q(uplo, a)?;
        let refl = match &rev {
            None => a.sub(1, 0, nq - 1, nq - 1)?,
            Some(b) => MatRef::new(b.as_slice(), nq, nq, nq).sub(1, 0, nq - 1, nq - 1)?,
        };
        let mut taus = taus.to_vec();
        if rev.is_some() {
            taus.reverse();
        }
        let flip = |c: &mut MatMut<'_, T>| -> Result<()> {
            let (rows, cols, ld) = (c.rows, c.cols, c.ld);
            let mut h = c.host()?;
            match side {
                Side::Left => {
                    for j in 0..cols {
                        h[j * ld..j * ld + rows].reverse();
                    }
                }
                Side::Right => {
                    for j in 0..cols / 2 {
                        for i in 0..rows {
                            h.swap(i + j * ld, i + (cols - 1 - j) * ld);
                        }
                    }
                }
            }
            Ok(())
        };
        if rev.is_some() {
            flip(&mut c)?;
        }
        let target = match side {
            Side::Left => c.sub(1, 0, m - 1, n)?,
            Side::Right => c.sub(0, 1, m, n - 1)?,
        };
        self.apply_q(Storage::Columns, side, op, &refl, &taus, target)?;
        if rev.is_some() {
            flip(&mut c)?;
        }
        Ok(())
    }

    /// The n×n unitary Q of [`Solver::sytrd`] with the same `uplo`, overwriting A (ORGTR
    /// for real types, UNGTR for complex).
    pub fn orgtr<T: Scalar>(
        &self,
        uplo: Uplo,
        n: usize,
        a: &mut BufferSliceMut<'_, T>,
        lda: usize,
        tau: &BufferSlice<'_, T>,
    ) -> Result<()> {
        check::dim("n", n)?;
        check::matrix("a", "lda", a.len(), n, n, lda)?;
        check::vector("tau", tau.len(), n.saturating_sub(1))?;
        check::device(self.device(), "a", a.device())?;
        check::device(self.device(), "tau", tau.device())?;
        self.engine("orgtr")?;
        if n == 0 {
            return Ok(());
        }
        let taus = host_of("tau", tau)?;
        let mut a = MatMut::new(a.reborrow(), n, n, lda);
        // Q = the identity with Q' = Q applied to it.
        let mut q = workspace::<T>(&self.blas, n, n)?;
        {
            let mut qh = crate::staging::stage_buffer_mut(&mut q)?;
            (0..n).for_each(|i| qh[i + i * n] = T::one());
        }
        self.ormtr_view(
            Side::Left,
            uplo,
            Transpose::N,
            &a.as_ref(),
            &taus[..n - 1],
            MatMut::new(q.as_slice_mut(), n, n, n),
        )?;
        crate::blas3::copy(&MatRef::new(q.as_slice(), n, n, n), &mut a)
    }

    /// [`Solver::orgtr`] under LAPACK's complex name.
    pub fn ungtr<T: Scalar>(
        &self,
        uplo: Uplo,
        n: usize,
        a: &mut BufferSliceMut<'_, T>,
        lda: usize,
        tau: &BufferSlice<'_, T>,
    ) -> Result<()> {
        self.orgtr(uplo, n, a, lda, tau)
    }
}
