//! BLAS Level 2 generators (PTX; AMD targets handed to [`crate::amdgpu::level2`], same
//! kernel contracts):
//! - [`gemv`]: y = α·op(A)·x + β·y.
//! - [`rank`]: rank-1 and rank-2 updates (ger/geru/gerc, syr/her, syr2/her2 and their
//!   packed forms spr/hpr, spr2/hpr2).
//! - [`trimv`]: products with a stored triangle: symv/hemv, spmv/hpmv (the triangle and
//!   its mirror) and trmv/tpmv (the triangle alone), over dense, packed or band storage.
//! - [`trimv`] also serves gbmv (a general band) and, with a window of rows and columns,
//!   the updates of the blocked trsv on packed and band storage.
//! - [`trsv`]: the diagonal-block solve of the blocked trsv (dense, packed or band).

pub(crate) mod element;
pub use element::Storage;
pub mod gemv;
pub mod rank;
pub mod trimv;
pub mod trsv;
