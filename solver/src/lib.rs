//! rocm-solver: LAPACK-style dense factorisations and solvers on every rocm-rs device,
//! blocked over rocm-blas (rocSOLVER's design).
//!
//! A [`Solver`] handle wraps a rocm-blas handle (device and stream) and the block sizes of
//! its target ([`BlockSizes`], a per-family table). Matrices are column-major device
//! buffers with a leading dimension, as in LAPACK. Each routine checks its arguments
//! (invalid ones are errors naming the argument) and reports numerical failure as LAPACK's
//! `info`, as data ([`Info`]): the first zero pivot of LU, the first leading minor that is
//! not positive definite, the zero diagonal element of a triangle, the number of
//! off-diagonal elements an eigen- or singular value iteration left unconverged. Pivots
//! are LAPACK's, 1-based `i32`.
//!
//! Algorithms are blocked and right-looking: an unblocked or recursive panel, then TRSM /
//! HERK / GEMM updates of the trailing matrix through rocm-blas, the path a GPU takes once
//! its BLAS exists. Batched forms spread problems over threads (rayon) on the CPU.
//!
//! Built, for f32, f64, Complex32 and Complex64 on every device: in place on the CPU,
//! hybrid elsewhere (host parts staged through copies, trailing updates by rocm-blas on
//! the device; [`Solver::explain`]):
//! - LU: GETRF, GETRS, GESV, GETRI; Cholesky: POTRF, POTRS, POSV, POTRI; TRTRI;
//! - QR and LQ: GEQRF, ORGQR/UNGQR, ORMQR/UNMQR, GELQF, ORGLQ/UNGLQ, ORMLQ/UNMLQ (both
//!   sides); GELS for m >= n and m < n, op N or C (T for real types), several
//!   right-hand sides;
//! - Hermitian eigenproblems: SYTRD/HETRD, ORGTR/UNGTR, ORMTR/UNMTR, SYEVD/HEEVD
//!   (values, or values and vectors; the tridiagonal back end is implicit QL iteration,
//!   STEQR's algorithm, not divide and conquer);
//! - SVD: GEBRD, GESVD (values only, thin or full U and Vᴴ; the bidiagonal back end is
//!   implicit QR iteration, BDSQR-style Golub–Kahan steps);
//! - strided-batched and batched GETRF, GETRS, POTRF, POTRS, GEQRF and GELS.
//!
//! ```
//! use rocm_core::Device;
//! use rocm_solver::Solver;
//! let dev = Device::cpu();
//! let solver = Solver::new(&dev);
//! // A = [[4, 3], [6, 3]] (column-major), b = [10, 12].
//! let mut a = dev.upload(&[4.0f64, 6.0, 3.0, 3.0])?;
//! let mut ipiv = dev.alloc::<i32>(2)?;
//! let mut b = dev.upload(&[10.0f64, 12.0])?;
//! let info = solver.gesv(2, 1, &mut a.as_slice_mut(), 2, &mut ipiv.as_slice_mut(),
//!                        &mut b.as_slice_mut(), 2)?;
//! assert!(info.is_ok());
//! let x = b.to_vec()?;
//! assert!((x[0] - 1.0).abs() < 1e-12 && (x[1] - 2.0).abs() < 1e-12);
//! # Ok::<(), rocm_core::Error>(())
//! ```

mod batched;
mod bdsqr;
mod bidiag;
mod blas3;
mod check;
mod cholesky;
mod eigen;
mod handle;
mod householder;
mod kernels;
mod lq;
mod lstsq;
mod lu;
mod matrix;
mod qr;
pub mod reference;
mod rotations;
mod staging;
mod steqr;
mod svd;
mod triangular;
mod tridiag;
pub mod tuning;

pub use eigen::Evect;
pub use handle::{Info, Solver};
pub use rocm_core::linalg::{Diag, Side, Transpose, Uplo};
pub use rocm_core::scalar::{Real, Scalar};
pub use svd::Svect;
pub use tuning::BlockSizes;
