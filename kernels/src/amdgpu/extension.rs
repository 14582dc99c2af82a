//! geam and dgmm for AMDGPU (`rocm_geam`, `rocm_dgmm`), built with the [`Assembler`]
//! from the same [`ExtensionParams`] as the PTX generator ([`crate::extension`]) and with
//! its contract: names, kernarg layout, flags, grid `(⌈m/32⌉, ⌈n/32⌉, batch)` of 256
//! work-items; f32, f64, Complex32 and Complex64 on every gfx9 (wave64) and gfx11
//! (wave32) target.
//!
//! Work-item `(x, y) = (tid & 31, tid >> 5)` computes C(r0 + x, c0 + y + 8s), s = 0..4,
//! lanes narrowed by exec to the m×n. A transposed operand that is read is staged through
//! an LDS tile (rows padded to 33, then `s_barrier`) as in the PTX kernel, and read back
//! across it; with [`CONJ_A`] / [`CONJ_B`] its imaginary part is negated. geam is `α·a` then
//! `fma(β, b, ·)` (complex: `cmul` then four fmas, as the Level 1 kernels), dgmm one
//! product `a·x`: bit for bit the PTX kernels' arithmetic for real types.
//!
//! Problem z's operands are at `base + z·stride·size` (64-bit SGPR arithmetic); inside a
//! problem the offsets are 32-bit VGPR byte offsets: each matrix's `ld·n·size` and x's
//! span must be below 2³² bytes (the BLAS wrapper checks). dgmm's x: the host passes
//! its far end for a negative increment, as BLAS walks it; the kernel steps back to
//! the lowest address (`x + (len − 1)·incx·size`, len = m or n) and indexes from there.

use super::asm::{AssembledKernel, Assembler};
use super::level3::{
    barrier, conj, mul64, narrow, offset, save_exec, strided_block, test_flag, zero, Elem, LdsTile,
};
use super::math;
use crate::extension::{
    ExtensionParams, BLOCK, CONJ_A, CONJ_B, DGMM, GEAM, LEFT, READ_A, READ_B, TILE, TRANS_A,
    TRANS_B,
};
use crate::generator::{LaunchRule, Program};
use rocm_core::isa::amdgpu::{IsaTarget, Op, Operand};
use rocm_core::{Error, ModuleImage, Result, Target};

/// The two kernels of `p` on `t`: geam, dgmm.
pub fn generate(t: IsaTarget, p: &ExtensionParams) -> Result<Vec<AssembledKernel>> {
    let e = Elem::of(p.dtype).ok_or_else(|| {
        Error::unsupported(format!("geam/dgmm kernels for {}", p.dtype), t.name())
    })?;
    Ok(vec![geam(t, e)?, dgmm(t, e)?])
}

/// The [`Program`] of `p` for `target` (launched with [`crate::extension::config`]).
pub fn program(p: &ExtensionParams, target: &Target) -> Result<Program> {
    let t = IsaTarget::try_from(target)?;
    let ks = generate(t, p)?;
    Ok(Program {
        image: ModuleImage::CodeObject(super::asm::code_object(&ks)?.to_elf()?),
        kernels: ks.iter().map(|k| k.name().to_string()).collect(),
        signatures: vec![
            crate::extension::plan::geam_signature(p),
            crate::extension::plan::dgmm_signature(p),
        ],
        launch: LaunchRule::Fixed {
            grid: 1,
            block: BLOCK,
        },
    })
}

/// A scalar argument of the element type: one u32 (f32) or u64 (f64) per component.
fn scalar_arg(k: &mut Assembler, e: Elem, name: &str) -> Result<Vec<super::regs::Sgpr>> {
    let mut words = Vec::new();
    for c in 0..e.comps {
        let n = if c == 0 {
            name.to_string()
        } else {
            format!("{name}_im")
        };
        words.push(match e.real {
            math::Real::F32 => k.arg_u32(&n)?,
            math::Real::F64 => k.arg_u64(&n)?,
        });
    }
    Ok(words)
}

/// Copies a scalar argument into VGPRs (VOP3 takes no literal on gfx9, and complex
/// arithmetic wants its components in VGPRs).
fn scalar_vgprs(
    k: &mut Assembler,
    e: Elem,
    words: &[super::regs::Sgpr],
) -> Result<super::regs::Vgpr> {
    let v = k.vgprs(e.words())?;
    let r = e.real.regs();
    for (q, w) in words.iter().enumerate() {
        for h in 0..r {
            k.op(Op::VMovB32, [v.at(q as u8 * r + h).op(), w.at(h).op()]);
        }
    }
    Ok(v)
}

/// The frame of both kernels: (x, y), i = r0 + x, c0, the problem z, exec at entry.
struct Frame {
    x: super::regs::Vgpr,
    r0: super::regs::Sgpr,
    i: super::regs::Vgpr,
    y: super::regs::Vgpr,
    c0: super::regs::Sgpr,
    z: super::regs::Sgpr,
    all: super::regs::Sgpr,
}

fn frame(k: &mut Assembler) -> Result<Frame> {
    let tid = k.workitem_id(0)?;
    let (bx, by, z) = (k.workgroup_id(0)?, k.workgroup_id(1)?, k.workgroup_id(2)?);
    k.wait_lgkm(0);
    let (x, y, i) = (k.vgprs(1)?, k.vgprs(1)?, k.vgprs(1)?);
    k.op(Op::VAndB32, [x.op(), Operand::Int(31), tid.op()]);
    k.op(Op::VLshrrevB32, [y.op(), Operand::Int(5), tid.op()]);
    let (r0, c0) = (k.sgprs(1)?, k.sgprs(1)?);
    k.op(Op::SMulI32, [r0.op(), bx.op(), Operand::imm32(TILE.into())]);
    k.op(Op::SMulI32, [c0.op(), by.op(), Operand::imm32(TILE.into())]);
    k.op(Op::VAddU32, [i.op(), r0.op(), x.op()]);
    let all = k.mask_sgprs()?;
    save_exec(k, all);
    Ok(Frame {
        x,
        r0,
        i,
        y,
        c0,
        z,
        all,
    })
}

impl Frame {
    /// j = c0 + y + 8s; exec narrowed to i < m, j < n; branches to `skip` when empty.
    fn element(
        &self,
        k: &mut Assembler,
        s: u32,
        j: super::regs::Vgpr,
        (m, n): (super::regs::Sgpr, super::regs::Sgpr),
        skip: super::asm::Label,
    ) {
        let vcc = k.vcc();
        k.op(
            Op::VAddU32,
            [j.op(), Operand::imm32(i64::from(8 * s)), self.y.op()],
        );
        k.op(Op::VAddU32, [j.op(), self.c0.op(), j.op()]);
        k.op(Op::VCmpGtU32, [vcc, m.op(), self.i.op()]);
        narrow(k);
        k.op(Op::VCmpGtU32, [vcc, n.op(), j.op()]);
        narrow(k);
        k.cbranch(Op::SCbranchExecz, skip);
    }
}

fn geam(t: IsaTarget, e: Elem) -> Result<AssembledKernel> {
    let mut k = Assembler::new(t, GEAM, BLOCK, 3)?;
    let c0 = k.arg_pointer("c")?;
    let a0 = k.arg_pointer("a")?;
    let b0 = k.arg_pointer("b")?;
    let m = k.arg_u32("m")?;
    let n = k.arg_u32("n")?;
    let lda = k.arg_u32("lda")?;
    let ldb = k.arg_u32("ldb")?;
    let ldc = k.arg_u32("ldc")?;
    let sa = k.arg_u64("stride_a")?;
    let sb = k.arg_u64("stride_b")?;
    let sc = k.arg_u64("stride_c")?;
    let alpha_w = scalar_arg(&mut k, e, "alpha")?;
    let beta_w = scalar_arg(&mut k, e, "beta")?;
    let flags = k.arg_u32("flags")?;
    let f = frame(&mut k)?;
    let a = strided_block(&mut k, e, a0, f.z, sa)?;
    let b = strided_block(&mut k, e, b0, f.z, sb)?;
    let c = strided_block(&mut k, e, c0, f.z, sc)?;
    let alpha = scalar_vgprs(&mut k, e, &alpha_w)?;
    let beta = scalar_vgprs(&mut k, e, &beta_w)?;
    let scratch = k.sgprs(1)?;
    let (j, off) = (k.vgprs(1)?, k.vgprs(1)?);
    let (av, bv, v) = (
        k.vgprs(e.words())?,
        k.vgprs(e.words())?,
        k.vgprs(e.words())?,
    );
    let operands = [
        (
            a,
            lda,
            av,
            TRANS_A,
            CONJ_A,
            READ_A,
            "a",
            LdsTile::new(&mut k, e)?,
        ),
        (
            b,
            ldb,
            bv,
            TRANS_B,
            CONJ_B,
            READ_B,
            "b",
            LdsTile::new(&mut k, e)?,
        ),
    ];
    // Transposed operands that are read: staged through LDS (uniform branches, so every
    // wave reaches the barrier).
    for &(base, ld, _, trans, _, read, name, tile) in &operands {
        let skip = k.label(&format!("{name}_unstaged"));
        test_flag(&mut k, scratch, flags, trans);
        k.cbranch(Op::SCbranchScc0, skip);
        test_flag(&mut k, scratch, flags, read);
        k.cbranch(Op::SCbranchScc0, skip);
        tile.stage(
            &mut k,
            e,
            (f.x, f.y),
            (f.r0, f.c0),
            (base, ld),
            (n, m),
            f.all,
            name,
        )?;
        k.bind(skip);
    }
    barrier(&mut k);
    let ys = k.vgprs(1)?;
    for s in 0..TILE / 8 {
        let skip = k.label(&format!("next{s}"));
        f.element(&mut k, s, j, (m, n), skip);
        k.op(
            Op::VAddU32,
            [ys.op(), Operand::imm32(i64::from(8 * s)), f.y.op()],
        );
        for &(base, ld, val, trans, conj_flag, read, name, tile) in &operands {
            // X(i, j), or X(j, i) transposed; zero (not read) without the read flag.
            zero(&mut k, val);
            let (skip_read, straight, loaded) = (
                k.label(&format!("{name}_unread{s}")),
                k.label(&format!("{name}_straight{s}")),
                k.label(&format!("{name}_loaded{s}")),
            );
            test_flag(&mut k, scratch, flags, read);
            k.cbranch(Op::SCbranchScc0, skip_read);
            test_flag(&mut k, scratch, flags, trans);
            k.cbranch(Op::SCbranchScc0, straight);
            tile.read(&mut k, e, val, f.x, ys, off);
            k.branch(loaded);
            k.bind(straight);
            offset(&mut k, e, off, f.i, j, ld);
            k.global_load(e.load(), val, off, base, 0);
            k.wait_vm(0);
            k.bind(loaded);
            test_flag(&mut k, scratch, flags, conj_flag);
            k.cbranch(Op::SCbranchScc0, skip_read);
            conj(&mut k, e, val);
            k.bind(skip_read);
        }
        // v = α·a, then v += β·b (real: fma(β, b, α·a)).
        math::cmul(&mut k, e.real, &e.parts(v), &e.parts(alpha), &e.parts(av));
        math::cfma_into(
            &mut k,
            e.real,
            &e.parts(v),
            &e.parts(beta),
            &e.parts(bv),
            false,
        );
        offset(&mut k, e, off, f.i, j, ldc);
        k.global_store(e.store(), off, v, c, 0);
        k.bind(skip);
        k.restore_exec(f.all);
    }
    k.s_endpgm();
    k.finish()
}

fn dgmm(t: IsaTarget, e: Elem) -> Result<AssembledKernel> {
    let mut k = Assembler::new(t, DGMM, BLOCK, 3)?;
    let c0 = k.arg_pointer("c")?;
    let a0 = k.arg_pointer("a")?;
    let x0 = k.arg_pointer("x")?;
    let m = k.arg_u32("m")?;
    let n = k.arg_u32("n")?;
    let lda = k.arg_u32("lda")?;
    let ldc = k.arg_u32("ldc")?;
    let incx = k.arg_u32("incx")?;
    let sa = k.arg_u64("stride_a")?;
    let sx = k.arg_u64("stride_x")?;
    let sc = k.arg_u64("stride_c")?;
    let flags = k.arg_u32("flags")?;
    let f = frame(&mut k)?;
    let a = strided_block(&mut k, e, a0, f.z, sa)?;
    let x = strided_block(&mut k, e, x0, f.z, sx)?;
    let c = strided_block(&mut k, e, c0, f.z, sc)?;
    // len = m (left) or n; step = |incx|·size; with incx < 0 the lowest address is
    // x − (len − 1)·step and element k sits (len − 1 − k) steps above it.
    let (scratch, len, step, back, neg) = (
        k.sgprs(1)?,
        k.sgprs(1)?,
        k.sgprs(1)?,
        k.sgprs(2)?,
        k.sgprs(1)?,
    );
    test_flag(&mut k, scratch, flags, LEFT);
    k.op(Op::SCselectB32, [len.op(), m.op(), n.op()]);
    k.op(Op::SSubU32, [len.op(), len.op(), Operand::Int(1)]);
    k.op(Op::SAshrI32, [neg.op(), incx.op(), Operand::Int(31)]);
    k.op(Op::SXorB32, [step.op(), incx.op(), neg.op()]);
    k.op(Op::SSubU32, [step.op(), step.op(), neg.op()]);
    k.op(
        Op::SLshlB32,
        [step.op(), step.op(), Operand::Int(e.shift())],
    );
    // back = (len − 1)·step when incx < 0, else 0.
    mul64(&mut k, back, len.op(), step.op());
    k.op(Op::SCmpLtI32, [incx.op(), Operand::Int(0)]);
    let lowest = k.sgprs(2)?;
    k.op(Op::SCselectB64, [back.op(), back.op(), Operand::Int(0)]);
    k.op(
        Op::SSubU32,
        [lowest.at(0).op(), x.at(0).op(), back.at(0).op()],
    );
    k.op(
        Op::SSubbU32,
        [lowest.at(1).op(), x.at(1).op(), back.at(1).op()],
    );
    // The lane's x index as a byte offset: idx·step, or (len − 1 − idx)·step.
    let (j, off, idx) = (k.vgprs(1)?, k.vgprs(1)?, k.vgprs(1)?);
    let (av, xv, v) = (
        k.vgprs(e.words())?,
        k.vgprs(e.words())?,
        k.vgprs(e.words())?,
    );
    for s in 0..TILE / 8 {
        let skip = k.label(&format!("next{s}"));
        f.element(&mut k, s, j, (m, n), skip);
        offset(&mut k, e, off, f.i, j, lda);
        k.global_load(e.load(), av, off, a, 0);
        let (right, picked, forward) = (
            k.label(&format!("right{s}")),
            k.label(&format!("picked{s}")),
            k.label(&format!("forward{s}")),
        );
        test_flag(&mut k, scratch, flags, LEFT);
        k.cbranch(Op::SCbranchScc0, right);
        k.op(Op::VMovB32, [idx.op(), f.i.op()]);
        k.branch(picked);
        k.bind(right);
        k.op(Op::VMovB32, [idx.op(), j.op()]);
        k.bind(picked);
        k.op(Op::SCmpLtI32, [incx.op(), Operand::Int(0)]);
        k.cbranch(Op::SCbranchScc0, forward);
        k.op(Op::VSubU32, [idx.op(), len.op(), idx.op()]);
        k.bind(forward);
        k.op(Op::VMulLoU32, [idx.op(), idx.op(), step.op()]);
        k.global_load(e.load(), xv, idx, lowest, 0);
        k.wait_vm(0);
        math::cmul(&mut k, e.real, &e.parts(v), &e.parts(av), &e.parts(xv));
        offset(&mut k, e, off, f.i, j, ldc);
        k.global_store(e.store(), off, v, c, 0);
        k.bind(skip);
        k.restore_exec(f.all);
    }
    k.s_endpgm();
    k.finish()
}
