//! AMDGPU kernels written in Rust: an assembler over rocm-core's instruction model, the
//! resource report, the LLVM text printer, and hand-written sample kernels.
//!
//! ```
//! use rocm_core::isa::amdgpu::{IsaTarget, Op, Operand};
//! use rocm_kernels::amdgpu::Assembler;
//! let mut k = Assembler::new(IsaTarget::Gfx90a, "store_ids", 64, 1)?;
//! let out = k.arg_pointer("out")?;
//! let tid = k.workitem_id(0)?;
//! let off = k.vgprs(1)?;
//! k.op(Op::VLshlrevB32, [off.op(), Operand::Int(2), tid.op()]);
//! k.wait_lgkm(0);
//! k.global_store(Op::GlobalStoreDword, off, tid, out, 0);
//! k.s_endpgm();
//! let built = k.finish()?;
//! assert_eq!(built.resources.kernarg_bytes, 8);
//! let elf = built.to_elf()?;
//! assert!(!elf.is_empty());
//! # Ok::<(), rocm_core::Error>(())
//! ```
//!
//! - [`asm`]: [`Assembler`] (registers, arguments, labels, hazard NOPs, the `s_waitcnt`
//!   check, resources) and [`AssembledKernel`].
//! - [`regs`]: typed registers and alignment rules.
//! - [`report`]: [`ResourceReport`], occupancy per target.
//! - [`text`]: the kernel as an `llvm-mc-19` source file.
//! - [`complex`]: complex GEMM's preparation kernel ([`crate::complex`]).
//! - [`extension`]: geam and dgmm from [`crate::extension::ExtensionParams`].
//! - [`level3`]: the Level 3 triangle kernels from [`crate::level3::Level3Params`].
//! - `math`: real and complex VGPR arithmetic shared by the generated kernels.
//! - [`samples`]: vector add, LDS reduction, MFMA/WMMA tiles, fault samples.

pub mod asm;
pub mod complex;
pub mod extension;
pub mod level2;
pub mod level3;
pub(crate) mod math;
pub mod regs;
pub mod report;
pub mod samples;
pub mod text;

pub use asm::{code_object, ArgRegs, AssembledKernel, Assembler, Checks, Label, Placed};
pub use regs::{Agpr, Sgpr, Vgpr};
pub use report::{Limiter, ResourceReport};
pub use text::llvm_source;
