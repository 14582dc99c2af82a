//! SYTRD/HETRD, ORGTR/UNGTR, ORMTR/UNMTR and SYEVD/HEEVD against LAPACK's test ratios
//! (xSYT21: ‖A − Q·T·Qᴴ‖ / (n·‖A‖·ε), ‖A − Z·Λ·Zᴴ‖ / (n·‖A‖·ε), ‖I − ZᴴZ‖ / (n·ε);
//! eigenvalues against known ones and against the values-only run, |Δλ| / (n·‖A‖·ε) by
//! Weyl's bound), all below 30, for f32, f64, Complex32 and Complex64, both triangles, on
//! the blocked path with tiny blocks and with the CPU table.

mod common;

use common::*;
use num_complex::{Complex32, Complex64};
use rocm_core::Device;
use rocm_solver::reference::{self, Wide};
use rocm_solver::{Evect, Info, Scalar, Side, Solver, Transpose, Uplo};

/// U·diag(λ)·Uᴴ with U a product of two random reflectors: eigenvalues exactly λ.
fn hermitian_with(r: &mut rand::rngs::StdRng, eigs: &[f64], complex: bool) -> Wide {
    let n = eigs.len();
    let u = reflector(r, n, complex).mul(&reflector(r, n, complex));
    u.mul(&Wide::diagonal(n, n, eigs))
        .mul(&u.adjoint())
        .hermitian_from(true)
}

/// Hermitian test matrices: (name, matrix, its eigenvalues in ascending order when known).
fn cases<T: Scalar>(seed: u64, n: usize) -> Vec<(&'static str, Wide, Option<Vec<f64>>)> {
    let c = T::IS_COMPLEX;
    let mut r = rng(seed);
    let g = random(&mut r, n, n, c);
    let random_h = {
        let mut h = g.clone();
        for j in 0..n {
            for i in 0..n {
                h.set(i, j, (g.at(i, j) + g.at(j, i).conj()) * 0.5);
            }
        }
        h
    };
    let cond = cond_for::<T>();
    // Indefinite, spread over six decades (graded) and clustered spectra.
    let graded: Vec<f64> = geometric(n, cond)
        .iter()
        .enumerate()
        .map(|(i, &x)| if i % 2 == 0 { x } else { -x })
        .collect();
    let clustered: Vec<f64> = (0..n)
        .map(|i| 1.0 + if i == n / 2 { 0.5 } else { 1e-9 * i as f64 })
        .collect();
    let diag: Vec<f64> = (0..n).map(|i| (i as f64) - (n as f64) / 3.0).collect();
    let sorted = |v: &[f64]| {
        let mut s = v.to_vec();
        s.sort_by(f64::total_cmp);
        Some(s)
    };
    vec![
        ("random", random_h, None),
        (
            "graded",
            hermitian_with(&mut r, &graded, c),
            sorted(&graded),
        ),
        (
            "clustered",
            hermitian_with(&mut r, &clustered, c),
            sorted(&clustered),
        ),
        ("zero", Wide::zeros(n, n), Some(vec![0.0; n])),
        ("identity", Wide::identity(n), Some(vec![1.0; n])),
        ("diagonal", Wide::diagonal(n, n, &diag), sorted(&diag)),
    ]
}

const ORDERS: &[usize] = &[0, 1, 2, 3, 8, 13, 31, 48, 67];

/// The symmetric tridiagonal matrix with diagonal d and off-diagonal e.
fn tridiagonal(d: &[f64], e: &[f64]) -> Wide {
    let n = d.len();
    let mut t = Wide::diagonal(n, n, d);
    for (i, &x) in e.iter().enumerate() {
        t.set(i + 1, i, Complex64::new(x, 0.0));
        t.set(i, i + 1, Complex64::new(x, 0.0));
    }
    t
}

fn real_vec<R: Scalar>(b: &rocm_core::DeviceBuffer<R>) -> Vec<f64> {
    b.to_vec()
        .unwrap()
        .iter()
        .map(|x| x.components()[0])
        .collect()
}

/// SYTRD + ORGTR: ‖A − Q·T·Qᴴ‖ / (n·‖A‖·ε) and ‖I − QᴴQ‖ / (n·ε); ORMTR from both sides
/// against the explicit Q.
fn sytrd_suite<T: Scalar>() {
    for (label, solver) in solvers() {
        let dev = solver.device();
        for &n in ORDERS {
            for (name, w, _) in cases::<T>(n as u64 + 1, n) {
                for uplo in Uplo::ALL {
                    let lower = uplo == Uplo::Lower;
                    let ld = n + 1;
                    let host = store::<T>(&w, ld);
                    let a = Wide::from(&host, n, n, ld).hermitian_from(lower);
                    let mut buf = dev.upload(&host).unwrap();
                    let mut d = dev.alloc::<T::Real>(n.max(1)).unwrap();
                    let mut e = dev.alloc::<T::Real>(n.max(1)).unwrap();
                    let mut tau = dev.alloc::<T>(n.max(1)).unwrap();
                    solver
                        .hetrd(
                            uplo,
                            n,
                            &mut buf.as_slice_mut(),
                            ld,
                            &mut d.as_slice_mut(),
                            &mut e.as_slice_mut(),
                            &mut tau.as_slice_mut(),
                        )
                        .unwrap();
                    let out = buf.to_vec().unwrap();
                    for j in 0..n {
                        for i in 0..n {
                            if (lower && i < j) || (!lower && i > j) {
                                assert_eq!(out[i + j * ld], host[i + j * ld], "other triangle");
                            }
                        }
                    }
                    let (dv, ev) = (real_vec(&d), real_vec(&e));
                    let t = tridiagonal(&dv[..n], &ev[..n.saturating_sub(1)]);
                    let mut qb = dev.upload(&out).unwrap();
                    solver
                        .ungtr(uplo, n, &mut qb.as_slice_mut(), ld, &tau.as_slice())
                        .unwrap();
                    let q = wide(&qb, n, n, ld);
                    let r1 = reference::ratio(
                        a.sub(&q.mul(&t).mul(&q.adjoint())).norm1(),
                        n,
                        a.norm1(),
                        reference::eps::<T>(),
                    );
                    let r2 = reference::orthogonality_ratio::<T>(&q);
                    let tag = format!("{label}/{name} n {n} {uplo:?}");
                    assert!(r1 < THRESHOLD, "{tag}: tridiagonal ratio {r1}");
                    assert!(r2 < THRESHOLD, "{tag}: orthogonality {r2}");
                    if n == 0 || name != "random" {
                        continue;
                    }
                    for side in [Side::Left, Side::Right] {
                        for trans in q_ops::<T>() {
                            let (cm, cn) = match side {
                                Side::Left => (n, 3),
                                Side::Right => (3, n),
                            };
                            let cw = random(&mut rng(7), cm, cn, T::IS_COMPLEX);
                            let mut cb = dev.upload(&store::<T>(&cw, cm)).unwrap();
                            solver
                                .unmtr(
                                    side,
                                    uplo,
                                    trans,
                                    cm,
                                    cn,
                                    &buf.as_slice(),
                                    ld,
                                    &tau.as_slice(),
                                    &mut cb.as_slice_mut(),
                                    cm,
                                )
                                .unwrap();
                            let qo = op(&q, trans);
                            let expect = match side {
                                Side::Left => qo.mul(&cw),
                                Side::Right => cw.mul(&qo),
                            };
                            let ratio = reference::ratio(
                                wide(&cb, cm, cn, cm).sub(&expect).norm1(),
                                n,
                                cw.norm1(),
                                reference::eps::<T>(),
                            );
                            assert!(ratio < THRESHOLD, "{tag} ormtr {side:?} {trans:?}: {ratio}");
                        }
                    }
                }
            }
        }
    }
}

/// SYEVD: ‖A − Z·Λ·Zᴴ‖ / (n·‖A‖·ε), ‖I − ZᴴZ‖ / (n·ε), eigenvalues ascending, equal
/// (within Weyl's bound) to the values-only run and to the known spectrum.
fn syevd_suite<T: Scalar>() {
    for (label, solver) in solvers() {
        let dev = solver.device();
        for &n in ORDERS {
            for (name, w, exact) in cases::<T>(n as u64 + 5, n) {
                for uplo in Uplo::ALL {
                    let lower = uplo == Uplo::Lower;
                    let ld = n + 2;
                    let host = store::<T>(&w, ld);
                    let a = Wide::from(&host, n, n, ld).hermitian_from(lower);
                    let anorm = a.norm1();
                    let tag = format!("{label}/{name} n {n} {uplo:?}");
                    let mut buf = dev.upload(&host).unwrap();
                    let mut wv = dev.alloc::<T::Real>(n.max(1)).unwrap();
                    let info = solver
                        .heevd(
                            Evect::Original,
                            uplo,
                            n,
                            &mut buf.as_slice_mut(),
                            ld,
                            &mut wv.as_slice_mut(),
                        )
                        .unwrap();
                    assert_eq!(info, Info::OK, "{tag}");
                    let vals = real_vec(&wv)[..n].to_vec();
                    assert!(
                        vals.windows(2).all(|p| p[0] <= p[1]),
                        "{tag}: not ascending"
                    );
                    let z = wide(&buf, n, n, ld);
                    let r1 = reference::eigen_ratio::<T>(&a, &z, &vals);
                    let r2 = reference::orthogonality_ratio::<T>(&z);
                    assert!(r1 < THRESHOLD, "{tag}: eigen ratio {r1}");
                    assert!(r2 < THRESHOLD, "{tag}: orthogonality {r2}");
                    let mut b2 = dev.upload(&host).unwrap();
                    let mut w2 = dev.alloc::<T::Real>(n.max(1)).unwrap();
                    let info = solver
                        .syevd(
                            Evect::None,
                            uplo,
                            n,
                            &mut b2.as_slice_mut(),
                            ld,
                            &mut w2.as_slice_mut(),
                        )
                        .unwrap();
                    assert_eq!(info, Info::OK);
                    let vals2 = real_vec(&w2)[..n].to_vec();
                    let r3 = reference::values_ratio::<T>(&vals2, &vals, anorm);
                    assert!(r3 < THRESHOLD, "{tag}: values-only vs vectors {r3}");
                    if let Some(exact) = &exact {
                        let r4 = reference::values_ratio::<T>(&vals, exact, anorm);
                        assert!(r4 < THRESHOLD, "{tag}: against the spectrum {r4}");
                    }
                }
            }
        }
    }
}

macro_rules! per_dtype {
    ($($t:ty => $m:ident),*) => {$(
        mod $m {
            use super::*;
            #[test]
            fn sytrd() {
                sytrd_suite::<$t>();
            }
            #[test]
            fn syevd() {
                syevd_suite::<$t>();
            }
        }
    )*};
}
per_dtype!(f32 => f32_, f64 => f64_, Complex32 => c32, Complex64 => c64);

/// Tiny and huge matrices are scaled into the safe range: the ratios hold.
#[test]
fn scaled_extremes() {
    let solver = Solver::new(&Device::cpu()).with_block_sizes(TINY);
    let dev = solver.device();
    for s in [1e-300f64, 1e300] {
        let n = 12;
        let eigs: Vec<f64> = (0..n).map(|i| s * (1.0 + i as f64)).collect();
        let w = hermitian_with(&mut rng(3), &eigs, true);
        let host = store::<Complex64>(&w, n);
        let a = Wide::from(&host, n, n, n).hermitian_from(true);
        let mut buf = dev.upload(&host).unwrap();
        let mut wv = dev.alloc::<f64>(n).unwrap();
        let info = solver
            .heevd(
                Evect::Original,
                Uplo::Lower,
                n,
                &mut buf.as_slice_mut(),
                n,
                &mut wv.as_slice_mut(),
            )
            .unwrap();
        assert!(info.is_ok());
        let vals = wv.to_vec().unwrap();
        let r = reference::values_ratio::<Complex64>(&vals, &eigs, a.norm1());
        assert!(r < THRESHOLD, "scale {s}: {r}");
        let r = reference::orthogonality_ratio::<Complex64>(&wide(&buf, n, n, n));
        assert!(r < THRESHOLD, "scale {s}: orthogonality {r}");
    }
}

/// A NaN never converges: `info` counts the unconverged off-diagonal elements.
#[test]
fn nan_reports_non_convergence() {
    let solver = Solver::new(&Device::cpu());
    let dev = solver.device();
    let n = 5;
    let mut host = store::<f32>(&Wide::identity(n), n);
    host[1] = 0.5;
    host[2 + n] = f32::NAN;
    for evect in [Evect::None, Evect::Original] {
        let mut buf = dev.upload(&host).unwrap();
        let mut wv = dev.alloc::<f32>(n).unwrap();
        let info = solver
            .syevd(
                evect,
                Uplo::Lower,
                n,
                &mut buf.as_slice_mut(),
                n,
                &mut wv.as_slice_mut(),
            )
            .unwrap();
        assert!(info.0 > 0 && info.0 < n, "{info:?}");
    }
}

#[test]
fn invalid_arguments_are_errors() {
    let solver = Solver::new(&Device::cpu());
    let dev = solver.device();
    let mut a = dev.alloc::<Complex32>(16).unwrap();
    let mut w = dev.alloc::<f32>(3).unwrap();
    let e = solver
        .heevd(
            Evect::None,
            Uplo::Lower,
            4,
            &mut a.as_slice_mut(),
            4,
            &mut w.as_slice_mut(),
        )
        .unwrap_err();
    assert!(e.to_string().contains('w'), "{e}");
    let e = solver
        .heevd(
            Evect::None,
            Uplo::Lower,
            4,
            &mut a.as_slice_mut(),
            3,
            &mut w.as_slice_mut(),
        )
        .unwrap_err();
    assert!(e.to_string().contains("lda"), "{e}");
    let mut d = dev.alloc::<f32>(4).unwrap();
    let mut e2 = dev.alloc::<f32>(2).unwrap();
    let mut tau = dev.alloc::<Complex32>(3).unwrap();
    let e = solver
        .hetrd(
            Uplo::Upper,
            4,
            &mut a.as_slice_mut(),
            4,
            &mut d.as_slice_mut(),
            &mut e2.as_slice_mut(),
            &mut tau.as_slice_mut(),
        )
        .unwrap_err();
    assert!(e.to_string().contains('e'), "{e}");
    let mut c = dev.alloc::<Complex32>(16).unwrap();
    let e = solver
        .unmtr(
            Side::Left,
            Uplo::Lower,
            Transpose::T,
            4,
            4,
            &a.as_slice(),
            4,
            &tau.as_slice(),
            &mut c.as_slice_mut(),
            4,
        )
        .unwrap_err();
    assert!(e.to_string().contains("trans"), "{e}");
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(12))]

    /// Random orders, padding, block sizes and triangles: the eigen ratios stay below 30.
    #[test]
    fn syevd_any_order(n in 0usize..40, pad in 0usize..3, nb in 1usize..7, seed in 0u64..1000) {
        let sizes = rocm_solver::BlockSizes { getrf: nb, potrf: nb, getri: nb, geqrf: nb,
            sytrd: nb, gebrd: nb, unblocked: 2, small: 0 };
        let solver = Solver::new(&Device::cpu()).with_block_sizes(sizes);
        let uplo = if seed % 3 == 0 { Uplo::Upper } else { Uplo::Lower };
        let ld = n.max(1) + pad;
        let (name, w, _) = cases::<Complex32>(seed, n).remove(0);
        let host = store::<Complex32>(&w, ld);
        let a = Wide::from(&host, n, n, ld).hermitian_from(uplo == Uplo::Lower);
        let dev = solver.device();
        let mut buf = dev.upload(&host).unwrap();
        let mut wv = dev.alloc::<f32>(n.max(1)).unwrap();
        let info = solver
            .heevd(Evect::Original, uplo, n, &mut buf.as_slice_mut(), ld, &mut wv.as_slice_mut())
            .unwrap();
        assert!(info.is_ok());
        let vals: Vec<f64> = wv.to_vec().unwrap()[..n].iter().map(|&x| x as f64).collect();
        let r = reference::eigen_ratio::<Complex32>(&a, &wide(&buf, n, n, ld), &vals);
        assert!(r < THRESHOLD, "{name} n {n} nb {nb} {uplo:?}: {r}");
    }
}
