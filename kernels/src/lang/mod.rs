//! The portable kernel language: a kernel written once, as a Rust function over a
//! [`Builder`], and lowered to PTX ([`ptx`]) and AMDGPU machine code, with a CPU
//! interpreter ([`interp`]) as the third oracle.
//!
//! - [`ir`]: the IR (plain data): typed SSA values, mutable variables, structured
//!   control flow, memory, wave operations; the semantics every lowering keeps.
//! - [`builder`]: the builder API, which types each operation, computes uniformity and
//!   rejects barriers and wave operations under divergent control flow.
//! - [`examples`]: kernels written in it (the test cases and worked examples).
//! - [`interp`]: the CPU interpreter, the reference of both lowerings.
//! - [`ptx`]: the PTX lowering; [`level1`]: Level 1 copy and axpby written in the
//!   language (the first port candidate).

pub mod amdgpu;
pub mod builder;
pub mod examples;
pub mod interp;
pub mod ir;
pub mod level1;
pub mod ptx;

pub use builder::{Buf, Builder, Operand};
pub use ir::*;
