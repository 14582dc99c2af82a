//! Per-lane semantics of the scalar and vector ALU instructions: pure functions from
//! fetched source bits to result bits, shared by every lane of every emulated wave.
//!
//! Operand fetch (registers, inline constants, literals, 64-bit pairs) and write-back
//! (exec masking, VCC/SCC, destination registers) are the interpreter's; this module
//! knows only what each operation computes, including VOP3 source modifiers (neg/abs),
//! output modifiers and clamp, and VOP3P `op_sel`/`op_sel_hi`/`neg_lo`/`neg_hi`.
//!
//! STATUS: interface only; being filled in (issue 3).

use crate::isa::amdgpu::{Mods, Op, Operand, Ty};
use crate::Result;

/// What one lane (or the scalar unit) computed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct AluOut {
    /// Destination bits (32-bit results zero-extended; 64-bit results whole).
    pub value: u64,
    /// The op's single-bit output where it has one: SCC for scalar ops that write it,
    /// the lane's compare result for VOPC, the carry/borrow-out of `v_add_co` & co.
    pub flag: Option<bool>,
}

/// A vector ALU op on one lane. `src` holds the raw bits of the sources in assembler
/// order (destinations excluded; 32-bit sources zero-extended); `flag_in` is the lane's
/// bit of the mask source (`v_cndmask_b32` selector, `v_addc_co_u32` carry-in).
pub fn valu(op: Op, _mods: &Mods, _src: [u64; 3], _flag_in: bool) -> Result<AluOut> {
    Err(crate::Error::unsupported(
        format!("{op:?} in the emulator"),
        "emu",
    ))
}

/// A scalar ALU op. `src` as for [`valu`]; `scc` the current SCC.
pub fn salu(op: Op, _src: [u64; 2], _scc: bool) -> Result<AluOut> {
    Err(crate::Error::unsupported(
        format!("{op:?} in the emulator"),
        "emu",
    ))
}

/// The bits an inline constant (`Operand::Int`, `Operand::Float`) stands for when read as
/// a source of type `ty` (e.g. `1.0` is 0x3c00 as f16, 0x3f800000 as f32, the high
/// dword 0x3ff00000 of a 64-bit double); `None` for other operands.
pub fn inline_constant(_operand: &Operand, _ty: Ty) -> Option<u64> {
    None
}
