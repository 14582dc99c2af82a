//! GEMM selection: which variant runs a problem on a target, and the plan that runs it.
//!
//! [`select`] picks the kernel variant: the target's catalog entry for the problem class
//! and (m, n, k) (`Catalog::select_shape`) where the target builds it, else the
//! family's default; on compute capability 9.0 the catalog's warpgroup-MMA variant
//! where the operands meet its copy rule or can be repacked to. [`plan`] turns the
//! variant into steps for the one executor ([`crate::exec::execute`]): operand copies
//! into the workspace, the kernel over the batch, and split-K's finish.
//!
//! - Views: slot 0 is A, 1 is B, 2 is C, each from element (0, 0) of the first problem
//!   to the end of the last problem's matrix (`batch` problems `stride` elements apart).
//! - Batches beyond the grid's z limit (65535) go as several steps with the base
//!   addresses advanced.
//! - BLAS quick returns: m = 0, n = 0 or batch = 0 plan nothing; for k = 0 or α = 0 the
//!   same kernel runs with k = 0 and α = 0, which multiplies nothing and writes β·C
//!   (zeros when β = 0, without reading C); every family's kernels accept k = 0 for
//!   this. β = 1 with nothing to add plans nothing (except for explicit variants).
//! - f32 with `reduced_f32` takes the tf32 kernel (catalog key `<class>/tf32`, fallback
//!   `ptx::fallback_tf32`).
//! - Compute capability 9.0: the catalog's warpgroup-MMA variant for the class (key
//!   `<class>[/tf32]/wgmma`; tf32 only with op(A) = Aᵀ, op(B) = B, the only layout
//!   whose operands are both K-major) replaces the choice above where A and B meet its
//!   16-byte copy rule (`ptx::wgmma::operand_aligned`), or can be repacked to meet it:
//!   an operand whose leading dimension, batch stride or base breaks the rule is copied
//!   (one pitched copy, or one per problem when a batch's problems are not back to
//!   back, at most [`MAX_REPACK_COPIES`]) into the workspace with its leading dimension
//!   rounded up to 16 bytes. The copy reads and writes each operand once (for 4097³
//!   bf16 about a fifth of the product's time), where the fallback `mma.sync` kernel
//!   runs at a small fraction of wgmma's rate. tf32 calls in the other three layouts
//!   take the op(A) = Aᵀ, op(B) = B variant on transposed copies of the operands that
//!   need it (`crate::transpose`, into the same workspace).
//! - A catalog entry for an f32/f64 class may name a register-tiled kernel of another
//!   layout (tuned with `rocm-bench tune gemm --flip`): the operands whose layout
//!   differs are transposed into the workspace first, the same way, and the copies are
//!   part of what the tuner timed.
//! - AMD targets fall back to the AMD generator's default tile
//!   (`amdgpu::model::default_params`: MFMA, WMMA, or the register-tiled FMA kernel for
//!   f32/f64 on gfx11 and f64 on gfx908) with the problem's transposes; a catalog entry
//!   is taken there only if the AMD plan accepts it.
//! - Split-K: a single problem on NVIDIA whose output tiles fill less than half the
//!   device's workgroup slots has its k cut into slices ([`SplitK`]), written in the
//!   compute type to the workspace and added by [`super::splitk`]'s finish kernel.

use super::splitk::{self, SplitKFinish, SplitKParams};
use super::{amdgpu, ptx, Gemm, GemmInstruction, GemmParams};
use crate::catalog::Catalog;
use crate::generator::Generator;
use crate::plan::{Arg, PitchedCopy, Plan, ProgramRef, Step};
use crate::signature::{Access, Value};
use crate::transpose;
use rocm_core::isa::amdgpu::IsaTarget;
use rocm_core::target::KernelIsa;
use rocm_core::{Arch, DType, Error, LaunchConfig, Result, Target};

/// Most problems one launch covers (the grid's z limit).
const MAX_GRID_Z: usize = 65535;
/// Most workgroups along y.
const MAX_GRID_Y: usize = 65535;
/// Most pitched copies one operand's repack may take (see the module docs); a batch
/// that would need more runs the class's `mma.sync`/SIMT kernel instead.
pub const MAX_REPACK_COPIES: usize = 64;

/// The view slots of a GEMM plan.
const SLOT_A: usize = 0;
const SLOT_B: usize = 1;
const SLOT_C: usize = 2;

/// What a GEMM computes: the element types, and who chose the variant.
#[derive(Debug, Clone, PartialEq)]
pub enum GemmClass {
    /// BLAS `gemm` of f32 or f64 (A, B, C and the accumulation of one type); f32 with
    /// `reduced_f32` through tf32 where the target has such kernels.
    Real { dtype: DType, reduced_f32: bool },
    /// `gemm_ex`: f16/bf16 A and B, f32 accumulation, C of `c` (f32 or the input type).
    Mixed { ab: DType, c: DType },
    /// This variant, as given (a tuning candidate, a benchmark's choice).
    Params(GemmParams),
}

/// One operand as the plan sees it: elements between problems, and the alignment of
/// its base address (the largest power of two dividing it, at most 256).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct GemmOperand {
    pub stride: usize,
    pub align: u64,
}

impl GemmOperand {
    /// The operand at `address`, problems `stride` elements apart.
    pub fn at(address: u64, stride: usize) -> Self {
        GemmOperand {
            stride,
            align: 1 << address.trailing_zeros().min(8),
        }
    }
}

/// One GEMM call: C = α·op(A)·op(B) + β·C over `batch` problems, column-major.
#[derive(Debug, Clone, PartialEq)]
pub struct GemmProblem {
    pub class: GemmClass,
    /// op(A) = Aᵀ (A stored k×m), likewise B (stored n×k).
    pub trans_a: bool,
    pub trans_b: bool,
    pub m: usize,
    pub n: usize,
    pub k: usize,
    pub lda: usize,
    pub ldb: usize,
    pub ldc: usize,
    pub a: GemmOperand,
    pub b: GemmOperand,
    pub c: GemmOperand,
    pub batch: usize,
    /// α and β (values of the compute type: f32 ones are exact here).
    pub alpha: f64,
    pub beta: f64,
    /// The device's compute units (SMs): split-K fills their workgroup slots.
    pub compute_units: u32,
}

/// The leading-dimension-`ld` extent of a `rows × cols` matrix, in elements.
fn matrix_extent(rows: usize, cols: usize, ld: usize) -> usize {
    if rows == 0 || cols == 0 {
        0
    } else {
        ld * (cols - 1) + rows
    }
}

impl GemmClass {
    /// The element types of A and B, and of C.
    pub fn element_types(&self) -> (DType, DType) {
        match self {
            GemmClass::Real { dtype, .. } => (*dtype, *dtype),
            GemmClass::Mixed { ab, c } => (*ab, *c),
            GemmClass::Params(p) => (p.ab, p.c),
        }
    }
}

impl GemmProblem {
    /// Bytes views 0, 1 and 2 (A, B, C) span ([`GemmProblem::view_elements`]).
    pub fn view_bytes(&self) -> [u64; 3] {
        let (ab, c) = self.class.element_types();
        let [a, b, cc] = self.view_elements();
        [
            (a * ab.size()) as u64,
            (b * ab.size()) as u64,
            (cc * c.size()) as u64,
        ]
    }

    /// Stored (rows, cols) of A.
    pub fn a_dims(&self) -> (usize, usize) {
        stored(self.trans_a, self.m, self.k)
    }

    /// Stored (rows, cols) of B.
    pub fn b_dims(&self) -> (usize, usize) {
        stored(self.trans_b, self.k, self.n)
    }

    /// Elements views 0, 1 and 2 (A, B, C) span: from the first problem's (0, 0) to the
    /// end of the last problem's matrix.
    pub fn view_elements(&self) -> [usize; 3] {
        let span = |(rows, cols): (usize, usize), ld: usize, stride: usize| {
            let one = matrix_extent(rows, cols, ld);
            if self.batch == 0 || one == 0 {
                0
            } else {
                stride * (self.batch - 1) + one
            }
        };
        [
            span(self.a_dims(), self.lda, self.a.stride),
            span(self.b_dims(), self.ldb, self.b.stride),
            span((self.m, self.n), self.ldc, self.c.stride),
        ]
    }

    /// (m, n, k) as catalog selection measures them (k = 0 counts as 1).
    fn dims(&self) -> [u64; 3] {
        [self.m as u64, self.n as u64, self.k.max(1) as u64]
    }

    fn scale_only(&self) -> bool {
        self.k == 0 || self.alpha == 0.0
    }
}

/// (rows, cols) of an operand stored transposed or not, for op() of `r × c`.
fn stored(trans: bool, r: usize, c: usize) -> (usize, usize) {
    if trans {
        (c, r)
    } else {
        (r, c)
    }
}

/// Whether `target` has GEMM kernels for `problem`'s class and its dimensions fit
/// them; the error says why not.
pub fn can_implement(problem: &GemmProblem, target: &Target) -> Result<()> {
    if target.caps().kernel_isa == KernelIsa::Host {
        return Err(Error::unsupported("GEMM kernels", target.to_string()));
    }
    match &problem.class {
        GemmClass::Real { dtype, .. } if !matches!(dtype, DType::F32 | DType::F64) => {
            return Err(Error::unsupported(
                format!("GEMM for {dtype}"),
                target.to_string(),
            ));
        }
        GemmClass::Mixed { ab, c }
            if !matches!(ab, DType::F16 | DType::Bf16) || (*c != DType::F32 && c != ab) =>
        {
            return Err(Error::unsupported(
                format!("GEMM with {ab} inputs and {c} output"),
                target.to_string(),
            ));
        }
        _ => {}
    }
    for (name, v) in [
        ("m", problem.m),
        ("n", problem.n),
        ("k", problem.k),
        ("lda", problem.lda),
        ("ldb", problem.ldb),
        ("ldc", problem.ldc),
    ] {
        dim(name, v)?;
    }
    Ok(())
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

/// The variant that runs `problem` on `target`: `None` when no kernel writes a
/// `Mixed` class's 16-bit C (the caller then stages C through f32).
pub fn select(
    problem: &GemmProblem,
    target: &Target,
    catalog: &Catalog,
) -> Result<Option<GemmParams>> {
    can_implement(problem, target)?;
    match &problem.class {
        GemmClass::Real { dtype, reduced_f32 } => {
            let p = real_params(problem, *dtype, *reduced_f32, target, catalog)?;
            with_wgmma(problem, p, target, catalog).map(Some)
        }
        GemmClass::Mixed { ab, c } => mixed_params(problem, *ab, *c, target, catalog),
        GemmClass::Params(p) => Ok(Some(p.clone())),
    }
}

/// The plan of `problem` on `target`: the [`select`]ed variant's steps.
pub fn plan(problem: &GemmProblem, target: &Target, catalog: &Catalog) -> Result<Plan> {
    if problem.m == 0 || problem.n == 0 || problem.batch == 0 {
        return Ok(Plan::default());
    }
    let explicit = matches!(problem.class, GemmClass::Params(_));
    if !explicit && problem.scale_only() && problem.beta == 1.0 {
        return Ok(Plan::default());
    }
    let Some(p) = select(problem, target, catalog)? else {
        let what = match &problem.class {
            GemmClass::Mixed { ab, c } => format!("GEMM kernels with {ab} inputs writing {c}"),
            _ => "GEMM kernels".to_string(),
        };
        return Err(Error::unsupported(what, target.to_string()));
    };
    Planner::new(problem, &p, target)?.plan()
}

/// The IEEE (or tf32) variant of the real class `dtype`.
fn real_params(
    s: &GemmProblem,
    dtype: DType,
    reduced_f32: bool,
    target: &Target,
    catalog: &Catalog,
) -> Result<GemmParams> {
    let (ta, tb) = (s.trans_a, s.trans_b);
    let fallback = fallback(target, dtype, ta, tb)?;
    let key = GemmParams::key(dtype, dtype, dtype, ta, tb);
    // A catalog entry is trusted only for its own problem class. An NVIDIA
    // register-tiled entry may read the operands in another layout than the call
    // stores them: the plan then runs it on transposed copies ([`flips`]). The tuner
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
    if dtype == DType::F32 && reduced_f32 {
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
/// targets: the catalog's entry under `<class key>[/tf32]/wgmma` (there is no default),
/// used only where A and B meet its 16-byte copy rule or can be repacked.
fn wgmma_params(
    s: &GemmProblem,
    p: &GemmParams,
    target: &Target,
    catalog: &Catalog,
) -> Option<GemmParams> {
    if !matches!(target.arch(), Arch::Sm90 | Arch::Sm90a) {
        return None;
    }
    let (ta, tb) = (s.trans_a, s.trans_b);
    let key = GemmParams::key(p.ab, p.c, p.compute, ta, tb)
        + if p.reduced_f32 { "/tf32" } else { "" }
        + "/wgmma";
    let w = catalog.select_shape(Gemm::NAME, &key, &s.dims(), p.clone());
    let same_class = |w: &GemmParams| {
        matches!(w.instruction, GemmInstruction::Wgmma { .. })
            && (w.ab, w.c, w.compute, w.reduced_f32) == (p.ab, p.c, p.compute, p.reduced_f32)
    };
    if same_class(&w) && (w.trans_a, w.trans_b) == (ta, tb) && reachable(&w, s) {
        return Some(w);
    }
    // tf32 wgmma reads only K-major operands (op(A) = Aᵀ, op(B) = B): other layouts take
    // that class's variant on transposed copies, which costs one pass over each
    // transposed operand against a kernel several times the `mma.sync` one's rate.
    if p.reduced_f32 && (ta, tb) != (true, false) {
        let key = GemmParams::key(p.ab, p.c, p.compute, true, false) + "/tf32/wgmma";
        let w = catalog.select_shape(Gemm::NAME, &key, &s.dims(), p.clone());
        if same_class(&w) && (w.trans_a, w.trans_b) == (true, false) && reachable(&w, s) {
            return Some(w);
        }
    }
    None
}

/// `p`, or the catalog's warpgroup-MMA variant of its class where the target and the
/// operands allow one (directly or repacked); a wgmma choice the operands cannot reach
/// goes back to the family's `mma.sync`/SIMT kernel for the class.
fn with_wgmma(
    s: &GemmProblem,
    p: GemmParams,
    target: &Target,
    catalog: &Catalog,
) -> Result<GemmParams> {
    let p = wgmma_params(s, &p, target, catalog).unwrap_or(p);
    if matches!(p.instruction, GemmInstruction::Wgmma { .. }) && !reachable(&p, s) {
        let (ta, tb) = (s.trans_a, s.trans_b);
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

/// The variant for f16/bf16 inputs with f32 compute and `c` output: the catalog's entry
/// for the class (wgmma where the target and operands allow), else the family's default
/// (`ptx::half` on NVIDIA, the AMD generator's MFMA/WMMA tile), all with f32 output.
/// `None` for 16-bit output when only f32-output kernels fit.
fn mixed_params(
    s: &GemmProblem,
    ab: DType,
    c: DType,
    target: &Target,
    catalog: &Catalog,
) -> Result<Option<GemmParams>> {
    let (ta, tb) = (s.trans_a, s.trans_b);
    let fallback = match target.caps().kernel_isa {
        KernelIsa::Ptx => ptx::half(ab, ta, tb),
        _ => fallback(target, ab, ta, tb)?,
    };
    let class = |c: DType| GemmParams {
        c,
        ..fallback.clone()
    };
    // The wgmma kernels write any of f32, f16 and bf16.
    let wgmma = |c: DType| wgmma_params(s, &class(c), target, catalog);
    if c != DType::F32 {
        return Ok(wgmma(c));
    }
    if let Some(w) = wgmma(c) {
        return Ok(Some(w));
    }
    let key = GemmParams::key(ab, DType::F32, DType::F32, ta, tb);
    let p = catalog.select_shape(Gemm::NAME, &key, &s.dims(), fallback.clone());
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

/// Whether `p` reads A or B in the other layout than the call stores them: the plan
/// then transposes those operands first ([`Transposed`]).
fn flips(p: &GemmParams, s: &GemmProblem) -> (bool, bool) {
    (p.trans_a != s.trans_a, p.trans_b != s.trans_b)
}

/// Whether a wgmma variant can run on these operands: they meet its copy rule, or each
/// one that does not can be repacked.
fn reachable(p: &GemmParams, s: &GemmProblem) -> bool {
    let (ra, rb) = repacks(p.ab, s);
    let (flip_a, flip_b) = flips(p, s);
    // A transposed operand's copy always meets the rule (see `Transposed`).
    [(flip_a, ra), (flip_b, rb)]
        .into_iter()
        .all(|(flipped, r)| flipped || r.is_none_or(|r| r.copies(s.batch) <= MAX_REPACK_COPIES))
}

/// A stored operand matrix (`rows × cols`, leading dimension `ld`) copied to the
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
    stride: usize,
}

impl Repack {
    /// `None` when the operand already meets the copy rule.
    fn new(ab: DType, (rows, cols): (usize, usize), ld: usize, from: GemmOperand) -> Option<Self> {
        if ptx::wgmma::operand_aligned(ab, from.align, ld, from.stride) {
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
            stride: from.stride,
        })
    }

    /// Problems stored back to back (or one problem, or one shared matrix) take a
    /// single copy of `cols · problems` columns; others one copy per problem.
    fn back_to_back(&self, batch: usize) -> bool {
        batch == 1 || self.stride == 0 || self.stride == self.ld * self.cols
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

    /// The pitched copies from view `slot` to workspace bytes `to..to + len·es`.
    fn copies_to(&self, slot: usize, es: usize, to: u64, batch: usize) -> Vec<PitchedCopy> {
        let (width, src_pitch, dst_pitch) = (self.rows * es, self.ld * es, self.new_ld * es);
        let problems = self.problems(batch);
        let runs = if self.back_to_back(batch) {
            vec![(0, 0, self.cols * problems)]
        } else {
            (0..problems)
                .map(|q| (q * self.stride, q * self.new_stride, self.cols))
                .collect()
        };
        runs.into_iter()
            .map(|(from, at, cols)| {
                let src_at = (from * es) as u64;
                let src_end = src_at + (matrix_extent(self.rows, cols, self.ld) * es) as u64;
                let dst_at = to + (at * es) as u64;
                PitchedCopy {
                    dst: Arg::Workspace {
                        offset: dst_at,
                        bytes: (matrix_extent(self.rows, cols, self.new_ld) * es) as u64,
                    },
                    dst_pitch: dst_pitch as u64,
                    src: Arg::Buffer {
                        slot,
                        offset_bytes: src_at,
                        touched: src_at..src_end,
                        access: Access::Read,
                    },
                    src_pitch: src_pitch as u64,
                    width: width as u64,
                    height: cols as u64,
                }
            })
            .collect()
    }
}

/// The repacks A and B need for a wgmma kernel of input type `ab`.
fn repacks(ab: DType, s: &GemmProblem) -> (Option<Repack>, Option<Repack>) {
    (
        Repack::new(ab, s.a_dims(), s.lda, s.a),
        Repack::new(ab, s.b_dims(), s.ldb, s.b),
    )
}

/// A stored operand matrix (`rows × cols`, leading dimension `ld`) transposed by
/// [`crate::transpose`] into the workspace as `cols × rows`, its leading dimension
/// rounded up to 16 bytes (so the copy meets the wgmma copy rule); one launch for the
/// whole batch (one matrix when every problem shares it).
#[derive(Debug, Clone, Copy, PartialEq)]
struct Transposed {
    rows: usize,
    cols: usize,
    ld: usize,
    new_ld: usize,
    /// Matrices the copy holds: one when every problem shares the operand.
    problems: usize,
    stride: usize,
}

impl Transposed {
    fn new(
        ab: DType,
        (rows, cols): (usize, usize),
        ld: usize,
        from: GemmOperand,
        batch: usize,
    ) -> Self {
        Transposed {
            rows,
            cols,
            ld,
            new_ld: cols.max(1).next_multiple_of(16 / ab.size()),
            problems: if from.stride == 0 { 1 } else { batch },
            stride: from.stride,
        }
    }

    fn new_stride(&self) -> usize {
        if self.stride == 0 {
            0
        } else {
            self.new_ld * self.rows
        }
    }

    /// Elements the copy occupies.
    fn len(&self) -> usize {
        self.new_ld * self.rows * self.problems
    }

    /// The transpose steps from view `slot` to workspace bytes `to..`.
    fn steps(&self, slot: usize, es: usize, to: u64, target: &Target) -> Result<Vec<Step>> {
        let problem = transpose::Problem {
            element_bytes: es as u32,
            rows: self.rows,
            cols: self.cols,
            ld_src: self.ld,
            ld_dst: self.new_ld,
            stride_src: self.stride,
            stride_dst: self.new_ld * self.rows,
            batch: self.problems,
        };
        transpose::steps(
            &problem,
            target,
            |at, bytes| Arg::Buffer {
                slot,
                offset_bytes: at,
                touched: at..at + bytes,
                access: Access::Read,
            },
            |at, bytes| Arg::Workspace {
                offset: to + at,
                bytes,
            },
        )
    }
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

    /// The copy's leading dimension and batch stride.
    fn layout(&self) -> (usize, usize) {
        match self {
            Staging::Repack(r) => (r.new_ld, r.new_stride),
            Staging::Transpose(t) => (t.new_ld, t.new_stride()),
        }
    }
}

/// Split-K for one problem whose output tiles cannot fill the device: k cut into
/// `full` slices of `k_slice` plus a remainder, each slice's product written in the
/// compute type to the workspace by the same kernel (one strided-batched launch, then
/// one for the remainder), then added in slice order by the finish kernel
/// ([`super::splitk`], which states the error bound).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SplitK {
    pub k_slice: usize,
    pub full: usize,
    pub rest: usize,
}

impl SplitK {
    /// Fewest k-tiles a slice keeps, so each workgroup's pipeline still runs long.
    const MIN_TILES_PER_SLICE: usize = 8;
    /// Most slices (the finish pass reads each one).
    pub const MAX_SLICES: usize = 64;

    /// Split only single problems on families with a finish kernel, whose tiles fill
    /// less than half the device's workgroup slots, into as many slices as fill them,
    /// each keeping [`Self::MIN_TILES_PER_SLICE`] k-tiles.
    fn new(s: &Operands, p: &GemmParams, target: &Target, compute_units: u32) -> Option<SplitK> {
        if s.batch != 1 || target.caps().kernel_isa != KernelIsa::Ptx {
            return None;
        }
        let slots = compute_units as usize * ptx::resident_blocks(p, target) as usize;
        Self::for_shape(slots, (s.m, s.n, s.k), p)
    }

    /// The split of k for tiles of `p` on a device with `slots` resident workgroups
    /// (SMs × workgroups per SM), if any.
    pub fn for_shape(
        slots: usize,
        (m, n, k): (usize, usize, usize),
        p: &GemmParams,
    ) -> Option<SplitK> {
        let tiles = m.div_ceil(p.tile_m as usize) * n.div_ceil(p.tile_n as usize);
        if tiles == 0 || 2 * tiles > slots {
            return None;
        }
        let tile_k = p.tile_k.max(1) as usize;
        let by_depth = k / (Self::MIN_TILES_PER_SLICE * tile_k);
        let slices = (slots / tiles).min(by_depth).min(Self::MAX_SLICES);
        if slices < 2 {
            return None;
        }
        let k_slice = k.div_ceil(slices).next_multiple_of(tile_k);
        Some(SplitK {
            k_slice,
            full: k / k_slice,
            rest: k % k_slice,
        })
    }

    pub fn slices(&self) -> usize {
        self.full + usize::from(self.rest > 0)
    }
}

/// Where a kernel reads or writes an operand: a view or the workspace, from a byte
/// offset, problems `stride` elements apart.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Place {
    View(usize),
    Workspace,
}

#[derive(Debug, Clone, Copy, PartialEq)]
struct Located {
    place: Place,
    offset: u64,
    stride: usize,
}

impl Located {
    fn view(slot: usize, stride: usize) -> Self {
        Located {
            place: Place::View(slot),
            offset: 0,
            stride,
        }
    }

    /// The argument for problems `first..first + count` of `(rows, cols)` matrices with
    /// leading dimension `ld` and `es`-byte elements.
    fn arg(
        &self,
        first: usize,
        count: usize,
        (rows, cols): (usize, usize),
        ld: usize,
        es: usize,
        access: Access,
    ) -> Arg {
        let one = matrix_extent(rows, cols, ld);
        // A kernel that reads nothing of the operand (k = 0) gets its base unmoved.
        let (at, len) = if one == 0 {
            (self.offset, 0)
        } else {
            (
                self.offset + (first * self.stride * es) as u64,
                ((self.stride * (count - 1) + one) * es) as u64,
            )
        };
        match self.place {
            Place::View(slot) => Arg::Buffer {
                slot,
                offset_bytes: at,
                touched: at..at + len,
                access,
            },
            Place::Workspace => Arg::Workspace {
                offset: at,
                bytes: len,
            },
        }
    }
}

/// The operands and shape a kernel launch sees (after staging: the transposed
/// operands' layouts and the copies' leading dimensions).
#[derive(Debug, Clone, Copy)]
struct Operands {
    trans_a: bool,
    trans_b: bool,
    m: usize,
    n: usize,
    k: usize,
    lda: usize,
    ldb: usize,
    ldc: usize,
    a: Located,
    b: Located,
    c: Located,
    batch: usize,
}

impl Operands {
    fn a_dims(&self) -> (usize, usize) {
        stored(self.trans_a, self.m, self.k)
    }
    fn b_dims(&self) -> (usize, usize) {
        stored(self.trans_b, self.k, self.n)
    }
}

/// Builds a plan's steps for one variant.
struct Planner<'a> {
    problem: &'a GemmProblem,
    p: &'a GemmParams,
    target: &'a Target,
    steps: Vec<Step>,
    /// Copies the next step queues before its kernel.
    copies: Vec<PitchedCopy>,
}

impl<'a> Planner<'a> {
    fn new(problem: &'a GemmProblem, p: &'a GemmParams, target: &'a Target) -> Result<Self> {
        Ok(Planner {
            problem,
            p,
            target,
            steps: Vec::new(),
            copies: Vec::new(),
        })
    }

    fn push(&mut self, step: Step) {
        let copies = std::mem::take(&mut self.copies);
        self.steps.push(step.after_copies(copies));
    }

    /// The plan of `p` over the problem (C = β·C when k = 0 or α = 0: the kernels take
    /// k = 0 and then never read A or B). An operand the kernel reads in the other
    /// layout ([`flips`]) runs on a transposed copy, and a wgmma operand that breaks the
    /// copy rule on a repacked one ([`Staging`]; the variant was chosen only if they can
    /// be made), both in the workspace, followed by split-K's partials where it applies.
    fn plan(mut self) -> Result<Plan> {
        let (s, p) = (self.problem, self.p);
        let batch = s.batch;
        let scale_only = s.scale_only();
        let (flip_a, flip_b) = flips(p, s);
        let wgmma = matches!(p.instruction, GemmInstruction::Wgmma { .. });
        let staging = |flipped: bool, dims: (usize, usize), ld: usize, from: GemmOperand| {
            if scale_only {
                None
            } else if flipped {
                Some(Staging::Transpose(Transposed::new(
                    p.ab, dims, ld, from, batch,
                )))
            } else if wgmma {
                Repack::new(p.ab, dims, ld, from).map(Staging::Repack)
            } else {
                None
            }
        };
        let sa = staging(flip_a, s.a_dims(), s.lda, s.a);
        let sb = staging(flip_b, s.b_dims(), s.ldb, s.b);
        // The kernel's layouts: a transposed operand is read the other way round.
        let mut ops = Operands {
            trans_a: s.trans_a,
            trans_b: s.trans_b,
            m: s.m,
            n: s.n,
            k: s.k,
            lda: s.lda,
            ldb: s.ldb,
            ldc: s.ldc,
            a: Located::view(SLOT_A, s.a.stride),
            b: Located::view(SLOT_B, s.b.stride),
            c: Located::view(SLOT_C, s.c.stride),
            batch,
        };
        if matches!(sa, Some(Staging::Transpose(_))) {
            ops.trans_a = p.trans_a;
        }
        if matches!(sb, Some(Staging::Transpose(_))) {
            ops.trans_b = p.trans_b;
        }
        let split = if scale_only {
            None
        } else {
            SplitK::new(&ops, p, self.target, s.compute_units)
        };
        let es = p.ab.size();
        let len = |st: &Option<Staging>| st.as_ref().map_or(0, |st| st.len(batch));
        let (len_a, len_b) = (len(&sa), len(&sb));
        // A's copy, then B's (A's is a multiple of 16 bytes long, so B's starts aligned),
        // then the split-K partials at the next 16-byte boundary.
        let partials_at = ((len_a + len_b) * es).next_multiple_of(16);
        let partial_bytes = split.map_or(0, |k| k.slices() * s.m * s.n * p.compute.size());
        let workspace_bytes = if sa.is_none() && sb.is_none() && split.is_none() {
            0
        } else {
            (partials_at + partial_bytes) as u64
        };
        let staged = [(sa, SLOT_A, 0u64), (sb, SLOT_B, (len_a * es) as u64)];
        for (st, slot, to) in staged {
            let Some(st) = st else { continue };
            match st {
                Staging::Repack(r) => self.copies.extend(r.copies_to(slot, es, to, batch)),
                Staging::Transpose(t) => {
                    for step in t.steps(slot, es, to, self.target)? {
                        self.push(step);
                    }
                }
            }
            let (new_ld, stride) = st.layout();
            let moved = Located {
                place: Place::Workspace,
                offset: to,
                stride,
            };
            if slot == SLOT_A {
                (ops.lda, ops.a) = (new_ld, moved);
            } else {
                (ops.ldb, ops.b) = (new_ld, moved);
            }
        }
        match split {
            None => self.kernel(&ops, p, s.alpha, s.beta)?,
            Some(k) => self.split_k(&ops, k, partials_at as u64)?,
        }
        let plan = Plan {
            steps: self.steps,
            workspace_bytes,
        };
        Ok(plan)
    }

    /// The slices' products into the partials, then the finish.
    fn split_k(&mut self, ops: &Operands, split: SplitK, partials: u64) -> Result<()> {
        let (s, p) = (self.problem, self.p);
        // The partials: the same variant writing the compute type, α = 1, β = 0.
        let pp = GemmParams {
            c: p.compute,
            ..p.clone()
        };
        let (es, ps) = (p.ab.size(), p.compute.size());
        // Slice q of A starts k_slice·q along k: columns of a stored m×k A, rows of a
        // stored k×m one (likewise B).
        let step_a = if ops.trans_a {
            split.k_slice
        } else {
            split.k_slice * ops.lda
        };
        let step_b = if ops.trans_b {
            split.k_slice * ops.ldb
        } else {
            split.k_slice
        };
        let mn = s.m * s.n;
        let partial = |offset: u64, stride: usize| Located {
            place: Place::Workspace,
            offset,
            stride,
        };
        let slices = Operands {
            k: split.k_slice,
            ldc: s.m,
            a: Located {
                stride: step_a,
                ..ops.a
            },
            b: Located {
                stride: step_b,
                ..ops.b
            },
            c: partial(partials, mn),
            batch: split.full,
            ..*ops
        };
        self.kernel(&slices, &pp, 1.0, 0.0)?;
        if split.rest > 0 {
            let at = |o: Located, step: usize| Located {
                offset: o.offset + (split.full * step * es) as u64,
                stride: 0,
                ..o
            };
            let rest = Operands {
                k: split.rest,
                a: at(ops.a, step_a),
                b: at(ops.b, step_b),
                c: partial(partials + (split.full * mn * ps) as u64, 0),
                batch: 1,
                ..slices
            };
            self.kernel(&rest, &pp, 1.0, 0.0)?;
        }
        let read_c = s.beta != 0.0;
        let fp = SplitKParams {
            compute: p.compute,
            c: p.c,
            read_c,
        };
        let sig = splitk::signature(&fp)?;
        let coefficient = |v: f64| coefficient(p.compute, v);
        let mut bindings = vec![
            ("m", Arg::Value(Value::U32(dim("m", s.m)?))),
            ("n", Arg::Value(Value::U32(dim("n", s.n)?))),
            ("splits", Arg::Value(Value::U32(split.slices() as u32))),
            (
                "work",
                Arg::Workspace {
                    offset: partials,
                    bytes: (split.slices() * mn * ps) as u64,
                },
            ),
            (
                "c",
                ops.c.arg(
                    0,
                    1,
                    (s.m, s.n),
                    s.ldc,
                    p.c.size(),
                    if read_c {
                        Access::ReadWrite
                    } else {
                        Access::Write
                    },
                ),
            ),
            ("ldc", Arg::Value(Value::U32(dim("ldc", s.ldc)?))),
            ("alpha", Arg::Value(coefficient(s.alpha))),
        ];
        if read_c {
            bindings.push(("beta", Arg::Value(coefficient(s.beta))));
        }
        let cfg = LaunchConfig {
            grid: [s.n as u32, s.m.div_ceil(splitk::BLOCK as usize) as u32, 1],
            block: [splitk::BLOCK, 1, 1],
            shared_bytes: 0,
        };
        let step = Step::bind(ProgramRef::of::<SplitKFinish>(fp), sig, cfg, bindings)?;
        self.push(step);
        Ok(())
    }

    /// The launches of `p` over `ops.batch` problems whose operands meet its
    /// preconditions, one per 65535 problems.
    fn kernel(&mut self, ops: &Operands, p: &GemmParams, alpha: f64, beta: f64) -> Result<()> {
        let scale_only = ops.k == 0 || alpha == 0.0;
        // A tensor-copy variant whose operands a tensor map cannot describe (a batch of
        // problems sharing one matrix, or overlapping), or that reads no operand at all
        // (k = 0 or α = 0: nothing was repacked, so A and B may break the map's alignment
        // rules), runs as the same kernel with `cp.async` staging, whose ring needs at
        // least 3 stages where a tensor-copy one may have 2.
        let maps_fit = tma_fits(ops.a_dims(), ops.a.stride, ops.lda, ops.batch)
            && tma_fits(ops.b_dims(), ops.b.stride, ops.ldb, ops.batch);
        let untiled;
        let p = if p.tma && (scale_only || !maps_fit) {
            untiled = GemmParams {
                tma: false,
                stages: p.stages.max(3),
                ..p.clone()
            };
            &untiled
        } else {
            p
        };
        let sig = super::signature(p, self.target)?;
        let (k, alpha) = if scale_only { (0, 0.0) } else { (ops.k, alpha) };
        let grid_x = ops.m.div_ceil(p.tile_m as usize);
        let grid_y = ops.n.div_ceil(p.tile_n as usize);
        if grid_y > MAX_GRID_Y {
            return Err(Error::invalid(
                "n",
                format!(
                    "{} needs {grid_y} workgroups along y; at most {MAX_GRID_Y}",
                    ops.n
                ),
            ));
        }
        let dims = [
            ("m", ops.m),
            ("n", ops.n),
            ("k", k),
            ("lda", ops.lda),
            ("ldb", ops.ldb),
            ("ldc", ops.ldc),
        ];
        let (ab_size, c_size) = (p.ab.size(), p.c.size());
        // What the kernel reads of A and B (nothing when k = 0).
        let (a_dims, b_dims) = (stored(ops.trans_a, ops.m, k), stored(ops.trans_b, k, ops.n));
        let mut first = 0;
        while first < ops.batch {
            let count = (ops.batch - first).min(MAX_GRID_Z);
            let a = ops
                .a
                .arg(first, count, a_dims, ops.lda, ab_size, Access::Read);
            let b = ops
                .b
                .arg(first, count, b_dims, ops.ldb, ab_size, Access::Read);
            let mut bindings = vec![
                (
                    "c",
                    ops.c.arg(
                        first,
                        count,
                        (ops.m, ops.n),
                        ops.ldc,
                        c_size,
                        Access::ReadWrite,
                    ),
                ),
                ("stride_a", Arg::Value(Value::U64(ops.a.stride as u64))),
                ("stride_b", Arg::Value(Value::U64(ops.b.stride as u64))),
                ("stride_c", Arg::Value(Value::U64(ops.c.stride as u64))),
                ("alpha", Arg::Value(coefficient(p.compute, alpha))),
                ("beta", Arg::Value(coefficient(p.compute, beta))),
            ];
            for (name, v) in dims {
                bindings.push((name, Arg::Value(Value::U32(dim(name, v)?))));
            }
            if p.tma {
                for (name, base, dims, ld, stride, is_b) in [
                    ("tmap_a", &a, ops.a_dims(), ops.lda, ops.a.stride, false),
                    ("tmap_b", &b, ops.b_dims(), ops.ldb, ops.b.stride, true),
                ] {
                    let desc = ptx::wgmma::tma_operand(p, is_b, 0, dims, ld, stride, count);
                    bindings.push((
                        name,
                        Arg::TensorMap {
                            base: Box::new(base.clone()),
                            desc,
                        },
                    ));
                }
            }
            bindings.push(("a", a));
            bindings.push(("b", b));
            let cfg = LaunchConfig {
                grid: [grid_x as u32, grid_y as u32, count as u32],
                block: [p.threads(self.target), 1, 1],
                shared_bytes: ptx::dynamic_shared_bytes(p),
            };
            let step = Step::bind(
                ProgramRef::of::<Gemm>(p.clone()),
                sig.clone(),
                cfg,
                bindings,
            )?;
            self.push(step);
            first += count;
        }
        Ok(())
    }
}

/// α or β as a kernel of compute type `compute` takes it.
fn coefficient(compute: DType, v: f64) -> Value {
    match compute {
        DType::F64 => Value::F64(v),
        // Exact: f32 callers' values came from an f32.
        _ => Value::F32(v as f32),
    }
}

/// Whether one operand of a tensor-copy (`tma`) wgmma variant can be described by a
/// tensor map: one problem, or problems stored apart (a batch stride of at least one
/// whole matrix), since the map's batch dimension cannot repeat or overlap matrices.
fn tma_fits((_, cols): (usize, usize), stride: usize, ld: usize, batch: usize) -> bool {
    batch == 1 || stride >= ld * cols
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shape(m: usize, n: usize, k: usize, lda: usize, ldb: usize) -> GemmProblem {
        GemmProblem {
            class: GemmClass::Mixed {
                ab: DType::Bf16,
                c: DType::Bf16,
            },
            trans_a: false,
            trans_b: true,
            m,
            n,
            k,
            lda,
            ldb,
            ldc: m,
            a: op(0, 0),
            b: op(0, 0),
            c: op(0, 0),
            batch: 1,
            alpha: 1.0,
            beta: 0.0,
            compute_units: 132,
        }
    }

    fn with(s: GemmProblem, a: GemmOperand, b: GemmOperand) -> GemmProblem {
        GemmProblem { a, b, ..s }
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

    fn op(address: u64, stride: usize) -> GemmOperand {
        GemmOperand::at(address, stride)
    }

    #[test]
    fn repacks_round_leading_dimensions_up_and_only_where_needed() {
        // 4097 × 4097 bf16: both operands break the 8-element rule.
        let s = with(
            shape(4097, 4097, 4097, 4097, 4097),
            op(4096, 0),
            op(1 << 20, 0),
        );
        let (ra, rb) = repacks(DType::Bf16, &s);
        let ra = ra.unwrap();
        assert_eq!(
            (ra.rows, ra.cols, ra.new_ld, ra.new_stride),
            (4097, 4097, 4104, 0)
        );
        assert_eq!(ra.len(3), 4104 * 4097, "a shared matrix is copied once");
        assert!(rb.is_some());
        // Aligned leading dimensions and bases need nothing.
        let s = with(
            shape(64, 64, 64, 72, 64),
            op(256, 72 * 64),
            op(512, 64 * 64),
        );
        let (ra, rb) = repacks(DType::Bf16, &s);
        assert!(ra.is_none() && rb.is_none());
        // A misaligned base alone is enough to need a copy.
        assert!(Repack::new(DType::F16, (64, 64), 64, op(258, 0)).is_some());
        assert!(Repack::new(DType::F16, (64, 64), 64, op(256, 0)).is_none());
    }

    #[test]
    fn repack_copies_back_to_back_batches_at_once() {
        let s = shape(33, 40, 17, 35, 41);
        // B (stored n × k = 40 × 17, ldb 41): problems back to back, one copy.
        let back = Repack::new(DType::Bf16, (40, 17), 41, op(0, 41 * 17)).unwrap();
        assert_eq!(back.copies(5), 1);
        assert_eq!((back.new_ld, back.new_stride), (40, 40 * 17));
        assert_eq!(back.len(5), 40 * 17 * 5);
        let copies = back.copies_to(SLOT_B, 2, 64, 5);
        assert_eq!(copies.len(), 1);
        assert_eq!((copies[0].width, copies[0].height), (80, 17 * 5));
        // Slack between problems: one copy per problem, and a batch beyond the limit is
        // not reachable for the wgmma variant.
        let gap = Repack::new(DType::Bf16, (33, 17), 35, op(0, 35 * 17 + 3)).unwrap();
        assert_eq!(gap.copies(5), 5);
        assert_eq!(gap.copies_to(SLOT_A, 2, 0, 5).len(), 5);
        let p = wgmma_tile();
        let batch = |n| GemmProblem {
            batch: n,
            ..with(s.clone(), op(0, 35 * 17 + 3), op(0, 41 * 17 + 1))
        };
        assert!(reachable(&p, &batch(MAX_REPACK_COPIES)));
        assert!(!reachable(&p, &batch(MAX_REPACK_COPIES + 1)));
    }

    #[test]
    fn split_k_only_for_few_tiles_and_long_k() {
        let p = wgmma_tile();
        // 64 × 8192 by 8192 on 132 SMs: 32 tiles, 4 slices of 2048.
        let k = SplitK::for_shape(132, (64, 8192, 8192), &p).unwrap();
        assert_eq!((k.k_slice, k.full, k.rest), (2048, 4, 0));
        // A remainder slice when k is not a multiple of the slice.
        let k = SplitK::for_shape(132, (128, 256, 4136), &p).unwrap();
        assert_eq!(k.full * k.k_slice + k.rest, 4136);
        assert!(k.rest > 0 && k.rest < k.k_slice && k.k_slice % 64 == 0);
        assert!(k.slices() <= SplitK::MAX_SLICES);
        // Enough tiles to fill the device, or too short a k: no split.
        assert!(SplitK::for_shape(132, (8192, 8192, 8192), &p).is_none());
        assert!(SplitK::for_shape(132, (64, 256, 1000), &p).is_none());
        assert!(SplitK::for_shape(0, (64, 256, 100000), &p).is_none());
        // Slots bound the slices: 8 tiles on 528 slots (4 per SM) take the most slices.
        let small = GemmParams {
            tile_m: 128,
            tile_n: 64,
            tile_k: 16,
            ..p.clone()
        };
        let k = SplitK::for_shape(528, (256, 256, 65536), &small).unwrap();
        assert_eq!(k.slices(), SplitK::MAX_SLICES);
        // A wgmma tile of 4 stages fills an SM alone.
        let target: Target = "sm_90a".parse().unwrap();
        assert_eq!(ptx::resident_blocks(&p, &target), 1);
    }

    #[test]
    fn split_k_plan_binds_slices_rest_and_finish() {
        // 128 × 256 by 4136 with a 128×256 wgmma tile on 132 SMs: full slices, a rest,
        // and the finish reading C (β ≠ 0).
        let target: Target = "sm_90a".parse().unwrap();
        let s = GemmProblem {
            trans_b: false,
            ldb: 4136,
            beta: 0.5,
            ..with(shape(128, 256, 4136, 128, 4136), op(256, 0), op(512, 0))
        };
        let p = GemmParams {
            trans_b: false,
            ..wgmma_tile()
        };
        let split = SplitK::for_shape(132, (128, 256, 4136), &p).unwrap();
        let plan = Planner::new(&s, &p, &target).unwrap().plan().unwrap();
        plan.check(&target).unwrap();
        let text = plan.to_string();
        assert_eq!(plan.steps.len(), 3, "{text}");
        assert_eq!(
            plan.steps[0].config.grid,
            [1, 1, split.full as u32],
            "{text}"
        );
        assert_eq!(
            plan.workspace_bytes,
            (split.slices() * 128 * 256 * 4) as u64,
            "{text}"
        );
        let finish = &plan.steps[2];
        assert_eq!(finish.signature.kernel, splitk::KERNEL);
        assert!(text.contains("beta=0.5"), "{text}");
        // The slices write f32 partials with α = 1 and β = 0.
        assert!(text.contains("\"c\":\"f32\""), "{text}");
    }

    #[test]
    fn quick_returns_and_bad_dimensions() {
        let target: Target = "gfx90a".parse().unwrap();
        let catalog = Catalog::for_target(&target);
        let s = GemmProblem {
            class: GemmClass::Mixed {
                ab: DType::Bf16,
                c: DType::F32,
            },
            ..shape(64, 64, 64, 64, 64)
        };
        // No gfx90a kernel writes bf16 from bf16 inputs (the caller stages C).
        assert!(plan(&shape(64, 64, 64, 64, 64), &target, catalog).is_err());
        let empty = |s: GemmProblem| plan(&s, &target, catalog).unwrap().steps.is_empty();
        assert!(empty(GemmProblem { m: 0, ..s.clone() }));
        assert!(empty(GemmProblem {
            batch: 0,
            ..s.clone()
        }));
        assert!(empty(GemmProblem {
            alpha: 0.0,
            beta: 1.0,
            ..s.clone()
        }));
        // k = 0 with β ≠ 1 still scales C.
        let scale = plan(&GemmProblem { k: 0, ..s.clone() }, &target, catalog).unwrap();
        assert_eq!(scale.steps.len(), 1);
        let e = plan(
            &GemmProblem {
                m: 1 << 31,
                ..s.clone()
            },
            &target,
            catalog,
        )
        .unwrap_err()
        .to_string();
        assert!(
            e.contains("`m`") || e.contains("m:") || e.contains(" m"),
            "{e}"
        );
        let cpu: Target = "cpu".parse().unwrap();
        assert!(can_implement(&s, &cpu).is_err());
        let f16_out_of_f32 = GemmProblem {
            class: GemmClass::Mixed {
                ab: DType::F32,
                c: DType::F32,
            },
            ..s
        };
        assert!(can_implement(&f16_out_of_f32, &target).is_err());
    }
}
