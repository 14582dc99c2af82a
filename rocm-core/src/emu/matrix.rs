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
//! - **f32, f16, bf16, xf32, fp8 inputs, f32 accumulation**: each D\[i\]\[j\] starts from
//!   C\[i\]\[j\] and adds A\[i\]\[k\]·B\[k\]\[j\] in k order with one f32 fused multiply-add per k
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
//!   as D), rounded once at the end to nearest even, written to bits \[15:0\] of each D
//!   register, or \[31:16\] when OP_SEL\[2\] (`mods.op_sel & 4`) is set; the other half of the
//!   register keeps what `d` held (`d` arrives holding the destination's current contents).
//!
//! # Modifiers
//!
//! - MFMA: CBSZ, ABID and BLGP must be 0 (`Unsupported` otherwise), except on gfx942 f64
//!   where BLGP bits 0/1/2 negate A/B/C (its documented reuse). MAI has no NEG/ABS/OP_SEL/
//!   clamp fields: non-zero values there are `InvalidArgument`.
//! - WMMA float: NEG\[0\]/NEG_HI\[0\] negate the low/high 16-bit half of every A register
//!   (even/odd k), NEG\[1\]/NEG_HI\[1\] the same for B, NEG_HI\[2\] takes |C|, NEG\[2\] negates C
//!   (after the absolute value). WMMA iu8/iu4: NEG\[0\] makes A signed, NEG\[1\] B signed
//!   (unsigned when clear); NEG\[2\] and NEG_HI must be 0 (the calculator's README, "the two
//!   lower-order bits of NEG ... signed or unsigned", and its argument checks; CK passes
//!   `true` for signed int8 in that position). OP_SEL\[1:0\] must be 0, OP_SEL\[2\] is only
//!   for 16-bit results; clamp is `Unsupported`.
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::isa::amdgpu::matrix::{
        a_locations, b_locations, cd_location_op_sel, matrix_ops, shape, MatrixShape,
    };
    use rand::rngs::StdRng;
    use rand::{Rng, SeedableRng};

    /// A matrix as raw element bits (row-major) and the values they stand for.
    struct Mat {
        bits: Vec<u64>,
        vals: Vec<f64>,
    }

    /// Random raw elements of type `ty` (never constants): floats in [-2, 2), integers
    /// over their whole range, fp8 over every code but NaN.
    fn random(rng: &mut StdRng, ty: MatrixType, len: usize, signed: bool) -> Mat {
        let mut bits = Vec::with_capacity(len);
        let mut vals = Vec::with_capacity(len);
        for _ in 0..len {
            let x: f64 = rng.random_range(-2.0..2.0);
            let (b, v) = match ty {
                MatrixType::F32 | MatrixType::Xf32 => {
                    let f = x as f32;
                    (u64::from(f.to_bits()), f64::from(f))
                }
                MatrixType::F64 => (x.to_bits(), x),
                MatrixType::F16 => {
                    let h = f16::from_f64(x);
                    (u64::from(h.to_bits()), h.to_f64())
                }
                MatrixType::Bf16 => {
                    let h = bf16::from_f64(x);
                    (u64::from(h.to_bits()), h.to_f64())
                }
                MatrixType::Fp8 => {
                    let mut code: u8 = rng.random();
                    if code == 0x80 {
                        code = 0;
                    }
                    (u64::from(code), fp8_reference(code))
                }
                MatrixType::I32 => {
                    let i: i32 = rng.random();
                    (u64::from(i as u32), f64::from(i))
                }
                MatrixType::I8 | MatrixType::Iu8 | MatrixType::Iu4 => {
                    let w = ty.bits();
                    let code: u8 = rng.random::<u8>() & (((1u16 << w) - 1) as u8);
                    let v = if signed && code >> (w - 1) != 0 {
                        i32::from(code) - (1 << w)
                    } else {
                        i32::from(code)
                    };
                    (u64::from(code), f64::from(v))
                }
            };
            bits.push(b);
            vals.push(v);
        }
        Mat { bits, vals }
    }

    /// fp8 E4M3 FNUZ by its definition: (-1)^s * 2^(e - 8) * (1 + m/8), subnormal
    /// 2^-7 * m/8.
    fn fp8_reference(code: u8) -> f64 {
        let s = if code & 0x80 != 0 { -1.0 } else { 1.0 };
        let e = i32::from(code >> 3 & 15);
        let m = f64::from(code & 7);
        if e == 0 {
            s * 2f64.powi(-7) * m / 8.0
        } else {
            s * 2f64.powi(e - 8) * (1.0 + m / 8.0)
        }
    }

    /// Places `bits` (row-major rows × cols) into a register tuple through the layout
    /// functions, filling every copy.
    fn place(
        regs: &mut [u32],
        lanes: usize,
        mat: &Mat,
        cols: u32,
        locs: impl Fn(u32, u32) -> Vec<Location>,
    ) {
        for (idx, &b) in mat.bits.iter().enumerate() {
            let (r, c) = (idx as u32 / cols, idx as u32 % cols);
            let l = locs(r, c);
            assert!(!l.is_empty());
            for loc in l {
                write(regs, lanes, loc, b);
            }
        }
    }

    struct Case {
        op: Op,
        t: IsaTarget,
        s: MatrixShape,
        a: Mat,
        b: Mat,
        c: Mat,
        ra: Vec<u32>,
        rb: Vec<u32>,
        rc: Vec<u32>,
    }

    fn case(rng: &mut StdRng, op: Op, t: IsaTarget, op_sel: u8, sa: bool, sb: bool) -> Case {
        let s = shape(op, t).unwrap();
        let lanes = s.lanes as usize;
        let a = random(rng, s.input, (s.m * s.k) as usize, sa);
        let b = random(rng, s.input, (s.k * s.n) as usize, sb);
        let c = random(rng, s.output, (s.m * s.n) as usize, true);
        let mut ra = vec![0; usize::from(s.a_regs) * lanes];
        let mut rb = vec![0; usize::from(s.b_regs) * lanes];
        // C's unused bits (the other half of 16-bit results) hold garbage.
        let mut rc: Vec<u32> = (0..usize::from(s.cd_regs) * lanes)
            .map(|_| rng.random())
            .collect();
        place(&mut ra, lanes, &a, s.k, |i, k| {
            a_locations(op, t, i, k).collect()
        });
        place(&mut rb, lanes, &b, s.n, |k, j| {
            b_locations(op, t, k, j).collect()
        });
        place(&mut rc, lanes, &c, s.n, |i, j| {
            cd_location_op_sel(op, t, op_sel, i, j)
                .into_iter()
                .collect()
        });
        Case {
            op,
            t,
            s,
            a,
            b,
            c,
            ra,
            rb,
            rc,
        }
    }

    fn read_d(cs: &Case, d: &[u32], op_sel: u8) -> Vec<u64> {
        let mut out = Vec::new();
        for i in 0..cs.s.m {
            for j in 0..cs.s.n {
                let loc = cd_location_op_sel(cs.op, cs.t, op_sel, i, j).unwrap();
                out.push(read(d, cs.s.lanes as usize, loc));
            }
        }
        out
    }

    fn value_of(ty: MatrixType, bits: u64) -> f64 {
        match ty {
            MatrixType::F32 => f64::from(f32::from_bits(bits as u32)),
            MatrixType::F64 => f64::from_bits(bits),
            MatrixType::F16 => f16::from_bits(bits as u16).to_f64(),
            MatrixType::Bf16 => bf16::from_bits(bits as u16).to_f64(),
            MatrixType::I32 => f64::from(bits as u32 as i32),
            _ => f64::NAN,
        }
    }

    /// Runs one case with `mods` and compares D with a naive f64 matmul of the decoded
    /// inputs, `ref = c' + Σ_k (na·a[i][k]) (nb·b[k][j])` with `c' = cneg(c)`.
    ///
    /// Tolerances (unit roundoff u): f32 accumulation of K fused multiply-adds from C,
    /// |err| ≤ (K + 1)·u32·(|c| + Σ|a||b|) (u32 = 2^-24; covers the rounding of f32
    /// products too); xf32 adds the input rounding to 10 mantissa bits, 2·2^-11·Σ|a||b|;
    /// f64 the same with u64 = 2^-53; f16/bf16 results add their final rounding,
    /// u·|ref| (2^-11, 2^-8); integers are exact modulo 2^32.
    fn check(cs: &Case, mods: &Mods, na: f64, nb: f64, cneg: impl Fn(f64) -> f64) {
        let s = cs.s;
        let lanes = s.lanes as usize;
        let op_sel = mods.op_sel;
        let mut d: Vec<u32> = cs.rc.iter().map(|x| !x.rotate_left(7)).collect();
        let before = d.clone();
        execute(cs.op, mods, cs.t, &cs.ra, &cs.rb, &cs.rc, &mut d).unwrap();
        let got = read_d(cs, &d, op_sel);
        let (m, n, k) = (s.m as usize, s.n as usize, s.k as usize);
        for i in 0..m {
            for j in 0..n {
                let c = cneg(cs.c.vals[i * n + j]);
                let mut sum = c;
                let mut mag = c.abs();
                let mut isum: i64 = (cs.c.vals[i * n + j]) as i64;
                for kk in 0..k {
                    let p = na * cs.a.vals[i * k + kk] * nb * cs.b.vals[kk * n + j];
                    sum += p;
                    mag += p.abs();
                    isum += p as i64;
                }
                let g = got[i * n + j];
                let what = format!("{:?} on {} D[{i}][{j}] (mods {mods:?})", cs.op, cs.t);
                if s.output == MatrixType::I32 {
                    assert_eq!(g as u32, isum as u32, "{what}");
                    continue;
                }
                let g = value_of(s.output, g);
                let kf = k as f64 + 1.0;
                let acc = if s.output == MatrixType::F64 {
                    kf * 2f64.powi(-53) * mag
                } else {
                    kf * 2f64.powi(-24) * mag
                };
                let input = if s.input == MatrixType::Xf32 {
                    2.0 * 2f64.powi(-11) * (mag - c.abs())
                } else {
                    0.0
                };
                let out = match s.output {
                    MatrixType::F16 => 2f64.powi(-11) * sum.abs(),
                    MatrixType::Bf16 => 2f64.powi(-8) * sum.abs(),
                    _ => 0.0,
                };
                let tol = acc + input + out + 1e-300;
                assert!(
                    (g - sum).abs() <= tol,
                    "{what}: got {g}, want {sum} ± {tol}"
                );
            }
        }
        // D bits outside the result (the other half of 16-bit results) are kept.
        if s.output.bits() == 16 {
            let keep: u32 = if op_sel & 4 != 0 { 0xffff } else { 0xffff_0000 };
            for (x, y) in d.iter().zip(&before) {
                assert_eq!(x & keep, y & keep, "{:?}: other half changed", cs.op);
            }
        }
        assert_eq!(d.len(), usize::from(s.cd_regs) * lanes);
    }

    fn default_mods(op: Op) -> Mods {
        crate::isa::amdgpu::Instr::new(op, Vec::new()).mods
    }

    #[test]
    fn every_instruction_on_every_target_matches_a_reference_matmul() {
        let mut rng = StdRng::seed_from_u64(0x3a7e1c);
        let mut ran = 0;
        for t in IsaTarget::ALL {
            for op in matrix_ops() {
                if shape(op, t).is_none() {
                    continue;
                }
                let mods = default_mods(op);
                let integer_wmma = matches!(
                    shape(op, t).map(|s| s.input),
                    Some(MatrixType::Iu8 | MatrixType::Iu4)
                );
                // gfx9 i8 is signed; WMMA iu8/iu4 unsigned by default.
                let cs = case(&mut rng, op, t, 0, !integer_wmma, !integer_wmma);
                check(&cs, &mods, 1.0, 1.0, |c| c);
                ran += 1;
            }
        }
        assert_eq!(ran, 8 + 11 + 13 + 6 * 4);
    }

    #[test]
    fn wmma_integer_signedness_follows_the_neg_bits() {
        let mut rng = StdRng::seed_from_u64(11);
        for op in [Op::VWmmaI32_16x16x16Iu8, Op::VWmmaI32_16x16x16Iu4] {
            for neg in 0..4u8 {
                let (sa, sb) = (neg & 1 != 0, neg & 2 != 0);
                let cs = case(&mut rng, op, IsaTarget::Gfx1100, 0, sa, sb);
                let mods = Mods {
                    neg,
                    ..default_mods(op)
                };
                check(&cs, &mods, 1.0, 1.0, |c| c);
            }
        }
    }

    #[test]
    fn wmma_16_bit_results_use_the_op_sel_half() {
        let mut rng = StdRng::seed_from_u64(12);
        for op in [Op::VWmmaF16_16x16x16F16, Op::VWmmaBf16_16x16x16Bf16] {
            for op_sel in [0, 4] {
                let cs = case(&mut rng, op, IsaTarget::Gfx1151, op_sel, true, true);
                let mods = Mods {
                    op_sel,
                    ..default_mods(op)
                };
                check(&cs, &mods, 1.0, 1.0, |c| c);
            }
        }
    }

    #[test]
    fn wmma_float_neg_modifiers() {
        let mut rng = StdRng::seed_from_u64(13);
        let t = IsaTarget::Gfx1100;
        for op in [Op::VWmmaF32_16x16x16F16, Op::VWmmaF16_16x16x16F16] {
            let cs = case(&mut rng, op, t, 0, true, true);
            let with = |neg, neg_hi| Mods {
                neg,
                neg_hi,
                ..default_mods(op)
            };
            // NEG and NEG_HI together negate the whole matrix.
            check(&cs, &with(1, 1), -1.0, 1.0, |c| c);
            check(&cs, &with(2, 2), 1.0, -1.0, |c| c);
            check(&cs, &with(4, 0), 1.0, 1.0, |c| -c);
            check(&cs, &with(0, 4), 1.0, 1.0, f64::abs);
            check(&cs, &with(4, 4), 1.0, 1.0, |c| -c.abs());
        }
        // NEG[0] alone negates the even k (low halves) of A: compare with the explicit
        // per-element negation.
        let op = Op::VWmmaF32_16x16x16F16;
        let mut cs = case(&mut rng, op, t, 0, true, true);
        let mods = Mods {
            neg: 1,
            ..default_mods(op)
        };
        let k = cs.s.k as usize;
        for (idx, v) in cs.a.vals.iter_mut().enumerate() {
            if idx % k % 2 == 0 {
                *v = -*v;
            }
        }
        check(&cs, &mods, 1.0, 1.0, |c| c);
    }

    #[test]
    fn gfx942_f64_blgp_negates() {
        let mut rng = StdRng::seed_from_u64(14);
        let op = Op::VMfmaF64_16x16x4F64;
        let cs = case(&mut rng, op, IsaTarget::Gfx942, 0, true, true);
        let with = |blgp| Mods {
            blgp,
            ..Mods::default()
        };
        check(&cs, &with(1), -1.0, 1.0, |c| c);
        check(&cs, &with(2), 1.0, -1.0, |c| c);
        check(&cs, &with(7), -1.0, -1.0, |c| -c);
        // gfx90a's f64 MFMA has no such reuse.
        let cs = case(&mut rng, op, IsaTarget::Gfx90a, 0, true, true);
        let mut d = cs.rc.clone();
        let err = execute(op, &with(1), cs.t, &cs.ra, &cs.rb, &cs.rc, &mut d).unwrap_err();
        assert!(matches!(err, Error::Unsupported { .. }), "{err}");
    }

    #[test]
    fn wmma_replica_mismatch_is_an_error_naming_register_and_lanes() {
        let mut rng = StdRng::seed_from_u64(15);
        let op = Op::VWmmaF32_16x16x16Bf16;
        let cs = case(&mut rng, op, IsaTarget::Gfx1102, 0, true, true);
        let mut d = cs.rc.clone();
        let mut a = cs.ra.clone();
        a[3 * 32 + 20] ^= 1 << 9;
        let err = execute(op, &Mods::vop3p(), cs.t, &a, &cs.rb, &cs.rc, &mut d).unwrap_err();
        let msg = err.to_string();
        assert!(matches!(err, Error::InvalidArgument { .. }), "{msg}");
        assert!(
            msg.contains("A (src0)") && msg.contains("register 3"),
            "{msg}"
        );
        assert!(msg.contains("lane 4 ") && msg.contains("lane 20"), "{msg}");
        let mut b = cs.rb.clone();
        b[7 * 32 + 15] ^= 1;
        let err = execute(op, &Mods::vop3p(), cs.t, &cs.ra, &b, &cs.rc, &mut d).unwrap_err();
        let msg = err.to_string();
        assert!(
            msg.contains("B (src1)") && msg.contains("register 7"),
            "{msg}"
        );
        assert!(msg.contains("lane 15 ") && msg.contains("lane 31"), "{msg}");
    }

    #[test]
    fn wrong_tuple_lengths_and_instructions_are_errors() {
        let mut rng = StdRng::seed_from_u64(16);
        let t = IsaTarget::Gfx90a;
        for op in matrix_ops().filter(|&op| shape(op, t).is_some()) {
            let cs = case(&mut rng, op, t, 0, true, true);
            let mods = default_mods(op);
            let mut d = cs.rc.clone();
            let short = &cs.ra[1..];
            let err = execute(op, &mods, t, short, &cs.rb, &cs.rc, &mut d).unwrap_err();
            assert!(err.to_string().contains("A (src0)"), "{err}");
            let err = execute(op, &mods, t, &cs.ra, &cs.rb, &cs.rc[..64], &mut d).unwrap_err();
            assert!(err.to_string().contains("C (src2)"), "{err}");
            let mut long = cs.rc.clone();
            long.push(0);
            let err = execute(op, &mods, t, &cs.ra, &cs.rb, &cs.rc, &mut long).unwrap_err();
            assert!(err.to_string().contains("D (vdst)"), "{err}");
            let err = execute(op, &mods, t, &cs.ra, &[], &cs.rc, &mut d).unwrap_err();
            assert!(err.to_string().contains("B (src1)"), "{err}");
        }
        let mut d = vec![0; 64 * 16];
        let err = execute(Op::SNop, &Mods::default(), t, &[], &[], &[], &mut d).unwrap_err();
        assert!(matches!(err, Error::Unsupported { .. }));
        let op = Op::VMfmaF32_32x32x4Xf32; // gfx942 only
        let err = execute(
            op,
            &Mods::default(),
            t,
            &[0; 128],
            &[0; 128],
            &d.clone(),
            &mut d,
        );
        assert!(err.is_err());
    }

    #[test]
    fn unsupported_and_invalid_modifiers_are_errors() {
        let mut rng = StdRng::seed_from_u64(17);
        let cs = case(
            &mut rng,
            Op::VMfmaF32_32x32x8F16,
            IsaTarget::Gfx908,
            0,
            true,
            true,
        );
        let run = |mods: Mods, cs: &Case| {
            let mut d = cs.rc.clone();
            execute(cs.op, &mods, cs.t, &cs.ra, &cs.rb, &cs.rc, &mut d).unwrap_err()
        };
        for mods in [
            Mods {
                cbsz: 1,
                ..Mods::default()
            },
            Mods {
                abid: 1,
                ..Mods::default()
            },
            Mods {
                blgp: 3,
                ..Mods::default()
            },
            Mods {
                clamp: true,
                ..Mods::default()
            },
        ] {
            assert!(
                matches!(run(mods, &cs), Error::Unsupported { .. }),
                "{mods:?}"
            );
        }
        assert!(matches!(
            run(
                Mods {
                    neg: 1,
                    ..Mods::default()
                },
                &cs
            ),
            Error::InvalidArgument { .. }
        ));
        let cs = case(
            &mut rng,
            Op::VWmmaF32_16x16x16F16,
            IsaTarget::Gfx1100,
            0,
            true,
            true,
        );
        for mods in [
            Mods {
                op_sel: 4,
                ..Mods::vop3p()
            },
            Mods {
                op_sel: 1,
                ..Mods::vop3p()
            },
            Mods {
                cbsz: 1,
                ..Mods::vop3p()
            },
        ] {
            assert!(
                matches!(run(mods, &cs), Error::InvalidArgument { .. }),
                "{mods:?}"
            );
        }
        let cs = case(
            &mut rng,
            Op::VWmmaI32_16x16x16Iu8,
            IsaTarget::Gfx1100,
            0,
            false,
            false,
        );
        for mods in [
            Mods {
                neg: 4,
                ..Mods::vop3p()
            },
            Mods {
                neg_hi: 1,
                ..Mods::vop3p()
            },
        ] {
            assert!(
                matches!(run(mods, &cs), Error::InvalidArgument { .. }),
                "{mods:?}"
            );
        }
    }

    #[test]
    fn xf32_rounds_inputs_to_ten_mantissa_bits_to_nearest_even() {
        let ulp = 2f32.powi(-10);
        assert_eq!(round_xf32(1.0 + ulp / 2.0), 1.0); // tie, even below
        assert_eq!(round_xf32(1.0 + 1.5 * ulp), 1.0 + 2.0 * ulp); // tie, even above
        assert_eq!(round_xf32(1.0 + ulp / 2.0 + 2f32.powi(-20)), 1.0 + ulp);
        assert_eq!(round_xf32(-(1.0 + 0.3 * ulp)), -1.0);
        assert_eq!(round_xf32(f32::INFINITY), f32::INFINITY);
        assert!(round_xf32(f32::NAN).is_nan());
        // Through the instruction: A = 1 + 2^-12 (rounds to 1), B = 1, K products.
        let (op, t) = (Op::VMfmaF32_16x16x8Xf32, IsaTarget::Gfx942);
        let s = shape(op, t).unwrap();
        let x = (1.0f32 + 2f32.powi(-12)).to_bits();
        let a = vec![x; usize::from(s.a_regs) * 64];
        let b = vec![1f32.to_bits(); usize::from(s.b_regs) * 64];
        let c = vec![0; usize::from(s.cd_regs) * 64];
        let mut d = c.clone();
        execute(op, &Mods::default(), t, &a, &b, &c, &mut d).unwrap();
        assert!(d.iter().all(|&v| f32::from_bits(v) == s.k as f32));
    }

    #[test]
    fn fp8_decodes_as_e4m3_fnuz() {
        for code in 0..=255u8 {
            if code == 0x80 {
                assert!(fp8_fnuz_to_f32(code).is_nan());
            } else {
                assert_eq!(
                    f64::from(fp8_fnuz_to_f32(code)),
                    fp8_reference(code),
                    "{code:#x}"
                );
            }
        }
        assert_eq!(fp8_fnuz_to_f32(0x7f), 240.0); // largest
        assert_eq!(fp8_fnuz_to_f32(0x08), 2f32.powi(-7)); // smallest normal
        assert_eq!(fp8_fnuz_to_f32(0x01), 2f32.powi(-10)); // smallest subnormal
    }

    /// ../shared/reference/amdgpu-examples/mfma_gfx90a.s: lane `l` loads 8 bytes of A at
    /// byte `8 * l` (`global_load_dwordx2 v[2:3]`, offset `v0 << 3`): halves `4l .. 4l + 3`
    /// of a buffer holding, per the kernel's contract, row `l % 32`, K values
    /// `4 * (l / 32) .. + 3`. Those must be the (i, k) our layout puts in v2.lo, v2.hi,
    /// v3.lo, v3.hi of lane l. D: lane l stores v\[8:23\] at byte `64 * l`.
    #[test]
    fn mfma_f16_32x32x8_matches_the_example_kernel_addressing() {
        let (op, t) = (Op::VMfmaF32_32x32x8F16, IsaTarget::Gfx90a);
        let mut rng = StdRng::seed_from_u64(18);
        // The A buffer as the kernel's host code fills it: half index 4l + h holds
        // A[l % 32][4 (l / 32) + h].
        let a_mat: Vec<f16> = (0..32 * 8)
            .map(|_| f16::from_f32(rng.random_range(-1.0..1.0)))
            .collect();
        let b_mat: Vec<f16> = (0..8 * 32)
            .map(|_| f16::from_f32(rng.random_range(-1.0..1.0)))
            .collect();
        let mut a_buf = vec![f16::ZERO; 256];
        let mut b_buf = vec![f16::ZERO; 256];
        for l in 0..64 {
            for h in 0..4 {
                let (r, k) = (l % 32, 4 * (l / 32) + h);
                a_buf[4 * l + h] = a_mat[r * 8 + k];
                b_buf[4 * l + h] = b_mat[k * 32 + r];
            }
        }
        // What the two dwordx2 loads put in v[2:3] / v[4:5] (little-endian halves).
        let load = |buf: &[f16]| {
            let mut regs = vec![0u32; 2 * 64];
            for l in 0..64 {
                for r in 0..2 {
                    let lo = u32::from(buf[4 * l + 2 * r].to_bits());
                    let hi = u32::from(buf[4 * l + 2 * r + 1].to_bits());
                    regs[r * 64 + l] = lo | hi << 16;
                }
            }
            regs
        };
        let (ra, rb) = (load(&a_buf), load(&b_buf));
        // Our layout reads the same elements back.
        for i in 0..32 {
            for k in 0..8 {
                let loc = crate::isa::amdgpu::matrix::a_location(op, t, i, k).unwrap();
                let got = read(&ra, 64, loc) as u16;
                assert_eq!(got, a_mat[(i * 8 + k) as usize].to_bits(), "A[{i}][{k}]");
            }
        }
        let c = vec![0u32; 16 * 64]; // the kernel's inline constant 0
        let mut d = c.clone();
        execute(op, &Mods::default(), t, &ra, &rb, &c, &mut d).unwrap();
        // The stores: lane l writes v[8 + g] to float index 16 l + g.
        let mut d_buf = vec![0f32; 64 * 16];
        for l in 0..64 {
            for g in 0..16 {
                d_buf[16 * l + g] = f32::from_bits(d[g * 64 + l]);
            }
        }
        // D[i][j] is at lane 32 ((i / 4) % 2) + j, register 4 (i / 8) + i % 4 (amdgpu.md §4).
        for i in 0..32usize {
            for j in 0..32usize {
                let want: f64 = (0..8)
                    .map(|k| a_mat[i * 8 + k].to_f64() * b_mat[k * 32 + j].to_f64())
                    .sum();
                let (lane, g) = (32 * ((i / 4) % 2) + j, 4 * (i / 8) + i % 4);
                let got = f64::from(d_buf[16 * lane + g]);
                // 8 exact products summed in f32: 9 u32 of Σ|a||b| ≤ 8.
                assert!(
                    (got - want).abs() <= 9.0 * 8.0 * 2f64.powi(-24),
                    "D[{i}][{j}]"
                );
            }
        }
    }
}
