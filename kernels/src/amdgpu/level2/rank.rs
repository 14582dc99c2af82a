//! Rank-1 and rank-2 updates on AMDGPU (`rocm_blas_rank_update`): ger/gerc, syr/her,
//! syr2/her2 on dense or packed storage, with the PTX kernel's arguments and launch
//! ([`crate::level2::rank`]: grid (⌈m / block⌉, G) of `block` work-items).
//!
//! Mapping: work-item `tid` of workgroup (x, y) owns row i = x·block + tid (a wave's
//! loads and stores of A are consecutive rows of a column) and updates the columns
//! j = y, y + G, y + 2G, … < n, G read from the dispatch (`hidden_block_count_y`, the
//! PTX kernel's `%nctaid.y`): the same cover of the columns as the PTX kernel's
//! grid-strided column groups, one column per step (`cols` shapes only the PTX loop).
//! Each stored element gets A(i, j) + x(i)·c1 (+ y(i)·c2), c1 = α·op(y(j)),
//! c2 = α'·op(x(j)) (op = conj for gerc/her/her2, α' = ᾱ for her2), the Hermitian
//! diagonal's imaginary part set to zero; elements outside the `uplo` triangle are not
//! touched. Error: |error| ≤ 3u·(|a| + |x||c1| + |y||c2|) per element (reals 2u).

use super::super::asm::{AssembledKernel, Assembler};
use super::super::math::{cfma_into, cmul};
use super::{
    clear_imag, column_start, conj_in_place, element_address, lane_address, lanes_below,
    scalar_arg, scalar_block, stride, vgpr_pair, Elem,
};
use crate::generator::{LaunchRule, Program};
use crate::level2::rank::{RankOp, RankParams, KERNEL, UPPER};
use crate::level2::Storage;
use rocm_core::isa::amdgpu::{IsaTarget, Op, Operand};
use rocm_core::{Error, Result, Target};

/// The program of `p` for an AMD `target`, launched as the PTX program.
pub fn program(p: &RankParams, target: &Target) -> Result<Program> {
    let t = IsaTarget::try_from(target)?;
    super::program_of(
        &[generate(t, p)?],
        vec![crate::level2::signatures::rank(p, true)],
        LaunchRule::Cover {
            block: p.block,
            units_per_item: 1,
        },
    )
}

/// (triangle, rank 2, conj, hermitian) of an op.
fn traits(op: RankOp) -> (bool, bool, bool, bool) {
    match op {
        RankOp::Ger => (false, false, false, false),
        RankOp::Gerc => (false, false, true, false),
        RankOp::Syr => (true, false, false, false),
        RankOp::Her => (true, false, true, true),
        RankOp::Syr2 => (true, true, false, false),
        RankOp::Her2 => (true, true, true, true),
    }
}

/// The kernel of `p` on `t`.
pub fn generate(t: IsaTarget, p: &RankParams) -> Result<AssembledKernel> {
    if p.storage == Storage::Band {
        return Err(Error::invalid(
            "storage",
            "rank updates take dense or packed storage, not band",
        ));
    }
    let el = Elem::of(p.dtype)?;
    let es = el.bytes();
    let (triangle, rank2, conj, hermitian) = traits(p.op);
    let mut k = Assembler::new(t, KERNEL, p.block, 2)?;
    let m = k.arg_u64("m")?;
    let n = k.arg_u64("n")?;
    let a = k.arg_pointer("a")?;
    let lda = k.arg_u64("lda")?;
    let x = k.arg_pointer("x")?;
    let incx = k.arg_u64("incx")?;
    let y = k.arg_pointer("y")?;
    let incy = k.arg_u64("incy")?;
    let alpha = scalar_arg(&mut k, el, "alpha")?;
    let flags = k.arg_u32("flags")?;
    let groups = k.arg_hidden_u32("hidden_block_count_y")?;
    let tid = k.workitem_id(0)?;
    let wgx = k.workgroup_id(0)?;
    let wgy = k.workgroup_id(1)?;
    k.wait_lgkm(0);
    let carry = k.mask_sgprs()?;
    let (upper, sign, base, j) = (k.sgprs(1)?, k.sgprs(1)?, k.sgprs(1)?, k.sgprs(1)?);
    k.op(
        Op::SAndB32,
        [upper.op(), flags.op(), Operand::imm32(UPPER.into())],
    );
    k.op(Op::SCmpLgU32, [upper.op(), Operand::Int(0)]);
    k.op(
        Op::SCselectB32,
        [sign.op(), Operand::Int(1), Operand::Int(-1)],
    );
    k.op(
        Op::SMulI32,
        [base.op(), wgx.op(), Operand::imm32(i64::from(p.block))],
    );
    let i = k.vgprs(1)?;
    k.op(Op::VAddU32, [i.op(), base.op(), tid.op()]);
    let (outer, inner) = (k.mask_sgprs()?, k.mask_sgprs()?);
    lanes_below(&mut k, outer, i, m.at(0));

    let (sx, sy) = (stride(&mut k, incx, es)?, stride(&mut k, incy, es)?);
    let (xbase, ybase, abase) = (
        vgpr_pair(&mut k, x)?,
        vgpr_pair(&mut k, y)?,
        vgpr_pair(&mut k, a)?,
    );
    let (addr, aaddr) = (k.vgprs(2)?, k.vgprs(2)?);
    let xi = el.alloc(&mut k)?;
    lane_address(&mut k, addr, i, sx, xbase, carry)?;
    el.load(&mut k, xi, addr);
    let yi = if rank2 {
        let v = el.alloc(&mut k)?;
        lane_address(&mut k, addr, i, sy, ybase, carry)?;
        el.load(&mut k, v, addr);
        Some(v)
    } else {
        None
    };
    let alpha = scalar_block(&mut k, el, &alpha)?;
    let alpha2 = if hermitian {
        let a2 = el.alloc(&mut k)?;
        for r in 0..a2.count() {
            k.op(Op::VMovB32, [a2.at(r).op(), alpha.at(r).op()]);
        }
        conj_in_place(&mut k, el, a2);
        a2
    } else {
        alpha
    };
    let (jv, d, idx) = (k.vgprs(1)?, k.vgprs(1)?, k.vgprs(1)?);
    let (av, yj, c1) = (el.alloc(&mut k)?, el.alloc(&mut k)?, el.alloc(&mut k)?);
    let (xj, c2) = if rank2 {
        (Some(el.alloc(&mut k)?), Some(el.alloc(&mut k)?))
    } else {
        (None, None)
    };
    let vcc = k.vcc();
    k.op(Op::SMovB32, [j.op(), wgy.op()]);
    let (top, done) = (k.label("columns"), k.label("columns_done"));
    k.bind(top);
    k.op(Op::SCmpGeU32, [j.op(), n.at(0).op()]);
    k.cbranch(Op::SCbranchScc1, done);
    k.op(Op::VMovB32, [jv.op(), j.op()]);
    if triangle {
        // The stored triangle: d = ±(j − i) ≥ 0.
        k.op(Op::VSubU32, [d.op(), jv.op(), i.op()]);
        k.op(Op::VMulLoU32, [d.op(), d.op(), sign.op()]);
        k.op(Op::VCmpLeI32, [vcc, Operand::Int(0), d.op()]);
        k.and_saveexec(inner, vcc);
    }
    let start = column_start(&mut k, p.storage, upper, j, lda.at(0), n.at(0))?;
    k.op(Op::VAddU32, [idx.op(), start.op(), i.op()]);
    element_address(&mut k, aaddr, idx, es, abase, carry);
    el.load(&mut k, av, aaddr);
    lane_address(&mut k, addr, jv, sy, ybase, carry)?;
    el.load(&mut k, yj, addr);
    if let Some(xj) = xj {
        lane_address(&mut k, addr, jv, sx, xbase, carry)?;
        el.load(&mut k, xj, addr);
    }
    k.wait_vm(0);
    // c1 = α·op(y(j)); A += x(i)·c1.
    if conj {
        conj_in_place(&mut k, el, yj);
    }
    cmul(&mut k, el.real, &el.val(c1), &el.val(alpha), &el.val(yj));
    cfma_into(
        &mut k,
        el.real,
        &el.val(av),
        &el.val(xi),
        &el.val(c1),
        false,
    );
    if let (Some(xj), Some(c2), Some(yi)) = (xj, c2, yi) {
        // c2 = α'·op(x(j)); A += y(i)·c2.
        if conj {
            conj_in_place(&mut k, el, xj);
        }
        cmul(&mut k, el.real, &el.val(c2), &el.val(alpha2), &el.val(xj));
        cfma_into(
            &mut k,
            el.real,
            &el.val(av),
            &el.val(yi),
            &el.val(c2),
            false,
        );
    }
    if hermitian {
        let diag_saved = k.mask_sgprs()?;
        k.op(Op::VCmpEqU32, [vcc, Operand::Int(0), d.op()]);
        k.and_saveexec(diag_saved, vcc);
        clear_imag(&mut k, el, av);
        k.restore_exec(diag_saved);
    }
    el.store(&mut k, aaddr, av);
    if triangle {
        k.restore_exec(inner);
    }
    k.op(Op::SAddU32, [j.op(), j.op(), groups.op()]);
    k.branch(top);
    k.bind(done);
    k.restore_exec(outer);
    k.s_endpgm();
    k.finish()
}
