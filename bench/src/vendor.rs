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

    /// Mean seconds per call over `iters` calls after 2 warm-ups.
    pub fn time(&self, iters: u32, mut f: impl FnMut(&Cublas) -> Result<()>) -> Result<f64> {
        let sync = || {
            self.ctx
                .synchronize()
                .map_err(|e| Error::backend("cuCtxSynchronize", 0, e.to_string()))
        };
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
