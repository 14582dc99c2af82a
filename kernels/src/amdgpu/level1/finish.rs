//! The AMDGPU final pass of the sum reductions (dot, dotc, sum, asum): the order and
//! arguments of [`crate::level1::finish`] (`partials, result, grid`), one workgroup of
//! 64 work-items (one wave64 on gfx9, two wave32 on gfx11).
//!
//! - Work-item `l` adds partials `l, l + 64, …` of each slot to −0.0 in order
//!   (`global_load_dwordx2`, `v_add_f64`), and writes its sums to LDS.
//! - After `s_barrier`, work-item 0 adds the 64 lane sums of each slot in lane order to
//!   −0.0, replaces them by +0 when `grid = 0` (n = 0), rounds to the result's real
//!   type (`v_cvt_f32_f64`: nearest even) and stores re (then im) at `result`.
//!
//! nrm2 (correctly rounded f64 square root and division) and iamax/iamin (64-bit
//! comparisons) have no AMDGPU finish yet: the generator answers `Unsupported` and the
//! host combines their partials in the same order.

use super::super::asm::{AssembledKernel, Assembler};
use super::super::regs::Vgpr;
use crate::level1::finish::{FinishParams, FINISH_LANES};
use crate::level1::L1Op;
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

/// The finish kernel of `p` on `t` (sum reductions only).
pub fn generate(t: IsaTarget, p: &FinishParams) -> Result<AssembledKernel> {
    p.validate()?;
    if !matches!(p.op, L1Op::Dot { .. } | L1Op::Sum | L1Op::Asum) {
        return Err(Error::unsupported(kernel_name(p), t.name()));
    }
    let slots = p.slots();
    let comps = if p.out.is_complex() { 2 } else { 1 };
    let f32_out = matches!(p.out, DType::F32 | DType::C32);
    let lanes = FINISH_LANES;
    let mut k = Assembler::new(t, &kernel_name(p), lanes, 1)?;
    let partials = k.arg_pointer("partials")?;
    let result = k.arg_pointer("result")?;
    let grid = k.arg_u32("grid")?;
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
