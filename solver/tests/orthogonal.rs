//! LQ (GELQF, ORGLQ/UNGLQ, ORMLQ/UNMLQ), Q applications from both sides (ORMQR/UNMQR)
//! and GELS in its four cases, against LAPACK's test ratios (below 30), for f32, f64,
//! Complex32 and Complex64, on the blocked path with tiny blocks and with the CPU table.

mod common;

use common::*;
use num_complex::{Complex32, Complex64};
use proptest::prelude::*;
use rocm_core::Device;
use rocm_solver::reference::{self, Wide};
use rocm_solver::{Info, Scalar, Side, Solver, Transpose};

/// Test matrices for the factorisations: random, zero, identity, diagonal,
/// rank-deficient and (square) ill-conditioned.
fn cases<T: Scalar>(seed: u64, m: usize, n: usize) -> Vec<(&'static str, Wide)> {
    let c = T::IS_COMPLEX;
    let mut r = rng(seed);
    let k = m.min(n);
    let d: Vec<f64> = (0..k).map(|i| 1.0 + i as f64).collect();
    let mut out = vec![
        ("random", random(&mut r, m, n, c)),
        ("zero", Wide::zeros(m, n)),
        ("identity", Wide::diagonal(m, n, &vec![1.0; k])),
        ("diagonal", Wide::diagonal(m, n, &d)),
    ];
    if k > 1 {
        out.push(("rank-deficient", rank_deficient(&mut r, m, n, k / 2, c)));
        out.push((
            "ill-conditioned",
            with_singular_values(&mut r, m, n, &geometric(k, cond_for::<T>()), c),
        ));
    }
    out
}

const SHAPES: &[(usize, usize)] = &[
    (0, 0),
    (1, 1),
    (1, 6),
    (5, 3),
    (3, 5),
    (17, 17),
    (23, 40),
    (40, 23),
    (70, 70),
];

/// GELQF + ORGLQ: ‖A − L·Q‖ / (max(m, n)·‖A‖·ε) and ‖I − Q·Qᴴ‖ / (n·ε) below 30.
fn lq_suite<T: Scalar>() {
    for (label, solver) in solvers() {
        let dev = solver.device();
        for &(m, n) in SHAPES {
            for (name, w) in cases::<T>(m as u64 * 11 + n as u64, m, n) {
                let ld = m + 2;
                let host = store::<T>(&w, ld);
                let a = Wide::from(&host, m, n, ld);
                let k = m.min(n);
                let mut buf = dev.upload(&host).unwrap();
                let mut tau = dev.alloc::<T>(k.max(1)).unwrap();
                solver
                    .gelqf(m, n, &mut buf.as_slice_mut(), ld, &mut tau.as_slice_mut())
                    .unwrap();
                let out = buf.to_vec().unwrap();
                for j in 0..n {
                    for i in m..ld {
                        assert_eq!(out[i + j * ld], host[i + j * ld], "padding written");
                    }
                }
                // Q's first k rows from the factor's first k rows.
                let mut qb = dev.upload(&out).unwrap();
                solver
                    .unglq(k, n, k, &mut qb.as_slice_mut(), ld, &tau.as_slice())
                    .unwrap();
                let q = wide(&qb, k, n, ld);
                let r1 = reference::lq_ratio::<T>(&a, &Wide::from(&out, m, n, ld), &q);
                let r2 = reference::row_orthogonality_ratio::<T>(&q);
                assert!(r1 < THRESHOLD, "{label}/{name} {m}x{n}: LQ ratio {r1}");
                assert!(r2 < THRESHOLD, "{label}/{name} {m}x{n}: orthogonality {r2}");
            }
        }
    }
}

/// The full Q (order nq) of a QR (`lq = false`) or LQ factor `out` (m×n, ld) through
/// ORGQR / ORGLQ on a square copy.
fn full_q<T: Scalar>(
    solver: &Solver,
    lq: bool,
    out: &[T],
    m: usize,
    n: usize,
    ld: usize,
    tau: &rocm_core::DeviceBuffer<T>,
) -> Wide {
    let dev = solver.device();
    let k = m.min(n);
    let nq = if lq { n } else { m };
    let mut sq = vec![T::zero(); (nq * nq).max(1)];
    for j in 0..n {
        for i in 0..m {
            let keep = if lq { i < k && j < nq } else { j < k && i < nq };
            if keep {
                sq[i + j * nq] = out[i + j * ld];
            }
        }
    }
    let mut b = dev.upload(&sq).unwrap();
    if lq {
        solver
            .orglq(nq, nq, k, &mut b.as_slice_mut(), nq.max(1), &tau.as_slice())
            .unwrap();
    } else {
        solver
            .orgqr(nq, nq, k, &mut b.as_slice_mut(), nq.max(1), &tau.as_slice())
            .unwrap();
    }
    wide(&b, nq, nq, nq.max(1))
}

/// ORMQR and ORMLQ from both sides, every op, against the explicit Q:
/// ‖op(Q)·C − ref‖ / (nq·‖C‖·ε) below 30.
fn apply_suite<T: Scalar>() {
    for (label, solver) in solvers() {
        let dev = solver.device();
        for &(m, n) in &[(1usize, 1usize), (9, 5), (5, 9), (30, 30), (41, 19)] {
            let k = m.min(n);
            let mut r = rng(m as u64 * 5 + n as u64);
            let w = random(&mut r, m, n, T::IS_COMPLEX);
            for lq in [false, true] {
                let host = store::<T>(&w, m);
                let mut f = dev.upload(&host).unwrap();
                let mut tau = dev.alloc::<T>(k).unwrap();
                if lq {
                    solver
                        .gelqf(m, n, &mut f.as_slice_mut(), m, &mut tau.as_slice_mut())
                        .unwrap();
                } else {
                    solver
                        .geqrf(m, n, &mut f.as_slice_mut(), m, &mut tau.as_slice_mut())
                        .unwrap();
                }
                let out = f.to_vec().unwrap();
                let q = full_q(&solver, lq, &out, m, n, m, &tau);
                let nq = q.rows;
                // The reflectors as ORMQR / ORMLQ take them: nq×k columns or k×nq rows.
                let (refl, lda) = if lq {
                    let mut v = vec![T::zero(); k * n];
                    for j in 0..n {
                        for i in 0..k {
                            v[i + j * k] = out[i + j * m];
                        }
                    }
                    (v, k)
                } else {
                    (out[..m * k].to_vec(), m)
                };
                let rb = dev.upload(&refl).unwrap();
                for side in [Side::Left, Side::Right] {
                    for trans in q_ops::<T>() {
                        let p = 4;
                        let (cm, cn) = match side {
                            Side::Left => (nq, p),
                            Side::Right => (p, nq),
                        };
                        let cw = random(&mut r, cm, cn, T::IS_COMPLEX);
                        let ldc = cm + 1;
                        let mut cb = dev.upload(&store::<T>(&cw, ldc)).unwrap();
                        let args = (side, trans, cm, cn, k);
                        if lq {
                            solver
                                .ormlq(
                                    args.0,
                                    args.1,
                                    args.2,
                                    args.3,
                                    args.4,
                                    &rb.as_slice(),
                                    lda,
                                    &tau.as_slice(),
                                    &mut cb.as_slice_mut(),
                                    ldc,
                                )
                                .unwrap();
                        } else {
                            solver
                                .ormqr(
                                    args.0,
                                    args.1,
                                    args.2,
                                    args.3,
                                    args.4,
                                    &rb.as_slice(),
                                    lda,
                                    &tau.as_slice(),
                                    &mut cb.as_slice_mut(),
                                    ldc,
                                )
                                .unwrap();
                        }
                        let qo = op(&q, trans);
                        let expect = match side {
                            Side::Left => qo.mul(&cw),
                            Side::Right => cw.mul(&qo),
                        };
                        let got = wide(&cb, cm, cn, ldc);
                        let ratio = reference::ratio(
                            got.sub(&expect).norm1(),
                            nq,
                            cw.norm1(),
                            reference::eps::<T>(),
                        );
                        assert!(
                            ratio < THRESHOLD,
                            "{label} lq={lq} {m}x{n} {side:?} {trans:?}: {ratio}"
                        );
                    }
                }
            }
        }
    }
}

/// One GELS problem: least-squares ratio (xQRT17) when op(A) has at least as many rows
/// as columns, else the solve ratio (xQRT16) and the forward error against the known
/// minimum-norm solution (xGET04 with κ).
fn gels_case<T: Scalar>(
    solver: &Solver,
    name: &str,
    w: &Wide,
    kappa: f64,
    trans: Transpose,
    nrhs: usize,
    seed: u64,
) {
    let dev = solver.device();
    let (m, n) = (w.rows, w.cols);
    let mut r = rng(seed);
    let lda = m + 1;
    let ldb = m.max(n) + 2;
    let host = store::<T>(w, lda);
    let a = Wide::from(&host, m, n, lda);
    let opa = op(&a, trans);
    let (rows, cols) = (opa.rows, opa.cols);
    let overdetermined = rows >= cols;
    let (b, x_true) = if overdetermined {
        (random(&mut r, rows, nrhs, T::IS_COMPLEX), None)
    } else {
        // A solution in the row space of op(A) is the minimum-norm one.
        let z = random(&mut r, rows, nrhs, T::IS_COMPLEX);
        let x = opa.adjoint().mul(&z);
        (opa.mul(&x), Some(x))
    };
    let mut bfull = Wide::zeros(m.max(n), nrhs);
    for j in 0..nrhs {
        for i in 0..rows {
            bfull.set(i, j, b.at(i, j));
        }
    }
    let bh = store::<T>(&bfull, ldb);
    let b = Wide::from(&bh, rows, nrhs, ldb);
    let mut ab = dev.upload(&host).unwrap();
    let mut bb = dev.upload(&bh).unwrap();
    let info = solver
        .gels(
            trans,
            m,
            n,
            nrhs,
            &mut ab.as_slice_mut(),
            lda,
            &mut bb.as_slice_mut(),
            ldb,
        )
        .unwrap();
    assert_eq!(info, Info::OK, "{name} {m}x{n} {trans:?}");
    let x = wide(&bb, cols, nrhs, ldb);
    if overdetermined {
        let ratio = reference::least_squares_ratio::<T>(&opa, &x, &b);
        assert!(
            ratio < THRESHOLD,
            "{name} {m}x{n} {trans:?} nrhs {nrhs}: least-squares ratio {ratio}"
        );
    } else {
        let x_true = x_true.unwrap_or_else(|| Wide::zeros(cols, nrhs));
        let r1 = reference::solve_ratio::<T>(&opa, &x, &b);
        let r2 = reference::forward_error_ratio::<T>(&x, &x_true, kappa, m.max(n));
        assert!(r1 < THRESHOLD, "{name} {m}x{n} {trans:?}: solve ratio {r1}");
        assert!(
            r2 < THRESHOLD,
            "{name} {m}x{n} {trans:?}: minimum-norm forward error ratio {r2}"
        );
    }
}

fn gels_suite<T: Scalar>() {
    for (label, solver) in solvers() {
        let dev = solver.device();
        for &(m, n, nrhs) in &[
            (1usize, 1usize, 1usize),
            (1, 5, 2),
            (5, 1, 2),
            (9, 4, 2),
            (4, 9, 2),
            (30, 30, 3),
            (45, 17, 5),
            (17, 45, 5),
        ] {
            let k = m.min(n);
            let mut r = rng(m as u64 * 3 + n as u64);
            let cond = cond_for::<T>();
            let diag: Vec<f64> = (0..k).map(|i| 1.0 + i as f64).collect();
            let problems = [
                (
                    "random",
                    with_singular_values(&mut r, m, n, &geometric(k, 10.0), T::IS_COMPLEX),
                    10.0,
                ),
                (
                    "ill-conditioned",
                    with_singular_values(&mut r, m, n, &geometric(k, cond), T::IS_COMPLEX),
                    cond,
                ),
                ("identity", Wide::diagonal(m, n, &vec![1.0; k]), 1.0),
                ("diagonal", Wide::diagonal(m, n, &diag), k as f64),
            ];
            for (name, w, kappa) in &problems {
                for (t, trans) in q_ops::<T>().into_iter().enumerate() {
                    let name = format!("{label}/{name}");
                    gels_case::<T>(&solver, &name, w, *kappa, trans, nrhs, t as u64);
                }
            }
            // A zero matrix: X = 0, info 0 (LAPACK's quick return).
            for trans in q_ops::<T>() {
                let ldb = m.max(n);
                let mut ab = dev.upload(&vec![T::zero(); m * n]).unwrap();
                let bw = random(&mut r, ldb, nrhs, T::IS_COMPLEX);
                let mut bb = dev.upload(&store::<T>(&bw, ldb)).unwrap();
                let info = solver
                    .gels(
                        trans,
                        m,
                        n,
                        nrhs,
                        &mut ab.as_slice_mut(),
                        m,
                        &mut bb.as_slice_mut(),
                        ldb,
                    )
                    .unwrap();
                assert_eq!(info, Info::OK);
                assert!(bb.to_vec().unwrap().iter().all(|&x| x == T::zero()));
            }
            // Rank deficient with an exactly zero column (m >= n) or row (m < n): info
            // names the zero diagonal element of R or L.
            if k > 1 {
                let mut z = random(&mut r, m, n, T::IS_COMPLEX);
                if m >= n {
                    (0..m).for_each(|i| z.set(i, 1, Complex64::new(0.0, 0.0)));
                } else {
                    (0..n).for_each(|j| z.set(1, j, Complex64::new(0.0, 0.0)));
                }
                for trans in q_ops::<T>() {
                    let ldb = m.max(n);
                    let mut ab = dev.upload(&store::<T>(&z, m)).unwrap();
                    let mut bb = dev.alloc::<T>(ldb * nrhs).unwrap();
                    let info = solver
                        .gels(
                            trans,
                            m,
                            n,
                            nrhs,
                            &mut ab.as_slice_mut(),
                            m,
                            &mut bb.as_slice_mut(),
                            ldb,
                        )
                        .unwrap();
                    assert_eq!(
                        info,
                        Info(2),
                        "{label} {m}x{n} {trans:?}: zero column/row 1"
                    );
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
            fn lq() {
                lq_suite::<$t>();
            }
            #[test]
            fn apply_q() {
                apply_suite::<$t>();
            }
            #[test]
            fn gels() {
                gels_suite::<$t>();
            }
        }
    )*};
}
per_dtype!(f32 => f32_, f64 => f64_, Complex32 => c32, Complex64 => c64);

#[test]
fn invalid_arguments_are_errors() {
    let solver = Solver::new(&Device::cpu());
    let dev = solver.device();
    let mut a = dev.alloc::<Complex32>(64).unwrap();
    let mut b = dev.alloc::<Complex32>(64).unwrap();
    let mut tau = dev.alloc::<Complex32>(8).unwrap();
    let e = solver
        .gelqf(4, 6, &mut a.as_slice_mut(), 3, &mut tau.as_slice_mut())
        .unwrap_err();
    assert!(e.to_string().contains("lda"), "{e}");
    let e = solver
        .gelqf(
            4,
            6,
            &mut a.as_slice_mut(),
            4,
            &mut tau.as_slice_mut().slice_mut(..3).unwrap(),
        )
        .unwrap_err();
    assert!(e.to_string().contains("tau"), "{e}");
    // Complex Q takes N or C.
    let e = solver
        .gels(
            Transpose::T,
            4,
            3,
            1,
            &mut a.as_slice_mut(),
            4,
            &mut b.as_slice_mut(),
            4,
        )
        .unwrap_err();
    assert!(e.to_string().contains("trans"), "{e}");
    // B needs max(m, n) rows.
    let e = solver
        .gels(
            Transpose::N,
            3,
            5,
            1,
            &mut a.as_slice_mut(),
            3,
            &mut b.as_slice_mut(),
            3,
        )
        .unwrap_err();
    assert!(e.to_string().contains("ldb"), "{e}");
    let e = solver
        .orglq(5, 4, 2, &mut a.as_slice_mut(), 5, &tau.as_slice())
        .unwrap_err();
    assert!(e.to_string().contains('m'), "{e}");
    let e = solver
        .ormlq(
            Side::Right,
            Transpose::N,
            3,
            4,
            5,
            &a.as_slice(),
            5,
            &tau.as_slice(),
            &mut b.as_slice_mut(),
            3,
        )
        .unwrap_err();
    assert!(e.to_string().contains('k'), "{e}");
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(16))]

    /// Random shapes, block sizes and transposes: GELS ratios stay below 30.
    #[test]
    fn gels_any_shape(m in 1usize..30, n in 1usize..30, nrhs in 1usize..4, nb in 1usize..9,
                      t in 0usize..2, seed in 0u64..1000) {
        let sizes = rocm_solver::BlockSizes { getrf: nb, potrf: nb, getri: nb,
            geqrf: nb, sytrd: nb, gebrd: nb, unblocked: 2, small: 0 };
        let solver = Solver::new(&Device::cpu()).with_block_sizes(sizes);
        let trans = [Transpose::N, Transpose::C][t];
        let k = m.min(n);
        let mut r = rng(seed);
        if seed % 2 == 0 {
            let w = with_singular_values(&mut r, m, n, &geometric(k, 100.0), true);
            gels_case::<Complex64>(&solver, "prop", &w, 100.0, trans, nrhs, seed);
        } else {
            let w = with_singular_values(&mut r, m, n, &geometric(k, 100.0), false);
            gels_case::<f32>(&solver, "prop", &w, 100.0, trans, nrhs, seed);
        }
    }
}

/// Strided-batched and batched GEQRF and GELS agree with single calls problem by problem
/// (bit for bit: each problem runs the same code), a rank-deficient problem in the middle
/// of the batch reporting its own `info`.
fn batched_suite<T: Scalar>() {
    for (label, solver) in solvers() {
        let dev = solver.device();
        for &(m, n, count) in &[
            (0usize, 0usize, 2usize),
            (1, 1, 3),
            (7, 4, 5),
            (4, 7, 5),
            (20, 20, 3),
        ] {
            let (lda, nrhs) = (m + 1, 2);
            let ldb = m.max(n) + 1;
            let k = m.min(n);
            let sa = lda * n.max(1) + 2;
            let sb = ldb * nrhs + 3;
            let st = k + 1;
            let mut r = rng(m as u64 * 31 + n as u64);
            let mut a = vec![T::zero(); sa * count];
            for p in 0..count {
                let mut w = random(&mut r, m, n, T::IS_COMPLEX);
                if p == 1 && k > 1 {
                    // An exactly zero column (m >= n) or row (m < n) 1.
                    for i in 0..m.max(n) {
                        let (row, col) = if m >= n { (i, 1) } else { (1, i) };
                        if row < m && col < n {
                            w.set(row, col, Complex64::new(0.0, 0.0));
                        }
                    }
                }
                a[p * sa..p * sa + lda * n].copy_from_slice(&store::<T>(&w, lda)[..lda * n]);
            }
            let b0 = store::<T>(&random(&mut r, sb * count, 1, T::IS_COMPLEX), sb * count);
            let one = |p: usize, src: &[T], stride: usize, len: usize| {
                dev.upload(&src[p * stride..p * stride + len.max(1)])
                    .unwrap()
            };

            // GEQRF.
            let mut ab = dev.upload(&a).unwrap();
            let mut tb = dev.alloc::<T>(st * count).unwrap();
            solver
                .geqrf_strided_batched(
                    m,
                    n,
                    &mut ab.as_slice_mut(),
                    lda,
                    sa,
                    &mut tb.as_slice_mut(),
                    st,
                    count,
                )
                .unwrap();
            let mut bufs: Vec<_> = (0..count).map(|p| one(p, &a, sa, lda * n)).collect();
            let mut views: Vec<_> = bufs.iter_mut().map(|b| b.as_slice_mut()).collect();
            let mut tb2 = dev.alloc::<T>(st * count).unwrap();
            solver
                .geqrf_batched(m, n, &mut views, lda, &mut tb2.as_slice_mut(), st)
                .unwrap();
            let (f, t) = (ab.to_vec().unwrap(), tb.to_vec().unwrap());
            let t2 = tb2.to_vec().unwrap();
            for p in 0..count {
                let mut single = one(p, &a, sa, lda * n);
                let mut ts = dev.alloc::<T>(k.max(1)).unwrap();
                solver
                    .geqrf(
                        m,
                        n,
                        &mut single.as_slice_mut(),
                        lda,
                        &mut ts.as_slice_mut(),
                    )
                    .unwrap();
                let len = lda * n;
                let tag = format!("{label} {m}x{n} problem {p}");
                assert_eq!(
                    &single.to_vec().unwrap()[..len],
                    &f[p * sa..p * sa + len],
                    "{tag}"
                );
                assert_eq!(
                    &bufs[p].to_vec().unwrap()[..len],
                    &f[p * sa..p * sa + len],
                    "{tag}"
                );
                assert_eq!(&ts.to_vec().unwrap()[..k], &t[p * st..p * st + k], "{tag}");
                assert_eq!(&t2[p * st..p * st + k], &t[p * st..p * st + k], "{tag}");
            }

            // GELS, every op.
            for trans in q_ops::<T>() {
                let mut ab = dev.upload(&a).unwrap();
                let mut bb = dev.upload(&b0).unwrap();
                let infos = solver
                    .gels_strided_batched(
                        trans,
                        m,
                        n,
                        nrhs,
                        &mut ab.as_slice_mut(),
                        lda,
                        sa,
                        &mut bb.as_slice_mut(),
                        ldb,
                        sb,
                        count,
                    )
                    .unwrap();
                let mut abufs: Vec<_> = (0..count).map(|p| one(p, &a, sa, lda * n)).collect();
                let mut bbufs: Vec<_> = (0..count).map(|p| one(p, &b0, sb, ldb * nrhs)).collect();
                let mut av: Vec<_> = abufs.iter_mut().map(|b| b.as_slice_mut()).collect();
                let mut bv: Vec<_> = bbufs.iter_mut().map(|b| b.as_slice_mut()).collect();
                let infos2 = solver
                    .gels_batched(trans, m, n, nrhs, &mut av, lda, &mut bv, ldb)
                    .unwrap();
                assert_eq!(infos, infos2);
                let x = bb.to_vec().unwrap();
                for p in 0..count {
                    let mut a1 = one(p, &a, sa, lda * n);
                    let mut b1 = one(p, &b0, sb, ldb * nrhs);
                    let info = solver
                        .gels(
                            trans,
                            m,
                            n,
                            nrhs,
                            &mut a1.as_slice_mut(),
                            lda,
                            &mut b1.as_slice_mut(),
                            ldb,
                        )
                        .unwrap();
                    let tag = format!("{label} {m}x{n} {trans:?} problem {p}");
                    assert_eq!(info, infos[p], "{tag}");
                    let len = ldb * nrhs;
                    assert_eq!(
                        &b1.to_vec().unwrap()[..len],
                        &x[p * sb..p * sb + len],
                        "{tag}"
                    );
                    assert_eq!(&bbufs[p].to_vec().unwrap()[..len], &x[p * sb..p * sb + len]);
                }
                if k > 1 {
                    assert_eq!(infos[1], Info(2), "{label} {m}x{n}: rank-deficient problem");
                    assert!(infos.iter().enumerate().all(|(p, i)| p == 1 || i.is_ok()));
                }
            }
        }
        // Overlapping output strides and mismatched batches are errors.
        let mut a = dev.alloc::<T>(64).unwrap();
        let mut b = dev.alloc::<T>(64).unwrap();
        let e = solver
            .gels_strided_batched(
                Transpose::N,
                4,
                4,
                1,
                &mut a.as_slice_mut(),
                4,
                10,
                &mut b.as_slice_mut(),
                4,
                4,
                3,
            )
            .unwrap_err();
        assert!(e.to_string().contains("stride_a"), "{e}");
        let mut one_a = vec![a.as_slice_mut()];
        let e = solver
            .gels_batched(Transpose::N, 2, 2, 1, &mut one_a, 2, &mut [], 2)
            .unwrap_err();
        assert!(e.to_string().contains('b'), "{e}");
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
