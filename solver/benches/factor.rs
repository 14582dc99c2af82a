//! Criterion: rocm-solver's blocked factorisations against faer in the same run (all
//! threads, f64), strided-batched GETRF against a loop of single calls, POTRF and GEQRF at
//! several block sizes, and SYEVD / GESVD with vectors against faer.
//!
//! Run: `cargo bench -p rocm-solver --bench factor` (filter e.g. `-- getrf/`).

use criterion::measurement::WallTime;
use criterion::{
    criterion_group, criterion_main, BatchSize, BenchmarkGroup, BenchmarkId, Criterion,
};
use rocm_core::Device;
use rocm_solver::{BlockSizes, Evect, Solver, Svect, Uplo};
use std::time::Duration;

/// Entries in [-1, 1) from splitmix64.
fn random(len: usize, seed: u64) -> Vec<f64> {
    let mut s = seed;
    (0..len)
        .map(|_| {
            s = s.wrapping_add(0x9E37_79B9_7F4A_7C15);
            let mut z = s;
            z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
            z ^= z >> 31;
            (z >> 11) as f64 / (1u64 << 53) as f64 * 2.0 - 1.0
        })
        .collect()
}

/// G + n·I: symmetric positive definite (G = R·Rᵀ/n-ish, cheap to build).
fn spd(n: usize) -> Vec<f64> {
    let r = random(n * n, 7);
    let mut a = vec![0.0; n * n];
    for j in 0..n {
        for i in 0..n {
            a[i + j * n] = 0.5 * (r[i + j * n] + r[j + i * n]);
        }
        a[j + j * n] += n as f64;
    }
    a
}

fn to_faer(a: &[f64], n: usize) -> faer::Mat<f64> {
    faer::Mat::from_fn(n, n, |i, j| a[i + j * n])
}

/// Our GEQRF of the n×n matrix `a` as `id`, every sample on a fresh copy.
fn bench_geqrf(
    g: &mut BenchmarkGroup<'_, WallTime>,
    id: BenchmarkId,
    solver: &Solver,
    a: &[f64],
    n: usize,
) {
    let dev = solver.device();
    g.bench_function(id, |b| {
        let mut tau = dev.alloc::<f64>(n).unwrap();
        b.iter_batched(
            || dev.upload(a).unwrap(),
            |mut buf| {
                solver
                    .geqrf(n, n, &mut buf.as_slice_mut(), n, &mut tau.as_slice_mut())
                    .unwrap()
            },
            BatchSize::LargeInput,
        )
    });
}

/// Our Lower POTRF of the n×n SPD matrix `s` as `id`, every sample on a fresh copy.
fn bench_potrf(
    g: &mut BenchmarkGroup<'_, WallTime>,
    id: BenchmarkId,
    solver: &Solver,
    s: &[f64],
    n: usize,
) {
    let dev = solver.device();
    g.bench_function(id, |b| {
        b.iter_batched(
            || dev.upload(s).unwrap(),
            |mut buf| {
                solver
                    .potrf(Uplo::Lower, n, &mut buf.as_slice_mut(), n)
                    .unwrap()
            },
            BatchSize::LargeInput,
        )
    });
}

/// faer's Cholesky of `fs` as `faer/n`.
fn bench_faer_llt(g: &mut BenchmarkGroup<'_, WallTime>, fs: &faer::Mat<f64>, n: usize) {
    g.bench_function(BenchmarkId::new("faer", n), |b| {
        b.iter(|| fs.llt(faer::Side::Lower).is_ok())
    });
}

/// faer's QR of `fa` as `faer/n`.
fn bench_faer_qr(g: &mut BenchmarkGroup<'_, WallTime>, fa: &faer::Mat<f64>, n: usize) {
    g.bench_function(BenchmarkId::new("faer", n), |b| b.iter(|| fa.qr()));
}

fn factorisations(c: &mut Criterion) {
    let dev = Device::cpu();
    let solver = Solver::new(&dev);
    for &n in &[1024usize, 2048] {
        let a = random(n * n, 1);
        let fa = to_faer(&a, n);
        let mut g = c.benchmark_group("getrf");
        g.bench_with_input(BenchmarkId::new("rocm-solver", n), &n, |b, &n| {
            let mut piv = dev.alloc::<i32>(n).unwrap();
            b.iter_batched(
                || dev.upload(&a).unwrap(),
                |mut buf| {
                    solver
                        .getrf(n, n, &mut buf.as_slice_mut(), n, &mut piv.as_slice_mut())
                        .unwrap()
                },
                BatchSize::LargeInput,
            )
        });
        g.bench_with_input(BenchmarkId::new("faer", n), &n, |b, _| {
            b.iter(|| fa.partial_piv_lu())
        });
        g.finish();

        let mut g = c.benchmark_group("geqrf");
        bench_geqrf(&mut g, BenchmarkId::new("rocm-solver", n), &solver, &a, n);
        bench_faer_qr(&mut g, &fa, n);
        g.finish();

        let s = spd(n);
        let fs = to_faer(&s, n);
        let mut g = c.benchmark_group("potrf");
        bench_potrf(&mut g, BenchmarkId::new("rocm-solver", n), &solver, &s, n);
        bench_faer_llt(&mut g, &fs, n);
        g.finish();
    }
}

fn batched(c: &mut Criterion) {
    let dev = Device::cpu();
    let solver = Solver::new(&dev);
    let (n, count) = (32usize, 10_000usize);
    let a = random(n * n * count, 3);
    let mut g = c.benchmark_group("getrf_batched_32x32x10000");
    g.bench_function("strided_batched", |b| {
        let mut piv = dev.alloc::<i32>(n * count).unwrap();
        b.iter_batched(
            || dev.upload(&a).unwrap(),
            |mut buf| {
                solver
                    .getrf_strided_batched(
                        n,
                        n,
                        &mut buf.as_slice_mut(),
                        n,
                        n * n,
                        &mut piv.as_slice_mut(),
                        n,
                        count,
                    )
                    .unwrap()
            },
            BatchSize::LargeInput,
        )
    });
    g.bench_function("loop_of_single_calls", |b| {
        let mut piv = dev.alloc::<i32>(n).unwrap();
        b.iter_batched(
            || dev.upload(&a).unwrap(),
            |mut buf| {
                let mut view = buf.as_slice_mut();
                for i in 0..count {
                    let mut one = view.slice_mut(i * n * n..(i + 1) * n * n).unwrap();
                    solver
                        .getrf(n, n, &mut one, n, &mut piv.as_slice_mut())
                        .unwrap();
                }
            },
            BatchSize::LargeInput,
        )
    });
    g.finish();
}

/// POTRF (Lower, with lookahead) at several block sizes next to faer, to choose the CPU
/// row of the tuning table: `cargo bench -p rocm-solver --bench factor -- potrf_nb/`.
fn potrf_block_sizes(c: &mut Criterion) {
    let dev = Device::cpu();
    for &n in &[1024usize, 2048] {
        let s = spd(n);
        let fs = to_faer(&s, n);
        let mut g = c.benchmark_group("potrf_nb");
        for nb in [96usize, 128, 192, 256, 512, 1024] {
            let mut sizes = BlockSizes::for_target(dev.target());
            sizes.potrf = nb;
            let solver = Solver::new(&dev).with_block_sizes(sizes);
            let id = BenchmarkId::new(format!("rocm-solver-nb{nb}"), n);
            bench_potrf(&mut g, id, &solver, &s, n);
        }
        bench_faer_llt(&mut g, &fs, n);
        g.finish();
    }
}

/// GEQRF at several panel widths (the panel recursive down to `BlockSizes::unblocked`)
/// next to faer, to choose the CPU row of the tuning table:
/// `cargo bench -p rocm-solver --bench factor -- geqrf_nb/`.
fn geqrf_block_sizes(c: &mut Criterion) {
    let dev = Device::cpu();
    for &n in &[1024usize, 2048] {
        let a = random(n * n, 1);
        let fa = to_faer(&a, n);
        let mut g = c.benchmark_group("geqrf_nb");
        for nb in [32usize, 48, 64, 96, 128] {
            let mut sizes = BlockSizes::for_target(dev.target());
            sizes.geqrf = nb;
            let solver = Solver::new(&dev).with_block_sizes(sizes);
            let id = BenchmarkId::new(format!("rocm-solver-nb{nb}"), n);
            bench_geqrf(&mut g, id, &solver, &a, n);
        }
        bench_faer_qr(&mut g, &fa, n);
        g.finish();
    }
}

/// SYEVD and GESVD with vectors next to faer's self-adjoint eigendecomposition and SVD
/// (n = 256, f64): `cargo bench -p rocm-solver --bench factor -- eig_svd/`.
fn eigen_svd(c: &mut Criterion) {
    let dev = Device::cpu();
    let solver = Solver::new(&dev);
    let n = 256;
    let s = spd(n);
    let a = random(n * n, 5);
    let (fs, fa) = (to_faer(&s, n), to_faer(&a, n));
    let mut g = c.benchmark_group("eig_svd");
    g.bench_with_input(BenchmarkId::new("syevd/rocm-solver", n), &n, |b, &n| {
        let mut w = dev.alloc::<f64>(n).unwrap();
        b.iter_batched(
            || dev.upload(&s).unwrap(),
            |mut buf| {
                solver
                    .syevd(
                        Evect::Original,
                        Uplo::Lower,
                        n,
                        &mut buf.as_slice_mut(),
                        n,
                        &mut w.as_slice_mut(),
                    )
                    .unwrap()
            },
            BatchSize::LargeInput,
        )
    });
    g.bench_with_input(BenchmarkId::new("syevd/faer", n), &n, |b, _| {
        b.iter(|| fs.self_adjoint_eigen(faer::Side::Lower).is_ok())
    });
    g.bench_with_input(BenchmarkId::new("gesvd/rocm-solver", n), &n, |b, &n| {
        let mut sv = dev.alloc::<f64>(n).unwrap();
        let mut u = dev.alloc::<f64>(n * n).unwrap();
        let mut vt = dev.alloc::<f64>(n * n).unwrap();
        b.iter_batched(
            || dev.upload(&a).unwrap(),
            |mut buf| {
                solver
                    .gesvd(
                        Svect::Singular,
                        Svect::Singular,
                        n,
                        n,
                        &mut buf.as_slice_mut(),
                        n,
                        &mut sv.as_slice_mut(),
                        &mut u.as_slice_mut(),
                        n,
                        &mut vt.as_slice_mut(),
                        n,
                    )
                    .unwrap()
            },
            BatchSize::LargeInput,
        )
    });
    g.bench_with_input(BenchmarkId::new("gesvd/faer", n), &n, |b, _| {
        b.iter(|| fa.svd().is_ok())
    });
    g.finish();
}

/// Every group: 10 samples after 1 s of warm-up over 4 s (a 2048 factorisation takes
/// tenths of a second); command-line flags still override.
fn config() -> Criterion {
    Criterion::default()
        .sample_size(10)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(4))
}

criterion_group!(
    name = benches;
    config = config();
    targets = factorisations, batched, potrf_block_sizes, geqrf_block_sizes, eigen_svd
);
criterion_main!(benches);
