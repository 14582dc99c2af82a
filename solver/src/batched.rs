//! Batched and strided-batched GETRF, GETRS, POTRF, POTRS, GEQRF and GELS.
//!
//! Strided-batched problems sit `stride` elements apart in one buffer (problem `i` at
//! `i·stride`); batched problems are a slice of views. Per-problem outputs (pivots, info)
//! use one buffer and a stride, as rocSOLVER's do. On the CPU the problems are spread over
//! rayon's threads, each factored by the same code as the single call (which takes the
//! unblocked path for orders up to `BlockSizes::small`), so batched and single results
//! agree bit for bit.

#![allow(clippy::too_many_arguments)]

use crate::handle::{Info, Solver};
use crate::lu::{read_pivots, write_pivots};
use crate::matrix::{extent, MatMut, MatRef};
use crate::qr::{check_q_trans, write_vector};
use crate::{check, Scalar};
use rayon::prelude::*;
use rocm_core::linalg::{Transpose, Uplo};
use rocm_core::{BufferSlice, BufferSliceMut, Element, Result};

/// `count` disjoint views `stride` apart (the caller checked the strides). The batch
/// count must fit rocSOLVER's 32-bit integer: a count of empty problems passes the
/// stride checks whatever its size, and each problem costs a view and an `Info`.
fn split_strided<'a, T: Element>(
    buf: BufferSliceMut<'a, T>,
    stride: usize,
    count: usize,
) -> Result<Vec<BufferSliceMut<'a, T>>> {
    check::dim("batch_count", count)?;
    let mut out = rocm_core::host_alloc::try_with_capacity("batch_count", count)?;
    let mut rest = buf;
    for i in 0..count {
        if i + 1 == count {
            out.push(rest);
            break;
        }
        let mid = stride.min(rest.len());
        let (head, tail) = rest.split_at_mut(mid)?;
        out.push(head);
        rest = tail;
    }
    Ok(out)
}

/// Shared views `stride` apart (inputs may overlap, e.g. stride 0).
fn views<'a, T: Element>(
    buf: &BufferSlice<'a, T>,
    stride: usize,
    count: usize,
) -> Result<Vec<BufferSlice<'a, T>>> {
    check::dim("batch_count", count)?;
    let mut out = rocm_core::host_alloc::try_with_capacity("batch_count", count)?;
    for i in 0..count {
        let at = i
            .checked_mul(stride)
            .map_or(buf.len(), |o| o.min(buf.len()));
        out.push(buf.slice(at..)?);
    }
    Ok(out)
}

fn check_views<T: Element>(
    solver: &Solver,
    name: &str,
    a: &[BufferSliceMut<'_, T>],
    rows: usize,
    cols: usize,
    ld: usize,
) -> Result<()> {
    for (i, v) in a.iter().enumerate() {
        check::matrix(&format!("{name}[{i}]"), "lda", v.len(), rows, cols, ld)?;
        check::device(solver.device(), &format!("{name}[{i}]"), v.device())?;
    }
    Ok(())
}

impl Solver {
    /// GETRF of `batch_count` m×n matrices `stride_a` apart; problem i's pivots go to
    /// `ipiv[i·stride_p..]`. Returns one `Info` per problem.
    pub fn getrf_strided_batched<T: Scalar>(
        &self,
        m: usize,
        n: usize,
        a: &mut BufferSliceMut<'_, T>,
        lda: usize,
        stride_a: usize,
        ipiv: &mut BufferSliceMut<'_, i32>,
        stride_p: usize,
        batch_count: usize,
    ) -> Result<Vec<Info>> {
        check::dim("m", m)?;
        check::dim("n", n)?;
        check::leading_dimension_of("lda", lda, m)?;
        check::batch("a", a.len(), extent(m, n, lda), stride_a, batch_count, true)?;
        check::device(self.device(), "a", a.device())?;
        let views = split_strided(a.reborrow(), stride_a, batch_count)?;
        self.getrf_many(m, n, views, lda, ipiv, stride_p)
    }

    /// GETRF of each m×n matrix in `a`; problem i's pivots go to `ipiv[i·stride_p..]`.
    pub fn getrf_batched<T: Scalar>(
        &self,
        m: usize,
        n: usize,
        a: &mut [BufferSliceMut<'_, T>],
        lda: usize,
        ipiv: &mut BufferSliceMut<'_, i32>,
        stride_p: usize,
    ) -> Result<Vec<Info>> {
        check::dim("m", m)?;
        check::dim("n", n)?;
        check_views(self, "a", a, m, n, lda)?;
        let views: Vec<_> = a.iter_mut().map(|v| v.reborrow()).collect();
        self.getrf_many(m, n, views, lda, ipiv, stride_p)
    }

    fn getrf_many<T: Scalar>(
        &self,
        m: usize,
        n: usize,
        views: Vec<BufferSliceMut<'_, T>>,
        lda: usize,
        ipiv: &mut BufferSliceMut<'_, i32>,
        stride_p: usize,
    ) -> Result<Vec<Info>> {
        let k = m.min(n);
        check::batch("ipiv", ipiv.len(), k, stride_p, views.len(), true)?;
        check::device(self.device(), "ipiv", ipiv.device())?;
        self.engine("getrf_batched")?;
        let pivs = split_strided(ipiv.reborrow(), stride_p, views.len())?;
        views
            .into_par_iter()
            .zip(pivs)
            .map(|(a, mut p)| {
                let mut piv = vec![0usize; k];
                let info = self.getrf_view(MatMut::new(a, m, n, lda), &mut piv)?;
                write_pivots(&mut p, &piv)?;
                Ok(info)
            })
            .collect()
    }

    /// GETRS of `batch_count` problems: factors `stride_a` apart, pivots `stride_p` apart,
    /// right-hand sides `stride_b` apart.
    pub fn getrs_strided_batched<T: Scalar>(
        &self,
        trans: Transpose,
        n: usize,
        nrhs: usize,
        a: &BufferSlice<'_, T>,
        lda: usize,
        stride_a: usize,
        ipiv: &BufferSlice<'_, i32>,
        stride_p: usize,
        b: &mut BufferSliceMut<'_, T>,
        ldb: usize,
        stride_b: usize,
        batch_count: usize,
    ) -> Result<()> {
        check::dim("n", n)?;
        check::dim("nrhs", nrhs)?;
        check::leading_dimension_of("lda", lda, n)?;
        check::leading_dimension_of("ldb", ldb, n)?;
        check::batch(
            "a",
            a.len(),
            extent(n, n, lda),
            stride_a,
            batch_count,
            false,
        )?;
        check::batch("ipiv", ipiv.len(), n, stride_p, batch_count, false)?;
        check::batch(
            "b",
            b.len(),
            extent(n, nrhs, ldb),
            stride_b,
            batch_count,
            true,
        )?;
        check::device(self.device(), "a", a.device())?;
        check::device(self.device(), "ipiv", ipiv.device())?;
        check::device(self.device(), "b", b.device())?;
        self.engine("getrs_strided_batched")?;
        let avs = views(a, stride_a, batch_count)?;
        let pvs = views(ipiv, stride_p, batch_count)?;
        let bvs = split_strided(b.reborrow(), stride_b, batch_count)?;
        avs.into_par_iter()
            .zip(pvs)
            .zip(bvs)
            .map(|((a, p), b)| {
                let piv = read_pivots(&p, n)?;
                self.getrs_view(
                    trans,
                    &MatRef::new(a, n, n, lda),
                    &piv,
                    MatMut::new(b, n, nrhs, ldb),
                )
            })
            .collect()
    }

    /// POTRF of `batch_count` n×n matrices `stride_a` apart; one `Info` per problem.
    pub fn potrf_strided_batched<T: Scalar>(
        &self,
        uplo: Uplo,
        n: usize,
        a: &mut BufferSliceMut<'_, T>,
        lda: usize,
        stride_a: usize,
        batch_count: usize,
    ) -> Result<Vec<Info>> {
        check::dim("n", n)?;
        check::leading_dimension_of("lda", lda, n)?;
        check::batch("a", a.len(), extent(n, n, lda), stride_a, batch_count, true)?;
        check::device(self.device(), "a", a.device())?;
        let views = split_strided(a.reborrow(), stride_a, batch_count)?;
        self.potrf_many(uplo, n, views, lda)
    }

    /// POTRF of each n×n matrix in `a`.
    pub fn potrf_batched<T: Scalar>(
        &self,
        uplo: Uplo,
        n: usize,
        a: &mut [BufferSliceMut<'_, T>],
        lda: usize,
    ) -> Result<Vec<Info>> {
        check::dim("n", n)?;
        check_views(self, "a", a, n, n, lda)?;
        let views: Vec<_> = a.iter_mut().map(|v| v.reborrow()).collect();
        self.potrf_many(uplo, n, views, lda)
    }

    fn potrf_many<T: Scalar>(
        &self,
        uplo: Uplo,
        n: usize,
        views: Vec<BufferSliceMut<'_, T>>,
        lda: usize,
    ) -> Result<Vec<Info>> {
        self.engine("potrf_batched")?;
        views
            .into_par_iter()
            .map(|a| self.potrf_view(uplo, MatMut::new(a, n, n, lda)))
            .collect()
    }

    /// POTRS of `batch_count` problems: factors `stride_a` apart, right-hand sides
    /// `stride_b` apart.
    pub fn potrs_strided_batched<T: Scalar>(
        &self,
        uplo: Uplo,
        n: usize,
        nrhs: usize,
        a: &BufferSlice<'_, T>,
        lda: usize,
        stride_a: usize,
        b: &mut BufferSliceMut<'_, T>,
        ldb: usize,
        stride_b: usize,
        batch_count: usize,
    ) -> Result<()> {
        check::dim("n", n)?;
        check::dim("nrhs", nrhs)?;
        check::leading_dimension_of("lda", lda, n)?;
        check::leading_dimension_of("ldb", ldb, n)?;
        check::batch(
            "a",
            a.len(),
            extent(n, n, lda),
            stride_a,
            batch_count,
            false,
        )?;
        check::batch(
            "b",
            b.len(),
            extent(n, nrhs, ldb),
            stride_b,
            batch_count,
            true,
        )?;
        check::device(self.device(), "a", a.device())?;
        check::device(self.device(), "b", b.device())?;
        self.engine("potrs_strided_batched")?;
        let avs = views(a, stride_a, batch_count)?;
        let bvs = split_strided(b.reborrow(), stride_b, batch_count)?;
        avs.into_par_iter()
            .zip(bvs)
            .map(|(a, b)| {
                self.potrs_view(
                    uplo,
                    &MatRef::new(a, n, n, lda),
                    MatMut::new(b, n, nrhs, ldb),
                )
            })
            .collect()
    }

    /// GEQRF of `batch_count` m×n matrices `stride_a` apart; problem i's scalars go to
    /// `tau[i·stride_tau..]` (min(m, n) each).
    pub fn geqrf_strided_batched<T: Scalar>(
        &self,
        m: usize,
        n: usize,
        a: &mut BufferSliceMut<'_, T>,
        lda: usize,
        stride_a: usize,
        tau: &mut BufferSliceMut<'_, T>,
        stride_tau: usize,
        batch_count: usize,
    ) -> Result<()> {
        check::dim("m", m)?;
        check::dim("n", n)?;
        check::leading_dimension_of("lda", lda, m)?;
        check::batch("a", a.len(), extent(m, n, lda), stride_a, batch_count, true)?;
        check::device(self.device(), "a", a.device())?;
        let views = split_strided(a.reborrow(), stride_a, batch_count)?;
        self.geqrf_many(m, n, views, lda, tau, stride_tau)
    }

    /// GEQRF of each m×n matrix in `a`; problem i's scalars go to `tau[i·stride_tau..]`.
    pub fn geqrf_batched<T: Scalar>(
        &self,
        m: usize,
        n: usize,
        a: &mut [BufferSliceMut<'_, T>],
        lda: usize,
        tau: &mut BufferSliceMut<'_, T>,
        stride_tau: usize,
    ) -> Result<()> {
        check::dim("m", m)?;
        check::dim("n", n)?;
        check_views(self, "a", a, m, n, lda)?;
        let views: Vec<_> = a.iter_mut().map(|v| v.reborrow()).collect();
        self.geqrf_many(m, n, views, lda, tau, stride_tau)
    }

    fn geqrf_many<T: Scalar>(
        &self,
        m: usize,
        n: usize,
        views: Vec<BufferSliceMut<'_, T>>,
        lda: usize,
        tau: &mut BufferSliceMut<'_, T>,
        stride_tau: usize,
    ) -> Result<()> {
        let k = m.min(n);
        check::batch("tau", tau.len(), k, stride_tau, views.len(), true)?;
        check::device(self.device(), "tau", tau.device())?;
        self.engine("geqrf_batched")?;
        let taus = split_strided(tau.reborrow(), stride_tau, views.len())?;
        views
            .into_par_iter()
            .zip(taus)
            .map(|(a, mut t)| {
                let mut tv = vec![T::zero(); k];
                self.geqrf_view(MatMut::new(a, m, n, lda), &mut tv)?;
                write_vector("tau", &mut t, &tv)
            })
            .collect()
    }

    /// GELS of `batch_count` problems: m×n matrices `stride_a` apart, right-hand sides
    /// (max(m, n)×nrhs, ldb >= max(m, n)) `stride_b` apart. One `Info` per problem.
    pub fn gels_strided_batched<T: Scalar>(
        &self,
        trans: Transpose,
        m: usize,
        n: usize,
        nrhs: usize,
        a: &mut BufferSliceMut<'_, T>,
        lda: usize,
        stride_a: usize,
        b: &mut BufferSliceMut<'_, T>,
        ldb: usize,
        stride_b: usize,
        batch_count: usize,
    ) -> Result<Vec<Info>> {
        check::dim("m", m)?;
        check::dim("n", n)?;
        check::dim("nrhs", nrhs)?;
        check_q_trans::<T>(trans)?;
        check::leading_dimension_of("lda", lda, m)?;
        check::leading_dimension_of("ldb", ldb, m.max(n))?;
        check::batch("a", a.len(), extent(m, n, lda), stride_a, batch_count, true)?;
        check::batch(
            "b",
            b.len(),
            extent(m.max(n), nrhs, ldb),
            stride_b,
            batch_count,
            true,
        )?;
        check::device(self.device(), "a", a.device())?;
        check::device(self.device(), "b", b.device())?;
        let avs = split_strided(a.reborrow(), stride_a, batch_count)?;
        let bvs = split_strided(b.reborrow(), stride_b, batch_count)?;
        self.gels_many(trans, m, n, nrhs, avs, lda, bvs, ldb)
    }

    /// GELS of each problem (A = `a[i]`, B = `b[i]`); one `Info` per problem.
    pub fn gels_batched<T: Scalar>(
        &self,
        trans: Transpose,
        m: usize,
        n: usize,
        nrhs: usize,
        a: &mut [BufferSliceMut<'_, T>],
        lda: usize,
        b: &mut [BufferSliceMut<'_, T>],
        ldb: usize,
    ) -> Result<Vec<Info>> {
        check::dim("m", m)?;
        check::dim("n", n)?;
        check::dim("nrhs", nrhs)?;
        check_q_trans::<T>(trans)?;
        rocm_core::ensure_arg!(
            a.len() == b.len(),
            "b",
            "has {} problems, `a` has {}",
            b.len(),
            a.len()
        );
        check_views(self, "a", a, m, n, lda)?;
        for (i, v) in b.iter().enumerate() {
            check::matrix(&format!("b[{i}]"), "ldb", v.len(), m.max(n), nrhs, ldb)?;
            check::device(self.device(), &format!("b[{i}]"), v.device())?;
        }
        let avs: Vec<_> = a.iter_mut().map(|v| v.reborrow()).collect();
        let bvs: Vec<_> = b.iter_mut().map(|v| v.reborrow()).collect();
        self.gels_many(trans, m, n, nrhs, avs, lda, bvs, ldb)
    }

    fn gels_many<T: Scalar>(
        &self,
        trans: Transpose,
        m: usize,
        n: usize,
        nrhs: usize,
        avs: Vec<BufferSliceMut<'_, T>>,
        lda: usize,
        bvs: Vec<BufferSliceMut<'_, T>>,
        ldb: usize,
    ) -> Result<Vec<Info>> {
        self.engine("gels_batched")?;
        avs.into_par_iter()
            .zip(bvs)
            .map(|(a, b)| {
                self.gels_view(
                    trans,
                    MatMut::new(a, m, n, lda),
                    MatMut::new(b, m.max(n), nrhs, ldb),
                )
            })
            .collect()
    }
}
