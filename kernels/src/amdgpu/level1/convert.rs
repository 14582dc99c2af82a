//! Element conversions, round to nearest even, bit for bit as the `half` crate (f16,
//! bf16) and Rust's `as` (f64 ↔ f32):
//!
//! | From → to | Rounding | NaN (detected on the bits: `|x| > ∞`) |
//! |---|---|---|
//! | f32 → f16 | `v_cvt_f16_f32` | sign, `0x7e00`, mantissa >> 13 |
//! | f32 → bf16 | integers: `(x + 0x7fff + bit16(x)) >> 16` | `x >> 16 \| 0x40` |
//! | f16 → f32 | `v_cvt_f32_f16` (exact) | sign, `0x7fc00000`, mantissa << 13 |
//! | bf16 → f32 | `x << 16` (exact) | `\| 0x00400000` |
//! | f64 → f32 | `v_cvt_f32_f64` | sign, `0x7fc00000`, mantissa >> 29 |
//! | f32 → f64 | `v_cvt_f64_f32` (exact) | sign, `0x7ff80000…`, mantissa << 29 |
//!
//! The hardware conversions round to nearest even with denormals kept (the kernel
//! descriptor's float mode) and overflow to ∞, but produce the canonical NaN; the NaN
//! column is applied with `v_cndmask` where the input is a NaN. gfx9 has no f32 → bf16
//! instruction, so that one is integer arithmetic everywhere (its NaN rule keeps the
//! rounding add from carrying into the sign). 2-byte elements sit two to a register,
//! even elements in the low half.

use super::super::asm::Assembler;
use super::super::regs::Vgpr;
use rocm_core::isa::amdgpu::{Op, Operand};
use rocm_core::{DType, Error, Result};

fn lit(x: u32) -> Operand {
    Operand::imm32(i64::from(x))
}

/// `vcc = |bits| > ∞` for the f32 bits in `x` (scratch `t`).
fn is_nan_f32(k: &mut Assembler, x: Vgpr, t: Vgpr) {
    let vcc = k.vcc();
    k.op(Op::VAndB32, [t.op(), lit(0x7fff_ffff), x.op()]);
    k.op(Op::VCmpLtU32, [vcc, lit(0x7f80_0000), t.op()]);
}

fn select(k: &mut Assembler, d: Vgpr, nan: Vgpr) {
    let vcc = k.vcc();
    k.op(Op::VCndmaskB32, [d.op(), d.op(), nan.op(), vcc]);
}

/// Rounds the f32 in `x` to `to` (f16 or bf16) into half `e` of `out`: an even `e`
/// sets `out.at(e/2)` to the result (upper half cleared), an odd one ORs it into the
/// upper half. `tmp`: 4 scratch VGPRs, none of them `x`.
pub(super) fn pack_half(k: &mut Assembler, to: DType, x: Vgpr, out: Vgpr, e: u8, tmp: Vgpr) {
    let (t0, t1, t2, t3) = (tmp.at(0), tmp.at(1), tmp.at(2), tmp.at(3));
    // The result in the low half of t3, its NaN form in t0.
    if to == DType::F16 {
        k.op(Op::VCvtF16F32, [t3.op(), x.op()]);
        k.op(
            Op::VBfeU32,
            [t0.op(), x.op(), Operand::Int(13), Operand::Int(10)],
        );
        k.op(Op::VLshrrevB32, [t1.op(), Operand::Int(16), x.op()]);
        k.op(Op::VAndB32, [t1.op(), lit(0x8000), t1.op()]);
        k.op(Op::VOrB32, [t0.op(), lit(0x7e00), t0.op()]);
        k.op(Op::VOrB32, [t0.op(), t0.op(), t1.op()]);
    } else {
        k.op(
            Op::VBfeU32,
            [t1.op(), x.op(), Operand::Int(16), Operand::Int(1)],
        );
        k.op(Op::VAddU32, [t1.op(), x.op(), t1.op()]);
        k.op(Op::VAddU32, [t1.op(), lit(0x7fff), t1.op()]);
        k.op(Op::VLshrrevB32, [t3.op(), Operand::Int(16), t1.op()]);
        k.op(Op::VLshrrevB32, [t0.op(), Operand::Int(16), x.op()]);
        k.op(Op::VOrB32, [t0.op(), Operand::Int(0x40), t0.op()]);
    }
    is_nan_f32(k, x, t2);
    select(k, t3, t0);
    let d = out.at(e / 2);
    if e % 2 == 0 {
        k.op(Op::VAndB32, [d.op(), lit(0xffff), t3.op()]);
    } else {
        k.op(Op::VLshlOrB32, [d.op(), t3.op(), Operand::Int(16), d.op()]);
    }
}

/// Widens half `e` of `block` (f16 or bf16, even elements in the low halves) into the
/// f32 `d` (exactly; NaN quieted with its payload). `tmp`: 4 scratch VGPRs.
pub(super) fn unpack_half(k: &mut Assembler, from: DType, block: Vgpr, e: u8, d: Vgpr, tmp: Vgpr) {
    let (t0, t1, t2, t3) = (tmp.at(0), tmp.at(1), tmp.at(2), tmp.at(3));
    // h: the element in the low half (the high bits are never read).
    let word = block.at(e / 2);
    let h = if e % 2 == 0 {
        word
    } else {
        k.op(Op::VLshrrevB32, [t3.op(), Operand::Int(16), word.op()]);
        t3
    };
    if from == DType::F16 {
        k.op(Op::VCvtF32F16, [d.op(), h.op()]);
        k.op(
            Op::VBfeU32,
            [t0.op(), h.op(), Operand::Int(0), Operand::Int(10)],
        );
        k.op(Op::VLshlrevB32, [t0.op(), Operand::Int(13), t0.op()]);
        k.op(Op::VOrB32, [t0.op(), lit(0x7fc0_0000), t0.op()]);
        k.op(Op::VAndB32, [t1.op(), lit(0x8000), h.op()]);
        k.op(
            Op::VLshlOrB32,
            [t0.op(), t1.op(), Operand::Int(16), t0.op()],
        );
        // NaN: |h| > 0x7c00.
        let vcc = k.vcc();
        k.op(Op::VAndB32, [t2.op(), lit(0x7fff), h.op()]);
        k.op(Op::VCmpLtU32, [vcc, lit(0x7c00), t2.op()]);
    } else {
        k.op(Op::VLshlrevB32, [d.op(), Operand::Int(16), h.op()]);
        k.op(Op::VOrB32, [t0.op(), lit(0x0040_0000), d.op()]);
        is_nan_f32(k, d, t2);
    }
    select(k, d, t0);
}

/// Converts `elems` elements of `xv` into `ov` (`tmp`: 4 scratch VGPRs).
pub(super) fn emit(
    k: &mut Assembler,
    from: DType,
    to: DType,
    xv: Vgpr,
    ov: Vgpr,
    tmp: Vgpr,
    elems: u8,
) -> Result<()> {
    let (t0, t1, t2) = (tmp.at(0), tmp.at(1), tmp.at(2));
    for e in 0..elems {
        match (from, to) {
            (DType::F32, DType::F16) | (DType::F32, DType::Bf16) => {
                pack_half(k, to, xv.at(e), ov, e, tmp);
            }
            (DType::F16, DType::F32) | (DType::Bf16, DType::F32) => {
                unpack_half(k, from, xv, e, ov.at(e), tmp);
            }
            (DType::F64, DType::F32) => {
                let x = xv.sub(2 * e, 2);
                let d = ov.at(e);
                k.op(Op::VCvtF32F64, [d.op(), x.op()]);
                k.op(
                    Op::VAlignbitB32,
                    [t0.op(), x.at(1).op(), x.at(0).op(), Operand::Int(29)],
                );
                k.op(Op::VAndB32, [t0.op(), lit(0x007f_ffff), t0.op()]);
                k.op(Op::VOrB32, [t0.op(), lit(0x7fc0_0000), t0.op()]);
                k.op(Op::VAndB32, [t1.op(), lit(0x8000_0000), x.at(1).op()]);
                k.op(Op::VOrB32, [t0.op(), t0.op(), t1.op()]);
                is_nan_f32(k, d, t2);
                select(k, d, t0);
            }
            (DType::F32, DType::F64) => {
                let x = xv.at(e);
                let d = ov.sub(2 * e, 2);
                k.op(Op::VCvtF64F32, [d.op(), x.op()]);
                k.op(
                    Op::VBfeU32,
                    [t0.op(), x.op(), Operand::Int(3), Operand::Int(20)],
                );
                k.op(Op::VOrB32, [t0.op(), lit(0x7ff8_0000), t0.op()]);
                k.op(Op::VAndB32, [t1.op(), lit(0x8000_0000), x.op()]);
                k.op(Op::VOrB32, [t0.op(), t0.op(), t1.op()]);
                k.op(Op::VLshlrevB32, [t1.op(), Operand::Int(29), x.op()]);
                is_nan_f32(k, x, t2);
                select(k, d.at(0), t1);
                select(k, d.at(1), t0);
            }
            _ => {
                return Err(Error::unsupported(
                    format!("conversion {from} → {to}"),
                    "AMDGPU Level 1",
                ))
            }
        }
    }
    Ok(())
}
