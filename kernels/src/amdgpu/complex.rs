//! The AMDGPU back end of complex GEMM's preparation kernel ([`crate::complex`]): the
//! same contract — arguments, flags ([`TRANS`], [`CONJ`], [`EXPAND`], [`SCALE`]), the
//! launch of [`crate::complex::config`] (workgroups of [`BLOCK`] work-items over 32 rows ×
//! 8 columns of op(X), one element each, problems along the grid's z) and the same
//! arithmetic (`w.re = fma(α.re, z.re, −(α.im·z.im))`, `w.im = fma(α.re, z.im,
//! α.im·z.re)`, conjugation and the expansion's −w.im as sign flips) — on every gfx9
//! (wave64) and gfx11 (wave32) target.
//!
//! Addresses: each problem's and workgroup's first element of X and of the output is a
//! 64-bit SGPR base; a lane adds a 32-bit byte offset of at most
//! `(2·32 + 32·ld)·es` (ld the larger leading dimension in reals), which the host keeps
//! below 2³² ([`max_leading_dimension`]).
//!
//! The flags are uniform, so each choice is a scalar branch or select; lanes outside
//! op(X) are masked off (EXEC) and touch no memory. In place (out = X, no [`TRANS`]) each
//! lane's loads complete before its stores.

use super::asm::{AssembledKernel, Assembler};
use super::math;
use super::math::Real;
use super::regs::Sgpr;
use crate::complex::{BLOCK, COLS, CONJ, CPREP, EXPAND, ROWS, SCALE, TRANS};
use crate::generator::{LaunchRule, Program};
use rocm_core::isa::amdgpu::{IsaTarget, Op, Operand};
use rocm_core::{DType, Error, ModuleImage, Result, Target};

/// The largest leading dimension (in reals, of X or of the output) whose lane offsets
/// stay 32-bit for elements of `es` bytes: `(2·ROWS + 2·ROWS·ld)·es < 2³²` covers both
/// the transposed read (32 columns of X per workgroup) and the expanded write (16
/// columns, two per element).
pub fn max_leading_dimension(es: usize) -> usize {
    let rows = ROWS as usize;
    ((1usize << 32) / es - 2 * rows) / (2 * rows) - 1
}

/// The [`Program`] of the preparation kernel for `dtype` (C32, C64) on `target`.
pub fn program(dtype: DType, target: &Target) -> Result<Program> {
    let t = IsaTarget::try_from(target)?;
    let k = generate(t, dtype)?;
    Ok(Program {
        image: ModuleImage::CodeObject(k.to_elf()?),
        kernels: vec![k.name().to_string()],
        signatures: vec![crate::complex::signature(dtype)],
        launch: LaunchRule::Fixed {
            grid: 1,
            block: BLOCK,
        },
    })
}

fn imm(x: u32) -> Operand {
    Operand::imm32(i64::from(x))
}

fn log2(x: u32) -> i8 {
    x.trailing_zeros() as i8
}

/// The kernel ([`CPREP`]) for `dtype` (C32: f32 pairs, C64: f64 pairs) on `t`.
pub fn generate(t: IsaTarget, dtype: DType) -> Result<AssembledKernel> {
    let real = match dtype {
        DType::C32 => Real::F32,
        DType::C64 => Real::F64,
        other => {
            return Err(Error::unsupported(
                format!("complex preparation kernel for {other}"),
                t.name(),
            ))
        }
    };
    let w = real.regs();
    let es = 4 * u32::from(w);
    let mut k = Assembler::new(t, CPREP, BLOCK, 3)?;
    let out = k.arg_pointer("out")?;
    let x = k.arg_pointer("x")?;
    let rows = k.arg_u32("rows")?;
    let cols = k.arg_u32("cols")?;
    let ldx = k.arg_u32("ldx")?;
    let ldo = k.arg_u32("ldo")?;
    let stride_x = k.arg_u64("stride_x")?;
    let stride_o = k.arg_u64("stride_o")?;
    let (alpha_re, alpha_im) = if w == 2 {
        (k.arg_u64("alpha_re")?, k.arg_u64("alpha_im")?)
    } else {
        (k.arg_u32("alpha_re")?, k.arg_u32("alpha_im")?)
    };
    let flags = k.arg_u32("flags")?;
    let (bx, by, bz) = (k.workgroup_id(0)?, k.workgroup_id(1)?, k.workgroup_id(2)?);
    let tid = k.workitem_id(0)?;
    let tmp = k.sgprs(2)?;
    let tmp2 = k.sgprs(2)?;
    let (i0, j0, r0, c0) = (k.sgprs(1)?, k.sgprs(1)?, k.sgprs(1)?, k.sgprs(1)?);
    let (bit, mult, sign, ldo_bytes) = (k.sgprs(1)?, k.sgprs(1)?, k.sgprs(1)?, k.sgprs(1)?);
    let saved = k.mask_sgprs()?;
    let v = |k: &mut Assembler, n: u8| k.vgprs(n);
    let (tx, ty, lr, lc) = (v(&mut k, 1)?, v(&mut k, 1)?, v(&mut k, 1)?, v(&mut k, 1)?);
    let (offx, offo, offo2) = (v(&mut k, 1)?, v(&mut k, 1)?, v(&mut k, 1)?);
    let (zr, zi, t0, u0) = (v(&mut k, w)?, v(&mut k, w)?, v(&mut k, w)?, v(&mut k, w)?);
    let (wr, wi, nwi) = (v(&mut k, w)?, v(&mut k, w)?, v(&mut k, w)?);
    let (ar, ai) = (v(&mut k, w)?, v(&mut k, w)?);
    k.wait_lgkm(0);

    // ---- bases: the problem's (z·stride) and the workgroup's first element ----------
    k.op(Op::SLshlB32, [i0.op(), bx.op(), Operand::Int(log2(ROWS))]);
    k.op(Op::SLshlB32, [j0.op(), by.op(), Operand::Int(log2(COLS))]);
    for (ptr, stride) in [(x, stride_x), (out, stride_o)] {
        k.op(Op::SMulI32, [tmp.at(0).op(), stride.at(0).op(), bz.op()]);
        k.op(Op::SMulHiU32, [tmp.at(1).op(), stride.at(0).op(), bz.op()]);
        k.op(Op::SMulI32, [tmp2.at(0).op(), stride.at(1).op(), bz.op()]);
        k.op(
            Op::SAddU32,
            [tmp.at(1).op(), tmp.at(1).op(), tmp2.at(0).op()],
        );
        add_scaled(&mut k, ptr, tmp, es);
    }
    // X's element (r0, c0) of the workgroup: (i0, j0), or (j0, i0) transposed.
    k.op(Op::SAndB32, [bit.op(), flags.op(), imm(TRANS)]);
    k.op(Op::SCselectB32, [r0.op(), j0.op(), i0.op()]);
    k.op(Op::SCselectB32, [c0.op(), i0.op(), j0.op()]);
    element_base(&mut k, x, r0, c0, ldx, tmp, es);
    // The output's: real row 2·i0 of column j0, or 2·j0 expanded.
    k.op(Op::SAndB32, [bit.op(), flags.op(), imm(EXPAND)]);
    k.op(
        Op::SCselectB32,
        [mult.op(), Operand::Int(2), Operand::Int(1)],
    );
    k.op(Op::SMulI32, [c0.op(), j0.op(), mult.op()]);
    element_base(&mut k, out, i0, c0, ldo, tmp, es);

    // ---- this lane's element (i, j) of op(X), masked to rows × cols -----------------
    k.op(Op::VAndB32, [tx.op(), imm(ROWS - 1), tid.op()]);
    k.op(
        Op::VLshrrevB32,
        [ty.op(), Operand::Int(log2(ROWS)), tid.op()],
    );
    let vcc = k.vcc();
    k.op(Op::VAddU32, [lr.op(), i0.op(), tx.op()]);
    k.op(Op::VCmpGtU32, [vcc, rows.op(), lr.op()]);
    k.and_saveexec(saved, vcc);
    k.op(Op::VAddU32, [lc.op(), j0.op(), ty.op()]);
    k.op(Op::VCmpGtU32, [vcc, cols.op(), lc.op()]);
    let exec = k.exec();
    let and = if t.wave_size() == 32 {
        Op::SAndB32
    } else {
        Op::SAndB64
    };
    k.op(and, [exec, exec, vcc]);
    // X's offset from its base: (2·r + c·ldx)·es, (r, c) = (tx, ty) or (ty, tx).
    let (trans, x_offset) = (k.label("trans"), k.label("x_offset"));
    k.op(Op::SAndB32, [bit.op(), flags.op(), imm(TRANS)]);
    k.cbranch(Op::SCbranchScc1, trans);
    math::mov(&mut k, lr, tx);
    math::mov(&mut k, lc, ty);
    k.branch(x_offset);
    k.bind(trans);
    math::mov(&mut k, lr, ty);
    math::mov(&mut k, lc, tx);
    k.bind(x_offset);
    k.op(Op::VMulLoU32, [lc.op(), ldx.op(), lc.op()]);
    k.op(Op::VLshlrevB32, [lr.op(), Operand::Int(1), lr.op()]);
    k.op(
        Op::VAddLshlU32,
        [offx.op(), lc.op(), lr.op(), Operand::Int(log2(es))],
    );
    let load = if w == 2 {
        Op::GlobalLoadDwordx2
    } else {
        Op::GlobalLoadDword
    };
    k.global_load(load, zr, offx, x, 0);
    k.global_load(load, zi, offx, x, es as i32);
    // The output's offset: (2·tx + mult·ty·ldo)·es.
    k.op(Op::VMulU32U24, [lc.op(), mult.op(), ty.op()]);
    k.op(Op::VMulLoU32, [lc.op(), ldo.op(), lc.op()]);
    k.op(Op::VLshlrevB32, [lr.op(), Operand::Int(1), tx.op()]);
    k.op(
        Op::VAddLshlU32,
        [offo.op(), lc.op(), lr.op(), Operand::Int(log2(es))],
    );
    k.op(
        Op::SLshlB32,
        [ldo_bytes.op(), ldo.op(), Operand::Int(log2(es))],
    );
    k.op(Op::VAddU32, [offo2.op(), ldo_bytes.op(), offo.op()]);
    k.wait_vm(0);

    // ---- w = α·op(z) or op(z) --------------------------------------------------------
    // Conjugation: z.im's sign bit flipped (exactly PTX's neg).
    let sign_bit = Operand::Literal(0x8000_0000);
    let hi = w - 1;
    k.op(Op::SAndB32, [bit.op(), flags.op(), imm(CONJ)]);
    k.op(Op::SCselectB32, [sign.op(), sign_bit, Operand::Int(0)]);
    k.op(Op::VXorB32, [zi.at(hi).op(), sign.op(), zi.at(hi).op()]);
    let (plain, store) = (k.label("plain"), k.label("store"));
    k.op(Op::SAndB32, [bit.op(), flags.op(), imm(SCALE)]);
    k.cbranch(Op::SCbranchScc0, plain);
    for i in 0..w {
        k.op(Op::VMovB32, [ar.at(i).op(), alpha_re.at(i).op()]);
        k.op(Op::VMovB32, [ai.at(i).op(), alpha_im.at(i).op()]);
    }
    let fma = match real {
        Real::F32 => Op::VFmaF32,
        Real::F64 => Op::VFmaF64,
    };
    // w.re = fma(α.re, z.re, −(α.im·z.im)); w.im = fma(α.re, z.im, α.im·z.re).
    math::mul(&mut k, real, t0, ai, zi, 0);
    math::vop(
        &mut k,
        fma,
        vec![wr.op(), ar.op(), zr.op(), t0.op()],
        0b100,
        0,
    );
    math::mul(&mut k, real, u0, ai, zr, 0);
    math::fma(&mut k, real, wi, ar, zi, u0, false);
    k.branch(store);
    k.bind(plain);
    math::mov(&mut k, wr, zr);
    math::mov(&mut k, wi, zi);
    k.bind(store);

    // ---- stores: w at (2i, col); expanded, (−w.im, w.re) one column right -----------
    let st = if w == 2 {
        Op::GlobalStoreDwordx2
    } else {
        Op::GlobalStoreDword
    };
    k.global_store(st, offo, wr, out, 0);
    k.global_store(st, offo, wi, out, es as i32);
    let done = k.label("done");
    k.op(Op::SAndB32, [bit.op(), flags.op(), imm(EXPAND)]);
    k.cbranch(Op::SCbranchScc0, done);
    math::mov(&mut k, nwi, wi);
    k.op(Op::VXorB32, [nwi.at(hi).op(), sign_bit, nwi.at(hi).op()]);
    k.global_store(st, offo2, nwi, out, 0);
    k.global_store(st, offo2, wr, out, es as i32);
    k.bind(done);
    k.s_endpgm();
    k.finish()
}

/// `ptr += v·es` for a 64-bit element count `v` (an SGPR pair, clobbered).
fn add_scaled(k: &mut Assembler, ptr: Sgpr, v: Sgpr, es: u32) {
    k.op(Op::SLshlB64, [v.op(), v.op(), Operand::Int(log2(es))]);
    k.op(Op::SAddU32, [ptr.at(0).op(), ptr.at(0).op(), v.at(0).op()]);
    k.op(Op::SAddcU32, [ptr.at(1).op(), ptr.at(1).op(), v.at(1).op()]);
}

/// `ptr += (2·r + c·ld)·es` in 64 bits (`tmp` an SGPR pair, clobbered).
fn element_base(k: &mut Assembler, ptr: Sgpr, r: Sgpr, c: Sgpr, ld: Sgpr, tmp: Sgpr, es: u32) {
    k.op(Op::SMulI32, [tmp.at(0).op(), c.op(), ld.op()]);
    k.op(Op::SMulHiU32, [tmp.at(1).op(), c.op(), ld.op()]);
    for _ in 0..2 {
        k.op(Op::SAddU32, [tmp.at(0).op(), tmp.at(0).op(), r.op()]);
        k.op(
            Op::SAddcU32,
            [tmp.at(1).op(), tmp.at(1).op(), Operand::Int(0)],
        );
    }
    add_scaled(k, ptr, tmp, es);
}
