//! Reductions: per-lane accumulators, what one element adds to them, the workgroup's LDS
//! tree and the f64 partials.
//!
//! - Sums (dot, sum, asum) accumulate in the dtype's real type, one register group per
//!   slot (re, im).
//! - nrm2 accumulates f64 squares: f32 components widened exactly and summed into slot 1;
//!   f64 components by Blue's rule (the PTX generator's `blue_step`): `a = |x|`,
//!   `a > TBIG = 2⁴⁸⁶` adds `(a·SBIG)²` to slot 2, `a < TSML = 2⁻⁵¹¹` adds `(a·SSML)²`
//!   to slot 0, everything else (NaN included) `a²` to slot 1. There is no f64 compare in
//!   the instruction model: `a > 2⁴⁸⁶` is the sign of `fma(a, 2⁻⁴⁸⁶, −1)` (exact sign; a
//!   nonzero result is at least 2⁻⁵³ in magnitude, so its f32 conversion keeps it and NaN
//!   stays unordered), and `a < 2⁻⁵¹¹` (a power of two, low word 0) is `hi(a) <
//!   0x20000000` on the bits of a non-negative a (NaN's high word is above).
//! - iamax/iamin keep (key, index) per lane. f32: the value `|re| + |im|`, taken when
//!   strictly greater (smaller) by `v_cmp_gt/lt_f32` (false for NaN). f64: the key is the
//!   value (iamax) or its negation (iamin), taken when `max(key_new, key) ≠ key` bitwise:
//!   IEEE-mode `v_max_f64` returns the other operand for a quiet NaN (the value is
//!   `|re| + |im|` or `|x| + 0`, an addition, so a signalling NaN input arrives quieted).
//!   Lanes see their elements in increasing index order, so strict comparison keeps the
//!   first index; the tree takes the other lane's pair when its key is better, or equal
//!   with a smaller index. Index u32::MAX (written as u64::MAX) marks "none".

use super::super::asm::Assembler;
use super::super::math::{self, add, fma, mul, vop, Val};
use super::super::regs::{Sgpr, Vgpr};
use super::{Real, Spec};
use crate::level1::{L1Op, Level1Params};
use rocm_core::isa::amdgpu::{InlineFloat, Instr, Op, Operand};
use rocm_core::Result;

/// High words of the f64 powers of two Blue's rule uses (low words are 0).
const BIG_TEST_HI: u32 = 0x2190_0000; // 2^-486 = 1 / TBIG
const SBIG_HI: u32 = 0x1e50_0000; // 2^-538
const SSML_HI: u32 = 0x6180_0000; // 2^537
const TSML_HI: u32 = 0x2000_0000; // 2^-511

/// The accumulators of one lane.
pub(super) enum Acc {
    /// One sum per slot, in the real type.
    Sum {
        r: Real,
        slots: Vec<Vgpr>,
        tmp: Vgpr,
    },
    /// Blue's small, medium, big f64 sums; constants and scratch.
    Blue {
        slots: [Vgpr; 3],
        consts: [Sgpr; 3],
        t: Vgpr,
        m: Vgpr,
        f: Vgpr,
    },
    /// Best key and its index (u32, MAX = none); scratch.
    Arg {
        r: Real,
        max: bool,
        key: Vgpr,
        idx: Vgpr,
        a: Vgpr,
        t: Vgpr,
        ie: Vgpr,
    },
}

fn zero(k: &mut Assembler, v: Vgpr) {
    for i in 0..v.count() {
        k.op(Op::VMovB32, [v.at(i).op(), Operand::Int(0)]);
    }
}

/// `dst = v` for a 64-bit constant with a zero low word.
fn set_hi(k: &mut Assembler, v: Vgpr, hi: u32) {
    k.op(Op::VMovB32, [v.at(0).op(), Operand::Int(0)]);
    k.op(Op::VMovB32, [v.at(1).op(), Operand::imm32(i64::from(hi))]);
}

impl Acc {
    pub fn new(k: &mut Assembler, s: &Spec) -> Result<Acc> {
        let r = s.real;
        let w = r.regs();
        Ok(match s.op {
            L1Op::Nrm2 => {
                let slots = [k.vgprs(2)?, k.vgprs(2)?, k.vgprs(2)?];
                for v in slots {
                    zero(k, v);
                }
                let mut consts = [Sgpr::one(0); 3];
                for (c, hi) in consts.iter_mut().zip([BIG_TEST_HI, SBIG_HI, SSML_HI]) {
                    *c = k.sgprs(2)?;
                    k.op(Op::SMovB32, [c.at(0).op(), Operand::Int(0)]);
                    k.op(Op::SMovB32, [c.at(1).op(), Operand::imm32(i64::from(hi))]);
                }
                let t = k.vgprs(2)?;
                // The medium candidate and the f32 test value: Blue's rule (f64) only.
                let (m, f) = match r {
                    Real::F64 => (k.vgprs(2)?, k.vgprs(1)?),
                    Real::F32 => (t, t.at(0)),
                };
                Acc::Blue {
                    slots,
                    consts,
                    t,
                    m,
                    f,
                }
            }
            L1Op::Iamax { max } => {
                let key = k.vgprs(w)?;
                let idx = k.vgprs(1)?;
                match r {
                    // -1 (iamax) or +inf (iamin).
                    Real::F32 => {
                        let v = if max {
                            Operand::Float(InlineFloat::NegOne)
                        } else {
                            Operand::Literal(0x7f80_0000)
                        };
                        k.op(Op::VMovB32, [key.op(), v]);
                    }
                    // Keys: -1 (iamax) or -inf (iamin: the negated +inf).
                    Real::F64 => set_hi(k, key, if max { 0xbff0_0000 } else { 0xfff0_0000 }),
                }
                k.op(Op::VMovB32, [idx.op(), Operand::Int(-1)]);
                Acc::Arg {
                    r,
                    max,
                    key,
                    idx,
                    a: k.vgprs(w)?,
                    t: k.vgprs(w)?,
                    ie: k.vgprs(1)?,
                }
            }
            _ => {
                let n = if s.op == L1Op::Asum { 1 } else { s.comps };
                let slots: Vec<Vgpr> = (0..n).map(|_| k.vgprs(w)).collect::<Result<_>>()?;
                for v in &slots {
                    zero(k, *v);
                }
                Acc::Sum {
                    r,
                    slots,
                    tmp: k.vgprs(w)?,
                }
            }
        })
    }

    /// Adds element `e` (`x`, and `y` for dot) whose index is `first + e`.
    pub fn fold(&self, k: &mut Assembler, s: &Spec, x: &Val, y: &Val, e: u8, first: Vgpr) {
        match self {
            Acc::Sum { r, slots, tmp } => match s.op {
                L1Op::Dot { conj } => math::cfma_into(k, *r, slots, x, y, conj),
                L1Op::Sum => {
                    for (a, v) in slots.iter().zip(x) {
                        add(k, *r, *a, *a, *v, 0, 0);
                    }
                }
                _ => {
                    // asum: acc + |x| (complex: acc + (|re| + |im|), as the PTX generator).
                    if x.len() == 2 {
                        add(k, *r, *tmp, x[0], x[1], 0, 0b11);
                        add(k, *r, slots[0], slots[0], *tmp, 0, 0);
                    } else {
                        add(k, *r, slots[0], slots[0], x[0], 0, 0b10);
                    }
                }
            },
            Acc::Blue {
                slots,
                consts,
                t,
                m,
                f,
            } => {
                for v in x {
                    if v.count() == 1 {
                        // f32: exact square of the widened value into the medium sum.
                        k.op(Op::VCvtF64F32, [t.op(), v.op()]);
                        fma(k, Real::F64, slots[1], *t, *t, slots[1], false);
                    } else {
                        blue_step(k, slots, consts, *v, *t, *m, *f);
                    }
                }
            }
            Acc::Arg {
                r,
                max,
                key,
                idx,
                a,
                t,
                ie,
            } => {
                // a = |re| + |im| (real: |x| + 0), an addition that quiets NaN.
                if x.len() == 2 {
                    add(k, *r, *a, x[0], x[1], 0, 0b11);
                } else {
                    let zero = Operand::Int(0);
                    let op = if *r == Real::F32 {
                        Op::VAddF32
                    } else {
                        Op::VAddF64
                    };
                    vop(k, op, vec![a.op(), x[0].op(), zero], 0, 0b01);
                }
                k.op(Op::VAddU32, [ie.op(), Operand::Int(e as i8), first.op()]);
                let vcc = k.vcc();
                match r {
                    Real::F32 => {
                        let cmp = if *max { Op::VCmpGtF32 } else { Op::VCmpLtF32 };
                        k.op(cmp, [vcc, a.op(), key.op()]);
                        k.op(Op::VCndmaskB32, [key.op(), key.op(), a.op(), vcc]);
                    }
                    Real::F64 => {
                        // t = max(±a, key); taken when t differs from key.
                        let neg = if *max { 0 } else { 1 };
                        vop(k, Op::VMaxF64, vec![t.op(), a.op(), key.op()], neg, 0);
                        differs(k, *t, *key, *a);
                        math::mov(k, *key, *t);
                    }
                }
                k.op(Op::VCndmaskB32, [idx.op(), idx.op(), ie.op(), vcc]);
            }
        }
    }
}

/// `vcc = (a ≠ b)` bitwise for 64-bit values, with one scratch register `s`.
fn differs(k: &mut Assembler, a: Vgpr, b: Vgpr, s: Vgpr) {
    let vcc = k.vcc();
    k.op(Op::VXorB32, [s.at(0).op(), a.at(0).op(), b.at(0).op()]);
    k.op(Op::VXorB32, [s.at(1).op(), a.at(1).op(), b.at(1).op()]);
    k.op(Op::VOrB32, [s.at(0).op(), s.at(0).op(), s.at(1).op()]);
    k.op(Op::VCmpNeU32, [vcc, Operand::Int(0), s.at(0).op()]);
}

/// `d = c ? b : a` for a 64-bit value under vcc.
fn select64(k: &mut Assembler, d: Vgpr, a: Vgpr, b: Vgpr) {
    let vcc = k.vcc();
    for i in 0..2 {
        k.op(
            Op::VCndmaskB32,
            [d.at(i).op(), a.at(i).op(), b.at(i).op(), vcc],
        );
    }
}

/// One f64 component `v` into Blue's sums (see the module docs). `v` is scratch.
fn blue_step(k: &mut Assembler, b: &[Vgpr; 3], c: &[Sgpr; 3], v: Vgpr, t: Vgpr, m: Vgpr, f: Vgpr) {
    let vcc = k.vcc();
    let minus_one = Operand::Float(InlineFloat::NegOne);
    // a = |v|.
    k.op(
        Op::VAndB32,
        [v.at(1).op(), Operand::imm32(0x7fff_ffff), v.at(1).op()],
    );
    // Big: sign of fma(a, 2^-486, -1) > 0.
    k.emit(Instr::new(
        Op::VFmaF64,
        [t.op(), v.op(), c[0].op(), minus_one],
    ));
    k.op(Op::VCvtF32F64, [f.op(), t.op()]);
    k.op(Op::VCmpLtF32, [vcc, Operand::Int(0), f.op()]);
    mul(k, Real::F64, t, v, c[1], 0);
    fma(k, Real::F64, t, t, t, b[2], false);
    select64(k, b[2], b[2], t);
    fma(k, Real::F64, m, v, v, b[1], false);
    // Medium candidate unless big.
    select64(k, m, m, b[1]);
    // Small: hi(a) < hi(2^-511).
    k.op(
        Op::VCmpGtU32,
        [vcc, Operand::imm32(i64::from(TSML_HI)), v.at(1).op()],
    );
    mul(k, Real::F64, t, v, c[2], 0);
    fma(k, Real::F64, t, t, t, b[0], false);
    select64(k, b[0], b[0], t);
    select64(k, b[1], m, b[1]);
}

/// The workgroup's accumulators combined by a tree in LDS (`stride = block/2, …, 1`:
/// work-items below `stride` combine the slots `stride` above, `s_barrier` per step),
/// then work-item 0 writes the f64 partials: slot `s` at `partials[s·groups + wg]`.
#[allow(clippy::too_many_arguments)]
pub(super) fn block_reduce(
    k: &mut Assembler,
    p: &Level1Params,
    acc: &Acc,
    partials: Sgpr,
    groups: Sgpr,
    tid: Vgpr,
    wg: Sgpr,
) -> Result<()> {
    // The registers that travel through LDS.
    let lanes: Vec<Vgpr> = match acc {
        Acc::Sum { slots, .. } => slots.clone(),
        Acc::Blue { slots, .. } => slots.to_vec(),
        Acc::Arg { key, idx, .. } => vec![*key, *idx],
    };
    let mut offs = Vec::new();
    for v in &lanes {
        offs.push(k.lds(p.block * 4 * u32::from(v.count()), 8)?);
    }
    let others: Vec<Vgpr> = lanes
        .iter()
        .map(|v| k.vgprs(v.count()))
        .collect::<Result<_>>()?;
    let (addr, other) = (k.vgprs(1)?, k.vgprs(1)?);
    let addr8 = k.vgprs(1)?;
    let (stride, bytes) = (k.sgprs(1)?, k.sgprs(1)?);
    let saved = k.mask_sgprs()?;
    let (m1, m2) = (k.mask_sgprs()?, k.mask_sgprs()?);
    let vcc = k.vcc();
    let wave64 = k.wave_size() == 64;
    let (step, end) = (k.label("tree"), k.label("partial_done"));
    // Byte address of this lane's slot of width 4 and 8.
    k.op(Op::VLshlrevB32, [addr.op(), Operand::Int(2), tid.op()]);
    k.op(Op::VLshlrevB32, [addr8.op(), Operand::Int(3), tid.op()]);
    let io = |v: Vgpr, write: bool| -> (Op, Vgpr) {
        match (v.count(), write) {
            (1, true) => (Op::DsWriteB32, addr),
            (1, false) => (Op::DsReadB32, addr),
            (_, true) => (Op::DsWriteB64, addr8),
            (_, false) => (Op::DsReadB64, addr8),
        }
    };
    let write_all = |k: &mut Assembler| {
        for (v, off) in lanes.iter().zip(&offs) {
            let (op, a) = io(*v, true);
            k.ds_write(op, a, *v, *off as u16);
        }
    };
    write_all(k);
    k.op(
        Op::SMovB32,
        [stride.op(), Operand::imm32(i64::from(p.block / 2))],
    );
    k.wait_lgkm(0);
    k.s_barrier();
    if p.block > 1 {
        k.bind(step);
        k.op(Op::VCmpGtU32, [vcc, stride.op(), tid.op()]);
        k.and_saveexec(saved, vcc);
        for (i, (v, off)) in lanes.iter().zip(&offs).enumerate() {
            let (op, a) = io(*v, false);
            let shift = if v.count() == 1 { 2 } else { 3 };
            k.op(Op::SLshlB32, [bytes.op(), stride.op(), Operand::Int(shift)]);
            k.op(Op::VAddU32, [other.op(), bytes.op(), a.op()]);
            k.ds_read(op, others[i], other, *off as u16);
            k.wait_lgkm(0);
        }
        combine(k, acc, &lanes, &others, m1, m2, wave64);
        write_all(k);
        k.wait_lgkm(0);
        k.restore_exec(saved);
        k.s_barrier();
        k.op(Op::SLshrB32, [stride.op(), stride.op(), Operand::Int(1)]);
        k.op(Op::SCmpLgU32, [stride.op(), Operand::Int(0)]);
        k.cbranch(Op::SCbranchScc1, step);
    }
    k.op(Op::VCmpEqU32, [vcc, Operand::Int(0), tid.op()]);
    k.and_saveexec(saved, vcc);
    k.cbranch(Op::SCbranchExecz, end);
    // The f64 values of the slots, in partials order.
    let wide = k.vgprs(2)?;
    let values: Vec<Vgpr> = match acc {
        Acc::Sum {
            r: Real::F32,
            slots,
            ..
        } => {
            let out: Vec<Vgpr> = slots.iter().map(|_| k.vgprs(2)).collect::<Result<_>>()?;
            for (o, v) in out.iter().zip(slots) {
                k.op(Op::VCvtF64F32, [o.op(), v.op()]);
            }
            out
        }
        Acc::Sum { slots, .. } => slots.clone(),
        Acc::Blue { slots, .. } => slots.to_vec(),
        Acc::Arg {
            r, max, key, idx, ..
        } => {
            match r {
                Real::F32 => {
                    k.op(Op::VCvtF64F32, [wide.op(), key.op()]);
                }
                Real::F64 => {
                    k.op(Op::VMovB32, [wide.at(0).op(), key.at(0).op()]);
                    if *max {
                        k.op(Op::VMovB32, [wide.at(1).op(), key.at(1).op()]);
                    } else {
                        // iamin keeps the negated value.
                        k.op(
                            Op::VXorB32,
                            [wide.at(1).op(), Operand::imm32(0x8000_0000), key.at(1).op()],
                        );
                    }
                }
            }
            let ib = k.vgprs(2)?;
            k.op(Op::VMovB32, [ib.at(0).op(), idx.op()]);
            k.op(Op::VCmpEqU32, [vcc, Operand::Int(-1), idx.op()]);
            // hi = idx == MAX ? MAX : 0 (VOP3: constants in both sources).
            k.emit(
                Instr::new(
                    Op::VCndmaskB32,
                    [ib.at(1).op(), Operand::Int(0), Operand::Int(-1), vcc],
                )
                .e64(),
            );
            vec![wide, ib]
        }
    };
    k.op(Op::SLshlB32, [bytes.op(), wg.op(), Operand::Int(3)]);
    k.op(Op::SLshlB32, [stride.op(), groups.op(), Operand::Int(3)]);
    for v in values {
        k.op(Op::VMovB32, [other.op(), bytes.op()]);
        k.global_store(Op::GlobalStoreDwordx2, other, v, partials, 0);
        k.op(Op::SAddU32, [bytes.op(), bytes.op(), stride.op()]);
    }
    k.bind(end);
    Ok(())
}

/// Mine (`lanes`) combined with the other lane's (`others`), in place.
fn combine(
    k: &mut Assembler,
    acc: &Acc,
    lanes: &[Vgpr],
    others: &[Vgpr],
    m1: Sgpr,
    m2: Sgpr,
    wave64: bool,
) {
    match acc {
        Acc::Sum { r, .. } => {
            for (m, o) in lanes.iter().zip(others) {
                add(k, *r, *m, *m, *o, 0, 0);
            }
        }
        Acc::Blue { .. } => {
            for (m, o) in lanes.iter().zip(others) {
                add(k, Real::F64, *m, *m, *o, 0, 0);
            }
        }
        Acc::Arg { r, max, t, .. } => {
            let (key, idx, okey, oidx) = (lanes[0], lanes[1], others[0], others[1]);
            let vcc = k.vcc();
            match r {
                Real::F32 => {
                    let better = if *max { Op::VCmpGtF32 } else { Op::VCmpLtF32 };
                    k.emit(Instr::new(better, [m1.op(), okey.op(), key.op()]).e64());
                    k.emit(Instr::new(Op::VCmpEqF32, [m2.op(), okey.op(), key.op()]).e64());
                }
                Real::F64 => {
                    // Keys (iamin: negated values): better when max(other, mine) ≠ mine.
                    vop(k, Op::VMaxF64, vec![t.op(), okey.op(), key.op()], 0, 0);
                    differs(k, *t, key, *t);
                    let mov = if wave64 { Op::SMovB64 } else { Op::SMovB32 };
                    k.op(mov, [m1.op(), vcc]);
                    differs(k, okey, key, *t);
                    // m2 = equal = not differs.
                    let not = if wave64 { Op::SXorB64 } else { Op::SXorB32 };
                    k.op(not, [m2.op(), vcc, Operand::Int(-1)]);
                }
            }
            let (and, or) = if wave64 {
                (Op::SAndB64, Op::SOrB64)
            } else {
                (Op::SAndB32, Op::SOrB32)
            };
            k.op(Op::VCmpLtU32, [vcc, oidx.op(), idx.op()]);
            k.op(and, [vcc, vcc, m2.op()]);
            k.op(or, [vcc, vcc, m1.op()]);
            let w = key.count();
            for i in 0..w {
                k.op(
                    Op::VCndmaskB32,
                    [key.at(i).op(), key.at(i).op(), okey.at(i).op(), vcc],
                );
            }
            k.op(Op::VCndmaskB32, [idx.op(), idx.op(), oidx.op(), vcc]);
        }
    }
}
