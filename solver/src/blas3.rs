//! The Level-3 steps of the blocked algorithms, each a call into rocm-blas.
//!
//! Thin adapters from matrix views to [`Blas::gemm`], [`Blas::trsm`], [`Blas::herk`]
//! (SYRK for real types), [`Blas::her2k`] and [`Blas::trmm`], plus the two Level 2
//! products the two-sided reductions' panels need ([`Blas::hemv`], [`Blas::gemv`]): the
//! solver's only arithmetic on whole trailing matrices, so a device with BLAS runs the
//! blocked algorithms unchanged.
//!
//! Every operand must be its own buffer range: where an algorithm would read one row
//! block of a matrix while writing another, it copies the read block with [`copy`].

#![allow(clippy::too_many_arguments)]

use crate::matrix::{MatMut, MatRef};
use crate::Scalar;
use rocm_blas::Blas;
use rocm_core::linalg::{Diag, Side, Transpose, Uplo};
use rocm_core::Result;

/// C = α·op(A)·op(B) + β·C with the shapes taken from the views.
pub(crate) fn gemm<T: Scalar>(
    blas: &Blas,
    ta: Transpose,
    tb: Transpose,
    alpha: T,
    a: &MatRef<'_, T>,
    b: &MatRef<'_, T>,
    beta: T,
    c: &mut MatMut<'_, T>,
) -> Result<()> {
    let k = if ta.is_trans() { a.rows } else { a.cols };
    if c.rows == 0 || c.cols == 0 {
        return Ok(());
    }
    blas.gemm(
        ta,
        tb,
        c.rows,
        c.cols,
        k,
        alpha,
        &a.buf,
        a.ld.max(1),
        &b.buf,
        b.ld.max(1),
        beta,
        &mut c.buf,
        c.ld.max(1),
    )
}

/// A fresh `rows × cols` matrix on the handle's device (ld = max(rows, 1)).
pub(crate) fn workspace<T: Scalar>(
    blas: &Blas,
    rows: usize,
    cols: usize,
) -> Result<rocm_core::DeviceBuffer<T>> {
    blas.device().alloc::<T>(rows.max(1) * cols.max(1))
}

/// dst = src (same shape).
pub(crate) fn copy<T: Scalar>(src: &MatRef<'_, T>, dst: &mut MatMut<'_, T>) -> Result<()> {
    let (rows, cols, lds, ldd) = (src.rows, src.cols, src.ld, dst.ld);
    let s = src.host()?;
    let mut d = dst.host()?;
    for j in 0..cols {
        d[j * ldd..j * ldd + rows].copy_from_slice(&s[j * lds..j * lds + rows]);
    }
    Ok(())
}

/// A copy of `src` in a fresh workspace, as (buffer, rows, cols).
pub(crate) fn copied<T: Scalar>(
    blas: &Blas,
    src: &MatRef<'_, T>,
) -> Result<rocm_core::DeviceBuffer<T>> {
    let mut w = workspace::<T>(blas, src.rows, src.cols)?;
    let ld = src.rows.max(1);
    copy(
        src,
        &mut MatMut::new(w.as_slice_mut(), src.rows, src.cols, ld),
    )?;
    Ok(w)
}

/// Solves op(A)·X = α·B (Left) or X·op(A) = α·B (Right) for X, overwriting B; A is
/// triangular (`uplo`, `diag`) and of order B's rows (Left) or columns (Right).
pub(crate) fn trsm<T: Scalar>(
    blas: &Blas,
    side: Side,
    uplo: Uplo,
    trans: Transpose,
    diag: Diag,
    alpha: T,
    a: &MatRef<'_, T>,
    b: &mut MatMut<'_, T>,
) -> Result<()> {
    if b.rows == 0 || b.cols == 0 {
        return Ok(());
    }
    let (m, n) = (b.rows, b.cols);
    blas.trsm(
        side,
        uplo,
        trans,
        diag,
        m,
        n,
        alpha,
        &a.buf,
        a.ld.max(1),
        &mut b.buf,
        b.ld.max(1),
    )
}

/// C = α·op(A)·op(A)ᴴ + β·C on the `uplo` triangle of the n×n matrix C (HERK; SYRK for
/// real types). `op` is N (A is n×k) or C (A is k×n). The other triangle is untouched.
pub(crate) fn herk<T: Scalar>(
    blas: &Blas,
    uplo: Uplo,
    trans: Transpose,
    alpha: T::Real,
    a: &MatRef<'_, T>,
    beta: T::Real,
    c: &mut MatMut<'_, T>,
) -> Result<()> {
    let n = c.rows;
    if n == 0 {
        return Ok(());
    }
    let k = if trans.is_trans() { a.rows } else { a.cols };
    blas.herk(
        uplo,
        trans,
        n,
        k,
        alpha,
        &a.buf,
        a.ld.max(1),
        beta,
        &mut c.buf,
        c.ld.max(1),
    )
}

/// B = op(A)·B (Left) or B·op(A) (Right) for triangular A (TRMM).
pub(crate) fn trmm<T: Scalar>(
    blas: &Blas,
    side: Side,
    uplo: Uplo,
    trans: Transpose,
    diag: Diag,
    a: &MatRef<'_, T>,
    b: &mut MatMut<'_, T>,
) -> Result<()> {
    let (m, n) = (b.rows, b.cols);
    if m == 0 || n == 0 {
        return Ok(());
    }
    blas.trmm(
        side,
        uplo,
        trans,
        diag,
        m,
        n,
        T::one(),
        &a.buf,
        a.ld.max(1),
        &mut b.buf,
        b.ld.max(1),
    )
}

/// C ← α·A·Bᴴ + ᾱ·B·Aᴴ + C on the `uplo` triangle of the n×n C, A and B n×k (HER2K;
/// SYR2K for real types).
pub(crate) fn her2k<T: Scalar>(
    blas: &Blas,
    uplo: Uplo,
    alpha: T,
    a: &MatRef<'_, T>,
    b: &MatRef<'_, T>,
    c: &mut MatMut<'_, T>,
) -> Result<()> {
    let n = c.rows;
    if n == 0 {
        return Ok(());
    }
    blas.her2k(
        uplo,
        Transpose::N,
        n,
        a.cols,
        alpha,
        &a.buf,
        a.ld.max(1),
        &b.buf,
        b.ld.max(1),
        <T::Real as num_traits::One>::one(),
        &mut c.buf,
        c.ld.max(1),
    )
}

/// y ← A·x for the n×n Hermitian A whose `uplo` triangle `a` holds (HEMV, the Level 2
/// product of the tridiagonal reduction's panel); x and y contiguous, n long.
pub(crate) fn hemv<T: Scalar>(
    blas: &Blas,
    uplo: Uplo,
    a: &MatRef<'_, T>,
    x: &rocm_core::BufferSlice<'_, T>,
    y: &mut rocm_core::BufferSliceMut<'_, T>,
    n: usize,
) -> Result<()> {
    if n == 0 {
        return Ok(());
    }
    blas.hemv(
        uplo,
        n,
        T::one(),
        &a.buf,
        a.ld.max(1),
        x,
        1,
        T::zero(),
        y,
        1,
    )
}
/// y ← α·op(A)·x + β·y for the rows × cols A (GEMV, the Level 2 products of the
/// bidiagonal reduction's panel); x is read with stride `incx`, y contiguous.
pub(crate) fn gemv<T: Scalar>(
    blas: &Blas,
    trans: Transpose,
    alpha: T,
    a: &MatRef<'_, T>,
    x: &rocm_core::BufferSlice<'_, T>,
    incx: usize,
    beta: T,
    y: &mut rocm_core::BufferSliceMut<'_, T>,
) -> Result<()> {
    if a.rows == 0 || a.cols == 0 {
        return Ok(());
    }
    blas.gemv(
        trans,
        a.rows,
        a.cols,
        alpha,
        &a.buf,
        a.ld.max(1),
        x,
        incx as isize,
        beta,
        y,
        1,
    )
}

/// C ← α·A·Aᴴ + C on the lower triangle of the n×n C (A n×k), as independent block
/// columns of `width`: each one's diagonal block by HERK and the rows below by GEMM, the
/// block columns spread over rayon's threads. The same arithmetic as one HERK call;
/// where a single HERK runs its recursion one diagonal block at a time, the block
/// columns here proceed together (the trailing update of blocked Cholesky on the CPU).
pub(crate) fn herk_lower_columns<T: Scalar>(
    blas: &Blas,
    alpha: T::Real,
    a: &MatRef<'_, T>,
    c: MatMut<'_, T>,
    width: usize,
) -> Result<()> {
    use rayon::prelude::*;
    let n = c.rows;
    let width = width.max(1);
    let mut blocks = Vec::with_capacity(n.div_ceil(width));
    let mut rest = c;
    let mut j = 0;
    while j < n {
        let w = width.min(n - j);
        let (head, tail) = rest.split_cols(w)?;
        blocks.push((j, head));
        rest = tail;
        j += w;
    }
    let one = <T::Real as num_traits::One>::one();
    blocks.into_par_iter().try_for_each(|(j, mut block)| {
        let w = block.cols;
        let below = n - j - w;
        let top = a.sub(j, 0, w, a.cols)?;
        herk(
            blas,
            Uplo::Lower,
            Transpose::N,
            alpha,
            &top,
            one,
            &mut block.sub(j, 0, w, w)?,
        )?;
        if below == 0 {
            return Ok(());
        }
        gemm(
            blas,
            Transpose::N,
            Transpose::C,
            T::from_real(alpha),
            &a.sub(j + w, 0, below, a.cols)?,
            &top,
            T::one(),
            &mut block.sub(j + w, 0, below, w)?,
        )
    })
}
