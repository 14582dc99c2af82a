//! BLAS Level 2: matrix-vector operations.
//!
//! Matrices are column-major with a leading dimension; vectors are `(buffer view, inc)`
//! with BLAS's increment rule (non-zero; a negative increment walks the vector from its
//! far end). Arguments are checked in reference-BLAS order, each violation an error
//! naming the argument.
//! - gemv: y ← α·op(A)·x + β·y (β = 0 never reads y).
//! - ger/geru: A ← α·x·yᵀ + A; gerc: A ← α·x·yᴴ + A.
//! - trmv: x ← op(A)·x; trsv: x ← op(A)⁻¹·x, A triangular.

#![allow(clippy::too_many_arguments)]

use crate::handle::Engine;
use crate::{check, cpu, Blas, Diag, Scalar, Transpose, Uplo};
use rocm_core::{BufferSlice, BufferSliceMut, Result};

/// The shape of one gemv problem: A is m×n.
#[derive(Debug, Clone, Copy)]
pub(crate) struct GemvShape {
    pub trans: Transpose,
    pub m: usize,
    pub n: usize,
    pub lda: usize,
    pub incx: isize,
    pub incy: isize,
}

impl GemvShape {
    /// (length of x, length of y).
    pub fn lens(&self) -> (usize, usize) {
        if self.trans.is_trans() {
            (self.m, self.n)
        } else {
            (self.n, self.m)
        }
    }
    pub fn check(&self, a: usize, x: usize, y: usize) -> Result<()> {
        let (lx, ly) = self.lens();
        check::leading_dimension("lda", self.lda, self.m)?;
        check::vector("x", "incx", x, lx, self.incx)?;
        check::vector("y", "incy", y, ly, self.incy)?;
        check::matrix("a", "lda", a, self.m, self.n, self.lda)
    }
    pub fn run<T: Scalar>(&self, alpha: T, a: &[T], x: &[T], beta: T, y: &mut [T]) {
        cpu::level2::gemv(
            self.trans,
            (self.m, self.n),
            alpha,
            (a, self.lda),
            (x, self.incx),
            beta,
            (y, self.incy),
        );
    }
}

/// The shape of one trmv/trsv problem: A is n×n.
#[derive(Debug, Clone, Copy)]
pub(crate) struct TrvShape {
    pub uplo: Uplo,
    pub trans: Transpose,
    pub diag: Diag,
    pub n: usize,
    pub lda: usize,
    pub incx: isize,
}

impl TrvShape {
    pub fn check(&self, a: usize, x: usize) -> Result<()> {
        check::leading_dimension("lda", self.lda, self.n)?;
        check::vector("x", "incx", x, self.n, self.incx)?;
        check::matrix("a", "lda", a, self.n, self.n, self.lda)
    }
    pub fn run<T: Scalar>(&self, solve: bool, a: &[T], x: &mut [T]) {
        cpu::level2::trxv(
            self.uplo,
            self.trans,
            self.diag,
            self.n,
            (a, self.lda),
            (x, self.incx),
            solve,
        );
    }
}

impl Blas {
    /// y ← α·op(A)·x + β·y, A m×n.
    pub fn gemv<T: Scalar>(
        &self,
        trans: Transpose,
        m: usize,
        n: usize,
        alpha: T,
        a: &BufferSlice<'_, T>,
        lda: usize,
        x: &BufferSlice<'_, T>,
        incx: isize,
        beta: T,
        y: &mut BufferSliceMut<'_, T>,
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
        s.check(a.len(), x.len(), y.len())?;
        self.check_device("a", a.device())?;
        self.check_device("x", x.device())?;
        self.check_device("y", y.device())?;
        if m == 0 || n == 0 || (alpha == T::zero() && beta == T::one()) {
            return Ok(());
        }
        match self.engine("gemv")? {
            Engine::Cpu => {
                let (a, x) = (check::host("a", a)?, check::host("x", x)?);
                s.run(alpha, a, x, beta, check::host_mut("y", y)?);
                Ok(())
            }
        }
    }

    fn ger_impl<T: Scalar>(
        &self,
        op: &str,
        m: usize,
        n: usize,
        alpha: T,
        x: &BufferSlice<'_, T>,
        incx: isize,
        y: &BufferSlice<'_, T>,
        incy: isize,
        a: &mut BufferSliceMut<'_, T>,
        lda: usize,
        conj: bool,
    ) -> Result<()> {
        check::vector("x", "incx", x.len(), m, incx)?;
        check::vector("y", "incy", y.len(), n, incy)?;
        check::matrix("a", "lda", a.len(), m, n, lda)?;
        self.check_device("x", x.device())?;
        self.check_device("y", y.device())?;
        self.check_device("a", a.device())?;
        if m == 0 || n == 0 || alpha == T::zero() {
            return Ok(());
        }
        match self.engine(op)? {
            Engine::Cpu => {
                let (x, y) = (check::host("x", x)?, check::host("y", y)?);
                let a = check::host_mut("a", a)?;
                cpu::level2::ger((m, n), alpha, (x, incx), (y, incy), (a, lda), conj);
                Ok(())
            }
        }
    }

    /// A ← α·x·yᵀ + A (A m×n; unconjugated, BLAS's geru for complex types).
    pub fn ger<T: Scalar>(
        &self,
        m: usize,
        n: usize,
        alpha: T,
        x: &BufferSlice<'_, T>,
        incx: isize,
        y: &BufferSlice<'_, T>,
        incy: isize,
        a: &mut BufferSliceMut<'_, T>,
        lda: usize,
    ) -> Result<()> {
        self.ger_impl("ger", m, n, alpha, x, incx, y, incy, a, lda, false)
    }

    /// A ← α·x·yᵀ + A (the same as [`Blas::ger`]; the name complex BLAS uses).
    pub fn geru<T: Scalar>(
        &self,
        m: usize,
        n: usize,
        alpha: T,
        x: &BufferSlice<'_, T>,
        incx: isize,
        y: &BufferSlice<'_, T>,
        incy: isize,
        a: &mut BufferSliceMut<'_, T>,
        lda: usize,
    ) -> Result<()> {
        self.ger_impl("geru", m, n, alpha, x, incx, y, incy, a, lda, false)
    }

    /// A ← α·x·yᴴ + A.
    pub fn gerc<T: Scalar>(
        &self,
        m: usize,
        n: usize,
        alpha: T,
        x: &BufferSlice<'_, T>,
        incx: isize,
        y: &BufferSlice<'_, T>,
        incy: isize,
        a: &mut BufferSliceMut<'_, T>,
        lda: usize,
    ) -> Result<()> {
        self.ger_impl("gerc", m, n, alpha, x, incx, y, incy, a, lda, true)
    }

    fn trv<T: Scalar>(
        &self,
        op: &str,
        s: TrvShape,
        a: &BufferSlice<'_, T>,
        x: &mut BufferSliceMut<'_, T>,
    ) -> Result<()> {
        s.check(a.len(), x.len())?;
        self.check_device("a", a.device())?;
        self.check_device("x", x.device())?;
        if s.n == 0 {
            return Ok(());
        }
        match self.engine(op)? {
            Engine::Cpu => {
                let a = check::host("a", a)?;
                s.run(op == "trsv", a, check::host_mut("x", x)?);
                Ok(())
            }
        }
    }

    /// x ← op(A)·x, A n×n triangular.
    pub fn trmv<T: Scalar>(
        &self,
        uplo: Uplo,
        trans: Transpose,
        diag: Diag,
        n: usize,
        a: &BufferSlice<'_, T>,
        lda: usize,
        x: &mut BufferSliceMut<'_, T>,
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
        self.trv("trmv", s, a, x)
    }

    /// x ← op(A)⁻¹·x, A n×n triangular (no singularity test, as BLAS).
    pub fn trsv<T: Scalar>(
        &self,
        uplo: Uplo,
        trans: Transpose,
        diag: Diag,
        n: usize,
        a: &BufferSlice<'_, T>,
        lda: usize,
        x: &mut BufferSliceMut<'_, T>,
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
        self.trv("trsv", s, a, x)
    }
}
