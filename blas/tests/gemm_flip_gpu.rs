//! GEMM on CUDA devices through catalog entries whose kernel reads the operands in
//! another layout than the call stores them (what `rocm-bench tune gemm --flip` may
//! enter): the call transposes those operands into the handle's workspace and runs
//! the entry's kernel. Every call layout (N, T and C for each operand) against every
//! other kernel layout, f32 SIMT (register-staged and cp.async ring) and f64 DMMA,
//! over sizes of 1, primes and non-multiples of the tiles, leading dimensions above
//! the rows, β = 0 over NaN, α = 0, k = 0, odd strided batches and arrays of matrices.
//! One binary of its own: installing a catalog is process-wide. Skipped, with a
//! printed reason, where no CUDA device is present.
//!
//! Tolerance: each element is a k-term dot product plus two scalings, so |error| <=
//! (k + 2)·u·(|α|·Σ|a||b| + |β||c|) (u = ε of the element type; `assert_close`). The
//! transposes copy values exactly.

mod common;

use common::gemm::{self, Call, Case, Coef};
use common::*;
use rand::RngCore;
use rocm_blas::{Scalar, Transpose};
use rocm_core::{DType, Device};
use rocm_kernels::catalog::{Catalog, Entry};
use rocm_kernels::gemm::{GemmInstruction, GemmParams};

/// One case against the reference: (k + 2)·u (module docs).
fn check<T: Scalar>(dev: &Device, c: Case, seed: u64) {
    gemm::check::<T>(dev, c, seed, (c.k + 2) as f64);
}

/// Coefficients of case `i`: α random and β = 0 over NaN, both random, or α = 0.
fn coefs(i: usize) -> (Coef, Coef) {
    [
        (Coef::Random, Coef::Zero),
        (Coef::Random, Coef::Random),
        (Coef::Zero, Coef::Random),
    ][i % 3]
}

/// A catalog whose entry for every call layout of `dtype` is `kernel` with the layout
/// `(ta, tb) ^ flip`: each call transposes the operands `flip` names.
fn install(dtype: DType, kernel: &GemmParams, flip: (bool, bool)) {
    let mut entries = Vec::new();
    for ta in [false, true] {
        for tb in [false, true] {
            let p = GemmParams {
                trans_a: ta ^ flip.0,
                trans_b: tb ^ flip.1,
                ..kernel.clone()
            };
            entries.push(Entry {
                generator: "gemm".into(),
                key: GemmParams::key(dtype, dtype, dtype, ta, tb),
                size: 1 << 20,
                shape: None,
                params: serde_json::to_value(&p).unwrap(),
            });
        }
    }
    Catalog::install(Catalog {
        source: "flipped layouts (test)".into(),
        entries,
    });
}

/// Edge sizes, then seeded random ones; every call layout, including conjugates.
fn cases(seed: u64) -> Vec<Case> {
    use Transpose::{C, N, T};
    let ops = [N, T, C];
    let mut out = Vec::new();
    let sizes = [
        (1, 1, 1),
        (1, 17, 3),
        (37, 1, 129),
        (67, 45, 0),
        (129, 65, 17),
        (64, 64, 64),
        (131, 257, 33),
    ];
    let call = |arrays: bool| if arrays { Call::Arrays } else { Call::Strided };
    for (i, &(m, n, k)) in sizes.iter().enumerate() {
        let (alpha, beta) = coefs(i);
        out.push(Case {
            ta: ops[i % 3],
            tb: ops[(i / 3 + i) % 3],
            m,
            n,
            k,
            pads: (i % 3, (i + 1) % 4, i % 2),
            alpha,
            beta,
            batch: 1 + i % 3,
            offset: 0,
            call: call(i % 4 == 3),
            tf32: false,
        });
    }
    let mut r = rng(seed);
    let mut pick = |n: u64| (r.next_u64() % n) as usize;
    for i in 0..18 {
        let (alpha, beta) = coefs(pick(3));
        out.push(Case {
            ta: ops[i % 3],
            tb: ops[(i / 3) % 3],
            m: 1 + pick(200),
            n: 1 + pick(200),
            k: pick(150),
            pads: (pick(4), pick(4), pick(4)),
            alpha,
            beta,
            batch: 1 + pick(3),
            offset: 0,
            call: call(pick(4) == 0),
            tf32: false,
        });
    }
    out
}

/// On an emulated AMD target the selection never flips: an entry of another layout is
/// skipped for the family's default, and the result is right.
fn amd_targets_ignore_flipped_entries() {
    let dev = Device::open("emu:gfx90a").unwrap();
    // The target's own MFMA kernel, so only the layout gate can refuse it: taken, the
    // call would stage transposes through the PTX transpose kernel, which an AMD device
    // cannot load, and fail.
    let isa = rocm_core::isa::amdgpu::IsaTarget::try_from(dev.target()).unwrap();
    let mfma = rocm_kernels::gemm::amdgpu::model::default_params(isa, DType::F32).unwrap();
    install(DType::F32, &mfma, (true, true));
    let c = Case {
        ta: Transpose::N,
        tb: Transpose::T,
        m: 19,
        n: 13,
        k: 7,
        pads: (1, 0, 2),
        alpha: Coef::Random,
        beta: Coef::Random,
        batch: 2,
        offset: 0,
        call: Call::Strided,
        tf32: false,
    };
    check::<f32>(&dev, c, 3);
    Catalog::uninstall();
}

#[test]
fn flipped_catalog_entries_match_reference() {
    // One test: the catalog is process-wide.
    amd_targets_ignore_flipped_entries();
    for dev in cuda_devices("the flipped-layout GEMM tests") {
        let simt = rocm_kernels::gemm::ptx::simt(DType::F32, 64, 4, false, false);
        let ring = GemmParams {
            tile_m: 128,
            tile_n: 64,
            tile_k: 32,
            warps_m: 2,
            warps_n: 2,
            instruction: GemmInstruction::Simt {
                thread_m: 8,
                thread_n: 8,
            },
            stages: 3,
            ..simt.clone()
        };
        let dmma = rocm_kernels::gemm::ptx::fallback(DType::F64, false, false).unwrap();
        for (f, flip) in [(false, true), (true, false), (true, true)]
            .into_iter()
            .enumerate()
        {
            for (v, kernel) in [&simt, &ring].into_iter().enumerate() {
                install(DType::F32, kernel, flip);
                for (i, c) in cases(f as u64).into_iter().enumerate() {
                    check::<f32>(&dev, c, (100 * f + 10 * v + i) as u64);
                }
            }
            install(DType::F64, &dmma, flip);
            for (i, c) in cases(7 + f as u64).into_iter().enumerate() {
                check::<f64>(&dev, c, (1000 + 100 * f + i) as u64);
            }
        }
        Catalog::uninstall();
    }
}
