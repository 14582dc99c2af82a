//! gfx11 dual issue (VOPD, `v_dual_* ... :: v_dual_* ...`): two VOP1/VOP2 operations in
//! one 64-bit encoding (plus one shared literal), executed together by one wave.
//!
//! An [`Instr`] with [`Instr::dual`] set is a VOPD: the instruction itself is the X half,
//! the boxed one the Y half. Each half is the ordinary `_e32` instruction of its op
//! (same operands; `v_cndmask_b32` names its implicit `vcc_lo`), so the emulator and the
//! printer reuse everything the single instructions have.
//!
//! Encoding (`110010` in bits 31:26): word 0 = OPX 25:22, OPY 21:17, VSRC1X 16:9,
//! SRC0X 8:0; word 1 = VDSTX 31:24, VDSTY>>1 23:17, VSRC1Y 16:9, SRC0Y 8:0. VDSTY's low
//! bit is the complement of VDSTX's. What the assembler checks, [`encode`] checks too:
//! one destination even and one odd, the two `src0` VGPRs and the two `vsrc1` VGPRs in
//! different banks (register number mod 4), one literal value, at most two distinct
//! scalar values (SGPRs, specials, the literal, the mask of `v_cndmask_b32`). As
//! llvm-mc counts them, the mask is a value of its own even where a `src0` also names
//! `vcc_lo`.

use super::encode::Ctx;
use super::instr::{Instr, Mods};
use super::operand::{Operand, RegRange};
use super::ops::{Op, Slot};
use super::target::{IsaFamily, IsaTarget};
use crate::error::{Error, Result};

/// The VOPD opcode of each op: the X list is codes 0..=12, the Y list adds 16..=18.
const CODES: [(u8, Op); 16] = [
    (0, Op::VFmacF32),
    (1, Op::VFmaakF32),
    (2, Op::VFmamkF32),
    (3, Op::VMulF32),
    (4, Op::VAddF32),
    (5, Op::VSubF32),
    (6, Op::VSubrevF32),
    (7, Op::VMulDx9ZeroF32),
    (8, Op::VMovB32),
    (9, Op::VCndmaskB32),
    (10, Op::VMaxF32),
    (11, Op::VMinF32),
    (12, Op::VDot2accF32F16),
    (16, Op::VAddU32),
    (17, Op::VLshlrevB32),
    (18, Op::VAndB32),
];

/// The last code of the X list.
const LAST_X: u8 = 12;

/// The VOPD opcode of `op` in the X (`x`) or Y list.
pub fn vopd_code(op: Op, x: bool) -> Option<u8> {
    CODES
        .iter()
        .find(|(c, o)| *o == op && (!x || *c <= LAST_X))
        .map(|(c, _)| *c)
}

fn vopd_op(code: u32, x: bool) -> Option<Op> {
    CODES
        .iter()
        .find(|(c, _)| u32::from(*c) == code && (!x || *c <= LAST_X))
        .map(|(_, o)| *o)
}

/// Every op a VOPD half can hold (the Y list).
pub fn vopd_ops() -> impl Iterator<Item = Op> {
    CODES.iter().map(|(_, o)| *o)
}

/// Whether `op` is in the X list.
pub fn vopd_x(op: Op) -> bool {
    vopd_code(op, true).is_some()
}

fn bad(why: impl std::fmt::Display) -> Error {
    Error::invalid("VOPD instruction", why)
}

/// The fields of one half: vdst, src0 (9-bit code), vsrc1 (VGPR number, 0 if unused).
struct Fields {
    dst: u16,
    src0: u16,
    vsrc1: Option<u16>,
}

impl Fields {
    /// The VGPRs the bank rules compare: src1 and src2 (`v_fmamk_f32`'s VGPR operand
    /// is its src2; `v_fmac_f32` and `v_dot2acc_f32_f16` read their destination as src2).
    fn banked(&self, op: Op) -> (Option<u16>, Option<u16>) {
        match op {
            Op::VFmamkF32 => (None, self.vsrc1),
            Op::VFmacF32 | Op::VDot2accF32F16 => (self.vsrc1, Some(self.dst)),
            _ => (self.vsrc1, None),
        }
    }
}

/// A scalar value a VOPD pair reads over the constant bus.
#[derive(Debug, Clone, Copy, PartialEq)]
enum BusRead {
    Operand(Operand),
    /// `v_cndmask_b32`'s implicit `vcc_lo` (counted apart from an explicit `vcc_lo`).
    CndmaskMask,
}

fn half_fields(c: &mut Ctx<'_>, scalars: &mut Vec<BusRead>) -> Result<Fields> {
    let h = c.instr;
    let info = h.op.info();
    if h.vop3 || h.mods != Mods::default() {
        return Err(bad(format!(
            "{:?}: a VOPD half has no modifiers and no _e64 form",
            h.op
        )));
    }
    if h.operands.len() != info.slots.len() {
        return Err(bad(format!(
            "{:?}: {} operands given, {} expected",
            h.op,
            h.operands.len(),
            info.slots.len()
        )));
    }
    let mut f = Fields {
        dst: 0,
        src0: 0,
        vsrc1: None,
    };
    for (o, s) in h.operands.iter().zip(info.slots) {
        match *s {
            Slot::VDst(1) => f.dst = c.vgpr(o, 1)?,
            Slot::VSrc(1) => {
                if o.is_scalar_value() {
                    scalars.push(BusRead::Operand(*o));
                }
                f.src0 = c.src9(o, 1)?;
            }
            Slot::VReg(1) => f.vsrc1 = Some(c.vgpr(o, 1)?),
            Slot::Kimm => {
                let Operand::Literal(k) = *o else {
                    return Err(bad(format!("{:?}: K must be a 32-bit literal", h.op)));
                };
                match c.literal {
                    Some(y) if y != k => return Err(bad("two different literals")),
                    _ => c.literal = Some(k),
                }
                scalars.push(BusRead::Operand(*o));
            }
            Slot::MaskSrc if *o == Operand::VccLo => scalars.push(BusRead::CndmaskMask),
            _ => {
                return Err(bad(format!(
                    "{:?}: operand {o} in slot {s:?} is outside VOPD",
                    h.op
                )))
            }
        }
    }
    Ok(f)
}

/// Encodes X half `x` with its Y half `y` for `t` (gfx11 only).
pub(crate) fn encode(x: &Instr, y: &Instr, t: IsaTarget, keep_literals: bool) -> Result<Vec<u32>> {
    if t.family() != IsaFamily::Gfx11 {
        return Err(Error::unsupported("VOPD dual issue", t));
    }
    let opx = vopd_code(x.op, true)
        .ok_or_else(|| bad(format!("{:?} is not in the VOPD X list", x.op)))?;
    let opy = vopd_code(y.op, false)
        .ok_or_else(|| bad(format!("{:?} is not in the VOPD Y list", y.op)))?;
    if y.dual.is_some() {
        return Err(bad("the Y half has a half of its own"));
    }
    let mut scalars = Vec::new();
    let mut cx = Ctx::new(t, x, keep_literals);
    let fx = half_fields(&mut cx, &mut scalars)?;
    let mut cy = Ctx::new(t, y, keep_literals);
    cy.literal = cx.literal;
    let fy = half_fields(&mut cy, &mut scalars)?;
    let literal = cy.literal;
    if (fx.dst ^ fy.dst) & 1 == 0 {
        return Err(bad(
            "one destination register must be even and the other odd",
        ));
    }
    if fx.src0 >= 256 && fy.src0 >= 256 && fx.src0 % 4 == fy.src0 % 4 {
        return Err(bad("the src0 VGPRs must be in different banks (mod 4)"));
    }
    let ((x1, x2), (y1, y2)) = (fx.banked(x.op), fy.banked(y.op));
    if let (Some(a), Some(b)) = (x1, y1) {
        if a % 4 == b % 4 {
            return Err(bad("the src1 VGPRs must be in different banks (mod 4)"));
        }
    }
    if let (Some(a), Some(b)) = (x2, y2) {
        if a % 2 == b % 2 {
            return Err(bad("the src2 VGPRs must be in different banks (mod 2)"));
        }
    }
    // Inline constants do not use the bus, nor does a literal the encoder writes inline.
    scalars.retain(|o| !matches!(o, BusRead::Operand(Operand::Literal(_))));
    scalars.extend(literal.map(|k| BusRead::Operand(Operand::Literal(k))));
    scalars.sort_by_key(|o| format!("{o:?}"));
    scalars.dedup();
    if scalars.len() > t.constant_bus_limit() {
        return Err(bad(format!(
            "{} scalar values read; {t} allows {}",
            scalars.len(),
            t.constant_bus_limit()
        )));
    }
    let (opx, opy) = (u32::from(opx), u32::from(opy));
    let mut words = vec![
        0x32 << 26
            | opx << 22
            | opy << 17
            | u32::from(fx.vsrc1.unwrap_or(0)) << 9
            | u32::from(fx.src0),
        u32::from(fx.dst) << 24
            | u32::from(fy.dst >> 1) << 17
            | u32::from(fy.vsrc1.unwrap_or(0)) << 9
            | u32::from(fy.src0),
    ];
    if let Some(l) = literal {
        words.push(l);
    }
    Ok(words)
}

/// Whether `w0` is the first dword of a VOPD on `t`.
pub(crate) fn is_vopd(w0: u32, t: IsaTarget) -> bool {
    t.family() == IsaFamily::Gfx11 && w0 >> 26 == 0x32
}

/// Decodes the VOPD at the start of `words`: the X half carrying the Y half, and the
/// dwords used.
pub(crate) fn decode(words: &[u32], t: IsaTarget) -> Result<(Instr, usize)> {
    let truncated = || bad(format!("truncated: {} dwords", words.len()));
    let (w0, w1) = match words {
        [a, b, ..] => (*a, *b),
        _ => return Err(truncated()),
    };
    let opx = (w0 >> 22) & 0xf;
    let opy = (w0 >> 17) & 0x1f;
    let x_op = vopd_op(opx, true).ok_or_else(|| bad(format!("OPX {opx} is not an operation")))?;
    let y_op = vopd_op(opy, false).ok_or_else(|| bad(format!("OPY {opy} is not an operation")))?;
    let dst_x = w1 >> 24;
    let dst_y = ((w1 >> 17) & 0x7f) << 1 | (!dst_x & 1);
    let uses_literal = |op: Op, src0: u32| src0 == 255 || op.info().slots.contains(&Slot::Kimm);
    let literal = if uses_literal(x_op, w0 & 0x1ff) || uses_literal(y_op, w1 & 0x1ff) {
        Some(*words.get(2).ok_or_else(truncated)?)
    } else {
        None
    };
    let half = |op: Op, dst: u32, src0: u32, vsrc1: u32| -> Result<Instr> {
        let mut operands = Vec::new();
        for s in op.info().slots {
            operands.push(match *s {
                Slot::VDst(_) => Operand::Vgpr(RegRange::new(dst as u16, 1)),
                Slot::VSrc(_) if src0 >= 256 => Operand::Vgpr(RegRange::new(src0 as u16 - 256, 1)),
                Slot::VSrc(_) => match Operand::from_scalar_code(src0 as u16, 1, t) {
                    Some(Operand::Literal(_)) => Operand::Literal(literal.unwrap_or(0)),
                    Some(o) => o,
                    None => return Err(bad(format!("source code {src0} is outside the model"))),
                },
                Slot::VReg(_) => Operand::Vgpr(RegRange::new(vsrc1 as u16, 1)),
                Slot::Kimm => Operand::Literal(literal.unwrap_or(0)),
                Slot::MaskSrc => Operand::VccLo,
                _ => return Err(bad(format!("{op:?} has an operand outside VOPD"))),
            });
        }
        Ok(Instr::new(op, operands))
    };
    let y = half(y_op, dst_y, w1 & 0x1ff, (w1 >> 9) & 0xff)?;
    let instr = half(x_op, dst_x, w0 & 0x1ff, (w0 >> 9) & 0xff)?.with_dual(y);
    let used = 2 + usize::from(literal.is_some());
    let (x, y) = (&instr, instr.dual.as_deref().unwrap_or(&instr));
    let mut again = encode(x, y, t, false)?;
    if literal.is_some() && again.as_slice() != &words[..used] {
        again = encode(x, y, t, true)?;
    }
    if again.as_slice() != &words[..used] {
        return Err(bad(format!(
            "{:08x?} decode as {:?} :: {:?}, which encodes as {again:08x?}: bits outside the model",
            &words[..used],
            x.op,
            y.op
        )));
    }
    Ok((instr, used))
}

/// One half in VOPD syntax: `v_dual_` and the `_e32` text without its suffix and without
/// `v_cndmask_b32`'s implicit `vcc_lo`.
pub(crate) fn half_text(h: &Instr, t: IsaTarget) -> String {
    let text = h.display(t).to_string();
    let (name, rest) = text.split_once(' ').unwrap_or((&text, ""));
    let name = name.strip_suffix("_e32").unwrap_or(name);
    let name = name.strip_prefix("v_").unwrap_or(name);
    // v_dual_cndmask_b32 reads vcc_lo without naming it; any other vcc_lo is a source.
    let rest = if h.op == Op::VCndmaskB32 {
        rest.strip_suffix(", vcc_lo").unwrap_or(rest)
    } else {
        rest
    };
    format!("v_dual_{name} {rest}")
}
