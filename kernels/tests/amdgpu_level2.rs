//! The AMDGPU Level 2 kernels (`rocm_kernels::amdgpu::level2`): every variant builds on
//! every target, and LLVM's build of its text (llvm-mc-19 + ld.lld-19) equals ours byte
//! for byte (code, descriptor, metadata) on every target. Their results are checked on
//! the emulated devices through rocm-blas (`blas/tests/level2_emu.rs`). Skips the LLVM
//! part with a printed reason while the tools are missing.

use rocm_core::isa::amdgpu::IsaTarget;
use rocm_core::DType;
use rocm_kernels::amdgpu::level2::gemv;
use rocm_kernels::amdgpu::AssembledKernel;
use rocm_kernels::level2::gemv::{GemvParams, GemvTrans};
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

/// Every program of every Level 2 generator with an AMDGPU back end, as kernel sets (one
/// code object each: the kernels of one program share names with other programs').
fn programs(t: IsaTarget) -> Vec<(String, Vec<AssembledKernel>)> {
    gemv_variants()
        .into_iter()
        .map(|p| {
            let ks = gemv::generate(t, &p).unwrap_or_else(|e| panic!("{p:?} on {t}: {e}"));
            (format!("{p:?}"), ks)
        })
        .collect()
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

#[test]
fn every_kernel_matches_llvm_on_every_target() {
    if !tools_present() {
        println!("skipped: llvm-mc-19 / ld.lld-19 not installed");
        return;
    }
    for t in IsaTarget::ALL {
        for (_, ks) in programs(t) {
            agree(&ks);
        }
    }
}
