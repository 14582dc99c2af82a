//! trtri, geam and dgmm against the reference on every dtype, uplo/diag/trans/side,
//! odd sizes and padded leading dimensions.
//!
//! Tolerances (ε the dtype's epsilon, × 4 for complex arithmetic):
//! - trtri: by residual, T·X − I with X the computed inverse. Each block of the recursive
//!   inverse is a product of already-inverted blocks, so the error per element is
//!   (n + 4)·ε·(|T||X|)ᵢⱼ to first order; T is diagonally dominant, so |X| stays O(1).
//!   The GPU solves T·X = I by the blocked trsm, whose diagonal blocks are multiplied by
//!   computed inverses: the residual carries their condition number, at most
//!   (2 + 1)/(2 − 1) = 3 for these matrices (|t_ii| ≥ 2, |t_ij| ≤ 1/n), so κ = 3 there.
//! - geam: two products and a sum: 2ε·(|α||a| + |β||b|).
//! - dgmm: one product: ε·|a||x|.

mod common;

use common::level3::check_trtri;
use common::*;
use proptest::prelude::*;
use rocm_blas::check::{vector_extent, vector_index};
use rocm_blas::{reference, Blas, Diag, Scalar, Side, Transpose, Uplo};
use rocm_core::{Complex32, Complex64, Device, Error};

#[allow(clippy::too_many_arguments)]
fn check_geam<T: Scalar>(
    dev: &Device,
    (ta, tb): (Transpose, Transpose),
    (m, n): (usize, usize),
    (pa, pb, pc): (usize, usize, usize),
    (za, zb): (bool, bool),
    seed: u64,
) {
    let blas = Blas::new(dev);
    let mut r = rng(seed);
    let (ar, ac) = ta.stored_dims(m, n);
    let (br, bc) = tb.stored_dims(m, n);
    let (lda, ldb, ldc) = (ar.max(1) + pa, br.max(1) + pb, m.max(1) + pc);
    let alpha: T = if za { T::zero() } else { random(&mut r) };
    let beta: T = if zb { T::zero() } else { random(&mut r) };
    let nan = T::from_real(num_traits::Float::nan());
    // A zero coefficient must not read its matrix: fill that one with NaN.
    let mut a: Vec<T> = random_vec(&mut r, lda * ac.max(1));
    let mut b: Vec<T> = random_vec(&mut r, ldb * bc.max(1));
    if za {
        a.iter_mut().for_each(|v| *v = nan);
    }
    if zb {
        b.iter_mut().for_each(|v| *v = nan);
    }
    let c: Vec<T> = random_vec(&mut r, ldc * n.max(1));
    let (ad, bd) = (dev.upload(&a).unwrap(), dev.upload(&b).unwrap());
    let mut cd = dev.upload(&c).unwrap();
    blas.geam(
        ta,
        tb,
        m,
        n,
        alpha,
        &ad.as_slice(),
        lda,
        beta,
        &bd.as_slice(),
        ldb,
        &mut cd.as_slice_mut(),
        ldc,
    )
    .unwrap();
    let got = cd.to_vec().unwrap();
    let what = format!("{}geam {ta}{tb} m={m} n={n} on {}", T::PREFIX, dev.id());
    for j in 0..n {
        for i in 0..m {
            let mut want = T::zero().widen();
            let mut mag = 0.0;
            if !za {
                let x = reference::op_at(ta, &a, lda, i, j);
                want += alpha.widen() * x.widen();
                mag += abs(alpha) * abs(x);
            }
            if !zb {
                let x = reference::op_at(tb, &b, ldb, i, j);
                want += beta.widen() * x.widen();
                mag += abs(beta) * abs(x);
            }
            assert_close(
                got[i + j * ldc],
                want,
                mag,
                2.0,
                &format!("{what} ({i},{j})"),
            );
        }
        for i in m..ldc {
            if i + j * ldc < got.len() {
                assert_eq!(got[i + j * ldc], c[i + j * ldc], "{what}: wrote padding");
            }
        }
    }
}

fn check_dgmm<T: Scalar>(
    dev: &Device,
    side: Side,
    (m, n): (usize, usize),
    (pa, pc): (usize, usize),
    incx: isize,
    seed: u64,
) {
    let blas = Blas::new(dev);
    let mut r = rng(seed);
    let (lda, ldc) = (m.max(1) + pa, m.max(1) + pc);
    let k = if side == Side::Left { m } else { n };
    let a: Vec<T> = random_vec(&mut r, lda * n.max(1));
    let x: Vec<T> = random_vec(&mut r, vector_extent(k, incx).max(1));
    let c: Vec<T> = random_vec(&mut r, ldc * n.max(1));
    let (ad, xd) = (dev.upload(&a).unwrap(), dev.upload(&x).unwrap());
    let mut cd = dev.upload(&c).unwrap();
    blas.dgmm(
        side,
        m,
        n,
        &ad.as_slice(),
        lda,
        &xd.as_slice(),
        incx,
        &mut cd.as_slice_mut(),
        ldc,
    )
    .unwrap();
    let got = cd.to_vec().unwrap();
    for j in 0..n {
        for i in 0..m {
            let d = x[vector_index(if side == Side::Left { i } else { j }, k, incx)];
            let av = a[i + j * lda];
            assert_close(
                got[i + j * ldc],
                av.widen() * d.widen(),
                abs(av) * abs(d),
                1.0,
                &format!("{}dgmm {side:?} ({i},{j}) on {}", T::PREFIX, dev.id()),
            );
        }
    }
}

fn dims() -> impl Strategy<Value = usize> {
    prop_oneof![
        Just(0usize),
        Just(1),
        Just(2),
        Just(16),
        Just(17),
        Just(33),
        0usize..50
    ]
}
fn trans() -> impl Strategy<Value = Transpose> {
    prop_oneof![Just(Transpose::N), Just(Transpose::T), Just(Transpose::C)]
}

macro_rules! ext_props {
    ($name:ident, $t:ty) => {
        mod $name {
            use super::*;
            proptest! {
                #![proptest_config(ProptestConfig::with_cases(40))]
                #[test]
                fn trtri(upper in any::<bool>(), unit in any::<bool>(), n in dims(),
                         pa in 0usize..3, pi in 0usize..3, seed in any::<u64>()) {
                    let uplo = if upper { Uplo::Upper } else { Uplo::Lower };
                    let diag = if unit { Diag::Unit } else { Diag::NonUnit };
                    check_trtri::<$t>(&Device::cpu(), 1.0, (uplo, diag), n, (pa, pi), seed);
                }

                #[test]
                fn geam(ta in trans(), tb in trans(), m in dims(), n in dims(),
                        p in (0usize..3, 0usize..3, 0usize..3), za in any::<bool>(),
                        zb in any::<bool>(), seed in any::<u64>()) {
                    check_geam::<$t>(&Device::cpu(), (ta, tb), (m, n), p, (za, zb), seed);
                }

                #[test]
                fn dgmm(left in any::<bool>(), m in dims(), n in dims(), pa in 0usize..3,
                        pc in 0usize..3, incx in prop_oneof![Just(1isize), Just(2), Just(-1), Just(-2)],
                        seed in any::<u64>()) {
                    let side = if left { Side::Left } else { Side::Right };
                    check_dgmm::<$t>(&Device::cpu(), side, (m, n), (pa, pc), incx, seed);
                }
            }
        }
    };
}
ext_props!(s_ext, f32);
ext_props!(d_ext, f64);
ext_props!(c_ext, Complex32);
ext_props!(z_ext, Complex64);

#[test]
fn blocked_trtri() {
    // Past the recursion base (16) several levels deep.
    for uplo in Uplo::ALL {
        for diag in Diag::ALL {
            let cpu = Device::cpu();
            check_trtri::<f64>(&cpu, 1.0, (uplo, diag), 150, (1, 2), 11);
            check_trtri::<Complex32>(&cpu, 1.0, (uplo, diag), 77, (0, 0), 12);
        }
    }
    check_geam::<f32>(
        &Device::cpu(),
        (Transpose::T, Transpose::N),
        (300, 200),
        (1, 0, 2),
        (false, false),
        13,
    );
    check_dgmm::<Complex64>(&Device::cpu(), Side::Left, (300, 150), (0, 1), -1, 14);
}

#[test]
fn argument_errors_name_the_argument() {
    let dev = Device::cpu();
    let blas = Blas::new(&dev);
    let a = dev.alloc::<f64>(16).unwrap();
    let mut c = dev.alloc::<f64>(16).unwrap();
    let name = |e: Error| match e {
        Error::InvalidArgument { what, .. } => what,
        other => panic!("{other:?}"),
    };
    let av = a.as_slice();
    let err = blas
        .trtri(Uplo::Lower, Diag::Unit, 4, &av, 4, &mut c.as_slice_mut(), 3)
        .unwrap_err();
    assert_eq!(name(err), "ldinv_a");
    let err = blas
        .geam(
            Transpose::T,
            Transpose::N,
            4,
            2,
            1.0,
            &av,
            1,
            1.0,
            &av,
            4,
            &mut c.as_slice_mut(),
            4,
        )
        .unwrap_err();
    assert_eq!(name(err), "lda");
    let err = blas
        .dgmm(Side::Left, 4, 4, &av, 4, &av, 6, &mut c.as_slice_mut(), 4)
        .unwrap_err();
    assert_eq!(name(err), "x");
}

/// geam and dgmm on CUDA (every type) with the same checks as on the CPU: every
/// transpose pair, zero coefficients over NaN, edges around the kernels' 32×32 tiles,
/// padded leading dimensions, negative increments, and random cases.
#[test]
fn geam_and_dgmm_on_cuda() {
    let ts = [Transpose::N, Transpose::T, Transpose::C];
    for dev in cuda_devices("the GPU geam/dgmm tests") {
        let mut seed = 100;
        for (m, n) in [(1, 1), (31, 33), (64, 32), (65, 97), (300, 7)] {
            for ta in ts {
                for tb in ts {
                    for z in [(false, false), (true, false), (false, true), (true, true)] {
                        seed += 1;
                        check_geam::<f32>(&dev, (ta, tb), (m, n), (1, 0, 3), z, seed);
                        check_geam::<f64>(&dev, (ta, tb), (m, n), (0, 2, 1), z, seed);
                        check_geam::<Complex32>(&dev, (ta, tb), (m, n), (2, 1, 0), z, seed);
                        check_geam::<Complex64>(&dev, (ta, tb), (m, n), (0, 0, 2), z, seed);
                    }
                }
            }
            for side in [Side::Left, Side::Right] {
                for incx in [1, 3, -1, -2] {
                    seed += 1;
                    check_dgmm::<f32>(&dev, side, (m, n), (2, 1), incx, seed);
                    check_dgmm::<f64>(&dev, side, (m, n), (0, 3), incx, seed);
                    check_dgmm::<Complex32>(&dev, side, (m, n), (1, 0), incx, seed);
                    check_dgmm::<Complex64>(&dev, side, (m, n), (0, 1), incx, seed);
                }
            }
        }
    }
}

/// The strided batched forms on CUDA (one launch over the batch) against the same call
/// on the CPU, itself checked against the reference above. Tolerance: each element is
/// α·a + β·b (geam) or a·x (dgmm) of values in [-1, 1), computed with at most two
/// roundings on either side: |gpu − cpu| ≤ 4·ε·(|α| + |β|) (geam), 2·ε (dgmm).
#[test]
fn strided_batched_geam_and_dgmm_on_cuda() {
    // The CPU against itself first: the calls' arguments are valid (the comparison is
    // trivial there).
    strided_batched_case(&Device::cpu());
    for dev in cuda_devices("the GPU geam/dgmm tests") {
        strided_batched_case(&dev);
    }
}

/// geam and dgmm on the emulated AMD devices, every element type, with the CPU checks
/// (tolerances as there): every transpose pair including conjugate ones, zero
/// coefficients over NaN, sizes across the kernels' 32×32 tiles (1, 31, 33, 40),
/// padded leading dimensions, negative increments; every target runs every type (the
/// cases rotate over the targets), and the strided batched forms run on two targets.
#[test]
fn geam_and_dgmm_on_emulated_amd() {
    let targets = [
        "gfx908", "gfx90a", "gfx942", "gfx1100", "gfx1101", "gfx1102", "gfx1151",
    ];
    let devs: Vec<Device> = targets
        .iter()
        .map(|t| Device::open(&format!("emu:{t}")).unwrap())
        .collect();
    let ts = [Transpose::N, Transpose::T, Transpose::C];
    let zs = [(false, false), (true, false), (false, true), (true, true)];
    let counter = std::cell::Cell::new(0usize);
    let next = || {
        counter.set(counter.get() + 1);
        (&devs[counter.get() % devs.len()], counter.get() as u64)
    };
    for (m, n) in [(1, 1), (31, 33), (40, 7)] {
        for ta in ts {
            for tb in ts {
                let z = zs[counter.get() % zs.len()];
                let (d, seed) = next();
                check_geam::<f32>(d, (ta, tb), (m, n), (1, 0, 3), z, seed);
                let (d, seed) = next();
                check_geam::<f64>(d, (ta, tb), (m, n), (0, 2, 1), z, seed);
                let (d, seed) = next();
                check_geam::<Complex32>(d, (ta, tb), (m, n), (2, 1, 0), z, seed);
                let (d, seed) = next();
                check_geam::<Complex64>(d, (ta, tb), (m, n), (0, 0, 2), z, seed);
            }
        }
        for side in [Side::Left, Side::Right] {
            for incx in [1, 3, -1, -2] {
                let (d, seed) = next();
                check_dgmm::<f32>(d, side, (m, n), (2, 1), incx, seed);
                let (d, seed) = next();
                check_dgmm::<f64>(d, side, (m, n), (0, 3), incx, seed);
                let (d, seed) = next();
                check_dgmm::<Complex32>(d, side, (m, n), (1, 0), incx, seed);
                let (d, seed) = next();
                check_dgmm::<Complex64>(d, side, (m, n), (0, 1), incx, seed);
            }
        }
    }
    strided_batched_case(&devs[1]);
    strided_batched_case(&devs[4]);
}

fn strided_batched_case(dev: &Device) {
    {
        let cpu = Device::cpu();
        let (m, n, batch) = (45usize, 70usize, 3usize);
        let mut r = rng(77);
        let (lda, ldb, ldc) = (n + 1, m + 2, m + 3);
        let (sa, sb, sc) = (lda * m + 5, ldb * n + 1, ldc * n + 2);
        let a: Vec<f64> = random_vec(&mut r, sa * batch);
        let b: Vec<f64> = random_vec(&mut r, sb * batch);
        let c: Vec<f64> = random_vec(&mut r, sc * batch);
        let (alpha, beta) = (0.75, -1.25);
        let run = |d: &Device| -> Vec<f64> {
            let blas = Blas::new(d);
            let (ad, bd) = (d.upload(&a).unwrap(), d.upload(&b).unwrap());
            let mut cd = d.upload(&c).unwrap();
            blas.geam_strided_batched(
                Transpose::T,
                Transpose::N,
                m,
                n,
                alpha,
                &ad.as_slice(),
                lda,
                sa,
                beta,
                &bd.as_slice(),
                ldb,
                sb,
                &mut cd.as_slice_mut(),
                ldc,
                sc,
                batch,
            )
            .unwrap();
            cd.to_vec().unwrap()
        };
        let (g, want) = (run(dev), run(&cpu));
        let tol = 4.0 * f64::EPSILON * (0.75 + 1.25);
        for (i, (x, y)) in g.iter().zip(&want).enumerate() {
            assert!(
                (x - y).abs() <= tol,
                "geam_strided_batched element {i}: {x} vs {y}"
            );
        }
        let (sx, incx) = (2 * m + 1, -2isize);
        let x: Vec<f64> = random_vec(&mut r, sx * batch);
        let sa = (m + 1) * n + 3;
        let a: Vec<f64> = random_vec(&mut r, sa * batch);
        let run = |d: &Device| -> Vec<f64> {
            let blas = Blas::new(d);
            let (ad, xd) = (d.upload(&a).unwrap(), d.upload(&x).unwrap());
            let mut cd = d.upload(&c).unwrap();
            blas.dgmm_strided_batched(
                Side::Left,
                m,
                n,
                &ad.as_slice(),
                m + 1,
                sa,
                &xd.as_slice(),
                incx,
                sx,
                &mut cd.as_slice_mut(),
                ldc,
                sc,
                batch,
            )
            .unwrap();
            cd.to_vec().unwrap()
        };
        let (g, want) = (run(dev), run(&cpu));
        for (i, (x, y)) in g.iter().zip(&want).enumerate() {
            assert!(
                (x - y).abs() <= 2.0 * f64::EPSILON,
                "dgmm_strided_batched element {i}: {x} vs {y}"
            );
        }
    }
}

/// trtri on CUDA (every type) by residual, every uplo/diag, sizes around the 64-blocks of
/// the trsm it runs on (32-blocks for Complex64), padded leading dimensions.
/// (The emulated AMD devices: `level3_emu.rs`.)
#[test]
fn trtri_on_gpus() {
    for dev in cuda_devices("the GPU trtri tests") {
        let mut seed = 500;
        for uplo in Uplo::ALL {
            for diag in Diag::ALL {
                for (n, pads) in [
                    (1, (0, 0)),
                    (5, (2, 1)),
                    (63, (0, 3)),
                    (64, (1, 0)),
                    (65, (0, 0)),
                    (131, (3, 2)),
                    (300, (0, 1)),
                ] {
                    seed += 1;
                    check_trtri::<f32>(&dev, 3.0, (uplo, diag), n, pads, seed);
                    check_trtri::<f64>(&dev, 3.0, (uplo, diag), n, pads, seed + 1000);
                    check_trtri::<Complex32>(&dev, 3.0, (uplo, diag), n, pads, seed + 2000);
                    check_trtri::<Complex64>(&dev, 3.0, (uplo, diag), n, pads, seed + 3000);
                }
            }
        }
    }
}
