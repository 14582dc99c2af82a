//! Operations: arithmetic, comparisons, conversions, memory and wave operations, each
//! on the scalar unit when its inputs are uniform and the scalar unit has it, else on
//! the vector unit.
//!
//! | IR | scalar unit (uniform integer inputs) | vector unit |
//! |---|---|---|
//! | u32/i32 add, sub, mul, min, max, and/or/xor, shifts | `s_add_u32` … `s_ashr_i32` | `v_add_u32` … `v_ashrrev_i32` |
//! | u64/i64 add, sub, mul, bit ops, shifts | carry pairs, `s_mul_hi_u32`, `*_b64` | `v_addc_co_u32` pairs (sub: `a + !b + 1`), `v_mad_u64_u32`, `v_lshlrev_b64`, `v_alignbit_b32` |
//! | f32 add, sub, mul, fma, min, max, sqrt, rcp, rsqrt, exp2, log2 | — | one instruction each |
//! | f32 div | — | `v_rcp_f32`, one Newton step on the reciprocal and one on the quotient (≤ 1 ulp for normal quotients with \|b\| < 2¹²⁶; a NaN from the refinement falls back to `a·rcp(b)`, which gets ±0, ±∞ and NaN right) |
//! | f64 add, sub, mul, fma, max, min, rcp, div | — | `v_add_f64` (sub: negated source), `v_max_f64` (min: `−max(−a, −b)`), `v_rcp_f64`, div as f32 with two reciprocal steps |
//! | f64 sqrt, rsqrt | — | exponent split, `v_rsq_f32` estimate, Goldschmidt and Newton steps in `v_fma_f64` (≤ 1 and 2 ulps) |
//! | u32/i32 div, rem | — | the reciprocal-estimate expansion LLVM uses, two corrections |
//! | compare | `s_cmp_*` then `s_cselect` of all lanes | `v_cmp_*_e64` into a mask; 64-bit integers by one `v_cmp_*_{u,i}64`; f64 through order-preserving i64 keys and a NaN test (the model has no `v_cmp_*_f64`) |
//! | f32 → f16 | — | `v_cvt_f16_f32` (rn), `v_cvt_pkrtz_f16_f32` (rz) |
//! | f32 → bf16 | — | integer rounding of the bit pattern (rn, rz); NaN stays quiet NaN |
//! | float → i32/u32 | — | `v_cvt_*` (rz); rm/rp/rn from rz and a ±1 step chosen by the fraction |
//! | 16-bit vectors | — | one lane a register; packed two a word for memory and bitcasts (`v_lshl_or_b32`) |
//!
//! What the instruction model lacks is [`Error::unsupported`] naming the operation and
//! the target: u64/i64 division, remainder and `mul_hi`; f64 → u32;
//! 64-bit integer ↔ float conversions other than u64/i64 → f64 to nearest; 1-byte
//! shared-memory accesses; 64-bit atomics; atomic exchange and shared-memory
//! compare-and-swap. (Atomics that lower: add on u32/i32 everywhere and on f32 in global
//! and shared memory, where gfx908 has no f32 add returning the old value; u32/i32 min and
//! max; global u32 compare-and-swap.)

use super::emit::Src;
use super::lower::{scalar_words, sub, words, Loc, Lower};
use crate::amdgpu::regs::{required_alignment, RegFile};
use crate::lang::ir::{
    AtomicOp, Binary, Cache, Cmp, Mem, MemAccess, Op, Reduce, Rounding, Scalar, Shuffle, Type,
    Unary, Value,
};
use rocm_core::isa::amdgpu::{Cache as Hw, InlineFloat, Instr, Op as I, Operand, RegRange};
use rocm_core::{Error, Result};

fn vreg(r: RegRange) -> Src {
    Src::Op(Operand::Vgpr(r))
}

fn sreg(r: RegRange) -> Src {
    Src::Op(Operand::Sgpr(r))
}

/// Word `j` of a location as a 32-bit source.
fn word(l: Loc, j: u8) -> Src {
    match l {
        Loc::K(b) => Src::K32((b >> (32 * u32::from(j))) as u32),
        Loc::S(r) | Loc::M(r) => sreg(sub(r, j)),
        Loc::V(r) => vreg(sub(r, j)),
    }
}

/// Words `j, j+1` of a location as a 64-bit source (`float`: read as f64).
fn pair(l: Loc, j: u8, float: bool) -> Src {
    match l {
        Loc::K(b) => Src::K64 { bits: b, float },
        Loc::S(r) | Loc::M(r) => sreg(RegRange::new(r.first + u16::from(j), 2)),
        Loc::V(r) => vreg(RegRange::new(r.first + u16::from(j), 2)),
    }
}

/// Lane `i` (of `w` words each) of a vector location.
fn lane(l: Loc, i: u8, w: u8) -> Loc {
    let at = |r: RegRange| RegRange::new(r.first + u16::from(i * w), w);
    match l {
        Loc::S(r) => Loc::S(at(r)),
        Loc::V(r) => Loc::V(at(r)),
        other => other,
    }
}

fn scalar_like(l: Loc) -> bool {
    matches!(l, Loc::K(_) | Loc::S(_))
}

const SIGN32: u32 = 0x8000_0000;

impl<'a> Lower<'a> {
    fn unsupported(&self, what: impl std::fmt::Display) -> Error {
        Error::unsupported(format!("kernel `{}`: {what}", self.def.name), self.t)
    }

    /// A VGPR source for word `j` of `l` (a constant or SGPR is moved into `tmp`).
    fn vword(&mut self, l: Loc, j: u8, tmps: &mut Vec<RegRange>) -> Result<RegRange> {
        match l {
            Loc::V(r) => Ok(sub(r, j)),
            _ => {
                let t = self.e.valloc(1)?;
                self.e.valu(I::VMovB32, &[vreg(t), word(l, j)])?;
                tmps.push(t);
                Ok(t)
            }
        }
    }

    fn free_v(&mut self, tmps: Vec<RegRange>) {
        for t in tmps {
            self.e.vgprs.free(t);
        }
    }

    pub(crate) fn let_(&mut self, v: Value, op: &Op) -> Result<()> {
        if self.try_split(v, op)? {
            return Ok(());
        }
        // Global accesses take a split offset apart; other readers get its 64 bits.
        let kept = match op {
            Op::Load(m) if matches!(m.mem, Mem::Global(_)) => Some(m.offset),
            Op::Atomic {
                mem: Mem::Global(_),
                offset,
                ..
            } => Some(*offset),
            _ => None,
        };
        let reads: Vec<Value> = op
            .inputs()
            .into_iter()
            .filter(|x| Some(*x) != kept)
            .collect();
        let built = self.materialize(&reads)?;
        let r = self.let_op(v, op);
        self.unmaterialize(built);
        r
    }

    fn let_op(&mut self, v: Value, op: &Op) -> Result<()> {
        match op {
            Op::Const(bits) => {
                self.alias(v, Loc::K(*bits));
                Ok(())
            }
            Op::Param(i) => {
                let l = self
                    .params
                    .get(*i as usize)
                    .copied()
                    .flatten()
                    .ok_or_else(|| {
                        self.unsupported(format!("parameter {i} (not a loaded scalar)"))
                    })?;
                self.alias(v, l);
                Ok(())
            }
            Op::Special(s) => self.special(v, *s),
            Op::Var(var) => self.read_var(v, *var),
            Op::Unary(u, a) => self.unary(v, *u, *a),
            Op::Binary(b, x, y) => self.binary(v, *b, *x, *y),
            Op::Fma(a, b, c) => self.fma(v, *a, *b, *c),
            Op::Cmp(c, a, b) => self.cmp(v, *c, *a, *b),
            Op::Select(c, a, b) => self.select(v, *c, *a, *b),
            Op::Convert(a, r) => self.convert(v, *a, *r),
            Op::Bitcast(a) => {
                let l = self.loc(*a)?;
                match (halves(a.ty), halves(v.ty)) {
                    (true, false) => {
                        let Loc::V(d) = self.define(v, Loc::V(RegRange::new(0, 0)))? else {
                            unreachable!()
                        };
                        let mut tmps = Vec::new();
                        let src = self.in_vgprs(l, a.ty, &mut tmps)?;
                        self.pack_halves(d, src, a.ty.lanes)?;
                        self.free_v(tmps);
                        Ok(())
                    }
                    (false, true) => {
                        let Loc::V(d) = self.define(v, Loc::V(RegRange::new(0, 0)))? else {
                            unreachable!()
                        };
                        let mut tmps = Vec::new();
                        let src = self.in_vgprs(l, a.ty, &mut tmps)?;
                        self.unpack_halves(d, src, v.ty.lanes)?;
                        self.free_v(tmps);
                        Ok(())
                    }
                    _ if self.alias_within(v, *a, l) => Ok(()),
                    _ => self.copy_value(v, l),
                }
            }
            Op::Pack(parts) => self.pack(v, parts),
            Op::Extract(a, i) => {
                let l = self.loc(*a)?;
                let w = scalar_words(a.ty.scalar);
                let at = lane(l, *i, w);
                if self.alias_within(v, *a, at) {
                    return Ok(());
                }
                self.copy_value(v, at)
            }
            Op::Load(m) => self.load(v, m),
            Op::Atomic {
                op,
                mem,
                offset,
                value,
                compare,
            } => self.atomic(v, *op, *mem, *offset, *value, *compare),
            Op::Shuffle(a, s) => self.shuffle(v, *a, *s),
            Op::WaveReduce(r, a) => self.wave_reduce(v, *r, *a),
            Op::Ballot(p) => self.ballot(v, *p),
            Op::Any(p) | Op::All(p) => self.any_all(v, *p, matches!(op, Op::All(_))),
        }
    }

    /// `v = l` in fresh registers of the same file.
    fn copy_value(&mut self, v: Value, l: Loc) -> Result<()> {
        match l {
            Loc::K(b) => {
                self.alias(v, Loc::K(b));
            }
            Loc::S(_) => {
                let Loc::S(d) = self.define(v, l)? else {
                    unreachable!()
                };
                self.copy_to_s(d, l, v.ty)?;
            }
            Loc::V(_) => {
                let Loc::V(d) = self.define(v, l)? else {
                    unreachable!()
                };
                self.copy_to_v(d, l, v.ty)?;
            }
            Loc::M(r) => {
                let Loc::M(d) = self.define(v, l)? else {
                    unreachable!()
                };
                let mov = self.e.mask_op(I::SMovB64);
                self.e.op(mov, [Operand::Sgpr(d), Operand::Sgpr(r)]);
            }
        }
        Ok(())
    }

    /// The registers `parts` already sit in when they are one aligned run, in order, of
    /// values' own registers (`Pack` of a vector's lanes, or of results computed into
    /// consecutive registers): the packed value holds them too.
    fn pack_in_place(&mut self, v: Value, parts: &[Value], w: u8) -> bool {
        let n = w * parts.len() as u8;
        let run = match self.locs[parts[0].id as usize] {
            Some(Loc::V(r)) => Loc::V(RegRange::new(r.first, n)),
            Some(Loc::S(r)) => Loc::S(RegRange::new(r.first, n)),
            _ => return false,
        };
        let in_place = parts.iter().enumerate().all(|(i, p)| {
            let id = p.id as usize;
            self.owned[id]
                && self.splits[id].is_none()
                && self.locs[id] == Some(lane(run, i as u8, w))
        });
        let (file, r) = match run {
            Loc::V(r) => (RegFile::Vgpr, r),
            Loc::S(r) => (RegFile::Sgpr, r),
            _ => return false,
        };
        if !in_place || r.first % required_alignment(self.t, file, n) != 0 {
            return false;
        }
        match run {
            Loc::V(r) => self.e.vgprs.hold(r),
            _ => self.e.sgprs.hold(r),
        }
        self.locs[v.id as usize] = Some(run);
        self.set_owned(v);
        true
    }

    fn pack(&mut self, v: Value, parts: &[Value]) -> Result<()> {
        let w = scalar_words(v.ty.scalar);
        if self.pack_in_place(v, parts, w) {
            return Ok(());
        }
        let locs: Vec<Loc> = parts.iter().map(|p| self.loc(*p)).collect::<Result<_>>()?;
        let scalar = locs.iter().all(|l| scalar_like(*l));
        let elem = Type::of(v.ty.scalar);
        if scalar {
            let Loc::S(d) = self.define(v, Loc::S(RegRange::new(0, 0)))? else {
                unreachable!()
            };
            for (i, l) in locs.iter().enumerate() {
                let di = RegRange::new(d.first + u16::from(i as u8 * w), w);
                self.copy_to_s(di, *l, elem)?;
            }
        } else {
            let Loc::V(d) = self.define(v, Loc::V(RegRange::new(0, 0)))? else {
                unreachable!()
            };
            for (i, l) in locs.iter().enumerate() {
                let di = RegRange::new(d.first + u16::from(i as u8 * w), w);
                self.copy_to_v(di, *l, elem)?;
            }
        }
        Ok(())
    }

    /// The result registers: SGPRs when every input is uniform-located and `salu`
    /// holds, else VGPRs.
    /// With the SGPRs all taken, a uniform result goes to VGPRs (where it is still
    /// correct, one copy per lane).
    fn result(&mut self, v: Value, inputs: &[Loc], salu: bool) -> Result<Loc> {
        if salu && inputs.iter().all(|l| scalar_like(*l)) {
            if let Ok(l) = self.define(v, Loc::S(RegRange::new(0, 0))) {
                return Ok(l);
            }
        }
        self.define(v, Loc::V(RegRange::new(0, 0)))
    }

    // ---- unary ------------------------------------------------------------------------

    fn unary(&mut self, v: Value, u: Unary, a: Value) -> Result<()> {
        let la = self.loc(a)?;
        let s = v.ty.scalar;
        if s == Scalar::Pred {
            // Logical not.
            let Loc::M(d) = self.define(v, Loc::M(RegRange::new(0, 0)))? else {
                unreachable!()
            };
            let xor = self.e.mask_op(I::SXorB64);
            let src = self.mask_src(la);
            self.e.salu(
                xor,
                Some(Operand::Sgpr(d)),
                &[src, Src::Op(Operand::Int(-1))],
            )?;
            return Ok(());
        }
        let bitwise = matches!(
            (u, s),
            (Unary::Neg | Unary::Abs, Scalar::F32 | Scalar::F64) | (Unary::Not, _)
        ) || (u == Unary::Neg && s.is_int())
            || (u == Unary::Abs && matches!(s, Scalar::I32 | Scalar::U32 | Scalar::U64));
        let d = self.result(v, &[la], bitwise)?;
        let w = scalar_words(s);
        for i in 0..v.ty.lanes {
            let (x, y) = (lane(la, i, w), lane(d, i, w));
            self.unary_scalar(u, s, y, x)?;
        }
        Ok(())
    }

    fn unary_scalar(&mut self, u: Unary, s: Scalar, d: Loc, a: Loc) -> Result<()> {
        let on_s = matches!(d, Loc::S(_));
        let dr = match d {
            Loc::S(r) | Loc::V(r) => r,
            _ => unreachable!("results live in registers"),
        };
        let hi = scalar_words(s) - 1;
        // Bit operations on the sign word of floats.
        let sign_op = |neg: bool| -> (I, u32) {
            match (neg, on_s) {
                (true, true) => (I::SXorB32, SIGN32),
                (true, false) => (I::VXorB32, SIGN32),
                (false, true) => (I::SAndB32, !SIGN32),
                (false, false) => (I::VAndB32, !SIGN32),
            }
        };
        match (u, s) {
            (Unary::Neg | Unary::Abs, Scalar::F32 | Scalar::F64) => {
                let (op, k) = sign_op(u == Unary::Neg);
                if hi == 1 {
                    self.mov_word(d, 0, word(a, 0))?;
                }
                self.op3(on_s, op, sub(dr, hi), &[word(a, hi), Src::K32(k)])?;
            }
            (Unary::Not, _) => {
                for j in 0..=hi {
                    if on_s {
                        self.e
                            .salu(I::SNotB32, Some(Operand::Sgpr(sub(dr, j))), &[word(a, j)])?;
                    } else {
                        self.e.valu(I::VNotB32, &[vreg(sub(dr, j)), word(a, j)])?;
                    }
                }
            }
            (Unary::Neg, _) if s.is_int() => {
                self.add64(on_s, dr, Loc::K(0), a, hi == 1, true)?;
            }
            (Unary::Abs, Scalar::U32 | Scalar::U64) => {
                for j in 0..=hi {
                    self.mov_word(d, j, word(a, j))?;
                }
            }
            (Unary::Abs, Scalar::I32) => {
                // max(a, 0 - a)
                let n = if on_s {
                    Loc::S(self.e.salloc(1)?)
                } else {
                    Loc::V(self.e.valloc(1)?)
                };
                let nr = match n {
                    Loc::S(r) | Loc::V(r) => r,
                    _ => unreachable!(),
                };
                self.add64(on_s, nr, Loc::K(0), a, false, true)?;
                let op = if on_s { I::SMaxI32 } else { I::VMaxI32 };
                self.op3(on_s, op, dr, &[word(a, 0), word(n, 0)])?;
                self.free_loc_tmp(n);
            }
            (Unary::Abs, Scalar::I64) => {
                // a < 0 ? 0 - a : a, on the vector unit.
                let n = self.e.valloc(2)?;
                self.add64(false, n, Loc::K(0), a, true, true)?;
                let m = self.e.mask_alloc()?;
                self.e
                    .valu(I::VCmpGtI32, &[sreg(m), Src::K32(0), word(a, 1)])?;
                for j in 0..2 {
                    self.e.valu(
                        I::VCndmaskB32,
                        &[vreg(sub(dr, j)), word(a, j), vreg(sub(n, j)), sreg(m)],
                    )?;
                }
                self.e.vgprs.free(n);
                self.e.sgprs.free(m);
            }
            (Unary::Sqrt | Unary::Rcp | Unary::Rsqrt | Unary::Exp2 | Unary::Log2, Scalar::F32) => {
                let op = match u {
                    Unary::Sqrt => I::VSqrtF32,
                    Unary::Rcp => I::VRcpF32,
                    Unary::Rsqrt => I::VRsqF32,
                    Unary::Exp2 => I::VExpF32,
                    _ => I::VLogF32,
                };
                self.e.valu(op, &[vreg(dr), word(a, 0)])?;
            }
            (Unary::Rcp, Scalar::F64) => {
                self.e.valu(I::VRcpF64, &[vreg(dr), pair(a, 0, true)])?;
            }
            (Unary::Sqrt | Unary::Rsqrt, Scalar::F64) if !on_s => {
                self.sqrt_f64(dr, a, u == Unary::Rsqrt)?;
            }
            _ => {
                return Err(self.unsupported(format!("{} of {}", u.name(), s.name())));
            }
        }
        Ok(())
    }

    /// `d = sqrt(a)` (`rsqrt`: `1/sqrt(a)`) in f64 on the vector unit, from the
    /// f32 estimate: subnormals are scaled by 2¹⁰⁸, `x = m · 2^(2k)` with `m` in
    /// [1, 4) by the exponent field, `y ≈ 1/sqrt(m)` by `v_rsq_f32`, Goldschmidt's
    /// iteration `r = 1/2 − g·h, g += g·r, h += h·r` from `g = m·y`, `h = y/2` (once for
    /// sqrt, twice for rsqrt), then for sqrt two corrections `g += (m − g²)·h`; the
    /// result is scaled back by the exponent. Within 1 ulp (sqrt) and 2 ulps (rsqrt) of
    /// the correctly rounded result. ±0, +∞, NaN and negative inputs are selected at
    /// the end: sqrt(±0) = ±0, sqrt(+∞) = +∞, rsqrt(±0) = ±∞, rsqrt(+∞) = +0, NaN for
    /// NaN and negative inputs.
    fn sqrt_f64(&mut self, d: RegRange, a: Loc, recip: bool) -> Result<()> {
        let mut tmps = Vec::new();
        let x = self.in_vgprs(a, Type::of(Scalar::F64), &mut tmps)?;
        let (xl, xh) = (vreg(sub(x, 0)), vreg(sub(x, 1)));
        let lo = |r: RegRange| vreg(sub(r, 0));
        let hi = |r: RegRange| vreg(sub(r, 1));
        let f64k = |v: f64| Src::K64 {
            bits: v.to_bits(),
            float: true,
        };
        let e = self.e.valloc(1)?;
        let t = self.e.valloc(1)?;
        let sub_m = self.e.mask_alloc()?;
        // Subnormals: xs = x · 2^108 (exact), else xs = x.
        let xs = self.e.valloc(2)?;
        self.e
            .valu(I::VBfeU32, &[vreg(e), xh, Src::K32(20), Src::K32(11)])?;
        self.e
            .valu(I::VCmpEqU32, &[sreg(sub_m), Src::K32(0), vreg(e)])?;
        self.e
            .valu(I::VMulF64, &[vreg(xs), vreg(x), f64k(2f64.powi(108))])?;
        for (j, src) in [(0, xl), (1, xh)] {
            self.e.valu(
                I::VCndmaskB32,
                &[vreg(sub(xs, j)), src, vreg(sub(xs, j)), sreg(sub_m)],
            )?;
        }
        // k = (exponent − 1023) >> 1; m = xs · 2^(−2k) by the exponent field.
        self.e
            .valu(I::VBfeU32, &[vreg(e), hi(xs), Src::K32(20), Src::K32(11)])?;
        self.e
            .valu(I::VAddU32, &[vreg(e), Src::K32((-1023i32) as u32), vreg(e)])?;
        self.e
            .valu(I::VAshrrevI32, &[vreg(e), Src::K32(1), vreg(e)])?;
        self.e
            .valu(I::VLshlrevB32, &[vreg(t), Src::K32(21), vreg(e)])?;
        self.e.valu(I::VSubU32, &[hi(xs), hi(xs), vreg(t)])?;
        // The result's exponent change: k, less 54 for scaled subnormals.
        self.e
            .valu(I::VAddU32, &[vreg(t), Src::K32((-54i32) as u32), vreg(e)])?;
        self.e
            .valu(I::VCndmaskB32, &[vreg(e), vreg(e), vreg(t), sreg(sub_m)])?;
        self.e.sgprs.free(sub_m);
        let m = xs;
        // y ≈ 1/sqrt(m) from f32; g = m·y, nh = −y/2.
        let (g, nh, r) = (self.e.valloc(2)?, self.e.valloc(2)?, self.e.valloc(2)?);
        self.e.valu(I::VCvtF32F64, &[vreg(t), vreg(m)])?;
        self.e.valu(I::VRsqF32, &[vreg(t), vreg(t)])?;
        self.e.valu(I::VCvtF64F32, &[vreg(r), vreg(t)])?;
        self.e.valu(I::VMulF64, &[vreg(g), vreg(m), vreg(r)])?;
        self.e.valu(I::VMulF64, &[vreg(nh), vreg(r), f64k(-0.5)])?;
        for _ in 0..if recip { 2 } else { 1 } {
            self.e
                .valu(I::VFmaF64, &[vreg(r), vreg(g), vreg(nh), f64k(0.5)])?;
            self.e
                .valu(I::VFmaF64, &[vreg(g), vreg(g), vreg(r), vreg(g)])?;
            self.e
                .valu(I::VFmaF64, &[vreg(nh), vreg(nh), vreg(r), vreg(nh)])?;
        }
        // The exponent change as a field: k << 20.
        self.e
            .valu(I::VLshlrevB32, &[vreg(t), Src::K32(20), vreg(e)])?;
        if recip {
            // 1/sqrt(x) = −2·nh · 2^(−k).
            self.e.valu(I::VMovB32, &[lo(d), lo(nh)])?;
            self.e
                .valu(I::VXorB32, &[hi(d), Src::K32(SIGN32), hi(nh)])?;
            self.e.valu(I::VSubU32, &[hi(d), hi(d), vreg(t)])?;
            self.e
                .valu(I::VAddU32, &[hi(d), Src::K32(1 << 20), hi(d)])?;
        } else {
            // g += (m − g²)·h twice, with nm = −m: (g² − m)·nh = (m − g²)·h.
            self.e.valu(I::VXorB32, &[hi(m), Src::K32(SIGN32), hi(m)])?;
            for _ in 0..2 {
                self.e
                    .valu(I::VFmaF64, &[vreg(r), vreg(g), vreg(g), vreg(m)])?;
                self.e
                    .valu(I::VFmaF64, &[vreg(g), vreg(r), vreg(nh), vreg(g)])?;
            }
            self.e.valu(I::VMovB32, &[lo(d), lo(g)])?;
            self.e.valu(I::VAddU32, &[hi(d), hi(g), vreg(t)])?;
        }
        for reg in [g, nh, r, m] {
            self.e.vgprs.free(reg);
        }
        // Special inputs, the last selection winning: negative → NaN, +∞ and NaN →
        // x (rsqrt(+∞) → +0), ±0 → x (rsqrt: ±∞).
        let mask = self.e.mask_alloc()?;
        let set = |l: &mut Self, m: RegRange, vlo: Src, vhi: Src| -> Result<()> {
            for (j, v) in [(0, vlo), (1, vhi)] {
                l.e.valu(
                    I::VCndmaskB32,
                    &[vreg(sub(d, j)), vreg(sub(d, j)), v, sreg(m)],
                )?;
            }
            Ok(())
        };
        self.e.valu(I::VCmpGtI32, &[sreg(mask), Src::K32(0), xh])?;
        self.e.valu(I::VMovB32, &[vreg(t), Src::K32(0x7ff8_0000)])?;
        set(self, mask, Src::K32(0), vreg(t))?;
        self.e
            .valu(I::VCmpLeI32, &[sreg(mask), Src::K32(0x7ff0_0000), xh])?;
        set(self, mask, xl, xh)?;
        if recip {
            self.e
                .valu(I::VXorB32, &[vreg(t), Src::K32(0x7ff0_0000), xh])?;
            self.e.valu(I::VOrB32, &[vreg(t), vreg(t), xl])?;
            self.e
                .valu(I::VCmpEqU32, &[sreg(mask), Src::K32(0), vreg(t)])?;
            set(self, mask, Src::K32(0), Src::K32(0))?;
        }
        self.e.valu(I::VAndB32, &[vreg(t), Src::K32(!SIGN32), xh])?;
        self.e.valu(I::VOrB32, &[vreg(t), vreg(t), xl])?;
        self.e
            .valu(I::VCmpEqU32, &[sreg(mask), Src::K32(0), vreg(t)])?;
        if recip {
            self.e.valu(I::VAndB32, &[vreg(t), Src::K32(SIGN32), xh])?;
            self.e
                .valu(I::VOrB32, &[vreg(t), Src::K32(0x7ff0_0000), vreg(t)])?;
            set(self, mask, Src::K32(0), vreg(t))?;
        } else {
            set(self, mask, xl, xh)?;
        }
        self.e.sgprs.free(mask);
        self.e.vgprs.free(e);
        self.e.vgprs.free(t);
        self.free_v(tmps);
        Ok(())
    }

    fn free_loc_tmp(&mut self, l: Loc) {
        match l {
            Loc::S(r) | Loc::M(r) => self.e.sgprs.free(r),
            Loc::V(r) => self.e.vgprs.free(r),
            Loc::K(_) => {}
        }
    }

    /// `d.word(j) = src` on the unit of `d`.
    fn mov_word(&mut self, d: Loc, j: u8, src: Src) -> Result<()> {
        match d {
            Loc::S(r) => self
                .e
                .salu(I::SMovB32, Some(Operand::Sgpr(sub(r, j))), &[src]),
            Loc::V(r) => self.e.valu(I::VMovB32, &[vreg(sub(r, j)), src]),
            _ => unreachable!("results live in registers"),
        }
    }

    /// A two- or three-source instruction into `d` on the scalar (`on_s`) or vector unit.
    fn op3(&mut self, on_s: bool, op: I, d: RegRange, srcs: &[Src]) -> Result<()> {
        if on_s {
            self.e.salu(op, Some(Operand::Sgpr(d)), srcs)
        } else {
            let mut all = vec![vreg(d)];
            all.extend_from_slice(srcs);
            self.e.valu(op, &all)
        }
    }

    /// `d = a ± b` over one or two words (`wide`), on either unit. The vector unit's
    /// subtraction is `a + !b + 1` through the carry chain.
    pub(super) fn add64(
        &mut self,
        on_s: bool,
        d: RegRange,
        a: Loc,
        b: Loc,
        wide: bool,
        subtract: bool,
    ) -> Result<()> {
        if b == Loc::K(0) {
            let d_loc = if on_s { Loc::S(d) } else { Loc::V(d) };
            for j in 0..if wide { 2 } else { 1 } {
                self.mov_word(d_loc, j, word(a, j))?;
            }
            return Ok(());
        }
        if on_s {
            let (lo, hi) = if subtract {
                (I::SSubU32, I::SSubbU32)
            } else {
                (I::SAddU32, I::SAddcU32)
            };
            self.e.salu(
                lo,
                Some(Operand::Sgpr(sub(d, 0))),
                &[word(a, 0), word(b, 0)],
            )?;
            if wide {
                self.e.salu(
                    hi,
                    Some(Operand::Sgpr(sub(d, 1))),
                    &[word(a, 1), word(b, 1)],
                )?;
            }
            return Ok(());
        }
        if !wide {
            let op = if subtract { I::VSubU32 } else { I::VAddU32 };
            return self.e.valu(op, &[vreg(d), word(a, 0), word(b, 0)]);
        }
        if !subtract {
            // lo with a carry out, hi with it in (the constant bus is the legalizer's).
            let carry = self.e.mask_alloc()?;
            let lo = if self.e.gfx11() {
                I::VAddCoU32Vop3
            } else {
                I::VAddCoU32
            };
            self.e
                .valu(lo, &[vreg(sub(d, 0)), sreg(carry), word(a, 0), word(b, 0)])?;
            self.e.valu(
                I::VAddcCoU32,
                &[
                    vreg(sub(d, 1)),
                    sreg(carry),
                    word(a, 1),
                    word(b, 1),
                    sreg(carry),
                ],
            )?;
            self.e.sgprs.free(carry);
            return Ok(());
        }
        let mut tmps = Vec::new();
        let bw: Vec<RegRange> = if subtract {
            let mut out = Vec::new();
            for j in 0..2 {
                let t = self.e.valloc(1)?;
                self.e.valu(I::VNotB32, &[vreg(t), word(b, j)])?;
                tmps.push(t);
                out.push(t);
            }
            out
        } else {
            vec![self.vword(b, 0, &mut tmps)?, self.vword(b, 1, &mut tmps)?]
        };
        let carry = self.e.mask_alloc()?;
        let cin = if subtract { -1 } else { 0 };
        self.e.op(
            self.e.mask_op(I::SMovB64),
            [Operand::Sgpr(carry), Operand::Int(cin)],
        );
        for j in 0..2 {
            self.e.valu(
                I::VAddcCoU32,
                &[
                    vreg(sub(d, j)),
                    sreg(carry),
                    word(a, j),
                    vreg(bw[j as usize]),
                    sreg(carry),
                ],
            )?;
        }
        self.e.sgprs.free(carry);
        self.free_v(tmps);
        Ok(())
    }

    // ---- binary -----------------------------------------------------------------------

    fn binary(&mut self, v: Value, b: Binary, x: Value, y: Value) -> Result<()> {
        let (lx, ly) = (self.loc(x)?, self.loc(y)?);
        let s = x.ty.scalar;
        if s == Scalar::Pred {
            let Loc::M(d) = self.define(v, Loc::M(RegRange::new(0, 0)))? else {
                unreachable!()
            };
            let op = match b {
                Binary::And => I::SAndB64,
                Binary::Or => I::SOrB64,
                Binary::Xor => I::SXorB64,
                _ => return Err(self.unsupported(format!("{} of predicates", b.name()))),
            };
            let op = self.e.mask_op(op);
            let (sa, sb) = (self.mask_src(lx), self.mask_src(ly));
            return self.e.salu(op, Some(Operand::Sgpr(d)), &[sa, sb]);
        }
        let salu = salu_binary(b, s);
        let d = self.result(v, &[lx, ly], salu)?;
        let (wx, wd) = (scalar_words(s), scalar_words(v.ty.scalar));
        let wy = scalar_words(y.ty.scalar);
        for i in 0..v.ty.lanes {
            let (a, c, o) = (lane(lx, i, wx), lane(ly, i, wy), lane(d, i, wd));
            self.binary_scalar(b, s, o, a, c)?;
        }
        Ok(())
    }

    pub(super) fn binary_scalar(
        &mut self,
        b: Binary,
        s: Scalar,
        d: Loc,
        x: Loc,
        y: Loc,
    ) -> Result<()> {
        let on_s = matches!(d, Loc::S(_));
        let dr = match d {
            Loc::S(r) | Loc::V(r) => r,
            _ => unreachable!("results live in registers"),
        };
        let signed = s.is_signed();
        let wide = scalar_words(s) == 2;
        use Binary::*;
        match (b, s) {
            // f32.
            (Add | Sub | Mul | Min | Max, Scalar::F32) => {
                let op = match b {
                    Add => I::VAddF32,
                    Sub => I::VSubF32,
                    Mul => I::VMulF32,
                    Min => I::VMinF32,
                    _ => I::VMaxF32,
                };
                self.e.valu(op, &[vreg(dr), word(x, 0), word(y, 0)])
            }
            (Div, Scalar::F32) => self.div_f32(dr, x, y),
            // f64.
            (Add | Sub | Mul | Max, Scalar::F64) => {
                let op = match b {
                    Mul => I::VMulF64,
                    Max => I::VMaxF64,
                    _ => I::VAddF64,
                };
                let neg = if b == Sub { 0b10 } else { 0 };
                self.e
                    .valu_mods(op, &[vreg(dr), pair(x, 0, true), pair(y, 0, true)], neg, 0)
            }
            (Min, Scalar::F64) => {
                // min(a, b) = −max(−a, −b): NaN and signed zeros come out as min's.
                self.e.valu_mods(
                    I::VMaxF64,
                    &[vreg(dr), pair(x, 0, true), pair(y, 0, true)],
                    0b11,
                    0,
                )?;
                self.e.valu(
                    I::VXorB32,
                    &[vreg(sub(dr, 1)), Src::K32(SIGN32), vreg(sub(dr, 1))],
                )
            }
            (Div, Scalar::F64) => self.div_f64(dr, x, y),
            // 32-bit integers.
            (Add | Sub, _) if s.is_int() => self.add64(on_s, dr, x, y, wide, b == Sub),
            (Mul, Scalar::U32 | Scalar::I32) => {
                let op = if on_s { I::SMulI32 } else { I::VMulLoU32 };
                self.op3(on_s, op, dr, &[word(x, 0), word(y, 0)])
            }
            (MulHi, Scalar::U32) => {
                let op = if on_s { I::SMulHiU32 } else { I::VMulHiU32 };
                self.op3(on_s, op, dr, &[word(x, 0), word(y, 0)])
            }
            (MulHi, Scalar::I32) => self
                .e
                .valu(I::VMulHiI32, &[vreg(dr), word(x, 0), word(y, 0)]),
            (MulWide, Scalar::U32 | Scalar::I32) => self.mul_wide(on_s, dr, x, y, signed),
            (Min | Max, Scalar::U32 | Scalar::I32) => {
                let op = match (b, signed, on_s) {
                    (Min, false, true) => I::SMinU32,
                    (Min, true, true) => I::SMinI32,
                    (Max, false, true) => I::SMaxU32,
                    (Max, true, true) => I::SMaxI32,
                    (Min, false, false) => I::VMinU32,
                    (Min, true, false) => I::VMinI32,
                    (Max, false, false) => I::VMaxU32,
                    _ => I::VMaxI32,
                };
                self.op3(on_s, op, dr, &[word(x, 0), word(y, 0)])
            }
            (And | Or | Xor, _) if s.is_int() => {
                let (s32, s64, v32) = match b {
                    And => (I::SAndB32, I::SAndB64, I::VAndB32),
                    Or => (I::SOrB32, I::SOrB64, I::VOrB32),
                    _ => (I::SXorB32, I::SXorB64, I::VXorB32),
                };
                if on_s && wide {
                    return self.e.salu(
                        s64,
                        Some(Operand::Sgpr(dr)),
                        &[pair(x, 0, false), pair(y, 0, false)],
                    );
                }
                for j in 0..scalar_words(s) {
                    let op = if on_s { s32 } else { v32 };
                    self.op3(on_s, op, sub(dr, j), &[word(x, j), word(y, j)])?;
                }
                Ok(())
            }
            (Shl | Shr, Scalar::U32 | Scalar::I32) => {
                let (sop, vop) = match (b, signed) {
                    (Shl, _) => (I::SLshlB32, I::VLshlrevB32),
                    (Shr, false) => (I::SLshrB32, I::VLshrrevB32),
                    _ => (I::SAshrI32, I::VAshrrevI32),
                };
                if on_s {
                    self.op3(true, sop, dr, &[word(x, 0), word(y, 0)])
                } else {
                    // The vector shifts take the amount first.
                    self.e.valu(vop, &[vreg(dr), word(y, 0), word(x, 0)])
                }
            }
            (Shl | Shr, Scalar::U64 | Scalar::I64) => {
                if on_s {
                    let op = match (b, signed) {
                        (Shl, _) => I::SLshlB64,
                        (Shr, false) => I::SLshrB64,
                        _ => I::SAshrI64,
                    };
                    return self.e.salu(
                        op,
                        Some(Operand::Sgpr(dr)),
                        &[pair(x, 0, false), word(y, 0)],
                    );
                }
                match (b, signed) {
                    (Shl, _) => self
                        .e
                        .valu(I::VLshlrevB64, &[vreg(dr), word(y, 0), pair(x, 0, false)]),
                    (Shr, false) => self
                        .e
                        .valu(I::VLshrrevB64, &[vreg(dr), word(y, 0), pair(x, 0, false)]),
                    _ => self.ashr64(dr, x, y),
                }
            }
            (Mul, Scalar::U64 | Scalar::I64) => self.mul64(on_s, dr, x, y),
            (Min | Max, Scalar::U64 | Scalar::I64) => {
                let m = self.e.mask_alloc()?;
                let cmp = if b == Min { Cmp::Lt } else { Cmp::Gt };
                self.cmp64_v(m, cmp, s, x, y)?;
                for j in 0..2 {
                    self.e.valu(
                        I::VCndmaskB32,
                        &[vreg(sub(dr, j)), word(y, j), word(x, j), sreg(m)],
                    )?;
                }
                self.e.sgprs.free(m);
                Ok(())
            }
            (Div | Rem, Scalar::U32 | Scalar::I32) => self.divrem32(dr, x, y, signed, b == Rem),
            _ => Err(self.unsupported(format!("{} of {}", b.name(), s.name()))),
        }
    }

    /// i64 arithmetic shift right on the vector unit: `alignbit`/`ashr` for amounts
    /// below 32, `ashr` of the high word for the rest (the hardware reads amounts mod 32).
    fn ashr64(&mut self, d: RegRange, x: Loc, y: Loc) -> Result<()> {
        let mut tmps = Vec::new();
        let (lo, hi) = (self.vword(x, 0, &mut tmps)?, self.vword(x, 1, &mut tmps)?);
        let amt = word(y, 0);
        let (a, b, c) = (self.e.valloc(1)?, self.e.valloc(1)?, self.e.valloc(1)?);
        // Below 32: lo' = (hi:lo) >> amt, hi' = hi >> amt.
        self.e
            .valu(I::VAlignbitB32, &[vreg(a), vreg(hi), vreg(lo), amt])?;
        self.e.valu(I::VAshrrevI32, &[vreg(b), amt, vreg(hi)])?;
        // From 32: lo' = hi >> (amt - 32) (= b), hi' = hi >> 31.
        self.e
            .valu(I::VAshrrevI32, &[vreg(c), Src::K32(31), vreg(hi)])?;
        let m = self.e.mask_alloc()?;
        self.e.valu(I::VCmpGtU32, &[sreg(m), Src::K32(32), amt])?;
        self.e.valu(
            I::VCndmaskB32,
            &[vreg(sub(d, 0)), vreg(b), vreg(a), sreg(m)],
        )?;
        self.e.valu(
            I::VCndmaskB32,
            &[vreg(sub(d, 1)), vreg(c), vreg(b), sreg(m)],
        )?;
        self.e.sgprs.free(m);
        for r in [a, b, c] {
            self.e.vgprs.free(r);
        }
        self.free_v(tmps);
        Ok(())
    }

    /// u32 × u32 → u64 (i32: the unsigned product minus the sign corrections).
    fn mul_wide(&mut self, on_s: bool, d: RegRange, x: Loc, y: Loc, signed: bool) -> Result<()> {
        if on_s {
            let (dl, dh) = (Operand::Sgpr(sub(d, 0)), Operand::Sgpr(sub(d, 1)));
            self.e
                .salu(I::SMulHiU32, Some(dh), &[word(x, 0), word(y, 0)])?;
            self.e
                .salu(I::SMulI32, Some(dl), &[word(x, 0), word(y, 0)])?;
            if signed {
                let t = self.e.salloc(1)?;
                for (p, q) in [(x, y), (y, x)] {
                    self.e.salu(
                        I::SAshrI32,
                        Some(Operand::Sgpr(t)),
                        &[word(p, 0), Src::K32(31)],
                    )?;
                    self.e
                        .salu(I::SAndB32, Some(Operand::Sgpr(t)), &[sreg(t), word(q, 0)])?;
                    self.e.salu(I::SSubU32, Some(dh), &[Src::Op(dh), sreg(t)])?;
                }
                self.e.sgprs.free(t);
            }
            return Ok(());
        }
        let carry = self.e.mask_alloc()?;
        self.e.valu(
            I::VMadU64U32,
            &[
                vreg(d),
                sreg(carry),
                word(x, 0),
                word(y, 0),
                Src::K64 {
                    bits: 0,
                    float: false,
                },
            ],
        )?;
        self.e.sgprs.free(carry);
        if signed {
            let t = self.e.valloc(1)?;
            for (p, q) in [(x, y), (y, x)] {
                self.e
                    .valu(I::VAshrrevI32, &[vreg(t), Src::K32(31), word(p, 0)])?;
                self.e.valu(I::VAndB32, &[vreg(t), word(q, 0), vreg(t)])?;
                self.e
                    .valu(I::VSubU32, &[vreg(sub(d, 1)), vreg(sub(d, 1)), vreg(t)])?;
            }
            self.e.vgprs.free(t);
        }
        Ok(())
    }

    /// The low 64 bits of a 64 × 64 product.
    fn mul64(&mut self, on_s: bool, d: RegRange, x: Loc, y: Loc) -> Result<()> {
        // By a constant power of two: a shift.
        let (x, y) = if matches!(x, Loc::K(_)) {
            (y, x)
        } else {
            (x, y)
        };
        if let Loc::K(k) = y {
            if k.is_power_of_two() {
                let sh = Src::K32(k.trailing_zeros());
                return if on_s {
                    self.e.salu(
                        I::SLshlB64,
                        Some(Operand::Sgpr(d)),
                        &[pair(x, 0, false), sh],
                    )
                } else {
                    self.e
                        .valu(I::VLshlrevB64, &[vreg(d), sh, pair(x, 0, false)])
                };
            }
        }
        let t = if on_s {
            self.e.salloc(1)?
        } else {
            self.e.valloc(1)?
        };
        let tl = if on_s { Loc::S(t) } else { Loc::V(t) };
        // Cross terms first: d may alias nothing the inputs use (fresh registers).
        self.mul_wide(on_s, d, x, y, false)?;
        let (mul, add) = if on_s {
            (I::SMulI32, I::SAddU32)
        } else {
            (I::VMulLoU32, I::VAddU32)
        };
        let high = if on_s {
            sreg(sub(d, 1))
        } else {
            vreg(sub(d, 1))
        };
        for (p, q) in [(x, y), (y, x)] {
            // A constant high word of zero adds nothing.
            if matches!(q, Loc::K(k) if k >> 32 == 0) {
                continue;
            }
            self.op3(on_s, mul, t, &[word(p, 0), word(q, 1)])?;
            self.op3(on_s, add, sub(d, 1), &[high, word(tl, 0)])?;
        }
        self.free_loc_tmp(tl);
        Ok(())
    }

    /// u32/i32 division and remainder (b ≠ 0): LLVM's expansion with an f32 reciprocal
    /// estimate refined by one integer Newton step, then two corrections.
    fn divrem32(&mut self, d: RegRange, x: Loc, y: Loc, signed: bool, rem: bool) -> Result<()> {
        let mut tmps = Vec::new();
        let mut a = self.vword(x, 0, &mut tmps)?;
        let mut b = self.vword(y, 0, &mut tmps)?;
        let v = |s: &mut Self, tmps: &mut Vec<RegRange>| -> Result<RegRange> {
            let r = s.e.valloc(1)?;
            tmps.push(r);
            Ok(r)
        };
        let (sa, sb) = (v(self, &mut tmps)?, v(self, &mut tmps)?);
        if signed {
            // |a| = (a ^ s) - s with s = a >> 31.
            for (src, sign) in [(&mut a, sa), (&mut b, sb)] {
                let abs = v(self, &mut tmps)?;
                self.e
                    .valu(I::VAshrrevI32, &[vreg(sign), Src::K32(31), vreg(*src)])?;
                self.e
                    .valu(I::VXorB32, &[vreg(abs), vreg(*src), vreg(sign)])?;
                self.e
                    .valu(I::VSubU32, &[vreg(abs), vreg(abs), vreg(sign)])?;
                *src = abs;
            }
        }
        let (z, t, q, r) = (
            v(self, &mut tmps)?,
            v(self, &mut tmps)?,
            v(self, &mut tmps)?,
            v(self, &mut tmps)?,
        );
        self.e.valu(I::VCvtF32U32, &[vreg(z), vreg(b)])?;
        self.e.valu(I::VRcpF32, &[vreg(z), vreg(z)])?;
        // 2^32 − 512, below 2^32 so the product converts without saturating.
        self.e
            .valu(I::VMulF32, &[vreg(z), Src::K32(0x4f7f_fffe), vreg(z)])?;
        self.e.valu(I::VCvtU32F32, &[vreg(z), vreg(z)])?;
        self.e.valu(I::VSubU32, &[vreg(t), Src::K32(0), vreg(b)])?;
        self.e.valu(I::VMulLoU32, &[vreg(t), vreg(t), vreg(z)])?;
        self.e.valu(I::VMulHiU32, &[vreg(t), vreg(z), vreg(t)])?;
        self.e.valu(I::VAddU32, &[vreg(z), vreg(z), vreg(t)])?;
        self.e.valu(I::VMulHiU32, &[vreg(q), vreg(a), vreg(z)])?;
        self.e.valu(I::VMulLoU32, &[vreg(t), vreg(q), vreg(b)])?;
        self.e.valu(I::VSubU32, &[vreg(r), vreg(a), vreg(t)])?;
        let m = self.e.mask_alloc()?;
        for _ in 0..2 {
            // r >= b: q += 1, r -= b.
            self.e.valu(I::VCmpGeU32, &[sreg(m), vreg(r), vreg(b)])?;
            self.e.valu(I::VAddU32, &[vreg(t), Src::K32(1), vreg(q)])?;
            self.e
                .valu(I::VCndmaskB32, &[vreg(q), vreg(q), vreg(t), sreg(m)])?;
            self.e.valu(I::VSubU32, &[vreg(t), vreg(r), vreg(b)])?;
            self.e
                .valu(I::VCndmaskB32, &[vreg(r), vreg(r), vreg(t), sreg(m)])?;
        }
        self.e.sgprs.free(m);
        let (out, sign) = if rem { (r, sa) } else { (q, sb) };
        if signed {
            // Quotient sign a ^ b; remainder sign a's.
            if !rem {
                self.e.valu(I::VXorB32, &[vreg(sb), vreg(sa), vreg(sb)])?;
            }
            self.e
                .valu(I::VXorB32, &[vreg(out), vreg(out), vreg(sign)])?;
            self.e.valu(I::VSubU32, &[vreg(d), vreg(out), vreg(sign)])?;
        } else {
            self.e.valu(I::VMovB32, &[vreg(d), vreg(out)])?;
        }
        self.free_v(tmps);
        Ok(())
    }

    /// f32 a / b: see the module docs.
    fn div_f32(&mut self, d: RegRange, x: Loc, y: Loc) -> Result<()> {
        let (r, e, q) = (self.e.valloc(1)?, self.e.valloc(1)?, self.e.valloc(1)?);
        let (a, b) = (word(x, 0), word(y, 0));
        let one = Src::Op(Operand::Float(InlineFloat::One));
        self.e.valu(I::VRcpF32, &[vreg(r), b])?;
        self.e.valu(I::VMulF32, &[vreg(d), a, vreg(r)])?;
        self.e
            .valu_mods(I::VFmaF32, &[vreg(e), b, vreg(r), one], 0b001, 0)?;
        self.e
            .valu(I::VFmaF32, &[vreg(r), vreg(e), vreg(r), vreg(r)])?;
        self.e.valu(I::VMulF32, &[vreg(q), a, vreg(r)])?;
        self.e
            .valu_mods(I::VFmaF32, &[vreg(e), b, vreg(q), a], 0b001, 0)?;
        self.e
            .valu(I::VFmaF32, &[vreg(q), vreg(e), vreg(r), vreg(q)])?;
        // Keep the refined quotient unless it is NaN (b = 0 or ±∞, a = ±∞).
        let m = self.e.mask_alloc()?;
        self.e.valu(I::VCmpEqF32, &[sreg(m), vreg(q), vreg(q)])?;
        self.e
            .valu(I::VCndmaskB32, &[vreg(d), vreg(d), vreg(q), sreg(m)])?;
        self.e.sgprs.free(m);
        for t in [r, e, q] {
            self.e.vgprs.free(t);
        }
        Ok(())
    }

    /// f64 a / b: `v_rcp_f64`, two reciprocal steps, one quotient step; NaN falls back
    /// to `a·rcp(b)` as for f32 (f64 has no compare: NaN is the only value for which
    /// `max(q, q)` is not bitwise `q`... the test is done on the high words as integers:
    /// a NaN's high word with the sign cleared is above 0x7ff00000 or equal with a
    /// nonzero low word).
    fn div_f64(&mut self, d: RegRange, x: Loc, y: Loc) -> Result<()> {
        let (r, e, q) = (self.e.valloc(2)?, self.e.valloc(2)?, self.e.valloc(2)?);
        let (a, b) = (pair(x, 0, true), pair(y, 0, true));
        let one = Src::Op(Operand::Float(InlineFloat::One));
        self.e.valu(I::VRcpF64, &[vreg(r), b])?;
        self.e.valu(I::VMulF64, &[vreg(d), a, vreg(r)])?;
        for _ in 0..2 {
            self.e
                .valu_mods(I::VFmaF64, &[vreg(e), b, vreg(r), one], 0b001, 0)?;
            self.e
                .valu(I::VFmaF64, &[vreg(r), vreg(e), vreg(r), vreg(r)])?;
        }
        self.e.valu(I::VMulF64, &[vreg(q), a, vreg(r)])?;
        self.e
            .valu_mods(I::VFmaF64, &[vreg(e), b, vreg(q), a], 0b001, 0)?;
        self.e
            .valu(I::VFmaF64, &[vreg(q), vreg(e), vreg(r), vreg(q)])?;
        let m = self.e.mask_alloc()?;
        self.not_nan64(m, q)?;
        for j in 0..2 {
            self.e.valu(
                I::VCndmaskB32,
                &[vreg(sub(d, j)), vreg(sub(d, j)), vreg(sub(q, j)), sreg(m)],
            )?;
        }
        self.e.sgprs.free(m);
        for t in [r, e, q] {
            self.e.vgprs.free(t);
        }
        Ok(())
    }

    /// `m` = lanes where the f64 in `q` is not NaN: `|hi| < 0x7ff00000`, or equal with a
    /// zero low word (∞).
    fn not_nan64(&mut self, m: RegRange, q: RegRange) -> Result<()> {
        let t = self.e.valloc(1)?;
        let m2 = self.e.mask_alloc()?;
        self.e
            .valu(I::VAndB32, &[vreg(t), Src::K32(!SIGN32), vreg(sub(q, 1))])?;
        self.e
            .valu(I::VCmpGtU32, &[sreg(m), Src::K32(0x7ff0_0000), vreg(t)])?;
        self.e
            .valu(I::VCmpEqU32, &[sreg(m2), Src::K32(0x7ff0_0000), vreg(t)])?;
        let and = self.e.mask_op(I::SAndB64);
        let or = self.e.mask_op(I::SOrB64);
        let t2 = self.e.mask_alloc()?;
        self.e
            .valu(I::VCmpEqU32, &[sreg(t2), Src::K32(0), vreg(sub(q, 0))])?;
        self.e.op(
            and,
            [Operand::Sgpr(m2), Operand::Sgpr(m2), Operand::Sgpr(t2)],
        );
        self.e
            .op(or, [Operand::Sgpr(m), Operand::Sgpr(m), Operand::Sgpr(m2)]);
        self.e.sgprs.free(t2);
        self.e.sgprs.free(m2);
        self.e.vgprs.free(t);
        Ok(())
    }

    // ---- fma, compare, select ------------------------------------------------------

    fn fma(&mut self, v: Value, a: Value, b: Value, c: Value) -> Result<()> {
        let (la, lb, lc) = (self.loc(a)?, self.loc(b)?, self.loc(c)?);
        let s = v.ty.scalar;
        let salu = matches!(s, Scalar::U32 | Scalar::I32 | Scalar::U64 | Scalar::I64);
        let d = self.result(v, &[la, lb, lc], salu)?;
        let w = scalar_words(s);
        for i in 0..v.ty.lanes {
            let (x, y, z, o) = (
                lane(la, i, w),
                lane(lb, i, w),
                lane(lc, i, w),
                lane(d, i, w),
            );
            let or = match o {
                Loc::S(r) | Loc::V(r) => r,
                _ => unreachable!(),
            };
            match s {
                Scalar::F32 => self
                    .e
                    .valu(I::VFmaF32, &[vreg(or), word(x, 0), word(y, 0), word(z, 0)])?,
                Scalar::F64 => self.e.valu(
                    I::VFmaF64,
                    &[
                        vreg(or),
                        pair(x, 0, true),
                        pair(y, 0, true),
                        pair(z, 0, true),
                    ],
                )?,
                _ if matches!(o, Loc::V(_)) && scalar_like(x) && scalar_like(y) => {
                    // A uniform product on the scalar unit, added on the vector unit.
                    let t = Loc::S(self.e.salloc(w)?);
                    self.binary_scalar(Binary::Mul, s, t, x, y)?;
                    self.binary_scalar(Binary::Add, s, o, t, z)?;
                    self.free_loc_tmp(t);
                }
                _ => {
                    self.binary_scalar(Binary::Mul, s, o, x, y)?;
                    self.binary_scalar(Binary::Add, s, o, o, z)?;
                }
            }
        }
        Ok(())
    }

    fn cmp(&mut self, v: Value, c: Cmp, a: Value, b: Value) -> Result<()> {
        let (la, lb) = (self.loc(a)?, self.loc(b)?);
        let s = a.ty.scalar;
        let Loc::M(m) = self.define(v, Loc::M(RegRange::new(0, 0)))? else {
            unreachable!()
        };
        if s == Scalar::Pred {
            // Eq = !(a ^ b), Ne = a ^ b.
            let xor = self.e.mask_op(I::SXorB64);
            let (sa, sb) = (self.mask_src(la), self.mask_src(lb));
            self.e.salu(xor, Some(Operand::Sgpr(m)), &[sa, sb])?;
            return match c {
                Cmp::Ne => Ok(()),
                Cmp::Eq => self.e.salu(
                    xor,
                    Some(Operand::Sgpr(m)),
                    &[sreg(m), Src::Op(Operand::Int(-1))],
                ),
                _ => Err(self.unsupported("ordering of predicates")),
            };
        }
        let scalar = scalar_like(la) && scalar_like(lb);
        let sop = match (s, c) {
            (Scalar::U32 | Scalar::I32, _) => Some(scmp32(c, s.is_signed())),
            (Scalar::U64 | Scalar::I64, Cmp::Eq) => Some(I::SCmpEqU64),
            (Scalar::U64 | Scalar::I64, Cmp::Ne) => Some(I::SCmpLgU64),
            _ => None,
        };
        if let (true, Some(op)) = (scalar, sop) {
            let srcs = if scalar_words(s) == 2 {
                [pair(la, 0, false), pair(lb, 0, false)]
            } else {
                [word(la, 0), word(lb, 0)]
            };
            self.e.salu(op, None, &srcs)?;
            let sel = self.e.mask_op(I::SCselectB64);
            self.e
                .op(sel, [Operand::Sgpr(m), Operand::Int(-1), Operand::Int(0)]);
            return Ok(());
        }
        match s {
            Scalar::U32 | Scalar::I32 | Scalar::F32 => {
                let op = vcmp32(c, s);
                self.e.valu(op, &[sreg(m), word(la, 0), word(lb, 0)])
            }
            Scalar::U64 | Scalar::I64 => self.cmp64_v(m, c, s, la, lb),
            Scalar::F64 => self.cmp_f64(m, c, la, lb),
            _ => Err(self.unsupported(format!("comparison of {}", s.name()))),
        }
    }

    /// An f64 comparison (the instruction model has no `v_cmp_*_f64`): both operands
    /// mapped to i64 keys that order as the floats do (`±|x|` by the sign bit, so −0
    /// and +0 both map to 0), compared as i64, and-ed with "neither is NaN" (`Ne` is
    /// the negation of that `Eq`).
    fn cmp_f64(&mut self, m: RegRange, c: Cmp, a: Loc, b: Loc) -> Result<()> {
        let mut keys = Vec::new();
        let ordered = [self.e.mask_alloc()?, self.e.mask_alloc()?];
        let sign = self.e.mask_alloc()?;
        for (n, x) in [a, b].into_iter().enumerate() {
            let (mag, key) = (self.e.valloc(2)?, self.e.valloc(2)?);
            self.e.valu(I::VMovB32, &[vreg(sub(mag, 0)), word(x, 0)])?;
            self.e.valu(
                I::VAndB32,
                &[vreg(sub(mag, 1)), Src::K32(!SIGN32), word(x, 1)],
            )?;
            self.not_nan64(ordered[n], mag)?;
            self.add64(false, key, Loc::K(0), Loc::V(mag), true, true)?;
            self.e
                .valu(I::VCmpGtI32, &[sreg(sign), Src::K32(0), word(x, 1)])?;
            for j in 0..2 {
                self.e.valu(
                    I::VCndmaskB32,
                    &[
                        vreg(sub(key, j)),
                        vreg(sub(mag, j)),
                        vreg(sub(key, j)),
                        sreg(sign),
                    ],
                )?;
            }
            self.e.vgprs.free(mag);
            keys.push(key);
        }
        let test = if c == Cmp::Ne { Cmp::Eq } else { c };
        self.cmp64_v(m, test, Scalar::I64, Loc::V(keys[0]), Loc::V(keys[1]))?;
        let and = self.e.mask_op(I::SAndB64);
        for o in ordered {
            self.e
                .op(and, [Operand::Sgpr(m), Operand::Sgpr(m), Operand::Sgpr(o)]);
        }
        if c == Cmp::Ne {
            let xor = self.e.mask_op(I::SXorB64);
            self.e
                .op(xor, [Operand::Sgpr(m), Operand::Sgpr(m), Operand::Int(-1)]);
        }
        for k in keys {
            self.e.vgprs.free(k);
        }
        for r in [sign, ordered[0], ordered[1]] {
            self.e.sgprs.free(r);
        }
        Ok(())
    }

    /// A 64-bit integer comparison: one `v_cmp_*_{u,i}64` straight into the mask, so
    /// no temporary mask is live beside it. The model has `eq`, `ne`, `lt`, `gt`, `ge`
    /// unsigned and `lt`, `gt` signed: `a <= b` unsigned is `b >= a`, and signed `<=`
    /// and `>=` are the negations of `>` and `<` (bits of inactive lanes are
    /// unspecified, so the negation may set them).
    fn cmp64_v(&mut self, m: RegRange, c: Cmp, s: Scalar, a: Loc, b: Loc) -> Result<()> {
        let (x, y) = (pair(a, 0, false), pair(b, 0, false));
        let (op, swap, negate) = match (s.is_signed(), c) {
            (_, Cmp::Eq) => (I::VCmpEqU64, false, false),
            (_, Cmp::Ne) => (I::VCmpNeU64, false, false),
            (false, Cmp::Lt) => (I::VCmpLtU64, false, false),
            (false, Cmp::Gt) => (I::VCmpGtU64, false, false),
            (false, Cmp::Ge) => (I::VCmpGeU64, false, false),
            (false, Cmp::Le) => (I::VCmpGeU64, true, false),
            (true, Cmp::Lt) => (I::VCmpLtI64, false, false),
            (true, Cmp::Gt) => (I::VCmpGtI64, false, false),
            (true, Cmp::Le) => (I::VCmpGtI64, false, true),
            (true, Cmp::Ge) => (I::VCmpLtI64, false, true),
        };
        let (x, y) = if swap { (y, x) } else { (x, y) };
        self.e.valu(op, &[sreg(m), x, y])?;
        if negate {
            let xor = self.e.mask_op(I::SXorB64);
            self.e
                .op(xor, [Operand::Sgpr(m), Operand::Sgpr(m), Operand::Int(-1)]);
        }
        Ok(())
    }

    fn select(&mut self, v: Value, c: Value, a: Value, b: Value) -> Result<()> {
        let (lc, la, lb) = (self.loc(c)?, self.loc(a)?, self.loc(b)?);
        if let Loc::K(bits) = lc {
            return self.copy_value(v, if bits & 1 != 0 { la } else { lb });
        }
        if v.ty.scalar == Scalar::Pred {
            // (a & c) | (b & !c)
            let Loc::M(d) = self.define(v, Loc::M(RegRange::new(0, 0)))? else {
                unreachable!()
            };
            let (and, or) = (self.e.mask_op(I::SAndB64), self.e.mask_op(I::SOrB64));
            let t = self.e.mask_alloc()?;
            let (sa, sb, sc) = (self.mask_src(la), self.mask_src(lb), self.mask_src(lc));
            self.e.salu(and, Some(Operand::Sgpr(t)), &[sa, sc])?;
            let Src::Op(sbo) = sb else { unreachable!() };
            let Src::Op(sco) = sc else { unreachable!() };
            self.e.mask_andn2(Operand::Sgpr(d), sbo, sco)?;
            self.e
                .op(or, [Operand::Sgpr(d), Operand::Sgpr(d), Operand::Sgpr(t)]);
            self.e.sgprs.free(t);
            return Ok(());
        }
        let scalar = self.uniform(c) && scalar_like(la) && scalar_like(lb);
        let n = words(v.ty);
        if scalar {
            let Loc::S(d) = self.define(v, Loc::S(RegRange::new(0, 0)))? else {
                unreachable!()
            };
            let tmp = self.e.mask_alloc()?;
            let and = self.e.mask_op(I::SAndB64);
            let exec = self.e.exec();
            let sc = self.mask_src(lc);
            self.e
                .salu(and, Some(Operand::Sgpr(tmp)), &[sc, Src::Op(exec)])?;
            self.e.sgprs.free(tmp);
            for j in 0..n {
                self.e.salu(
                    I::SCselectB32,
                    Some(Operand::Sgpr(sub(d, j))),
                    &[word(la, j), word(lb, j)],
                )?;
            }
            return Ok(());
        }
        let Loc::V(d) = self.define(v, Loc::V(RegRange::new(0, 0)))? else {
            unreachable!()
        };
        let sc = self.mask_src(lc);
        for j in 0..n {
            self.e.valu(
                I::VCndmaskB32,
                &[vreg(sub(d, j)), word(lb, j), word(la, j), sc],
            )?;
        }
        Ok(())
    }

    // ---- conversions -------------------------------------------------------------------

    fn convert(&mut self, v: Value, a: Value, r: Rounding) -> Result<()> {
        let la = self.loc(a)?;
        let (from, to) = (a.ty.scalar, v.ty.scalar);
        if from == to {
            return self.copy_value(v, la);
        }
        let int_int = from.is_int() && to.is_int();
        let d = self.result(v, &[la], int_int)?;
        let on_s = matches!(d, Loc::S(_));
        let dr = match d {
            Loc::S(r) | Loc::V(r) => r,
            _ => unreachable!(),
        };
        let bad = || {
            self.unsupported(format!(
                "conversion {} -> {} rounding {r:?}",
                from.name(),
                to.name()
            ))
        };
        use Scalar::*;
        let rn = r == Rounding::Nearest;
        match (from, to) {
            _ if int_int => {
                self.mov_word(d, 0, word(la, 0))?;
                if scalar_words(to) == 2 {
                    if scalar_words(from) == 2 {
                        self.mov_word(d, 1, word(la, 1))?;
                    } else if from.is_signed() {
                        let op = if on_s { I::SAshrI32 } else { I::VAshrrevI32 };
                        if on_s {
                            self.op3(true, op, sub(dr, 1), &[word(la, 0), Src::K32(31)])?;
                        } else {
                            self.op3(false, op, sub(dr, 1), &[Src::K32(31), word(la, 0)])?;
                        }
                    } else {
                        self.mov_word(d, 1, Src::K32(0))?;
                    }
                }
            }
            (U32, F32) if rn => self.e.valu(I::VCvtF32U32, &[vreg(dr), word(la, 0)])?,
            (I32, F32) if rn => self.e.valu(I::VCvtF32I32, &[vreg(dr), word(la, 0)])?,
            (I32, F64) => self.e.valu(I::VCvtF64I32, &[vreg(dr), word(la, 0)])?,
            (U32, F64) => {
                // Exact: f64(i32(x ^ 2^31)) + 2^31.
                let t = self.e.valloc(1)?;
                self.e
                    .valu(I::VXorB32, &[vreg(t), Src::K32(SIGN32), word(la, 0)])?;
                self.e.valu(I::VCvtF64I32, &[vreg(dr), vreg(t)])?;
                self.e.valu(
                    I::VAddF64,
                    &[
                        vreg(dr),
                        vreg(dr),
                        Src::K64 {
                            bits: (2f64.powi(31)).to_bits(),
                            float: true,
                        },
                    ],
                )?;
                self.e.vgprs.free(t);
            }
            (U64 | I64, F64) if rn => {
                // f64(hi)·2³² and f64(lo) are exact, so their sum rounds once.
                let hi = self.e.valloc(2)?;
                let cvt_hi = if from == I64 {
                    I::VCvtF64I32
                } else {
                    I::VCvtF64U32
                };
                self.e.valu(cvt_hi, &[vreg(hi), word(la, 1)])?;
                let two32 = Src::K64 {
                    bits: 2f64.powi(32).to_bits(),
                    float: true,
                };
                self.e.valu(I::VMulF64, &[vreg(hi), vreg(hi), two32])?;
                self.e.valu(I::VCvtF64U32, &[vreg(dr), word(la, 0)])?;
                self.e.valu(I::VAddF64, &[vreg(dr), vreg(dr), vreg(hi)])?;
                self.e.vgprs.free(hi);
            }
            (F32, I32) if r == Rounding::Zero => {
                self.e.valu(I::VCvtI32F32, &[vreg(dr), word(la, 0)])?
            }
            (F32, U32) if r == Rounding::Zero => {
                self.e.valu(I::VCvtU32F32, &[vreg(dr), word(la, 0)])?
            }
            (F64, I32) if r == Rounding::Zero => {
                self.e.valu(I::VCvtI32F64, &[vreg(dr), pair(la, 0, true)])?
            }
            (F32, I32 | U32) | (F64, I32) => self.round_to_int(dr, la, from, to, r)?,
            (F32, F64) => self.e.valu(I::VCvtF64F32, &[vreg(dr), word(la, 0)])?,
            (F16, F64) | (Bf16, F64) => {
                let t = self.e.valloc(1)?;
                self.widen_to_f32(t, from, la)?;
                self.e.valu(I::VCvtF64F32, &[vreg(dr), vreg(t)])?;
                self.e.vgprs.free(t);
            }
            (F64, F32) if rn => self.e.valu(I::VCvtF32F64, &[vreg(dr), pair(la, 0, true)])?,
            (F16 | Bf16, F32) => self.widen_to_f32(dr, from, la)?,
            (F32, F16) if rn => {
                self.e.valu(I::VCvtF16F32, &[vreg(dr), word(la, 0)])?;
                self.e
                    .valu(I::VAndB32, &[vreg(dr), Src::K32(0xffff), vreg(dr)])?;
            }
            (F32, F16) if r == Rounding::Zero => {
                let op = if self.e.gfx11() {
                    I::VCvtPkRtzF16F32
                } else {
                    I::VCvtPkrtzF16F32
                };
                self.e.valu(op, &[vreg(dr), word(la, 0), Src::K32(0)])?;
            }
            (F32, Bf16) if rn || r == Rounding::Zero => self.f32_to_bf16(dr, la, rn)?,
            (F16, Bf16) if rn || r == Rounding::Zero => {
                // f16 → f32 is exact, so one rounding.
                let t = self.e.valloc(1)?;
                self.widen_to_f32(t, F16, la)?;
                self.f32_to_bf16(dr, Loc::V(t), rn)?;
                self.e.vgprs.free(t);
            }
            (Bf16, F16) if rn => {
                let t = self.e.valloc(1)?;
                self.widen_to_f32(t, Bf16, la)?;
                self.e.valu(I::VCvtF16F32, &[vreg(dr), vreg(t)])?;
                self.e
                    .valu(I::VAndB32, &[vreg(dr), Src::K32(0xffff), vreg(dr)])?;
                self.e.vgprs.free(t);
            }
            _ => return Err(bad()),
        }
        Ok(())
    }

    /// Float → i32/u32 rounded down, up or to nearest even (the model has no
    /// `v_floor`/`v_rndne`): `t = trunc(x)` by the saturating toward-zero conversion,
    /// `f = x − float(t)` (exact: t is x's integer part, or x itself is integral when
    /// |x| ≥ 2²³, resp. 2⁵²), a step `s ∈ {−1, 0, 1}` from the sign of `f` (nearest:
    /// `|f| > ½`, or `|f| = ½` with t odd), and the toward-zero conversion of `float(t) + s`
    /// (exact below 2²⁴; above, `f` is 0 unless t saturated, and the conversion saturates
    /// again). NaN gives t = 0, f = NaN, s = 0: 0.
    fn round_to_int(
        &mut self,
        d: RegRange,
        x: Loc,
        from: Scalar,
        to: Scalar,
        r: Rounding,
    ) -> Result<()> {
        let f64 = from == Scalar::F64;
        let w = if f64 { 2 } else { 1 };
        let (cvt_to, cvt_back) = match (f64, to) {
            (false, Scalar::I32) => (I::VCvtI32F32, I::VCvtF32I32),
            (false, _) => (I::VCvtU32F32, I::VCvtF32U32),
            _ => (I::VCvtI32F64, I::VCvtF64I32),
        };
        let xs = if f64 { pair(x, 0, true) } else { word(x, 0) };
        let (t, back, frac, step) = (
            self.e.valloc(1)?,
            self.e.valloc(w)?,
            self.e.valloc(w)?,
            self.e.valloc(w)?,
        );
        self.e.valu(cvt_to, &[vreg(t), xs])?;
        self.e.valu(cvt_back, &[vreg(back), vreg(t)])?;
        if f64 {
            self.e
                .valu_mods(I::VAddF64, &[vreg(frac), xs, vreg(back)], 0b10, 0)?;
        } else {
            self.e.valu(I::VSubF32, &[vreg(frac), xs, vreg(back)])?;
        }
        let bits = |v: f64| -> Loc {
            if f64 {
                Loc::K(v.to_bits())
            } else {
                Loc::K(u64::from((v as f32).to_bits()))
            }
        };
        let (up, down) = (self.e.mask_alloc()?, self.e.mask_alloc()?);
        let cmp = |l: &mut Self, m: RegRange, c: Cmp, k: f64| -> Result<()> {
            if f64 {
                l.cmp_f64(m, c, Loc::V(frac), bits(k))
            } else {
                l.e.valu(
                    vcmp32(c, Scalar::F32),
                    &[sreg(m), vreg(frac), word(bits(k), 0)],
                )
            }
        };
        let (and, or) = (self.e.mask_op(I::SAndB64), self.e.mask_op(I::SOrB64));
        match r {
            Rounding::Down => {
                cmp(self, down, Cmp::Lt, 0.0)?;
                self.e.op(
                    self.e.mask_op(I::SMovB64),
                    [Operand::Sgpr(up), Operand::Int(0)],
                );
            }
            Rounding::Up => {
                cmp(self, up, Cmp::Gt, 0.0)?;
                self.e.op(
                    self.e.mask_op(I::SMovB64),
                    [Operand::Sgpr(down), Operand::Int(0)],
                );
            }
            _ => {
                let (odd, tie) = (self.e.mask_alloc()?, self.e.mask_alloc()?);
                let one = self.e.valloc(1)?;
                self.e
                    .valu(I::VAndB32, &[vreg(one), Src::K32(1), vreg(t)])?;
                self.e
                    .valu(I::VCmpNeU32, &[sreg(odd), Src::K32(0), vreg(one)])?;
                self.e.vgprs.free(one);
                for (m, sign) in [(up, 1.0), (down, -1.0)] {
                    let c = if sign > 0.0 { Cmp::Gt } else { Cmp::Lt };
                    cmp(self, m, c, 0.5 * sign)?;
                    cmp(self, tie, Cmp::Eq, 0.5 * sign)?;
                    self.e.op(
                        and,
                        [Operand::Sgpr(tie), Operand::Sgpr(tie), Operand::Sgpr(odd)],
                    );
                    self.e
                        .op(or, [Operand::Sgpr(m), Operand::Sgpr(m), Operand::Sgpr(tie)]);
                }
                self.e.sgprs.free(tie);
                self.e.sgprs.free(odd);
            }
        }
        // step = up ? 1 : down ? −1 : 0, as a float of x's type (high word only for f64).
        let (one, minus_one) = if f64 {
            (0x3ff0_0000u32, 0xbff0_0000u32)
        } else {
            (1f32.to_bits(), (-1f32).to_bits())
        };
        let hi = sub(step, w - 1);
        self.e.valu(I::VMovB32, &[vreg(hi), Src::K32(0)])?;
        if f64 {
            self.e
                .valu(I::VMovB32, &[vreg(sub(step, 0)), Src::K32(0)])?;
        }
        self.e.valu(
            I::VCndmaskB32,
            &[vreg(hi), vreg(hi), Src::K32(minus_one), sreg(down)],
        )?;
        self.e.valu(
            I::VCndmaskB32,
            &[vreg(hi), vreg(hi), Src::K32(one), sreg(up)],
        )?;
        if f64 {
            self.e
                .valu(I::VAddF64, &[vreg(back), vreg(back), vreg(step)])?;
        } else {
            self.e
                .valu(I::VAddF32, &[vreg(back), vreg(back), vreg(step)])?;
        }
        self.e.valu(cvt_to, &[vreg(d), vreg(back)])?;
        self.e.sgprs.free(down);
        self.e.sgprs.free(up);
        for v in [t, back, frac, step] {
            self.e.vgprs.free(v);
        }
        Ok(())
    }

    /// `d = f32(x)` for an f16 or bf16 `x` (exact).
    fn widen_to_f32(&mut self, d: RegRange, from: Scalar, x: Loc) -> Result<()> {
        if from == Scalar::F16 {
            self.e.valu(I::VCvtF32F16, &[vreg(d), word(x, 0)])
        } else {
            self.e
                .valu(I::VLshlrevB32, &[vreg(d), Src::K32(16), word(x, 0)])
        }
    }

    /// f32 → bf16 bits: round to nearest even (`rn`) or toward zero on the bit pattern;
    /// NaN keeps its sign and top payload bits and becomes quiet.
    fn f32_to_bf16(&mut self, d: RegRange, x: Loc, rn: bool) -> Result<()> {
        let mut tmps = Vec::new();
        let u = self.vword(x, 0, &mut tmps)?;
        let t = self.e.valloc(1)?;
        if rn {
            self.e
                .valu(I::VBfeU32, &[vreg(t), vreg(u), Src::K32(16), Src::K32(1)])?;
            self.e
                .valu(I::VAdd3U32, &[vreg(t), vreg(u), vreg(t), Src::K32(0x7fff)])?;
            self.e
                .valu(I::VLshrrevB32, &[vreg(t), Src::K32(16), vreg(t)])?;
        } else {
            self.e
                .valu(I::VLshrrevB32, &[vreg(t), Src::K32(16), vreg(u)])?;
        }
        let n = self.e.valloc(1)?;
        self.e
            .valu(I::VLshrrevB32, &[vreg(n), Src::K32(16), vreg(u)])?;
        self.e
            .valu(I::VOrB32, &[vreg(n), Src::K32(0x40), vreg(n)])?;
        let m = self.e.mask_alloc()?;
        self.e.valu(I::VCmpNeqF32, &[sreg(m), vreg(u), vreg(u)])?;
        self.e
            .valu(I::VCndmaskB32, &[vreg(d), vreg(t), vreg(n), sreg(m)])?;
        self.e.sgprs.free(m);
        self.e.vgprs.free(n);
        self.e.vgprs.free(t);
        self.free_v(tmps);
        Ok(())
    }

    // ---- memory -----------------------------------------------------------------------

    /// The address of a global access: `(vaddr, saddr)` operands and temporaries.
    fn global_addr(
        &mut self,
        param: u32,
        offset: Value,
        tv: &mut Vec<RegRange>,
        ts: &mut Vec<RegRange>,
    ) -> Result<(Operand, Operand)> {
        let base = match self.params.get(param as usize) {
            Some(Some(Loc::S(r))) if r.count == 2 => *r,
            _ => {
                return Err(Error::invalid(
                    format!("kernel `{}`", self.def.name),
                    format!("parameter {param} is not a pointer"),
                ))
            }
        };
        if let Some(s) = self.split(offset) {
            return self.split_address(base, s, tv, ts);
        }
        let off = self.loc(offset)?;
        if scalar_like(off) {
            // Uniform offset: add on the scalar unit, zero VGPR offset.
            let a = self.e.salloc(2)?;
            ts.push(a);
            self.add64(true, a, Loc::S(base), off, true, false)?;
            let z = self.e.valloc(1)?;
            tv.push(z);
            self.e.valu(I::VMovB32, &[vreg(z), Src::K32(0)])?;
            return Ok((Operand::Vgpr(z), Operand::Sgpr(a)));
        }
        let a = self.e.valloc(2)?;
        tv.push(a);
        self.add64(false, a, off, Loc::S(base), true, false)?;
        Ok((Operand::Vgpr(a), Operand::Off))
    }

    fn cache_bits(c: Cache) -> Hw {
        match c {
            Cache::Streaming => Hw::SLC,
            _ => Hw::default(),
        }
    }

    fn load(&mut self, v: Value, m: &MemAccess) -> Result<()> {
        let Loc::V(out) = self.define(v, Loc::V(RegRange::new(0, 0)))? else {
            unreachable!()
        };
        let (mut tv, mut ts) = (Vec::new(), Vec::new());
        // 16-bit vectors arrive packed, two lanes a word.
        let d = if halves(v.ty) {
            let r = self.e.valloc((m.bytes / 4) as u8)?;
            tv.push(r);
            r
        } else {
            out
        };
        match m.mem {
            Mem::Global(p) => {
                let op = match m.bytes {
                    1 => I::GlobalLoadUbyte,
                    2 => I::GlobalLoadUshort,
                    4 => I::GlobalLoadDword,
                    8 => I::GlobalLoadDwordx2,
                    12 => I::GlobalLoadDwordx3,
                    16 => I::GlobalLoadDwordx4,
                    b => return Err(self.unsupported(format!("{b}-byte global loads"))),
                };
                let (va, sa) = self.global_addr(p, m.offset, &mut tv, &mut ts)?;
                let i = Instr::new(op, [Operand::Vgpr(d), va, sa]).cache(Self::cache_bits(m.cache));
                self.e.emit(i);
            }
            Mem::Shared(a) => {
                let pieces = self.lds_pieces(m)?;
                let (addr, base) = self.lds_addr(a, m.offset, &mut tv)?;
                let mut at = 0u32;
                for (op, n) in pieces {
                    let dst = RegRange::new(d.first + (at / 4) as u16, n);
                    self.e.emit(
                        Instr::new(op, [Operand::Vgpr(dst), Operand::Vgpr(addr)])
                            .offset((base + at) as i32),
                    );
                    at += 4 * u32::from(n);
                }
            }
        }
        if halves(v.ty) {
            self.unpack_halves(out, d, v.ty.lanes)?;
        }
        // Narrow integer loads: sign-extend i32 from 8 or 16 bits.
        if m.bytes < 4 && v.ty.scalar == Scalar::I32 {
            let shift = Src::K32(32 - 8 * m.bytes);
            self.e.valu(I::VLshlrevB32, &[vreg(d), shift, vreg(d)])?;
            self.e.valu(I::VAshrrevI32, &[vreg(d), shift, vreg(d)])?;
        }
        self.free_v(tv);
        for r in ts {
            self.e.sgprs.free(r);
        }
        Ok(())
    }

    /// The value at `l` in VGPRs (a copy into a temporary when it is not there).
    fn in_vgprs(&mut self, l: Loc, ty: Type, tmps: &mut Vec<RegRange>) -> Result<RegRange> {
        match l {
            Loc::V(r) => Ok(r),
            other => {
                let r = self.e.valloc(words(ty))?;
                tmps.push(r);
                self.copy_to_v(r, other, ty)?;
                Ok(r)
            }
        }
    }

    /// `d` (lanes/2 words) = the 16-bit lanes of `src` (one per word, high halves zero)
    /// packed two a word, lane 0 low.
    fn pack_halves(&mut self, d: RegRange, src: RegRange, lanes: u8) -> Result<()> {
        for j in 0..lanes / 2 {
            let (lo, hi) = (sub(src, 2 * j), sub(src, 2 * j + 1));
            self.e.valu(
                I::VLshlOrB32,
                &[vreg(sub(d, j)), vreg(hi), Src::K32(16), vreg(lo)],
            )?;
        }
        Ok(())
    }

    /// `d` (one lane a word) = the packed 16-bit lanes of `src`.
    fn unpack_halves(&mut self, d: RegRange, src: RegRange, lanes: u8) -> Result<()> {
        for j in 0..lanes / 2 {
            let w = vreg(sub(src, j));
            self.e
                .valu(I::VLshrrevB32, &[vreg(sub(d, 2 * j + 1)), Src::K32(16), w])?;
            self.e
                .valu(I::VAndB32, &[vreg(sub(d, 2 * j)), Src::K32(0xffff), w])?;
        }
        Ok(())
    }

    /// LDS accesses of `m` as (op, registers) pieces: whole when aligned, else 4-byte
    /// (or 8-byte) pieces at the alignment.
    fn lds_pieces(&self, m: &MemAccess) -> Result<Vec<(I, u8)>> {
        if m.bytes < 4 {
            return Err(self.unsupported(format!("{}-byte shared memory accesses", m.bytes)));
        }
        let piece = m.bytes.min(m.align.max(4));
        let piece = if piece == 12 { 4 } else { piece };
        let n = m.bytes / piece;
        Ok(vec![
            (
                match piece {
                    4 => I::DsReadB32,
                    8 => I::DsReadB64,
                    _ => I::DsReadB128,
                },
                (piece / 4) as u8,
            );
            n as usize
        ])
    }

    /// The LDS address VGPR and immediate of shared array `a` at `offset`.
    fn lds_addr(
        &mut self,
        a: u32,
        offset: Value,
        tv: &mut Vec<RegRange>,
    ) -> Result<(RegRange, u32)> {
        let base = *self.lds_base.get(a as usize).ok_or_else(|| {
            Error::invalid(
                format!("kernel `{}`", self.def.name),
                format!("shared array {a} is not declared"),
            )
        })?;
        let off = self.loc(offset)?;
        match off {
            Loc::V(r) => Ok((r, base)),
            Loc::K(k) if base as u64 + k < 0x1_0000 - 16 => {
                let z = self.e.valloc(1)?;
                tv.push(z);
                self.e.valu(I::VMovB32, &[vreg(z), Src::K32(0)])?;
                Ok((z, base + k as u32))
            }
            other => {
                let z = self.e.valloc(1)?;
                tv.push(z);
                self.e.valu(I::VMovB32, &[vreg(z), word(other, 0)])?;
                Ok((z, base))
            }
        }
    }

    pub(crate) fn store(&mut self, m: &MemAccess, v: Value) -> Result<()> {
        let lv = self.loc(v)?;
        let (mut tv, mut ts) = (Vec::new(), Vec::new());
        let mut data = self.in_vgprs(lv, v.ty, &mut tv)?;
        if halves(v.ty) {
            let packed = self.e.valloc((m.bytes / 4) as u8)?;
            tv.push(packed);
            self.pack_halves(packed, data, v.ty.lanes)?;
            data = packed;
        }
        match m.mem {
            Mem::Global(p) => {
                let op = match m.bytes {
                    1 => I::GlobalStoreByte,
                    2 => I::GlobalStoreShort,
                    4 => I::GlobalStoreDword,
                    8 => I::GlobalStoreDwordx2,
                    12 => I::GlobalStoreDwordx3,
                    16 => I::GlobalStoreDwordx4,
                    b => return Err(self.unsupported(format!("{b}-byte global stores"))),
                };
                let words_stored = (m.bytes.max(4) / 4) as u8;
                let (va, sa) = self.global_addr(p, m.offset, &mut tv, &mut ts)?;
                let i = Instr::new(
                    op,
                    [
                        va,
                        Operand::Vgpr(RegRange::new(data.first, words_stored)),
                        sa,
                    ],
                )
                .cache(Self::cache_bits(m.cache));
                self.e.emit(i);
            }
            Mem::Shared(a) => {
                let pieces = self.lds_pieces(m)?;
                let (addr, base) = self.lds_addr(a, m.offset, &mut tv)?;
                let mut at = 0u32;
                for (read, n) in pieces {
                    let op = match read {
                        I::DsReadB32 => I::DsWriteB32,
                        I::DsReadB64 => I::DsWriteB64,
                        _ => I::DsWriteB128,
                    };
                    let src = RegRange::new(data.first + (at / 4) as u16, n);
                    self.e.emit(
                        Instr::new(op, [Operand::Vgpr(addr), Operand::Vgpr(src)])
                            .offset((base + at) as i32),
                    );
                    at += 4 * u32::from(n);
                }
            }
        }
        self.free_v(tv);
        for r in ts {
            self.e.sgprs.free(r);
        }
        Ok(())
    }

    fn atomic(
        &mut self,
        v: Value,
        op: AtomicOp,
        mem: Mem,
        offset: Value,
        value: Value,
        compare: Option<Value>,
    ) -> Result<()> {
        let s = value.ty.scalar;
        let cas32 = compare.is_some() && s == Scalar::U32 && matches!(mem, Mem::Global(_));
        if compare.is_some() && !cas32 {
            return Err(self.unsupported(format!(
                "compare-and-swap of {} on {mem:?} (the model has the global 32-bit one)",
                s.name()
            )));
        }
        let used = self.live.value_used[v.id as usize];
        let lv = self.loc(value)?;
        let (mut tv, mut ts) = (Vec::new(), Vec::new());
        let data = match compare {
            // global_atomic_cmpswap takes {new value, compare value} in a VGPR pair.
            Some(c) => {
                let lc = self.loc(c)?;
                let pair = self.e.valloc(2)?;
                tv.push(pair);
                self.e
                    .valu(I::VMovB32, &[vreg(sub(pair, 0)), word(lv, 0)])?;
                self.e
                    .valu(I::VMovB32, &[vreg(sub(pair, 1)), word(lc, 0)])?;
                pair
            }
            None => self.vword(lv, 0, &mut tv)?,
        };
        let Loc::V(d) = self.define(v, Loc::V(RegRange::new(0, 0)))? else {
            unreachable!()
        };
        let bad = || self.unsupported(format!("atomic {op:?} of {} on {mem:?}", s.name()));
        match mem {
            Mem::Global(p) => {
                let hw = match (op, s, used) {
                    (AtomicOp::Add, Scalar::U32 | Scalar::I32, true) => I::GlobalAtomicAddRtn,
                    (AtomicOp::Add, Scalar::U32 | Scalar::I32, false) => I::GlobalAtomicAdd,
                    (AtomicOp::Add, Scalar::F32, true)
                        if self.t != rocm_core::isa::amdgpu::IsaTarget::Gfx908 =>
                    {
                        I::GlobalAtomicAddF32Rtn
                    }
                    (AtomicOp::Add, Scalar::F32, false) => I::GlobalAtomicAddF32,
                    (AtomicOp::Min, Scalar::U32, true) => I::GlobalAtomicUminRtn,
                    (AtomicOp::Min, Scalar::U32, false) => I::GlobalAtomicUmin,
                    (AtomicOp::Min, Scalar::I32, true) => I::GlobalAtomicSminRtn,
                    (AtomicOp::Min, Scalar::I32, false) => I::GlobalAtomicSmin,
                    (AtomicOp::Max, Scalar::U32, true) => I::GlobalAtomicUmaxRtn,
                    (AtomicOp::Max, Scalar::U32, false) => I::GlobalAtomicUmax,
                    (AtomicOp::Max, Scalar::I32, true) => I::GlobalAtomicSmaxRtn,
                    (AtomicOp::Max, Scalar::I32, false) => I::GlobalAtomicSmax,
                    (AtomicOp::CompareSwap, Scalar::U32, true) => I::GlobalAtomicCmpswapRtn,
                    (AtomicOp::CompareSwap, Scalar::U32, false) => I::GlobalAtomicCmpswap,
                    _ => return Err(bad()),
                };
                let (va, sa) = self.global_addr(p, offset, &mut tv, &mut ts)?;
                let i = if used {
                    Instr::new(hw, [Operand::Vgpr(d), va, Operand::Vgpr(data), sa]).cache(Hw::GLC)
                } else {
                    Instr::new(hw, [va, Operand::Vgpr(data), sa])
                };
                self.e.emit(i);
            }
            Mem::Shared(a) => {
                let hw = match (op, s, used) {
                    (AtomicOp::Add, Scalar::U32 | Scalar::I32, true) => I::DsAddRtnU32,
                    (AtomicOp::Add, Scalar::U32 | Scalar::I32, false) => I::DsAddU32,
                    (AtomicOp::Add, Scalar::F32, true) => I::DsAddRtnF32,
                    (AtomicOp::Add, Scalar::F32, false) => I::DsAddF32,
                    (AtomicOp::Max, Scalar::U32, false) => I::DsMaxU32,
                    (AtomicOp::Max, Scalar::U32, true) => I::DsMaxRtnU32,
                    (AtomicOp::Max, Scalar::I32, false) => I::DsMaxI32,
                    (AtomicOp::Max, Scalar::I32, true) => I::DsMaxRtnI32,
                    (AtomicOp::Min, Scalar::U32, false) => I::DsMinU32,
                    (AtomicOp::Min, Scalar::U32, true) => I::DsMinRtnU32,
                    (AtomicOp::Min, Scalar::I32, false) => I::DsMinI32,
                    (AtomicOp::Min, Scalar::I32, true) => I::DsMinRtnI32,
                    _ => return Err(bad()),
                };
                let (addr, base) = self.lds_addr(a, offset, &mut tv)?;
                let i = if used {
                    Instr::new(
                        hw,
                        [Operand::Vgpr(d), Operand::Vgpr(addr), Operand::Vgpr(data)],
                    )
                } else {
                    Instr::new(hw, [Operand::Vgpr(addr), Operand::Vgpr(data)])
                };
                self.e.emit(i.offset(base as i32));
            }
        }
        self.free_v(tv);
        for r in ts {
            self.e.sgprs.free(r);
        }
        Ok(())
    }

    // ---- wave operations --------------------------------------------------------------

    /// `d = src` read from lane `lane ^ mask` (32-bit, `src` a VGPR).
    fn shuffle_xor_word(&mut self, d: RegRange, src: RegRange, mask: u32) -> Result<()> {
        let wave = self.t.wave_size();
        if mask >= wave || mask == 0 {
            return self.e.valu(I::VMovB32, &[vreg(d), vreg(src)]);
        }
        if mask < 32 {
            // Bit-mask swizzle inside groups of 32: and 0x1f, or 0, xor mask.
            self.e.emit(
                Instr::new(I::DsSwizzleB32, [Operand::Vgpr(d), Operand::Vgpr(src)])
                    .offset((0x1f | mask << 10) as i32),
            );
            return Ok(());
        }
        let a = self.e.valloc(1)?;
        self.lane_id(a)?;
        self.e
            .valu(I::VXorB32, &[vreg(a), Src::K32(mask), vreg(a)])?;
        self.bpermute(d, a, src)?;
        self.e.vgprs.free(a);
        Ok(())
    }

    /// `d = src` from lane `lanes[a]` (`a` is clobbered: it becomes the byte address).
    fn bpermute(&mut self, d: RegRange, a: RegRange, src: RegRange) -> Result<()> {
        self.e
            .valu(I::VLshlrevB32, &[vreg(a), Src::K32(2), vreg(a)])?;
        self.e.emit(Instr::new(
            I::DsBpermuteB32,
            [Operand::Vgpr(d), Operand::Vgpr(a), Operand::Vgpr(src)],
        ));
        Ok(())
    }

    fn shuffle(&mut self, v: Value, a: Value, s: Shuffle) -> Result<()> {
        let la = self.loc(a)?;
        let n = words(v.ty);
        if scalar_like(la) {
            // Every lane holds the same value.
            return self.copy_value(v, la);
        }
        let Loc::V(src) = la else {
            return Err(self.unsupported("shuffle of a predicate"));
        };
        let wave = self.t.wave_size();
        match s {
            Shuffle::Idx(i) => {
                let li = self.loc(i)?;
                if scalar_like(li) {
                    let lane_sel = match li {
                        Loc::K(k) => Src::K32((k % u64::from(wave)) as u32),
                        other => word(other, 0),
                    };
                    let Loc::S(d) = self.define(v, Loc::S(RegRange::new(0, 0)))? else {
                        unreachable!()
                    };
                    for j in 0..n {
                        self.e.valu(
                            I::VReadlaneB32,
                            &[sreg(sub(d, j)), vreg(sub(src, j)), lane_sel],
                        )?;
                    }
                    return Ok(());
                }
                let Loc::V(d) = self.define(v, Loc::V(RegRange::new(0, 0)))? else {
                    unreachable!()
                };
                let a = self.e.valloc(1)?;
                for j in 0..n {
                    self.e.valu(I::VMovB32, &[vreg(a), word(li, 0)])?;
                    self.bpermute(sub(d, j), a, sub(src, j))?;
                }
                self.e.vgprs.free(a);
            }
            Shuffle::Xor(mask) => {
                let Loc::V(d) = self.define(v, Loc::V(RegRange::new(0, 0)))? else {
                    unreachable!()
                };
                for j in 0..n {
                    self.shuffle_xor_word(sub(d, j), sub(src, j), mask)?;
                }
            }
            Shuffle::Up(delta) | Shuffle::Down(delta) => {
                let up = matches!(s, Shuffle::Up(_));
                let Loc::V(d) = self.define(v, Loc::V(RegRange::new(0, 0)))? else {
                    unreachable!()
                };
                if delta == 0 || delta >= wave {
                    return self.copy_to_v(d, la, v.ty);
                }
                let (lid, a, t) = (self.e.valloc(1)?, self.e.valloc(1)?, self.e.valloc(1)?);
                let m = self.e.mask_alloc()?;
                self.lane_id(lid)?;
                // In range: up lane >= delta; down lane < wave - delta.
                if up {
                    self.e
                        .valu(I::VCmpLeU32, &[sreg(m), Src::K32(delta), vreg(lid)])?;
                } else {
                    self.e
                        .valu(I::VCmpGtU32, &[sreg(m), Src::K32(wave - delta), vreg(lid)])?;
                }
                for j in 0..n {
                    let op = if up { I::VSubU32 } else { I::VAddU32 };
                    if up {
                        self.e.valu(op, &[vreg(a), vreg(lid), Src::K32(delta)])?;
                    } else {
                        self.e.valu(op, &[vreg(a), Src::K32(delta), vreg(lid)])?;
                    }
                    self.bpermute(t, a, sub(src, j))?;
                    self.e.valu(
                        I::VCndmaskB32,
                        &[vreg(sub(d, j)), vreg(sub(src, j)), vreg(t), sreg(m)],
                    )?;
                }
                self.e.sgprs.free(m);
                for r in [lid, a, t] {
                    self.e.vgprs.free(r);
                }
            }
        }
        Ok(())
    }

    fn wave_reduce(&mut self, v: Value, r: Reduce, a: Value) -> Result<()> {
        let la = self.loc(a)?;
        let s = v.ty.scalar;
        if v.ty.lanes != 1 || !matches!(s, Scalar::U32 | Scalar::I32 | Scalar::F32 | Scalar::F64) {
            return Err(self.unsupported(format!("wave reduction of {}", v.ty)));
        }
        let n = words(v.ty);
        let Loc::V(acc) = self.define(v, Loc::V(RegRange::new(0, 0)))? else {
            unreachable!()
        };
        self.copy_to_v(acc, la, v.ty)?;
        let other = self.e.valloc(n)?;
        let mut m = self.t.wave_size() / 2;
        while m >= 1 {
            for j in 0..n {
                self.shuffle_xor_word(sub(other, j), sub(acc, j), m)?;
            }
            let b = match r {
                Reduce::Add => Binary::Add,
                Reduce::Min => Binary::Min,
                Reduce::Max => Binary::Max,
            };
            self.binary_scalar(b, s, Loc::V(acc), Loc::V(acc), Loc::V(other))?;
            m /= 2;
        }
        self.e.vgprs.free(other);
        Ok(())
    }

    fn ballot(&mut self, v: Value, p: Value) -> Result<()> {
        let lp = self.loc(p)?;
        let Loc::S(d) = self.define(v, Loc::S(RegRange::new(0, 0)))? else {
            unreachable!()
        };
        let and = self.e.mask_op(I::SAndB64);
        let exec = self.e.exec();
        let sp = self.mask_src(lp);
        if self.e.wave64() {
            self.e
                .salu(and, Some(Operand::Sgpr(d)), &[sp, Src::Op(exec)])?;
        } else {
            self.e
                .salu(and, Some(Operand::Sgpr(sub(d, 0))), &[sp, Src::Op(exec)])?;
            self.e.s_const32(sub(d, 1), 0);
        }
        Ok(())
    }

    fn any_all(&mut self, v: Value, p: Value, all: bool) -> Result<()> {
        let lp = self.loc(p)?;
        let Loc::M(d) = self.define(v, Loc::M(RegRange::new(0, 0)))? else {
            unreachable!()
        };
        let and = self.e.mask_op(I::SAndB64);
        let exec = self.e.exec();
        let sp = self.mask_src(lp);
        let t = self.e.mask_alloc()?;
        self.e
            .salu(and, Some(Operand::Sgpr(t)), &[sp, Src::Op(exec)])?;
        if all {
            let eq = self.e.mask_op(I::SCmpEqU64);
            self.e.op(eq, [Operand::Sgpr(t), exec]);
        }
        let sel = self.e.mask_op(I::SCselectB64);
        self.e
            .op(sel, [Operand::Sgpr(d), Operand::Int(-1), Operand::Int(0)]);
        self.e.sgprs.free(t);
        Ok(())
    }
}

/// A vector of 16-bit lanes (one lane a register, packed two a word in memory and in
/// bitcasts).
fn halves(t: Type) -> bool {
    t.scalar.bits() == 16 && t.lanes > 1
}

/// Whether the scalar unit does `b` on `s` (both inputs uniform).
fn salu_binary(b: Binary, s: Scalar) -> bool {
    use Binary::*;
    match s {
        Scalar::U32 => matches!(
            b,
            Add | Sub | Mul | MulHi | MulWide | Min | Max | And | Or | Xor | Shl | Shr
        ),
        Scalar::I32 => matches!(
            b,
            Add | Sub | Mul | MulWide | Min | Max | And | Or | Xor | Shl | Shr
        ),
        Scalar::U64 | Scalar::I64 => matches!(b, Add | Sub | Mul | And | Or | Xor | Shl | Shr),
        _ => false,
    }
}

fn scmp32(c: Cmp, signed: bool) -> I {
    match (c, signed) {
        (Cmp::Eq, false) => I::SCmpEqU32,
        (Cmp::Ne, false) => I::SCmpLgU32,
        (Cmp::Lt, false) => I::SCmpLtU32,
        (Cmp::Le, false) => I::SCmpLeU32,
        (Cmp::Gt, false) => I::SCmpGtU32,
        (Cmp::Ge, false) => I::SCmpGeU32,
        (Cmp::Eq, true) => I::SCmpEqI32,
        (Cmp::Ne, true) => I::SCmpLgI32,
        (Cmp::Lt, true) => I::SCmpLtI32,
        (Cmp::Le, true) => I::SCmpLeI32,
        (Cmp::Gt, true) => I::SCmpGtI32,
        (Cmp::Ge, true) => I::SCmpGeI32,
    }
}

fn vcmp32(c: Cmp, s: Scalar) -> I {
    match (s, c) {
        (Scalar::F32, Cmp::Eq) => I::VCmpEqF32,
        (Scalar::F32, Cmp::Ne) => I::VCmpNeqF32,
        (Scalar::F32, Cmp::Lt) => I::VCmpLtF32,
        (Scalar::F32, Cmp::Le) => I::VCmpLeF32,
        (Scalar::F32, Cmp::Gt) => I::VCmpGtF32,
        (Scalar::F32, Cmp::Ge) => I::VCmpGeF32,
        (Scalar::I32 | Scalar::I64, Cmp::Eq) => I::VCmpEqI32,
        (Scalar::I32 | Scalar::I64, Cmp::Ne) => I::VCmpNeI32,
        (Scalar::I32 | Scalar::I64, Cmp::Lt) => I::VCmpLtI32,
        (Scalar::I32 | Scalar::I64, Cmp::Le) => I::VCmpLeI32,
        (Scalar::I32 | Scalar::I64, Cmp::Gt) => I::VCmpGtI32,
        (Scalar::I32 | Scalar::I64, Cmp::Ge) => I::VCmpGeI32,
        (_, Cmp::Eq) => I::VCmpEqU32,
        (_, Cmp::Ne) => I::VCmpNeU32,
        (_, Cmp::Lt) => I::VCmpLtU32,
        (_, Cmp::Le) => I::VCmpLeU32,
        (_, Cmp::Gt) => I::VCmpGtU32,
        (_, Cmp::Ge) => I::VCmpGeU32,
    }
}
