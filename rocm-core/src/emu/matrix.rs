//! Execution of MFMA (gfx9, wave64) and WMMA (gfx11, wave32) instructions on register
//! tuples, through the layouts of [`crate::isa::amdgpu::matrix`].
//!
//! Register tuples are passed register-major: element `r * lanes + lane` is register `r`
//! of the tuple at lane `lane`.
//!
//! STATUS: interface only; being filled in (issue 3).

use crate::isa::amdgpu::{IsaTarget, Mods, Op};
use crate::Result;

/// Executes one MFMA or WMMA: `d = a * b + c` with the instruction's layouts, modifiers
/// (CBSZ/ABID/BLGP, NEG/NEG_HI, OP_SEL for 16-bit results) and numerics. `c` is already
/// fetched (an inline constant C arrives broadcast to every element). WMMA checks that
/// the replicated A/B lane halves agree and reports an error naming the first mismatch.
pub fn execute(
    op: Op,
    _mods: &Mods,
    _target: IsaTarget,
    _a: &[u32],
    _b: &[u32],
    _c: &[u32],
    _d: &mut [u32],
) -> Result<()> {
    Err(crate::Error::unsupported(
        format!("{op:?} in the emulator"),
        "emu",
    ))
}
