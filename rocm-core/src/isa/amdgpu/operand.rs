//! Operands: register ranges, special registers, inline constants, literals and the
//! immediates of scalar instructions, with their 8/9-bit source encodings.
//!
//! Source fields of VALU/SALU instructions share one numbering (9 bits in vector forms,
//! 8 in scalar forms): `0..=105` SGPRs, 106/107 `vcc_lo`/`vcc_hi`, 124/125 `m0`/`null`
//! (gfx9: 124 is `m0`; gfx11: 124 `null`, 125 `m0`), 126/127 `exec_lo`/`exec_hi`,
//! 128 + n the integers 0..=64, 193..=208 the integers -1..=-16, 240..=248 the float
//! constants, 253 `scc`, 255 a 32-bit literal in the next dword, 256 + n VGPR (or AGPR
//! where the instruction says so).

use super::target::{IsaFamily, IsaTarget};
use std::fmt;

/// A range of consecutive registers `first .. first + count`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct RegRange {
    pub first: u16,
    pub count: u8,
}

impl RegRange {
    pub fn new(first: u16, count: u8) -> Self {
        RegRange { first, count }
    }
    /// One past the last register.
    pub fn end(self) -> u32 {
        u32::from(self.first) + u32::from(self.count)
    }
}

/// The float values an instruction can encode without a literal.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum InlineFloat {
    Half,
    NegHalf,
    One,
    NegOne,
    Two,
    NegTwo,
    Four,
    NegFour,
    /// 1/(2π), only on targets with the `inv-2pi-inline-imm` feature (all of ours).
    InvTwoPi,
}

impl InlineFloat {
    pub const ALL: [InlineFloat; 9] = [
        InlineFloat::Half,
        InlineFloat::NegHalf,
        InlineFloat::One,
        InlineFloat::NegOne,
        InlineFloat::Two,
        InlineFloat::NegTwo,
        InlineFloat::Four,
        InlineFloat::NegFour,
        InlineFloat::InvTwoPi,
    ];

    fn code(self) -> u16 {
        match self {
            InlineFloat::InvTwoPi => 248,
            other => 240 + other as u16,
        }
    }

    fn from_code(c: u16) -> Option<Self> {
        match c {
            240..=247 => Some(InlineFloat::ALL[usize::from(c - 240)]),
            248 => Some(InlineFloat::InvTwoPi),
            _ => None,
        }
    }

    /// The value's f32 bit pattern (`0x3e22f983` for 1/(2π)).
    pub fn f32_bits(self) -> u32 {
        (self.value() as f32).to_bits()
    }

    /// The value as f64 (the operand's type decides how hardware reads it).
    pub fn value(self) -> f64 {
        match self {
            InlineFloat::Half => 0.5,
            InlineFloat::NegHalf => -0.5,
            InlineFloat::One => 1.0,
            InlineFloat::NegOne => -1.0,
            InlineFloat::Two => 2.0,
            InlineFloat::NegTwo => -2.0,
            InlineFloat::Four => 4.0,
            InlineFloat::NegFour => -4.0,
            InlineFloat::InvTwoPi => 0.5 / std::f64::consts::PI,
        }
    }
}

/// The three counters of `s_waitcnt`; a field at its family maximum means "do not wait".
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Waitcnt {
    /// Vector memory (loads, and stores on gfx9): 0..=63.
    pub vm: u8,
    /// Exports and GDS: 0..=7.
    pub exp: u8,
    /// LDS, scalar memory, messages: 0..=15 (gfx9) or 0..=63 (gfx11).
    pub lgkm: u8,
}

impl Waitcnt {
    /// Maximum (no-wait) values of vm, exp, lgkm in a family.
    pub fn max(family: IsaFamily) -> Waitcnt {
        match family {
            IsaFamily::Gfx9 => Waitcnt {
                vm: 63,
                exp: 7,
                lgkm: 15,
            },
            IsaFamily::Gfx11 => Waitcnt {
                vm: 63,
                exp: 7,
                lgkm: 63,
            },
        }
    }

    /// The 16-bit immediate; `None` when a field does not fit.
    pub fn encode(self, family: IsaFamily) -> Option<u16> {
        let m = Waitcnt::max(family);
        if self.vm > m.vm || self.exp > m.exp || self.lgkm > m.lgkm {
            return None;
        }
        let (vm, exp, lgkm) = (
            u16::from(self.vm),
            u16::from(self.exp),
            u16::from(self.lgkm),
        );
        Some(match family {
            IsaFamily::Gfx9 => (vm & 0xf) | (exp << 4) | (lgkm << 8) | ((vm >> 4) << 14),
            IsaFamily::Gfx11 => exp | (lgkm << 4) | (vm << 10),
        })
    }

    /// The counters of an immediate; `None` if it sets bits outside the fields.
    pub fn decode(raw: u16, family: IsaFamily) -> Option<Waitcnt> {
        let w = match family {
            IsaFamily::Gfx9 => Waitcnt {
                vm: ((raw & 0xf) | ((raw >> 14) << 4)) as u8,
                exp: ((raw >> 4) & 7) as u8,
                lgkm: ((raw >> 8) & 0xf) as u8,
            },
            IsaFamily::Gfx11 => Waitcnt {
                vm: (raw >> 10) as u8,
                exp: (raw & 7) as u8,
                lgkm: ((raw >> 4) & 0x3f) as u8,
            },
        };
        (w.encode(family) == Some(raw)).then_some(w)
    }
}

/// One operand of an instruction.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Operand {
    /// Scalar registers `s[first:first+count-1]`.
    Sgpr(RegRange),
    /// Vector registers.
    Vgpr(RegRange),
    /// Accumulation registers (gfx9 MFMA).
    Agpr(RegRange),
    /// `vcc` (64-bit pair).
    Vcc,
    VccLo,
    VccHi,
    /// `exec` (64-bit pair).
    Exec,
    ExecLo,
    ExecHi,
    M0,
    /// `flat_scratch` (gfx9, 64-bit pair): the base of the wave's flat scratch accesses.
    FlatScratch,
    FlatScratchLo,
    FlatScratchHi,
    /// `src_scc`, read as a source.
    Scc,
    /// gfx11 `null`: reads zero, discards writes.
    Null,
    /// An inline integer constant, -16..=64.
    Int(i8),
    /// An inline float constant.
    Float(InlineFloat),
    /// A 32-bit literal that follows the instruction.
    Literal(u32),
    /// The 16-bit immediate of SOPK/SOPP instructions (branch offsets in dwords, signed).
    Imm(i32),
    /// The counters of `s_waitcnt`.
    Waitcnt(Waitcnt),
    /// `off`: no scalar base address (global memory).
    Off,
    /// `src_shared_base` / `_limit`, `src_private_base` / `_limit`: the apertures of
    /// generic addresses, read as a source.
    Aperture(Aperture),
}

/// The address-space apertures of generic (flat) addresses. A flat address whose high
/// dword equals an aperture's is an LDS (shared) or scratch (private) address; its low
/// dword is the offset in that space. Read as a 64-bit source the base is the full
/// address (`hi << 32`), as a 32-bit source its high dword; the limit is the base's
/// last byte (`base | 0xffff_ffff`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Aperture {
    SharedBase,
    SharedLimit,
    PrivateBase,
    PrivateLimit,
}

impl Aperture {
    /// In scalar-code order (235..=238).
    pub const ALL: [Aperture; 4] = [
        Aperture::SharedBase,
        Aperture::SharedLimit,
        Aperture::PrivateBase,
        Aperture::PrivateLimit,
    ];

    /// The scalar source code.
    pub fn code(self) -> u16 {
        235 + self as u16
    }

    pub fn name(self) -> &'static str {
        match self {
            Aperture::SharedBase => "src_shared_base",
            Aperture::SharedLimit => "src_shared_limit",
            Aperture::PrivateBase => "src_private_base",
            Aperture::PrivateLimit => "src_private_limit",
        }
    }
}

/// Shorthands for building operands.
pub fn s(n: u16) -> Operand {
    Operand::Sgpr(RegRange::new(n, 1))
}
pub fn v(n: u16) -> Operand {
    Operand::Vgpr(RegRange::new(n, 1))
}
pub fn a(n: u16) -> Operand {
    Operand::Agpr(RegRange::new(n, 1))
}
pub fn sr(first: u16, count: u8) -> Operand {
    Operand::Sgpr(RegRange::new(first, count))
}
pub fn vr(first: u16, count: u8) -> Operand {
    Operand::Vgpr(RegRange::new(first, count))
}
pub fn ar(first: u16, count: u8) -> Operand {
    Operand::Agpr(RegRange::new(first, count))
}

impl Operand {
    /// The inline constant whose 32-bit pattern is `x`, if there is one: an integer
    /// -16..=64 or the f32 bits of an [`InlineFloat`]. This is LLVM's
    /// `isInlinableLiteral32` (AMDGPUBaseInfo.cpp), which ignores whether the operand is
    /// integer or float: llvm-mc encodes `v_add_u32 v1, 0x3f800000, v2` with source 242
    /// (1.0), so a 32-bit literal with such bits must be encoded inline to match it.
    pub fn inline32(x: u32) -> Option<Operand> {
        let signed = x as i32;
        if (-16..=64).contains(&signed) {
            return Some(Operand::Int(signed as i8));
        }
        InlineFloat::ALL
            .into_iter()
            .find(|f| f.f32_bits() == x)
            .map(Operand::Float)
    }

    /// The integer `x` as an inline constant if it is one, else a literal.
    pub fn imm32(x: i64) -> Operand {
        if (-16..=64).contains(&x) {
            Operand::Int(x as i8)
        } else {
            Operand::Literal(x as u32)
        }
    }

    /// Registers covered (1 for specials and constants, 2 for `vcc`/`exec`).
    pub fn width(&self) -> Option<u8> {
        match self {
            Operand::Sgpr(r) | Operand::Vgpr(r) | Operand::Agpr(r) => Some(r.count),
            Operand::Vcc | Operand::Exec | Operand::FlatScratch => Some(2),
            Operand::FlatScratchLo | Operand::FlatScratchHi => Some(1),
            Operand::VccLo
            | Operand::VccHi
            | Operand::ExecLo
            | Operand::ExecHi
            | Operand::M0
            | Operand::Scc
            | Operand::Literal(_) => Some(1),
            // Constants and null adapt to the operand size.
            _ => None,
        }
    }

    /// Whether the value goes over the scalar constant bus (SGPRs, specials, literals).
    pub fn is_scalar_value(&self) -> bool {
        matches!(
            self,
            Operand::Sgpr(_)
                | Operand::Vcc
                | Operand::VccLo
                | Operand::VccHi
                | Operand::Exec
                | Operand::ExecLo
                | Operand::ExecHi
                | Operand::M0
                | Operand::FlatScratch
                | Operand::FlatScratchLo
                | Operand::FlatScratchHi
                | Operand::Scc
                | Operand::Literal(_)
                | Operand::Aperture(_)
        )
    }

    /// The scalar-register or constant code of a source/destination field, without the
    /// VGPR offset; `None` for vector registers, immediates and operands the target lacks.
    pub fn scalar_code(&self, t: IsaTarget) -> Option<u16> {
        let g11 = t.family() == IsaFamily::Gfx11;
        Some(match *self {
            Operand::Sgpr(r) => {
                if r.end() > u32::from(t.sgpr_count()) {
                    return None;
                }
                r.first
            }
            Operand::Vcc | Operand::VccLo => 106,
            Operand::VccHi => 107,
            Operand::M0 => {
                if g11 {
                    125
                } else {
                    124
                }
            }
            Operand::Null if g11 => 124,
            Operand::FlatScratch | Operand::FlatScratchLo if !g11 => 102,
            Operand::FlatScratchHi if !g11 => 103,
            Operand::Exec | Operand::ExecLo => 126,
            Operand::ExecHi => 127,
            Operand::Int(i) if (0..=64).contains(&i) => 128 + i as u16,
            Operand::Int(i) if (-16..0).contains(&i) => (192 - i as i16) as u16,
            Operand::Float(f) => f.code(),
            Operand::Scc => 253,
            Operand::Literal(_) => 255,
            Operand::Aperture(a) => a.code(),
            _ => return None,
        })
    }

    /// The operand of a scalar code; `width` is the operand's size in dwords (it picks
    /// `vcc` over `vcc_lo`). Literals come back as `Literal(0)` (the caller fills them).
    pub fn from_scalar_code(code: u16, width: u8, t: IsaTarget) -> Option<Operand> {
        let g11 = t.family() == IsaFamily::Gfx11;
        let wide = width >= 2;
        Some(match code {
            c if c < t.sgpr_count() => Operand::Sgpr(RegRange::new(c, width)),
            106 if wide => Operand::Vcc,
            106 => Operand::VccLo,
            107 if !wide => Operand::VccHi,
            102 if !g11 && wide => Operand::FlatScratch,
            102 if !g11 => Operand::FlatScratchLo,
            103 if !g11 && !wide => Operand::FlatScratchHi,
            124 if g11 => Operand::Null,
            124 if !wide => Operand::M0,
            125 if g11 && !wide => Operand::M0,
            126 if wide => Operand::Exec,
            126 => Operand::ExecLo,
            127 if !wide => Operand::ExecHi,
            128..=192 => Operand::Int((code - 128) as i8),
            193..=208 => Operand::Int(-((code - 192) as i16) as i8),
            240..=248 => Operand::Float(InlineFloat::from_code(code)?),
            235..=238 => Operand::Aperture(Aperture::ALL[usize::from(code - 235)]),
            253 => Operand::Scc,
            255 => Operand::Literal(0),
            _ => return None,
        })
    }
}

fn fmt_range(f: &mut fmt::Formatter<'_>, prefix: char, r: RegRange) -> fmt::Result {
    if r.count == 1 {
        write!(f, "{prefix}{}", r.first)
    } else {
        write!(f, "{prefix}[{}:{}]", r.first, r.end().saturating_sub(1))
    }
}

impl fmt::Display for Operand {
    /// LLVM syntax. Inline 1/(2π) prints with f32 precision; the printer of instructions
    /// spells it in full for 64-bit operands.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Operand::Sgpr(r) => fmt_range(f, 's', r),
            Operand::Vgpr(r) => fmt_range(f, 'v', r),
            Operand::Agpr(r) => fmt_range(f, 'a', r),
            Operand::Vcc => f.write_str("vcc"),
            Operand::VccLo => f.write_str("vcc_lo"),
            Operand::VccHi => f.write_str("vcc_hi"),
            Operand::FlatScratch => f.write_str("flat_scratch"),
            Operand::FlatScratchLo => f.write_str("flat_scratch_lo"),
            Operand::FlatScratchHi => f.write_str("flat_scratch_hi"),
            Operand::Exec => f.write_str("exec"),
            Operand::ExecLo => f.write_str("exec_lo"),
            Operand::ExecHi => f.write_str("exec_hi"),
            Operand::M0 => f.write_str("m0"),
            Operand::Scc => f.write_str("src_scc"),
            Operand::Null => f.write_str("null"),
            Operand::Int(i) => write!(f, "{i}"),
            Operand::Float(x) => fmt_float(f, x, false),
            // A literal with an inline constant's bits (a relocated value) prints as
            // that constant, as LLVM prints it.
            Operand::Literal(x) => match Operand::inline32(x) {
                Some(c) => write!(f, "{c}"),
                None => write!(f, "0x{x:x}"),
            },
            Operand::Imm(i) => write!(f, "{i}"),
            Operand::Waitcnt(w) => {
                write!(f, "vmcnt({}) expcnt({}) lgkmcnt({})", w.vm, w.exp, w.lgkm)
            }
            Operand::Off => f.write_str("off"),
            Operand::Aperture(a) => f.write_str(a.name()),
        }
    }
}

/// Prints an inline float; `f64_operand` selects the double spelling of 1/(2π).
pub fn fmt_float(f: &mut fmt::Formatter<'_>, x: InlineFloat, f64_operand: bool) -> fmt::Result {
    match x {
        InlineFloat::InvTwoPi if f64_operand => f.write_str("0.15915494309189532"),
        InlineFloat::InvTwoPi => f.write_str("0.15915494"),
        other => write!(f, "{:?}", other.value()),
    }
}
