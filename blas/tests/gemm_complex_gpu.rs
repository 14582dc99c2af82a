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

use common::*;
use proptest::prelude::*;
use proptest::test_runner::{Config, TestRunner};
use rocm_blas::{reference, Blas, Scalar, Transpose};
use rocm_core::{Complex32, Complex64, Device, Error};

#[derive(Debug, Clone, Copy, PartialEq)]
enum Coef {
    Zero,
    One,
    /// Random real part, zero imaginary part.
    Real,
    /// Random real and imaginary parts.
    Complex,
}

fn coef<T: Scalar>(c: Coef, r: &mut Rng64) -> T {
    match c {
        Coef::Zero => T::zero(),
        Coef::One => T::one(),
        Coef::Real => T::from_parts(random::<T>(r).re(), num_traits::Zero::zero()),
        Coef::Complex => random(r),
    }
}

#[derive(Debug, Clone, Copy, PartialEq)]
enum Call {
    /// `gemm` (batch 1) or `gemm_strided_batched`.
    Strided,
    /// `gemm_batched`.
    Arrays,
}

#[derive(Debug, Clone, Copy)]
struct Case {
    ta: Transpose,
    tb: Transpose,
    m: usize,
    n: usize,
    k: usize,
    pads: (usize, usize, usize),
    alpha: Coef,
    beta: Coef,
    batch: usize,
    call: Call,
}

fn check<T: Scalar>(dev: &Device, c: Case, seed: u64) {
    let blas = Blas::new(dev);
    let mut r = rng(seed);
    let (m, n, k) = (c.m, c.n, c.k);
    let terms = (2 * k + 6) as f64;
    let (ar, ac) = c.ta.stored_dims(m, k);
    let (br, bc) = c.tb.stored_dims(k, n);
    let (lda, ldb, ldc) = (
        ar.max(1) + c.pads.0,
        br.max(1) + c.pads.1,
        m.max(1) + c.pads.2,
    );
    let (sa, sb, sc) = (lda * ac + 3, ldb * bc + 1, ldc * n + 2);
    let alpha: T = coef(c.alpha, &mut r);
    let beta: T = coef(c.beta, &mut r);
    let a: Vec<T> = random_vec(&mut r, sa * c.batch);
    let b: Vec<T> = random_vec(&mut r, sb * c.batch);
    let mut c0: Vec<T> = random_vec(&mut r, sc * c.batch);
    if c.beta == Coef::Zero {
        // β = 0 must not read C.
        let nan = <T::Real as num_traits::Float>::nan();
        c0.iter_mut().for_each(|x| *x = T::from_parts(nan, nan));
    }
    let what = format!("{}gemm {c:?} alpha {alpha:?} beta {beta:?}", T::PREFIX);
    let got: Vec<T> = match c.call {
        Call::Strided => {
            let (ad, bd) = (dev.upload(&a).unwrap(), dev.upload(&b).unwrap());
            let mut cd = dev.upload(&c0).unwrap();
            let (av, bv) = (ad.as_slice(), bd.as_slice());
            let mut cv = cd.as_slice_mut();
            let res = if c.batch == 1 {
                blas.gemm(
                    c.ta, c.tb, m, n, k, alpha, &av, lda, &bv, ldb, beta, &mut cv, ldc,
                )
            } else {
                blas.gemm_strided_batched(
                    c.ta, c.tb, m, n, k, alpha, &av, lda, sa, &bv, ldb, sb, beta, &mut cv, ldc, sc,
                    c.batch,
                )
            };
            res.unwrap_or_else(|e| panic!("{what}: {e}"));
            cd.to_vec().unwrap()
        }
        Call::Arrays => {
            let per = |v: &[T], s: usize, q: usize| v[q * s..(q + 1) * s].to_vec();
            let ads: Vec<_> = (0..c.batch)
                .map(|q| dev.upload(&per(&a, sa, q)).unwrap())
                .collect();
            let bds: Vec<_> = (0..c.batch)
                .map(|q| dev.upload(&per(&b, sb, q)).unwrap())
                .collect();
            let mut cds: Vec<_> = (0..c.batch)
                .map(|q| dev.upload(&per(&c0, sc, q)).unwrap())
                .collect();
            let av: Vec<_> = ads.iter().map(|d| d.as_slice()).collect();
            let bv: Vec<_> = bds.iter().map(|d| d.as_slice()).collect();
            let mut cv: Vec<_> = cds.iter_mut().map(|d| d.as_slice_mut()).collect();
            blas.gemm_batched(
                c.ta, c.tb, m, n, k, alpha, &av, lda, &bv, ldb, beta, &mut cv, ldc,
            )
            .unwrap_or_else(|e| panic!("{what}: {e}"));
            let mut out = Vec::new();
            for d in &cds {
                out.extend(d.to_vec().unwrap());
            }
            out
        }
    };
    for q in 0..c.batch {
        let (want, mag) = reference::gemm(
            c.ta,
            c.tb,
            m,
            n,
            k,
            alpha,
            &a[q * sa..],
            lda,
            &b[q * sb..],
            ldb,
            beta,
            &c0[q * sc..],
            ldc,
        );
        for j in 0..n {
            for i in 0..m {
                assert_close(
                    got[q * sc + i + j * ldc],
                    want[i + j * m],
                    mag[i + j * m],
                    terms,
                    &format!("{what} batch {q} ({i},{j})"),
                );
            }
            // Rows between m and ldc (and the slack between problems) stay untouched.
            for i in m..ldc.min(sc - j * ldc) {
                let (g, o) = (got[q * sc + i + j * ldc], c0[q * sc + i + j * ldc]);
                assert!(
                    g == o || (g.has_nan() && o.has_nan()),
                    "{what}: wrote outside C at batch {q} ({i},{j})"
                );
            }
        }
    }
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
        alpha: Coef::Complex,
        beta: Coef::Complex,
        batch: 1,
        call: Call::Strided,
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
        (Coef::Complex, Coef::Zero, 19),
        (Coef::Zero, Coef::Complex, 19),
        (Coef::Zero, Coef::Zero, 19),
        (Coef::Zero, Coef::Real, 19),
        (Coef::Complex, Coef::Complex, 0),
        (Coef::Complex, Coef::Zero, 0),
        (Coef::Complex, Coef::One, 19),
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
        Just(Coef::Complex),
        Just(Coef::Complex)
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
                call: if arrays { Call::Arrays } else { Call::Strided },
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
