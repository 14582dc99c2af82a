//! QR factorisation (GEQRF), the explicit Q (ORGQR / UNGQR) and its application
//! (ORMQR / UNMQR), blocked with the compact WY form.
//!
//! GEQRF writes A = Q·R with Q = H₁·H₂·…·H_k, H_i = I − τ_i·v_i·v_iᴴ (v_i(i) = 1, stored
//! below the diagonal, LAPACK's layout). Each panel of `BlockSizes::geqrf` columns is
//! factored recursively ([`Solver::geqrt3`]: halves of the panel, the left half's block
//! reflector applied to the right half by GEMMs, GEQR2 only below
//! `BlockSizes::unblocked` columns), which also yields T with H = I − V·T·Vᴴ (T upper
//! triangular); H is then applied to the trailing columns as C ← C − V·(Tᴴ·(Vᴴ·C))
//! (LARFB: three GEMMs through rocm-blas), with a lookahead of one panel. ORMQR applies Q the same way, from either
//! side, with T from LARFT. Problems of order up to `BlockSizes::small` take GEQR2
//! whole.

#![allow(clippy::too_many_arguments)]

use crate::handle::Solver;
use crate::householder::{geqr2, normalized, unit_v, Storage};
use crate::matrix::{MatMut, MatRef};
use crate::{check, Scalar};
use rocm_core::linalg::{Side, Transpose};
use rocm_core::{BufferSlice, BufferSliceMut, Result};

/// Host access to a vector argument (`tau`).
pub(crate) fn host_of<'a, T: Scalar>(
    _name: &str,
    v: &BufferSlice<'a, T>,
) -> Result<std::borrow::Cow<'a, [T]>> {
    crate::staging::stage(v, v.len())
}

/// Writes `vals` to the front of a vector argument.
pub(crate) fn write_vector<T: Scalar>(
    name: &str,
    dst: &mut BufferSliceMut<'_, T>,
    vals: &[T],
) -> Result<()> {
    crate::check::vector(name, dst.len(), vals.len())?;
    let mut h = crate::staging::stage_mut(dst, vals.len())?;
    h[..vals.len()].copy_from_slice(vals);
    h.commit()
}

/// `trans` is N or C, or T for a real type.
pub(crate) fn check_q_trans<T: Scalar>(trans: Transpose) -> Result<()> {
    rocm_core::ensure_arg!(
        !(T::IS_COMPLEX && trans == Transpose::T),
        "trans",
        "a complex Q takes N or C, not T"
    );
    Ok(())
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
        let mut taus = vec![T::zero(); m.min(n)];
        self.geqrf_view(MatMut::new(a.reborrow(), m, n, lda), &mut taus)?;
        write_vector("tau", tau, &taus)
    }

    /// GEQRF on a checked view; `taus` holds min(rows, cols) scalars.
    ///
    /// Blocked with a lookahead of one panel: once panel j is factored (H_j = I − V·T·Vᴴ),
    /// H_jᴴ is applied to the next panel's columns first; then the next panel is factored
    /// while H_jᴴ is applied to the columns after it, the two on disjoint column ranges
    /// under `rayon::join`. The recursive panel, a chain of small products, thus leaves
    /// the critical path except for the first; every column still receives the panels'
    /// reflectors in LAPACK's order, so the result is the same as without the lookahead.
    pub(crate) fn geqrf_view<T: Scalar>(&self, mut a: MatMut<'_, T>, taus: &mut [T]) -> Result<()> {
        let (m, n) = (a.rows, a.cols);
        let k = m.min(n);
        if k <= self.sizes.small {
            let ld = a.ld;
            geqr2(&mut a.host()?, m, n, ld, taus);
            return Ok(());
        }
        let nb = self.sizes.geqrf;
        let dev = self.device();
        let mut jb = nb.min(k);
        let mut t = self.geqrt3(a.sub(0, 0, m, jb)?, &mut taus[..jb])?;
        let mut j = 0;
        while j + jb < n {
            let (rows, next) = (m - j, j + jb);
            let (done, rest) = a.rb().split_cols(next)?;
            let factored = done.as_ref().sub(j, j, rows, jb)?;
            let v = dev.upload(&unit_v(
                &factored.host()?,
                factored.ld,
                Storage::Columns,
                0,
                rows,
                jb,
            ))?;
            let tb = dev.upload(&t)?;
            let v = MatRef::new(v.as_slice(), rows, jb, rows);
            let h = MatRef::new(tb.as_slice(), jb, jb, jb);
            let jb2 = nb.min(k.saturating_sub(next));
            if jb2 == 0 {
                // m < n: the columns right of the last panel only need H_jᴴ.
                let c = rest.into_sub(j, 0, rows, n - next)?;
                return self.larfb_views(Side::Left, Transpose::C, &v, &h, c);
            }
            let (mut panel, trailing) = rest.split_cols(jb2)?;
            self.larfb_views(
                Side::Left,
                Transpose::C,
                &v,
                &h,
                panel.sub(j, 0, rows, jb2)?,
            )?;
            let after = n - next - jb2;
            let panel_taus = &mut taus[next..next + jb2];
            let (t2, updated) = rayon::join(
                || self.geqrt3(panel.into_sub(next, 0, m - next, jb2)?, panel_taus),
                || {
                    if after == 0 {
                        return Ok(());
                    }
                    let c = trailing.into_sub(j, 0, rows, after)?;
                    self.larfb_views(Side::Left, Transpose::C, &v, &h, c)
                },
            );
            updated?;
            t = t2?;
            j = next;
            jb = jb2;
        }
        Ok(())
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
        let taus = host_of("tau", tau)?;
        let mut a = MatMut::new(a.reborrow(), m, n, lda);
        let q = self.form_p(Storage::Columns, m, n, &a.as_ref(), &taus[..k])?;
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

    /// C ← op(Q)·C (`side` Left) or C·op(Q) (Right) for Q = H₁·…·H_k from
    /// [`Solver::geqrf`], C m×n; the k reflectors sit in the columns of `a` (m×k for Left,
    /// n×k for Right). op is N or C; T is accepted for real types (ORMQR / UNMQR).
    pub fn ormqr<T: Scalar>(
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
            "ormqr",
            Storage::Columns,
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

    /// ORMQR and ORMLQ after their argument checks: the k reflectors of `a` (stored as
    /// `storage` says: nq×k columns or k×nq rows, nq = m for Left, n for Right) applied to
    /// the m×n C.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn apply_reflectors<T: Scalar>(
        &self,
        routine: &str,
        storage: Storage,
        side: Side,
        trans: Transpose,
        (m, n, k): (usize, usize, usize),
        a: &BufferSlice<'_, T>,
        lda: usize,
        tau: &BufferSlice<'_, T>,
        c: &mut BufferSliceMut<'_, T>,
        ldc: usize,
    ) -> Result<()> {
        check::dim("m", m)?;
        check::dim("n", n)?;
        let nq = if side == Side::Left { m } else { n };
        rocm_core::ensure_arg!(k <= nq, "k", "must be <= {nq} (the order of Q), got {k}");
        check_q_trans::<T>(trans)?;
        let (a_rows, a_cols) = match storage {
            Storage::Columns => (nq, k),
            Storage::Rows => (k, nq),
        };
        check::matrix("a", "lda", a.len(), a_rows, a_cols, lda)?;
        check::vector("tau", tau.len(), k)?;
        check::matrix("c", "ldc", c.len(), m, n, ldc)?;
        check::device(self.device(), "a", a.device())?;
        check::device(self.device(), "tau", tau.device())?;
        check::device(self.device(), "c", c.device())?;
        self.engine(routine)?;
        let taus = host_of("tau", tau)?;
        self.apply_q(
            storage,
            side,
            normalized(trans),
            &MatRef::new(*a, a_rows, a_cols, lda),
            &taus[..k],
            MatMut::new(c.reborrow(), m, n, ldc),
        )
    }

    /// [`Solver::ormqr`] under LAPACK's complex name.
    pub fn unmqr<T: Scalar>(
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
        self.ormqr(side, trans, m, n, k, a, lda, tau, c, ldc)
    }
}
