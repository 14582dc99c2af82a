//! The portable kernel language: a kernel written once, as a Rust function over a
//! [`Builder`] for one target, lowered to PTX ([`ptx`]) and AMDGPU machine code, with a
//! CPU interpreter ([`interp`]) as the third oracle.
//!
//! - [`ir`]: the IR (plain data): typed SSA values, mutable variables, structured
//!   control flow, memory, atomics, wave operations; the semantics every lowering keeps
//!   and the accuracy of each operation.
//! - [`builder`]: the builder API, which types each operation, computes uniformity and
//!   rejects barriers and wave operations under divergent control flow.
//! - [`examples`]: kernels written in it (the test cases and worked examples).
//! - [`interp`]: the CPU interpreter, the reference of both lowerings.
//! - [`program`]: kernels of one target as a generator's `Program` (PTX or a code
//!   object, chosen by the target's `Caps::kernel_isa`), what every generator written in
//!   the language returns.
//! - [`ptx`]: the PTX lowering; [`level1`]: every BLAS Level 1 kernel and its
//!   reductions' final pass, the kernels `level1::Level1` and `level1::Finish` return.
//!
//! # Shape
//!
//! A [`KernelDef`] holds the kernel's [`Signature`] (the kernel contract's parameter
//! list, from which the PTX `.param` list and the AMDGPU `.args` are generated), its
//! shared arrays and a body of structured statements ([`Stmt`]): `Let`, `Var`/`Assign`,
//! `Store`, `If`, `Loop { body, latch }` with `Break`/`Continue`, `Barrier`, `Fence`.
//! Values are SSA and visible only inside the block that defines them; state that
//! crosses an `if` or a loop iteration lives in variables.
//!
//! # Uniformity
//!
//! Each value and variable is [`Uniformity::Uniform`] (the same on the whole workgroup),
//! [`Uniformity::WaveUniform`] or [`Uniformity::Varying`], computed by
//! [`Builder::finish`] as a fixpoint: an operation has the largest uniformity of its
//! inputs; a variable assigned a varying value or under varying control flow is varying;
//! a loop whose exits depend on the lane is varying control flow. Barriers need uniform
//! control flow, wave operations at most wave-uniform. The AMDGPU lowering keeps
//! (wave-)uniform values in scalar registers and branches on them without EXEC masks.
//!
//! # Oracles
//!
//! The interpreter runs a workgroup in lock step with active masks and reports
//! out-of-bounds accesses, broken alignment facts, missing barriers (a shared-memory
//! read of another work-item's write in the same barrier interval) and partial waves at
//! wave operations. The PTX is checked by ptxas and run in the tests' PTX interpreter
//! against it bit for bit; the AMDGPU code runs on the emulated targets.
//!
//! # Example
//!
//! ```
//! use rocm_kernels::lang::{interp, ptx, Access, Builder, Scalar};
//! # fn main() -> rocm_core::Result<()> {
//! let target = "sm_90".parse()?;
//! let mut k = Builder::new("vector_add", &target)?;
//! let a = k.ptr("a", Scalar::F32, Access::Read);
//! let b = k.ptr("b", Scalar::F32, Access::Read);
//! let c = k.ptr("c", Scalar::F32, Access::Write);
//! let n = k.param("n", Scalar::U32);
//! let i = k.global_id(); // varying
//! let inside = k.lt(i, n); // a divergent `if`
//! k.if_(inside, |k| {
//!     let off = k.at(a, i); // byte offset i·4 (u64)
//!     let (x, y) = (k.load(a, off), k.load(b, off));
//!     let s = k.add(x, y);
//!     k.store(c, off, s);
//! });
//! let def = k.finish()?;
//!
//! let mut args = [
//!     interp::Arg::buffer(&[1f32, 2.0, 3.0]),
//!     interp::Arg::buffer(&[10f32, 20.0, 30.0]),
//!     interp::Arg::buffer(&[0f32; 3]),
//!     interp::Arg::u32(3),
//! ];
//! interp::run(&def, [1, 1, 1], [32, 1, 1], &mut args)?;
//! assert_eq!(args[2].values::<f32>(), [11.0, 22.0, 33.0]);
//!
//! let text = ptx::lower(&def)?;
//! assert!(text.contains("add.rn.f32"));
//! # Ok(())
//! # }
//! ```

pub mod amdgpu;
pub mod builder;
pub mod examples;
pub mod interp;
pub mod ir;
pub mod level1;
pub mod level2;
mod program;
pub mod ptx;

pub use builder::{Buf, Builder, Operand};
pub use ir::*;
pub use program::program;
