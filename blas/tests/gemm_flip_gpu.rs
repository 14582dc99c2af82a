//! GEMM on CUDA devices through catalog entries whose kernel reads the operands in
//! another layout than the call stores them (what `rocm-bench tune gemm --flip` may
//! enter): the call transposes those operands into the handle's workspace and runs
//! the entry's kernel. Every call layout (N, T and C for each operand) against every
//! other kernel layout, f32 SIMT (register-staged and cp.async ring) and f64 DMMA,
//! over sizes of 1, primes and non-multiples of the tiles, leading dimensions above
//! the rows, β = 0 over NaN, α = 0, k = 0, odd strided batches and arrays of matrices.
//! One binary of its own: installing a catalog is process-wide. Skipped, with a
//! printed reason, where no CUDA device is present.
//!
//! Tolerance: each element is a k-term dot product plus two scalings, so |error| <=
//! (k + 2)·u·(|α|·Σ|a||b| + |β||c|) (u = ε of the element type; `assert_close`). The
//! transposes copy values exactly.

mod common;

use common::*;
use rand::RngCore;
use rocm_blas::{reference, Blas, Scalar, Transpose};
use rocm_core::{DType, Device};
use rocm_kernels::catalog::{Catalog, Entry};
use rocm_kernels::gemm::{GemmInstruction, GemmParams};

#[derive(Debug, Clone, Copy)]
struct Case {
    ta: Transpose,
    tb: Transpose,
    m: usize,
    n: usize,
    k: usize,
    /// Extra rows of lda, ldb, ldc.
    pads: (usize, usize, usize),
    /// 0: α random, β = 0 over NaN; 1: both random; 2: α = 0.
    coefs: u8,
    batch: usize,
    /// `gemm_batched` (one buffer per matrix) instead of strided.
    arrays: bool,
}

fn check<T: Scalar>(dev: &Device, c: Case, seed: u64) {
    let blas = Blas::new(dev);
    let mut r = rng(seed);
    let (m, n, k) = (c.m, c.n, c.k);
    let (ar, ac) = c.ta.stored_dims(m, k);
    let (br, bc) = c.tb.stored_dims(k, n);
    let (lda, ldb, ldc) = (
        ar.max(1) + c.pads.0,
        br.max(1) + c.pads.1,
        m.max(1) + c.pads.2,
    );
    // Odd slack between problems.
    let (sa, sb, sc) = (lda * ac + 3, ldb * bc + 1, ldc * n + 2);
    let alpha: T = if c.coefs == 2 {
        T::zero()
    } else {
        random(&mut r)
    };
    let beta: T = if c.coefs == 0 {
        T::zero()
    } else {
        random(&mut r)
    };
    let a: Vec<T> = random_vec(&mut r, sa * c.batch);
    let b: Vec<T> = random_vec(&mut r, sb * c.batch);
    let mut c0: Vec<T> = random_vec(&mut r, sc * c.batch);
    if c.coefs == 0 {
        c0.iter_mut()
            .for_each(|x| *x = T::from_real(num_traits::Float::nan()));
    }
    let what = format!("{}gemm {c:?}", T::PREFIX);
    let got: Vec<T> = if c.arrays {
        let per = |v: &[T], s: usize, q: usize| v[q * s..(q + 1) * s].to_vec();
        let ads: Vec<_> = (0..c.batch)
            .map(|q| dev.upload(&per(&a, sa, q)).unwrap())
            .collect();
        let bds: Vec<_> = (0..c.batch)
            .map(|q| dev.upload(&per(&b, sb, q)).unwrap())
            .collect();
        let mut cds: Vec<_> = (0..c.batch)
            .map(|q| dev.upload(&per(&c0, sc, q)).unwrap())
            .collect();
        let av: Vec<_> = ads.iter().map(|d| d.as_slice()).collect();
        let bv: Vec<_> = bds.iter().map(|d| d.as_slice()).collect();
        let mut cv: Vec<_> = cds.iter_mut().map(|d| d.as_slice_mut()).collect();
        blas.gemm_batched(
            c.ta, c.tb, m, n, k, alpha, &av, lda, &bv, ldb, beta, &mut cv, ldc,
        )
        .unwrap_or_else(|e| panic!("{what}: {e}"));
        cds.iter().flat_map(|d| d.to_vec().unwrap()).collect()
    } else {
        let (ad, bd) = (dev.upload(&a).unwrap(), dev.upload(&b).unwrap());
        let mut cd = dev.upload(&c0).unwrap();
        blas.gemm_strided_batched(
            c.ta,
            c.tb,
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
            c.batch,
        )
        .unwrap_or_else(|e| panic!("{what}: {e}"));
        cd.to_vec().unwrap()
    };
    let terms = (k + 2) as f64;
    for q in 0..c.batch {
        let (want, mag) = reference::gemm(
            c.ta,
            c.tb,
            m,
            n,
            k,
            alpha,
            &a[q * sa..],
            lda,
            &b[q * sb..],
            ldb,
            beta,
            &c0[q * sc..],
            ldc,
        );
        for j in 0..n {
            for i in 0..m {
                assert_close(
                    got[q * sc + i + j * ldc],
                    want[i + j * m],
                    mag[i + j * m],
                    terms,
                    &format!("{what} batch {q} ({i},{j})"),
                );
            }
            // Rows between m and ldc stay as they were.
            for i in m..ldc.min(sc - j * ldc) {
                let (g, o) = (got[q * sc + i + j * ldc], c0[q * sc + i + j * ldc]);
                assert!(
                    g == o || (g.has_nan() && o.has_nan()),
                    "{what}: wrote outside C at batch {q} ({i},{j})"
                );
            }
        }
    }
}

/// A catalog whose entry for every call layout of `dtype` is `kernel` with the layout
/// `(ta, tb) ^ flip`: each call transposes the operands `flip` names.
fn install(dtype: DType, kernel: &GemmParams, flip: (bool, bool)) {
    let mut entries = Vec::new();
    for ta in [false, true] {
        for tb in [false, true] {
            let p = GemmParams {
                trans_a: ta ^ flip.0,
                trans_b: tb ^ flip.1,
                ..kernel.clone()
            };
            entries.push(Entry {
                generator: "gemm".into(),
                key: GemmParams::key(dtype, dtype, dtype, ta, tb),
                size: 1 << 20,
                shape: None,
                params: serde_json::to_value(&p).unwrap(),
            });
        }
    }
    Catalog::install(Catalog {
        source: "flipped layouts (test)".into(),
        entries,
    });
}

/// Edge sizes, then seeded random ones; every call layout, including conjugates.
fn cases(seed: u64) -> Vec<Case> {
    use Transpose::{C, N, T};
    let ops = [N, T, C];
    let mut out = Vec::new();
    let sizes = [
        (1, 1, 1),
        (1, 17, 3),
        (37, 1, 129),
        (67, 45, 0),
        (129, 65, 17),
        (64, 64, 64),
        (131, 257, 33),
    ];
    let mut r = rng(seed);
    let mut pick = |n: u64| (r.next_u64() % n) as usize;
    for (i, &(m, n, k)) in sizes.iter().enumerate() {
        out.push(Case {
            ta: ops[i % 3],
            tb: ops[(i / 3 + i) % 3],
            m,
            n,
            k,
            pads: (i % 3, (i + 1) % 4, i % 2),
            coefs: (i % 3) as u8,
            batch: 1 + i % 3,
            arrays: i % 4 == 3,
        });
    }
    for i in 0..18 {
        out.push(Case {
            ta: ops[i % 3],
            tb: ops[(i / 3) % 3],
            m: 1 + pick(200),
            n: 1 + pick(200),
            k: pick(150),
            pads: (pick(4), pick(4), pick(4)),
            coefs: pick(3) as u8,
            batch: 1 + pick(3),
            arrays: pick(4) == 0,
        });
    }
    out
}

/// On an emulated AMD target the selection never flips: an entry of another layout is
/// skipped for the family's default, and the result is right.
fn amd_targets_ignore_flipped_entries() {
    let dev = Device::open("emu:gfx90a").unwrap();
    let simt = rocm_kernels::gemm::ptx::simt(DType::F32, 64, 4, false, false);
    install(DType::F32, &simt, (true, true));
    let c = Case {
        ta: Transpose::N,
        tb: Transpose::T,
        m: 19,
        n: 13,
        k: 7,
        pads: (1, 0, 2),
        coefs: 1,
        batch: 2,
        arrays: false,
    };
    check::<f32>(&dev, c, 3);
    Catalog::uninstall();
}

#[test]
fn flipped_catalog_entries_match_reference() {
    // One test: the catalog is process-wide.
    amd_targets_ignore_flipped_entries();
    for dev in cuda_devices("the flipped-layout GEMM tests") {
        let simt = rocm_kernels::gemm::ptx::simt(DType::F32, 64, 4, false, false);
        let ring = GemmParams {
            tile_m: 128,
            tile_n: 64,
            tile_k: 32,
            warps_m: 2,
            warps_n: 2,
            instruction: GemmInstruction::Simt {
                thread_m: 8,
                thread_n: 8,
            },
            stages: 3,
            ..simt.clone()
        };
        let dmma = rocm_kernels::gemm::ptx::fallback(DType::F64, false, false).unwrap();
        for (f, flip) in [(false, true), (true, false), (true, true)]
            .into_iter()
            .enumerate()
        {
            for (v, kernel) in [&simt, &ring].into_iter().enumerate() {
                install(DType::F32, kernel, flip);
                for (i, c) in cases(f as u64).into_iter().enumerate() {
                    check::<f32>(&dev, c, (100 * f + 10 * v + i) as u64);
                }
            }
            install(DType::F64, &dmma, flip);
            for (i, c) in cases(7 + f as u64).into_iter().enumerate() {
                check::<f64>(&dev, c, (1000 + 100 * f + i) as u64);
            }
        }
        Catalog::uninstall();
    }
}
