//! The Level 3 triangle kernels for AMDGPU (`rocm_tri_expand`, `rocm_tri_invert`,
//! `rocm_tri_update`), built with the [`Assembler`] from the same [`Level3Params`] as the
//! PTX generator ([`crate::level3`]) and with its kernel contract: the same names,
//! kernarg layout (the parameters of [`crate::level3`] as a C struct), flags, grids and
//! workgroups, for f32, f64, Complex32 and Complex64 on every gfx9 (wave64) and gfx11
//! (wave32) target.
//!
//! - Addresses: the block's base (diagonal block z of the source or C, block z of the
//!   destination or W) is computed in 64-bit SGPR arithmetic; offsets inside a block are
//!   32-bit VGPR byte offsets, so `(bs + bs·ld)·size` of each block and
//!   `stride·size` must be below 2³² (the BLAS wrapper checks).
//! - Tile kernels: work-item `tid` is `(x, y) = (tid & 31, tid >> 5)` and handles rows
//!   `r0 + x` and columns `c0 + y + 8s`, s = 0..4, as the PTX kernels. Per element the
//!   lanes are narrowed by exec masks (inside the block, stored triangle, diagonal);
//!   uniform flags are scalar branches. "Stored" is `sgn·(j − i) ≥ thr` with `sgn = ±1`
//!   by [`UPPER`] and `thr = 1` with [`UNIT`] (the diagonal excluded), else 0.
//!   `rocm_tri_expand` stages the transposed tile through LDS (rows padded to 33, then
//!   `s_barrier`) as the PTX kernel does, so the mirrored reads are coalesced too.
//! - `rocm_tri_invert`: NB work-items, the block in LDS row-major with rows padded to
//!   NB + 1, the PTX kernel's forward substitution (a wave-uniform loop over rows with
//!   `s_barrier` around each row's write). The division `(δ − Σ)/l_ii` is `q = n·r`
//!   with `r` a Newton-refined `v_rcp` (two steps for f64) and one residual correction
//!   `q + r·fma(−d, q, n)`: within an ulp of the correctly rounded quotient (the PTX
//!   kernel's `div.rn` is exact-rounded), which the substitution's γ_NB bound absorbs.
//!   Complex: `n·conj(d)·(1/|d|²)`, |d|² = fma(di, di, dr·dr).
//! - [`HERM`] (complex): expand conjugates mirrored elements and zeroes the diagonal's
//!   imaginary part (hemm reads only the real part of A's diagonal); update zeroes the
//!   diagonal's imaginary part of the result (herk/her2k: C's diagonal is real).
//!
//! Arithmetic matches the PTX kernels': update is `fma(β, c, w)` (complex: `w + β·c` by
//! four fmas, real-part products first), the substitution an fma chain in p order.

use super::asm::{AssembledKernel, Assembler};
use super::math::{self, Real};
use super::regs::{Sgpr, Vgpr};
use crate::generator::{LaunchRule, Program};
use crate::level3::{
    Level3Params, EXPAND, HERM, INVERT, MIRROR, READ_C, TILE, UNIT, UPDATE, UPPER,
};
use rocm_core::isa::amdgpu::{InlineFloat, IsaTarget, Op, Operand};
use rocm_core::{DType, Error, ModuleImage, Result, Target};

/// The element type as the kernels see it.
#[derive(Debug, Clone, Copy)]
pub(super) struct Elem {
    pub(super) real: Real,
    /// 1 real, 2 complex.
    pub(super) comps: u8,
}

impl Elem {
    pub(super) fn of(d: DType) -> Option<Elem> {
        let (real, comps) = match d {
            DType::F32 => (Real::F32, 1),
            DType::F64 => (Real::F64, 1),
            DType::C32 => (Real::F32, 2),
            DType::C64 => (Real::F64, 2),
            _ => return None,
        };
        Some(Elem { real, comps })
    }

    /// VGPRs (dwords) per element.
    pub(super) fn words(self) -> u8 {
        self.real.regs() * self.comps
    }

    pub(super) fn bytes(self) -> u32 {
        4 * u32::from(self.words())
    }

    pub(super) fn shift(self) -> i8 {
        self.bytes().trailing_zeros() as i8
    }

    pub(super) fn load(self) -> Op {
        match self.words() {
            1 => Op::GlobalLoadDword,
            2 => Op::GlobalLoadDwordx2,
            _ => Op::GlobalLoadDwordx4,
        }
    }

    pub(super) fn store(self) -> Op {
        match self.words() {
            1 => Op::GlobalStoreDword,
            2 => Op::GlobalStoreDwordx2,
            _ => Op::GlobalStoreDwordx4,
        }
    }

    fn ds_read(self) -> Op {
        match self.words() {
            1 => Op::DsReadB32,
            2 => Op::DsReadB64,
            _ => Op::DsReadB128,
        }
    }

    fn ds_write(self) -> Op {
        match self.words() {
            1 => Op::DsWriteB32,
            2 => Op::DsWriteB64,
            _ => Op::DsWriteB128,
        }
    }

    /// The components of a value held in `v`.
    pub(super) fn parts(self, v: Vgpr) -> math::Val {
        math::comps(v, 0, self.real, self.comps)
    }

    /// The high word of 1.0 in the real type (its low word is 0 for f64): the inline
    /// constant 1.0 for f32 (as LLVM encodes it), a literal for f64's high word.
    fn one_bits(self) -> Operand {
        match self.real {
            Real::F32 => Operand::Float(InlineFloat::One),
            Real::F64 => Operand::Literal(0x3ff0_0000),
        }
    }
}

/// The three kernels of `p` on `t`: expand, invert, update.
pub fn generate(t: IsaTarget, p: &Level3Params) -> Result<Vec<AssembledKernel>> {
    let e = Elem::of(p.dtype).ok_or_else(|| {
        Error::unsupported(
            format!("Level 3 triangle kernels for {}", p.dtype),
            t.name(),
        )
    })?;
    if !matches!(p.invert_block, 16 | 32 | 64) {
        return Err(Error::invalid(
            "invert_block",
            format!("{}: 16, 32 or 64", p.invert_block),
        ));
    }
    crate::level3::check_invert_block(p)?;
    Ok(vec![
        expand(t, e)?,
        invert(t, e, p.invert_block)?,
        update(t, e)?,
    ])
}

/// The [`Program`] of `p` for `target`: one code object with the three kernels,
/// launched as the PTX ones (the callers build [`crate::level3::tile_config`] and
/// [`crate::level3::invert_config`] launches).
pub fn program(p: &Level3Params, target: &Target) -> Result<Program> {
    let t = IsaTarget::try_from(target)?;
    let ks = generate(t, p)?;
    Ok(Program {
        image: ModuleImage::CodeObject(super::asm::code_object(&ks)?.to_elf()?),
        kernels: ks.iter().map(|k| k.name().to_string()).collect(),
        signatures: crate::level3::signatures(p.dtype),
        launch: LaunchRule::Fixed {
            grid: 1,
            block: crate::level3::TILE_BLOCK,
        },
    })
}

fn mask_op(k: &Assembler, b64: Op, b32: Op) -> Op {
    if k.wave_size() == 64 {
        b64
    } else {
        b32
    }
}

/// `exec &= vcc`.
pub(super) fn narrow(k: &mut Assembler) {
    let op = mask_op(k, Op::SAndB64, Op::SAndB32);
    let (exec, vcc) = (k.exec(), k.vcc());
    k.op(op, [exec, exec, vcc]);
}

/// `saved = exec`.
pub(super) fn save_exec(k: &mut Assembler, saved: Sgpr) {
    let op = mask_op(k, Op::SMovB64, Op::SMovB32);
    let exec = k.exec();
    k.op(op, [saved.op(), exec]);
}

/// SCC = `flags & bit != 0`.
pub(super) fn test_flag(k: &mut Assembler, scratch: Sgpr, flags: Sgpr, bit: u32) {
    k.op(
        Op::SAndB32,
        [scratch.op(), flags.op(), Operand::imm32(i64::from(bit))],
    );
}

/// `dst = base + lo/hi` (a 64-bit SGPR add of a 64-bit SGPR offset).
fn add64(k: &mut Assembler, dst: Sgpr, base: Sgpr, off: Sgpr) {
    k.op(
        Op::SAddU32,
        [dst.at(0).op(), base.at(0).op(), off.at(0).op()],
    );
    k.op(
        Op::SAddcU32,
        [dst.at(1).op(), base.at(1).op(), off.at(1).op()],
    );
}

/// `off = a·b` as 64 bits (a, b 32-bit SGPRs or constants).
pub(super) fn mul64(k: &mut Assembler, off: Sgpr, a: Operand, b: Operand) {
    k.op(Op::SMulI32, [off.at(0).op(), a, b]);
    k.op(Op::SMulHiU32, [off.at(1).op(), a, b]);
}

/// `dst = first·(ld + 1)·size + base`: diagonal block z of a matrix at `base`.
fn diagonal_block(k: &mut Assembler, e: Elem, base: Sgpr, first: Sgpr, ld: Sgpr) -> Result<Sgpr> {
    let (step, off, dst) = (k.sgprs(1)?, k.sgprs(2)?, k.sgprs(2)?);
    k.op(Op::SAddU32, [step.op(), ld.op(), Operand::Int(1)]);
    k.op(
        Op::SLshlB32,
        [step.op(), step.op(), Operand::Int(e.shift())],
    );
    mul64(k, off, first.op(), step.op());
    add64(k, dst, base, off);
    Ok(dst)
}

/// `dst = base + z·stride·size` (stride a u64 argument, 64-bit arithmetic throughout).
pub(super) fn strided_block(
    k: &mut Assembler,
    e: Elem,
    base: Sgpr,
    z: Sgpr,
    stride: Sgpr,
) -> Result<Sgpr> {
    let (hi, off, dst) = (k.sgprs(1)?, k.sgprs(2)?, k.sgprs(2)?);
    mul64(k, off, z.op(), stride.at(0).op());
    k.op(Op::SMulI32, [hi.op(), z.op(), stride.at(1).op()]);
    k.op(Op::SAddU32, [off.at(1).op(), off.at(1).op(), hi.op()]);
    k.op(Op::SLshlB64, [off.op(), off.op(), Operand::Int(e.shift())]);
    add64(k, dst, base, off);
    Ok(dst)
}

/// `off = (row + col·ld)·size` in a VGPR.
pub(super) fn offset(k: &mut Assembler, e: Elem, off: Vgpr, row: Vgpr, col: Vgpr, ld: Sgpr) {
    k.op(Op::VMulLoU32, [off.op(), col.op(), ld.op()]);
    k.op(Op::VAddU32, [off.op(), off.op(), row.op()]);
    k.op(
        Op::VLshlrevB32,
        [off.op(), Operand::Int(e.shift()), off.op()],
    );
}

/// Sets every word of `v` to zero.
pub(super) fn zero(k: &mut Assembler, v: Vgpr) {
    for w in 0..v.count() {
        k.op(Op::VMovB32, [v.at(w).op(), Operand::Int(0)]);
    }
}

/// `v = 1` (real part one, the rest zero).
fn one(k: &mut Assembler, e: Elem, v: Vgpr) {
    zero(k, v);
    let hi = v.at(e.real.regs() - 1);
    k.op(Op::VMovB32, [hi.op(), e.one_bits()]);
}

/// Zeroes the imaginary part of `v` (complex only).
fn zero_imag(k: &mut Assembler, e: Elem, v: Vgpr) {
    if e.comps == 2 {
        let im = e.parts(v)[1];
        zero(k, im);
    }
}

/// Negates the imaginary part of `v` (complex only): flips its sign bit.
pub(super) fn conj(k: &mut Assembler, e: Elem, v: Vgpr) {
    if e.comps == 2 {
        let im = e.parts(v)[1];
        let sign = im.at(e.real.regs() - 1);
        k.op(
            Op::VXorB32,
            [sign.op(), Operand::Literal(0x8000_0000), sign.op()],
        );
    }
}

/// The tile kernels' common state.
struct Tile {
    /// x (0..32) of this lane and the tile's first row r0.
    x: Vgpr,
    r0: Sgpr,
    /// Row i = r0 + x of this lane.
    i: Vgpr,
    /// y of this lane.
    y: Vgpr,
    /// c0 (first column of the tile).
    c0: Sgpr,
    /// The block's order.
    bs: Sgpr,
    /// ±1: stored iff sgn·(j − i) ≥ thr.
    sgn: Sgpr,
    /// 1 with UNIT (diagonal excluded), else 0.
    thr: Sgpr,
    /// The block index z and first row z·nb.
    z: Sgpr,
    first: Sgpr,
    /// exec at entry.
    all: Sgpr,
    /// exec inside the block for the current element.
    inside: Sgpr,
    scratch: Sgpr,
}

fn tile_frame(k: &mut Assembler, n: Sgpr, nb: Sgpr, flags: Sgpr) -> Result<Tile> {
    let tid = k.workitem_id(0)?;
    let (bx, by, z) = (k.workgroup_id(0)?, k.workgroup_id(1)?, k.workgroup_id(2)?);
    k.wait_lgkm(0);
    let (x, y, i) = (k.vgprs(1)?, k.vgprs(1)?, k.vgprs(1)?);
    k.op(Op::VAndB32, [x.op(), Operand::Int(31), tid.op()]);
    k.op(Op::VLshrrevB32, [y.op(), Operand::Int(5), tid.op()]);
    let (r0, c0, first, bs) = (k.sgprs(1)?, k.sgprs(1)?, k.sgprs(1)?, k.sgprs(1)?);
    k.op(Op::SMulI32, [r0.op(), bx.op(), Operand::imm32(TILE.into())]);
    k.op(Op::SMulI32, [c0.op(), by.op(), Operand::imm32(TILE.into())]);
    k.op(Op::SMulI32, [first.op(), z.op(), nb.op()]);
    k.op(Op::SSubU32, [bs.op(), n.op(), first.op()]);
    k.op(Op::SMinU32, [bs.op(), bs.op(), nb.op()]);
    k.op(Op::VAddU32, [i.op(), r0.op(), x.op()]);
    let (sgn, thr, scratch) = (k.sgprs(1)?, k.sgprs(1)?, k.sgprs(1)?);
    test_flag(k, scratch, flags, UPPER);
    k.op(
        Op::SCselectB32,
        [sgn.op(), Operand::Int(1), Operand::Int(-1)],
    );
    test_flag(k, scratch, flags, UNIT);
    k.op(
        Op::SCselectB32,
        [thr.op(), Operand::Int(1), Operand::Int(0)],
    );
    let (all, inside) = (k.mask_sgprs()?, k.mask_sgprs()?);
    save_exec(k, all);
    Ok(Tile {
        x,
        r0,
        i,
        y,
        c0,
        bs,
        sgn,
        thr,
        z,
        first,
        all,
        inside,
        scratch,
    })
}

impl Tile {
    /// Column j = c0 + y + 8s; exec narrowed to the lanes inside the block (saved in
    /// `inside`); d = sgn·(j − i). Branches to `skip` when no lane is inside.
    fn element(&self, k: &mut Assembler, s: u32, j: Vgpr, d: Vgpr, skip: super::asm::Label) {
        let vcc = k.vcc();
        k.op(
            Op::VAddU32,
            [j.op(), Operand::imm32(i64::from(8 * s)), self.y.op()],
        );
        k.op(Op::VAddU32, [j.op(), self.c0.op(), j.op()]);
        k.op(Op::VCmpGtU32, [vcc, self.bs.op(), self.i.op()]);
        narrow(k);
        k.op(Op::VCmpGtU32, [vcc, self.bs.op(), j.op()]);
        narrow(k);
        k.cbranch(Op::SCbranchExecz, skip);
        save_exec(k, self.inside);
        k.op(Op::VSubU32, [d.op(), j.op(), self.i.op()]);
        k.op(Op::VMulLoU32, [d.op(), d.op(), self.sgn.op()]);
    }

    /// exec ← the lanes inside the block.
    fn back_inside(&self, k: &mut Assembler) {
        k.restore_exec(self.inside);
    }
}

/// A 32×32 tile of elements in LDS, rows padded to 33 so that both the staging writes
/// (along a row) and the transposed reads (down a column) of a wave hit distinct banks
/// for 4-byte elements.
#[derive(Debug, Clone, Copy)]
pub(super) struct LdsTile {
    /// LDS byte offset of the tile.
    pub(super) base: u32,
}

const PITCH: u32 = TILE + 1;

impl LdsTile {
    pub(super) fn new(k: &mut Assembler, e: Elem) -> Result<LdsTile> {
        Ok(LdsTile {
            base: k.lds(TILE * PITCH * e.bytes(), 16)?,
        })
    }

    /// `addr = ((row·33 + col)·size + base`.
    fn address(self, k: &mut Assembler, e: Elem, addr: Vgpr, row: Vgpr, col: Operand) {
        k.op(
            Op::VMulLoU32,
            [addr.op(), row.op(), Operand::imm32(PITCH.into())],
        );
        k.op(Op::VAddU32, [addr.op(), col, addr.op()]);
        k.op(
            Op::VLshlrevB32,
            [addr.op(), Operand::Int(e.shift()), addr.op()],
        );
        if self.base != 0 {
            k.op(
                Op::VAddU32,
                [addr.op(), Operand::imm32(self.base.into()), addr.op()],
            );
        }
    }

    /// Stages the transposed tile: the lane (x, y) reads X(c0 + x, r0 + y + 8s) (X at
    /// `base` with leading dimension `ld`; only where c0 + x < `rows` and
    /// r0 + y + 8s < `cols`) into tile row y + 8s, column x, for s = 0..4; exec is
    /// `all` after each. The caller places the barrier.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn stage(
        self,
        k: &mut Assembler,
        e: Elem,
        (x, y): (Vgpr, Vgpr),
        (r0, c0): (Sgpr, Sgpr),
        (base, ld): (Sgpr, Sgpr),
        (rows, cols): (Sgpr, Sgpr),
        all: Sgpr,
        tag: &str,
    ) -> Result<()> {
        let (row, col, ys, off, addr) = (
            k.vgprs(1)?,
            k.vgprs(1)?,
            k.vgprs(1)?,
            k.vgprs(1)?,
            k.vgprs(1)?,
        );
        let v = k.vgprs(e.words())?;
        let vcc = k.vcc();
        k.op(Op::VAddU32, [row.op(), c0.op(), x.op()]);
        for s in 0..TILE / 8 {
            let skip = k.label(&format!("{tag}_staged{s}"));
            k.op(
                Op::VAddU32,
                [ys.op(), Operand::imm32(i64::from(8 * s)), y.op()],
            );
            k.op(Op::VAddU32, [col.op(), r0.op(), ys.op()]);
            k.op(Op::VCmpGtU32, [vcc, rows.op(), row.op()]);
            narrow(k);
            k.op(Op::VCmpGtU32, [vcc, cols.op(), col.op()]);
            narrow(k);
            k.cbranch(Op::SCbranchExecz, skip);
            offset(k, e, off, row, col, ld);
            k.global_load(e.load(), v, off, base, 0);
            self.address(k, e, addr, ys, x.op());
            k.wait_vm(0);
            k.ds_write(e.ds_write(), addr, v, 0);
            k.bind(skip);
            k.restore_exec(all);
        }
        Ok(())
    }

    /// `v` ← tile row x, column `ys` (= y + 8s): the element X(c0 + y + 8s, r0 + x)
    /// staged above, i.e. op(X)(r0 + x, c0 + y + 8s) = X(j, i) for this lane.
    pub(super) fn read(self, k: &mut Assembler, e: Elem, v: Vgpr, x: Vgpr, ys: Vgpr, addr: Vgpr) {
        self.address(k, e, addr, x, ys.op());
        k.ds_read(e.ds_read(), v, addr, 0);
        k.wait_lgkm(0);
    }
}

/// `s_waitcnt` on LDS writes, then `s_barrier`: every wave's staging is visible.
pub(super) fn barrier(k: &mut Assembler) {
    k.wait_lgkm(0);
    k.s_barrier();
}

fn expand(t: IsaTarget, e: Elem) -> Result<AssembledKernel> {
    let mut k = Assembler::new(t, EXPAND, crate::level3::TILE_BLOCK, 3)?;
    let dst0 = k.arg_pointer("dst")?;
    let src0 = k.arg_pointer("src")?;
    let n = k.arg_u32("n")?;
    let nb = k.arg_u32("nb")?;
    let ld_src = k.arg_u32("ld_src")?;
    let ld_dst = k.arg_u32("ld_dst")?;
    let stride = k.arg_u64("stride_dst")?;
    let flags = k.arg_u32("flags")?;
    let f = tile_frame(&mut k, n, nb, flags)?;
    let src = diagonal_block(&mut k, e, src0, f.first, ld_src)?;
    let dst = strided_block(&mut k, e, dst0, f.z, stride)?;
    let tile = LdsTile::new(&mut k, e)?;
    // Mirror staging (uniform: every wave passes the barrier either way).
    let no_stage = k.label("no_stage");
    test_flag(&mut k, f.scratch, flags, MIRROR);
    k.cbranch(Op::SCbranchScc0, no_stage);
    tile.stage(
        &mut k,
        e,
        (f.x, f.y),
        (f.r0, f.c0),
        (src, ld_src),
        (f.bs, f.bs),
        f.all,
        "mirror",
    )?;
    k.bind(no_stage);
    barrier(&mut k);
    let (j, d, off, v) = (k.vgprs(1)?, k.vgprs(1)?, k.vgprs(1)?, k.vgprs(e.words())?);
    let ys = k.vgprs(1)?;
    let vcc = k.vcc();
    for s in 0..TILE / 8 {
        let skip = k.label(&format!("next{s}"));
        f.element(&mut k, s, j, d, skip);
        zero(&mut k, v);
        // The stored triangle (without a unit diagonal).
        k.op(Op::VCmpLeI32, [vcc, f.thr.op(), d.op()]);
        narrow(&mut k);
        offset(&mut k, e, off, f.i, j, ld_src);
        k.global_load(e.load(), v, off, src, 0);
        k.wait_vm(0);
        let no_herm = k.label(&format!("no_herm{s}"));
        test_flag(&mut k, f.scratch, flags, HERM);
        k.cbranch(Op::SCbranchScc0, no_herm);
        // Hermitian: the diagonal's imaginary part is not read (taken as zero).
        k.op(Op::VCmpEqU32, [vcc, Operand::Int(0), d.op()]);
        narrow(&mut k);
        zero_imag(&mut k, e, v);
        k.bind(no_herm);
        f.back_inside(&mut k);
        // The other triangle: the mirror image (conjugated for HERM), else zero.
        let no_mirror = k.label(&format!("no_mirror{s}"));
        test_flag(&mut k, f.scratch, flags, MIRROR);
        k.cbranch(Op::SCbranchScc0, no_mirror);
        k.op(Op::VCmpGtI32, [vcc, Operand::Int(0), d.op()]);
        narrow(&mut k);
        k.op(
            Op::VAddU32,
            [ys.op(), Operand::imm32(i64::from(8 * s)), f.y.op()],
        );
        tile.read(&mut k, e, v, f.x, ys, off);
        test_flag(&mut k, f.scratch, flags, HERM);
        k.cbranch(Op::SCbranchScc0, no_mirror);
        conj(&mut k, e, v);
        k.bind(no_mirror);
        f.back_inside(&mut k);
        // A unit diagonal: one, not read.
        let no_unit = k.label(&format!("no_unit{s}"));
        test_flag(&mut k, f.scratch, flags, UNIT);
        k.cbranch(Op::SCbranchScc0, no_unit);
        k.op(Op::VCmpEqU32, [vcc, Operand::Int(0), d.op()]);
        narrow(&mut k);
        one(&mut k, e, v);
        k.bind(no_unit);
        f.back_inside(&mut k);
        offset(&mut k, e, off, f.i, j, ld_dst);
        k.global_store(e.store(), off, v, dst, 0);
        k.bind(skip);
        k.restore_exec(f.all);
    }
    k.s_endpgm();
    k.finish()
}

fn update(t: IsaTarget, e: Elem) -> Result<AssembledKernel> {
    let mut k = Assembler::new(t, UPDATE, crate::level3::TILE_BLOCK, 3)?;
    let c0 = k.arg_pointer("c")?;
    let w0 = k.arg_pointer("w")?;
    let n = k.arg_u32("n")?;
    let nb = k.arg_u32("nb")?;
    let ldc = k.arg_u32("ldc")?;
    let ld_w = k.arg_u32("ld_w")?;
    let stride = k.arg_u64("stride_w")?;
    let mut beta_words = Vec::new();
    for c in 0..e.comps {
        let name = if c == 0 { "beta" } else { "beta_im" };
        beta_words.push(match e.real {
            Real::F32 => k.arg_u32(name)?,
            Real::F64 => k.arg_u64(name)?,
        });
    }
    let flags = k.arg_u32("flags")?;
    let f = tile_frame(&mut k, n, nb, flags)?;
    let c = diagonal_block(&mut k, e, c0, f.first, ldc)?;
    let w = strided_block(&mut k, e, w0, f.z, stride)?;
    let beta = k.vgprs(e.words())?;
    let r = e.real.regs();
    for (q, word) in beta_words.iter().enumerate() {
        for h in 0..r {
            k.op(
                Op::VMovB32,
                [beta.at(q as u8 * r + h).op(), word.at(h).op()],
            );
        }
    }
    let (j, d, off, offc) = (k.vgprs(1)?, k.vgprs(1)?, k.vgprs(1)?, k.vgprs(1)?);
    let (wv, cv) = (k.vgprs(e.words())?, k.vgprs(e.words())?);
    let vcc = k.vcc();
    for s in 0..TILE / 8 {
        let skip = k.label(&format!("next{s}"));
        f.element(&mut k, s, j, d, skip);
        // The stored triangle; with UNIT not the diagonal.
        k.op(Op::VCmpLeI32, [vcc, f.thr.op(), d.op()]);
        narrow(&mut k);
        save_exec(&mut k, f.inside);
        offset(&mut k, e, off, f.i, j, ld_w);
        offset(&mut k, e, offc, f.i, j, ldc);
        k.global_load(e.load(), wv, off, w, 0);
        let no_c = k.label(&format!("no_c{s}"));
        test_flag(&mut k, f.scratch, flags, READ_C);
        k.cbranch(Op::SCbranchScc0, no_c);
        k.global_load(e.load(), cv, offc, c, 0);
        k.wait_vm(0);
        // w ← fma(β, c, w) (complex: w + β·c).
        math::cfma_into(
            &mut k,
            e.real,
            &e.parts(wv),
            &e.parts(beta),
            &e.parts(cv),
            false,
        );
        k.bind(no_c);
        k.wait_vm(0);
        let no_herm = k.label(&format!("no_herm{s}"));
        test_flag(&mut k, f.scratch, flags, HERM);
        k.cbranch(Op::SCbranchScc0, no_herm);
        k.op(Op::VCmpEqU32, [vcc, Operand::Int(0), d.op()]);
        narrow(&mut k);
        zero_imag(&mut k, e, wv);
        k.bind(no_herm);
        f.back_inside(&mut k);
        k.global_store(e.store(), offc, wv, c, 0);
        k.bind(skip);
        k.restore_exec(f.all);
    }
    k.s_endpgm();
    k.finish()
}

/// A wave-uniform counted loop `for var in 0..limit` on an SGPR.
struct Loop {
    var: Sgpr,
    top: super::asm::Label,
    done: super::asm::Label,
}

fn loop_start(k: &mut Assembler, name: &str, limit: Operand) -> Result<Loop> {
    let var = k.sgprs(1)?;
    let (top, done) = (k.label(name), k.label(&format!("{name}_done")));
    k.op(Op::SMovB32, [var.op(), Operand::Int(0)]);
    k.bind(top);
    k.op(Op::SCmpGeU32, [var.op(), limit]);
    k.cbranch(Op::SCbranchScc1, done);
    Ok(Loop { var, top, done })
}

fn loop_end(k: &mut Assembler, l: Loop) {
    k.op(Op::SAddU32, [l.var.op(), l.var.op(), Operand::Int(1)]);
    k.branch(l.top);
    k.bind(l.done);
}

/// `q = n / d` for reals: `r = rcp(d)` refined by Newton steps (`r += r·(1 − d·r)`; two
/// for f64, whose `v_rcp` is the f32-accurate seed), then `q = n·r` corrected once by the
/// residual (`q += r·(n − d·q)`). `q` must not overlap the inputs; `one` holds 1.0.
fn real_div(k: &mut Assembler, r: Real, q: Vgpr, num: Vgpr, d: Vgpr, one: Vgpr, tmp: [Vgpr; 2]) {
    let [rc, err] = tmp;
    let rcp = match r {
        Real::F32 => Op::VRcpF32,
        Real::F64 => Op::VRcpF64,
    };
    k.op(rcp, [rc.op(), d.op()]);
    let steps = match r {
        Real::F32 => 1,
        Real::F64 => 2,
    };
    for _ in 0..steps {
        math::fma(k, r, err, d, rc, one, true);
        math::fma(k, r, rc, rc, err, rc, false);
    }
    math::mul(k, r, q, num, rc, 0);
    math::fma(k, r, err, d, q, num, true);
    math::fma(k, r, q, rc, err, q, false);
}

fn invert(t: IsaTarget, e: Elem, nb: u32) -> Result<AssembledKernel> {
    let es = e.bytes();
    let pitch = nb + 1;
    let mut k = Assembler::new(t, INVERT, nb, 1)?;
    let dst0 = k.arg_pointer("dst")?;
    let src0 = k.arg_pointer("src")?;
    let n = k.arg_u32("n")?;
    let ld_src = k.arg_u32("ld_src")?;
    let stride = k.arg_u64("stride_dst")?;
    let flags = k.arg_u32("flags")?;
    let lds = k.lds(nb * pitch * es, 16)?;
    let tid = k.workitem_id(0)?;
    let z = k.workgroup_id(0)?;
    k.wait_lgkm(0);
    let (first, bs, scratch) = (k.sgprs(1)?, k.sgprs(1)?, k.sgprs(1)?);
    k.op(Op::SMulI32, [first.op(), z.op(), Operand::imm32(nb.into())]);
    k.op(Op::SSubU32, [bs.op(), n.op(), first.op()]);
    k.op(Op::SMinU32, [bs.op(), bs.op(), Operand::imm32(nb.into())]);
    let src = diagonal_block(&mut k, e, src0, first, ld_src)?;
    let dst = strided_block(&mut k, e, dst0, z, stride)?;
    // LDS slot of (t, p) as it is stored: t·A + p·B bytes; lower L[t][p] (A = pitch·es,
    // B = es), upper L[p][t] = A(t, p) (A = es, B = pitch·es).
    let (sa, sb, sgn, thr) = (k.sgprs(1)?, k.sgprs(1)?, k.sgprs(1)?, k.sgprs(1)?);
    let row_bytes = i64::from(pitch * es);
    test_flag(&mut k, scratch, flags, UPPER);
    k.op(
        Op::SCselectB32,
        [
            sa.op(),
            Operand::imm32(es.into()),
            Operand::imm32(row_bytes),
        ],
    );
    k.op(
        Op::SCselectB32,
        [
            sb.op(),
            Operand::imm32(row_bytes),
            Operand::imm32(es.into()),
        ],
    );
    k.op(
        Op::SCselectB32,
        [sgn.op(), Operand::Int(1), Operand::Int(-1)],
    );
    test_flag(&mut k, scratch, flags, UNIT);
    k.op(
        Op::SCselectB32,
        [thr.op(), Operand::Int(1), Operand::Int(0)],
    );
    let (tes, ta, off, d, addr) = (
        k.vgprs(1)?,
        k.vgprs(1)?,
        k.vgprs(1)?,
        k.vgprs(1)?,
        k.vgprs(1)?,
    );
    k.op(
        Op::VLshlrevB32,
        [tes.op(), Operand::Int(e.shift()), tid.op()],
    );
    k.op(Op::VMulLoU32, [ta.op(), tid.op(), sa.op()]);
    if lds != 0 {
        k.op(Op::VAddU32, [ta.op(), Operand::imm32(lds.into()), ta.op()]);
    }
    let all = k.mask_sgprs()?;
    save_exec(&mut k, all);
    let v = k.vgprs(e.words())?;
    let one_v = k.vgprs(e.real.regs())?;
    one(&mut k, Elem { comps: 1, ..e }, one_v);
    let vcc = k.vcc();
    let sv = k.sgprs(1)?;

    // Load L (the block, or its transpose when upper); the identity beyond bs.
    let lp = loop_start(&mut k, "load", Operand::imm32(nb.into()))?;
    let p = lp.var;
    // v = δ_tp.
    zero(&mut k, v);
    k.op(Op::VCmpEqU32, [vcc, p.op(), tid.op()]);
    let hi = v.at(e.real.regs() - 1);
    k.op(
        Op::VCndmaskB32,
        [
            hi.op(),
            Operand::Int(0),
            one_v.at(e.real.regs() - 1).op(),
            vcc,
        ],
    );
    let skip = k.label("outside");
    k.op(Op::SCmpGeU32, [p.op(), bs.op()]);
    k.cbranch(Op::SCbranchScc1, skip);
    k.op(Op::VCmpGtU32, [vcc, bs.op(), tid.op()]);
    narrow(&mut k);
    // Stored: sgn·(p − t) ≥ thr.
    k.op(Op::VSubU32, [d.op(), p.op(), tid.op()]);
    k.op(Op::VMulLoU32, [d.op(), d.op(), sgn.op()]);
    k.op(Op::VCmpLeI32, [vcc, thr.op(), d.op()]);
    narrow(&mut k);
    k.op(Op::SMulI32, [sv.op(), p.op(), ld_src.op()]);
    k.op(Op::SLshlB32, [sv.op(), sv.op(), Operand::Int(e.shift())]);
    k.op(Op::VAddU32, [off.op(), sv.op(), tes.op()]);
    k.global_load(e.load(), v, off, src, 0);
    k.wait_vm(0);
    k.restore_exec(all);
    k.bind(skip);
    k.op(Op::SMulI32, [sv.op(), p.op(), sb.op()]);
    k.op(Op::VAddU32, [addr.op(), sv.op(), ta.op()]);
    k.ds_write(e.ds_write(), addr, v, 0);
    loop_end(&mut k, lp);
    k.wait_lgkm(0);
    k.s_barrier();

    // Forward substitution, one row of X = inv(L) at a time, over L's row.
    let acc = k.vgprs(e.words())?;
    let (lv, xv, dv, num) = (
        k.vgprs(e.words())?,
        k.vgprs(e.words())?,
        k.vgprs(e.words())?,
        k.vgprs(e.words())?,
    );
    let (laddr, row_i) = (k.sgprs(1)?, k.sgprs(1)?);
    let li = loop_start(&mut k, "rows", Operand::imm32(nb.into()))?;
    let i = li.var;
    zero(&mut k, acc);
    // row_i = lds + i·pitch·es: the start of row i.
    k.op(Op::SMulI32, [row_i.op(), i.op(), Operand::imm32(row_bytes)]);
    if lds != 0 {
        k.op(
            Op::SAddU32,
            [row_i.op(), row_i.op(), Operand::imm32(lds.into())],
        );
    }
    let lq = loop_start(&mut k, "dot", i.op())?;
    let q = lq.var;
    // l_iq at row_i + q·es (the same for every lane), x_qt at lds + q·pitch·es + t·es.
    k.op(Op::SLshlB32, [laddr.op(), q.op(), Operand::Int(e.shift())]);
    k.op(Op::SAddU32, [laddr.op(), laddr.op(), row_i.op()]);
    k.op(Op::VMovB32, [addr.op(), laddr.op()]);
    k.ds_read(e.ds_read(), lv, addr, 0);
    k.op(Op::SMulI32, [laddr.op(), q.op(), Operand::imm32(row_bytes)]);
    if lds != 0 {
        k.op(
            Op::SAddU32,
            [laddr.op(), laddr.op(), Operand::imm32(lds.into())],
        );
    }
    k.op(Op::VAddU32, [off.op(), laddr.op(), tes.op()]);
    k.ds_read(e.ds_read(), xv, off, 0);
    k.wait_lgkm(0);
    math::cfma_into(
        &mut k,
        e.real,
        &e.parts(acc),
        &e.parts(lv),
        &e.parts(xv),
        false,
    );
    loop_end(&mut k, lq);
    // d = l_ii; num = δ_it − acc.
    k.op(Op::SLshlB32, [laddr.op(), i.op(), Operand::Int(e.shift())]);
    k.op(Op::SAddU32, [laddr.op(), laddr.op(), row_i.op()]);
    k.op(Op::VMovB32, [addr.op(), laddr.op()]);
    k.ds_read(e.ds_read(), dv, addr, 0);
    zero(&mut k, num);
    k.op(Op::VCmpEqU32, [vcc, i.op(), tid.op()]);
    let hi = num.at(e.real.regs() - 1);
    k.op(
        Op::VCndmaskB32,
        [
            hi.op(),
            Operand::Int(0),
            one_v.at(e.real.regs() - 1).op(),
            vcc,
        ],
    );
    let (np, ap) = (e.parts(num), e.parts(acc));
    for c in 0..e.comps as usize {
        math::add(&mut k, e.real, np[c], np[c], ap[c], 2, 0);
    }
    k.wait_lgkm(0);
    k.s_barrier();
    divide(&mut k, e, xv, num, dv, one_v, acc)?;
    k.op(Op::SMulI32, [sv.op(), i.op(), Operand::imm32(row_bytes)]);
    if lds != 0 {
        k.op(Op::SAddU32, [sv.op(), sv.op(), Operand::imm32(lds.into())]);
    }
    k.op(Op::VAddU32, [off.op(), sv.op(), tes.op()]);
    k.ds_write(e.ds_write(), off, xv, 0);
    k.wait_lgkm(0);
    k.s_barrier();
    loop_end(&mut k, li);

    // Write the dense inverse (transposed back when upper): element (t, j) of the
    // block at dst + (t + j·nb)·es from LDS t·A + j·B.
    let lj = loop_start(&mut k, "store", Operand::imm32(nb.into()))?;
    let jj = lj.var;
    k.op(Op::SMulI32, [sv.op(), jj.op(), sb.op()]);
    k.op(Op::VAddU32, [addr.op(), sv.op(), ta.op()]);
    k.ds_read(e.ds_read(), v, addr, 0);
    k.op(
        Op::SMulI32,
        [sv.op(), jj.op(), Operand::imm32(i64::from(nb * es))],
    );
    k.op(Op::VAddU32, [off.op(), sv.op(), tes.op()]);
    k.wait_lgkm(0);
    k.global_store(e.store(), off, v, dst, 0);
    loop_end(&mut k, lj);
    k.s_endpgm();
    k.finish()
}

/// `x = num / d` for the element type (`scratch` a value-sized temporary; `num` is
/// clobbered for complex).
fn divide(
    k: &mut Assembler,
    e: Elem,
    x: Vgpr,
    num: Vgpr,
    d: Vgpr,
    one_v: Vgpr,
    scratch: Vgpr,
) -> Result<()> {
    let r = e.real;
    let w = r.regs();
    let tmp = [k.vgprs(w)?, k.vgprs(w)?];
    if e.comps == 1 {
        real_div(k, r, x, num, d, one_v, tmp);
        return Ok(());
    }
    // inv = conj(d)/|d|²: s = fma(di, di, dr·dr), rs = 1/s, inv = (dr·rs, −di·rs).
    let (dp, sp) = (e.parts(d), e.parts(scratch));
    let s2 = k.vgprs(w)?;
    math::mul(k, r, s2, dp[0], dp[0], 0);
    math::fma(k, r, s2, dp[1], dp[1], s2, false);
    let rs = k.vgprs(w)?;
    real_div(k, r, rs, one_v, s2, one_v, tmp);
    math::mul(k, r, sp[0], dp[0], rs, 0);
    math::mul(k, r, sp[1], dp[1], rs, 1);
    math::cmul(k, r, &e.parts(x), &e.parts(num), &sp);
    Ok(())
}
