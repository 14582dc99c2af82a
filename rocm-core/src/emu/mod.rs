//! The emulated AMD device `emu:<gfx>`: runs AMDGPU code objects on the CPU, wave by
//! wave, against device buffers with bounds checks, and reports what hardware would leave
//! undefined (out-of-bounds accesses, missing `s_waitcnt`, violated hazards) as
//! [`crate::Error::KernelFault`].
//!
//! STATUS: being built (issue 3).

pub mod alu;
pub mod matrix;
