//! Complex GEMM (Complex32, Complex64) on CUDA devices against the wide reference: every
//! one of the 9 op pairs (N, T, C), shapes of 0, 1, primes and non-multiples of the
//! real kernels' tiles up to ~200 (proptest, plus fixed cases), leading dimensions above
//! the rows, complex α and β (β = 0 over NaN-filled C, α = 0, β real and with an
//! imaginary part, β = 1), strided batches (odd strides) and arrays of matrices. Skipped,
//! with a printed reason, where no CUDA device is present. On every emulated AMD target
//! (always present): every op pair at small sizes (1, primes, across the FMA kernel's
//! 64-wide tile), complex α and β (β = 0 over NaN, α = 0, k = 0, m or n = 0, β = 1),
//! strided batches and arrays of matrices.
//!
//! Tolerance (both families): the GPU forms w = α·a (each part one product and one fused multiply-add,
//! relative error ≤ 2u per part), then a real dot product of 2k terms, then adds β·c
//! (β real: one rounding; complex β: C scaled first, ≤ 2u per part). Each real term
//! |re w·re b| + |im w·im b| ≤ 2|w||b|, so per element
//! |error| ≤ 4·(2k + 6)·u·(|α|·Σ|a||b| + |β||c|) (u the real type's ε; `assert_close`
//! with 2k + 6 terms and its complex factor 4).

mod common;

use common::gemm::{self, Call, Case, Coef};
use common::*;
use proptest::prelude::*;
use proptest::test_runner::{Config, TestRunner};
use rocm_blas::{Scalar, Transpose};
use rocm_core::{Complex32, Complex64, Device};

/// One case against the reference: 2k + 6 terms (module docs).
fn check<T: Scalar>(dev: &Device, c: Case, seed: u64) {
    gemm::check::<T>(dev, c, seed, (2 * c.k + 6) as f64);
}

const OPS: [Transpose; 3] = [Transpose::N, Transpose::T, Transpose::C];

fn fixed_cases() -> Vec<Case> {
    let base = Case {
        ta: Transpose::N,
        tb: Transpose::N,
        m: 1,
        n: 1,
        k: 1,
        pads: (0, 0, 0),
        alpha: Coef::Random,
        beta: Coef::Random,
        batch: 1,
        offset: 0,
        call: Call::Strided,
        tf32: false,
    };
    let mut out = Vec::new();
    for ta in OPS {
        for tb in OPS {
            for (m, n, k) in [(1, 1, 1), (37, 61, 13), (129, 65, 67), (0, 5, 3), (4, 0, 2)] {
                out.push(Case {
                    ta,
                    tb,
                    m,
                    n,
                    k,
                    pads: (2, 1, 3),
                    ..base
                });
            }
        }
    }
    // Coefficients: β = 0 over NaN, α = 0, k = 0, β = 1, β real.
    for (alpha, beta, k) in [
        (Coef::Random, Coef::Zero, 19),
        (Coef::Zero, Coef::Random, 19),
        (Coef::Zero, Coef::Zero, 19),
        (Coef::Zero, Coef::Real, 19),
        (Coef::Random, Coef::Random, 0),
        (Coef::Random, Coef::Zero, 0),
        (Coef::Random, Coef::One, 19),
        (Coef::Real, Coef::Real, 19),
        (Coef::One, Coef::One, 0),
    ] {
        out.push(Case {
            ta: Transpose::C,
            tb: Transpose::T,
            m: 70,
            n: 33,
            k,
            alpha,
            beta,
            pads: (1, 0, 2),
            ..base
        });
    }
    for (batch, call, tb) in [
        (3, Call::Strided, Transpose::N),
        (4, Call::Strided, Transpose::C),
        (3, Call::Arrays, Transpose::T),
    ] {
        out.push(Case {
            ta: Transpose::T,
            tb,
            m: 45,
            n: 37,
            k: 29,
            batch,
            call,
            ..base
        });
    }
    out
}

/// Dimensions of the CUDA cases; the emulator takes the first `EMU_DIMS` (up to 33).
const DIMS: [usize; 12] = [0, 1, 2, 7, 13, 31, 33, 64, 65, 127, 131, 200];
const EMU_DIMS: usize = 7;

fn case_strategy(dims: &'static [usize]) -> impl Strategy<Value = Case> {
    let dim = proptest::sample::select(dims);
    let op = prop_oneof![Just(Transpose::N), Just(Transpose::T), Just(Transpose::C)];
    let coefs = prop_oneof![
        Just(Coef::Zero),
        Just(Coef::One),
        Just(Coef::Real),
        Just(Coef::Random),
        Just(Coef::Random)
    ];
    (
        (op.clone(), op),
        (dim.clone(), dim.clone(), dim),
        (0usize..4, 0usize..4, 0usize..4),
        (coefs.clone(), coefs),
        (1usize..4, any::<bool>()),
    )
        .prop_map(
            |((ta, tb), (m, n, k), pads, (alpha, beta), (batch, arrays))| Case {
                ta,
                tb,
                m,
                n,
                k,
                pads,
                alpha,
                beta,
                batch,
                offset: 0,
                call: if arrays { Call::Arrays } else { Call::Strided },
                tf32: false,
            },
        )
}

fn run_all<T: Scalar>(seed: u64) {
    for dev in cuda_devices("the complex GPU GEMM tests") {
        for (i, c) in fixed_cases().into_iter().enumerate() {
            check::<T>(&dev, c, seed + i as u64);
        }
        let mut runner = TestRunner::new(Config::with_cases(64));
        runner
            .run(&(case_strategy(&DIMS), any::<u64>()), |(c, s)| {
                check::<T>(&dev, c, s);
                Ok(())
            })
            .unwrap();
    }
}

#[test]
fn cgemm_gpu_matches_reference() {
    run_all::<Complex32>(1);
}

#[test]
fn zgemm_gpu_matches_reference() {
    run_all::<Complex64>(5000);
}

/// Small cases for the emulator: the real GEMM runs 2m × n × 2k.
fn emu_cases() -> Vec<Case> {
    let base = fixed_cases()[0];
    let mut out = Vec::new();
    for ta in OPS {
        for tb in OPS {
            for (m, n, k) in [(1, 1, 1), (5, 7, 3), (17, 9, 11)] {
                out.push(Case {
                    ta,
                    tb,
                    m,
                    n,
                    k,
                    pads: (2, 1, 3),
                    ..base
                });
            }
        }
    }
    // Across the 64-wide tiles of the FMA kernel (2m = 74 rows, 70 columns), and empty.
    for (ta, tb, (m, n, k)) in [
        (Transpose::N, Transpose::C, (37, 70, 5)),
        (Transpose::C, Transpose::N, (33, 65, 13)),
        (Transpose::T, Transpose::T, (0, 5, 3)),
        (Transpose::N, Transpose::N, (4, 0, 2)),
    ] {
        out.push(Case {
            ta,
            tb,
            m,
            n,
            k,
            pads: (1, 0, 2),
            ..base
        });
    }
    // Coefficients: β = 0 over NaN, α = 0, k = 0, β = 1, real α and β, complex β.
    for (alpha, beta, k) in [
        (Coef::Random, Coef::Zero, 7),
        (Coef::Zero, Coef::Random, 7),
        (Coef::Zero, Coef::Real, 7),
        (Coef::Random, Coef::Random, 0),
        (Coef::Random, Coef::Zero, 0),
        (Coef::Random, Coef::One, 7),
        (Coef::Real, Coef::Real, 7),
    ] {
        out.push(Case {
            ta: Transpose::C,
            tb: Transpose::T,
            m: 13,
            n: 6,
            k,
            alpha,
            beta,
            pads: (1, 0, 2),
            ..base
        });
    }
    for (batch, call, tb) in [
        (3, Call::Strided, Transpose::N),
        (2, Call::Strided, Transpose::C),
        (2, Call::Arrays, Transpose::T),
    ] {
        out.push(Case {
            ta: Transpose::T,
            tb,
            m: 11,
            n: 7,
            k: 5,
            batch,
            call,
            ..base
        });
    }
    out
}

#[test]
fn complex_gemm_on_emulated_amd_targets() {
    for dev in common::emu::emu_devices() {
        for (i, c) in emu_cases().into_iter().enumerate() {
            check::<Complex32>(&dev, c, 9000 + i as u64);
            check::<Complex64>(&dev, c, 9500 + i as u64);
        }
    }
}

/// Random small cases (dimensions 0 to 33, every op pair and coefficient kind,
/// batches and arrays), each on a random emulated target.
#[test]
fn random_complex_gemm_on_emulated_amd_targets() {
    let devs = common::emu::emu_devices();
    let mut runner = TestRunner::new(Config::with_cases(32));
    runner
        .run(
            &(
                case_strategy(&DIMS[..EMU_DIMS]),
                any::<u64>(),
                0..devs.len(),
                any::<bool>(),
            ),
            |(c, s, d, double)| {
                if double {
                    check::<Complex64>(&devs[d], c, s);
                } else {
                    check::<Complex32>(&devs[d], c, s);
                }
                Ok(())
            },
        )
        .unwrap();
}
