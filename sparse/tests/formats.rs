//! Formats: validation errors (table-driven) and exact conversion round trips between
//! every pair of formats, for every index and value type.

mod common;

use common::*;
use proptest::prelude::*;
use proptest::test_runner::TestCaseError;
use rocm_sparse::{BlockLayout, Bsr, Coo, Csc, Csr, Dense, Ell, Index, Scalar, SparseMatrix};

/// Dense matrix of the triples, summing duplicates in input order (the order COO's
/// stable sort keeps), so it is exactly what every conversion must produce.
fn dense_sum<T: Scalar>(r: &RandMat) -> Dense<T> {
    let mut d = Dense::<T>::zeros(r.m, r.n);
    for &(i, j, re, im) in &r.entries {
        let v = d.get(i, j).unwrap() + scalar::<T>(re, im);
        d.set(i, j, v).unwrap();
    }
    d
}

fn round_trips<I: Index, T: Scalar>(r: &RandMat) -> Result<(), TestCaseError> {
    let coo: Coo<I, T> = r.coo();
    let want = dense_sum::<T>(r);
    let csr = coo.to_csr().unwrap();
    prop_assert!(csr.to_dense().unwrap().same_entries(&want));
    let csc = csr.to_csc();
    let ell = csr.to_ell().unwrap();
    // Lossless pairs: the structure comes back identical.
    prop_assert_eq!(&csc.to_csr().unwrap(), &csr);
    prop_assert_eq!(&csr.to_coo().to_csr().unwrap(), &csr);
    prop_assert_eq!(&ell.to_csr().unwrap(), &csr);
    prop_assert_eq!(&csr.transpose().transpose(), &csr);
    prop_assert_eq!(
        &Csc::<I, T>::from_dense(&want).unwrap(),
        &csr.prune(0.0).to_csc()
    );
    prop_assert_eq!(&Csr::<I, T>::from_dense(&want).unwrap(), &csr.prune(0.0));
    for bd in [1, 2, 3] {
        for layout in [BlockLayout::RowMajor, BlockLayout::ColMajor] {
            let bsr = csr.to_bsr(bd, layout).unwrap();
            prop_assert!(bsr.to_dense().unwrap().same_entries(&want));
            let back = bsr.to_csr().unwrap();
            prop_assert_eq!(&back.prune(0.0), &csr.prune(0.0));
            prop_assert_eq!(&Bsr::from_csr(&back, bd, layout).unwrap(), &bsr);
        }
    }
    // Every pair: source format -> target format, compared densely (exact).
    let bsr = csr.to_bsr(2, BlockLayout::ColMajor).unwrap();
    let sources: Vec<Box<dyn Fn() -> Csr<I, T>>> = vec![
        Box::new(|| coo.to_csr().unwrap()),
        Box::new(|| csc.to_csr().unwrap()),
        Box::new(|| bsr.to_csr().unwrap()),
        Box::new(|| ell.to_csr().unwrap()),
    ];
    for s in &sources {
        let src = s();
        prop_assert!(src.to_coo().to_dense().unwrap().same_entries(&want));
        prop_assert!(src
            .to_csc()
            .to_csr()
            .unwrap()
            .to_dense()
            .unwrap()
            .same_entries(&want));
        prop_assert!(src
            .to_ell()
            .unwrap()
            .to_dense()
            .unwrap()
            .same_entries(&want));
        prop_assert!(src
            .to_bsr(3, BlockLayout::RowMajor)
            .unwrap()
            .to_dense()
            .unwrap()
            .same_entries(&want));
    }
    prop_assert!(coo
        .to_csc()
        .unwrap()
        .to_dense()
        .unwrap()
        .same_entries(&want));
    prop_assert!(ell
        .to_coo()
        .unwrap()
        .to_dense()
        .unwrap()
        .same_entries(&want));
    prop_assert!(bsr
        .to_ell()
        .unwrap()
        .to_dense()
        .unwrap()
        .same_entries(&want));
    // Transpose agrees with the dense transpose.
    let t = csr.conj_transpose().to_dense().unwrap();
    for i in 0..r.m {
        for j in 0..r.n {
            prop_assert_eq!(t.get(j, i).unwrap(), want.get(i, j).unwrap().conj());
        }
    }
    // Sorting and duplicate summation.
    let mut c2 = coo.clone();
    c2.sum_duplicates();
    prop_assert!(c2.is_canonical());
    prop_assert!(c2.to_dense().unwrap().same_entries(&want));
    let mut c3 = coo.clone();
    c3.sort_by_col();
    prop_assert!((1..c3.nnz())
        .all(|k| (c3.col_idx()[k - 1], c3.row_idx()[k - 1]) <= (c3.col_idx()[k], c3.row_idx()[k])));
    // Unsorted CSR input: reverse each row's entries (and keep duplicates).
    let (ptr, _, _) = csr.clone().into_parts();
    let mut cols = csr.col_idx().to_vec();
    let mut vals = csr.values().to_vec();
    for i in 0..r.m {
        let rg = ptr[i].to_usize()..ptr[i + 1].to_usize();
        cols[rg.clone()].reverse();
        vals[rg].reverse();
    }
    prop_assert_eq!(
        &Csr::from_unsorted(r.m, r.n, ptr, cols, vals).unwrap(),
        &csr
    );
    // Pruning by threshold keeps exactly the larger entries.
    let p = csr.prune(2.0);
    prop_assert!(p
        .values()
        .iter()
        .all(|v| rocm_core::Real::as_f64(v.modulus()) > 2.0));
    prop_assert_eq!(
        p.nnz(),
        csr.values()
            .iter()
            .filter(|v| rocm_core::Real::as_f64(v.modulus()) > 2.0)
            .count()
    );
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]
    #[test]
    fn conversions_are_exact(r in rand_mat(13)) {
        for_all_types!(round_trips, &r);
    }
}

fn check_err<T: std::fmt::Debug>(r: rocm_core::Result<T>, what: &str, needle: &str) {
    match r {
        Ok(v) => panic!("expected an error about {what} containing {needle:?}, got Ok({v:?})"),
        Err(e) => {
            let s = e.to_string();
            assert!(
                s.contains(what) && s.contains(needle),
                "{s:?} should name {what:?} and contain {needle:?}"
            );
        }
    }
}

#[test]
fn invalid_structures_report_first_violation() {
    type C = Csr<i32, f64>;
    check_err(
        C::new(2, 2, vec![0, 1], vec![0], vec![1.0]),
        "row_ptr",
        "length 2",
    );
    check_err(
        C::new(2, 2, vec![1, 1, 1], vec![0], vec![1.0]),
        "row_ptr",
        "row_ptr[0] = 1",
    );
    check_err(
        C::new(2, 2, vec![0, 2, 1], vec![0, 1], vec![1.0, 1.0]),
        "row_ptr",
        "row_ptr[2] = 1 < row_ptr[1] = 2",
    );
    check_err(
        C::new(2, 2, vec![0, 1, 3], vec![0, 1], vec![1.0, 1.0]),
        "row_ptr",
        "row_ptr[2] = 3 != nnz = 2",
    );
    check_err(
        C::new(2, 2, vec![0, 1, 2], vec![0, 2], vec![1.0, 1.0]),
        "col_idx",
        "col_idx[1] = 2 (row 1)",
    );
    check_err(
        C::new(2, 2, vec![0, 1, 2], vec![-1, 0], vec![1.0, 1.0]),
        "col_idx",
        "col_idx[0] = -1",
    );
    check_err(
        C::new(1, 3, vec![0, 2], vec![1, 1], vec![1.0, 1.0]),
        "col_idx",
        "col_idx[1] = 1 <= col_idx[0] = 1",
    );
    check_err(
        C::new(1, 3, vec![0, 2], vec![2, 1], vec![1.0, 1.0]),
        "col_idx",
        "strictly increasing",
    );
    check_err(
        C::new(1, 3, vec![0, 2], vec![0, 1], vec![1.0]),
        "col_idx",
        "values length 1",
    );
    check_err(
        Csc::<i32, f64>::new(3, 1, vec![0, 2], vec![1, 0], vec![1.0, 1.0]),
        "row_idx",
        "row_idx[1] = 0",
    );
    check_err(
        Coo::<i32, f64>::new(2, 2, vec![0, 2], vec![0, 0], vec![1.0, 1.0]),
        "row_idx",
        "row_idx[1] = 2",
    );
    check_err(
        Coo::<i32, f64>::new(2, 2, vec![0, 1], vec![0, 5], vec![1.0, 1.0]),
        "col_idx",
        "col_idx[1] = 5",
    );
    check_err(
        Coo::<i32, f64>::new(2, 2, vec![0], vec![0, 0], vec![1.0]),
        "coo",
        "lengths differ",
    );
    check_err(
        Coo::<i32, f64>::new(1 << 31, 1, vec![], vec![], vec![]),
        "nrows",
        "does not fit",
    );
    check_err(
        Bsr::<i32, f64>::new(
            3,
            3,
            2,
            BlockLayout::RowMajor,
            vec![0, 1, 1],
            vec![0],
            vec![1.0; 3],
        ),
        "values",
        "length 3",
    );
    // Row 3 of a 3x3 matrix with 2x2 blocks is padding and must hold zero.
    check_err(
        Bsr::<i32, f64>::new(
            3,
            3,
            2,
            BlockLayout::RowMajor,
            vec![0, 0, 1],
            vec![0],
            vec![1.0, 0.0, 2.0, 0.0],
        ),
        "values",
        "padding",
    );
    check_err(
        Bsr::<i32, f64>::new(
            4,
            4,
            2,
            BlockLayout::RowMajor,
            vec![0, 2, 2],
            vec![1, 0],
            vec![1.0; 8],
        ),
        "block_col_idx",
        "block_col_idx[1] = 0",
    );
    check_err(
        Bsr::<i32, f64>::new(4, 4, 0, BlockLayout::RowMajor, vec![0], vec![], vec![]),
        "block_dim",
        ">= 1",
    );
    check_err(
        Ell::<i32, f64>::new(2, 3, 2, vec![1, 1, 0, -1], vec![1.0; 4]),
        "col_idx",
        "col_idx[2] = 0 (row 0, slot 1)",
    );
    check_err(
        Ell::<i32, f64>::new(2, 3, 2, vec![-1, 1, 1, 2], vec![1.0; 4]),
        "col_idx",
        "follows a padding slot",
    );
    check_err(
        Ell::<i32, f64>::new(2, 3, 2, vec![0, 3, -1, -1], vec![1.0; 4]),
        "col_idx",
        "outside 0..3",
    );
    check_err(
        Ell::<i32, f64>::new(2, 3, 2, vec![0, 1], vec![1.0; 2]),
        "col_idx",
        "nrows * width = 4",
    );
    check_err(
        Dense::<f64>::new(3, 2, 2, vec![0.0; 6]),
        "ld",
        ">= max(1, nrows) = 3",
    );
    check_err(Dense::<f64>::new(3, 2, 4, vec![0.0; 6]), "data", "needed");
    check_err(
        Csr::<i32, f64>::from_unsorted(2, 2, vec![0, 2, 1], vec![0, 1], vec![1.0, 1.0]),
        "row_ptr",
        "non-decreasing",
    );
    // Valid edge cases.
    assert!(Csr::<i32, f64>::new(0, 0, vec![0], vec![], vec![]).is_ok());
    assert!(Ell::<i64, f32>::new(0, 5, 3, vec![], vec![]).is_ok());
    assert!(
        Csr::<i64, f64>::identity(1)
            .unwrap()
            .to_dense()
            .unwrap()
            .get(0, 0)
            == Some(1.0)
    );
}
