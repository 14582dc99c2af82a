//! GEMM on GPUs through `rocm_kernels::gemm`.
//!
//! The host picks the kernel variant (the target's catalog by problem class and
//! (m, n, k), `Catalog::select_shape`,
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
//!   16-byte copy rule (`ptx::wgmma::aligned`), or can be repacked to meet it: an
//!   operand whose leading dimension, batch stride or base breaks the rule is copied
//!   (one pitched copy, or one per problem when a batch's problems are not back to
//!   back, at most [`MAX_REPACK_COPIES`]) into the handle's operand workspace with its
//!   leading dimension rounded up to 16 bytes. The copy reads and writes each operand
//!   once (for 4097³ bf16 about a fifth of the product's time), where the fallback
//!   `mma.sync` kernel runs at a small fraction of wgmma's rate. Its dynamic shared
//!   memory (`ptx::dynamic_shared_bytes`) goes with the launch. tf32 calls in the
//!   other three layouts take the op(A) = Aᵀ, op(B) = B variant on transposed copies of
//!   the operands that need it (`rocm_kernels::transpose`, into the same workspace).
//! - A catalog entry for an f32/f64 class may name a register-tiled kernel of another
//!   layout (tuned with `rocm-bench tune gemm --flip`): the operands whose layout
//!   differs are transposed into the operand workspace first, the same way, and the
//!   copies are part of what the tuner timed.
//! - AMD targets (emulated or HIP) fall back to the AMD generator's default tile
//!   (`amdgpu::model::default_params`: MFMA, WMMA, or the register-tiled FMA kernel for
//!   f32/f64 on gfx11 and f64 on gfx908) with the problem's transposes; a catalog entry
//!   is taken there only if the AMD plan accepts it.
//! - Complex32 and Complex64 (`gemm`, `gemm_strided_batched`, `gemm_batched`, op ∈
//!   {N, T, C}) run on NVIDIA and AMD devices through these real kernels on a
//!   real-ified 2m × n × 2k problem (`gpu::gemm_complex`, which documents the
//!   formulation and its workspace).
//! - Other unsupported element types (and complex kernel variants asked for directly
//!   through [`params`]) are `Unsupported` naming the device;
//!   a generator that cannot build the kernel (e.g. a family whose GEMM generator does
//!   not exist yet) returns its own error, unchanged.

#![allow(clippy::too_many_arguments)]

use crate::gemm::GemmShape;
use crate::{Blas, MathMode, Real, Scalar};
use rocm_core::isa::amdgpu::IsaTarget;
use rocm_core::target::KernelIsa;
use rocm_core::tensor_map::TensorMap;
use rocm_core::{Arch, Target};
use rocm_core::{DType, Error, KernelArgs, LaunchConfig, Result};
use rocm_kernels::catalog::Catalog;
use rocm_kernels::gemm::splitk::{self, SplitKFinish, SplitKParams};
use rocm_kernels::gemm::{amdgpu, ptx, Gemm, GemmInstruction, GemmParams};
use rocm_kernels::generator::{self, Generator};

/// Most problems one launch covers (the grid's z limit).
const MAX_GRID_Z: usize = 65535;
/// Most workgroups along y.
const MAX_GRID_Y: usize = 65535;
/// Most pitched copies one operand's repack may take (see the module docs); a batch
/// that would need more runs the class's `mma.sync`/SIMT kernel instead.
pub(crate) const MAX_REPACK_COPIES: usize = 64;

/// One matrix operand on the device: address of element (0, 0) of the first problem,
/// and elements between problems.
#[derive(Debug, Clone, Copy, PartialEq)]
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
    let catalog = Catalog::for_target(target);
    // A catalog entry is trusted only for its own problem class. An NVIDIA
    // register-tiled entry may read the operands in another layout than the call
    // stores them: `launch` then runs it on transposed copies ([`flips`]). The tuner
    // offers such entries (`rocm-bench tune gemm --flip`) and times them with their
    // copies; e.g. the f32 SIMT kernel reads A along m and B along n fastest, and an
    // NN call at 8192³ gains more from the NT kernel than B's copy costs.
    let fits = |p: &GemmParams| {
        let flip_ok = target.caps().kernel_isa == KernelIsa::Ptx
            && !matches!(p.instruction, GemmInstruction::Wgmma { .. });
        p.ab == dtype
            && p.c == dtype
            && ((p.trans_a, p.trans_b) == (ta, tb) || flip_ok)
            && builds_here(p, target)
    };
    let ieee = catalog.select_shape(Gemm::NAME, &key, &s.dims(), fallback.clone());
    let ieee = if fits(&ieee) && !ieee.reduced_f32 {
        ieee
    } else {
        fallback
    };
    if dtype == DType::F32 && blas.math_mode() == MathMode::ReducedPrecisionF32 {
        // tf32 variants are listed under their own key, with the NVIDIA tf32 kernel as
        // their fallback (other families: IEEE f32 until they have one).
        let reduced = match target.caps().kernel_isa {
            KernelIsa::Ptx => ptx::fallback_tf32(ta, tb),
            _ => ieee.clone(),
        };
        let p = catalog.select_shape(
            Gemm::NAME,
            &format!("{key}/tf32"),
            &s.dims(),
            reduced.clone(),
        );
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
    batch: usize,
) -> Option<GemmParams> {
    let target = blas.device().target();
    if !matches!(target.arch(), Arch::Sm90 | Arch::Sm90a) {
        return None;
    }
    let (ta, tb) = (s.transa.is_trans(), s.transb.is_trans());
    let key = GemmParams::key(p.ab, p.c, p.compute, ta, tb)
        + if p.reduced_f32 { "/tf32" } else { "" }
        + "/wgmma";
    let catalog = Catalog::for_target(target);
    let w = catalog.select_shape(Gemm::NAME, &key, &s.dims(), p.clone());
    let same_class = |w: &GemmParams| {
        matches!(w.instruction, GemmInstruction::Wgmma { .. })
            && (w.ab, w.c, w.compute, w.reduced_f32) == (p.ab, p.c, p.compute, p.reduced_f32)
    };
    if same_class(&w) && (w.trans_a, w.trans_b) == (ta, tb) && reachable(&w, s, a, b, batch) {
        return Some(w);
    }
    // tf32 wgmma reads only K-major operands (op(A) = Aᵀ, op(B) = B): other layouts take
    // that class's variant on transposed copies (see `launch`), which costs one pass
    // over each transposed operand against a kernel several times the `mma.sync` one's
    // rate.
    if p.reduced_f32 && (ta, tb) != (true, false) {
        let key = GemmParams::key(p.ab, p.c, p.compute, true, false) + "/tf32/wgmma";
        let w = catalog.select_shape(Gemm::NAME, &key, &s.dims(), p.clone());
        if same_class(&w)
            && (w.trans_a, w.trans_b) == (true, false)
            && reachable(&w, s, a, b, batch)
        {
            return Some(w);
        }
    }
    None
}

/// Whether `p` reads A or B in the other layout than the call stores them (the tf32
/// wgmma variant chosen for a non-K-major call): `launch` then transposes those
/// operands first ([`Transposed`]).
fn flips(p: &GemmParams, s: &GemmShape) -> (bool, bool) {
    (
        p.trans_a != s.transa.is_trans(),
        p.trans_b != s.transb.is_trans(),
    )
}

/// Whether a wgmma variant can run on these operands: they meet its copy rule, or each
/// one that does not can be repacked.
fn reachable(p: &GemmParams, s: &GemmShape, a: Operand, b: Operand, batch: usize) -> bool {
    let (ra, rb) = repacks(p.ab, s, a, b);
    let (flip_a, flip_b) = flips(p, s);
    // A transposed operand's copy always meets the rule (see `Transposed`).
    [(flip_a, ra), (flip_b, rb)]
        .into_iter()
        .all(|(flipped, r)| flipped || r.is_none_or(|r| r.copies(batch) <= MAX_REPACK_COPIES))
}

/// A stored operand matrix (`rows × cols`, leading dimension `ld`) copied to the operand
/// workspace with its leading dimension rounded up to 16 bytes.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Repack {
    rows: usize,
    cols: usize,
    ld: usize,
    /// The copy's leading dimension and batch stride (0 stays 0: one matrix shared by
    /// every problem).
    new_ld: usize,
    new_stride: usize,
    from: Operand,
}

impl Repack {
    /// `None` when the operand already meets the copy rule.
    fn plan(ab: DType, (rows, cols): (usize, usize), ld: usize, from: Operand) -> Option<Self> {
        if ptx::wgmma::operand_aligned(ab, from.address, ld, from.stride) {
            return None;
        }
        let v = 16 / ab.size();
        let new_ld = rows.max(1).next_multiple_of(v);
        let new_stride = if from.stride == 0 { 0 } else { new_ld * cols };
        Some(Repack {
            rows,
            cols,
            ld,
            new_ld,
            new_stride,
            from,
        })
    }

    /// Problems stored back to back (or one problem, or one shared matrix) take a
    /// single copy of `cols · problems` columns; others one copy per problem.
    fn back_to_back(&self, batch: usize) -> bool {
        batch == 1 || self.from.stride == 0 || self.from.stride == self.ld * self.cols
    }

    fn copies(&self, batch: usize) -> usize {
        if self.back_to_back(batch) {
            1
        } else {
            batch
        }
    }

    /// Matrices the copy holds: one when every problem shares the operand.
    fn problems(&self, batch: usize) -> usize {
        if self.new_stride == 0 {
            1
        } else {
            batch
        }
    }

    /// Elements the copy occupies.
    fn len(&self, batch: usize) -> usize {
        self.new_ld * self.cols * self.problems(batch)
    }

    /// Queues the copy to `to` on the handle's stream.
    fn copy(&self, blas: &Blas, es: usize, to: u64, batch: usize) -> Result<()> {
        let (width, src_pitch, dst_pitch) = (self.rows * es, self.ld * es, self.new_ld * es);
        let problems = self.problems(batch);
        let runs = if self.back_to_back(batch) {
            vec![(0, 0, self.cols * problems)]
        } else {
            (0..problems)
                .map(|q| (q * self.from.stride, q * self.new_stride, self.cols))
                .collect()
        };
        for (from, at, cols) in runs {
            // SAFETY: the caller checked that each of the `batch` problems' `rows × cols`
            // matrices (leading dimension `ld`) lies inside the operand's view, so every
            // source row does; the destination rows lie inside the workspace (sized by
            // `len`), a separate allocation.
            unsafe {
                blas.stream().copy_2d_raw(
                    to + (at * es) as u64,
                    dst_pitch,
                    self.from.address + (from * es) as u64,
                    src_pitch,
                    width,
                    cols,
                )?
            };
        }
        Ok(())
    }
}

/// The repacks A and B need for a wgmma kernel of input type `ab`.
fn repacks(ab: DType, s: &GemmShape, a: Operand, b: Operand) -> (Option<Repack>, Option<Repack>) {
    (
        Repack::plan(ab, s.transa.stored_dims(s.m, s.k), s.lda, a),
        Repack::plan(ab, s.transb.stored_dims(s.k, s.n), s.ldb, b),
    )
}

/// The family's default kernel for a problem class: the NVIDIA SIMT/DMMA fallbacks, or
/// the AMD generator's default tile with the problem's transposes (MFMA/WMMA, or the
/// register-tiled FMA kernel for f32/f64 where the target has no matrix instruction
/// for them: gfx11, and f64 on gfx908).
fn fallback(target: &Target, dtype: DType, ta: bool, tb: bool) -> Result<GemmParams> {
    match target.caps().kernel_isa {
        KernelIsa::Amdgpu => {
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
        self.with_value(0.0)
    }
    /// `v` in this coefficient's type.
    fn with_value(self, v: f64) -> Coefficient {
        match self {
            Coefficient::F32(_) => Coefficient::F32(v as f32),
            Coefficient::F64(_) => Coefficient::F64(v),
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
    if T::IS_COMPLEX {
        return crate::gpu::gemm_complex::gemm(blas, s, alpha, a, b, beta, c, batch);
    }
    let (alpha, beta) = (coefficient(alpha), coefficient(beta));
    if (s.k == 0 || alpha.is_zero()) && beta.is_one() {
        return Ok(());
    }
    let p = with_wgmma(blas, s, params::<T>(blas, s)?, a, b, batch)?;
    launch(blas, s, &p, alpha, a, b, beta, c, batch)
}

/// `p`, or the catalog's warpgroup-MMA variant of its class where the device and the
/// operands allow one (directly or repacked); a wgmma choice the operands cannot reach
/// goes back to the family's `mma.sync`/SIMT kernel for the class.
pub(crate) fn with_wgmma(
    blas: &Blas,
    s: &GemmShape,
    p: GemmParams,
    a: Operand,
    b: Operand,
    batch: usize,
) -> Result<GemmParams> {
    let p = wgmma_params(blas, s, &p, a, b, batch).unwrap_or(p);
    if matches!(p.instruction, GemmInstruction::Wgmma { .. }) && !reachable(&p, s, a, b, batch) {
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
    batch: usize,
) -> Result<Option<GemmParams>> {
    let (ta, tb) = (s.transa.is_trans(), s.transb.is_trans());
    let target = blas.device().target();
    let fallback = match target.caps().kernel_isa {
        KernelIsa::Ptx => ptx::half(ab, ta, tb),
        _ => fallback(target, ab, ta, tb)?,
    };
    let class = |c: DType| GemmParams {
        c,
        ..fallback.clone()
    };
    // The wgmma kernels write any of f32, f16 and bf16.
    let wgmma = |c: DType| wgmma_params(blas, s, &class(c), a, b, batch);
    if c != DType::F32 {
        return Ok(wgmma(c));
    }
    if let Some(w) = wgmma(c) {
        return Ok(Some(w));
    }
    let key = GemmParams::key(ab, DType::F32, DType::F32, ta, tb);
    let p = Catalog::for_target(target).select_shape(Gemm::NAME, &key, &s.dims(), fallback.clone());
    let fits = (p.ab, p.c, p.compute, p.trans_a, p.trans_b, p.reduced_f32)
        == (ab, DType::F32, DType::F32, ta, tb, false)
        && builds_here(&p, target)
        && !matches!(p.instruction, GemmInstruction::Wgmma { .. });
    Ok(Some(if fits { p } else { fallback }))
}

/// Whether `target`'s generator builds a catalog entry: its family takes the
/// instruction and, on AMD targets, the AMD plan accepts the entry (an NVIDIA SIMT
/// entry's warps and lane tiles need not fit a wave of 64, nor its stages the two LDS
/// stages), so an entry meant for another family falls back to the default.
fn builds_here(p: &GemmParams, target: &Target) -> bool {
    p.instruction.builds_for(target.caps().kernel_isa)
        && match target.caps().kernel_isa {
            KernelIsa::Amdgpu => IsaTarget::try_from(target)
                .and_then(|t| amdgpu::plan::Plan::new(p, t))
                .is_ok(),
            _ => true,
        }
}

/// Launches `p` over `batch` problems (C = β·C when k = 0 or α = 0: the kernels take
/// k = 0 and then never read A or B). An operand the kernel reads in the other layout
/// ([`flips`]) runs on a transposed copy, and a wgmma operand that breaks the copy rule
/// on a repacked one ([`Staging`]; the variant was chosen only if they can be made),
/// both in the handle's operand workspace, followed by split-K's partials where it
/// applies.
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
    let (flip_a, flip_b) = flips(p, s);
    let wgmma = matches!(p.instruction, GemmInstruction::Wgmma { .. });
    let staging = |flipped: bool, dims: (usize, usize), ld: usize, from: Operand| {
        if scale_only {
            None
        } else if flipped {
            Some(Staging::Transpose(Transposed::plan(
                p.ab, dims, ld, from, batch,
            )))
        } else if wgmma {
            Repack::plan(p.ab, dims, ld, from).map(Staging::Repack)
        } else {
            None
        }
    };
    let sa = staging(flip_a, s.transa.stored_dims(s.m, s.k), s.lda, a);
    let sb = staging(flip_b, s.transb.stored_dims(s.k, s.n), s.ldb, b);
    // The kernel's layouts: a transposed operand is read the other way round.
    let mut shape = *s;
    let as_trans = |t: bool| {
        if t {
            crate::Transpose::T
        } else {
            crate::Transpose::N
        }
    };
    if matches!(sa, Some(Staging::Transpose(_))) {
        shape.transa = as_trans(p.trans_a);
    }
    if matches!(sb, Some(Staging::Transpose(_))) {
        shape.transb = as_trans(p.trans_b);
    }
    let split = if scale_only {
        None
    } else {
        SplitK::plan(blas, &shape, p, batch)
    };
    if sa.is_none() && sb.is_none() && split.is_none() {
        return launch_kernel(blas, &shape, p, alpha, a, b, beta, c, batch);
    }
    let es = p.ab.size();
    let len = |st: &Option<Staging>| st.as_ref().map_or(0, |st| st.len(batch));
    let (len_a, len_b) = (len(&sa), len(&sb));
    // A's copy, then B's (A's is a multiple of 16 bytes long, so B's starts aligned),
    // then the split-K partials at the next 16-byte boundary.
    let partials_at = ((len_a + len_b) * es).next_multiple_of(16);
    let bytes = partials_at + split.map_or(0, |k| k.bytes(&shape, p));
    // The workspace holds f64 elements.
    blas.with_operand_workspace(bytes.div_ceil(8), |work| {
        let base = work.as_slice_mut().address();
        let (mut a, mut b) = (a, b);
        if let Some(st) = &sa {
            (shape.lda, a) = st.stage(blas, es, base, batch)?;
        }
        if let Some(st) = &sb {
            (shape.ldb, b) = st.stage(blas, es, base + (len_a * es) as u64, batch)?;
        }
        match split {
            None => launch_kernel(blas, &shape, p, alpha, a, b, beta, c, batch),
            Some(k) => k.run(
                blas,
                &shape,
                p,
                (alpha, beta),
                (a, b, c),
                base + partials_at as u64,
            ),
        }
    })
}

/// How an operand reaches a kernel that cannot read it as stored.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Staging {
    /// Copied with its leading dimension rounded up to 16 bytes (wgmma's copy rule).
    Repack(Repack),
    /// Transposed (the kernel reads the other layout).
    Transpose(Transposed),
}

impl Staging {
    /// Elements the copy occupies.
    fn len(&self, batch: usize) -> usize {
        match self {
            Staging::Repack(r) => r.len(batch),
            Staging::Transpose(t) => t.len(),
        }
    }

    /// Queues the copy to `to` on the handle's stream; the copy's leading dimension and
    /// the operand the kernel then reads.
    fn stage(&self, blas: &Blas, es: usize, to: u64, batch: usize) -> Result<(usize, Operand)> {
        let (new_ld, stride) = match self {
            Staging::Repack(r) => {
                r.copy(blas, es, to, batch)?;
                (r.new_ld, r.new_stride)
            }
            Staging::Transpose(t) => {
                t.copy(blas, es, to)?;
                (t.new_ld, t.new_stride())
            }
        };
        Ok((
            new_ld,
            Operand {
                address: to,
                stride,
            },
        ))
    }
}

/// A stored operand matrix (`rows × cols`, leading dimension `ld`) transposed by
/// `rocm_kernels::transpose` into the operand workspace as `cols × rows`, its leading
/// dimension rounded up to 16 bytes (so the copy meets the wgmma copy rule); one launch
/// for the whole batch (one matrix when every problem shares it).
#[derive(Debug, Clone, Copy, PartialEq)]
struct Transposed {
    rows: usize,
    cols: usize,
    ld: usize,
    new_ld: usize,
    /// Matrices the copy holds: one when every problem shares the operand.
    problems: usize,
    from: Operand,
}

impl Transposed {
    fn plan(
        ab: DType,
        (rows, cols): (usize, usize),
        ld: usize,
        from: Operand,
        batch: usize,
    ) -> Self {
        Transposed {
            rows,
            cols,
            ld,
            new_ld: cols.max(1).next_multiple_of(16 / ab.size()),
            problems: if from.stride == 0 { 1 } else { batch },
            from,
        }
    }

    fn new_stride(&self) -> usize {
        if self.from.stride == 0 {
            0
        } else {
            self.new_ld * self.rows
        }
    }

    /// Elements the copy occupies.
    fn len(&self) -> usize {
        self.new_ld * self.rows * self.problems
    }

    /// Queues the transposes to `to` on the handle's stream.
    fn copy(&self, blas: &Blas, es: usize, to: u64) -> Result<()> {
        use rocm_kernels::transpose::{self, Transpose, TransposeParams};
        let params = TransposeParams {
            element_bytes: es as u32,
        };
        let loaded = generator::load::<Transpose>(blas.device(), &params)?;
        let kernel = loaded.module.kernel(transpose::KERNEL)?;
        let dim = |v: usize| {
            u32::try_from(v).map_err(|_| Error::invalid("gemm", format!("{v} exceeds u32")))
        };
        let out_stride = self.new_ld * self.rows;
        for first in (0..self.problems).step_by(MAX_GRID_Z) {
            let count = (self.problems - first).min(MAX_GRID_Z);
            let mut args = KernelArgs::new();
            args.push_pointer(to + (first * out_stride * es) as u64, blas.device())
                .push_pointer(
                    self.from.address + (first * self.from.stride * es) as u64,
                    blas.device(),
                )
                .push(dim(self.rows)?)
                .push(dim(self.cols)?)
                .push(dim(self.ld)?)
                .push(dim(self.new_ld)?)
                .push(self.from.stride as u64)
                .push(out_stride as u64);
            // SAFETY: the caller checked that each of the `problems` stored matrices
            // (`rows × cols`, leading dimension `ld`, `stride` apart) lies inside the
            // operand's view; the destination holds `problems` matrices of `cols × rows`
            // with leading dimension `new_ld` inside the workspace (sized by `len`), a
            // separate allocation.
            unsafe {
                kernel.launch(
                    blas.stream(),
                    &transpose::launch_config(self.rows, self.cols, count),
                    &args,
                )?
            };
        }
        Ok(())
    }
}

/// Split-K for one problem whose output tiles cannot fill the device: k cut into
/// `full` slices of `k_slice` plus a remainder, each slice's product written in the
/// compute type to the workspace by the same kernel (one strided-batched launch, then
/// one for the remainder), then added in slice order by the finish kernel
/// (`rocm_kernels::gemm::splitk`, which states the error bound).
#[derive(Debug, Clone, Copy, PartialEq)]
struct SplitK {
    k_slice: usize,
    full: usize,
    rest: usize,
}

impl SplitK {
    /// Fewest k-tiles a slice keeps, so each workgroup's pipeline still runs long.
    const MIN_TILES_PER_SLICE: usize = 8;
    /// Most slices (the finish pass reads each one).
    const MAX_SLICES: usize = 64;

    /// Split only single problems on families with a finish kernel, whose tiles fill
    /// less than half the device's workgroup slots, into as many slices as fill them,
    /// each keeping [`Self::MIN_TILES_PER_SLICE`] k-tiles.
    fn plan(blas: &Blas, s: &GemmShape, p: &GemmParams, batch: usize) -> Option<SplitK> {
        let target = blas.device().target();
        if batch != 1 || target.caps().kernel_isa != KernelIsa::Ptx {
            return None;
        }
        let slots =
            blas.device().info().compute_units as usize * ptx::resident_blocks(p, target) as usize;
        Self::for_shape(slots, s, p)
    }

    /// The split of `s`'s k for tiles of `p` on a device with `slots` resident
    /// workgroups (SMs × workgroups per SM), if any.
    fn for_shape(slots: usize, s: &GemmShape, p: &GemmParams) -> Option<SplitK> {
        let tiles = s.m.div_ceil(p.tile_m as usize) * s.n.div_ceil(p.tile_n as usize);
        if tiles == 0 || 2 * tiles > slots {
            return None;
        }
        let tile_k = p.tile_k.max(1) as usize;
        let by_depth = s.k / (Self::MIN_TILES_PER_SLICE * tile_k);
        let slices = (slots / tiles).min(by_depth).min(Self::MAX_SLICES);
        if slices < 2 {
            return None;
        }
        let k_slice = s.k.div_ceil(slices).next_multiple_of(tile_k);
        Some(SplitK {
            k_slice,
            full: s.k / k_slice,
            rest: s.k % k_slice,
        })
    }

    fn slices(&self) -> usize {
        self.full + usize::from(self.rest > 0)
    }

    /// Workspace bytes of the partials.
    fn bytes(&self, s: &GemmShape, p: &GemmParams) -> usize {
        self.slices() * s.m * s.n * p.compute.size()
    }

    fn run(
        &self,
        blas: &Blas,
        s: &GemmShape,
        p: &GemmParams,
        (alpha, beta): (Coefficient, Coefficient),
        (a, b, c): (Operand, Operand, Operand),
        partials: u64,
    ) -> Result<()> {
        // The partials: the same variant writing the compute type, α = 1, β = 0.
        let pp = GemmParams {
            c: p.compute,
            ..p.clone()
        };
        let (one, zero) = (alpha.with_value(1.0), alpha.zero());
        let es = p.ab.size();
        let ps = p.compute.size();
        // Slice q of A starts k_slice·q along k: columns of a stored m×k A, rows of a
        // stored k×m one (likewise B).
        let step_a = if s.transa.is_trans() {
            self.k_slice
        } else {
            self.k_slice * s.lda
        };
        let step_b = if s.transb.is_trans() {
            self.k_slice * s.ldb
        } else {
            self.k_slice
        };
        let mn = s.m * s.n;
        let slice_shape = |k| GemmShape { k, ldc: s.m, ..*s };
        launch_kernel(
            blas,
            &slice_shape(self.k_slice),
            &pp,
            one,
            Operand {
                address: a.address,
                stride: step_a,
            },
            Operand {
                address: b.address,
                stride: step_b,
            },
            zero,
            Operand {
                address: partials,
                stride: mn,
            },
            self.full,
        )?;
        if self.rest > 0 {
            let at = |o: Operand, step: usize| o.address + (self.full * step * es) as u64;
            launch_kernel(
                blas,
                &slice_shape(self.rest),
                &pp,
                one,
                Operand {
                    address: at(a, step_a),
                    stride: 0,
                },
                Operand {
                    address: at(b, step_b),
                    stride: 0,
                },
                zero,
                Operand {
                    address: partials + (self.full * mn * ps) as u64,
                    stride: 0,
                },
                1,
            )?;
        }
        let read_c = !beta.is_zero();
        let fp = SplitKParams {
            compute: p.compute,
            c: p.c,
            read_c,
        };
        let loaded = generator::load::<SplitKFinish>(blas.device(), &fp)?;
        let kernel = loaded.module.kernel(splitk::KERNEL)?;
        let dev = blas.device();
        let mut args = KernelArgs::new();
        args.push(dim("m", s.m)?)
            .push(dim("n", s.n)?)
            .push(self.slices() as u32)
            .push_pointer(partials, dev)
            .push_pointer(c.address, dev)
            .push(dim("ldc", s.ldc)?);
        alpha.push(&mut args);
        if read_c {
            beta.push(&mut args);
        }
        let cfg = LaunchConfig {
            grid: [s.n as u32, s.m.div_ceil(splitk::BLOCK as usize) as u32, 1],
            block: [splitk::BLOCK, 1, 1],
            shared_bytes: 0,
        };
        // SAFETY: the partials lie in the workspace (`bytes`), C's m×n elements inside
        // its checked view; the kernel touches nothing else.
        unsafe { kernel.launch(blas.stream(), &cfg, &args) }
    }
}

/// Launches `p` over `batch` problems whose operands meet its preconditions.
fn launch_kernel(
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
    let scale_only = s.k == 0 || alpha.is_zero();
    // A tensor-copy variant whose operands a tensor map cannot describe (a batch of
    // problems sharing one matrix, or overlapping), or that reads no operand at all
    // (k = 0 or α = 0: nothing was repacked, so A and B may break the map's alignment
    // rules), runs as the same kernel with `cp.async` staging.
    let untiled;
    let maps_fit = tma_fits(s, a, s.lda, false, batch) && tma_fits(s, b, s.ldb, true, batch);
    let p = if p.tma && (scale_only || !maps_fit) {
        untiled = GemmParams {
            tma: false,
            ..p.clone()
        };
        &untiled
    } else {
        p
    };
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
        if p.tma {
            for (o, ld, is_b) in [(a, s.lda, false), (b, s.ldb, true)] {
                let map = tensor_map(dev, s, p, at(o, ab_size), o.stride, ld, is_b, count)?;
                map.push_to(&mut args);
            }
        }
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

/// Whether one operand of a tensor-copy (`tma`) wgmma variant can be described by a
/// tensor map: one problem, or problems stored apart (a batch stride of at least one
/// whole matrix), since the map's batch dimension cannot repeat or overlap matrices.
fn tma_fits(s: &GemmShape, o: Operand, ld: usize, is_b: bool, batch: usize) -> bool {
    let (_, cols) = stored_dims(s, is_b);
    batch == 1 || o.stride >= ld * cols
}

/// The stored dimensions (rows, cols) of A or B for `s`.
fn stored_dims(s: &GemmShape, is_b: bool) -> (usize, usize) {
    if is_b {
        s.transb.stored_dims(s.k, s.n)
    } else {
        s.transa.stored_dims(s.m, s.k)
    }
}

/// The encoded tensor map of one operand for a `tma` variant
/// (`rocm_kernels::gemm::ptx::wgmma::tma_operand`).
#[allow(clippy::too_many_arguments)]
fn tensor_map(
    dev: &rocm_core::Device,
    s: &GemmShape,
    p: &GemmParams,
    address: u64,
    stride: usize,
    ld: usize,
    is_b: bool,
    count: usize,
) -> Result<TensorMap> {
    let desc = ptx::wgmma::tma_operand(p, is_b, address, stored_dims(s, is_b), ld, stride, count);
    dev.encode_tensor_map(&desc)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Transpose;

    fn shape(m: usize, n: usize, k: usize, lda: usize, ldb: usize) -> GemmShape {
        GemmShape {
            transa: Transpose::N,
            transb: Transpose::T,
            m,
            n,
            k,
            lda,
            ldb,
            ldc: m,
        }
    }

    fn wgmma_tile() -> GemmParams {
        GemmParams {
            ab: DType::Bf16,
            c: DType::Bf16,
            compute: DType::F32,
            trans_a: false,
            trans_b: true,
            tile_m: 128,
            tile_n: 256,
            tile_k: 64,
            warps_m: 8,
            warps_n: 1,
            instruction: GemmInstruction::Wgmma { n: 256 },
            stages: 4,
            reduced_f32: false,
            tma: false,
        }
    }

    fn op(address: u64, stride: usize) -> Operand {
        Operand { address, stride }
    }

    #[test]
    fn repacks_round_leading_dimensions_up_and_only_where_needed() {
        // 4097 × 4097 bf16: both operands break the 8-element rule.
        let s = shape(4097, 4097, 4097, 4097, 4097);
        let (ra, rb) = repacks(DType::Bf16, &s, op(4096, 0), op(1 << 20, 0));
        let ra = ra.unwrap();
        assert_eq!(
            (ra.rows, ra.cols, ra.new_ld, ra.new_stride),
            (4097, 4097, 4104, 0)
        );
        assert_eq!(ra.len(3), 4104 * 4097, "a shared matrix is copied once");
        assert!(rb.is_some());
        // Aligned leading dimensions and bases need nothing.
        let s = shape(64, 64, 64, 72, 64);
        let (ra, rb) = repacks(DType::Bf16, &s, op(256, 72 * 64), op(512, 64 * 64));
        assert!(ra.is_none() && rb.is_none());
        // A misaligned base alone is enough to need a copy.
        assert!(Repack::plan(DType::F16, (64, 64), 64, op(258, 0)).is_some());
    }

    #[test]
    fn repack_copies_back_to_back_batches_at_once() {
        let s = shape(33, 40, 17, 35, 41);
        // B (stored n × k = 40 × 17, ldb 41): problems back to back, one copy.
        let back = Repack::plan(DType::Bf16, (40, 17), 41, op(0, 41 * 17)).unwrap();
        assert_eq!(back.copies(5), 1);
        assert_eq!((back.new_ld, back.new_stride), (40, 40 * 17));
        assert_eq!(back.len(5), 40 * 17 * 5);
        // Slack between problems: one copy per problem, and a batch beyond the limit is
        // not reachable for the wgmma variant.
        let gap = Repack::plan(DType::Bf16, (33, 17), 35, op(0, 35 * 17 + 3)).unwrap();
        assert_eq!(gap.copies(5), 5);
        let p = wgmma_tile();
        let (a, b) = (op(0, 35 * 17 + 3), op(0, 41 * 17 + 1));
        assert!(reachable(&p, &s, a, b, MAX_REPACK_COPIES));
        assert!(!reachable(&p, &s, a, b, MAX_REPACK_COPIES + 1));
    }

    #[test]
    fn split_k_only_for_few_tiles_and_long_k() {
        let p = wgmma_tile();
        // 64 × 8192 by 8192 on 132 SMs: 32 tiles, 4 slices of 2048.
        let k = SplitK::for_shape(132, &shape(64, 8192, 8192, 64, 8192), &p).unwrap();
        assert_eq!((k.k_slice, k.full, k.rest), (2048, 4, 0));
        // A remainder slice when k is not a multiple of the slice.
        let k = SplitK::for_shape(132, &shape(128, 256, 4136, 128, 256), &p).unwrap();
        assert_eq!(k.full * k.k_slice + k.rest, 4136);
        assert!(k.rest > 0 && k.rest < k.k_slice && k.k_slice % 64 == 0);
        assert!(k.slices() <= SplitK::MAX_SLICES);
        // Enough tiles to fill the device, or too short a k: no split.
        assert!(SplitK::for_shape(132, &shape(8192, 8192, 8192, 8192, 8192), &p).is_none());
        assert!(SplitK::for_shape(132, &shape(64, 256, 1000, 64, 256), &p).is_none());
        assert!(SplitK::for_shape(0, &shape(64, 256, 100000, 64, 256), &p).is_none());
        // Slots bound the slices: 8 tiles on 528 slots (4 per SM) take the most slices.
        let small = GemmParams {
            tile_m: 128,
            tile_n: 64,
            tile_k: 16,
            ..p
        };
        let k = SplitK::for_shape(528, &shape(256, 256, 65536, 256, 256), &small).unwrap();
        assert_eq!(k.slices(), SplitK::MAX_SLICES);
        // A wgmma tile of 4 stages fills an SM alone.
        let target: rocm_core::Target = "sm_90a".parse().unwrap();
        assert_eq!(ptx::resident_blocks(&p, &target), 1);
    }
}
