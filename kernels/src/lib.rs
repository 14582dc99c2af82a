//! rocm-kernels: the programs.
//!
//! Generators turn typed parameters and a target into PTX text or AMDGPU code objects;
//! libraries ask this crate for a program and launch it through `rocm-core`.
//!
//! - [`generator`]: the framework (`(Params, Target) -> Program`, the per-process cache);
//!   [`catalog`]: per-target tuning data files.
//! - The kernel contract: [`signature`] (each kernel's declared arguments, from which the
//!   PTX parameters, the AMDGPU kernarg layout and the host packing derive), [`plan`]
//!   (selection returns the launches as data), [`exec`] (the one executor, the only
//!   launch of generated kernels).
//! - [`ptx`]: the PTX builder; [`ptxas`]: the offline `ptxas` check.
//! - [`amdgpu`]: the AMDGPU assembler, resource report and hand-written samples.
//! - Generators: [`copy`] (the bandwidth copy), [`level1`] (BLAS Level 1, PTX and AMDGPU),
//!   [`gemm`] (GEMM: SIMT, `mma.sync`, MFMA, WMMA), [`level3`] (the triangle kernels of
//!   blocked Level 3: expand, invert, update; PTX and AMDGPU, real and complex),
//!   [`extension`] (geam, dgmm; PTX and AMDGPU, real and complex).
//! - [`lang`]: the portable kernel language (a kernel written once; IR, builder, CPU
//!   interpreter, PTX and AMDGPU lowerings).

pub mod amdgpu;
pub mod catalog;
pub mod complex;
pub mod copy;
pub mod exec;
pub mod extension;
pub mod gemm;
pub mod generator;
pub mod lang;
pub mod level1;
pub mod level2;
pub mod level3;
pub mod plan;
pub mod ptx;
pub mod ptxas;
pub mod signature;
pub mod transpose;
