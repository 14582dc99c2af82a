//! Level 1 on every emulated AMD target (the AMDGPU code objects through `Blas`) against
//! `rocm_blas::reference`: random data, lengths 0, 1, wave ± 1, primes and up to a couple
//! of thousand, increments ±1..3, views at element offsets 0..2 (so 16-byte misaligned
//! views take the strided kernel) with the surrounding elements checked untouched.
//! Tolerances: see `common/level1.rs`.
//!
//! [`ON_EMU`] lists the (routine, dtype) pairs that have AMDGPU kernels; every other pair
//! must answer `Unsupported` ([`missing_kernels_are_unsupported`]), so when a kernel
//! lands that test fails until the pair joins the table: nothing is skipped silently.

mod common;

use common::emu::EMU_TARGETS;

use common::level1::{check_routine, Case, Routine, BLAS_DTYPES, DTYPES};
use proptest::prelude::*;
use rocm_blas::{Blas, Transpose};
use rocm_core::{DType, Device, Error};

/// The (routine, dtype) pairs the AMDGPU kernels cover today: every BLAS routine on the
/// four BLAS types, fill, the six conversions, and copy/swap/fill and the `_ex` routines
/// on f16 and bf16.
const ON_EMU: &[(Routine, DType)] = &[
    (Routine::Scal, DType::F32),
    (Routine::Scal, DType::F64),
    (Routine::Scal, DType::C32),
    (Routine::Scal, DType::C64),
    (Routine::Axpy, DType::F32),
    (Routine::Axpy, DType::F64),
    (Routine::Axpy, DType::C32),
    (Routine::Axpy, DType::C64),
    (Routine::Axpby, DType::F32),
    (Routine::Axpby, DType::F64),
    (Routine::Axpby, DType::C32),
    (Routine::Axpby, DType::C64),
    (Routine::AxpbyBeta0, DType::F32),
    (Routine::AxpbyBeta0, DType::F64),
    (Routine::AxpbyBeta0, DType::C32),
    (Routine::AxpbyBeta0, DType::C64),
    (Routine::Copy, DType::F32),
    (Routine::Copy, DType::F64),
    (Routine::Copy, DType::C32),
    (Routine::Copy, DType::C64),
    (Routine::Swap, DType::F32),
    (Routine::Swap, DType::F64),
    (Routine::Swap, DType::C32),
    (Routine::Swap, DType::C64),
    (Routine::Dot, DType::F32),
    (Routine::Dot, DType::F64),
    (Routine::Dot, DType::C32),
    (Routine::Dot, DType::C64),
    (Routine::Dotc, DType::F32),
    (Routine::Dotc, DType::F64),
    (Routine::Dotc, DType::C32),
    (Routine::Dotc, DType::C64),
    (Routine::Sum, DType::F32),
    (Routine::Sum, DType::F64),
    (Routine::Sum, DType::C32),
    (Routine::Sum, DType::C64),
    (Routine::Asum, DType::F32),
    (Routine::Asum, DType::F64),
    (Routine::Asum, DType::C32),
    (Routine::Asum, DType::C64),
    (Routine::Nrm2, DType::F32),
    (Routine::Nrm2, DType::F64),
    (Routine::Nrm2, DType::C32),
    (Routine::Nrm2, DType::C64),
    (Routine::Iamax, DType::F32),
    (Routine::Iamax, DType::F64),
    (Routine::Iamax, DType::C32),
    (Routine::Iamax, DType::C64),
    (Routine::Iamin, DType::F32),
    (Routine::Iamin, DType::F64),
    (Routine::Iamin, DType::C32),
    (Routine::Iamin, DType::C64),
    (Routine::Rot, DType::F32),
    (Routine::Rot, DType::F64),
    (Routine::Rot, DType::C32),
    (Routine::Rot, DType::C64),
    (Routine::Rotm, DType::F32),
    (Routine::Rotm, DType::F64),
    (Routine::Fill, DType::F32),
    (Routine::Fill, DType::F64),
    (Routine::Fill, DType::C32),
    (Routine::Fill, DType::C64),
    (Routine::ConvertTo(DType::F16), DType::F32),
    (Routine::ConvertTo(DType::F32), DType::F16),
    (Routine::ConvertTo(DType::Bf16), DType::F32),
    (Routine::ConvertTo(DType::F32), DType::Bf16),
    (Routine::ConvertTo(DType::F32), DType::F64),
    (Routine::ConvertTo(DType::F64), DType::F32),
    (Routine::Copy, DType::F16),
    (Routine::Copy, DType::Bf16),
    (Routine::Swap, DType::F16),
    (Routine::Swap, DType::Bf16),
    (Routine::Fill, DType::F16),
    (Routine::Fill, DType::Bf16),
    (Routine::ScalEx, DType::F16),
    (Routine::ScalEx, DType::Bf16),
    (Routine::AxpyEx, DType::F16),
    (Routine::AxpyEx, DType::Bf16),
    (Routine::AxpbyEx, DType::F16),
    (Routine::AxpbyEx, DType::Bf16),
    (Routine::AxpbyExBeta0, DType::F16),
    (Routine::AxpbyExBeta0, DType::Bf16),
    (Routine::DotEx, DType::F16),
    (Routine::DotEx, DType::Bf16),
    (Routine::Nrm2Ex, DType::F16),
    (Routine::Nrm2Ex, DType::Bf16),
];

fn on_emu(routine: Routine, dtype: DType) -> bool {
    ON_EMU.contains(&(routine, dtype))
}

/// The emulated device, or None with a printed reason when the emulator is absent.
fn emu(target: &str) -> Option<Device> {
    match Device::open(&format!("emu:{target}")) {
        Ok(d) => Some(d),
        Err(e @ Error::Unsupported { .. }) => {
            println!("skipped: emu:{target}: {e}");
            None
        }
        Err(e) => panic!("emu:{target}: {e}"),
    }
}

/// 0, 1, wave32/64 ± 1, primes, a few hundred, a couple of thousand.
fn lengths() -> impl Strategy<Value = usize> {
    prop_oneof![
        Just(0usize),
        Just(1),
        Just(2),
        Just(3),
        Just(31),
        Just(33),
        Just(63),
        Just(65),
        Just(127),
        Just(257),
        Just(1009),
        Just(2053),
        0usize..400,
    ]
}

fn incs() -> impl Strategy<Value = isize> {
    prop_oneof![
        Just(1isize),
        Just(1),
        Just(1),
        Just(-1),
        Just(2),
        Just(-2),
        Just(3),
        Just(-3)
    ]
}

macro_rules! emu_props {
    ($name:ident, $target:literal) => {
        proptest! {
            #![proptest_config(ProptestConfig::with_cases(40))]
            #[test]
            fn $name(
                n in lengths(),
                incx in incs(),
                incy in incs(),
                offx in 0usize..3,
                offy in 0usize..3,
                seed in any::<u64>(),
            ) {
                let Some(dev) = emu($target) else { return Ok(()) };
                let case = Case { n, incx, incy, offx, offy, seed };
                for &(routine, dtype) in ON_EMU {
                    check_routine(&dev, routine, dtype, case)
                        .unwrap_or_else(|e| panic!("{routine:?} {dtype} {case:?} on {dev}: {e}"));
                }
            }
        }
    };
}
emu_props!(gfx908_level1_matches_reference, "gfx908");
emu_props!(gfx90a_level1_matches_reference, "gfx90a");
emu_props!(gfx942_level1_matches_reference, "gfx942");
emu_props!(gfx1100_level1_matches_reference, "gfx1100");
emu_props!(gfx1101_level1_matches_reference, "gfx1101");
emu_props!(gfx1102_level1_matches_reference, "gfx1102");
emu_props!(gfx1151_level1_matches_reference, "gfx1151");

/// Every applicable pair outside [`ON_EMU`], contiguous and strided, answers
/// `Unsupported` naming the routine and the device; n = 0 is a successful no-op.
#[test]
fn missing_kernels_are_unsupported() {
    for target in EMU_TARGETS {
        let Some(dev) = emu(target) else { continue };
        for routine in Routine::ALL {
            for dtype in DTYPES {
                if !routine.applies(dtype) || on_emu(routine, dtype) {
                    continue;
                }
                for (inc, off) in [(1isize, 0usize), (2, 1)] {
                    let case = Case {
                        n: 5,
                        incx: inc,
                        incy: inc,
                        offx: off,
                        offy: off,
                        // Not 3 mod 4: rotm's flag is then not the identity's.
                        seed: 7 * 4 + 1,
                    };
                    match check_routine(&dev, routine, dtype, case) {
                        Err(Error::Unsupported { op, device }) => {
                            assert!(op.starts_with("blas "), "{op}");
                            assert_eq!(device, dev.id(), "{op}");
                        }
                        other => panic!(
                            "{routine:?} {dtype} inc={inc} on {dev}: {other:?}; a kernel \
                             landed? add the pair to ON_EMU"
                        ),
                    }
                    let empty = Case { n: 0, ..case };
                    check_routine(&dev, routine, dtype, empty).unwrap();
                }
            }
        }
    }
}

/// Reductions longer than one sweep of the catalog grid (gfx1102: 64 workgroups of
/// 256 × 4 units, a unit a 16-byte vector when contiguous, an element when strided): the
/// kernels loop, and the host sums exactly the partials written.
#[test]
fn reductions_loop_over_the_grid() {
    let Some(dev) = emu("gfx1102") else { return };
    let sweep = 64 * 256 * 4;
    for dtype in BLAS_DTYPES {
        let contiguous = sweep * (16 / dtype.size()) + 7;
        for (n, inc, off) in [(contiguous, 1isize, 0usize), (sweep + 11, -2, 1)] {
            for routine in [
                Routine::Dot,
                Routine::Dotc,
                Routine::Sum,
                Routine::Asum,
                Routine::Nrm2,
                Routine::Iamax,
                Routine::Iamin,
            ] {
                let case = Case {
                    n,
                    incx: inc,
                    incy: 1,
                    offx: off,
                    offy: 0,
                    seed: n as u64,
                };
                check_routine(&dev, routine, dtype, case).unwrap();
            }
        }
    }
}

/// The kernels address with 64-bit byte offsets on every target: increments of 2³⁰,
/// ±2³¹ and beyond run (one element: only element 0 is touched).
#[test]
fn increments_beyond_32_bits_run() {
    let Some(dev) = emu("gfx90a") else { return };
    let blas = Blas::new(&dev);
    let mut x = dev.upload(&[1.0f32, 2.0]).unwrap();
    for inc in [1isize << 30, 1 << 31, -(1 << 31), 1 << 40] {
        blas.scal(1, 2.0, &mut x.as_slice_mut(), inc).unwrap();
    }
    assert_eq!(x.to_vec().unwrap(), vec![16.0, 2.0]);
}

/// Routines without GPU kernels still answer `Unsupported` naming themselves and the
/// device now that the emulated devices dispatch Level 1 to kernels.
#[test]
fn routines_without_kernels_stay_unsupported() {
    let Some(dev) = emu("gfx942") else { return };
    let blas = Blas::new(&dev);
    // Integer GEMM has kernels on no GPU (every Level 2 routine now runs on AMD).
    let a = dev.upload(&[1i8; 4]).unwrap();
    let mut c = dev.upload(&[0i32; 4]).unwrap();
    let err = blas
        .gemm_ex::<i8, i32>(
            Transpose::N,
            Transpose::N,
            2,
            2,
            2,
            1,
            &a.as_slice(),
            2,
            &a.as_slice(),
            2,
            0,
            &mut c.as_slice_mut(),
            2,
        )
        .unwrap_err();
    match err {
        Error::Unsupported { op, device } => {
            assert!(op.contains("gemm_ex with i8"), "{op}");
            assert_eq!(device, dev.id());
        }
        other => panic!("{other:?}"),
    }
}

/// The per-target catalogs resolve every reduction to a valid variant with the static
/// model's grid (CUs × workgroups per CU).
#[test]
fn catalogs_give_each_target_its_grid() {
    use rocm_kernels::catalog::Catalog;
    use rocm_kernels::level1::{L1Op, Level1Params};
    for (target, grid) in [
        ("gfx908", 960),
        ("gfx90a", 880),
        ("gfx942", 2432),
        ("gfx1100", 192),
        ("gfx1101", 120),
        ("gfx1102", 64),
        ("gfx1151", 80),
    ] {
        let t = target.parse().unwrap();
        for op in [
            L1Op::Dot { conj: false },
            L1Op::Dot { conj: true },
            L1Op::Sum,
            L1Op::Asum,
            L1Op::Nrm2,
            L1Op::Iamax { max: true },
            L1Op::Iamax { max: false },
        ] {
            for dtype in [
                DType::F32,
                DType::F64,
                DType::C32,
                DType::C64,
                DType::F16,
                DType::Bf16,
            ] {
                for contiguous in [true, false] {
                    let key = Level1Params::key(op, dtype, contiguous);
                    let mut fallback = Level1Params::fallback(op, dtype, contiguous);
                    fallback.grid = 0;
                    let p = Catalog::for_target(&t).select("level1", &key, 1 << 20, fallback);
                    assert_eq!(p.grid, grid, "{target} {key}");
                    assert_eq!(
                        (p.op, p.dtype, p.contiguous),
                        (op, dtype, contiguous),
                        "{key}"
                    );
                }
            }
        }
    }
}
