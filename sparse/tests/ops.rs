//! Every operation against the dense reference, for every format, index and value type.
//!
//! Tolerances: a computed dot product of length k satisfies |ŝ - s| <= γ_k Σ|a_i||b_i|
//! with γ_k = k·u/(1 - k·u) (Higham, Thm 3.5), doubled for complex multiplication. We use
//! `4 (k + 2) u (|alpha| |op(A)| |x| + |beta| |y|)` entrywise, u the unit roundoff of the
//! value type: k + 2 for the scaling by alpha and the beta term, 4 covering the complex
//! factor and the 1/(1 - k u) slack.

mod common;

use common::*;
use num_complex::Complex64;
use proptest::prelude::*;
use proptest::test_runner::TestCaseError;
use rocm_core::{Device, DeviceBuffer};
use rocm_sparse::ops::*;
use rocm_sparse::reference::{self as r, Mat};
use rocm_sparse::{BlockLayout, Csr, Dense, Index, Scalar, SparseMatrix};

fn c(x: (f64, f64)) -> Complex64 {
    Complex64::new(x.0, x.1)
}

/// Rounds a reference value to T (so inputs are exactly the ones the kernel sees).
fn tv<T: Scalar>(z: Complex64) -> T {
    T::from_c64(z)
}

/// |x| as f64: the modulus in `T`'s precision, widened exactly.
fn abs<T: Scalar>(x: T) -> f64 {
    rocm_core::Real::as_f64(x.modulus())
}

fn abs_mat(a: &Mat) -> Mat {
    Dense::from_fn(a.nrows(), a.ncols(), |i, j| {
        Complex64::new(a.get(i, j).unwrap().norm(), 0.0)
    })
}

fn abs_vec(x: &[Complex64]) -> Vec<Complex64> {
    x.iter().map(|v| Complex64::new(v.norm(), 0.0)).collect()
}

fn close(got: Complex64, want: Complex64, bound: f64, what: &str) -> Result<(), TestCaseError> {
    prop_assert!(
        (got - want).norm() <= bound,
        "{what}: got {got}, want {want}, |diff| {} > bound {bound}",
        (got - want).norm()
    );
    Ok(())
}

fn spmv_case<I: Index, T: Scalar>(
    m: &RandMat,
    xs: &[(f64, f64)],
    ys: &[(f64, f64)],
    ab: ((f64, f64), (f64, f64)),
) -> Result<(), TestCaseError> {
    let dev = Device::cpu();
    let coo = m.coo::<I, T>();
    let csr = coo.to_csr().unwrap();
    let csc = csr.to_csc();
    let bsr2 = csr.to_bsr(2, BlockLayout::RowMajor).unwrap();
    let bsr3 = csr.to_bsr(3, BlockLayout::ColMajor).unwrap();
    let ell = csr.to_ell().unwrap();
    let a = r::dense_of(&csr).unwrap();
    let (alpha, beta): (T, T) = (tv(c(ab.0)), tv(c(ab.1)));
    let u = T::EPS / 2.0;
    let mats: Vec<SpMat<'_, I, T>> = vec![
        (&coo).into(),
        (&csr).into(),
        (&csc).into(),
        (&bsr2).into(),
        (&bsr3).into(),
        (&ell).into(),
    ];
    for op in [Transpose::N, Transpose::T, Transpose::C] {
        let (rows, cols) = if op == Transpose::N {
            (m.m, m.n)
        } else {
            (m.n, m.m)
        };
        let x: Vec<T> = xs[..cols].iter().map(|&v| tv(c(v))).collect();
        let y0: Vec<T> = ys[..rows].iter().map(|&v| tv(c(v))).collect();
        let (xw, yw) = (r::widen_vec(&x), r::widen_vec(&y0));
        let want = r::gemv(op, alpha.to_c64(), &a, &xw, beta.to_c64(), &yw);
        let scale = r::gemv(
            op,
            Complex64::new(abs(alpha), 0.0),
            &abs_mat(&a),
            &abs_vec(&xw),
            Complex64::new(abs(beta), 0.0),
            &abs_vec(&yw),
        );
        let xb = DeviceBuffer::from_slice(&dev, &x).unwrap();
        for mat in &mats {
            for alg in [SpmvAlg::MergePath, SpmvAlg::RowSplit] {
                let mut yb = DeviceBuffer::from_slice(&dev, &y0).unwrap();
                let plan = Spmv::analysis(&dev, op, *mat, alg).unwrap();
                plan.compute(alpha, *mat, &xb.as_slice(), beta, &mut yb.as_slice_mut())
                    .unwrap();
                let got = yb.to_vec().unwrap();
                let k = cols as f64 + 2.0;
                for i in 0..rows {
                    close(
                        got[i].to_c64(),
                        want[i],
                        4.0 * k * u * scale[i].re,
                        &format!("{:?} {op:?} {alg:?} row {i}", mat.format()),
                    )?;
                }
            }
        }
    }
    Ok(())
}

fn spmm_case<I: Index, T: Scalar>(
    m: &RandMat,
    vals: &[(f64, f64)],
    nrhs: usize,
) -> Result<(), TestCaseError> {
    let dev = Device::cpu();
    let csr: Csr<I, T> = m.coo::<I, T>().to_csr().unwrap();
    let bsr = csr.to_bsr(2, BlockLayout::ColMajor).unwrap();
    let a = r::dense_of(&csr).unwrap();
    let (alpha, beta): (T, T) = (
        tv(Complex64::new(1.5, -0.5)),
        tv(Complex64::new(-0.75, 0.25)),
    );
    let u = T::EPS / 2.0;
    for op in [Transpose::N, Transpose::T] {
        let (rows, inner) = if op == Transpose::N {
            (m.m, m.n)
        } else {
            (m.n, m.m)
        };
        let mut it = vals.iter().cycle().skip(3);
        let b = Dense::from_fn(inner, nrhs, |_, _| tv::<T>(c(*it.next().unwrap())));
        let c0 = Dense::from_fn(rows, nrhs, |_, _| tv::<T>(c(*it.next().unwrap())));
        let (bw, cw) = (r::widen(&b), r::widen(&c0));
        let opa = r::apply_op(op, &a);
        let want = r::gemm(alpha.to_c64(), &opa, &bw, beta.to_c64(), &cw);
        let scale = r::gemm(
            Complex64::new(abs(alpha), 0.0),
            &abs_mat(&opa),
            &abs_mat(&bw),
            Complex64::new(abs(beta), 0.0),
            &abs_mat(&cw),
        );
        for order in [Order::ColMajor, Order::RowMajor] {
            // Leading dimensions one larger than needed, to test ld handling.
            let pack = |d: &Dense<T>| -> (Vec<T>, usize) {
                let ld = match order {
                    Order::ColMajor => d.nrows() + 1,
                    Order::RowMajor => d.ncols() + 1,
                };
                let mut v = vec![T::zero(); ld * d.nrows().max(d.ncols()).max(1) + ld];
                for i in 0..d.nrows() {
                    for j in 0..d.ncols() {
                        v[match order {
                            Order::ColMajor => i + j * ld,
                            Order::RowMajor => i * ld + j,
                        }] = d.get(i, j).unwrap();
                    }
                }
                (v, ld)
            };
            let (bv, ldb) = pack(&b);
            let (cv, ldc) = pack(&c0);
            let bb = DeviceBuffer::from_slice(&dev, &bv).unwrap();
            for mat in [SpMat::from(&csr), SpMat::from(&bsr)] {
                let mut cb = DeviceBuffer::from_slice(&dev, &cv).unwrap();
                let plan = Spmm::analysis(&dev, op, mat).unwrap();
                let bd = DnMat::new(inner, nrhs, ldb, order, bb.as_slice()).unwrap();
                let mut cd = DnMatMut::new(rows, nrhs, ldc, order, cb.as_slice_mut()).unwrap();
                plan.compute(alpha, mat, &bd, beta, &mut cd).unwrap();
                let got = cb.to_vec().unwrap();
                for i in 0..rows {
                    for j in 0..nrhs {
                        let p = match order {
                            Order::ColMajor => i + j * ldc,
                            Order::RowMajor => i * ldc + j,
                        };
                        let bound = 4.0 * (inner as f64 + 2.0) * u * scale.get(i, j).unwrap().re;
                        close(
                            got[p].to_c64(),
                            want.get(i, j).unwrap(),
                            bound,
                            &format!("spmm {op:?} {order:?} ({i},{j})"),
                        )?;
                    }
                }
            }
        }
    }
    Ok(())
}

fn spgemm_case<I: Index, T: Scalar>(
    a: &RandMat,
    b: &RandMat,
    d: &RandMat,
) -> Result<(), TestCaseError> {
    let dev = Device::cpu();
    let a1: Csr<I, T> = a.coo::<I, T>().to_csr().unwrap();
    let b1: Csr<I, T> = b.coo::<I, T>().to_csr().unwrap();
    let d1: Csr<I, T> = d.coo::<I, T>().to_csr().unwrap();
    let (aw, bw, dw) = (
        r::dense_of(&a1).unwrap(),
        r::dense_of(&b1).unwrap(),
        r::dense_of(&d1).unwrap(),
    );
    let (alpha, beta): (T, T) = (tv(Complex64::new(0.5, 1.0)), tv(Complex64::new(2.0, -1.0)));
    let u = T::EPS / 2.0;
    let plan = Spgemm::analysis(&dev, &a1, &b1, Some(&d1)).unwrap();
    let cm = plan.compute(alpha, &a1, &b1, beta, Some(&d1)).unwrap();
    // The result's structure is valid and sorted.
    let (p, i, v) = cm.clone().into_parts();
    prop_assert!(Csr::new(cm.nrows(), cm.ncols(), p, i, v).is_ok());
    prop_assert_eq!(plan.nnz(), cm.nnz());
    // The fused one-shot product does the same arithmetic in the same order.
    prop_assert_eq!(
        &spgemm(&dev, alpha, &a1, &b1, beta, Some(&d1)).unwrap(),
        &cm
    );
    let want = r::gemm(alpha.to_c64(), &aw, &bw, beta.to_c64(), &dw);
    let scale = r::gemm(
        Complex64::new(abs(alpha), 0.0),
        &abs_mat(&aw),
        &abs_mat(&bw),
        Complex64::new(abs(beta), 0.0),
        &abs_mat(&dw),
    );
    let got = r::dense_of(&cm).unwrap();
    for i in 0..a.m {
        for j in 0..b.n {
            let bound = 4.0 * (a.n as f64 + 2.0) * u * scale.get(i, j).unwrap().re;
            close(
                got.get(i, j).unwrap(),
                want.get(i, j).unwrap(),
                bound,
                "spgemm",
            )?;
        }
    }
    // Without D.
    let plan = Spgemm::analysis(&dev, &a1, &b1, None).unwrap();
    let cm = plan.compute(alpha, &a1, &b1, beta, None).unwrap();
    let z = Dense::zeros(a.m, b.n);
    let want = r::gemm(alpha.to_c64(), &aw, &bw, beta.to_c64(), &z);
    let got = r::dense_of(&cm).unwrap();
    for i in 0..a.m {
        for j in 0..b.n {
            let bound = 4.0 * (a.n as f64 + 2.0) * u * scale.get(i, j).unwrap().re;
            close(
                got.get(i, j).unwrap(),
                want.get(i, j).unwrap(),
                bound,
                "spgemm no D",
            )?;
        }
    }
    // SpGEAM: alpha A + beta D (same shape as A*B, so use D and a reshaped A*B result).
    let g = Spgeam::analysis(&dev, &cm, &d1).unwrap();
    let sum = g.compute(alpha, &cm, beta, &d1).unwrap();
    let (p, i, v) = sum.clone().into_parts();
    prop_assert!(Csr::new(sum.nrows(), sum.ncols(), p, i, v).is_ok());
    let want = r::geam(alpha.to_c64(), &got, beta.to_c64(), &dw);
    let gs = r::dense_of(&sum).unwrap();
    for i in 0..a.m {
        for j in 0..b.n {
            let bound = 4.0
                * u
                * (abs(alpha) * got.get(i, j).unwrap().norm()
                    + abs(beta) * dw.get(i, j).unwrap().norm());
            close(
                gs.get(i, j).unwrap(),
                want.get(i, j).unwrap(),
                bound,
                "spgeam",
            )?;
        }
    }
    Ok(())
}

fn sddmm_case<I: Index, T: Scalar>(
    cm: &RandMat,
    k: usize,
    vals: &[(f64, f64)],
) -> Result<(), TestCaseError> {
    let dev = Device::cpu();
    let mut csr: Csr<I, T> = cm.coo::<I, T>().to_csr().unwrap();
    let cw = r::dense_of(&csr).unwrap();
    let pattern: Vec<(usize, usize)> = (0..csr.nrows())
        .flat_map(|i| csr.row_range(i).map(move |p| (i, p)))
        .map(|(i, p)| (i, csr.col_idx()[p].to_usize()))
        .collect();
    let mut it = vals.iter().cycle();
    let (opa, opb) = (Transpose::T, Transpose::N);
    // op(A) = Aᵀ is m×k so A is k×m (col-major); B is k×n.
    let a = Dense::from_fn(k, cm.m, |_, _| tv::<T>(c(*it.next().unwrap())));
    let b = Dense::from_fn(k, cm.n, |_, _| tv::<T>(c(*it.next().unwrap())));
    let (alpha, beta): (T, T) = (tv(Complex64::new(1.25, 0.5)), tv(Complex64::new(-0.5, 0.0)));
    let (aw, bw) = (r::widen(&a), r::widen(&b));
    let ta = r::apply_op(opa, &aw);
    let want = r::sddmm(alpha.to_c64(), &ta, &bw, beta.to_c64(), &cw, &pattern);
    let scale = r::sddmm(
        Complex64::new(abs(alpha), 0.0),
        &abs_mat(&ta),
        &abs_mat(&bw),
        Complex64::new(abs(beta), 0.0),
        &abs_mat(&cw),
        &pattern,
    );
    let ab = DeviceBuffer::from_slice(&dev, a.data()).unwrap();
    let bb = DeviceBuffer::from_slice(&dev, b.data()).unwrap();
    let ad = DnMat::new(k, cm.m, a.ld(), Order::ColMajor, ab.as_slice()).unwrap();
    let bd = DnMat::new(k, cm.n, b.ld(), Order::ColMajor, bb.as_slice()).unwrap();
    Sddmm::analysis(&dev, opa, opb)
        .unwrap()
        .compute(alpha, &ad, &bd, beta, &mut csr)
        .unwrap();
    let got = r::dense_of(&csr).unwrap();
    for &(i, j) in &pattern {
        let bound = 4.0 * (k as f64 + 2.0) * T::EPS * scale.get(i, j).unwrap().re;
        close(
            got.get(i, j).unwrap(),
            want.get(i, j).unwrap(),
            bound,
            "sddmm",
        )?;
    }
    Ok(())
}

/// Makes the diagonal dominant (|a_ii| = 1 + 2 Σ_j (|a_ij| + |a_ji|)) so solves and factorisations are
/// well conditioned and pivots are non-zero.
fn dominant(m: &RandMat) -> RandMat {
    let mut rs = vec![0.0; m.m];
    // Row plus column sums, so the Hermitian part (A + Aᴴ)/2 is dominant too.
    for e in m.entries.iter().filter(|e| e.0 != e.1) {
        let a = (e.2 * e.2 + e.3 * e.3).sqrt();
        rs[e.0] += a;
        rs[e.1] += a;
    }
    let mut entries: Vec<_> = m.entries.iter().filter(|e| e.0 != e.1).cloned().collect();
    for (i, s) in rs.iter().enumerate() {
        entries.push((i, i, 1.0 + 2.0 * s, 0.0));
    }
    RandMat {
        m: m.m,
        n: m.n,
        entries,
    }
}

fn spsv_case<I: Index, T: Scalar>(m: &RandMat, xs: &[(f64, f64)]) -> Result<(), TestCaseError> {
    let dev = Device::cpu();
    let dm = dominant(m);
    let csr: Csr<I, T> = dm.coo::<I, T>().to_csr().unwrap();
    let coo = csr.to_coo();
    let csc = csr.to_csc();
    let a = r::dense_of(&csr).unwrap();
    let n = m.m;
    let alpha: T = tv(Complex64::new(0.75, 0.5));
    let x: Vec<T> = xs[..n].iter().map(|&v| tv(c(v))).collect();
    let xb = DeviceBuffer::from_slice(&dev, &x).unwrap();
    // Diagonal dominance bounds the growth: a forward error of 8 n u (|y| + |x|) is
    // generous for these condition numbers (<= 3 per row).
    let u = T::EPS;
    for op in [Transpose::N, Transpose::T, Transpose::C] {
        for fill in [Uplo::Lower, Uplo::Upper] {
            for diag in [Diag::NonUnit, Diag::Unit] {
                let want = r::trsv(op, fill, diag, &a, alpha.to_c64(), &r::widen_vec(&x));
                let ymax = want.iter().map(|v| v.norm()).fold(1.0, f64::max);
                for mat in [SpMat::from(&csr), SpMat::from(&coo), SpMat::from(&csc)] {
                    let plan = Spsv::analysis(&dev, op, fill, diag, mat).unwrap();
                    prop_assert_eq!(plan.zero_pivot(), None);
                    let mut yb = DeviceBuffer::<T>::zeros(&dev, n).unwrap();
                    plan.compute(alpha, mat, &xb.as_slice(), &mut yb.as_slice_mut())
                        .unwrap();
                    let got = yb.to_vec().unwrap();
                    for i in 0..n {
                        // Unit solves are not diagonally dominant: allow their growth (<= 2^n
                        // in theory; values here stay small) via the solution size.
                        let bound = 8.0
                            * (n as f64 + 1.0)
                            * u
                            * ymax
                            * if diag == Diag::Unit { 64.0 } else { 1.0 };
                        close(
                            got[i].to_c64(),
                            want[i],
                            bound,
                            &format!("spsv {op:?} {fill:?} {diag:?} row {i}"),
                        )?;
                    }
                }
                // SpSM with 3 right-hand sides: column j is x scaled by (j + 1).
                let plan = Spsm::analysis(&dev, op, fill, diag, SpMat::from(&csr)).unwrap();
                let bv: Vec<T> = (0..3)
                    .flat_map(|j| x.iter().map(move |&v| v * T::from_f64(j as f64 + 1.0)))
                    .collect();
                let bb = DeviceBuffer::from_slice(&dev, &bv).unwrap();
                let mut cb = DeviceBuffer::<T>::zeros(&dev, bv.len()).unwrap();
                let bd = DnMat::new(n, 3, n.max(1), Order::ColMajor, bb.as_slice()).unwrap();
                let mut cd =
                    DnMatMut::new(n, 3, n.max(1), Order::ColMajor, cb.as_slice_mut()).unwrap();
                plan.compute(alpha, SpMat::from(&csr), &bd, &mut cd)
                    .unwrap();
                let got = cb.to_vec().unwrap();
                for j in 0..3 {
                    for i in 0..n {
                        let bound = 8.0
                            * (n as f64 + 1.0)
                            * u
                            * ymax
                            * (j as f64 + 1.0)
                            * if diag == Diag::Unit { 64.0 } else { 1.0 };
                        close(
                            got[i + j * n].to_c64(),
                            want[i] * (j as f64 + 1.0),
                            bound,
                            "spsm",
                        )?;
                    }
                }
            }
        }
    }
    Ok(())
}

/// The stored positions of `a`, explicit zeros included.
fn stored<I: Index, T: Scalar>(a: &Csr<I, T>) -> std::collections::HashSet<(usize, usize)> {
    (0..a.nrows())
        .flat_map(|i| a.row_range(i).map(move |k| (i, k)))
        .map(|(i, k)| (i, a.col_idx()[k].to_usize()))
        .collect()
}

fn ilu_case<I: Index, T: Scalar>(m: &RandMat) -> Result<(), TestCaseError> {
    let dev = Device::cpu();
    let dm = dominant(m);
    let mut csr: Csr<I, T> = dm.coo::<I, T>().to_csr().unwrap();
    let a = r::dense_of(&csr).unwrap();
    // The factor's pattern is the stored one: entries that cancelled to an explicit zero
    // (duplicates summed) are in it and take fill like any other.
    let stored_a = stored(&csr);
    let nz = |i: usize, j: usize| stored_a.contains(&(i, j)) || i == j;
    let want = r::ilu0(&a, nz);
    let mut plan = Ilu0::analysis(&dev, &csr).unwrap();
    plan.compute(&mut csr).unwrap();
    let got = r::dense_of(&csr).unwrap();
    let n = m.m;
    let scale = (0..n)
        .flat_map(|i| (0..n).map(move |j| (i, j)))
        .map(|(i, j)| want.get(i, j).unwrap().norm())
        .fold(1.0, f64::max);
    // Each factor entry is a dot product of length < n over well-conditioned pivots.
    for i in 0..n {
        for j in 0..n {
            close(
                got.get(i, j).unwrap(),
                want.get(i, j).unwrap(),
                16.0 * (n as f64 + 1.0) * T::EPS * scale,
                "ilu0",
            )?;
        }
    }
    // IC(0) of the Hermitian part made dominant: H = (A + Aᴴ)/2 on the symmetric pattern.
    let mut sym = Vec::new();
    for e in &dm.entries {
        if e.0 != e.1 {
            sym.push((e.0, e.1, e.2 / 2.0, e.3 / 2.0));
            sym.push((e.1, e.0, e.2 / 2.0, -e.3 / 2.0));
        } else {
            sym.push(*e);
        }
    }
    let hm = RandMat {
        m: n,
        n,
        entries: sym,
    };
    let mut h: Csr<I, T> = hm.coo::<I, T>().to_csr().unwrap();
    let hw = r::dense_of(&h).unwrap();
    // For real types the symmetrised real parts of a skew pair cancel to a stored zero.
    let stored_h = stored(&h);
    let pattern = |i: usize, j: usize| j <= i && (stored_h.contains(&(i, j)) || i == j);
    let wl = r::ic0(&hw, pattern);
    let mut plan = Ic0::analysis(&dev, &h).unwrap();
    plan.compute(&mut h).unwrap();
    let got = r::dense_of(&h).unwrap();
    let scale = (0..n)
        .map(|i| hw.get(i, i).unwrap().norm())
        .fold(1.0, f64::max);
    for i in 0..n {
        for j in 0..=i {
            close(
                got.get(i, j).unwrap(),
                wl.get(i, j).unwrap(),
                16.0 * (n as f64 + 1.0) * T::EPS * scale,
                "ic0",
            )?;
        }
    }
    Ok(())
}

/// A skew pair (4,8)/(8,4) whose real parts cancel when symmetrised leaves a stored zero
/// in the real IC(0) input; that position takes fill from column 1 (found by CI).
#[test]
fn cancelled_entries_stay_in_the_factor_pattern() {
    let m = RandMat {
        m: 10,
        n: 10,
        entries: vec![
            (4, 8, 4.890625, 0.0),
            (8, 1, 0.015625, 0.0),
            (8, 4, -4.890625, -1.5),
            (4, 1, 0.453125, -1.03125),
        ],
    };
    let run = || -> Result<(), TestCaseError> {
        for_all_types!(ilu_case, &m);
        Ok(())
    };
    run().unwrap();
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]
    #[test]
    fn spmv_matches_reference(m in rand_mat(11), xs in rand_vec(11), ys in rand_vec(11), ab in (rand_vec(2))) {
        for_all_types!(spmv_case, &m, &xs, &ys, (ab[0], ab[1]));
    }

    #[test]
    fn spmm_matches_reference(m in rand_mat(9), vals in rand_vec(17), nrhs in 0usize..5) {
        for_all_types!(spmm_case, &m, &vals, nrhs);
    }

    #[test]
    fn spgemm_spgeam_match_reference(dims in (0usize..9, 0usize..9, 0usize..9)) {
        let (m, k, n) = dims;
        let mk = |r, c, seed: u64| {
            let mut s = seed;
            let mut entries = vec![];
            for i in 0..r {
                for j in 0..c {
                    s = s.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
                    if (s >> 33) % 3 == 0 {
                        entries.push((i, j, ((s >> 40) % 64) as f64 / 8.0 - 4.0 + 0.125, ((s >> 20) % 32) as f64 / 16.0 - 1.0));
                    }
                }
            }
            RandMat { m: r, n: c, entries }
        };
        let (a, b, d) = (mk(m, k, 1 + m as u64), mk(k, n, 7 + n as u64), mk(m, n, 99));
        for_all_types!(spgemm_case, &a, &b, &d);
    }

    #[test]
    fn sddmm_matches_reference(m in rand_mat(9), k in 0usize..6, vals in rand_vec(13)) {
        for_all_types!(sddmm_case, &m, k, &vals);
    }

    #[test]
    fn triangular_solves_match_reference(m in rand_square(10), xs in rand_vec(10)) {
        for_all_types!(spsv_case, &m, &xs);
    }

    #[test]
    fn ilu0_ic0_match_reference(m in rand_square(10)) {
        for_all_types!(ilu_case, &m);
    }
}

#[test]
fn power_law_row_is_split_across_pieces() {
    // One row holds most of the nonzeros: merge-path must cut it and still be exact
    // (all values small integers, so every sum is exact in f64).
    let dev = Device::cpu();
    let n = 50_000usize;
    let mut rows = vec![];
    let mut cols = vec![];
    for j in 0..n {
        rows.push(7i64);
        cols.push(j as i64);
    }
    for i in 0..n {
        rows.push(i as i64);
        cols.push(((i * 31) % n) as i64);
    }
    let vals: Vec<f64> = (0..rows.len()).map(|k| ((k % 7) as f64) - 3.0).collect();
    let x: Vec<f64> = (0..n).map(|i| (i % 5) as f64 - 2.0).collect();
    // Reference: accumulate the triples directly (too large for a dense matrix).
    let mut want = vec![0.0f64; n];
    for k in 0..rows.len() {
        want[rows[k] as usize] += vals[k] * x[cols[k] as usize];
    }
    let coo = rocm_sparse::Coo::new(n, n, rows, cols, vals).unwrap();
    let csr = coo.to_csr().unwrap();
    let xb = DeviceBuffer::from_slice(&dev, &x).unwrap();
    let mut yb = DeviceBuffer::<f64>::zeros(&dev, n).unwrap();
    let plan = Spmv::analysis(&dev, Transpose::N, (&csr).into(), SpmvAlg::MergePath).unwrap();
    plan.compute(
        1.0,
        (&csr).into(),
        &xb.as_slice(),
        0.0,
        &mut yb.as_slice_mut(),
    )
    .unwrap();
    let got = yb.to_vec().unwrap();
    for i in 0..n {
        assert_eq!(got[i], want[i], "row {i}");
    }
}

/// `y = A x` with `A` power-law (rows from 1 to ~10^4 nonzeros, a few cut between
/// pieces) and `x` large enough (1.6 MB) for the prefetching kernel: exact on
/// small-integer data, and bitwise the same for 1, 2 and 3 threads and on a repeat with
/// random data (the partition does not depend on the thread count).
#[test]
fn large_spmv_is_exact_and_thread_count_independent() {
    let dev = Device::cpu();
    let n = 200_000;
    let mut a = rocm_sparse::gen::power_law::<i32, f64>(n, 4.0, 2.1, 11).unwrap();
    let longest = (0..n).map(|i| a.row_range(i).len()).max().unwrap();
    assert!(longest > 5_000, "longest row {longest}");
    let run = |a: &Csr<i32, f64>, x: &[f64], beta: f64, threads: usize| -> Vec<f64> {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap();
        pool.install(|| {
            let xb = DeviceBuffer::from_slice(&dev, x).unwrap();
            let y0: Vec<f64> = (0..n).map(|i| (i % 3) as f64).collect();
            // Both algorithms' results, one after the other.
            let mut out = Vec::new();
            for alg in [SpmvAlg::MergePath, SpmvAlg::RowSplit] {
                let plan = Spmv::analysis(&dev, Transpose::N, a.into(), alg).unwrap();
                let mut yb = DeviceBuffer::from_slice(&dev, &y0).unwrap();
                plan.compute(2.0, a.into(), &xb.as_slice(), beta, &mut yb.as_slice_mut())
                    .unwrap();
                out.extend(yb.to_vec().unwrap());
            }
            out
        })
    };
    // Small integers: every partial sum is an integer below 2^53, so exact.
    for (k, v) in a.values_mut().iter_mut().enumerate() {
        *v = (k % 7) as f64 - 3.0;
    }
    let x: Vec<f64> = (0..n).map(|i| (i % 5) as f64 - 2.0).collect();
    let mut want: Vec<f64> = (0..n).map(|i| -((i % 3) as f64)).collect();
    for (i, w) in want.iter_mut().enumerate() {
        for k in a.row_range(i) {
            *w += 2.0 * a.values()[k] * x[a.col_idx()[k] as usize];
        }
    }
    let want2 = [want.clone(), want].concat();
    assert_eq!(run(&a, &x, -1.0, 2), want2);
    // Random data: rounding depends on the cuts, which must not depend on threads.
    let mut rng = rocm_sparse::gen::Rng::new(5);
    for v in a.values_mut() {
        *v = rng.value();
    }
    let x: Vec<f64> = (0..n).map(|_| rng.value()).collect();
    let one = run(&a, &x, 0.5, 1);
    for threads in [2, 3, 1] {
        let got = run(&a, &x, 0.5, threads);
        assert!(
            got.iter()
                .zip(&one)
                .all(|(g, o)| g.to_bits() == o.to_bits()),
            "{threads} threads differ from 1"
        );
    }
}

/// A stencil with `x` beyond L2 (poisson3d, 1.7 MB): the analysis finds its gathers
/// stream and runs the kernel without prefetches; exact on small-integer data against
/// the row-by-row sum, for `beta = 0` with NaN in `y` and for `beta = -1`.
#[test]
fn large_stencil_spmv_is_exact() {
    let dev = Device::cpu();
    let mut a = rocm_sparse::gen::poisson3d::<i32, f64>(60).unwrap();
    let n = a.nrows();
    assert!(n * 8 > 1 << 20);
    for (k, v) in a.values_mut().iter_mut().enumerate() {
        *v = (k % 7) as f64 - 3.0;
    }
    let x: Vec<f64> = (0..n).map(|i| (i % 5) as f64 - 2.0).collect();
    let ax: Vec<f64> = (0..n)
        .map(|i| {
            a.row_range(i)
                .map(|k| a.values()[k] * x[a.col_idx()[k] as usize])
                .sum()
        })
        .collect();
    let xb = DeviceBuffer::from_slice(&dev, &x).unwrap();
    for alg in [SpmvAlg::MergePath, SpmvAlg::RowSplit] {
        let plan = Spmv::analysis(&dev, Transpose::N, (&a).into(), alg).unwrap();
        for (beta, y0) in [(0.0, f64::NAN), (-1.0, 1.0)] {
            let mut yb = DeviceBuffer::from_slice(&dev, &vec![y0; n]).unwrap();
            plan.compute(
                2.0,
                (&a).into(),
                &xb.as_slice(),
                beta,
                &mut yb.as_slice_mut(),
            )
            .unwrap();
            let want: Vec<f64> = ax
                .iter()
                .map(|s| if beta == 0.0 { 2.0 * s } else { 2.0 * s - 1.0 })
                .collect();
            assert_eq!(yb.to_vec().unwrap(), want, "{alg:?} beta {beta}");
        }
    }
}

/// A CSR of the analysed shape and nnz whose nonzeros sit in other rows must be refused
/// by the merge-path plans (their cuts would sum it wrongly), not computed silently.
#[test]
fn spmv_spmm_refuse_moved_row_pointers() {
    let dev = Device::cpu();
    let n = 100_000;
    let a = rocm_sparse::gen::power_law::<i32, f64>(n, 4.0, 2.1, 3).unwrap();
    // Same nnz, row lengths reversed: row i gets row (n - 1 - i)'s length.
    let (ptr, idx, vals) = a.clone().into_parts();
    let mut moved = vec![0i32];
    for i in 0..n {
        let len = ptr[n - i] - ptr[n - 1 - i];
        moved.push(moved[i] + len);
    }
    let sorted: Vec<i32> = (0..n)
        .flat_map(|i| {
            let len = (moved[i + 1] - moved[i]) as usize;
            (0..len as i32).collect::<Vec<_>>()
        })
        .collect();
    assert_eq!(sorted.len(), idx.len());
    let b = Csr::new(n, n, moved, sorted, vals).unwrap();
    let plan = Spmv::analysis(&dev, Transpose::N, (&a).into(), SpmvAlg::MergePath).unwrap();
    let x = DeviceBuffer::from_slice(&dev, &vec![1.0; n]).unwrap();
    let mut y = DeviceBuffer::<f64>::zeros(&dev, n).unwrap();
    let err = plan
        .compute(1.0, (&b).into(), &x.as_slice(), 0.0, &mut y.as_slice_mut())
        .unwrap_err();
    assert!(err.to_string().contains("row pointers"), "{err}");
    let mm = Spmm::analysis(&dev, Transpose::N, (&a).into()).unwrap();
    let bd = DnMat::new(n, 1, n, Order::ColMajor, x.as_slice()).unwrap();
    let mut cd = DnMatMut::new(n, 1, n, Order::ColMajor, y.as_slice_mut()).unwrap();
    assert!(mm.compute(1.0, (&b).into(), &bd, 0.0, &mut cd).is_err());
}

#[test]
fn zero_pivots_name_their_row() {
    let dev = Device::cpu();
    // Row 1 has no diagonal; row 2's diagonal is 0.
    let a = Csr::<i32, f64>::new(
        3,
        3,
        vec![0, 1, 2, 4],
        vec![0, 0, 1, 2],
        vec![2.0, 1.0, 1.0, 0.0],
    )
    .unwrap();
    let sv = Spsv::analysis(&dev, Transpose::N, Uplo::Lower, Diag::NonUnit, (&a).into()).unwrap();
    assert_eq!(sv.zero_pivot(), Some(1));
    let x = DeviceBuffer::from_slice(&dev, &[1.0; 3]).unwrap();
    let mut y = DeviceBuffer::<f64>::zeros(&dev, 3).unwrap();
    let e = sv
        .compute(1.0, (&a).into(), &x.as_slice(), &mut y.as_slice_mut())
        .unwrap_err();
    assert!(e.to_string().contains("row 1"), "{e}");
    // Unit diagonal: no pivots needed.
    let sv = Spsv::analysis(&dev, Transpose::N, Uplo::Lower, Diag::Unit, (&a).into()).unwrap();
    assert_eq!(sv.zero_pivot(), None);
    let b = Csr::<i32, f64>::new(
        3,
        3,
        vec![0, 1, 3, 5],
        vec![0, 0, 1, 1, 2],
        vec![2.0, 1.0, 1.0, 1.0, 0.0],
    )
    .unwrap();
    let sv = Spsv::analysis(&dev, Transpose::N, Uplo::Lower, Diag::NonUnit, (&b).into()).unwrap();
    let e = sv
        .compute(1.0, (&b).into(), &x.as_slice(), &mut y.as_slice_mut())
        .unwrap_err();
    assert!(e.to_string().contains("row 2"), "{e}");
    let mut f = a.clone();
    let mut ilu = Ilu0::analysis(&dev, &f).unwrap();
    assert_eq!(ilu.zero_pivot(), Some(1));
    assert!(ilu
        .compute(&mut f)
        .unwrap_err()
        .to_string()
        .contains("row 1"));
    let mut g = b.clone();
    let mut ilu = Ilu0::analysis(&dev, &g).unwrap();
    assert!(ilu
        .compute(&mut g)
        .unwrap_err()
        .to_string()
        .contains("row 2"));
    assert_eq!(ilu.zero_pivot(), Some(2));
    // IC(0) of an indefinite matrix: pivot of row 1 is 1 - 4 < 0.
    let mut h = Csr::<i32, f64>::new(
        2,
        2,
        vec![0, 2, 4],
        vec![0, 1, 0, 1],
        vec![1.0, 2.0, 2.0, 1.0],
    )
    .unwrap();
    let mut ic = Ic0::analysis(&dev, &h).unwrap();
    assert!(ic
        .compute(&mut h)
        .unwrap_err()
        .to_string()
        .contains("row 1"));
}

#[test]
fn mismatched_arguments_are_errors() {
    let dev = Device::cpu();
    let a = Csr::<i32, f64>::identity(3).unwrap();
    let plan = Spmv::analysis(&dev, Transpose::N, (&a).into(), SpmvAlg::MergePath).unwrap();
    let x = DeviceBuffer::from_slice(&dev, &[1.0; 2]).unwrap();
    let mut y = DeviceBuffer::<f64>::zeros(&dev, 3).unwrap();
    assert!(plan
        .compute(1.0, (&a).into(), &x.as_slice(), 0.0, &mut y.as_slice_mut())
        .unwrap_err()
        .to_string()
        .contains("`x`"));
    let b = Csr::<i32, f64>::identity(4).unwrap();
    let x4 = DeviceBuffer::from_slice(&dev, &[1.0; 4]).unwrap();
    let mut y4 = DeviceBuffer::<f64>::zeros(&dev, 4).unwrap();
    assert!(plan
        .compute(
            1.0,
            (&b).into(),
            &x4.as_slice(),
            0.0,
            &mut y4.as_slice_mut()
        )
        .is_err());
    assert!(Spgemm::analysis(&dev, &a, &b, None).is_err());
    assert!(DnMat::new(3, 2, 2, Order::ColMajor, x.as_slice()).is_err());
}

/// A device that is not the CPU: every plan must refuse it, naming it.
mod fake {
    use rocm_core::backend::{Allocation, Backend, BackendModule, BackendStream};
    use rocm_core::{DeviceInfo, Error, ModuleImage, Result, Target};
    use std::sync::Arc;

    #[derive(Debug)]
    pub struct Gpu(pub DeviceInfo);
    impl Backend for Gpu {
        fn info(&self) -> &DeviceInfo {
            &self.0
        }
        fn alloc(&self, _: usize) -> Result<Box<dyn Allocation>> {
            Err(Error::unsupported("alloc", "fake"))
        }
        fn write(&self, _: &dyn BackendStream, _: u64, _: &[u8]) -> Result<()> {
            Err(Error::unsupported("write", "fake"))
        }
        fn read(&self, _: &dyn BackendStream, _: u64, _: &mut [u8]) -> Result<()> {
            Err(Error::unsupported("read", "fake"))
        }
        fn copy(&self, _: &dyn BackendStream, _: u64, _: u64, _: usize) -> Result<()> {
            Err(Error::unsupported("copy", "fake"))
        }
        fn fill_bytes(&self, _: &dyn BackendStream, _: u64, _: u8, _: usize) -> Result<()> {
            Err(Error::unsupported("fill", "fake"))
        }
        fn new_stream(&self) -> Result<Arc<dyn BackendStream>> {
            Err(Error::unsupported("stream", "fake"))
        }
        fn load_module(&self, _: &ModuleImage) -> Result<Arc<dyn BackendModule>> {
            Err(Error::unsupported("module", "fake"))
        }
    }
    pub fn device() -> rocm_core::Device {
        rocm_core::Device::from_backend(Arc::new(Gpu(DeviceInfo {
            id: "hip:3".into(),
            name: "fake gfx942".into(),
            target: "gfx942".parse::<Target>().unwrap(),
            total_memory: 0,
            compute_units: 1,
            clock_mhz: None,
        })))
    }
}

#[test]
fn gpu_devices_are_unsupported() {
    let gpu = fake::device();
    assert!(!gpu.is_cpu());
    let a = Csr::<i32, f64>::identity(3).unwrap();
    let errs = [
        Spmv::analysis(&gpu, Transpose::N, (&a).into(), SpmvAlg::MergePath).err(),
        Spmm::analysis(&gpu, Transpose::N, (&a).into()).err(),
        Spgemm::analysis(&gpu, &a, &a, None).err(),
        spgemm(&gpu, 1.0, &a, &a, 0.0, None).err(),
        Spgeam::analysis(&gpu, &a, &a).err(),
        Sddmm::analysis(&gpu, Transpose::N, Transpose::N).err(),
        Spsv::analysis(&gpu, Transpose::N, Uplo::Lower, Diag::NonUnit, (&a).into()).err(),
        Spsm::analysis(&gpu, Transpose::N, Uplo::Lower, Diag::NonUnit, (&a).into()).err(),
        Ilu0::analysis(&gpu, &a).err(),
        Ic0::analysis(&gpu, &a).err(),
    ];
    for e in errs {
        match e {
            Some(rocm_core::Error::Unsupported { device, .. }) => {
                assert!(device.contains("hip:3"), "{device}")
            }
            other => panic!("expected Unsupported naming hip:3, got {other:?}"),
        }
    }
}

/// A numeric SpGEMM stage given inputs of the analysed shapes and nnz but another pattern
/// must refuse, not scatter products into whatever slot a stale position names.
#[test]
fn spgemm_compute_rejects_a_changed_pattern() {
    let dev = Device::cpu();
    let a = Csr::<i32, f64>::identity(2).unwrap();
    let diag = Csr::<i32, f64>::new(2, 2, vec![0, 1, 2], vec![0, 1], vec![2.0, 3.0]).unwrap();
    let anti = Csr::<i32, f64>::new(2, 2, vec![0, 1, 2], vec![1, 0], vec![2.0, 3.0]).unwrap();
    let plan = Spgemm::analysis(&dev, &a, &diag, None).unwrap();
    let c = plan.compute(1.0, &a, &diag, 0.0, None).unwrap();
    assert_eq!(c.values(), &[2.0, 3.0]);
    // On one thread, so the failed call and the next share the thread's accumulator:
    // the failure must leave it clean.
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(1)
        .build()
        .unwrap();
    // Row 0 of A * wide has a product inside the pattern (column 0) and one outside.
    let wide = Csr::<i32, f64>::new(2, 2, vec![0, 2, 2], vec![0, 1], vec![5.0, 7.0]).unwrap();
    pool.install(|| {
        assert!(plan.compute(1.0, &a, &anti, 0.0, None).is_err());
        assert!(plan.compute(1.0, &a, &wide, 0.0, None).is_err());
        let mut v = vec![f64::NAN; 2];
        plan.compute_values(-1.0, &a, &diag, 0.0, None, &mut v)
            .unwrap();
        assert_eq!(v, [-2.0, -3.0]);
        assert!(plan
            .compute_values(1.0, &a, &diag, 0.0, None, &mut [0.0; 3])
            .is_err());
    });
}

/// SpGEMM large enough for many pieces, on a power-law `A` (rows from 1 to thousands of
/// products) with `D`: staged, fused and values-only paths equal a direct Gustavson
/// product exactly (small-integer data: every sum is exact), and bitwise the same on
/// 1 and 3 threads with random data.
#[test]
fn large_spgemm_is_exact_and_thread_count_independent() {
    let dev = Device::cpu();
    let n = 6_000;
    let mut a = rocm_sparse::gen::power_law::<i32, f64>(n, 3.0, 2.1, 21).unwrap();
    let mut b = rocm_sparse::gen::random_uniform::<i32, f64>(n, n, 4, 22).unwrap();
    let mut d = rocm_sparse::gen::banded::<i32, f64>(n, 1, 1, 23).unwrap();
    let ints = |v: &mut [f64], s: usize| {
        for (k, x) in v.iter_mut().enumerate() {
            *x = ((k * s) % 9) as f64 - 4.0;
        }
    };
    ints(a.values_mut(), 7);
    ints(b.values_mut(), 5);
    ints(d.values_mut(), 3);
    // Reference: row by row through a BTreeMap, alpha = 2, beta = -1.
    let mut want_ptr = vec![0usize];
    let mut want = vec![];
    for i in 0..n {
        let mut row = std::collections::BTreeMap::new();
        for ka in a.row_range(i) {
            let r = a.col_idx()[ka] as usize;
            for kb in b.row_range(r) {
                *row.entry(b.col_idx()[kb]).or_insert(0.0) += 2.0 * a.values()[ka] * b.values()[kb];
            }
        }
        for kd in d.row_range(i) {
            *row.entry(d.col_idx()[kd]).or_insert(0.0) -= d.values()[kd];
        }
        want.extend(row);
        want_ptr.push(want.len());
    }
    let run = |a: &Csr<i32, f64>, b: &Csr<i32, f64>, d: &Csr<i32, f64>, threads: usize| {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap();
        pool.install(|| {
            let plan = Spgemm::analysis(&dev, a, b, Some(d)).unwrap();
            let staged = plan.compute(2.0, a, b, -1.0, Some(d)).unwrap();
            let fused = spgemm(&dev, 2.0, a, b, -1.0, Some(d)).unwrap();
            assert_eq!(staged, fused);
            let mut v = vec![0.0; plan.nnz()];
            plan.compute_values(2.0, a, b, -1.0, Some(d), &mut v)
                .unwrap();
            assert_eq!(v, staged.values());
            assert_eq!(plan.into_csr(2.0, a, b, -1.0, Some(d)).unwrap(), staged);
            staged
        })
    };
    let c = run(&a, &b, &d, 3);
    let ptr: Vec<usize> = c.row_ptr().iter().map(|&p| p as usize).collect();
    assert_eq!(ptr, want_ptr);
    let got: Vec<(i32, f64)> = c
        .col_idx()
        .iter()
        .copied()
        .zip(c.values().iter().copied())
        .collect();
    assert_eq!(got, want);
    let mut rng = rocm_sparse::gen::Rng::new(9);
    for v in a
        .values_mut()
        .iter_mut()
        .chain(b.values_mut())
        .chain(d.values_mut())
    {
        *v = rng.value();
    }
    let one = run(&a, &b, &d, 1);
    let three = run(&a, &b, &d, 3);
    assert!(one
        .values()
        .iter()
        .zip(three.values())
        .all(|(x, y)| x.to_bits() == y.to_bits()));
}
