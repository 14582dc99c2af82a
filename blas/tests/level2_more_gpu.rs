//! GPU Level 2 beyond gemv on CUDA against independent f64 (Complex64) references: the
//! rank updates ger/geru/gerc, syr/her, syr2/her2, spr/hpr, spr2/hpr2; the products
//! symv/hemv, spmv/hpmv, sbmv/hbmv, trmv, tpmv, tbmv (bandwidths 0, 1, 5, 40); and trsv,
//! tpsv, tbsv; gbmv. Every dtype, uplo, trans and diag, sizes
//! 0, 1, 2, primes up to a few hundred (and 1031 for the blocked trsv), lda > rows,
//! increments ±1 and ±3, α and β random, one, or zero (β = 0: y holds NaN that must not
//! be read; α = 0 with NaN in A, which must not be read either). Storage a routine must
//! not write (the other triangle, the rows past m below each column, the gaps of strided
//! vectors) is compared exactly. CUDA tests skip with a printed reason without a device;
//! the same harness runs on the CPU device here, so the oracle itself is checked. The
//! checks live in `common::level2`; `level2_emu.rs` runs them on the emulated AMD devices.
//!
//! Tolerances (ε the dtype's epsilon; `assert_close` multiplies by 4 for complex):
//! - rank updates: one product and one or two fused additions per element:
//!   4ε·(|a| + |α||x||y| (+ |α||y||x|)).
//! - symv/hemv/spmv/hpmv/sbmv/hbmv/trmv/tpmv/tbmv: (n + 66)·ε·(|α|·Σ|a||x| + |β||y|): the kernel adds
//!   each output's n products in a tree of depth at most n + 64 (`rocm_kernels::level2::
//!   trimv`), plus the α and β roundings.
//! - trsv/tpsv/tbsv (the last two on the packed or band storage itself), by residual on
//!   diagonally dominant A:
//!   |op(A)·x̂ − b| ≤ (2n + 8)·ε·(|op(A)||x̂| + |b|): blocked substitution (each block
//!   one forward substitution, each later row one gemv update per block) is backward
//!   stable with about twice the unblocked constant (Higham, §8.3).

mod common;

use common::level2::*;
use common::*;
use rocm_blas::Uplo;
use rocm_core::{Complex32, Device};

#[test]
fn level2_more_f32_cuda_matches_reference() {
    for dev in cuda_devices("the GPU Level 2 tests") {
        all_cases::<f32>(&dev, 1);
    }
}

#[test]
fn level2_more_f64_cuda_matches_reference() {
    for dev in cuda_devices("the GPU Level 2 tests") {
        all_cases::<f64>(&dev, 2);
    }
}

#[test]
fn level2_more_c32_cuda_matches_reference() {
    for dev in cuda_devices("the GPU Level 2 tests") {
        all_cases::<Complex32>(&dev, 3);
    }
}

#[test]
fn level2_more_c64_cuda_matches_reference() {
    for dev in cuda_devices("the GPU Level 2 tests") {
        all_cases::<num_complex::Complex<f64>>(&dev, 4);
    }
}

/// Many diagonal blocks (1031 = 16·64 + 7; 32 blocks of 32 + 7 for Complex64), lda > n.
#[test]
fn blocked_trsv_and_large_products_cuda_match_reference() {
    for dev in cuda_devices("the GPU Level 2 tests") {
        tri_cases::<f32>(&dev, 5, &[1031]);
        tri_cases::<f64>(&dev, 6, &[1031]);
        tri_cases::<num_complex::Complex<f64>>(&dev, 7, &[1031]);
        for uplo in Uplo::ALL {
            check_sym::<f64>(&dev, SymRoutine::Symv, uplo, 1031, 3, (1, -1), (2, 2), 8);
            check_sym::<Complex32>(&dev, SymRoutine::Hemv, uplo, 1031, 0, (-3, 1), (2, 0), 9);
            check_rank::<f32>(&dev, R::Her2, uplo, (1031, 1031), 1, (1, -3), 10);
        }
        check_rank::<num_complex::Complex<f64>>(
            &dev,
            R::Gerc,
            Uplo::Upper,
            (1031, 517),
            2,
            (-1, 3),
            11,
        );
    }
}

/// The harness (references, tolerances, untouched storage) on the CPU path, so the CUDA
/// tests compare against a checked oracle even where they skip. Smaller sizes keep it
/// quick.
#[test]
fn harness_accepts_the_cpu_path() {
    let dev = Device::cpu();
    all_cases::<f32>(&dev, 21);
    all_cases::<Complex32>(&dev, 22);
    tri_cases::<f64>(&dev, 23, &[300]);
}
