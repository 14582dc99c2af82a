//! rocm-solver against the reference: LAPACK test ratios (below 30) on random,
//! ill-conditioned, rank-deficient and special matrices, `info` on singular and
//! indefinite inputs, argument errors, for f32, f64, Complex32 and Complex64, on the
//! blocked path with tiny blocks and with the CPU table's block sizes.

mod common;

use common::*;
use num_complex::{Complex32, Complex64};
use proptest::prelude::*;
use rocm_core::Device;
use rocm_solver::reference::{self, Wide};
use rocm_solver::{Diag, Info, Scalar, Side, Solver, Transpose, Uplo};

/// Condition numbers of the ill-conditioned cases: 1e6 for double precision, 1e3 for
/// single (whose ε is 1.2e-7).
fn cond<T: Scalar>() -> f64 {
    if reference::eps::<T>() < 1e-10 {
        1e6
    } else {
        1e3
    }
}

/// Square and rectangular general test matrices: (name, matrix, expected info or None
/// when exact zero pivots cannot be predicted).
fn general_cases<T: Scalar>(seed: u64, m: usize, n: usize) -> Vec<(String, Wide, Option<usize>)> {
    let c = T::IS_COMPLEX;
    let mut r = rng(seed);
    let k = m.min(n);
    let mut out = vec![
        ("random".to_string(), random(&mut r, m, n, c), Some(0)),
        (
            "zero".to_string(),
            Wide::zeros(m, n),
            Some(if k > 0 { 1 } else { 0 }),
        ),
    ];
    let mut eye = Wide::zeros(m, n);
    let mut diag = Wide::zeros(m, n);
    for i in 0..k {
        eye.set(i, i, Complex64::new(1.0, 0.0));
        diag.set(
            i,
            i,
            Complex64::new(1.0 + i as f64, if c { -0.5 } else { 0.0 }),
        );
    }
    out.push(("identity".into(), eye, Some(0)));
    out.push(("diagonal".into(), diag, Some(0)));
    if k > 1 {
        out.push((
            "rank-deficient".into(),
            rank_deficient(&mut r, m, n, k / 2, c),
            None,
        ));
        // A zero column j: U[j, j] is exactly zero, the first zero pivot.
        let j = k / 2;
        let mut z = random(&mut r, m, n, c);
        for i in 0..m {
            z.set(i, j, Complex64::new(0.0, 0.0));
        }
        out.push(("zero-column".into(), z, Some(j + 1)));
    }
    if m == n && n > 1 {
        out.push((
            "ill-conditioned".into(),
            ill_conditioned(&mut r, n, cond::<T>(), c),
            Some(0),
        ));
    }
    out
}

fn getrf_case<T: Scalar>(solver: &Solver, name: &str, w: &Wide, ld: usize, expect: Option<usize>) {
    let dev = solver.device();
    let (m, n) = (w.rows, w.cols);
    let host = store::<T>(w, ld);
    let a = Wide::from(&host, m, n, ld);
    let mut buf = dev.upload(&host).unwrap();
    let mut ipiv = dev.alloc::<i32>(m.min(n).max(1)).unwrap();
    let info = solver
        .getrf(m, n, &mut buf.as_slice_mut(), ld, &mut ipiv.as_slice_mut())
        .unwrap();
    if let Some(e) = expect {
        assert_eq!(info, Info(e), "{name} {m}x{n} info");
    }
    let lu = buf.to_vec().unwrap();
    // Padding rows between m and ld are never written.
    for j in 0..n {
        for i in m..ld {
            assert_eq!(lu[i + j * ld], host[i + j * ld], "{name}: padding written");
        }
    }
    let piv = zero_based(&ipiv.to_vec().unwrap()[..m.min(n)]);
    for (i, &p) in piv.iter().enumerate() {
        assert!(p >= i && p < m, "{name}: pivot {p} at {i}");
    }
    let ratio = reference::lu_ratio::<T>(&a, &Wide::from(&lu, m, n, ld), &piv);
    assert!(
        ratio < THRESHOLD,
        "{name} {m}x{n} ld {ld}: LU ratio {ratio}"
    );

    if m == n && info.is_ok() && n > 0 {
        // Solves with several right-hand sides, every op.
        let nrhs = 3;
        for trans in Transpose::ALL {
            let xw = random(&mut rng(m as u64), n, nrhs, T::IS_COMPLEX);
            let opa = match trans {
                Transpose::N => a.clone(),
                Transpose::T => {
                    let mut t = a.adjoint();
                    t.data.iter_mut().for_each(|z| *z = z.conj());
                    t
                }
                Transpose::C => a.adjoint(),
            };
            let bh = store::<T>(&xw, n + 1);
            let bw = Wide::from(&bh, n, nrhs, n + 1);
            let mut b = dev.upload(&bh).unwrap();
            solver
                .getrs(
                    trans,
                    n,
                    nrhs,
                    &buf.as_slice(),
                    ld,
                    &ipiv.as_slice(),
                    &mut b.as_slice_mut(),
                    n + 1,
                )
                .unwrap();
            let x = Wide::from(&b.to_vec().unwrap(), n, nrhs, n + 1);
            let ratio = reference::solve_ratio::<T>(&opa, &x, &bw);
            assert!(
                ratio < THRESHOLD,
                "{name} n {n} getrs {trans:?}: ratio {ratio}"
            );
        }
        // Inverse.
        let mut inv = dev.upload(&lu).unwrap();
        let info = solver
            .getri(n, &mut inv.as_slice_mut(), ld, &ipiv.as_slice())
            .unwrap();
        assert!(info.is_ok());
        let ratio =
            reference::inverse_ratio::<T>(&a, &Wide::from(&inv.to_vec().unwrap(), n, n, ld));
        assert!(ratio < THRESHOLD, "{name} n {n} getri: ratio {ratio}");
    }
    if m == n && !info.is_ok() {
        // GETRI reports the same zero pivot and leaves A alone.
        let mut inv = dev.upload(&lu).unwrap();
        let i2 = solver
            .getri(n, &mut inv.as_slice_mut(), ld, &ipiv.as_slice())
            .unwrap();
        if expect.is_some() {
            assert_eq!(i2, info, "{name}: getri info");
            assert_eq!(inv.to_vec().unwrap(), lu);
        }
    }
}

fn lu_suite<T: Scalar>() {
    for (label, solver) in solvers() {
        for &(m, n) in &[
            (0, 0),
            (1, 1),
            (2, 2),
            (7, 7),
            (13, 13),
            (37, 37),
            (70, 70),
            (29, 11),
            (11, 29),
            (64, 40),
        ] {
            for (name, w, expect) in general_cases::<T>(m as u64 * 131 + n as u64, m, n) {
                let name = format!("{label}/{name}");
                getrf_case::<T>(&solver, &name, &w, m.max(1), expect);
                getrf_case::<T>(&solver, &name, &w, m + 3, expect);
            }
        }
    }
}

fn spd_cases<T: Scalar>(seed: u64, n: usize) -> Vec<(String, Wide)> {
    let c = T::IS_COMPLEX;
    let mut r = rng(seed);
    let mut diag = Wide::zeros(n, n);
    for i in 0..n {
        diag.set(i, i, Complex64::new(1.0 + i as f64, 0.0));
    }
    vec![
        ("random-spd".into(), spd(&mut r, n, 10.0, c)),
        ("ill-conditioned-spd".into(), spd(&mut r, n, cond::<T>(), c)),
        ("identity".into(), Wide::identity(n)),
        ("diagonal".into(), diag),
    ]
}

fn cholesky_case<T: Scalar>(solver: &Solver, name: &str, w: &Wide, uplo: Uplo, ld: usize) {
    let dev = solver.device();
    let n = w.rows;
    let lower = uplo == Uplo::Lower;
    let host = store::<T>(w, ld);
    let a = Wide::from(&host, n, n, ld).hermitian_from(lower);
    let mut buf = dev.upload(&host).unwrap();
    let info = solver.potrf(uplo, n, &mut buf.as_slice_mut(), ld).unwrap();
    assert!(info.is_ok(), "{name} n {n}: info {info:?}");
    let f = buf.to_vec().unwrap();
    // The other triangle is never written.
    for j in 0..n {
        for i in 0..n {
            if (lower && i < j) || (!lower && i > j) {
                assert_eq!(
                    f[i + j * ld],
                    host[i + j * ld],
                    "{name}: other triangle written at ({i}, {j}), n {n} ld {ld} {uplo:?}"
                );
            }
        }
    }
    let ratio = reference::cholesky_ratio::<T>(&a, &Wide::from(&f, n, n, ld), lower);
    assert!(
        ratio < THRESHOLD,
        "{name} n {n} {uplo:?}: Cholesky ratio {ratio}"
    );
    if n == 0 {
        return;
    }
    let nrhs = 4;
    let xw = random(&mut rng(n as u64 + 5), n, nrhs, T::IS_COMPLEX);
    let bh = store::<T>(&xw, n);
    let bw = Wide::from(&bh, n, nrhs, n);
    let mut b = dev.upload(&bh).unwrap();
    solver
        .potrs(uplo, n, nrhs, &buf.as_slice(), ld, &mut b.as_slice_mut(), n)
        .unwrap();
    let x = Wide::from(&b.to_vec().unwrap(), n, nrhs, n);
    let ratio = reference::solve_ratio::<T>(&a, &x, &bw);
    assert!(ratio < THRESHOLD, "{name} n {n} potrs: ratio {ratio}");
    // posv gives the same answer in one call.
    let mut a2 = dev.upload(&host).unwrap();
    let mut b2 = dev.upload(&bh).unwrap();
    let info = solver
        .posv(
            uplo,
            n,
            nrhs,
            &mut a2.as_slice_mut(),
            ld,
            &mut b2.as_slice_mut(),
            n,
        )
        .unwrap();
    assert!(info.is_ok());
    assert_eq!(
        b2.to_vec().unwrap(),
        b.to_vec().unwrap(),
        "{name}: posv != potrf+potrs"
    );
    // Inverse.
    let info = solver.potri(uplo, n, &mut buf.as_slice_mut(), ld).unwrap();
    assert!(info.is_ok());
    let inv = Wide::from(&buf.to_vec().unwrap(), n, n, ld).hermitian_from(lower);
    let ratio = reference::inverse_ratio::<T>(&a, &inv);
    assert!(ratio < THRESHOLD, "{name} n {n} potri: ratio {ratio}");
}

fn cholesky_suite<T: Scalar>() {
    for (label, solver) in solvers() {
        for &n in &[0usize, 1, 2, 5, 12, 31, 48, 67] {
            for (name, w) in spd_cases::<T>(n as u64 + 77, n) {
                for uplo in Uplo::ALL {
                    let name = format!("{label}/{name}");
                    cholesky_case::<T>(&solver, &name, &w, uplo, n.max(1));
                    cholesky_case::<T>(&solver, &name, &w, uplo, n + 2);
                }
            }
            // Indefinite: info names the first leading minor that is not positive.
            for k in [0, n / 2, n.saturating_sub(1)] {
                if n == 0 {
                    continue;
                }
                let w = indefinite_at(&mut rng(k as u64), n, k, T::IS_COMPLEX);
                for uplo in Uplo::ALL {
                    let mut buf = solver.device().upload(&store::<T>(&w, n)).unwrap();
                    let info = solver.potrf(uplo, n, &mut buf.as_slice_mut(), n).unwrap();
                    assert_eq!(
                        info,
                        Info(k + 1),
                        "{label} n {n} indefinite at {k} {uplo:?}"
                    );
                    let mut b = solver.device().alloc::<T>(n).unwrap();
                    let mut a = solver.device().upload(&store::<T>(&w, n)).unwrap();
                    let info = solver
                        .posv(
                            uplo,
                            n,
                            1,
                            &mut a.as_slice_mut(),
                            n,
                            &mut b.as_slice_mut(),
                            n,
                        )
                        .unwrap();
                    assert_eq!(info, Info(k + 1));
                }
            }
        }
    }
}

fn trtri_suite<T: Scalar>() {
    for (label, solver) in solvers() {
        for &n in &[0usize, 1, 3, 10, 29, 50] {
            let mut r = rng(n as u64 + 3);
            // Diagonal dominant enough to be well conditioned.
            let mut w = random(&mut r, n, n, T::IS_COMPLEX);
            for i in 0..n {
                w.set(i, i, Complex64::new(2.0 + i as f64 % 3.0, 0.5));
            }
            for uplo in Uplo::ALL {
                for diag in Diag::ALL {
                    let lower = uplo == Uplo::Lower;
                    let host = store::<T>(&w, n + 1);
                    let t = Wide::from(&host, n, n, n + 1).triangle(lower, diag == Diag::Unit);
                    let mut buf = solver.device().upload(&host).unwrap();
                    let info = solver
                        .trtri(uplo, diag, n, &mut buf.as_slice_mut(), n + 1)
                        .unwrap();
                    assert!(info.is_ok());
                    let out = buf.to_vec().unwrap();
                    let inv = Wide::from(&out, n, n, n + 1).triangle(lower, diag == Diag::Unit);
                    let ratio = reference::inverse_ratio::<T>(&t, &inv);
                    assert!(
                        ratio < THRESHOLD,
                        "{label} trtri n {n} {uplo:?} {diag:?}: {ratio}"
                    );
                    // The other triangle (and a unit diagonal) is untouched.
                    for j in 0..n {
                        for i in 0..n {
                            let strict = if lower { i < j } else { i > j };
                            if strict || (i == j && diag == Diag::Unit) {
                                assert_eq!(out[i + j * (n + 1)], host[i + j * (n + 1)]);
                            }
                        }
                    }
                }
            }
            if n > 1 {
                let mut host = store::<T>(&w, n);
                host[(n / 2) * (n + 1)] = T::zero();
                let mut buf = solver.device().upload(&host).unwrap();
                let info = solver
                    .trtri(Uplo::Upper, Diag::NonUnit, n, &mut buf.as_slice_mut(), n)
                    .unwrap();
                assert_eq!(info, Info(n / 2 + 1));
                assert_eq!(buf.to_vec().unwrap(), host, "singular trtri must not write");
            }
        }
    }
}

macro_rules! per_dtype {
    ($($t:ty => $m:ident),*) => {$(
        mod $m {
            use super::*;
            #[test]
            fn lu() {
                lu_suite::<$t>();
            }
            #[test]
            fn cholesky() {
                cholesky_suite::<$t>();
            }
            #[test]
            fn trtri() {
                trtri_suite::<$t>();
            }
        }
    )*};
}
per_dtype!(f32 => f32_, f64 => f64_, Complex32 => c32, Complex64 => c64);

#[test]
fn gesv_matches_getrf_getrs() {
    let solver = Solver::new(&Device::cpu()).with_block_sizes(TINY);
    let n = 23;
    let w = random(&mut rng(9), n, n, false);
    let host = store::<f64>(&w, n);
    let b0 = store::<f64>(&random(&mut rng(10), n, 2, false), n);
    let dev = solver.device();
    let (mut a, mut b, mut p) = (
        dev.upload(&host).unwrap(),
        dev.upload(&b0).unwrap(),
        dev.alloc::<i32>(n).unwrap(),
    );
    let info = solver
        .gesv(
            n,
            2,
            &mut a.as_slice_mut(),
            n,
            &mut p.as_slice_mut(),
            &mut b.as_slice_mut(),
            n,
        )
        .unwrap();
    assert!(info.is_ok());
    let (mut a2, mut b2, mut p2) = (
        dev.upload(&host).unwrap(),
        dev.upload(&b0).unwrap(),
        dev.alloc::<i32>(n).unwrap(),
    );
    solver
        .getrf(n, n, &mut a2.as_slice_mut(), n, &mut p2.as_slice_mut())
        .unwrap();
    solver
        .getrs(
            Transpose::N,
            n,
            2,
            &a2.as_slice(),
            n,
            &p2.as_slice(),
            &mut b2.as_slice_mut(),
            n,
        )
        .unwrap();
    assert_eq!(b.to_vec().unwrap(), b2.to_vec().unwrap());
    // A singular system leaves B alone and reports the pivot.
    let mut z = host.clone();
    z[..n].iter_mut().for_each(|x| *x = 0.0);
    let (mut a3, mut b3) = (dev.upload(&z).unwrap(), dev.upload(&b0).unwrap());
    let info = solver
        .gesv(
            n,
            2,
            &mut a3.as_slice_mut(),
            n,
            &mut p.as_slice_mut(),
            &mut b3.as_slice_mut(),
            n,
        )
        .unwrap();
    assert_eq!(info, Info(1));
    assert_eq!(b3.to_vec().unwrap(), b0);
}

#[test]
fn invalid_arguments_are_errors() {
    let solver = Solver::new(&Device::cpu());
    let dev = solver.device();
    let mut a = dev.alloc::<f64>(16).unwrap();
    let mut p = dev.alloc::<i32>(4).unwrap();
    let mut short = dev.alloc::<i32>(3).unwrap();
    let mut b = dev.alloc::<f64>(8).unwrap();
    let e = solver
        .getrf(4, 4, &mut a.as_slice_mut(), 3, &mut p.as_slice_mut())
        .unwrap_err();
    assert!(e.to_string().contains("lda"), "{e}");
    let e = solver
        .getrf(5, 4, &mut a.as_slice_mut(), 5, &mut p.as_slice_mut())
        .unwrap_err();
    assert!(e.to_string().contains('a'), "{e}");
    let e = solver
        .getrf(4, 4, &mut a.as_slice_mut(), 4, &mut short.as_slice_mut())
        .unwrap_err();
    assert!(e.to_string().contains("ipiv"), "{e}");
    // Pivots outside 1..=n are rejected, not followed.
    let bad = dev.upload(&[1i32, 9, 3, 4]).unwrap();
    let e = solver
        .getrs(
            Transpose::N,
            4,
            2,
            &a.as_slice(),
            4,
            &bad.as_slice(),
            &mut b.as_slice_mut(),
            4,
        )
        .unwrap_err();
    assert!(e.to_string().contains("ipiv[1]"), "{e}");
    let e = solver
        .getrs(
            Transpose::N,
            4,
            3,
            &a.as_slice(),
            4,
            &p.as_slice(),
            &mut b.as_slice_mut(),
            4,
        )
        .unwrap_err();
    assert!(e.to_string().contains('b'), "{e}");
    let e = solver
        .potrf(Uplo::Lower, 4, &mut a.as_slice_mut(), 2)
        .unwrap_err();
    assert!(e.to_string().contains("lda"), "{e}");
    let e = solver
        .trtri(Uplo::Lower, Diag::Unit, 5, &mut a.as_slice_mut(), 5)
        .unwrap_err();
    assert!(e.to_string().contains('a'), "{e}");
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]

    /// Random shapes, padding and block sizes: the LU ratio stays below 30.
    #[test]
    fn getrf_any_shape(m in 0usize..40, n in 0usize..40, pad in 0usize..4,
                       nb in 1usize..12, base in 1usize..6, seed in 0u64..1000) {
        let sizes = rocm_solver::BlockSizes { getrf: nb, potrf: nb, getri: nb,
            geqrf: nb, sytrd: nb, gebrd: nb, unblocked: base, small: 0 };
        let solver = Solver::new(&Device::cpu()).with_block_sizes(sizes);
        let w = random(&mut rng(seed), m, n, seed % 2 == 0);
        if seed % 2 == 0 {
            getrf_case::<Complex64>(&solver, "prop", &w, m + pad.max(usize::from(m == 0)), Some(0));
        } else {
            getrf_case::<f32>(&solver, "prop", &w, m + pad.max(usize::from(m == 0)), Some(0));
        }
    }

    /// Random orders and block sizes: the Cholesky ratios stay below 30.
    #[test]
    fn potrf_any_order(n in 1usize..40, nb in 1usize..12, base in 1usize..6, seed in 0u64..1000) {
        let sizes = rocm_solver::BlockSizes { getrf: nb, potrf: nb, getri: nb,
            geqrf: nb, sytrd: nb, gebrd: nb, unblocked: base, small: 0 };
        let solver = Solver::new(&Device::cpu()).with_block_sizes(sizes);
        let w = spd(&mut rng(seed), n, 100.0, true);
        let uplo = if seed % 2 == 0 { Uplo::Lower } else { Uplo::Upper };
        cholesky_case::<Complex32>(&solver, "prop", &w, uplo, n);
    }
}

/// Strided-batched and batched GETRF/GETRS/POTRF/POTRS agree with single calls problem by
/// problem (bit for bit: each problem runs the same code), including singular and
/// indefinite problems in the middle of a batch.
fn batched_suite<T: Scalar>() {
    for (label, solver) in solvers() {
        let dev = solver.device();
        for &(n, count) in &[(0usize, 3usize), (1, 4), (9, 7), (33, 5)] {
            let (lda, nrhs) = (n + 1, 2);
            let stride = lda * n.max(1) + 3;
            let mut r = rng(n as u64 * 17 + count as u64);
            let mut a = vec![T::zero(); stride * count];
            let mut s = vec![T::zero(); stride * count];
            for p in 0..count {
                let mut g = random(&mut r, n, n, T::IS_COMPLEX);
                if p == 1 && n > 1 {
                    g = Wide::zeros(n, n);
                }
                let h = if p == 2 && n > 0 {
                    indefinite_at(&mut r, n, n / 2, T::IS_COMPLEX)
                } else {
                    spd(&mut r, n, 10.0, T::IS_COMPLEX)
                };
                a[p * stride..p * stride + lda * n]
                    .copy_from_slice(&store::<T>(&g, lda)[..lda * n]);
                s[p * stride..p * stride + lda * n]
                    .copy_from_slice(&store::<T>(&h, lda)[..lda * n]);
            }
            let bstride = n * nrhs + 1;
            let b0: Vec<T> = store::<T>(
                &random(&mut r, bstride * count, 1, T::IS_COMPLEX),
                bstride * count,
            );

            // GETRF + GETRS.
            let mut ab = dev.upload(&a).unwrap();
            let pstride = n + 2;
            let mut pb = dev.alloc::<i32>(pstride * count + 1).unwrap();
            let infos = solver
                .getrf_strided_batched(
                    n,
                    n,
                    &mut ab.as_slice_mut(),
                    lda,
                    stride,
                    &mut pb.as_slice_mut(),
                    pstride,
                    count,
                )
                .unwrap();
            let mut bb = dev.upload(&b0).unwrap();
            let ok: Vec<usize> = (0..count).filter(|&p| infos[p].is_ok()).collect();
            // GETRS on every problem whose factorisation succeeded, through one call per
            // run of good problems (a singular one would divide by zero).
            let (lu, piv) = (ab.to_vec().unwrap(), pb.to_vec().unwrap());
            for p in 0..count {
                let mut one = dev
                    .upload(&a[p * stride..p * stride + lda * n.max(1)])
                    .unwrap();
                let mut piv1 = dev.alloc::<i32>(n.max(1)).unwrap();
                let info = solver
                    .getrf(n, n, &mut one.as_slice_mut(), lda, &mut piv1.as_slice_mut())
                    .unwrap();
                assert_eq!(info, infos[p], "{label} n {n} problem {p} info");
                assert_eq!(
                    &one.to_vec().unwrap()[..lda * n],
                    &lu[p * stride..p * stride + lda * n]
                );
                assert_eq!(
                    &piv1.to_vec().unwrap()[..n],
                    &piv[p * pstride..p * pstride + n]
                );
            }
            // GETRS over the problems after the singular one (problem 1 when n > 1).
            let first = if n > 1 { 2 } else { 0 };
            assert!(ok.iter().all(|&p| p != 1 || n <= 1));
            if n > 0 && count > first {
                let av = ab.as_slice();
                let pv = pb.as_slice();
                let mut bv = bb.as_slice_mut();
                solver
                    .getrs_strided_batched(
                        Transpose::N,
                        n,
                        nrhs,
                        &av.slice(first * stride..).unwrap(),
                        lda,
                        stride,
                        &pv.slice(first * pstride..).unwrap(),
                        pstride,
                        &mut bv.slice_mut(first * bstride..).unwrap(),
                        n,
                        bstride,
                        count - first,
                    )
                    .unwrap();
                let xb = bb.to_vec().unwrap();
                for p in first..count {
                    let mut b1 = dev
                        .upload(&b0[p * bstride..p * bstride + n * nrhs])
                        .unwrap();
                    let a1 = dev.upload(&lu[p * stride..p * stride + lda * n]).unwrap();
                    let p1 = dev.upload(&piv[p * pstride..p * pstride + n]).unwrap();
                    solver
                        .getrs(
                            Transpose::N,
                            n,
                            nrhs,
                            &a1.as_slice(),
                            lda,
                            &p1.as_slice(),
                            &mut b1.as_slice_mut(),
                            n,
                        )
                        .unwrap();
                    assert_eq!(
                        b1.to_vec().unwrap(),
                        &xb[p * bstride..p * bstride + n * nrhs]
                    );
                }
            }
            if n > 1 {
                assert_eq!(infos[1], Info(1), "{label}: zero matrix in the batch");
            }

            // POTRF + POTRS, strided and as an array of views.
            for uplo in Uplo::ALL {
                let mut sb = dev.upload(&s).unwrap();
                let infos = solver
                    .potrf_strided_batched(uplo, n, &mut sb.as_slice_mut(), lda, stride, count)
                    .unwrap();
                let f = sb.to_vec().unwrap();
                let mut bufs: Vec<_> = (0..count)
                    .map(|p| {
                        dev.upload(&s[p * stride..p * stride + lda * n.max(1)])
                            .unwrap()
                    })
                    .collect();
                let mut views: Vec<_> = bufs.iter_mut().map(|b| b.as_slice_mut()).collect();
                let infos2 = solver.potrf_batched(uplo, n, &mut views, lda).unwrap();
                assert_eq!(infos, infos2);
                for p in 0..count {
                    let mut one = dev
                        .upload(&s[p * stride..p * stride + lda * n.max(1)])
                        .unwrap();
                    let info = solver.potrf(uplo, n, &mut one.as_slice_mut(), lda).unwrap();
                    assert_eq!(info, infos[p], "{label} n {n} problem {p} potrf info");
                    assert_eq!(
                        &one.to_vec().unwrap()[..lda * n],
                        &f[p * stride..p * stride + lda * n]
                    );
                    assert_eq!(
                        &bufs[p].to_vec().unwrap()[..lda * n],
                        &f[p * stride..p * stride + lda * n]
                    );
                }
                if n > 0 {
                    assert_eq!(
                        infos[2],
                        Info(n / 2 + 1),
                        "{label}: indefinite problem in the batch"
                    );
                    // POTRS over the problems other than the indefinite one.
                    let good = [0usize, 1];
                    let mut bb = dev.upload(&b0).unwrap();
                    solver
                        .potrs_strided_batched(
                            uplo,
                            n,
                            nrhs,
                            &sb.as_slice(),
                            lda,
                            stride,
                            &mut bb.as_slice_mut(),
                            n,
                            bstride,
                            2,
                        )
                        .unwrap();
                    let xb = bb.to_vec().unwrap();
                    for p in good {
                        let a1 = dev.upload(&f[p * stride..p * stride + lda * n]).unwrap();
                        let mut b1 = dev
                            .upload(&b0[p * bstride..p * bstride + n * nrhs])
                            .unwrap();
                        solver
                            .potrs(
                                uplo,
                                n,
                                nrhs,
                                &a1.as_slice(),
                                lda,
                                &mut b1.as_slice_mut(),
                                n,
                            )
                            .unwrap();
                        assert_eq!(
                            b1.to_vec().unwrap(),
                            &xb[p * bstride..p * bstride + n * nrhs]
                        );
                    }
                }
            }
        }
        // Overlapping output strides are errors.
        let mut a = dev.alloc::<T>(64).unwrap();
        let mut p = dev.alloc::<i32>(64).unwrap();
        let e = solver
            .getrf_strided_batched(
                4,
                4,
                &mut a.as_slice_mut(),
                4,
                10,
                &mut p.as_slice_mut(),
                4,
                3,
            )
            .unwrap_err();
        assert!(e.to_string().contains("stride_a"), "{e}");
    }
}

#[test]
fn batched_f64() {
    batched_suite::<f64>();
}

#[test]
fn batched_c32() {
    batched_suite::<Complex32>();
}

/// Opt-in (ROCM_FULL_TESTS=1): the CPU table's block sizes across several panels
/// (n above 2·256), every dtype, LU and Cholesky ratios.
#[test]
fn full_sizes_opt_in() {
    if std::env::var("ROCM_FULL_TESTS").as_deref() != Ok("1") {
        return;
    }
    let solver = Solver::new(&Device::cpu());
    for &n in &[300usize, 577] {
        let w = random(&mut rng(n as u64), n, n, false);
        getrf_case::<f64>(&solver, "full", &w, n, Some(0));
        getrf_case::<f32>(&solver, "full", &w, n + 1, Some(0));
        let wc = random(&mut rng(n as u64), n, n, true);
        getrf_case::<Complex64>(&solver, "full", &wc, n, Some(0));
        let s = spd(&mut rng(n as u64), n, 1e4, true);
        cholesky_case::<Complex32>(&solver, "full", &s, Uplo::Lower, n);
        cholesky_case::<Complex64>(&solver, "full", &s, Uplo::Upper, n);
    }
}

/// GEQRF + ORGQR/UNGQR: ‖A − Q·R‖ / (max(m, n)·‖A‖·ε) and ‖I − QᴴQ‖ / (m·ε) below 30
/// on random, ill-conditioned, rank-deficient, zero and identity matrices, tall and wide,
/// blocked (tiny blocks) and with the CPU table.
fn qr_suite<T: Scalar>() {
    for (label, solver) in solvers() {
        let dev = solver.device();
        for &(m, n) in &[
            (0usize, 0usize),
            (1, 1),
            (5, 3),
            (3, 5),
            (17, 17),
            (40, 23),
            (23, 40),
            (70, 70),
        ] {
            let mut cases = general_cases::<T>(m as u64 * 7 + n as u64, m, n);
            if m == n && n > 1 {
                cases.push((
                    "ill-conditioned".into(),
                    ill_conditioned(&mut rng(5), n, cond::<T>(), T::IS_COMPLEX),
                    None,
                ));
            }
            for (name, w, _) in cases {
                let ld = m + 2;
                let host = store::<T>(&w, ld);
                let a = Wide::from(&host, m, n, ld);
                let k = m.min(n);
                let mut buf = dev.upload(&host).unwrap();
                let mut tau = dev.alloc::<T>(k.max(1)).unwrap();
                solver
                    .geqrf(m, n, &mut buf.as_slice_mut(), ld, &mut tau.as_slice_mut())
                    .unwrap();
                let out = buf.to_vec().unwrap();
                // Q's first k columns from the first k columns of the factor.
                let mut qb = dev.upload(&out[..(ld * k).max(1).min(out.len())]).unwrap();
                solver
                    .ungqr(m, k, k, &mut qb.as_slice_mut(), ld, &tau.as_slice())
                    .unwrap();
                let q = Wide::from(&qb.to_vec().unwrap(), m, k, ld);
                let r1 = reference::qr_ratio::<T>(&a, &q, &Wide::from(&out, m, n, ld));
                let r2 = reference::orthogonality_ratio::<T>(&q);
                assert!(r1 < THRESHOLD, "{label}/{name} {m}x{n}: QR ratio {r1}");
                assert!(
                    r2 < THRESHOLD,
                    "{label}/{name} {m}x{n}: orthogonality ratio {r2}"
                );
            }
        }
    }
}

#[test]
fn qr_all_dtypes() {
    qr_suite::<f32>();
    qr_suite::<f64>();
    qr_suite::<Complex32>();
    qr_suite::<Complex64>();
}

/// ORMQR/UNMQR against the explicit Q, and GELS (m >= n, several right-hand sides): the
/// least-squares ratio ‖Aᴴ·(B − A·X)‖ / (m·‖A‖·(‖A‖·‖X‖ + ‖B‖)·ε) below 30, and `info`
/// naming an exactly zero R[j, j].
fn gels_suite<T: Scalar>() {
    for (label, solver) in solvers() {
        let dev = solver.device();
        for &(m, n, nrhs) in &[
            (1usize, 1usize, 1usize),
            (9, 4, 2),
            (30, 30, 3),
            (45, 17, 5),
        ] {
            let mut r = rng(m as u64 * 3 + n as u64);
            for (name, w) in [
                ("random", random(&mut r, m, n, T::IS_COMPLEX)),
                (
                    "ill-conditioned",
                    ill_conditioned(&mut r, m, cond::<T>(), T::IS_COMPLEX),
                ),
            ] {
                let w = if name == "ill-conditioned" {
                    let mut c = Wide::zeros(m, n);
                    c.data.copy_from_slice(&w.data[..m * n]);
                    c
                } else {
                    w
                };
                let host = store::<T>(&w, m);
                let a = Wide::from(&host, m, n, m);
                let bh = store::<T>(&random(&mut r, m, nrhs, T::IS_COMPLEX), m);
                let bw = Wide::from(&bh, m, nrhs, m);
                // ORMQR(N) of the identity's first k columns is UNGQR's Q.
                let k = n;
                let mut f = dev.upload(&host).unwrap();
                let mut tau = dev.alloc::<T>(k).unwrap();
                solver
                    .geqrf(m, n, &mut f.as_slice_mut(), m, &mut tau.as_slice_mut())
                    .unwrap();
                let mut e = dev
                    .upload(&store::<T>(
                        &{
                            let mut e = Wide::zeros(m, k);
                            (0..k).for_each(|i| e.set(i, i, Complex64::new(1.0, 0.0)));
                            e
                        },
                        m,
                    ))
                    .unwrap();
                solver
                    .unmqr(
                        Side::Left,
                        Transpose::N,
                        m,
                        k,
                        k,
                        &f.as_slice(),
                        m,
                        &tau.as_slice(),
                        &mut e.as_slice_mut(),
                        m,
                    )
                    .unwrap();
                let mut q = dev.upload(&f.to_vec().unwrap()).unwrap();
                solver
                    .orgqr(m, k, k, &mut q.as_slice_mut(), m, &tau.as_slice())
                    .unwrap();
                let diff = Wide::from(&e.to_vec().unwrap(), m, k, m)
                    .sub(&Wide::from(&q.to_vec().unwrap(), m, k, m))
                    .norm1();
                // Both are products of the same reflectors: they differ by rounding.
                assert!(
                    diff < THRESHOLD * m as f64 * reference::eps::<T>(),
                    "{label} ormqr vs orgqr {diff}"
                );

                let mut ab = dev.upload(&host).unwrap();
                let mut b = dev.upload(&bh).unwrap();
                let info = solver
                    .gels(
                        Transpose::N,
                        m,
                        n,
                        nrhs,
                        &mut ab.as_slice_mut(),
                        m,
                        &mut b.as_slice_mut(),
                        m,
                    )
                    .unwrap();
                assert!(info.is_ok(), "{label}/{name} gels info {info:?}");
                let x = Wide::from(&b.to_vec().unwrap(), n, nrhs, m);
                let resid = bw.sub(&a.mul(&x));
                let num = a.adjoint().mul(&resid).norm1();
                let den = m as f64
                    * a.norm1()
                    * (a.norm1() * x.norm1() + bw.norm1())
                    * reference::eps::<T>();
                let ratio = num / den;
                assert!(
                    ratio < THRESHOLD,
                    "{label}/{name} {m}x{n} gels ratio {ratio}"
                );
            }
            if n > 1 {
                let mut z = random(&mut r, m, n, T::IS_COMPLEX);
                (0..m).for_each(|i| z.set(i, 1, Complex64::new(0.0, 0.0)));
                let mut ab = dev.upload(&store::<T>(&z, m)).unwrap();
                let mut b = dev.alloc::<T>(m * nrhs).unwrap();
                let info = solver
                    .gels(
                        Transpose::N,
                        m,
                        n,
                        nrhs,
                        &mut ab.as_slice_mut(),
                        m,
                        &mut b.as_slice_mut(),
                        m,
                    )
                    .unwrap();
                assert_eq!(info, Info(2), "{label}: zero column 1");
            }
        }
        let mut a = dev.alloc::<T>(12).unwrap();
        let mut b = dev.alloc::<T>(12).unwrap();
        assert!(solver
            .gels(
                Transpose::N,
                3,
                4,
                1,
                &mut a.as_slice_mut(),
                3,
                &mut b.as_slice_mut(),
                3
            )
            .is_err());
    }
}

#[test]
fn gels_all_dtypes() {
    gels_suite::<f32>();
    gels_suite::<f64>();
    gels_suite::<Complex32>();
    gels_suite::<Complex64>();
}
