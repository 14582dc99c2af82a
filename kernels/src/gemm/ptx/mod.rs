//! NVIDIA GEMM generators (PTX), following the contract in [`crate::gemm`].
//!
//! - [`simt`]: a register-tiled kernel for f32 and f64 (every transpose, any shape),
//!   whose inner product is FMAs (SIMT) or, for f64, DMMA (`mma.sync.m8n8k4`).
//! - Other tensor-core shapes (f16/bf16 m16n8k16, tf32 m16n8k8) are declared by
//!   [`GemmInstruction::MmaSync`] and not generated yet: asking for one is
//!   `Unsupported`.
//!
//! One kernel per program, named [`KERNEL`]; the program's [`LaunchRule`] carries only
//! the block size (the grid is the contract's 3-D `(⌈m/tile_m⌉, ⌈n/tile_n⌉, batch)`,
//! which the host computes), and no dynamic shared memory is used (shared tiles are
//! static, within the 48 KiB a kernel may declare without opting in).

pub mod simt;

use super::{GemmInstruction, GemmParams};
use crate::generator::{LaunchRule, Program};
use rocm_core::{DType, Error, ModuleImage, Result, Target};

/// The kernel's name in every program.
pub const KERNEL: &str = "rocm_gemm";

/// Generates the program for `p` on an NVIDIA target.
pub fn program(p: &GemmParams, target: &Target) -> Result<Program> {
    let text = match p.instruction {
        GemmInstruction::Simt { .. } => simt::generate(p, target)?,
        GemmInstruction::MmaSync { m: 8, n: 8, k: 4 } if p.ab == DType::F64 => {
            simt::generate(p, target)?
        }
        GemmInstruction::MmaSync { m, n, k } => {
            return Err(Error::unsupported(
                format!("mma.sync m{m}n{k}k{n} GEMM kernels"),
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
    };
    Ok(Program {
        image: ModuleImage::Ptx(text),
        kernels: vec![KERNEL.into()],
        launch: LaunchRule::Fixed {
            grid: 1,
            block: p.threads(target),
        },
    })
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
    // f64 through DMMA (mma.sync m8n8k4): a 64×64×16 double-buffered tile and a small
    // single-buffered one, every transpose.
    for trans_a in [false, true] {
        for trans_b in [false, true] {
            for (tile, tile_k, stages) in [(64, 16, 2), (32, 8, 1)] {
                out.push(dmma(tile, tile_k, stages, trans_a, trans_b));
            }
        }
    }
    out
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
    }
}
