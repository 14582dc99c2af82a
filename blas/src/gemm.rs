//! GEMM: C = α·op(A)·op(B) + β·C, single, strided-batched and batched.
//!
//! Column-major, with leading dimensions; `op(A)` is m×k, `op(B)` is k×n, C is m×n.
//! As BLAS defines it: β = 0 never reads C (it may hold NaN), α = 0 or k = 0 only scales
//! C, and m = 0 or n = 0 does nothing.

#![allow(clippy::too_many_arguments)]

use crate::check;
use crate::gpu::gemm::{self as gpu, Operand};
use crate::handle::Dispatch;
use crate::{cpu, Blas, Scalar, Transpose};
use rocm_core::{BufferSlice, BufferSliceMut, Error, Result};

/// The shape of one GEMM problem, validated once.
#[derive(Debug, Clone, Copy)]
pub(crate) struct GemmShape {
    pub transa: Transpose,
    pub transb: Transpose,
    pub m: usize,
    pub n: usize,
    pub k: usize,
    pub lda: usize,
    pub ldb: usize,
    pub ldc: usize,
}

impl GemmShape {
    fn a_dims(&self) -> (usize, usize) {
        self.transa.stored_dims(self.m, self.k)
    }
    fn b_dims(&self) -> (usize, usize) {
        self.transb.stored_dims(self.k, self.n)
    }
    pub(crate) fn a_extent(&self) -> usize {
        let (r, c) = self.a_dims();
        check::matrix_extent(r, c, self.lda)
    }
    pub(crate) fn b_extent(&self) -> usize {
        let (r, c) = self.b_dims();
        check::matrix_extent(r, c, self.ldb)
    }
    pub(crate) fn c_extent(&self) -> usize {
        check::matrix_extent(self.m, self.n, self.ldc)
    }

    /// Leading-dimension rules, in BLAS's argument order.
    pub(crate) fn check_lds(&self) -> Result<()> {
        check::leading_dimension("lda", self.lda, self.a_dims().0)?;
        check::leading_dimension("ldb", self.ldb, self.b_dims().0)?;
        check::leading_dimension("ldc", self.ldc, self.m)
    }

    fn check_buffers(&self, a: usize, b: usize, c: usize) -> Result<()> {
        let (ar, ac) = self.a_dims();
        let (br, bc) = self.b_dims();
        check::matrix("a", "lda", a, ar, ac, self.lda)?;
        check::matrix("b", "ldb", b, br, bc, self.ldb)?;
        check::matrix("c", "ldc", c, self.m, self.n, self.ldc)
    }

    pub fn flops(&self) -> f64 {
        2.0 * self.m as f64 * self.n as f64 * self.k as f64
    }
}

impl Blas {
    /// C = α·op(A)·op(B) + β·C.
    pub fn gemm<T: Scalar>(
        &self,
        transa: Transpose,
        transb: Transpose,
        m: usize,
        n: usize,
        k: usize,
        alpha: T,
        a: &BufferSlice<'_, T>,
        lda: usize,
        b: &BufferSlice<'_, T>,
        ldb: usize,
        beta: T,
        c: &mut BufferSliceMut<'_, T>,
        ldc: usize,
    ) -> Result<()> {
        let s = GemmShape {
            transa,
            transb,
            m,
            n,
            k,
            lda,
            ldb,
            ldc,
        };
        s.check_lds()?;
        s.check_buffers(a.len(), b.len(), c.len())?;
        self.check_device("a", a.device())?;
        self.check_device("b", b.device())?;
        self.check_device("c", c.device())?;
        if m == 0 || n == 0 {
            return Ok(());
        }
        match self.dispatch() {
            Dispatch::Cpu => {
                let (a, b) = (check::host("a", a)?, check::host("b", b)?);
                cpu::gemm::gemm(&s, alpha, a, b, beta, check::host_mut("c", c)?, true);
                Ok(())
            }
            Dispatch::Gpu => gpu::gemm(
                self,
                &s,
                alpha,
                operand(a.address(), 0),
                operand(b.address(), 0),
                beta,
                operand(c.address(), 0),
                1,
            ),
        }
    }

    /// `batch_count` GEMMs whose matrices sit `stride_*` elements apart in one buffer
    /// each (problem `i`'s A starts at `i * stride_a`). Output strides must not overlap.
    pub fn gemm_strided_batched<T: Scalar>(
        &self,
        transa: Transpose,
        transb: Transpose,
        m: usize,
        n: usize,
        k: usize,
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
        let s = GemmShape {
            transa,
            transb,
            m,
            n,
            k,
            lda,
            ldb,
            ldc,
        };
        s.check_lds()?;
        check::batch("a", a.len(), s.a_extent(), stride_a, batch_count, false)?;
        check::batch("b", b.len(), s.b_extent(), stride_b, batch_count, false)?;
        check::batch("c", c.len(), s.c_extent(), stride_c, batch_count, true)?;
        self.check_device("a", a.device())?;
        self.check_device("b", b.device())?;
        self.check_device("c", c.device())?;
        if m == 0 || n == 0 || batch_count == 0 {
            return Ok(());
        }
        match self.dispatch() {
            Dispatch::Gpu => gpu::gemm(
                self,
                &s,
                alpha,
                operand(a.address(), stride_a),
                operand(b.address(), stride_b),
                beta,
                operand(c.address(), stride_c),
                batch_count,
            ),
            Dispatch::Cpu => {
                let (a, b) = (check::host("a", a)?, check::host("b", b)?);
                cpu::gemm::gemm_strided_batched(
                    &s,
                    alpha,
                    (a, stride_a),
                    (b, stride_b),
                    beta,
                    (check::host_mut("c", c)?, stride_c),
                    batch_count,
                );
                Ok(())
            }
        }
    }

    /// One GEMM per entry of `a`, `b`, `c` (arrays of matrices of one shape).
    pub fn gemm_batched<T: Scalar>(
        &self,
        transa: Transpose,
        transb: Transpose,
        m: usize,
        n: usize,
        k: usize,
        alpha: T,
        a: &[BufferSlice<'_, T>],
        lda: usize,
        b: &[BufferSlice<'_, T>],
        ldb: usize,
        beta: T,
        c: &mut [BufferSliceMut<'_, T>],
        ldc: usize,
    ) -> Result<()> {
        if a.len() != c.len() || b.len() != c.len() {
            return Err(Error::invalid(
                "batch",
                format!(
                    "a, b and c hold {}, {} and {} matrices; they must agree",
                    a.len(),
                    b.len(),
                    c.len()
                ),
            ));
        }
        let s = GemmShape {
            transa,
            transb,
            m,
            n,
            k,
            lda,
            ldb,
            ldc,
        };
        s.check_lds()?;
        for (i, ((a, b), c)) in a.iter().zip(b).zip(c.iter()).enumerate() {
            s.check_buffers(a.len(), b.len(), c.len())
                .map_err(|e| Error::invalid(format!("batch[{i}]"), e))?;
            self.check_device(&format!("a[{i}]"), a.device())?;
            self.check_device(&format!("b[{i}]"), b.device())?;
            self.check_device(&format!("c[{i}]"), c.device())?;
        }
        if m == 0 || n == 0 || c.is_empty() {
            return Ok(());
        }
        match self.dispatch() {
            // One launch per problem (see gpu::gemm).
            Dispatch::Gpu => {
                for ((a, b), c) in a.iter().zip(b).zip(c.iter()) {
                    gpu::gemm(
                        self,
                        &s,
                        alpha,
                        operand(a.address(), 0),
                        operand(b.address(), 0),
                        beta,
                        operand(c.address(), 0),
                        1,
                    )?;
                }
                Ok(())
            }
            Dispatch::Cpu => {
                let mut problems = Vec::with_capacity(c.len());
                for ((a, b), c) in a.iter().zip(b).zip(c.iter_mut()) {
                    problems.push((
                        check::host("a", a)?,
                        check::host("b", b)?,
                        check::host_mut("c", c)?,
                    ));
                }
                cpu::gemm::gemm_many(&s, alpha, beta, problems);
                Ok(())
            }
        }
    }
}

fn operand(address: u64, stride: usize) -> Operand {
    Operand { address, stride }
}
