//! The kernel skeleton: arguments, the contiguous (vector, grid-stride, tail) and strided
//! loops around [`Body::emit`], and the reduction epilogue.

use super::super::asm::{AssembledKernel, Assembler};
use super::super::regs::{Sgpr, Vgpr};
use super::body::{scalar_args, Body};
use super::{reduce, Spec};
use crate::level1::Level1Params;
use rocm_core::isa::amdgpu::{IsaTarget, Op, Operand};
use rocm_core::Result;

fn log2(x: u32) -> i8 {
    x.trailing_zeros() as i8
}

pub(super) fn build(t: IsaTarget, p: &Level1Params, s: &Spec) -> Result<AssembledKernel> {
    let (mut k, regs) = Assembler::from_signature(t, &super::signature(t, p)?, p.block, 1)?;
    let x = regs.get("x")?;
    let y = regs.opt("y");
    let n = regs.get("n")?;
    let groups = regs.get("groups")?;
    let incs = if p.contiguous {
        None
    } else {
        Some((regs.get("incx")?, regs.opt("incy")))
    };
    let words = scalar_args(&regs, s)?;
    let partials = regs.opt("partials");
    let tid = k.workitem_id(0)?;
    let wg = k.workgroup_id(0)?;
    k.wait_lgkm(0);
    let body = Body::new(&mut k, s, x, y, &words)?;
    let (step, tmp) = (k.sgprs(1)?, k.sgprs(1)?);
    let gid = k.vgprs(1)?;
    // step = groups·block work-items; gid = wg·block + tid.
    k.op(
        Op::SMulI32,
        [step.op(), groups.op(), Operand::imm32(i64::from(p.block))],
    );
    k.op(
        Op::SMulI32,
        [tmp.op(), wg.op(), Operand::imm32(i64::from(p.block))],
    );
    k.op(Op::VAddU32, [gid.op(), tmp.op(), tid.op()]);
    let l = Loop {
        n,
        step,
        gid,
        tid,
        wg,
    };
    match incs {
        None => contiguous(&mut k, &body, &l)?,
        Some((incx, incy)) => strided(&mut k, &body, &l, incx, incy)?,
    }
    if let (Some(partials), Some(acc)) = (partials, &body.acc) {
        reduce::block_reduce(&mut k, p, acc, partials, groups, tid, wg)?;
    }
    k.s_endpgm();
    k.finish()
}

/// The loop state shared by both layouts.
struct Loop {
    n: Sgpr,
    /// Work-items in the grid.
    step: Sgpr,
    /// This work-item's first unit.
    gid: Vgpr,
    tid: Vgpr,
    wg: Sgpr,
}

fn mov_mask(k: &Assembler) -> Op {
    if k.wave_size() == 64 {
        Op::SMovB64
    } else {
        Op::SMovB32
    }
}

/// `off = gid << log2(bytes)` and its step, for one vector's bytes.
fn vector_offset(k: &mut Assembler, l: &Loop, bytes: u32) -> Result<(Vgpr, Sgpr)> {
    let (off, step) = (k.vgprs(1)?, k.sgprs(1)?);
    k.op(
        Op::VLshlrevB32,
        [off.op(), Operand::Int(log2(bytes)), l.gid.op()],
    );
    k.op(
        Op::SLshlB32,
        [step.op(), l.step.op(), Operand::Int(log2(bytes))],
    );
    Ok((off, step))
}

fn contiguous(k: &mut Assembler, b: &Body, l: &Loop) -> Result<()> {
    let s = b.s;
    let epv = s.per_vector();
    let (bx, by) = (epv * s.esx, epv * s.esy);
    let (vecs, tmp) = (k.sgprs(1)?, k.sgprs(1)?);
    let (saved, junk) = (k.mask_sgprs()?, k.mask_sgprs()?);
    let vcc = k.vcc();
    let exec = k.exec();
    let mov = mov_mask(k);
    let (lp, after, done) = (k.label("loop"), k.label("after"), k.label("done"));
    k.op(Op::SLshrB32, [vecs.op(), l.n.op(), Operand::Int(log2(epv))]);
    let (ox, sx) = vector_offset(k, l, bx)?;
    let (oy, sy) = if by == bx || by == 0 {
        (ox, sx)
    } else {
        vector_offset(k, l, by)?
    };
    // The index of the vector's first element (read by iamax only).
    let iamax = matches!(s.op, crate::level1::L1Op::Iamax { .. });
    let (first, sf) = if iamax {
        vector_offset(k, l, epv)?
    } else {
        (k.vgprs(1)?, l.step)
    };
    k.op(mov, [saved.op(), exec]);
    k.bind(lp);
    k.op(Op::VCmpGtU32, [vcc, vecs.op(), l.gid.op()]);
    k.and_saveexec(junk, vcc);
    k.cbranch(Op::SCbranchExecz, after);
    b.emit(k, ox, oy, epv as u8, first)?;
    k.op(Op::VAddU32, [l.gid.op(), l.step.op(), l.gid.op()]);
    k.op(Op::VAddU32, [ox.op(), sx.op(), ox.op()]);
    if oy != ox {
        k.op(Op::VAddU32, [oy.op(), sy.op(), oy.op()]);
    }
    if iamax {
        k.op(Op::VAddU32, [first.op(), sf.op(), first.op()]);
    }
    k.branch(lp);
    k.bind(after);
    k.op(mov, [exec, saved.op()]);
    // Tail: workgroup 0, lanes tid < n - vecs·epv, element vecs·epv + tid each.
    k.op(Op::SCmpLgU32, [l.wg.op(), Operand::Int(0)]);
    k.cbranch(Op::SCbranchScc1, done);
    k.op(Op::SLshlB32, [tmp.op(), vecs.op(), Operand::Int(log2(epv))]);
    k.op(Op::SSubU32, [vecs.op(), l.n.op(), tmp.op()]);
    k.op(Op::VCmpGtU32, [vcc, vecs.op(), l.tid.op()]);
    k.and_saveexec(junk, vcc);
    k.cbranch(Op::SCbranchExecz, done);
    k.op(Op::VAddU32, [first.op(), tmp.op(), l.tid.op()]);
    k.op(
        Op::VLshlrevB32,
        [ox.op(), Operand::Int(log2(s.esx)), first.op()],
    );
    if oy != ox {
        k.op(
            Op::VLshlrevB32,
            [oy.op(), Operand::Int(log2(s.esy)), first.op()],
        );
    }
    b.emit(k, ox, oy, 1, first)?;
    k.bind(done);
    k.op(mov, [exec, saved.op()]);
    Ok(())
}

/// One increment's byte stride and start: `bytes = inc·es`, `start = (1 - n)·bytes` when
/// `inc < 0` (BLAS: element i lives at `(i + (1 - n)) · inc` then), else 0; the lane's
/// offset `gid·bytes + start` and the loop step `step·bytes`.
fn strided_offset(k: &mut Assembler, l: &Loop, inc: Sgpr, es: u32) -> Result<(Vgpr, Sgpr)> {
    let (bytes, start, step_bytes) = (k.sgprs(1)?, k.sgprs(1)?, k.sgprs(1)?);
    let off = k.vgprs(1)?;
    k.op(
        Op::SMulI32,
        [bytes.op(), inc.op(), Operand::imm32(i64::from(es))],
    );
    k.op(Op::SSubU32, [start.op(), Operand::Int(1), l.n.op()]);
    k.op(Op::SMulI32, [start.op(), start.op(), bytes.op()]);
    k.op(Op::SCmpLtI32, [inc.op(), Operand::Int(0)]);
    k.op(Op::SCselectB32, [start.op(), start.op(), Operand::Int(0)]);
    k.op(Op::SMulI32, [step_bytes.op(), l.step.op(), bytes.op()]);
    k.op(Op::VMulLoU32, [off.op(), l.gid.op(), bytes.op()]);
    k.op(Op::VAddU32, [off.op(), start.op(), off.op()]);
    Ok((off, step_bytes))
}

/// One element per lane per iteration at signed increments.
fn strided(k: &mut Assembler, b: &Body, l: &Loop, incx: Sgpr, incy: Option<Sgpr>) -> Result<()> {
    let s = b.s;
    let (saved, junk) = (k.mask_sgprs()?, k.mask_sgprs()?);
    let vcc = k.vcc();
    let exec = k.exec();
    let mov = mov_mask(k);
    let (lp, done) = (k.label("loop"), k.label("done"));
    let (ox, sx) = strided_offset(k, l, incx, s.esx)?;
    let (oy, sy) = match incy {
        Some(incy) => strided_offset(k, l, incy, s.esy)?,
        None => (ox, sx),
    };
    k.op(mov, [saved.op(), exec]);
    k.bind(lp);
    k.op(Op::VCmpGtU32, [vcc, l.n.op(), l.gid.op()]);
    k.and_saveexec(junk, vcc);
    k.cbranch(Op::SCbranchExecz, done);
    b.emit(k, ox, oy, 1, l.gid)?;
    k.op(Op::VAddU32, [l.gid.op(), l.step.op(), l.gid.op()]);
    k.op(Op::VAddU32, [ox.op(), sx.op(), ox.op()]);
    if incy.is_some() {
        k.op(Op::VAddU32, [oy.op(), sy.op(), oy.op()]);
    }
    k.branch(lp);
    k.bind(done);
    k.op(mov, [exec, saved.op()]);
    Ok(())
}
