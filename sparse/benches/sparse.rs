//! Criterion benchmarks: CSR SpMV (f64, all threads) on three matrices of about 9·10⁶
//! nonzeros against memcpy bandwidth and sprs, and SpGEMM `A·A` for a 2D Poisson matrix
//! with 10⁶ rows against sprs — all in the same run. SpGEMM rows: `rocm_fused` (the
//! one-shot [`spgemm`], what sprs's `&a * &a` does), `rocm_full` (analysis + compute),
//! `rocm_once` (analysis + `into_csr`: the staged path without copying the pattern),
//! `rocm_numeric` (compute alone, allocating C), `rocm_values` (compute into an existing
//! C's values).
//!
//! SpMV matrices: `poisson3d` (7-point stencil, 110³ rows: `x` gathers stream);
//! `powerlaw` ([`gen::power_law`]: Pareto row lengths, *uniformly random* columns — no
//! hub columns and no locality, so once `x` (9.6 MB) is out of cache nearly every gather
//! is a cache miss: the adversarial case); `rmat` ([`gen::rmat`], the Graph 500
//! Kronecker graph, scale 20: heavy-tailed row *and* column counts, as in real graphs).
//!
//! Throughput is reported in bytes: for SpMV the bytes one pass must move (values and
//! column indices once, row pointers once, `x` once, `y` read and written: beta = 1, as
//! sprs accumulates), for memcpy the bytes read plus written. A scattered gather
//! actually moves a 64-byte line for its 8 bytes, which this count does not include.
//! `gather_floor` is the gathers alone (`Σ x[col[k]]`, all threads): a floor under any
//! CSR SpMV's time on the machine.
//! `memcpy_1t` is the same copy on one thread: sprs is single-threaded, so the ratio of
//! the two memcpy figures bounds what any parallel SpMV can gain over sprs on the
//! machine.
//!
//! `cargo bench -p rocm-sparse --bench sparse`; `SPARSE_BENCH_SMALL=1` shrinks the
//! matrices for a quick check.

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use rayon::prelude::*;
use rocm_core::{Device, DeviceBuffer};
use rocm_sparse::ops::{spgemm, Spgemm, Spmv, SpmvAlg, Transpose};
use rocm_sparse::{gen, Csr};
use std::hint::black_box;

fn small() -> bool {
    std::env::var("SPARSE_BENCH_SMALL").is_ok_and(|v| v == "1")
}

fn to_sprs(a: &Csr<i32, f64>) -> sprs::CsMatI<f64, i32> {
    sprs::CsMatI::new(
        (a.nrows(), a.ncols()),
        a.row_ptr().to_vec(),
        a.col_idx().to_vec(),
        a.values().to_vec(),
    )
}

fn spmv_bytes(a: &Csr<i32, f64>) -> u64 {
    let (m, n, nnz) = (a.nrows() as u64, a.ncols() as u64, a.nnz() as u64);
    nnz * (8 + 4) + (m + 1) * 4 + n * 8 + m * 16
}

/// `Σ x[idx[k]]` with four accumulators, prefetching `x[idx[k + 64]]` into L2 (the
/// SpMV kernel's distance and hint).
fn gather_sum(idx: &[i32], x: &[f64]) -> f64 {
    const AHEAD: usize = 64;
    let mut acc = [0.0f64; 4];
    for (q, &j) in idx.iter().enumerate() {
        if let Some(&p) = idx.get(q + AHEAD) {
            prefetch(x, p as usize);
        }
        acc[q % 4] += x[j as usize];
    }
    (acc[0] + acc[1]) + (acc[2] + acc[3])
}

#[inline(always)]
fn prefetch(x: &[f64], j: usize) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: a prefetch is a hint: it never faults whatever the address, and
    // `wrapping_add` keeps the address computation defined.
    unsafe {
        use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T1};
        _mm_prefetch::<_MM_HINT_T1>(x.as_ptr().wrapping_add(j).cast::<i8>());
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = (x, j);
}

fn bench_spmv(c: &mut Criterion) {
    let dev = Device::cpu();
    let (p, pl, scale) = if small() {
        (30, 30_000, 15)
    } else {
        (110, 1_200_000, 20)
    };
    let mats: Vec<(&str, Csr<i32, f64>)> = vec![
        ("poisson3d", gen::poisson3d(p).expect("poisson3d")),
        (
            "powerlaw",
            gen::power_law(pl, 7.5, 2.1, 42).expect("power law"),
        ),
        ("rmat", gen::rmat(scale, 9, 42).expect("rmat")),
    ];
    let mut g = c.benchmark_group("spmv_f64");
    g.sample_size(20);
    let threads = rayon::current_num_threads();
    for (name, a) in &mats {
        let bytes = spmv_bytes(a);
        let maxrow = (0..a.nrows())
            .map(|i| a.row_range(i).len())
            .max()
            .unwrap_or(0);
        eprintln!(
            "{name}: {} rows, {} nnz, longest row {maxrow}, {:.1} MB per pass, {threads} threads",
            a.nrows(),
            a.nnz(),
            bytes as f64 / 1e6
        );
        g.throughput(Throughput::Bytes(bytes));
        // memcpy of the same number of bytes (half read, half written), all threads.
        let len = (bytes / 16) as usize;
        let src: Vec<f64> = (0..len).map(|i| i as f64).collect();
        let mut dst = vec![0.0f64; len];
        let chunk = len.div_ceil(threads * 4).max(1);
        g.bench_function(BenchmarkId::new("memcpy", name), |b| {
            b.iter(|| {
                dst.par_chunks_mut(chunk)
                    .zip(src.par_chunks(chunk))
                    .for_each(|(d, s)| d.copy_from_slice(s));
                black_box(&dst);
            })
        });
        g.bench_function(BenchmarkId::new("memcpy_1t", name), |b| {
            b.iter(|| {
                dst.copy_from_slice(&src);
                black_box(&dst);
            })
        });
        let x: Vec<f64> = (0..a.ncols())
            .map(|i| 1.0 + (i % 17) as f64 * 0.01)
            .collect();
        // The gathers alone: Σ x[col[k]] over the matrix's own column indices, all
        // threads, prefetching as the kernel does, no values and no y. Any CSR SpMV
        // that reads x once per nonzero takes at least this long, so its time over
        // memcpy's bounds the % of memcpy SpMV can reach on this machine.
        let idx = a.col_idx();
        let gchunk = idx.len().div_ceil(threads * 8).max(1);
        g.bench_function(BenchmarkId::new("gather_floor", name), |b| {
            b.iter(|| {
                let s: f64 = idx.par_chunks(gchunk).map(|c| gather_sum(c, &x)).sum();
                black_box(s)
            })
        });
        let xb = DeviceBuffer::from_slice(&dev, &x).expect("x");
        let mut yb = DeviceBuffer::<f64>::zeros(&dev, a.nrows()).expect("y");
        let plan = Spmv::analysis(&dev, Transpose::N, a.into(), SpmvAlg::MergePath).expect("plan");
        g.bench_function(BenchmarkId::new("rocm_merge", name), |b| {
            b.iter(|| {
                plan.compute(1.0, a.into(), &xb.as_slice(), 1.0, &mut yb.as_slice_mut())
                    .expect("spmv")
            })
        });
        let rs = Spmv::analysis(&dev, Transpose::N, a.into(), SpmvAlg::RowSplit).expect("plan");
        g.bench_function(BenchmarkId::new("rocm_rowsplit", name), |b| {
            b.iter(|| {
                rs.compute(1.0, a.into(), &xb.as_slice(), 1.0, &mut yb.as_slice_mut())
                    .expect("spmv")
            })
        });
        let s = to_sprs(a);
        let mut y = vec![0.0f64; a.nrows()];
        g.bench_function(BenchmarkId::new("sprs", name), |b| {
            b.iter(|| {
                sprs::prod::mul_acc_mat_vec_csr(s.view(), &x[..], &mut y[..]);
                black_box(&y);
            })
        });
    }
    g.finish();
}

fn bench_spgemm(c: &mut Criterion) {
    let dev = Device::cpu();
    let n = if small() { 100 } else { 1000 };
    let a: Csr<i32, f64> = gen::poisson2d(n).expect("poisson2d");
    eprintln!("spgemm: poisson2d {} rows, {} nnz", a.nrows(), a.nnz());
    let mut g = c.benchmark_group("spgemm_f64");
    g.sample_size(10);
    g.bench_function(BenchmarkId::new("rocm_full", "poisson2d"), |b| {
        b.iter(|| {
            let plan = Spgemm::analysis(&dev, &a, &a, None).expect("symbolic");
            black_box(plan.compute(1.0, &a, &a, 0.0, None).expect("numeric"))
        })
    });
    g.bench_function(BenchmarkId::new("rocm_once", "poisson2d"), |b| {
        b.iter(|| {
            let plan = Spgemm::analysis(&dev, &a, &a, None).expect("symbolic");
            black_box(plan.into_csr(1.0, &a, &a, 0.0, None).expect("numeric"))
        })
    });
    g.bench_function(BenchmarkId::new("rocm_fused", "poisson2d"), |b| {
        b.iter(|| black_box(spgemm(&dev, 1.0, &a, &a, 0.0, None).expect("spgemm")))
    });
    let plan = Spgemm::analysis(&dev, &a, &a, None).expect("symbolic");
    g.bench_function(BenchmarkId::new("rocm_numeric", "poisson2d"), |b| {
        b.iter(|| black_box(plan.compute(1.0, &a, &a, 0.0, None).expect("numeric")))
    });
    // The numeric stage into an existing C's values (repeated products, no allocation).
    let mut vals = vec![0.0f64; plan.nnz()];
    g.bench_function(BenchmarkId::new("rocm_values", "poisson2d"), |b| {
        b.iter(|| {
            plan.compute_values(1.0, &a, &a, 0.0, None, &mut vals)
                .expect("numeric");
            black_box(&vals);
        })
    });
    let s = to_sprs(&a);
    g.bench_function(BenchmarkId::new("sprs", "poisson2d"), |b| {
        b.iter(|| black_box(&s * &s))
    });
    g.finish();
}

criterion_group!(benches, bench_spmv, bench_spgemm);
criterion_main!(benches);
