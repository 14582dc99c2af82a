//! GEMM generators: D = α·op(A)·op(B) + β·C (D = C, in place), column-major, batched
//! over the grid's z dimension.
//!
//! One typed parameter set ([`GemmParams`], Tensile's "solution") describes a kernel for
//! every family; [`Gemm::generate`] hands it to the family's generator:
//! - NVIDIA ([`ptx`]): a register-tiled SIMT kernel (f32, f64) and `mma.sync` tensor-core
//!   kernels (f16/bf16 → f32, tf32, f64 DMMA) with a multi-stage `cp.async` pipeline.
//! - AMD ([`amdgpu`]): MFMA kernels (gfx908/gfx90a/gfx942), WMMA kernels (gfx11) and a
//!   register-tiled FMA kernel (f32, f64) where the target has no matrix instruction.
//!
//! ## The kernel contract (every family)
//! Arguments: [`signature`] declares them, once, for every family and variant (the PTX
//! emitters declare their `.param`s from it, the AMDGPU emitter its kernarg metadata,
//! and plans bind them by name): A, B and C's first batch entries, `m, n, k` (op(A) is
//! m×k, op(B) k×n, C m×n), the leading dimensions and batch strides in elements, α and
//! β in the compute type, and for `tma` variants the two tensor maps.
//!
//! - Launch: `grid = (⌈m/tile_m⌉, ⌈n/tile_n⌉, batch)` workgroups of
//!   [`GemmParams::threads`] work-items ([`plan`] computes it; a program's `LaunchRule`
//!   is not used for GEMM).
//! - β = 0 must not read C (it may hold NaN); the plan handles m, n = 0 and α = 0 / k = 0.
//! - Any m, n, k ≥ 1 and any leading dimensions ≥ the stored rows are correct; aligned
//!   shapes are merely faster (the plan picks parameters that fit the alignment).

pub mod amdgpu;
pub mod ptx;
mod select;
pub mod splitk;

pub use select::{
    can_implement, plan, select, GemmClass, GemmOperand, GemmProblem, SplitK, MAX_REPACK_COPIES,
};

use crate::generator::{Generator, Program};
use crate::signature::{Access, ScalarType, Signature};
use rocm_core::target::KernelIsa;
use rocm_core::{DType, Error, Result, Target};

/// How the inner product is computed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub enum GemmInstruction {
    /// Plain FMAs: each thread owns a `thread_m × thread_n` register tile.
    Simt { thread_m: u32, thread_n: u32 },
    /// NVIDIA `mma.sync.aligned.mMnNkK` (sm_80+).
    MmaSync { m: u32, n: u32, k: u32 },
    /// AMD MFMA (gfx9) `v_mfma_*_{m}x{n}x{k}`, one block.
    Mfma { m: u32, n: u32, k: u32 },
    /// AMD WMMA (gfx11) 16×16×16.
    Wmma,
    /// NVIDIA warpgroup MMA `wgmma.mma_async.m64nNk16` (k8 for tf32), sm_90a: each
    /// warpgroup (4 warps along m) owns a 64×`n` tile; operands from shared memory.
    Wgmma { n: u32 },
}

impl GemmInstruction {
    /// Whether the generator for kernels of this form builds kernels with this
    /// instruction (PTX: SIMT, `mma.sync`, `wgmma`; AMDGPU: SIMT (register-tiled FMA),
    /// MFMA, WMMA). Hosts check catalog entries with it, so a catalog meant for another
    /// vendor (`ROCM_KERNELS_CATALOG` replaces every target's) falls back instead of
    /// failing.
    pub fn builds_for(&self, isa: KernelIsa) -> bool {
        match self {
            GemmInstruction::Simt { .. } => isa != KernelIsa::Host,
            GemmInstruction::MmaSync { .. } | GemmInstruction::Wgmma { .. } => {
                isa == KernelIsa::Ptx
            }
            GemmInstruction::Mfma { .. } | GemmInstruction::Wmma => isa == KernelIsa::Amdgpu,
        }
    }
}

/// One GEMM kernel variant.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct GemmParams {
    /// Element types of A and B (equal), C/D, and the accumulation.
    pub ab: DType,
    pub c: DType,
    pub compute: DType,
    /// op(A) = Aᵀ when set (A stored k×m), likewise B (stored n×k).
    pub trans_a: bool,
    pub trans_b: bool,
    /// The workgroup's tile of C and the k depth of one main-loop step.
    pub tile_m: u32,
    pub tile_n: u32,
    pub tile_k: u32,
    /// Warps (waves) per workgroup along m and n; each owns a
    /// `tile_m/warps_m × tile_n/warps_n` sub-tile.
    pub warps_m: u32,
    pub warps_n: u32,
    pub instruction: GemmInstruction,
    /// Shared-memory (LDS) pipeline depth: 1 = no prefetch, 2 = double buffering...
    pub stages: u32,
    /// f32 inputs through tf32 (NVIDIA) or xf32 (gfx942) tensor instructions.
    #[serde(default)]
    pub reduced_f32: bool,
    /// sm_90a `wgmma` only: operands staged by the tensor memory accelerator
    /// (`cp.async.bulk.tensor`, issued by one extra producer warp) into an mbarrier
    /// ring, instead of every thread's `cp.async`. The launch passes two tensor maps
    /// (see [`ptx::wgmma`]); the block has one more warp ([`GemmParams::threads`]).
    #[serde(default, skip_serializing_if = "is_false")]
    pub tma: bool,
}

fn is_false(b: &bool) -> bool {
    !*b
}

impl GemmParams {
    /// Work-items per workgroup.
    pub fn threads(&self, target: &Target) -> u32 {
        let producer = if self.tma {
            target.caps().wave_size()
        } else {
            0
        };
        self.warps_m * self.warps_n * target.caps().wave_size() + producer
    }

    /// Catalog key: `<ab>-<c>-<compute>/<N|T><N|T>`.
    pub fn key(ab: DType, c: DType, compute: DType, trans_a: bool, trans_b: bool) -> String {
        let t = |x: bool| if x { 'T' } else { 'N' };
        format!("{ab}-{c}-{compute}/{}{}", t(trans_a), t(trans_b))
    }
}

/// The GEMM generator.
pub struct Gemm;

impl Generator for Gemm {
    type Params = GemmParams;
    const NAME: &'static str = "gemm";
    const VERSION: u32 = 1;

    fn generate(p: &GemmParams, target: &Target) -> Result<Program> {
        match target.caps().kernel_isa {
            KernelIsa::Ptx => ptx::program(p, target),
            KernelIsa::Amdgpu => amdgpu::program(p, target),
            KernelIsa::Host => Err(Error::unsupported("GEMM kernels", "cpu")),
        }
    }

    fn signatures(p: &GemmParams, target: &Target) -> Result<Vec<Signature>> {
        match target.caps().kernel_isa {
            KernelIsa::Ptx => ptx::check(p, target)?,
            KernelIsa::Amdgpu => {
                amdgpu::plan::Plan::new(p, rocm_core::isa::amdgpu::IsaTarget::try_from(target)?)
                    .map(|_| ())?
            }
            KernelIsa::Host => return Err(Error::unsupported("GEMM kernels", "cpu")),
        }
        Ok(vec![signature(p, target)?])
    }
}

/// The kernel's name on `target`: [`ptx::KERNEL`] in every PTX program, the variant's
/// [`amdgpu::kernel_name`] in a code object.
pub fn kernel_name(p: &GemmParams, target: &Target) -> Result<String> {
    match target.caps().kernel_isa {
        KernelIsa::Ptx => Ok(ptx::KERNEL.to_string()),
        KernelIsa::Amdgpu => Ok(amdgpu::kernel_name(p)),
        KernelIsa::Host => Err(Error::unsupported("GEMM kernels", "cpu")),
    }
}

/// The scalar type of α and β: the compute type.
fn coefficient_type(compute: DType) -> Result<ScalarType> {
    match compute {
        DType::F32 => Ok(ScalarType::F32),
        DType::F64 => Ok(ScalarType::F64),
        DType::I32 => Ok(ScalarType::I32),
        other => Err(Error::invalid(
            "compute",
            format!("GEMM kernels accumulate in f32, f64 or i32, not {other}"),
        )),
    }
}

/// Every GEMM kernel's arguments, in order: `a`, `b` (read), `c` (read and written:
/// D = α·op(A)·op(B) + β·C in place), `m, n, k, lda, ldb, ldc` (u32), `stride_a,
/// stride_b, stride_c` (u64, elements between batch entries), `alpha, beta` (compute
/// type), and for `tma` variants `tmap_a, tmap_b` (128-byte tensor maps aligned to 64,
/// [`ptx::wgmma::tma_operand`]).
pub fn signature(p: &GemmParams, target: &Target) -> Result<Signature> {
    signature_named(p, kernel_name(p, target)?)
}

/// [`signature`] for a kernel called `kernel`.
pub(crate) fn signature_named(p: &GemmParams, kernel: String) -> Result<Signature> {
    let coefficient = coefficient_type(p.compute)?;
    let mut sig = Signature::new(kernel)
        .pointer("a", p.ab, Access::Read)
        .pointer("b", p.ab, Access::Read)
        .pointer("c", p.c, Access::ReadWrite);
    for dim in ["m", "n", "k", "lda", "ldb", "ldc"] {
        sig = sig.scalar(dim, ScalarType::U32);
    }
    for stride in ["stride_a", "stride_b", "stride_c"] {
        sig = sig.scalar(stride, ScalarType::U64);
    }
    sig = sig.scalar("alpha", coefficient).scalar("beta", coefficient);
    if p.tma {
        sig = sig.bytes("tmap_a", 128, 64).bytes("tmap_b", 128, 64);
    }
    Ok(sig)
}
