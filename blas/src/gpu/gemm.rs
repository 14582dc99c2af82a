//! GEMM on GPUs through `rocm_kernels::gemm`.
//!
//! The host picks the kernel variant (the target's catalog by problem class and m·n·k,
//! else the generator family's fallback), packs the arguments in the order the kernel
//! contract fixes (`rocm_kernels::gemm`), and launches `(⌈m/tile_m⌉, ⌈n/tile_n⌉, batch)`
//! workgroups. Batches beyond the grid's z limit (65535) go as several launches with
//! the base addresses advanced.
//!
//! - Strided batched: one launch (per 65535 problems) with the strides.
//! - Arrays of matrices (`gemm_batched`): one launch per problem (stride 0, batch 1).
//!   Simple and always correct; many tiny problems are better served by the strided
//!   form.
//! - BLAS quick returns: the caller handles m = 0 or n = 0. For k = 0 or α = 0 the
//!   same kernel runs with k = 0 and α = 0, which multiplies nothing and writes β·C
//!   (zeros when β = 0, without reading C); every family's kernels accept k = 0 for this.
//!   β = 1 with nothing to add returns at once.
//! - f32 with `MathMode::ReducedPrecisionF32` takes the tf32 kernel (catalog key
//!   `<class>/tf32`, fallback `ptx::fallback_tf32`).
//! - Compute capability 9.0: the catalog's warpgroup-MMA variant for the class (key
//!   `<class>[/tf32]/wgmma`; today tf32 with op(A) = Aᵀ, op(B) = B, the only layout
//!   whose operands are both K-major) replaces the choice above where A and B meet its
//!   16-byte copy rule (`ptx::wgmma::aligned`). Its dynamic shared memory
//!   (`ptx::dynamic_shared_bytes`) goes with the launch.
//! - AMD targets (emulated or HIP) fall back to the AMD generator's default tile
//!   (`amdgpu::model::default_params`) with the problem's transposes.
//! - Complex and other unsupported element types are `Unsupported` naming the device;
//!   a generator that cannot build the kernel (e.g. a family whose GEMM generator does
//!   not exist yet) returns its own error, unchanged.

#![allow(clippy::too_many_arguments)]

use crate::gemm::GemmShape;
use crate::{Blas, MathMode, Real, Scalar};
use rocm_core::isa::amdgpu::IsaTarget;
use rocm_core::target::Family;
use rocm_core::{Arch, Target};
use rocm_core::{DType, Error, KernelArgs, LaunchConfig, Result};
use rocm_kernels::catalog::Catalog;
use rocm_kernels::gemm::{amdgpu, ptx, Gemm, GemmInstruction, GemmParams};
use rocm_kernels::generator::{self, Generator};

/// Most problems one launch covers (the grid's z limit).
const MAX_GRID_Z: usize = 65535;
/// Most workgroups along y.
const MAX_GRID_Y: usize = 65535;

/// One matrix operand on the device: address of element (0, 0) of the first problem,
/// and elements between problems.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Operand {
    pub address: u64,
    pub stride: usize,
}

/// The kernel variant for a problem of `T` on this handle's device.
pub(crate) fn params<T: Scalar>(blas: &Blas, s: &GemmShape) -> Result<GemmParams> {
    let dtype = T::DTYPE;
    if !matches!(dtype, DType::F32 | DType::F64) {
        return Err(Error::unsupported(
            format!("GEMM for {dtype}"),
            blas.device(),
        ));
    }
    let (ta, tb) = (s.transa.is_trans(), s.transb.is_trans());
    let target = blas.device().target();
    let fallback = fallback(target, dtype, ta, tb)?;
    let key = GemmParams::key(dtype, dtype, dtype, ta, tb);
    let size = (s.m as u64)
        .saturating_mul(s.n as u64)
        .saturating_mul(s.k.max(1) as u64);
    let catalog = Catalog::for_target(target);
    // A catalog entry is trusted only for its own problem class.
    let fits = |p: &GemmParams| p.ab == dtype && p.c == dtype && p.trans_a == ta && p.trans_b == tb;
    let ieee = catalog.select(Gemm::NAME, &key, size, fallback.clone());
    let ieee = if fits(&ieee) && !ieee.reduced_f32 {
        ieee
    } else {
        fallback
    };
    if dtype == DType::F32 && blas.math_mode() == MathMode::ReducedPrecisionF32 {
        // tf32 variants are listed under their own key, with the NVIDIA tf32 kernel as
        // their fallback (other families: IEEE f32 until they have one).
        let reduced = match target.family() {
            Family::Nvidia => ptx::fallback_tf32(ta, tb),
            _ => ieee.clone(),
        };
        let p = catalog.select(Gemm::NAME, &format!("{key}/tf32"), size, reduced.clone());
        return Ok(if fits(&p) { p } else { reduced });
    }
    Ok(ieee)
}

/// The warpgroup-MMA variant for a problem of `p`'s class on compute capability 9.0
/// devices: the catalog's entry under `<class key>[/tf32]/wgmma` (there is no default),
/// used only where A and B meet its 16-byte copy rule.
fn wgmma_params(
    blas: &Blas,
    s: &GemmShape,
    p: &GemmParams,
    a: Operand,
    b: Operand,
) -> Option<GemmParams> {
    let target = blas.device().target();
    if !matches!(target.arch(), Arch::Sm90 | Arch::Sm90a) {
        return None;
    }
    let (ta, tb) = (s.transa.is_trans(), s.transb.is_trans());
    let key = GemmParams::key(p.ab, p.c, p.compute, ta, tb)
        + if p.reduced_f32 { "/tf32" } else { "" }
        + "/wgmma";
    let size = (s.m as u64)
        .saturating_mul(s.n as u64)
        .saturating_mul(s.k.max(1) as u64);
    let w = Catalog::for_target(target).select(Gemm::NAME, &key, size, p.clone());
    let fits = matches!(w.instruction, GemmInstruction::Wgmma { .. })
        && (w.ab, w.c, w.compute, w.reduced_f32) == (p.ab, p.c, p.compute, p.reduced_f32)
        && (w.trans_a, w.trans_b) == (ta, tb)
        && ptx::wgmma::aligned(p.ab, a.address, s.lda, a.stride, b.address, s.ldb, b.stride);
    fits.then_some(w)
}

/// The family's default kernel for a problem class: the NVIDIA SIMT/DMMA fallbacks, or
/// the AMD generator's default large MFMA/WMMA tile with the problem's transposes (a
/// target without one, e.g. f32 on gfx11 whose WMMA takes only 16-bit inputs, answers
/// `Unsupported`).
fn fallback(target: &Target, dtype: DType, ta: bool, tb: bool) -> Result<GemmParams> {
    match target.family() {
        Family::Cdna | Family::Rdna3 | Family::Rdna4 => {
            let mut p = amdgpu::model::default_params(IsaTarget::try_from(target)?, dtype)?;
            p.trans_a = ta;
            p.trans_b = tb;
            Ok(p)
        }
        _ => ptx::fallback(dtype, ta, tb),
    }
}

/// A dimension as the kernels take it: below 2^31 (the kernels count rows left in
/// signed 32-bit registers).
fn dim(name: &str, v: usize) -> Result<u32> {
    i32::try_from(v).map(|v| v as u32).map_err(|_| {
        Error::invalid(
            name,
            format!("{v} exceeds the GEMM kernels' limit of 2^31 - 1"),
        )
    })
}

/// α or β as the kernels take it: a value of the compute type.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum Coefficient {
    F32(f32),
    F64(f64),
}

impl Coefficient {
    fn is_zero(self) -> bool {
        match self {
            Coefficient::F32(v) => v == 0.0,
            Coefficient::F64(v) => v == 0.0,
        }
    }
    fn is_one(self) -> bool {
        match self {
            Coefficient::F32(v) => v == 1.0,
            Coefficient::F64(v) => v == 1.0,
        }
    }
    fn zero(self) -> Coefficient {
        match self {
            Coefficient::F32(_) => Coefficient::F32(0.0),
            Coefficient::F64(_) => Coefficient::F64(0.0),
        }
    }
    fn push(self, args: &mut KernelArgs) {
        match self {
            Coefficient::F32(v) => args.push(v),
            Coefficient::F64(v) => args.push(v),
        };
    }
}

/// A real `T`'s α or β.
fn coefficient<T: Scalar>(v: T) -> Coefficient {
    let re = v.re().as_f64();
    match <T::Real as rocm_core::Element>::DTYPE {
        // Exact: the value came from an f32.
        DType::F32 => Coefficient::F32(re as f32),
        _ => Coefficient::F64(re),
    }
}

/// C = α·op(A)·op(B) + β·C for `batch` problems `stride` elements apart; m, n ≥ 1.
pub(crate) fn gemm<T: Scalar>(
    blas: &Blas,
    s: &GemmShape,
    alpha: T,
    a: Operand,
    b: Operand,
    beta: T,
    c: Operand,
    batch: usize,
) -> Result<()> {
    if s.m == 0 || s.n == 0 || batch == 0 {
        return Ok(());
    }
    let (alpha, beta) = (coefficient(alpha), coefficient(beta));
    if (s.k == 0 || alpha.is_zero()) && beta.is_one() {
        return Ok(());
    }
    let p = with_wgmma(blas, s, params::<T>(blas, s)?, a, b)?;
    launch(blas, s, &p, alpha, a, b, beta, c, batch)
}

/// `p`, or the catalog's warpgroup-MMA variant of its class where the device and the
/// operands allow one; a wgmma choice whose operands break its 16-byte copy rule goes
/// back to the family's `mma.sync`/SIMT kernel for the class.
pub(crate) fn with_wgmma(
    blas: &Blas,
    s: &GemmShape,
    p: GemmParams,
    a: Operand,
    b: Operand,
) -> Result<GemmParams> {
    let p = wgmma_params(blas, s, &p, a, b).unwrap_or(p);
    if matches!(p.instruction, GemmInstruction::Wgmma { .. })
        && !ptx::wgmma::aligned(p.ab, a.address, s.lda, a.stride, b.address, s.ldb, b.stride)
    {
        let (ta, tb) = (s.transa.is_trans(), s.transb.is_trans());
        return if p.reduced_f32 {
            Ok(ptx::fallback_tf32(ta, tb))
        } else if p.ab == DType::F32 || p.ab == DType::F64 {
            ptx::fallback(p.ab, ta, tb)
        } else {
            Ok(ptx::half(p.ab, ta, tb))
        };
    }
    Ok(p)
}

/// The kernel variant for f16/bf16 inputs with f32 compute and `c` output on this
/// handle's device: the catalog's entry for the class (wgmma where the device and
/// operands allow), else the family's default (`ptx::half` on NVIDIA, the AMD
/// generator's MFMA/WMMA tile), all with f32 output. `None` for 16-bit output when only
/// f32-output kernels fit: the caller stages C through f32.
pub(crate) fn ex_params(
    blas: &Blas,
    s: &GemmShape,
    ab: DType,
    c: DType,
    a: Operand,
    b: Operand,
) -> Result<Option<GemmParams>> {
    let (ta, tb) = (s.transa.is_trans(), s.transb.is_trans());
    let target = blas.device().target();
    let fallback = match target.family() {
        Family::Nvidia => ptx::half(ab, ta, tb),
        _ => fallback(target, ab, ta, tb)?,
    };
    let size = (s.m as u64)
        .saturating_mul(s.n as u64)
        .saturating_mul(s.k.max(1) as u64);
    let class = |c: DType| GemmParams {
        c,
        ..fallback.clone()
    };
    // The wgmma kernels write any of f32, f16 and bf16.
    let wgmma = |c: DType| wgmma_params(blas, s, &class(c), a, b);
    if c != DType::F32 {
        return Ok(wgmma(c));
    }
    if let Some(w) = wgmma(c) {
        return Ok(Some(w));
    }
    let key = GemmParams::key(ab, DType::F32, DType::F32, ta, tb);
    let p = Catalog::for_target(target).select(Gemm::NAME, &key, size, fallback.clone());
    let fits = (p.ab, p.c, p.compute, p.trans_a, p.trans_b, p.reduced_f32)
        == (ab, DType::F32, DType::F32, ta, tb, false)
        && !matches!(p.instruction, GemmInstruction::Wgmma { .. });
    Ok(Some(if fits { p } else { fallback }))
}

/// Launches `p` over `batch` problems (C = β·C when k = 0 or α = 0: the kernels take
/// k = 0 and then never read A or B).
pub(crate) fn launch(
    blas: &Blas,
    s: &GemmShape,
    p: &GemmParams,
    alpha: Coefficient,
    a: Operand,
    b: Operand,
    beta: Coefficient,
    c: Operand,
    batch: usize,
) -> Result<()> {
    if s.m == 0 || s.n == 0 || batch == 0 {
        return Ok(());
    }
    let scale_only = s.k == 0 || alpha.is_zero();
    let loaded = generator::load::<Gemm>(blas.device(), p)?;
    let name = loaded
        .program
        .kernels
        .first()
        .map_or(ptx::KERNEL, |k| k.as_str());
    let kernel = loaded.module.kernel(name)?;
    let target = blas.device().target();
    let (k, alpha) = if scale_only {
        (0, alpha.zero())
    } else {
        (s.k, alpha)
    };
    let grid_x = s.m.div_ceil(p.tile_m as usize);
    let grid_y = s.n.div_ceil(p.tile_n as usize);
    if grid_y > MAX_GRID_Y {
        return Err(Error::invalid(
            "n",
            format!(
                "{} needs {grid_y} workgroups along y; at most {MAX_GRID_Y}",
                s.n
            ),
        ));
    }
    let dims = [
        dim("m", s.m)?,
        dim("n", s.n)?,
        dim("k", k)?,
        dim("lda", s.lda)?,
        dim("ldb", s.ldb)?,
        dim("ldc", s.ldc)?,
    ];
    let (ab_size, c_size) = (p.ab.size() as u64, p.c.size() as u64);
    let dev = blas.device();
    let mut first = 0;
    while first < batch {
        let count = (batch - first).min(MAX_GRID_Z);
        let at = |o: Operand, size: u64| o.address + (first * o.stride) as u64 * size;
        let mut args = KernelArgs::new();
        args.push_pointer(at(a, ab_size), dev)
            .push_pointer(at(b, ab_size), dev)
            .push_pointer(at(c, c_size), dev);
        for d in dims {
            args.push(d);
        }
        args.push(a.stride as u64)
            .push(b.stride as u64)
            .push(c.stride as u64);
        alpha.push(&mut args);
        beta.push(&mut args);
        let cfg = LaunchConfig {
            grid: [grid_x as u32, grid_y as u32, count as u32],
            block: [p.threads(target), 1, 1],
            shared_bytes: ptx::dynamic_shared_bytes(p),
        };
        // SAFETY: the caller checked every operand's extent for `batch` problems of this
        // shape and leading dimensions in `p`'s element types (and that C's problems do
        // not overlap); the kernel touches only elements inside m×n (C), op(A) m×k and
        // op(B) k×n of each problem, and the views stay borrowed until the call returns.
        unsafe { kernel.launch(blas.stream(), &cfg, &args)? };
        first += count;
    }
    Ok(())
}
