//! The encoder: [`Instr`] to dwords for a target, with the register rules hardware
//! does not check (tuple alignment, register files, constant-bus and literal limits).

use super::instr::{Cache, Instr, Mods};
use super::operand::{Operand, RegRange};
use super::ops::{Form, ImmKind, Op, OpInfo, Slot, Ty, NA};
use super::target::{IsaFamily, IsaTarget};
use crate::error::{Error, Result};

/// The first VOP3 opcode of instructions promoted from VOPC, VOP2 and VOP1.
pub(crate) fn vop3_base(form: Form, family: IsaFamily) -> Option<u16> {
    match (form, family) {
        (Form::Vopc, _) => Some(0),
        (Form::Vop2, _) => Some(0x100),
        (Form::Vop1, IsaFamily::Gfx9) => Some(0x140),
        (Form::Vop1, IsaFamily::Gfx11) => Some(0x180),
        (Form::Vop3, _) => Some(0),
        _ => None,
    }
}

/// The opcode of `op` on `t`, or an error naming what the target lacks.
pub(crate) fn opcode_of(info: &OpInfo, t: IsaTarget) -> Result<u16> {
    let o = info.opcode[t.column()];
    if o == NA {
        return Err(Error::unsupported(format!("instruction {:?}", info.op), t));
    }
    Ok(o)
}

/// Whether a VOP1/VOP2/VOPC instruction has a VOP3 (`_e64`) promotion.
pub fn has_e64(op: Op) -> bool {
    let info = op.info();
    matches!(info.form, Form::Vop1 | Form::Vop2 | Form::Vopc)
        && !matches!(
            op,
            Op::VReadfirstlaneB32 | Op::VAccvgprMovB32 | Op::VDot2accF32F16
        )
        && !info.slots.contains(&Slot::Kimm)
}

/// How many distinct scalar values a VALU instruction may read on `t`: the target's
/// limit, except 1 for the 64-bit shifts on gfx11.
pub fn constant_bus_limit(op: Op, t: IsaTarget) -> usize {
    match op {
        Op::VLshlrevB64 | Op::VLshrrevB64 | Op::VAshrrevI64 => 1,
        // VCC, read implicitly, takes one slot.
        Op::VDivFmasF64 => t.constant_bus_limit() - 1,
        _ => t.constant_bus_limit(),
    }
}

/// gfx11 16-bit VOP1/VOP2 (`_e32`) encodings address only v0..v127 (bit 7 selects a
/// register half in true16 mode).
pub fn low_vgprs_only(op: Op, t: IsaTarget, vop3: bool) -> bool {
    t.family() == IsaFamily::Gfx11
        && !vop3
        && matches!(
            op,
            Op::VAddF16
                | Op::VMulF16
                | Op::VCvtF16F32
                | Op::VCvtF32F16
                | Op::VFmacF16
                | Op::VFmaakF16
                | Op::VCmpGtF16
        )
}

/// DS instructions with two 8-bit offsets (`offset0`, `offset1`).
pub(crate) fn ds_two_addr(op: Op) -> bool {
    matches!(
        op,
        Op::DsRead2B32
            | Op::DsRead2B64
            | Op::DsWrite2B32
            | Op::DsWrite2B64
            | Op::DsRead2st64B32
            | Op::DsWrite2st64B32
    )
}

/// The number of source operands (VOP3P/WMMA modifier lists have one entry per source).
pub(crate) fn source_count(info: &OpInfo) -> usize {
    info.slots
        .iter()
        .filter(|s| {
            matches!(
                s,
                Slot::VSrc(_)
                    | Slot::VReg(_)
                    | Slot::ASrc(_)
                    | Slot::MaskSrc
                    | Slot::MfmaSrc(_)
                    | Slot::MfmaAcc(_)
            )
        })
        .count()
}

/// The modifier fields a form uses; everything else must be at its default.
pub(crate) fn used_mods(instr: &Instr, t: IsaTarget) -> Mods {
    let info = instr.op.info();
    let m = instr.mods;
    let d = Mods::default();
    match info.form {
        Form::Vop1 | Form::Vop2 | Form::Vopc | Form::Vop3 if instr.is_vop3_encoded() => Mods {
            neg: m.neg,
            abs: m.abs,
            clamp: m.clamp,
            omod: m.omod,
            ..d
        },
        Form::Vop1 | Form::Vop2 | Form::Vopc if m.ext.is_some() => Mods {
            neg: m.neg,
            abs: m.abs,
            clamp: m.clamp,
            omod: m.omod,
            ext: m.ext,
            ..d
        },
        Form::Vop3p | Form::Wmma => Mods {
            neg: m.neg,
            neg_hi: m.neg_hi,
            clamp: m.clamp,
            op_sel: m.op_sel,
            op_sel_hi: m.op_sel_hi,
            ..d
        },
        Form::Mai => Mods {
            cbsz: m.cbsz,
            abid: m.abid,
            blgp: m.blgp,
            ..d
        },
        Form::Smem => Mods {
            offset: m.offset,
            cache: Cache(m.cache.0 & if t.family() == IsaFamily::Gfx11 { 5 } else { 1 }),
            ..d
        },
        Form::Ds => Mods {
            offset: m.offset,
            offset1: if ds_two_addr(instr.op) { m.offset1 } else { 0 },
            ..d
        },
        Form::Global | Form::Flat | Form::Scratch | Form::Buffer => Mods {
            offset: m.offset,
            cache: Cache(
                m.cache.0
                    & match (t.family(), t.sc_cache_bits()) {
                        (IsaFamily::Gfx11, _) => 7,
                        (_, true) => 11,
                        _ => 3,
                    },
            ),
            ..d
        },
        _ => d,
    }
}

fn bad(what: &str, why: impl std::fmt::Display) -> Error {
    Error::invalid(what, why)
}

pub(super) struct Ctx<'a> {
    t: IsaTarget,
    pub(super) instr: &'a Instr,
    info: &'static OpInfo,
    pub(super) literal: Option<u32>,
    /// Keep literals whose bits are an inline constant as literals (what the decoder
    /// checks against: the linker writes relocated values such as `0` or `48` as
    /// literals).
    keep_literals: bool,
}

impl<'a> Ctx<'a> {
    pub(super) fn new(t: IsaTarget, instr: &'a Instr, keep_literals: bool) -> Ctx<'a> {
        Ctx {
            t,
            instr,
            info: instr.op.info(),
            literal: None,
            keep_literals,
        }
    }

    fn name(&self) -> String {
        format!("{:?} operand", self.instr.op)
    }

    fn check_range(&self, r: RegRange, width: u8, file: char) -> Result<()> {
        if r.count != width {
            return Err(bad(
                &self.name(),
                format!(
                    "{file}-register range of {} dwords where {width} are needed",
                    r.count
                ),
            ));
        }
        let limit = if file == 's' {
            u32::from(self.t.sgpr_count())
        } else {
            256
        };
        if r.end() > limit {
            return Err(bad(
                &self.name(),
                format!("{file}{}..{} is past the last register", r.first, r.end()),
            ));
        }
        let align = match (file, width) {
            ('s', 2) => 2,
            ('s', w) if w >= 4 => 4,
            ('v' | 'a', w) if w >= 2 && self.t.aligned_vector_tuples() => 2,
            _ => 1,
        };
        if r.first % align != 0 {
            return Err(bad(
                &self.name(),
                format!(
                    "{file}[{}:{}] must start at a multiple of {align} on {}",
                    r.first,
                    r.end() - 1,
                    self.t
                ),
            ));
        }
        Ok(())
    }

    /// A scalar source/destination code (SGPRs, specials, constants, literal).
    fn scalar(&mut self, o: &Operand, width: u8, dst: bool) -> Result<u16> {
        // A 32-bit literal whose bits are an inline constant is encoded as that constant,
        // as LLVM's assembler does (`Operand::inline32`), so the printed `0x…` text and
        // our bytes agree with llvm-mc. Literals elsewhere are refused below.
        let o = &match *o {
            Operand::Literal(x)
                if width == 1
                    && matches!(self.info.ty, Ty::B32 | Ty::F32)
                    && !self.keep_literals =>
            {
                Operand::inline32(x).unwrap_or(*o)
            }
            _ => *o,
        };
        let f64_literal = matches!(o, Operand::Literal(_)) && width == 2 && self.info.ty == Ty::F64;
        if let Operand::Sgpr(r) = o {
            self.check_range(*r, width, 's')?;
        } else if let (Some(w), false) = (o.width(), f64_literal) {
            if w != width {
                return Err(bad(
                    &self.name(),
                    format!("{o} is {w} dwords where {width} are needed"),
                ));
            }
        }
        let writable = matches!(
            o,
            Operand::Sgpr(_)
                | Operand::Vcc
                | Operand::VccLo
                | Operand::VccHi
                | Operand::FlatScratch
                | Operand::FlatScratchLo
                | Operand::FlatScratchHi
                | Operand::Exec
                | Operand::ExecLo
                | Operand::ExecHi
                | Operand::M0
                | Operand::Null
        );
        if dst && !writable {
            return Err(bad(&self.name(), format!("{o} cannot be written")));
        }
        if let Operand::Literal(x) = *o {
            // A literal in a 64-bit float operand is the double's high dword.
            // 32-bit operands of 64-bit ops (class masks, exponents) take one too.
            let allowed = match width {
                // 16-bit operands: a 16-bit value; packed ones: both halves.
                1 => {
                    !matches!(self.info.ty, Ty::F16 | Ty::B16)
                        || x <= 0xffff
                        || matches!(self.info.form, Form::Vop3p)
                }
                2 => self.info.ty == Ty::F64,
                _ => false,
            };
            if !allowed {
                return Err(bad(
                    &self.name(),
                    "the model allows literals only in 32-bit operands and as the high \
                     dword of 64-bit float operands",
                ));
            }
            match self.literal {
                Some(y) if y != x => {
                    return Err(bad(
                        &self.name(),
                        "two different literals in one instruction",
                    ))
                }
                _ => self.literal = Some(x),
            }
        }
        o.scalar_code(self.t).ok_or_else(|| {
            bad(
                &self.name(),
                format!("{o:?} is not a scalar operand on {}", self.t),
            )
        })
    }

    /// A 9-bit vector-form source: VGPRs or any scalar operand.
    pub(super) fn src9(&mut self, o: &Operand, width: u8) -> Result<u16> {
        match o {
            Operand::Vgpr(r) => {
                self.check_range(*r, width, 'v')?;
                Ok(256 + r.first)
            }
            _ => self.scalar(o, width, false),
        }
    }

    pub(super) fn vgpr(&self, o: &Operand, width: u8) -> Result<u16> {
        match o {
            Operand::Vgpr(r) => {
                self.check_range(*r, width, 'v')?;
                Ok(r.first)
            }
            _ => Err(bad(&self.name(), format!("{o} where a VGPR is needed"))),
        }
    }

    fn agpr(&self, o: &Operand, width: u8) -> Result<u16> {
        match o {
            Operand::Agpr(r) => {
                self.check_range(*r, width, 'a')?;
                Ok(r.first)
            }
            _ => Err(bad(&self.name(), format!("{o} where an AGPR is needed"))),
        }
    }

    /// A VGPR or (gfx90a+) AGPR for memory data; returns (index, is_agpr).
    fn vector_data(&self, o: &Operand, width: u8) -> Result<(u16, bool)> {
        match o {
            Operand::Agpr(r) if self.t.unified_agprs() => {
                self.check_range(*r, width, 'a')?;
                Ok((r.first, true))
            }
            _ => Ok((self.vgpr(o, width)?, false)),
        }
    }

    fn imm16(&self, o: &Operand, kind: ImmKind) -> Result<u16> {
        let fam = self.t.family();
        let (v, ok) = match (*o, kind) {
            (Operand::Waitcnt(w), ImmKind::Waitcnt) => match w.encode(fam) {
                Some(v) => (v, true),
                None => (0, false),
            },
            (Operand::Imm(i), ImmKind::Hex16) => (i as u16, (0..=0xffff).contains(&i)),
            (Operand::Imm(i), ImmKind::Branch) => (i as u16, (-32768..=32767).contains(&i)),
            (Operand::Imm(i), ImmKind::Nop) => (i as u16, (0..=15).contains(&i)),
            (Operand::Imm(i), ImmKind::Small) => (i as u16, (0..=3).contains(&i)),
            (Operand::Imm(i), ImmKind::Clause) => (i as u16, (0..=63).contains(&i)),
            (Operand::Imm(i), ImmKind::DelayAlu) => (
                i as u16,
                (0..=0x7ff).contains(&i) && super::print::delay_alu_valid(i as u16),
            ),
            (Operand::Imm(i), ImmKind::Sendmsg | ImmKind::Depctr) => {
                (i as u16, (0..=0xffff).contains(&i))
            }
            _ => (0, false),
        };
        if !ok {
            return Err(bad(
                &self.name(),
                format!("{o:?} is not a valid {kind:?} immediate"),
            ));
        }
        Ok(v)
    }
}

/// Encodes `instr` for target `t`: one or more dwords, a literal last.
pub fn encode(instr: &Instr, t: IsaTarget) -> Result<Vec<u32>> {
    encode_with(instr, t, false)
}

/// [`encode`], with literals kept as literals even where an inline constant has their
/// bits when `keep_literals` is set.
pub(crate) fn encode_with(instr: &Instr, t: IsaTarget, keep_literals: bool) -> Result<Vec<u32>> {
    if let Some(y) = &instr.dual {
        return super::vopd::encode(instr, y, t, keep_literals);
    }
    let info = instr.op.info();
    let opc = opcode_of(info, t)?;
    if instr.operands.len() != info.slots.len() {
        return Err(bad(
            &format!("{:?} operands", instr.op),
            format!(
                "{} operands given, {} expected",
                instr.operands.len(),
                info.slots.len()
            ),
        ));
    }
    if instr.vop3 && !has_e64(instr.op) {
        return Err(bad(
            &format!("{:?}", instr.op),
            "only VOP1/VOP2/VOPC instructions have an _e64 promotion",
        ));
    }
    if used_mods(instr, t) != instr.mods {
        return Err(bad(
            &format!("{:?} modifiers", instr.op),
            format!("{:?} sets fields its form does not have", instr.mods),
        ));
    }
    if matches!(
        instr.op,
        Op::SWaitcntVscnt | Op::SWaitcntVmcnt | Op::SWaitcntLgkmcnt
    ) && instr.operands.first() != Some(&Operand::Null)
    {
        return Err(bad(
            &format!("{:?}", instr.op),
            "the register operand must be null (the count is the immediate)",
        ));
    }
    let mut c = Ctx {
        t,
        instr,
        info,
        literal: None,
        keep_literals,
    };
    let ops = &instr.operands;
    let mut words = match info.form {
        Form::Sop1 | Form::Sop2 | Form::Sopc | Form::Sopk | Form::Sopp => {
            let mut f = [0u32; 3]; // sdst, ssrc0, ssrc1
            let mut srcs = 0;
            let mut imm = 0u32;
            for (o, s) in ops.iter().zip(info.slots) {
                match *s {
                    Slot::SDst(w) => f[0] = u32::from(c.scalar(o, w, true)?),
                    Slot::SSrc(w) => {
                        f[1 + srcs] = u32::from(c.scalar(o, w, false)?);
                        srcs += 1;
                    }
                    Slot::Simm(k) => imm = u32::from(c.imm16(o, k)?),
                    _ => return Err(bad(&c.name(), "slot outside scalar forms")),
                }
            }
            if matches!(instr.op, Op::SSetpcB64 | Op::SSwappcB64)
                && !matches!(ops.get(info.slots.len() - 1), Some(Operand::Sgpr(_)))
            {
                return Err(bad(&c.name(), "the new pc must be an SGPR pair"));
            }
            let opc = u32::from(opc);
            vec![match info.form {
                Form::Sop1 => 0xBE80_0000 | f[0] << 16 | opc << 8 | f[1],
                Form::Sop2 => 0x8000_0000 | opc << 23 | f[0] << 16 | f[2] << 8 | f[1],
                Form::Sopc => 0xBF00_0000 | opc << 16 | f[2] << 8 | f[1],
                Form::Sopk => 0xB000_0000 | opc << 23 | f[0] << 16 | imm,
                _ => 0xBF80_0000 | opc << 16 | imm,
            }]
        }
        Form::Smem => encode_smem(&mut c, opc)?,
        Form::Vop1 | Form::Vop2 | Form::Vopc | Form::Vop3 => encode_valu(&mut c, opc)?,
        Form::Vop3p | Form::Wmma => encode_vop3p(&mut c, opc)?,
        Form::Mai => encode_mai(&mut c, opc)?,
        Form::Ds => encode_ds(&mut c, opc)?,
        Form::Global | Form::Flat => encode_global(&mut c, opc)?,
        Form::Scratch => encode_scratch(&mut c, opc)?,
        Form::Buffer => encode_buffer(&mut c, opc)?,
        // Only the operand-free cache ops: the opcode in bits 24:18 (gfx9) or 25:18.
        Form::Mubuf => vec![0xE000_0000 | u32::from(opc) << 18, 0],
    };
    if let Some(l) = c.literal {
        words.push(l);
    }
    Ok(words)
}

/// The sources (bit i = source i) that take VOP3 `neg`/`abs` in a float op: all of
/// them, except where a source is an integer (`v_ldexp_f32`'s exponent,
/// `v_cmp_class_f32`'s class mask).
pub(crate) fn float_modifier_sources(op: Op) -> u8 {
    match op {
        Op::VLdexpF32 | Op::VCmpClassF32 | Op::VCmpxClassF32 | Op::VLdexpF64 | Op::VCmpClassF64 => {
            0b001
        }
        _ => 0b111,
    }
}

/// Whether a float VOP3 op takes an output modifier (`mul:2`, `div:2`, ...): not when
/// its result is an integer.
pub(crate) fn takes_omod(op: Op) -> bool {
    !matches!(op, Op::VFrexpExpI32F32) && op.info().form != Form::Vopc
}

/// A VOPC compare that writes only EXEC (gfx11 `v_cmpx_*`): no destination operand.
pub(crate) fn is_cmpx_without_dst(op: Op) -> bool {
    let info = op.info();
    info.form == Form::Vopc && info.slots.first() != Some(&Slot::MaskDst)
}

/// Encodes a sequence of instructions into one dword stream.
pub fn encode_all<'a>(
    instrs: impl IntoIterator<Item = &'a Instr>,
    t: IsaTarget,
) -> Result<Vec<u32>> {
    let mut out = Vec::new();
    for i in instrs {
        out.extend(encode(i, t)?);
    }
    Ok(out)
}

fn encode_smem(c: &mut Ctx<'_>, opc: u16) -> Result<Vec<u32>> {
    let (ops, slots) = (&c.instr.operands, c.info.slots);
    let (Some(Slot::SDst(w)), Some(dst), Some(base)) = (slots.first(), ops.first(), ops.get(1))
    else {
        return Err(bad(&c.name(), "SMEM needs a destination and a base"));
    };
    if matches!(
        dst,
        Operand::M0 | Operand::Exec | Operand::ExecLo | Operand::ExecHi | Operand::Null
    ) {
        return Err(bad(&c.name(), format!("scalar loads cannot write {dst}")));
    }
    let sdata = u32::from(c.scalar(dst, *w, true)?);
    let Operand::Sgpr(b) = base else {
        return Err(bad(&c.name(), "SMEM base must be an SGPR pair"));
    };
    c.check_range(*b, 2, 's')?;
    let sbase = u32::from(b.first >> 1);
    let m = c.instr.mods;
    let glc = u32::from(m.cache.has(Cache::GLC));
    let opc = u32::from(opc);
    Ok(match c.t.family() {
        IsaFamily::Gfx9 => {
            if !(0..=0xF_FFFF).contains(&m.offset) {
                return Err(bad("SMEM offset", "gfx9 takes 0..=0xFFFFF bytes"));
            }
            vec![
                0xC000_0000 | opc << 18 | 1 << 17 | glc << 16 | sdata << 6 | sbase,
                m.offset as u32,
            ]
        }
        IsaFamily::Gfx11 => {
            if !(-0x10_0000..=0xF_FFFF).contains(&m.offset) {
                return Err(bad(
                    "SMEM offset",
                    "gfx11 takes a signed 21-bit byte offset",
                ));
            }
            let dlc = u32::from(m.cache.has(Cache::DLC));
            vec![
                0xF400_0000 | opc << 18 | glc << 14 | dlc << 13 | sdata << 6 | sbase,
                124 << 25 | (m.offset as u32 & 0x1F_FFFF),
            ]
        }
    })
}

fn encode_valu(c: &mut Ctx<'_>, opc: u16) -> Result<Vec<u32>> {
    let t = c.t;
    let info = c.info;
    let vop3 = c.instr.is_vop3_encoded();
    let sdwa = matches!(c.instr.mods.ext, Some(super::instr::VExt::Sdwa(_)));
    let mut sdwa_sdst: Option<u16> = None;
    let mut dst = 0u32;
    let mut sdst: Option<u32> = None;
    let mut srcs: Vec<u16> = Vec::with_capacity(3);
    let mut scalars: Vec<Operand> = Vec::new();
    for (i, (o, s)) in c.instr.operands.iter().zip(info.slots).enumerate() {
        match *s {
            Slot::VDst(w) => dst = u32::from(c.vgpr(o, w)?),
            Slot::ADst(w) => dst = u32::from(c.agpr(o, w)?),
            Slot::SDstV => dst = u32::from(c.scalar(o, 1, true)?),
            Slot::MaskDst => {
                if vop3 {
                    dst = u32::from(c.scalar(o, t.mask_sgprs(), true)?);
                } else if sdwa && !is_vcc(o, t) {
                    sdwa_sdst = Some(c.scalar(o, t.mask_sgprs(), true)?);
                } else if !is_vcc(o, t) {
                    return Err(bad(&c.name(), "VOPC (_e32) writes vcc; use e64 for others"));
                }
            }
            Slot::CarryDst => {
                if vop3 {
                    sdst = Some(u32::from(c.scalar(o, t.mask_sgprs(), true)?));
                } else if !is_vcc(o, t) {
                    return Err(bad(&c.name(), "VOP2 carry-out is vcc; use e64 for others"));
                }
            }
            Slot::MaskSrc => {
                if vop3 {
                    srcs.push(c.scalar(o, t.mask_sgprs(), false)?);
                    scalars.push(*o);
                } else if !is_vcc(o, t) {
                    return Err(bad(
                        &c.name(),
                        "VOP2 v_cndmask reads vcc; use e64 for others",
                    ));
                }
            }
            Slot::SSrc(w) => {
                srcs.push(c.scalar(o, w, false)?);
                // gfx9 v_writelane reads its M0 lane select outside the constant bus.
                let free = c.instr.op == Op::VWritelaneB32 && *o == Operand::M0;
                if o.is_scalar_value() && !free {
                    scalars.push(*o);
                }
            }
            Slot::VSrc(w) | Slot::VReg(w) | Slot::ASrc(w) => {
                let code = match *s {
                    Slot::ASrc(_) => 256 + c.agpr(o, w)?,
                    // Only promoted VOP2/VOPC forms let the VGPR operand be scalar.
                    Slot::VReg(_) if !c.instr.vop3 && !sdwa => 256 + c.vgpr(o, w)?,
                    _ => c.src9(o, w)?,
                };
                if o.is_scalar_value() {
                    scalars.push(*o);
                }
                srcs.push(code);
            }
            Slot::Kimm => {
                let Operand::Literal(k) = *o else {
                    return Err(bad(&c.name(), "K must be a 32-bit literal"));
                };
                if info.ty == Ty::F16 && k > 0xffff {
                    return Err(bad(&c.name(), "K of a 16-bit op is a 16-bit literal"));
                }
                if c.instr.vop3 {
                    return Err(bad(&c.name(), "has no VOP3 form"));
                }
                // K takes the constant bus: on gfx9 (one scalar value) src0 must be a
                // VGPR or inline constant.
                let src0 = c.instr.operands.get(1);
                if t.constant_bus_limit() < 2
                    && src0.is_some_and(|s| s.is_scalar_value() && *s != Operand::Literal(k))
                    && !src0.is_some_and(|s| matches!(s, Operand::Int(_) | Operand::Float(_)))
                {
                    return Err(bad(&c.name(), "src0 and K both read the constant bus"));
                }
                match c.literal {
                    Some(y) if y != k => {
                        return Err(bad(&c.name(), "two different literals in one instruction"))
                    }
                    _ => c.literal = Some(k),
                }
            }
            _ => return Err(bad(&c.name(), format!("slot {i} outside VALU forms"))),
        }
    }
    if low_vgprs_only(c.instr.op, t, vop3) {
        let high = c.instr.operands.iter().any(|o| match o {
            Operand::Vgpr(r) => r.first >= 128,
            _ => false,
        });
        if high {
            return Err(bad(
                &c.name(),
                "gfx11 16-bit _e32 forms address v0..v127 only",
            ));
        }
    }
    if vop3 && is_cmpx_without_dst(c.instr.op) {
        // gfx11 v_cmpx writes only EXEC; its VOP3 form names it in vdst.
        dst = 126;
    }
    let m = c.instr.mods;
    if vop3 {
        if t.family() == IsaFamily::Gfx9 && c.literal.is_some() {
            return Err(bad(&c.name(), "gfx9 VOP3 encodings take no literal"));
        }
        scalars.sort_by_key(|o| format!("{o:?}"));
        scalars.dedup();
        let limit = constant_bus_limit(c.instr.op, t);
        if scalars.len() > limit {
            return Err(bad(
                &c.name(),
                format!("{} scalar values read; {t} allows {limit}", scalars.len()),
            ));
        }
        if !info.ty.is_float() && (m.neg | m.abs != 0 || m.omod != 0) {
            return Err(bad(&c.name(), "neg/abs/omod apply to float instructions"));
        }
        if sdst.is_some() && m.abs != 0 {
            return Err(bad(
                &c.name(),
                "VOP3b keeps its carry-out where abs would be",
            ));
        }
        if (m.neg | m.abs) & !float_modifier_sources(c.instr.op) != 0 {
            return Err(bad(&c.name(), "neg/abs on an integer source"));
        }
        if m.omod != 0 && !takes_omod(c.instr.op) {
            return Err(bad(&c.name(), "no output modifier on an integer result"));
        }
        let base = vop3_base(info.form, t.family()).unwrap_or(0);
        let op = u32::from(base + opc);
        let s = |i: usize| u32::from(srcs.get(i).copied().unwrap_or(0));
        let w0_base = match t.family() {
            IsaFamily::Gfx9 => 0xD000_0000,
            IsaFamily::Gfx11 => 0xD400_0000,
        };
        return Ok(vec![
            w0_base
                | op << 16
                | u32::from(m.clamp) << 15
                | sdst.unwrap_or(u32::from(m.abs & 7)) << 8
                | (dst & 0xff),
            u32::from(m.neg & 7) << 29
                | u32::from(m.omod & 3) << 27
                | s(2) << 18
                | s(1) << 9
                | s(0),
        ]);
    }
    if m.ext.is_some() {
        if c.literal.is_some() {
            return Err(bad(&c.name(), "SDWA and DPP take no literal"));
        }
        // The carry-in or selector (vcc) takes the constant bus too.
        if info.slots.contains(&Slot::MaskSrc) {
            scalars.push(Operand::Vcc);
        }
        scalars.dedup();
        if scalars.len() > 1 {
            return Err(bad(&c.name(), "SDWA reads one scalar value"));
        }
        let opc = u32::from(opc);
        let word0 = match info.form {
            Form::Vop1 => 0x7E00_0000 | (dst & 0xff) << 17 | opc << 9,
            Form::Vop2 => opc << 25 | (dst & 0xff) << 17,
            _ => 0x7C00_0000 | opc << 17,
        };
        return super::ext::encode(c.instr, t, word0, &srcs, sdwa_sdst);
    }
    let s0 = u32::from(srcs.first().copied().unwrap_or(0));
    let s1 = u32::from(srcs.get(1).copied().unwrap_or(256))
        .checked_sub(256)
        .ok_or_else(|| {
            bad(
                &c.name(),
                "the second source of an _e32 form must be a VGPR",
            )
        })?;
    let opc = u32::from(opc);
    Ok(vec![match info.form {
        Form::Vop1 => 0x7E00_0000 | (dst & 0xff) << 17 | opc << 9 | s0,
        Form::Vop2 => opc << 25 | (dst & 0xff) << 17 | s1 << 9 | s0,
        _ => 0x7C00_0000 | opc << 17 | s1 << 9 | s0,
    }])
}

fn is_vcc(o: &Operand, t: IsaTarget) -> bool {
    *o == if t.mask_sgprs() == 2 {
        Operand::Vcc
    } else {
        Operand::VccLo
    }
}

fn vop3p_base(t: IsaTarget) -> u32 {
    match t.family() {
        IsaFamily::Gfx9 => 0xD380_0000,
        IsaFamily::Gfx11 => 0xCC00_0000,
    }
}

fn encode_vop3p(c: &mut Ctx<'_>, opc: u16) -> Result<Vec<u32>> {
    let t = c.t;
    let mut dst = 0u32;
    let mut srcs: Vec<u16> = Vec::new();
    let mut scalars: Vec<Operand> = Vec::new();
    for (o, s) in c.instr.operands.iter().zip(c.info.slots) {
        match *s {
            Slot::VDst(w) => dst = u32::from(c.vgpr(o, w)?),
            Slot::ADst(w) => dst = u32::from(c.agpr(o, w)?),
            Slot::ASrc(w) => srcs.push(256 + c.agpr(o, w)?),
            Slot::VReg(w) => srcs.push(256 + c.vgpr(o, w)?),
            Slot::VSrc(w) => {
                if c.instr.op == Op::VAccvgprWriteB32 && o.is_scalar_value() {
                    return Err(bad(
                        &c.name(),
                        "v_accvgpr_write takes a VGPR or an inline constant",
                    ));
                }
                srcs.push(c.src9(o, w)?);
                if o.is_scalar_value() {
                    scalars.push(*o);
                }
            }
            _ => return Err(bad(&c.name(), "slot outside VOP3P")),
        }
    }
    if t.family() == IsaFamily::Gfx9 && c.literal.is_some() {
        return Err(bad(&c.name(), "gfx9 VOP3P encodings take no literal"));
    }
    scalars.sort_by_key(|o| format!("{o:?}"));
    scalars.dedup();
    if scalars.len() > t.constant_bus_limit() {
        return Err(bad(
            &c.name(),
            "too many scalar values for the constant bus",
        ));
    }
    let m = c.instr.mods;
    let mut op_sel_hi = u32::from(m.op_sel_hi & 7);
    if srcs.len() < 3 {
        // The assembler always sets the unused third op_sel_hi bit.
        op_sel_hi |= 4;
    }
    let s = |i: usize| u32::from(srcs.get(i).copied().unwrap_or(0));
    Ok(vec![
        vop3p_base(t)
            | u32::from(opc) << 16
            | u32::from(m.clamp) << 15
            | (op_sel_hi >> 2) << 14
            | u32::from(m.op_sel & 7) << 11
            | u32::from(m.neg_hi & 7) << 8
            | dst,
        u32::from(m.neg & 7) << 29 | (op_sel_hi & 3) << 27 | s(2) << 18 | s(1) << 9 | s(0),
    ])
}

fn encode_mai(c: &mut Ctx<'_>, opc: u16) -> Result<Vec<u32>> {
    let t = c.t;
    let ops = &c.instr.operands;
    let [d, a, b, cc] = ops.as_slice() else {
        return Err(bad(&c.name(), "MFMA takes D, A, B, C"));
    };
    let [Slot::MfmaDst(wd), Slot::MfmaSrc(wa), Slot::MfmaSrc(wb), Slot::MfmaAcc(wc)] = c.info.slots
    else {
        return Err(bad(&c.name(), "not an MFMA table row"));
    };
    let (dst, acc_cd) = match d {
        Operand::Agpr(_) => (c.agpr(d, *wd)?, true),
        Operand::Vgpr(_) if t.unified_agprs() => (c.vgpr(d, *wd)?, false),
        _ => {
            return Err(bad(
                &c.name(),
                format!(
                    "MFMA D {d} must be AGPRs{}",
                    if t.unified_agprs() { " or VGPRs" } else { "" }
                ),
            ))
        }
    };
    let src_ab = |o: &Operand, w: u8| -> Result<(u16, bool)> {
        match o {
            Operand::Agpr(_) => Ok((256 + c.agpr(o, w)?, true)),
            _ => Ok((256 + c.vgpr(o, w)?, false)),
        }
    };
    let (sa, aa) = src_ab(a, *wa)?;
    let (sb, ab) = src_ab(b, *wb)?;
    let sc = match cc {
        Operand::Agpr(_) if acc_cd => 256 + c.agpr(cc, *wc)?,
        Operand::Vgpr(_) if !acc_cd => 256 + c.vgpr(cc, *wc)?,
        Operand::Int(_) | Operand::Float(_) if t.unified_agprs() => c.scalar(cc, *wc, false)?,
        _ => {
            return Err(bad(
                &c.name(),
                format!(
                    "MFMA C {cc} must be in D's register file (or an inline constant on gfx90a+)"
                ),
            ))
        }
    };
    if let (Operand::Agpr(x) | Operand::Vgpr(x), Operand::Agpr(y) | Operand::Vgpr(y)) = (d, cc) {
        let overlap =
            x.first < y.first + u16::from(y.count) && y.first < x.first + u16::from(x.count);
        if overlap && x != y {
            return Err(bad(&c.name(), "MFMA C must be D itself or not overlap it"));
        }
    }
    let m = c.instr.mods;
    if m.cbsz > 7 || m.abid > 15 || m.blgp > 7 {
        return Err(bad(&c.name(), "cbsz/blgp take 3 bits, abid 4"));
    }
    let acc_cd_bit = u32::from(acc_cd && t.unified_agprs());
    Ok(vec![
        vop3p_base(t)
            | u32::from(opc) << 16
            | acc_cd_bit << 15
            | u32::from(m.abid) << 11
            | u32::from(m.cbsz) << 8
            | u32::from(dst),
        u32::from(m.blgp) << 29
            | u32::from(ab) << 28
            | u32::from(aa) << 27
            | u32::from(sc) << 18
            | u32::from(sb) << 9
            | u32::from(sa),
    ])
}

fn encode_ds(c: &mut Ctx<'_>, opc: u16) -> Result<Vec<u32>> {
    let t = c.t;
    let (mut vdst, mut addr, mut d0, mut d1) = (0u32, 0u32, 0u32, 0u32);
    let mut agprs: Vec<bool> = Vec::new();
    for (o, s) in c.instr.operands.iter().zip(c.info.slots) {
        match *s {
            Slot::DsDst(w) | Slot::DsData(w) | Slot::DsData1(w) => {
                let (r, acc) = c.vector_data(o, w)?;
                agprs.push(acc);
                match *s {
                    Slot::DsDst(_) => vdst = u32::from(r),
                    Slot::DsData(_) => d0 = u32::from(r),
                    _ => d1 = u32::from(r),
                }
            }
            Slot::DsAddr => addr = u32::from(c.vgpr(o, 1)?),
            _ => return Err(bad(&c.name(), "slot outside DS")),
        }
    }
    let acc = agprs.first().copied().unwrap_or(false);
    if agprs.iter().any(|&x| x != acc) {
        return Err(bad(
            &c.name(),
            "DS data and destination must all be VGPRs or all AGPRs",
        ));
    }
    let m = c.instr.mods;
    let (o0, o1) = if ds_two_addr(c.instr.op) {
        if !(0..=255).contains(&m.offset) {
            return Err(bad("DS offset0", "takes 0..=255 elements"));
        }
        (m.offset as u32, u32::from(m.offset1))
    } else {
        if !(0..=0xffff).contains(&m.offset) {
            return Err(bad("DS offset", "takes 0..=65535 bytes"));
        }
        (m.offset as u32 & 0xff, m.offset as u32 >> 8)
    };
    let opc = u32::from(opc);
    let w0 = match t.family() {
        IsaFamily::Gfx9 => 0xD800_0000 | u32::from(acc) << 25 | opc << 17 | o1 << 8 | o0,
        IsaFamily::Gfx11 => 0xD800_0000 | opc << 18 | o1 << 8 | o0,
    };
    Ok(vec![w0, vdst << 24 | d1 << 16 | d0 << 8 | addr])
}

/// Global (segment 2) and generic flat (segment 0) instructions: one layout. Flat ones
/// have no `saddr` operand (the field holds 0 on gfx9 and `null` on gfx11, as llvm-mc
/// writes it) and an unsigned 12-bit offset.
fn encode_global(c: &mut Ctx<'_>, opc: u16) -> Result<Vec<u32>> {
    let t = c.t;
    let g11 = t.family() == IsaFamily::Gfx11;
    let flat = c.info.form == Form::Flat;
    let ops = &c.instr.operands;
    let saddr_op = if flat {
        None
    } else {
        let o = c
            .info
            .slots
            .iter()
            .position(|s| *s == Slot::GSaddr)
            .and_then(|i| ops.get(i))
            .ok_or_else(|| bad(&c.name(), "global instruction without saddr"))?;
        Some(o)
    };
    let (saddr, addr_w) = match saddr_op {
        None => (if g11 { 124 } else { 0 }, 2u8),
        Some(Operand::Off) => (if g11 { 124 } else { 0x7f }, 2u8),
        Some(Operand::Sgpr(r)) => {
            c.check_range(*r, 2, 's')?;
            (u32::from(r.first), 1u8)
        }
        _ => return Err(bad(&c.name(), "saddr must be an SGPR pair or off")),
    };
    let (mut vdst, mut addr, mut data) = (0u32, 0u32, 0u32);
    let mut agprs: Vec<bool> = Vec::new();
    for (o, s) in ops.iter().zip(c.info.slots) {
        match *s {
            Slot::GDst(w) | Slot::GData(w) => {
                let (r, acc) = c.vector_data(o, w)?;
                agprs.push(acc);
                if matches!(s, Slot::GDst(_)) {
                    vdst = u32::from(r);
                } else {
                    data = u32::from(r);
                }
            }
            Slot::GAddr => addr = u32::from(c.vgpr(o, addr_w)?),
            Slot::GSaddr => {}
            _ => return Err(bad(&c.name(), "slot outside global")),
        }
    }
    let acc = agprs.first().copied().unwrap_or(false);
    if agprs.iter().any(|&x| x != acc) {
        return Err(bad(
            &c.name(),
            "data and destination must all be VGPRs or all AGPRs",
        ));
    }
    let m = c.instr.mods;
    if flat && !(0..=4095).contains(&m.offset) {
        return Err(bad("flat offset", "takes an unsigned 12-bit byte offset"));
    }
    if !(-4096..=4095).contains(&m.offset) {
        return Err(bad("global offset", "takes a signed 13-bit byte offset"));
    }
    let rtn = c.info.slots.iter().any(|s| matches!(s, Slot::GDst(_)));
    if c.info.atomic && rtn != m.cache.has(Cache::GLC) {
        return Err(bad(
            &c.name(),
            "an atomic returns its old value exactly when glc/sc0 is set (use the *Rtn op)",
        ));
    }
    let off = m.offset as u32 & 0x1fff;
    let opc = u32::from(opc);
    let glc = u32::from(m.cache.has(Cache::GLC));
    let slc = u32::from(m.cache.has(Cache::SLC));
    let seg = if flat { 0 } else { 2 };
    let w0 = if g11 {
        let dlc = u32::from(m.cache.has(Cache::DLC));
        0xDC00_0000 | opc << 18 | seg << 16 | slc << 15 | glc << 14 | dlc << 13 | off
    } else {
        let sc1 = u32::from(m.cache.has(Cache::SC1));
        0xDC00_0000 | sc1 << 25 | opc << 18 | slc << 17 | glc << 16 | seg << 14 | off
    };
    Ok(vec![
        w0,
        vdst << 24 | u32::from(acc) << 23 | saddr << 16 | data << 8 | addr,
    ])
}

/// The cache bits of a FLAT-encoded instruction: `(glc, slc, dlc, sc1)`.
fn flat_cache_bits(c: &Ctx<'_>) -> (u32, u32, u32, u32) {
    let m = c.instr.mods.cache;
    (
        u32::from(m.has(Cache::GLC)),
        u32::from(m.has(Cache::SLC)),
        u32::from(m.has(Cache::DLC)),
        u32::from(m.has(Cache::SC1)),
    )
}

fn encode_scratch(c: &mut Ctx<'_>, opc: u16) -> Result<Vec<u32>> {
    let t = c.t;
    let g11 = t.family() == IsaFamily::Gfx11;
    let off_code = if g11 { 124 } else { 0x7f };
    let (mut vdst, mut data, mut addr, mut saddr) = (0u32, 0u32, None, off_code);
    for (o, s) in c.instr.operands.iter().zip(c.info.slots) {
        match (*s, o) {
            (Slot::GDst(w), _) => vdst = u32::from(c.vgpr(o, w)?),
            (Slot::GData(w), _) => data = u32::from(c.vgpr(o, w)?),
            (Slot::ScratchAddr, Operand::Off) => {}
            (Slot::ScratchAddr, _) => addr = Some(u32::from(c.vgpr(o, 1)?)),
            (Slot::ScratchSaddr, Operand::Off) => {}
            (Slot::ScratchSaddr, Operand::Sgpr(r)) => {
                c.check_range(*r, 1, 's')?;
                saddr = u32::from(r.first);
            }
            (Slot::ScratchSaddr, _) => {
                return Err(bad(&c.name(), "the scalar offset must be one SGPR or off"))
            }
            _ => return Err(bad(&c.name(), "slot outside scratch")),
        }
    }
    if !t.scratch_sve_bit() && addr.is_some() == (saddr != off_code) {
        return Err(bad(
            &c.name(),
            format!("{t} scratch takes exactly one of a VGPR and an SGPR offset"),
        ));
    }
    let m = c.instr.mods;
    if !(-4096..=4095).contains(&m.offset) {
        return Err(bad("scratch offset", "takes a signed 13-bit byte offset"));
    }
    let off = m.offset as u32 & 0x1fff;
    let opc = u32::from(opc);
    let sve = u32::from(addr.is_some() && t.scratch_sve_bit());
    let (glc, slc, dlc, sc1) = flat_cache_bits(c);
    let w0 = if g11 {
        0xDC00_0000 | opc << 18 | 1 << 16 | slc << 15 | glc << 14 | dlc << 13 | off
    } else {
        0xDC00_0000 | sc1 << 25 | opc << 18 | slc << 17 | glc << 16 | 1 << 14 | sve << 13 | off
    };
    let sve11 = if g11 { sve << 23 } else { 0 };
    Ok(vec![
        w0,
        vdst << 24 | sve11 | saddr << 16 | data << 8 | addr.unwrap_or(0),
    ])
}

fn encode_buffer(c: &mut Ctx<'_>, opc: u16) -> Result<Vec<u32>> {
    if c.t.family() == IsaFamily::Gfx11 {
        return Err(Error::unsupported("MUBUF loads and stores", c.t));
    }
    let (mut vdata, mut vaddr, mut offen, mut srsrc, mut soffset) = (0u32, 0u32, 0u32, 0u32, 0u32);
    for (o, s) in c.instr.operands.iter().zip(c.info.slots) {
        match (*s, o) {
            (Slot::GDst(w) | Slot::GData(w), _) => vdata = u32::from(c.vgpr(o, w)?),
            (Slot::BufAddr, Operand::Off) => {}
            (Slot::BufAddr, _) => {
                vaddr = u32::from(c.vgpr(o, 1)?);
                offen = 1;
            }
            (Slot::BufRsrc, Operand::Sgpr(r)) => {
                c.check_range(*r, 4, 's')?;
                srsrc = u32::from(r.first) / 4;
            }
            (Slot::BufSoffset, Operand::Literal(_)) => {
                return Err(bad(&c.name(), "soffset takes no literal"))
            }
            (Slot::BufSoffset, _) => soffset = u32::from(c.scalar(o, 1, false)?),
            _ => return Err(bad(&c.name(), "slot outside buffer")),
        }
    }
    let m = c.instr.mods;
    if !(0..=4095).contains(&m.offset) {
        return Err(bad("buffer offset", "takes an unsigned 12-bit byte offset"));
    }
    let (glc, slc, _, sc1) = flat_cache_bits(c);
    Ok(vec![
        0xE000_0000
            | sc1 << 15
            | u32::from(opc) << 18
            | slc << 17
            | glc << 14
            | offen << 12
            | m.offset as u32,
        soffset << 24 | srsrc << 16 | vdata << 8 | vaddr,
    ])
}
