//! Products with a stored triangle or a general band on AMDGPU (`rocm_blas_tri_mv`):
//! symv/hemv, trmv N/T/C over dense, packed and band storage, gbmv N/T/C (the general
//! ops) and the windowed products of the blocked trsv, with the PTX kernel's arguments
//! and launch ([`crate::level2::trimv`]: ⌈rows/32⌉ workgroups of 32·warps work-items,
//! 32 rows of y each).
//!
//! Mapping: work-item `l < 32` of workgroup `g` computes y(i), i = rows_from + 32g + l
//! (rows_from = 0 without a window), alone: it walks the columns j of the workgroup's
//! reach (the window's columns, 0..n without one; band storage only those within the
//! band of the block's rows: k either way for a triangle, kl before and ku after for
//! gbmv N, ku before and kl after for gbmv T/C) in increasing order and adds
//! op(A)(i, j)·x(j), where op(A)(i, j) is read from the stored part directly
//! (A(i, j): a wave's loads are consecutive rows of one column) or mirrored (A(j, i),
//! conjugated for hemv, trmv C and gbmv C), the diagonal one for `UNIT` and real for
//! hemv. The other work-items have nothing to do (the grid is the PTX kernel's). With
//! `d = ±(j − i)` (+ for the upper triangle and a general band) the stored side is
//! `lo ≤ d ≤ hi`: directly 0 (1 for `UNIT`) ≤ d ≤ k for a triangle (k = 2³¹ − 1
//! without a band), −kl ≤ d ≤ ku for a general band; mirrored −k ≤ d ≤ −1 (0 with the
//! diagonal) and −ku ≤ d ≤ kl, so every case is one signed range test per part.
//!
//! Each y(i) is a sum in column order: |error| ≤ (c + 2)·u·(|α|·Σ|a||x| + |β||y|)
//! (c the columns summed, complex ×4), inside the PTX kernel's (c + 66) bound.

use super::super::asm::{AssembledKernel, Assembler};
use super::super::math::cfma_into;
use super::{
    and_exec_vcc, clear_imag, column_start, conj_in_place, element_address, epilogue, lane_address,
    lane_column_start, lanes_below, scalar_arg, scalar_block, set_one, stride, vgpr_pair, Elem,
};
use crate::generator::{LaunchRule, Program};
use crate::level2::trimv::{TriMvOp, TriMvParams, KERNEL, ROWS, UNIT, UPPER};
use crate::level2::Storage;
use rocm_core::isa::amdgpu::{IsaTarget, Op, Operand};
use rocm_core::{Result, Target};

/// The program of `p` for an AMD `target`, launched as the PTX program.
pub fn program(p: &TriMvParams, target: &Target) -> Result<Program> {
    let t = IsaTarget::try_from(target)?;
    super::program_of(
        &[generate(t, p)?],
        vec![crate::level2::signatures::tri_mv(p, true)],
        LaunchRule::Fixed {
            grid: 1,
            block: p.block(),
        },
    )
}

/// Which parts an op reads: (direct, mirrored with (diagonal, conj)), real diagonal,
/// triangular (the `UNIT` flag applies).
fn parts(op: TriMvOp) -> (bool, Option<(bool, bool)>, bool, bool) {
    match op {
        TriMvOp::Symv => (true, Some((false, false)), false, false),
        TriMvOp::Hemv => (true, Some((false, true)), true, false),
        TriMvOp::TrmvN => (true, None, false, true),
        TriMvOp::TrmvT => (false, Some((true, false)), false, true),
        TriMvOp::TrmvC => (false, Some((true, true)), false, true),
        TriMvOp::GeneralN => (true, None, false, false),
        TriMvOp::GeneralT => (false, Some((true, false)), false, false),
        TriMvOp::GeneralC => (false, Some((true, true)), false, false),
    }
}

/// The kernel of `p` on `t`.
pub fn generate(t: IsaTarget, p: &TriMvParams) -> Result<AssembledKernel> {
    let el = Elem::of(p.dtype)?;
    let es = el.bytes();
    let (direct, mirror, real_diagonal, triangular) = parts(p.op);
    let band = p.storage == Storage::Band;
    let mut k = Assembler::new(t, KERNEL, p.block(), 1)?;
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
    let flags = k.arg_u32("flags")?;
    let kband = if band { Some(k.arg_u64("band")?) } else { None };
    let general = p.op.is_general();
    let kl = if general {
        Some(k.arg_u64("band_lower")?)
    } else {
        None
    };
    let window = if p.window {
        Some([
            k.arg_u64("rows_from")?,
            k.arg_u64("rows_to")?,
            k.arg_u64("cols_from")?,
            k.arg_u64("cols_to")?,
        ])
    } else {
        None
    };
    let tid = k.workitem_id(0)?;
    let wg = k.workgroup_id(0)?;
    k.wait_lgkm(0);
    let carry = k.mask_sgprs()?;

    // Flags: upper (and its sign ±1), unit (triangular ops only). A general band is
    // addressed as an upper band triangle with k = ku.
    let (upper, sign, unit, lo_d, kk) = (
        k.sgprs(1)?,
        k.sgprs(1)?,
        k.sgprs(1)?,
        k.sgprs(1)?,
        k.sgprs(1)?,
    );
    if general {
        k.op(Op::SMovB32, [upper.op(), Operand::Int(1)]);
        k.op(Op::SMovB32, [sign.op(), Operand::Int(1)]);
    } else {
        k.op(
            Op::SAndB32,
            [upper.op(), flags.op(), Operand::imm32(UPPER.into())],
        );
        k.op(Op::SCmpLgU32, [upper.op(), Operand::Int(0)]);
        k.op(
            Op::SCselectB32,
            [sign.op(), Operand::Int(1), Operand::Int(-1)],
        );
    }
    if triangular {
        k.op(
            Op::SAndB32,
            [unit.op(), flags.op(), Operand::imm32(UNIT.into())],
        );
        k.op(Op::SCmpLgU32, [unit.op(), Operand::Int(0)]);
        k.op(
            Op::SCselectB32,
            [lo_d.op(), Operand::Int(1), Operand::Int(0)],
        );
    } else {
        k.op(Op::SMovB32, [unit.op(), Operand::Int(0)]);
        match kl {
            // The direct part of a general band reaches kl below the diagonal.
            Some(kl) => k.op(Op::SSubI32, [lo_d.op(), Operand::Int(0), kl.at(0).op()]),
            None => k.op(Op::SMovB32, [lo_d.op(), Operand::Int(0)]),
        };
    }
    match kband {
        Some(b) => k.op(Op::SMovB32, [kk.op(), b.at(0).op()]),
        None => k.op(Op::SMovB32, [kk.op(), Operand::imm32(i32::MAX.into())]),
    };
    // Mirrored range: −k ≤ d ≤ hi_m, hi_m = −lo_d with the diagonal, else −1.
    let (lo_m, hi_m) = (k.sgprs(1)?, k.sgprs(1)?);
    k.op(Op::SSubI32, [lo_m.op(), Operand::Int(0), kk.op()]);
    match mirror {
        Some((true, _)) => k.op(Op::SSubI32, [hi_m.op(), Operand::Int(0), lo_d.op()]),
        _ => k.op(Op::SMovB32, [hi_m.op(), Operand::Int(-1)]),
    };

    // The window: rows [rows_from, rows_to) of y, columns [cols_from, cols_to) of x
    // (without one, both 0..n).
    let (rows_from, rows_to, cols_from, cols_to) =
        (k.sgprs(1)?, k.sgprs(1)?, k.sgprs(1)?, k.sgprs(1)?);
    match window {
        Some([r0, r1, c0, c1]) => {
            for (dst, src) in [
                (rows_from, r0),
                (rows_to, r1),
                (cols_from, c0),
                (cols_to, c1),
            ] {
                k.op(Op::SMovB32, [dst.op(), src.at(0).op()]);
            }
        }
        None => {
            for dst in [rows_from, cols_from] {
                k.op(Op::SMovB32, [dst.op(), Operand::Int(0)]);
            }
            for dst in [rows_to, cols_to] {
                k.op(Op::SMovB32, [dst.op(), n.at(0).op()]);
            }
        }
    }
    // Row i = rows_from + 32g + tid for tid < 32; columns [j, jhi): within `back`
    // before and `ahead` after the block's rows (a triangle's band: k both ways; a
    // general band's direct part kl and ku, its mirrored part ku and kl), clipped to
    // the window.
    let (i0, i) = (k.sgprs(1)?, k.vgprs(1)?);
    k.op(Op::SMulI32, [i0.op(), wg.op(), Operand::imm32(ROWS.into())]);
    k.op(Op::SAddU32, [i0.op(), i0.op(), rows_from.op()]);
    k.op(Op::VAddU32, [i.op(), i0.op(), tid.op()]);
    let (j, jhi) = (k.sgprs(1)?, k.sgprs(1)?);
    if band {
        let (back, ahead) = match kl {
            Some(kl) if direct => (kl.at(0), kk),
            Some(kl) => (kk, kl.at(0)),
            None => (kk, kk),
        };
        k.op(Op::SSubI32, [j.op(), i0.op(), back.op()]);
        k.op(Op::SMaxI32, [j.op(), j.op(), cols_from.op()]);
        k.op(Op::SAddU32, [jhi.op(), i0.op(), ahead.op()]);
        k.op(Op::SAddU32, [jhi.op(), jhi.op(), Operand::Int(ROWS as i8)]);
        k.op(Op::SMinU32, [jhi.op(), jhi.op(), cols_to.op()]);
    } else {
        k.op(Op::SMovB32, [j.op(), cols_from.op()]);
        k.op(Op::SMovB32, [jhi.op(), cols_to.op()]);
    }
    let (outer, inner) = (k.mask_sgprs()?, k.mask_sgprs()?);
    let rows = k.sgprs(1)?;
    k.op(Op::SMovB32, [rows.op(), Operand::Int(ROWS as i8)]);
    lanes_below(&mut k, outer, tid, rows);
    let vcc = k.vcc();
    k.op(Op::VCmpGtU32, [vcc, rows_to.op(), i.op()]);
    and_exec_vcc(&mut k);

    let n_or_k = match kband {
        Some(b) => b.at(0),
        None => n.at(0),
    };
    let start_i = if mirror.is_some() {
        Some(lane_column_start(
            &mut k,
            p.storage,
            upper,
            i,
            lda.at(0),
            n_or_k,
        )?)
    } else {
        None
    };
    let abase = vgpr_pair(&mut k, a)?;
    let sx = stride(&mut k, incx, es)?;
    let xbase = vgpr_pair(&mut k, x)?;
    let (jv, d, idx) = (k.vgprs(1)?, k.vgprs(1)?, k.vgprs(1)?);
    let (xaddr, aaddr) = (k.vgprs(2)?, k.vgprs(2)?);
    let (xv, av) = (el.alloc(&mut k)?, el.alloc(&mut k)?);
    let acc = el.zero(&mut k)?;

    let (top, done) = (k.label("columns"), k.label("columns_done"));
    k.bind(top);
    k.op(Op::SCmpGeU32, [j.op(), jhi.op()]);
    k.cbranch(Op::SCbranchScc1, done);
    k.op(Op::VMovB32, [jv.op(), j.op()]);
    lane_address(&mut k, xaddr, jv, sx, xbase, carry)?;
    el.load(&mut k, xv, xaddr);
    // d = ±(j − i).
    k.op(Op::VSubU32, [d.op(), jv.op(), i.op()]);
    k.op(Op::VMulLoU32, [d.op(), d.op(), sign.op()]);
    for r in 0..av.count() {
        k.op(Op::VMovB32, [av.at(r).op(), Operand::Int(0)]);
    }
    if direct {
        // A(i, j) where lo_d ≤ d ≤ k.
        let start_j = column_start(&mut k, p.storage, upper, j, lda.at(0), n_or_k)?;
        k.op(Op::VCmpLeI32, [vcc, lo_d.op(), d.op()]);
        k.and_saveexec(inner, vcc);
        k.op(Op::VCmpGeI32, [vcc, kk.op(), d.op()]);
        and_exec_vcc(&mut k);
        k.op(Op::VAddU32, [idx.op(), start_j.op(), i.op()]);
        element_address(&mut k, aaddr, idx, es, abase, carry);
        el.load(&mut k, av, aaddr);
        k.wait_vm(0);
        if real_diagonal {
            k.op(Op::VCmpEqU32, [vcc, Operand::Int(0), d.op()]);
            and_exec_vcc(&mut k);
            clear_imag(&mut k, el, av);
        }
        k.restore_exec(inner);
    }
    if let (Some((_, conj)), Some(start_i)) = (mirror, start_i) {
        // A(j, i) where −k ≤ d ≤ hi_m.
        k.op(Op::VCmpLeI32, [vcc, lo_m.op(), d.op()]);
        k.and_saveexec(inner, vcc);
        k.op(Op::VCmpGeI32, [vcc, hi_m.op(), d.op()]);
        and_exec_vcc(&mut k);
        k.op(Op::VAddU32, [idx.op(), j.op(), start_i.op()]);
        element_address(&mut k, aaddr, idx, es, abase, carry);
        el.load(&mut k, av, aaddr);
        k.wait_vm(0);
        if conj {
            conj_in_place(&mut k, el, av);
        }
        k.restore_exec(inner);
    }
    if triangular {
        // UNIT: the diagonal is one (it was not read above).
        let skip = k.label("not_unit");
        k.op(Op::SCmpEqU32, [unit.op(), Operand::Int(0)]);
        k.cbranch(Op::SCbranchScc1, skip);
        k.op(Op::VCmpEqU32, [vcc, Operand::Int(0), d.op()]);
        k.and_saveexec(inner, vcc);
        set_one(&mut k, el, av);
        k.restore_exec(inner);
        k.bind(skip);
    }
    k.wait_vm(0);
    cfma_into(
        &mut k,
        el.real,
        &el.val(acc),
        &el.val(av),
        &el.val(xv),
        false,
    );
    k.op(Op::SAddU32, [j.op(), j.op(), Operand::Int(1)]);
    k.branch(top);
    k.bind(done);

    let sy = stride(&mut k, incy, es)?;
    let ybase = vgpr_pair(&mut k, y)?;
    let alpha = scalar_block(&mut k, el, &alpha)?;
    let beta = match beta {
        Some(b) => Some(scalar_block(&mut k, el, &b)?),
        None => None,
    };
    let yaddr = k.vgprs(2)?;
    lane_address(&mut k, yaddr, i, sy, ybase, carry)?;
    epilogue(&mut k, el, acc, yaddr, alpha, beta)?;
    k.restore_exec(outer);
    k.s_endpgm();
    k.finish()
}
