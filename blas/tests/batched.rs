//! Batched and strided-batched forms against the single routines (themselves tested
//! against the reference): problem i of a batch must equal the single call on problem
//! i's matrices exactly (the same kernels run on the same data), and the gaps between
//! strided outputs must be untouched. Batch counts 0..4, padded strides, odd shapes.

mod common;

use common::*;
use proptest::prelude::*;
use rand::Rng;
use rocm_blas::check::{matrix_extent, vector_extent};
use rocm_blas::{Blas, Diag, Scalar, Side, Transpose, Uplo};
use rocm_core::{BufferSlice, BufferSliceMut, Complex32, Complex64, Device, DeviceBuffer, Error};

type Single<'f, T> = &'f dyn Fn(&Blas, &[BufferSlice<'_, T>], &mut BufferSliceMut<'_, T>);
type Strided<'f, T> =
    &'f dyn Fn(&Blas, &[(BufferSlice<'_, T>, usize)], (&mut BufferSliceMut<'_, T>, usize), usize);
type Arrays<'f, T> = &'f dyn Fn(&Blas, &[Vec<BufferSlice<'_, T>>], &mut [BufferSliceMut<'_, T>]);

fn same<T: Scalar>(a: &[T], b: &[T], what: &str) {
    assert_eq!(a.len(), b.len());
    for (q, (x, y)) in a.iter().zip(b).enumerate() {
        assert!(
            x == y || (x.has_nan() && y.has_nan()),
            "{what}: element {q}: {x:?} != {y:?}"
        );
    }
}

/// Runs one op three ways (singles, strided batch, arrays) and compares.
fn check<T: Scalar>(
    dev: &Device,
    what: &str,
    in_extents: &[usize],
    out_extent: usize,
    batch: usize,
    seed: u64,
    (single, strided, arrays): (Single<'_, T>, Strided<'_, T>, Arrays<'_, T>),
) {
    let blas = Blas::new(dev);
    let mut r = rng(seed);
    let strides: Vec<usize> = in_extents
        .iter()
        .map(|&e| e + r.random_range(0..3))
        .collect();
    let ostride = out_extent + r.random_range(0..3);
    let ins: Vec<Vec<T>> = in_extents
        .iter()
        .zip(&strides)
        .map(|(&e, &s)| random_vec(&mut r, (s * batch.max(1)).max(e).max(1)))
        .collect();
    let out: Vec<T> = random_vec(&mut r, (ostride * batch.max(1)).max(1));
    let ind: Vec<DeviceBuffer<T>> = ins.iter().map(|v| dev.upload(v).unwrap()).collect();

    // Singles, problem by problem.
    let mut want = dev.upload(&out).unwrap();
    for i in 0..batch {
        let views: Vec<BufferSlice<'_, T>> = ind
            .iter()
            .zip(&strides)
            .zip(in_extents)
            .map(|((b, &s), &e)| b.slice(i * s..i * s + e).unwrap())
            .collect();
        let mut o = want
            .slice_mut(i * ostride..i * ostride + out_extent)
            .unwrap();
        single(&blas, &views, &mut o);
    }
    let want = want.to_vec().unwrap();

    // Strided batch.
    let mut got = dev.upload(&out).unwrap();
    let views: Vec<(BufferSlice<'_, T>, usize)> = ind
        .iter()
        .zip(&strides)
        .map(|(b, &s)| (b.as_slice(), s))
        .collect();
    strided(&blas, &views, (&mut got.as_slice_mut(), ostride), batch);
    same(
        &got.to_vec().unwrap(),
        &want,
        &format!("{}{what} strided batch={batch}", T::PREFIX),
    );

    // Arrays of matrices.
    let owned: Vec<Vec<DeviceBuffer<T>>> = ins
        .iter()
        .zip(&strides)
        .zip(in_extents)
        .map(|((v, &s), &e)| {
            (0..batch)
                .map(|i| dev.upload(&v[i * s..i * s + e]).unwrap())
                .collect()
        })
        .collect();
    let mut outs: Vec<DeviceBuffer<T>> = (0..batch)
        .map(|i| {
            dev.upload(&out[i * ostride..i * ostride + out_extent])
                .unwrap()
        })
        .collect();
    let views: Vec<Vec<BufferSlice<'_, T>>> = owned
        .iter()
        .map(|v| v.iter().map(|b| b.as_slice()).collect())
        .collect();
    {
        let mut ov: Vec<BufferSliceMut<'_, T>> =
            outs.iter_mut().map(|b| b.as_slice_mut()).collect();
        arrays(&blas, &views, &mut ov);
    }
    for (i, o) in outs.iter().enumerate() {
        same(
            &o.to_vec().unwrap(),
            &want[i * ostride..i * ostride + out_extent],
            &format!("{}{what} arrays problem {i}", T::PREFIX),
        );
    }
}

#[allow(clippy::too_many_arguments)]
fn all_ops<T: Scalar>(
    dev: &Device,
    op: usize,
    (m, n, k): (usize, usize, usize),
    flags: (bool, bool, bool),
    batch: usize,
    seed: u64,
) {
    let mut r = rng(seed ^ 0x5eed);
    let alpha: T = random(&mut r);
    let beta: T = random(&mut r);
    let tr = [Transpose::N, Transpose::T, Transpose::C][seed as usize % 3];
    let side = if flags.0 { Side::Left } else { Side::Right };
    let uplo = if flags.1 { Uplo::Upper } else { Uplo::Lower };
    let diag = if flags.2 { Diag::Unit } else { Diag::NonUnit };
    let ok = |res: Result<(), Error>| res.unwrap();
    match op {
        0 => {
            // gemv
            let (incx, incy) = (if flags.0 { 1 } else { -2 }, if flags.1 { 1 } else { 2 });
            let lda = m.max(1) + 1;
            let (lx, ly) = if tr.is_trans() { (m, n) } else { (n, m) };
            let ext = [matrix_extent(m, n, lda), vector_extent(lx, incx)];
            check::<T>(
                dev,
                "gemv",
                &ext,
                vector_extent(ly, incy),
                batch,
                seed,
                (
                    &|b, i, o| ok(b.gemv(tr, m, n, alpha, &i[0], lda, &i[1], incx, beta, o, incy)),
                    &|b, i, (o, so), bc| {
                        ok(b.gemv_strided_batched(
                            tr, m, n, alpha, &i[0].0, lda, i[0].1, &i[1].0, incx, i[1].1, beta, o,
                            incy, so, bc,
                        ))
                    },
                    &|b, i, o| {
                        ok(b.gemv_batched(tr, m, n, alpha, &i[0], lda, &i[1], incx, beta, o, incy))
                    },
                ),
            );
        }
        1 => {
            // trsv
            let incx = if flags.0 { 1 } else { -1 };
            let lda = n.max(1);
            let ext = [matrix_extent(n, n, lda)];
            check::<T>(
                dev,
                "trsv",
                &ext,
                vector_extent(n, incx),
                batch,
                seed,
                (
                    &|b, i, o| ok(b.trsv(uplo, tr, diag, n, &i[0], lda, o, incx)),
                    &|b, i, (o, so), bc| {
                        ok(b.trsv_strided_batched(
                            uplo, tr, diag, n, &i[0].0, lda, i[0].1, o, incx, so, bc,
                        ))
                    },
                    &|b, i, o| ok(b.trsv_batched(uplo, tr, diag, n, &i[0], lda, o, incx)),
                ),
            );
        }
        2 | 3 => {
            // trsm / trmm (random triangles: exact agreement does not need conditioning)
            let solve = op == 2;
            let ka = if side == Side::Left { m } else { n };
            let (lda, ldb) = (ka.max(1), m.max(1) + 1);
            let single = |b: &Blas, i: &[BufferSlice<'_, T>], o: &mut BufferSliceMut<'_, T>| {
                if solve {
                    ok(b.trsm(side, uplo, tr, diag, m, n, alpha, &i[0], lda, o, ldb))
                } else {
                    ok(b.trmm(side, uplo, tr, diag, m, n, alpha, &i[0], lda, o, ldb))
                }
            };
            let strided = |b: &Blas,
                           i: &[(BufferSlice<'_, T>, usize)],
                           (o, so): (&mut BufferSliceMut<'_, T>, usize),
                           bc| {
                if solve {
                    ok(b.trsm_strided_batched(
                        side, uplo, tr, diag, m, n, alpha, &i[0].0, lda, i[0].1, o, ldb, so, bc,
                    ))
                } else {
                    ok(b.trmm_strided_batched(
                        side, uplo, tr, diag, m, n, alpha, &i[0].0, lda, i[0].1, o, ldb, so, bc,
                    ))
                }
            };
            let arrays =
                |b: &Blas, i: &[Vec<BufferSlice<'_, T>>], o: &mut [BufferSliceMut<'_, T>]| {
                    if solve {
                        ok(b.trsm_batched(side, uplo, tr, diag, m, n, alpha, &i[0], lda, o, ldb))
                    } else {
                        ok(b.trmm_batched(side, uplo, tr, diag, m, n, alpha, &i[0], lda, o, ldb))
                    }
                };
            let ext = [matrix_extent(ka, ka, lda)];
            let name = if solve { "trsm" } else { "trmm" };
            check::<T>(
                dev,
                name,
                &ext,
                matrix_extent(m, n, ldb),
                batch,
                seed,
                (&single, &strided, &arrays),
            );
        }
        4 | 5 => {
            // syrk / herk
            let herm = op == 5;
            let t = match (T::IS_COMPLEX, herm, tr) {
                (true, false, Transpose::C) => Transpose::T,
                (true, true, Transpose::T) => Transpose::C,
                (_, _, t) => t,
            };
            let (ar, ac) = t.stored_dims(n, k);
            let (lda, ldc) = (ar.max(1), n.max(1) + 2);
            let (ra, rb) = (alpha.re(), beta.re());
            let single = |b: &Blas, i: &[BufferSlice<'_, T>], o: &mut BufferSliceMut<'_, T>| {
                if herm {
                    ok(b.herk(uplo, t, n, k, ra, &i[0], lda, rb, o, ldc))
                } else {
                    ok(b.syrk(uplo, t, n, k, alpha, &i[0], lda, beta, o, ldc))
                }
            };
            let strided = |b: &Blas,
                           i: &[(BufferSlice<'_, T>, usize)],
                           (o, so): (&mut BufferSliceMut<'_, T>, usize),
                           bc| {
                if herm {
                    ok(b.herk_strided_batched(
                        uplo, t, n, k, ra, &i[0].0, lda, i[0].1, rb, o, ldc, so, bc,
                    ))
                } else {
                    ok(b.syrk_strided_batched(
                        uplo, t, n, k, alpha, &i[0].0, lda, i[0].1, beta, o, ldc, so, bc,
                    ))
                }
            };
            let arrays =
                |b: &Blas, i: &[Vec<BufferSlice<'_, T>>], o: &mut [BufferSliceMut<'_, T>]| {
                    if herm {
                        ok(b.herk_batched(uplo, t, n, k, ra, &i[0], lda, rb, o, ldc))
                    } else {
                        ok(b.syrk_batched(uplo, t, n, k, alpha, &i[0], lda, beta, o, ldc))
                    }
                };
            let ext = [matrix_extent(ar, ac, lda)];
            check::<T>(
                dev,
                "syrk/herk",
                &ext,
                matrix_extent(n, n, ldc),
                batch,
                seed,
                (&single, &strided, &arrays),
            );
        }
        6 => {
            // symm (strided also for hemm)
            let ka = if side == Side::Left { m } else { n };
            let (lda, ldb, ldc) = (ka.max(1), m.max(1), m.max(1) + 1);
            let ext = [matrix_extent(ka, ka, lda), matrix_extent(m, n, ldb)];
            check::<T>(
                dev,
                "symm",
                &ext,
                matrix_extent(m, n, ldc),
                batch,
                seed,
                (
                    &|b, i, o| {
                        ok(b.symm(
                            side, uplo, m, n, alpha, &i[0], lda, &i[1], ldb, beta, o, ldc,
                        ))
                    },
                    &|b, i, (o, so), bc| {
                        ok(b.symm_strided_batched(
                            side, uplo, m, n, alpha, &i[0].0, lda, i[0].1, &i[1].0, ldb, i[1].1,
                            beta, o, ldc, so, bc,
                        ))
                    },
                    &|b, i, o| {
                        ok(b.symm_batched(
                            side, uplo, m, n, alpha, &i[0], lda, &i[1], ldb, beta, o, ldc,
                        ))
                    },
                ),
            );
            check::<T>(
                dev,
                "hemm",
                &ext,
                matrix_extent(m, n, ldc),
                batch,
                seed,
                (
                    &|b, i, o| {
                        ok(b.hemm(
                            side, uplo, m, n, alpha, &i[0], lda, &i[1], ldb, beta, o, ldc,
                        ))
                    },
                    &|b, i, (o, so), bc| {
                        ok(b.hemm_strided_batched(
                            side, uplo, m, n, alpha, &i[0].0, lda, i[0].1, &i[1].0, ldb, i[1].1,
                            beta, o, ldc, so, bc,
                        ))
                    },
                    // No hemm_batched: compare the strided form against itself via arrays of one.
                    &|b, i, o| {
                        for (q, oq) in o.iter_mut().enumerate() {
                            ok(b.hemm(
                                side, uplo, m, n, alpha, &i[0][q], lda, &i[1][q], ldb, beta, oq,
                                ldc,
                            ));
                        }
                    },
                ),
            );
        }
        7 => {
            // geam
            let tb = [Transpose::N, Transpose::T, Transpose::C][(seed as usize / 3) % 3];
            let (ar, ac) = tr.stored_dims(m, n);
            let (br, bc_) = tb.stored_dims(m, n);
            let (lda, ldb, ldc) = (ar.max(1), br.max(1) + 1, m.max(1));
            let ext = [matrix_extent(ar, ac, lda), matrix_extent(br, bc_, ldb)];
            check::<T>(
                dev,
                "geam",
                &ext,
                matrix_extent(m, n, ldc),
                batch,
                seed,
                (
                    &|b, i, o| ok(b.geam(tr, tb, m, n, alpha, &i[0], lda, beta, &i[1], ldb, o, ldc)),
                    &|b, i, (o, so), bc| {
                        ok(b.geam_strided_batched(
                            tr, tb, m, n, alpha, &i[0].0, lda, i[0].1, beta, &i[1].0, ldb, i[1].1,
                            o, ldc, so, bc,
                        ))
                    },
                    &|b, i, o| {
                        ok(b.geam_batched(
                            tr, tb, m, n, alpha, &i[0], lda, beta, &i[1], ldb, o, ldc,
                        ))
                    },
                ),
            );
        }
        _ => {
            // dgmm
            let incx = if flags.1 { 1 } else { -2 };
            let (lda, ldc) = (m.max(1) + 1, m.max(1));
            let lx = if side == Side::Left { m } else { n };
            let ext = [matrix_extent(m, n, lda), vector_extent(lx, incx)];
            check::<T>(
                dev,
                "dgmm",
                &ext,
                matrix_extent(m, n, ldc),
                batch,
                seed,
                (
                    &|b, i, o| ok(b.dgmm(side, m, n, &i[0], lda, &i[1], incx, o, ldc)),
                    &|b, i, (o, so), bc| {
                        ok(b.dgmm_strided_batched(
                            side, m, n, &i[0].0, lda, i[0].1, &i[1].0, incx, i[1].1, o, ldc, so, bc,
                        ))
                    },
                    &|b, i, o| ok(b.dgmm_batched(side, m, n, &i[0], lda, &i[1], incx, o, ldc)),
                ),
            );
        }
    }
}

fn dims() -> impl Strategy<Value = usize> {
    prop_oneof![Just(0usize), Just(1), Just(5), 0usize..24]
}

macro_rules! batched_props {
    ($name:ident, $t:ty) => {
        proptest! {
            #![proptest_config(ProptestConfig::with_cases(48))]
            #[test]
            fn $name(op in 0usize..9, m in dims(), n in dims(), k in dims(),
                     flags in (any::<bool>(), any::<bool>(), any::<bool>()),
                     batch in 0usize..4, seed in any::<u64>()) {
                all_ops::<$t>(&Device::cpu(), op, (m, n, k), flags, batch, seed);
            }
        }
    };
}
batched_props!(s_batched_match_singles, f32);
batched_props!(d_batched_match_singles, f64);
batched_props!(c_batched_match_singles, Complex32);
batched_props!(z_batched_match_singles, Complex64);

#[test]
fn batch_errors_name_the_argument() {
    let dev = Device::cpu();
    let blas = Blas::new(&dev);
    let a = dev.alloc::<f64>(32).unwrap();
    let mut b = dev.alloc::<f64>(32).unwrap();
    let name = |e: Error| match e {
        Error::InvalidArgument { what, .. } => what,
        other => panic!("{other:?}"),
    };
    let (l, lo, nt, nu) = (Side::Left, Uplo::Lower, Transpose::N, Diag::NonUnit);
    // Output stride smaller than one problem: outputs would overlap.
    let err = blas
        .trsm_strided_batched(
            l,
            lo,
            nt,
            nu,
            2,
            2,
            1.0,
            &a.as_slice(),
            2,
            4,
            &mut b.as_slice_mut(),
            2,
            3,
            2,
        )
        .unwrap_err();
    assert_eq!(name(err), "stride_b");
    // Inputs past the end of the buffer.
    let err = blas
        .trsm_strided_batched(
            l,
            lo,
            nt,
            nu,
            2,
            2,
            1.0,
            &a.as_slice(),
            2,
            10,
            &mut b.as_slice_mut(),
            2,
            4,
            4,
        )
        .unwrap_err();
    assert_eq!(name(err), "a");
    let av = [a.as_slice()];
    let mut bv = vec![];
    assert_eq!(
        name(
            blas.trsm_batched(l, lo, nt, nu, 2, 2, 1.0, &av, 2, &mut bv, 2)
                .unwrap_err()
        ),
        "batch"
    );
    let err = blas
        .gemv_strided_batched(
            nt,
            2,
            2,
            1.0,
            &a.as_slice(),
            1,
            4,
            &a.as_slice(),
            1,
            2,
            0.0,
            &mut b.as_slice_mut(),
            1,
            2,
            2,
        )
        .unwrap_err();
    assert_eq!(name(err), "lda");
}

/// The same comparison on every CUDA device for f32 and f64 (a GPU batch is one call of
/// the single routine per problem on views cut from the buffers, so it must equal the
/// singles exactly): every op, seeded random shapes including 0, 1 and odd sizes, batch
/// counts 0..4, every flag combination. Skipped, with a printed reason, without a device.
#[test]
fn batched_match_singles_on_cuda() {
    for dev in cuda_devices("the GPU batched Level 2/3 tests") {
        let mut r = rng(77);
        for case in 0..144u64 {
            let op = (case % 9) as usize;
            let mut dim = || match r.random_range(0..4) {
                0 => r.random_range(0..2usize),
                1 => 5,
                _ => r.random_range(0..40usize),
            };
            let dims = (dim(), dim(), dim());
            let flags = (case % 2 == 0, case % 4 < 2, case % 8 < 4);
            let batch = (case as usize / 9) % 4;
            all_ops::<f32>(&dev, op, dims, flags, batch, case);
            all_ops::<f64>(&dev, op, dims, flags, batch, 1000 + case);
        }
    }
}

/// Every batched form (gemv, trsv, trsm/trmm, syrk/herk, symm/hemm, geam/dgmm) on the
/// emulated AMD devices (`common/emu.rs`), every type, against the singles as on CUDA:
/// all nine ops on rotating targets, seeded shapes up to 40, batch counts 0..4.
#[test]
fn batched_match_singles_on_emulated_amd() {
    fn on<T: Scalar>(seed0: u64) {
        let runs = common::emu::emu_devices();
        let mut r = rng(seed0);
        for case in 0..36u64 {
            let dev = &runs[case as usize % runs.len()];
            let op = (case % 9) as usize;
            let mut dim = || match r.random_range(0..4) {
                0 => r.random_range(0..2usize),
                1 => 5,
                _ => r.random_range(0..40usize),
            };
            let dims = (dim(), dim(), dim());
            let flags = (case % 2 == 0, case % 4 < 2, case % 8 < 4);
            let batch = (case as usize / 9) % 4;
            all_ops::<T>(dev, op, dims, flags, batch, seed0 + case);
        }
    }
    on::<f32>(2000);
    on::<f64>(3000);
    on::<Complex32>(4000);
    on::<Complex64>(5000);
}
