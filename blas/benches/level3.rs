//! CPU Level 3 at n = 1024: trsm, trmm, syrk, symm next to gemm of the same size, in one
//! run. Criterion reports each as elements/s where one element is one flop (so the
//! figure is flop/s); a closing table gives GFLOP/s (best of several runs) and the ratio
//! to gemm's GFLOP/s measured in the same process.
//!
//! Flop counts: gemm 2n³, symm 2n³ (left, m = n), trsm n³ and trmm n³ (left, m = n),
//! syrk n²(k + 1) with k = n (one triangle).
//!
//! `cargo bench -p rocm-blas --bench level3` (`ROCM_BENCH_N=2048` to change the size).

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use rocm_blas::{Blas, Diag, Scalar, Side, Transpose, Uplo};
use rocm_core::{Device, DeviceBuffer};
use std::time::Instant;

fn size() -> usize {
    std::env::var("ROCM_BENCH_N")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(1024)
}

struct Problem<T: Scalar> {
    blas: Blas,
    n: usize,
    a: DeviceBuffer<T>,
    b: DeviceBuffer<T>,
    c: DeviceBuffer<T>,
}

impl<T: Scalar> Problem<T> {
    fn new(n: usize) -> Self {
        let dev = Device::cpu();
        // Deterministic, well-scaled data; A diagonally dominant so trsm stays finite.
        let mut a: Vec<T> = (0..n * n)
            .map(|i| {
                T::from_real(
                    num_traits::cast(((i * 7919) % 1000) as f64 / 1000.0 / n as f64).unwrap(),
                )
            })
            .collect();
        for i in 0..n {
            a[i + i * n] = T::from_real(num_traits::cast(2.0).unwrap());
        }
        let b: Vec<T> = (0..n * n)
            .map(|i| T::from_real(num_traits::cast(((i * 104729) % 1000) as f64 / 1000.0).unwrap()))
            .collect();
        Problem {
            blas: Blas::new(&dev),
            n,
            a: dev.upload(&a).unwrap(),
            b: dev.upload(&b).unwrap(),
            c: dev.upload(&b).unwrap(),
        }
    }

    fn run(&mut self, op: &str) {
        let n = self.n;
        let (one, blas) = (T::one(), &self.blas);
        let (a, b) = (self.a.as_slice(), self.b.as_slice());
        let mut c = self.c.as_slice_mut();
        let (l, lo, nt, nu) = (Side::Left, Uplo::Lower, Transpose::N, Diag::NonUnit);
        match op {
            "gemm" => blas.gemm(nt, nt, n, n, n, one, &a, n, &b, n, T::zero(), &mut c, n),
            "trsm" => blas.trsm(l, lo, nt, nu, n, n, one, &a, n, &mut c, n),
            "trmm" => blas.trmm(l, lo, nt, nu, n, n, one, &a, n, &mut c, n),
            "syrk" => blas.syrk(lo, nt, n, n, one, &a, n, T::zero(), &mut c, n),
            "symm" => blas.symm(l, lo, n, n, one, &a, n, &b, n, T::zero(), &mut c, n),
            _ => unreachable!("unknown op {op}"),
        }
        .unwrap();
        if op == "trmm" || op == "trsm" {
            // Keep C bounded across iterations (trmm grows it, trsm shrinks it).
            c.copy_from(&b).unwrap();
        }
    }

    fn flops(&self, op: &str) -> f64 {
        let n = self.n as f64;
        match op {
            "gemm" | "symm" => 2.0 * n * n * n,
            "syrk" => n * n * (n + 1.0),
            _ => n * n * n,
        }
    }
}

const OPS: [&str; 5] = ["gemm", "trsm", "trmm", "syrk", "symm"];

fn bench_dtype<T: Scalar>(c: &mut Criterion, name: &str) {
    let n = size();
    let mut p = Problem::<T>::new(n);
    let mut g = c.benchmark_group(format!("{name}_level3_{n}"));
    g.sample_size(10);
    for op in OPS {
        g.throughput(Throughput::Elements(p.flops(op) as u64));
        g.bench_function(op, |bch| bch.iter(|| p.run(op)));
    }
    g.finish();
    // Closing table: best of 5 per op, interleaved so drift hits all ops alike.
    let mut best = [f64::INFINITY; OPS.len()];
    for _ in 0..5 {
        for (i, op) in OPS.iter().enumerate() {
            let t = Instant::now();
            p.run(op);
            best[i] = best[i].min(t.elapsed().as_secs_f64());
        }
    }
    let gf = |i: usize| p.flops(OPS[i]) / best[i] / 1e9;
    println!("\n{name} n={n} (best of 5, includes a B reset copy for trsm/trmm)");
    println!(
        "{:>6} {:>10} {:>10} {:>14}",
        "op", "ms", "GFLOP/s", "ratio to gemm"
    );
    for i in 0..OPS.len() {
        println!(
            "{:>6} {:>10.2} {:>10.1} {:>14.2}",
            OPS[i],
            best[i] * 1e3,
            gf(i),
            gf(i) / gf(0)
        );
    }
}

fn level3(c: &mut Criterion) {
    bench_dtype::<f64>(c, "d");
    bench_dtype::<f32>(c, "s");
}

criterion_group!(benches, level3);
criterion_main!(benches);
