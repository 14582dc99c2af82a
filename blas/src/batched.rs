//! Batched forms of Level 2, Level 3 and the extensions, as rocBLAS has them.
//!
//! `*_strided_batched`: problem i's matrices and vectors start `i·stride_*` elements into
//! one buffer each; strides must keep every problem inside its buffer and outputs from
//! overlapping (`check::batch`). `*_batched`: arrays of buffer views, one per problem,
//! all of one shape. Every problem follows the single routine's rules (same argument
//! checks, same quick returns). On the CPU the problems run in parallel on rayon, each
//! one also parallel inside when it is large. On GPUs `geam` and `dgmm` strided batches
//! are one launch over the grid's z dimension; every other batched routine calls the
//! single routine once per problem, on views cut from the buffers, queued in order on
//! the handle's stream (correct for any batch, but many small problems pay one launch
//! sequence each: a batch-wide kernel per routine is still to come). A device or type
//! the single routine does not support answers its `Unsupported`.

#![allow(clippy::too_many_arguments)]

use crate::extension::{DgmmShape, GeamShape};
use crate::handle::{Dispatch, Engine};
use crate::level2::{GemvShape, TrvShape};
use crate::level3::{RankKShape, SymmShape, TriShape};
use crate::{check, Blas, Diag, Scalar, Side, Transpose, Uplo};
use rayon::prelude::*;
use rocm_core::{BufferSlice, BufferSliceMut, Error, Result};

/// One input of a strided batch: name, buffer, one problem's extent, stride.
type In<'s, 'b, T> = (&'s str, &'s BufferSlice<'b, T>, usize, usize);

/// Problem i's output window `out[i·stride .. i·stride + extent]` (disjoint: the checks
/// guarantee stride ≥ extent when there is more than one problem).
fn windows<T>(mut rest: &mut [T], stride: usize, extent: usize, batch: usize) -> Vec<&mut [T]> {
    let mut out = Vec::with_capacity(batch);
    for i in 0..batch {
        let len = rest.len();
        let take = if i + 1 == batch { len } else { stride.min(len) };
        let (head, tail) = std::mem::take(&mut rest).split_at_mut(take);
        let keep = extent.min(head.len());
        out.push(&mut head[..keep]);
        rest = tail;
    }
    out
}

/// The single routine of trsm/trmm batches.
fn single_op(solve: bool) -> &'static str {
    if solve {
        "trsm"
    } else {
        "trmm"
    }
}

impl Blas {
    /// Checks and runs a strided batch: `run(inputs of problem i, output of problem i)`.
    fn strided<T: Scalar>(
        &self,
        op: &str,
        inputs: &[In<'_, '_, T>],
        (oname, out, oext, ostride): (&str, &mut BufferSliceMut<'_, T>, usize, usize),
        batch: usize,
        run: impl Fn(&[&[T]], &mut [T]) + Sync,
        mut single: impl FnMut(&[&BufferSlice<'_, T>], &mut BufferSliceMut<'_, T>) -> Result<()>,
    ) -> Result<()> {
        for &(name, buf, ext, stride) in inputs {
            check::batch(name, buf.len(), ext, stride, batch, false)?;
        }
        check::batch(oname, out.len(), oext, ostride, batch, true)?;
        for &(name, buf, ..) in inputs {
            self.check_device(name, buf.device())?;
        }
        self.check_device(oname, out.device())?;
        if batch == 0 {
            return Ok(());
        }
        if self.dispatch() == Dispatch::Gpu {
            // One call of the single routine per problem, on views cut from the buffers
            // (the checks above keep every view inside its buffer).
            for i in 0..batch {
                let cut = |ext: usize, stride: usize| {
                    let at = if ext == 0 { 0 } else { i * stride };
                    at..at + ext
                };
                let views = inputs
                    .iter()
                    .map(|&(_, buf, ext, stride)| buf.slice(cut(ext, stride)))
                    .collect::<Result<Vec<_>>>()?;
                let ins: Vec<&BufferSlice<'_, T>> = views.iter().collect();
                single(&ins, &mut out.slice_mut(cut(oext, ostride))?)?;
            }
            return Ok(());
        }
        match self.engine(op)? {
            Engine::Cpu => {
                let mut hosts = Vec::with_capacity(inputs.len());
                for &(name, buf, _, stride) in inputs {
                    hosts.push((check::host(name, buf)?, stride));
                }
                let outs = windows(check::host_mut(oname, out)?, ostride, oext, batch);
                outs.into_par_iter().enumerate().for_each(|(i, o)| {
                    let ins: Vec<&[T]> = hosts
                        .iter()
                        .map(|&(h, s)| h.get(i * s..).unwrap_or(&[]))
                        .collect();
                    run(&ins, o);
                });
                Ok(())
            }
        }
    }

    /// Checks and runs a batch given as arrays of views; `check_one(input lengths,
    /// output length)` applies the single routine's buffer checks to each problem.
    fn arrays<T: Scalar>(
        &self,
        op: &str,
        inputs: &[(&str, &[BufferSlice<'_, T>])],
        (oname, out): (&str, &mut [BufferSliceMut<'_, T>]),
        check_one: impl Fn(&[usize], usize) -> Result<()>,
        run: impl Fn(&[&[T]], &mut [T]) + Sync,
        mut single: impl FnMut(&[&BufferSlice<'_, T>], &mut BufferSliceMut<'_, T>) -> Result<()>,
    ) -> Result<()> {
        for (name, arr) in inputs {
            if arr.len() != out.len() {
                return Err(Error::invalid(
                    "batch",
                    format!(
                        "{name} holds {} problems and {oname} {}; they must agree",
                        arr.len(),
                        out.len()
                    ),
                ));
            }
        }
        for (i, o) in out.iter().enumerate() {
            let lens: Vec<usize> = inputs.iter().map(|(_, arr)| arr[i].len()).collect();
            check_one(&lens, o.len()).map_err(|e| Error::invalid(format!("batch[{i}]"), e))?;
            for (name, arr) in inputs {
                self.check_device(&format!("{name}[{i}]"), arr[i].device())?;
            }
            self.check_device(&format!("{oname}[{i}]"), o.device())?;
        }
        if out.is_empty() {
            return Ok(());
        }
        if self.dispatch() == Dispatch::Gpu {
            // One call of the single routine per problem.
            for (i, o) in out.iter_mut().enumerate() {
                let ins: Vec<&BufferSlice<'_, T>> = inputs.iter().map(|(_, arr)| &arr[i]).collect();
                single(&ins, o)?;
            }
            return Ok(());
        }
        match self.engine(op)? {
            Engine::Cpu => {
                let mut problems = Vec::with_capacity(out.len());
                for (i, o) in out.iter_mut().enumerate() {
                    let mut ins = Vec::with_capacity(inputs.len());
                    for (name, arr) in inputs {
                        ins.push(check::host(name, &arr[i])?);
                    }
                    problems.push((ins, check::host_mut(oname, o)?));
                }
                problems.into_par_iter().for_each(|(ins, o)| run(&ins, o));
                Ok(())
            }
        }
    }

    /// [`Blas::gemv`] on `batch_count` strided problems.
    pub fn gemv_strided_batched<T: Scalar>(
        &self,
        trans: Transpose,
        m: usize,
        n: usize,
        alpha: T,
        a: &BufferSlice<'_, T>,
        lda: usize,
        stride_a: usize,
        x: &BufferSlice<'_, T>,
        incx: isize,
        stride_x: usize,
        beta: T,
        y: &mut BufferSliceMut<'_, T>,
        incy: isize,
        stride_y: usize,
        batch_count: usize,
    ) -> Result<()> {
        let s = GemvShape {
            trans,
            m,
            n,
            lda,
            incx,
            incy,
        };
        s.check_lds()?;
        let (ea, ex, ey) = s.extents();
        let ins = [("a", a, ea, stride_a), ("x", x, ex, stride_x)];
        self.strided(
            "gemv_strided_batched",
            &ins,
            ("y", y, ey, stride_y),
            batch_count,
            |i, o| s.run(alpha, i[0], i[1], beta, o),
            |i, o| self.gemv(trans, m, n, alpha, i[0], lda, i[1], incx, beta, o, incy),
        )
    }

    /// [`Blas::gemv`] on arrays of problems.
    pub fn gemv_batched<T: Scalar>(
        &self,
        trans: Transpose,
        m: usize,
        n: usize,
        alpha: T,
        a: &[BufferSlice<'_, T>],
        lda: usize,
        x: &[BufferSlice<'_, T>],
        incx: isize,
        beta: T,
        y: &mut [BufferSliceMut<'_, T>],
        incy: isize,
    ) -> Result<()> {
        let s = GemvShape {
            trans,
            m,
            n,
            lda,
            incx,
            incy,
        };
        s.check_lds()?;
        self.arrays(
            "gemv_batched",
            &[("a", a), ("x", x)],
            ("y", y),
            |l, o| s.check(l[0], l[1], o),
            |i, o| s.run(alpha, i[0], i[1], beta, o),
            |i, o| self.gemv(trans, m, n, alpha, i[0], lda, i[1], incx, beta, o, incy),
        )
    }

    /// [`Blas::trsv`] on `batch_count` strided problems.
    pub fn trsv_strided_batched<T: Scalar>(
        &self,
        uplo: Uplo,
        trans: Transpose,
        diag: Diag,
        n: usize,
        a: &BufferSlice<'_, T>,
        lda: usize,
        stride_a: usize,
        x: &mut BufferSliceMut<'_, T>,
        incx: isize,
        stride_x: usize,
        batch_count: usize,
    ) -> Result<()> {
        let s = TrvShape {
            uplo,
            trans,
            diag,
            n,
            lda,
            incx,
        };
        s.check_lds()?;
        let (ea, ex) = s.extents();
        self.strided(
            "trsv_strided_batched",
            &[("a", a, ea, stride_a)],
            ("x", x, ex, stride_x),
            batch_count,
            |i, o| s.run(true, i[0], o),
            |i, o| self.trsv(uplo, trans, diag, n, i[0], lda, o, incx),
        )
    }

    /// [`Blas::trsv`] on arrays of problems.
    pub fn trsv_batched<T: Scalar>(
        &self,
        uplo: Uplo,
        trans: Transpose,
        diag: Diag,
        n: usize,
        a: &[BufferSlice<'_, T>],
        lda: usize,
        x: &mut [BufferSliceMut<'_, T>],
        incx: isize,
    ) -> Result<()> {
        let s = TrvShape {
            uplo,
            trans,
            diag,
            n,
            lda,
            incx,
        };
        s.check_lds()?;
        self.arrays(
            "trsv_batched",
            &[("a", a)],
            ("x", x),
            |l, o| s.check(l[0], o),
            |i, o| s.run(true, i[0], o),
            |i, o| self.trsv(uplo, trans, diag, n, i[0], lda, o, incx),
        )
    }

    fn tri_strided<T: Scalar>(
        &self,
        op: &str,
        s: TriShape,
        alpha: T,
        (a, stride_a): (&BufferSlice<'_, T>, usize),
        (b, stride_b): (&mut BufferSliceMut<'_, T>, usize),
        batch_count: usize,
    ) -> Result<()> {
        s.check_lds()?;
        let (ea, eb) = s.extents();
        let solve = op.starts_with("trsm");
        self.strided(
            op,
            &[("a", a, ea, stride_a)],
            ("b", b, eb, stride_b),
            batch_count,
            |i, o| s.run(solve, alpha, i[0], o),
            |i, o| self.tri_op(single_op(solve), s, alpha, i[0], o),
        )
    }

    fn tri_arrays<T: Scalar>(
        &self,
        op: &str,
        s: TriShape,
        alpha: T,
        a: &[BufferSlice<'_, T>],
        b: &mut [BufferSliceMut<'_, T>],
    ) -> Result<()> {
        s.check_lds()?;
        let solve = op.starts_with("trsm");
        self.arrays(
            op,
            &[("a", a)],
            ("b", b),
            |l, o| s.check_buffers(l[0], o),
            |i, o| s.run(solve, alpha, i[0], o),
            |i, o| self.tri_op(single_op(solve), s, alpha, i[0], o),
        )
    }

    /// [`Blas::trsm`] on `batch_count` strided problems.
    pub fn trsm_strided_batched<T: Scalar>(
        &self,
        side: Side,
        uplo: Uplo,
        trans: Transpose,
        diag: Diag,
        m: usize,
        n: usize,
        alpha: T,
        a: &BufferSlice<'_, T>,
        lda: usize,
        stride_a: usize,
        b: &mut BufferSliceMut<'_, T>,
        ldb: usize,
        stride_b: usize,
        batch_count: usize,
    ) -> Result<()> {
        let s = TriShape {
            side,
            uplo,
            trans,
            diag,
            m,
            n,
            lda,
            ldb,
        };
        self.tri_strided(
            "trsm_strided_batched",
            s,
            alpha,
            (a, stride_a),
            (b, stride_b),
            batch_count,
        )
    }

    /// [`Blas::trsm`] on arrays of problems.
    pub fn trsm_batched<T: Scalar>(
        &self,
        side: Side,
        uplo: Uplo,
        trans: Transpose,
        diag: Diag,
        m: usize,
        n: usize,
        alpha: T,
        a: &[BufferSlice<'_, T>],
        lda: usize,
        b: &mut [BufferSliceMut<'_, T>],
        ldb: usize,
    ) -> Result<()> {
        let s = TriShape {
            side,
            uplo,
            trans,
            diag,
            m,
            n,
            lda,
            ldb,
        };
        self.tri_arrays("trsm_batched", s, alpha, a, b)
    }

    /// [`Blas::trmm`] on `batch_count` strided problems.
    pub fn trmm_strided_batched<T: Scalar>(
        &self,
        side: Side,
        uplo: Uplo,
        trans: Transpose,
        diag: Diag,
        m: usize,
        n: usize,
        alpha: T,
        a: &BufferSlice<'_, T>,
        lda: usize,
        stride_a: usize,
        b: &mut BufferSliceMut<'_, T>,
        ldb: usize,
        stride_b: usize,
        batch_count: usize,
    ) -> Result<()> {
        let s = TriShape {
            side,
            uplo,
            trans,
            diag,
            m,
            n,
            lda,
            ldb,
        };
        self.tri_strided(
            "trmm_strided_batched",
            s,
            alpha,
            (a, stride_a),
            (b, stride_b),
            batch_count,
        )
    }

    /// [`Blas::trmm`] on arrays of problems.
    pub fn trmm_batched<T: Scalar>(
        &self,
        side: Side,
        uplo: Uplo,
        trans: Transpose,
        diag: Diag,
        m: usize,
        n: usize,
        alpha: T,
        a: &[BufferSlice<'_, T>],
        lda: usize,
        b: &mut [BufferSliceMut<'_, T>],
        ldb: usize,
    ) -> Result<()> {
        let s = TriShape {
            side,
            uplo,
            trans,
            diag,
            m,
            n,
            lda,
            ldb,
        };
        self.tri_arrays("trmm_batched", s, alpha, a, b)
    }

    fn rank_k_strided<T: Scalar>(
        &self,
        op: &str,
        s: RankKShape,
        (alpha, beta): (T, T),
        (a, stride_a): (&BufferSlice<'_, T>, usize),
        (c, stride_c): (&mut BufferSliceMut<'_, T>, usize),
        batch_count: usize,
        herm: bool,
    ) -> Result<()> {
        s.check_trans::<T>(herm)?;
        s.check_lds()?;
        let (ea, ec) = s.extents();
        self.strided(
            op,
            &[("a", a, ea, stride_a)],
            ("c", c, ec, stride_c),
            batch_count,
            |i, o| s.run(alpha, i[0], beta, o, herm),
            |i, o| self.rank_k(s, alpha, i[0], None, beta, o, herm),
        )
    }

    fn rank_k_arrays<T: Scalar>(
        &self,
        op: &str,
        s: RankKShape,
        (alpha, beta): (T, T),
        a: &[BufferSlice<'_, T>],
        c: &mut [BufferSliceMut<'_, T>],
        herm: bool,
    ) -> Result<()> {
        s.check_trans::<T>(herm)?;
        s.check_lds()?;
        self.arrays(
            op,
            &[("a", a)],
            ("c", c),
            |l, o| s.check_buffers(l[0], o),
            |i, o| s.run(alpha, i[0], beta, o, herm),
            |i, o| self.rank_k(s, alpha, i[0], None, beta, o, herm),
        )
    }

    /// [`Blas::syrk`] on `batch_count` strided problems.
    pub fn syrk_strided_batched<T: Scalar>(
        &self,
        uplo: Uplo,
        trans: Transpose,
        n: usize,
        k: usize,
        alpha: T,
        a: &BufferSlice<'_, T>,
        lda: usize,
        stride_a: usize,
        beta: T,
        c: &mut BufferSliceMut<'_, T>,
        ldc: usize,
        stride_c: usize,
        batch_count: usize,
    ) -> Result<()> {
        let s = RankKShape {
            uplo,
            trans,
            n,
            k,
            lda,
            ldc,
        };
        let op = "syrk_strided_batched";
        self.rank_k_strided(
            op,
            s,
            (alpha, beta),
            (a, stride_a),
            (c, stride_c),
            batch_count,
            false,
        )
    }

    /// [`Blas::syrk`] on arrays of problems.
    pub fn syrk_batched<T: Scalar>(
        &self,
        uplo: Uplo,
        trans: Transpose,
        n: usize,
        k: usize,
        alpha: T,
        a: &[BufferSlice<'_, T>],
        lda: usize,
        beta: T,
        c: &mut [BufferSliceMut<'_, T>],
        ldc: usize,
    ) -> Result<()> {
        let s = RankKShape {
            uplo,
            trans,
            n,
            k,
            lda,
            ldc,
        };
        self.rank_k_arrays("syrk_batched", s, (alpha, beta), a, c, false)
    }

    /// [`Blas::herk`] on `batch_count` strided problems.
    pub fn herk_strided_batched<T: Scalar>(
        &self,
        uplo: Uplo,
        trans: Transpose,
        n: usize,
        k: usize,
        alpha: T::Real,
        a: &BufferSlice<'_, T>,
        lda: usize,
        stride_a: usize,
        beta: T::Real,
        c: &mut BufferSliceMut<'_, T>,
        ldc: usize,
        stride_c: usize,
        batch_count: usize,
    ) -> Result<()> {
        let s = RankKShape {
            uplo,
            trans,
            n,
            k,
            lda,
            ldc,
        };
        let coefs = (T::from_real(alpha), T::from_real(beta));
        let op = "herk_strided_batched";
        self.rank_k_strided(
            op,
            s,
            coefs,
            (a, stride_a),
            (c, stride_c),
            batch_count,
            true,
        )
    }

    /// [`Blas::herk`] on arrays of problems.
    pub fn herk_batched<T: Scalar>(
        &self,
        uplo: Uplo,
        trans: Transpose,
        n: usize,
        k: usize,
        alpha: T::Real,
        a: &[BufferSlice<'_, T>],
        lda: usize,
        beta: T::Real,
        c: &mut [BufferSliceMut<'_, T>],
        ldc: usize,
    ) -> Result<()> {
        let s = RankKShape {
            uplo,
            trans,
            n,
            k,
            lda,
            ldc,
        };
        let coefs = (T::from_real(alpha), T::from_real(beta));
        self.rank_k_arrays("herk_batched", s, coefs, a, c, true)
    }

    fn symm_strided<T: Scalar>(
        &self,
        op: &str,
        s: SymmShape,
        (alpha, beta): (T, T),
        ins: [(&BufferSlice<'_, T>, usize); 2],
        (c, stride_c): (&mut BufferSliceMut<'_, T>, usize),
        batch_count: usize,
    ) -> Result<()> {
        s.check_lds()?;
        let (ea, eb, ec) = s.extents();
        let herm = op.starts_with("hemm");
        let inputs = [("a", ins[0].0, ea, ins[0].1), ("b", ins[1].0, eb, ins[1].1)];
        self.strided(
            op,
            &inputs,
            ("c", c, ec, stride_c),
            batch_count,
            |i, o| s.run(alpha, i[0], i[1], beta, o, herm),
            |i, o| {
                let single = if herm { "hemm" } else { "symm" };
                self.symm_op(single, s, alpha, i[0], i[1], beta, o)
            },
        )
    }

    /// [`Blas::symm`] on `batch_count` strided problems.
    pub fn symm_strided_batched<T: Scalar>(
        &self,
        side: Side,
        uplo: Uplo,
        m: usize,
        n: usize,
        alpha: T,
        a: &BufferSlice<'_, T>,
        lda: usize,
        stride_a: usize,
        b: &BufferSlice<'_, T>,
        ldb: usize,
        stride_b: usize,
        beta: T,
        c: &mut BufferSliceMut<'_, T>,
        ldc: usize,
        stride_c: usize,
        batch_count: usize,
    ) -> Result<()> {
        let s = SymmShape {
            side,
            uplo,
            m,
            n,
            lda,
            ldb,
            ldc,
        };
        let ins = [(a, stride_a), (b, stride_b)];
        self.symm_strided(
            "symm_strided_batched",
            s,
            (alpha, beta),
            ins,
            (c, stride_c),
            batch_count,
        )
    }

    /// [`Blas::hemm`] on `batch_count` strided problems.
    pub fn hemm_strided_batched<T: Scalar>(
        &self,
        side: Side,
        uplo: Uplo,
        m: usize,
        n: usize,
        alpha: T,
        a: &BufferSlice<'_, T>,
        lda: usize,
        stride_a: usize,
        b: &BufferSlice<'_, T>,
        ldb: usize,
        stride_b: usize,
        beta: T,
        c: &mut BufferSliceMut<'_, T>,
        ldc: usize,
        stride_c: usize,
        batch_count: usize,
    ) -> Result<()> {
        let s = SymmShape {
            side,
            uplo,
            m,
            n,
            lda,
            ldb,
            ldc,
        };
        let ins = [(a, stride_a), (b, stride_b)];
        self.symm_strided(
            "hemm_strided_batched",
            s,
            (alpha, beta),
            ins,
            (c, stride_c),
            batch_count,
        )
    }

    /// [`Blas::symm`] on arrays of problems.
    pub fn symm_batched<T: Scalar>(
        &self,
        side: Side,
        uplo: Uplo,
        m: usize,
        n: usize,
        alpha: T,
        a: &[BufferSlice<'_, T>],
        lda: usize,
        b: &[BufferSlice<'_, T>],
        ldb: usize,
        beta: T,
        c: &mut [BufferSliceMut<'_, T>],
        ldc: usize,
    ) -> Result<()> {
        let s = SymmShape {
            side,
            uplo,
            m,
            n,
            lda,
            ldb,
            ldc,
        };
        s.check_lds()?;
        self.arrays(
            "symm_batched",
            &[("a", a), ("b", b)],
            ("c", c),
            |l, o| s.check_buffers(l[0], l[1], o),
            |i, o| s.run(alpha, i[0], i[1], beta, o, false),
            |i, o| self.symm_op("symm", s, alpha, i[0], i[1], beta, o),
        )
    }

    /// [`Blas::geam`] on `batch_count` strided problems.
    pub fn geam_strided_batched<T: Scalar>(
        &self,
        transa: Transpose,
        transb: Transpose,
        m: usize,
        n: usize,
        alpha: T,
        a: &BufferSlice<'_, T>,
        lda: usize,
        stride_a: usize,
        beta: T,
        b: &BufferSlice<'_, T>,
        ldb: usize,
        stride_b: usize,
        c: &mut BufferSliceMut<'_, T>,
        ldc: usize,
        stride_c: usize,
        batch_count: usize,
    ) -> Result<()> {
        let s = GeamShape {
            transa,
            transb,
            m,
            n,
            lda,
            ldb,
            ldc,
        };
        s.check_lds()?;
        let (ea, eb, ec) = s.extents();
        if self.dispatch() == Dispatch::Gpu {
            // One launch over the batch (the grid's z dimension).
            check::batch("a", a.len(), ea, stride_a, batch_count, false)?;
            check::batch("b", b.len(), eb, stride_b, batch_count, false)?;
            check::batch("c", c.len(), ec, stride_c, batch_count, true)?;
            self.check_device("a", a.device())?;
            self.check_device("b", b.device())?;
            self.check_device("c", c.device())?;
            if m == 0 || n == 0 || batch_count == 0 {
                return Ok(());
            }
            return crate::gpu::extension::geam(
                self,
                &s,
                alpha,
                (a.address(), stride_a),
                beta,
                (b.address(), stride_b),
                (c.address(), stride_c),
                batch_count,
            );
        }
        let ins = [("a", a, ea, stride_a), ("b", b, eb, stride_b)];
        self.strided(
            "geam_strided_batched",
            &ins,
            ("c", c, ec, stride_c),
            batch_count,
            |i, o| s.run(alpha, i[0], beta, i[1], o),
            |i, o| {
                self.geam(
                    transa, transb, m, n, alpha, i[0], lda, beta, i[1], ldb, o, ldc,
                )
            },
        )
    }

    /// [`Blas::geam`] on arrays of problems.
    pub fn geam_batched<T: Scalar>(
        &self,
        transa: Transpose,
        transb: Transpose,
        m: usize,
        n: usize,
        alpha: T,
        a: &[BufferSlice<'_, T>],
        lda: usize,
        beta: T,
        b: &[BufferSlice<'_, T>],
        ldb: usize,
        c: &mut [BufferSliceMut<'_, T>],
        ldc: usize,
    ) -> Result<()> {
        let s = GeamShape {
            transa,
            transb,
            m,
            n,
            lda,
            ldb,
            ldc,
        };
        s.check_lds()?;
        self.arrays(
            "geam_batched",
            &[("a", a), ("b", b)],
            ("c", c),
            |l, o| s.check(l[0], l[1], o),
            |i, o| s.run(alpha, i[0], beta, i[1], o),
            |i, o| {
                self.geam(
                    transa, transb, m, n, alpha, i[0], lda, beta, i[1], ldb, o, ldc,
                )
            },
        )
    }

    /// [`Blas::dgmm`] on `batch_count` strided problems.
    pub fn dgmm_strided_batched<T: Scalar>(
        &self,
        side: Side,
        m: usize,
        n: usize,
        a: &BufferSlice<'_, T>,
        lda: usize,
        stride_a: usize,
        x: &BufferSlice<'_, T>,
        incx: isize,
        stride_x: usize,
        c: &mut BufferSliceMut<'_, T>,
        ldc: usize,
        stride_c: usize,
        batch_count: usize,
    ) -> Result<()> {
        let s = DgmmShape {
            side,
            m,
            n,
            lda,
            incx,
            ldc,
        };
        s.check_lds()?;
        let (ea, ex, ec) = s.extents();
        if self.dispatch() == Dispatch::Gpu {
            // One launch over the batch (the grid's z dimension).
            check::batch("a", a.len(), ea, stride_a, batch_count, false)?;
            check::batch("x", x.len(), ex, stride_x, batch_count, false)?;
            check::batch("c", c.len(), ec, stride_c, batch_count, true)?;
            self.check_device("a", a.device())?;
            self.check_device("x", x.device())?;
            self.check_device("c", c.device())?;
            if m == 0 || n == 0 || batch_count == 0 {
                return Ok(());
            }
            return crate::gpu::extension::dgmm::<T>(
                self,
                &s,
                (a.address(), stride_a),
                (x.address(), stride_x),
                (c.address(), stride_c),
                batch_count,
            );
        }
        let ins = [("a", a, ea, stride_a), ("x", x, ex, stride_x)];
        self.strided(
            "dgmm_strided_batched",
            &ins,
            ("c", c, ec, stride_c),
            batch_count,
            |i, o| s.run(i[0], i[1], o),
            |i, o| self.dgmm(side, m, n, i[0], lda, i[1], incx, o, ldc),
        )
    }

    /// [`Blas::dgmm`] on arrays of problems.
    pub fn dgmm_batched<T: Scalar>(
        &self,
        side: Side,
        m: usize,
        n: usize,
        a: &[BufferSlice<'_, T>],
        lda: usize,
        x: &[BufferSlice<'_, T>],
        incx: isize,
        c: &mut [BufferSliceMut<'_, T>],
        ldc: usize,
    ) -> Result<()> {
        let s = DgmmShape {
            side,
            m,
            n,
            lda,
            incx,
            ldc,
        };
        s.check_lds()?;
        self.arrays(
            "dgmm_batched",
            &[("a", a), ("x", x)],
            ("c", c),
            |l, o| s.check(l[0], l[1], o),
            |i, o| s.run(i[0], i[1], o),
            |i, o| self.dgmm(side, m, n, i[0], lda, i[1], incx, o, ldc),
        )
    }
}
