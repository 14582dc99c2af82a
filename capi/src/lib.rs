//! rocm-capi: rocm-rs as a drop-in C library — the Fortran BLAS ABI (`libblas.so.3`:
//! `dgemm_`, `zdotc_`, ...), CBLAS (`cblas_*`) and the Fortran LAPACK ABI for the
//! routines rocm-solver implements (`dgetrf_`, `zheevd_`, ...).
//!
//! Build it (`cargo build --release -p rocm-capi`) and either preload it
//! (`LD_PRELOAD=target/release/librocm_capi.so program`: our symbols win, reference
//! LAPACK supplies the rest) or put it first on the library path as `libblas.so.3`.
//! `ROCM_DEVICE` picks the device (`cpu`, the default; `cuda:N`, `hip:N`, `emu:gfxNNN`),
//! `ROCM_CAPI_THRESHOLD` the offload threshold (see [`runtime`]).
//!
//! The ABI is gfortran's: every argument by reference, 32-bit integers (LP64), one
//! hidden `size_t` length per CHARACTER argument appended after the others, complex
//! functions returning `float _Complex`/`double _Complex` in registers (a `repr(C)`
//! `Complex32`/`Complex64` is returned the same way on x86-64 and AArch64). Invalid
//! arguments go to XERBLA ([`xerbla`]) exactly as reference BLAS and LAPACK report them.
//!
//! Every exported function is `unsafe extern "C"`: the caller guarantees what the BLAS
//! or LAPACK documentation asks (pointers to arrays of the stated extents, valid for the
//! call). Null pointers where the call would touch memory are reported to XERBLA.

// The exported functions' contract is BLAS's own, stated once above rather than per
// function; BLAS signatures have as many arguments as they have.
#![allow(clippy::missing_safety_doc, clippy::too_many_arguments)]

mod args;
pub mod blas1;
pub mod blas2;
pub mod blas3;
pub mod cblas;
pub mod lapack;
pub mod runtime;
pub mod xerbla;

pub use xerbla::take_last_error;
