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
//! Kernel arguments (both families): `partials: u64, result: u64, grid: u32`. The
//! result is written by work-item 0 at `result` (complex: re then im). Launch: one
//! workgroup of [`FINISH_LANES`] work-items (two warps on NVIDIA, one wave64 on gfx9,
//! two wave32 on gfx11). The program's one kernel is [`FINISH_KERNEL`] in PTX and
//! `l1_finish_<op>_<dtype>_<out>` on AMDGPU ([`crate::amdgpu::level1::finish`], which
//! covers every reduction but nrm2 so far: nrm2 answers `Unsupported` there and the
//! host combines its partials in this order).

use super::{better_arg, partial_slots, L1Op, SBIG, SSML};
use crate::generator::{Generator, LaunchRule, Program};
use crate::ptx::{Cmp, KernelBuilder, LoadCache, Module, Op, Reg, Special, Ty};
use crate::signature::{Access, ScalarType, Signature};
use rocm_core::isa::amdgpu::IsaTarget;
use rocm_core::target::KernelIsa;
use rocm_core::{DType, Error, ModuleImage, Result, Target};

/// Lanes of the fixed combination order (and work-items of the finish workgroup).
pub const FINISH_LANES: u32 = 64;

/// Partials each lane loads per step of the first phase (latency hiding).
const UNROLL: u32 = 8;

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

    /// The result's real components: (type, count); `I64` for an index.
    fn components(&self) -> (Ty, u32) {
        Ty::components_of(self.out).unwrap_or((Ty::U64, 1))
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
    const VERSION: u32 = 2;

    fn generate(p: &FinishParams, target: &Target) -> Result<Program> {
        p.validate()?;
        let (image, sig) = match target.caps().kernel_isa {
            KernelIsa::Ptx => {
                let mut module = Module::new(target)?;
                module.push(&build_ptx(p)?);
                (ModuleImage::Ptx(module.text()), p.signature(FINISH_KERNEL))
            }
            KernelIsa::Amdgpu => {
                let t = IsaTarget::try_from(target)?;
                let k = crate::amdgpu::level1::finish::generate(t, p)?;
                let sig = crate::amdgpu::level1::finish::signature(t, p)?;
                (ModuleImage::CodeObject(k.to_elf()?), sig)
            }
            KernelIsa::Host => {
                return Err(Error::unsupported(
                    format!("Level 1 finish {:?} ({})", p.op, p.out),
                    target.to_string(),
                ))
            }
        };
        Ok(Program::declared(
            image,
            vec![sig],
            LaunchRule::Fixed {
                grid: 1,
                block: FINISH_LANES,
            },
        ))
    }

    fn signatures(p: &FinishParams, target: &Target) -> Result<Vec<Signature>> {
        p.validate()?;
        match IsaTarget::try_from(target) {
            Ok(t) => Ok(vec![crate::amdgpu::level1::finish::signature(t, p)?]),
            Err(_) => {
                Module::new(target)?;
                Ok(vec![p.signature(FINISH_KERNEL)])
            }
        }
    }
}

/// The PTX kernel: lanes accumulate into shared memory, work-item 0 finishes.
fn build_ptx(p: &FinishParams) -> Result<KernelBuilder> {
    let (mut k, params) = KernelBuilder::from_signature(&p.signature(FINISH_KERNEL));
    k.comment(&format!("{p:?}"));
    let partials = k.ld_param_global_ptr(params.get("partials")?);
    let result = k.ld_param_global_ptr(params.get("result")?);
    let grid = k.ld_param(params.get("grid")?);
    let tid = k.special(Special::TidX);
    let lanes = FINISH_LANES as i64;
    let slots = p.slots() as u32;
    let lane_bytes = FINISH_LANES * 8;
    let shared = k.shared_array("finish_lanes", slots * lane_bytes, 8);
    let tid_bytes = k.shl(Ty::U32, tid, 3);
    let my_shared = k.add(Ty::U32, shared, tid_bytes);
    let grid64 = k.cvt(Ty::U64, grid);
    let slot_bytes = k.shl(Ty::U64, grid64, 3);

    // Phase 1: lane `tid` over partials tid, tid + 64, … of every slot, UNROLL loads in
    // flight per step; a load past the grid leaves its identity (−0.0, or an iamax
    // candidate that never wins), so it changes no bits.
    let j = k.cvt(Ty::U64, tid);
    let tid_off = k.shl(Ty::U64, j, 3);
    let addr = k.add(Ty::U64, partials, tid_off);
    let (top, done) = (k.label(), k.label());
    let step = lanes * UNROLL as i64;
    // Per slot, per unrolled load: the partial (or the identity), in order.
    let load_step = |k: &mut KernelBuilder, identity: &[Op]| -> Vec<Vec<Reg>> {
        let past = k.setp(Cmp::Ge, Ty::U64, j, grid64);
        k.bra_if(past, false, done);
        let mut slot_addr = addr;
        let mut out = Vec::new();
        for (s, id) in identity.iter().enumerate() {
            if s > 0 {
                slot_addr = k.add(Ty::U64, slot_addr, slot_bytes);
            }
            let ty = if matches!(id, Op::I(_)) {
                Ty::U64
            } else {
                Ty::F64
            };
            let vals: Vec<Reg> = (0..UNROLL as i64)
                .map(|u| {
                    let v = k.mov(ty, *id);
                    let ju = k.add(Ty::U64, j, u * lanes);
                    let inside = k.setp(Cmp::Lt, Ty::U64, ju, grid64);
                    k.when(inside, false);
                    k.ld_global_into(&[v], slot_addr, u * lanes * 8, LoadCache::Default);
                    v
                })
                .collect();
            out.push(vals);
        }
        out
    };
    match p.op {
        L1Op::Iamax { max } => {
            let id_v = Op::F64(if max { -1.0 } else { f64::INFINITY });
            let bv = k.mov(Ty::F64, id_v);
            let bi = k.mov(Ty::U64, Op::I(-1));
            k.place(top);
            let loaded = load_step(&mut k, &[id_v, Op::I(-1)]);
            for (v, i) in loaded[0].iter().zip(&loaded[1]) {
                let (nv, ni) = better_arg(&mut k, max, (bv, bi), (*v, *i));
                k.assign(bv, nv);
                k.assign(bi, ni);
            }
            k.add_to(j, step);
            k.add_to(addr, step * 8);
            k.bra(top);
            k.place(done);
            k.st_shared(my_shared, 0, bv);
            k.st_shared(my_shared, lane_bytes as i64, bi);
        }
        _ => {
            let acc: Vec<Reg> = (0..slots).map(|_| k.mov(Ty::F64, Op::F64(-0.0))).collect();
            k.place(top);
            let ids = vec![Op::F64(-0.0); slots as usize];
            let loaded = load_step(&mut k, &ids);
            for (r, vals) in acc.iter().zip(&loaded) {
                for v in vals {
                    k.add_to(*r, *v);
                }
            }
            k.add_to(j, step);
            k.add_to(addr, step * 8);
            k.bra(top);
            k.place(done);
            for (s, r) in acc.iter().enumerate() {
                k.st_shared(my_shared, (s as u32 * lane_bytes) as i64, *r);
            }
        }
    }
    k.bar_sync();
    let end = k.label();
    let not_first = k.setp(Cmp::Ne, Ty::U32, tid, 0i64);
    k.bra_if(not_first, false, end);

    // Phase 2 (work-item 0): the lanes in order, then the result.
    let empty = k.setp(Cmp::Eq, Ty::U32, grid, 0i64);
    let (ty, comps) = p.components();
    let out: Vec<Reg> = match p.op {
        L1Op::Iamax { max } => {
            let bv = k.mov(Ty::F64, Op::F64(if max { -1.0 } else { f64::INFINITY }));
            let bi = k.mov(Ty::U64, Op::I(-1));
            for l in 0..FINISH_LANES as i64 {
                let v = k.ld_shared(Ty::F64, shared, l * 8);
                let i = k.ld_shared(Ty::U64, shared, lane_bytes as i64 + l * 8);
                let (nv, ni) = better_arg(&mut k, max, (bv, bi), (v, i));
                k.assign(bv, nv);
                k.assign(bi, ni);
            }
            // 1-based; u64::MAX + 1 wraps to 0: none qualified gives 1; n = 0 gives 0.
            let one_based = k.add(Ty::U64, bi, 1i64);
            let none = k.setp(Cmp::Eq, Ty::U64, one_based, 0i64);
            let idx = k.selp(Ty::U64, 1i64, one_based, none);
            vec![k.selp(Ty::U64, 0i64, idx, empty)]
        }
        _ => {
            let totals: Vec<Reg> = (0..slots)
                .map(|s| {
                    let t = k.mov(Ty::F64, Op::F64(-0.0));
                    for l in 0..FINISH_LANES {
                        let v = k.ld_shared(Ty::F64, shared, ((s * lane_bytes) + l * 8) as i64);
                        k.add_to(t, v);
                    }
                    t
                })
                .collect();
            let reals = if p.op == L1Op::Nrm2 {
                vec![blue_finish_ptx(&mut k, totals[0], totals[1], totals[2])]
            } else {
                totals[..comps as usize].to_vec()
            };
            reals
                .iter()
                .map(|r| {
                    let r = k.selp(Ty::F64, Op::F64(0.0), *r, empty);
                    if ty == Ty::F32 {
                        k.cvt(Ty::F32, r)
                    } else {
                        r
                    }
                })
                .collect()
        }
    };
    for (c, r) in out.iter().enumerate() {
        k.st_global(result, (c as u32 * ty.size()) as i64, &[*r]);
    }
    k.place(end);
    k.ret();
    Ok(k)
}

/// [`super::blue_finish`] in PTX: every branch computed, the taken one selected (the
/// others may be NaN or ∞; selection discards them).
fn blue_finish_ptx(k: &mut KernelBuilder, small: Reg, medium: Reg, big: Reg) -> Reg {
    let f = Ty::F64;
    // big > 0: sqrt(big + (medium·SBIG)·SBIG) / SBIG.
    let m1 = k.mul(f, medium, Op::F64(SBIG));
    let m2 = k.mul(f, m1, Op::F64(SBIG));
    let b = k.add(f, big, m2);
    let sb = k.sqrt(f, b);
    let from_big = k.div(f, sb, Op::F64(SBIG));
    // small > 0 and medium > 0: ymax·sqrt(1 + (ymin/ymax)²).
    let ymed = k.sqrt(f, medium);
    let ss = k.sqrt(f, small);
    let ysml = k.div(f, ss, Op::F64(SSML));
    let sml_bigger = k.setp(Cmp::Gt, f, ysml, ymed);
    let ymin = k.selp(f, ymed, ysml, sml_bigger);
    let ymax = k.selp(f, ysml, ymed, sml_bigger);
    let q = k.div(f, ymin, ymax);
    let q2 = k.mul(f, q, q);
    let s1 = k.add(f, Op::F64(1.0), q2);
    let r1 = k.sqrt(f, s1);
    let from_both = k.mul(f, ymax, r1);
    let big_pos = k.setp(Cmp::Gt, f, big, Op::F64(0.0));
    let small_pos = k.setp(Cmp::Gt, f, small, Op::F64(0.0));
    let medium_pos = k.setp(Cmp::Gt, f, medium, Op::F64(0.0));
    // Innermost first: medium only, small only, both, big.
    let r = k.selp(f, from_both, ysml, medium_pos);
    let r = k.selp(f, r, ymed, small_pos);
    k.selp(f, from_big, r, big_pos)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ptxas::{Ptxas, HOW_TO_GET};

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
