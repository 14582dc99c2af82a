//! Packed or band triangles (and gbmv's general band) unpacked into a dense matrix on
//! AMDGPU: `rocm_blas_unpack` and, in band modules, `rocm_blas_unpack_general`, with the
//! PTX kernels' arguments, grid (⌈rows/32⌉, ⌈n/8⌉) and 256-item workgroups
//! ([`crate::level2::unpack`]). Work-item `tid` writes D(32·x + tid mod 32,
//! 8·y + tid / 32): the stored element where (i, j) is held, zero elsewhere (an exact
//! copy; a wave writes runs of 32 consecutive elements of a column).

use super::super::asm::{AssembledKernel, Assembler};
use super::{and_exec_vcc, element_address, lane_column_start, lanes_below, vgpr_pair, Elem};
use crate::generator::{LaunchRule, Program};
use crate::level2::unpack::{UnpackParams, BLOCK, GENERAL, KERNEL, UPPER};
use crate::level2::Storage;
use rocm_core::isa::amdgpu::{IsaTarget, Op, Operand};
use rocm_core::{Error, Result, Target};

/// The program of `p` for an AMD `target`: the kernels of [`generate`] in one code
/// object, launched as the PTX program.
pub fn program(p: &UnpackParams, target: &Target) -> Result<Program> {
    let t = IsaTarget::try_from(target)?;
    super::program_of(
        &generate(t, p)?,
        LaunchRule::Fixed {
            grid: 1,
            block: BLOCK,
        },
    )
}

/// `rocm_blas_unpack`, and `rocm_blas_unpack_general` for band storage.
pub fn generate(t: IsaTarget, p: &UnpackParams) -> Result<Vec<AssembledKernel>> {
    let el = Elem::of(p.dtype)?;
    match p.storage {
        Storage::Dense => Err(Error::invalid(
            "storage",
            "dense storage needs no unpacking",
        )),
        Storage::Packed => Ok(vec![build(t, p.storage, el)?]),
        Storage::Band => Ok(vec![build(t, p.storage, el)?, build_general(t, el)?]),
    }
}

/// The cell of work-item `tid`: (i, j) = (32·x + tid mod 32, 8·y + tid / 32).
fn cell(k: &mut Assembler) -> Result<(super::super::regs::Vgpr, super::super::regs::Vgpr)> {
    let tid = k.workitem_id(0)?;
    let (wgx, wgy) = (k.workgroup_id(0)?, k.workgroup_id(1)?);
    let (i, j) = (k.vgprs(1)?, k.vgprs(1)?);
    let (r0, c0) = (k.sgprs(1)?, k.sgprs(1)?);
    k.op(Op::SLshlB32, [r0.op(), wgx.op(), Operand::Int(5)]);
    k.op(Op::SLshlB32, [c0.op(), wgy.op(), Operand::Int(3)]);
    k.op(Op::VAndB32, [i.op(), Operand::Int(31), tid.op()]);
    k.op(Op::VAddU32, [i.op(), r0.op(), i.op()]);
    k.op(Op::VLshrrevB32, [j.op(), Operand::Int(5), tid.op()]);
    k.op(Op::VAddU32, [j.op(), c0.op(), j.op()]);
    Ok((i, j))
}

/// `D(i + j·ld) ← v` for the lanes inside (exec); `v` is zero except where loaded.
fn store(
    k: &mut Assembler,
    el: Elem,
    d: super::super::regs::Sgpr,
    ld: super::super::regs::Sgpr,
    (i, j): (super::super::regs::Vgpr, super::super::regs::Vgpr),
    v: super::super::regs::Vgpr,
    carry: super::super::regs::Sgpr,
) -> Result<()> {
    let (idx, addr) = (k.vgprs(1)?, k.vgprs(2)?);
    k.op(Op::VMulLoU32, [idx.op(), j.op(), ld.op()]);
    k.op(Op::VAddU32, [idx.op(), idx.op(), i.op()]);
    let dbase = vgpr_pair(k, d)?;
    element_address(k, addr, idx, el.bytes(), dbase, carry);
    el.store(k, addr, v);
    Ok(())
}

fn build(t: IsaTarget, storage: Storage, el: Elem) -> Result<AssembledKernel> {
    let mut k = Assembler::new(t, KERNEL, BLOCK, 2)?;
    let n = k.arg_u64("n")?;
    let a = k.arg_pointer("a")?;
    let lda = k.arg_u64("lda")?;
    let d = k.arg_pointer("d")?;
    let flags = k.arg_u32("flags")?;
    let band = if storage == Storage::Band {
        Some(k.arg_u64("band")?)
    } else {
        None
    };
    let (i, j) = cell(&mut k)?;
    k.wait_lgkm(0);
    let carry = k.mask_sgprs()?;
    let (upper, sign, kk) = (k.sgprs(1)?, k.sgprs(1)?, k.sgprs(1)?);
    k.op(
        Op::SAndB32,
        [upper.op(), flags.op(), Operand::imm32(UPPER.into())],
    );
    k.op(Op::SCmpLgU32, [upper.op(), Operand::Int(0)]);
    k.op(
        Op::SCselectB32,
        [sign.op(), Operand::Int(1), Operand::Int(-1)],
    );
    match band {
        Some(b) => k.op(Op::SMovB32, [kk.op(), b.at(0).op()]),
        None => k.op(Op::SMovB32, [kk.op(), Operand::imm32(i32::MAX.into())]),
    };
    let (outer, inner) = (k.mask_sgprs()?, k.mask_sgprs()?);
    lanes_below(&mut k, outer, i, n.at(0));
    let vcc = k.vcc();
    k.op(Op::VCmpGtU32, [vcc, n.at(0).op(), j.op()]);
    and_exec_vcc(&mut k);
    let v = el.zero(&mut k)?;
    // Held: 0 ≤ d ≤ k with d = ±(j − i) (+ for the upper triangle).
    let (dv, idx, addr) = (k.vgprs(1)?, k.vgprs(1)?, k.vgprs(2)?);
    k.op(Op::VSubU32, [dv.op(), j.op(), i.op()]);
    k.op(Op::VMulLoU32, [dv.op(), dv.op(), sign.op()]);
    let n_or_k = band.map_or(n.at(0), |b| b.at(0));
    let start = lane_column_start(&mut k, storage, upper, j, lda.at(0), n_or_k)?;
    let abase = vgpr_pair(&mut k, a)?;
    k.op(Op::VCmpLeI32, [vcc, Operand::Int(0), dv.op()]);
    k.and_saveexec(inner, vcc);
    k.op(Op::VCmpGeI32, [vcc, kk.op(), dv.op()]);
    and_exec_vcc(&mut k);
    k.op(Op::VAddU32, [idx.op(), start.op(), i.op()]);
    element_address(&mut k, addr, idx, el.bytes(), abase, carry);
    el.load(&mut k, v, addr);
    k.wait_vm(0);
    k.restore_exec(inner);
    store(&mut k, el, d, n.at(0), (i, j), v, carry)?;
    k.restore_exec(outer);
    k.s_endpgm();
    k.finish()
}

fn build_general(t: IsaTarget, el: Elem) -> Result<AssembledKernel> {
    let mut k = Assembler::new(t, GENERAL, BLOCK, 2)?;
    let m = k.arg_u64("m")?;
    let n = k.arg_u64("n")?;
    let a = k.arg_pointer("a")?;
    let lda = k.arg_u64("lda")?;
    let d = k.arg_pointer("d")?;
    let kl = k.arg_u64("kl")?;
    let ku = k.arg_u64("ku")?;
    let (i, j) = cell(&mut k)?;
    k.wait_lgkm(0);
    let carry = k.mask_sgprs()?;
    let (outer, inner) = (k.mask_sgprs()?, k.mask_sgprs()?);
    lanes_below(&mut k, outer, i, m.at(0));
    let vcc = k.vcc();
    k.op(Op::VCmpGtU32, [vcc, n.at(0).op(), j.op()]);
    and_exec_vcc(&mut k);
    let v = el.zero(&mut k)?;
    // Held: j − ku ≤ i ≤ j + kl, as i + ku ≥ j and i ≤ j + kl (no negative values).
    let (t1, t2, idx, addr) = (k.vgprs(1)?, k.vgprs(1)?, k.vgprs(1)?, k.vgprs(2)?);
    k.op(Op::VAddU32, [t1.op(), ku.at(0).op(), i.op()]);
    k.op(Op::VCmpGeU32, [vcc, t1.op(), j.op()]);
    k.and_saveexec(inner, vcc);
    k.op(Op::VAddU32, [t2.op(), kl.at(0).op(), j.op()]);
    k.op(Op::VCmpLeU32, [vcc, i.op(), t2.op()]);
    and_exec_vcc(&mut k);
    // ku + i − j + j·lda.
    k.op(Op::VMulLoU32, [idx.op(), j.op(), lda.at(0).op()]);
    k.op(Op::VSubU32, [idx.op(), idx.op(), j.op()]);
    k.op(Op::VAddU32, [idx.op(), idx.op(), t1.op()]);
    let abase = vgpr_pair(&mut k, a)?;
    element_address(&mut k, addr, idx, el.bytes(), abase, carry);
    el.load(&mut k, v, addr);
    k.wait_vm(0);
    k.restore_exec(inner);
    store(&mut k, el, d, m.at(0), (i, j), v, carry)?;
    k.restore_exec(outer);
    k.s_endpgm();
    k.finish()
}
