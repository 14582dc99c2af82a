//! Every default NVIDIA GEMM variant assembles with `ptxas` for sm_80 and sm_90a:
//! no warnings, no spills, no stack, the declared shared memory, and a register count
//! that keeps at least one block resident (printed, so a change shows in the log).
//!
//! Numerical correctness is tested on CUDA devices by rocm-blas's `gemm_gpu` tests.

use rocm_core::{ModuleImage, Target};
use rocm_kernels::gemm::{ptx, Gemm, GemmInstruction};
use rocm_kernels::generator::Generator;
use rocm_kernels::ptxas::{Ptxas, HOW_TO_GET};

#[test]
fn every_default_variant_passes_ptxas() {
    let Some(ptxas) = Ptxas::find() else {
        eprintln!("skipped: ptxas not found ({HOW_TO_GET})");
        return;
    };
    let variants = ptx::default_variants();
    assert!(variants.len() >= 8, "f32 and f64, every transpose");
    for target in ["sm_80", "sm_90a"] {
        let target: Target = target.parse().unwrap();
        for p in &variants {
            let prog = Gemm::generate(p, &target).unwrap_or_else(|e| panic!("{p:?}: {e}"));
            let ModuleImage::Ptx(text) = &prog.image else {
                panic!("{p:?}: not PTX")
            };
            let report = ptxas
                .compile(text, &target)
                .unwrap_or_else(|e| panic!("{p:?} on {target}: {e}"));
            assert!(report.warnings.is_empty(), "{p:?}: {:?}", report.warnings);
            let k = report.kernel(ptx::KERNEL).unwrap();
            assert_eq!(k.spill_loads + k.spill_stores, 0, "{p:?} spills");
            assert_eq!(k.stack_bytes, 0, "{p:?} uses a stack frame");
            let threads = p.threads(&target);
            // 64 Ki registers per SM: one block of `threads` must fit, at most 255 each.
            assert!(
                k.registers <= 255 && k.registers * threads <= 65536,
                "{p:?}: {} registers × {threads} threads",
                k.registers
            );
            assert!(
                k.shared_bytes <= 48 * 1024,
                "{p:?}: {} bytes",
                k.shared_bytes
            );
            let GemmInstruction::Simt { thread_m, thread_n } = p.instruction else {
                continue;
            };
            eprintln!(
                "{target} {}{} {} {}x{}x{} {}x{} warps, {thread_m}x{thread_n}/thread, {} stages: {} registers, {} B shared",
                if p.trans_a { 'T' } else { 'N' },
                if p.trans_b { 'T' } else { 'N' },
                p.ab,
                p.tile_m,
                p.tile_n,
                p.tile_k,
                p.warps_m,
                p.warps_n,
                p.stages,
                k.registers,
                k.shared_bytes
            );
        }
    }
}

#[test]
fn unsupported_types_and_families_are_errors() {
    let sm90: Target = "sm_90a".parse().unwrap();
    assert!(ptx::fallback(rocm_core::DType::C32, false, false).is_err());
    let mut p = ptx::fallback(rocm_core::DType::F32, false, false).unwrap();
    p.ab = rocm_core::DType::F16;
    assert!(Gemm::generate(&p, &sm90).is_err());
    let mut p = ptx::fallback(rocm_core::DType::F32, true, true).unwrap();
    p.instruction = GemmInstruction::Mfma { m: 32, n: 32, k: 8 };
    assert!(Gemm::generate(&p, &sm90).is_err());
}
