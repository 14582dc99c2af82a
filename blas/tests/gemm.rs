//! GEMM against the reference on every dtype, transpose pair, edge size, leading
//! dimension and α/β special case.
//!
//! Tolerance: each element of α·op(A)·op(B) + β·C is a k-term dot product plus two
//! scalings, so |error| <= (k + 2)·ε·(|α|·Σ|a||b| + |β||c|) (× 4 for complex arithmetic),
//! the standard bound γ_{k+2} to first order.

mod common;

use common::*;
use proptest::prelude::*;
use rocm_blas::{reference, Blas, Scalar, Transpose};
use rocm_core::{Complex32, Complex64, Device, Error};

#[derive(Debug, Clone, Copy)]
enum Coef {
    Zero,
    One,
    Random,
}

fn coef<T: Scalar>(c: Coef, r: &mut Rng64) -> T {
    match c {
        Coef::Zero => T::zero(),
        Coef::One => T::one(),
        Coef::Random => random(r),
    }
}

#[allow(clippy::too_many_arguments)]
fn check<T: Scalar>(
    ta: Transpose,
    tb: Transpose,
    (m, n, k): (usize, usize, usize),
    (pa, pb, pc): (usize, usize, usize),
    ca: Coef,
    cb: Coef,
    batch: usize,
    seed: u64,
) {
    let dev = Device::cpu();
    let blas = Blas::new(&dev);
    let mut r = rng(seed);
    let (ar, ac) = ta.stored_dims(m, k);
    let (br, bc) = tb.stored_dims(k, n);
    let (lda, ldb, ldc) = (ar.max(1) + pa, br.max(1) + pb, m.max(1) + pc);
    let (sa, sb, sc) = (lda * ac + 3, ldb * bc + 1, ldc * n + 2);
    let alpha: T = coef(ca, &mut r);
    let beta: T = coef(cb, &mut r);
    let a: Vec<T> = random_vec(&mut r, sa * batch);
    let b: Vec<T> = random_vec(&mut r, sb * batch);
    let mut c: Vec<T> = random_vec(&mut r, sc * batch);
    if matches!(cb, Coef::Zero) {
        // β = 0 must not read C: NaN there must not reach the result.
        c.iter_mut()
            .for_each(|x| *x = T::from_real(num_traits::Float::nan()));
    }
    let (ad, bd) = (dev.upload(&a).unwrap(), dev.upload(&b).unwrap());
    let mut cd = dev.upload(&c).unwrap();
    if batch == 1 {
        blas.gemm(
            ta,
            tb,
            m,
            n,
            k,
            alpha,
            &ad.as_slice(),
            lda,
            &bd.as_slice(),
            ldb,
            beta,
            &mut cd.as_slice_mut(),
            ldc,
        )
        .unwrap();
    } else {
        blas.gemm_strided_batched(
            ta,
            tb,
            m,
            n,
            k,
            alpha,
            &ad.as_slice(),
            lda,
            sa,
            &bd.as_slice(),
            ldb,
            sb,
            beta,
            &mut cd.as_slice_mut(),
            ldc,
            sc,
            batch,
        )
        .unwrap();
    }
    let got = cd.to_vec().unwrap();
    for q in 0..batch {
        let (want, mag) = reference::gemm(
            ta,
            tb,
            m,
            n,
            k,
            alpha,
            &a[q * sa..],
            lda,
            &b[q * sb..],
            ldb,
            beta,
            &c[q * sc..],
            ldc,
        );
        for j in 0..n {
            for i in 0..m {
                assert_close(
                    got[q * sc + i + j * ldc],
                    want[i + j * m],
                    mag[i + j * m],
                    (k + 2) as f64,
                    &format!(
                        "{}gemm {ta}{tb} m={m} n={n} k={k} batch {q} ({i},{j})",
                        T::PREFIX
                    ),
                );
            }
            // Rows between m and ldc are outside C and must be untouched.
            for i in m..ldc.min(sc - j * ldc) {
                let (g, o) = (got[q * sc + i + j * ldc], c[q * sc + i + j * ldc]);
                assert!(
                    g == o || (g.has_nan() && o.has_nan()),
                    "gemm wrote outside C at ({i},{j})"
                );
            }
        }
    }
}

fn dims() -> impl Strategy<Value = usize> {
    prop_oneof![
        Just(0usize),
        Just(1),
        Just(2),
        Just(7),
        Just(13),
        Just(31),
        Just(64),
        0usize..80
    ]
}

fn coefs() -> impl Strategy<Value = Coef> {
    prop_oneof![
        Just(Coef::Zero),
        Just(Coef::One),
        Just(Coef::Random),
        Just(Coef::Random)
    ]
}

fn trans() -> impl Strategy<Value = Transpose> {
    prop_oneof![Just(Transpose::N), Just(Transpose::T), Just(Transpose::C)]
}

macro_rules! gemm_props {
    ($name:ident, $t:ty) => {
        proptest! {
            #![proptest_config(ProptestConfig::with_cases(48))]
            #[test]
            fn $name(ta in trans(), tb in trans(), m in dims(), n in dims(), k in dims(),
                     pads in (0usize..3, 0usize..3, 0usize..3), ca in coefs(), cb in coefs(),
                     batch in prop_oneof![Just(1usize), 1usize..5], seed in any::<u64>()) {
                check::<$t>(ta, tb, (m, n, k), pads, ca, cb, batch, seed);
            }
        }
    };
}
gemm_props!(sgemm_matches_reference, f32);
gemm_props!(dgemm_matches_reference, f64);
gemm_props!(cgemm_matches_reference, Complex32);
gemm_props!(zgemm_matches_reference, Complex64);

#[test]
fn large_parallel_gemm() {
    // Big enough to take the multi-threaded path of the engine.
    check::<f64>(
        Transpose::N,
        Transpose::T,
        (150, 130, 170),
        (1, 0, 2),
        Coef::Random,
        Coef::Random,
        1,
        1,
    );
    check::<f32>(
        Transpose::C,
        Transpose::N,
        (129, 67, 255),
        (0, 3, 0),
        Coef::One,
        Coef::Zero,
        1,
        2,
    );
    check::<Complex32>(
        Transpose::C,
        Transpose::C,
        (96, 97, 98),
        (0, 0, 0),
        Coef::Random,
        Coef::One,
        1,
        3,
    );
}

#[test]
fn arrays_of_matrices() {
    let dev = Device::cpu();
    let blas = Blas::new(&dev);
    let mut r = rng(5);
    let (m, n, k) = (5, 4, 3);
    let a: Vec<_> = (0..3)
        .map(|_| dev.upload(&random_vec::<f64>(&mut r, m * k)).unwrap())
        .collect();
    let b: Vec<_> = (0..3)
        .map(|_| dev.upload(&random_vec::<f64>(&mut r, k * n)).unwrap())
        .collect();
    let mut c: Vec<_> = (0..3).map(|_| dev.alloc::<f64>(m * n).unwrap()).collect();
    let av: Vec<_> = a.iter().map(|x| x.as_slice()).collect();
    let bv: Vec<_> = b.iter().map(|x| x.as_slice()).collect();
    {
        let mut cv: Vec<_> = c.iter_mut().map(|x| x.as_slice_mut()).collect();
        blas.gemm_batched(
            Transpose::N,
            Transpose::N,
            m,
            n,
            k,
            1.5,
            &av,
            m,
            &bv,
            k,
            0.0,
            &mut cv,
            m,
        )
        .unwrap();
        assert!(blas
            .gemm_batched(
                Transpose::N,
                Transpose::N,
                m,
                n,
                k,
                1.5,
                &av[..2],
                m,
                &bv,
                k,
                0.0,
                &mut cv,
                m
            )
            .is_err());
    }
    for q in 0..3 {
        let (want, mag) = reference::gemm(
            Transpose::N,
            Transpose::N,
            m,
            n,
            k,
            1.5,
            &a[q].to_vec().unwrap(),
            m,
            &b[q].to_vec().unwrap(),
            k,
            0.0,
            &[],
            m,
        );
        let got = c[q].to_vec().unwrap();
        for i in 0..m * n {
            assert_close(got[i], want[i], mag[i], (k + 2) as f64, "gemm_batched");
        }
    }
}

#[test]
fn argument_errors_name_the_argument() {
    let dev = Device::cpu();
    let blas = Blas::new(&dev);
    let a = dev.alloc::<f32>(20).unwrap();
    let b = dev.alloc::<f32>(20).unwrap();
    let mut c = dev.alloc::<f32>(20).unwrap();
    let name = |e: Error| match e {
        Error::InvalidArgument { what, .. } => what,
        other => panic!("{other:?}"),
    };
    let run = |m, n, k, lda, ldb, ldc, c: &mut rocm_core::DeviceBuffer<f32>| {
        blas.gemm(
            Transpose::N,
            Transpose::N,
            m,
            n,
            k,
            1.0,
            &a.as_slice(),
            lda,
            &b.as_slice(),
            ldb,
            0.0,
            &mut c.as_slice_mut(),
            ldc,
        )
    };
    assert_eq!(name(run(4, 4, 4, 3, 4, 4, &mut c).unwrap_err()), "lda");
    assert_eq!(name(run(4, 4, 4, 4, 3, 4, &mut c).unwrap_err()), "ldb");
    assert_eq!(name(run(4, 4, 4, 4, 4, 3, &mut c).unwrap_err()), "ldc");
    assert_eq!(name(run(4, 6, 4, 4, 4, 4, &mut c).unwrap_err()), "b");
    assert_eq!(name(run(6, 4, 4, 6, 4, 6, &mut c).unwrap_err()), "a");
    assert_eq!(name(run(4, 4, 4, 4, 4, 0, &mut c).unwrap_err()), "ldc");
    // Quick returns still validate but touch nothing.
    run(0, 4, 4, 1, 4, 1, &mut c).unwrap();
    let err = blas
        .gemm_strided_batched(
            Transpose::N,
            Transpose::N,
            2,
            2,
            2,
            1.0f32,
            &a.as_slice(),
            2,
            4,
            &b.as_slice(),
            2,
            4,
            0.0,
            &mut c.as_slice_mut(),
            2,
            3,
            2,
        )
        .unwrap_err();
    assert_eq!(name(err), "stride_c");
}
