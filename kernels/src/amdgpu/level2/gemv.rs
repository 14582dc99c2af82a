//! gemv on AMDGPU: `rocm_blas_gemv` and `rocm_blas_gemv_finish` with the PTX kernels'
//! arguments, grids and workspace layout ([`crate::level2::gemv`]).
//!
//! - `N`: grid (⌈m / (block·rows)⌉, chunks). Work-item `tid` of workgroup x owns rows
//!   `x·block·rows + tid + i·block` (i < rows; a wave reads consecutive rows of a
//!   column: coalesced) and loops over its chunk's columns one at a time, the column's
//!   x entry one broadcast load. Chunk `c` of `C` (`C` read from the dispatch's
//!   `hidden_block_count_y`, as the PTX kernel reads `%nctaid.y`) takes the columns
//!   `j ≡ c (mod C)` in increasing order — the same partition role as the PTX kernel's
//!   contiguous chunks without an integer division; the partials go to
//!   `work[c·m + row]` and the finish kernel sums them in chunk order.
//! - finish: grid ⌈m / block⌉, one row per work-item, chunks summed in order, then α, β.
//! - `T`/`C`: grid ⌈n / (block / 32)⌉; the 32 work-items `32w .. 32w + 31` of a
//!   workgroup take column `x·block/32 + w` (a 32-lane group lies inside one wave on both
//!   wave sizes), lane `l` accumulates rows `l, l + 32, …` in order, and the group's
//!   lanes are summed by lane 0 from LDS in lane order (no barrier: the group is one
//!   wave's). `rows`, `cols` and `vector` shape only the PTX loops and are ignored.
//!
//! So every output is a fixed-order sum: the same run to run. Error bound as the PTX
//! kernels': |error| ≤ (k + 2)·u·Σ|a||x| + u·|β·y| (complex ×4), k the dot length.

use super::super::asm::{AssembledKernel, Assembler};
use super::super::math::cfma_into;
use super::{
    element_address, epilogue, lane_address, lanes_below, s_add64, scalar_arg, scalar_block,
    stride, vgpr_pair, Elem,
};
use crate::generator::{LaunchRule, Program};
use crate::level2::gemv::{GemvParams, GemvTrans, FINISH, KERNEL};
use rocm_core::isa::amdgpu::{IsaTarget, Op, Operand};
use rocm_core::{Error, Result, Target};

/// The gemv program of `p` for an AMD `target`: the kernels of [`generate`] in one code
/// object, launched as the PTX program.
pub fn program(p: &GemvParams, target: &Target) -> Result<Program> {
    let t = IsaTarget::try_from(target)?;
    super::program_of(
        &generate(t, p)?,
        crate::level2::signatures::gemv(p, true),
        LaunchRule::Cover {
            block: p.block,
            units_per_item: 1,
        },
    )
}

/// The kernels of `p` on `t`: the main kernel, and the finish kernel when `N` splits.
pub fn generate(t: IsaTarget, p: &GemvParams) -> Result<Vec<AssembledKernel>> {
    if p.block == 0 || p.block % 32 != 0 || p.block > 1024 || !(1..=8).contains(&p.rows) {
        return Err(Error::invalid(
            "gemv params",
            format!(
                "block {} (a multiple of 32 up to 1024), rows {} (1..=8)",
                p.block, p.rows
            ),
        ));
    }
    if p.warps_per_column != 1 {
        // The shared-column groups are a PTX variant (tuned on an H100); the AMDGPU
        // kernel keeps one wave-slice of 32 work-items per column.
        return Err(Error::unsupported(
            format!("gemv with {} warps per column", p.warps_per_column),
            "AMDGPU",
        ));
    }
    let el = Elem::of(p.dtype)?;
    Ok(match p.trans {
        GemvTrans::N if p.splits() => vec![build_n(t, p, el)?, build_finish(t, p, el)?],
        GemvTrans::N => vec![build_n(t, p, el)?],
        _ => vec![build_t(t, p, el)?],
    })
}

fn build_n(t: IsaTarget, p: &GemvParams, el: Elem) -> Result<AssembledKernel> {
    let split = p.splits();
    let es = el.bytes();
    let mut k = Assembler::new(t, KERNEL, p.block, if split { 2 } else { 1 })?;
    let m = k.arg_u64("m")?;
    let n = k.arg_u64("n")?;
    let a = k.arg_pointer("a")?;
    let lda = k.arg_u64("lda")?;
    let x = k.arg_pointer("x")?;
    let incx = k.arg_u64("incx")?;
    let (tail, work, chunks) = if split {
        let work = k.arg_pointer("work")?;
        let chunks = k.arg_hidden_u32("hidden_block_count_y")?;
        (None, Some(work), Some(chunks))
    } else {
        let y = k.arg_pointer("y")?;
        let incy = k.arg_u64("incy")?;
        let alpha = scalar_arg(&mut k, el, "alpha")?;
        let beta = if p.read_y {
            Some(scalar_arg(&mut k, el, "beta")?)
        } else {
            None
        };
        (Some((y, incy, alpha, beta)), None, None)
    };
    let tid = k.workitem_id(0)?;
    let wgx = k.workgroup_id(0)?;
    let cy = if split {
        Some(k.workgroup_id(1)?)
    } else {
        None
    };
    k.wait_lgkm(0);
    let carry = k.mask_sgprs()?;

    // The rows of this work-item, and their (clamped) byte offsets in a column.
    let (base, last) = (k.sgprs(1)?, k.sgprs(1)?);
    k.op(
        Op::SMulI32,
        [
            base.op(),
            wgx.op(),
            Operand::imm32(i64::from(p.block * p.rows)),
        ],
    );
    k.op(Op::SSubU32, [last.op(), m.at(0).op(), Operand::Int(1)]);
    let mut rows = Vec::new();
    let mut offsets = Vec::new();
    for i in 0..p.rows {
        let (r, off) = (k.vgprs(1)?, k.vgprs(1)?);
        k.op(Op::VAddU32, [r.op(), base.op(), tid.op()]);
        if i > 0 {
            let add = k.sgprs(1)?;
            k.op(
                Op::SMovB32,
                [add.op(), Operand::imm32(i64::from(i * p.block))],
            );
            k.op(Op::VAddU32, [r.op(), add.op(), r.op()]);
        }
        k.op(Op::VMinU32, [off.op(), last.op(), r.op()]);
        k.op(
            Op::VLshlrevB32,
            [off.op(), Operand::Int(es.trailing_zeros() as i8), off.op()],
        );
        rows.push(r);
        offsets.push(off);
    }

    // Columns j = first, first + step, … < n: first = chunk id, step = chunks.
    let (j, step) = (k.sgprs(1)?, k.sgprs(1)?);
    match (cy, chunks) {
        (Some(cy), Some(c)) => {
            k.op(Op::SMovB32, [j.op(), cy.op()]);
            k.op(Op::SMovB32, [step.op(), c.op()]);
        }
        _ => {
            k.op(Op::SMovB32, [j.op(), Operand::Int(0)]);
            k.op(Op::SMovB32, [step.op(), Operand::Int(1)]);
        }
    }
    // The column pointer (64-bit, uniform) and its advance step·lda·size.
    let (ldab, col, adv) = (k.sgprs(1)?, k.sgprs(2)?, k.sgprs(2)?);
    k.op(
        Op::SMulI32,
        [ldab.op(), lda.at(0).op(), Operand::imm32(i64::from(es))],
    );
    k.op(Op::SMulI32, [adv.at(0).op(), j.op(), ldab.op()]);
    k.op(Op::SMulHiU32, [adv.at(1).op(), j.op(), ldab.op()]);
    s_add64(&mut k, col, a, adv);
    k.op(Op::SMulI32, [adv.at(0).op(), step.op(), ldab.op()]);
    k.op(Op::SMulHiU32, [adv.at(1).op(), step.op(), ldab.op()]);
    let sx = stride(&mut k, incx, es)?;
    let xbase = vgpr_pair(&mut k, x)?;
    let (jv, xaddr) = (k.vgprs(1)?, k.vgprs(2)?);
    let xv = el.alloc(&mut k)?;
    let avs: Vec<_> = (0..p.rows)
        .map(|_| el.alloc(&mut k))
        .collect::<Result<_>>()?;
    let accs: Vec<_> = (0..p.rows)
        .map(|_| el.zero(&mut k))
        .collect::<Result<_>>()?;

    let (top, done) = (k.label("columns"), k.label("columns_done"));
    k.bind(top);
    k.op(Op::SCmpGeU32, [j.op(), n.at(0).op()]);
    k.cbranch(Op::SCbranchScc1, done);
    k.op(Op::VMovB32, [jv.op(), j.op()]);
    lane_address(&mut k, xaddr, jv, sx, xbase, carry)?;
    el.load(&mut k, xv, xaddr);
    for (av, off) in avs.iter().zip(&offsets) {
        el.load_at(&mut k, *av, *off, col);
    }
    k.wait_vm(0);
    for (acc, av) in accs.iter().zip(&avs) {
        cfma_into(
            &mut k,
            el.real,
            &el.val(*acc),
            &el.val(*av),
            &el.val(xv),
            false,
        );
    }
    k.op(Op::SAddU32, [j.op(), j.op(), step.op()]);
    s_add64(&mut k, col, col, adv);
    k.branch(top);
    k.bind(done);

    let saved = k.mask_sgprs()?;
    let addr = k.vgprs(2)?;
    match (tail, work, cy) {
        (Some((y, incy, alpha, beta)), _, _) => {
            let sy = stride(&mut k, incy, es)?;
            let ybase = vgpr_pair(&mut k, y)?;
            let alpha = scalar_block(&mut k, el, &alpha)?;
            let beta = match beta {
                Some(b) => Some(scalar_block(&mut k, el, &b)?),
                None => None,
            };
            for (r, acc) in rows.iter().zip(&accs) {
                lanes_below(&mut k, saved, *r, m.at(0));
                lane_address(&mut k, addr, *r, sy, ybase, carry)?;
                epilogue(&mut k, el, *acc, addr, alpha, beta)?;
                k.restore_exec(saved);
            }
        }
        (None, Some(work), Some(cy)) => {
            // work[cy·m + row].
            let (first, wbase) = (k.sgprs(1)?, vgpr_pair(&mut k, work)?);
            k.op(Op::SMulI32, [first.op(), cy.op(), m.at(0).op()]);
            let idx = k.vgprs(1)?;
            for (r, acc) in rows.iter().zip(&accs) {
                lanes_below(&mut k, saved, *r, m.at(0));
                k.op(Op::VAddU32, [idx.op(), first.op(), r.op()]);
                element_address(&mut k, addr, idx, es, wbase, carry);
                el.store(&mut k, addr, *acc);
                k.restore_exec(saved);
            }
        }
        _ => unreachable_split()?,
    }
    k.s_endpgm();
    k.finish()
}

fn unreachable_split() -> Result<()> {
    Err(Error::invalid(
        "gemv",
        "a split launch without its workspace",
    ))
}

fn build_finish(t: IsaTarget, p: &GemvParams, el: Elem) -> Result<AssembledKernel> {
    let es = el.bytes();
    let mut k = Assembler::new(t, FINISH, p.block, 1)?;
    let m = k.arg_u64("m")?;
    let chunks = k.arg_u64("chunks")?;
    let work = k.arg_pointer("work")?;
    let y = k.arg_pointer("y")?;
    let incy = k.arg_u64("incy")?;
    let alpha = scalar_arg(&mut k, el, "alpha")?;
    let beta = if p.read_y {
        Some(scalar_arg(&mut k, el, "beta")?)
    } else {
        None
    };
    let tid = k.workitem_id(0)?;
    let wg = k.workgroup_id(0)?;
    k.wait_lgkm(0);
    let carry = k.mask_sgprs()?;
    let (base, s) = (k.sgprs(1)?, k.sgprs(1)?);
    let (r, idx, addr) = (k.vgprs(1)?, k.vgprs(1)?, k.vgprs(2)?);
    k.op(
        Op::SMulI32,
        [base.op(), wg.op(), Operand::imm32(i64::from(p.block))],
    );
    k.op(Op::VAddU32, [r.op(), base.op(), tid.op()]);
    let saved = k.mask_sgprs()?;
    lanes_below(&mut k, saved, r, m.at(0));
    let wbase = vgpr_pair(&mut k, work)?;
    let acc = el.zero(&mut k)?;
    let v = el.alloc(&mut k)?;
    k.op(Op::VMovB32, [idx.op(), r.op()]);
    k.op(Op::SMovB32, [s.op(), Operand::Int(0)]);
    let (top, done) = (k.label("chunks"), k.label("chunks_done"));
    k.bind(top);
    k.op(Op::SCmpGeU32, [s.op(), chunks.at(0).op()]);
    k.cbranch(Op::SCbranchScc1, done);
    element_address(&mut k, addr, idx, es, wbase, carry);
    el.load(&mut k, v, addr);
    k.wait_vm(0);
    el.add_into(&mut k, acc, v);
    k.op(Op::VAddU32, [idx.op(), m.at(0).op(), idx.op()]);
    k.op(Op::SAddU32, [s.op(), s.op(), Operand::Int(1)]);
    k.branch(top);
    k.bind(done);
    let sy = stride(&mut k, incy, es)?;
    let ybase = vgpr_pair(&mut k, y)?;
    let alpha = scalar_block(&mut k, el, &alpha)?;
    let beta = match beta {
        Some(b) => Some(scalar_block(&mut k, el, &b)?),
        None => None,
    };
    lane_address(&mut k, addr, r, sy, ybase, carry)?;
    epilogue(&mut k, el, acc, addr, alpha, beta)?;
    k.restore_exec(saved);
    k.s_endpgm();
    k.finish()
}

fn build_t(t: IsaTarget, p: &GemvParams, el: Elem) -> Result<AssembledKernel> {
    let es = el.bytes();
    let conj = p.trans == GemvTrans::C;
    let mut k = Assembler::new(t, KERNEL, p.block, 1)?;
    let m = k.arg_u64("m")?;
    let n = k.arg_u64("n")?;
    let a = k.arg_pointer("a")?;
    let lda = k.arg_u64("lda")?;
    let x = k.arg_pointer("x")?;
    let incx = k.arg_u64("incx")?;
    let y = k.arg_pointer("y")?;
    let incy = k.arg_u64("incy")?;
    let alpha = scalar_arg(&mut k, el, "alpha")?;
    let beta = if p.read_y {
        Some(scalar_arg(&mut k, el, "beta")?)
    } else {
        None
    };
    let lds = k.lds(p.block * es, 16)?;
    let tid = k.workitem_id(0)?;
    let wg = k.workgroup_id(0)?;
    k.wait_lgkm(0);
    let carry = k.mask_sgprs()?;
    let (lane, group, col, colc) = (k.vgprs(1)?, k.vgprs(1)?, k.vgprs(1)?, k.vgprs(1)?);
    let (base, last, ldab, it) = (k.sgprs(1)?, k.sgprs(1)?, k.sgprs(1)?, k.sgprs(1)?);
    k.op(Op::VAndB32, [lane.op(), Operand::Int(31), tid.op()]);
    k.op(Op::VLshrrevB32, [group.op(), Operand::Int(5), tid.op()]);
    k.op(
        Op::SMulI32,
        [base.op(), wg.op(), Operand::imm32(i64::from(p.block / 32))],
    );
    k.op(Op::VAddU32, [col.op(), base.op(), group.op()]);
    // Columns past n (the last workgroup's surplus groups) read column n − 1 and store
    // nothing, so every lane runs the same loop.
    k.op(Op::SSubU32, [last.op(), n.at(0).op(), Operand::Int(1)]);
    k.op(Op::VMinU32, [colc.op(), last.op(), col.op()]);
    k.op(
        Op::SMulI32,
        [ldab.op(), lda.at(0).op(), Operand::imm32(i64::from(es))],
    );
    // The column's start: a + col·lda·size (64-bit, per lane).
    let (abase, colbase) = (vgpr_pair(&mut k, a)?, k.vgprs(2)?);
    let ldab_v = k.vgprs(1)?;
    k.op(Op::VMovB32, [ldab_v.op(), ldab.op()]);
    k.op(
        Op::VMadU64U32,
        [colbase.op(), carry.op(), colc.op(), ldab_v.op(), abase.op()],
    );
    let sx = stride(&mut k, incx, es)?;
    let xbase = vgpr_pair(&mut k, x)?;
    let (row, aaddr, xaddr) = (k.vgprs(1)?, k.vgprs(2)?, k.vgprs(2)?);
    let (av, xv) = (el.alloc(&mut k)?, el.alloc(&mut k)?);
    let acc = el.zero(&mut k)?;
    k.op(Op::VMovB32, [row.op(), lane.op()]);
    k.op(Op::SMovB32, [it.op(), Operand::Int(0)]);
    let saved = k.mask_sgprs()?;
    let (top, done) = (k.label("rows"), k.label("rows_done"));
    k.bind(top);
    k.op(Op::SCmpGeU32, [it.op(), m.at(0).op()]);
    k.cbranch(Op::SCbranchScc1, done);
    lanes_below(&mut k, saved, row, m.at(0));
    element_address(&mut k, aaddr, row, es, colbase, carry);
    lane_address(&mut k, xaddr, row, sx, xbase, carry)?;
    el.load(&mut k, av, aaddr);
    el.load(&mut k, xv, xaddr);
    k.wait_vm(0);
    cfma_into(
        &mut k,
        el.real,
        &el.val(acc),
        &el.val(av),
        &el.val(xv),
        conj,
    );
    k.restore_exec(saved);
    k.op(Op::VAddU32, [row.op(), Operand::Int(32), row.op()]);
    k.op(Op::SAddU32, [it.op(), it.op(), Operand::Int(32)]);
    k.branch(top);
    k.bind(done);

    // The group's 32 partials through LDS, summed by lane 0 in lane order.
    let at = k.vgprs(1)?;
    k.op(
        Op::VLshlrevB32,
        [at.op(), Operand::Int(es.trailing_zeros() as i8), tid.op()],
    );
    if lds != 0 {
        let off = k.sgprs(1)?;
        k.op(Op::SMovB32, [off.op(), Operand::imm32(i64::from(lds))]);
        k.op(Op::VAddU32, [at.op(), off.op(), at.op()]);
    }
    el.lds_write(&mut k, at, acc, 0);
    k.wait_lgkm(0);
    lanes_below(&mut k, saved, col, n.at(0));
    let vcc = k.vcc();
    let exec = k.exec();
    k.op(Op::VCmpEqU32, [vcc, Operand::Int(0), lane.op()]);
    let and = if k.wave_size() == 64 {
        Op::SAndB64
    } else {
        Op::SAndB32
    };
    k.op(and, [exec, exec, vcc]);
    for l in 1..32u32 {
        el.lds_read(&mut k, av, at, (l * es) as u16);
        k.wait_lgkm(0);
        el.add_into(&mut k, acc, av);
    }
    let sy = stride(&mut k, incy, es)?;
    let ybase = vgpr_pair(&mut k, y)?;
    let alpha = scalar_block(&mut k, el, &alpha)?;
    let beta = match beta {
        Some(b) => Some(scalar_block(&mut k, el, &b)?),
        None => None,
    };
    let yaddr = k.vgprs(2)?;
    lane_address(&mut k, yaddr, col, sy, ybase, carry)?;
    epilogue(&mut k, el, acc, yaddr, alpha, beta)?;
    k.restore_exec(saved);
    k.s_endpgm();
    k.finish()
}
