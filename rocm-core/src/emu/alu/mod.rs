//! Per-lane semantics of the scalar and vector ALU instructions: pure functions from
//! fetched source bits to result bits, shared by every lane of every emulated wave.
//!
//! Operand fetch (registers, inline constants, literals, 64-bit pairs) and write-back
//! (exec masking, VCC/SCC, destination registers) are the interpreter's; this module
//! knows only what each operation computes, including VOP3 source modifiers (neg/abs),
//! output modifiers and clamp, and VOP3P `op_sel`/`op_sel_hi`/`neg_lo`/`neg_hi`.
//!
//! # Calling convention (what the interpreter passes)
//!
//! - `src` holds the raw bits of the source operands in assembler order, destinations
//!   excluded: [`Instr::uses`](crate::isa::amdgpu::Instr::uses) order minus the mask
//!   sources. 32-bit sources are zero-extended; 64-bit sources are whole (a VGPR/SGPR
//!   pair `lo | hi << 32`). Unused entries are ignored.
//! - Mask sources ([`Slot::MaskSrc`](crate::isa::amdgpu::Slot::MaskSrc): the selector
//!   of `v_cndmask_b32`, the carry-in of `v_addc_co_u32`) are not in `src`: they arrive
//!   as `flag_in`, the lane's bit of the mask.
//! - Read-modify-write ops read their destination as an extra source:
//!   `v_fmac_f32`: `src = [src0, src1, old vdst]`; SOPK `s_addk_i32`, `s_mulk_i32`,
//!   `s_cmovk_i32`: `src = [imm16, old sdst]`; `s_movk_i32`: `src[0] = imm16`. The
//!   16-bit immediate may be passed raw (`0..=0xffff`) or sign-extended (the
//!   [`Operand::Imm`] value as `i32 as u64`): only its low 16 bits are read.
//! - `scc` is read by `s_cselect_b32/b64`, `s_addc_u32`, `s_subb_u32`, `s_cmovk_i32`.
//! - Inline constants: [`source_constant`] gives the bits of an inline constant in a
//!   given source position of a given op (it knows the operand types the table does not
//!   spell out: the f32 `src2` of `v_dot2_f32_f16`, the bf16 sources of
//!   `v_dot2_f32_bf16`, the f16 sources of `v_pack_b32_f16`, 64-bit sources);
//!   [`inline_constant`] is the same per [`Ty`].
//!
//! # Results
//!
//! [`AluOut::value`]: 32-bit results zero-extended, 64-bit results whole. 16-bit
//! results (`v_add_f16`, `v_mul_f16`, `v_fma_f16`, `v_cvt_f16_f32`) come back in the
//! low half with a zero high half, which is what gfx9 writes; gfx11 keeps the old high
//! half of the destination instead ([`writes_low16`] names these ops).
//!
//! [`AluOut::flag`], per family:
//! - SALU: the new SCC, or `None` where the op leaves SCC alone (`s_mov`, `s_cselect`,
//!   `s_brev`, `s_movk`, `s_cmovk`, `s_mulk`, `s_mul_*`, `s_ff1`). Compares: the
//!   result. Logic ops, shifts, `s_bfe`, `s_bcnt1`, `s_not`: result ≠ 0. `s_add_u32`,
//!   `s_addc_u32`: carry-out; `s_sub_u32`, `s_subb_u32`: borrow-out; `s_add_i32`,
//!   `s_sub_i32`, `s_addk_i32`: signed overflow. `s_min`/`s_max`: whether src0 was
//!   chosen (src0 < src1, resp. src0 > src1).
//! - VOPC: the lane's compare result (`value` is 0).
//! - VOP3b (`v_add_co_u32`, `v_sub_co_u32`, `v_subrev_co_u32`, `v_addc_co_u32`, the
//!   gfx11 VOP3 `v_add_co_u32`/`v_sub_co_u32`, `v_mad_u64_u32`): the carry-out (add,
//!   mad) or borrow-out (sub: the unsigned result would be negative).
//! - Every other VALU op: `None`.
//!
//! # Modifiers
//!
//! - VOP3 `abs`/`neg` (bit i: source i) act on the sign bit of float sources only: abs
//!   first, then neg. On ops whose sources are not floats they are an error.
//! - `omod` (1 ×2, 2 ×4, 3 ÷2) then `clamp` apply to float results: clamp is to
//!   [0, 1] with NaN → +0 (DX10 clamp mode). `omod` is applied to the rounded result
//!   (exact except for overflow and ÷2 of the smallest subnormals).
//! - Integer `clamp`: `v_add_u32`, `v_sub_u32`, `v_subrev_u32` and the carry ops
//!   saturate to the unsigned range (the carry/borrow flag still reports the wrap);
//!   `v_pk_add_u16` saturates each half; `v_mad_u64_u32` saturates to `u64::MAX`;
//!   `v_cvt_i32_f32`/`u32_f32`/`i32_f64` saturate anyway (clamp is a no-op). Clamp or
//!   omod on any other integer result is an error.
//! - VOP3P: `op_sel` bit i: the low result half takes source i's high half;
//!   `op_sel_hi` bit i: the high result half takes source i's high half; `neg` negates
//!   the low-half operand, `neg_hi` the high-half one. For `v_pk_*_f32` (gfx90a+) the
//!   halves are the two dwords of the 64-bit sources. `v_dot2_f32_f16`/`_bf16`: the
//!   selects and negations apply to the packed src0/src1 (gfx9 behaviour; gfx11 ignores
//!   op_sel there and LLVM never sets it); src2 is an f32 that `neg` bit 2 negates and
//!   whose `op_sel`/`neg_hi` bits must be clear. `abs` is an error in VOP3P.
//! - VOP3 `op_sel` is honoured by `v_pack_b32_f16` (bit i: take source i's high half)
//!   and is an error elsewhere.
//!
//! # Floating point
//!
//! - f32 and f64 arithmetic is IEEE with round to nearest even and **denormals
//!   preserved** for every type (the kernel descriptor's denorm mode is not modelled).
//!   `v_fma*`/`v_fmac` round once.
//! - f16 through [`float::f16_round`] (correct single rounding; `v_fma_f16` too);
//!   bf16 = the high 16 bits of an f32, converted with round to nearest even.
//! - NaN results are quiet NaNs in canonical form (f32 0x7fc00000, f64
//!   0x7ff8000000000000, f16 0x7e00): hardware propagates quieted input payloads, which
//!   no kernel of ours depends on.
//! - `v_min/max_f32/f64`, `v_pk_max_f16`, `v_min3/max3_f32` in IEEE mode: one NaN
//!   operand gives the other operand (signalling NaNs are not distinguished), -0 < +0.
//!   `v_med3_f32` with a NaN operand gives the min3 of the operands (ISA pseudocode).
//! - `v_rcp_f32`, `v_sqrt_f32`, `v_rcp_f64` are correctly rounded; `v_rsq_f32`,
//!   `v_exp_f32` (2^x), `v_log_f32` (log2) are computed in f64 and rounded to f32
//!   (correctly rounded except in rare double-rounding cases). Hardware is only
//!   accurate to about 1 ulp, so kernels must not depend on the last bit.
//! - Conversions: `v_cvt_i32_f32`, `v_cvt_u32_f32`, `v_cvt_i32_f64` truncate toward
//!   zero, saturate, and give 0 for NaN; `v_cvt_f32_i32/u32`, `v_cvt_f32_f64`,
//!   `v_cvt_f16_f32` round to nearest even; `v_cvt_pkrtz_f16_f32` (gfx9) and
//!   `v_cvt_pk_rtz_f16_f32` (gfx11) round toward zero (finite overflow gives ±65504),
//!   src0 → low half, src1 → high half.
//! - Float compares: `v_cmp_neq_f32` is unordered (true when either operand is NaN);
//!   eq/lt/le/gt/ge are ordered (false with a NaN).
//!
//! # Integer details (from the ISA documents)
//!
//! - `v_perm_b32 d, s0, s1, sel`: byte i of d is chosen by byte i of sel from the eight
//!   bytes of `{s0, s1}` (s1 is bytes 0–3, s0 bytes 4–7): 0–7 that byte; 8, 9, 10, 11
//!   0xff if the sign bit of byte 1, 3, 5, 7 is set, else 0x00; 12 0x00; 13–255 0xff.
//! - `v_alignbit_b32 d, s0, s1, s2`: `({s0, s1} >> s2[4:0])[31:0]`.
//! - `v_bfe_u32 d, s0, s1, s2`: `(s0 >> s1[4:0]) & ((1 << s2[4:0]) - 1)`;
//!   `s_bfe_u32 d, s0, s1`: offset `s1[4:0]`, width `s1[22:16]` (widths ≥ 32 take every
//!   remaining bit).
//! - Shifts use the low 5 (32-bit) or 6 (64-bit) bits of the amount; in the `*rev`
//!   forms the amount is src0. `v_mul_u32_u24`/`v_mad_u32_u24` use the low 24 bits of
//!   src0/src1; `v_mul_hi_u32_u24` gives bits 47:32 of that product.
//! - `s_ff1_i32_b32` (gfx11 `s_ctz_i32_b32`): index of the lowest set bit, 0xffffffff
//!   when the source is 0.
//!
//! Ops that need wave state (exec, other lanes, the program counter, AGPRs) are the
//! interpreter's and listed in [`INTERPRETER_OPS`]; every other SOP1/SOP2/SOPK/SOPC and
//! VOP1/VOP2/VOPC/VOP3/VOP3P op of [`Op::all`] is implemented here (a unit test checks).

pub mod float;
mod scalar;
mod vector;

#[cfg(test)]
mod tests;

use crate::isa::amdgpu::{InlineFloat, Mods, Op, Operand, Ty};
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

impl AluOut {
    fn plain(value: u64) -> AluOut {
        AluOut { value, flag: None }
    }
    fn with_flag(value: u64, flag: bool) -> AluOut {
        AluOut {
            value,
            flag: Some(flag),
        }
    }
}

/// ALU-form ops whose effect needs wave state, so the interpreter executes them itself:
/// exec updates, the program counter, cross-lane reads and writes, lane counting, the
/// AGPR file, and gfx11's separate wait-counter instructions (SOPK encoded).
pub const INTERPRETER_OPS: &[Op] = &[
    Op::SAndSaveexecB32,
    Op::SAndSaveexecB64,
    Op::SAndn2SaveexecB32,
    Op::SAndn2SaveexecB64,
    Op::SOrSaveexecB32,
    Op::SOrSaveexecB64,
    Op::SSetpcB64,
    Op::SSwappcB64,
    Op::SGetpcB64,
    Op::SWaitcntVscnt,
    Op::SWaitcntVmcnt,
    Op::SWaitcntLgkmcnt,
    Op::VReadfirstlaneB32,
    Op::VReadlaneB32,
    Op::VWritelaneB32,
    Op::VMbcntLoU32B32,
    Op::VMbcntHiU32B32,
    Op::VAccvgprReadB32,
    Op::VAccvgprWriteB32,
    Op::VAccvgprMovB32,
];

/// A vector ALU op on one lane. `src` holds the raw bits of the sources in assembler
/// order (destinations excluded; 32-bit sources zero-extended); `flag_in` is the lane's
/// bit of the mask source (`v_cndmask_b32` selector, `v_addc_co_u32` carry-in). See the
/// module documentation for the conventions.
/// A gfx11 `v_cmpx_*` computes its compare here; the interpreter writes EXEC.
pub fn valu(op: Op, mods: &Mods, src: [u64; 3], flag_in: bool) -> Result<AluOut> {
    vector::execute(op.cmpx_compare().unwrap_or(op), mods, src, flag_in)
}

/// A scalar ALU op. `src` as for [`valu`]; `scc` the current SCC.
pub fn salu(op: Op, src: [u64; 2], scc: bool) -> Result<AluOut> {
    scalar::execute(op, src, scc)
}

/// The 16-bit VALU ops: they write the low half of the destination VGPR. `valu` returns
/// the high half as zero (gfx9); on gfx11 the interpreter keeps the old high half.
pub fn writes_low16(op: Op) -> bool {
    matches!(
        op,
        Op::VAddF16
            | Op::VMulF16
            | Op::VFmaF16
            | Op::VFmacF16
            | Op::VCvtF16F32
            | Op::VFmaakF16
            | Op::VAddU16
            | Op::VSubU16
            | Op::VLshlrevB16
            | Op::VLshrrevB16
            | Op::VMinI16
            | Op::VAddNcU16
            | Op::VSubNcU16
            | Op::VLshlrevB16Vop3
            | Op::VLshrrevB16Vop3
            | Op::VMinI16Vop3
            | Op::VAddI16
            | Op::VMadLegacyU16
            | Op::VMadU16
    )
}

/// The bits an inline constant (`Operand::Int`, `Operand::Float`) stands for when read as
/// a source of type `ty`; `None` for other operands.
///
/// - Integers -16..=64: two's complement, sign-extended to 64 bits for `B64`/`F64`
///   (64-bit operands), else to 32 bits and zero-extended (`-1` as `B16`/`F16` is
///   0xffffffff: a packed operand reads -1 in both halves).
/// - Float constants: `F16` the f16 bits (1.0 = 0x3c00, 1/(2π) = 0x3118); `F32` and the
///   integer types `B16`/`B32` the f32 bits (1.0 = 0x3f800000, 1/(2π) = 0x3e22f983);
///   `F64` and `B64` the double (1.0 = 0x3ff0000000000000, 1/(2π) =
///   0x3fc45f306dc9c882), as llvm-mc-19 folds 64-bit literals.
/// - A packed 16-bit operand (VOP3P) gets the constant in the low half and 0 in the
///   high half (LLVM folds `0x00003c00`, not `0x3c003c00`, to `1.0` in `v_pk_add_f16`;
///   LLVM D45987/#76522); with the default `op_sel_hi` the high result half therefore
///   reads 0. The same holds for the dwords of `v_pk_*_f32` (64-bit operands of f32
///   type: the constant is the low dword, the high dword is 0).
pub fn inline_constant(operand: &Operand, ty: Ty) -> Option<u64> {
    match *operand {
        Operand::Int(i) => Some(match ty {
            Ty::B64 | Ty::F64 => i64::from(i) as u64,
            _ => u64::from(i32::from(i) as u32),
        }),
        Operand::Float(f) => Some(match ty {
            Ty::F16 => u64::from(f16_constant(f)),
            Ty::F32 | Ty::B16 | Ty::B32 => u64::from(f32_constant(f)),
            Ty::F64 | Ty::B64 => f64_constant(f),
        }),
        _ => None,
    }
}

/// The bits of inline constant `operand` as source `index` (in `src` order) of `op`:
/// like [`inline_constant`] with the operand's real type, which the op table's single
/// `ty` does not always give: 64-bit sources (`v_lshlrev_b64`'s value, `v_mad_u64_u32`'s
/// addend, 64-bit scalar operands) read 64-bit constants; `v_dot2_f32_f16`'s src2 is an
/// f32; `v_dot2_f32_bf16`'s src0/src1 are bf16 (1.0 = 0x3f80, 1/(2π) = 0x3e22, as
/// llvm-mc-19 folds them) and src2 f32; `v_pack_b32_f16`'s sources are f16. `None` for
/// operands that are not inline constants.
pub fn source_constant(op: Op, index: usize, operand: &Operand) -> Option<u64> {
    let info = op.info();
    if let (Operand::Float(f), Op::VDot2F32Bf16, 0 | 1) = (operand, op, index) {
        return Some(u64::from(f32_constant(*f) >> 16));
    }
    let ty = match (op, index) {
        (Op::VDot2F32F16 | Op::VDot2F32Bf16, 2) => Ty::F32,
        (Op::VPackB32F16, _) => Ty::F16,
        _ => {
            let wide = info
                .slots
                .iter()
                .filter(|s| !s.is_def() && !matches!(s, crate::isa::amdgpu::Slot::MaskSrc))
                .nth(index)
                .is_some_and(|s| {
                    matches!(
                        s,
                        crate::isa::amdgpu::Slot::SSrc(2) | crate::isa::amdgpu::Slot::VSrc(2)
                    )
                });
            match (wide, info.ty) {
                // Packed f32 pairs read a 32-bit constant in the low dword.
                (true, Ty::F32) if info.form == crate::isa::amdgpu::Form::Vop3p => Ty::F32,
                (true, Ty::F64) => Ty::F64,
                (true, _) => Ty::B64,
                // A 32-bit operand of a 64-bit op (a shift amount).
                (false, Ty::B64) => Ty::B32,
                (false, Ty::F64) => Ty::F32,
                (false, ty) => ty,
            }
        }
    };
    inline_constant(operand, ty)
}

pub(crate) fn f16_constant(f: InlineFloat) -> u16 {
    match f {
        InlineFloat::Half => 0x3800,
        InlineFloat::NegHalf => 0xb800,
        InlineFloat::One => 0x3c00,
        InlineFloat::NegOne => 0xbc00,
        InlineFloat::Two => 0x4000,
        InlineFloat::NegTwo => 0xc000,
        InlineFloat::Four => 0x4400,
        InlineFloat::NegFour => 0xc400,
        InlineFloat::InvTwoPi => 0x3118,
    }
}

fn f32_constant(f: InlineFloat) -> u32 {
    match f {
        InlineFloat::InvTwoPi => 0x3e22_f983,
        other => (other.value() as f32).to_bits(),
    }
}

fn f64_constant(f: InlineFloat) -> u64 {
    match f {
        InlineFloat::InvTwoPi => 0x3fc4_5f30_6dc9_c882,
        other => other.value().to_bits(),
    }
}
