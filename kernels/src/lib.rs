//! rocm-kernels: the programs.
//!
//! Generators turn typed parameters and a target into PTX text or AMDGPU code objects;
//! libraries ask this crate for a program and launch it through `rocm-core`.
//!
//! Built so far: [`copy`], the device-to-device copy kernel (hand-written PTX) that
//! `rocm-bench bandwidth` measures with. The generator framework, PTX builder and
//! catalogs arrive with the Level 1 BLAS work.

pub mod amdgpu;
pub mod catalog;
pub mod copy;
pub mod generator;
pub mod level1;
pub mod ptx;
pub mod ptxas;
