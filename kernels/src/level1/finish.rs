//! The final pass of the Level 1 reductions: one workgroup turns the `slots × grid` f64
//! partials of a first pass ([`super::partial_slots`], structure of arrays) into the
//! routine's result, in device memory. With it a reduction needs no host round trip
//! (rocBLAS's device pointer mode), and in host pointer mode the host downloads one
//! element instead of every partial.
//!
//! # Order of combination (the contract shared with the host)
//!
//! The result must be the same bits whether the partials are combined here or on the
//! host ([`finish_sum`], [`finish_index`]), so the order is fixed and independent of the
//! target: [`FINISH_LANES`] = 64 lanes; lane `l` adds the partials `l, l + 64, l + 128,
//! …` of a slot in that order, starting from −0.0 (the identity of IEEE addition, so an
//! empty lane changes nothing); then the 64 lane sums are added in lane order, again
//! from −0.0. Each step is one correctly rounded f64 addition, so host and device agree
//! bit for bit, and the dependent chain is `grid/64 + 64` additions instead of `grid`.
//!
//! - dot, dotc, sum: slot 0 the real part, slot 1 (complex) the imaginary part;
//!   asum: slot 0. Each total is rounded once to the result's real type (`cvt.rn`,
//!   as Rust's `as`).
//! - nrm2: the totals of slots (small, medium, big) go through Blue's
//!   [`super::blue_finish`] with correctly rounded `sqrt` and division, then round to
//!   the result type.
//! - iamax/iamin: slot 0 the value, slot 1 the 0-based index's bits (`u64::MAX`: no
//!   element qualified). The winner is the largest (iamax) or smallest value, the
//!   smallest index on ties; values are never NaN and indices are distinct, so the
//!   winner does not depend on the order. The result is an `i64`: the 1-based index,
//!   1 when no element qualified (all NaN: BLAS's first element).
//! - `grid = 0` stands for n = 0: the result is +0 (index 0), as BLAS returns.
//!
//! Kernel arguments (every target): `partials: u64, result: u64, grid: u32`. The
//! result is written by work-item 0 at `result` (complex: re then im). Launch: one
//! workgroup of [`FINISH_LANES`] work-items (two warps on NVIDIA, one wave64 on gfx9,
//! two wave32 on gfx11). The program's one kernel, [`FINISH_KERNEL`], is written in the
//! language ([`crate::lang::level1::finish`]) and lowered to every GPU target.

use super::{partial_slots, L1Op};
use crate::generator::{Generator, LaunchRule, Program};
use crate::signature::{Access, ScalarType, Signature};
use rocm_core::target::KernelIsa;
use rocm_core::{DType, Error, Result, Target};

/// Lanes of the fixed combination order (and work-items of the finish workgroup).
pub const FINISH_LANES: u32 = 64;

/// Name of the generated kernel.
pub const FINISH_KERNEL: &str = "rocm_blas_l1_finish";

/// One finish program: the reduction, the dtype its first pass read, and the type of
/// the result it writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct FinishParams {
    pub op: L1Op,
    /// The element type of the first pass (fixes the slots).
    pub dtype: DType,
    /// The result's type: `I64` for iamax/iamin; f32/f64 for asum, nrm2 and real dot
    /// and sum; c32/c64 for complex dot and sum.
    pub out: DType,
}

impl FinishParams {
    /// Slots of the first pass's partials.
    pub fn slots(&self) -> usize {
        partial_slots(self.op, self.dtype)
    }

    /// Checks that `out` is a result type of `op` on `dtype`.
    pub fn validate(&self) -> Result<()> {
        let ok = match self.op {
            L1Op::Iamax { .. } => self.out == DType::I64,
            L1Op::Asum | L1Op::Nrm2 => matches!(self.out, DType::F32 | DType::F64),
            L1Op::Dot { .. } | L1Op::Sum => {
                matches!(self.out, DType::F32 | DType::F64 | DType::C32 | DType::C64)
                    && self.out.is_complex() == self.dtype.is_complex()
            }
            _ => false,
        };
        if ok && self.slots() > 0 {
            Ok(())
        } else {
            Err(Error::invalid(
                "finish params",
                format!("{:?} on {} has no {} result", self.op, self.dtype, self.out),
            ))
        }
    }

    /// The kernel's signature (the module docs), named `kernel`: `partials: f64` (read),
    /// `result: out` (written), `grid: u32`.
    pub fn signature(&self, kernel: impl Into<String>) -> Signature {
        Signature::new(kernel)
            .pointer("partials", DType::F64, Access::Read)
            .pointer("result", self.out, Access::Write)
            .scalar("grid", ScalarType::U32)
    }

    /// Whether `target` has this program: every GPU target.
    fn check_target(&self, target: &Target) -> Result<()> {
        if target.caps().kernel_isa == KernelIsa::Host {
            return Err(Error::unsupported(
                format!("Level 1 finish {:?} ({})", self.op, self.out),
                target.to_string(),
            ));
        }
        Ok(())
    }
}

/// Σ `values` in the finish order (the module docs): what the finish kernel computes
/// for one slot.
pub fn finish_sum(values: &[f64]) -> f64 {
    let lanes = FINISH_LANES as usize;
    (0..lanes)
        .map(|l| {
            values
                .iter()
                .skip(l)
                .step_by(lanes)
                .fold(-0.0, |a, v| a + v)
        })
        .fold(-0.0, |a, s| a + s)
}

/// The winning 0-based index of iamax (`max`) or iamin partials (values, index bits),
/// or None when no element qualified.
pub fn finish_index(values: &[f64], indices: &[f64], max: bool) -> Option<u64> {
    let mut best: Option<(f64, u64)> = None;
    for (v, i) in values.iter().zip(indices) {
        let i = i.to_bits();
        if i == u64::MAX {
            continue;
        }
        let better = match best {
            None => true,
            Some((bv, bi)) => (if max { *v > bv } else { *v < bv }) || (*v == bv && i < bi),
        };
        if better {
            best = Some((*v, i));
        }
    }
    best.map(|b| b.1)
}

/// The finish generator.
pub struct Finish;

impl Generator for Finish {
    type Params = FinishParams;
    const NAME: &'static str = "level1_finish";
    const VERSION: u32 = 3;

    fn generate(p: &FinishParams, target: &Target) -> Result<Program> {
        p.check_target(target)?;
        let def = crate::lang::level1::finish::kernel(p, target)?;
        let launch = LaunchRule::Fixed {
            grid: 1,
            block: FINISH_LANES,
        };
        crate::lang::program(&[def], launch)
    }

    fn signatures(p: &FinishParams, target: &Target) -> Result<Vec<Signature>> {
        p.validate()?;
        p.check_target(target)?;
        Ok(vec![p.signature(FINISH_KERNEL)])
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ptxas::{Ptxas, HOW_TO_GET};
    use rocm_core::ModuleImage;

    /// The signature the plan binds is the kernel's, and every finish program (nrm2's
    /// f64 square root and division included) lowers on every GPU target.
    #[test]
    fn signatures_are_the_kernels_and_every_program_lowers() {
        for name in ["sm_90", "gfx90a", "gfx1100"] {
            let target: Target = name.parse().unwrap();
            for p in all_params() {
                let def = crate::lang::level1::finish::kernel(&p, &target).unwrap();
                assert_eq!(def.signature, p.signature(FINISH_KERNEL), "{p:?}");
                assert_eq!(
                    Finish::signatures(&p, &target).unwrap(),
                    vec![p.signature(FINISH_KERNEL)],
                    "{p:?}"
                );
                Finish::generate(&p, &target).unwrap_or_else(|e| panic!("{p:?} on {name}: {e}"));
            }
        }
    }

    /// Every reduction with each of its result types.
    pub(crate) fn all_params() -> Vec<FinishParams> {
        let mut out = Vec::new();
        for op in super::super::ALL_OPS.iter().filter(|o| o.is_reduction()) {
            for dtype in super::super::DTYPES {
                let outs: Vec<DType> = match op {
                    L1Op::Iamax { .. } => vec![DType::I64],
                    L1Op::Asum | L1Op::Nrm2 => vec![DType::F32, DType::F64],
                    _ if dtype.is_complex() => vec![DType::C32, DType::C64],
                    _ => vec![DType::F32, DType::F64],
                };
                for out_t in outs {
                    out.push(FinishParams {
                        op: *op,
                        dtype,
                        out: out_t,
                    });
                }
            }
        }
        out
    }

    #[test]
    fn finish_programs_pass_ptxas_without_spills() {
        let Some(ptxas) = Ptxas::find() else {
            eprintln!("skipped: ptxas not found ({HOW_TO_GET})");
            return;
        };
        let all = all_params();
        for target in ["sm_80", "sm_90a"] {
            let target: Target = target.parse().unwrap();
            for p in &all {
                let prog = Finish::generate(p, &target).unwrap();
                let ModuleImage::Ptx(text) = &prog.image else {
                    unreachable!()
                };
                let report = ptxas
                    .compile(text, &target)
                    .unwrap_or_else(|e| panic!("{p:?} on {target}: {e}\n{text}"));
                assert!(report.warnings.is_empty(), "{p:?}: {:?}", report.warnings);
                let kr = report.kernel(FINISH_KERNEL).unwrap();
                assert_eq!(kr.spill_loads + kr.spill_stores, 0, "{p:?} spills");
            }
        }
        eprintln!(
            "level1 finish: {} programs x 2 targets assembled",
            all.len()
        );
    }

    #[test]
    fn result_types_are_checked() {
        let bad = [
            (L1Op::Iamax { max: true }, DType::F32, DType::F32),
            (L1Op::Dot { conj: false }, DType::C32, DType::F32),
            (L1Op::Nrm2, DType::C64, DType::C64),
            (L1Op::Scal, DType::F32, DType::F32),
        ];
        for (op, dtype, out) in bad {
            assert!(
                FinishParams { op, dtype, out }.validate().is_err(),
                "{op:?}"
            );
        }
    }

    #[test]
    fn finish_sum_is_the_lane_order() {
        // 130 values: lane 0 holds v0, v64, v128; lane 1 v1, v65, v129; lanes 2.. two.
        let v: Vec<f64> = (0..130).map(|i| 1.0 + (i as f64) * 1e-17).collect();
        let mut lanes = [-0.0f64; 64];
        for (i, x) in v.iter().enumerate() {
            lanes[i % 64] += x;
        }
        let want = lanes.iter().fold(-0.0, |a, s| a + s);
        assert_eq!(finish_sum(&v).to_bits(), want.to_bits());
        // The empty sum is −0.0; one value is itself, −0.0 included.
        assert_eq!(finish_sum(&[]).to_bits(), (-0.0f64).to_bits());
        assert_eq!(finish_sum(&[-0.0]).to_bits(), (-0.0f64).to_bits());
        assert_eq!(finish_sum(&[2.5]), 2.5);
    }
}
