//! rocm-blas: BLAS on every rocm-rs device.
//!
//! A [`Blas`] handle binds a device and a stream (like `rocblas_handle`); every routine
//! takes device buffer views plus the usual BLAS dimensions, leading dimensions and
//! increments, checks them as reference BLAS does (each violation an error naming the
//! argument), and runs on the handle's device. Matrices are column-major.
//!
//! Built so far, for f32, f64, Complex32 and Complex64 on the CPU device (the `gemm`
//! crate and rayon); on GPUs (CUDA, HIP, the emulated AMD devices) the routines with
//! generated kernels run them and the others return `Error::Unsupported` naming the
//! routine and the device:
//! - GEMM: `gemm`, `gemm_strided_batched`, `gemm_batched`; mixed precision
//!   ([`gemm_ex`]): f16/bf16 inputs with f32 compute and 16-bit or f32 output, i8 inputs
//!   with i32 output (CPU only), single, strided-batched and batched.
//! - Level 1 ([`level1`]): scal, axpy, axpby, copy, swap, dot, dotc, sum, asum, nrm2,
//!   iamax, iamin, rot, rotm, [`rotg`] — on the CPU, CUDA (PTX kernels) and HIP and the
//!   emulated AMD devices (AMDGPU code objects); [`level1_ex`]: fill, convert (f32 ↔
//!   f16/bf16, f64 ↔ f32), and scal/axpy/axpby/dot/nrm2 `_ex` for f16 and bf16.
//! - Level 2 ([`level2`]): gemv, gbmv, ger/geru/gerc, symv/hemv, sbmv/hbmv, spmv/hpmv,
//!   syr/her, syr2/her2, spr/hpr, spr2/hpr2, trmv, tbmv, tpmv, trsv, tbsv, tpsv — on
//!   the CPU; on CUDA (f32, f64, Complex32, Complex64) all of them, through generated
//!   PTX kernels (`gpu::level2`); AMD devices answer `Unsupported` for Level 2.
//! - Level 3 ([`level3`]): trsm, trmm, syrk/herk, syr2k/her2k, symm/hemm, trtri — blocked
//!   onto the CPU GEMM engine; on GPUs (CUDA and AMD devices) all of them for f32, f64,
//!   Complex32 and Complex64 are blocked onto the GPU GEMM with small triangle kernels
//!   (`gpu::level3`; PTX and AMDGPU), answering the GEMM's `Unsupported` where it lacks
//!   the type (AMD targets without a GEMM for it).
//! - Extensions ([`extension`]): geam, dgmm.
//! - Batched (arrays of views) and strided-batched forms of gemv, trsv, trsm, trmm,
//!   syrk, herk, symm, geam, dgmm (and strided hemm), next to `gemm_batched` /
//!   `gemm_strided_batched`.
//!
//! ```
//! use rocm_blas::{Blas, Transpose};
//! use rocm_core::Device;
//! let dev = Device::cpu();
//! let blas = Blas::new(&dev);
//! let a = dev.upload(&[1.0f64, 2.0, 3.0, 4.0])?; // [[1, 3], [2, 4]]
//! let b = dev.upload(&[1.0f64, 1.0])?;
//! let mut c = dev.alloc::<f64>(2)?;
//! blas.gemm(Transpose::N, Transpose::N, 2, 1, 2, 1.0, &a.as_slice(), 2,
//!           &b.as_slice(), 2, 0.0, &mut c.as_slice_mut(), 2)?;
//! assert_eq!(c.to_vec()?, vec![4.0, 6.0]);
//! # Ok::<(), rocm_core::Error>(())
//! ```

mod batched;
pub mod check;
mod cpu;
pub mod extension;
mod gemm;
pub mod gemm_ex;
mod gpu;
mod handle;
pub mod level1;
pub mod level1_ex;
pub mod level2;
pub mod level3;
pub mod math;
pub mod reference;
pub mod scalar;
pub mod types;

pub use gemm_ex::{GemmExInput, GemmExOutput};
pub use handle::{Blas, PointerMode};
pub use level1::rotg;
pub use math::MathMode;
pub use scalar::{FloatElement, Half, Real, RealElement, Scalar};
pub use types::{Diag, Side, Transpose, Uplo};
