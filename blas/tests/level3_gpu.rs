//! Level 3 on GPUs (trsm, trmm, syrk/herk, syr2k/her2k, symm/hemm for f32 and f64)
//! against the reference, through the checks shared with the CPU tests
//! (`common/level3.rs`, which states the tolerances): every side/uplo/trans/diag, orders
//! 1, primes and sizes around and across the blocks of the GPU algorithms (trsm leaves
//! of 64, trmm leaves of 512, syrk diagonal blocks of 512 and the levels above them,
//! with clipped last blocks), leading dimensions above the rows, α and β including 0 (β = 0 with NaN
//! in C, which must not be read) and 1. trsm is checked by residual with κ = 3 (the GPU
//! multiplies by computed inverses of the diagonal blocks; see the shared module).
//!
//! Complex32 and Complex64 run the same cases (`complex_on_cuda`). CUDA tests skip with a
//! printed reason without a device. The emulated AMD devices: `level3_emu.rs`.

mod common;

use common::cuda_devices;

use common::level3::*;
use rocm_blas::{Diag, Scalar, Side, Transpose, Uplo};
use rocm_core::{Complex32, Complex64};

/// The GPU trsm's κ for the diagonally dominant test matrices.
const KAPPA: f64 = 3.0;

/// (m, n) of trsm/trmm: 1, primes, one leaf (64) ±1, several leaves with a partial
/// last one, and each side's order different from the other dimension.
const TRI_DIMS: [(usize, usize); 8] = [
    (1, 1),
    (1, 7),
    (13, 1),
    (64, 3),
    (65, 31),
    (127, 64),
    (131, 97),
    (200, 257),
];

const COEFS: [Coef; 3] = [Coef::Random, Coef::One, Coef::Zero];

fn tri_all<T: Scalar>(solve: bool) {
    for dev in cuda_devices("the GPU Level 3 tests") {
        let mut seed = if solve { 1000 } else { 2000 };
        for side in Side::ALL {
            for uplo in Uplo::ALL {
                for tr in Transpose::ALL {
                    for diag in Diag::ALL {
                        for (q, &(m, n)) in TRI_DIMS.iter().enumerate() {
                            seed += 1;
                            let ca = COEFS[q % COEFS.len()];
                            let pads = (q % 3, (q + 1) % 4);
                            check_tri::<T>(
                                &dev,
                                KAPPA,
                                solve,
                                (side, uplo, tr, diag),
                                (m, n),
                                pads,
                                ca,
                                seed,
                            );
                        }
                    }
                }
            }
        }
    }
}

#[test]
fn trsm_f32() {
    tri_all::<f32>(true);
}

#[test]
fn trsm_f64() {
    tri_all::<f64>(true);
}

#[test]
fn trmm_f32() {
    tri_all::<f32>(false);
}

#[test]
fn trmm_f64() {
    tri_all::<f64>(false);
}

#[test]
fn trmm_several_recursion_levels() {
    // 1100 = 2 full leaves of 512 and a partial one; 1537 = 3 and one row.
    for dev in cuda_devices("the GPU Level 3 tests") {
        let mut seed = 9000;
        for side in Side::ALL {
            for uplo in Uplo::ALL {
                for tr in Transpose::ALL {
                    for diag in Diag::ALL {
                        for (q, ka) in [1100usize, 1537].into_iter().enumerate() {
                            seed += 1;
                            let dims = match side {
                                Side::Left => (ka, 23),
                                Side::Right => (23, ka),
                            };
                            let args = (side, uplo, tr, diag);
                            let coef = COEFS[q % 2];
                            check_tri::<f64>(&dev, KAPPA, false, args, dims, (q, 1), coef, seed);
                            check_tri::<f32>(&dev, KAPPA, false, args, dims, (1, q), coef, seed);
                        }
                    }
                }
            }
        }
    }
}

#[test]
fn trsm_several_recursion_levels() {
    // 600 = 9 full leaves and a partial one: four levels of halving.
    for dev in cuda_devices("the GPU Level 3 tests") {
        for (q, side) in Side::ALL.into_iter().enumerate() {
            for uplo in Uplo::ALL {
                for tr in [Transpose::N, Transpose::T] {
                    let args = (side, uplo, tr, Diag::NonUnit);
                    check_tri::<f64>(&dev, KAPPA, true, args, (600, 150), (q, 1), Coef::Random, 7);
                    check_tri::<f32>(&dev, KAPPA, false, args, (150, 600), (1, q), Coef::One, 8);
                }
            }
        }
    }
}

/// (n, k) of the rank-k updates: 1, inside one diagonal block (512), just above one,
/// levels with and without a clipped last pair (1100 = 2 full blocks and a partial
/// one; 2049 = 4 and one row), k = 0 (β·C only).
const RANK_K_DIMS: [(usize, usize); 8] = [
    (1, 1),
    (5, 0),
    (127, 3),
    (300, 33),
    (513, 17),
    (1024, 5),
    (1100, 9),
    (2049, 2),
];

fn rank_k_all<T: Scalar>(two: bool) {
    for dev in cuda_devices("the GPU Level 3 tests") {
        let mut seed = if two { 3000 } else { 4000 };
        for hermitian in [false, true] {
            for uplo in Uplo::ALL {
                for tr in Transpose::ALL {
                    // Complex syrk takes N or T, herk N or C.
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
                    for (q, &dims) in RANK_K_DIMS.iter().enumerate() {
                        seed += 1;
                        let coefs = (COEFS[q % 3], COEFS[(q / 3 + hermitian as usize) % 3]);
                        let pads = (q % 2, (q + 1) % 3);
                        check_rank_k::<T>(&dev, two, hermitian, uplo, tr, dims, pads, coefs, seed);
                    }
                }
            }
        }
    }
}

#[test]
fn syrk_herk_f32() {
    rank_k_all::<f32>(false);
}

#[test]
fn syrk_herk_f64() {
    rank_k_all::<f64>(false);
}

#[test]
fn syr2k_her2k_f32() {
    rank_k_all::<f32>(true);
}

#[test]
fn syr2k_her2k_f64() {
    rank_k_all::<f64>(true);
}

const SYMM_DIMS: [(usize, usize); 6] = [(1, 1), (1, 9), (33, 2), (64, 65), (130, 31), (257, 100)];

fn symm_all<T: Scalar>() {
    for dev in cuda_devices("the GPU Level 3 tests") {
        let mut seed = 5000;
        for hermitian in [false, true] {
            for side in Side::ALL {
                for uplo in Uplo::ALL {
                    for (q, &dims) in SYMM_DIMS.iter().enumerate() {
                        seed += 1;
                        let coefs = (COEFS[q % 3], COEFS[(q / 3 + 1) % 3]);
                        let pads = (q % 3, (q + 1) % 2, (q + 2) % 3);
                        check_symm::<T>(&dev, hermitian, side, uplo, dims, pads, coefs, seed);
                    }
                }
            }
        }
    }
}

#[test]
fn symm_hemm_f32() {
    symm_all::<f32>();
}

#[test]
fn symm_hemm_f64() {
    symm_all::<f64>();
}

/// Complex32 and Complex64 on CUDA (complex GEMM through `gemm_complex`, the complex
/// triangle kernels; hemm/herk/her2k with conjugate products), the same cases as the
/// real types.
#[test]
fn complex_on_cuda() {
    tri_all::<Complex32>(true);
    tri_all::<Complex64>(false);
    tri_all::<Complex64>(true);
    tri_all::<Complex32>(false);
    rank_k_all::<Complex32>(false);
    rank_k_all::<Complex64>(true);
    symm_all::<Complex32>();
    symm_all::<Complex64>();
}
