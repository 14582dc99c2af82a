//! Instruction semantics: one instruction of one wave, dispatched on its form.
//!
//! What is here and what is not:
//! - Per-lane arithmetic (SALU, VALU, compares, conversions) is `emu::alu`'s; this file
//!   fetches sources in assembler order (mask sources as `flag_in`), calls it per active
//!   lane, and writes back: VGPR results under EXEC, compare and carry masks (inactive
//!   lanes 0), SCC. MFMA/WMMA arithmetic is `emu::matrix`'s; this file gathers the
//!   register tuples.
//! - Wave-state instructions are here: `s_mov*`, `s_movk_i32`, `s_and_saveexec*`,
//!   `s_getpc_b64`, every SOPP (branches, waits, barrier, nop, endpgm, setprio, sleep),
//!   SMEM loads, `v_readfirstlane`/`v_readlane`/`v_writelane`, `v_mbcnt_lo/hi`,
//!   `v_accvgpr_read/write/mov`, LDS (DS) and global memory.
//! - Memory takes effect at issue, in lane order; the waitcnt scoreboard (checked by the
//!   dispatcher before each instruction) is what makes reading a load's result early an
//!   error. Every global access lies, for its whole width, inside one live allocation;
//!   every LDS access inside the workgroup's LDS; else the instruction faults naming the
//!   lane and address.
//! - An instruction the emulator cannot execute is a fault naming it, never a panic.

use super::atomic::{atomic_of, ds_compare_first, rmw, Rmw};
use super::memory::{AddressSpace, PRIVATE_APERTURE_HI, SHARED_APERTURE_HI};
use super::program::{Program, Target};
use super::wave::{lanes_of, VSource, Wave};
use super::Fault;
use crate::isa::amdgpu::{Form, Instr, IsaTarget, Op, Operand, Slot, Ty, VExt};

/// What the wave does after an instruction.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Flow {
    Next,
    Jump(usize),
    Barrier,
    End,
}

/// What an instruction may touch besides its wave.
pub struct Ctx<'a> {
    pub mem: &'a mut AddressSpace,
    pub lds: &'a mut [u8],
    pub target: IsaTarget,
    pub program: &'a Program,
    /// Address of the kernel's entry (for `s_getpc_b64`).
    pub code_base: u64,
}

/// Executes instruction `index` of the program on `w`.
pub fn step(w: &mut Wave, index: usize, ctx: &mut Ctx<'_>) -> Result<Flow, Fault> {
    let ins = &ctx.program.instrs[index];
    if let Some(y) = &ins.dual {
        return dual(w, ins, y, ctx.target);
    }
    match ins.op.info().form {
        Form::Sop1 | Form::Sop2 | Form::Sopk | Form::Sopc => scalar(w, ins, index, ctx),
        Form::Sopp => sopp(w, ins, index, ctx),
        Form::Smem => smem(w, ins, ctx),
        Form::Vop1 | Form::Vop2 | Form::Vopc | Form::Vop3 | Form::Vop3p => {
            vector(w, ins, ctx.target)
        }
        Form::Mai | Form::Wmma => matrix(w, ins, ctx.target),
        Form::Ds => ds(w, ins, ctx),
        Form::Global | Form::Flat => global(w, ins, ctx),
        Form::Scratch => scratch(w, ins, ctx),
        Form::Buffer => buffer(w, ins, ctx),
        // Cache maintenance: the emulated memory is coherent, every access sees the last
        // write, so invalidations and write-backs have nothing to do.
        Form::Mubuf => Ok(Flow::Next),
    }
}

fn unsupported(ins: &Instr, why: impl std::fmt::Display) -> Fault {
    Fault::new(format!("{:?} cannot be executed: {why}", ins.op))
}

/// Slot width in dwords of a scalar slot.
fn swidth(slot: Slot) -> u8 {
    match slot {
        Slot::SDst(n) | Slot::SSrc(n) => n,
        _ => 1,
    }
}

/// A gfx11 VOPD: both halves read their sources before either writes. The halves
/// write different registers (one even, one odd), so only Y reading X's destination
/// needs care: X's results are then held back until Y has run.
fn dual(w: &mut Wave, x: &Instr, y: &Instr, target: IsaTarget) -> Result<Flow, Fault> {
    let dst_x = x
        .operands
        .first()
        .ok_or_else(|| unsupported(x, "missing operand"))?;
    if !y.uses().any(|o| o == dst_x) {
        vector(w, x, target)?;
        return vector(w, y, target);
    }
    let lanes = w.lanes as usize;
    let at = w.vector_entry(dst_x, 1)? * lanes;
    let before = w.vgpr[at..at + lanes].to_vec();
    vector(w, x, target)?;
    let x_result = w.vgpr[at..at + lanes].to_vec();
    w.vgpr[at..at + lanes].copy_from_slice(&before);
    vector(w, y, target)?;
    w.vgpr[at..at + lanes].copy_from_slice(&x_result);
    Ok(Flow::Next)
}

// ---------------------------------------------------------------------------------------
// Scalar ALU

/// Reads scalar source `index` (in `src` order) of `ins`; inline constants through
/// `alu::source_constant`.
fn scalar_src(w: &Wave, ins: &Instr, index: usize, o: &Operand, width: u8) -> Result<u64, Fault> {
    if let Operand::Int(_) | Operand::Float(_) = o {
        return super::alu::source_constant(ins.op, index, o)
            .ok_or_else(|| Fault::new(format!("inline constant {o} is not supported here")));
    }
    w.read_scalar(o, width, ins.op.info().ty)
}

fn scalar(w: &mut Wave, ins: &Instr, index: usize, ctx: &Ctx<'_>) -> Result<Flow, Fault> {
    let info = ins.op.info();
    let ty = info.ty;
    let opnd = |k: usize| {
        ins.operands
            .get(k)
            .ok_or_else(|| unsupported(ins, "missing operand"))
    };
    match ins.op {
        Op::SMovB32 | Op::SMovB64 => {
            let width = swidth(info.slots[0]);
            let v = scalar_src(w, ins, 0, opnd(1)?, width)?;
            w.write_scalar(opnd(0)?, width, v)?;
        }
        Op::SMovkI32 => {
            let imm = w.read_scalar(opnd(1)?, 1, ty)?;
            w.write_scalar(opnd(0)?, 1, imm as u16 as i16 as i32 as u32 as u64)?;
        }
        Op::SAndSaveexecB64
        | Op::SAndSaveexecB32
        | Op::SAndn2SaveexecB64
        | Op::SAndn2SaveexecB32
        | Op::SOrSaveexecB64
        | Op::SOrSaveexecB32 => {
            let width = swidth(info.slots[0]);
            let src = scalar_src(w, ins, 0, opnd(1)?, width)?;
            let old = w.exec;
            w.write_scalar(opnd(0)?, width, old)?;
            let new = match ins.op {
                Op::SAndSaveexecB64 | Op::SAndSaveexecB32 => src & old,
                Op::SAndn2SaveexecB64 | Op::SAndn2SaveexecB32 => src & !old,
                _ => src | old,
            };
            w.exec = new & w.full_mask();
            w.scc = w.exec != 0;
        }
        Op::SSetpcB64 | Op::SSwappcB64 => {
            let src = if ins.op == Op::SSetpcB64 { 0 } else { 1 };
            let to = scalar_src(w, ins, 0, opnd(src)?, 2)?;
            if ins.op == Op::SSwappcB64 {
                let next = ctx.code_base + ctx.program.pc(index + 1);
                w.write_scalar(opnd(0)?, 2, next)?;
            }
            return jump_to_address(to, ctx);
        }
        Op::SGetpcB64 => {
            let next = ctx.code_base + ctx.program.pc(index + 1);
            w.write_scalar(opnd(0)?, 2, next)?;
        }
        // The SOPK waits name a counter register (null) the scoreboard reads.
        Op::SWaitcntVscnt | Op::SWaitcntVmcnt | Op::SWaitcntLgkmcnt => {}
        _ => {
            let mut src = [0u64; 2];
            let mut n = 0;
            let mut dst = None;
            let sopk_rmw = info.form == Form::Sopk;
            for (slot, o) in info.slots.iter().zip(&ins.operands) {
                match *slot {
                    Slot::SDst(width) => dst = Some((o, width)),
                    Slot::SSrc(width) if n < 2 => {
                        src[n] = scalar_src(w, ins, n, o, width)?;
                        n += 1;
                    }
                    Slot::Simm(_) if n < 2 => {
                        src[n] = w.read_scalar(o, 1, ty)?;
                        n += 1;
                    }
                    _ => return Err(unsupported(ins, "unexpected operand layout")),
                }
            }
            if sopk_rmw {
                // src = [imm16 raw bits, old destination value].
                let (d, width) = dst.ok_or_else(|| unsupported(ins, "no destination"))?;
                src[1] = w.read_scalar(d, width, ty)?;
            }
            let out =
                super::alu::salu(ins.op, src, w.scc).map_err(|e| Fault::new(e.to_string()))?;
            // The SOPK compares name their register in the destination field but only
            // read it.
            let compare = is_sopk_compare(ins.op);
            if let (Some((d, width)), false) = (dst, compare) {
                w.write_scalar(d, width, out.value)?;
            }
            if let Some(f) = out.flag {
                w.scc = f;
            }
        }
    }
    Ok(Flow::Next)
}

fn is_sopk_compare(op: Op) -> bool {
    matches!(
        op,
        Op::SCmpkEqI32
            | Op::SCmpkLgI32
            | Op::SCmpkGtI32
            | Op::SCmpkGeI32
            | Op::SCmpkLtI32
            | Op::SCmpkLeI32
            | Op::SCmpkEqU32
            | Op::SCmpkLgU32
            | Op::SCmpkGtU32
            | Op::SCmpkGeU32
            | Op::SCmpkLtU32
            | Op::SCmpkLeU32
    )
}

/// Continues at the instruction starting at absolute address `to` (`s_setpc_b64`,
/// `s_swappc_b64`): it must be the first byte of a decoded instruction of the code
/// object's text.
fn jump_to_address(to: u64, ctx: &Ctx<'_>) -> Result<Flow, Fault> {
    to.checked_sub(ctx.code_base)
        .and_then(|off| ctx.program.index_of(off))
        .map(Flow::Jump)
        .ok_or_else(|| {
            Fault::at(
                None,
                to,
                format!(
                    "jump to {to:#x}, which starts no instruction of the code object (code at \
                     {:#x})",
                    ctx.code_base
                ),
            )
        })
}

fn sopp(w: &mut Wave, ins: &Instr, index: usize, ctx: &Ctx<'_>) -> Result<Flow, Fault> {
    let taken = match ins.op {
        Op::SEndpgm => return Ok(Flow::End),
        Op::SBarrier => return Ok(Flow::Barrier),
        // Scheduling hints and messages with no effect on one wave's results (gfx11's
        // MSG_DEALLOC_VGPRS releases registers only after s_endpgm).
        Op::SNop
        | Op::SWaitcntDepctr
        | Op::SWaitcnt
        | Op::SSetprio
        | Op::SSleep
        | Op::SClause
        | Op::SDelayAlu
        | Op::SSendmsg => return Ok(Flow::Next),
        Op::SBranch => true,
        Op::SCbranchScc0 => !w.scc,
        Op::SCbranchScc1 => w.scc,
        Op::SCbranchVccz => w.vcc & w.full_mask() == 0,
        Op::SCbranchVccnz => w.vcc & w.full_mask() != 0,
        Op::SCbranchExecz => w.exec == 0,
        Op::SCbranchExecnz => w.exec != 0,
        _ => return Err(unsupported(ins, "not a SOPP the emulator knows")),
    };
    if !taken {
        return Ok(Flow::Next);
    }
    match ctx.program.targets.get(index).copied().flatten() {
        Some(Target::Index(i)) => Ok(Flow::Jump(i)),
        Some(Target::Invalid(byte)) => Err(Fault::new(format!(
            "branch to byte {byte:#x} of the kernel, which starts no instruction"
        ))),
        None => Err(unsupported(ins, "branch without a target")),
    }
}

// ---------------------------------------------------------------------------------------
// Scalar memory

fn smem(w: &mut Wave, ins: &Instr, ctx: &Ctx<'_>) -> Result<Flow, Fault> {
    let (Some(dst), Some(base)) = (ins.operands.first(), ins.operands.get(1)) else {
        return Err(unsupported(ins, "missing operand"));
    };
    let dwords = swidth(ins.op.info().slots[0]);
    let base = w.read_scalar(base, 2, Ty::B64)?;
    // The hardware ignores the two low address bits of scalar loads.
    let addr = base.wrapping_add(ins.mods.offset as i64 as u64) & !3;
    let bytes = usize::from(dwords) * 4;
    let data = ctx.mem.slice(addr, bytes).ok_or_else(|| {
        Fault::at(
            None,
            addr,
            format!(
                "{:?} of {bytes} bytes outside every live allocation",
                ins.op
            ),
        )
    })?;
    let mut vals = [0u32; 16];
    for (v, c) in vals.iter_mut().zip(data.chunks_exact(4)) {
        *v = u32::from_le_bytes([c[0], c[1], c[2], c[3]]);
    }
    match dst {
        Operand::Sgpr(r) => {
            for k in 0..dwords {
                let reg =
                    Operand::Sgpr(crate::isa::amdgpu::RegRange::new(r.first + u16::from(k), 1));
                w.write_scalar(&reg, 1, u64::from(vals[usize::from(k)]))?;
            }
        }
        other => w.write_scalar(
            other,
            dwords.min(2),
            u64::from(vals[0]) | u64::from(vals[1]) << 32,
        )?,
    }
    Ok(Flow::Next)
}

// ---------------------------------------------------------------------------------------
// Vector ALU

/// Where a vector instruction writes.
enum VDst<'a> {
    None,
    Vector { entry: usize, wide: bool },
    Scalar(&'a Operand),
}

/// Resolves source `index` (in `src` order) of a vector op: inline constants through
/// `alu::source_constant`, which knows each source's real type.
fn vector_src(
    w: &Wave,
    ins: &Instr,
    index: usize,
    o: &Operand,
    width: u8,
) -> Result<VSource, Fault> {
    // A mix source op_sel_hi reads as f16 takes an inline float as an f16 constant (in
    // both halves, so op_sel picks the same value).
    if let (Operand::Float(f), Op::VFmaMixF32) = (o, ins.op) {
        if ins.mods.op_sel_hi >> index & 1 != 0 {
            let h = u64::from(super::alu::f16_constant(*f));
            return Ok(VSource::Uniform(h | h << 16));
        }
    }
    if let Operand::Int(_) | Operand::Float(_) = o {
        return super::alu::source_constant(ins.op, index, o)
            .map(VSource::Uniform)
            .ok_or_else(|| Fault::new(format!("inline constant {o} is not supported here")));
    }
    w.vector_source(o, width, ins.op.info().ty)
}

fn vector(w: &mut Wave, ins: &Instr, target: IsaTarget) -> Result<Flow, Fault> {
    let info = ins.op.info();
    let mut src = [VSource::Uniform(0); 3];
    let mut n = 0;
    let mut mask_in = 0u64;
    let mut dst = VDst::None;
    let mut mask_out: Option<&Operand> = None;
    for (slot, o) in info.slots.iter().zip(&ins.operands) {
        match *slot {
            Slot::VSrc(width) | Slot::VReg(width) | Slot::ASrc(width) => {
                if n >= 3 {
                    return Err(unsupported(ins, "more than three sources"));
                }
                src[n] = vector_src(w, ins, n, o, width)?;
                n += 1;
            }
            Slot::SSrc(width) => {
                if n >= 3 {
                    return Err(unsupported(ins, "more than three sources"));
                }
                src[n] = match vector_src(w, ins, n, o, width)? {
                    VSource::Uniform(x) => VSource::Uniform(x),
                    VSource::Lane { .. } => {
                        return Err(unsupported(ins, "a vector register as a scalar source"))
                    }
                };
                n += 1;
            }
            Slot::MaskSrc => mask_in = w.read_scalar(o, w.lanes.div_ceil(32) as u8, Ty::B64)?,
            Slot::Kimm => {
                let Operand::Literal(k) = *o else {
                    return Err(unsupported(ins, "K is not a literal"));
                };
                src[n] = VSource::Uniform(u64::from(k));
                n += 1;
            }
            Slot::VDst(width) | Slot::ADst(width) => {
                dst = VDst::Vector {
                    entry: w.vector_entry(o, width)?,
                    wide: width >= 2,
                }
            }
            Slot::SDstV => dst = VDst::Scalar(o),
            Slot::MaskDst | Slot::CarryDst => mask_out = Some(o),
            _ => return Err(unsupported(ins, "unexpected operand layout")),
        }
    }
    // v_div_fmas reads VCC (what v_div_scale set) without naming it.
    if ins.op == Op::VDivFmasF64 {
        mask_in = w.vcc;
    }
    // v_fmac_*, v_mac_f32 and v_dot2acc_f32_f16 read their destination as a third source.
    if let (
        Op::VFmacF32 | Op::VFmacF64 | Op::VFmacF16 | Op::VDot2accF32F16 | Op::VMacF32,
        VDst::Vector { entry, wide },
    ) = (ins.op, &dst)
    {
        src[2] = VSource::Lane {
            entry: *entry,
            wide: *wide,
        };
    }
    // gfx11 16-bit results keep the destination's old high half (gfx9 zeroes it).
    let keep_high =
        target.family() == crate::isa::amdgpu::IsaFamily::Gfx11 && super::alu::writes_low16(ins.op);
    let exec = w.exec;
    let lanes = w.lanes;
    match ins.op {
        Op::VReadfirstlaneB32 => {
            let lane = if exec == 0 { 0 } else { exec.trailing_zeros() };
            let v = w.lane_value(src[0], lane);
            if let VDst::Scalar(d) = dst {
                w.write_scalar(d, 1, v & 0xffff_ffff)?;
            }
            return Ok(Flow::Next);
        }
        Op::VReadlaneB32 => {
            let lane = (w.lane_value(src[1], 0) as u32) & (lanes - 1);
            let v = w.lane_value(src[0], lane);
            if let VDst::Scalar(d) = dst {
                w.write_scalar(d, 1, v & 0xffff_ffff)?;
            }
            return Ok(Flow::Next);
        }
        Op::VWritelaneB32 => {
            // Ignores EXEC: writes the one selected lane.
            let lane = (w.lane_value(src[1], 0) as u32) & (lanes - 1);
            let v = w.lane_value(src[0], lane);
            if let VDst::Vector { entry, .. } = dst {
                w.set(entry, 0, lane, v as u32);
            }
            return Ok(Flow::Next);
        }
        _ => {}
    }
    let cmpx = ins.op.cmpx_compare();
    let mut flags = 0u64;
    let ext = ins.mods.ext;
    let src0_lanes = ext.as_ref().map(|e| super::ext::snapshot(e, w, src[0]));
    for lane in lanes_of(exec) {
        let mut s = [
            w.lane_value(src[0], lane),
            w.lane_value(src[1], lane),
            w.lane_value(src[2], lane),
        ];
        if let (Some(e), Some(src0_lanes)) = (&ext, &src0_lanes) {
            match super::ext::sources(e, w, src0_lanes, lane, exec, &mut s) {
                super::ext::Lane::Runs => {}
                super::ext::Lane::Keeps => continue,
            }
        }
        let value = match ins.op {
            Op::VMbcntLoU32B32 => {
                let below = (1u64 << lane) - 1;
                u64::from((s[0] & below & 0xffff_ffff).count_ones()) + s[1]
            }
            Op::VMbcntHiU32B32 => {
                let below = (1u64 << lane) - 1;
                u64::from(((s[0] << 32) & below).count_ones()) + s[1]
            }
            Op::VAccvgprReadB32 | Op::VAccvgprWriteB32 | Op::VAccvgprMovB32 => s[0],
            _ => {
                let out = super::alu::valu(ins.op, &ins.mods, s, mask_in >> lane & 1 != 0)
                    .map_err(|e| Fault::new(e.to_string()).on_lane(lane))?;
                if out.flag == Some(true) {
                    flags |= 1 << lane;
                }
                out.value
            }
        };
        match dst {
            VDst::Vector { entry, wide } => {
                let value = if let Some(VExt::Sdwa(sd)) = &ext {
                    super::ext::sdwa_result(sd, w.get(entry, 0, lane), value as u32).into()
                } else if keep_high {
                    u64::from(w.get(entry, 0, lane) & 0xffff_0000) | (value & 0xffff)
                } else {
                    value
                };
                w.set(entry, 0, lane, value as u32);
                if wide {
                    w.set(entry, 1, lane, (value >> 32) as u32);
                }
            }
            VDst::Scalar(_) => return Err(unsupported(ins, "scalar destination per lane")),
            VDst::None => {}
        }
    }
    if let Some(m) = mask_out {
        w.write_scalar(m, w.lanes.div_ceil(32) as u8, flags)?;
    }
    if cmpx.is_some() {
        w.exec = flags;
    }
    Ok(Flow::Next)
}

// ---------------------------------------------------------------------------------------
// MFMA / WMMA

fn matrix(w: &mut Wave, ins: &Instr, target: IsaTarget) -> Result<Flow, Fault> {
    let info = ins.op.info();
    let n = w.lanes as usize;
    let widths: Vec<u8> = info
        .slots
        .iter()
        .map(|s| match *s {
            Slot::MfmaDst(k)
            | Slot::MfmaSrc(k)
            | Slot::MfmaAcc(k)
            | Slot::VDst(k)
            | Slot::VReg(k) => k,
            _ => 0,
        })
        .collect();
    if ins.operands.len() != 4 || widths.len() != 4 {
        return Err(unsupported(ins, "expected D, A, B, C"));
    }
    let tuple = |w: &Wave, k: usize| -> Result<Vec<u32>, Fault> {
        let o = &ins.operands[k];
        let regs = usize::from(widths[k]);
        match o {
            Operand::Vgpr(_) | Operand::Agpr(_) => {
                let e = w.vector_entry(o, widths[k])?;
                Ok(w.vgpr[e * n..(e + regs) * n].to_vec())
            }
            other => {
                // An inline constant C, broadcast to every element (64-bit values fill
                // register pairs low dword first).
                let wide = info.ty == Ty::F64;
                let bits = w.read_scalar(other, if wide { 2 } else { 1 }, info.ty)?;
                let mut v = vec![0u32; regs * n];
                for (r, chunk) in v.chunks_mut(n).enumerate() {
                    let half = if wide && r % 2 == 1 { bits >> 32 } else { bits };
                    chunk.fill(half as u32);
                }
                Ok(v)
            }
        }
    };
    let a = tuple(w, 1)?;
    let b = tuple(w, 2)?;
    let c = tuple(w, 3)?;
    let e = w.vector_entry(&ins.operands[0], widths[0])?;
    let d = &mut w.vgpr[e * n..(e + usize::from(widths[0])) * n];
    super::matrix::execute(ins.op, &ins.mods, target, &a, &b, &c, d)
        .map_err(|e| Fault::new(e.to_string()))?;
    Ok(Flow::Next)
}

// ---------------------------------------------------------------------------------------
// LDS

fn lds_range(
    lds: &mut [u8],
    addr: u32,
    bytes: usize,
    lane: u32,
    op: Op,
) -> Result<&mut [u8], Fault> {
    let size = lds.len();
    let start = addr as usize;
    lds.get_mut(start..start.saturating_add(bytes))
        .ok_or_else(|| {
            Fault::at(
                Some(lane),
                u64::from(addr),
                format!("{op:?} of {bytes} bytes outside the workgroup's {size} bytes of LDS"),
            )
        })
}

fn lds_read(lds: &mut [u8], addr: u32, lane: u32, op: Op) -> Result<u32, Fault> {
    let b = lds_range(lds, addr, 4, lane, op)?;
    Ok(u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
}

fn lds_write(lds: &mut [u8], addr: u32, value: u32, lane: u32, op: Op) -> Result<(), Fault> {
    lds_range(lds, addr, 4, lane, op)?.copy_from_slice(&value.to_le_bytes());
    Ok(())
}

fn ds(w: &mut Wave, ins: &Instr, ctx: &mut Ctx<'_>) -> Result<Flow, Fault> {
    let info = ins.op.info();
    let mut dst = None;
    let mut addr = None;
    let mut data = [None; 2];
    for (slot, o) in info.slots.iter().zip(&ins.operands) {
        match *slot {
            Slot::DsDst(k) => dst = Some(w.vector_entry(o, k)?),
            Slot::DsAddr => addr = Some(w.vector_entry(o, 1)?),
            Slot::DsData(k) => data[0] = Some(w.vector_entry(o, k)?),
            Slot::DsData1(k) => data[1] = Some(w.vector_entry(o, k)?),
            _ => return Err(unsupported(ins, "unexpected operand layout")),
        }
    }
    let addr = addr.ok_or_else(|| unsupported(ins, "no address"))?;
    let need = |x: Option<usize>| x.ok_or_else(|| unsupported(ins, "missing operand"));
    let offset = ins.mods.offset as u32 & 0xffff;
    let offset1 = u32::from(ins.mods.offset1);
    let exec = w.exec;
    let lanes = w.lanes;
    let op = ins.op;
    let family = ctx.target.family();
    let lds = &mut *ctx.lds;
    // Cross-lane ops first: they read other lanes and touch no LDS.
    match op {
        Op::DsSwizzleB32 => {
            let d = need(dst)?;
            let src = |lane: u32| -> u32 {
                if offset & 0x8000 != 0 {
                    (lane & !3) | (offset >> (2 * (lane & 3)) & 3)
                } else {
                    let (and, or, xor) = (offset & 0x1f, offset >> 5 & 0x1f, offset >> 10 & 0x1f);
                    (lane & !31) | ((((lane & 31) & and) | or) ^ xor)
                }
            };
            // Read every source lane before writing any destination (d may alias addr).
            let mut vals = [0u32; 64];
            for l in lanes_of(exec) {
                let from = src(l);
                if exec >> from & 1 != 0 {
                    vals[l as usize] = w.get(addr, 0, from);
                }
            }
            for l in lanes_of(exec) {
                w.set(d, 0, l, vals[l as usize]);
            }
            return Ok(Flow::Next);
        }
        Op::DsBpermuteB32 | Op::DsPermuteB32 => {
            let d = need(dst)?;
            let src_data = need(data[0])?;
            let mut out = [0u32; 64];
            for l in lanes_of(exec) {
                let target = (w.get(addr, 0, l).wrapping_add(offset) / 4) & (lanes - 1);
                if op == Op::DsBpermuteB32 {
                    if exec >> target & 1 != 0 {
                        out[l as usize] = w.get(src_data, 0, target);
                    }
                } else {
                    out[target as usize] = w.get(src_data, 0, l);
                }
            }
            for l in lanes_of(exec) {
                w.set(d, 0, l, out[l as usize]);
            }
            return Ok(Flow::Next);
        }
        _ => {}
    }
    for lane in lanes_of(exec) {
        let base = w.get(addr, 0, lane);
        let a = base.wrapping_add(offset);
        match op {
            Op::DsReadB32 | Op::DsReadB64 | Op::DsReadB96 | Op::DsReadB128 => {
                let d = need(dst)?;
                let k = match op {
                    Op::DsReadB32 => 1,
                    Op::DsReadB64 => 2,
                    Op::DsReadB96 => 3,
                    _ => 4,
                };
                lds_range(lds, a, 4 * k, lane, op)?;
                for r in 0..k {
                    let v = lds_read(lds, a + 4 * r as u32, lane, op)?;
                    w.set(d, r, lane, v);
                }
            }
            Op::DsWriteB32 | Op::DsWriteB64 | Op::DsWriteB96 | Op::DsWriteB128 => {
                let s = need(data[0])?;
                let k = match op {
                    Op::DsWriteB32 => 1,
                    Op::DsWriteB64 => 2,
                    Op::DsWriteB96 => 3,
                    _ => 4,
                };
                lds_range(lds, a, 4 * k, lane, op)?;
                for r in 0..k {
                    lds_write(lds, a + 4 * r as u32, w.get(s, r, lane), lane, op)?;
                }
            }
            Op::DsRead2B32 | Op::DsRead2B64 | Op::DsRead2st64B32 => {
                let d = need(dst)?;
                let k = if op == Op::DsRead2B64 { 2 } else { 1 };
                // Offsets count elements, or 64-element rows for the st64 form.
                let stride = 4 * k as u32 * if op == Op::DsRead2st64B32 { 64 } else { 1 };
                let a0 = base.wrapping_add((offset & 0xff) * stride);
                let a1 = base.wrapping_add(offset1 * stride);
                lds_range(lds, a0, 4 * k, lane, op)?;
                lds_range(lds, a1, 4 * k, lane, op)?;
                for r in 0..k {
                    let v0 = lds_read(lds, a0 + 4 * r as u32, lane, op)?;
                    let v1 = lds_read(lds, a1 + 4 * r as u32, lane, op)?;
                    w.set(d, r, lane, v0);
                    w.set(d, k + r, lane, v1);
                }
            }
            Op::DsWrite2B32 | Op::DsWrite2B64 => {
                let (s0, s1) = (need(data[0])?, need(data[1])?);
                let k = if op == Op::DsWrite2B32 { 1 } else { 2 };
                let stride = 4 * k as u32;
                let a0 = base.wrapping_add((offset & 0xff) * stride);
                let a1 = base.wrapping_add(offset1 * stride);
                lds_range(lds, a0, 4 * k, lane, op)?;
                lds_range(lds, a1, 4 * k, lane, op)?;
                for r in 0..k {
                    lds_write(lds, a0 + 4 * r as u32, w.get(s0, r, lane), lane, op)?;
                    lds_write(lds, a1 + 4 * r as u32, w.get(s1, r, lane), lane, op)?;
                }
            }
            Op::DsWrite2st64B32 => {
                let (s0, s1) = (need(data[0])?, need(data[1])?);
                // Offsets count 64-dword rows.
                let a0 = base.wrapping_add((offset & 0xff) * 256);
                let a1 = base.wrapping_add(offset1 * 256);
                lds_write(lds, a0, w.get(s0, 0, lane), lane, op)?;
                lds_write(lds, a1, w.get(s1, 0, lane), lane, op)?;
            }
            _ => {
                let (kind, wide) = atomic_of(op)
                    .ok_or_else(|| unsupported(ins, "not a DS op the emulator knows"))?;
                let s = need(data[0])?;
                let k = if wide { 2 } else { 1 };
                let get = |w: &Wave, e: usize| {
                    (0..k).fold(0u64, |v, r| v | u64::from(w.get(e, r, lane)) << (32 * r))
                };
                let mut old = 0u64;
                for r in 0..k {
                    old |= u64::from(lds_read(lds, a + 4 * r as u32, lane, op)?) << (32 * r);
                }
                // A compare-store's two data operands: which holds the compare value.
                let (x, cmp) = match data[1] {
                    Some(d1) if ds_compare_first(family) => (get(w, d1), get(w, s)),
                    Some(d1) => (get(w, s), get(w, d1)),
                    None => (get(w, s), 0),
                };
                let new = rmw(kind, wide, old, x, cmp);
                for r in 0..k {
                    lds_write(lds, a + 4 * r as u32, (new >> (32 * r)) as u32, lane, op)?;
                }
                if let Some(d) = dst {
                    for r in 0..k {
                        w.set(d, r, lane, (old >> (32 * r)) as u32);
                    }
                }
            }
        }
    }
    Ok(Flow::Next)
}

// ---------------------------------------------------------------------------------------
// Global memory

fn global(w: &mut Wave, ins: &Instr, ctx: &mut Ctx<'_>) -> Result<Flow, Fault> {
    let info = ins.op.info();
    let mut dst = None;
    let mut data = None;
    let mut vaddr = None;
    let mut saddr = None;
    for (slot, o) in info.slots.iter().zip(&ins.operands) {
        match *slot {
            Slot::GDst(k) => dst = Some((w.vector_entry(o, k)?, usize::from(k))),
            Slot::GData(k) => data = Some((w.vector_entry(o, k)?, usize::from(k))),
            Slot::GAddr => vaddr = Some(o),
            Slot::GSaddr => {
                saddr = match o {
                    Operand::Off | Operand::Null => None,
                    other => Some(w.read_scalar(other, 2, Ty::B64)?),
                }
            }
            _ => return Err(unsupported(ins, "unexpected operand layout")),
        }
    }
    let vaddr = vaddr.ok_or_else(|| unsupported(ins, "no address"))?;
    let ventry = w.vector_entry(vaddr, if saddr.is_some() { 1 } else { 2 })?;
    let offset = ins.mods.offset as i64 as u64;
    let op = ins.op;
    let space = Generic {
        flat: info.form == Form::Flat,
        scratch: w.flat_scratch,
        lanes: w.lanes,
        private_bytes: w.private_bytes,
    };
    // A generic instruction does what its global twin does, wherever the address lands.
    let kind_op = match op.global_twin() {
        Some(g) => g,
        None if space.flat => return Err(unsupported(ins, "a flat op without a global twin")),
        None => op,
    };
    let (bytes, dwords) = match kind_op {
        _ if info.atomic => match atomic_of(kind_op) {
            Some((_, true)) => (8, 2),
            _ => (4, 1),
        },
        Op::GlobalLoadUbyte | Op::GlobalStoreByte => (1, 1),
        Op::GlobalLoadUshort | Op::GlobalStoreShort => (2, 1),
        Op::GlobalLoadDwordx2 | Op::GlobalStoreDwordx2 => (8, 2),
        Op::GlobalLoadDwordx3 | Op::GlobalStoreDwordx3 => (12, 3),
        Op::GlobalLoadDwordx4 | Op::GlobalStoreDwordx4 => (16, 4),
        _ => (4, 1),
    };
    let mem = &mut *ctx.mem;
    let lds = &mut *ctx.lds;
    for lane in lanes_of(w.exec) {
        let addr = match saddr {
            Some(base) => base
                .wrapping_add(u64::from(w.get(ventry, 0, lane)))
                .wrapping_add(offset),
            None => (u64::from(w.get(ventry, 0, lane)) | u64::from(w.get(ventry, 1, lane)) << 32)
                .wrapping_add(offset),
        };
        space.with_bytes(mem, lds, op, addr, bytes, lane, |region| {
            lane_access(w, ins, kind_op, region, lane, bytes, dwords, dst, data)
        })??;
    }
    Ok(Flow::Next)
}

/// Where a global or generic access lands: generic addresses in the shared aperture
/// are LDS offsets, in the private aperture offsets into the lane's swizzled scratch,
/// anything else global memory.
struct Generic {
    flat: bool,
    scratch: u64,
    lanes: u32,
    private_bytes: u32,
}

impl Generic {
    /// Runs `f` on the `bytes` bytes at `addr` for `lane` (private bytes are gathered
    /// from the swizzled scratch and written back after); an address outside its space
    /// is a fault naming it.
    #[allow(clippy::too_many_arguments)]
    fn with_bytes<R>(
        &self,
        mem: &mut AddressSpace,
        lds: &mut [u8],
        op: Op,
        addr: u64,
        bytes: usize,
        lane: u32,
        f: impl FnOnce(&mut [u8]) -> R,
    ) -> Result<R, Fault> {
        let (hi, lo) = ((addr >> 32) as u32, addr as u32);
        if self.flat && hi == SHARED_APERTURE_HI {
            let size = lds.len();
            let region = lds
                .get_mut(lo as usize..(lo as usize).saturating_add(bytes))
                .ok_or_else(|| {
                    Fault::at(
                        Some(lane),
                        addr,
                        format!(
                            "{op:?} of {bytes} bytes at LDS offset {lo:#x} (generic address) \
                             outside the workgroup's {size} bytes of LDS"
                        ),
                    )
                })?;
            return Ok(f(region));
        }
        if self.flat && hi == PRIVATE_APERTURE_HI {
            let outside = || {
                Fault::at(
                    Some(lane),
                    addr,
                    format!(
                        "{op:?} of {bytes} bytes at private offset {lo:#x} (generic address) \
                         outside the lane's {} bytes of private memory",
                        self.private_bytes
                    ),
                )
            };
            if u64::from(lo) + bytes as u64 > u64::from(self.private_bytes) {
                return Err(outside());
            }
            let at = |i: usize| scratch_address(self.scratch, lo + i as u32, lane, self.lanes);
            let mut cell = [0u8; 16];
            let cell = cell.get_mut(..bytes).ok_or_else(outside)?;
            for (i, b) in cell.iter_mut().enumerate() {
                *b = mem.slice(at(i), 1).ok_or_else(outside)?[0];
            }
            let r = f(cell);
            for (i, b) in cell.iter().enumerate() {
                mem.slice_mut(at(i), 1).ok_or_else(outside)?[0] = *b;
            }
            return Ok(r);
        }
        let region = mem.slice_mut(addr, bytes).ok_or_else(|| {
            Fault::at(
                Some(lane),
                addr,
                format!("{op:?} of {bytes} bytes outside every live allocation"),
            )
        })?;
        Ok(f(region))
    }
}

/// One lane's load, store or atomic of a global instruction (`kind_op`) on its bytes.
#[allow(clippy::too_many_arguments)]
fn lane_access(
    w: &mut Wave,
    ins: &Instr,
    kind_op: Op,
    region: &mut [u8],
    lane: u32,
    bytes: usize,
    dwords: usize,
    dst: Option<(usize, usize)>,
    data: Option<(usize, usize)>,
) -> Result<(), Fault> {
    let info = ins.op.info();
    {
        if info.atomic {
            let (s, _) = data.ok_or_else(|| unsupported(ins, "no data"))?;
            let (kind, wide) = atomic_of(kind_op)
                .ok_or_else(|| unsupported(ins, "not an atomic the emulator knows"))?;
            let k = if wide { 2 } else { 1 };
            let value = |from: usize| {
                (0..k).fold(0u64, |v, r| {
                    v | u64::from(w.get(s, from + r, lane)) << (32 * r)
                })
            };
            // data = {new value, compare value} for cmpswap.
            let (x, cmp) = (value(0), if kind == Rmw::Cmpswap { value(k) } else { 0 });
            let mut word = [0u8; 8];
            word[..4 * k].copy_from_slice(&region[..4 * k]);
            let old = u64::from_le_bytes(word);
            let new = rmw(kind, wide, old, x, cmp);
            region.copy_from_slice(&new.to_le_bytes()[..4 * k]);
            if let Some((d, _)) = dst {
                for r in 0..k {
                    w.set(d, r, lane, (old >> (32 * r)) as u32);
                }
            }
        } else if let Some((d, _)) = dst {
            if bytes < 4 {
                // Narrow loads zero-extend into the word.
                let mut word = [0u8; 4];
                word[..bytes].copy_from_slice(region);
                w.set(d, 0, lane, u32::from_le_bytes(word));
            } else {
                for r in 0..dwords {
                    let c = &region[4 * r..4 * r + 4];
                    w.set(d, r, lane, u32::from_le_bytes([c[0], c[1], c[2], c[3]]));
                }
            }
        } else if let Some((s, _)) = data {
            if bytes < 4 {
                let v = w.get(s, 0, lane).to_le_bytes();
                region.copy_from_slice(&v[..bytes]);
            } else {
                for r in 0..dwords {
                    region[4 * r..4 * r + 4].copy_from_slice(&w.get(s, r, lane).to_le_bytes());
                }
            }
        } else {
            return Err(unsupported(ins, "neither destination nor data"));
        }
    }
    Ok(())
}

// ---------------------------------------------------------------------------------------
// Scratch (private memory)

/// The address of byte offset `offset` of `lane`'s private memory in a wave's scratch
/// that starts at `base`: dword `d` of lane `l` lies at `(d * lanes + l) * 4` (the
/// hardware's swizzle, element size 4).
pub(crate) fn scratch_address(base: u64, offset: u32, lane: u32, lanes: u32) -> u64 {
    base + (u64::from(offset / 4) * u64::from(lanes) + u64::from(lane)) * 4 + u64::from(offset % 4)
}

fn scratch(w: &mut Wave, ins: &Instr, ctx: &mut Ctx<'_>) -> Result<Flow, Fault> {
    let info = ins.op.info();
    let (mut dst, mut data, mut vaddr, mut soffset) = (None, None, None, 0u32);
    for (slot, o) in info.slots.iter().zip(&ins.operands) {
        match (*slot, o) {
            (Slot::GDst(k), _) => dst = Some((w.vector_entry(o, k)?, usize::from(k))),
            (Slot::GData(k), _) => data = Some((w.vector_entry(o, k)?, usize::from(k))),
            (Slot::ScratchAddr | Slot::ScratchSaddr, Operand::Off) => {}
            (Slot::ScratchAddr, _) => vaddr = Some(w.vector_entry(o, 1)?),
            (Slot::ScratchSaddr, _) => soffset = w.read_scalar(o, 1, Ty::B32)? as u32,
            _ => return Err(unsupported(ins, "unexpected operand layout")),
        }
    }
    let base = w.flat_scratch;
    let lanes = w.lanes;
    let op = ins.op;
    let mem = &mut *ctx.mem;
    for lane in lanes_of(w.exec) {
        let v = vaddr.map_or(0, |e| w.get(e, 0, lane));
        let offset = v.wrapping_add(soffset).wrapping_add(ins.mods.offset as u32);
        if offset % 4 != 0 {
            return Err(Fault::at(
                Some(lane),
                u64::from(offset),
                format!("{op:?} at a private offset that is not a multiple of 4"),
            ));
        }
        let (entry, k, load) = match (dst, data) {
            (Some((d, k)), _) => (d, k, true),
            (None, Some((d, k))) => (d, k, false),
            _ => return Err(unsupported(ins, "neither destination nor data")),
        };
        for r in 0..k {
            let addr = scratch_address(base, offset.wrapping_add(4 * r as u32), lane, lanes);
            let cell = mem.slice_mut(addr, 4).ok_or_else(|| {
                Fault::at(
                    Some(lane),
                    addr,
                    format!("{op:?} at private offset {offset:#x} outside the wave's scratch"),
                )
            })?;
            if load {
                w.set(
                    entry,
                    r,
                    lane,
                    u32::from_le_bytes([cell[0], cell[1], cell[2], cell[3]]),
                );
            } else {
                cell.copy_from_slice(&w.get(entry, r, lane).to_le_bytes());
            }
        }
    }
    Ok(Flow::Next)
}

// ---------------------------------------------------------------------------------------
// Buffer (MUBUF) loads and stores

/// The buffer resource (V#) fields the emulator uses.
struct BufferResource {
    base: u64,
    /// SWIZZLE_ENABLE with ADD_TID_ENABLE: the private-segment layout, element size 4,
    /// `index_stride` lanes.
    swizzled: Option<u32>,
}

fn buffer_resource(words: [u32; 4]) -> Result<BufferResource, Fault> {
    let base = u64::from(words[0]) | u64::from(words[1] & 0xffff) << 32;
    let stride = (words[1] >> 16) & 0x3fff;
    let swizzle = words[1] >> 31 != 0;
    let add_tid = words[3] >> 23 & 1 != 0;
    let element = 2u32 << ((words[3] >> 19) & 3);
    let index_stride = 8u32 << ((words[3] >> 21) & 3);
    match (swizzle, add_tid, stride) {
        (false, false, _) => Ok(BufferResource {
            base,
            swizzled: None,
        }),
        (true, true, 0) if element == 4 => Ok(BufferResource {
            base,
            swizzled: Some(index_stride),
        }),
        _ => Err(Fault::new(format!(
            "buffer resource {words:08x?}: only linear buffers and the swizzled \
             per-lane private segment (ADD_TID, element size 4, stride 0) are emulated"
        ))),
    }
}

fn buffer(w: &mut Wave, ins: &Instr, ctx: &mut Ctx<'_>) -> Result<Flow, Fault> {
    let info = ins.op.info();
    let (mut data, mut load, mut vaddr, mut rsrc, mut soffset) = (None, false, None, None, 0u32);
    for (slot, o) in info.slots.iter().zip(&ins.operands) {
        match (*slot, o) {
            (Slot::GDst(_), _) => (data, load) = (Some(w.vector_entry(o, 1)?), true),
            (Slot::GData(_), _) => data = Some(w.vector_entry(o, 1)?),
            (Slot::BufAddr, Operand::Off) => {}
            (Slot::BufAddr, _) => vaddr = Some(w.vector_entry(o, 1)?),
            (Slot::BufRsrc, _) => {
                let v = w.read_scalar(o, 4, Ty::B32)?;
                let hi = w.read_scalar(&shift_sgprs(o, 2)?, 2, Ty::B64)?;
                rsrc = Some([v as u32, (v >> 32) as u32, hi as u32, (hi >> 32) as u32]);
            }
            (Slot::BufSoffset, Operand::Int(_) | Operand::Float(_)) => {
                soffset = super::alu::source_constant(ins.op, 0, o).unwrap_or(0) as u32
            }
            (Slot::BufSoffset, _) => soffset = w.read_scalar(o, 1, Ty::B32)? as u32,
            _ => return Err(unsupported(ins, "unexpected operand layout")),
        }
    }
    let entry = data.ok_or_else(|| unsupported(ins, "no data register"))?;
    let r = buffer_resource(rsrc.ok_or_else(|| unsupported(ins, "no resource"))?)?;
    let base = r.base.wrapping_add(u64::from(soffset));
    let mem = &mut *ctx.mem;
    let op = ins.op;
    for lane in lanes_of(w.exec) {
        let offset = vaddr
            .map_or(0, |e| w.get(e, 0, lane))
            .wrapping_add(ins.mods.offset as u32);
        let addr = match r.swizzled {
            Some(stride) => scratch_address(base, offset, lane % stride, stride),
            None => base.wrapping_add(u64::from(offset)),
        };
        let cell = mem.slice_mut(addr, 4).ok_or_else(|| {
            Fault::at(
                Some(lane),
                addr,
                format!("{op:?} outside every live allocation"),
            )
        })?;
        if load {
            w.set(
                entry,
                0,
                lane,
                u32::from_le_bytes([cell[0], cell[1], cell[2], cell[3]]),
            );
        } else {
            cell.copy_from_slice(&w.get(entry, 0, lane).to_le_bytes());
        }
    }
    Ok(Flow::Next)
}

/// The SGPR tuple `skip` registers past the start of `o` (the upper half of a
/// resource).
fn shift_sgprs(o: &Operand, skip: u16) -> Result<Operand, Fault> {
    match o {
        Operand::Sgpr(r) => Ok(Operand::Sgpr(crate::isa::amdgpu::RegRange::new(
            r.first + skip,
            2,
        ))),
        other => Err(Fault::new(format!("{other} is not an SGPR tuple"))),
    }
}
