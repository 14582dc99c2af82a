//! Level 2 on the emulated AMD devices (generated AMDGPU kernels) against the f64
//! reference checks of `common::level2`, every dtype, every transpose / triangle / diag,
//! odd and prime sizes (0, 1, across the wave sizes 32 and 64, across gemv's split
//! point of 128 columns), lda > rows, negative increments, α = 0 and β = 0 over NaN.
//! Each case runs on one target, the targets taken in turn, so every routine meets every
//! target in each run (asserted) while the emulator time stays small; two property
//! tests add random problems on random targets.
//!
//! Tolerances: those of the shared checks (`common/level2.rs`, stated in
//! `level2_gpu.rs` and `level2_more_gpu.rs`): gemv (k + 2)·u·(|α|·Σ|a||x| + |β||y|), k
//! the dot length; symv/hemv/spmv/hpmv/sbmv/hbmv and trmv/tpmv/tbmv
//! (n + 66)·u·(|α|·Σ|a||x| + |β||y|) (the AMDGPU kernels sum in column order, n + 2);
//! ×4 for complex.

mod common;

use common::level2::*;
use proptest::prelude::*;
use rocm_blas::{Blas, Diag, Scalar, Transpose, Uplo};
use rocm_core::{Complex32, Complex64, Device, Error};

/// Every emulated AMD target: gfx9 (wave64) and gfx11 (wave32).
fn devices() -> Vec<Device> {
    common::emu::emu_devices()
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

/// Sizes for the triangle routines: 0, 1, 2, across 32 and 64 (the rows of a
/// workgroup, the wave sizes), primes.
const TRI_SIZES: [usize; 8] = [0, 1, 2, 31, 33, 37, 65, 97];

/// The next device in turn, remembering which targets a routine has met.
struct Turn {
    at: usize,
    met: [bool; 7],
}

impl Turn {
    fn new(seed: u64) -> Turn {
        Turn {
            at: seed as usize,
            met: [false; 7],
        }
    }

    fn next<'a>(&mut self, devs: &'a [Device]) -> &'a Device {
        self.at += 1;
        self.met[self.at % devs.len()] = true;
        &devs[self.at % devs.len()]
    }

    /// Every target met since the last call (the coverage this file promises).
    fn all_met(&mut self, routine: &str) {
        assert!(
            self.met.iter().all(|&m| m),
            "{routine} did not meet every target: {:?}",
            self.met
        );
        self.met = [false; 7];
    }
}

fn sym_on_emu<T: Scalar>(devs: &[Device], seed: u64) {
    let mut turn = Turn::new(seed);
    let mut s = seed;
    for routine in [
        SymRoutine::Symv,
        SymRoutine::Hemv,
        SymRoutine::Spmv,
        SymRoutine::Hpmv,
        SymRoutine::Sbmv,
        SymRoutine::Hbmv,
    ] {
        for uplo in Uplo::ALL {
            for (k, &n) in TRI_SIZES.iter().enumerate() {
                // β = 0 (NaN y), α = β = random, α = 0, α = 1 with β = 1, in turn.
                let coefs = [(2, 0), (2, 2), (0, 2), (1, 1)][(k + s as usize) % 4];
                s += 1;
                let incs = (INCS[(k + 2) % 4], INCS[k % 4]);
                check_sym::<T>(turn.next(devs), routine, uplo, n, k % 3, incs, coefs, s);
            }
        }
        turn.all_met(&format!("{routine:?}"));
    }
}

/// Sizes for the solves: also across the block of 64 (32 for Complex64) so the blocked
/// substitution takes several diagonal blocks and gemv updates.
const SOLVE_SIZES: [usize; 8] = [0, 1, 2, 31, 33, 65, 97, 131];

fn trsv_on_emu<T: Scalar>(devs: &[Device], seed: u64) {
    let mut turn = Turn::new(seed);
    let mut s = seed;
    for routine in [TriRoutine::Trsv, TriRoutine::Tpsv, TriRoutine::Tbsv] {
        for uplo in Uplo::ALL {
            for trans in Transpose::ALL {
                for diag in [Diag::NonUnit, Diag::Unit] {
                    for (k, &n) in SOLVE_SIZES
                        .iter()
                        .enumerate()
                        .skip(s as usize % 2)
                        .step_by(2)
                    {
                        s += 1;
                        let inc = INCS[(k + s as usize) % 4];
                        check_tri::<T>(
                            turn.next(devs),
                            routine,
                            (uplo, trans, diag),
                            n,
                            k % 3,
                            inc,
                            s,
                        );
                    }
                }
            }
        }
        turn.all_met(&format!("{routine:?}"));
    }
}

fn trmv_on_emu<T: Scalar>(devs: &[Device], seed: u64) {
    let mut turn = Turn::new(seed);
    let mut s = seed;
    for routine in [TriRoutine::Trmv, TriRoutine::Tpmv, TriRoutine::Tbmv] {
        for uplo in Uplo::ALL {
            for trans in Transpose::ALL {
                for diag in [Diag::NonUnit, Diag::Unit] {
                    for (k, &n) in TRI_SIZES.iter().enumerate().skip(s as usize % 2).step_by(2) {
                        s += 1;
                        let inc = INCS[(k + s as usize) % 4];
                        check_tri::<T>(
                            turn.next(devs),
                            routine,
                            (uplo, trans, diag),
                            n,
                            k % 3,
                            inc,
                            s,
                        );
                    }
                }
            }
        }
        turn.all_met(&format!("{routine:?}"));
    }
}

fn rank_on_emu<T: Scalar>(devs: &[Device], seed: u64) {
    let mut turn = Turn::new(seed);
    let mut s = seed;
    for routine in RANK_ROUTINES {
        for uplo in Uplo::ALL {
            for (k, &n) in TRI_SIZES.iter().enumerate() {
                s += 1;
                let m = TRI_SIZES[(k + 3) % TRI_SIZES.len()];
                let incs = (INCS[k % 4], INCS[(k + 1) % 4]);
                check_rank::<T>(turn.next(devs), routine, uplo, (m, n), k % 4, incs, s);
            }
        }
        turn.all_met(&format!("{routine:?}"));
    }
}

#[test]
fn rank_updates_on_every_emulated_target() {
    let devs = devices();
    rank_on_emu::<f32>(&devs, 21);
    rank_on_emu::<f64>(&devs, 22);
    rank_on_emu::<Complex32>(&devs, 23);
    rank_on_emu::<Complex64>(&devs, 24);
}

/// gbmv: band shapes (kl, ku from 0 to past the matrix), every trans, all coefficient
/// cases, each on the next target.
fn gbmv_on_emu<T: Scalar>(devs: &[Device], seed: u64) {
    let mut turn = Turn::new(seed);
    let mut s = seed;
    let shapes = [
        (0, 5, 1, 1),
        (1, 1, 0, 0),
        (7, 31, 0, 2),
        (33, 7, 3, 0),
        (67, 37, 5, 9),
        (37, 67, 40, 1),
    ];
    for trans in Transpose::ALL {
        for (k, &shape) in shapes.iter().enumerate() {
            let coefs = [(2, 0), (2, 2), (0, 2), (1, 1)][(k + s as usize) % 4];
            s += 1;
            let incs = (INCS[(k + 1) % 4], INCS[(k + s as usize) % 4]);
            check_gbmv::<T>(turn.next(devs), trans, shape, k % 3, incs, coefs, s);
        }
    }
    turn.all_met("gbmv");
}

#[test]
fn gbmv_on_every_emulated_target() {
    let devs = devices();
    gbmv_on_emu::<f32>(&devs, 31);
    gbmv_on_emu::<f64>(&devs, 32);
    gbmv_on_emu::<Complex32>(&devs, 33);
    gbmv_on_emu::<Complex64>(&devs, 34);
}

#[test]
fn triangular_solves_on_every_emulated_target() {
    let devs = devices();
    trsv_on_emu::<f32>(&devs, 41);
    trsv_on_emu::<f64>(&devs, 42);
    trsv_on_emu::<Complex32>(&devs, 43);
    trsv_on_emu::<Complex64>(&devs, 44);
}

#[test]
fn symmetric_products_on_every_emulated_target() {
    let devs = devices();
    sym_on_emu::<f32>(&devs, 1);
    sym_on_emu::<f64>(&devs, 2);
    sym_on_emu::<Complex32>(&devs, 3);
    sym_on_emu::<Complex64>(&devs, 4);
}

#[test]
fn triangular_products_on_every_emulated_target() {
    let devs = devices();
    trmv_on_emu::<f32>(&devs, 11);
    trmv_on_emu::<f64>(&devs, 12);
    trmv_on_emu::<Complex32>(&devs, 13);
    trmv_on_emu::<Complex64>(&devs, 14);
}

/// gemv shapes: 0, 1, 2, across 32 and 64, primes, and past gemv's split point.
fn gemv_sizes() -> impl Strategy<Value = usize> {
    prop_oneof![
        Just(0usize),
        Just(1),
        Just(2),
        Just(31),
        Just(33),
        Just(63),
        Just(65),
        Just(97),
        Just(131),
        2usize..140,
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(40))]
    /// Random gemv problems on a random target and dtype: shapes, lda > m, increments
    /// ±1..3, views at offsets, every coefficient case.
    #[test]
    fn gemv_random_problems_on_emulated_targets(
        target in 0usize..7,
        dtype in 0usize..4,
        trans in 0usize..3,
        m in gemv_sizes(),
        n in gemv_sizes(),
        pad in 0usize..4,
        incx in prop::sample::select(vec![1isize, 2, 3, -1, -2, -3]),
        incy in prop::sample::select(vec![1isize, 2, 3, -1, -2, -3]),
        coefs in 0u8..3,
        offset in 0usize..3,
        seed in any::<u64>(),
    ) {
        let dev = Device::open(&format!("emu:{}", common::emu::EMU_TARGETS[target])).unwrap();
        let c = Case { trans: Transpose::ALL[trans], m, n, pad, incx, incy, coefs, offset };
        match dtype {
            0 => check::<f32>(&dev, c, seed),
            1 => check::<f64>(&dev, c, seed),
            2 => check::<Complex32>(&dev, c, seed),
            _ => check::<Complex64>(&dev, c, seed),
        }
    }
}

/// Strides of 2³¹ bytes or more pass the AMDGPU kernels' 32-bit indexing: a clear
/// `Unsupported` naming the device, y untouched (a one-element x with a huge increment
/// needs no memory, so the guard is reachable here).
#[test]
fn strides_beyond_32_bit_indexing_are_unsupported() {
    let dev = Device::open("emu:gfx942").unwrap();
    let blas = Blas::new(&dev);
    let (a, x) = (
        dev.upload(&[1.0f32; 2]).unwrap(),
        dev.upload(&[1.0f32; 1]).unwrap(),
    );
    let mut y = dev.upload(&[5.0f32; 2]).unwrap();
    for incx in [1isize << 29, -(1isize << 29)] {
        let e = blas
            .gemv(
                Transpose::T,
                1,
                2,
                1.0,
                &a.as_slice(),
                1,
                &x.as_slice(),
                incx,
                0.0,
                &mut y.as_slice_mut(),
                1,
            )
            .unwrap_err();
        assert!(
            matches!(&e, Error::Unsupported { op, .. } if op.contains("2³¹")),
            "{e}"
        );
    }
    assert_eq!(y.to_vec().unwrap(), vec![5.0; 2]);
    // Just below the limit runs: 2²⁸ f32 = 2³⁰ bytes.
    blas.gemv(
        Transpose::T,
        1,
        2,
        1.0,
        &a.as_slice(),
        1,
        &x.as_slice(),
        1 << 28,
        0.0,
        &mut y.as_slice_mut(),
        1,
    )
    .unwrap();
    assert_eq!(y.to_vec().unwrap(), vec![1.0; 2]);
}

/// One structured routine on one target and dtype (the property test below).
#[allow(clippy::too_many_arguments)]
fn structured_case<T: Scalar>(
    dev: &Device,
    family: usize,
    pick: usize,
    (uplo, trans, diag): (Uplo, Transpose, Diag),
    (m, n): (usize, usize),
    pad: usize,
    incs: (isize, isize),
    coefs: (u8, u8),
    seed: u64,
) {
    match family {
        0 => check_rank::<T>(dev, RANK_ROUTINES[pick % 10], uplo, (m, n), pad, incs, seed),
        1 => {
            let routine = [
                SymRoutine::Symv,
                SymRoutine::Hemv,
                SymRoutine::Spmv,
                SymRoutine::Hpmv,
                SymRoutine::Sbmv,
                SymRoutine::Hbmv,
            ][pick % 6];
            check_sym::<T>(dev, routine, uplo, n, pad, incs, coefs, seed)
        }
        _ => {
            let routine = [
                TriRoutine::Trmv,
                TriRoutine::Tpmv,
                TriRoutine::Tbmv,
                TriRoutine::Trsv,
                TriRoutine::Tpsv,
                TriRoutine::Tbsv,
            ][pick % 6];
            check_tri::<T>(dev, routine, (uplo, trans, diag), n, pad, incs.0, seed)
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(40))]
    /// Random rank updates, symmetric/triangular products and solves on a random target
    /// and dtype: every uplo/trans/diag, sizes 0..140 (across 32, 64 and the trsv
    /// block), padding, increments ±1, ±3, every coefficient case, bandwidths by seed.
    #[test]
    fn structured_random_problems_on_emulated_targets(
        target in 0usize..7,
        dtype in 0usize..4,
        family in 0usize..3,
        pick in 0usize..60,
        uplo in 0usize..2,
        trans in 0usize..3,
        unit in any::<bool>(),
        m in gemv_sizes(),
        n in gemv_sizes(),
        pad in 0usize..3,
        incx in prop::sample::select(INCS.to_vec()),
        incy in prop::sample::select(INCS.to_vec()),
        ca in 0u8..3,
        cb in 0u8..3,
        seed in any::<u64>(),
    ) {
        let dev = Device::open(&format!("emu:{}", common::emu::EMU_TARGETS[target])).unwrap();
        let ops = (
            Uplo::ALL[uplo],
            Transpose::ALL[trans],
            if unit { Diag::Unit } else { Diag::NonUnit },
        );
        let (shape, incs, coefs) = ((m, n), (incx, incy), (ca, cb));
        match dtype {
            0 => structured_case::<f32>(&dev, family, pick, ops, shape, pad, incs, coefs, seed),
            1 => structured_case::<f64>(&dev, family, pick, ops, shape, pad, incs, coefs, seed),
            2 => structured_case::<Complex32>(&dev, family, pick, ops, shape, pad, incs, coefs, seed),
            _ => structured_case::<Complex64>(&dev, family, pick, ops, shape, pad, incs, coefs, seed),
        }
    }
}

/// Bandwidths for the band property tests: the diagonal alone, narrow, across the
/// 32-row blocks and the trsv block (64, Complex64 32), and past every size drawn.
fn band_widths() -> impl Strategy<Value = usize> {
    prop_oneof![
        Just(0usize),
        Just(1),
        Just(2),
        Just(31),
        Just(65),
        Just(200),
        0usize..150,
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(40))]
    /// Random band problems on a random target and dtype: gbmv (every trans, kl and ku
    /// independently from 0 to past the matrix, lda above kl + ku + 1, increments ±1..3,
    /// every coefficient case, β = 0 over NaN y) and tbsv / tpsv (every uplo, trans and
    /// diag, k from 0 to past n, lda above k + 1), sizes 0, 1, 2, primes, odd, past the
    /// trsv block. Tolerances: gbmv (c + 2)·ε·(|α|·Σ|a||x| + |β||y|) with c the dot length;
    /// the solves by residual, (2n + 8)·ε·(|op(A)||x̂| + |b|) on diagonally dominant
    /// triangles (`common/level2.rs`).
    #[test]
    fn band_random_problems_on_emulated_targets(
        target in 0usize..7,
        dtype in 0usize..4,
        routine in 0usize..3,
        uplo in 0usize..2,
        trans in 0usize..3,
        unit in any::<bool>(),
        m in gemv_sizes(),
        n in gemv_sizes(),
        kl in band_widths(),
        ku in band_widths(),
        pad in 0usize..3,
        incx in prop::sample::select(vec![1isize, 2, 3, -1, -2, -3]),
        incy in prop::sample::select(vec![1isize, 2, 3, -1, -2, -3]),
        ca in 0u8..3,
        cb in 0u8..3,
        seed in any::<u64>(),
    ) {
        let dev = Device::open(&format!("emu:{}", common::emu::EMU_TARGETS[target])).unwrap();
        let ops = (
            Uplo::ALL[uplo],
            Transpose::ALL[trans],
            if unit { Diag::Unit } else { Diag::NonUnit },
        );
        let band = Store::Band(kl + 1 + pad, kl);
        macro_rules! run {
            ($t:ty) => {
                match routine {
                    0 => check_gbmv::<$t>(&dev, ops.1, (m, n, kl, ku), pad, (incx, incy), (ca, cb), seed),
                    1 => check_tri_stored::<$t>(&dev, TriRoutine::Tbsv, band, ops, n, incx, seed),
                    _ => check_tri_stored::<$t>(&dev, TriRoutine::Tpsv, Store::Packed, ops, n, incx, seed),
                }
            };
        }
        match dtype {
            0 => run!(f32),
            1 => run!(f64),
            2 => run!(Complex32),
            _ => run!(Complex64),
        }
    }
}

/// The band routines need no dense copy: n = 50 000 with narrow bands, where a dense
/// n×n matrix (2.5·10⁹ elements, past 2³¹) could not even be indexed by the AMDGPU
/// kernels (the former unpack path answered `Unsupported` here) and would take 20 GB
/// of f64 workspace. gbmv (kl = 2, ku = 1; N and T) against host loops with
/// (kl + ku + 3)·ε·(|α|·Σ|a||x| + |β||y|), and tbsv (k = 2; forward and backward
/// substitution orders) by residual, (4k + 16)·ε·(|op(A)||x̂| + |b|) on a diagonally
/// dominant band (each row's sums have at most k + 1 terms).
#[test]
#[allow(clippy::needless_range_loop)] // the loops follow the band's index formulas
fn band_routines_need_no_dense_copy() {
    let dev = Device::open("emu:gfx90a").unwrap();
    let blas = Blas::new(&dev);
    let n = 50_000usize;
    let eps = f64::EPSILON;
    let mut r = common::rng(7);
    let mut next = move || common::random::<f64>(&mut r);
    // gbmv, square, kl = 2, ku = 1, lda = 5.
    let (kl, ku, lda) = (2usize, 1usize, 5usize);
    let a: Vec<f64> = (0..lda * n).map(|_| next()).collect();
    let x: Vec<f64> = (0..n).map(|_| next()).collect();
    let y0: Vec<f64> = (0..n).map(|_| next()).collect();
    let (alpha, beta) = (0.75, -0.5);
    let (ad, xd) = (dev.upload(&a).unwrap(), dev.upload(&x).unwrap());
    for trans in [Transpose::N, Transpose::T] {
        let mut yd = dev.upload(&y0).unwrap();
        blas.gbmv(
            trans,
            n,
            n,
            kl,
            ku,
            alpha,
            &ad.as_slice(),
            lda,
            &xd.as_slice(),
            1,
            beta,
            &mut yd.as_slice_mut(),
            1,
        )
        .unwrap();
        let got = yd.to_vec().unwrap();
        for i in 0..n {
            let (mut s, mut mag) = (0.0, 0.0);
            // A(i, j) for j ∈ [i − kl, i + ku] (N), A(j, i) for j ∈ [i − ku, i + kl] (T).
            let (lo, hi) = if trans == Transpose::N {
                (kl, ku)
            } else {
                (ku, kl)
            };
            for j in i.saturating_sub(lo)..(i + hi + 1).min(n) {
                let (r, c) = if trans == Transpose::N {
                    (i, j)
                } else {
                    (j, i)
                };
                let v = a[ku + r - c + c * lda];
                s += v * x[j];
                mag += (v * x[j]).abs();
            }
            let want = alpha * s + beta * y0[i];
            let bound = (kl + ku + 3) as f64 * eps * (alpha.abs() * mag + (beta * y0[i]).abs());
            assert!(
                (got[i] - want).abs() <= bound,
                "gbmv {trans:?} y[{i}] = {}, want {want}",
                got[i]
            );
        }
    }
    // tbsv, k = 2, lda = 3: diagonal 2 + |v|, off-diagonals v / 4.
    let k = 2usize;
    for (uplo, trans) in [
        (Uplo::Upper, Transpose::N),
        (Uplo::Lower, Transpose::N),
        (Uplo::Upper, Transpose::T),
    ] {
        let lda = k + 1;
        let d = if uplo == Uplo::Upper { k } else { 0 };
        let mut a = vec![0.0f64; lda * n];
        for j in 0..n {
            for i in j.saturating_sub(k)..(j + k + 1).min(n) {
                if uplo.contains(i, j) {
                    let v = next();
                    a[d + i - j + j * lda] = if i == j { 2.0 + v.abs() } else { v / 4.0 };
                }
            }
        }
        let b: Vec<f64> = (0..n).map(|_| next()).collect();
        let ad = dev.upload(&a).unwrap();
        let mut xd = dev.upload(&b).unwrap();
        blas.tbsv(
            uplo,
            trans,
            Diag::NonUnit,
            n,
            k,
            &ad.as_slice(),
            lda,
            &mut xd.as_slice_mut(),
            1,
        )
        .unwrap();
        let xh = xd.to_vec().unwrap();
        for i in 0..n {
            let (mut s, mut mag) = (0.0, 0.0);
            for j in i.saturating_sub(k)..(i + k + 1).min(n) {
                let (r, c) = if trans == Transpose::N {
                    (i, j)
                } else {
                    (j, i)
                };
                if uplo.contains(r, c) {
                    let v = a[d + r - c + c * lda];
                    s += v * xh[j];
                    mag += (v * xh[j]).abs();
                }
            }
            let bound = (4 * k + 16) as f64 * eps * (mag + b[i].abs());
            assert!(
                (s - b[i]).abs() <= bound,
                "tbsv {uplo:?} {trans:?} residual row {i}: {}",
                s - b[i]
            );
        }
    }
}

/// Kernel shapes a tuning cannot have (a column group larger than the block, zero or
/// three warps per column) are errors naming the field on every emulated target, never a
/// panic in the launch arithmetic. (A load width the views do not allow is a hint that
/// falls back to element loads, as `GemvTuning` documents.)
#[test]
fn impossible_gemv_tunings_are_errors() {
    use rocm_kernels::level2::gemv::GemvTuning;
    let bad = [
        (
            Transpose::T,
            GemvTuning {
                block: Some(64),
                warps_per_column: Some(16),
                ..GemvTuning::default()
            },
        ),
        (
            Transpose::T,
            GemvTuning {
                warps_per_column: Some(0),
                ..GemvTuning::default()
            },
        ),
        (
            Transpose::C,
            GemvTuning {
                warps_per_column: Some(3),
                ..GemvTuning::default()
            },
        ),
    ];
    for dev in devices() {
        let blas = Blas::new(&dev);
        let (m, n) = (12, 5);
        let a = dev.upload(&vec![1.0f32; m * n]).unwrap();
        let x = dev.upload(&vec![1.0f32; m]).unwrap();
        let mut y = dev.upload(&vec![1.0f32; m]).unwrap();
        for (trans, tuning) in bad {
            let r = blas.gemv_tuned(
                trans,
                m,
                n,
                2.0,
                &a.as_slice(),
                m,
                &x.as_slice(),
                1,
                0.5,
                &mut y.as_slice_mut(),
                1,
                tuning,
            );
            assert!(
                matches!(r, Err(Error::InvalidArgument { .. })),
                "{} {trans:?} {tuning:?}: {r:?}",
                dev.id()
            );
        }
    }
}
