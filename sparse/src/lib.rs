//! rocm-sparse: rocSPARSE-equivalent sparse matrices and operations.
//!
//! - [`format`]: COO, CSR, CSC, BSR, ELL and dense storage, generic over the index type
//!   (i32, i64) and the value type (f32, f64, Complex32, Complex64), validated on
//!   construction, with exact conversions between every pair.
//! - [`ops`]: SpMV, SpMM, SpGEMM, SpGEAM, SDDMM, SpSV/SpSM, ILU(0)/IC(0) in rocSPARSE's
//!   staged style (buffer size → analysis → compute), rayon-parallel on the CPU.
//! - [`gpu`]: device-resident CSR and SpMV with generated kernels (NVIDIA, AMD).
//! - [`mm`]: Matrix Market reading and writing; [`gen`]: test and benchmark matrices.
//! - [`reference`]: dense, obviously correct implementations every operation is tested
//!   against.
//!
//! Indices are 0-based throughout.

pub mod format;
pub mod gen;
pub mod gpu;
pub mod mm;
pub mod ops;
pub mod reference;
pub mod scalar;

pub use format::{BlockLayout, Bsr, Coo, Csc, Csr, Dense, Ell, Format, SparseMatrix};
pub use scalar::{Index, Scalar};
