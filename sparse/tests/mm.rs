//! Matrix Market: round trips of every field × symmetry in both formats, and a table of
//! malformed inputs with the line each error must name.

mod common;

use common::*;
use num_complex::{Complex32, Complex64};
use proptest::prelude::*;
use rocm_sparse::mm::{self, MmField, MmMatrix, MmSymmetry};
use rocm_sparse::{Coo, Dense, Index, Scalar, SparseMatrix};

/// The valid (field, symmetry) combinations for a value type.
fn combos(complex: bool) -> Vec<(MmField, MmSymmetry)> {
    let mut v = vec![];
    for f in [
        MmField::Real,
        MmField::Integer,
        MmField::Complex,
        MmField::Pattern,
    ] {
        for s in [
            MmSymmetry::General,
            MmSymmetry::Symmetric,
            MmSymmetry::SkewSymmetric,
            MmSymmetry::Hermitian,
        ] {
            let ok = match (f, s) {
                (MmField::Complex, _) => complex,
                (MmField::Pattern, MmSymmetry::SkewSymmetric) => false,
                (_, MmSymmetry::Hermitian) => false,
                _ => true,
            };
            if ok {
                v.push((f, s));
            }
        }
    }
    v
}

/// Shapes a random matrix to the field (integers, ones for pattern, real parts only
/// unless complex) and symmetry (lower triangle mirrored).
fn shaped<T: Scalar>(r: &RandMat, f: MmField, s: MmSymmetry) -> Dense<T> {
    let n = if s == MmSymmetry::General {
        r.m
    } else {
        r.m.min(r.n)
    };
    let ncols = if s == MmSymmetry::General { r.n } else { n };
    let mut d = Dense::<T>::zeros(n, ncols);
    for &(i, j, re, im) in &r.entries {
        if i >= n || j >= ncols {
            continue;
        }
        let z = match f {
            MmField::Pattern => Complex64::new(1.0, 0.0),
            MmField::Integer => Complex64::new((re * 64.0).round(), 0.0),
            MmField::Real => Complex64::new(re, 0.0),
            MmField::Complex => Complex64::new(re, im),
        };
        let (i, j) = if s != MmSymmetry::General && j > i {
            (j, i)
        } else {
            (i, j)
        };
        match s {
            MmSymmetry::General => d.set(i, j, T::from_c64(z)).unwrap(),
            MmSymmetry::Symmetric => {
                d.set(i, j, T::from_c64(z)).unwrap();
                d.set(j, i, T::from_c64(z)).unwrap();
            }
            MmSymmetry::SkewSymmetric if i != j => {
                d.set(i, j, T::from_c64(z)).unwrap();
                d.set(j, i, T::from_c64(-z)).unwrap();
            }
            MmSymmetry::SkewSymmetric => {}
            MmSymmetry::Hermitian => {
                let z = if i == j { Complex64::new(z.re, 0.0) } else { z };
                d.set(i, j, T::from_c64(z)).unwrap();
                d.set(j, i, T::from_c64(z.conj())).unwrap();
            }
        }
    }
    d
}

fn round_trip<I: Index, T: Scalar>(
    r: &RandMat,
) -> Result<(), proptest::test_runner::TestCaseError> {
    for (f, s) in combos(T::IS_COMPLEX) {
        let d = shaped::<T>(r, f, s);
        let csr = rocm_sparse::Csr::<I, T>::from_dense(&d).unwrap();
        let mut out = Vec::new();
        mm::write_coo(&mut out, &csr.to_coo(), f, s).unwrap();
        let (h, back) = mm::read::<I, T>(&out[..]).unwrap();
        prop_assert_eq!((h.field, h.symmetry), (f, s));
        match back {
            MmMatrix::Sparse(c) => prop_assert!(
                c.to_dense().unwrap().same_entries(&d),
                "{:?} {:?}\n{}",
                f,
                s,
                String::from_utf8_lossy(&out)
            ),
            MmMatrix::Dense(_) => prop_assert!(false, "coordinate read as dense"),
        }
        if f != MmField::Pattern {
            let mut out = Vec::new();
            mm::write_dense(&mut out, &d, f, s).unwrap();
            let (_, back) = mm::read::<I, T>(&out[..]).unwrap();
            match back {
                MmMatrix::Dense(b) => prop_assert!(b.same_entries(&d), "array {:?} {:?}", f, s),
                MmMatrix::Sparse(_) => prop_assert!(false, "array read as sparse"),
            }
        }
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]
    #[test]
    fn every_field_and_symmetry_round_trips(r in rand_mat(9)) {
        for_all_types!(round_trip, &r);
    }
}

#[test]
fn malformed_files_name_the_line() {
    let h = "%%MatrixMarket matrix coordinate real general\n";
    let cases: &[(&str, String, &str)] = &[
        ("empty", String::new(), "line 1: empty input"),
        (
            "bad banner",
            "%%MatrixMarket matrix coordinate real\n2 2 0\n".into(),
            "line 1: bad banner",
        ),
        ("not a banner", "% hello\n".into(), "line 1: bad banner"),
        (
            "unknown format",
            "%%MatrixMarket matrix coord real general\n".into(),
            "line 1: unknown format `coord`",
        ),
        (
            "unknown field",
            "%%MatrixMarket matrix coordinate double general\n".into(),
            "line 1: unknown field `double`",
        ),
        (
            "unknown symmetry",
            "%%MatrixMarket matrix coordinate real sym\n".into(),
            "line 1: unknown symmetry",
        ),
        (
            "array pattern",
            "%%MatrixMarket matrix array pattern general\n".into(),
            "line 1: `array` files cannot",
        ),
        (
            "real hermitian",
            "%%MatrixMarket matrix coordinate real hermitian\n".into(),
            "line 1: `hermitian` needs",
        ),
        (
            "missing size",
            format!("{h}% only comments\n"),
            "line 3: missing the size line",
        ),
        (
            "bad size",
            format!("{h}2 x 1\n"),
            "line 2: cannot parse column count `x`",
        ),
        (
            "size too long",
            format!("{h}2 2 1 7\n1 1 1.0\n"),
            "line 2: size line has more",
        ),
        (
            "too few entries",
            format!("{h}2 2 3\n1 1 1.0\n% c\n2 2 2.0\n"),
            "line 6: expected 3 entries, found 2",
        ),
        (
            "too many entries",
            format!("{h}2 2 1\n1 1 1.0\n2 2 2.0\n"),
            "line 4: unexpected data",
        ),
        (
            "row out of range",
            format!("{h}2 2 1\n3 1 1.0\n"),
            "line 3: index (3, 1) outside",
        ),
        (
            "zero index",
            format!("{h}2 2 2\n1 1 1.0\n1 0 1.0\n"),
            "line 4: index (1, 0) outside",
        ),
        (
            "bad number",
            format!("{h}2 2 1\n1 1 1.0x\n"),
            "line 3: cannot parse real value `1.0x`",
        ),
        (
            "missing value",
            format!("{h}2 2 1\n1 1\n"),
            "line 3: missing real value",
        ),
        (
            "extra number",
            format!("{h}2 2 1\n1 1 1.0 2.0\n"),
            "line 3: too many numbers",
        ),
        (
            "bad integer",
            "%%MatrixMarket matrix coordinate integer general\n1 1 1\n1 1 1.5\n".into(),
            "line 3: cannot parse integer value",
        ),
        (
            "upper in symmetric",
            "%%MatrixMarket matrix coordinate real symmetric\n2 2 1\n1 2 1.0\n".into(),
            "line 3: entry (1, 2) is above the diagonal",
        ),
        (
            "skew diagonal",
            "%%MatrixMarket matrix coordinate real skew-symmetric\n2 2 1\n1 1 1.0\n".into(),
            "line 3: diagonal entry",
        ),
        (
            "non-square symmetric",
            "%%MatrixMarket matrix coordinate real symmetric\n2 3 0\n".into(),
            "line 2: a symmetric matrix must be square",
        ),
        (
            "short array",
            "%%MatrixMarket matrix array real general\n2 2\n1\n2\n3\n".into(),
            "line 6: expected 4 values, found 3",
        ),
        (
            "long array",
            "%%MatrixMarket matrix array real general\n1 1\n1\n2\n".into(),
            "line 4: unexpected data",
        ),
        (
            "array size too long",
            "%%MatrixMarket matrix array real general\n1 1 1\n1\n".into(),
            "line 2: size line of an array",
        ),
    ];
    for (name, text, want) in cases {
        let e = mm::read::<i32, f64>(text.as_bytes()).expect_err(name);
        assert!(
            e.to_string().contains(want),
            "{name}: {e} should contain {want:?}"
        );
    }
    let e = mm::read::<i32, Complex64>(
        "%%MatrixMarket matrix coordinate complex general\n1 1 1\n1 1 1.5\n".as_bytes(),
    )
    .unwrap_err();
    assert!(
        e.to_string().contains("line 3: missing imaginary part"),
        "{e}"
    );
    // A Hermitian diagonal must be real, in both formats.
    for (text, want) in [
        (
            "%%MatrixMarket matrix coordinate complex hermitian\n2 2 2\n1 1 1 0\n2 2 3 -0.5\n",
            "line 4: diagonal entry (2, 2) = 3-0.5i of a hermitian file is not real",
        ),
        (
            "%%MatrixMarket matrix array complex hermitian\n2 2\n1 0\n2 1\n4 1\n",
            "line 5: diagonal entry (2, 2) = 4+1i of a hermitian file is not real",
        ),
    ] {
        let e = mm::read::<i32, Complex64>(text.as_bytes()).unwrap_err();
        assert!(e.to_string().contains(want), "{e} should contain {want:?}");
    }
    // Complex data cannot go into a real type.
    let c = "%%MatrixMarket matrix coordinate complex general\n1 1 1\n1 1 1 2\n";
    assert!(mm::read::<i32, f32>(c.as_bytes())
        .unwrap_err()
        .to_string()
        .contains("real type f32"));
    let (_, m) = mm::read::<i32, Complex32>(c.as_bytes()).unwrap();
    assert_eq!(
        m,
        MmMatrix::Sparse(Coo::new(1, 1, vec![0], vec![0], vec![Complex32::new(1.0, 2.0)]).unwrap())
    );
    // Writers refuse matrices without the declared symmetry.
    let a = Coo::<i32, f64>::new(2, 2, vec![0], vec![1], vec![1.0]).unwrap();
    assert!(mm::write_coo(Vec::new(), &a, MmField::Real, MmSymmetry::Symmetric).is_err());
    assert!(mm::write_coo(Vec::new(), &a, MmField::Real, MmSymmetry::Hermitian).is_err());
    let b = Coo::<i32, f64>::new(1, 1, vec![0], vec![0], vec![1.5]).unwrap();
    assert!(mm::write_coo(Vec::new(), &b, MmField::Integer, MmSymmetry::General).is_err());
}

#[test]
fn files_round_trip_on_disk() {
    let a = rocm_sparse::gen::poisson2d::<i64, f64>(5).unwrap();
    let dir = std::env::temp_dir().join(format!("rocm-sparse-mm-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let p = dir.join("p.mtx");
    mm::write_file(&p, &a, MmField::Real, MmSymmetry::Symmetric).unwrap();
    let (_, m) = mm::read_file::<i64, f64>(&p).unwrap();
    match m {
        MmMatrix::Sparse(c) => assert_eq!(c.to_csr().unwrap(), a),
        MmMatrix::Dense(_) => panic!("dense"),
    }
    std::fs::remove_dir_all(&dir).unwrap();
    assert!(mm::read_file::<i32, f64>(dir.join("missing.mtx"))
        .unwrap_err()
        .to_string()
        .contains("opening"));
}
