//! The diagonal-block solve of the blocked trsv on AMDGPU (`rocm_blas_trsv_block`), with
//! the PTX kernel's arguments and launch ([`crate::level2::trsv`]: one workgroup of NB
//! work-items, x(k0..k0 + bs) ← M(K, K)⁻¹·x(K), M = op(A), bs = min(NB, n − k0)).
//!
//! Mapping: the first wave alone solves (no barriers; on wave32 with NB = 64 it takes
//! two rows per lane, the second wave leaves at once). In the PTX kernel's reversed
//! numbering (ρ = M's row, or bs − 1 − row when M is upper) lane l keeps s_ρ = x_ρ for
//! its rows ρ = l, l + W, … < bs; step i = 0 .. bs − 1: the owner of ρ = i divides by the
//! diagonal (skipped for `UNIT`, which is not read) and publishes x_i through one LDS
//! slot (the same wave reads it back after `s_waitcnt`), then every row ρ > i does
//! s_ρ ← s_ρ + M(ρ, i)·(−x_i), M's element read from A (transposed, conjugated per the
//! flags; dense, packed and band storage each addressed by their column starts, a
//! band's elements beyond k of the diagonal skipped as the zeros they are). That is the PTX kernel's column-oriented forward substitution in the same
//! order, so the same backward error: |ΔL| ≤ γ_{bs+1}·|L| plus the division's.
//!
//! Division q = a / b: `v_rcp` refined by Newton steps (f32 one, f64 two) to r ≈ 1/b,
//! then q0 = a·r and one correction q = fma(fma(−b, q0, a), r, q0): within an ulp or so
//! of the rounded quotient (no `v_div_scale/fmas/fixup`; quotients near the overflow
//! or underflow range lose accuracy — trsv blocks of a solvable system stay far from
//! both). Complex: a·conj(b) / |b|², |b|² = fma(br, br, bi·bi), as the PTX kernel.

use super::super::asm::{AssembledKernel, Assembler};
use super::super::math::Real;
use super::super::math::{self, cfma_into, fma, mul, vop};
use super::super::regs::Vgpr;
use super::{
    and_exec_vcc, column_start, conj_in_place, element_address, lane_address, lane_column_start,
    stride, vgpr_pair, Elem,
};
use crate::generator::{LaunchRule, Program};
use crate::level2::trsv::{TrsvParams, CONJ, KERNEL, TRANS, UNIT, UPPER};
use crate::level2::Storage;
use rocm_core::isa::amdgpu::{InlineFloat, IsaTarget, Op, Operand};
use rocm_core::{Error, Result, Target};

/// The program of `p` for an AMD `target`, launched as the PTX program.
pub fn program(p: &TrsvParams, target: &Target) -> Result<Program> {
    let t = IsaTarget::try_from(target)?;
    super::program_of(
        &[generate(t, p)?],
        vec![crate::level2::signatures::trsv_block(p)],
        LaunchRule::Fixed {
            grid: 1,
            block: p.block,
        },
    )
}

/// `q = a / b` on reals (module docs); `r`, `e` are scratch of the real's size.
fn real_div(k: &mut Assembler, real: Real, q: Vgpr, a: Vgpr, b: Vgpr, (r, e): (Vgpr, Vgpr)) {
    let (rcp, fma_op, steps) = match real {
        Real::F32 => (Op::VRcpF32, Op::VFmaF32, 1),
        Real::F64 => (Op::VRcpF64, Op::VFmaF64, 2),
    };
    let one = Operand::Float(InlineFloat::One);
    k.op(rcp, [r.op(), b.op()]);
    for _ in 0..steps {
        // e = 1 − b·r; r = r + r·e.
        vop(k, fma_op, vec![e.op(), b.op(), r.op(), one], 1, 0);
        fma(k, real, r, r, e, r, false);
    }
    mul(k, real, q, a, r, 0);
    // e = a − b·q0; q = q0 + e·r.
    fma(k, real, e, b, q, a, true);
    fma(k, real, q, e, r, q, false);
}

/// `s ← s / d` for elements (complex: s·conj(d) / |d|²).
fn div_in_place(k: &mut Assembler, el: Elem, s: Vgpr, d: Vgpr) -> Result<()> {
    let w = el.real.regs();
    let (r, e) = (k.vgprs(w)?, k.vgprs(w)?);
    if el.comps == 1 {
        let q = k.vgprs(w)?;
        real_div(k, el.real, q, s, d, (r, e));
        math::mov(k, s, q);
        return Ok(());
    }
    let (sv, dv) = (el.val(s), el.val(d));
    let (den, nr, ni, q) = (k.vgprs(w)?, k.vgprs(w)?, k.vgprs(w)?, k.vgprs(w)?);
    let fma_op = match el.real {
        Real::F32 => Op::VFmaF32,
        Real::F64 => Op::VFmaF64,
    };
    mul(k, el.real, den, dv[1], dv[1], 0);
    fma(k, el.real, den, dv[0], dv[0], den, false);
    // nr = sr·dr + si·di; ni = si·dr − sr·di.
    mul(k, el.real, nr, sv[1], dv[1], 0);
    fma(k, el.real, nr, sv[0], dv[0], nr, false);
    mul(k, el.real, ni, sv[0], dv[1], 0);
    vop(
        k,
        fma_op,
        vec![ni.op(), sv[1].op(), dv[0].op(), ni.op()],
        0b100,
        0,
    );
    real_div(k, el.real, q, nr, den, (r, e));
    math::mov(k, sv[0], q);
    real_div(k, el.real, q, ni, den, (r, e));
    math::mov(k, sv[1], q);
    Ok(())
}

/// vcc = every lane when `flag` is nonzero, else none.
fn flag_vcc(k: &mut Assembler, flag: super::super::regs::Sgpr, zero: Vgpr) {
    let vcc = k.vcc();
    k.op(Op::VCmpNeU32, [vcc, flag.op(), zero.op()]);
}

/// The kernel of `p` on `t`.
pub fn generate(t: IsaTarget, p: &TrsvParams) -> Result<AssembledKernel> {
    if !matches!(p.block, 16 | 32 | 64) {
        return Err(Error::invalid(
            "block",
            format!("{}: 16, 32 or 64", p.block),
        ));
    }
    let el = Elem::of(p.dtype)?;
    let es = el.bytes();
    let wave = t.wave_size();
    let sets = p.block.div_ceil(wave) as u8;
    let mut k = Assembler::new(t, KERNEL, p.block, 1)?;
    let n = k.arg_u64("n")?;
    let k0 = k.arg_u64("k0")?;
    let a = k.arg_pointer("a")?;
    let lda = k.arg_u64("lda")?;
    let x = k.arg_pointer("x")?;
    let incx = k.arg_u64("incx")?;
    let flags = k.arg_u32("flags")?;
    let band = if p.storage == Storage::Band {
        Some(k.arg_u64("band")?)
    } else {
        None
    };
    let slot = k.lds(es, 16)?;
    let tid = k.workitem_id(0)?;
    k.wait_lgkm(0);
    let carry = k.mask_sgprs()?;
    let vcc = k.vcc();
    let end = k.label("solved");
    // Only the first wave works.
    let (outer, inner) = (k.mask_sgprs()?, k.mask_sgprs()?);
    let w = k.sgprs(1)?;
    k.op(Op::SMovB32, [w.op(), Operand::imm32(wave.into())]);
    super::lanes_below(&mut k, outer, tid, w);
    k.cbranch(Op::SCbranchExecz, end);

    // Flags; reversed = upper xor trans; bs = min(NB, n − k0), last = bs − 1.
    let [upper, unit, trans, conj, rev, bs, last] = [(); 7].map(|_| k.sgprs(1));
    let (upper, unit, trans, conj, rev, bs, last) =
        (upper?, unit?, trans?, conj?, rev?, bs?, last?);
    for (dst, bit) in [(upper, UPPER), (unit, UNIT), (trans, TRANS), (conj, CONJ)] {
        k.op(
            Op::SAndB32,
            [dst.op(), flags.op(), Operand::imm32(bit.into())],
        );
        k.op(Op::SCmpLgU32, [dst.op(), Operand::Int(0)]);
        k.op(
            Op::SCselectB32,
            [dst.op(), Operand::Int(1), Operand::Int(0)],
        );
    }
    k.op(Op::SAndB32, [conj.op(), conj.op(), trans.op()]);
    k.op(Op::SXorB32, [rev.op(), upper.op(), trans.op()]);
    k.op(Op::SSubU32, [bs.op(), n.at(0).op(), k0.at(0).op()]);
    k.op(
        Op::SMinU32,
        [bs.op(), bs.op(), Operand::imm32(p.block.into())],
    );
    k.op(Op::SSubU32, [last.op(), bs.op(), Operand::Int(1)]);

    // The third operand of the storage formulas: the band's k, or n (packed); and 2k,
    // the band test's bound.
    let n_or_k = band.map_or(n.at(0), |b| b.at(0));
    let two_k = k.sgprs(1)?;
    k.op(Op::SAddU32, [two_k.op(), n_or_k.op(), n_or_k.op()]);
    let zero = k.vgprs(1)?;
    k.op(Op::VMovB32, [zero.op(), Operand::Int(0)]);
    let sx = stride(&mut k, incx, es)?;
    let (xbase, abase) = (vgpr_pair(&mut k, x)?, vgpr_pair(&mut k, a)?);
    let addr = k.vgprs(2)?;
    // Per row set: ρ, the absolute row k0 + M-row, the start of A's column of that
    // index in A's storage (for the transposed reads), and s.
    struct Set {
        rho: Vgpr,
        row: Vgpr,
        row_start: Vgpr,
        s: Vgpr,
    }
    let mut rows = Vec::new();
    for r in 0..sets {
        let (rho, row, rev_v) = (k.vgprs(1)?, k.vgprs(1)?, k.vgprs(1)?);
        let s = el.alloc(&mut k)?;
        let add = k.sgprs(1)?;
        k.op(
            Op::SMovB32,
            [add.op(), Operand::imm32(i64::from(u32::from(r) * wave))],
        );
        k.op(Op::VAddU32, [rho.op(), add.op(), tid.op()]);
        k.op(Op::VSubU32, [rev_v.op(), last.op(), rho.op()]);
        flag_vcc(&mut k, rev, zero);
        k.op(Op::VCndmaskB32, [row.op(), rho.op(), rev_v.op(), vcc]);
        k.op(Op::VAddU32, [row.op(), k0.at(0).op(), row.op()]);
        let row_start = lane_column_start(&mut k, p.storage, upper, row, lda.at(0), n_or_k)?;
        // s = x(row) for ρ < bs.
        k.op(Op::VCmpGtU32, [vcc, bs.op(), rho.op()]);
        k.and_saveexec(inner, vcc);
        lane_address(&mut k, addr, row, sx, xbase, carry)?;
        el.load(&mut k, s, addr);
        k.restore_exec(inner);
        rows.push(Set {
            rho,
            row,
            row_start,
            s,
        });
    }
    k.wait_vm(0);

    let (i, mcol, sidx) = (k.sgprs(1)?, k.sgprs(1)?, k.sgprs(1)?);
    let (idx, idx_t, lds_at) = (k.vgprs(1)?, k.vgprs(1)?, k.vgprs(1)?);
    let (dv, xi, mv) = (el.alloc(&mut k)?, el.alloc(&mut k)?, el.alloc(&mut k)?);
    k.op(Op::VMovB32, [lds_at.op(), Operand::imm32(slot.into())]);
    k.op(Op::SMovB32, [i.op(), Operand::Int(0)]);
    let (top, done) = (k.label("steps"), k.label("steps_done"));
    k.bind(top);
    k.op(Op::SCmpGeU32, [i.op(), bs.op()]);
    k.cbranch(Op::SCbranchScc1, done);
    // mcol = k0 + (reversed ? last − i : i); the start of A's column mcol.
    k.op(Op::SSubU32, [mcol.op(), last.op(), i.op()]);
    k.op(Op::SCmpLgU32, [rev.op(), Operand::Int(0)]);
    k.op(Op::SCselectB32, [mcol.op(), mcol.op(), i.op()]);
    k.op(Op::SAddU32, [mcol.op(), mcol.op(), k0.at(0).op()]);
    let cstart = column_start(&mut k, p.storage, upper, mcol, lda.at(0), n_or_k)?;
    // The owner of ρ = i: s ← s / M(i, i) unless UNIT; x_i to the LDS slot.
    for (r, set) in rows.iter().enumerate() {
        k.op(Op::VCmpEqU32, [vcc, i.op(), set.rho.op()]);
        k.and_saveexec(inner, vcc);
        let skip = k.label(&format!("unit_diagonal_{r}"));
        k.op(Op::SCmpLgU32, [unit.op(), Operand::Int(0)]);
        k.cbranch(Op::SCbranchScc1, skip);
        k.op(Op::SAddU32, [sidx.op(), cstart.op(), mcol.op()]);
        k.op(Op::VMovB32, [idx.op(), sidx.op()]);
        element_address(&mut k, addr, idx, es, abase, carry);
        el.load(&mut k, dv, addr);
        k.wait_vm(0);
        let no_conj = k.label(&format!("diagonal_plain_{r}"));
        k.op(Op::SCmpEqU32, [conj.op(), Operand::Int(0)]);
        k.cbranch(Op::SCbranchScc1, no_conj);
        conj_in_place(&mut k, el, dv);
        k.bind(no_conj);
        div_in_place(&mut k, el, set.s, dv)?;
        k.bind(skip);
        el.lds_write(&mut k, lds_at, set.s, 0);
        k.restore_exec(inner);
    }
    k.wait_lgkm(0);
    el.lds_read(&mut k, xi, lds_at, 0);
    k.wait_lgkm(0);
    // −x_i, so the update is one fused multiply-add chain.
    for c in el.val(xi) {
        let sign = c.at(c.count() - 1);
        k.op(
            Op::VXorB32,
            [sign.op(), Operand::Literal(0x8000_0000), sign.op()],
        );
    }
    // Rows i < ρ < bs: s ← s + M(ρ, i)·(−x_i); M(ρ, i) = A(row, mcol) or, transposed,
    // A(mcol, row) (conjugated for CONJ).
    for (r, set) in rows.iter().enumerate() {
        k.op(Op::VCmpLtU32, [vcc, i.op(), set.rho.op()]);
        k.and_saveexec(inner, vcc);
        k.op(Op::VCmpGtU32, [vcc, bs.op(), set.rho.op()]);
        and_exec_vcc(&mut k);
        if band.is_some() {
            // Only |mcol − row| ≤ k is stored: mcol − row + k ≤ 2k (unsigned).
            k.op(Op::VSubU32, [idx.op(), mcol.op(), set.row.op()]);
            k.op(Op::VAddU32, [idx.op(), n_or_k.op(), idx.op()]);
            k.op(Op::VCmpGeU32, [vcc, two_k.op(), idx.op()]);
            and_exec_vcc(&mut k);
        }
        k.op(Op::VAddU32, [idx.op(), cstart.op(), set.row.op()]);
        k.op(Op::VAddU32, [idx_t.op(), mcol.op(), set.row_start.op()]);
        flag_vcc(&mut k, trans, zero);
        k.op(Op::VCndmaskB32, [idx.op(), idx.op(), idx_t.op(), vcc]);
        element_address(&mut k, addr, idx, es, abase, carry);
        el.load(&mut k, mv, addr);
        k.wait_vm(0);
        let no_conj = k.label(&format!("element_plain_{r}"));
        k.op(Op::SCmpEqU32, [conj.op(), Operand::Int(0)]);
        k.cbranch(Op::SCbranchScc1, no_conj);
        conj_in_place(&mut k, el, mv);
        k.bind(no_conj);
        cfma_into(
            &mut k,
            el.real,
            &el.val(set.s),
            &el.val(mv),
            &el.val(xi),
            false,
        );
        k.restore_exec(inner);
    }
    k.op(Op::SAddU32, [i.op(), i.op(), Operand::Int(1)]);
    k.branch(top);
    k.bind(done);
    for set in &rows {
        k.op(Op::VCmpGtU32, [vcc, bs.op(), set.rho.op()]);
        k.and_saveexec(inner, vcc);
        lane_address(&mut k, addr, set.row, sx, xbase, carry)?;
        el.store(&mut k, addr, set.s);
        k.restore_exec(inner);
    }
    k.bind(end);
    k.restore_exec(outer);
    k.s_endpgm();
    k.finish()
}
