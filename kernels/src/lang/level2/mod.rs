//! BLAS Level 2 kernels written once in the language:
//! - [`rank`]: the rank-1 and rank-2 updates (ger/geru/gerc, syr/her, syr2/her2 and the
//!   packed spr/hpr, spr2/hpr2), the kernel `level2::rank::Rank` returns.

pub mod rank;
