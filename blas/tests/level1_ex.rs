//! fill, convert, copy/swap on f16/bf16, and the f16/bf16 `_ex` routines on the CPU
//! against `rocm_blas::reference` and the `half` crate: random data, lengths 0, 1, warp
//! and wave ± 1, primes, a few hundred and past the CPU's parallel chunk, increments
//! ±1..3, views at element offsets with their surroundings checked untouched.
//! Tolerances (derived from f16's unit roundoff 2⁻¹¹, bf16's 2⁻⁸ and f32's 2⁻²⁴): see
//! `check_half` in `common/level1.rs`; moves and conversions are bit-exact.

mod common;

use common::cuda_devices;

use common::level1::{check_routine, Case, Routine, DTYPES};
use proptest::prelude::*;
use rocm_blas::Blas;
use rocm_core::{DType, Device, Error};

/// The routines this file covers (the BLAS routines have `level1.rs`).
fn beyond_blas(routine: Routine) -> bool {
    matches!(
        routine,
        Routine::Copy
            | Routine::Swap
            | Routine::Fill
            | Routine::ConvertTo(_)
            | Routine::ScalEx
            | Routine::AxpyEx
            | Routine::AxpbyEx
            | Routine::AxpbyExBeta0
            | Routine::DotEx
            | Routine::Nrm2Ex
    )
}

fn lengths() -> impl Strategy<Value = usize> {
    prop_oneof![
        Just(0usize),
        Just(1),
        Just(2),
        Just(31),
        Just(33),
        Just(63),
        Just(65),
        Just(1009),
        0usize..400,
        Just((1 << 15) + 3),
    ]
}

fn incs() -> impl Strategy<Value = isize> {
    prop_oneof![
        Just(1isize),
        Just(1),
        Just(-1),
        Just(2),
        Just(-2),
        Just(3),
        Just(-3)
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]
    #[test]
    fn cpu_level1_ex_matches_reference(
        n in lengths(),
        incx in incs(),
        incy in incs(),
        offx in 0usize..3,
        offy in 0usize..3,
        seed in any::<u64>(),
    ) {
        let dev = Device::cpu();
        let case = Case { n, incx, incy, offx, offy, seed };
        for routine in Routine::ALL.into_iter().filter(|r| beyond_blas(*r)) {
            for dtype in DTYPES.into_iter().filter(|d| routine.applies(*d)) {
                check_routine(&dev, routine, dtype, case)
                    .unwrap_or_else(|e| panic!("{routine:?} {dtype} {case:?}: {e}"));
            }
        }
    }
}

#[test]
fn conversions_outside_the_table_are_unsupported() {
    let dev = Device::cpu();
    let blas = Blas::new(&dev);
    let x = dev.upload(&[1.0f64, 2.0]).unwrap();
    let mut y = dev.alloc::<half::f16>(2).unwrap();
    match blas.convert(2, &x.as_slice(), 1, &mut y.as_slice_mut(), 1) {
        Err(Error::Unsupported { op, .. }) => assert!(op.contains("f64 to f16"), "{op}"),
        other => panic!("{other:?}"),
    }
    // Argument checks name the argument.
    let mut z = dev.alloc::<f32>(2).unwrap();
    match blas.convert(2, &x.as_slice(), 0, &mut z.as_slice_mut(), 1) {
        Err(Error::InvalidArgument { what, .. }) => assert_eq!(what, "incx"),
        other => panic!("{other:?}"),
    }
    match blas.fill(3, 1.0f32, &mut z.as_slice_mut(), 1) {
        Err(Error::InvalidArgument { what, .. }) => assert_eq!(what, "x"),
        other => panic!("{other:?}"),
    }
}

/// nrm2_ex of bf16 values whose squares leave f32's range either way: the sum of squares
/// is taken where it cannot overflow or underflow.
#[test]
fn nrm2_ex_neither_overflows_nor_underflows() {
    use half::bf16;
    let dev = Device::cpu();
    let blas = Blas::new(&dev);
    for scale in [1e30f64, 1e-30] {
        let x: Vec<bf16> = (1..=4).map(|i| bf16::from_f64(i as f64 * scale)).collect();
        let want = x
            .iter()
            .map(|v| v.to_f64() * v.to_f64())
            .sum::<f64>()
            .sqrt();
        let got = blas
            .nrm2_ex(4, &dev.upload(&x).unwrap().as_slice(), 1)
            .unwrap() as f64;
        // One rounding of the root to f32 plus the f64 sum's: 2·2⁻²⁴ relative.
        assert!(
            (got - want).abs() <= 2.0 * 2f64.powi(-24) * want,
            "{got} vs {want}"
        );
    }
}

/// The dtype list covers what `applies` claims for each routine.
#[test]
fn every_routine_has_a_dtype() {
    for routine in Routine::ALL {
        assert!(
            DTYPES.iter().any(|d| routine.applies(*d)),
            "{routine:?} applies to no dtype"
        );
    }
    assert!(Routine::ConvertTo(DType::F16).applies(DType::F32));
    assert!(!Routine::ConvertTo(DType::F16).applies(DType::F64));
}

/// Every Level 1 routine × dtype (the BLAS ones, rotm, fill, conversions, f16/bf16) on
/// CUDA through the PTX kernels, at lengths that span several reduction grid sweeps.
#[test]
fn cuda_every_routine_matches_reference() {
    for dev in cuda_devices("the GPU Level 1 tests") {
        let mut seed = 0;
        for n in [0usize, 1, 31, 33, 1009, 65_537, 3_000_017] {
            for (incx, incy, offx, offy) in [
                (1isize, 1isize, 0usize, 0usize),
                (1, 1, 1, 3),
                (-2, 3, 0, 1),
            ] {
                seed += 1;
                let case = Case {
                    n,
                    incx,
                    incy,
                    offx,
                    offy,
                    seed,
                };
                for routine in Routine::ALL {
                    for dtype in DTYPES.into_iter().filter(|d| routine.applies(*d)) {
                        check_routine(&dev, routine, dtype, case).unwrap_or_else(|e| {
                            panic!("{routine:?} {dtype} {case:?} on {dev}: {e}")
                        });
                    }
                }
            }
        }
    }
}
