//! BLAS Level 2: matrix-vector operations.
//!
//! Matrices are column-major with a leading dimension; vectors are `(buffer view, inc)`
//! with BLAS's increment rule (non-zero; a negative increment walks the vector from its
//! far end). Arguments are checked in reference-BLAS order, each violation an error
//! naming the argument.
//! - gemv: y ← α·op(A)·x + β·y (β = 0 never reads y); on GPUs through the generated
//!   kernels of `rocm_kernels::level2::gemv` (see `gpu::level2`).
//! - ger/geru: A ← α·x·yᵀ + A; gerc: A ← α·x·yᴴ + A.
//! - trmv: x ← op(A)·x; trsv: x ← op(A)⁻¹·x, A triangular.
//! - gbmv: gemv on a band matrix (kl sub-, ku super-diagonals, lda ≥ kl + ku + 1).
//! - symv/hemv, sbmv/hbmv, spmv/hpmv: y ← α·A·x + β·y, A symmetric/Hermitian stored as
//!   one dense triangle, a band of k off-diagonals, or a packed triangle.
//! - syr/her, spr/hpr: A ← α·x·x' + A; syr2/her2, spr2/hpr2: A ← α·x·y' + α'·y·x' + A
//!   (' = ᵀ, or ᴴ with α' = ᾱ for the Hermitian forms; her/hpr take real α).
//! - tbmv/tbsv, tpmv/tpsv: trmv/trsv on band and packed triangles.
//!
//! GPU paths (PTX on CUDA, AMDGPU code objects on HIP and emulated AMD devices, one
//! host path; `gpu::level2`): gemv; ger/geru/gerc, syr/her, syr2/her2,
//! spr/hpr, spr2/hpr2 (one rank-update kernel); symv/hemv, spmv/hpmv, sbmv/hbmv, trmv,
//! tpmv, tbmv (one triangle-product kernel over dense, packed or band storage; trmv
//! through the workspace); gbmv (the same kernel's general band ops: reads only the
//! band, O(len(y)·(kl + ku + 1)), no workspace); trsv (diagonal-block solves and gemv
//! updates); tpsv/tbsv (the same blocked trsv on the packed or band storage itself: the
//! block solves read the triangle in place and the updates are the triangle kernel's
//! windowed products, n²/2 reads of A packed and O(n·k) work for a band, no
//! workspace). On AMD devices the kernels index in 32 bits: larger problems answer
//! `Unsupported` naming the device. The argument checks and quick returns are the same
//! on every device.
//!
//! Band storage is BLAS's: A(i, j) at `a[ku + i − j + j·lda]` (general), `a[k + i − j +
//! j·lda]` (upper triangle) or `a[i − j + j·lda]` (lower). Packed storage holds the
//! triangle column by column: upper A(i, j) at `ap[i + j(j+1)/2]`, lower at
//! `ap[i − j + j·n − j(j−1)/2]`.

#![allow(clippy::too_many_arguments)]

use crate::cpu::structured::{self as st, Layout, Stored};
use crate::gpu;
use crate::gpu::level2::Kernels;
use crate::handle::Dispatch;
use crate::level1::element_args;
use crate::{check, cpu, Blas, Diag, Scalar, Transpose, Uplo};
use rocm_core::{BufferSlice, BufferSliceMut, Result};
use rocm_kernels::level2::gemv::{GemvTrans, GemvTuning};
use rocm_kernels::level2::rank::RankOp;
use rocm_kernels::level2::trimv::TriMvOp;
use rocm_kernels::level2::Storage;

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
    pub fn extents(&self) -> (usize, usize, usize) {
        let (lx, ly) = self.lens();
        (
            check::matrix_extent(self.m, self.n, self.lda),
            check::vector_extent(lx, self.incx),
            check::vector_extent(ly, self.incy),
        )
    }
    pub fn check_lds(&self) -> Result<()> {
        check::leading_dimension("lda", self.lda, self.m)?;
        if self.incx == 0 {
            return Err(rocm_core::Error::invalid("incx", "must not be zero"));
        }
        if self.incy == 0 {
            return Err(rocm_core::Error::invalid("incy", "must not be zero"));
        }
        Ok(())
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
    pub fn extents(&self) -> (usize, usize) {
        (
            check::matrix_extent(self.n, self.n, self.lda),
            check::vector_extent(self.n, self.incx),
        )
    }
    pub fn check_lds(&self) -> Result<()> {
        check::leading_dimension("lda", self.lda, self.n)?;
        if self.incx == 0 {
            return Err(rocm_core::Error::invalid("incx", "must not be zero"));
        }
        Ok(())
    }
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
        self.gemv_tuned(
            trans,
            m,
            n,
            alpha,
            a,
            lda,
            x,
            incx,
            beta,
            y,
            incy,
            GemvTuning::default(),
        )
    }

    /// [`Blas::gemv`] with the GPU kernel's shape overridden (benchmarks and tuning;
    /// ignored on the CPU).
    #[doc(hidden)]
    pub fn gemv_tuned<T: Scalar>(
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
        tuning: GemvTuning,
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
        match self.dispatch() {
            Dispatch::Cpu => {
                let (a, x) = (check::host("a", a)?, check::host("x", x)?);
                s.run(alpha, a, x, beta, check::host_mut("y", y)?);
                Ok(())
            }
            // α = 0: y ← β·y without reading A or x (BLAS's rule; NaN in A stays out).
            Dispatch::Gpu if alpha == T::zero() => {
                self.gpu_beta_only(("gemv", &[Kernels::Gemv]), s.lens().1, beta, (y, incy))
            }
            Dispatch::Gpu => {
                let (mut al, mut be) = (Vec::new(), Vec::new());
                element_args(alpha, &mut al);
                element_args(beta, &mut be);
                let trans = gemv_trans::<T>(trans);
                let call = gpu::level2::GemvCall {
                    trans,
                    dtype: T::DTYPE,
                    m,
                    n,
                    a: a.address(),
                    lda,
                    x: (x.address(), incx),
                    y: (y.address(), incy),
                    alpha: &al,
                    beta: &be,
                    read_y: beta != T::zero(),
                };
                gpu::level2::gemv(self, &call, tuning)
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
        match self.dispatch() {
            Dispatch::Cpu => {
                let (x, y) = (check::host("x", x)?, check::host("y", y)?);
                let a = check::host_mut("a", a)?;
                cpu::level2::ger((m, n), alpha, (x, incx), (y, incy), (a, lda), conj);
                Ok(())
            }
            Dispatch::Gpu => {
                let mut al = Vec::new();
                element_args(alpha, &mut al);
                // yᴴ of a real vector is yᵀ: one kernel serves both.
                let op_kind = if conj && T::IS_COMPLEX {
                    RankOp::Gerc
                } else {
                    RankOp::Ger
                };
                let call = gpu::level2::rank::RankCall {
                    op: op_kind,
                    storage: Storage::Dense,
                    upper: false,
                    dtype: T::DTYPE,
                    m,
                    n,
                    a: a.address(),
                    lda,
                    x: (x.address(), incx),
                    y: (y.address(), incy),
                    alpha: &al,
                };
                gpu::level2::rank::update(self, op, &call)
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
        match self.dispatch() {
            Dispatch::Cpu => {
                let a = check::host("a", a)?;
                s.run(op == "trsv", a, check::host_mut("x", x)?);
                Ok(())
            }
            Dispatch::Gpu if op == "trsv" => {
                let call = gpu::level2::trsv::TrsvCall {
                    upper: s.uplo == Uplo::Upper,
                    trans: gemv_trans::<T>(s.trans),
                    unit: s.diag == Diag::Unit,
                    dtype: T::DTYPE,
                    n: s.n,
                    storage: Storage::Dense,
                    band: 0,
                    a: a.address(),
                    lda: s.lda,
                    x: (x.address(), s.incx),
                };
                gpu::level2::trsv::trsv(self, op, &call)
            }
            Dispatch::Gpu => {
                let storage = (Storage::Dense, s.lda, 0);
                let tri = (s.uplo, s.trans, s.diag);
                self.gpu_trmv(op, storage, tri, s.n, a, (x, s.incx))
            }
        }
    }

    /// trmv/tpmv/tbmv on a GPU: op(A)·x through the workspace, copied back into x
    /// (`band`: the off-diagonals of band storage).
    fn gpu_trmv<T: Scalar>(
        &self,
        op: &str,
        (storage, lda, band): (Storage, usize, usize),
        (uplo, trans, diag): (Uplo, Transpose, Diag),
        n: usize,
        a: &BufferSlice<'_, T>,
        (x, incx): (&mut BufferSliceMut<'_, T>, isize),
    ) -> Result<()> {
        let mut one = Vec::new();
        element_args(T::one(), &mut one);
        let op_kind = match gemv_trans::<T>(trans) {
            GemvTrans::N => TriMvOp::TrmvN,
            GemvTrans::T => TriMvOp::TrmvT,
            GemvTrans::C => TriMvOp::TrmvC,
        };
        let call = gpu::level2::trimv::TriMvCall {
            op: op_kind,
            storage,
            band,
            band_lower: 0,
            window: None,
            upper: uplo == Uplo::Upper,
            unit: diag == Diag::Unit,
            dtype: T::DTYPE,
            n,
            a: a.address(),
            lda,
            x: (x.address(), incx),
            y: (x.address(), incx),
            alpha: &one,
            beta: &[],
            read_y: false,
        };
        gpu::level2::trimv::trmv(self, op, &call)
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

    /// y ← α·op(A)·x + β·y, A m×n with `kl` sub- and `ku` super-diagonals in band
    /// storage.
    pub fn gbmv<T: Scalar>(
        &self,
        trans: Transpose,
        m: usize,
        n: usize,
        kl: usize,
        ku: usize,
        alpha: T,
        a: &BufferSlice<'_, T>,
        lda: usize,
        x: &BufferSlice<'_, T>,
        incx: isize,
        beta: T,
        y: &mut BufferSliceMut<'_, T>,
        incy: isize,
    ) -> Result<()> {
        // Saturating: absurd bandwidths fail the lda check instead of overflowing.
        let band = kl.saturating_add(ku).saturating_add(1);
        let s = GemvShape {
            trans,
            m,
            n,
            lda,
            incx,
            incy,
        };
        let (lx, ly) = s.lens();
        check::leading_dimension("lda", lda, band)?;
        check::vector("x", "incx", x.len(), lx, incx)?;
        check::vector("y", "incy", y.len(), ly, incy)?;
        check::matrix("a", "lda", a.len(), band, n, lda)?;
        self.devices3(a, x, y)?;
        if m == 0 || n == 0 || (alpha == T::zero() && beta == T::one()) {
            return Ok(());
        }
        match self.dispatch() {
            Dispatch::Cpu => {
                let (a, x) = (check::host("a", a)?, check::host("x", x)?);
                let st = Stored {
                    m,
                    n,
                    kl,
                    ku,
                    layout: Layout::Band(lda),
                };
                let y = check::host_mut("y", y)?;
                st::mv_update((lx, ly), alpha, (x, incx), beta, (y, incy), |xg| {
                    st::general_mv(&st, trans, a, xg)
                });
                Ok(())
            }
            // α = 0: y ← β·y without reading A or x (BLAS's rule).
            Dispatch::Gpu if alpha == T::zero() => {
                self.gpu_beta_only(("gbmv", &[Kernels::TriMv]), ly, beta, (y, incy))
            }
            // The band kernel: reads only the band, no workspace.
            Dispatch::Gpu => {
                let (mut al, mut be) = (Vec::new(), Vec::new());
                element_args(alpha, &mut al);
                element_args(beta, &mut be);
                let call = gpu::level2::trimv::GemvLike {
                    dtype: T::DTYPE,
                    x: (x.address(), incx),
                    y: (y.address(), incy),
                    alpha: &al,
                    beta: &be,
                    read_y: beta != T::zero(),
                };
                gpu::level2::trimv::gbmv(
                    self,
                    (gemv_trans::<T>(trans), m, n),
                    (a.address(), lda, kl, ku),
                    &call,
                )
            }
        }
    }

    /// y ← β·y on a GPU, for a product with α = 0 (BLAS: A and x are not read): a
    /// Level 1 fill (β = 0, y not read) or scal, on devices with the Level 2 kernels it
    /// `needs`
    /// (elsewhere `Unsupported`, as the product itself).
    fn gpu_beta_only<T: Scalar>(
        &self,
        (op, needs): (&str, &[Kernels]),
        len: usize,
        beta: T,
        (y, incy): (&mut BufferSliceMut<'_, T>, isize),
    ) -> Result<()> {
        gpu::level2::require(self, op, needs)?;
        if beta == T::zero() {
            self.fill(len, T::zero(), y, incy)
        } else {
            self.scal(len, beta, y, incy)
        }
    }

    fn devices3<T: Scalar>(
        &self,
        a: &BufferSlice<'_, T>,
        x: &BufferSlice<'_, T>,
        y: &BufferSliceMut<'_, T>,
    ) -> Result<()> {
        self.check_device("a", a.device())?;
        self.check_device("x", x.device())?;
        self.check_device("y", y.device())
    }

    /// The symmetric / Hermitian products after their storage-specific checks.
    fn sym_mv<T: Scalar>(
        &self,
        op: &str,
        (uplo, st): (Uplo, Stored),
        alpha: T,
        a: &BufferSlice<'_, T>,
        (x, incx): (&BufferSlice<'_, T>, isize),
        beta: T,
        (y, incy): (&mut BufferSliceMut<'_, T>, isize),
        hermitian: bool,
    ) -> Result<()> {
        self.devices3(a, x, y)?;
        if st.n == 0 || (alpha == T::zero() && beta == T::one()) {
            return Ok(());
        }
        let n = st.n;
        match self.dispatch() {
            Dispatch::Cpu => {
                let (a, x) = (check::host("a", a)?, check::host("x", x)?);
                let y = check::host_mut("y", y)?;
                st::mv_update((n, n), alpha, (x, incx), beta, (y, incy), |xg| {
                    st::symmetric_mv(&st, a, xg, hermitian)
                });
                Ok(())
            }
            Dispatch::Gpu => {
                let Some((storage, lda)) = gpu_storage(st.layout) else {
                    return Err(self.unsupported(op));
                };
                // α = 0: y ← β·y without reading A or x (BLAS's rule).
                if alpha == T::zero() {
                    return self.gpu_beta_only((op, &[Kernels::TriMv]), n, beta, (y, incy));
                }
                let (mut al, mut be) = (Vec::new(), Vec::new());
                element_args(alpha, &mut al);
                element_args(beta, &mut be);
                // A Hermitian real matrix is symmetric: one kernel serves both.
                let op_kind = if hermitian && T::IS_COMPLEX {
                    TriMvOp::Hemv
                } else {
                    TriMvOp::Symv
                };
                let call = gpu::level2::trimv::TriMvCall {
                    op: op_kind,
                    storage,
                    band: st.kl.max(st.ku),
                    band_lower: 0,
                    window: None,
                    upper: uplo == Uplo::Upper,
                    unit: false,
                    dtype: T::DTYPE,
                    n,
                    a: a.address(),
                    lda,
                    x: (x.address(), incx),
                    y: (y.address(), incy),
                    alpha: &al,
                    beta: &be,
                    read_y: beta != T::zero(),
                };
                gpu::level2::trimv::product(self, op, &call)
            }
        }
    }

    fn dense_sym_mv<T: Scalar>(
        &self,
        op: &str,
        uplo: Uplo,
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
        check::leading_dimension("lda", lda, n)?;
        check::vector("x", "incx", x.len(), n, incx)?;
        check::vector("y", "incy", y.len(), n, incy)?;
        check::matrix("a", "lda", a.len(), n, n, lda)?;
        let st = Stored::triangle(uplo, n, n.saturating_sub(1), Layout::Dense(lda));
        let herm = op == "hemv";
        self.sym_mv(op, (uplo, st), alpha, a, (x, incx), beta, (y, incy), herm)
    }

    /// y ← α·A·x + β·y, A n×n symmetric with its `uplo` triangle stored.
    pub fn symv<T: Scalar>(
        &self,
        uplo: Uplo,
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
        self.dense_sym_mv("symv", uplo, n, alpha, a, lda, x, incx, beta, y, incy)
    }

    /// y ← α·A·x + β·y, A n×n Hermitian with its `uplo` triangle stored.
    pub fn hemv<T: Scalar>(
        &self,
        uplo: Uplo,
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
        self.dense_sym_mv("hemv", uplo, n, alpha, a, lda, x, incx, beta, y, incy)
    }

    fn band_sym_mv<T: Scalar>(
        &self,
        op: &str,
        uplo: Uplo,
        n: usize,
        k: usize,
        alpha: T,
        a: &BufferSlice<'_, T>,
        lda: usize,
        x: &BufferSlice<'_, T>,
        incx: isize,
        beta: T,
        y: &mut BufferSliceMut<'_, T>,
        incy: isize,
    ) -> Result<()> {
        check::leading_dimension("lda", lda, k.saturating_add(1))?;
        check::vector("x", "incx", x.len(), n, incx)?;
        check::vector("y", "incy", y.len(), n, incy)?;
        check::matrix("a", "lda", a.len(), k.saturating_add(1), n, lda)?;
        let st = Stored::triangle(uplo, n, k, Layout::Band(lda));
        let herm = op == "hbmv";
        self.sym_mv(op, (uplo, st), alpha, a, (x, incx), beta, (y, incy), herm)
    }

    /// y ← α·A·x + β·y, A n×n symmetric band with `k` off-diagonals in band storage.
    pub fn sbmv<T: Scalar>(
        &self,
        uplo: Uplo,
        n: usize,
        k: usize,
        alpha: T,
        a: &BufferSlice<'_, T>,
        lda: usize,
        x: &BufferSlice<'_, T>,
        incx: isize,
        beta: T,
        y: &mut BufferSliceMut<'_, T>,
        incy: isize,
    ) -> Result<()> {
        self.band_sym_mv("sbmv", uplo, n, k, alpha, a, lda, x, incx, beta, y, incy)
    }

    /// y ← α·A·x + β·y, A n×n Hermitian band with `k` off-diagonals in band storage.
    pub fn hbmv<T: Scalar>(
        &self,
        uplo: Uplo,
        n: usize,
        k: usize,
        alpha: T,
        a: &BufferSlice<'_, T>,
        lda: usize,
        x: &BufferSlice<'_, T>,
        incx: isize,
        beta: T,
        y: &mut BufferSliceMut<'_, T>,
        incy: isize,
    ) -> Result<()> {
        self.band_sym_mv("hbmv", uplo, n, k, alpha, a, lda, x, incx, beta, y, incy)
    }

    fn packed_sym_mv<T: Scalar>(
        &self,
        op: &str,
        uplo: Uplo,
        n: usize,
        alpha: T,
        ap: &BufferSlice<'_, T>,
        x: &BufferSlice<'_, T>,
        incx: isize,
        beta: T,
        y: &mut BufferSliceMut<'_, T>,
        incy: isize,
    ) -> Result<()> {
        check::vector("x", "incx", x.len(), n, incx)?;
        check::vector("y", "incy", y.len(), n, incy)?;
        check::packed("ap", ap.len(), n)?;
        let st = Stored::triangle(uplo, n, n.saturating_sub(1), Layout::Packed);
        let herm = op == "hpmv";
        self.sym_mv(op, (uplo, st), alpha, ap, (x, incx), beta, (y, incy), herm)
    }

    /// y ← α·A·x + β·y, A n×n symmetric in packed storage.
    pub fn spmv<T: Scalar>(
        &self,
        uplo: Uplo,
        n: usize,
        alpha: T,
        ap: &BufferSlice<'_, T>,
        x: &BufferSlice<'_, T>,
        incx: isize,
        beta: T,
        y: &mut BufferSliceMut<'_, T>,
        incy: isize,
    ) -> Result<()> {
        self.packed_sym_mv("spmv", uplo, n, alpha, ap, x, incx, beta, y, incy)
    }

    /// y ← α·A·x + β·y, A n×n Hermitian in packed storage.
    pub fn hpmv<T: Scalar>(
        &self,
        uplo: Uplo,
        n: usize,
        alpha: T,
        ap: &BufferSlice<'_, T>,
        x: &BufferSlice<'_, T>,
        incx: isize,
        beta: T,
        y: &mut BufferSliceMut<'_, T>,
        incy: isize,
    ) -> Result<()> {
        self.packed_sym_mv("hpmv", uplo, n, alpha, ap, x, incx, beta, y, incy)
    }

    /// The rank-1 / rank-2 updates after their storage-specific checks.
    fn sym_update<T: Scalar>(
        &self,
        op: &str,
        (uplo, st): (Uplo, Stored),
        alpha: T,
        (x, incx): (&BufferSlice<'_, T>, isize),
        y: Option<(&BufferSlice<'_, T>, isize)>,
        a: &mut BufferSliceMut<'_, T>,
    ) -> Result<()> {
        self.check_device("x", x.device())?;
        if let Some((y, _)) = y {
            self.check_device("y", y.device())?;
        }
        self.check_device("a", a.device())?;
        if st.n == 0 || alpha == T::zero() {
            return Ok(());
        }
        let herm = op.starts_with('h');
        match self.dispatch() {
            Dispatch::Cpu => {
                let x = check::host("x", x)?;
                let y = match y {
                    Some((y, incy)) => Some((check::host("y", y)?, incy)),
                    None => None,
                };
                let a = check::host_mut("a", a)?;
                st::rank_update(&st, alpha, (x, incx), y, a, herm);
                Ok(())
            }
            Dispatch::Gpu => {
                let Some((storage, lda)) = gpu_storage(st.layout) else {
                    return Err(self.unsupported(op));
                };
                let mut al = Vec::new();
                element_args(alpha, &mut al);
                // Real Hermitian updates are the symmetric ones.
                let herm = herm && T::IS_COMPLEX;
                let op_kind = match (y.is_some(), herm) {
                    (false, false) => RankOp::Syr,
                    (false, true) => RankOp::Her,
                    (true, false) => RankOp::Syr2,
                    (true, true) => RankOp::Her2,
                };
                // syr/her read x as y.
                let yv = y.map_or((x.address(), incx), |(y, incy)| (y.address(), incy));
                let call = gpu::level2::rank::RankCall {
                    op: op_kind,
                    storage,
                    upper: uplo == Uplo::Upper,
                    dtype: T::DTYPE,
                    m: st.n,
                    n: st.n,
                    a: a.address(),
                    lda,
                    x: (x.address(), incx),
                    y: yv,
                    alpha: &al,
                };
                gpu::level2::rank::update(self, op, &call)
            }
        }
    }

    fn dense_update<T: Scalar>(
        &self,
        op: &str,
        uplo: Uplo,
        n: usize,
        alpha: T,
        (x, incx): (&BufferSlice<'_, T>, isize),
        y: Option<(&BufferSlice<'_, T>, isize)>,
        a: &mut BufferSliceMut<'_, T>,
        lda: usize,
    ) -> Result<()> {
        check::vector("x", "incx", x.len(), n, incx)?;
        if let Some((y, incy)) = y {
            check::vector("y", "incy", y.len(), n, incy)?;
        }
        check::matrix("a", "lda", a.len(), n, n, lda)?;
        let st = Stored::triangle(uplo, n, n.saturating_sub(1), Layout::Dense(lda));
        self.sym_update(op, (uplo, st), alpha, (x, incx), y, a)
    }

    fn packed_update<T: Scalar>(
        &self,
        op: &str,
        uplo: Uplo,
        n: usize,
        alpha: T,
        (x, incx): (&BufferSlice<'_, T>, isize),
        y: Option<(&BufferSlice<'_, T>, isize)>,
        ap: &mut BufferSliceMut<'_, T>,
    ) -> Result<()> {
        check::vector("x", "incx", x.len(), n, incx)?;
        if let Some((y, incy)) = y {
            check::vector("y", "incy", y.len(), n, incy)?;
        }
        check::packed("ap", ap.len(), n)?;
        let st = Stored::triangle(uplo, n, n.saturating_sub(1), Layout::Packed);
        self.sym_update(op, (uplo, st), alpha, (x, incx), y, ap)
    }

    /// A ← α·x·xᵀ + A on the `uplo` triangle of an n×n symmetric A.
    pub fn syr<T: Scalar>(
        &self,
        uplo: Uplo,
        n: usize,
        alpha: T,
        x: &BufferSlice<'_, T>,
        incx: isize,
        a: &mut BufferSliceMut<'_, T>,
        lda: usize,
    ) -> Result<()> {
        self.dense_update("syr", uplo, n, alpha, (x, incx), None, a, lda)
    }

    /// A ← α·x·xᴴ + A (real α) on the `uplo` triangle of an n×n Hermitian A.
    pub fn her<T: Scalar>(
        &self,
        uplo: Uplo,
        n: usize,
        alpha: T::Real,
        x: &BufferSlice<'_, T>,
        incx: isize,
        a: &mut BufferSliceMut<'_, T>,
        lda: usize,
    ) -> Result<()> {
        let alpha = T::from_real(alpha);
        self.dense_update("her", uplo, n, alpha, (x, incx), None, a, lda)
    }

    /// A ← α·x·yᵀ + α·y·xᵀ + A on the `uplo` triangle of a symmetric A.
    pub fn syr2<T: Scalar>(
        &self,
        uplo: Uplo,
        n: usize,
        alpha: T,
        x: &BufferSlice<'_, T>,
        incx: isize,
        y: &BufferSlice<'_, T>,
        incy: isize,
        a: &mut BufferSliceMut<'_, T>,
        lda: usize,
    ) -> Result<()> {
        self.dense_update("syr2", uplo, n, alpha, (x, incx), Some((y, incy)), a, lda)
    }

    /// A ← α·x·yᴴ + ᾱ·y·xᴴ + A on the `uplo` triangle of a Hermitian A.
    pub fn her2<T: Scalar>(
        &self,
        uplo: Uplo,
        n: usize,
        alpha: T,
        x: &BufferSlice<'_, T>,
        incx: isize,
        y: &BufferSlice<'_, T>,
        incy: isize,
        a: &mut BufferSliceMut<'_, T>,
        lda: usize,
    ) -> Result<()> {
        self.dense_update("her2", uplo, n, alpha, (x, incx), Some((y, incy)), a, lda)
    }

    /// A ← α·x·xᵀ + A, A symmetric in packed storage.
    pub fn spr<T: Scalar>(
        &self,
        uplo: Uplo,
        n: usize,
        alpha: T,
        x: &BufferSlice<'_, T>,
        incx: isize,
        ap: &mut BufferSliceMut<'_, T>,
    ) -> Result<()> {
        self.packed_update("spr", uplo, n, alpha, (x, incx), None, ap)
    }

    /// A ← α·x·xᴴ + A (real α), A Hermitian in packed storage.
    pub fn hpr<T: Scalar>(
        &self,
        uplo: Uplo,
        n: usize,
        alpha: T::Real,
        x: &BufferSlice<'_, T>,
        incx: isize,
        ap: &mut BufferSliceMut<'_, T>,
    ) -> Result<()> {
        let alpha = T::from_real(alpha);
        self.packed_update("hpr", uplo, n, alpha, (x, incx), None, ap)
    }

    /// A ← α·x·yᵀ + α·y·xᵀ + A, A symmetric in packed storage.
    pub fn spr2<T: Scalar>(
        &self,
        uplo: Uplo,
        n: usize,
        alpha: T,
        x: &BufferSlice<'_, T>,
        incx: isize,
        y: &BufferSlice<'_, T>,
        incy: isize,
        ap: &mut BufferSliceMut<'_, T>,
    ) -> Result<()> {
        self.packed_update("spr2", uplo, n, alpha, (x, incx), Some((y, incy)), ap)
    }

    /// A ← α·x·yᴴ + ᾱ·y·xᴴ + A, A Hermitian in packed storage.
    pub fn hpr2<T: Scalar>(
        &self,
        uplo: Uplo,
        n: usize,
        alpha: T,
        x: &BufferSlice<'_, T>,
        incx: isize,
        y: &BufferSlice<'_, T>,
        incy: isize,
        ap: &mut BufferSliceMut<'_, T>,
    ) -> Result<()> {
        self.packed_update("hpr2", uplo, n, alpha, (x, incx), Some((y, incy)), ap)
    }

    fn structured_tri<T: Scalar>(
        &self,
        op: &str,
        (uplo, st): (Uplo, Stored),
        (trans, diag): (Transpose, Diag),
        a: &BufferSlice<'_, T>,
        (x, incx): (&mut BufferSliceMut<'_, T>, isize),
    ) -> Result<()> {
        self.check_device("a", a.device())?;
        self.check_device("x", x.device())?;
        if st.n == 0 {
            return Ok(());
        }
        match self.dispatch() {
            Dispatch::Cpu => {
                let a = check::host("a", a)?;
                let x = check::host_mut("x", x)?;
                st::triangular(&st, (trans, diag), a, (x, incx), op.ends_with("sv"));
                Ok(())
            }
            // tpmv and tbmv: the trmv kernel on packed and band storage; tpsv and tbsv:
            // the blocked trsv on that storage (block solves and windowed products).
            Dispatch::Gpu => {
                let tri = (uplo, trans, diag);
                let Some((storage, lda)) = gpu_storage(st.layout) else {
                    return Err(self.unsupported(op));
                };
                let band = st.kl.max(st.ku);
                if op.ends_with("mv") {
                    return self.gpu_trmv(op, (storage, lda, band), tri, st.n, a, (x, incx));
                }
                let call = gpu::level2::trsv::TrsvCall {
                    upper: uplo == Uplo::Upper,
                    trans: gemv_trans::<T>(trans),
                    unit: diag == Diag::Unit,
                    dtype: T::DTYPE,
                    n: st.n,
                    storage,
                    band,
                    a: a.address(),
                    lda,
                    x: (x.address(), incx),
                };
                gpu::level2::trsv::trsv(self, op, &call)
            }
        }
    }

    fn band_tri<T: Scalar>(
        &self,
        op: &str,
        (uplo, trans, diag): (Uplo, Transpose, Diag),
        n: usize,
        k: usize,
        a: &BufferSlice<'_, T>,
        lda: usize,
        x: &mut BufferSliceMut<'_, T>,
        incx: isize,
    ) -> Result<()> {
        check::leading_dimension("lda", lda, k.saturating_add(1))?;
        check::vector("x", "incx", x.len(), n, incx)?;
        check::matrix("a", "lda", a.len(), k.saturating_add(1), n, lda)?;
        let st = Stored::triangle(uplo, n, k, Layout::Band(lda));
        self.structured_tri(op, (uplo, st), (trans, diag), a, (x, incx))
    }

    fn packed_tri<T: Scalar>(
        &self,
        op: &str,
        (uplo, trans, diag): (Uplo, Transpose, Diag),
        n: usize,
        ap: &BufferSlice<'_, T>,
        x: &mut BufferSliceMut<'_, T>,
        incx: isize,
    ) -> Result<()> {
        check::vector("x", "incx", x.len(), n, incx)?;
        check::packed("ap", ap.len(), n)?;
        let st = Stored::triangle(uplo, n, n.saturating_sub(1), Layout::Packed);
        self.structured_tri(op, (uplo, st), (trans, diag), ap, (x, incx))
    }

    /// x ← op(A)·x, A n×n triangular band with `k` off-diagonals.
    pub fn tbmv<T: Scalar>(
        &self,
        uplo: Uplo,
        trans: Transpose,
        diag: Diag,
        n: usize,
        k: usize,
        a: &BufferSlice<'_, T>,
        lda: usize,
        x: &mut BufferSliceMut<'_, T>,
        incx: isize,
    ) -> Result<()> {
        self.band_tri("tbmv", (uplo, trans, diag), n, k, a, lda, x, incx)
    }

    /// x ← op(A)⁻¹·x, A n×n triangular band with `k` off-diagonals.
    pub fn tbsv<T: Scalar>(
        &self,
        uplo: Uplo,
        trans: Transpose,
        diag: Diag,
        n: usize,
        k: usize,
        a: &BufferSlice<'_, T>,
        lda: usize,
        x: &mut BufferSliceMut<'_, T>,
        incx: isize,
    ) -> Result<()> {
        self.band_tri("tbsv", (uplo, trans, diag), n, k, a, lda, x, incx)
    }

    /// x ← op(A)·x, A n×n triangular in packed storage.
    pub fn tpmv<T: Scalar>(
        &self,
        uplo: Uplo,
        trans: Transpose,
        diag: Diag,
        n: usize,
        ap: &BufferSlice<'_, T>,
        x: &mut BufferSliceMut<'_, T>,
        incx: isize,
    ) -> Result<()> {
        self.packed_tri("tpmv", (uplo, trans, diag), n, ap, x, incx)
    }

    /// x ← op(A)⁻¹·x, A n×n triangular in packed storage.
    pub fn tpsv<T: Scalar>(
        &self,
        uplo: Uplo,
        trans: Transpose,
        diag: Diag,
        n: usize,
        ap: &BufferSlice<'_, T>,
        x: &mut BufferSliceMut<'_, T>,
        incx: isize,
    ) -> Result<()> {
        self.packed_tri("tpsv", (uplo, trans, diag), n, ap, x, incx)
    }
}

/// The gemv kernels' op(A): Aᴴ of a real matrix is Aᵀ.
fn gemv_trans<T: Scalar>(trans: Transpose) -> GemvTrans {
    match trans {
        Transpose::N => GemvTrans::N,
        Transpose::T => GemvTrans::T,
        Transpose::C if T::IS_COMPLEX => GemvTrans::C,
        Transpose::C => GemvTrans::T,
    }
}

/// The GPU kernels' storage of a stored triangle and its leading dimension (0 when
/// packed).
fn gpu_storage(layout: Layout) -> Option<(Storage, usize)> {
    match layout {
        Layout::Dense(lda) => Some((Storage::Dense, lda)),
        Layout::Packed => Some((Storage::Packed, 0)),
        Layout::Band(lda) => Some((Storage::Band, lda)),
    }
}
