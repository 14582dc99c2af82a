//! Targets: the instruction sets rocm-rs generates code for, and the one table of
//! per-target facts.
//!
//! A [`Target`] is parsed from the names users know (`cpu`, `gfx90a:sramecc+:xnack-`,
//! `sm_90a`) and printed back the same way. [`Target::caps`] returns the target's
//! [`Caps`]: wave sizes, LDS/shared memory, register files, the matrix instructions and
//! their shapes, and compute-unit counts of common parts. Code that needs a per-target
//! fact looks it up here; nothing else in the workspace branches on target names.
//!
//! Sources: AMD's CDNA/RDNA ISA guides and the LLVM AMDGPU usage page (registers, LDS,
//! MFMA/WMMA lists), NVIDIA's PTX ISA and CUDA programming guide (shared memory, mma and
//! wgmma shapes); see `../shared/reference/amdgpu.md` for the checked layouts.

use crate::{Error, Result};
use std::fmt;
use std::str::FromStr;

/// The processor a target names, without target-ID features.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Arch {
    Cpu,
    Gfx908,
    Gfx90a,
    Gfx942,
    Gfx950,
    Gfx1100,
    Gfx1101,
    Gfx1102,
    Gfx1151,
    Gfx1200,
    Gfx1201,
    Sm80,
    Sm86,
    Sm89,
    Sm90,
    Sm90a,
}

/// Which instruction-set family a target belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Family {
    /// The host CPU.
    Cpu,
    /// AMD CDNA (gfx9): wave64, MFMA.
    Cdna,
    /// AMD RDNA3 (gfx11): wave32/wave64, WMMA with replicated A/B halves.
    Rdna3,
    /// AMD RDNA4 (gfx12): wave32/wave64, WMMA without replication.
    Rdna4,
    /// NVIDIA, compiled from PTX.
    Nvidia,
}

/// Who makes a processor: what its devices are driven with.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Vendor {
    /// The host CPU.
    Host,
    /// AMD GPUs (HIP devices, and the emulated `emu:<gfx>` devices).
    Amd,
    /// NVIDIA GPUs (CUDA devices).
    Nvidia,
}

/// The form of the kernels rocm-rs generates for a target: which code generator a
/// generator hands it to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum KernelIsa {
    /// No generated kernels: the libraries' CPU code runs on the host.
    Host,
    /// PTX text, compiled by the CUDA driver.
    Ptx,
    /// AMDGPU machine code in a code object, from the instruction model of
    /// [`crate::isa::amdgpu`] (which answers `Unsupported` for processors it does not
    /// encode yet).
    Amdgpu,
}

/// A target-ID feature of AMD processors.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Feature {
    Sramecc,
    Xnack,
}

impl Feature {
    const ALL: [Feature; 2] = [Feature::Sramecc, Feature::Xnack];

    /// The feature's name in a target ID.
    pub const fn name(self) -> &'static str {
        match self {
            Feature::Sramecc => "sramecc",
            Feature::Xnack => "xnack",
        }
    }
}

/// Operand types of matrix instructions (wider than [`crate::DType`]: tf32, xf32, fp8...).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum MatrixType {
    F64,
    F32,
    /// NVIDIA TensorFloat-32 (f32 storage, 10-bit mantissa products).
    Tf32,
    /// AMD gfx94x xf32 (f32 storage, reduced-precision products).
    Xf32,
    F16,
    Bf16,
    I8,
    /// Signed or unsigned 8-bit (WMMA's iu8).
    Iu8,
    /// Signed or unsigned 4-bit (WMMA's iu4).
    Iu4,
    Fp8E4m3,
    Fp8E5m2,
    I32,
}

/// The matrix-instruction family.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum MatrixKind {
    /// AMD CDNA `v_mfma_*` (one wave).
    Mfma,
    /// AMD RDNA `v_wmma_*` (one wave).
    Wmma,
    /// NVIDIA `mma.sync` (one warp).
    MmaSync,
    /// NVIDIA `wgmma.mma_async` (a warpgroup of four warps; N is the largest allowed).
    Wgmma,
}

/// One matrix instruction: D (M×N, `acc`) = A (M×K, `input`) · B (K×N, `input`) + C.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct MatrixInstr {
    pub kind: MatrixKind,
    pub m: u32,
    pub n: u32,
    pub k: u32,
    pub input: MatrixType,
    pub acc: MatrixType,
    /// Mnemonic as the assembler spells it (AMD) or the PTX shape (NVIDIA).
    pub mnemonic: &'static str,
}

/// Per-target facts. One `static` per architecture in [`TABLE`].
#[derive(Debug, Clone, Copy)]
pub struct Caps {
    pub arch: Arch,
    pub name: &'static str,
    pub family: Family,
    /// Who makes the processor.
    pub vendor: Vendor,
    /// The form generated kernels take.
    pub kernel_isa: KernelIsa,
    /// Wave/warp sizes the hardware runs; the first is the default our kernels use.
    pub wave_sizes: &'static [u32],
    /// LDS (AMD) or shared memory (NVIDIA, with opt-in) bytes available to one workgroup.
    pub lds_bytes_per_workgroup: u32,
    /// Addressable SGPRs per wave (AMD; 0 for NVIDIA and the CPU).
    pub sgprs_per_wave: u32,
    /// Architectural VGPRs one wave can address (NVIDIA: registers per thread).
    pub vgprs_per_wave: u32,
    /// Accumulation VGPRs one wave can address (AMD CDNA; 0 elsewhere).
    pub agprs_per_wave: u32,
    /// gfx90a+: VGPRs and AGPRs share one file of `vgprs_per_wave + agprs_per_wave`.
    pub unified_vgpr_file: bool,
    /// Per-lane register budget of one SIMD (AMD) or 32-bit registers per SM (NVIDIA),
    /// shared by all resident waves; the occupancy limit from registers is derived from it.
    pub register_file_per_simd: u32,
    /// SGPRs one SIMD holds for all its waves, where that limits occupancy (AMD gfx9:
    /// 800, LLVM's `getOccupancyWithNumSGPRs`); 0 where SGPRs do not limit it (gfx10+,
    /// NVIDIA, the CPU).
    pub sgpr_file_per_simd: u32,
    /// Register allocation granule (AMD: VGPRs per lane; NVIDIA: registers per warp / 32).
    pub vgpr_granule: u32,
    /// Most waves one SIMD (AMD) or warps one SM (NVIDIA) can hold.
    pub max_waves_per_simd: u32,
    /// SIMDs per CU (AMD) or SM sub-partitions (NVIDIA).
    pub simds_per_cu: u32,
    /// Matrix instructions, in the order kernels prefer them.
    pub matrix: &'static [MatrixInstr],
    /// Whether f64 matrix products run on matrix hardware at full rate.
    pub fp64_matrix: bool,
    /// NVIDIA programmatic dependent launch (sm_90+): a kernel launched with
    /// [`crate::Kernel::launch_dependent`] may start while the previous kernel on its
    /// stream still runs, and waits for its results with `griddepcontrol.wait`.
    pub dependent_launch: bool,
    /// Target-ID features this processor accepts.
    pub features: &'static [Feature],
    /// Compute-unit (AMD) or SM (NVIDIA) counts of common parts.
    pub parts: &'static [(&'static str, u32)],
}

impl Caps {
    /// Whether the processor is an AMD GPU.
    pub fn is_amd(&self) -> bool {
        self.vendor == Vendor::Amd
    }

    /// Whether the processor is an NVIDIA GPU.
    pub fn is_nvidia(&self) -> bool {
        self.vendor == Vendor::Nvidia
    }

    /// The default wave size.
    pub fn wave_size(&self) -> u32 {
        self.wave_sizes.first().copied().unwrap_or(1)
    }

    /// Matrix instructions of a given input type.
    pub fn matrix_for(&self, input: MatrixType) -> impl Iterator<Item = &MatrixInstr> {
        self.matrix.iter().filter(move |m| m.input == input)
    }
}

const fn mi(
    kind: MatrixKind,
    m: u32,
    n: u32,
    k: u32,
    input: MatrixType,
    acc: MatrixType,
    mnemonic: &'static str,
) -> MatrixInstr {
    MatrixInstr {
        kind,
        m,
        n,
        k,
        input,
        acc,
        mnemonic,
    }
}

use MatrixKind::{Mfma, MmaSync, Wgmma, Wmma};
use MatrixType::*;

const MFMA_GFX908: &[MatrixInstr] = &[
    mi(Mfma, 32, 32, 2, F32, F32, "v_mfma_f32_32x32x2f32"),
    mi(Mfma, 16, 16, 4, F32, F32, "v_mfma_f32_16x16x4f32"),
    mi(Mfma, 32, 32, 8, F16, F32, "v_mfma_f32_32x32x8f16"),
    mi(Mfma, 16, 16, 16, F16, F32, "v_mfma_f32_16x16x16f16"),
    mi(Mfma, 32, 32, 4, Bf16, F32, "v_mfma_f32_32x32x4bf16"),
    mi(Mfma, 16, 16, 8, Bf16, F32, "v_mfma_f32_16x16x8bf16"),
    mi(Mfma, 32, 32, 8, I8, I32, "v_mfma_i32_32x32x8i8"),
    mi(Mfma, 16, 16, 16, I8, I32, "v_mfma_i32_16x16x16i8"),
];

const MFMA_GFX90A: &[MatrixInstr] = &[
    mi(Mfma, 32, 32, 2, F32, F32, "v_mfma_f32_32x32x2f32"),
    mi(Mfma, 16, 16, 4, F32, F32, "v_mfma_f32_16x16x4f32"),
    mi(Mfma, 32, 32, 8, F16, F32, "v_mfma_f32_32x32x8f16"),
    mi(Mfma, 16, 16, 16, F16, F32, "v_mfma_f32_16x16x16f16"),
    mi(Mfma, 32, 32, 8, Bf16, F32, "v_mfma_f32_32x32x8bf16_1k"),
    mi(Mfma, 16, 16, 16, Bf16, F32, "v_mfma_f32_16x16x16bf16_1k"),
    mi(Mfma, 16, 16, 4, F64, F64, "v_mfma_f64_16x16x4f64"),
    mi(Mfma, 32, 32, 8, I8, I32, "v_mfma_i32_32x32x8i8"),
    mi(Mfma, 16, 16, 16, I8, I32, "v_mfma_i32_16x16x16i8"),
];

const MFMA_GFX942: &[MatrixInstr] = &[
    mi(Mfma, 32, 32, 2, F32, F32, "v_mfma_f32_32x32x2_f32"),
    mi(Mfma, 16, 16, 4, F32, F32, "v_mfma_f32_16x16x4_f32"),
    mi(Mfma, 32, 32, 4, Xf32, F32, "v_mfma_f32_32x32x4_xf32"),
    mi(Mfma, 16, 16, 8, Xf32, F32, "v_mfma_f32_16x16x8_xf32"),
    mi(Mfma, 32, 32, 8, F16, F32, "v_mfma_f32_32x32x8_f16"),
    mi(Mfma, 16, 16, 16, F16, F32, "v_mfma_f32_16x16x16_f16"),
    mi(Mfma, 32, 32, 8, Bf16, F32, "v_mfma_f32_32x32x8_bf16"),
    mi(Mfma, 16, 16, 16, Bf16, F32, "v_mfma_f32_16x16x16_bf16"),
    mi(Mfma, 16, 16, 4, F64, F64, "v_mfma_f64_16x16x4_f64"),
    mi(Mfma, 32, 32, 16, I8, I32, "v_mfma_i32_32x32x16_i8"),
    mi(Mfma, 16, 16, 32, I8, I32, "v_mfma_i32_16x16x32_i8"),
    mi(
        Mfma,
        32,
        32,
        16,
        Fp8E4m3,
        F32,
        "v_mfma_f32_32x32x16_fp8_fp8",
    ),
    mi(
        Mfma,
        16,
        16,
        32,
        Fp8E4m3,
        F32,
        "v_mfma_f32_16x16x32_fp8_fp8",
    ),
];

const MFMA_GFX950: &[MatrixInstr] = &[
    mi(Mfma, 32, 32, 2, F32, F32, "v_mfma_f32_32x32x2_f32"),
    mi(Mfma, 16, 16, 4, F32, F32, "v_mfma_f32_16x16x4_f32"),
    mi(Mfma, 32, 32, 16, F16, F32, "v_mfma_f32_32x32x16_f16"),
    mi(Mfma, 16, 16, 32, F16, F32, "v_mfma_f32_16x16x32_f16"),
    mi(Mfma, 32, 32, 8, F16, F32, "v_mfma_f32_32x32x8_f16"),
    mi(Mfma, 16, 16, 16, F16, F32, "v_mfma_f32_16x16x16_f16"),
    mi(Mfma, 32, 32, 16, Bf16, F32, "v_mfma_f32_32x32x16_bf16"),
    mi(Mfma, 16, 16, 32, Bf16, F32, "v_mfma_f32_16x16x32_bf16"),
    mi(Mfma, 16, 16, 4, F64, F64, "v_mfma_f64_16x16x4_f64"),
    mi(Mfma, 32, 32, 32, I8, I32, "v_mfma_i32_32x32x32_i8"),
    mi(Mfma, 16, 16, 64, I8, I32, "v_mfma_i32_16x16x64_i8"),
    mi(
        Mfma,
        32,
        32,
        16,
        Fp8E4m3,
        F32,
        "v_mfma_f32_32x32x16_fp8_fp8",
    ),
    mi(
        Mfma,
        16,
        16,
        32,
        Fp8E4m3,
        F32,
        "v_mfma_f32_16x16x32_fp8_fp8",
    ),
];

const WMMA_GFX11: &[MatrixInstr] = &[
    mi(Wmma, 16, 16, 16, F16, F32, "v_wmma_f32_16x16x16_f16"),
    mi(Wmma, 16, 16, 16, Bf16, F32, "v_wmma_f32_16x16x16_bf16"),
    mi(Wmma, 16, 16, 16, F16, F16, "v_wmma_f16_16x16x16_f16"),
    mi(Wmma, 16, 16, 16, Bf16, Bf16, "v_wmma_bf16_16x16x16_bf16"),
    mi(Wmma, 16, 16, 16, Iu8, I32, "v_wmma_i32_16x16x16_iu8"),
    mi(Wmma, 16, 16, 16, Iu4, I32, "v_wmma_i32_16x16x16_iu4"),
];

const WMMA_GFX12: &[MatrixInstr] = &[
    mi(Wmma, 16, 16, 16, F16, F32, "v_wmma_f32_16x16x16_f16"),
    mi(Wmma, 16, 16, 16, Bf16, F32, "v_wmma_f32_16x16x16_bf16"),
    mi(Wmma, 16, 16, 16, F16, F16, "v_wmma_f16_16x16x16_f16"),
    mi(Wmma, 16, 16, 16, Bf16, Bf16, "v_wmma_bf16_16x16x16_bf16"),
    mi(Wmma, 16, 16, 16, Iu8, I32, "v_wmma_i32_16x16x16_iu8"),
    mi(Wmma, 16, 16, 16, Iu4, I32, "v_wmma_i32_16x16x16_iu4"),
    mi(
        Wmma,
        16,
        16,
        16,
        Fp8E4m3,
        F32,
        "v_wmma_f32_16x16x16_fp8_fp8",
    ),
    mi(
        Wmma,
        16,
        16,
        16,
        Fp8E5m2,
        F32,
        "v_wmma_f32_16x16x16_bf8_bf8",
    ),
];

const MMA_SM80: &[MatrixInstr] = &[
    mi(
        MmaSync,
        16,
        8,
        16,
        F16,
        F32,
        "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32",
    ),
    mi(
        MmaSync,
        16,
        8,
        16,
        Bf16,
        F32,
        "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32",
    ),
    mi(
        MmaSync,
        16,
        8,
        8,
        Tf32,
        F32,
        "mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32",
    ),
    mi(
        MmaSync,
        8,
        8,
        4,
        F64,
        F64,
        "mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64",
    ),
    mi(
        MmaSync,
        16,
        8,
        32,
        I8,
        I32,
        "mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32",
    ),
];

const MMA_SM89: &[MatrixInstr] = &[
    mi(
        MmaSync,
        16,
        8,
        16,
        F16,
        F32,
        "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32",
    ),
    mi(
        MmaSync,
        16,
        8,
        16,
        Bf16,
        F32,
        "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32",
    ),
    mi(
        MmaSync,
        16,
        8,
        8,
        Tf32,
        F32,
        "mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32",
    ),
    mi(
        MmaSync,
        8,
        8,
        4,
        F64,
        F64,
        "mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64",
    ),
    mi(
        MmaSync,
        16,
        8,
        32,
        I8,
        I32,
        "mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32",
    ),
    mi(
        MmaSync,
        16,
        8,
        32,
        Fp8E4m3,
        F32,
        "mma.sync.aligned.m16n8k32.row.col.f32.e4m3.e4m3.f32",
    ),
];

const MMA_SM90A: &[MatrixInstr] = &[
    mi(
        Wgmma,
        64,
        256,
        16,
        F16,
        F32,
        "wgmma.mma_async.sync.aligned.m64nNk16.f32.f16.f16",
    ),
    mi(
        Wgmma,
        64,
        256,
        16,
        Bf16,
        F32,
        "wgmma.mma_async.sync.aligned.m64nNk16.f32.bf16.bf16",
    ),
    mi(
        Wgmma,
        64,
        256,
        8,
        Tf32,
        F32,
        "wgmma.mma_async.sync.aligned.m64nNk8.f32.tf32.tf32",
    ),
    mi(
        Wgmma,
        64,
        256,
        32,
        Fp8E4m3,
        F32,
        "wgmma.mma_async.sync.aligned.m64nNk32.f32.e4m3.e4m3",
    ),
    mi(
        Wgmma,
        64,
        256,
        32,
        I8,
        I32,
        "wgmma.mma_async.sync.aligned.m64nNk32.s32.s8.s8",
    ),
    mi(
        MmaSync,
        16,
        8,
        16,
        F16,
        F32,
        "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32",
    ),
    mi(
        MmaSync,
        16,
        8,
        16,
        Bf16,
        F32,
        "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32",
    ),
    mi(
        MmaSync,
        16,
        8,
        8,
        Tf32,
        F32,
        "mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32",
    ),
    mi(
        MmaSync,
        8,
        8,
        4,
        F64,
        F64,
        "mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64",
    ),
    mi(
        MmaSync,
        16,
        8,
        32,
        I8,
        I32,
        "mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32",
    ),
];

const GFX9_FEATURES: &[Feature] = &[Feature::Sramecc, Feature::Xnack];

const CDNA: Caps = Caps {
    arch: Arch::Gfx908,
    name: "gfx908",
    family: Family::Cdna,
    vendor: Vendor::Amd,
    kernel_isa: KernelIsa::Amdgpu,
    wave_sizes: &[64],
    lds_bytes_per_workgroup: 64 * 1024,
    sgprs_per_wave: 102,
    vgprs_per_wave: 256,
    agprs_per_wave: 256,
    unified_vgpr_file: false,
    register_file_per_simd: 512,
    sgpr_file_per_simd: 800,
    vgpr_granule: 8,
    max_waves_per_simd: 8,
    simds_per_cu: 4,
    matrix: MFMA_GFX908,
    fp64_matrix: false,
    dependent_launch: false,
    features: GFX9_FEATURES,
    parts: &[],
};

const RDNA3: Caps = Caps {
    arch: Arch::Gfx1100,
    name: "gfx1100",
    family: Family::Rdna3,
    vendor: Vendor::Amd,
    kernel_isa: KernelIsa::Amdgpu,
    wave_sizes: &[32, 64],
    lds_bytes_per_workgroup: 64 * 1024,
    sgprs_per_wave: 106,
    vgprs_per_wave: 256,
    agprs_per_wave: 0,
    unified_vgpr_file: false,
    register_file_per_simd: 1536,
    sgpr_file_per_simd: 0,
    vgpr_granule: 24,
    max_waves_per_simd: 16,
    simds_per_cu: 2,
    matrix: WMMA_GFX11,
    fp64_matrix: false,
    dependent_launch: false,
    features: &[],
    parts: &[],
};

const NVIDIA: Caps = Caps {
    arch: Arch::Sm80,
    name: "sm_80",
    family: Family::Nvidia,
    vendor: Vendor::Nvidia,
    kernel_isa: KernelIsa::Ptx,
    wave_sizes: &[32],
    lds_bytes_per_workgroup: 163 * 1024,
    sgprs_per_wave: 0,
    vgprs_per_wave: 255,
    agprs_per_wave: 0,
    unified_vgpr_file: false,
    register_file_per_simd: 65536,
    sgpr_file_per_simd: 0,
    vgpr_granule: 8,
    max_waves_per_simd: 64,
    simds_per_cu: 4,
    matrix: MMA_SM80,
    fp64_matrix: true,
    dependent_launch: false,
    features: &[],
    parts: &[],
};

/// The capability table: one row per architecture.
pub static TABLE: &[Caps] = &[
    Caps {
        arch: Arch::Cpu,
        name: "cpu",
        family: Family::Cpu,
        vendor: Vendor::Host,
        kernel_isa: KernelIsa::Host,
        wave_sizes: &[1],
        lds_bytes_per_workgroup: 0,
        sgprs_per_wave: 0,
        vgprs_per_wave: 0,
        agprs_per_wave: 0,
        unified_vgpr_file: false,
        register_file_per_simd: 0,
        sgpr_file_per_simd: 0,
        vgpr_granule: 1,
        max_waves_per_simd: 1,
        simds_per_cu: 1,
        matrix: &[],
        fp64_matrix: false,
        dependent_launch: false,
        features: &[],
        parts: &[],
    },
    // MI100: separate 256-entry VGPR and AGPR files; MFMA results only in AGPRs.
    Caps {
        register_file_per_simd: 256,
        vgpr_granule: 4,
        max_waves_per_simd: 10,
        parts: &[("MI100", 120)],
        ..CDNA
    },
    // MI200: one 512-entry file per lane, AGPRs start at accum_offset; f64 MFMA.
    Caps {
        arch: Arch::Gfx90a,
        name: "gfx90a",
        unified_vgpr_file: true,
        matrix: MFMA_GFX90A,
        fp64_matrix: true,
        parts: &[("MI210", 104), ("MI250X (one GCD)", 110)],
        ..CDNA
    },
    Caps {
        arch: Arch::Gfx942,
        name: "gfx942",
        unified_vgpr_file: true,
        matrix: MFMA_GFX942,
        fp64_matrix: true,
        parts: &[("MI300X", 304), ("MI300A", 228), ("MI325X", 304)],
        ..CDNA
    },
    Caps {
        arch: Arch::Gfx950,
        name: "gfx950",
        lds_bytes_per_workgroup: 160 * 1024,
        unified_vgpr_file: true,
        matrix: MFMA_GFX950,
        fp64_matrix: true,
        parts: &[("MI355X", 256), ("MI350X", 256)],
        ..CDNA
    },
    Caps {
        parts: &[("Radeon RX 7900 XTX", 96), ("Radeon PRO W7900", 96)],
        ..RDNA3
    },
    Caps {
        arch: Arch::Gfx1101,
        name: "gfx1101",
        parts: &[("Radeon RX 7800 XT", 60), ("Radeon PRO W7700", 48)],
        ..RDNA3
    },
    Caps {
        arch: Arch::Gfx1102,
        name: "gfx1102",
        register_file_per_simd: 1024,
        vgpr_granule: 16,
        parts: &[("Radeon RX 7600", 32)],
        ..RDNA3
    },
    Caps {
        arch: Arch::Gfx1151,
        name: "gfx1151",
        parts: &[("Ryzen AI Max+ 395 (Radeon 8060S)", 40)],
        ..RDNA3
    },
    Caps {
        arch: Arch::Gfx1200,
        name: "gfx1200",
        family: Family::Rdna4,
        matrix: WMMA_GFX12,
        parts: &[("Radeon RX 9060 XT", 32)],
        ..RDNA3
    },
    Caps {
        arch: Arch::Gfx1201,
        name: "gfx1201",
        family: Family::Rdna4,
        matrix: WMMA_GFX12,
        parts: &[("Radeon RX 9070 XT", 64), ("Radeon AI PRO R9700", 64)],
        ..RDNA3
    },
    Caps {
        parts: &[("A100", 108), ("A30", 56)],
        ..NVIDIA
    },
    // GA10x: no full-rate f64 tensor cores (mma.m8n8k4.f64 exists but runs slowly).
    Caps {
        arch: Arch::Sm86,
        name: "sm_86",
        lds_bytes_per_workgroup: 99 * 1024,
        max_waves_per_simd: 48,
        fp64_matrix: false,
        parts: &[("RTX 3090", 82), ("A10", 72), ("A40", 84)],
        ..NVIDIA
    },
    Caps {
        arch: Arch::Sm89,
        name: "sm_89",
        lds_bytes_per_workgroup: 99 * 1024,
        max_waves_per_simd: 48,
        matrix: MMA_SM89,
        fp64_matrix: false,
        parts: &[("L40S", 142), ("RTX 4090", 128), ("L4", 58)],
        ..NVIDIA
    },
    Caps {
        arch: Arch::Sm90,
        name: "sm_90",
        lds_bytes_per_workgroup: 227 * 1024,
        dependent_launch: true,
        matrix: MMA_SM89,
        parts: &[("H100 SXM", 132), ("H100 PCIe", 114), ("H200", 132)],
        ..NVIDIA
    },
    Caps {
        arch: Arch::Sm90a,
        name: "sm_90a",
        lds_bytes_per_workgroup: 227 * 1024,
        dependent_launch: true,
        matrix: MMA_SM90A,
        parts: &[("H100 SXM", 132), ("H100 PCIe", 114), ("H200", 132)],
        ..NVIDIA
    },
];

impl Arch {
    /// This architecture's row of [`TABLE`].
    pub fn caps(self) -> &'static Caps {
        // Every Arch has exactly one row (checked by a unit test), and TABLE is ordered
        // like the enum, so the index is the discriminant.
        &TABLE[self as usize]
    }

    /// The architecture's name (`gfx90a`, `sm_90a`, `cpu`).
    pub fn name(self) -> &'static str {
        self.caps().name
    }

    /// Every architecture in the table.
    pub fn all() -> impl Iterator<Item = Arch> {
        TABLE.iter().map(|c| c.arch)
    }

    /// The NVIDIA architecture of a compute capability (major, minor), if we know it.
    pub fn from_compute_capability(major: i32, minor: i32) -> Option<Arch> {
        match (major, minor) {
            (8, 0) => Some(Arch::Sm80),
            (8, 6) | (8, 7) => Some(Arch::Sm86),
            (8, 9) => Some(Arch::Sm89),
            (9, 0) => Some(Arch::Sm90),
            _ => None,
        }
    }
}

/// A code-generation target: an architecture plus AMD target-ID features.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Target {
    arch: Arch,
    /// Features set on (`+`) or off (`-`), sorted by feature; absent means "any".
    features: Vec<(Feature, bool)>,
}

impl Target {
    /// A target without features.
    pub fn new(arch: Arch) -> Self {
        Target {
            arch,
            features: Vec::new(),
        }
    }

    /// The host CPU.
    pub fn cpu() -> Self {
        Target::new(Arch::Cpu)
    }

    pub fn arch(&self) -> Arch {
        self.arch
    }

    /// The capability row of this target's architecture.
    pub fn caps(&self) -> &'static Caps {
        self.arch.caps()
    }

    pub fn family(&self) -> Family {
        self.caps().family
    }

    /// The setting of a target-ID feature: `Some(true)` for `+`, `Some(false)` for `-`,
    /// `None` when the target leaves it open.
    pub fn feature(&self, f: Feature) -> Option<bool> {
        self.features
            .iter()
            .find(|(g, _)| *g == f)
            .map(|(_, on)| *on)
    }

    /// Every name the parser accepts (without feature suffixes).
    pub fn known_names() -> Vec<String> {
        TABLE.iter().map(|c| c.name.to_string()).collect()
    }
}

impl fmt::Display for Target {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.arch.name())?;
        for (feat, on) in &self.features {
            write!(f, ":{}{}", feat.name(), if *on { '+' } else { '-' })?;
        }
        Ok(())
    }
}

impl FromStr for Target {
    type Err = Error;

    fn from_str(s: &str) -> Result<Self> {
        let unknown = |why: String| Error::UnknownTarget {
            name: s.to_string(),
            why,
            known: Target::known_names(),
        };
        let mut parts = s.split(':');
        let proc_name = parts.next().unwrap_or_default();
        let caps = TABLE
            .iter()
            .find(|c| c.name == proc_name)
            .ok_or_else(|| unknown(format!("no processor named `{proc_name}`")))?;
        let mut features: Vec<(Feature, bool)> = Vec::new();
        for part in parts {
            let (name, on) = match part.as_bytes().last() {
                Some(b'+') => (&part[..part.len() - 1], true),
                Some(b'-') => (&part[..part.len() - 1], false),
                _ => return Err(unknown(format!("feature `{part}` must end in `+` or `-`"))),
            };
            let feat = Feature::ALL
                .into_iter()
                .find(|f| f.name() == name)
                .ok_or_else(|| unknown(format!("no target feature named `{name}`")))?;
            if !caps.features.contains(&feat) {
                return Err(unknown(format!(
                    "{} does not take the `{name}` feature",
                    caps.name
                )));
            }
            if features.iter().any(|(f, _)| *f == feat) {
                return Err(unknown(format!("feature `{name}` given twice")));
            }
            features.push((feat, on));
        }
        features.sort();
        Ok(Target {
            arch: caps.arch,
            features,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table_is_indexed_by_arch() {
        for (i, c) in TABLE.iter().enumerate() {
            assert_eq!(c.arch as usize, i, "row {i} is {}", c.name);
        }
        assert_eq!(TABLE.len(), Arch::Sm90a as usize + 1);
    }

    #[test]
    fn every_name_round_trips() {
        let names = [
            "cpu", "gfx908", "gfx90a", "gfx942", "gfx950", "gfx1100", "gfx1101", "gfx1102",
            "gfx1151", "gfx1200", "gfx1201", "sm_80", "sm_86", "sm_89", "sm_90", "sm_90a",
        ];
        assert_eq!(names.len(), TABLE.len());
        for n in names {
            let t: Target = n.parse().unwrap();
            assert_eq!(t.to_string(), n);
        }
        for n in [
            "gfx90a:sramecc+:xnack-",
            "gfx942:xnack+",
            "gfx908:sramecc-",
            "gfx950:sramecc+:xnack+",
        ] {
            assert_eq!(n.parse::<Target>().unwrap().to_string(), n);
        }
    }

    #[test]
    fn features_are_read_back_and_canonicalised() {
        let t: Target = "gfx90a:xnack-:sramecc+".parse().unwrap();
        assert_eq!(t.to_string(), "gfx90a:sramecc+:xnack-");
        assert_eq!(t.feature(Feature::Sramecc), Some(true));
        assert_eq!(t.feature(Feature::Xnack), Some(false));
        let u: Target = "gfx90a".parse().unwrap();
        assert_eq!(u.feature(Feature::Xnack), None);
    }

    #[test]
    fn bad_names_are_errors_listing_the_known_ones() {
        for bad in [
            "",
            "gfx",
            "gfx906",
            "sm_70",
            "SM_90",
            "gfx90a:",
            "gfx90a:xnack",
            "gfx90a:xnack*",
            "gfx90a:foo+",
            "gfx1100:xnack+",
            "gfx90a:xnack+:xnack-",
            "sm_90a:sramecc+",
            "cpu:xnack+",
        ] {
            match bad.parse::<Target>() {
                Err(Error::UnknownTarget { known, .. }) => {
                    assert!(known.iter().any(|k| k == "gfx90a"), "{bad}")
                }
                other => panic!("`{bad}` parsed as {other:?}"),
            }
        }
    }

    #[test]
    fn capabilities_are_consistent() {
        for c in TABLE {
            assert!(!c.wave_sizes.is_empty(), "{}", c.name);
            match c.family {
                Family::Cdna => {
                    assert_eq!(c.wave_sizes, &[64]);
                    assert!(c.matrix.iter().all(|m| m.kind == MatrixKind::Mfma));
                    assert!(c.agprs_per_wave > 0);
                    assert_eq!(
                        c.fp64_matrix,
                        c.matrix.iter().any(|m| m.input == MatrixType::F64)
                    );
                }
                Family::Rdna3 | Family::Rdna4 => {
                    assert_eq!(c.wave_sizes[0], 32);
                    assert!(c.matrix.iter().all(|m| m.kind == MatrixKind::Wmma));
                }
                Family::Nvidia => {
                    assert_eq!(c.wave_sizes, &[32]);
                    let has_wgmma = c.matrix.iter().any(|m| m.kind == MatrixKind::Wgmma);
                    assert_eq!(has_wgmma, c.arch == Arch::Sm90a, "{}", c.name);
                }
                Family::Cpu => assert!(c.matrix.is_empty()),
            }
            // The vendor and kernel columns agree with the family, and every processor
            // the AMDGPU encoder knows generates AMDGPU code.
            let (vendor, isa) = match c.family {
                Family::Cpu => (Vendor::Host, KernelIsa::Host),
                Family::Cdna | Family::Rdna3 | Family::Rdna4 => (Vendor::Amd, KernelIsa::Amdgpu),
                Family::Nvidia => (Vendor::Nvidia, KernelIsa::Ptx),
            };
            assert_eq!((c.vendor, c.kernel_isa), (vendor, isa), "{}", c.name);
            assert_eq!(c.is_amd(), vendor == Vendor::Amd, "{}", c.name);
            assert_eq!(c.is_nvidia(), vendor == Vendor::Nvidia, "{}", c.name);
            if let Ok(t) = crate::isa::amdgpu::IsaTarget::from_arch(c.arch) {
                assert_eq!(c.kernel_isa, KernelIsa::Amdgpu, "{}", c.name);
                assert_eq!(t.arch(), c.arch, "{}", c.name);
            }
            // Only gfx9's SGPR file limits occupancy.
            assert_eq!(
                c.sgpr_file_per_simd > 0,
                c.family == Family::Cdna,
                "{}",
                c.name
            );
            for m in c.matrix {
                assert!(m.m > 0 && m.n > 0 && m.k > 0, "{}", m.mnemonic);
            }
        }
        assert!(Arch::Gfx942
            .caps()
            .matrix_for(MatrixType::Xf32)
            .next()
            .is_some());
        assert!(Arch::Gfx90a
            .caps()
            .matrix_for(MatrixType::Xf32)
            .next()
            .is_none());
        assert_eq!(Arch::Gfx950.caps().lds_bytes_per_workgroup, 160 * 1024);
    }

    #[test]
    fn compute_capability_maps_to_arch() {
        assert_eq!(Arch::from_compute_capability(9, 0), Some(Arch::Sm90));
        assert_eq!(Arch::from_compute_capability(7, 0), None);
    }
}
