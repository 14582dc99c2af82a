//! The enumerated BLAS arguments, defined once in rocm-core for every library.

pub use rocm_core::linalg::{Diag, Side, Transpose, Uplo};
