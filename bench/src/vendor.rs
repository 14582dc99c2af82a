//! The vendor peer for `blas l1` on NVIDIA devices: the same Level 1 routines through
//! cuBLAS (loaded dynamically by cudarc), on the same buffers, timed the same way.
//!
//! Built only with `--features vendor` (the default build needs no cuBLAS). Scalar results
//! come back to host memory (cuBLAS's host pointer mode), as ours do, so both sides pay the
//! same synchronisation per reduction. cuBLAS runs on the legacy default stream; copies
//! and updates are timed to a context synchronisation.

use cudarc::cublas::sys;
use cudarc::driver::CudaContext;
use rocm_core::{Device, Error, Result};
use std::ffi::c_int;
use std::sync::Arc;
use std::time::Instant;

/// A cuBLAS handle bound to the device's primary context (the one our CUDA backend uses).
pub struct Cublas {
    handle: sys::cublasHandle_t,
    ctx: Arc<CudaContext>,
}

impl Cublas {
    /// The cuBLAS peer of `dev`: `Unsupported` unless it is a CUDA device.
    pub fn for_device(dev: &Device) -> Result<Cublas> {
        if dev.kind() != rocm_core::BackendKind::Cuda {
            return Err(Error::unsupported("the cuBLAS peer", dev.id()));
        }
        let ordinal = dev
            .id()
            .strip_prefix("cuda:")
            .and_then(|o| o.parse().ok())
            .unwrap_or(0);
        Cublas::new(dev, ordinal)
    }

    /// The cuBLAS peer for a CUDA device, or why there is none.
    pub fn new(dev: &Device, ordinal: usize) -> Result<Cublas> {
        // SAFETY: probing the library only dlopens it.
        if !unsafe { sys::is_culib_present() } {
            return Err(Error::unsupported(
                "cuBLAS peer",
                format!("{} (libcublas not found on the library path)", dev.id()),
            ));
        }
        let ctx = CudaContext::new(ordinal)
            .map_err(|e| Error::backend("cuDevicePrimaryCtxRetain", 0, e.to_string()))?;
        ctx.bind_to_thread()
            .map_err(|e| Error::backend("cuCtxSetCurrent", 0, e.to_string()))?;
        let handle = cudarc::cublas::result::create_handle()
            .map_err(|e| Error::backend("cublasCreate", 0, format!("{e:?}")))?;
        Ok(Cublas { handle, ctx })
    }

    fn check(what: &str, status: sys::cublasStatus_t) -> Result<()> {
        if status == sys::cublasStatus_t::CUBLAS_STATUS_SUCCESS {
            Ok(())
        } else {
            Err(Error::backend(what, status as i64, format!("{status:?}")))
        }
    }

    /// Waits for every call queued so far.
    pub fn synchronize(&self) -> Result<()> {
        self.ctx
            .synchronize()
            .map_err(|e| Error::backend("cuCtxSynchronize", 0, e.to_string()))
    }

    /// Mean seconds per call over `iters` calls after 2 warm-ups.
    pub fn time(&self, iters: u32, mut f: impl FnMut(&Cublas) -> Result<()>) -> Result<f64> {
        let sync = || self.synchronize();
        for _ in 0..2 {
            f(self)?;
        }
        sync()?;
        let t = Instant::now();
        for _ in 0..iters {
            f(self)?;
        }
        sync()?;
        Ok(t.elapsed().as_secs_f64() / iters as f64)
    }
}

impl Drop for Cublas {
    fn drop(&mut self) {
        // SAFETY: created in `new`, destroyed once.
        let _ = unsafe { cudarc::cublas::result::destroy_handle(self.handle) };
    }
}

/// The Level 1 routines of one real type, by cuBLAS's S/D names. Pointers are device
/// addresses of buffers holding at least `n` elements.
pub trait CublasL1: Copy {
    /// # Safety
    /// `x`, `y` are live device buffers of ≥ n elements of `Self`.
    unsafe fn copy(h: &Cublas, n: c_int, x: u64, y: u64) -> Result<()>;
    /// # Safety
    /// As [`CublasL1::copy`].
    unsafe fn axpy(h: &Cublas, n: c_int, alpha: Self, x: u64, y: u64) -> Result<()>;
    /// # Safety
    /// As [`CublasL1::copy`].
    unsafe fn dot(h: &Cublas, n: c_int, x: u64, y: u64) -> Result<Self>;
    /// # Safety
    /// `x` is a live device buffer of ≥ n elements.
    unsafe fn nrm2(h: &Cublas, n: c_int, x: u64) -> Result<Self>;
    /// # Safety
    /// As [`CublasL1::nrm2`].
    unsafe fn asum(h: &Cublas, n: c_int, x: u64) -> Result<Self>;
    /// # Safety
    /// As [`CublasL1::nrm2`].
    unsafe fn iamax(h: &Cublas, n: c_int, x: u64) -> Result<c_int>;
}

macro_rules! cublas_l1 {
    ($t:ty, $copy:ident, $axpy:ident, $dot:ident, $nrm2:ident, $asum:ident, $iamax:ident) => {
        impl CublasL1 for $t {
            unsafe fn copy(h: &Cublas, n: c_int, x: u64, y: u64) -> Result<()> {
                // SAFETY: the caller's contract.
                Cublas::check(stringify!($copy), unsafe {
                    sys::$copy(h.handle, n, x as *const $t, 1, y as *mut $t, 1)
                })
            }
            unsafe fn axpy(h: &Cublas, n: c_int, alpha: $t, x: u64, y: u64) -> Result<()> {
                // SAFETY: the caller's contract; `alpha` is a host scalar.
                Cublas::check(stringify!($axpy), unsafe {
                    sys::$axpy(h.handle, n, &alpha, x as *const $t, 1, y as *mut $t, 1)
                })
            }
            unsafe fn dot(h: &Cublas, n: c_int, x: u64, y: u64) -> Result<$t> {
                let mut r: $t = 0.0;
                // SAFETY: the caller's contract; `r` is a host result (host pointer mode).
                Cublas::check(stringify!($dot), unsafe {
                    sys::$dot(h.handle, n, x as *const $t, 1, y as *const $t, 1, &mut r)
                })?;
                Ok(r)
            }
            unsafe fn nrm2(h: &Cublas, n: c_int, x: u64) -> Result<$t> {
                let mut r: $t = 0.0;
                // SAFETY: as above.
                Cublas::check(stringify!($nrm2), unsafe {
                    sys::$nrm2(h.handle, n, x as *const $t, 1, &mut r)
                })?;
                Ok(r)
            }
            unsafe fn asum(h: &Cublas, n: c_int, x: u64) -> Result<$t> {
                let mut r: $t = 0.0;
                // SAFETY: as above.
                Cublas::check(stringify!($asum), unsafe {
                    sys::$asum(h.handle, n, x as *const $t, 1, &mut r)
                })?;
                Ok(r)
            }
            unsafe fn iamax(h: &Cublas, n: c_int, x: u64) -> Result<c_int> {
                let mut r: c_int = 0;
                // SAFETY: as above.
                Cublas::check(stringify!($iamax), unsafe {
                    sys::$iamax(h.handle, n, x as *const $t, 1, &mut r)
                })?;
                Ok(r)
            }
        }
    };
}

cublas_l1!(
    f32,
    cublasScopy_v2,
    cublasSaxpy_v2,
    cublasSdot_v2,
    cublasSnrm2_v2,
    cublasSasum_v2,
    cublasIsamax_v2
);
cublas_l1!(
    f64,
    cublasDcopy_v2,
    cublasDaxpy_v2,
    cublasDdot_v2,
    cublasDnrm2_v2,
    cublasDasum_v2,
    cublasIdamax_v2
);

/// Element types of the cuBLAS GEMM peer, as `blas gemm` names them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum GemmType {
    F32,
    /// f32 through tf32 tensor cores (`CUBLAS_TF32_TENSOR_OP_MATH`).
    Tf32,
    F64,
    /// f16 inputs and output, f32 accumulation (`cublasGemmEx`).
    F16,
    /// bf16 inputs and output, f32 accumulation (`cublasGemmEx`).
    Bf16,
    /// Complex32 (`cublasCgemm`).
    C32,
    /// Complex64 (`cublasZgemm`).
    C64,
}

/// One column-major GEMM problem (or a strided batch of them) on device addresses.
#[derive(Debug, Clone, Copy)]
pub struct GemmCall {
    pub dtype: GemmType,
    pub trans_a: bool,
    pub trans_b: bool,
    pub m: usize,
    pub n: usize,
    pub k: usize,
    pub a: u64,
    pub lda: usize,
    pub stride_a: usize,
    pub b: u64,
    pub ldb: usize,
    pub stride_b: usize,
    pub c: u64,
    pub ldc: usize,
    pub stride_c: usize,
    pub batch: usize,
}

/// `v` as cuBLAS's `int`, or an error naming the argument.
pub(crate) fn int(name: &str, v: usize) -> Result<c_int> {
    c_int::try_from(v).map_err(|_| Error::invalid(name, format!("{v} exceeds cuBLAS's int")))
}

impl Cublas {
    /// C = 1·op(A)·op(B) + 0·C through cuBLAS: `cublas{S,D,C,Z}gemm` (strided batched when
    /// `batch > 1`), or `cublasGemmEx` / `cublasGemmStridedBatchedEx` for f16/bf16.
    ///
    /// # Safety
    /// Every address is a live device buffer holding its operand for `batch` problems.
    pub unsafe fn gemm(&self, g: &GemmCall) -> Result<()> {
        use sys::cublasOperation_t::{CUBLAS_OP_N, CUBLAS_OP_T};
        let op = |t: bool| if t { CUBLAS_OP_T } else { CUBLAS_OP_N };
        let (ta, tb) = (op(g.trans_a), op(g.trans_b));
        let (m, n, k) = (int("m", g.m)?, int("n", g.n)?, int("k", g.k)?);
        let (lda, ldb, ldc) = (int("lda", g.lda)?, int("ldb", g.ldb)?, int("ldc", g.ldc)?);
        let batch = int("batch", g.batch)?;
        let (sa, sb, sc) = (g.stride_a as i64, g.stride_b as i64, g.stride_c as i64);
        let math = if g.dtype == GemmType::Tf32 {
            sys::cublasMath_t::CUBLAS_TF32_TENSOR_OP_MATH
        } else {
            sys::cublasMath_t::CUBLAS_DEFAULT_MATH
        };
        // SAFETY: the handle is live; the mode is a valid enumerator.
        Self::check("cublasSetMathMode", unsafe {
            sys::cublasSetMathMode(self.handle, math)
        })?;
        let h = self.handle;
        // SAFETY (every call): the caller's contract; α and β are host scalars of the
        // compute type (host pointer mode).
        let status = match g.dtype {
            GemmType::F32 | GemmType::Tf32 => {
                let (al, be) = (1.0f32, 0.0f32);
                let (a, b, c) = (g.a as *const f32, g.b as *const f32, g.c as *mut f32);
                if g.batch == 1 {
                    unsafe {
                        sys::cublasSgemm_v2(h, ta, tb, m, n, k, &al, a, lda, b, ldb, &be, c, ldc)
                    }
                } else {
                    unsafe {
                        sys::cublasSgemmStridedBatched(
                            h, ta, tb, m, n, k, &al, a, lda, sa, b, ldb, sb, &be, c, ldc, sc, batch,
                        )
                    }
                }
            }
            GemmType::F64 => {
                let (al, be) = (1.0f64, 0.0f64);
                let (a, b, c) = (g.a as *const f64, g.b as *const f64, g.c as *mut f64);
                if g.batch == 1 {
                    unsafe {
                        sys::cublasDgemm_v2(h, ta, tb, m, n, k, &al, a, lda, b, ldb, &be, c, ldc)
                    }
                } else {
                    unsafe {
                        sys::cublasDgemmStridedBatched(
                            h, ta, tb, m, n, k, &al, a, lda, sa, b, ldb, sb, &be, c, ldc, sc, batch,
                        )
                    }
                }
            }
            GemmType::C32 => {
                let al = sys::cuComplex { x: 1.0, y: 0.0 };
                let be = sys::cuComplex { x: 0.0, y: 0.0 };
                let (a, b, c) = (
                    g.a as *const sys::cuComplex,
                    g.b as *const sys::cuComplex,
                    g.c as *mut sys::cuComplex,
                );
                if g.batch == 1 {
                    unsafe {
                        sys::cublasCgemm_v2(h, ta, tb, m, n, k, &al, a, lda, b, ldb, &be, c, ldc)
                    }
                } else {
                    unsafe {
                        sys::cublasCgemmStridedBatched(
                            h, ta, tb, m, n, k, &al, a, lda, sa, b, ldb, sb, &be, c, ldc, sc, batch,
                        )
                    }
                }
            }
            GemmType::C64 => {
                let al = sys::cuDoubleComplex { x: 1.0, y: 0.0 };
                let be = sys::cuDoubleComplex { x: 0.0, y: 0.0 };
                let (a, b, c) = (
                    g.a as *const sys::cuDoubleComplex,
                    g.b as *const sys::cuDoubleComplex,
                    g.c as *mut sys::cuDoubleComplex,
                );
                if g.batch == 1 {
                    unsafe {
                        sys::cublasZgemm_v2(h, ta, tb, m, n, k, &al, a, lda, b, ldb, &be, c, ldc)
                    }
                } else {
                    unsafe {
                        sys::cublasZgemmStridedBatched(
                            h, ta, tb, m, n, k, &al, a, lda, sa, b, ldb, sb, &be, c, ldc, sc, batch,
                        )
                    }
                }
            }
            GemmType::F16 | GemmType::Bf16 => {
                let ty = if g.dtype == GemmType::F16 {
                    sys::cudaDataType::CUDA_R_16F
                } else {
                    sys::cudaDataType::CUDA_R_16BF
                };
                let (al, be) = (1.0f32, 0.0f32);
                let alpha = &al as *const f32 as *const std::ffi::c_void;
                let beta = &be as *const f32 as *const std::ffi::c_void;
                let (a, b, c) = (
                    g.a as *const std::ffi::c_void,
                    g.b as *const std::ffi::c_void,
                    g.c as *mut std::ffi::c_void,
                );
                let compute = sys::cublasComputeType_t::CUBLAS_COMPUTE_32F;
                let algo = sys::cublasGemmAlgo_t::CUBLAS_GEMM_DEFAULT;
                if g.batch == 1 {
                    unsafe {
                        sys::cublasGemmEx(
                            h, ta, tb, m, n, k, alpha, a, ty, lda, b, ty, ldb, beta, c, ty, ldc,
                            compute, algo,
                        )
                    }
                } else {
                    unsafe {
                        sys::cublasGemmStridedBatchedEx(
                            h, ta, tb, m, n, k, alpha, a, ty, lda, sa, b, ty, ldb, sb, beta, c, ty,
                            ldc, sc, batch, compute, algo,
                        )
                    }
                }
            }
        };
        Self::check("cuBLAS GEMM", status)
    }
}

/// One column-major gemv for cuBLAS: y = α·op(A)·x + β·y, unit increments.
#[derive(Debug, Clone, Copy)]
pub struct GemvCall {
    pub f64: bool,
    pub trans: bool,
    pub m: usize,
    pub n: usize,
    pub a: u64,
    pub lda: usize,
    pub x: u64,
    pub y: u64,
    pub alpha: f64,
    pub beta: f64,
}

impl Cublas {
    /// `cublasSgemv_v2` / `cublasDgemv_v2`.
    ///
    /// # Safety
    /// A, x and y are live device buffers holding m×n (at lda) and op's vector lengths.
    pub unsafe fn gemv(&self, g: &GemvCall) -> Result<()> {
        use sys::cublasOperation_t::{CUBLAS_OP_N, CUBLAS_OP_T};
        let op = if g.trans { CUBLAS_OP_T } else { CUBLAS_OP_N };
        let (m, n, lda) = (int("m", g.m)?, int("n", g.n)?, int("lda", g.lda)?);
        let h = self.handle;
        // SAFETY (both): the caller's contract; α and β are host scalars.
        let status = if g.f64 {
            let (al, be) = (g.alpha, g.beta);
            unsafe {
                sys::cublasDgemv_v2(
                    h,
                    op,
                    m,
                    n,
                    &al,
                    g.a as *const f64,
                    lda,
                    g.x as *const f64,
                    1,
                    &be,
                    g.y as *mut f64,
                    1,
                )
            }
        } else {
            let (al, be) = (g.alpha as f32, g.beta as f32);
            unsafe {
                sys::cublasSgemv_v2(
                    h,
                    op,
                    m,
                    n,
                    &al,
                    g.a as *const f32,
                    lda,
                    g.x as *const f32,
                    1,
                    &be,
                    g.y as *mut f32,
                    1,
                )
            }
        };
        Self::check(
            if g.f64 {
                "cublasDgemv_v2"
            } else {
                "cublasSgemv_v2"
            },
            status,
        )
    }
}

/// A Level 3 routine of the cuBLAS peer (`rocm-bench blas trsm|trmm|syrk|symm`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum L3Op {
    Trsm,
    Trmm,
    Syrk,
    Symm,
}

/// One column-major Level 3 call on device addresses (cuBLAS's arguments; trmm runs in
/// place, C = B, as ours does; syrk's n×k is (m, k)).
#[derive(Debug, Clone, Copy)]
pub struct L3Call {
    pub op: L3Op,
    pub f64: bool,
    pub right: bool,
    pub upper: bool,
    pub trans: bool,
    pub unit: bool,
    pub m: usize,
    pub n: usize,
    pub k: usize,
    pub a: u64,
    pub lda: usize,
    pub b: u64,
    pub ldb: usize,
    pub c: u64,
    pub ldc: usize,
    pub alpha: f64,
    pub beta: f64,
}

/// The S or D entry of one routine, called with host scalars of the type.
macro_rules! l3_call {
    ($t:ty, $h:expr, $g:expr, $trsm:ident, $trmm:ident, $syrk:ident, $symm:ident) => {{
        use sys::cublasDiagType_t::{CUBLAS_DIAG_NON_UNIT, CUBLAS_DIAG_UNIT};
        use sys::cublasFillMode_t::{CUBLAS_FILL_MODE_LOWER, CUBLAS_FILL_MODE_UPPER};
        use sys::cublasOperation_t::{CUBLAS_OP_N, CUBLAS_OP_T};
        use sys::cublasSideMode_t::{CUBLAS_SIDE_LEFT, CUBLAS_SIDE_RIGHT};
        let g: &L3Call = $g;
        let side = if g.right {
            CUBLAS_SIDE_RIGHT
        } else {
            CUBLAS_SIDE_LEFT
        };
        let uplo = if g.upper {
            CUBLAS_FILL_MODE_UPPER
        } else {
            CUBLAS_FILL_MODE_LOWER
        };
        let op = if g.trans { CUBLAS_OP_T } else { CUBLAS_OP_N };
        let diag = if g.unit {
            CUBLAS_DIAG_UNIT
        } else {
            CUBLAS_DIAG_NON_UNIT
        };
        let (m, n, k) = (int("m", g.m)?, int("n", g.n)?, int("k", g.k)?);
        let (lda, ldb, ldc) = (int("lda", g.lda)?, int("ldb", g.ldb)?, int("ldc", g.ldc)?);
        let (al, be) = (g.alpha as $t, g.beta as $t);
        let (a, b, c) = (g.a as *const $t, g.b as *mut $t, g.c as *mut $t);
        // SAFETY (every call): the caller's contract; α and β are host scalars.
        match g.op {
            L3Op::Trsm => unsafe {
                sys::$trsm($h, side, uplo, op, diag, m, n, &al, a, lda, b, ldb)
            },
            L3Op::Trmm => unsafe {
                sys::$trmm($h, side, uplo, op, diag, m, n, &al, a, lda, b, ldb, b, ldb)
            },
            L3Op::Syrk => unsafe { sys::$syrk($h, uplo, op, m, k, &al, a, lda, &be, c, ldc) },
            L3Op::Symm => unsafe {
                sys::$symm($h, side, uplo, m, n, &al, a, lda, b, ldb, &be, c, ldc)
            },
        }
    }};
}

impl Cublas {
    /// `cublas{S,D}{trsm,trmm,syrk,symm}` (`_v2`).
    ///
    /// # Safety
    /// Every address is a live device buffer holding its operand at its leading
    /// dimension.
    pub unsafe fn level3(&self, g: &L3Call) -> Result<()> {
        let h = self.handle;
        // SAFETY: the handle is live; the default math mode keeps IEEE products.
        Self::check("cublasSetMathMode", unsafe {
            sys::cublasSetMathMode(h, sys::cublasMath_t::CUBLAS_DEFAULT_MATH)
        })?;
        let status = if g.f64 {
            l3_call!(
                f64,
                h,
                g,
                cublasDtrsm_v2,
                cublasDtrmm_v2,
                cublasDsyrk_v2,
                cublasDsymm_v2
            )
        } else {
            l3_call!(
                f32,
                h,
                g,
                cublasStrsm_v2,
                cublasStrmm_v2,
                cublasSsyrk_v2,
                cublasSsymm_v2
            )
        };
        Self::check("cuBLAS Level 3", status)
    }
}

/// The band and packed routines of `rocm-bench blas band` by cuBLAS's S/D names: lower
/// triangles, non-unit diagonals, unit increments, host scalars.
pub trait CublasBand: Copy {
    /// `cublas?gbmv_v2` on an n×n band matrix with kl = ku = `k`.
    ///
    /// # Safety
    /// A (band storage, lda = 2k + 1, n columns), x and y (n each) are live device
    /// buffers of `Self`.
    #[allow(clippy::too_many_arguments)]
    unsafe fn gbmv(
        h: &Cublas,
        trans: bool,
        n: c_int,
        k: c_int,
        alpha: Self,
        a: u64,
        x: u64,
        beta: Self,
        y: u64,
    ) -> Result<()>;
    /// `cublas?tbsv_v2`, lower band of `k` subdiagonals (lda = k + 1).
    ///
    /// # Safety
    /// A ((k + 1)·n) and x (n) are live device buffers of `Self`.
    unsafe fn tbsv(h: &Cublas, trans: bool, n: c_int, k: c_int, a: u64, x: u64) -> Result<()>;
    /// `cublas?tpsv_v2`, lower packed.
    ///
    /// # Safety
    /// AP (n(n + 1)/2) and x (n) are live device buffers of `Self`.
    unsafe fn tpsv(h: &Cublas, trans: bool, n: c_int, ap: u64, x: u64) -> Result<()>;
}

macro_rules! cublas_band {
    ($t:ty, $gbmv:ident, $tbsv:ident, $tpsv:ident) => {
        impl CublasBand for $t {
            unsafe fn gbmv(
                h: &Cublas,
                trans: bool,
                n: c_int,
                k: c_int,
                alpha: $t,
                a: u64,
                x: u64,
                beta: $t,
                y: u64,
            ) -> Result<()> {
                // SAFETY: the caller's contract; α and β are host scalars.
                let s = unsafe {
                    sys::$gbmv(
                        h.handle,
                        band_op(trans),
                        n,
                        n,
                        k,
                        k,
                        &alpha,
                        a as *const $t,
                        2 * k + 1,
                        x as *const $t,
                        1,
                        &beta,
                        y as *mut $t,
                        1,
                    )
                };
                Cublas::check(stringify!($gbmv), s)
            }
            unsafe fn tbsv(
                h: &Cublas,
                trans: bool,
                n: c_int,
                k: c_int,
                a: u64,
                x: u64,
            ) -> Result<()> {
                // SAFETY: the caller's contract.
                let s = unsafe {
                    sys::$tbsv(
                        h.handle,
                        sys::cublasFillMode_t::CUBLAS_FILL_MODE_LOWER,
                        band_op(trans),
                        sys::cublasDiagType_t::CUBLAS_DIAG_NON_UNIT,
                        n,
                        k,
                        a as *const $t,
                        k + 1,
                        x as *mut $t,
                        1,
                    )
                };
                Cublas::check(stringify!($tbsv), s)
            }
            unsafe fn tpsv(h: &Cublas, trans: bool, n: c_int, ap: u64, x: u64) -> Result<()> {
                // SAFETY: the caller's contract.
                let s = unsafe {
                    sys::$tpsv(
                        h.handle,
                        sys::cublasFillMode_t::CUBLAS_FILL_MODE_LOWER,
                        band_op(trans),
                        sys::cublasDiagType_t::CUBLAS_DIAG_NON_UNIT,
                        n,
                        ap as *const $t,
                        x as *mut $t,
                        1,
                    )
                };
                Cublas::check(stringify!($tpsv), s)
            }
        }
    };
}

fn band_op(trans: bool) -> sys::cublasOperation_t {
    if trans {
        sys::cublasOperation_t::CUBLAS_OP_T
    } else {
        sys::cublasOperation_t::CUBLAS_OP_N
    }
}

cublas_band!(f32, cublasSgbmv_v2, cublasStbsv_v2, cublasStpsv_v2);
cublas_band!(f64, cublasDgbmv_v2, cublasDtbsv_v2, cublasDtpsv_v2);
