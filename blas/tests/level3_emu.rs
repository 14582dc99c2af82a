//! Level 3 on the emulated AMD devices (trsm, trmm, syrk/herk, syr2k/her2k, symm/hemm,
//! trtri) against `rocm_blas::reference`, through the checks shared with the CPU and
//! CUDA tests (`common/level3.rs`, which states the tolerances: (k + 2)·ε·Σ|terms| for
//! the products, × 4 for complex arithmetic; trsm and trtri by residual with κ = 3 on
//! the diagonally dominant test triangles, whose diagonal blocks the GPU inverts).
//!
//! Every side/uplo/trans/diag combination runs, rotating over the emulated targets
//! (`common/emu.rs`), so each routine covers every target for every type in every run. Sizes stay small for the emulator but
//! cross the 64-blocks trsm inverts (65, 66, 70), with odd sizes, 1, leading dimensions
//! above the rows, and α/β of 0 (β = 0 over NaN in C), 1 and random values; proptest
//! adds random shapes from 0 to 70 (with 0, 1, 2, 31, 64, 65 favoured) and flags.

mod common;

use common::emu::emu_devices;
use common::level3::*;
use proptest::prelude::*;
use rocm_blas::{Diag, Scalar, Side, Transpose, Uplo};
use rocm_core::{Complex32, Complex64};

/// The GPU trsm's κ for the diagonally dominant test matrices.
const KAPPA: f64 = 3.0;

const COEFS: [Coef; 3] = [Coef::Random, Coef::One, Coef::Zero];

/// (m, n) of trsm/trmm: 1, odd, one 64-block ± and two blocks, both sides' orders.
const TRI_DIMS: [(usize, usize); 7] =
    [(1, 1), (7, 3), (65, 5), (3, 66), (70, 9), (13, 1), (33, 70)];

/// (n, k) of the rank-k updates (one diagonal block of the 512 the GPU uses, tiles of
/// 32 crossed): k = 0 is β·C only.
const RANK_K_DIMS: [(usize, usize); 6] = [(1, 1), (5, 0), (33, 7), (64, 3), (70, 65), (17, 40)];

/// (m, n) of symm/hemm.
const SYMM_DIMS: [(usize, usize); 5] = [(1, 1), (1, 9), (33, 2), (66, 5), (7, 70)];

fn tri_all<T: Scalar>(solve: bool) {
    let runs = emu_devices();
    let mut q = 0usize;
    for side in Side::ALL {
        for uplo in Uplo::ALL {
            for tr in Transpose::ALL {
                for diag in Diag::ALL {
                    let Some(dev) = runs.get(q % runs.len().max(1)) else {
                        break;
                    };
                    let dims = TRI_DIMS[q % TRI_DIMS.len()];
                    let pads = (q % 3, (q + 1) % 4);
                    let args = (side, uplo, tr, diag);
                    let seed = 100 * u64::from(solve) + q as u64;
                    check_tri::<T>(dev, KAPPA, solve, args, dims, pads, COEFS[q % 3], seed);
                    q += 1;
                }
            }
        }
    }
}

fn rank_k_all<T: Scalar>(two: bool) {
    let runs = emu_devices();
    let mut q = 0usize;
    for hermitian in [false, true] {
        for uplo in Uplo::ALL {
            for tr in Transpose::ALL {
                if T::IS_COMPLEX
                    && tr
                        == if hermitian {
                            Transpose::T
                        } else {
                            Transpose::C
                        }
                {
                    continue;
                }
                let Some(dev) = runs.get(q % runs.len().max(1)) else {
                    return;
                };
                let dims = RANK_K_DIMS[q % RANK_K_DIMS.len()];
                let coefs = (COEFS[q % 3], COEFS[(q / 3 + 1) % 3]);
                let pads = (q % 2, (q + 1) % 3);
                let seed = 300 + 50 * u64::from(two) + q as u64;
                check_rank_k::<T>(dev, two, hermitian, uplo, tr, dims, pads, coefs, seed);
                q += 1;
            }
        }
    }
}

fn symm_all<T: Scalar>() {
    let runs = emu_devices();
    let mut q = 0usize;
    for hermitian in [false, true] {
        for side in Side::ALL {
            for uplo in Uplo::ALL {
                for _ in 0..2 {
                    let Some(dev) = runs.get(q % runs.len().max(1)) else {
                        return;
                    };
                    let dims = SYMM_DIMS[q % SYMM_DIMS.len()];
                    let coefs = (COEFS[q % 3], COEFS[(q / 3 + 1) % 3]);
                    let pads = (q % 3, (q + 1) % 2, (q + 2) % 3);
                    check_symm::<T>(
                        dev,
                        hermitian,
                        side,
                        uplo,
                        dims,
                        pads,
                        coefs,
                        500 + q as u64,
                    );
                    q += 1;
                }
            }
        }
    }
}

fn trtri_all<T: Scalar>() {
    let runs = emu_devices();
    let mut q = 0usize;
    for uplo in Uplo::ALL {
        for diag in Diag::ALL {
            for (n, pads) in [(1, (0, 0)), (5, (2, 1)), (64, (1, 0)), (70, (0, 3))] {
                let Some(dev) = runs.get(q % runs.len().max(1)) else {
                    return;
                };
                check_trtri::<T>(dev, KAPPA, (uplo, diag), n, pads, 700 + q as u64);
                q += 1;
            }
        }
    }
}

/// Every routine for one type (the refusals are asserted once, by the trsm pass).
fn all<T: Scalar>() {
    tri_all::<T>(true);
    tri_all::<T>(false);
    rank_k_all::<T>(false);
    rank_k_all::<T>(true);
    symm_all::<T>();
    trtri_all::<T>();
}

#[test]
fn level3_f32() {
    all::<f32>();
}

#[test]
fn level3_f64() {
    all::<f64>();
}

#[test]
fn level3_c32() {
    all::<Complex32>();
}

#[test]
fn level3_c64() {
    all::<Complex64>();
}

/// Orders 0, 1, 2, primes, the 64-block and one past it, and anything up to 70.
fn dims() -> impl Strategy<Value = usize> {
    prop_oneof![
        Just(0usize),
        Just(1),
        Just(2),
        Just(31),
        Just(64),
        Just(65),
        0usize..71
    ]
}

/// One random case of routine `routine` (0 trsm, 1 trmm, 2 syrk/herk, 3 syr2k/her2k,
/// 4 symm/hemm, 5 trtri) on a target whose GEMM runs `T`.
fn random_case<T: Scalar>(routine: usize, (m, n): (usize, usize), bits: u32, seed: u64) {
    let runs = emu_devices();
    let Some(dev) = runs.get(seed as usize % runs.len().max(1)) else {
        return;
    };
    let bit = |b: u32| bits >> b & 1 == 1;
    let side = if bit(0) { Side::Left } else { Side::Right };
    let uplo = if bit(1) { Uplo::Upper } else { Uplo::Lower };
    let diag = if bit(2) { Diag::Unit } else { Diag::NonUnit };
    let tr = Transpose::ALL[(bits >> 3) as usize % 3];
    let coefs = (
        COEFS[(bits >> 5) as usize % 3],
        COEFS[(bits >> 7) as usize % 3],
    );
    let pads = ((bits >> 9) as usize % 3, (bits >> 11) as usize % 3);
    match routine {
        0 | 1 => check_tri::<T>(
            dev,
            KAPPA,
            routine == 0,
            (side, uplo, tr, diag),
            (m, n),
            pads,
            coefs.0,
            seed,
        ),
        2 | 3 => {
            let hermitian = bit(0);
            let tr = if T::IS_COMPLEX
                && tr
                    == if hermitian {
                        Transpose::T
                    } else {
                        Transpose::C
                    } {
                Transpose::N
            } else {
                tr
            };
            check_rank_k::<T>(
                dev,
                routine == 3,
                hermitian,
                uplo,
                tr,
                (m, n),
                pads,
                coefs,
                seed,
            )
        }
        4 => check_symm::<T>(
            dev,
            bit(2),
            side,
            uplo,
            (m, n),
            (pads.0, pads.1, 1),
            coefs,
            seed,
        ),
        _ => check_trtri::<T>(dev, KAPPA, (uplo, diag), m, pads, seed),
    }
}

proptest! {
    // Few cases: each runs on the emulator (tolerances as in `common/level3.rs`).
    #![proptest_config(ProptestConfig::with_cases(24))]
    #[test]
    fn random_shapes_f32(routine in 0usize..6, m in dims(), n in dims(), bits in any::<u32>(),
                         seed in any::<u64>()) {
        random_case::<f32>(routine, (m, n), bits, seed);
    }

    #[test]
    fn random_shapes_f64(routine in 0usize..6, m in dims(), n in dims(), bits in any::<u32>(),
                         seed in any::<u64>()) {
        random_case::<f64>(routine, (m, n), bits, seed);
    }

    #[test]
    fn random_shapes_complex(routine in 0usize..6, m in dims(), n in dims(), bits in any::<u32>(),
                             seed in any::<u64>()) {
        random_case::<Complex32>(routine, (m, n), bits, seed);
        random_case::<Complex64>(routine, (m, n), bits ^ 1, seed ^ 1);
    }
}
