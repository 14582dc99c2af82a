//! Level 2 on the emulated AMD devices (generated AMDGPU kernels) against the f64
//! reference checks of `common::level2`, every dtype, every transpose / triangle / diag,
//! odd and prime sizes (0, 1, across the wave sizes 32 and 64, across gemv's split
//! point of 128 columns), lda > rows, negative increments, α = 0 and β = 0 over NaN.
//! Each case runs on one target, the targets taken in turn, so every routine meets every
//! target in each run while the emulator time stays small.
//!
//! Tolerances: those of the shared checks (gemv: (k + 2)·u·(|α|·Σ|a||x| + |β||y|),
//! k the dot length, ×4 for complex; see `common/level2.rs`).

mod common;

use common::level2::{check, Case};
use rocm_blas::Transpose;
use rocm_core::{Complex32, Complex64, Device};

/// Every emulated AMD target: gfx9 (wave64) and gfx11 (wave32).
const TARGETS: [&str; 7] = [
    "emu:gfx908",
    "emu:gfx90a",
    "emu:gfx942",
    "emu:gfx1100",
    "emu:gfx1101",
    "emu:gfx1102",
    "emu:gfx1151",
];

fn devices() -> Vec<Device> {
    TARGETS
        .iter()
        .map(|t| Device::open(t).unwrap_or_else(|e| panic!("{t}: {e}")))
        .collect()
}

/// gemv shapes: edges (0, 1), sizes across 32 and 64, primes, N split into chunks
/// (n ≥ 128), lda > m, negative and non-unit increments, all three coefficient cases.
fn gemv_cases() -> Vec<Case> {
    let shapes = [
        (0, 3),
        (3, 0),
        (1, 1),
        (1, 7),
        (7, 1),
        (31, 33),
        (33, 31),
        (65, 63),
        (64, 130),
        (130, 97),
        (2, 131),
    ];
    let mut out = Vec::new();
    let mut i = 0usize;
    for trans in Transpose::ALL {
        for &(m, n) in &shapes {
            let incs = [(1, 1), (-2, 1), (1, -1), (3, -2)];
            let (incx, incy) = incs[i % incs.len()];
            out.push(Case {
                trans,
                m,
                n,
                pad: i % 3,
                incx,
                incy,
                coefs: (i % 3) as u8,
                offset: i % 2,
            });
            i += 1;
        }
    }
    out
}

#[test]
fn gemv_on_every_emulated_target() {
    let devs = devices();
    let cases = gemv_cases();
    for (i, c) in cases.iter().enumerate() {
        let seed = 1000 + i as u64;
        // Each dtype starts at a different target so every (dtype, target) pair meets.
        check::<f32>(&devs[i % 7], *c, seed);
        check::<f64>(&devs[(i + 1) % 7], *c, seed);
        check::<Complex32>(&devs[(i + 2) % 7], *c, seed);
        check::<Complex64>(&devs[(i + 3) % 7], *c, seed);
    }
}
