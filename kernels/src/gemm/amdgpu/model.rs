//! Default large tiles per target, and the static issue model of the main loop.
//!
//! No AMD hardware exists here: these are static numbers from the generated code, not
//! timings.
//!
//! # The issue model
//!
//! Over the instructions of one main-loop iteration as laid out (hazard NOPs included),
//! following the interior path (the edge-load blocks between the `safe_*` and `join_*`
//! labels are skipped), each instruction is charged the cycles it occupies the wave's
//! issue:
//!
//! | Instruction | Cycles | Source |
//! |---|---|---|
//! | MFMA | 4 × passes ([`mfma_kind`]: gfx908/gfx90a 32x32 = 16 passes, 16x16 = 8; gfx942 XDL 8 / 4; f64 8) | amdgpu.md §4 cycle column: 32x32x8 f16 = 32 on CDNA3, 64 on CDNA1/2; 16x16x4 f64 = 32 |
//! | gfx11 WMMA 16x16x16 | 32 | amdgpu.md §4 ("32 cycles each") |
//! | FMA kernel: `v_fma_f32`, `v_fma_f64` | as other vector instructions | assumption (no documented f64 rate found: `v_fma_f64` is charged like `v_fma_f32`) |
//! | other vector (VALU, LDS, global) | gfx9 wave64: 4 (64 lanes over a 16-wide SIMD); gfx11 wave32: 1 | assumption |
//! | scalar, branches, waits, barrier | 1; `s_nop n`: n + 1 | assumption |
//!
//! Nothing of the loop is left out: for the FMA kernel, one iteration counts the scalar
//! bookkeeping and branches of the next slice's global loads, the `global_load`s
//! themselves, the pointer and k-count updates, each k step's `ds_read_b64/b128`s and
//! its `s_waitcnt lgkmcnt`, the `v_fma`s, the `s_waitcnt vmcnt(0)`, the staging
//! `ds_write`s, the `s_waitcnt` and `s_barrier` after them, the `v_add`s that move the
//! LDS read and write addresses to the other stage (and their `s_sub` sign flips), and
//! the loop counter, compare and branch.
//!
//! `matrix_fraction = matrix cycles / all cycles`; for the register-tiled FMA kernel
//! (`GemmInstruction::Simt`) its `v_fma`s are the "matrix" instructions, so the number
//! is its FMA fraction. It is pessimistic: it charges
//! everything serially, while hardware issues memory and VALU work from the same or
//! other waves under a running MFMA, and it ignores memory latency (the loads of the next
//! slice are in flight during this one's matrix instructions). It also ignores LDS bank
//! conflicts (the plan's pitch choice models those, [`super::plan::lds_cycles`]).
//!
//! [`mfma_kind`]: rocm_core::isa::amdgpu::hazard::mfma_kind

use super::emit::{JOIN_PREFIX, LOOP_END_LABEL, LOOP_LABEL, SAFE_PREFIX};
use crate::amdgpu::{AssembledKernel, ResourceReport};
use crate::gemm::{GemmInstruction, GemmParams};
use rocm_core::isa::amdgpu::hazard::mfma_kind;
use rocm_core::isa::amdgpu::{Form, IsaFamily, IsaTarget, Op, Operand};
use rocm_core::{DType, Error, Result};

/// The FMA kernel's default for one input type on some targets: where the target has no
/// matrix instruction for the type (f32 and f64 on gfx11, whose WMMA takes only 16-bit
/// inputs; f64 on gfx908, which has no f64 MFMA).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FmaDefault {
    pub targets: &'static [IsaTarget],
    pub ab: DType,
    /// `[tile_m, tile_n, tile_k]`.
    pub tile: [u32; 3],
    /// Results per lane, `[thread_m, thread_n]`.
    pub thread: [u32; 2],
    /// `[warps_m, warps_n]`.
    pub warps: [u32; 2],
    /// Waves per SIMD the resource report must allow (the intended occupancy).
    pub occupancy: u32,
}

const GFX11: &[IsaTarget] = &[
    IsaTarget::Gfx1100,
    IsaTarget::Gfx1101,
    IsaTarget::Gfx1102,
    IsaTarget::Gfx1151,
];

/// The FMA kernel's defaults. Each lane holds 8×8 results, so one k step is 64 `v_fma`s
/// against one 16-byte LDS read per 4 (f32) or 2 (f64) operand values of A and B — at
/// least 8 FMAs per read, twice the 4×4 tile's ratio; the waves' 64×32 (wave32) or 64×64
/// (wave64) tiles make 128×128 workgroup tiles.
///
/// `occupancy` is the least waves per SIMD over the entry's targets, from the resource
/// report of the default (TN) layout:
///
/// - gfx11 f32: 8 waves of 32, k slices of 8 (17 KB of LDS in two stages): about 123
///   VGPRs, 10 waves per SIMD (8 on gfx1102's smaller register file). k slices of 16
///   would model at 0.89 instead of 0.87 but take 34 KB of LDS, which leaves 4 waves.
/// - gfx11 f64: 8 waves of 32, k slices of 8 (33 KB): 128 accumulator VGPRs and two sets
///   of 32 operand VGPRs, about 229 of the 256 a wave can address; 4 waves per SIMD
///   (LDS on gfx1100/1101/1151, VGPRs on gfx1102).
/// - gfx908 f64: 4 waves of 64, k slices of 8: about 230 VGPRs of gfx908's 256 (the
///   accumulators cannot live in AGPRs, which `v_fma_f64` does not write), so one wave
///   per SIMD — one workgroup per CU, whose next k's LDS reads and next slice's global
///   loads are in flight under the current FMAs; the 4×4 tile that allowed two waves
///   cannot reach the 0.8 issue fraction (4 LDS reads per 16 FMAs at the same 4 cycles).
pub const FMA_DEFAULTS: [FmaDefault; 3] = [
    FmaDefault {
        targets: GFX11,
        ab: DType::F32,
        tile: [128, 128, 8],
        thread: [8, 8],
        warps: [2, 4],
        occupancy: 8,
    },
    FmaDefault {
        targets: GFX11,
        ab: DType::F64,
        tile: [128, 128, 8],
        thread: [8, 8],
        warps: [2, 4],
        occupancy: 4,
    },
    FmaDefault {
        targets: &[IsaTarget::Gfx908],
        ab: DType::F64,
        tile: [128, 128, 8],
        thread: [8, 8],
        warps: [2, 2],
        occupancy: 1,
    },
];

/// The FMA kernel's default for `ab` on `t`, if that is where `t` has no matrix
/// instruction for `ab`.
pub fn fma_default(t: IsaTarget, ab: DType) -> Option<&'static FmaDefault> {
    FMA_DEFAULTS
        .iter()
        .find(|d| d.ab == ab && d.targets.contains(&t))
}

/// The default large tile of `ab` inputs on `t`: f32 C for 16-bit inputs, and the TN
/// layout (A and B both stored k-contiguous), whose slices go to LDS without
/// transposition. Where the target has no matrix instruction for the type, the
/// register-tiled FMA kernel of [`FMA_DEFAULTS`].
pub fn default_params(t: IsaTarget, ab: DType) -> Result<GemmParams> {
    let gfx11 = t.family() == IsaFamily::Gfx11;
    let fma = fma_default(t, ab).map(|d| {
        (
            d.tile,
            GemmInstruction::Simt {
                thread_m: d.thread[0],
                thread_n: d.thread[1],
            },
            (d.warps[0], d.warps[1]),
        )
    });
    let (tile, instruction, warps) = match (fma, ab, gfx11) {
        (Some(fma), _, _) => fma,
        (None, DType::F16 | DType::Bf16, true) => ([128, 64, 32], GemmInstruction::Wmma, (2, 2)),
        (None, DType::F16, false) => (
            [128, 128, 32],
            GemmInstruction::Mfma { m: 32, n: 32, k: 8 },
            (2, 2),
        ),
        (None, DType::Bf16, false) if t == IsaTarget::Gfx908 => (
            [128, 128, 32],
            GemmInstruction::Mfma { m: 32, n: 32, k: 4 },
            (2, 2),
        ),
        (None, DType::Bf16, false) => (
            [128, 128, 32],
            GemmInstruction::Mfma { m: 32, n: 32, k: 8 },
            (2, 2),
        ),
        (None, DType::F32, false) => (
            [128, 128, 16],
            GemmInstruction::Mfma { m: 32, n: 32, k: 2 },
            (2, 2),
        ),
        (None, DType::F64, false) => (
            [128, 64, 16],
            GemmInstruction::Mfma { m: 16, n: 16, k: 4 },
            (2, 2),
        ),
        (_, d, _) => {
            return Err(Error::unsupported(
                format!("a default GEMM tile of {d}"),
                t.name(),
            ))
        }
    };
    let f64 = ab == DType::F64;
    Ok(GemmParams {
        ab,
        c: if f64 { DType::F64 } else { DType::F32 },
        compute: if f64 { DType::F64 } else { DType::F32 },
        trans_a: true,
        trans_b: false,
        tile_m: tile[0],
        tile_n: tile[1],
        tile_k: tile[2],
        warps_m: warps.0,
        warps_n: warps.1,
        instruction,
        stages: 2,
        reduced_f32: false,
        tma: false,
    })
}

/// The issue model of one main-loop iteration.
#[derive(Debug, Clone, PartialEq)]
pub struct IssueModel {
    pub matrix_instructions: u32,
    pub matrix_cycles: u32,
    pub other_instructions: u32,
    pub other_cycles: u32,
}

impl IssueModel {
    /// Matrix cycles over all cycles.
    pub fn matrix_fraction(&self) -> f64 {
        let all = self.matrix_cycles + self.other_cycles;
        if all == 0 {
            0.0
        } else {
            f64::from(self.matrix_cycles) / f64::from(all)
        }
    }
}

impl std::fmt::Display for IssueModel {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{} matrix instructions = {} cycles, {} others = {} cycles: matrix fraction {:.3}",
            self.matrix_instructions,
            self.matrix_cycles,
            self.other_instructions,
            self.other_cycles,
            self.matrix_fraction()
        )
    }
}

/// Cycles one instruction occupies the issue of its wave on `t` (table in the module docs).
pub fn issue_cycles(t: IsaTarget, op: Op, operands: &[Operand]) -> (bool, u32) {
    let gfx11 = t.family() == IsaFamily::Gfx11;
    let valu = if gfx11 { 1 } else { 4 };
    if matches!(op, Op::VFmaF32 | Op::VFmaF64) {
        // Only the FMA kernel's main loop has these (the others' v_fma is in the epilogue).
        return (true, valu);
    }
    match op.info().form {
        Form::Wmma => (true, 32),
        Form::Mai => (
            true,
            4 * mfma_kind(op, t).map_or(16, |k| u32::from(k.passes)),
        ),
        Form::Sopp if op == Op::SNop => {
            let n = match operands.first() {
                Some(Operand::Imm(n)) => *n as u32,
                _ => 0,
            };
            (false, n + 1)
        }
        Form::Sop1 | Form::Sop2 | Form::Sopk | Form::Sopc | Form::Sopp | Form::Smem => (false, 1),
        _ => (false, valu),
    }
}

/// The model over `k`'s main loop (see the module docs).
pub fn issue_model(k: &AssembledKernel) -> Result<IssueModel> {
    let t = k.target.isa;
    let start = k
        .code
        .iter()
        .position(|p| p.labels.iter().any(|l| l == LOOP_LABEL))
        .ok_or_else(|| Error::invalid("kernel", "no main loop label"))?;
    let end = k
        .code
        .iter()
        .position(|p| p.labels.iter().any(|l| l == LOOP_END_LABEL))
        .ok_or_else(|| Error::invalid("kernel", "no loop end label"))?;
    let mut m = IssueModel {
        matrix_instructions: 0,
        matrix_cycles: 0,
        other_instructions: 0,
        other_cycles: 0,
    };
    let mut skipping = false;
    for placed in &k.code[start..end] {
        if placed.labels.iter().any(|l| l.starts_with(SAFE_PREFIX)) {
            skipping = true;
        }
        if placed.labels.iter().any(|l| l.starts_with(JOIN_PREFIX)) {
            skipping = false;
        }
        if skipping {
            continue;
        }
        let (matrix, cycles) = issue_cycles(t, placed.instr.op, &placed.instr.operands);
        if matrix {
            m.matrix_instructions += 1;
            m.matrix_cycles += cycles;
        } else {
            m.other_instructions += 1;
            m.other_cycles += cycles;
        }
    }
    Ok(m)
}

/// The resource report and issue model of `p` on `t`.
pub fn analyse(p: &GemmParams, t: IsaTarget) -> Result<(ResourceReport, IssueModel)> {
    let k = super::generate(p, t)?;
    let model = issue_model(&k)?;
    Ok((k.report.clone(), model))
}
