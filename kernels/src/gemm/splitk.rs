//! Split-K's second pass: `C = α·Σ_s P_s + β·C`.
//!
//! A GEMM with few output tiles and a long k (64×8192 by 8192: 32 tiles of 128×256 on a
//! 132-SM GPU) leaves most of the device idle. The host then cuts k into `splits`
//! slices and runs the ordinary GEMM kernel once over all of them as a strided batch
//! (slice `s` reads A and B `s·k_slice` along k and writes `P_s = op(A)_s·op(B)_s` in
//! the compute type, α = 1, β = 0, to a packed m×n workspace), and this kernel adds the
//! slices in slice order, applies α and β and converts to C's type. The order is fixed,
//! so results are the same run to run; each output gains at most `splits − 1` additions
//! over the unsplit sum (error ≤ (k + splits)·u·Σ|a||b| + u·|β·c|).
//!
//! Kernel `rocm_gemm_splitk_finish` (PTX), arguments as [`signature`] declares them;
//! P (compute type) holds `P_s[i + j·m]` at element `s·m·n + j·m + i`. Launch:
//! grid (n, ⌈m / block⌉), one work-item per row of a column, so consecutive work-items
//! read consecutive P elements and write consecutive C elements. β = 0 (`read_c =
//! false`) never reads C.

use crate::generator::{Generator, LaunchRule, Program};
use crate::ptx::{Cmp, KernelBuilder, LoadCache, Module, Op, Special, Ty};
use crate::signature::{Access, ScalarType, Signature};
use rocm_core::target::KernelIsa;
use rocm_core::{DType, Error, ModuleImage, Result, Target};

/// The kernel's entry name.
pub const KERNEL: &str = "rocm_gemm_splitk_finish";

/// Work-items per workgroup.
pub const BLOCK: u32 = 256;
/// Slices whose loads one work-item issues together.
const UNROLL: usize = 4;

/// One finish kernel: the partials' type, C's type, and whether β ≠ 0.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct SplitKParams {
    /// f32 or f64.
    pub compute: DType,
    /// f32, f64, f16 or bf16 (f64 only with f64 compute, 16-bit only with f32).
    pub c: DType,
    pub read_c: bool,
}

impl SplitKParams {
    fn validate(&self) -> Result<()> {
        let ok = matches!(
            (self.compute, self.c),
            (DType::F32, DType::F32 | DType::F16 | DType::Bf16) | (DType::F64, DType::F64)
        );
        if ok {
            Ok(())
        } else {
            Err(Error::invalid(
                "c",
                format!(
                    "split-K finish for {} partials cannot write {}",
                    self.compute, self.c
                ),
            ))
        }
    }
}

/// The finish kernel's arguments: `m, n, splits` (u32), `work` (the partials, read),
/// `c` (written; also read with `read_c`), `ldc` (u32), `alpha` and, with `read_c`,
/// `beta` (compute type).
pub fn signature(p: &SplitKParams) -> Result<Signature> {
    p.validate()?;
    let coefficient = if p.compute == DType::F64 {
        ScalarType::F64
    } else {
        ScalarType::F32
    };
    let c_access = if p.read_c {
        Access::ReadWrite
    } else {
        Access::Write
    };
    let sig = Signature::new(KERNEL)
        .scalar("m", ScalarType::U32)
        .scalar("n", ScalarType::U32)
        .scalar("splits", ScalarType::U32)
        .pointer("work", p.compute, Access::Read)
        .pointer("c", p.c, c_access)
        .scalar("ldc", ScalarType::U32)
        .scalar("alpha", coefficient);
    Ok(if p.read_c {
        sig.scalar("beta", coefficient)
    } else {
        sig
    })
}

/// The split-K finish generator.
pub struct SplitKFinish;

impl Generator for SplitKFinish {
    type Params = SplitKParams;
    const NAME: &'static str = "gemm_splitk_finish";
    const VERSION: u32 = 2;

    fn generate(p: &SplitKParams, target: &Target) -> Result<Program> {
        if target.caps().kernel_isa != KernelIsa::Ptx {
            return Err(Error::unsupported(
                "split-K GEMM finish kernels",
                target.to_string(),
            ));
        }
        let sig = signature(p)?;
        let mut module = Module::new(target)?;
        module.push(&build(p, &sig)?);
        Ok(Program {
            image: ModuleImage::Ptx(module.text()),
            kernels: vec![KERNEL.into()],
            signatures: vec![sig],
            launch: LaunchRule::Cover {
                block: BLOCK,
                units_per_item: 1,
            },
        })
    }
}

/// The PTX type of a real dtype (the params' `validate` admits only those).
fn ty(d: DType) -> Ty {
    Ty::components_of(d).map_or(Ty::F32, |(t, _)| t)
}

fn build(p: &SplitKParams, sig: &Signature) -> Result<KernelBuilder> {
    let (ct, cty) = (ty(p.compute), ty(p.c));
    let (es, cs) = (p.compute.size() as u32, p.c.size() as u32);
    let (mut k, params) = KernelBuilder::from_signature(sig);
    let pm = params.get("m")?.clone();
    let pn = params.get("n")?.clone();
    let psplits = params.get("splits")?.clone();
    let pwork = params.get("work")?.clone();
    let pc = params.get("c")?.clone();
    let pldc = params.get("ldc")?.clone();
    let palpha = params.get("alpha")?.clone();
    let pbeta = params.opt("beta").cloned();

    let m = k.ld_param(&pm);
    let col = k.special(Special::CtaidX);
    let by = k.special_named("%ctaid.y");
    let tid = k.special(Special::TidX);
    let row = k.fma(Ty::U32, by, BLOCK, tid);
    let exit = k.label();
    let outside = k.setp(Cmp::Ge, Ty::U32, row, m);
    k.bra_if(outside, false, exit);

    let n = k.ld_param(&pn);
    let splits = k.ld_param(&psplits);
    let work = k.ld_param_global_ptr(&pwork);
    // &P_0[row, col] and the bytes between slices (m·n elements).
    let at = k.mul_wide_u32(col, m);
    let row64 = k.cvt(Ty::U64, row);
    let el = k.add(Ty::U64, at, row64);
    let addr = k.fma(Ty::U64, el, es, work);
    let mn = k.mul_wide_u32(m, n);
    let slice = k.mul(Ty::U64, mn, es);
    let zero = if ct == Ty::F64 {
        Op::F64(0.0)
    } else {
        Op::F32(0.0)
    };
    let acc = k.mov(ct, zero);
    // Slices in groups of UNROLL (their loads in flight together, the adds still in
    // slice order), then one at a time.
    let s = k.mov(Ty::U32, 0u32);
    let group = k.mul(Ty::U64, slice, UNROLL as u32);
    let (top, single, single_top, done) = (k.label(), k.label(), k.label(), k.label());
    k.place(top);
    let left = k.sub(Ty::U32, splits, s);
    let short = k.setp(Cmp::Lt, Ty::U32, left, UNROLL as u32);
    k.bra_if(short, false, single);
    let mut ptr = addr;
    let mut vals = Vec::new();
    for u in 0..UNROLL {
        if u > 0 {
            ptr = k.add(Ty::U64, ptr, slice);
        }
        vals.push(k.ld_global(ct, 1, ptr, 0, LoadCache::Streaming)[0]);
    }
    for v in vals {
        let sum = k.add(ct, acc, v);
        k.assign(acc, sum);
    }
    k.add_to(addr, group);
    k.add_to(s, UNROLL as u32);
    k.bra(top);
    k.place(single);
    k.place(single_top);
    let fin = k.setp(Cmp::Ge, Ty::U32, s, splits);
    k.bra_if(fin, false, done);
    let v = k.ld_global(ct, 1, addr, 0, LoadCache::Streaming)[0];
    let sum = k.add(ct, acc, v);
    k.assign(acc, sum);
    k.add_to(addr, slice);
    k.add_to(s, 1u32);
    k.bra(single_top);
    k.place(done);

    let c = k.ld_param_global_ptr(&pc);
    let ldc = k.ld_param(&pldc);
    let cat = k.mul_wide_u32(col, ldc);
    let cel = k.add(Ty::U64, cat, row64);
    let caddr = k.fma(Ty::U64, cel, cs, c);
    let alpha = k.ld_param(&palpha);
    let mut val = k.mul(ct, acc, alpha);
    if let Some(pb) = pbeta {
        let beta = k.ld_param(&pb);
        let old = k.ld_global(cty, 1, caddr, 0, LoadCache::Default)[0];
        let wide = if cty == ct { old } else { k.cvt(ct, old) };
        val = k.fma(ct, wide, beta, val);
    }
    let out = if cty == ct { val } else { k.cvt(cty, val) };
    k.st_global(caddr, 0, &[out]);
    k.place(exit);
    k.ret();
    Ok(k)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn refuses_mismatched_types_and_other_families() {
        let bad = SplitKParams {
            compute: DType::F32,
            c: DType::F64,
            read_c: true,
        };
        assert!(SplitKFinish::generate(&bad, &"sm_90".parse().unwrap()).is_err());
        let ok = SplitKParams {
            compute: DType::F32,
            c: DType::Bf16,
            read_c: false,
        };
        assert!(SplitKFinish::generate(&ok, &"gfx90a".parse().unwrap()).is_err());
        let text = match SplitKFinish::generate(&ok, &"sm_90".parse().unwrap())
            .unwrap()
            .image
        {
            ModuleImage::Ptx(t) => t,
            _ => unreachable!("PTX"),
        };
        assert!(text.contains(KERNEL) && !text.contains("beta"));
    }
}
