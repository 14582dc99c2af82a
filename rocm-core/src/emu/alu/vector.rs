//! VALU semantics (VOP1, VOP2, VOPC, VOP3, VOP3P) on one lane. Conventions in the
//! parent module.

use super::float::{
    bf16_to_f32, clamp01, f16_fma, f16_from_f32, f16_round, f16_to_f32, f16_to_f64, max_ieee, med3,
    min_ieee, omod_factor, Round, NAN_F16, NAN_F32, NAN_F64,
};
use super::AluOut;
use crate::isa::amdgpu::{Form, Mods, Op};
use crate::{Error, Result};

/// How an op's sources take VOP3 `neg`/`abs`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum SrcKind {
    /// Not at all (integer and bit ops).
    Int,
    /// Sign bit 15.
    F16,
    /// Sign bit 31.
    F32,
    /// Sign bit 63.
    F64,
}

/// What a lane computed, before output modifiers.
enum Res {
    F16(u16),
    F32(f32),
    F64(f64),
    /// Integer or bit result of an op without an integer clamp (clamp is an error).
    Bits(u64),
    /// Integer result of an op that saturates under clamp (already applied).
    Saturated(u64),
    /// Integer result with a carry/borrow flag (VOP3b).
    Carry(u64, bool),
    /// A VOPC compare result.
    Cmp(bool),
}

fn unsupported(op: Op, what: &str) -> Error {
    Error::unsupported(format!("{op:?} with {what}"), "emu")
}

/// Source i's raw bits with abs then neg applied to the sign bit of its type.
fn modded(src: [u64; 3], mods: &Mods, i: usize, kind: SrcKind) -> u64 {
    let sign = match kind {
        SrcKind::Int => return src[i],
        SrcKind::F16 => 1u64 << 15,
        SrcKind::F32 => 1u64 << 31,
        SrcKind::F64 => 1u64 << 63,
    };
    let mut x = src[i];
    if mods.abs >> i & 1 != 0 {
        x &= !sign;
    }
    if mods.neg >> i & 1 != 0 {
        x ^= sign;
    }
    x
}

/// The modifier type of an op's sources (all sources of an op share it, except the
/// cases handled where they occur).
fn src_kind(op: Op) -> SrcKind {
    use Op::*;
    match op {
        VAddF16 | VMulF16 | VFmaF16 | VFmacF16 | VCvtF32F16 | VPackB32F16 | VCmpGtF16
        | VFmaakF16 => SrcKind::F16,
        VCvtU32F32 | VCvtI32F32 | VCvtF16F32 | VCvtF64F32 | VRcpF32 | VRsqF32 | VSqrtF32
        | VExpF32 | VLogF32 | VAddF32 | VSubF32 | VSubrevF32 | VMulF32 | VMinF32 | VMaxF32
        | VFmacF32 | VFmaF32 | VCmpEqF32 | VCmpNeqF32 | VCmpLtF32 | VCmpLeF32 | VCmpGtF32
        | VCmpGeF32 | VCvtPkrtzF16F32 | VCvtPkRtzF16F32 | VMax3F32 | VMin3F32 | VMed3F32
        | VFloorF32 | VTruncF32 | VCeilF32 | VRndneF32 | VFractF32 | VFrexpExpI32F32
        | VFrexpMantF32 | VRcpIflagF32 | VLdexpF32 | VCmpNltF32 | VCmpNgtF32 | VCmpUF32
        | VCmpOF32 | VCmpClassF32 | VMadmkF32 | VFmamkF32 | VFmaakF32 | VMulDx9ZeroF32
        | VCmpNgeF32 | VCmpNleF32 | VMacF32 => SrcKind::F32,
        VCvtF32F64 | VCvtI32F64 | VRcpF64 | VFmaF64 | VAddF64 | VMulF64 | VMaxF64 | VCvtU32F64
        | VFmacF64 | VRsqF64 | VCmpClassF64 | VCmpGtF64 | VCmpLtF64 | VDivScaleF64
        | VDivFmasF64 | VDivFixupF64 | VLdexpF64 | VTruncF64 | VCeilF64 | VRndneF64 | VFloorF64
        | VMinF64 => SrcKind::F64,
        _ => SrcKind::Int,
    }
}

pub(super) fn execute(op: Op, mods: &Mods, src: [u64; 3], flag_in: bool) -> Result<AluOut> {
    match op.info().form {
        Form::Vop3p => packed(op, mods, src),
        Form::Vop1 | Form::Vop2 | Form::Vopc | Form::Vop3 => {
            let kind = src_kind(op);
            if kind == SrcKind::Int && (mods.neg | mods.abs) != 0 {
                return Err(unsupported(op, "neg/abs on integer sources"));
            }
            if op == Op::VFmacF32 && (mods.neg | mods.abs) & 4 != 0 {
                return Err(unsupported(op, "neg/abs on the accumulator"));
            }
            if mods.neg_hi != 0 {
                return Err(unsupported(op, "neg_hi outside VOP3P"));
            }
            if mods.op_sel != 0 && op != Op::VPackB32F16 {
                return Err(unsupported(op, "VOP3 op_sel"));
            }
            let src = [
                modded(src, mods, 0, kind),
                modded(src, mods, 1, kind),
                modded(src, mods, 2, kind),
            ];
            let res = lane(op, mods, src, flag_in)?;
            finish(op, mods, res)
        }
        _ => Err(Error::unsupported(
            format!("{op:?} in the vector ALU (not a VALU op)"),
            "emu",
        )),
    }
}

/// The low 24 bits, sign-extended.
fn i24(x: u32) -> i32 {
    ((x << 8) as i32) >> 8
}

fn f32_of(x: u64) -> f32 {
    f32::from_bits(x as u32)
}

fn f64_of(x: u64) -> f64 {
    f64::from_bits(x)
}

/// Truncating float → integer conversion with saturation; NaN → 0.
fn to_int_sat(x: f64, lo: f64, hi: f64) -> f64 {
    if x.is_nan() {
        0.0
    } else {
        x.trunc().clamp(lo, hi)
    }
}

/// Unsigned 32-bit add/sub result under `clamp` (saturate on wrap).
fn sat_u32(mods: &Mods, r: u32, wrapped: bool, is_sub: bool) -> Res {
    let v = match (mods.clamp && wrapped, is_sub) {
        (true, false) => u32::MAX,
        (true, true) => 0,
        _ => r,
    };
    Res::Saturated(u64::from(v))
}

fn lane(op: Op, mods: &Mods, s: [u64; 3], flag_in: bool) -> Result<Res> {
    use Op::*;
    let (a, b, c) = (s[0] as u32, s[1] as u32, s[2] as u32);
    let (fa, fb, fc) = (f32_of(s[0]), f32_of(s[1]), f32_of(s[2]));
    let (da, db, dc) = (f64_of(s[0]), f64_of(s[1]), f64_of(s[2]));
    let bits = |x: u32| Res::Bits(u64::from(x));
    Ok(match op {
        // Moves and bit ops.
        VMovB32 => bits(a),
        VMovB64 => Res::Bits(s[0]),
        VNotB32 => bits(!a),
        VBfrevB32 => bits(a.reverse_bits()),
        VAndB32 => bits(a & b),
        VOrB32 => bits(a | b),
        VXorB32 => bits(a ^ b),
        VAndOrB32 => bits((a & b) | c),
        VOr3B32 => bits(a | b | c),
        VLshlOrB32 => bits((a << (b & 31)) | c),
        VCndmaskB32 => bits(if flag_in { b } else { a }),
        VLshlrevB32 => bits(b << (a & 31)),
        VLshrrevB32 => bits(b >> (a & 31)),
        VAshrrevI32 => bits(((b as i32) >> (a & 31)) as u32),
        VLshlrevB64 => Res::Bits(s[1] << (a & 63)),
        VLshrrevB64 => Res::Bits(s[1] >> (a & 63)),
        VBfeU32 => {
            let width = c & 31;
            bits(if width == 0 {
                0
            } else {
                (a >> (b & 31)) & (u32::MAX >> (32 - width))
            })
        }
        VPermB32 => bits(perm(a, b, c)),
        VAlignbitB32 => bits((((u64::from(a) << 32) | u64::from(b)) >> (c & 31)) as u32),
        // Bit counts: "not found" is -1.
        VFfbhU32 => bits(if a == 0 { u32::MAX } else { a.leading_zeros() }),
        VFfblB32 => bits(if a == 0 { u32::MAX } else { a.trailing_zeros() }),
        VBcntU32B32 => bits(a.count_ones().wrapping_add(b)),

        // Integer arithmetic.
        VAddU32 => {
            let (r, w) = a.overflowing_add(b);
            sat_u32(mods, r, w, false)
        }
        VSubU32 => {
            let (r, w) = a.overflowing_sub(b);
            sat_u32(mods, r, w, true)
        }
        VSubrevU32 => {
            let (r, w) = b.overflowing_sub(a);
            sat_u32(mods, r, w, true)
        }
        VAddCoU32 | VAddCoU32Vop3 => carry(mods, u64::from(a) + u64::from(b), false),
        VAddcCoU32 => carry(
            mods,
            u64::from(a) + u64::from(b) + u64::from(flag_in),
            false,
        ),
        VSubCoU32 | VSubCoU32Vop3 => carry(mods, u64::from(a).wrapping_sub(u64::from(b)), true),
        VSubrevCoU32 | VSubrevCoU32Vop3 => {
            carry(mods, u64::from(b).wrapping_sub(u64::from(a)), true)
        }
        // Borrow in and out: a - b - borrow (subb), b - a - borrow (subbrev).
        VSubbCoU32 => carry(
            mods,
            u64::from(a).wrapping_sub(u64::from(b) + u64::from(flag_in)),
            true,
        ),
        VSubbrevCoU32 => carry(
            mods,
            u64::from(b).wrapping_sub(u64::from(a) + u64::from(flag_in)),
            true,
        ),
        VAdd3U32 => bits(a.wrapping_add(b).wrapping_add(c)),
        VLshlAddU32 => bits((a << (b & 31)).wrapping_add(c)),
        // 64-bit: D = (S0 << S1[2:0]) + S2, modulo 2^64.
        VLshlAddU64 => Res::Bits((s[0] << (b & 7)).wrapping_add(s[2])),
        VAddLshlU32 => bits(a.wrapping_add(b) << (c & 31)),
        VMulLoU32 => bits(a.wrapping_mul(b)),
        VMulHiU32 => bits(((u64::from(a) * u64::from(b)) >> 32) as u32),
        VMulHiI32 => bits(((i64::from(a as i32) * i64::from(b as i32)) >> 32) as u32),
        VMulU32U24 => bits((a & 0xff_ffff).wrapping_mul(b & 0xff_ffff)),
        VMulHiU32U24 => bits(((u64::from(a & 0xff_ffff) * u64::from(b & 0xff_ffff)) >> 32) as u32),
        VMadU32U24 => bits((a & 0xff_ffff).wrapping_mul(b & 0xff_ffff).wrapping_add(c)),
        VMadU64U32 => {
            let p = u128::from(a) * u128::from(b) + u128::from(s[2]);
            let overflow = p >> 64 != 0;
            let v = if mods.clamp && overflow {
                u64::MAX
            } else {
                p as u64
            };
            Res::Carry(v, overflow)
        }
        VMulI32I24 => bits(i24(a).wrapping_mul(i24(b)) as u32),
        VMadI32I24 => bits(i24(a).wrapping_mul(i24(b)).wrapping_add(c as i32) as u32),
        // 16-bit integer ops read and write the low halves; clamp saturates.
        VAddU16 | VAddNcU16 => {
            let r = u32::from(a as u16) + u32::from(b as u16);
            Res::Saturated(u64::from(if mods.clamp {
                r.min(0xffff)
            } else {
                r & 0xffff
            }))
        }
        VSubU16 | VSubNcU16 => {
            let r = i32::from(a as u16) - i32::from(b as u16);
            Res::Saturated(u64::from(if mods.clamp {
                r.max(0) as u32
            } else {
                r as u32 & 0xffff
            }))
        }
        VAddI16 => {
            let (x, y) = (a as i16, b as i16);
            let r = if mods.clamp {
                x.saturating_add(y)
            } else {
                x.wrapping_add(y)
            };
            Res::Saturated(u64::from(r as u16))
        }
        VLshlrevB16 | VLshlrevB16Vop3 => bits(u32::from((b as u16) << (a & 15))),
        VLshrrevB16 | VLshrrevB16Vop3 => bits(u32::from((b as u16) >> (a & 15))),
        VMinI16 | VMinI16Vop3 => bits(u32::from((a as i16).min(b as i16) as u16)),
        VMadLegacyU16 | VMadU16 => {
            let r = u32::from(a as u16) * u32::from(b as u16) + u32::from(c as u16);
            Res::Saturated(u64::from(if mods.clamp {
                r.min(0xffff)
            } else {
                r & 0xffff
            }))
        }
        VMinI32 => bits((a as i32).min(b as i32) as u32),
        VMaxI32 => bits((a as i32).max(b as i32) as u32),
        VMinU32 => bits(a.min(b)),
        VMaxU32 => bits(a.max(b)),

        // Integer compares.
        VCmpEqU32 | VCmpEqI32 => Res::Cmp(a == b),
        VCmpNeU32 | VCmpNeI32 => Res::Cmp(a != b),
        VCmpLtU32 => Res::Cmp(a < b),
        VCmpLeU32 => Res::Cmp(a <= b),
        VCmpGtU32 => Res::Cmp(a > b),
        VCmpGeU32 => Res::Cmp(a >= b),
        VCmpLtI32 => Res::Cmp((a as i32) < (b as i32)),
        VCmpLeI32 => Res::Cmp((a as i32) <= (b as i32)),
        VCmpGtI32 => Res::Cmp((a as i32) > (b as i32)),
        VCmpGeI32 => Res::Cmp((a as i32) >= (b as i32)),
        VCmpEqU64 => Res::Cmp(s[0] == s[1]),
        VCmpGeU64 => Res::Cmp(s[0] >= s[1]),
        VCmpGtI64 => Res::Cmp((s[0] as i64) > (s[1] as i64)),
        VCmpLtI64 => Res::Cmp((s[0] as i64) < (s[1] as i64)),
        VCmpGtF64 => Res::Cmp(da > db),
        VCmpLtF64 => Res::Cmp(da < db),
        VCmpClassF64 => Res::Cmp(b >> class_f64(s[0]) & 1 != 0),
        VCmpGtF16 => Res::Cmp(f16_to_f64(a as u16) > f16_to_f64(b as u16)),
        // True on unordered inputs.
        VCmpNgeF32 => Res::Cmp(fa.partial_cmp(&fb).is_none_or(|o| o.is_lt())),
        VCmpNleF32 => Res::Cmp(fa.partial_cmp(&fb).is_none_or(|o| o.is_gt())),
        VBfeI32 => {
            let width = c & 31;
            bits(if width == 0 {
                0
            } else {
                let v = ((a as i32) >> (b & 31)) as u32;
                (((v << (32 - width)) as i32) >> (32 - width)) as u32
            })
        }
        VBfiB32 => bits((a & b) | (!a & c)),
        VMed3I32 => {
            let (x, y, z) = (a as i32, b as i32, c as i32);
            bits(x.max(y).min(x.min(y).max(z)) as u32)
        }
        VMed3U32 => bits(a.max(b).min(a.min(b).max(c))),
        VAshrrevI64 => Res::Bits(((s[1] as i64) >> (a & 63)) as u64),
        VMadI64I32 => {
            let p = i128::from(a as i32) * i128::from(b as i32) + i128::from(s[2] as i64);
            let overflow = p != i128::from(p as i64);
            let v = match (mods.clamp && overflow, p < 0) {
                (true, true) => i64::MIN,
                (true, false) => i64::MAX,
                _ => p as i64,
            };
            Res::Carry(v as u64, overflow)
        }
        VCmpNeU64 => Res::Cmp(s[0] != s[1]),
        VCmpLtU64 => Res::Cmp(s[0] < s[1]),
        VCmpGtU64 => Res::Cmp(s[0] > s[1]),

        // Float compares: neq is unordered, the others ordered (Rust's operators).
        VCmpEqF32 => Res::Cmp(fa == fb),
        VCmpNeqF32 => Res::Cmp(fa != fb),
        VCmpLtF32 => Res::Cmp(fa < fb),
        VCmpLeF32 => Res::Cmp(fa <= fb),
        VCmpGtF32 => Res::Cmp(fa > fb),
        VCmpGeF32 => Res::Cmp(fa >= fb),
        // The negated compares are true on unordered inputs.
        VCmpNltF32 => Res::Cmp(fa.partial_cmp(&fb) != Some(std::cmp::Ordering::Less)),
        VCmpNgtF32 => Res::Cmp(fa.partial_cmp(&fb) != Some(std::cmp::Ordering::Greater)),
        VCmpUF32 => Res::Cmp(fa.is_nan() || fb.is_nan()),
        VCmpOF32 => Res::Cmp(!fa.is_nan() && !fb.is_nan()),
        VCmpClassF32 => Res::Cmp(b >> class_f32(a) & 1 != 0),

        // f32 arithmetic.
        VAddF32 => Res::F32(fa + fb),
        VSubF32 => Res::F32(fa - fb),
        VSubrevF32 => Res::F32(fb - fa),
        VMulF32 => Res::F32(fa * fb),
        VMinF32 => Res::F32(min_ieee(fa, fb)),
        VMaxF32 => Res::F32(max_ieee(fa, fb)),
        VMin3F32 => Res::F32(min_ieee(min_ieee(fa, fb), fc)),
        VMax3F32 => Res::F32(max_ieee(max_ieee(fa, fb), fc)),
        VMed3F32 => Res::F32(med3(fa, fb, fc)),
        VFmaF32 | VFmacF32 | VFmamkF32 | VFmaakF32 => Res::F32(fa.mul_add(fb, fc)),
        // The multiply rounds before the add (LLVM emits v_mac only where f32 denormals
        // are flushed; denormals are kept here like everywhere else).
        VMacF32 => Res::F32(fa * fb + fc),
        // The DX9 multiply: a zero factor gives +0 whatever the other is (NaN, inf).
        VMulDx9ZeroF32 if fa == 0.0 || fb == 0.0 => Res::F32(0.0),
        VMulDx9ZeroF32 => Res::F32(fa * fb),
        // Two f16 products (exact in f64) and the f32 accumulator summed in f64, then
        // rounded once to f32.
        VDot2accF32F16 => {
            let h = |x: u32, hi: bool| f16_to_f64((x >> if hi { 16 } else { 0 }) as u16);
            let r = h(a, false) * h(b, false) + h(a, true) * h(b, true) + f64::from(fc);
            Res::F32(r as f32)
        }
        // The legacy mad: the product rounds before the add.
        VMadmkF32 => Res::F32(fa * fb + fc),
        VRcpIflagF32 => Res::F32(1.0 / fa),
        VFloorF32 => Res::F32(fa.floor()),
        VTruncF32 => Res::F32(fa.trunc()),
        VCeilF32 => Res::F32(fa.ceil()),
        VRndneF32 => Res::F32(fa.round_ties_even()),
        // x - floor(x), kept below 1.0 (tiny negative x would round up to 1.0); NaN and
        // infinities give NaN.
        VFractF32 => {
            let r = fa - fa.floor();
            Res::F32(if r.is_nan() {
                r
            } else {
                r.min(f32::from_bits(0x3f7f_ffff))
            })
        }
        VFrexpMantF32 => Res::F32(frexp_f32(fa).0),
        VFrexpExpI32F32 => bits(frexp_f32(fa).1 as u32),
        VLdexpF32 => Res::F32(ldexp_f32(fa, b as i32)),
        VRcpF32 => Res::F32(1.0 / fa),
        VSqrtF32 => Res::F32(fa.sqrt()),
        VRsqF32 => Res::F32((1.0 / f64::from(fa).sqrt()) as f32),
        VExpF32 => Res::F32(f64::from(fa).exp2() as f32),
        VLogF32 => Res::F32(f64::from(fa).log2() as f32),

        // f64 arithmetic.
        VAddF64 => Res::F64(da + db),
        VMulF64 => Res::F64(da * db),
        VMaxF64 => Res::F64(max_ieee(da, db)),
        VMinF64 => Res::F64(min_ieee(da, db)),
        VTruncF64 => Res::F64(da.trunc()),
        VCeilF64 => Res::F64(da.ceil()),
        VFloorF64 => Res::F64(da.floor()),
        VRndneF64 => Res::F64(da.round_ties_even()),
        VFmaF64 | VFmacF64 => Res::F64(da.mul_add(db, dc)),
        VRcpF64 => Res::F64(1.0 / da),
        VRsqF64 => Res::F64(1.0 / da.sqrt()),
        VLdexpF64 => Res::F64(ldexp_f64(da, b as i32)),
        VDivScaleF64 => {
            let (d, vcc) = div_scale_f64(da, db, dc);
            Res::Carry(d.to_bits(), vcc)
        }
        VDivFmasF64 => Res::F64(div_fmas_f64(da, db, dc, flag_in)),
        VDivFixupF64 => Res::F64(div_fixup_f64(da, db, dc)),

        // f16 arithmetic (low halves).
        VAddF16 => Res::F16(f16_round(
            f16_to_f64(a as u16) + f16_to_f64(b as u16),
            0.0,
            Round::NearestEven,
        )),
        VMulF16 => Res::F16(f16_round(
            f16_to_f64(a as u16) * f16_to_f64(b as u16),
            0.0,
            Round::NearestEven,
        )),
        VFmaF16 | VFmacF16 | VFmaakF16 => Res::F16(f16_fma(a as u16, b as u16, c as u16)),

        // Conversions.
        VCvtF32I32 => Res::F32(a as i32 as f32),
        VCvtF32U32 => Res::F32(a as f32),
        // Saturating already: clamp changes nothing.
        VCvtU32F32 => {
            Res::Saturated(to_int_sat(f64::from(fa), 0.0, f64::from(u32::MAX)) as u32 as u64)
        }
        VCvtI32F32 => Res::Saturated(u64::from(to_int_sat(
            f64::from(fa),
            f64::from(i32::MIN),
            f64::from(i32::MAX),
        ) as i32 as u32)),
        VCvtI32F64 => {
            Res::Saturated(u64::from(
                to_int_sat(da, f64::from(i32::MIN), f64::from(i32::MAX)) as i32 as u32,
            ))
        }
        VCvtF16F32 => Res::F16(f16_from_f32(fa)),
        VCvtF32F16 => Res::F32(f16_to_f32(a as u16)),
        VCvtF64F32 => Res::F64(f64::from(fa)),
        VCvtF32F64 => Res::F32(da as f32),
        VCvtF64I32 => Res::F64(f64::from(a as i32)),
        VCvtF64U32 => Res::F64(f64::from(a)),
        VCvtF32Ubyte0 => Res::F32(f32::from(a as u8)),
        VCvtU32F64 => Res::Saturated(to_int_sat(da, 0.0, f64::from(u32::MAX)) as u32 as u64),
        VCvtPkrtzF16F32 | VCvtPkRtzF16F32 => {
            let lo = f16_round(f64::from(fa), 0.0, Round::TowardZero);
            let hi = f16_round(f64::from(fb), 0.0, Round::TowardZero);
            Res::Bits(u64::from(lo) | u64::from(hi) << 16)
        }
        VPackB32F16 => {
            let half = |x: u32, i: u8| -> u64 {
                u64::from(
                    if mods.op_sel >> i & 1 != 0 {
                        x >> 16
                    } else {
                        x
                    } & 0xffff,
                )
            };
            if mods.clamp || mods.omod != 0 {
                return Err(unsupported(op, "clamp/omod"));
            }
            Res::Bits(half(a, 0) | half(b, 1) << 16)
        }
        other => {
            return Err(Error::unsupported(
                format!("{other:?} in the vector ALU (one the interpreter executes)"),
                "emu",
            ))
        }
    })
}

/// A VOP3b add/sub: `wide` is the 33-bit (add) or wrapped 64-bit (sub) result.
fn carry(mods: &Mods, wide: u64, is_sub: bool) -> Res {
    let flag = wide >> 32 != 0;
    let v = match (mods.clamp && flag, is_sub) {
        (true, false) => u64::from(u32::MAX),
        (true, true) => 0,
        _ => wide & 0xffff_ffff,
    };
    Res::Carry(v, flag)
}

/// `v_perm_b32`: byte i of the result is selected by byte i of `sel` from
/// `{s0, s1}` (module documentation).
fn perm(s0: u32, s1: u32, sel: u32) -> u32 {
    let data = (u64::from(s0) << 32) | u64::from(s1);
    let byte = |k: u32| (data >> (8 * k)) as u8;
    let sign = |k: u32| if byte(k) & 0x80 != 0 { 0xff } else { 0x00 };
    (0..4).fold(0u32, |acc, i| {
        let s = (sel >> (8 * i)) & 0xff;
        let out: u8 = match s {
            0..=7 => byte(s),
            8 => sign(1),
            9 => sign(3),
            10 => sign(5),
            11 => sign(7),
            12 => 0x00,
            _ => 0xff,
        };
        acc | u32::from(out) << (8 * i)
    })
}

/// Output modifiers and clamp; NaN results canonical.
fn finish(op: Op, mods: &Mods, res: Res) -> Result<AluOut> {
    let factor = omod_factor(mods.omod);
    Ok(match res {
        Res::F32(x) => AluOut::plain(u64::from(out_f32(x, factor, mods.clamp))),
        Res::F64(x) => AluOut::plain(out_f64(x, factor, mods.clamp)),
        Res::F16(h) => AluOut::plain(u64::from(out_f16(h, factor, mods.clamp))),
        Res::Bits(_) | Res::Saturated(_) | Res::Carry(..) if mods.omod != 0 => {
            return Err(unsupported(op, "omod on an integer result"));
        }
        Res::Bits(_) if mods.clamp => return Err(unsupported(op, "clamp on an integer result")),
        Res::Bits(v) | Res::Saturated(v) => AluOut::plain(v),
        Res::Carry(v, f) => AluOut::with_flag(v, f),
        Res::Cmp(_) if mods.omod != 0 || mods.clamp => {
            return Err(unsupported(op, "omod/clamp on a compare"))
        }
        Res::Cmp(c) => AluOut::with_flag(0, c),
    })
}

fn out_f32(x: f32, factor: f64, clamp: bool) -> u32 {
    let x = if factor == 1.0 {
        x
    } else {
        (f64::from(x) * factor) as f32
    };
    let x = if clamp { clamp01(x) } else { x };
    if x.is_nan() {
        NAN_F32
    } else {
        x.to_bits()
    }
}

fn out_f64(x: f64, factor: f64, clamp: bool) -> u64 {
    let x = x * factor;
    let x = if clamp { clamp01(x) } else { x };
    if x.is_nan() {
        NAN_F64
    } else {
        x.to_bits()
    }
}

fn out_f16(h: u16, factor: f64, clamp: bool) -> u16 {
    let mut h = h;
    if factor != 1.0 {
        h = f16_round(f16_to_f64(h) * factor, 0.0, Round::NearestEven);
    }
    if clamp {
        h = f16_round(clamp01(f16_to_f64(h)), 0.0, Round::NearestEven);
    }
    if f16_to_f32(h).is_nan() {
        NAN_F16
    } else {
        h
    }
}

/// VOP3P: packed 16-bit math, packed f32 pairs, and the dot products.
fn packed(op: Op, mods: &Mods, s: [u64; 3]) -> Result<AluOut> {
    use Op::*;
    if mods.abs != 0 || mods.omod != 0 {
        return Err(unsupported(op, "abs/omod in VOP3P"));
    }
    let sel = |bitset: u8, i: usize| bitset >> i & 1 != 0;
    // The 16-bit operand of source i for the low (hi = false) or high result half,
    // with its negation applied when `float`.
    let h16 = |i: usize, hi: bool, float: bool| -> u16 {
        let (take_hi, neg) = if hi {
            (sel(mods.op_sel_hi, i), sel(mods.neg_hi, i))
        } else {
            (sel(mods.op_sel, i), sel(mods.neg, i))
        };
        let x = if take_hi {
            (s[i] >> 16) as u16
        } else {
            s[i] as u16
        };
        if float && neg {
            x ^ 0x8000
        } else {
            x
        }
    };
    let h32 = |i: usize, hi: bool| -> f32 {
        let (take_hi, neg) = if hi {
            (sel(mods.op_sel_hi, i), sel(mods.neg_hi, i))
        } else {
            (sel(mods.op_sel, i), sel(mods.neg, i))
        };
        let x = if take_hi {
            (s[i] >> 32) as u32
        } else {
            s[i] as u32
        };
        f32::from_bits(if neg { x ^ 0x8000_0000 } else { x })
    };
    let int_neg = || (mods.neg | mods.neg_hi) != 0;
    let f16_half = |hi: bool| -> Result<u16> {
        let r = match op {
            VPkAddF16 => f16_round(
                f16_to_f64(h16(0, hi, true)) + f16_to_f64(h16(1, hi, true)),
                0.0,
                Round::NearestEven,
            ),
            VPkMulF16 => f16_round(
                f16_to_f64(h16(0, hi, true)) * f16_to_f64(h16(1, hi, true)),
                0.0,
                Round::NearestEven,
            ),
            VPkFmaF16 => f16_fma(h16(0, hi, true), h16(1, hi, true), h16(2, hi, true)),
            VPkMaxF16 => {
                let m = max_ieee(f16_to_f32(h16(0, hi, true)), f16_to_f32(h16(1, hi, true)));
                f16_from_f32(m)
            }
            _ => return Err(unsupported(op, "packed f16")),
        };
        Ok(out_f16(r, 1.0, mods.clamp))
    };
    let value = match op {
        VPkAddF16 | VPkMulF16 | VPkFmaF16 | VPkMaxF16 => {
            u64::from(f16_half(false)?) | u64::from(f16_half(true)?) << 16
        }
        VPkAddU16 | VPkMulLoU16 => {
            if int_neg() {
                return Err(unsupported(op, "neg on integer sources"));
            }
            let half = |hi: bool| -> Result<u64> {
                let (x, y) = (u32::from(h16(0, hi, false)), u32::from(h16(1, hi, false)));
                Ok(u64::from(match op {
                    VPkAddU16 if mods.clamp => (x + y).min(0xffff),
                    VPkAddU16 => (x + y) & 0xffff,
                    _ if mods.clamp => return Err(unsupported(op, "clamp")),
                    _ => (x * y) & 0xffff,
                }))
            };
            half(false)? | half(true)? << 16
        }
        // Each source is an f32, or (op_sel_hi) the f16 half op_sel picks; neg_hi is
        // its abs. One rounding: the f16 inputs are exact in f32.
        VFmaMixF32 => {
            let x = |i: usize| -> f32 {
                let v = if sel(mods.op_sel_hi, i) {
                    let h = if sel(mods.op_sel, i) {
                        s[i] >> 16
                    } else {
                        s[i]
                    };
                    f16_to_f32(h as u16)
                } else {
                    f32::from_bits(s[i] as u32)
                };
                let v = if sel(mods.neg_hi, i) { v.abs() } else { v };
                if sel(mods.neg, i) {
                    -v
                } else {
                    v
                }
            };
            u64::from(out_f32(x(0).mul_add(x(1), x(2)), 1.0, mods.clamp))
        }
        VPkAshrrevI16 | VPkSubI16 | VPkMadU16 => {
            if int_neg() {
                return Err(unsupported(op, "neg on integer sources"));
            }
            let half = |hi: bool| -> u64 {
                let (x, y) = (h16(0, hi, false), h16(1, hi, false));
                u64::from(match op {
                    VPkAshrrevI16 => ((y as i16) >> (x & 15)) as u16,
                    VPkSubI16 if mods.clamp => (x as i16).saturating_sub(y as i16) as u16,
                    VPkSubI16 => x.wrapping_sub(y),
                    _ => {
                        let r = u32::from(x) * u32::from(y) + u32::from(h16(2, hi, false));
                        if mods.clamp {
                            r.min(0xffff) as u16
                        } else {
                            r as u16
                        }
                    }
                })
            };
            if op == VPkAshrrevI16 && mods.clamp {
                return Err(unsupported(op, "clamp"));
            }
            half(false) | half(true) << 16
        }
        // Each result dword picks a dword of its source: op_sel bit i selects source i's
        // high dword.
        VPkMovB32 if mods.neg | mods.neg_hi != 0 => {
            return Err(unsupported(op, "neg_lo/neg_hi on a move"))
        }
        VPkMovB32 => {
            let pick = |i: usize| {
                if sel(mods.op_sel, i) {
                    s[i] >> 32
                } else {
                    s[i] & 0xffff_ffff
                }
            };
            pick(0) | pick(1) << 32
        }
        VPkAddF32 | VPkMulF32 | VPkFmaF32 => {
            let half = |hi: bool| -> u64 {
                let (x, y) = (h32(0, hi), h32(1, hi));
                let r = match op {
                    VPkAddF32 => x + y,
                    VPkMulF32 => x * y,
                    _ => x.mul_add(y, h32(2, hi)),
                };
                u64::from(out_f32(r, 1.0, mods.clamp))
            };
            half(false) | half(true) << 32
        }
        VDot2F32F16 | VDot2F32Bf16 => {
            if sel(mods.op_sel, 2) || sel(mods.neg_hi, 2) {
                return Err(unsupported(op, "op_sel/neg_hi on the f32 accumulator"));
            }
            let widen = |x: u16| -> f64 {
                if op == VDot2F32F16 {
                    f16_to_f64(x)
                } else {
                    f64::from(bf16_to_f32(x))
                }
            };
            let prod = |hi: bool| widen(h16(0, hi, true)) * widen(h16(1, hi, true));
            let mut acc = f32::from_bits(s[2] as u32);
            if sel(mods.neg, 2) {
                acc = -acc;
            }
            // Products are exact in f64; the two-term sum and the f32 addend are rounded
            // in f64 and once more to f32.
            let r = (prod(false) + prod(true) + f64::from(acc)) as f32;
            u64::from(out_f32(r, 1.0, mods.clamp))
        }
        _ => {
            return Err(Error::unsupported(
                format!("{op:?} in the vector ALU (one the interpreter executes)"),
                "emu",
            ))
        }
    };
    Ok(AluOut::plain(value))
}

/// The `v_cmp_class` bit of an f32: 0 signaling NaN, 1 quiet NaN, 2 -inf, 3 -normal,
/// 4 -denormal, 5 -0, 6 +0, 7 +denormal, 8 +normal, 9 +inf.
fn class_f32(bits: u32) -> u32 {
    let neg = bits >> 31 != 0;
    let exp = (bits >> 23) & 0xff;
    let mant = bits & 0x7f_ffff;
    match (exp, mant) {
        (0xff, 0) => {
            if neg {
                2
            } else {
                9
            }
        }
        (0xff, m) => {
            if m & 0x40_0000 != 0 {
                1
            } else {
                0
            }
        }
        (0, 0) => {
            if neg {
                5
            } else {
                6
            }
        }
        (0, _) => {
            if neg {
                4
            } else {
                7
            }
        }
        _ => {
            if neg {
                3
            } else {
                8
            }
        }
    }
}

/// `x = mant * 2^exp` with `|mant|` in [0.5, 1); NaN and infinities keep `x` with
/// exponent 0; zeros give (x, 0). Denormals are normalised first.
fn frexp_f32(x: f32) -> (f32, i32) {
    if x == 0.0 || !x.is_finite() {
        return (x, 0);
    }
    let (x, bias) = if x.abs() < f32::MIN_POSITIVE {
        (x * 2f32.powi(32), -32)
    } else {
        (x, 0)
    };
    let bits = x.to_bits();
    let exp = ((bits >> 23) & 0xff) as i32 - 126;
    let mant = f32::from_bits((bits & 0x807f_ffff) | 126 << 23);
    (mant, exp + bias)
}

/// `x * 2^k`, rounded once. Scaling by a clamped power of two in f64 is exact (f32
/// values times 2^±300 stay inside f64's normal range), and clamping changes nothing:
/// past ±300 every f32 overflows or underflows either way.
fn ldexp_f32(x: f32, k: i32) -> f32 {
    let k = k.clamp(-300, 300);
    (f64::from(x) * 2f64.powi(k)) as f32
}

/// The `v_cmp_class` bit of an f64 (numbering as [`class_f32`]).
fn class_f64(bits: u64) -> u32 {
    let x = f64::from_bits(bits);
    let neg = x.is_sign_negative();
    let pick = |n: u32, p: u32| if neg { n } else { p };
    if x.is_nan() {
        // Bit 51 set: quiet.
        return if bits >> 51 & 1 != 0 { 1 } else { 0 };
    }
    if x.is_infinite() {
        pick(2, 9)
    } else if x == 0.0 {
        pick(5, 6)
    } else if x.is_subnormal() {
        pick(4, 7)
    } else {
        pick(3, 8)
    }
}

/// `x * 2^k` rounded once (also into and out of the denormal range).
pub(super) fn ldexp_f64(x: f64, k: i32) -> f64 {
    if x == 0.0 || !x.is_finite() {
        return x;
    }
    // Scale in steps that stay exact until the last one, which rounds.
    let mut k = k.clamp(-2200, 2200);
    let mut r = x;
    while k > 1000 {
        r *= f64::from_bits(((1023 + 1000) as u64) << 52);
        k -= 1000;
    }
    while k < -1000 {
        // 2^-1000 keeps results above the denormal range until the final step.
        r *= f64::from_bits(((1023 - 1000) as u64) << 52);
        k += 1000;
        if r != 0.0 && r.abs() < f64::MIN_POSITIVE * 2f64.powi(60) {
            break;
        }
    }
    if (-1022..=1023).contains(&k) {
        r * f64::from_bits(((1023 + k) as u64) << 52)
    } else {
        // Two exact halves of a larger step.
        let h = k / 2;
        r * f64::from_bits(((1023 + h) as u64) << 52)
            * f64::from_bits(((1023 + k - h) as u64) << 52)
    }
}

/// The unbiased exponent of a finite nonzero f64 as if normalized.
fn exponent_f64(x: f64) -> i32 {
    let bits = x.to_bits();
    let e = ((bits >> 52) & 0x7ff) as i32;
    if e == 0 {
        // Denormal: the leading one's position.
        let m = bits & ((1u64 << 52) - 1);
        -1022 - (m.leading_zeros() as i32 - 12) - 1
    } else {
        e - 1023
    }
}

/// `v_div_scale_f64 d, vcc, s0, s1, s2` in the division `s2 / s1` (s0 is one of them):
/// scales the operand by 2^±128 where the quotient, the reciprocal of the denominator
/// or the numerator would leave the normal range, and sets VCC when the quotient the
/// scaled operands give must be rescaled by `v_div_fmas_f64`.
fn div_scale_f64(s0: f64, s1: f64, s2: f64) -> (f64, bool) {
    if s1 == 0.0 || s2 == 0.0 || s1.is_nan() || s2.is_nan() || !s1.is_finite() || !s2.is_finite() {
        // The fix-up step gives the special results; a NaN keeps the iteration quiet.
        return (if s1 == 0.0 || s2 == 0.0 { f64::NAN } else { s0 }, false);
    }
    let (en, ed) = (exponent_f64(s2), exponent_f64(s1));
    let denominator = s0 == s1;
    let numerator = s0 == s2;
    if en - ed >= 768 {
        // Quotient near the top of the range: scale the denominator up.
        (if denominator { ldexp_f64(s0, 128) } else { s0 }, true)
    } else if s1.is_subnormal() {
        (ldexp_f64(s0, 128), false)
    } else if ed >= 1021 && en - ed <= -1021 {
        // Reciprocal and quotient both denormal: scale the denominator down.
        (if denominator { ldexp_f64(s0, -128) } else { s0 }, true)
    } else if ed >= 1021 {
        (ldexp_f64(s0, -128), false)
    } else if en - ed <= -1021 {
        // Denormal quotient: scale the numerator up.
        (if numerator { ldexp_f64(s0, 128) } else { s0 }, true)
    } else if en <= -1022 + 53 {
        (ldexp_f64(s0, 128), false)
    } else {
        (s0, false)
    }
}

/// `v_div_fmas_f64`: `fma(s0, s1, s2)`, rescaled by 2^∓128 when VCC says `div_scale`
/// scaled the quotient (down when it is large, up when it is small).
fn div_fmas_f64(s0: f64, s1: f64, s2: f64, vcc: bool) -> f64 {
    let r = s0.mul_add(s1, s2);
    if !vcc {
        return r;
    }
    if s2 != 0.0 && s2.is_finite() && exponent_f64(s2) >= 0 {
        ldexp_f64(r, 128)
    } else {
        ldexp_f64(r, -128)
    }
}

/// `v_div_fixup_f64 d, q, den, num`: the special cases of `num / den` (NaN, zero and
/// infinite operands, overflow, underflow); otherwise `q` with the quotient's sign.
fn div_fixup_f64(q: f64, den: f64, num: f64) -> f64 {
    let neg = den.is_sign_negative() != num.is_sign_negative();
    let signed = |x: f64| if neg { -x } else { x };
    let invalid = (den == 0.0 && num == 0.0) || (den.is_infinite() && num.is_infinite());
    if num.is_nan() || den.is_nan() || invalid {
        f64::NAN
    } else if den == 0.0 || num.is_infinite() {
        signed(f64::INFINITY)
    } else if den.is_infinite() || num == 0.0 {
        signed(0.0)
    } else if q.is_nan() {
        // The iteration overflowed or underflowed past what the scaling covers.
        signed(num.abs() / den.abs())
    } else {
        signed(q.abs())
    }
}
