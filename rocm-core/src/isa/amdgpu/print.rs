//! The printer: [`Instr`] in LLVM AMDGPU assembler syntax for a target, as `llvm-mc`
//! accepts it (explicit `_e32`/`_e64` suffixes, every `s_waitcnt` counter spelled out).

use super::encode::{ds_two_addr, has_e64, source_count};
use super::instr::{Cache, Instr, VExt};
use super::operand::{fmt_float, Operand, Waitcnt};
use super::ops::{Form, ImmKind, Op, Slot, Ty};
use super::target::{IsaFamily, IsaTarget};
use std::fmt;

impl Instr {
    /// The mnemonic on `t` (without `_e32`/`_e64`), `None` if the target lacks the op.
    pub fn mnemonic(&self, t: IsaTarget) -> Option<&'static str> {
        let info = self.op.info();
        if info.opcode[t.column()] == super::ops::NA {
            return None;
        }
        let n = match t {
            IsaTarget::Gfx908 | IsaTarget::Gfx90a => info.names[0],
            IsaTarget::Gfx942 if !info.names[1].is_empty() => info.names[1],
            IsaTarget::Gfx942 => info.names[0],
            _ => info.names[2],
        };
        (!n.is_empty()).then_some(n)
    }

    /// A [`fmt::Display`] of this instruction in LLVM syntax for `t`.
    pub fn display(&self, t: IsaTarget) -> InstrDisplay<'_> {
        InstrDisplay { instr: self, t }
    }
}

/// See [`Instr::display`].
pub struct InstrDisplay<'a> {
    instr: &'a Instr,
    t: IsaTarget,
}

fn bits(f: &mut fmt::Formatter<'_>, name: &str, v: u8, n: usize) -> fmt::Result {
    write!(f, " {name}:[")?;
    for i in 0..n {
        if i > 0 {
            f.write_str(",")?;
        }
        write!(f, "{}", (v >> i) & 1)?;
    }
    f.write_str("]")
}

impl fmt::Display for InstrDisplay<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (i, t) = (self.instr, self.t);
        if let Some(y) = &i.dual {
            let x = Instr {
                dual: None,
                ..i.clone()
            };
            return write!(
                f,
                "{} :: {}",
                super::vopd::half_text(&x, t),
                super::vopd::half_text(y, t)
            );
        }
        let info = i.op.info();
        let Some(name) = i.mnemonic(t) else {
            return write!(f, "// {:?} is not available on {t}", i.op);
        };
        f.write_str(name)?;
        if let Some(ext) = &i.mods.ext {
            f.write_str(super::ext::suffix(ext, i.op))?;
        } else if has_e64(i.op) {
            f.write_str(if i.vop3 { "_e64" } else { "_e32" })?;
        }
        let m = i.mods;
        let vop3 = i.is_vop3_encoded();
        let mut src = 0usize;
        for (k, (o, s)) in i.operands.iter().zip(info.slots).enumerate() {
            f.write_str(if k == 0 { " " } else { ", " })?;
            let is_src = matches!(
                s,
                Slot::VSrc(_) | Slot::VReg(_) | Slot::ASrc(_) | Slot::MaskSrc | Slot::SSrc(_)
            ) && info.form != Form::Sop2
                && info.form != Form::Sop1
                && info.form != Form::Sopc;
            let sext = is_src && matches!(m.ext, Some(VExt::Sdwa(sd)) if (sd.sext >> src) & 1 != 0);
            let (neg, abs) = if is_src && i.op == Op::VFmaMixF32 {
                // neg_hi is the abs of a mixed-precision source.
                ((m.neg >> src) & 1 != 0, (m.neg_hi >> src) & 1 != 0)
            } else if is_src && (vop3 || m.ext.is_some()) {
                ((m.neg >> src) & 1 != 0, (m.abs >> src) & 1 != 0)
            } else {
                (false, false)
            };
            if is_src {
                src += 1;
            }
            // `-29` would read as the integer -29: constants are negated with `neg(..)`.
            let constant = matches!(o, Operand::Int(_) | Operand::Float(_) | Operand::Literal(_));
            let neg_call = neg && !abs && constant;
            if neg_call {
                f.write_str("neg(")?;
            } else if neg {
                f.write_str("-")?;
            }
            if abs {
                f.write_str("|")?;
            }
            if sext {
                f.write_str("sext(")?;
            }
            match (o, s) {
                (Operand::Imm(x), Slot::Simm(ImmKind::Hex16 | ImmKind::Clause)) => {
                    write!(f, "0x{:x}", *x as u16)?
                }
                (Operand::Imm(x), Slot::Simm(ImmKind::DelayAlu)) => delay_alu(f, *x as u16)?,
                // Branch offsets print as the unsigned field, as LLVM prints them (65527
                // for -9); llvm-mc reads both.
                (Operand::Imm(x), Slot::Simm(ImmKind::Branch)) => write!(f, "{}", *x as u16)?,
                (Operand::Imm(x), Slot::Simm(ImmKind::Depctr)) => depctr(f, *x as u16)?,
                (Operand::Imm(x), Slot::Simm(ImmKind::Sendmsg)) => {
                    let name = SENDMSG_NAMES
                        .iter()
                        .find(|(fam, id, _)| *fam == t.family() && i32::from(*id) == *x);
                    match name {
                        Some((_, _, n)) => write!(f, "sendmsg({n})")?,
                        None => write!(f, "{}", *x as u16)?,
                    }
                }
                // Like LLVM: only the counters waited on, all three when none is.
                (Operand::Waitcnt(w), _) => {
                    let max = Waitcnt::max(t.family());
                    let fields = [
                        ("vmcnt", w.vm, max.vm),
                        ("expcnt", w.exp, max.exp),
                        ("lgkmcnt", w.lgkm, max.lgkm),
                    ];
                    let all_max = fields.iter().all(|(_, v, m)| v == m);
                    let mut first = true;
                    for (name, v, m) in fields {
                        if all_max || v != m {
                            if !first {
                                f.write_str(" ")?;
                            }
                            first = false;
                            write!(f, "{name}({v})")?;
                        }
                    }
                }
                // 64-bit operands read inline floats as doubles: 1/(2π) needs all digits.
                (Operand::Float(x), Slot::VSrc(2) | Slot::SSrc(2)) if info.ty != Ty::F32 => {
                    fmt_float(f, *x, true)?
                }
                // K is always the literal dword, printed as one.
                (Operand::Literal(x), Slot::Kimm) => write!(f, "0x{x:x}")?,
                (Operand::Float(x), Slot::MfmaAcc(_)) if info.ty == Ty::F64 => {
                    fmt_float(f, *x, true)?
                }
                _ => write!(f, "{o}")?,
            }
            if sext {
                f.write_str(")")?;
            }
            if abs {
                f.write_str("|")?;
            }
            if neg_call {
                f.write_str(")")?;
            }
        }
        let cache_names: [(Cache, &str); 4] = if t.sc_cache_bits() {
            [
                (Cache::GLC, "sc0"),
                (Cache::SLC, "nt"),
                (Cache::SC1, "sc1"),
                (Cache::DLC, "dlc"),
            ]
        } else {
            [
                (Cache::GLC, "glc"),
                (Cache::SLC, "slc"),
                (Cache::DLC, "dlc"),
                (Cache::SC1, "sc1"),
            ]
        };
        let nsrc = source_count(info);
        if let Some(ext) = &m.ext {
            return super::ext::fmt_fields(f, i, ext);
        }
        match info.form {
            Form::Smem => {
                // gfx11 names the (null) offset register when the immediate is zero.
                if m.offset == 0 && t.family() == IsaFamily::Gfx11 {
                    f.write_str(", null")?;
                } else if m.offset < 0 {
                    write!(f, ", -0x{:x}", -i64::from(m.offset))?;
                } else {
                    write!(f, ", 0x{:x}", m.offset)?;
                }
                // SMEM keeps the `glc` spelling on gfx942.
                if m.cache.has(Cache::GLC) {
                    f.write_str(" glc")?;
                }
                if m.cache.has(Cache::DLC) {
                    f.write_str(" dlc")?;
                }
            }
            Form::Ds => {
                if ds_two_addr(i.op) {
                    if m.offset != 0 {
                        write!(f, " offset0:{}", m.offset)?;
                    }
                    if m.offset1 != 0 {
                        write!(f, " offset1:{}", m.offset1)?;
                    }
                } else if i.op == Op::DsSwizzleB32 && m.offset != 0 {
                    f.write_str(" offset:")?;
                    fmt_swizzle(f, m.offset as u16)?;
                } else if m.offset != 0 {
                    write!(f, " offset:{}", m.offset)?;
                }
            }
            Form::Buffer => {
                if matches!(i.operands.get(1), Some(Operand::Vgpr(_))) {
                    f.write_str(" offen")?;
                }
                if m.offset != 0 {
                    write!(f, " offset:{}", m.offset)?;
                }
                for (b, n) in cache_names {
                    if m.cache.has(b) {
                        write!(f, " {n}")?;
                    }
                }
            }
            Form::Global | Form::Flat | Form::Scratch => {
                if m.offset != 0 {
                    write!(f, " offset:{}", m.offset)?;
                }
                for (b, n) in cache_names {
                    if m.cache.has(b) {
                        write!(f, " {n}")?;
                    }
                }
            }
            Form::Vop3p if i.op == Op::VFmaMixF32 => {
                let all = (1u8 << nsrc) - 1;
                if m.op_sel & all != 0 {
                    bits(f, "op_sel", m.op_sel, nsrc)?;
                }
                if m.op_sel_hi & all != 0 {
                    bits(f, "op_sel_hi", m.op_sel_hi, nsrc)?;
                }
                if m.clamp {
                    f.write_str(" clamp")?;
                }
            }
            Form::Vop3p | Form::Wmma => {
                let all = (1u8 << nsrc) - 1;
                if m.op_sel & all != 0 {
                    bits(f, "op_sel", m.op_sel, nsrc)?;
                }
                if m.op_sel_hi & all != all && info.form == Form::Vop3p {
                    bits(f, "op_sel_hi", m.op_sel_hi, nsrc)?;
                }
                if m.neg & all != 0 {
                    bits(f, "neg_lo", m.neg, nsrc)?;
                }
                if m.neg_hi & all != 0 {
                    bits(f, "neg_hi", m.neg_hi, nsrc)?;
                }
                if m.clamp {
                    f.write_str(" clamp")?;
                }
            }
            Form::Mai => {
                if m.cbsz != 0 {
                    write!(f, " cbsz:{}", m.cbsz)?;
                }
                if m.abid != 0 {
                    write!(f, " abid:{}", m.abid)?;
                }
                if m.blgp != 0 {
                    write!(f, " blgp:{}", m.blgp)?;
                }
            }
            _ if vop3 => {
                if m.clamp {
                    f.write_str(" clamp")?;
                }
                match m.omod {
                    1 => f.write_str(" mul:2")?,
                    2 => f.write_str(" mul:4")?,
                    3 => f.write_str(" div:2")?,
                    _ => {}
                }
            }
            _ => {}
        }
        Ok(())
    }
}

/// Whether a bit-mask swizzle is the one its macro spelling assembles to: per lane bit
/// only constant 0 or 1 (`and` clear, `or` the value, no `xor`), preserve (`and`) or
/// invert (`and` and `xor`). Other encodings print as raw offsets so they round-trip.
pub(crate) fn swizzle_has_macro(imm: u16) -> bool {
    let (and, or, xor) = (imm & 0x1f, (imm >> 5) & 0x1f, (imm >> 10) & 0x1f);
    imm & 0x8000 == 0 && and & or == 0 && xor & !and == 0
}

/// A `ds_swizzle_b32` offset as LLVM spells it. Bit 15 clear: bit-mask mode, where lane
/// `l` reads lane `((l & and) | or) ^ xor` within groups of 32 (5-bit masks at bits 0,
/// 5, 10); `0x80xx`: quad permute, two bits per lane of each quad. Bit-mask patterns
/// that are swaps, reversals or broadcasts get those names; the rest print per lane bit
/// as `0`/`1` (constant), `p` (preserved) or `i` (inverted), most significant first.
/// Encodings no macro produces print as numbers (LLVM prints a lossy macro for them).
fn fmt_swizzle(f: &mut fmt::Formatter<'_>, imm: u16) -> fmt::Result {
    if imm & 0xff00 == 0x8000 {
        let lane = |k: u16| (imm >> (2 * k)) & 3;
        return write!(
            f,
            "swizzle(QUAD_PERM,{},{},{},{})",
            lane(0),
            lane(1),
            lane(2),
            lane(3)
        );
    }
    if imm & 0x8000 != 0 || !swizzle_has_macro(imm) {
        return write!(f, "{imm}");
    }
    let (and, or, xor) = (imm & 0x1f, (imm >> 5) & 0x1f, (imm >> 10) & 0x1f);
    if and == 0x1f && or == 0 && xor.count_ones() == 1 {
        return write!(f, "swizzle(SWAP,{xor})");
    }
    if and == 0x1f && or == 0 && xor > 0 && (xor + 1).is_power_of_two() {
        return write!(f, "swizzle(REVERSE,{})", xor + 1);
    }
    let group = 0x1f - and + 1;
    if group > 1 && group.is_power_of_two() && or < group && xor == 0 {
        return write!(f, "swizzle(BROADCAST,{group},{or})");
    }
    f.write_str("swizzle(BITMASK_PERM,\"")?;
    for b in (0..5).rev() {
        let bit = 1 << b;
        // The lane bit's value when the source lane bit is 0 and when it is 1.
        let v0 = (or ^ xor) & bit != 0;
        let v1 = ((and | or) ^ xor) & bit != 0;
        f.write_str(match (v0, v1) {
            (false, false) => "0",
            (true, true) => "1",
            (false, true) => "p",
            (true, false) => "i",
        })?;
    }
    f.write_str("\")")
}

/// Message ids `s_sendmsg` prints by name (the ones without operation fields), per family.
pub(crate) const SENDMSG_NAMES: &[(IsaFamily, u16, &str)] = &[
    (IsaFamily::Gfx9, 1, "MSG_INTERRUPT"),
    (IsaFamily::Gfx9, 5, "MSG_STALL_WAVE_GEN"),
    (IsaFamily::Gfx9, 6, "MSG_HALT_WAVES"),
    (IsaFamily::Gfx11, 1, "MSG_INTERRUPT"),
    (IsaFamily::Gfx11, 3, "MSG_DEALLOC_VGPRS"),
    (IsaFamily::Gfx11, 5, "MSG_STALL_WAVE_GEN"),
    (IsaFamily::Gfx11, 6, "MSG_HALT_WAVES"),
];

/// `s_delay_alu` dependency names, by the 4-bit `instid` code.
const DELAY_IDS: [&str; 12] = [
    "NO_DEP",
    "VALU_DEP_1",
    "VALU_DEP_2",
    "VALU_DEP_3",
    "VALU_DEP_4",
    "TRANS32_DEP_1",
    "TRANS32_DEP_2",
    "TRANS32_DEP_3",
    "FMA_ACCUM_CYCLE_1",
    "SALU_CYCLE_1",
    "SALU_CYCLE_2",
    "SALU_CYCLE_3",
];
/// `s_delay_alu` skip names, by the 3-bit `instskip` code.
const DELAY_SKIPS: [&str; 6] = ["SAME", "NEXT", "SKIP_1", "SKIP_2", "SKIP_3", "SKIP_4"];

/// Whether every field of an `s_delay_alu` immediate has a name.
pub(crate) fn delay_alu_valid(x: u16) -> bool {
    (x & 0xf) < 12 && ((x >> 4) & 7) < 6 && ((x >> 7) & 0xf) < 12 && x >> 11 == 0
}

/// Writes an `s_delay_alu` immediate as LLVM does: the non-zero fields joined by ` | `,
/// `0` when all are zero.
fn delay_alu(f: &mut fmt::Formatter<'_>, x: u16) -> fmt::Result {
    if !delay_alu_valid(x) {
        return write!(f, "0x{x:x}");
    }
    let (id0, skip, id1) = (x & 0xf, (x >> 4) & 7, (x >> 7) & 0xf);
    let mut parts = Vec::new();
    if id0 != 0 {
        parts.push(format!("instid0({})", DELAY_IDS[id0 as usize]));
    }
    if skip != 0 {
        parts.push(format!("instskip({})", DELAY_SKIPS[skip as usize]));
    }
    if id1 != 0 {
        parts.push(format!("instid1({})", DELAY_IDS[id1 as usize]));
    }
    if parts.is_empty() {
        f.write_str("0")
    } else {
        f.write_str(&parts.join(" | "))
    }
}

/// The gfx11 `s_waitcnt_depctr` fields in LLVM's print order: name, low bit, width.
const DEPCTR_FIELDS: [(&str, u16, u16); 7] = [
    ("depctr_hold_cnt", 7, 1),
    ("depctr_sa_sdst", 0, 1),
    ("depctr_va_vdst", 12, 4),
    ("depctr_va_sdst", 9, 3),
    ("depctr_va_ssrc", 8, 1),
    ("depctr_va_vcc", 1, 1),
    ("depctr_vm_vsrc", 2, 3),
];

/// Writes an `s_waitcnt_depctr` immediate as LLVM does: symbolically when the bits
/// outside the fields (6:5) are zero, naming the fields below their maximum (every
/// field when none is), else in hex.
fn depctr(f: &mut fmt::Formatter<'_>, x: u16) -> fmt::Result {
    let covered = DEPCTR_FIELDS
        .iter()
        .fold(0u16, |m, (_, lo, w)| m | ((1 << w) - 1) << lo);
    if x & !covered != 0 {
        return write!(f, "0x{x:x}");
    }
    let value = |lo: u16, w: u16| (x >> lo) & ((1 << w) - 1);
    let any_waits = DEPCTR_FIELDS
        .iter()
        .any(|&(_, lo, w)| value(lo, w) != (1 << w) - 1);
    let mut first = true;
    for &(name, lo, w) in &DEPCTR_FIELDS {
        let v = value(lo, w);
        if v != (1 << w) - 1 || !any_waits {
            if !first {
                f.write_str(" ")?;
            }
            first = false;
            write!(f, "{name}({v})")?;
        }
    }
    Ok(())
}
