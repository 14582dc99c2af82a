//! The AMDGPU final pass of the reductions but nrm2 (dot, dotc, sum, asum, iamax,
//! iamin): the order and
//! arguments of [`crate::level1::finish`] (`partials, result, grid`), one workgroup of
//! 64 work-items (one wave64 on gfx9, two wave32 on gfx11).
//!
//! - Work-item `l` adds partials `l, l + 64, …` of each slot to −0.0 in order
//!   (`global_load_dwordx2`, `v_add_f64`), and writes its sums to LDS.
//! - After `s_barrier`, work-item 0 adds the 64 lane sums of each slot in lane order to
//!   −0.0, replaces them by +0 when `grid = 0` (n = 0), rounds to the result's real
//!   type (`v_cvt_f32_f64`: nearest even) and stores re (then im) at `result`.
//!
//! iamax/iamin: each work-item keeps the best (key, index) of its partials, work-item 0
//! the best of the 64 lanes'. Keys are the values (iamin: negated, so both take the
//! larger key); values are −1 / +∞ (no element) or ≥ +0, never NaN, so "better" is
//! `max(key_new, key) ≠ key` bitwise (there is no f64 compare in the instruction model;
//! IEEE `v_max_f64` of ordered values returns the larger), "equal" is bitwise equality,
//! and an equal key wins with a smaller index (`v_cmp_lt_u32` on the low words: AMDGPU
//! first passes write 32-bit indices, u32::MAX meaning none). The result is the i64
//! `index + 1`, 1 when none qualified, 0 when `grid = 0`.
//!
//! nrm2 (correctly rounded f64 square root and division) has no AMDGPU finish yet: the
//! generator answers `Unsupported` and the host combines its partials in the same
//! order.

use super::super::asm::{AssembledKernel, Assembler};
use super::super::regs::{Sgpr, Vgpr};
use crate::level1::finish::{FinishParams, FINISH_LANES};
use crate::level1::L1Op;
use crate::signature::Signature;
use rocm_core::isa::amdgpu::{IsaTarget, Op, Operand};
use rocm_core::{DType, Error, Result};

/// The kernel name: `l1_finish_<op>_<dtype>_<out>`.
pub fn kernel_name(p: &FinishParams) -> String {
    let op = match p.op {
        L1Op::Dot { conj: false } => "dot",
        L1Op::Dot { conj: true } => "dotc",
        L1Op::Sum => "sum",
        L1Op::Asum => "asum",
        L1Op::Nrm2 => "nrm2",
        L1Op::Iamax { max: true } => "iamax",
        L1Op::Iamax { max: false } => "iamin",
        _ => "none",
    };
    format!("l1_finish_{op}_{}_{}", p.dtype, p.out)
}

/// −0.0 into an f64 register pair.
fn neg_zero(k: &mut Assembler, v: Vgpr) {
    k.op(Op::VMovB32, [v.at(0).op(), Operand::Int(0)]);
    k.op(
        Op::VMovB32,
        [v.at(1).op(), Operand::imm32(i64::from(0x8000_0000u32))],
    );
}

/// The signature of `p`'s kernel on `t` ([`FinishParams::signature`]); nrm2 has no
/// kernel here (the host combines its partials).
pub fn signature(t: IsaTarget, p: &FinishParams) -> Result<Signature> {
    p.validate()?;
    match p.op {
        L1Op::Dot { .. } | L1Op::Sum | L1Op::Asum | L1Op::Iamax { .. } => {
            Ok(p.signature(kernel_name(p)))
        }
        _ => Err(Error::unsupported(kernel_name(p), t.name())),
    }
}

/// The finish kernel of `p` on `t` (sums and iamax/iamin).
pub fn generate(t: IsaTarget, p: &FinishParams) -> Result<AssembledKernel> {
    p.validate()?;
    match p.op {
        L1Op::Dot { .. } | L1Op::Sum | L1Op::Asum => sums(t, p),
        L1Op::Iamax { max } => index(t, p, max),
        _ => Err(Error::unsupported(kernel_name(p), t.name())),
    }
}

/// dot, dotc, sum, asum.
fn sums(t: IsaTarget, p: &FinishParams) -> Result<AssembledKernel> {
    let slots = p.slots();
    let comps = if p.out.is_complex() { 2 } else { 1 };
    let f32_out = matches!(p.out, DType::F32 | DType::C32);
    let lanes = FINISH_LANES;
    let (mut k, regs) = Assembler::from_signature(t, &signature(t, p)?, lanes, 1)?;
    let (partials, result, grid) = (
        regs.get("partials")?,
        regs.get("result")?,
        regs.get("grid")?,
    );
    let tid = k.workitem_id(0)?;
    k.wait_lgkm(0);
    let vcc = k.vcc();
    let exec = k.exec();
    let (saved, junk) = (k.mask_sgprs()?, k.mask_sgprs()?);
    let mov_mask = if k.wave_size() == 64 {
        Op::SMovB64
    } else {
        Op::SMovB32
    };
    let (slot_bytes, step) = (k.sgprs(1)?, k.sgprs(1)?);
    let acc: Vec<Vgpr> = (0..slots).map(|_| k.vgprs(2)).collect::<Result<_>>()?;
    let offs: Vec<Vgpr> = (0..slots).map(|_| k.vgprs(1)).collect::<Result<_>>()?;
    let (j, tmp) = (k.vgprs(1)?, k.vgprs(2)?);
    for a in &acc {
        neg_zero(&mut k, *a);
    }
    // Phase 1: j = tid; byte offsets tid·8 + s·grid·8; 64 partials per step.
    k.op(Op::VMovB32, [j.op(), tid.op()]);
    k.op(Op::SLshlB32, [slot_bytes.op(), grid.op(), Operand::Int(3)]);
    k.op(Op::VLshlrevB32, [offs[0].op(), Operand::Int(3), tid.op()]);
    for s in 1..slots {
        k.op(
            Op::VAddU32,
            [offs[s].op(), slot_bytes.op(), offs[s - 1].op()],
        );
    }
    k.op(
        Op::SMovB32,
        [step.op(), Operand::imm32(i64::from(lanes * 8))],
    );
    let (lp, after, end) = (
        k.label("lanes"),
        k.label("lanes_done"),
        k.label("finish_done"),
    );
    k.op(mov_mask, [saved.op(), exec]);
    k.bind(lp);
    k.op(Op::VCmpGtU32, [vcc, grid.op(), j.op()]);
    k.and_saveexec(junk, vcc);
    k.cbranch(Op::SCbranchExecz, after);
    for (a, o) in acc.iter().zip(&offs) {
        k.global_load(Op::GlobalLoadDwordx2, tmp, *o, partials, 0);
        k.wait_vm(0);
        k.op(Op::VAddF64, [a.op(), a.op(), tmp.op()]);
    }
    k.op(
        Op::VAddU32,
        [j.op(), Operand::imm32(i64::from(lanes)), j.op()],
    );
    for o in &offs {
        k.op(Op::VAddU32, [o.op(), step.op(), o.op()]);
    }
    k.branch(lp);
    k.bind(after);
    k.op(mov_mask, [exec, saved.op()]);

    // Lane sums to LDS, slot after slot.
    let lds: Vec<u32> = (0..slots)
        .map(|_| k.lds(lanes * 8, 8))
        .collect::<Result<_>>()?;
    let addr = k.vgprs(1)?;
    k.op(Op::VLshlrevB32, [addr.op(), Operand::Int(3), tid.op()]);
    for (a, off) in acc.iter().zip(&lds) {
        k.ds_write(Op::DsWriteB64, addr, *a, *off as u16);
    }
    k.wait_lgkm(0);
    k.s_barrier();

    // Phase 2, work-item 0: the lanes in order.
    k.op(Op::VCmpEqU32, [vcc, Operand::Int(0), tid.op()]);
    k.and_saveexec(saved, vcc);
    k.cbranch(Op::SCbranchExecz, end);
    k.op(Op::VMovB32, [addr.op(), Operand::Int(0)]);
    for (a, off) in acc.iter().zip(&lds) {
        neg_zero(&mut k, *a);
        for l in 0..lanes {
            k.ds_read(Op::DsReadB64, tmp, addr, (off + l * 8) as u16);
            k.wait_lgkm(0);
            k.op(Op::VAddF64, [a.op(), a.op(), tmp.op()]);
        }
    }
    // n = 0: +0.
    let store = k.label("store");
    k.op(Op::SCmpLgU32, [grid.op(), Operand::Int(0)]);
    k.cbranch(Op::SCbranchScc1, store);
    for a in &acc {
        k.op(Op::VMovB32, [a.at(0).op(), Operand::Int(0)]);
        k.op(Op::VMovB32, [a.at(1).op(), Operand::Int(0)]);
    }
    k.bind(store);
    for (c, a) in acc.iter().take(comps).enumerate() {
        if f32_out {
            k.op(Op::VCvtF32F64, [tmp.at(0).op(), a.op()]);
            k.global_store(Op::GlobalStoreDword, addr, tmp.at(0), result, 4 * c as i32);
        } else {
            k.global_store(Op::GlobalStoreDwordx2, addr, *a, result, 8 * c as i32);
        }
    }
    k.bind(end);
    k.s_endpgm();
    k.finish()
}

/// The lane mask ops of the wave size: (mov, and, or, xor).
fn mask_ops(k: &Assembler) -> (Op, Op, Op, Op) {
    if k.wave_size() == 64 {
        (Op::SMovB64, Op::SAndB64, Op::SOrB64, Op::SXorB64)
    } else {
        (Op::SMovB32, Op::SAndB32, Op::SOrB32, Op::SXorB32)
    }
}

/// vcc = (a ≠ b) bitwise for f64 pairs; `s` is scratch.
fn differs(k: &mut Assembler, a: Vgpr, b: Vgpr, s: Vgpr) {
    let vcc = k.vcc();
    k.op(Op::VXorB32, [s.at(0).op(), a.at(0).op(), b.at(0).op()]);
    k.op(Op::VXorB32, [s.at(1).op(), a.at(1).op(), b.at(1).op()]);
    k.op(Op::VOrB32, [s.at(0).op(), s.at(0).op(), s.at(1).op()]);
    k.op(Op::VCmpNeU32, [vcc, Operand::Int(0), s.at(0).op()]);
}

/// (key, idx) ← (ckey, cidx) where the candidate is better (module docs).
#[allow(clippy::too_many_arguments)]
fn take_better(
    k: &mut Assembler,
    key: Vgpr,
    idx: Vgpr,
    ckey: Vgpr,
    cidx: Vgpr,
    t: Vgpr,
    m1: Sgpr,
    m2: Sgpr,
) {
    let vcc = k.vcc();
    let (mov, and, or, xor) = mask_ops(k);
    k.op(Op::VMaxF64, [t.op(), ckey.op(), key.op()]);
    differs(k, t, key, t);
    k.op(mov, [m1.op(), vcc]);
    differs(k, ckey, key, t);
    k.op(xor, [m2.op(), vcc, Operand::Int(-1)]);
    k.op(Op::VCmpLtU32, [vcc, cidx.op(), idx.op()]);
    k.op(and, [vcc, vcc, m2.op()]);
    k.op(or, [vcc, vcc, m1.op()]);
    for i in 0..2 {
        k.op(
            Op::VCndmaskB32,
            [key.at(i).op(), key.at(i).op(), ckey.at(i).op(), vcc],
        );
    }
    k.op(Op::VCndmaskB32, [idx.op(), idx.op(), cidx.op(), vcc]);
}

/// A value into a key: iamin negates it.
fn keyed(k: &mut Assembler, v: Vgpr, max: bool) {
    if !max {
        k.op(
            Op::VXorB32,
            [
                v.at(1).op(),
                Operand::imm32(i64::from(0x8000_0000u32)),
                v.at(1).op(),
            ],
        );
    }
}

/// The identity (key, index): −1 for iamax, −∞ (negated +∞) for iamin; u32::MAX.
fn identity(k: &mut Assembler, key: Vgpr, idx: Vgpr, max: bool) {
    let hi: u32 = if max { 0xbff0_0000 } else { 0xfff0_0000 };
    k.op(Op::VMovB32, [key.at(0).op(), Operand::Int(0)]);
    k.op(Op::VMovB32, [key.at(1).op(), Operand::imm32(i64::from(hi))]);
    k.op(Op::VMovB32, [idx.op(), Operand::Int(-1)]);
}

/// iamax, iamin.
fn index(t: IsaTarget, p: &FinishParams, max: bool) -> Result<AssembledKernel> {
    let lanes = FINISH_LANES;
    let (mut k, regs) = Assembler::from_signature(t, &signature(t, p)?, lanes, 1)?;
    let (partials, result, grid) = (
        regs.get("partials")?,
        regs.get("result")?,
        regs.get("grid")?,
    );
    let tid = k.workitem_id(0)?;
    k.wait_lgkm(0);
    let exec = k.exec();
    let vcc = k.vcc();
    let (mov_mask, _, _, _) = mask_ops(&k);
    let (saved, junk) = (k.mask_sgprs()?, k.mask_sgprs()?);
    let (m1, m2) = (k.mask_sgprs()?, k.mask_sgprs()?);
    let (slot_bytes, step) = (k.sgprs(1)?, k.sgprs(1)?);
    let (key, idx) = (k.vgprs(2)?, k.vgprs(1)?);
    let (ckey, cidx, tmp) = (k.vgprs(2)?, k.vgprs(1)?, k.vgprs(2)?);
    let (j, ov, oi) = (k.vgprs(1)?, k.vgprs(1)?, k.vgprs(1)?);
    identity(&mut k, key, idx, max);
    // Phase 1: values at tid·8, index low words at grid·8 + tid·8.
    k.op(Op::VMovB32, [j.op(), tid.op()]);
    k.op(Op::SLshlB32, [slot_bytes.op(), grid.op(), Operand::Int(3)]);
    k.op(Op::VLshlrevB32, [ov.op(), Operand::Int(3), tid.op()]);
    k.op(Op::VAddU32, [oi.op(), slot_bytes.op(), ov.op()]);
    k.op(
        Op::SMovB32,
        [step.op(), Operand::imm32(i64::from(lanes * 8))],
    );
    let (lp, after, end) = (
        k.label("lanes"),
        k.label("lanes_done"),
        k.label("finish_done"),
    );
    k.op(mov_mask, [saved.op(), exec]);
    k.bind(lp);
    k.op(Op::VCmpGtU32, [vcc, grid.op(), j.op()]);
    k.and_saveexec(junk, vcc);
    k.cbranch(Op::SCbranchExecz, after);
    k.global_load(Op::GlobalLoadDwordx2, ckey, ov, partials, 0);
    k.global_load(Op::GlobalLoadDword, cidx, oi, partials, 0);
    k.wait_vm(0);
    keyed(&mut k, ckey, max);
    take_better(&mut k, key, idx, ckey, cidx, tmp, m1, m2);
    k.op(
        Op::VAddU32,
        [j.op(), Operand::imm32(i64::from(lanes)), j.op()],
    );
    k.op(Op::VAddU32, [ov.op(), step.op(), ov.op()]);
    k.op(Op::VAddU32, [oi.op(), step.op(), oi.op()]);
    k.branch(lp);
    k.bind(after);
    k.op(mov_mask, [exec, saved.op()]);

    // Lane bests to LDS.
    let lds_key = k.lds(lanes * 8, 8)?;
    let lds_idx = k.lds(lanes * 4, 4)?;
    let (a8, a4) = (k.vgprs(1)?, k.vgprs(1)?);
    k.op(Op::VLshlrevB32, [a8.op(), Operand::Int(3), tid.op()]);
    k.op(Op::VLshlrevB32, [a4.op(), Operand::Int(2), tid.op()]);
    k.ds_write(Op::DsWriteB64, a8, key, lds_key as u16);
    k.ds_write(Op::DsWriteB32, a4, idx, lds_idx as u16);
    k.wait_lgkm(0);
    k.s_barrier();

    // Phase 2, work-item 0: the lanes in order.
    k.op(Op::VCmpEqU32, [vcc, Operand::Int(0), tid.op()]);
    k.and_saveexec(saved, vcc);
    k.cbranch(Op::SCbranchExecz, end);
    k.op(Op::VMovB32, [a8.op(), Operand::Int(0)]);
    identity(&mut k, key, idx, max);
    for l in 0..lanes {
        k.ds_read(Op::DsReadB64, ckey, a8, (lds_key + l * 8) as u16);
        k.ds_read(Op::DsReadB32, cidx, a8, (lds_idx + l * 4) as u16);
        k.wait_lgkm(0);
        take_better(&mut k, key, idx, ckey, cidx, tmp, m1, m2);
    }
    // 1-based; none (u32::MAX) gives 1; grid = 0 gives 0. The high word is 0.
    k.op(Op::VAddU32, [tmp.at(0).op(), Operand::Int(1), idx.op()]);
    k.op(Op::VCmpEqU32, [vcc, Operand::Int(-1), idx.op()]);
    k.emit(
        rocm_core::isa::amdgpu::Instr::new(
            Op::VCndmaskB32,
            [tmp.at(0).op(), tmp.at(0).op(), Operand::Int(1), vcc],
        )
        .e64(),
    );
    k.op(Op::VMovB32, [tmp.at(1).op(), Operand::Int(0)]);
    let store = k.label("store");
    k.op(Op::SCmpLgU32, [grid.op(), Operand::Int(0)]);
    k.cbranch(Op::SCbranchScc1, store);
    k.op(Op::VMovB32, [tmp.at(0).op(), Operand::Int(0)]);
    k.bind(store);
    k.global_store(Op::GlobalStoreDwordx2, a8, tmp, result, 0);
    k.bind(end);
    k.s_endpgm();
    k.finish()
}
