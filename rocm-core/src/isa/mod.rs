//! Instruction-set models of the GPUs rocm-rs generates code for.
//!
//! [`amdgpu`]: the AMD GCN/CDNA (gfx9) and RDNA3 (gfx11) instruction model with an encoder,
//! a decoder and a printer in LLVM assembler syntax, checked against `llvm-mc-19`.

pub mod amdgpu;
