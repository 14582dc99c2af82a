//! Complex GEMM (Complex32, Complex64) on CUDA devices against the wide reference: every
//! one of the 9 op pairs (N, T, C), shapes of 0, 1, primes and non-multiples of the
//! real kernels' tiles up to ~200 (proptest, plus fixed cases), leading dimensions above
//! the rows, complex α and β (β = 0 over NaN-filled C, α = 0, β real and with an
//! imaginary part, β = 1), strided batches (odd strides) and arrays of matrices. Skipped,
//! with a printed reason, where no CUDA device is present. One test that runs anywhere:
//! complex GEMM on an emulated AMD device is `Unsupported`, not a panic.
//!
//! Tolerance: the GPU forms w = α·a (each part one product and one fused multiply-add,
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
use rocm_blas::{Blas, Scalar, Transpose};
use rocm_core::{Complex32, Complex64, Device, Error};

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

fn case_strategy() -> impl Strategy<Value = Case> {
    let dim = prop_oneof![
        Just(0usize),
        Just(1),
        Just(2),
        Just(7),
        Just(13),
        Just(31),
        Just(33),
        Just(64),
        Just(65),
        Just(127),
        Just(131),
        Just(200)
    ];
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
            .run(&(case_strategy(), any::<u64>()), |(c, s)| {
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

#[test]
fn complex_gemm_on_emulated_amd_is_unsupported() {
    let dev = Device::open("emu:gfx90a").unwrap();
    let blas = Blas::new(&dev);
    let (m, n, k) = (5, 4, 3);
    let a = dev.upload(&vec![Complex32::new(1.0, 2.0); m * k]).unwrap();
    let b = dev.upload(&vec![Complex32::new(0.5, -1.0); k * n]).unwrap();
    let mut c = dev.upload(&vec![Complex32::new(0.0, 0.0); m * n]).unwrap();
    let one = Complex32::new(1.0, 0.0);
    let res = blas.gemm(
        Transpose::N,
        Transpose::C,
        m,
        n,
        k,
        one,
        &a.as_slice(),
        m,
        &b.as_slice(),
        n,
        Complex32::new(0.0, 1.0),
        &mut c.as_slice_mut(),
        m,
    );
    match res {
        Err(Error::Unsupported { op, device }) => {
            assert!(
                op.contains("c32") || op.contains("C32") || op.contains("omplex"),
                "{op}"
            );
            assert!(device.contains("gfx90a"), "{device}");
        }
        other => panic!("complex GEMM on emu:gfx90a: {other:?}"),
    }
    let zb = dev.upload(&vec![Complex64::new(0.5, -1.0); k * n]).unwrap();
    let za = dev.upload(&vec![Complex64::new(1.0, 2.0); m * k]).unwrap();
    let mut zc = dev.upload(&vec![Complex64::new(0.0, 0.0); m * n]).unwrap();
    let res = blas.gemm_strided_batched(
        Transpose::T,
        Transpose::N,
        m,
        n,
        k,
        Complex64::new(1.0, 1.0),
        &za.as_slice(),
        k,
        0,
        &zb.as_slice(),
        k,
        0,
        Complex64::new(0.0, 0.0),
        &mut zc.as_slice_mut(),
        m,
        m * n,
        1,
    );
    assert!(matches!(res, Err(Error::Unsupported { .. })), "{res:?}");
}
