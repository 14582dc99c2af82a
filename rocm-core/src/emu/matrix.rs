//! Execution of MFMA (gfx9, wave64) and WMMA (gfx11, wave32) instructions on register
//! tuples, through the layouts of [`crate::isa::amdgpu::matrix`].
//!
//! Register tuples are passed register-major: element `r * lanes + lane` is register `r`
//! of the tuple at lane `lane` (`lanes` = 64 for MFMA, 32 for WMMA). Tuple sizes are the
//! [`shape`]'s `a_regs`, `b_regs` and `cd_regs` times `lanes`; other lengths are an error.
//!
//! # Numerics
//!
//! Hardware does not document its accumulation order or internal precision, so callers
//! compare with tolerances. What we do:
//!
//! - **f32, f16, bf16, xf32, fp8 inputs, f32 accumulation**: each D[i][j] starts from
//!   C[i][j] and adds A[i][k]·B[k][j] in k order with one f32 fused multiply-add per k
//!   (products of f16/bf16/xf32/fp8 values are exact in f32, so for them this is an f32
//!   sum of exact products; for f32 inputs each step rounds once). Denormals are kept.
//! - **xf32** (gfx942 `_xf32`): each f32 input is first rounded to 10 explicit mantissa
//!   bits (round to nearest, ties to even; NaN and infinity unchanged). That rounding is
//!   our assumption about gfx942's xf32 (AMD documents it only as "reduced precision").
//! - **fp8** (gfx942 `_fp8_fp8`): E4M3 "FNUZ" (exponent bias 8, no infinities, 0x80 is
//!   NaN, no negative zero), decoded exactly to f32.
//! - **f64**: f64 fused multiply-add in k order starting from C.
//! - **i8, iu8, iu4**: exact products summed in i32 with wrapping, starting from C.
//! - **WMMA f16/bf16 results**: accumulated in f32 as above from C (read from the same half
//!   as D), rounded once at the end to nearest even, written to bits [15:0] of each D
//!   register, or [31:16] when OP_SEL[2] (`mods.op_sel & 4`) is set; the other half of the
//!   register keeps what `d` held (`d` arrives holding the destination's current contents).
//!
//! # Modifiers
//!
//! - MFMA: CBSZ, ABID and BLGP must be 0 (`Unsupported` otherwise), except on gfx942 f64
//!   where BLGP bits 0/1/2 negate A/B/C (its documented reuse). MAI has no NEG/ABS/OP_SEL/
//!   clamp fields: non-zero values there are `InvalidArgument`.
//! - WMMA float: NEG[0]/NEG_HI[0] negate the low/high 16-bit half of every A register
//!   (even/odd k), NEG[1]/NEG_HI[1] the same for B, NEG_HI[2] takes |C|, NEG[2] negates C
//!   (after the absolute value). WMMA iu8/iu4: NEG[0] makes A signed, NEG[1] B signed
//!   (unsigned when clear); NEG[2] and NEG_HI must be 0. OP_SEL[1:0] must be 0, OP_SEL[2]
//!   is only for 16-bit results; clamp is `Unsupported`.
//! - gfx11 WMMA A/B are replicated in lanes `l` and `l + 16`; if a register differs between
//!   the two, `execute` returns `InvalidArgument` naming the operand, register and lanes.

use crate::isa::amdgpu::matrix::{Location, MatrixLayout, MatrixType};
use crate::isa::amdgpu::{IsaTarget, Mods, Op};
use crate::{Error, Result};
use half::{bf16, f16};

#[cfg(doc)]
use crate::isa::amdgpu::matrix::shape;

/// Executes one MFMA or WMMA: `d = a * b + c` with the instruction's layouts, modifiers
/// (CBSZ/ABID/BLGP, NEG/NEG_HI, OP_SEL for 16-bit results) and numerics. `c` is already
/// fetched (an inline constant C arrives broadcast to every element). WMMA checks that
/// the replicated A/B lane halves agree and reports an error naming the first mismatch.
pub fn execute(
    op: Op,
    mods: &Mods,
    target: IsaTarget,
    a: &[u32],
    b: &[u32],
    c: &[u32],
    d: &mut [u32],
) -> Result<()> {
    let layout = MatrixLayout::new(op, target).ok_or_else(|| {
        Error::unsupported(
            format!("{op:?} (not a matrix instruction of {target})"),
            "emu",
        )
    })?;
    let s = layout.shape();
    let lanes = s.lanes as usize;
    for (name, len, regs) in [
        ("A (src0)", a.len(), s.a_regs),
        ("B (src1)", b.len(), s.b_regs),
        ("C (src2)", c.len(), s.cd_regs),
        ("D (vdst)", d.len(), s.cd_regs),
    ] {
        let want = usize::from(regs) * lanes;
        if len != want {
            return Err(Error::invalid(
                format!("{op:?} {name}"),
                format!(
                    "tuple has {len} values; {regs} registers x {lanes} lanes = {want} expected"
                ),
            ));
        }
    }
    let m = Modifiers::check(op, mods, target, &layout)?;
    if layout.is_wmma() {
        check_replicas(op, "A (src0)", a, lanes)?;
        check_replicas(op, "B (src1)", b, lanes)?;
    }
    let ex = Exec {
        layout,
        m,
        op_sel: mods.op_sel,
    };
    match (s.input, s.output) {
        (MatrixType::F64, _) => ex.run_f64(a, b, c, d),
        (MatrixType::I8 | MatrixType::Iu8 | MatrixType::Iu4, _) => ex.run_int(a, b, c, d),
        _ => ex.run_f32(a, b, c, d),
    }
}

/// The validated effect of the modifiers.
#[derive(Debug, Clone, Copy, Default)]
struct Modifiers {
    /// Negate A / B elements in the low / high 16 bits of a register (WMMA float), or all
    /// of them (f64 BLGP).
    neg_a: [bool; 2],
    neg_b: [bool; 2],
    abs_c: bool,
    neg_c: bool,
    /// Integer WMMA signedness.
    signed_a: bool,
    signed_b: bool,
}

impl Modifiers {
    fn check(op: Op, mods: &Mods, target: IsaTarget, layout: &MatrixLayout) -> Result<Modifiers> {
        let s = layout.shape();
        let what = || format!("{op:?} modifiers");
        if mods.clamp {
            return Err(Error::unsupported(format!("{op:?} with clamp"), "emu"));
        }
        let mut m = Modifiers::default();
        if !layout.is_wmma() {
            if mods.neg != 0 || mods.neg_hi != 0 || mods.abs != 0 || mods.op_sel != 0 {
                return Err(Error::invalid(
                    what(),
                    "MFMA (VOP3P-MAI) has no neg/neg_hi/abs/op_sel fields",
                ));
            }
            if s.input == MatrixType::F64
                && target == IsaTarget::Gfx942
                && mods.cbsz == 0
                && mods.abid == 0
            {
                // gfx942 reuses BLGP of f64 MFMA as negate A/B/C.
                let neg = mods.blgp;
                m.neg_a = [neg & 1 != 0; 2];
                m.neg_b = [neg & 2 != 0; 2];
                m.neg_c = neg & 4 != 0;
                return Ok(m);
            }
            if mods.cbsz != 0 || mods.abid != 0 || mods.blgp != 0 {
                return Err(Error::unsupported(
                    format!(
                        "{op:?} with cbsz:{} abid:{} blgp:{} (only the zero defaults are emulated)",
                        mods.cbsz, mods.abid, mods.blgp
                    ),
                    "emu",
                ));
            }
            return Ok(m);
        }
        if mods.cbsz != 0 || mods.abid != 0 || mods.blgp != 0 {
            return Err(Error::invalid(what(), "WMMA has no cbsz/abid/blgp fields"));
        }
        if mods.abs != 0 {
            return Err(Error::invalid(what(), "WMMA has no abs modifier"));
        }
        if mods.op_sel & 3 != 0 {
            return Err(Error::invalid(what(), "WMMA op_sel[1:0] must be 0"));
        }
        if mods.op_sel & 4 != 0 && s.output.bits() != 16 {
            return Err(Error::invalid(
                what(),
                "op_sel[2] selects a 16-bit half of C/D; this WMMA has 32-bit results",
            ));
        }
        let integer = matches!(s.input, MatrixType::Iu8 | MatrixType::Iu4);
        if integer {
            if mods.neg & 4 != 0 || mods.neg_hi != 0 {
                return Err(Error::invalid(
                    what(),
                    "integer WMMA: neg[2] and neg_hi must be 0 (neg[1:0] choose signedness)",
                ));
            }
            m.signed_a = mods.neg & 1 != 0;
            m.signed_b = mods.neg & 2 != 0;
        } else {
            m.neg_a = [mods.neg & 1 != 0, mods.neg_hi & 1 != 0];
            m.neg_b = [mods.neg & 2 != 0, mods.neg_hi & 2 != 0];
            m.neg_c = mods.neg & 4 != 0;
            m.abs_c = mods.neg_hi & 4 != 0;
        }
        Ok(m)
    }
}

/// gfx11 WMMA: both half-waves must hold the same A (B) registers.
fn check_replicas(op: Op, name: &str, regs: &[u32], lanes: usize) -> Result<()> {
    let half = lanes / 2;
    for (r, reg) in regs.chunks_exact(lanes).enumerate() {
        let (lo, hi) = reg.split_at(half);
        if let Some(l) = lo.iter().zip(hi).position(|(x, y)| x != y) {
            return Err(Error::invalid(
                format!("{op:?} {name}"),
                format!(
                    "register {r} of the tuple differs between lane {l} (0x{:08x}) and lane {} \
                     (0x{:08x}); gfx11 WMMA needs both half-waves to hold the same data",
                    lo[l],
                    l + half,
                    hi[l]
                ),
            ));
        }
    }
    Ok(())
}

/// Reads the raw bits of one element (up to 64; a 64-bit element spans two registers).
fn read(regs: &[u32], lanes: usize, loc: Location) -> u64 {
    let at = |r: usize| {
        regs.get(r * lanes + usize::from(loc.lane))
            .copied()
            .unwrap_or(0)
    };
    let reg = usize::from(loc.reg);
    if loc.width == 64 {
        return u64::from(at(reg)) | u64::from(at(reg + 1)) << 32;
    }
    let v = at(reg) >> loc.bit;
    let mask = if loc.width >= 32 {
        u32::MAX
    } else {
        (1u32 << loc.width) - 1
    };
    u64::from(v & mask)
}

/// Writes one element's bits, keeping the register's other bits.
fn write(regs: &mut [u32], lanes: usize, loc: Location, bits: u64) {
    let reg = usize::from(loc.reg);
    let lane = usize::from(loc.lane);
    let mut put = |r: usize, v: u32, mask: u32| {
        if let Some(x) = regs.get_mut(r * lanes + lane) {
            *x = (*x & !mask) | (v & mask);
        }
    };
    if loc.width == 64 {
        put(reg, bits as u32, u32::MAX);
        put(reg + 1, (bits >> 32) as u32, u32::MAX);
        return;
    }
    let mask = if loc.width >= 32 {
        u32::MAX
    } else {
        (1u32 << loc.width) - 1
    };
    put(reg, (bits as u32) << loc.bit, mask << loc.bit);
}

/// f32 rounded to 10 explicit mantissa bits, to nearest even (our xf32 assumption).
fn round_xf32(x: f32) -> f32 {
    if !x.is_finite() {
        return x;
    }
    let bits = x.to_bits();
    let dropped = 13;
    let half = (1u32 << (dropped - 1)) - 1 + ((bits >> dropped) & 1);
    f32::from_bits((bits + half) & !((1u32 << dropped) - 1))
}

/// gfx942 fp8 E4M3 FNUZ (bias 8, 0x80 NaN, no infinities) to f32, exactly.
fn fp8_fnuz_to_f32(v: u8) -> f32 {
    if v == 0x80 {
        return f32::NAN;
    }
    let sign = if v & 0x80 != 0 { -1.0 } else { 1.0 };
    let e = i32::from((v >> 3) & 0xf);
    let m = f32::from(v & 7);
    let mag = if e == 0 {
        m * (2f32).powi(-10)
    } else {
        (1.0 + m / 8.0) * (2f32).powi(e - 8)
    };
    sign * mag
}

/// One execution: the layout and the validated modifiers.
struct Exec {
    layout: MatrixLayout,
    m: Modifiers,
    op_sel: u8,
}

impl Exec {
    fn lanes(&self) -> usize {
        self.layout.shape().lanes as usize
    }

    /// Decodes A (M×K, row-major) or B (K×N, row-major) as f32 with negation applied.
    fn inputs_f32(&self, a: &[u32], b: &[u32]) -> (Vec<f32>, Vec<f32>) {
        let s = self.layout.shape();
        let (mm, nn, kk) = (s.m, s.n, s.k);
        let lanes = self.lanes();
        let value = |raw: u64, loc: Location, neg: [bool; 2]| -> f32 {
            let x = match s.input {
                MatrixType::F32 => f32::from_bits(raw as u32),
                MatrixType::Xf32 => round_xf32(f32::from_bits(raw as u32)),
                MatrixType::F16 => f16::from_bits(raw as u16).to_f32(),
                MatrixType::Bf16 => bf16::from_bits(raw as u16).to_f32(),
                MatrixType::Fp8 => fp8_fnuz_to_f32(raw as u8),
                _ => f32::NAN,
            };
            if neg[usize::from(loc.bit >= 16)] {
                -x
            } else {
                x
            }
        };
        let mut av = Vec::with_capacity((mm * kk) as usize);
        for i in 0..mm {
            for k in 0..kk {
                let loc = self.layout.a(i, k).unwrap_or(ZERO_LOC);
                av.push(value(read(a, lanes, loc), loc, self.m.neg_a));
            }
        }
        let mut bv = Vec::with_capacity((kk * nn) as usize);
        for k in 0..kk {
            for j in 0..nn {
                let loc = self.layout.b(k, j).unwrap_or(ZERO_LOC);
                bv.push(value(read(b, lanes, loc), loc, self.m.neg_b));
            }
        }
        (av, bv)
    }

    fn run_f32(&self, a: &[u32], b: &[u32], c: &[u32], d: &mut [u32]) -> Result<()> {
        let s = self.layout.shape();
        let lanes = self.lanes();
        let (av, bv) = self.inputs_f32(a, b);
        let (kk, nn) = (s.k as usize, s.n as usize);
        for i in 0..s.m {
            for j in 0..s.n {
                let loc = self.layout.cd(i, j, self.op_sel).unwrap_or(ZERO_LOC);
                let raw = read(c, lanes, loc);
                let mut acc = match s.output {
                    MatrixType::F16 => f16::from_bits(raw as u16).to_f32(),
                    MatrixType::Bf16 => bf16::from_bits(raw as u16).to_f32(),
                    _ => f32::from_bits(raw as u32),
                };
                if self.m.abs_c {
                    acc = acc.abs();
                }
                if self.m.neg_c {
                    acc = -acc;
                }
                let row = &av[i as usize * kk..][..kk];
                for (k, x) in row.iter().enumerate() {
                    acc = x.mul_add(bv[k * nn + j as usize], acc);
                }
                let bits = match s.output {
                    MatrixType::F16 => u64::from(f16::from_f32(acc).to_bits()),
                    MatrixType::Bf16 => u64::from(bf16::from_f32(acc).to_bits()),
                    _ => u64::from(acc.to_bits()),
                };
                write(d, lanes, loc, bits);
            }
        }
        Ok(())
    }

    fn run_f64(&self, a: &[u32], b: &[u32], c: &[u32], d: &mut [u32]) -> Result<()> {
        let s = self.layout.shape();
        let lanes = self.lanes();
        let sign = |neg: bool| if neg { -1.0 } else { 1.0 };
        for i in 0..s.m {
            for j in 0..s.n {
                let loc = self.layout.cd(i, j, 0).unwrap_or(ZERO_LOC);
                let mut acc = sign(self.m.neg_c) * f64::from_bits(read(c, lanes, loc));
                for k in 0..s.k {
                    let x = f64::from_bits(read(a, lanes, self.layout.a(i, k).unwrap_or(ZERO_LOC)));
                    let y = f64::from_bits(read(b, lanes, self.layout.b(k, j).unwrap_or(ZERO_LOC)));
                    acc = (sign(self.m.neg_a[0]) * x).mul_add(sign(self.m.neg_b[0]) * y, acc);
                }
                write(d, lanes, loc, acc.to_bits());
            }
        }
        Ok(())
    }

    fn run_int(&self, a: &[u32], b: &[u32], c: &[u32], d: &mut [u32]) -> Result<()> {
        let s = self.layout.shape();
        let lanes = self.lanes();
        let w = u32::from(s.input.bits());
        // gfx9 i8 is always signed; WMMA iu8/iu4 signedness comes from the NEG bits.
        let wmma = self.layout.is_wmma();
        let (sa, sb) = if wmma {
            (self.m.signed_a, self.m.signed_b)
        } else {
            (true, true)
        };
        let value = |raw: u64, signed: bool| -> i32 {
            let v = raw as u32;
            if signed {
                ((v << (32 - w)) as i32) >> (32 - w)
            } else {
                v as i32
            }
        };
        let av: Vec<i32> = (0..s.m)
            .flat_map(|i| (0..s.k).map(move |k| (i, k)))
            .map(|(i, k)| value(read(a, lanes, self.layout.a(i, k).unwrap_or(ZERO_LOC)), sa))
            .collect();
        let bv: Vec<i32> = (0..s.k)
            .flat_map(|k| (0..s.n).map(move |j| (k, j)))
            .map(|(k, j)| value(read(b, lanes, self.layout.b(k, j).unwrap_or(ZERO_LOC)), sb))
            .collect();
        let (kk, nn) = (s.k as usize, s.n as usize);
        for i in 0..s.m {
            for j in 0..s.n {
                let loc = self.layout.cd(i, j, 0).unwrap_or(ZERO_LOC);
                let mut acc = read(c, lanes, loc) as u32 as i32;
                let row = &av[i as usize * kk..][..kk];
                for (k, x) in row.iter().enumerate() {
                    acc = acc.wrapping_add(x.wrapping_mul(bv[k * nn + j as usize]));
                }
                write(d, lanes, loc, u64::from(acc as u32));
            }
        }
        Ok(())
    }
}

/// Placeholder for a location the layout cannot lack (every (i, k) inside the shape has
/// one); keeps the loops free of panics.
const ZERO_LOC: Location = Location {
    reg: 0,
    lane: 0,
    bit: 0,
    width: 32,
};
