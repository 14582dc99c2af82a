//! Every declared kernel signature against what the generators emit, on every target
//! family: the PTX `.param` list of each `.entry` and the AMDGPU code object's `.args`
//! (name, offset, size, value kind; hidden arguments after the explicit ones) must equal
//! the declaration ([`rocm_kernels::signature`]), and `Generator::signatures` (answered
//! without generating) must equal the program's own list, failing exactly where
//! generation fails.

use rocm_core::isa::amdgpu::codeobj::CodeObject;
use rocm_core::{DType, ModuleImage, Target};
use rocm_kernels::extension::{Extension, ExtensionParams};
use rocm_kernels::generator::{Generator, Program};
use rocm_kernels::level1::finish::{Finish, FinishParams};
use rocm_kernels::level1::{L1Op, Level1, Level1Params, ALL_OPS, CONVERSIONS, DTYPES};
use rocm_kernels::level2::gemv::{Gemv, GemvParams, GemvTrans};
use rocm_kernels::level2::rank::{Rank, RankOp, RankParams};
use rocm_kernels::level2::trimv::{TriMv, TriMvOp, TriMvParams};
use rocm_kernels::level2::trsv::{TrsvBlock, TrsvParams};
use rocm_kernels::level2::Storage;

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
        // AMDGPU has no nrm2 finish (the host combines its partials).
        let nrm2 = if target.arch().name().starts_with("sm_") {
            0
        } else {
            DTYPES.len()
        };
        assert_eq!(checked, finish_variants().len() - nrm2, "{target}");
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
            for op in [
                RankOp::Ger,
                RankOp::Gerc,
                RankOp::Syr,
                RankOp::Her,
                RankOp::Syr2,
                RankOp::Her2,
            ] {
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
