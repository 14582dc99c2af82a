//! NVIDIA GEMM generators (PTX), following the contract in [`crate::gemm`].
//!
//! - [`simt`]: a register-tiled kernel for f32 and f64 (every transpose, any shape),
//!   whose inner product is FMAs (SIMT) or, for f64, DMMA (`mma.sync.m8n8k4`).
//!   tf32 (f32 data with `reduced_f32`) goes through `mma.sync.m16n8k8` on the same
//!   pipeline, the inputs rounded to tf32 as they leave shared memory.
//!   f16/bf16 inputs with f32 output and accumulation go through `mma.sync.m16n8k16`
//!   (k pairs packed from the k-major shared tiles; no ldmatrix or cp.async yet).
//! - Other `mma.sync` shapes are `Unsupported`.
//! - [`wgmma`]: warpgroup MMA (`wgmma.mma_async`) for f16/bf16 inputs (f32 accumulation,
//!   f32 or same-type output) and tf32 (A transposed, B not), on compute capability 9.0
//!   targets only (emitted as `sm_90a`; others: `Unsupported`). Its shared ring is
//!   dynamic: launch with [`wgmma::shared_bytes`] bytes (above 48 KiB: the CUDA backend
//!   opts the kernel in), and only for operands meeting [`wgmma::aligned`].
//!
//! One kernel per program, named [`KERNEL`]; the program's [`LaunchRule`] carries only
//! the block size (the grid is the contract's 3-D `(⌈m/tile_m⌉, ⌈n/tile_n⌉, batch)`,
//! which the host computes). The SIMT/`mma.sync` kernels use no dynamic shared memory
//! (shared tiles are static, within the 48 KiB a kernel may declare without opting in);
//! [`dynamic_shared_bytes`] says what a variant needs.

pub mod simt;
pub mod wgmma;

use super::{GemmInstruction, GemmParams};

/// Tile rows per group of the block order (L2 reuse).
pub const GROUP_M: u32 = 8;

/// The block's tile (row, column; in tiles) in the grouped order every NVIDIA GEMM kernel
/// visits its grid in: the block with linear id `L = ctaid.x + ctaid.y · gx` takes tile
/// row `first + r mod rows` and tile column `r / rows` of its group of [`GROUP_M`] tile
/// rows (`r = L mod (GROUP_M · gy)`), so the blocks resident together share A and B
/// tiles in L2. (The wgmma kernels use it; the register-tiled ones keep the linear
/// order, see `simt`.)
pub(crate) fn grouped_tile(
    k: &mut crate::ptx::KernelBuilder,
) -> (crate::ptx::Reg, crate::ptx::Reg) {
    use crate::ptx::{Special, Ty};
    let bx = k.special(Special::CtaidX);
    let by = k.special_named("%ctaid.y");
    let gx = k.special(Special::NctaidX);
    let gy = k.special_named("%nctaid.y");
    let lin = k.fma(Ty::U32, by, gx, bx);
    let group_size = k.mul(Ty::U32, gy, GROUP_M);
    let group = k.div(Ty::U32, lin, group_size);
    let first = k.mul(Ty::U32, group, GROUP_M);
    let left = k.sub(Ty::U32, gx, first);
    let rows = k.min(Ty::U32, left, GROUP_M);
    let in_group = k.reg(Ty::U32);
    k.emit(format!("rem.u32 {in_group}, {lin}, {group_size}"));
    let rr = k.reg(Ty::U32);
    k.emit(format!("rem.u32 {rr}, {in_group}, {rows}"));
    let tm = k.add(Ty::U32, first, rr);
    let tn = k.div(Ty::U32, in_group, rows);
    (tm, tn)
}

use crate::generator::{LaunchRule, Program};
use rocm_core::{Arch, DType, Error, ModuleImage, Result, Target};

/// The kernel's name in every program.
pub const KERNEL: &str = "rocm_gemm";

/// Which PTX emitter builds a variant.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Emitter {
    /// Register-tiled SIMT and `mma.sync` kernels ([`simt`]).
    Simt,
    /// Warpgroup MMA kernels ([`wgmma`]).
    Wgmma,
}

/// The emitter of `p` on `target`, or why no emitter builds it.
fn emitter(p: &GemmParams, target: &Target) -> Result<Emitter> {
    Ok(match p.instruction {
        GemmInstruction::Simt { .. } => Emitter::Simt,
        GemmInstruction::MmaSync { m: 8, n: 8, k: 4 } if p.ab == DType::F64 => Emitter::Simt,
        GemmInstruction::MmaSync { m: 16, n: 8, k: 8 } if p.ab == DType::F32 => Emitter::Simt,
        GemmInstruction::MmaSync {
            m: 16,
            n: 8,
            k: 4 | 8 | 16,
        } if p.ab == DType::F64 => Emitter::Simt,
        GemmInstruction::MmaSync { m: 16, n: 8, k: 16 }
            if matches!(p.ab, DType::F16 | DType::Bf16) =>
        {
            Emitter::Simt
        }
        GemmInstruction::Wgmma { .. } if matches!(target.arch(), Arch::Sm90 | Arch::Sm90a) => {
            Emitter::Wgmma
        }
        GemmInstruction::Wgmma { .. } => {
            return Err(Error::unsupported(
                "wgmma GEMM kernels (sm_90a)",
                target.to_string(),
            ))
        }
        GemmInstruction::MmaSync { m, n, k } => {
            return Err(Error::unsupported(
                format!("mma.sync m{m}n{n}k{k} GEMM kernels"),
                target.to_string(),
            ))
        }
        GemmInstruction::Mfma { .. } | GemmInstruction::Wmma => {
            return Err(Error::invalid(
                "instruction",
                format!(
                    "{:?} is an AMD instruction; {target} runs PTX",
                    p.instruction
                ),
            ))
        }
    })
}

/// Whether `p` builds on `target`, answered by the emitter's planning step alone
/// (without emitting the kernel).
pub fn check(p: &GemmParams, target: &Target) -> Result<()> {
    match emitter(p, target)? {
        Emitter::Simt => simt::check(p, target),
        Emitter::Wgmma => wgmma::check(p, target),
    }
}

/// Generates the program for `p` on an NVIDIA target.
pub fn program(p: &GemmParams, target: &Target) -> Result<Program> {
    let text = match emitter(p, target)? {
        Emitter::Simt => simt::generate(p, target)?,
        Emitter::Wgmma => wgmma::generate(p, target)?,
    };
    Ok(Program {
        image: ModuleImage::Ptx(text),
        kernels: vec![KERNEL.into()],
        signatures: vec![super::signature(p, target)?],
        launch: LaunchRule::Fixed {
            grid: 1,
            block: p.threads(target),
        },
    })
}

/// Dynamic shared memory (bytes) a launch of `p` needs: the `wgmma` ring, else 0.
pub fn dynamic_shared_bytes(p: &GemmParams) -> u32 {
    match p.instruction {
        GemmInstruction::Wgmma { .. } => wgmma::shared_bytes(p),
        _ => simt::dynamic_shared_bytes(p),
    }
}

/// Workgroups of `p` one SM can hold at once, estimated from what the host knows: the
/// dynamic shared memory of a `wgmma` variant (227 KiB per SM), else the threads (2048
/// per SM), at most 4 (the register file bounds the register-tiled kernels near there).
/// Split-K sizes its slices by it.
pub fn resident_blocks(p: &GemmParams, target: &Target) -> u32 {
    const SHARED_PER_SM: u32 = 227 * 1024;
    const THREADS_PER_SM: u32 = 2048;
    match p.instruction {
        GemmInstruction::Wgmma { .. } => (SHARED_PER_SM / dynamic_shared_bytes(p).max(1)).max(1),
        _ => {
            let by_threads = (THREADS_PER_SM / p.threads(target).max(1)).clamp(1, 4);
            match dynamic_shared_bytes(p) {
                0 => by_threads,
                bytes => by_threads.min((SHARED_PER_SM / bytes).max(1)),
            }
        }
    }
}

/// A `wgmma` variant: 128×`n` tiles over two warpgroups along m (each 64×`n`), one
/// 128-byte row of k per step (64 f16/bf16, 32 tf32), `stages` deep. `ab` = f32 means
/// tf32 (`reduced_f32`); `c` is f32 or `ab`.
pub fn wgmma(ab: DType, c: DType, trans_a: bool, trans_b: bool, n: u32, stages: u32) -> GemmParams {
    wgmma_tile(ab, c, trans_a, trans_b, 128, n, stages)
}

/// A `wgmma` variant with `tile_m / 64` warpgroups along m (64, 128, 192 or 256 rows;
/// 4 warpgroups = 512 threads), each 64×`n`.
pub fn wgmma_tile(
    ab: DType,
    c: DType,
    trans_a: bool,
    trans_b: bool,
    tile_m: u32,
    n: u32,
    stages: u32,
) -> GemmParams {
    GemmParams {
        ab,
        c,
        compute: DType::F32,
        trans_a,
        trans_b,
        tile_m,
        tile_n: n,
        tile_k: 128 / ab.size().max(1) as u32,
        warps_m: tile_m / 16,
        warps_n: 1,
        instruction: GemmInstruction::Wgmma { n },
        stages,
        reduced_f32: ab == DType::F32,
        tma: false,
    }
}

/// The `wgmma` variants the tests assemble: f16/bf16 with f32 and same-type output,
/// every transpose, 128×128 and 128×256 tiles; tf32 (TN only); and a 64-row,
/// two-warpgroups-along-n shape; each with `cp.async` and with tensor-copy (`tma`)
/// staging.
pub fn wgmma_variants() -> Vec<GemmParams> {
    let mut out = Vec::new();
    for ab in [DType::F16, DType::Bf16] {
        for trans_a in [false, true] {
            for trans_b in [false, true] {
                out.push(wgmma(ab, DType::F32, trans_a, trans_b, 128, 4));
                out.push(wgmma(ab, ab, trans_a, trans_b, 256, 4));
            }
        }
        out.push(wgmma_tile(ab, ab, false, false, 256, 128, 4));
        out.push(wgmma_tile(ab, DType::F32, true, true, 256, 128, 4));
        let mut wide = wgmma(ab, DType::F32, false, true, 64, 3);
        wide.tile_m = 64;
        wide.warps_m = 4;
        wide.warps_n = 2;
        wide.tile_n = 128;
        out.push(wide);
    }
    out.push(wgmma(DType::F32, DType::F32, true, false, 128, 4));
    out.push(wgmma(DType::F32, DType::F32, true, false, 256, 3));
    // Each again with its operands staged by tensor copies from a producer warp.
    let tma: Vec<GemmParams> = out
        .iter()
        .map(|p| GemmParams {
            tma: true,
            ..p.clone()
        })
        .collect();
    out.extend(tma);
    // Tensor copies in the shallowest ring they allow (two slots, each reused every
    // other tile).
    out.push(GemmParams {
        tma: true,
        ..wgmma_tile(DType::Bf16, DType::Bf16, false, true, 128, 128, 2)
    });
    out
}

/// The default variant for a problem class on NVIDIA targets (the catalog's fallback).
///
/// f32: SIMT, 128×128×8 tiles, 8 warps (2×4), 8×8 results per thread, double-buffered
/// shared memory (16 KiB). f64: DMMA (`mma.sync` m8n8k4), 64×64×16 tiles over 2×2
/// warps, double-buffered (33 KiB). Other element types have no NVIDIA kernel yet:
/// `Unsupported`.
pub fn fallback(ab: DType, trans_a: bool, trans_b: bool) -> Result<GemmParams> {
    match ab {
        DType::F32 => Ok(simt(ab, 128, 8, trans_a, trans_b)),
        DType::F64 => Ok(dmma(64, 16, 2, trans_a, trans_b)),
        d => Err(Error::unsupported(
            format!("GEMM kernels for {d}"),
            "NVIDIA targets",
        )),
    }
}

/// A SIMT variant: `tile × tile × 8` over 2×4 warps, `thread × thread` per thread,
/// double-buffered.
pub fn simt(ab: DType, tile: u32, thread: u32, trans_a: bool, trans_b: bool) -> GemmParams {
    GemmParams {
        ab,
        c: ab,
        compute: ab,
        trans_a,
        trans_b,
        tile_m: tile,
        tile_n: tile,
        tile_k: 8,
        warps_m: 2,
        warps_n: 4,
        instruction: GemmInstruction::Simt {
            thread_m: thread,
            thread_n: thread,
        },
        stages: 2,
        reduced_f32: false,
        tma: false,
    }
}

/// The variants the tests assemble: the fallbacks, SIMT shapes for f32 and f64, and
/// DMMA shapes for f64.
pub fn default_variants() -> Vec<GemmParams> {
    let mut out = Vec::new();
    for ab in [DType::F32, DType::F64] {
        for trans_a in [false, true] {
            for trans_b in [false, true] {
                let p = if ab == DType::F32 {
                    simt(ab, 128, 8, trans_a, trans_b)
                } else {
                    simt(ab, 64, 4, trans_a, trans_b)
                };
                out.push(p.clone());
                // A small single-buffered tile (small problems, many blocks).
                let mut s = p.clone();
                s.tile_m = 32;
                s.tile_n = 32;
                s.tile_k = 8;
                s.warps_m = 2;
                s.warps_n = 2;
                s.instruction = GemmInstruction::Simt {
                    thread_m: 4,
                    thread_n: 2,
                };
                s.stages = 1;
                out.push(s);
                // A rectangular tile with a deeper k step.
                let mut r = p;
                r.tile_m = 128;
                r.tile_n = 64;
                // 16 deep for f32 (24 KiB); f64 stays at 8 to fit 48 KiB.
                r.tile_k = if ab == DType::F32 { 16 } else { 8 };
                r.warps_m = 2;
                r.warps_n = 4;
                r.instruction = GemmInstruction::Simt {
                    thread_m: 8,
                    thread_n: 4,
                };
                out.push(r);
            }
        }
    }
    // f64 through DMMA (mma.sync m8n8k4) and f32 through tf32 (m16n8k8): the fallback
    // and a small single-buffered tile, every transpose.
    for trans_a in [false, true] {
        for trans_b in [false, true] {
            for (tile, tile_k, stages) in [(64, 16, 2), (32, 8, 1)] {
                out.push(dmma(tile, tile_k, stages, trans_a, trans_b));
            }
            // The cp.async ring: f64 DMMA 4 stages deep, tf32 3, f32 SIMT 3.
            out.push(GemmParams {
                stages: 3,
                ..simt(DType::F32, 128, 8, trans_a, trans_b)
            });
            out.push(dmma(64, 16, 4, trans_a, trans_b));
            out.push(GemmParams {
                stages: 3,
                tile_m: 64,
                ..fallback_tf32(trans_a, trans_b)
            });
            out.push(fallback_tf32(trans_a, trans_b));
            let mut small = fallback_tf32(trans_a, trans_b);
            small.tile_m = 32;
            small.tile_n = 32;
            small.tile_k = 8;
            small.warps_n = 2;
            small.stages = 1;
            out.push(small);
            for ab in [DType::F16, DType::Bf16] {
                out.push(half(ab, trans_a, trans_b));
                let mut small = half(ab, trans_a, trans_b);
                small.tile_m = 32;
                small.tile_n = 32;
                small.warps_n = 2;
                small.stages = 1;
                out.push(small);
            }
        }
    }
    out
}

/// An f16/bf16 variant with f32 output and accumulation: `mma.sync` m16n8k16,
/// 128×128×32 tiles over 2×4 warps, double-buffered (37 KiB).
pub fn half(ab: DType, trans_a: bool, trans_b: bool) -> GemmParams {
    GemmParams {
        ab,
        c: DType::F32,
        compute: DType::F32,
        trans_a,
        trans_b,
        tile_m: 128,
        tile_n: 128,
        tile_k: 32,
        warps_m: 2,
        warps_n: 4,
        instruction: GemmInstruction::MmaSync { m: 16, n: 8, k: 16 },
        stages: 2,
        reduced_f32: false,
        tma: false,
    }
}

/// The default tf32 variant (f32 data, `reduced_f32`): `mma.sync` m16n8k8, 128×128×16
/// tiles over 2×4 warps (64×32 each), double-buffered (33 KiB).
pub fn fallback_tf32(trans_a: bool, trans_b: bool) -> GemmParams {
    GemmParams {
        ab: DType::F32,
        c: DType::F32,
        compute: DType::F32,
        trans_a,
        trans_b,
        tile_m: 128,
        tile_n: 128,
        tile_k: 16,
        warps_m: 2,
        warps_n: 4,
        instruction: GemmInstruction::MmaSync { m: 16, n: 8, k: 8 },
        stages: 2,
        reduced_f32: true,
        tma: false,
    }
}

/// An f64 DMMA variant: `tile × tile` over 2×2 warps.
pub fn dmma(tile: u32, tile_k: u32, stages: u32, trans_a: bool, trans_b: bool) -> GemmParams {
    GemmParams {
        ab: DType::F64,
        c: DType::F64,
        compute: DType::F64,
        trans_a,
        trans_b,
        tile_m: tile,
        tile_n: tile,
        tile_k,
        warps_m: 2,
        warps_n: 2,
        instruction: GemmInstruction::MmaSync { m: 8, n: 8, k: 4 },
        stages,
        reduced_f32: false,
        tma: false,
    }
}

/// The variants `rocm-bench tune gemm` times for one problem class on `target`, each
/// with the catalog key it is listed under (the host's selection reads `<class>`,
/// `<class>/tf32` and `<class>[/tf32]/wgmma`, see `rocm-blas`'s GPU GEMM): every
/// combination of the grid below that generates for `target` and holds at most 128 f32
/// or 32 f64 accumulators per thread (more would spill).
///
/// - f32: SIMT tiles of 32..256 × 32..256 × 8..32 over 1..4 × 1..4 warps, thread tiles
///   of 2..8 × 2..8, one or two stages staged through registers or a `cp.async`
///   ring of 3..6 stages (so too the matrix-instruction tiles below).
/// - tf32 (`reduced_f32`): `mma.sync` m16n8k8 on the same grid of tiles and warps; on
///   compute capability 9.0, `wgmma` tiles (A transposed, B not).
/// - f64: DMMA (`mma.sync` m8n8k4, and m16n8k4/8/16 on compute capability 9.0) and
///   SIMT on the same grid.
/// - f16/bf16 with output `c`: on compute capability 9.0, `wgmma` tiles of 64..256 rows
///   × 64..256 columns in 3..12 stages (2..12 with tensor copies; within 227 KiB of
///   shared memory: deep rings
///   for small tiles, whose few bytes per stage need many stages in flight), each with
///   `cp.async` and with tensor-copy staging (`tma`).
pub fn tuning_candidates(
    target: &Target,
    ab: DType,
    c: DType,
    trans_a: bool,
    trans_b: bool,
    reduced_f32: bool,
) -> Vec<(String, GemmParams)> {
    let compute = if ab == DType::F64 {
        DType::F64
    } else {
        DType::F32
    };
    let class = super::GemmParams::key(ab, c, compute, trans_a, trans_b);
    let cc9 = matches!(target.arch(), Arch::Sm90 | Arch::Sm90a);
    let mut out: Vec<(String, GemmParams)> = Vec::new();
    // Accumulators per thread: over 128 f32 (the wgmma warpgroups hold 64×n / 128 = n / 2
    // each, at most 128) or 32 f64 the register-tiled kernels spill.
    // The register-staged kernels also hold a slab of A and B per thread: accumulators
    // and staging together over 160 32-bit words spill (ptxas 12, sm_90a: tf32
    // 128×64×16 over 2×1 warps, 128 + 48 words).
    let accumulators_fit = |p: &GemmParams| {
        let most = if p.compute == DType::F64 { 64 } else { 128 };
        let threads = p.threads(target);
        let words = if p.ab == DType::F64 { 2 } else { 1 };
        let staging = match p.instruction {
            GemmInstruction::Simt { .. } | GemmInstruction::MmaSync { .. } if p.stages <= 2 => {
                (p.tile_m + p.tile_n) * p.tile_k / threads * words
            }
            _ => 0,
        };
        p.tile_m * p.tile_n <= most * threads
            && (p.tile_m * p.tile_n / threads * words + staging <= 160
                || matches!(p.instruction, GemmInstruction::Wgmma { .. }))
    };
    // Register-staged tiles beyond 48 KiB of shared memory (dynamic) are not offered:
    // the grid's deep-k shapes there spill (ptxas, sm_90a: f64 m16n8k16 32×64×32 and
    // f32 SIMT 32×256×32) through their staging registers. The cp.async rings hold no
    // staging registers and may use dynamic shared memory.
    let shared_ok = |p: &GemmParams| {
        matches!(p.instruction, GemmInstruction::Wgmma { .. })
            || p.stages >= 3
            || dynamic_shared_bytes(p) == 0
    };
    let mut push = |key: String, p: GemmParams| {
        if accumulators_fit(&p)
            && shared_ok(&p)
            && program(&p, target).is_ok()
            && !out.iter().any(|(_, q)| *q == p)
        {
            out.push((key, p));
        }
    };
    let base = GemmParams {
        ab,
        c,
        compute,
        trans_a,
        trans_b,
        tile_m: 0,
        tile_n: 0,
        tile_k: 0,
        warps_m: 0,
        warps_n: 0,
        instruction: GemmInstruction::Simt {
            thread_m: 1,
            thread_n: 1,
        },
        stages: 2,
        reduced_f32,
        tma: false,
    };
    let register_tiled = |instructions: &[GemmInstruction]| -> Vec<GemmParams> {
        let mut v = Vec::new();
        for &tile_m in &[32, 64, 128, 256] {
            for &tile_n in &[32, 64, 128, 256] {
                for &tile_k in &[8, 16, 32] {
                    for &(warps_m, warps_n) in &[(1, 2), (2, 1), (2, 2), (2, 4), (4, 2), (4, 4)] {
                        for &instruction in instructions {
                            // 1..2: staged through registers; 3..6: a cp.async ring.
                            for stages in 1..=6 {
                                v.push(GemmParams {
                                    tile_m,
                                    tile_n,
                                    tile_k,
                                    warps_m,
                                    warps_n,
                                    instruction,
                                    stages,
                                    ..base.clone()
                                });
                            }
                        }
                    }
                }
            }
        }
        v
    };
    let simt: Vec<GemmInstruction> = [2, 4, 8]
        .iter()
        .flat_map(|&thread_m| {
            [2, 4, 8].map(|thread_n| GemmInstruction::Simt { thread_m, thread_n })
        })
        .collect();
    let wgmma_tiles = |ab: DType, c: DType| -> Vec<GemmParams> {
        let mut v = Vec::new();
        for tile_m in [64, 128, 192, 256] {
            for n in [64, 128, 192, 256] {
                for stages in 2..=12 {
                    for tma in [false, true] {
                        // cp.async rings need 3 stages (`program` refuses fewer).
                        v.push(GemmParams {
                            tma,
                            ..wgmma_tile(ab, c, trans_a, trans_b, tile_m, n, stages)
                        });
                    }
                }
            }
        }
        v
    };
    match (ab, reduced_f32) {
        (DType::F32, false) => {
            for p in register_tiled(&simt) {
                push(class.clone(), p);
            }
        }
        (DType::F32, true) => {
            for p in register_tiled(&[GemmInstruction::MmaSync { m: 16, n: 8, k: 8 }]) {
                push(format!("{class}/tf32"), p);
            }
            if cc9 {
                for p in wgmma_tiles(DType::F32, DType::F32) {
                    push(format!("{class}/tf32/wgmma"), p);
                }
            }
        }
        (DType::F64, _) => {
            let mut instructions = simt;
            instructions.push(GemmInstruction::MmaSync { m: 8, n: 8, k: 4 });
            if cc9 {
                instructions.extend([4, 8, 16].map(|k| GemmInstruction::MmaSync {
                    m: 16,
                    n: 8,
                    k,
                }));
            }
            for p in register_tiled(&instructions) {
                push(class.clone(), p);
            }
        }
        (DType::F16 | DType::Bf16, _) if cc9 => {
            for p in wgmma_tiles(ab, c) {
                push(format!("{class}/wgmma"), p);
            }
        }
        _ => {}
    }
    out
}
