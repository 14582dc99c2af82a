//! AMDGPU GEMM kernels: MFMA on gfx908/gfx90a/gfx942, WMMA (wave32) on gfx11, and a
//! register-tiled FMA kernel (f32, f64; every target) for what has no matrix instruction
//! (f32/f64 on gfx11, f64 on gfx908), built with
//! the [`Assembler`](crate::amdgpu::Assembler) from [`GemmParams`] under the contract of
//! [`crate::gemm`] (arguments, grid `(⌈m/tile_m⌉, ⌈n/tile_n⌉, batch)`, column-major,
//! D = C in place).
//!
//! # Algorithm
//!
//! A workgroup of `warps_m × warps_n` waves owns a `tile_m × tile_n` tile of C; wave
//! `(wm, wn)` owns a `blocks_m·M × blocks_n·N` sub-tile of instruction blocks (M×N×K the
//! MFMA/WMMA shape). The k loop walks `tile_k`-deep slices (Tensile's DepthU):
//!
//! 1. **Global → staging VGPRs.** Each operand (A: m×k, B: k×n after `op`) is loaded in
//!    vectors of `vw` elements (≤ 16 bytes) along its stored-contiguous dimension: work-item
//!    `tid` takes vector `tid % c_units` along it and `tid / c_units + w·ostep` across it.
//!    Where the stored-contiguous dimension is m (A) / n (B), a load *unit* is `word_k`
//!    such vectors at consecutive k, so the lane can transpose them into k-packed words.
//! 2. **Staging → LDS**, layout `[k / word_k][mn]` of *words* of `word_k` consecutive k
//!    values (at most 16 bytes, at least 4; the widest both operands' load split and the
//!    step count allow): mn is contiguous, so the instruction's lanes (consecutive rows /
//!    columns) read consecutive words. 16-bit words are built with `v_perm_b32` (two
//!    16-bit halves from two vectors), 32/64-bit ones with `v_mov`; k-contiguous operands
//!    need no packing. Each row is padded by the first of [`plan::LDS_PADS`] with the
//!    fewest bank-conflict cycles under [`plan::lds_cycles`]'s model of this tile's write
//!    and read patterns.
//! 3. **LDS → operand VGPRs**, one `ds_read_b32/b64/b128` per word. An MFMA lane holds
//!    row `l % M` (column `l % N`) and K-slice `h = l / M` of `kl` values; a gfx11 WMMA
//!    lane holds the whole 16-deep row, and lanes 16–31 read the same addresses, which is
//!    the replication WMMA requires (`rocm_core::isa::amdgpu::matrix`). When a word holds
//!    more than `kl` values it feeds `spw = word_k / kl` consecutive steps: lane slice
//!    `h` of step `s` reads word row `(s / spw)·slices + h` and uses its `(s % spw)`-th
//!    `kl`-run. This permutes which k each (step, slice) multiplies — A and B the same
//!    way, so every product pairs equal k and the sum is unchanged.
//! 4. **Matrix instructions** on accumulators in VGPRs (AGPRs on gfx908, and on
//!    gfx90a/gfx942 when they pass [`plan::ACC_VGPR_LIMIT`] registers). All LDS reads of
//!    a slice are issued first; each word group waits only for its own (`lgkmcnt`).
//!
//! With `stages = 2` the LDS is double-buffered and the next slice's global loads are
//! issued before the current slice's matrix instructions (one barrier per slice); with
//! `stages = 1` one buffer is reused (two barriers, no prefetch).
//!
//! # The FMA kernel (`GemmInstruction::Simt { thread_m, thread_n }`)
//!
//! Steps 1 and 2 are the same with words of one element (`word_k = 1`): LDS holds
//! `[k][mn]` rows. Lane `l` of a wave owns `thread_m × thread_n` results of the wave's
//! tile (`lanes_m · lanes_n` lanes = the wave size, 64 on gfx9, 32 on gfx11), in chunks
//! of at most 16 bytes of consecutive rows (columns): chunk `c` of its rows starts at
//! row `c·lanes_m·chunk_m + (l % lanes_m)·chunk_m`, of its columns at
//! `c·lanes_n·chunk_n + (l / lanes_m)·chunk_n` ([`plan::FmaTile`]), so one read's lanes
//! take consecutive 16-byte pieces of an LDS row. For each k of the slice it reads its
//! A and B chunks of row k (`ds_read_b64` for an 8-byte run, else one `ds_read_b128`
//! per chunk: at most 64 bytes, so 16 f32 or 8 f64 per side; accumulators at most 128
//! VGPRs) into one of two register sets, the next k's reads issued before this k's
//! `thread_m · thread_n` `v_fma_f32/f64` (each k waits only for its own reads),
//! accumulating in VGPRs in k order. The epilogue stores each of the lane's columns as
//! runs of consecutive rows (one per chunk at most), under the same edge masks; its
//! registers come from the dead operand sets.
//!
//! # Edges
//!
//! A workgroup whose tile lies inside the matrix in m (A) or n (B), and a full k slice,
//! take the vector loads above. Otherwise the operand is loaded element by element with
//! EXEC masking: lanes whose element has `mn ≥ rows left` or `k ≥ k left` load nothing and
//! keep a zero, so no address outside the matrix is touched and the k tail adds exact
//! zeros. The epilogue of an edge workgroup stores element by element under the same
//! mask; interior workgroups store runs of consecutive rows as vectors.
//!
//! # Epilogue
//!
//! `D = α·acc + β·C` in the compute type (`v_mul`, then `v_fma` with β·C), rounded once
//! to C's type: f16 by `v_cvt_f16_f32` (nearest even), bf16 by integer round-to-nearest-
//! even (NaN kept quiet), f32/f64 as is. β = 0 (either sign) branches to a variant that
//! never reads C.
//!
//! # Limits
//!
//! Tiles and wave counts are powers of two; addresses inside one batch entry are 32-bit
//! byte offsets from the tile's base, so `(tile_mn + tile_k·ld)·es` and
//! `(m + n·ldc)·es_c` per tile must stay below 2³².
//!
//! [`model`] holds the resource report and the static issue model of the main loop.

pub mod emit;
pub mod model;
pub mod plan;

use crate::amdgpu::AssembledKernel;
use crate::gemm::{GemmInstruction, GemmParams};
use crate::generator::{LaunchRule, Program};
use plan::Plan;
use rocm_core::isa::amdgpu::IsaTarget;
use rocm_core::{ModuleImage, Result, Target};

/// The kernel name of `p`: `gemm_<ab>_<c>_<compute>_<NN|NT|TN|TT>_<tile>_<instruction>_<waves>_s<stages>`.
pub fn kernel_name(p: &GemmParams) -> String {
    let t = |x: bool| if x { 'T' } else { 'N' };
    let inst = match p.instruction {
        GemmInstruction::Mfma { m, n, k } => format!("mfma{m}x{n}x{k}"),
        GemmInstruction::Wmma => "wmma16x16x16".to_string(),
        GemmInstruction::Simt { thread_m, thread_n } => format!("simt{thread_m}x{thread_n}"),
        GemmInstruction::MmaSync { m, n, k } => format!("mma{m}x{n}x{k}"),
        GemmInstruction::Wgmma { n } => format!("wgmma64x{n}"),
    };
    format!(
        "gemm_{}_{}_{}{}_{}{}_{}x{}x{}_{}_w{}x{}_s{}",
        p.ab,
        p.c,
        p.compute,
        if p.reduced_f32 { "x" } else { "" },
        t(p.trans_a),
        t(p.trans_b),
        p.tile_m,
        p.tile_n,
        p.tile_k,
        inst,
        p.warps_m,
        p.warps_n,
        p.stages
    )
}

/// The kernel of `p` on `t`.
pub fn generate(p: &GemmParams, t: IsaTarget) -> Result<AssembledKernel> {
    let plan = Plan::new(p, t)?;
    emit::kernel(&plan, &kernel_name(p))
}

/// The [`Program`] of `p` for `target`: one kernel. GEMM launches follow the contract's
/// 3-D grid, not a [`LaunchRule`]; `launch` records the workgroup size (`grid` 1).
pub fn program(p: &GemmParams, target: &Target) -> Result<Program> {
    let t = IsaTarget::try_from(target)?;
    let k = generate(p, t)?;
    Ok(Program {
        image: ModuleImage::CodeObject(k.to_elf()?),
        kernels: vec![k.name().to_string()],
        signatures: Vec::new(),
        launch: LaunchRule::Fixed {
            grid: 1,
            block: p.threads(target),
        },
    })
}
