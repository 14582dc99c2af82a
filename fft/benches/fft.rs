//! Criterion benchmarks: rocm-fft's CPU path against rustfft (the peer) in the same run.
//!
//! Groups: 1-D c2c f32 over powers of two, smooth sizes and primes, single-threaded
//! (ours inside a one-thread rayon pool) and with all threads (batches of `2^16 / N`
//! transforms so every size moves the same data); 2-D 1024² and 3-D 128³ with all
//! threads against rustfft applied per axis on one thread; plan creation.
//! `cargo bench -p rocm-fft --bench fft -- <filter>`.

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use num_complex::Complex;
use rocm_core::{Complex32, Device, DeviceBuffer};
use rocm_fft::{PlanBuilder, TransformType};
use std::hint::black_box;
use std::time::Duration;

fn data(n: usize) -> Vec<Complex32> {
    (0..n)
        .map(|i| Complex32::new((i as f32 * 0.37).sin(), (i as f32 * 0.11).cos()))
        .collect()
}

fn one_d(c: &mut Criterion, group: &str, sizes: &[usize]) {
    let dev = Device::cpu();
    let single = rayon::ThreadPoolBuilder::new().num_threads(1).build().ok();
    let mut g = c.benchmark_group(group);
    g.warm_up_time(Duration::from_millis(300));
    g.measurement_time(Duration::from_secs(1));
    g.sample_size(10);
    for &n in sizes {
        let batch = ((1usize << 16) / n).max(1);
        let total = n * batch;
        g.throughput(Throughput::Elements(total as u64));
        let plan = PlanBuilder::new(TransformType::ComplexForward, &[n])
            .batch(batch)
            .build(&dev)
            .expect("plan");
        let x = DeviceBuffer::from_slice(&dev, &data(total)).expect("buffer");
        let mut y = DeviceBuffer::<Complex32>::zeros(&dev, total).expect("buffer");
        let mut w = DeviceBuffer::<u8>::zeros(&dev, plan.work_buffer_size()).expect("buffer");
        let stream = dev.default_stream();
        let mut run = || {
            plan.execute(
                stream,
                &x.as_slice(),
                &mut y.as_slice_mut(),
                Some(&mut w.as_slice_mut()),
            )
            .expect("execute");
            black_box(&y);
        };
        if let Some(pool) = &single {
            g.bench_function(BenchmarkId::new("ours_1t", n), |b| {
                pool.install(|| b.iter(&mut run))
            });
        }
        g.bench_function(BenchmarkId::new("ours_all", n), |b| b.iter(&mut run));
        let fft = rustfft::FftPlanner::<f32>::new().plan_fft_forward(n);
        let mut xin: Vec<Complex<f32>> = data(total);
        let mut yout = vec![Complex::new(0.0f32, 0.0); total];
        let mut scratch = vec![Complex::new(0.0f32, 0.0); fft.get_outofplace_scratch_len()];
        g.bench_function(BenchmarkId::new("rustfft_1t", n), |b| {
            b.iter(|| {
                fft.process_outofplace_with_scratch(&mut xin, &mut yout, &mut scratch);
                black_box(&yout);
            })
        });
    }
    g.finish();
}

fn pow2(c: &mut Criterion) {
    let sizes: Vec<usize> = (4..=20).step_by(2).map(|k| 1usize << k).collect();
    one_d(c, "c2c_f32_pow2", &sizes);
}

fn smooth(c: &mut Criterion) {
    one_d(
        c,
        "c2c_f32_smooth",
        &[
            60, 100, 360, 1000, 2187, 3125, 6000, 30030, 100_000, 1_000_000,
        ],
    );
}

fn primes(c: &mut Criterion) {
    one_d(c, "c2c_f32_prime", &[17, 31, 101, 1009, 10007, 65537]);
}

/// rustfft applied along every axis of contiguous data, one thread.
fn rustfft_nd(x: &mut [Complex<f32>], lens: &[usize], planner: &mut rustfft::FftPlanner<f32>) {
    let total: usize = lens.iter().product();
    let mut stride = 1;
    for &len in lens {
        let f = planner.plan_fft_forward(len);
        if stride == 1 {
            f.process(x);
        } else {
            let block = len * stride;
            let mut line = vec![Complex::new(0.0, 0.0); len * 16];
            for b in 0..total / block {
                for i0 in (0..stride).step_by(16) {
                    let v = 16.min(stride - i0);
                    for j in 0..len {
                        for u in 0..v {
                            line[u * len + j] = x[b * block + j * stride + i0 + u];
                        }
                    }
                    f.process(&mut line[..v * len]);
                    for j in 0..len {
                        for u in 0..v {
                            x[b * block + j * stride + i0 + u] = line[u * len + j];
                        }
                    }
                }
            }
        }
        stride *= len;
    }
}

fn multi_d(c: &mut Criterion) {
    let dev = Device::cpu();
    let mut g = c.benchmark_group("c2c_f32_nd");
    g.warm_up_time(Duration::from_millis(500));
    g.measurement_time(Duration::from_secs(2));
    g.sample_size(10);
    for lens in [vec![1024usize, 1024], vec![128, 128, 128]] {
        let total: usize = lens.iter().product();
        let name = format!("{lens:?}");
        let plan = PlanBuilder::new(TransformType::ComplexForward, &lens)
            .build(&dev)
            .expect("plan");
        let x = DeviceBuffer::from_slice(&dev, &data(total)).expect("buffer");
        let mut y = DeviceBuffer::<Complex32>::zeros(&dev, total).expect("buffer");
        let stream = dev.default_stream();
        g.bench_function(BenchmarkId::new("ours_all", &name), |b| {
            b.iter(|| {
                plan.execute(stream, &x.as_slice(), &mut y.as_slice_mut(), None)
                    .expect("execute");
            })
        });
        let mut planner = rustfft::FftPlanner::<f32>::new();
        let mut v: Vec<Complex<f32>> = data(total);
        g.bench_function(BenchmarkId::new("rustfft_1t_per_axis", &name), |b| {
            b.iter(|| rustfft_nd(&mut v, &lens, &mut planner))
        });
    }
    g.finish();
}

fn planning(c: &mut Criterion) {
    let dev = Device::cpu();
    let mut g = c.benchmark_group("plan_create");
    g.warm_up_time(Duration::from_millis(200));
    g.measurement_time(Duration::from_millis(800));
    g.sample_size(10);
    for n in [1024usize, 1 << 16, 1 << 20, 1_000_000, 10007] {
        g.bench_function(BenchmarkId::new("ours", n), |b| {
            b.iter(|| {
                PlanBuilder::new(TransformType::ComplexForward, &[n])
                    .build(&dev)
                    .expect("plan")
            })
        });
        g.bench_function(BenchmarkId::new("rustfft", n), |b| {
            b.iter(|| rustfft::FftPlanner::<f32>::new().plan_fft_forward(n))
        });
    }
    g.finish();
}

criterion_group!(benches, pow2, smooth, primes, multi_d, planning);
criterion_main!(benches);
