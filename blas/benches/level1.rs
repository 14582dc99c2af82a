//! CPU Level 1 at n = 2^26: axpy and dot (f32 and f64) next to a memcpy of the same
//! bytes, in one run. Criterion reports bytes/s counting the bytes each routine must move
//! (copy: read + write; axpy: read x, read y, write y; dot: read x and y); a closing table
//! gives GB/s (best of several runs) and the ratio to the memcpy bandwidth measured in the
//! same process (the faster of a one-thread and an all-core memcpy).
//!
//! `cargo bench -p rocm-blas --bench level1` (`ROCM_BENCH_N=<elements>` to change n).

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use rocm_blas::{Blas, Scalar};
use rocm_core::{Device, DeviceBuffer};
use std::time::Instant;

fn size() -> usize {
    std::env::var("ROCM_BENCH_N")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(1 << 26)
}

/// Best GB/s of `runs` timed calls of `f` moving `bytes` bytes.
fn best_gbs(bytes: f64, runs: usize, mut f: impl FnMut()) -> f64 {
    f();
    (0..runs)
        .map(|_| {
            let t = Instant::now();
            f();
            bytes / t.elapsed().as_secs_f64() / 1e9
        })
        .fold(0.0, f64::max)
}

fn vectors<T: Scalar>(n: usize) -> (Blas, DeviceBuffer<T>, DeviceBuffer<T>) {
    let dev = Device::cpu();
    let host: Vec<T> = (0..n)
        .map(|i| T::from_real(num_traits::cast(((i * 7919) % 1000) as f64 * 1e-3 - 0.5).unwrap()))
        .collect();
    let x = DeviceBuffer::from_slice(&dev, &host).unwrap();
    let y = DeviceBuffer::from_slice(&dev, &host).unwrap();
    (Blas::new(&dev), x, y)
}

fn level1<T: Scalar>(c: &mut Criterion, table: &mut Vec<(String, f64)>) {
    let n = size();
    let esize = std::mem::size_of::<T>() as f64;
    let (blas, x, mut y) = vectors::<T>(n);
    let alpha = T::from_real(num_traits::cast(0.5).unwrap());
    let mut g = c.benchmark_group(format!("level1/{}", T::DTYPE));
    g.sample_size(10);
    g.throughput(Throughput::Bytes((3.0 * n as f64 * esize) as u64));
    g.bench_function("axpy", |b| {
        b.iter(|| {
            blas.axpy(n, alpha, &x.as_slice(), 1, &mut y.as_slice_mut(), 1)
                .unwrap()
        })
    });
    g.throughput(Throughput::Bytes((2.0 * n as f64 * esize) as u64));
    g.bench_function("dot", |b| {
        b.iter(|| blas.dot(n, &x.as_slice(), 1, &y.as_slice(), 1).unwrap())
    });
    g.finish();
    let axpy = best_gbs(3.0 * n as f64 * esize, 10, || {
        blas.axpy(n, alpha, &x.as_slice(), 1, &mut y.as_slice_mut(), 1)
            .unwrap()
    });
    let dot = best_gbs(2.0 * n as f64 * esize, 10, || {
        std::hint::black_box(blas.dot(n, &x.as_slice(), 1, &y.as_slice(), 1).unwrap());
    });
    table.push((format!("axpy {}", T::DTYPE), axpy));
    table.push((format!("dot  {}", T::DTYPE), dot));
}

fn benches(c: &mut Criterion) {
    let n = size();
    // The peer: memcpy of an f32 vector of n elements (read + write counted), what the
    // memory system gives one copy on this machine.
    let src: Vec<f32> = (0..n).map(|i| i as f32).collect();
    let mut dst = vec![0f32; n];
    let bytes = 2.0 * n as f64 * 4.0;
    let mut g = c.benchmark_group("level1/memcpy");
    g.sample_size(10);
    g.throughput(Throughput::Bytes(bytes as u64));
    g.bench_function("copy_from_slice", |b| b.iter(|| dst.copy_from_slice(&src)));
    g.finish();
    // One thread's memcpy, and the same copy split over every core in 32 KiB chunks (what
    // our rayon routines do); the peer is the faster of the two.
    let serial = best_gbs(bytes, 10, || {
        dst.copy_from_slice(std::hint::black_box(&src))
    });
    let parallel = best_gbs(bytes, 10, || {
        use rayon::prelude::*;
        dst.par_chunks_mut(1 << 13)
            .zip(src.par_chunks(1 << 13))
            .for_each(|(d, s)| d.copy_from_slice(s))
    });
    let memcpy = serial.max(parallel);
    let mut table = Vec::new();
    level1::<f32>(c, &mut table);
    level1::<f64>(c, &mut table);
    println!(
        "\nn = {n}: memcpy {serial:.1} GB/s one thread, {parallel:.1} GB/s all cores (best of 10)"
    );
    for (name, gbs) in table {
        println!(
            "{name}  {gbs:>7.1} GB/s  {:>5.1}% of memcpy",
            100.0 * gbs / memcpy
        );
    }
}

criterion_group!(level1_benches, benches);
criterion_main!(level1_benches);
