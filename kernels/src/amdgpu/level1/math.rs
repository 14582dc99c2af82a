//! Real and complex arithmetic on VGPRs: one instruction per IEEE operation, source
//! negation and absolute value as VOP3 modifiers (so no literal ever meets a VOP3
//! encoding, which gfx9 forbids: constants live in registers).

use super::super::asm::Assembler;
use super::super::regs::Vgpr;
use super::Real;
use rocm_core::isa::amdgpu::{Form, Instr, Mods, Op, Operand};

/// A value of the element type: its components (1 real, or re and im), each a VGPR
/// group of the real type.
pub(crate) type Val = Vec<Vgpr>;

/// `op` with `neg`/`abs` source masks, promoted to VOP3 where it has a shorter form and a
/// modifier is set.
pub(crate) fn vop(k: &mut Assembler, op: Op, operands: Vec<Operand>, neg: u8, abs: u8) {
    let mut i = Instr::new(op, operands);
    if neg | abs != 0 {
        if matches!(op.info().form, Form::Vop1 | Form::Vop2 | Form::Vopc) {
            i = i.e64();
        }
        i = i.with_mods(Mods {
            neg,
            abs,
            ..Mods::default()
        });
    }
    k.emit(i);
}

fn ops(r: Real) -> (Op, Op, Op) {
    match r {
        Real::F32 => (Op::VAddF32, Op::VMulF32, Op::VFmaF32),
        Real::F64 => (Op::VAddF64, Op::VMulF64, Op::VFmaF64),
    }
}

/// `d = a + b` with source modifiers.
pub(crate) fn add(k: &mut Assembler, r: Real, d: Vgpr, a: Vgpr, b: Vgpr, neg: u8, abs: u8) {
    vop(k, ops(r).0, vec![d.op(), a.op(), b.op()], neg, abs);
}

/// `d = a · b` (`neg` bit 0 negates a); `b` may be an SGPR (one per VOP3 on gfx9).
pub(crate) fn mul(k: &mut Assembler, r: Real, d: Vgpr, a: Vgpr, b: impl Into<Operand>, neg: u8) {
    vop(k, ops(r).1, vec![d.op(), a.op(), b.into()], neg, 0);
}

/// `d = fma(±a, b, c)`, a negated when `neg_a`.
pub(crate) fn fma(k: &mut Assembler, r: Real, d: Vgpr, a: Vgpr, b: Vgpr, c: Vgpr, neg_a: bool) {
    vop(
        k,
        ops(r).2,
        vec![d.op(), a.op(), b.op(), c.op()],
        u8::from(neg_a),
        0,
    );
}

/// `d = a·b` for element values (complex: `re = fma(−ai, bi, ar·br)`,
/// `im = fma(ai, br, ar·bi)`; `d` must not overlap `b`).
pub(crate) fn cmul(k: &mut Assembler, r: Real, d: &[Vgpr], a: &[Vgpr], b: &[Vgpr]) {
    mul(k, r, d[0], a[0], b[0], 0);
    if a.len() == 2 {
        mul(k, r, d[1], a[0], b[1], 0);
        fma(k, r, d[0], a[1], b[1], d[0], true);
        fma(k, r, d[1], a[1], b[0], d[1], false);
    }
}

/// `acc += op(a)·b`, op = conj when `conj` (complex: four fmas, the real-part products
/// first, as the PTX generator's `fma_into`).
pub(crate) fn cfma_into(
    k: &mut Assembler,
    r: Real,
    acc: &[Vgpr],
    a: &[Vgpr],
    b: &[Vgpr],
    conj: bool,
) {
    fma(k, r, acc[0], a[0], b[0], acc[0], false);
    if a.len() == 2 {
        fma(k, r, acc[1], a[0], b[1], acc[1], false);
        fma(k, r, acc[0], a[1], b[1], acc[0], !conj);
        fma(k, r, acc[1], a[1], b[0], acc[1], conj);
    }
}

/// Moves `src` into `dst` (same size), register by register.
pub(crate) fn mov(k: &mut Assembler, dst: Vgpr, src: Vgpr) {
    for i in 0..dst.count() {
        k.op(Op::VMovB32, [dst.at(i).op(), src.at(i).op()]);
    }
}

/// The components of element `e` of `block`.
pub(crate) fn comps(block: Vgpr, e: u8, r: Real, comps: u8) -> Val {
    let w = r.regs();
    (0..comps)
        .map(|c| block.sub((e * comps + c) * w, w))
        .collect()
}
