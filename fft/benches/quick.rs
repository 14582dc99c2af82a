//! Quick ratio check (not criterion):
//! `cargo bench -p rocm-fft --bench quick -- [f32|f64] [all] [avx2|scalar] [sizes...]`
//! (`avx2`, `scalar`: cap the SIMD level, see `rocm_fft::cpu::simd::set_simd_limit`).
//! `cargo bench -p rocm-fft --bench quick -- plan [f64] [sizes...]` times plan creation
//! instead: the first creation of each size in the process (cold: run one size per
//! process for a cold table cache) and the best of later ones (warm).
//! `cargo bench -p rocm-fft --bench quick -- nd [f64]` times the criterion N-D cases
//! (2-D 1024², 3-D 128³, ours out of place on all threads) against rustfft applied
//! per axis on one thread, alternating, best of 12 each.
//! Prints the best-of-N time per call of ours and rustfft (one thread), batch filling
//! 2^16 elements, alternating the two so that both see the same machine; ours on one
//! thread unless `all` is given. Best-of-N is the least noisy statistic on a shared
//! machine; criterion (`--bench fft`) is the reference.
use num_complex::Complex;
use rocm_core::{Device, DeviceBuffer, Element};
use rocm_fft::{PlanBuilder, Precision, TransformType};
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

trait Prec: rustfft::FftNum + num_traits::Float {
    const P: Precision;
}
impl Prec for f32 {
    const P: Precision = Precision::F32;
}
impl Prec for f64 {
    const P: Precision = Precision::F64;
}

fn run<T: Prec>(sizes: &[usize], all: bool)
where
    Complex<T>: Element,
{
    let dev = Device::cpu();
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(if all { 0 } else { 1 })
        .build()
        .unwrap();
    for &n in sizes {
        let batch = ((1usize << 16) / n).max(1);
        let total = n * batch;
        let data: Vec<Complex<T>> = (0..total)
            .map(|i| {
                let t = T::from(i).unwrap();
                Complex::new(
                    (t * T::from(0.37).unwrap()).sin(),
                    (t * T::from(0.11).unwrap()).cos(),
                )
            })
            .collect();
        let plan = PlanBuilder::new(TransformType::ComplexForward, &[n])
            .batch(batch)
            .precision(T::P)
            .build(&dev)
            .unwrap();
        let x = DeviceBuffer::from_slice(&dev, &data).unwrap();
        let mut y = DeviceBuffer::<Complex<T>>::zeros(&dev, total).unwrap();
        let mut w = DeviceBuffer::<u8>::zeros(&dev, plan.work_buffer_size()).unwrap();
        let stream = dev.default_stream();
        let fft = rustfft::FftPlanner::<T>::new().plan_fft_forward(n);
        let zero = Complex::new(T::zero(), T::zero());
        let mut xin = data.clone();
        let mut yout = vec![zero; total];
        let mut scratch = vec![zero; fft.get_outofplace_scratch_len()];
        let reps = (2_000_000 / total).clamp(5, 100);
        let (mut ours, mut theirs) = (f64::MAX, f64::MAX);
        for _ in 0..3 {
            ours = ours.min(pool.install(|| {
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
            }));
            theirs = theirs.min(best(
                || fft.process_outofplace_with_scratch(&mut xin, &mut yout, &mut scratch),
                reps,
            ));
        }
        println!(
            "{n:>8} ours {:>9.1} us  rustfft {:>9.1} us  ratio {:.2}",
            ours * 1e6,
            theirs * 1e6,
            theirs / ours
        );
    }
}

/// CPU time of the whole process (every thread), in seconds (0 off Linux).
#[cfg(not(target_os = "linux"))]
fn cpu_time() -> f64 {
    0.0
}

/// CPU time of the whole process (every thread), in seconds.
#[cfg(target_os = "linux")]
fn cpu_time() -> f64 {
    let mut t = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `t` is a valid timespec to write; the clock id is a constant.
    unsafe { libc::clock_gettime(libc::CLOCK_PROCESS_CPUTIME_ID, &mut t) };
    t.tv_sec as f64 + t.tv_nsec as f64 * 1e-9
}

/// Seconds of one execution of a length-`n` c2c plan on fresh buffers.
fn execute_once<T: Prec>(plan: &rocm_fft::Plan, n: usize) -> f64
where
    Complex<T>: Element,
{
    let dev = Device::cpu();
    let x = DeviceBuffer::<Complex<T>>::zeros(&dev, n).expect("buffer");
    let mut y = DeviceBuffer::<Complex<T>>::zeros(&dev, n).expect("buffer");
    let t = Instant::now();
    plan.execute(
        dev.default_stream(),
        &x.as_slice(),
        &mut y.as_slice_mut(),
        None,
    )
    .expect("execute");
    t.elapsed().as_secs_f64()
}

/// Plan creation: the first of each size (cold), then the best of 20 (warm).
fn plans(sizes: &[usize], p: Precision) {
    let dev = Device::cpu();
    // The first plan of a process also pays one-time costs (code pages, CPU feature
    // detection, the table cache): timed apart on a tiny length.
    let t = Instant::now();
    drop(
        PlanBuilder::new(TransformType::ComplexForward, &[2])
            .precision(p)
            .build(&dev)
            .unwrap(),
    );
    println!(
        "first plan of the process (n = 2): {:.1} us",
        t.elapsed().as_secs_f64() * 1e6
    );
    for &n in sizes {
        let make = || {
            let t = Instant::now();
            let plan = PlanBuilder::new(TransformType::ComplexForward, &[n])
                .precision(p)
                .build(&dev)
                .unwrap();
            let e = t.elapsed().as_secs_f64();
            drop(plan);
            e
        };
        let cpu0 = cpu_time();
        let cold = make();
        let cold_cpu = cpu_time() - cpu0;
        let warm = (0..20).map(|_| make()).fold(f64::MAX, f64::min);
        // The first execution builds what plans defer (Rader/Bluestein kernels), once
        // per process: timed on a fresh plan, then a second execution for scale.
        let plan = PlanBuilder::new(TransformType::ComplexForward, &[n])
            .precision(p)
            .build(&dev)
            .unwrap();
        let (exec1, exec2) = if p == Precision::F64 {
            (execute_once::<f64>(&plan, n), execute_once::<f64>(&plan, n))
        } else {
            (execute_once::<f32>(&plan, n), execute_once::<f32>(&plan, n))
        };
        // rustfft's planner has no cross-planner cache: a fresh planner each time.
        let theirs = || {
            let t = Instant::now();
            let f = if p == Precision::F64 {
                let _ = rustfft::FftPlanner::<f64>::new().plan_fft_forward(n);
                t.elapsed()
            } else {
                let _ = rustfft::FftPlanner::<f32>::new().plan_fft_forward(n);
                t.elapsed()
            };
            f.as_secs_f64()
        };
        let rf_cold = theirs();
        let rf_warm = (0..5).map(|_| theirs()).fold(f64::MAX, f64::min);
        println!(
            "{n:>8} {p} plan cold {:>9.1} us (cpu {:>9.1} us)  warm {:>9.1} us  first execution {:>9.1} us  second {:>9.1} us | rustfft fresh planner first {:>9.1} us  best {:>9.1} us",
            cold * 1e6,
            cold_cpu * 1e6,
            warm * 1e6,
            exec1 * 1e6,
            exec2 * 1e6,
            rf_cold * 1e6,
            rf_warm * 1e6
        );
    }
}

/// rustfft along every axis of contiguous data, one thread; lines at a stride are
/// gathered 16 at a time (as `benches/fft.rs` does).
fn rustfft_nd<T: Prec>(x: &mut [Complex<T>], lens: &[usize], planner: &mut rustfft::FftPlanner<T>) {
    let total: usize = lens.iter().product();
    let mut stride = 1;
    let mut line = Vec::new();
    for &len in lens {
        let f = planner.plan_fft_forward(len);
        if stride == 1 {
            f.process(x);
        } else {
            line.resize(len * 16, Complex::new(T::zero(), T::zero()));
            let block = len * stride;
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

fn nd<T: Prec>()
where
    Complex<T>: Element,
{
    let dev = Device::cpu();
    for lens in [vec![1024usize, 1024], vec![128, 128, 128]] {
        let total: usize = lens.iter().product();
        let data: Vec<Complex<T>> = (0..total)
            .map(|i| Complex::new(T::from(i % 17).unwrap(), T::from(i % 5).unwrap()))
            .collect();
        let plan = PlanBuilder::new(TransformType::ComplexForward, &lens)
            .precision(T::P)
            .build(&dev)
            .expect("plan");
        let x = DeviceBuffer::from_slice(&dev, &data).expect("buffer");
        let mut y = DeviceBuffer::<Complex<T>>::zeros(&dev, total).expect("buffer");
        let stream = dev.default_stream();
        let mut planner = rustfft::FftPlanner::<T>::new();
        let mut v = data.clone();
        let (mut ours, mut peer) = (f64::MAX, f64::MAX);
        for _ in 0..12 {
            ours = ours.min(best(
                || {
                    plan.execute(stream, &x.as_slice(), &mut y.as_slice_mut(), None)
                        .expect("execute")
                },
                1,
            ));
            peer = peer.min(best(|| rustfft_nd(&mut v, &lens, &mut planner), 1));
        }
        println!(
            "{lens:?} ours_all {:9.1} us  rustfft_1t_per_axis {:9.1} us  ratio {:.2}",
            ours * 1e6,
            peer * 1e6,
            peer / ours
        );
    }
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let f64p = args.iter().any(|a| a == "f64");
    // `avx2` or `scalar`: cap the SIMD level (compare the code paths on one CPU).
    use rocm_fft::cpu::simd::{set_simd_limit, SimdLevel};
    if args.iter().any(|a| a == "avx2") {
        set_simd_limit(SimdLevel::Avx2);
    } else if args.iter().any(|a| a == "scalar") {
        set_simd_limit(SimdLevel::Scalar);
    }
    if args.iter().any(|a| a == "nd") {
        if f64p {
            nd::<f64>();
        } else {
            nd::<f32>();
        }
        return;
    }
    if args.iter().any(|a| a == "plan") {
        let given: Vec<usize> = args.iter().filter_map(|a| a.parse().ok()).collect();
        let sizes = if given.is_empty() {
            vec![1024, 1 << 16, 1 << 20, 1_000_000, 10007, 65537]
        } else {
            given
        };
        plans(&sizes, if f64p { Precision::F64 } else { Precision::F32 });
        return;
    }
    let all = args.iter().any(|a| a == "all");
    let given: Vec<usize> = args.iter().filter_map(|a| a.parse().ok()).collect();
    let sizes = if given.is_empty() {
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
            100,
            360,
            1000,
            2187,
            3125,
            6000,
            30030,
            100_000,
            1_000_000,
            17,
            31,
            101,
            1009,
            10007,
            65537,
        ]
    } else {
        given
    };
    if f64p {
        run::<f64>(&sizes, all);
    } else {
        run::<f32>(&sizes, all);
    }
}
