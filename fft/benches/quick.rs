//! Quick ratio check (not criterion): `cargo bench -p rocm-fft --bench quick -- [sizes...]`.
//! Prints the best-of-N time per transform of ours and rustfft, one thread, batch
//! filling 2^16 elements.
use num_complex::Complex;
use rocm_core::{Complex32, Device, DeviceBuffer};
use rocm_fft::{PlanBuilder, TransformType};
use std::time::Instant;

fn best(mut f: impl FnMut(), reps: usize) -> f64 {
    f();
    let mut b = f64::MAX;
    for _ in 0..reps {
        let t = Instant::now();
        f();
        b = b.min(t.elapsed().as_secs_f64());
    }
    b
}

fn main() {
    let args: Vec<usize> = std::env::args()
        .skip(1)
        .filter_map(|a| a.parse().ok())
        .collect();
    let sizes = if args.is_empty() {
        vec![
            16,
            64,
            256,
            1024,
            4096,
            1 << 14,
            1 << 16,
            1 << 18,
            1 << 20,
            60,
            1000,
            3125,
            2187,
            6000,
            30030,
            100_000,
            17,
            101,
            1009,
            10007,
        ]
    } else {
        args
    };
    let dev = Device::cpu();
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(1)
        .build()
        .unwrap();
    for n in sizes {
        let batch = ((1usize << 16) / n).max(1);
        let total = n * batch;
        let data: Vec<Complex32> = (0..total)
            .map(|i| Complex32::new((i as f32 * 0.37).sin(), (i as f32 * 0.11).cos()))
            .collect();
        let plan = PlanBuilder::new(TransformType::ComplexForward, &[n])
            .batch(batch)
            .build(&dev)
            .unwrap();
        let x = DeviceBuffer::from_slice(&dev, &data).unwrap();
        let mut y = DeviceBuffer::<Complex32>::zeros(&dev, total).unwrap();
        let mut w = DeviceBuffer::<u8>::zeros(&dev, plan.work_buffer_size()).unwrap();
        let stream = dev.default_stream();
        let reps = (2_000_000 / total).clamp(5, 200);
        let ours = pool.install(|| {
            best(
                || {
                    plan.execute(
                        stream,
                        &x.as_slice(),
                        &mut y.as_slice_mut(),
                        Some(&mut w.as_slice_mut()),
                    )
                    .unwrap()
                },
                reps,
            )
        });
        let fft = rustfft::FftPlanner::<f32>::new().plan_fft_forward(n);
        let mut xin: Vec<Complex<f32>> = data.clone();
        let mut yout = vec![Complex::new(0.0f32, 0.0); total];
        let mut scratch = vec![Complex::new(0.0f32, 0.0); fft.get_outofplace_scratch_len()];
        let theirs = best(
            || fft.process_outofplace_with_scratch(&mut xin, &mut yout, &mut scratch),
            reps,
        );
        println!(
            "{n:>8} ours {:>9.1} us  rustfft {:>9.1} us  ratio {:.2}",
            ours * 1e6,
            theirs * 1e6,
            theirs / ours
        );
    }
}
