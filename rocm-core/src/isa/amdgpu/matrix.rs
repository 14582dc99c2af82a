//! MFMA (gfx9) and WMMA (gfx11) shapes and lane layouts: which register, lane and bits
//! of a wave's operand tuples hold element (i, k) of A, (k, j) of B and (i, j) of C/D.
//!
//! The layouts are AMD's matrix instruction calculator's (../shared/reference/amdgpu.md
//! §4). Kernel generators use them to place data; the emulator uses them to execute.
//!
//! STATUS: interface only; being filled in (issue 3).

use super::{IsaTarget, Op};

/// Element type of a matrix operand.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum MatrixType {
    F32,
    /// f32 inputs read at reduced precision (gfx942 `_xf32`).
    Xf32,
    F64,
    F16,
    Bf16,
    I8,
    /// WMMA `iu8`: 8-bit integers, signedness chosen by the NEG bits.
    Iu8,
    Iu4,
    Fp8,
    I32,
}

/// The shape of one matrix instruction.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MatrixShape {
    pub m: u32,
    pub n: u32,
    pub k: u32,
    /// Independent blocks computed side by side (1 for the shapes we use).
    pub blocks: u32,
    /// Registers per lane of A, B and C/D.
    pub a_regs: u8,
    pub b_regs: u8,
    pub cd_regs: u8,
    /// Lanes in the wave the layout is for (64 MFMA, 32 WMMA as our kernels use it).
    pub lanes: u32,
    pub input: MatrixType,
    pub output: MatrixType,
}

/// Where one element lives: register `reg` of the operand's tuple (0-based), lane `lane`,
/// bits `bit .. bit + width`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Location {
    pub reg: u16,
    pub lane: u16,
    pub bit: u8,
    pub width: u8,
}

/// The shape of a matrix instruction on a target; `None` for other instructions or where
/// the target lacks it.
pub fn shape(_op: Op, _target: IsaTarget) -> Option<MatrixShape> {
    None
}
