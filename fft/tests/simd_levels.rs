//! Every SIMD level of the CPU path ([`SimdLevel`]: one lane, AVX2, AVX-512's
//! registers) against the reference, on the sizes that pick each kind of kernel.
//!
//! The rest of the suite runs only the widest level this CPU has; the narrower ones
//! are the code other CPUs run. This binary holds one test, because the level limit
//! is process-wide ([`set_simd_limit`]).
//!
//! Bound: the issue's `4·ε·√max(1, log2 N)` (`16·ε·…` for convolution sizes) and at
//! most 1.5x rustfft's error on the same input (`common::check`); for a batch, the
//! root mean square of the transforms' relative L2 errors.

mod common;
use common::*;
use rocm_core::Device;
use rocm_fft::cpu::simd::{set_simd_limit, simd_level, SimdLevel};
use rocm_fft::{PlanBuilder, Precision, TransformType};

/// 1-D sizes and batch counts: radix passes of every fixed radix and a generic one,
/// the whole-transform kernels (in registers 16/32/64 and f32 48/72, through the
/// output 128/256/f64 144, lane codelets 24/27/f64 72), short first passes (40, 360), batch
/// tiles (2187), f32 nines (19683), Rader (101), Bluestein (1009) and a four-step
/// split (2^20 f64, 16 MiB).
const CASES: &[(usize, usize)] = &[
    (16, 3),
    (24, 5),
    (27, 3),
    (32, 2),
    (40, 3),
    (48, 7),
    (64, 2),
    (72, 5),
    (101, 2),
    (128, 3),
    (143, 2),
    (144, 3),
    (256, 2),
    (360, 3),
    (1009, 1),
    (2187, 3),
    (19683, 1),
];

#[test]
fn every_simd_level_matches_the_reference() {
    let dev = Device::cpu();
    let widest = simd_level();
    for level in [SimdLevel::Scalar, SimdLevel::Avx2, SimdLevel::Avx512] {
        if level > widest {
            println!("skipping {level:?}: this CPU's widest level is {widest:?}");
            continue;
        }
        set_simd_limit(level);
        assert_eq!(simd_level(), level);
        for &(n, batch) in CASES {
            for p in [Precision::F32, Precision::F64] {
                for fwd in [true, false] {
                    let kind = if fwd {
                        TransformType::ComplexForward
                    } else {
                        TransformType::ComplexInverse
                    };
                    let plan = PlanBuilder::new(kind, &[n])
                        .batch(batch)
                        .precision(p)
                        .build(&dev)
                        .unwrap();
                    let x = random_c(n * batch, (n * 7 + batch) as u64);
                    let x = if p == Precision::F64 { x } else { round32(&x) };
                    let (ours, peer) = batched_errors(&plan, &x, n, batch, fwd, p, false);
                    let what = format!("{level:?} n {n} batch {batch} {p} fwd {fwd}");
                    check(&what, ours, peer, p, n, plan.tree().uses_convolution());
                }
            }
        }
        // The axis passes of a 2-D plan (interleaved columns) and an f64 four-step.
        for (lens, p) in [
            (&[48usize, 72][..], Precision::F32),
            (&[24, 27, 16][..], Precision::F64),
            (&[1 << 20][..], Precision::F64),
        ] {
            let total: usize = lens.iter().product();
            let (ours, peer, blue) = c2c_errors(lens, total as u64, true, p);
            check(
                &format!("{level:?} {lens:?} {p}"),
                ours,
                peer,
                p,
                total,
                blue,
            );
        }
    }
}
