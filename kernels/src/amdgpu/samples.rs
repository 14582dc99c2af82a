//! Hand-written kernels built with the [`Assembler`]: the acceptance kernels and
//! three deliberately broken ones for the emulator's fault tests.
//!
//! | Kernel | Arguments | Targets |
//! |---|---|---|
//! | [`vector_add`] `c[i] = a[i] + b[i]` | `a, b, c, n` | all; exec-masked tail for `n` not a multiple of [`VECTOR_ADD_BLOCK`] |
//! | [`reduce_sum`] one f32 sum per workgroup of [`REDUCE_BLOCK`] | `input, partials` | all; tree in LDS with `s_barrier` |
//! | [`matrix_tile`] `D = A·B`, one MFMA/WMMA, row-major A (M×K), B (K×N), D (M×N) | `a, b, d` | per [`TileKind::supported`] |
//! | [`missing_waitcnt`], [`missing_mfma_nop`], [`oob_store`] | | built unchecked |
//!
//! Lane layouts come from amdgpu.md §4 (AMD's matrix instruction calculator), computed
//! here from the formulas directly — deliberately not from `rocm_core::isa::amdgpu::matrix`,
//! so these kernels check that module independently. Every lane's addresses are shifts
//! and adds of `i = lane % M` and `h = lane / M` (the K-slice), all by powers of two.

use super::asm::{AssembledKernel, Assembler};
use super::regs::{Sgpr, Vgpr};
use rocm_core::isa::amdgpu::{IsaFamily, IsaTarget, Op, Operand};
use rocm_core::{Error, Result};

/// Work-items per workgroup of [`vector_add`].
pub const VECTOR_ADD_BLOCK: u32 = 128;
/// Work-items per workgroup of [`reduce_sum`] (4 waves on gfx9, 8 on gfx11).
pub const REDUCE_BLOCK: u32 = 256;

fn gfx11(t: IsaTarget) -> bool {
    t.family() == IsaFamily::Gfx11
}

/// `v_lshl_add_u32 d, a, sh, b`: `d = (a << sh) + b`.
fn lshl_add(k: &mut Assembler, d: Vgpr, a: Vgpr, sh: u32, b: Operand) {
    k.op(
        Op::VLshlAddU32,
        [d.op(), a.op(), Operand::imm32(i64::from(sh)), b],
    );
}

/// `v_lshlrev_b32 d, sh, a`: `d = a << sh`.
fn shl(k: &mut Assembler, d: Vgpr, a: Vgpr, sh: u32) {
    k.op(
        Op::VLshlrevB32,
        [d.op(), Operand::imm32(i64::from(sh)), a.op()],
    );
}

/// `c[i] = a[i] + b[i]` for `i < n`, one element per work-item, [`VECTOR_ADD_BLOCK`]
/// work-items per workgroup; lanes past `n` are masked off with `s_and_saveexec`.
pub fn vector_add(t: IsaTarget) -> Result<AssembledKernel> {
    let mut k = Assembler::new(t, "vector_add", VECTOR_ADD_BLOCK, 1)?;
    let a = k.arg_pointer("a")?;
    let b = k.arg_pointer("b")?;
    let c = k.arg_pointer("c")?;
    let n = k.arg_u32("n")?;
    let tid = k.workitem_id(0)?;
    let wg = k.workgroup_id(0)?;
    let base = k.sgprs(1)?;
    let gid = k.vgprs(1)?;
    let saved = k.mask_sgprs()?;
    let done = k.label("done");
    // gid = wg * BLOCK + tid
    k.op(
        Op::SLshlB32,
        [
            base.op(),
            wg.op(),
            Operand::Int(VECTOR_ADD_BLOCK.trailing_zeros() as i8),
        ],
    );
    k.op(Op::VAddU32, [gid.op(), base.op(), tid.op()]);
    k.wait_lgkm(0);
    let vcc = k.vcc();
    k.op(Op::VCmpGtU32, [vcc, n.op(), gid.op()]);
    k.and_saveexec(saved, vcc);
    k.cbranch(Op::SCbranchExecz, done);
    let off = k.vgprs(1)?;
    let (x, y) = (k.vgprs(1)?, k.vgprs(1)?);
    shl(&mut k, off, gid, 2);
    k.global_load(Op::GlobalLoadDword, x, off, a, 0);
    k.global_load(Op::GlobalLoadDword, y, off, b, 0);
    k.wait_vm(0);
    k.op(Op::VAddF32, [x.op(), x.op(), y.op()]);
    k.global_store(Op::GlobalStoreDword, off, x, c, 0);
    k.bind(done);
    k.s_endpgm();
    k.finish()
}

/// `partials[w] = sum(input[w*256 .. w*256+256])` for each workgroup `w` of
/// [`REDUCE_BLOCK`] work-items: each work-item stores its element to LDS, then a loop
/// halves the active range (`stride = 128, 64, .., 1`: work-items below `stride` add the
/// element `stride` above) with an `s_barrier` per step; work-item 0 writes the result.
pub fn reduce_sum(t: IsaTarget) -> Result<AssembledKernel> {
    let mut k = Assembler::new(t, "reduce_sum", REDUCE_BLOCK, 1)?;
    let input = k.arg_pointer("input")?;
    let out = k.arg_pointer("partials")?;
    let lds = k.lds(REDUCE_BLOCK * 4, 4)?;
    let tid = k.workitem_id(0)?;
    let wg = k.workgroup_id(0)?;
    let (base, stride, bytes) = (k.sgprs(1)?, k.sgprs(1)?, k.sgprs(1)?);
    let saved = k.mask_sgprs()?;
    let (gid, off, addr, x, y, other) = (
        k.vgprs(1)?,
        k.vgprs(1)?,
        k.vgprs(1)?,
        k.vgprs(1)?,
        k.vgprs(1)?,
        k.vgprs(1)?,
    );
    let step = k.label("step");
    let vcc = k.vcc();
    k.op(
        Op::SLshlB32,
        [
            base.op(),
            wg.op(),
            Operand::Int(REDUCE_BLOCK.trailing_zeros() as i8),
        ],
    );
    k.op(Op::VAddU32, [gid.op(), base.op(), tid.op()]);
    shl(&mut k, off, gid, 2);
    // LDS address of this work-item's slot.
    lshl_add(&mut k, addr, tid, 2, Operand::imm32(i64::from(lds)));
    k.wait_lgkm(0);
    k.global_load(Op::GlobalLoadDword, x, off, input, 0);
    k.wait_vm(0);
    k.ds_write(Op::DsWriteB32, addr, x, 0);
    k.op(
        Op::SMovB32,
        [stride.op(), Operand::imm32(i64::from(REDUCE_BLOCK / 2))],
    );
    k.wait_lgkm(0);
    k.s_barrier();
    k.bind(step);
    k.op(Op::VCmpGtU32, [vcc, stride.op(), tid.op()]);
    k.and_saveexec(saved, vcc);
    k.op(Op::SLshlB32, [bytes.op(), stride.op(), Operand::Int(2)]);
    k.op(Op::VAddU32, [other.op(), bytes.op(), addr.op()]);
    k.ds_read(Op::DsReadB32, x, addr, 0);
    k.ds_read(Op::DsReadB32, y, other, 0);
    k.wait_lgkm(0);
    k.op(Op::VAddF32, [x.op(), x.op(), y.op()]);
    k.ds_write(Op::DsWriteB32, addr, x, 0);
    k.wait_lgkm(0);
    k.restore_exec(saved);
    k.s_barrier();
    k.op(Op::SLshrB32, [stride.op(), stride.op(), Operand::Int(1)]);
    k.op(Op::SCmpLgU32, [stride.op(), Operand::Int(0)]);
    k.cbranch(Op::SCbranchScc1, step);
    // Work-item 0 stores the workgroup's sum.
    let done = k.label("done");
    k.op(Op::VCmpEqU32, [vcc, Operand::Int(0), tid.op()]);
    k.and_saveexec(saved, vcc);
    k.cbranch(Op::SCbranchExecz, done);
    k.ds_read(Op::DsReadB32, x, addr, 0);
    k.op(Op::SLshlB32, [bytes.op(), wg.op(), Operand::Int(2)]);
    k.op(Op::VMovB32, [off.op(), bytes.op()]);
    k.wait_lgkm(0);
    k.global_store(Op::GlobalStoreDword, off, x, out, 0);
    k.bind(done);
    k.s_endpgm();
    k.finish()
}

/// The matrix products of [`matrix_tile`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum TileKind {
    /// f32 inputs, f32 D: `v_mfma_f32_32x32x2_f32` (gfx9).
    MfmaF32,
    /// f16 inputs: `v_mfma_f32_32x32x8f16` (gfx9).
    MfmaF16,
    /// bf16 inputs: gfx908 `v_mfma_f32_32x32x4bf16` (K = 4), gfx90a
    /// `v_mfma_f32_32x32x8bf16_1k`, gfx942 `v_mfma_f32_32x32x8_bf16`.
    MfmaBf16,
    /// f64: `v_mfma_f64_16x16x4f64` (gfx90a, gfx942).
    MfmaF64,
    /// f32 inputs multiplied as xf32: `v_mfma_f32_32x32x4_xf32` (gfx942).
    MfmaXf32,
    /// gfx11 `v_wmma_f32_16x16x16_f16`.
    WmmaF16F32,
    /// gfx11 `v_wmma_f32_16x16x16_bf16`.
    WmmaBf16F32,
    /// gfx11 `v_wmma_f16_16x16x16_f16` (D in the low halves).
    WmmaF16F16,
}

/// Element types of a tile's inputs and output.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Elem {
    F16,
    Bf16,
    F32,
    F64,
}

impl Elem {
    pub fn bytes(self) -> u32 {
        match self {
            Elem::F16 | Elem::Bf16 => 2,
            Elem::F32 => 4,
            Elem::F64 => 8,
        }
    }
}

/// The shape and types of one tile product on one target.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TileShape {
    pub op: Op,
    pub m: u32,
    pub n: u32,
    pub k: u32,
    pub input: Elem,
    pub output: Elem,
}

impl TileKind {
    pub const ALL: [TileKind; 8] = [
        TileKind::MfmaF32,
        TileKind::MfmaF16,
        TileKind::MfmaBf16,
        TileKind::MfmaF64,
        TileKind::MfmaXf32,
        TileKind::WmmaF16F32,
        TileKind::WmmaBf16F32,
        TileKind::WmmaF16F16,
    ];

    /// The instruction and shape on `t`, `None` where the target lacks it.
    pub fn shape(self, t: IsaTarget) -> Option<TileShape> {
        use IsaTarget::*;
        let s = |op, m, n, k, input, output| {
            Some(TileShape {
                op,
                m,
                n,
                k,
                input,
                output,
            })
        };
        let g9 = !gfx11(t);
        match self {
            TileKind::MfmaF32 if g9 => s(Op::VMfmaF32_32x32x2F32, 32, 32, 2, Elem::F32, Elem::F32),
            TileKind::MfmaF16 if g9 => s(Op::VMfmaF32_32x32x8F16, 32, 32, 8, Elem::F16, Elem::F32),
            TileKind::MfmaBf16 if t == Gfx908 => {
                s(Op::VMfmaF32_32x32x4Bf16, 32, 32, 4, Elem::Bf16, Elem::F32)
            }
            TileKind::MfmaBf16 if g9 => s(
                Op::VMfmaF32_32x32x8Bf16_1k,
                32,
                32,
                8,
                Elem::Bf16,
                Elem::F32,
            ),
            TileKind::MfmaF64 if g9 && t != Gfx908 => {
                s(Op::VMfmaF64_16x16x4F64, 16, 16, 4, Elem::F64, Elem::F64)
            }
            TileKind::MfmaXf32 if t == Gfx942 => {
                s(Op::VMfmaF32_32x32x4Xf32, 32, 32, 4, Elem::F32, Elem::F32)
            }
            TileKind::WmmaF16F32 if !g9 => {
                s(Op::VWmmaF32_16x16x16F16, 16, 16, 16, Elem::F16, Elem::F32)
            }
            TileKind::WmmaBf16F32 if !g9 => {
                s(Op::VWmmaF32_16x16x16Bf16, 16, 16, 16, Elem::Bf16, Elem::F32)
            }
            TileKind::WmmaF16F16 if !g9 => {
                s(Op::VWmmaF16_16x16x16F16, 16, 16, 16, Elem::F16, Elem::F16)
            }
            _ => None,
        }
    }

    /// A kernel name for the tile.
    pub fn kernel_name(self) -> &'static str {
        match self {
            TileKind::MfmaF32 => "mfma_f32",
            TileKind::MfmaF16 => "mfma_f16",
            TileKind::MfmaBf16 => "mfma_bf16",
            TileKind::MfmaF64 => "mfma_f64",
            TileKind::MfmaXf32 => "mfma_xf32",
            TileKind::WmmaF16F32 => "wmma_f16_f32",
            TileKind::WmmaBf16F32 => "wmma_bf16_f32",
            TileKind::WmmaF16F16 => "wmma_f16_f16",
        }
    }
}

fn log2(x: u32) -> u32 {
    x.trailing_zeros()
}

/// Loads `per_lane` consecutive K values of one B column into `dst` (packed two per
/// VGPR for 16-bit types), from byte offset `boff` plus `r * N * bytes` for value `r`.
fn load_b_column(
    k: &mut Assembler,
    s: &TileShape,
    dst: Vgpr,
    boff: Vgpr,
    base: Sgpr,
    per_lane: u32,
) -> Result<()> {
    let es = s.input.bytes();
    let stride = (s.n * es) as i32;
    if es == 2 {
        let tmp = k.vgprs(per_lane as u8)?;
        for r in 0..per_lane {
            k.global_load(
                Op::GlobalLoadUshort,
                tmp.at(r as u8),
                boff,
                base,
                r as i32 * stride,
            );
        }
        k.wait_vm(0);
        for p in 0..per_lane / 2 {
            k.op(
                Op::VLshlOrB32,
                [
                    dst.at(p as u8).op(),
                    tmp.at(2 * p as u8 + 1).op(),
                    Operand::Int(16),
                    tmp.at(2 * p as u8).op(),
                ],
            );
        }
    } else {
        let op = if es == 8 {
            Op::GlobalLoadDwordx2
        } else {
            Op::GlobalLoadDword
        };
        let regs = (es / 4) as u8;
        for r in 0..per_lane {
            k.global_load(
                op,
                dst.sub(r as u8 * regs, regs),
                boff,
                base,
                r as i32 * stride,
            );
        }
        k.wait_vm(0);
    }
    Ok(())
}

/// `D = A·B` for one tile with one matrix instruction, one wave: A (M×K), B (K×N) and
/// D (M×N) row-major in global memory.
pub fn matrix_tile(t: IsaTarget, kind: TileKind) -> Result<AssembledKernel> {
    let s = kind
        .shape(t)
        .ok_or_else(|| Error::unsupported(kind.kernel_name(), t.name()))?;
    let wave = t.wave_size();
    let mut k = Assembler::new(t, kind.kernel_name(), wave, 1)?;
    let a = k.arg_pointer("a")?;
    let b = k.arg_pointer("b")?;
    let d = k.arg_pointer("d")?;
    let lane = k.workitem_id(0)?;
    let (i, h) = (k.vgprs(1)?, k.vgprs(1)?);
    let (aoff, boff, doff) = (k.vgprs(1)?, k.vgprs(1)?, k.vgprs(1)?);
    let es = s.input.bytes();
    // WMMA: A/B replicated in both half-waves (lane and lane + 16 hold the same row /
    // column), so `i = lane % 16` and no K-slice. MFMA: the K-slice is `lane / M`.
    let slices = if gfx11(t) { 1 } else { wave / s.m };
    let per_lane = s.k / slices;
    k.op(
        Op::VAndB32,
        [i.op(), Operand::imm32(i64::from(s.m - 1)), lane.op()],
    );
    k.op(
        Op::VLshrrevB32,
        [h.op(), Operand::imm32(i64::from(log2(s.m))), lane.op()],
    );
    // A[i][per_lane*h ..]: contiguous in the row: (i*K + per_lane*h) * es.
    shl(&mut k, aoff, i, log2(s.k * es));
    if slices > 1 {
        lshl_add(&mut k, aoff, h, log2(per_lane * es), aoff.op());
    }
    // B[per_lane*h + r][j] with j = i: (per_lane*h*N + j) * es + r*N*es.
    shl(&mut k, boff, i, log2(es));
    if slices > 1 {
        lshl_add(&mut k, boff, h, log2(per_lane * s.n * es), boff.op());
    }
    let a_regs = (per_lane * es).div_ceil(4) as u8;
    let av = k.vgprs(a_regs)?;
    let bv = k.vgprs(a_regs)?;
    k.wait_lgkm(0);
    // A: one contiguous run of per_lane*es bytes, in loads of at most 16 bytes.
    let mut done = 0u8;
    while done < a_regs {
        let n = (a_regs - done).min(4);
        let op = match n {
            1 => Op::GlobalLoadDword,
            2 => Op::GlobalLoadDwordx2,
            3 => Op::GlobalLoadDwordx3,
            _ => Op::GlobalLoadDwordx4,
        };
        k.global_load(op, av.sub(done, n), aoff, a, i32::from(done) * 4);
        done += n;
    }
    load_b_column(&mut k, &s, bv, boff, b, per_lane)?;
    let out_es = s.output.bytes();
    let d_regs: u8 = if gfx11(t) {
        8
    } else {
        (s.m * s.n * out_es / 4 / wave) as u8
    };
    let dv = k.vgprs(d_regs)?;
    if gfx11(t) {
        for r in 0..d_regs {
            k.op(Op::VMovB32, [dv.at(r).op(), Operand::Int(0)]);
        }
        k.op(s.op, [dv.op(), av.op(), bv.op(), dv.op()]);
    } else if t == IsaTarget::Gfx908 {
        // gfx908: C/D only in AGPRs; zero them, multiply, read back.
        let acc = k.agprs(d_regs)?;
        for r in 0..d_regs {
            k.op(Op::VAccvgprWriteB32, [acc.at(r).op(), Operand::Int(0)]);
        }
        k.op(s.op, [acc.op(), av.op(), bv.op(), acc.op()]);
        for r in 0..d_regs {
            k.op(Op::VAccvgprReadB32, [dv.at(r).op(), acc.at(r).op()]);
        }
    } else {
        k.op(s.op, [dv.op(), av.op(), bv.op(), Operand::Int(0)]);
    }
    store_d(&mut k, t, &s, dv, doff, i, h, d)?;
    k.s_endpgm();
    k.finish()
}

/// Stores D row-major per the documented C/D layouts.
#[allow(clippy::too_many_arguments)]
fn store_d(
    k: &mut Assembler,
    t: IsaTarget,
    s: &TileShape,
    dv: Vgpr,
    doff: Vgpr,
    i: Vgpr,
    h: Vgpr,
    d: Sgpr,
) -> Result<()> {
    let es = s.output.bytes();
    if gfx11(t) {
        // Register r, lane l: row 2r + l/16, column l%16: offset (32r + l) * es.
        let lane = k.vgprs(1)?;
        lshl_add(k, lane, h, log2(s.m), i.op());
        shl(k, doff, lane, log2(es));
        let op = if es == 2 {
            Op::GlobalStoreShort
        } else {
            Op::GlobalStoreDword
        };
        for r in 0..8u8 {
            k.global_store(op, doff, dv.at(r), d, i32::from(r) * 32 * es as i32);
        }
    } else if s.m == 32 {
        // Register g, lane l: row 8(g/4) + 4(l/32) + g%4, column l%32.
        shl(k, doff, i, log2(es));
        lshl_add(k, doff, h, log2(4 * s.n * es), doff.op());
        for g in 0..16u8 {
            let row = 8 * (u32::from(g) / 4) + u32::from(g) % 4;
            k.global_store(
                Op::GlobalStoreDword,
                doff,
                dv.at(g),
                d,
                (row * s.n * es) as i32,
            );
        }
    } else {
        // f64 16x16: pair p, lane l: row 4p + l/16, column l%16: offset (64p + l) * 8.
        let lane = k.vgprs(1)?;
        lshl_add(k, lane, h, log2(s.m), i.op());
        shl(k, doff, lane, log2(es));
        for p in 0..4u8 {
            k.global_store(
                Op::GlobalStoreDwordx2,
                doff,
                dv.sub(2 * p, 2),
                d,
                i32::from(p) * 64 * es as i32,
            );
        }
    }
    k.wait_stores();
    Ok(())
}

/// Every (kind, target) pair with a tile product.
pub fn tile_targets() -> Vec<(TileKind, IsaTarget)> {
    TileKind::ALL
        .iter()
        .flat_map(|&kind| {
            IsaTarget::ALL
                .iter()
                .filter(move |&&t| kind.shape(t).is_some())
                .map(move |&t| (kind, t))
        })
        .collect()
}

// ---- deliberately broken kernels (built unchecked) -------------------------------------

/// `out[i] = in[i] * 2` for one wave, with the `s_waitcnt vmcnt(0)` between the load and
/// the use left out. Arguments `input, out`.
pub fn missing_waitcnt(t: IsaTarget) -> Result<AssembledKernel> {
    let mut k = Assembler::new(t, "missing_waitcnt", t.wave_size(), 1)?;
    let input = k.arg_pointer("input")?;
    let out = k.arg_pointer("out")?;
    let tid = k.workitem_id(0)?;
    let (off, x) = (k.vgprs(1)?, k.vgprs(1)?);
    shl(&mut k, off, tid, 2);
    k.wait_lgkm(0);
    k.global_load(Op::GlobalLoadDword, x, off, input, 0);
    // Missing: s_waitcnt vmcnt(0).
    k.op(Op::VAddF32, [x.op(), x.op(), x.op()]);
    k.global_store(Op::GlobalStoreDword, off, x, out, 0);
    k.s_endpgm();
    k.finish_unchecked()
}

/// The gfx9 f32 MFMA tile with its result read right after the MFMA: no hazard NOPs
/// (built unchecked). Arguments as [`matrix_tile`].
pub fn missing_mfma_nop(t: IsaTarget) -> Result<AssembledKernel> {
    if gfx11(t) {
        return Err(Error::unsupported("missing_mfma_nop", t.name()));
    }
    let mut k = Assembler::new(t, "missing_mfma_nop", t.wave_size(), 1)?;
    let a = k.arg_pointer("a")?;
    let b = k.arg_pointer("b")?;
    let d = k.arg_pointer("d")?;
    let lane = k.workitem_id(0)?;
    let (off, x, y) = (k.vgprs(1)?, k.vgprs(1)?, k.vgprs(1)?);
    shl(&mut k, off, lane, 2);
    k.wait_lgkm(0);
    k.global_load(Op::GlobalLoadDword, x, off, a, 0);
    k.global_load(Op::GlobalLoadDword, y, off, b, 0);
    k.wait_vm(0);
    let dv = k.vgprs(16)?;
    if t == IsaTarget::Gfx908 {
        let acc = k.agprs(16)?;
        for r in 0..16 {
            k.op(Op::VAccvgprWriteB32, [acc.at(r).op(), Operand::Int(0)]);
        }
        k.op(
            Op::VMfmaF32_32x32x2F32,
            [acc.op(), x.op(), y.op(), acc.op()],
        );
        // Reads the MFMA result with no wait states.
        k.op(Op::VAccvgprReadB32, [dv.at(0).op(), acc.at(0).op()]);
    } else {
        k.op(
            Op::VMfmaF32_32x32x2F32,
            [dv.op(), x.op(), y.op(), Operand::Int(0)],
        );
    }
    // Stores the MFMA result with no wait states.
    k.global_store(Op::GlobalStoreDword, off, dv.at(0), d, 0);
    k.s_endpgm();
    k.finish_unchecked()
}

/// Writes `out[i + 1] = i` for one wave: with a buffer of one wave's elements the last
/// lane stores one past its end. Argument `out`.
pub fn oob_store(t: IsaTarget) -> Result<AssembledKernel> {
    let mut k = Assembler::new(t, "oob_store", t.wave_size(), 1)?;
    let out = k.arg_pointer("out")?;
    let tid = k.workitem_id(0)?;
    let off = k.vgprs(1)?;
    shl(&mut k, off, tid, 2);
    k.wait_lgkm(0);
    k.global_store(Op::GlobalStoreDword, off, tid, out, 4);
    k.s_endpgm();
    k.finish_unchecked()
}
