//! Every declared kernel signature against what the generators emit, on every target
//! family: the PTX `.param` list of each `.entry` and the AMDGPU code object's `.args`
//! (name, offset, size, value kind; hidden arguments after the explicit ones) must equal
//! the declaration ([`rocm_kernels::signature`]), and `Generator::signatures` (answered
//! without generating) must equal the program's own list, failing exactly where
//! generation fails.

use rocm_core::isa::amdgpu::codeobj::CodeObject;
use rocm_core::{DType, ModuleImage, Target};
use rocm_kernels::complex::{ComplexPrep, ComplexPrepParams};
use rocm_kernels::copy::{CopyParams, DeviceCopy};
use rocm_kernels::extension::{Extension, ExtensionParams};
use rocm_kernels::gemm::splitk::{SplitKFinish, SplitKParams};
use rocm_kernels::gemm::{amdgpu, ptx, Gemm, GemmInstruction, GemmParams};
use rocm_kernels::generator::{Generator, Program};
use rocm_kernels::level1::finish::{Finish, FinishParams};
use rocm_kernels::level1::{L1Op, Level1, Level1Params, ALL_OPS, CONVERSIONS, DTYPES};
use rocm_kernels::level2::gemv::{Gemv, GemvParams, GemvTrans};
use rocm_kernels::level2::rank::{Rank, RankOp, RankParams};
use rocm_kernels::level2::trimv::{TriMv, TriMvOp, TriMvParams};
use rocm_kernels::level2::trsv::{TrsvBlock, TrsvParams};
use rocm_kernels::level2::Storage;
use rocm_kernels::level3::{Level3, Level3Params};
use rocm_kernels::transpose::{Transpose, TransposeParams};

const TARGETS: [&str; 7] = [
    "sm_80", "sm_90", "sm_90a", "gfx908", "gfx90a", "gfx942", "gfx1100",
];

/// Checks `program`'s image against its declared signatures; returns the kernels checked.
fn check_program(program: &Program, what: &str) -> usize {
    assert!(
        !program.signatures.is_empty(),
        "{what}: the program declares no signatures"
    );
    assert_eq!(
        program.kernels,
        program
            .signatures
            .iter()
            .map(|s| s.kernel.clone())
            .collect::<Vec<_>>(),
        "{what}"
    );
    match &program.image {
        ModuleImage::Ptx(text) => {
            let entries = text.matches(".entry ").count();
            assert_eq!(entries, program.signatures.len(), "{what}: entries");
            for s in &program.signatures {
                s.check_ptx(text).unwrap_or_else(|e| panic!("{what}: {e}"));
            }
        }
        ModuleImage::CodeObject(bytes) => {
            let co = CodeObject::parse(bytes).unwrap_or_else(|e| panic!("{what}: {e}"));
            assert_eq!(co.kernels.len(), program.signatures.len(), "{what}");
            for s in &program.signatures {
                let k = co
                    .kernels
                    .iter()
                    .find(|k| k.metadata.name == s.kernel)
                    .unwrap_or_else(|| panic!("{what}: no kernel {}", s.kernel));
                s.check_amdgpu_args(&k.metadata.args)
                    .unwrap_or_else(|e| panic!("{what}: {e}"));
                let (_, size) = s.layout();
                let explicit: u32 = k
                    .metadata
                    .args
                    .iter()
                    .take(s.params.len())
                    .map(|a| a.offset + a.size)
                    .max()
                    .unwrap_or(0);
                assert!(explicit <= size, "{what}: explicit args end past {size}");
            }
        }
    }
    program.signatures.len()
}

/// Generates `p` on `target` and checks it; `Generator::signatures` must agree.
fn walk<G: Generator>(p: &G::Params, target: &Target) -> usize {
    let what = format!("{} {p:?} on {target}", G::NAME);
    match (G::generate(p, target), G::signatures(p, target)) {
        (Ok(program), Ok(sigs)) => {
            assert_eq!(sigs, program.signatures, "{what}: signatures() differs");
            check_program(&program, &what)
        }
        (Err(_), Err(_)) => 0,
        (Ok(_), Err(e)) => panic!("{what}: generates, but signatures() fails: {e}"),
        (Err(e), Ok(_)) => panic!("{what}: signatures() answers, but generation fails: {e}"),
    }
}

fn level1_variants() -> Vec<Level1Params> {
    let mut out = Vec::new();
    for contiguous in [true, false] {
        for op in &ALL_OPS {
            for dtype in DTYPES {
                out.push(Level1Params::fallback(*op, dtype, contiguous));
            }
        }
        for (from, to) in CONVERSIONS {
            out.push(Level1Params::fallback(
                L1Op::Convert { to },
                from,
                contiguous,
            ));
        }
    }
    out
}

fn finish_variants() -> Vec<FinishParams> {
    let mut out = Vec::new();
    for dtype in DTYPES {
        let real = if matches!(dtype, DType::F64 | DType::C64) {
            DType::F64
        } else {
            DType::F32
        };
        let same = match dtype {
            DType::C32 | DType::C64 => dtype,
            _ => real,
        };
        for (op, out_type) in [
            (L1Op::Dot { conj: false }, same),
            (L1Op::Dot { conj: true }, same),
            (L1Op::Sum, same),
            (L1Op::Asum, real),
            (L1Op::Nrm2, real),
            (L1Op::Iamax { max: true }, DType::I64),
            (L1Op::Iamax { max: false }, DType::I64),
        ] {
            out.push(FinishParams {
                op,
                dtype,
                out: out_type,
            });
        }
    }
    out
}

#[test]
fn level1_signatures_match_the_emitted_kernels() {
    for target in TARGETS {
        let target: Target = target.parse().unwrap();
        let checked: usize = level1_variants()
            .iter()
            .map(|p| walk::<Level1>(p, &target))
            .sum();
        // Every op on every dtype but complex rotm, and the conversions; both layouts.
        assert_eq!(checked, 2 * (ALL_OPS.len() * 6 - 2 + 6), "{target}");
    }
}

#[test]
fn level1_finish_signatures_match_the_emitted_kernels() {
    for target in TARGETS {
        let target: Target = target.parse().unwrap();
        let checked: usize = finish_variants()
            .iter()
            .map(|p| walk::<Finish>(p, &target))
            .sum();
        assert_eq!(checked, finish_variants().len(), "{target}");
    }
}

/// GEMM variants of every instruction family: the NVIDIA SIMT/DMMA fallbacks, tf32 and
/// f16/bf16 `mma.sync` (every transpose), the `wgmma` variants with `cp.async` and
/// tensor-copy staging (f32 and same-type C, every transpose), split-K partials (f32 C
/// from 16-bit inputs); the AMD defaults (MFMA, WMMA, register-tiled FMA) of every
/// dtype with every transpose and 16-bit C. Each builds on its family only.
fn gemm_variants() -> Vec<GemmParams> {
    let mut out = nvidia_gemm_variants();
    for t in ["gfx908", "gfx90a", "gfx942", "gfx1100"] {
        for p in amd_gemm_variants(t) {
            if !out.contains(&p) {
                out.push(p);
            }
        }
    }
    out
}

fn nvidia_gemm_variants() -> Vec<GemmParams> {
    let mut out = Vec::new();
    for trans_a in [false, true] {
        for trans_b in [false, true] {
            for d in [DType::F32, DType::F64] {
                out.push(ptx::fallback(d, trans_a, trans_b).unwrap());
            }
            out.push(ptx::fallback_tf32(trans_a, trans_b));
            for d in [DType::F16, DType::Bf16] {
                out.push(ptx::half(d, trans_a, trans_b));
            }
        }
    }
    out.extend(ptx::wgmma_variants());
    out
}

/// The AMD generator's default tile of every dtype on `target`, every transpose, and
/// 16-bit C for 16-bit inputs.
fn amd_gemm_variants(target: &str) -> Vec<GemmParams> {
    use rocm_core::isa::amdgpu::IsaTarget;
    let t = IsaTarget::try_from(&target.parse::<Target>().unwrap()).unwrap();
    let mut out = Vec::new();
    for d in [DType::F32, DType::F64, DType::F16, DType::Bf16] {
        let Ok(base) = amdgpu::model::default_params(t, d) else {
            continue;
        };
        for trans_a in [false, true] {
            for trans_b in [false, true] {
                let p = GemmParams {
                    trans_a,
                    trans_b,
                    ..base.clone()
                };
                if matches!(d, DType::F16 | DType::Bf16) {
                    out.push(GemmParams { c: d, ..p.clone() });
                }
                out.push(p);
            }
        }
    }
    out
}

#[test]
fn gemm_signatures_match_the_emitted_kernels() {
    let variants = gemm_variants();
    for name in TARGETS {
        let target: Target = name.parse().unwrap();
        let checked: usize = variants.iter().map(|p| walk::<Gemm>(p, &target)).sum();
        // The target's own variants all build: the NVIDIA ones (wgmma only on
        // sm_90/sm_90a), or the target's AMD defaults.
        let own: Vec<GemmParams> = if name.starts_with("sm_") {
            nvidia_gemm_variants()
                .into_iter()
                .filter(|p| {
                    !matches!(p.instruction, GemmInstruction::Wgmma { .. })
                        || name.starts_with("sm_90")
                })
                .collect()
        } else {
            amd_gemm_variants(name)
        };
        let own_checked: usize = own.iter().map(|p| walk::<Gemm>(p, &target)).sum();
        assert_eq!(own_checked, own.len(), "{name}: its own variants build");
        assert!(checked >= own.len(), "{name}");
    }
}

#[test]
fn gemm_helper_and_copy_signatures_match_the_emitted_kernels() {
    let finishes: Vec<SplitKParams> = [
        (DType::F32, DType::F32),
        (DType::F32, DType::F16),
        (DType::F32, DType::Bf16),
        (DType::F64, DType::F64),
    ]
    .into_iter()
    .flat_map(|(compute, c)| [false, true].map(|read_c| SplitKParams { compute, c, read_c }))
    .collect();
    for target in TARGETS {
        let target: Target = target.parse().unwrap();
        let nvidia = target.arch().name().starts_with("sm_");
        let finish: usize = finishes
            .iter()
            .map(|p| walk::<SplitKFinish>(p, &target))
            .sum();
        let transposes: usize = [2, 4, 8]
            .map(|element_bytes| walk::<Transpose>(&TransposeParams { element_bytes }, &target))
            .iter()
            .sum();
        // Split-K's finish is an NVIDIA kernel; the transpose is written in the kernel
        // language, so every target has it.
        let want = if nvidia { (finishes.len(), 3) } else { (0, 3) };
        assert_eq!((finish, transposes), want, "{target}");
        let copies: usize = rocm_kernels::copy::UNITS
            .map(|unit_bytes| walk::<DeviceCopy>(&CopyParams { unit_bytes }, &target))
            .iter()
            .sum();
        assert_eq!(
            copies,
            rocm_kernels::copy::UNITS.len(),
            "{target}: copy kernels"
        );
    }
}

const BLAS_DTYPES: [DType; 4] = [DType::F32, DType::F64, DType::C32, DType::C64];

#[test]
fn level2_signatures_match_the_emitted_kernels() {
    for target in TARGETS {
        let target: Target = target.parse().unwrap();
        let mut checked = 0;
        for dtype in BLAS_DTYPES {
            for trans in [GemvTrans::N, GemvTrans::T, GemvTrans::C] {
                for read_y in [true, false] {
                    let mut p = GemvParams::fallback(dtype, trans, read_y);
                    checked += walk::<Gemv>(&p, &target);
                    p.split = false;
                    checked += walk::<Gemv>(&p, &target);
                }
            }
            for op in RankOp::ALL {
                for storage in [Storage::Dense, Storage::Packed] {
                    checked += walk::<Rank>(&RankParams::fallback(dtype, op, storage), &target);
                }
            }
            for op in [
                TriMvOp::Symv,
                TriMvOp::Hemv,
                TriMvOp::TrmvN,
                TriMvOp::TrmvT,
                TriMvOp::TrmvC,
                TriMvOp::GeneralN,
                TriMvOp::GeneralT,
                TriMvOp::GeneralC,
            ] {
                for storage in [Storage::Dense, Storage::Packed, Storage::Band] {
                    for read_y in [true, false] {
                        let mut p = TriMvParams::fallback(dtype, op, storage, read_y);
                        checked += walk::<TriMv>(&p, &target);
                        p.window = true;
                        checked += walk::<TriMv>(&p, &target);
                    }
                }
            }
            for storage in [Storage::Dense, Storage::Packed, Storage::Band] {
                checked += walk::<TrsvBlock>(&TrsvParams::fallback(dtype, storage), &target);
            }
        }
        assert!(checked >= 4 * (3 * 4 + 12 + 3), "{target}: {checked}");
    }
}

#[test]
fn extension_signatures_match_the_emitted_kernels() {
    for target in TARGETS {
        let target: Target = target.parse().unwrap();
        let checked: usize = BLAS_DTYPES
            .iter()
            .map(|&dtype| walk::<Extension>(&ExtensionParams { dtype }, &target))
            .sum();
        // geam and dgmm for each of the four types on both families.
        assert_eq!(checked, 2 * BLAS_DTYPES.len(), "{target}");
    }
}

#[test]
fn complex_prep_signatures_match_the_emitted_kernels() {
    for target in TARGETS {
        let target: Target = target.parse().unwrap();
        let checked: usize = [DType::C32, DType::C64, DType::F32]
            .iter()
            .map(|&dtype| walk::<ComplexPrep>(&ComplexPrepParams { dtype }, &target))
            .sum();
        // One kernel for each complex type; f32 generates nothing on either family.
        assert_eq!(checked, 2, "{target}");
    }
}

#[test]
fn level3_signatures_match_the_emitted_kernels() {
    for target in TARGETS {
        let target: Target = target.parse().unwrap();
        let mut checked = 0;
        for dtype in [DType::F32, DType::F64, DType::C32, DType::C64, DType::F16] {
            for invert_block in [16, 32, 64] {
                checked += walk::<Level3>(
                    &Level3Params {
                        dtype,
                        invert_block,
                    },
                    &target,
                );
            }
        }
        // Three kernels per program: every block order for the four BLAS types, but
        // Complex64 at 64 (over the shared-memory limit); nothing for f16.
        assert_eq!(checked, 3 * (4 * 3 - 1), "{target}");
    }
}
