//! The AMDGPU Level 2 kernels (`rocm_kernels::amdgpu::level2`): every variant builds on
//! every target with at least 4 waves per SIMD, and LLVM's build of its text
//! (llvm-mc-19 + ld.lld-19) equals ours byte for byte (code, descriptor, metadata). Their results are checked on
//! the emulated devices through rocm-blas (`blas/tests/level2_emu.rs`). Skips the LLVM
//! part with a printed reason while the tools are missing.

use rocm_core::isa::amdgpu::IsaTarget;
use rocm_core::DType;
use rocm_kernels::amdgpu::level2::{gemv, trimv, trsv};
use rocm_kernels::amdgpu::AssembledKernel;
use rocm_kernels::level2::gemv::{GemvParams, GemvTrans};
use rocm_kernels::level2::trimv::{TriMvOp, TriMvParams};
use rocm_kernels::level2::trsv::TrsvParams;
use rocm_kernels::level2::Storage;
mod common;

use common::{agree, tools_present};

const DTYPES: [DType; 4] = [DType::F32, DType::F64, DType::C32, DType::C64];

/// Every gemv variant the host can ask for: each dtype and transpose, β read or not, `N`
/// split or not, and a small block with one row per work-item.
fn gemv_variants() -> Vec<GemvParams> {
    let mut v = Vec::new();
    for dtype in DTYPES {
        for trans in [GemvTrans::N, GemvTrans::T, GemvTrans::C] {
            for read_y in [false, true] {
                let f = GemvParams::fallback(dtype, trans, read_y);
                v.push(f.clone());
                v.push(GemvParams {
                    block: 64,
                    rows: 1,
                    split: !f.split,
                    ..f
                });
            }
        }
    }
    v
}

/// Every triangle-product variant: each op, storage, dtype, β read or not; the general
/// band ops (gbmv) and the windowed trmv of the blocked trsv's updates.
fn trimv_variants() -> Vec<TriMvParams> {
    let mut v = Vec::new();
    for dtype in DTYPES {
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
                if op.is_general() && storage != Storage::Band {
                    continue;
                }
                for read_y in [false, true] {
                    let f = TriMvParams::fallback(dtype, op, storage, read_y);
                    let triangular = matches!(op, TriMvOp::TrmvN | TriMvOp::TrmvT | TriMvOp::TrmvC);
                    if triangular && read_y && storage != Storage::Dense {
                        v.push(TriMvParams {
                            window: true,
                            ..f.clone()
                        });
                    }
                    v.push(f);
                }
            }
        }
    }
    v
}

/// Every program of every Level 2 generator with an AMDGPU back end, as kernel sets (one
/// code object each: the kernels of one program share names with other programs'), in
/// a fixed order.
fn programs(t: IsaTarget) -> Vec<(String, Vec<AssembledKernel>)> {
    let mut out = Vec::new();
    for p in gemv_variants() {
        let ks = gemv::generate(t, &p).unwrap_or_else(|e| panic!("{p:?} on {t}: {e}"));
        out.push((format!("{p:?}"), ks));
    }
    for dtype in DTYPES {
        // The host's block (64; Complex64 32) and the smaller ones the generator takes.
        for storage in [Storage::Dense, Storage::Packed, Storage::Band] {
            for block in [16, 32, 64] {
                let p = TrsvParams {
                    dtype,
                    storage,
                    block,
                };
                let k = trsv::generate(t, &p).unwrap_or_else(|e| panic!("{p:?} on {t}: {e}"));
                out.push((format!("{p:?}"), vec![k]));
            }
        }
    }
    for p in trimv_variants() {
        let k = trimv::generate(t, &p).unwrap_or_else(|e| panic!("{p:?} on {t}: {e}"));
        out.push((format!("{p:?}"), vec![k]));
    }
    out
}

#[test]
fn every_kernel_builds_on_every_target() {
    for t in IsaTarget::ALL {
        for (what, ks) in programs(t) {
            for k in &ks {
                assert!(!k.to_elf().unwrap().is_empty(), "{what} on {t}");
                assert!(k.report.occupancy >= 4, "{what} on {t}: {}", k.report);
            }
        }
    }
}

/// LLVM agrees on every program: gemv's on every target, the others each on two
/// targets (program `i` on targets `i mod 7` and `(i + 3) mod 7` of `IsaTarget::ALL`, a
/// wave64 and a wave32 one for six residues in seven), so every target meets many
/// programs while the llvm-mc runs stay few.
#[test]
fn every_kernel_matches_llvm() {
    if !tools_present() {
        println!("skipped: llvm-mc-19 / ld.lld-19 not installed");
        return;
    }
    let gemvs = gemv_variants().len();
    for (ti, t) in IsaTarget::ALL.into_iter().enumerate() {
        for (i, (_, ks)) in programs(t).into_iter().enumerate() {
            if i < gemvs || i % 7 == ti || (i + 3) % 7 == ti {
                agree(&ks);
            }
        }
    }
}

/// The assembler's hidden arguments (the grid's y count of the split gemv): placed after the explicit ones at an 8-byte boundary, named by kind in the
/// metadata; an explicit argument after one is an error.
#[test]
fn hidden_arguments_follow_the_explicit_ones() {
    use rocm_core::isa::amdgpu::codeobj::ValueKind;
    use rocm_kernels::amdgpu::Assembler;
    let t = IsaTarget::Gfx90a;
    let mut k = Assembler::new(t, "hidden", 64, 2).unwrap();
    k.arg_pointer("p").unwrap();
    k.arg_u32("n").unwrap();
    k.arg_hidden_u32("hidden_block_count_y").unwrap();
    k.wait_lgkm(0);
    k.s_endpgm();
    let built = k.finish().unwrap();
    let args = &built.kernel.metadata.args;
    assert_eq!(args.len(), 3);
    assert_eq!((args[2].offset, args[2].size), (16, 4));
    assert_eq!(
        args[2].value_kind,
        ValueKind::Other("hidden_block_count_y".into())
    );
    assert_eq!(built.resources.kernarg_bytes, 20);
    let mut k = Assembler::new(t, "late", 64, 1).unwrap();
    k.arg_hidden_u32("hidden_block_count_y").unwrap();
    k.arg_u32("n").unwrap();
    k.s_endpgm();
    let e = k.finish().unwrap_err();
    assert!(e.to_string().contains("follows a hidden argument"), "{e}");
}
