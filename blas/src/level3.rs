//! BLAS Level 3 beyond GEMM: trsm, trmm, syrk/herk, syr2k/her2k, symm/hemm.
//!
//! Column-major with leading dimensions, arguments checked in reference-BLAS order (each
//! violation an error naming the argument), quick returns as BLAS defines them:
//! - trsm: B ← α·op(A)⁻¹·B (side = Left) or α·B·op(A)⁻¹ (Right); α = 0 zeroes B without
//!   reading A.
//! - trmm: B ← α·op(A)·B or α·B·op(A) (BLAS's in-place form).
//! - syrk: C ← α·op(A)·op(A)ᵀ + β·C; herk: C ← α·op(A)·op(A)ᴴ + β·C with real α, β and a
//!   real diagonal. Only the `uplo` triangle of C is read or written.
//! - syr2k: C ← α·op(A)·op(B)ᵀ + α·op(B)·op(A)ᵀ + β·C; her2k: α·op(A)·op(B)ᴴ +
//!   ᾱ·op(B)·op(A)ᴴ + β·C with real β.
//! - symm/hemm: C ← α·A·B + β·C (Left) or α·B·A + β·C (Right), A symmetric/Hermitian
//!   with its `uplo` triangle stored.
//!
//! In every routine β = 0 never reads C (it may hold NaN).
//!
//! On the CPU device the routines run `cpu::*`; on GPUs (CUDA and AMD devices), trsm,
//! trmm, syrk/herk, syr2k/her2k, symm/hemm and trtri for f32, f64, Complex32 and
//! Complex64 run blocked onto the GPU GEMM (`gpu::level3`, which describes the
//! algorithms and their workspace); where the GEMM lacks the type (some AMD targets)
//! they answer the GEMM's `Unsupported`.

#![allow(clippy::too_many_arguments)]

use crate::gpu::level3 as gpu;
use crate::handle::Dispatch;
use crate::{check, cpu, Blas, Diag, Scalar, Side, Transpose, Uplo};
use rocm_core::{BufferSlice, BufferSliceMut, Error, Result};

/// The shape of one trsm/trmm problem: A is ka×ka (ka = m from the left, n from the
/// right), B is m×n.
#[derive(Debug, Clone, Copy)]
pub(crate) struct TriShape {
    pub side: Side,
    pub uplo: Uplo,
    pub trans: Transpose,
    pub diag: Diag,
    pub m: usize,
    pub n: usize,
    pub lda: usize,
    pub ldb: usize,
}

impl TriShape {
    pub fn ka(&self) -> usize {
        match self.side {
            Side::Left => self.m,
            Side::Right => self.n,
        }
    }
    pub fn check_lds(&self) -> Result<()> {
        check::leading_dimension("lda", self.lda, self.ka())?;
        check::leading_dimension("ldb", self.ldb, self.m)
    }
    pub fn extents(&self) -> (usize, usize) {
        (
            check::matrix_extent(self.ka(), self.ka(), self.lda),
            check::matrix_extent(self.m, self.n, self.ldb),
        )
    }
    pub fn check_buffers(&self, a: usize, b: usize) -> Result<()> {
        check::matrix("a", "lda", a, self.ka(), self.ka(), self.lda)?;
        check::matrix("b", "ldb", b, self.m, self.n, self.ldb)
    }
    pub fn run<T: Scalar>(&self, solve: bool, alpha: T, a: &[T], b: &mut [T]) {
        let f = if solve {
            cpu::tri::trsm
        } else {
            cpu::tri::trmm
        };
        f(
            self.side,
            self.uplo,
            self.trans,
            self.diag,
            (self.m, self.n),
            alpha,
            a,
            self.lda,
            b,
            self.ldb,
        );
    }
}

/// The shape of one syrk/herk/syr2k/her2k problem: op(A) is n×k, C is n×n.
#[derive(Debug, Clone, Copy)]
pub(crate) struct RankKShape {
    pub uplo: Uplo,
    pub trans: Transpose,
    pub n: usize,
    pub k: usize,
    pub lda: usize,
    pub ldc: usize,
}

impl RankKShape {
    /// syrk takes N or T (and C on real types); herk takes N or C (and T on real types).
    pub fn check_trans<T: Scalar>(&self, hermitian: bool) -> Result<()> {
        let bad = if hermitian {
            Transpose::T
        } else {
            Transpose::C
        };
        if T::IS_COMPLEX && self.trans == bad {
            let (op, ok) = if hermitian {
                ("herk/her2k", "N or C")
            } else {
                ("syrk/syr2k", "N or T")
            };
            return Err(Error::invalid(
                "trans",
                format!("{op} on complex types takes {ok}"),
            ));
        }
        Ok(())
    }
    pub fn a_dims(&self) -> (usize, usize) {
        self.trans.stored_dims(self.n, self.k)
    }
    pub fn check_lds(&self) -> Result<()> {
        check::leading_dimension("lda", self.lda, self.a_dims().0)?;
        check::leading_dimension("ldc", self.ldc, self.n)
    }
    pub fn check_buffers(&self, a: usize, c: usize) -> Result<()> {
        let (r, cols) = self.a_dims();
        check::matrix("a", "lda", a, r, cols, self.lda)?;
        check::matrix("c", "ldc", c, self.n, self.n, self.ldc)
    }
    pub fn extents(&self) -> (usize, usize) {
        let (r, c) = self.a_dims();
        (
            check::matrix_extent(r, c, self.lda),
            check::matrix_extent(self.n, self.n, self.ldc),
        )
    }
    pub fn run<T: Scalar>(&self, alpha: T, a: &[T], beta: T, c: &mut [T], herm: bool) {
        if self.quick(alpha, beta) {
            return;
        }
        let dims = (self.n, self.k);
        cpu::rank_k::syrk(
            self.uplo, self.trans, dims, alpha, a, self.lda, beta, c, self.ldc, herm,
        );
    }
    /// BLAS's quick return: nothing to do when n = 0, or when (α = 0 or k = 0) and β = 1.
    pub fn quick<T: Scalar>(&self, alpha: T, beta: T) -> bool {
        self.n == 0 || ((alpha == T::zero() || self.k == 0) && beta == T::one())
    }
}

/// The shape of one symm/hemm problem: A is ka×ka, B and C are m×n.
#[derive(Debug, Clone, Copy)]
pub(crate) struct SymmShape {
    pub side: Side,
    pub uplo: Uplo,
    pub m: usize,
    pub n: usize,
    pub lda: usize,
    pub ldb: usize,
    pub ldc: usize,
}

impl SymmShape {
    pub fn ka(&self) -> usize {
        match self.side {
            Side::Left => self.m,
            Side::Right => self.n,
        }
    }
    pub fn check_lds(&self) -> Result<()> {
        check::leading_dimension("lda", self.lda, self.ka())?;
        check::leading_dimension("ldb", self.ldb, self.m)?;
        check::leading_dimension("ldc", self.ldc, self.m)
    }
    pub fn extents(&self) -> (usize, usize, usize) {
        (
            check::matrix_extent(self.ka(), self.ka(), self.lda),
            check::matrix_extent(self.m, self.n, self.ldb),
            check::matrix_extent(self.m, self.n, self.ldc),
        )
    }
    pub fn check_buffers(&self, a: usize, b: usize, c: usize) -> Result<()> {
        check::matrix("a", "lda", a, self.ka(), self.ka(), self.lda)?;
        check::matrix("b", "ldb", b, self.m, self.n, self.ldb)?;
        check::matrix("c", "ldc", c, self.m, self.n, self.ldc)
    }
    pub fn run<T: Scalar>(&self, alpha: T, a: &[T], b: &[T], beta: T, c: &mut [T], herm: bool) {
        if self.m == 0 || self.n == 0 || (alpha == T::zero() && beta == T::one()) {
            return;
        }
        cpu::symm::symm(
            self.side,
            self.uplo,
            (self.m, self.n),
            alpha,
            (a, self.lda),
            (b, self.ldb),
            beta,
            c,
            self.ldc,
            herm,
        );
    }
}

impl Blas {
    pub(crate) fn tri_op<T: Scalar>(
        &self,
        op: &str,
        s: TriShape,
        alpha: T,
        a: &BufferSlice<'_, T>,
        b: &mut BufferSliceMut<'_, T>,
    ) -> Result<()> {
        s.check_lds()?;
        s.check_buffers(a.len(), b.len())?;
        self.check_device("a", a.device())?;
        self.check_device("b", b.device())?;
        if s.m == 0 || s.n == 0 {
            return Ok(());
        }
        let solve = op == "trsm";
        match self.dispatch() {
            Dispatch::Cpu => {
                let a = check::host("a", a)?;
                s.run(solve, alpha, a, check::host_mut("b", b)?);
                Ok(())
            }
            Dispatch::Gpu => gpu::tri(self, solve, &s, alpha, a.address(), b.address()),
        }
    }

    /// Triangular solve with many right-hand sides: B ← α·op(A)⁻¹·B (Left) or
    /// α·B·op(A)⁻¹ (Right), A triangular (`uplo`, unit diagonal if `diag` = Unit).
    pub fn trsm<T: Scalar>(
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
        b: &mut BufferSliceMut<'_, T>,
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
        self.tri_op("trsm", s, alpha, a, b)
    }

    /// Triangular product in place: B ← α·op(A)·B (Left) or α·B·op(A) (Right).
    pub fn trmm<T: Scalar>(
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
        b: &mut BufferSliceMut<'_, T>,
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
        self.tri_op("trmm", s, alpha, a, b)
    }

    pub(crate) fn rank_k<T: Scalar>(
        &self,
        s: RankKShape,
        alpha: T,
        a: &BufferSlice<'_, T>,
        b: Option<(&BufferSlice<'_, T>, usize)>,
        beta: T,
        c: &mut BufferSliceMut<'_, T>,
        hermitian: bool,
    ) -> Result<()> {
        s.check_trans::<T>(hermitian)?;
        check::leading_dimension("lda", s.lda, s.a_dims().0)?;
        if let Some((_, ldb)) = b {
            check::leading_dimension("ldb", ldb, s.a_dims().0)?;
        }
        check::leading_dimension("ldc", s.ldc, s.n)?;
        let (ar, ac) = s.a_dims();
        check::matrix("a", "lda", a.len(), ar, ac, s.lda)?;
        if let Some((b, ldb)) = b {
            check::matrix("b", "ldb", b.len(), ar, ac, ldb)?;
            self.check_device("b", b.device())?;
        }
        check::matrix("c", "ldc", c.len(), s.n, s.n, s.ldc)?;
        self.check_device("a", a.device())?;
        self.check_device("c", c.device())?;
        if s.quick(alpha, beta) {
            return Ok(());
        }
        match self.dispatch() {
            Dispatch::Gpu => gpu::rank_k(
                self,
                &s,
                alpha,
                a.address(),
                b.map(|(b, ldb)| (b.address(), ldb)),
                beta,
                c.address(),
                hermitian,
            ),
            Dispatch::Cpu => {
                let a = check::host("a", a)?;
                let dims = (s.n, s.k);
                match b {
                    None => cpu::rank_k::syrk(
                        s.uplo,
                        s.trans,
                        dims,
                        alpha,
                        a,
                        s.lda,
                        beta,
                        check::host_mut("c", c)?,
                        s.ldc,
                        hermitian,
                    ),
                    Some((b, ldb)) => cpu::rank_k::syr2k(
                        s.uplo,
                        s.trans,
                        dims,
                        alpha,
                        (a, s.lda),
                        (check::host("b", b)?, ldb),
                        beta,
                        check::host_mut("c", c)?,
                        s.ldc,
                        hermitian,
                    ),
                }
                Ok(())
            }
        }
    }

    /// Symmetric rank-k update of the `uplo` triangle: C ← α·op(A)·op(A)ᵀ + β·C, op(A)
    /// n×k (trans = N: A is n×k; T: A is k×n).
    pub fn syrk<T: Scalar>(
        &self,
        uplo: Uplo,
        trans: Transpose,
        n: usize,
        k: usize,
        alpha: T,
        a: &BufferSlice<'_, T>,
        lda: usize,
        beta: T,
        c: &mut BufferSliceMut<'_, T>,
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
        self.rank_k(s, alpha, a, None, beta, c, false)
    }

    /// Hermitian rank-k update of the `uplo` triangle: C ← α·op(A)·op(A)ᴴ + β·C with real
    /// α and β; the diagonal of C comes out real.
    pub fn herk<T: Scalar>(
        &self,
        uplo: Uplo,
        trans: Transpose,
        n: usize,
        k: usize,
        alpha: T::Real,
        a: &BufferSlice<'_, T>,
        lda: usize,
        beta: T::Real,
        c: &mut BufferSliceMut<'_, T>,
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
        let (alpha, beta) = (T::from_real(alpha), T::from_real(beta));
        self.rank_k(s, alpha, a, None, beta, c, true)
    }

    /// Symmetric rank-2k update: C ← α·op(A)·op(B)ᵀ + α·op(B)·op(A)ᵀ + β·C.
    pub fn syr2k<T: Scalar>(
        &self,
        uplo: Uplo,
        trans: Transpose,
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
        let s = RankKShape {
            uplo,
            trans,
            n,
            k,
            lda,
            ldc,
        };
        self.rank_k(s, alpha, a, Some((b, ldb)), beta, c, false)
    }

    /// Hermitian rank-2k update: C ← α·op(A)·op(B)ᴴ + ᾱ·op(B)·op(A)ᴴ + β·C, real β.
    pub fn her2k<T: Scalar>(
        &self,
        uplo: Uplo,
        trans: Transpose,
        n: usize,
        k: usize,
        alpha: T,
        a: &BufferSlice<'_, T>,
        lda: usize,
        b: &BufferSlice<'_, T>,
        ldb: usize,
        beta: T::Real,
        c: &mut BufferSliceMut<'_, T>,
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
        let beta = T::from_real(beta);
        self.rank_k(s, alpha, a, Some((b, ldb)), beta, c, true)
    }

    pub(crate) fn symm_op<T: Scalar>(
        &self,
        op: &str,
        s: SymmShape,
        alpha: T,
        a: &BufferSlice<'_, T>,
        b: &BufferSlice<'_, T>,
        beta: T,
        c: &mut BufferSliceMut<'_, T>,
    ) -> Result<()> {
        s.check_lds()?;
        s.check_buffers(a.len(), b.len(), c.len())?;
        self.check_device("a", a.device())?;
        self.check_device("b", b.device())?;
        self.check_device("c", c.device())?;
        if s.m == 0 || s.n == 0 || (alpha == T::zero() && beta == T::one()) {
            return Ok(());
        }
        match self.dispatch() {
            Dispatch::Cpu => {
                let (a, b) = (check::host("a", a)?, check::host("b", b)?);
                s.run(alpha, a, b, beta, check::host_mut("c", c)?, op == "hemm");
                Ok(())
            }
            Dispatch::Gpu => gpu::symm(
                self,
                op,
                &s,
                alpha,
                a.address(),
                b.address(),
                beta,
                c.address(),
            ),
        }
    }

    /// C ← α·A·B + β·C (Left) or α·B·A + β·C (Right), A symmetric with its `uplo`
    /// triangle stored.
    pub fn symm<T: Scalar>(
        &self,
        side: Side,
        uplo: Uplo,
        m: usize,
        n: usize,
        alpha: T,
        a: &BufferSlice<'_, T>,
        lda: usize,
        b: &BufferSlice<'_, T>,
        ldb: usize,
        beta: T,
        c: &mut BufferSliceMut<'_, T>,
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
        self.symm_op("symm", s, alpha, a, b, beta, c)
    }

    /// As [`Blas::symm`] with A Hermitian (the imaginary part of its diagonal is not
    /// read).
    pub fn hemm<T: Scalar>(
        &self,
        side: Side,
        uplo: Uplo,
        m: usize,
        n: usize,
        alpha: T,
        a: &BufferSlice<'_, T>,
        lda: usize,
        b: &BufferSlice<'_, T>,
        ldb: usize,
        beta: T,
        c: &mut BufferSliceMut<'_, T>,
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
        self.symm_op("hemm", s, alpha, a, b, beta, c)
    }

    /// Triangular inverse: the `uplo` triangle of inv_a ← that of A⁻¹ (A n×n; with a unit
    /// diagonal the diagonal of inv_a is not written). The other triangle of inv_a is not
    /// touched. No singularity test, as BLAS.
    pub fn trtri<T: Scalar>(
        &self,
        uplo: Uplo,
        diag: Diag,
        n: usize,
        a: &BufferSlice<'_, T>,
        lda: usize,
        inv_a: &mut BufferSliceMut<'_, T>,
        ldinv_a: usize,
    ) -> Result<()> {
        check::leading_dimension("lda", lda, n)?;
        check::leading_dimension("ldinv_a", ldinv_a, n)?;
        check::matrix("a", "lda", a.len(), n, n, lda)?;
        check::matrix("inv_a", "ldinv_a", inv_a.len(), n, n, ldinv_a)?;
        self.check_device("a", a.device())?;
        self.check_device("inv_a", inv_a.device())?;
        if n == 0 {
            return Ok(());
        }
        match self.dispatch() {
            Dispatch::Cpu => {
                let a = check::host("a", a)?;
                let inv = check::host_mut("inv_a", inv_a)?;
                cpu::tri::trtri(uplo, diag, n, (a, lda), (inv, ldinv_a));
                Ok(())
            }
            Dispatch::Gpu => gpu::trtri::<T>(
                self,
                uplo,
                diag,
                n,
                (a.address(), lda),
                (inv_a.address(), ldinv_a),
            ),
        }
    }
}
