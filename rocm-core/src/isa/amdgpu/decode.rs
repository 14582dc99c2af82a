//! The decoder: dwords to [`Instr`] for a target.
//!
//! Decoding classifies the first dword by its fixed prefix bits, looks the opcode up in
//! the target's column of the table, reads the fields back into operands and modifiers,
//! and finally re-encodes the result: any bit the model does not represent makes the
//! words differ, and that is reported instead of silently dropped.

use super::encode::{ds_two_addr, encode, vop3_base};
use super::ext;
use super::instr::{Cache, Instr, Mods};
use super::operand::{Operand, RegRange, Waitcnt};
use super::ops::{Form, ImmKind, Op, Slot, NA, OPS};
use super::target::{IsaFamily, IsaTarget};
use crate::error::{Error, Result};
use std::collections::HashMap;
use std::sync::OnceLock;

/// The encoding class a first dword belongs to (VOP3P holds MAI and WMMA too).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
enum Class {
    Sop1,
    Sop2,
    Sopk,
    Sopc,
    Sopp,
    Smem,
    Vop1,
    Vop2,
    Vopc,
    Vop3,
    Vop3p,
    Ds,
    Flat,
    Generic,
    Scratch,
    Mubuf,
}

type Map = HashMap<(Class, u16), Vec<Op>>;

fn class_of(form: Form) -> Class {
    match form {
        Form::Sop1 => Class::Sop1,
        Form::Sop2 => Class::Sop2,
        Form::Sopk => Class::Sopk,
        Form::Sopc => Class::Sopc,
        Form::Sopp => Class::Sopp,
        Form::Smem => Class::Smem,
        Form::Vop1 => Class::Vop1,
        Form::Vop2 => Class::Vop2,
        Form::Vopc => Class::Vopc,
        Form::Vop3 => Class::Vop3,
        Form::Vop3p | Form::Mai | Form::Wmma => Class::Vop3p,
        Form::Ds => Class::Ds,
        Form::Global => Class::Flat,
        Form::Flat => Class::Generic,
        Form::Scratch => Class::Scratch,
        Form::Buffer => Class::Mubuf,
        Form::Mubuf => Class::Mubuf,
    }
}

fn maps() -> &'static [Map; 4] {
    static MAPS: OnceLock<[Map; 4]> = OnceLock::new();
    MAPS.get_or_init(|| {
        std::array::from_fn(|col| {
            let family = if col == 3 {
                IsaFamily::Gfx11
            } else {
                IsaFamily::Gfx9
            };
            let mut m = Map::new();
            for info in OPS {
                let opc = info.opcode[col];
                if opc == NA {
                    continue;
                }
                m.entry((class_of(info.form), opc))
                    .or_default()
                    .push(info.op);
                if info.form != Form::Vop3 {
                    if let Some(base) = vop3_base(info.form, family) {
                        m.entry((Class::Vop3, base + opc))
                            .or_default()
                            .push(info.op);
                    }
                }
            }
            m
        })
    })
}

fn classify(w: u32, family: IsaFamily) -> Option<(Class, u16)> {
    let g11 = family == IsaFamily::Gfx11;
    let op = |shift: u32, mask: u32| ((w >> shift) & mask) as u16;
    Some(match w >> 23 {
        0x17d => (Class::Sop1, op(8, 0xff)),
        0x17e => (Class::Sopc, op(16, 0x7f)),
        0x17f => (Class::Sopp, op(16, 0x7f)),
        _ if w >> 28 == 0xb => (Class::Sopk, op(23, 0x1f)),
        _ if w >> 30 == 2 => (Class::Sop2, op(23, 0x7f)),
        _ if w >> 25 == 0x3f => (Class::Vop1, op(9, 0xff)),
        _ if w >> 25 == 0x3e => (Class::Vopc, op(17, 0xff)),
        _ if w >> 31 == 0 => (Class::Vop2, op(25, 0x3f)),
        _ if !g11 && w >> 26 == 0x30 => (Class::Smem, op(18, 0xff)),
        _ if g11 && w >> 26 == 0x3d => (Class::Smem, op(18, 0xff)),
        _ if !g11 && w >> 23 == 0x1a7 => (Class::Vop3p, op(16, 0x7f)),
        _ if g11 && w >> 24 == 0xcc => (Class::Vop3p, op(16, 0x7f)),
        _ if !g11 && w >> 26 == 0x34 => (Class::Vop3, op(16, 0x3ff)),
        _ if g11 && w >> 26 == 0x35 => (Class::Vop3, op(16, 0x3ff)),
        _ if w >> 26 == 0x36 => (Class::Ds, op(if g11 { 18 } else { 17 }, 0xff)),
        _ if w >> 26 == 0x37 => match (w >> if g11 { 16 } else { 14 }) & 3 {
            2 => (Class::Flat, op(18, 0x7f)),
            1 => (Class::Scratch, op(18, 0x7f)),
            0 => (Class::Generic, op(18, 0x7f)),
            _ => return None,
        },
        _ if w >> 26 == 0x38 => (Class::Mubuf, op(18, if g11 { 0xff } else { 0x7f })),
        _ => return None,
    })
}

fn bad(why: impl std::fmt::Display) -> Error {
    Error::invalid("instruction words", why)
}

struct Reader<'a> {
    words: &'a [u32],
    t: IsaTarget,
    /// Dwords of the encoding proper (the literal, if any, follows).
    base: usize,
    literal: bool,
}

impl Reader<'_> {
    fn word(&self, i: usize) -> Result<u32> {
        self.words.get(i).copied().ok_or_else(|| {
            bad(format!(
                "truncated: need dword {i}, have {}",
                self.words.len()
            ))
        })
    }

    /// A scalar or vector source code into an operand of `width` dwords.
    fn src(&mut self, code: u32, width: u8) -> Result<Operand> {
        if code >= 256 {
            return Ok(Operand::Vgpr(RegRange::new((code - 256) as u16, width)));
        }
        let o = Operand::from_scalar_code(code as u16, width, self.t).ok_or_else(|| {
            bad(format!(
                "source code {code} is outside the model on {}",
                self.t
            ))
        })?;
        if let Operand::Literal(_) = o {
            self.literal = true;
            return Ok(Operand::Literal(self.word(self.base)?));
        }
        Ok(o)
    }
}

/// The cache bits of a FLAT-encoded first dword (global and scratch).
fn flat_cache(w0: u32, t: IsaTarget) -> Cache {
    let g11 = t.family() == IsaFamily::Gfx11;
    let (glc, slc) = if g11 { (14, 15) } else { (16, 17) };
    let mut cache = 0;
    if bit(w0, glc) {
        cache |= Cache::GLC.0;
    }
    if bit(w0, slc) {
        cache |= Cache::SLC.0;
    }
    if g11 && bit(w0, 13) {
        cache |= Cache::DLC.0;
    }
    if !g11 && bit(w0, 25) {
        cache |= Cache::SC1.0;
    }
    Cache(cache)
}

fn bit(w: u32, b: u32) -> bool {
    (w >> b) & 1 != 0
}

fn vreg(r: u32, width: u8) -> Operand {
    Operand::Vgpr(RegRange::new(r as u16, width))
}

fn areg(r: u32, width: u8) -> Operand {
    Operand::Agpr(RegRange::new(r as u16, width))
}

/// Decodes the instruction at the start of `words`: the instruction and how many dwords
/// it used.
pub fn decode(words: &[u32], t: IsaTarget) -> Result<(Instr, usize)> {
    let w0 = *words.first().ok_or_else(|| bad("no words"))?;
    if super::vopd::is_vopd(w0, t) {
        return super::vopd::decode(words, t);
    }
    let family = t.family();
    let (class, opc) =
        classify(w0, family).ok_or_else(|| bad(format!("{w0:#010x} is no known encoding")))?;
    let cands = maps()[t.column()].get(&(class, opc)).ok_or_else(|| {
        bad(format!(
            "{class:?} opcode {opc:#x} is not in the model for {t}"
        ))
    })?;
    let two = !matches!(
        class,
        Class::Sop1
            | Class::Sop2
            | Class::Sopk
            | Class::Sopc
            | Class::Sopp
            | Class::Vop1
            | Class::Vop2
            | Class::Vopc
    );
    // SDWA/DPP: src0 holds a marker and a second dword the extension.
    let ext_mark = match class {
        Class::Vop1 | Class::Vop2 | Class::Vopc => match w0 & 0x1ff {
            m @ (ext::SDWA_MARK | ext::DPP_MARK | ext::DPP8_MARK | ext::DPP8_FI_MARK) => Some(m),
            _ => None,
        },
        _ => None,
    };
    let mut r = Reader {
        words,
        t,
        base: if two || ext_mark.is_some() { 2 } else { 1 },
        literal: false,
    };
    let w1 = if two { r.word(1)? } else { 0 };
    let op = match (class, cands.as_slice()) {
        (_, [one]) => *one,
        // Atomics with and without return share an opcode; glc/sc0 tells them apart.
        (Class::Flat | Class::Generic | Class::Scratch, [a, b]) => {
            let glc = if family == IsaFamily::Gfx11 {
                bit(w0, 14)
            } else {
                bit(w0, 16)
            };
            let has_dst = |o: &Op| o.info().slots.iter().any(|s| matches!(s, Slot::GDst(_)));
            if has_dst(a) == glc {
                *a
            } else {
                *b
            }
        }
        _ => return Err(bad(format!("ambiguous opcode {opc:#x} in {class:?}"))),
    };
    let info = op.info();
    let mut mods = match info.form {
        Form::Vop3p | Form::Wmma => Mods::vop3p(),
        _ => Mods::default(),
    };
    let mut operands = Vec::with_capacity(info.slots.len());
    let vop3 = class == Class::Vop3;
    match info.form {
        Form::Sop1 | Form::Sop2 | Form::Sopk | Form::Sopc | Form::Sopp => {
            let sdst = (w0 >> 16) & 0x7f;
            let mut srcs = [w0 & 0xff, (w0 >> 8) & 0xff].into_iter();
            for s in info.slots {
                operands.push(match *s {
                    Slot::SDst(w) => r.src(sdst, w)?,
                    Slot::SSrc(w) => {
                        let code = srcs.next().ok_or_else(|| bad("too many sources"))?;
                        r.src(code, w)?
                    }
                    Slot::Simm(k) => {
                        let raw = (w0 & 0xffff) as u16;
                        match k {
                            ImmKind::Waitcnt => Operand::Waitcnt(
                                Waitcnt::decode(raw, family)
                                    .ok_or_else(|| bad("s_waitcnt sets bits outside its fields"))?,
                            ),
                            ImmKind::Branch => Operand::Imm(i32::from(raw as i16)),
                            _ => Operand::Imm(i32::from(raw)),
                        }
                    }
                    _ => return Err(bad("slot outside scalar forms")),
                });
            }
        }
        Form::Smem => {
            let sdata = (w0 >> 6) & 0x7f;
            let sbase = (w0 & 0x3f) << 1;
            let Some(Slot::SDst(w)) = info.slots.first() else {
                return Err(bad("SMEM row without destination"));
            };
            operands.push(r.src(sdata, *w)?);
            operands.push(Operand::Sgpr(RegRange::new(sbase as u16, 2)));
            if family == IsaFamily::Gfx11 {
                mods.offset = ((w1 << 11) as i32) >> 11;
                if bit(w0, 14) {
                    mods.cache = mods.cache | Cache::GLC;
                }
                if bit(w0, 13) {
                    mods.cache = mods.cache | Cache::DLC;
                }
            } else {
                mods.offset = (w1 & 0x1f_ffff) as i32;
                if bit(w0, 16) {
                    mods.cache = Cache::GLC;
                }
            }
        }
        Form::Vop1 | Form::Vop2 | Form::Vopc | Form::Vop3 => {
            let vop3b = info.slots.contains(&Slot::CarryDst);
            let sdst = (w0 >> 8) & 0x7f;
            let ext = match ext_mark {
                Some(mark) => {
                    let d = ext::decode(mark, w0, r.word(1)?, info.form, t).ok_or_else(|| {
                        bad(format!(
                            "{w0:08x} {:08x}: extension fields outside the model on {t}",
                            r.word(1).unwrap_or(0)
                        ))
                    })?;
                    mods = d.mods;
                    Some(d)
                }
                None => None,
            };
            let (dst, srcs) = if let Some(d) = &ext {
                ((w0 >> 17) & 0xff, [d.srcs[0], d.srcs[1], 0])
            } else if vop3 {
                mods.clamp = bit(w0, 15);
                if !vop3b {
                    mods.abs = ((w0 >> 8) & 7) as u8;
                }
                mods.neg = ((w1 >> 29) & 7) as u8;
                mods.omod = ((w1 >> 27) & 3) as u8;
                (
                    w0 & 0xff,
                    [w1 & 0x1ff, (w1 >> 9) & 0x1ff, (w1 >> 18) & 0x1ff],
                )
            } else {
                ((w0 >> 17) & 0xff, [w0 & 0x1ff, 256 + ((w0 >> 9) & 0xff), 0])
            };
            let mut si = 0;
            let mask = t.mask_sgprs();
            let vcc = if mask == 2 {
                Operand::Vcc
            } else {
                Operand::VccLo
            };
            for s in info.slots {
                operands.push(match *s {
                    Slot::VDst(w) => vreg(dst, w),
                    Slot::ADst(w) => areg(dst, w),
                    Slot::SDstV => r.src(dst, 1)?,
                    Slot::MaskDst if vop3 => r.src(dst, mask)?,
                    Slot::MaskDst if ext.as_ref().is_some_and(|d| d.sdst.is_some()) => {
                        r.src(ext.as_ref().and_then(|d| d.sdst).unwrap_or(0), mask)?
                    }
                    Slot::MaskDst => vcc,
                    Slot::CarryDst if vop3 => r.src(sdst, mask)?,
                    Slot::CarryDst => vcc,
                    Slot::MaskSrc if !vop3 => vcc,
                    Slot::Kimm => {
                        r.literal = true;
                        Operand::Literal(r.word(r.base)?)
                    }
                    Slot::MaskSrc
                    | Slot::VSrc(_)
                    | Slot::VReg(_)
                    | Slot::ASrc(_)
                    | Slot::SSrc(_) => {
                        let code = srcs[si];
                        si += 1;
                        match *s {
                            Slot::MaskSrc => r.src(code, mask)?,
                            Slot::SSrc(w) => r.src(code, w)?,
                            Slot::ASrc(w) if code >= 256 => areg(code - 256, w),
                            Slot::VSrc(w) | Slot::VReg(w) => r.src(code, w)?,
                            _ => return Err(bad("AGPR source without a vector code")),
                        }
                    }
                    _ => return Err(bad("slot outside VALU forms")),
                });
            }
        }
        Form::Vop3p | Form::Wmma => {
            mods.clamp = bit(w0, 15);
            mods.op_sel = ((w0 >> 11) & 7) as u8;
            mods.op_sel_hi = (((w1 >> 27) & 3) | ((w0 >> 14) & 1) << 2) as u8;
            mods.neg_hi = ((w0 >> 8) & 7) as u8;
            mods.neg = ((w1 >> 29) & 7) as u8;
            let srcs = [w1 & 0x1ff, (w1 >> 9) & 0x1ff, (w1 >> 18) & 0x1ff];
            let dst = w0 & 0xff;
            let mut si = 0;
            for s in info.slots {
                operands.push(match *s {
                    Slot::VDst(w) => vreg(dst, w),
                    Slot::ADst(w) => areg(dst, w),
                    Slot::VSrc(w) | Slot::VReg(w) | Slot::ASrc(w) => {
                        let code = srcs[si];
                        si += 1;
                        match *s {
                            Slot::ASrc(_) if code >= 256 => areg(code - 256, w),
                            _ => r.src(code, w)?,
                        }
                    }
                    _ => return Err(bad("slot outside VOP3P")),
                });
            }
        }
        Form::Mai => {
            let acc_cd = bit(w0, 15) || !t.unified_agprs();
            mods.abid = ((w0 >> 11) & 15) as u8;
            mods.cbsz = ((w0 >> 8) & 7) as u8;
            mods.blgp = (w1 >> 29) as u8;
            let [Slot::MfmaDst(wd), Slot::MfmaSrc(wa), Slot::MfmaSrc(wb), Slot::MfmaAcc(wc)] =
                info.slots
            else {
                return Err(bad("not an MFMA row"));
            };
            let d = w0 & 0xff;
            operands.push(if acc_cd { areg(d, *wd) } else { vreg(d, *wd) });
            for (i, w) in [(0u32, *wa), (1, *wb)] {
                let code = (w1 >> (9 * i)) & 0x1ff;
                if code < 256 {
                    return Err(bad("MFMA A/B must be registers"));
                }
                operands.push(if bit(w1, 27 + i) {
                    areg(code - 256, w)
                } else {
                    vreg(code - 256, w)
                });
            }
            let c = (w1 >> 18) & 0x1ff;
            operands.push(match c {
                256.. if acc_cd => areg(c - 256, *wc),
                256.. => vreg(c - 256, *wc),
                _ => r.src(c, *wc)?,
            });
        }
        Form::Ds => {
            let acc = family == IsaFamily::Gfx9 && bit(w0, 25);
            let reg = |x: u32, w: u8| if acc { areg(x, w) } else { vreg(x, w) };
            let (o0, o1) = (w0 & 0xff, (w0 >> 8) & 0xff);
            if ds_two_addr(op) {
                mods.offset = o0 as i32;
                mods.offset1 = o1 as u8;
            } else {
                mods.offset = (o0 | o1 << 8) as i32;
            }
            for s in info.slots {
                operands.push(match *s {
                    Slot::DsDst(w) => reg(w1 >> 24, w),
                    Slot::DsAddr => vreg(w1 & 0xff, 1),
                    Slot::DsData(w) => reg((w1 >> 8) & 0xff, w),
                    Slot::DsData1(w) => reg((w1 >> 16) & 0xff, w),
                    _ => return Err(bad("slot outside DS")),
                });
            }
        }
        // Operand-free cache ops: re-encoding checks every other field is zero.
        Form::Mubuf => {}
        Form::Buffer => {
            mods.offset = (w0 & 0xfff) as i32;
            mods.cache = Cache(
                (u8::from(bit(w0, 14)) * Cache::GLC.0)
                    | (u8::from(bit(w0, 17)) * Cache::SLC.0)
                    | (u8::from(bit(w0, 15) && t.sc_cache_bits()) * Cache::SC1.0),
            );
            for s in info.slots {
                operands.push(match *s {
                    Slot::GDst(w) | Slot::GData(w) => vreg((w1 >> 8) & 0xff, w),
                    Slot::BufAddr if bit(w0, 12) => vreg(w1 & 0xff, 1),
                    Slot::BufAddr => Operand::Off,
                    Slot::BufRsrc => {
                        Operand::Sgpr(RegRange::new((((w1 >> 16) & 0x1f) * 4) as u16, 4))
                    }
                    Slot::BufSoffset => r.src(w1 >> 24, 1)?,
                    _ => return Err(bad("slot outside buffer")),
                });
            }
        }
        Form::Scratch => {
            let g11 = family == IsaFamily::Gfx11;
            mods.offset = (((w0 & 0x1fff) << 19) as i32) >> 19;
            mods.cache = flat_cache(w0, t);
            let saddr = (w1 >> 16) & 0x7f;
            let s_off = saddr == if g11 { 124 } else { 0x7f };
            let v_on = match (t.scratch_sve_bit(), g11) {
                (true, true) => bit(w1, 23),
                (true, false) => bit(w0, 13),
                (false, _) => s_off,
            };
            for s in info.slots {
                operands.push(match *s {
                    Slot::GDst(w) => vreg(w1 >> 24, w),
                    Slot::GData(w) => vreg((w1 >> 8) & 0xff, w),
                    Slot::ScratchAddr if v_on => vreg(w1 & 0xff, 1),
                    Slot::ScratchAddr => Operand::Off,
                    Slot::ScratchSaddr if s_off => Operand::Off,
                    Slot::ScratchSaddr => Operand::Sgpr(RegRange::new(saddr as u16, 1)),
                    _ => return Err(bad("slot outside scratch")),
                });
            }
        }
        Form::Flat => {
            let g11 = family == IsaFamily::Gfx11;
            let acc = !g11 && bit(w1, 23);
            let reg = |x: u32, w: u8| if acc { areg(x, w) } else { vreg(x, w) };
            // Unsigned 12-bit offset; saddr and bit 12 must be what the encoder writes,
            // which the re-encoding below checks.
            mods.offset = (w0 & 0xfff) as i32;
            mods.cache = flat_cache(w0, t);
            for s in info.slots {
                operands.push(match *s {
                    Slot::GDst(w) => reg(w1 >> 24, w),
                    Slot::GAddr => vreg(w1 & 0xff, 2),
                    Slot::GData(w) => reg((w1 >> 8) & 0xff, w),
                    _ => return Err(bad("slot outside flat")),
                });
            }
        }
        Form::Global => {
            let g11 = family == IsaFamily::Gfx11;
            let acc = !g11 && bit(w1, 23);
            let reg = |x: u32, w: u8| if acc { areg(x, w) } else { vreg(x, w) };
            mods.offset = (((w0 & 0x1fff) << 19) as i32) >> 19;
            mods.cache = flat_cache(w0, t);
            let saddr = (w1 >> 16) & 0x7f;
            let off = saddr == if g11 { 124 } else { 0x7f };
            for s in info.slots {
                operands.push(match *s {
                    Slot::GDst(w) => reg(w1 >> 24, w),
                    Slot::GAddr => vreg(w1 & 0xff, if off { 2 } else { 1 }),
                    Slot::GData(w) => reg((w1 >> 8) & 0xff, w),
                    Slot::GSaddr if off => Operand::Off,
                    Slot::GSaddr => Operand::Sgpr(RegRange::new(saddr as u16, 2)),
                    _ => return Err(bad("slot outside global")),
                });
            }
        }
    }
    let used = r.base + usize::from(r.literal);
    let instr = Instr {
        op,
        operands,
        vop3: vop3 && info.form != Form::Vop3,
        mods,
        dual: None,
    };
    // Re-encode: catches every bit the model does not carry.
    let mut again = encode(&instr, t)?;
    if r.literal && again.as_slice() != &words[..used] {
        again = super::encode::encode_with(&instr, t, true)?;
    }
    if again.as_slice() != &words[..used] {
        return Err(bad(format!(
            "{:08x?} decode as {:?} {:?}, which encodes as {:08x?}: bits outside the model",
            &words[..used],
            instr.op,
            instr.operands,
            again
        )));
    }
    Ok((instr, used))
}

/// Decodes a whole instruction stream.
pub fn decode_all(mut words: &[u32], t: IsaTarget) -> Result<Vec<Instr>> {
    let mut out = Vec::new();
    while !words.is_empty() {
        let (i, n) = decode(words, t)?;
        out.push(i);
        words = &words[n..];
    }
    Ok(out)
}

/// A listing of a code stream: one line per instruction with its byte offset, LLVM text
/// and encoding (`  v_mov_b32_e32 v0, 1.0  // 000004: 7E0002F2`).
pub fn disassemble(mut words: &[u32], t: IsaTarget) -> Result<String> {
    use std::fmt::Write as _;
    let mut out = String::new();
    let mut at = 0usize;
    while !words.is_empty() {
        let (i, n) = decode(words, t).map_err(|e| bad(format!("at byte {:#x}: {e}", at * 4)))?;
        let enc: Vec<String> = words[..n].iter().map(|w| format!("{w:08X}")).collect();
        let _ = writeln!(
            out,
            "  {:<56} // {:06X}: {}",
            i.display(t).to_string(),
            at * 4,
            enc.join(" ")
        );
        at += n;
        words = &words[n..];
    }
    Ok(out)
}
