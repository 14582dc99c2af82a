//! Runs one plan in a loop, for profilers (`perf record`, `valgrind --tool=callgrind`)
//! and quick timings of the CPU path alone (no peer, so it builds fast):
//! `cargo run --release -p rocm-fft --example fft_profile -- N[xN[xN]] [batch] [f32|f64] [iters] [threads]`.
//! The batch defaults to filling 2^16 elements (as the criterion benchmark does); the
//! best time per call is printed.

use rocm_core::{Device, DeviceBuffer};
use rocm_fft::{PlanBuilder, Precision, TransformType};
use std::time::Instant;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let lens: Vec<usize> = args
        .first()
        .map(|s| s.split('x').map(|v| v.parse().expect("length")).collect())
        .unwrap_or_else(|| vec![1024]);
    let total: usize = lens.iter().product();
    let batch: usize = args
        .get(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(((1usize << 16) / total).max(1));
    let precision: Precision = args
        .get(2)
        .map(|s| s.parse().expect("precision"))
        .unwrap_or(Precision::F32);
    let iters: usize = args.get(3).and_then(|s| s.parse().ok()).unwrap_or(200);
    let threads: usize = args.get(4).and_then(|s| s.parse().ok()).unwrap_or(1);
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .expect("pool");
    let dev = Device::cpu();
    // Plan creation: the best of a few (the first pays for cold caches).
    let mut plan_time = std::time::Duration::MAX;
    let mut plan = None;
    for _ in 0..5 {
        let t0 = Instant::now();
        let p = PlanBuilder::new(TransformType::ComplexForward, &lens)
            .batch(batch)
            .precision(precision)
            .build(&dev)
            .expect("plan");
        plan_time = plan_time.min(t0.elapsed());
        plan = Some(p);
    }
    let plan = plan.expect("plan");
    let n = total * batch;
    let best = match precision {
        Precision::F64 => {
            let x: Vec<num_complex::Complex<f64>> = (0..n)
                .map(|i| num_complex::Complex::new((i as f64 * 0.37).sin(), (i as f64).cos()))
                .collect();
            run(&plan, &dev, &pool, &x, iters)
        }
        _ => {
            let x: Vec<num_complex::Complex<f32>> = (0..n)
                .map(|i| num_complex::Complex::new((i as f32 * 0.37).sin(), (i as f32).cos()))
                .collect();
            run(&plan, &dev, &pool, &x, iters)
        }
    };
    println!(
        "{lens:?} batch {batch} {precision}: best {:.2} us per call, {:.3} ns per element, plan {:?}",
        best * 1e6,
        best * 1e9 / n as f64,
        plan_time
    );
}

fn run<T: rocm_core::Element + Default + Copy>(
    plan: &rocm_fft::Plan,
    dev: &Device,
    pool: &rayon::ThreadPool,
    x: &[T],
    iters: usize,
) -> f64 {
    let xb = DeviceBuffer::from_slice(dev, x).expect("buffer");
    let mut yb = DeviceBuffer::<T>::zeros(dev, x.len()).expect("buffer");
    let mut w = DeviceBuffer::<u8>::zeros(dev, plan.work_buffer_size()).expect("buffer");
    let stream = dev.default_stream();
    pool.install(|| {
        let mut best = f64::MAX;
        for _ in 0..iters {
            let t = Instant::now();
            plan.execute(
                stream,
                &xb.as_slice(),
                &mut yb.as_slice_mut(),
                Some(&mut w.as_slice_mut()),
            )
            .expect("execute");
            best = best.min(t.elapsed().as_secs_f64());
        }
        best
    })
}
