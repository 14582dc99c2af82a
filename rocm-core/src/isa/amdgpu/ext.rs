//! The extended `_e32` encodings of VOP1/VOP2/VOPC: SDWA (gfx9), DPP16 (gfx9, gfx11)
//! and DPP8 (gfx11). The first dword is the `_e32` one with a marker in src0 (0xf9
//! SDWA, 0xfa DPP16, 0xe9/0xea DPP8 without/with `fi`); the second dword holds the real
//! src0 and the extension's fields:
//!
//! | Bits | SDWA (VOP1/VOP2) | SDWA (VOPC) | DPP16 | DPP8 |
//! |---|---|---|---|---|
//! | 7:0 | src0 | src0 | src0 (VGPR) | src0 (VGPR) |
//! | 15:8 | dst_sel 10:8, dst_unused 12:11, clamp 13, omod 15:14 | sdst 14:8, `sd` 15 (else vcc) | dpp_ctrl 16:8, fi 18, bound_ctrl 19 | lane selects 31:8, 3 bits each |
//! | 23:16 | src0_sel 18:16, sext 19, neg 20, abs 21, src0 is scalar 23 | same | neg0 20, abs0 21, neg1 22, abs1 23 | |
//! | 31:24 | src1_sel 26:24, sext 27, neg 28, abs 29, src1 is scalar 31 (VOP1: 0) | same | bank_mask 27:24, row_mask 31:28 | |
//!
//! With SDWA the VGPR-only `vsrc1` field (bits 16:9 of the first dword) holds a scalar
//! code when bit 31 says so. The lane rules of DPP are [`dpp_source_lane`].

use super::instr::{Dpp, Dpp8, DstUnused, Instr, Mods, Sdwa, SdwaSel, VExt};
use super::ops::{Form, Op, Slot};
use super::target::{IsaFamily, IsaTarget};
use crate::error::{Error, Result};
use std::fmt;

/// The src0 marker of an extended encoding.
pub(crate) const SDWA_MARK: u32 = 0xf9;
pub(crate) const DPP_MARK: u32 = 0xfa;
pub(crate) const DPP8_MARK: u32 = 0xe9;
pub(crate) const DPP8_FI_MARK: u32 = 0xea;

/// Ops whose extended forms LLVM does not have although their operands would fit.
fn no_ext(op: Op) -> bool {
    matches!(
        op,
        Op::VReadfirstlaneB32 | Op::VAccvgprMovB32 | Op::VDot2accF32F16 | Op::VFmacF16
    )
}

/// Whether every operand of `op` is one dword (or a lane mask) and it has no constant K:
/// what SDWA and DPP can express.
fn dword_operands(op: Op) -> bool {
    let info = op.info();
    matches!(info.form, Form::Vop1 | Form::Vop2 | Form::Vopc)
        && !no_ext(op)
        && info.slots.iter().all(|s| match *s {
            Slot::VDst(w) | Slot::VSrc(w) | Slot::VReg(w) => w == 1,
            Slot::MaskDst | Slot::MaskSrc | Slot::CarryDst => true,
            _ => false,
        })
}

/// Whether an SDWA op takes an output modifier: float results only.
pub fn sdwa_takes_omod(op: Op) -> bool {
    op.info().ty.is_float()
        && super::encode::takes_omod(op)
        && !matches!(op, Op::VCvtU32F32 | Op::VCvtI32F32)
}

/// Whether `op` has an SDWA form on `t` (gfx9 only).
pub fn has_sdwa(op: Op, t: IsaTarget) -> bool {
    t.family() == IsaFamily::Gfx9 && dword_operands(op) && !matches!(op, Op::VFmacF32 | Op::VMacF32)
}

/// Whether `op` has a DPP16 form on `t` (gfx9 has no VOPC DPP).
pub fn has_dpp(op: Op, t: IsaTarget) -> bool {
    dword_operands(op) && (t.family() == IsaFamily::Gfx11 || op.info().form != Form::Vopc)
}

/// Whether `op` has a DPP8 form on `t` (gfx11).
pub fn has_dpp8(op: Op, t: IsaTarget) -> bool {
    t.family() == IsaFamily::Gfx11 && dword_operands(op)
}

/// Whether `ctrl` is a `dpp_ctrl` value with a meaning on `family`.
pub fn dpp_ctrl_valid(ctrl: u16, family: IsaFamily) -> bool {
    let g9 = family == IsaFamily::Gfx9;
    match ctrl {
        0x000..=0x0ff | 0x101..=0x10f | 0x111..=0x11f | 0x121..=0x12f | 0x140 | 0x141 => true,
        0x130 | 0x134 | 0x138 | 0x13c | 0x142 | 0x143 => g9,
        // row_share, row_xmask.
        0x150..=0x16f => !g9,
        _ => false,
    }
}

/// The lane whose src0 lane `lane` of a wave of `lanes` reads under `ctrl`; `None` when
/// the source is out of range (shifted past a row or the wave, or a `row_bcast` row that
/// has no source row). Rows are 16 lanes, banks 4 lanes of a row.
pub fn dpp_source_lane(ctrl: u16, lane: u32, lanes: u32) -> Option<u32> {
    let row = lane & !15;
    let r = lane & 15;
    let n = u32::from(ctrl & 15);
    Some(match ctrl {
        0x000..=0x0ff => (lane & !3) | ((u32::from(ctrl) >> (2 * (lane & 3))) & 3),
        0x101..=0x10f => {
            if r + n > 15 {
                return None;
            }
            lane + n
        }
        0x111..=0x11f => lane.checked_sub(n).filter(|_| r >= n)?,
        0x121..=0x12f => row | ((r + 16 - n) & 15),
        0x130 => (lane + 1 < lanes).then_some(lane + 1)?,
        0x134 => (lane + 1) % lanes,
        0x138 => lane.checked_sub(1)?,
        0x13c => (lane + lanes - 1) % lanes,
        0x140 => row | (15 - r),
        0x141 => (lane & !7) | (7 - (lane & 7)),
        // Lane 15 of each row feeds the next row; lane 31 feeds rows 2 and 3.
        0x142 => (lane >= 16).then(|| row - 1)?,
        0x143 => (lane >= 32).then_some(31)?,
        0x150..=0x15f => row | n,
        0x160..=0x16f => row | (r ^ n),
        _ => return None,
    })
}

/// The lane a DPP8 lane reads.
pub fn dpp8_source_lane(sel: &[u8; 8], lane: u32) -> u32 {
    (lane & !7) | u32::from(sel[(lane & 7) as usize] & 7)
}

/// Whether DPP's row and bank masks let `lane` write.
pub fn dpp_lane_enabled(d: &Dpp, lane: u32) -> bool {
    (d.row_mask >> (lane >> 4)) & 1 != 0 && (d.bank_mask >> ((lane >> 2) & 3)) & 1 != 0
}

fn bad(i: &Instr, why: impl fmt::Display) -> Error {
    Error::invalid(format!("{:?} extended encoding", i.op), why)
}

/// A source of an extended encoding: a VGPR number (code ≥ 256 as in `src9`) or a scalar
/// code.
fn split_src(code: u16) -> (u32, bool) {
    if code >= 256 {
        (u32::from(code - 256), false)
    } else {
        (u32::from(code), true)
    }
}

/// The two dwords of `i` in its extended encoding. `word0` is the `_e32` dword with src0
/// and vsrc1 still empty; `srcs` the 9-bit source codes; `sdst` the scalar code of a
/// VOPC SDWA destination other than vcc.
pub(crate) fn encode(
    i: &Instr,
    t: IsaTarget,
    word0: u32,
    srcs: &[u16],
    sdst: Option<u16>,
) -> Result<Vec<u32>> {
    let form = i.op.info().form;
    let m = &i.mods;
    let Some(ext) = m.ext else {
        return Err(bad(i, "no extension"));
    };
    let vgpr_only = |k: usize| -> Result<u32> {
        match srcs.get(k).map(|&c| split_src(c)) {
            Some((r, false)) => Ok(r),
            Some((_, true)) => Err(bad(i, "DPP sources must be VGPRs")),
            None => Ok(0),
        }
    };
    match ext {
        VExt::Sdwa(s) => {
            if !has_sdwa(i.op, t) {
                return Err(bad(i, format!("no SDWA form on {t}")));
            }
            let (s0, s0_scalar) = split_src(srcs.first().copied().unwrap_or(256));
            let (s1, s1_scalar) = split_src(srcs.get(1).copied().unwrap_or(256));
            for (code, scalar) in [(s0, s0_scalar), (s1, s1_scalar)] {
                // SGPRs and inline constants only: no literal, no other marker.
                if scalar && (code == 255 || (0xe9..=0xfa).contains(&code)) {
                    return Err(bad(i, "SDWA takes no literal"));
                }
            }
            let one_src = form == Form::Vop1;
            if one_src
                && (s.src_sel[1] != SdwaSel::Dword || s.sext & 2 != 0 || (m.neg | m.abs) & 2 != 0)
            {
                return Err(bad(i, "VOP1 has no src1 fields"));
            }
            if s.sext & !3 != 0 || (m.neg | m.abs) & !3 != 0 {
                return Err(bad(i, "SDWA modifies src0 and src1 only"));
            }
            if !i.op.info().ty.is_float() && (m.neg | m.abs) != 0 {
                return Err(bad(i, "neg/abs apply to float instructions"));
            }
            if (i.op.info().ty.is_float() || i.op == Op::VCndmaskB32) && s.sext != 0 {
                return Err(bad(i, "sext applies to integer instructions"));
            }
            if (m.neg | m.abs) & !super::encode::float_modifier_sources(i.op) != 0 {
                return Err(bad(i, "neg/abs on an integer source"));
            }
            let mid = if form == Form::Vopc {
                if s.dst_sel != SdwaSel::Dword || s.dst_unused != DstUnused::Pad {
                    return Err(bad(i, "a VOPC result has no dst_sel"));
                }
                if m.clamp || m.omod != 0 {
                    return Err(bad(i, "no clamp or omod on a gfx9 SDWA compare"));
                }
                match sdst {
                    Some(c) => u32::from(c & 0x7f) | 0x80,
                    None => 0,
                }
            } else {
                if !sdwa_takes_omod(i.op) && m.omod != 0 {
                    return Err(bad(i, "omod applies to float results"));
                }
                s.dst_sel.code()
                    | (s.dst_unused as u32) << 3
                    | u32::from(m.clamp) << 5
                    | u32::from(m.omod & 3) << 6
            };
            let src_bits = |k: u32, scalar: bool| {
                s.src_sel[k as usize].code()
                    | u32::from((s.sext >> k) & 1) << 3
                    | u32::from((m.neg >> k) & 1) << 4
                    | u32::from((m.abs >> k) & 1) << 5
                    | u32::from(scalar) << 7
            };
            let hi = if one_src { 0 } else { src_bits(1, s1_scalar) };
            let vsrc1 = if one_src { 0 } else { s1 & 0xff };
            Ok(vec![
                word0 | SDWA_MARK | vsrc1 << 9,
                s0 & 0xff | mid << 8 | src_bits(0, s0_scalar) << 16 | hi << 24,
            ])
        }
        VExt::Dpp(d) => {
            if !has_dpp(i.op, t) {
                return Err(bad(i, format!("no DPP form on {t}")));
            }
            if !dpp_ctrl_valid(d.ctrl, t.family()) {
                return Err(bad(
                    i,
                    format!("dpp_ctrl {:#x} has no meaning on {t}", d.ctrl),
                ));
            }
            if d.fi && t.family() == IsaFamily::Gfx9 {
                return Err(bad(i, "fi is gfx10+"));
            }
            if d.row_mask > 15 || d.bank_mask > 15 {
                return Err(bad(i, "row_mask and bank_mask are 4 bits"));
            }
            check_dpp_mods(i, m)?;
            let (s0, s1) = (vgpr_only(0)?, vgpr_only(1)?);
            Ok(vec![
                word0 | DPP_MARK | (s1 & 0xff) << 9,
                s0 & 0xff
                    | u32::from(d.ctrl) << 8
                    | u32::from(d.fi) << 18
                    | u32::from(d.bound_ctrl) << 19
                    | u32::from(m.neg & 1) << 20
                    | u32::from(m.abs & 1) << 21
                    | u32::from((m.neg >> 1) & 1) << 22
                    | u32::from((m.abs >> 1) & 1) << 23
                    | u32::from(d.bank_mask) << 24
                    | u32::from(d.row_mask) << 28,
            ])
        }
        VExt::Dpp8(d) => {
            if !has_dpp8(i.op, t) {
                return Err(bad(i, format!("no DPP8 form on {t}")));
            }
            if m.neg | m.abs != 0 {
                return Err(bad(i, "DPP8 has no source modifiers"));
            }
            check_dpp_mods(
                i,
                &Mods {
                    neg: 0,
                    abs: 0,
                    ..*m
                },
            )?;
            let (s0, s1) = (vgpr_only(0)?, vgpr_only(1)?);
            let mut sel = 0u32;
            for (k, &l) in d.sel.iter().enumerate() {
                if l > 7 {
                    return Err(bad(i, "dpp8 lane selects are 0..=7"));
                }
                sel |= u32::from(l) << (3 * k);
            }
            let mark = if d.fi { DPP8_FI_MARK } else { DPP8_MARK };
            Ok(vec![word0 | mark | (s1 & 0xff) << 9, s0 & 0xff | sel << 8])
        }
    }
}

fn check_dpp_mods(i: &Instr, m: &Mods) -> Result<()> {
    if m.clamp || m.omod != 0 {
        return Err(bad(i, "the DPP _e32 forms have no clamp or omod"));
    }
    if (m.neg | m.abs) & !3 != 0 {
        return Err(bad(i, "DPP modifies src0 and src1 only"));
    }
    if (m.neg | m.abs) & !super::encode::float_modifier_sources(i.op) != 0 {
        return Err(bad(i, "neg/abs on an integer source"));
    }
    if !i.op.info().ty.is_float() && (m.neg | m.abs) != 0 {
        return Err(bad(i, "neg/abs apply to float instructions"));
    }
    Ok(())
}

/// What the decoder learns from an extended first dword: the extension, the modifiers
/// it carries, the source codes (9-bit, VGPR = 256 + n) and a VOPC SDWA destination's
/// scalar code.
pub(crate) struct Decoded {
    pub mods: Mods,
    pub srcs: [u32; 2],
    pub sdst: Option<u32>,
}

/// Reads the extension of a VOP1/VOP2/VOPC whose src0 field is `mark`.
pub(crate) fn decode(mark: u32, w0: u32, w1: u32, form: Form, t: IsaTarget) -> Option<Decoded> {
    let code = |v: u32, scalar: bool| if scalar { v } else { 256 + v };
    let vsrc1 = (w0 >> 9) & 0xff;
    let b = |k: u32| (w1 >> k) & 1 != 0;
    let mut mods = Mods::default();
    match mark {
        SDWA_MARK if t.family() == IsaFamily::Gfx9 => {
            let mut sext = 0u8;
            let mut sel = [SdwaSel::Dword; 2];
            let n = if form == Form::Vop1 { 1 } else { 2 };
            for (k, part) in sel.iter_mut().enumerate().take(n) {
                let f = w1 >> (16 + 8 * k);
                *part = SdwaSel::from_code(f & 7)?;
                sext |= (((f >> 3) & 1) as u8) << k;
                mods.neg |= (((f >> 4) & 1) as u8) << k;
                mods.abs |= (((f >> 5) & 1) as u8) << k;
            }
            let mut sdst = None;
            let (dst_sel, dst_unused) = if form == Form::Vopc {
                if b(15) {
                    sdst = Some((w1 >> 8) & 0x7f);
                }
                (SdwaSel::Dword, DstUnused::Pad)
            } else {
                mods.clamp = b(13);
                mods.omod = ((w1 >> 14) & 3) as u8;
                (
                    SdwaSel::from_code((w1 >> 8) & 7)?,
                    *DstUnused::ALL.get(((w1 >> 11) & 3) as usize)?,
                )
            };
            mods.ext = Some(VExt::Sdwa(Sdwa {
                dst_sel,
                dst_unused,
                src_sel: sel,
                sext,
            }));
            Some(Decoded {
                mods,
                srcs: [code(w1 & 0xff, b(23)), code(vsrc1, b(31))],
                sdst,
            })
        }
        DPP_MARK => {
            mods.neg = u8::from(b(20)) | u8::from(b(22)) << 1;
            mods.abs = u8::from(b(21)) | u8::from(b(23)) << 1;
            mods.ext = Some(VExt::Dpp(Dpp {
                ctrl: ((w1 >> 8) & 0x1ff) as u16,
                row_mask: (w1 >> 28) as u8,
                bank_mask: ((w1 >> 24) & 15) as u8,
                bound_ctrl: b(19),
                fi: t.family() == IsaFamily::Gfx11 && b(18),
            }));
            Some(Decoded {
                mods,
                srcs: [256 + (w1 & 0xff), 256 + vsrc1],
                sdst: None,
            })
        }
        DPP8_MARK | DPP8_FI_MARK if t.family() == IsaFamily::Gfx11 => {
            let sel = std::array::from_fn(|k| ((w1 >> (8 + 3 * k)) & 7) as u8);
            mods.ext = Some(VExt::Dpp8(Dpp8 {
                sel,
                fi: mark == DPP8_FI_MARK,
            }));
            Some(Decoded {
                mods,
                srcs: [256 + (w1 & 0xff), 256 + vsrc1],
                sdst: None,
            })
        }
        _ => None,
    }
}

/// The mnemonic suffix of an extended encoding (`_sdwa`, `_dpp`); gfx11 compares print
/// none (LLVM's spelling).
pub(crate) fn suffix(ext: &VExt, op: Op) -> &'static str {
    match ext {
        VExt::Sdwa(_) => "_sdwa",
        _ if op.info().form == Form::Vopc => "",
        _ => "_dpp",
    }
}

/// The fields after the operands, as LLVM prints them.
pub(crate) fn fmt_fields(f: &mut fmt::Formatter<'_>, i: &Instr, ext: &VExt) -> fmt::Result {
    let m = &i.mods;
    let form = i.op.info().form;
    match ext {
        VExt::Sdwa(s) => {
            if m.clamp {
                f.write_str(" clamp")?;
            }
            match m.omod {
                1 => f.write_str(" mul:2")?,
                2 => f.write_str(" mul:4")?,
                3 => f.write_str(" div:2")?,
                _ => {}
            }
            if form != Form::Vopc {
                write!(
                    f,
                    " dst_sel:{} dst_unused:{}",
                    s.dst_sel.name(),
                    s.dst_unused.name()
                )?;
            }
            write!(f, " src0_sel:{}", s.src_sel[0].name())?;
            if form != Form::Vop1 {
                write!(f, " src1_sel:{}", s.src_sel[1].name())?;
            }
            Ok(())
        }
        VExt::Dpp(d) => {
            let c = d.ctrl;
            let n = c & 15;
            match c {
                0x000..=0x0ff => write!(
                    f,
                    " quad_perm:[{},{},{},{}]",
                    c & 3,
                    (c >> 2) & 3,
                    (c >> 4) & 3,
                    (c >> 6) & 3
                )?,
                0x101..=0x10f => write!(f, " row_shl:{n}")?,
                0x111..=0x11f => write!(f, " row_shr:{n}")?,
                0x121..=0x12f => write!(f, " row_ror:{n}")?,
                0x130 => f.write_str(" wave_shl:1")?,
                0x134 => f.write_str(" wave_rol:1")?,
                0x138 => f.write_str(" wave_shr:1")?,
                0x13c => f.write_str(" wave_ror:1")?,
                0x140 => f.write_str(" row_mirror")?,
                0x141 => f.write_str(" row_half_mirror")?,
                0x142 => f.write_str(" row_bcast:15")?,
                0x143 => f.write_str(" row_bcast:31")?,
                0x150..=0x15f => write!(f, " row_share:{n}")?,
                0x160..=0x16f => write!(f, " row_xmask:{n}")?,
                _ => write!(f, " dpp_ctrl:{c:#x}")?,
            }
            write!(
                f,
                " row_mask:{:#x} bank_mask:{:#x}",
                d.row_mask, d.bank_mask
            )?;
            if d.bound_ctrl {
                f.write_str(" bound_ctrl:1")?;
            }
            if d.fi {
                f.write_str(" fi:1")?;
            }
            Ok(())
        }
        VExt::Dpp8(d) => {
            let s = d.sel;
            write!(
                f,
                " dpp8:[{},{},{},{},{},{},{},{}]",
                s[0], s[1], s[2], s[3], s[4], s[5], s[6], s[7]
            )?;
            if d.fi {
                f.write_str(" fi:1")?;
            }
            Ok(())
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dpp_lanes_follow_the_isa_tables() {
        // quad_perm:[3,2,1,0] reverses each quad.
        assert_eq!(dpp_source_lane(0x1b, 5, 64), Some(6));
        // row_shr:1: lane 0 of every row has no source; others read one below.
        assert_eq!(dpp_source_lane(0x111, 16, 64), None);
        assert_eq!(dpp_source_lane(0x111, 17, 64), Some(16));
        // row_shl:3 past the row end.
        assert_eq!(dpp_source_lane(0x103, 13, 64), None);
        assert_eq!(dpp_source_lane(0x103, 12, 64), Some(15));
        // row_ror:1 wraps inside the row.
        assert_eq!(dpp_source_lane(0x121, 16, 64), Some(31));
        // wave shifts and rotates.
        assert_eq!(dpp_source_lane(0x138, 0, 64), None);
        assert_eq!(dpp_source_lane(0x13c, 0, 64), Some(63));
        assert_eq!(dpp_source_lane(0x130, 63, 64), None);
        assert_eq!(dpp_source_lane(0x134, 63, 64), Some(0));
        // mirrors.
        assert_eq!(dpp_source_lane(0x140, 17, 64), Some(30));
        assert_eq!(dpp_source_lane(0x141, 9, 64), Some(14));
        // broadcasts.
        assert_eq!(dpp_source_lane(0x142, 40, 64), Some(31));
        assert_eq!(dpp_source_lane(0x142, 3, 64), None);
        assert_eq!(dpp_source_lane(0x143, 50, 64), Some(31));
        assert_eq!(dpp_source_lane(0x143, 20, 64), None);
        // gfx11 row_share and row_xmask.
        assert_eq!(dpp_source_lane(0x155, 20, 32), Some(21));
        assert_eq!(dpp_source_lane(0x163, 20, 32), Some(23));
        assert_eq!(dpp8_source_lane(&[7, 6, 5, 4, 3, 2, 1, 0], 9), 14);
    }

    #[test]
    fn dpp_ctrl_validity_is_per_family() {
        assert!(dpp_ctrl_valid(0x142, IsaFamily::Gfx9));
        assert!(!dpp_ctrl_valid(0x142, IsaFamily::Gfx11));
        assert!(dpp_ctrl_valid(0x160, IsaFamily::Gfx11));
        assert!(!dpp_ctrl_valid(0x100, IsaFamily::Gfx9));
        assert!(!dpp_ctrl_valid(0x110, IsaFamily::Gfx11));
        assert!(!dpp_ctrl_valid(0x1ff, IsaFamily::Gfx9));
    }
}
