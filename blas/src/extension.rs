//! rocBLAS extensions: geam (C = α·op(A) + β·op(B)) and dgmm (C = A·diag(x) or
//! diag(x)·A).
//!
//! geam: a zero α (β) does not read A (B). dgmm: x has n entries (side = Right) or m
//! (Left), with BLAS's increment rule (negative increments walk it from the far end).
//!
//! CPU: `cpu::elementwise`. GPUs: the generated kernels of `gpu::extension` (f32, f64 on
//! NVIDIA devices; other types and devices answer `Unsupported`).

#![allow(clippy::too_many_arguments)]

use crate::gpu::extension as gpu;
use crate::handle::Dispatch;
use crate::{check, cpu, Blas, Scalar, Side, Transpose};
use rocm_core::{BufferSlice, BufferSliceMut, Result};

/// The shape of one geam problem: op(A), op(B), C are m×n.
#[derive(Debug, Clone, Copy)]
pub(crate) struct GeamShape {
    pub transa: Transpose,
    pub transb: Transpose,
    pub m: usize,
    pub n: usize,
    pub lda: usize,
    pub ldb: usize,
    pub ldc: usize,
}

impl GeamShape {
    pub fn extents(&self) -> (usize, usize, usize) {
        let (ar, ac) = self.transa.stored_dims(self.m, self.n);
        let (br, bc) = self.transb.stored_dims(self.m, self.n);
        (
            check::matrix_extent(ar, ac, self.lda),
            check::matrix_extent(br, bc, self.ldb),
            check::matrix_extent(self.m, self.n, self.ldc),
        )
    }
    pub fn check_lds(&self) -> Result<()> {
        let (ar, _) = self.transa.stored_dims(self.m, self.n);
        let (br, _) = self.transb.stored_dims(self.m, self.n);
        check::leading_dimension("lda", self.lda, ar)?;
        check::leading_dimension("ldb", self.ldb, br)?;
        check::leading_dimension("ldc", self.ldc, self.m)
    }
    pub fn check(&self, a: usize, b: usize, c: usize) -> Result<()> {
        let (ar, ac) = self.transa.stored_dims(self.m, self.n);
        let (br, bc) = self.transb.stored_dims(self.m, self.n);
        check::leading_dimension("lda", self.lda, ar)?;
        check::leading_dimension("ldb", self.ldb, br)?;
        check::leading_dimension("ldc", self.ldc, self.m)?;
        check::matrix("a", "lda", a, ar, ac, self.lda)?;
        check::matrix("b", "ldb", b, br, bc, self.ldb)?;
        check::matrix("c", "ldc", c, self.m, self.n, self.ldc)
    }
    pub fn run<T: Scalar>(&self, alpha: T, a: &[T], beta: T, b: &[T], c: &mut [T]) {
        cpu::elementwise::geam(
            (self.transa, self.transb),
            (self.m, self.n),
            alpha,
            (a, self.lda),
            beta,
            (b, self.ldb),
            (c, self.ldc),
        );
    }
}

/// The shape of one dgmm problem: A and C are m×n.
#[derive(Debug, Clone, Copy)]
pub(crate) struct DgmmShape {
    pub side: Side,
    pub m: usize,
    pub n: usize,
    pub lda: usize,
    pub incx: isize,
    pub ldc: usize,
}

impl DgmmShape {
    pub fn x_len(&self) -> usize {
        match self.side {
            Side::Left => self.m,
            Side::Right => self.n,
        }
    }
    pub fn extents(&self) -> (usize, usize, usize) {
        (
            check::matrix_extent(self.m, self.n, self.lda),
            check::vector_extent(self.x_len(), self.incx),
            check::matrix_extent(self.m, self.n, self.ldc),
        )
    }
    pub fn check_lds(&self) -> Result<()> {
        check::leading_dimension("lda", self.lda, self.m)?;
        if self.incx == 0 {
            return Err(rocm_core::Error::invalid("incx", "must not be zero"));
        }
        check::leading_dimension("ldc", self.ldc, self.m)
    }
    pub fn check(&self, a: usize, x: usize, c: usize) -> Result<()> {
        check::leading_dimension("lda", self.lda, self.m)?;
        check::vector("x", "incx", x, self.x_len(), self.incx)?;
        check::leading_dimension("ldc", self.ldc, self.m)?;
        check::matrix("a", "lda", a, self.m, self.n, self.lda)?;
        check::matrix("c", "ldc", c, self.m, self.n, self.ldc)
    }
    pub fn run<T: Scalar>(&self, a: &[T], x: &[T], c: &mut [T]) {
        cpu::elementwise::dgmm(
            self.side,
            (self.m, self.n),
            (a, self.lda),
            (x, self.incx),
            (c, self.ldc),
        );
    }
}

impl Blas {
    /// C = α·op(A) + β·op(B), all m×n.
    pub fn geam<T: Scalar>(
        &self,
        transa: Transpose,
        transb: Transpose,
        m: usize,
        n: usize,
        alpha: T,
        a: &BufferSlice<'_, T>,
        lda: usize,
        beta: T,
        b: &BufferSlice<'_, T>,
        ldb: usize,
        c: &mut BufferSliceMut<'_, T>,
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
        s.check(a.len(), b.len(), c.len())?;
        self.check_device("a", a.device())?;
        self.check_device("b", b.device())?;
        self.check_device("c", c.device())?;
        if m == 0 || n == 0 {
            return Ok(());
        }
        match self.dispatch() {
            Dispatch::Cpu => {
                let (a, b) = (check::host("a", a)?, check::host("b", b)?);
                s.run(alpha, a, beta, b, check::host_mut("c", c)?);
                Ok(())
            }
            Dispatch::Gpu => gpu::geam(
                self,
                &s,
                alpha,
                (a.address(), 0),
                beta,
                (b.address(), 0),
                (c.address(), 0),
                1,
            ),
        }
    }

    /// C = A·diag(x) (side = Right, x of length n) or diag(x)·A (Left, length m).
    pub fn dgmm<T: Scalar>(
        &self,
        side: Side,
        m: usize,
        n: usize,
        a: &BufferSlice<'_, T>,
        lda: usize,
        x: &BufferSlice<'_, T>,
        incx: isize,
        c: &mut BufferSliceMut<'_, T>,
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
        s.check(a.len(), x.len(), c.len())?;
        self.check_device("a", a.device())?;
        self.check_device("x", x.device())?;
        self.check_device("c", c.device())?;
        if m == 0 || n == 0 {
            return Ok(());
        }
        match self.dispatch() {
            Dispatch::Cpu => {
                let (a, x) = (check::host("a", a)?, check::host("x", x)?);
                s.run(a, x, check::host_mut("c", c)?);
                Ok(())
            }
            Dispatch::Gpu => gpu::dgmm::<T>(
                self,
                &s,
                (a.address(), 0),
                (x.address(), 0),
                (c.address(), 0),
                1,
            ),
        }
    }
}
