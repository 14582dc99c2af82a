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
//! | other vector (VALU, LDS, global) | gfx9 wave64: 4 (64 lanes over a 16-wide SIMD); gfx11 wave32: 1 | assumption |
//! | scalar, branches, waits, barrier | 1; `s_nop n`: n + 1 | assumption |
//!
//! | FMA kernel: `v_fma_f32`, `v_fma_f64` | as other vector instructions (f64 rates not modelled) | assumption |
//!
//! `matrix_fraction = matrix cycles / all cycles`; for the register-tiled FMA kernel
//! (`GemmInstruction::Simt`) its `v_fma`s are the "matrix" instructions, so the number
//! is its FMA fraction. It is pessimistic: it charges
//! everything serially, while hardware issues memory and VALU work from the same or
//! other waves under a running MFMA, and it ignores memory latency (the loads of the next
//! slice are in flight during this one's matrix instructions).
//!
//! [`mfma_kind`]: rocm_core::isa::amdgpu::hazard::mfma_kind

use super::emit::{JOIN_PREFIX, LOOP_END_LABEL, LOOP_LABEL, SAFE_PREFIX};
use crate::amdgpu::{AssembledKernel, ResourceReport};
use crate::gemm::{GemmInstruction, GemmParams};
use rocm_core::isa::amdgpu::hazard::mfma_kind;
use rocm_core::isa::amdgpu::{Form, IsaFamily, IsaTarget, Op, Operand};
use rocm_core::{DType, Error, Result};

/// The default large tile of `ab` inputs on `t`: f32 C for 16-bit inputs, and the TN
/// layout (A and B both stored k-contiguous), whose slices go to LDS without
/// transposition. Where the target has no matrix instruction for the type (f32 and f64
/// on gfx11, whose WMMA takes only 16-bit inputs; f64 on gfx908, which has no f64
/// MFMA), the register-tiled FMA kernel: 64×64 tiles of 4×4 per lane, four waves of 64
/// (2×2) or eight of 32 (2×4).
pub fn default_params(t: IsaTarget, ab: DType) -> Result<GemmParams> {
    let gfx11 = t.family() == IsaFamily::Gfx11;
    let fma = GemmInstruction::Simt {
        thread_m: 4,
        thread_n: 4,
    };
    let fma_warps = if gfx11 { (2, 4) } else { (2, 2) };
    let (tile, instruction, warps) = match (ab, gfx11) {
        (DType::F32, true) => ([64, 64, 16], fma, fma_warps),
        (DType::F64, _) if gfx11 || t == IsaTarget::Gfx908 => ([64, 64, 8], fma, fma_warps),
        (DType::F16 | DType::Bf16, true) => ([128, 64, 32], GemmInstruction::Wmma, (2, 2)),
        (DType::F16, false) => (
            [128, 128, 32],
            GemmInstruction::Mfma { m: 32, n: 32, k: 8 },
            (2, 2),
        ),
        (DType::Bf16, false) if t == IsaTarget::Gfx908 => (
            [128, 128, 32],
            GemmInstruction::Mfma { m: 32, n: 32, k: 4 },
            (2, 2),
        ),
        (DType::Bf16, false) => (
            [128, 128, 32],
            GemmInstruction::Mfma { m: 32, n: 32, k: 8 },
            (2, 2),
        ),
        (DType::F32, false) => (
            [128, 128, 16],
            GemmInstruction::Mfma { m: 32, n: 32, k: 2 },
            (2, 2),
        ),
        (DType::F64, false) => (
            [128, 64, 16],
            GemmInstruction::Mfma { m: 16, n: 16, k: 4 },
            (2, 2),
        ),
        (d, _) => {
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
