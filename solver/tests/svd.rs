//! GEBRD and GESVD against LAPACK's test ratios (xBRD01 / xBDT01: ‖A − Q·B·Pᴴ‖ and
//! ‖A − U·Σ·Vᴴ‖ over max(m, n)·‖A‖·ε; ‖I − QᴴQ‖ / (n·ε); singular values against known
//! ones and against the values-only run by Weyl's bound), all below 30, for f32, f64,
//! Complex32 and Complex64, tall and wide, on the blocked path with tiny blocks and with
//! the CPU table.

mod common;

use common::*;
use num_complex::{Complex32, Complex64};
use rocm_core::Device;
use rocm_solver::reference::{self, Wide};
use rocm_solver::{Info, Scalar, Solver, Svect};

/// (name, matrix, its singular values in descending order when known).
fn cases<T: Scalar>(seed: u64, m: usize, n: usize) -> Vec<(&'static str, Wide, Option<Vec<f64>>)> {
    let c = T::IS_COMPLEX;
    let mut r = rng(seed);
    let k = m.min(n);
    let desc = |mut v: Vec<f64>| {
        v.sort_by(|a, b| b.total_cmp(a));
        Some(v)
    };
    let diag: Vec<f64> = (0..k)
        .map(|i| {
            if i % 2 == 0 {
                1.0 + i as f64
            } else {
                -(i as f64)
            }
        })
        .collect();
    let cond = cond_for::<T>();
    let mut out = vec![
        ("random", random(&mut r, m, n, c), None),
        ("zero", Wide::zeros(m, n), Some(vec![0.0; k])),
        (
            "identity",
            Wide::diagonal(m, n, &vec![1.0; k]),
            Some(vec![1.0; k]),
        ),
        (
            "diagonal",
            Wide::diagonal(m, n, &diag),
            desc(diag.iter().map(|x| x.abs()).collect()),
        ),
        (
            "ill-conditioned",
            with_singular_values(&mut r, m, n, &geometric(k, cond), c),
            desc(geometric(k, cond)),
        ),
    ];
    if k > 1 {
        let mut s = geometric(k, 10.0);
        s[k / 2..].iter_mut().for_each(|x| *x = 0.0);
        out.push((
            "rank-deficient",
            with_singular_values(&mut r, m, n, &s, c),
            desc(s),
        ));
    }
    out
}

const SHAPES: &[(usize, usize)] = &[
    (0, 0),
    (1, 1),
    (4, 0),
    (1, 5),
    (6, 1),
    (7, 4),
    (4, 7),
    (15, 15),
    (40, 23),
    (23, 40),
    (70, 70),
];

/// H₁·…·H_k for reflectors (v, τ), H = I − τ·v·vᴴ, each v of length `order`.
fn product(order: usize, refl: &[(Vec<Complex64>, Complex64)]) -> Wide {
    let mut q = Wide::identity(order);
    for (v, tau) in refl.iter().rev() {
        // q ← H·q = q − τ·v·(vᴴ·q).
        for j in 0..order {
            let w: Complex64 = v
                .iter()
                .enumerate()
                .map(|(i, x)| x.conj() * q.at(i, j))
                .sum();
            for (i, x) in v.iter().enumerate() {
                let y = q.at(i, j) - tau * x * w;
                q.set(i, j, y);
            }
        }
    }
    q
}

/// Q and P of GEBRD's output `f` (m×n) read with LAPACK's layout.
fn gebrd_q_p(f: &Wide, tauq: &[Complex64], taup: &[Complex64]) -> (Wide, Wide) {
    let (m, n) = (f.rows, f.cols);
    let k = m.min(n);
    let zero = Complex64::new(0.0, 0.0);
    let one = Complex64::new(1.0, 0.0);
    let (mut qs, mut ps) = (Vec::new(), Vec::new());
    // Q's v_i starts at row i (m >= n) or i + 1 (m < n); P's u_i at column i + 1 or i.
    let (qoff, poff) = if m >= n { (0, 1) } else { (1, 0) };
    for i in 0..k {
        if i + qoff < m {
            let mut v = vec![zero; m];
            v[i + qoff] = one;
            for (r, x) in v.iter_mut().enumerate().skip(i + qoff + 1) {
                *x = f.at(r, i);
            }
            qs.push((v, tauq[i]));
        }
        if i + poff < n {
            let mut u = vec![zero; n];
            u[i + poff] = one;
            for (c, x) in u.iter_mut().enumerate().skip(i + poff + 1) {
                *x = f.at(i, c).conj();
            }
            ps.push((u, taup[i]));
        }
    }
    (product(m, &qs), product(n, &ps))
}

fn complex_vec<T: Scalar>(b: &rocm_core::DeviceBuffer<T>) -> Vec<Complex64> {
    b.to_vec()
        .unwrap()
        .iter()
        .map(|x| {
            let [re, im] = x.components();
            Complex64::new(re, im)
        })
        .collect()
}

fn real_vec<R: Scalar>(b: &rocm_core::DeviceBuffer<R>) -> Vec<f64> {
    b.to_vec()
        .unwrap()
        .iter()
        .map(|x| x.components()[0])
        .collect()
}

fn gebrd_suite<T: Scalar>() {
    for (label, solver) in solvers() {
        let dev = solver.device();
        for &(m, n) in SHAPES {
            for (name, w, _) in cases::<T>(m as u64 * 13 + n as u64, m, n) {
                let ld = m + 1;
                let k = m.min(n);
                let host = store::<T>(&w, ld);
                let a = Wide::from(&host, m, n, ld);
                let mut buf = dev.upload(&host).unwrap();
                let mut d = dev.alloc::<T::Real>(k.max(1)).unwrap();
                let mut e = dev.alloc::<T::Real>(k.max(1)).unwrap();
                let mut tq = dev.alloc::<T>(k.max(1)).unwrap();
                let mut tp = dev.alloc::<T>(k.max(1)).unwrap();
                solver
                    .gebrd(
                        m,
                        n,
                        &mut buf.as_slice_mut(),
                        ld,
                        &mut d.as_slice_mut(),
                        &mut e.as_slice_mut(),
                        &mut tq.as_slice_mut(),
                        &mut tp.as_slice_mut(),
                    )
                    .unwrap();
                let f = wide(&buf, m, n, ld);
                let (q, p) = gebrd_q_p(&f, &complex_vec(&tq), &complex_vec(&tp));
                let (dv, ev) = (real_vec(&d), real_vec(&e));
                let mut b = Wide::diagonal(m, n, &dv[..k]);
                for (i, &x) in ev.iter().enumerate().take(k.saturating_sub(1)) {
                    let x = Complex64::new(x, 0.0);
                    if m >= n {
                        b.set(i, i + 1, x);
                    } else {
                        b.set(i + 1, i, x);
                    }
                }
                let tag = format!("{label}/{name} {m}x{n}");
                let r1 = reference::ratio(
                    a.sub(&q.mul(&b).mul(&p.adjoint())).norm1(),
                    m.max(n),
                    a.norm1(),
                    reference::eps::<T>(),
                );
                let r2 = reference::orthogonality_ratio::<T>(&q);
                let r3 = reference::orthogonality_ratio::<T>(&p);
                assert!(r1 < THRESHOLD, "{tag}: bidiagonal ratio {r1}");
                assert!(r2 < THRESHOLD, "{tag}: Q orthogonality {r2}");
                assert!(r3 < THRESHOLD, "{tag}: P orthogonality {r3}");
            }
        }
    }
}

/// One GESVD call; returns (s, U, Vᴴ) as Wide (empty when not asked for).
fn run_gesvd<T: Scalar>(
    solver: &Solver,
    left: Svect,
    right: Svect,
    host: &[T],
    m: usize,
    n: usize,
    ld: usize,
) -> (Info, Vec<f64>, Wide, Wide) {
    let dev = solver.device();
    let k = m.min(n);
    let ucols = match left {
        Svect::None => 0,
        Svect::Singular => k,
        Svect::All => m,
    };
    let vrows = match right {
        Svect::None => 0,
        Svect::Singular => k,
        Svect::All => n,
    };
    let (ldu, ldvt) = (m + 2, vrows + 1);
    let mut a = dev.upload(host).unwrap();
    let mut s = dev.alloc::<T::Real>(k.max(1)).unwrap();
    let mut u = dev.alloc::<T>((ldu * ucols).max(1)).unwrap();
    let mut vt = dev.alloc::<T>((ldvt * n).max(1)).unwrap();
    let info = solver
        .gesvd(
            left,
            right,
            m,
            n,
            &mut a.as_slice_mut(),
            ld,
            &mut s.as_slice_mut(),
            &mut u.as_slice_mut(),
            if left == Svect::None { 1 } else { ldu },
            &mut vt.as_slice_mut(),
            if right == Svect::None { 1 } else { ldvt },
        )
        .unwrap();
    let sv = real_vec(&s)[..k].to_vec();
    let uw = if ucols > 0 {
        wide(&u, m, ucols, ldu)
    } else {
        Wide::zeros(m, 0)
    };
    let vw = if vrows > 0 && n > 0 {
        wide(&vt, vrows, n, ldvt)
    } else {
        Wide::zeros(0, n)
    };
    (info, sv, uw, vw)
}

fn gesvd_suite<T: Scalar>() {
    let jobs = [
        (Svect::Singular, Svect::Singular),
        (Svect::All, Svect::All),
        (Svect::All, Svect::None),
        (Svect::None, Svect::Singular),
    ];
    for (label, solver) in solvers() {
        for &(m, n) in SHAPES {
            let k = m.min(n);
            for (name, w, exact) in cases::<T>(m as u64 * 17 + n as u64, m, n) {
                let ld = m + 1;
                let host = store::<T>(&w, ld);
                let a = Wide::from(&host, m, n, ld);
                let anorm = a.norm1();
                let tag = format!("{label}/{name} {m}x{n}");
                let (info, s0, _, _) =
                    run_gesvd(&solver, Svect::None, Svect::None, &host, m, n, ld);
                assert_eq!(info, Info::OK, "{tag}");
                assert!(s0.windows(2).all(|p| p[0] >= p[1]), "{tag}: not descending");
                assert!(s0.iter().all(|&x| x >= 0.0), "{tag}: negative value");
                if let Some(exact) = &exact {
                    let r = reference::values_ratio::<T>(&s0, exact, anorm);
                    assert!(r < THRESHOLD, "{tag}: values against Σ {r}");
                }
                for (left, right) in jobs {
                    let (info, s, u, vt) = run_gesvd(&solver, left, right, &host, m, n, ld);
                    let tag = format!("{tag} {left:?}/{right:?}");
                    assert_eq!(info, Info::OK, "{tag}");
                    let r = reference::values_ratio::<T>(&s, &s0, anorm);
                    assert!(r < THRESHOLD, "{tag}: values vs values-only {r}");
                    if left != Svect::None {
                        let r = reference::orthogonality_ratio::<T>(&u);
                        assert!(r < THRESHOLD, "{tag}: U orthogonality {r}");
                    }
                    if right != Svect::None {
                        let r = reference::row_orthogonality_ratio::<T>(&vt);
                        assert!(r < THRESHOLD, "{tag}: V orthogonality {r}");
                    }
                    if left != Svect::None && right != Svect::None {
                        let r = reference::svd_ratio::<T>(
                            &a,
                            &u.block(0, 0, m, k),
                            &s,
                            &vt.block(0, 0, k, n),
                        );
                        assert!(r < THRESHOLD, "{tag}: SVD ratio {r}");
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
            fn gebrd() {
                gebrd_suite::<$t>();
            }
            #[test]
            fn gesvd() {
                gesvd_suite::<$t>();
            }
        }
    )*};
}
per_dtype!(f32 => f32_, f64 => f64_, Complex32 => c32, Complex64 => c64);

/// Tiny and huge matrices are scaled into the safe range.
#[test]
fn scaled_extremes() {
    let solver = Solver::new(&Device::cpu()).with_block_sizes(TINY);
    for scale in [1e-300f64, 1e300] {
        let (m, n) = (14, 9);
        let sig: Vec<f64> = geometric(n, 100.0).iter().map(|x| x * scale).collect();
        let w = with_singular_values(&mut rng(4), m, n, &sig, true);
        let host = store::<Complex64>(&w, m);
        let a = Wide::from(&host, m, n, m);
        let (info, s, u, vt) = run_gesvd(&solver, Svect::Singular, Svect::Singular, &host, m, n, m);
        assert!(info.is_ok());
        let r = reference::values_ratio::<Complex64>(&s, &sig, a.norm1());
        assert!(r < THRESHOLD, "scale {scale}: {r}");
        let r = reference::svd_ratio::<Complex64>(&a, &u, &s, &vt);
        assert!(r < THRESHOLD, "scale {scale}: SVD ratio {r}");
    }
}

/// A NaN never converges: `info` counts the unconverged superdiagonal elements.
#[test]
fn nan_reports_non_convergence() {
    let solver = Solver::new(&Device::cpu());
    let (m, n) = (6, 4);
    let mut host = store::<f64>(&random(&mut rng(1), m, n, false), m);
    host[7] = f64::NAN;
    let (info, ..) = run_gesvd(&solver, Svect::Singular, Svect::None, &host, m, n, m);
    assert!(info.0 > 0 && info.0 < n, "{info:?}");
}

#[test]
fn invalid_arguments_are_errors() {
    let solver = Solver::new(&Device::cpu());
    let dev = solver.device();
    let mut a = dev.alloc::<Complex32>(20).unwrap();
    let mut s = dev.alloc::<f32>(4).unwrap();
    let mut u = dev.alloc::<Complex32>(20).unwrap();
    let mut vt = dev.alloc::<Complex32>(20).unwrap();
    // U All for 5×4 needs 5×5.
    let e = solver
        .gesvd(
            Svect::All,
            Svect::None,
            5,
            4,
            &mut a.as_slice_mut(),
            5,
            &mut s.as_slice_mut(),
            &mut u.as_slice_mut(),
            5,
            &mut vt.as_slice_mut(),
            1,
        )
        .unwrap_err();
    assert!(e.to_string().contains('u'), "{e}");
    let e = solver
        .gesvd(
            Svect::None,
            Svect::Singular,
            5,
            4,
            &mut a.as_slice_mut(),
            5,
            &mut s.as_slice_mut(),
            &mut u.as_slice_mut(),
            1,
            &mut vt.as_slice_mut(),
            3,
        )
        .unwrap_err();
    assert!(e.to_string().contains("ldvt"), "{e}");
    let mut d = dev.alloc::<f32>(4).unwrap();
    let mut ee = dev.alloc::<f32>(3).unwrap();
    let mut tq = dev.alloc::<Complex32>(4).unwrap();
    let mut tp = dev.alloc::<Complex32>(3).unwrap();
    let e = solver
        .gebrd(
            5,
            4,
            &mut a.as_slice_mut(),
            5,
            &mut d.as_slice_mut(),
            &mut ee.as_slice_mut(),
            &mut tq.as_slice_mut(),
            &mut tp.as_slice_mut(),
        )
        .unwrap_err();
    assert!(e.to_string().contains("taup"), "{e}");
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(12))]

    /// Random shapes, padding and block sizes: the SVD ratios stay below 30.
    #[test]
    fn gesvd_any_shape(m in 0usize..30, n in 0usize..30, pad in 0usize..3, nb in 1usize..7,
                       seed in 0u64..1000) {
        let sizes = rocm_solver::BlockSizes { getrf: nb, potrf: nb, getri: nb, geqrf: nb,
            sytrd: nb, gebrd: nb, unblocked: 2, small: 0 };
        let solver = Solver::new(&Device::cpu()).with_block_sizes(sizes);
        let k = m.min(n);
        let w = random(&mut rng(seed), m, n, seed % 2 == 0);
        let ld = m + pad.max(usize::from(m == 0));
        let check = |a: &Wide, (info, s, u, vt): (Info, Vec<f64>, Wide, Wide), eps: f64| {
            assert!(info.is_ok());
            let r = reference::ratio(
                a.sub(&u.mul(&Wide::diagonal(k, k, &s)).mul(&vt)).norm1(),
                m.max(n), a.norm1(), eps);
            assert!(r < THRESHOLD, "{m}x{n} nb {nb}: {r}");
        };
        if seed % 2 == 0 {
            let host = store::<Complex64>(&w, ld);
            let a = Wide::from(&host, m, n, ld);
            check(&a, run_gesvd(&solver, Svect::Singular, Svect::Singular, &host, m, n, ld),
                  reference::eps::<Complex64>());
        } else {
            let host = store::<f32>(&w, ld);
            let a = Wide::from(&host, m, n, ld);
            check(&a, run_gesvd(&solver, Svect::Singular, Svect::Singular, &host, m, n, ld),
                  reference::eps::<f32>());
        }
    }
}
