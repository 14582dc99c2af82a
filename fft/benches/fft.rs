//! Criterion benchmarks: rocm-fft's CPU path against rustfft (the peer) in the same run.
//!
//! Groups (`c2c_{f32,f64}_{pow2,smooth,prime}`): 1-D c2c over powers of two 16..2^20,
//! smooth sizes and primes, single-threaded (ours inside a one-thread rayon pool) and
//! with all threads (batches of `2^16 / N` transforms so every size moves the same
//! data); `c2c_{f32,f64}_nd`: 2-D 1024² and 3-D 128³ with all threads against rustfft
//! applied per axis on one thread; `plan_create`: plan creation (repeated: after the
//! first iteration the tables come from the process-wide cache, so this is the warm
//! figure; `--bench quick -- plan N` times the first creation per process, cold).
//! `cargo bench -p rocm-fft --bench fft -- <filter>`.

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use num_complex::Complex;
use rocm_core::{Device, DeviceBuffer, Element};
use rocm_fft::{PlanBuilder, Precision, TransformType};
use std::hint::black_box;
use std::time::Duration;

/// The precisions benchmarked: the plan's and rustfft's scalar.
trait Prec: rustfft::FftNum + num_traits::Float {
    const P: Precision;
    const NAME: &'static str;
}
impl Prec for f32 {
    const P: Precision = Precision::F32;
    const NAME: &'static str = "f32";
}
impl Prec for f64 {
    const P: Precision = Precision::F64;
    const NAME: &'static str = "f64";
}

fn data<T: Prec>(n: usize) -> Vec<Complex<T>> {
    (0..n)
        .map(|i| {
            let t = T::from(i).unwrap();
            Complex::new(
                (t * T::from(0.37).unwrap()).sin(),
                (t * T::from(0.11).unwrap()).cos(),
            )
        })
        .collect()
}

fn one_d<T: Prec>(c: &mut Criterion, kind: &str, sizes: &[usize])
where
    Complex<T>: Element,
{
    let dev = Device::cpu();
    let single = rayon::ThreadPoolBuilder::new().num_threads(1).build().ok();
    let mut g = c.benchmark_group(format!("c2c_{}_{kind}", T::NAME));
    g.warm_up_time(Duration::from_millis(300));
    g.measurement_time(Duration::from_secs(1));
    g.sample_size(10);
    for &n in sizes {
        let batch = ((1usize << 16) / n).max(1);
        let total = n * batch;
        g.throughput(Throughput::Elements(total as u64));
        let plan = PlanBuilder::new(TransformType::ComplexForward, &[n])
            .batch(batch)
            .precision(T::P)
            .build(&dev)
            .expect("plan");
        let x = DeviceBuffer::from_slice(&dev, &data::<T>(total)).expect("buffer");
        let mut y = DeviceBuffer::<Complex<T>>::zeros(&dev, total).expect("buffer");
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
        let fft = rustfft::FftPlanner::<T>::new().plan_fft_forward(n);
        let zero = Complex::new(T::zero(), T::zero());
        let mut xin: Vec<Complex<T>> = data(total);
        let mut yout = vec![zero; total];
        let mut scratch = vec![zero; fft.get_outofplace_scratch_len()];
        g.bench_function(BenchmarkId::new("rustfft_1t", n), |b| {
            b.iter(|| {
                fft.process_outofplace_with_scratch(&mut xin, &mut yout, &mut scratch);
                black_box(&yout);
            })
        });
    }
    g.finish();
}

const POW2: [usize; 9] = [16, 64, 256, 1024, 4096, 1 << 14, 1 << 16, 1 << 18, 1 << 20];
const SMOOTH: [usize; 10] = [
    60, 100, 360, 1000, 2187, 3125, 6000, 30030, 100_000, 1_000_000,
];
const PRIMES: [usize; 6] = [17, 31, 101, 1009, 10007, 65537];

fn pow2(c: &mut Criterion) {
    one_d::<f32>(c, "pow2", &POW2);
    one_d::<f64>(c, "pow2", &POW2);
}

fn smooth(c: &mut Criterion) {
    one_d::<f32>(c, "smooth", &SMOOTH);
    one_d::<f64>(c, "smooth", &SMOOTH);
}

fn primes(c: &mut Criterion) {
    one_d::<f32>(c, "prime", &PRIMES);
    one_d::<f64>(c, "prime", &PRIMES);
}

/// rustfft applied along every axis of contiguous data, one thread.
fn rustfft_nd<T: Prec>(x: &mut [Complex<T>], lens: &[usize], planner: &mut rustfft::FftPlanner<T>) {
    let total: usize = lens.iter().product();
    let mut stride = 1;
    for &len in lens {
        let f = planner.plan_fft_forward(len);
        if stride == 1 {
            f.process(x);
        } else {
            let block = len * stride;
            let mut line = vec![Complex::new(T::zero(), T::zero()); len * 16];
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
    multi_d_of::<f32>(c);
    multi_d_of::<f64>(c);
}

fn multi_d_of<T: Prec>(c: &mut Criterion)
where
    Complex<T>: Element,
{
    let dev = Device::cpu();
    let mut g = c.benchmark_group(format!("c2c_{}_nd", T::NAME));
    g.warm_up_time(Duration::from_millis(500));
    g.measurement_time(Duration::from_secs(2));
    g.sample_size(10);
    for lens in [vec![1024usize, 1024], vec![128, 128, 128]] {
        let total: usize = lens.iter().product();
        let name = format!("{lens:?}");
        let plan = PlanBuilder::new(TransformType::ComplexForward, &lens)
            .precision(T::P)
            .build(&dev)
            .expect("plan");
        let x = DeviceBuffer::from_slice(&dev, &data::<T>(total)).expect("buffer");
        let mut y = DeviceBuffer::<Complex<T>>::zeros(&dev, total).expect("buffer");
        let stream = dev.default_stream();
        g.bench_function(BenchmarkId::new("ours_all", &name), |b| {
            b.iter(|| {
                plan.execute(stream, &x.as_slice(), &mut y.as_slice_mut(), None)
                    .expect("execute");
            })
        });
        let mut planner = rustfft::FftPlanner::<T>::new();
        let mut v: Vec<Complex<T>> = data(total);
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
    for n in [1024usize, 1 << 16, 1 << 20, 1_000_000, 10007, 65537] {
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
