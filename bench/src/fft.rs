//! `rocm-bench fft`: time one FFT plan, in the style of rocfft-bench.
//!
//! Reports the plan time, the first execution (which builds the tables a plan defers:
//! Rader and Bluestein kernels), the median of the following executions, GFLOP/s with rocFFT's convention
//! (`batch·k·N·log2 N / t`, `k = 5` complex, `2.5` real), GB/s (input plus output bytes
//! over time) and the relative L2 error of the first batch against the f64 reference
//! (skipped where that reference would be slow: a prime factor above 1000).
//!
//! On a GPU each timed execution ends in a stream synchronisation, and the GB/s come from
//! the mean of `--ntrial` back-to-back executions between two synchronisations; with
//! `--vendor` (CUDA, `--features vendor`) cuFFT runs the same transform on the same
//! input in the same run, timed the same way, and the line adds its time, GB/s, the
//! ratio (cuFFT time / ours: above 1 is faster than cuFFT) and the two results' difference.

use rocm_core::{Complex64, Device, DeviceBuffer, Element};
use rocm_fft::reference::{rel_l2, transform_nd};
use rocm_fft::{Placement, Plan, PlanBuilder, Precision, TransformType};
use std::time::Instant;

#[derive(clap::Args)]
pub struct FftArgs {
    /// Lengths, innermost first (1 to 3).
    #[arg(long, num_args = 1..=3, required = true)]
    length: Vec<usize>,
    /// Number of transforms.
    #[arg(long, default_value_t = 1)]
    batch: usize,
    /// c2c, r2c or c2r.
    #[arg(long, default_value = "c2c")]
    kind: String,
    /// Backward instead of forward (c2c only; c2r is always backward).
    #[arg(long)]
    inverse: bool,
    /// f16, bf16, f32 or f64.
    #[arg(long, default_value = "f32")]
    precision: String,
    /// In-place transform.
    #[arg(long)]
    inplace: bool,
    /// Timed executions.
    #[arg(long, default_value_t = 10)]
    ntrial: usize,
    /// Print the plan tree.
    #[arg(long)]
    explain: bool,
    /// Device: `cpu`, `cuda:N`, `hip:N` or `emu:<gfx>`.
    #[arg(long, default_value = "cpu")]
    device: String,
    /// Also run cuFFT on the same data (c2c 1-D out of place on CUDA).
    #[arg(long)]
    vendor: bool,
    /// Batch filling this many MiB of input (overrides `--batch`).
    #[arg(long)]
    fill_mib: Option<usize>,
}

/// Timings of one transform.
struct Timing {
    /// Each execution's seconds (the first apart: it builds what plans defer).
    times: Vec<f64>,
    /// Relative L2 error of batch 0 against the reference, where computed.
    err: Option<f64>,
    /// GPU: mean seconds of back-to-back executions.
    loop_s: Option<f64>,
    /// cuFFT's mean seconds and the relative L2 difference of its result from ours.
    vendor: Option<(f64, f64)>,
}

pub fn run(a: &FftArgs) -> Result<(), Box<dyn std::error::Error>> {
    measure(a).map(|_| ())
}

/// The suite's FFT section: one transform of each kind, precision and dimensionality
/// (smooth, prime and Bluestein lengths, batched, in and out of place) on the CPU,
/// failing when the relative L2 error against the reference exceeds the FFT issue's
/// bound: 4·ε·√max(1, log2 N) for smooth lengths, 16·ε·√max(1, log2 N) for lengths with a
/// prime factor above 13 (ε of the plan's precision; f64 plans are checked against a
/// double-double reference).
pub fn quick() -> Result<(), Box<dyn std::error::Error>> {
    let cases: [(&str, &str, &[usize], usize, bool); 8] = [
        ("c2c", "f32", &[1024], 4, false),
        ("c2c", "f64", &[1000], 2, true),
        ("c2c", "f32", &[997], 1, false),
        ("c2c", "f64", &[1042], 1, false),
        ("r2c", "f32", &[4096], 3, false),
        ("c2r", "f64", &[360], 2, false),
        ("c2c", "f64", &[64, 48], 1, false),
        ("r2c", "f32", &[32, 16, 12], 2, true),
    ];
    for (kind, precision, length, batch, inplace) in cases {
        let a = FftArgs {
            length: length.to_vec(),
            batch,
            kind: kind.into(),
            inverse: false,
            precision: precision.into(),
            inplace,
            ntrial: 3,
            explain: false,
            device: "cpu".into(),
            vendor: false,
            fill_mib: None,
        };
        let Some(err) = measure(&a)? else {
            continue;
        };
        let n: usize = length.iter().product();
        let eps = if precision == "f32" {
            f32::EPSILON as f64
        } else {
            f64::EPSILON
        };
        let largest_prime = length
            .iter()
            .filter_map(|&l| rocm_fft::plan::prime_factors(l).last().copied())
            .max()
            .unwrap_or(1);
        let factor = if largest_prime > 13 { 16.0 } else { 4.0 };
        let bound = factor * eps * (n as f64).log2().max(1.0).sqrt();
        if err.is_nan() || err > bound {
            return Err(format!(
                "fft {kind} {precision} {length:?}: relative L2 error {err:.2e} > {bound:.2e}"
            )
            .into());
        }
    }
    Ok(())
}

/// Plans, executes and prints one transform's line; returns its error against the
/// reference where one is computed.
fn measure(a: &FftArgs) -> Result<Option<f64>, Box<dyn std::error::Error>> {
    let dev = Device::open(&a.device)?;
    let precision: Precision = a.precision.parse()?;
    let mut a_filled;
    let a = match a.fill_mib {
        Some(mib) => {
            let n: usize = a.length.iter().product();
            let bytes = n.max(1) * 2 * precision.scalar_bytes();
            a_filled = FftArgs {
                length: a.length.clone(),
                kind: a.kind.clone(),
                precision: a.precision.clone(),
                device: a.device.clone(),
                fill_mib: None,
                ..*a
            };
            a_filled.batch = ((mib << 20) / bytes).max(1);
            &a_filled
        }
        None => a,
    };
    let kind = match (a.kind.as_str(), a.inverse) {
        ("c2c", false) => TransformType::ComplexForward,
        ("c2c", true) => TransformType::ComplexInverse,
        ("r2c", _) => TransformType::RealForward,
        ("c2r", _) => TransformType::RealInverse,
        (k, _) => return Err(format!("--kind must be c2c, r2c or c2r, got `{k}`").into()),
    };
    let placement = if a.inplace {
        Placement::InPlace
    } else {
        Placement::NotInPlace
    };
    let t0 = Instant::now();
    let plan = PlanBuilder::new(kind, &a.length)
        .batch(a.batch)
        .precision(precision)
        .placement(placement)
        .build(&dev)?;
    let plan_s = t0.elapsed().as_secs_f64();
    if a.explain {
        print!("{}", plan.describe());
    }
    let Timing {
        times,
        err,
        loop_s,
        vendor,
    } = match precision {
        Precision::F64 => bench_t::<f64>(&plan, &dev, a, kind)?,
        Precision::F32 => bench_t::<f32>(&plan, &dev, a, kind)?,
        Precision::F16 => bench_t::<half::f16>(&plan, &dev, a, kind)?,
        Precision::Bf16 => bench_t::<half::bf16>(&plan, &dev, a, kind)?,
    };
    let first = times[0];
    let n: usize = a.length.iter().product();
    let mut sorted = times[1..].to_vec();
    sorted.sort_by(f64::total_cmp);
    let med = loop_s.unwrap_or(sorted[sorted.len() / 2]);
    let k = if kind.is_real() { 2.5 } else { 5.0 };
    let flops = a.batch as f64 * k * n as f64 * (n as f64).log2().max(1.0);
    let h = a.length[0] / 2 + 1;
    let c_total = n / a.length[0] * h;
    let sb = precision.scalar_bytes() as f64;
    let bytes = a.batch as f64
        * match kind {
            TransformType::ComplexForward | TransformType::ComplexInverse => 4.0 * n as f64 * sb,
            _ => (n as f64 + 2.0 * c_total as f64) * sb,
        };
    println!(
        "fft {} {:?} batch {} {} {:?}: plan {:.3} ms, first execution {:.3} ms, time {:.4} ms (min {:.4}), {:.2} GFLOP/s, {:.2} GB/s, rel L2 error {}",
        kind.name(),
        a.length,
        a.batch,
        precision,
        placement,
        plan_s * 1e3,
        first * 1e3,
        med * 1e3,
        sorted[0] * 1e3,
        flops / med / 1e9,
        bytes / med / 1e9,
        err.map_or("n/a".into(), |e| format!("{e:.3e}"))
    );
    if let Some((t, diff)) = vendor {
        println!(
            "  cuFFT: time {:.4} ms, {:.2} GB/s; ours/cuFFT speed {:.3}x; results differ by rel L2 {:.3e}",
            t * 1e3,
            bytes / t / 1e9,
            t / med,
            diff
        );
    }
    Ok(err)
}

/// Scalars of the storage type as f64, and back.
trait Num: Element {
    fn put(v: &[f64]) -> rocm_core::Result<Vec<Self>>;
    fn take(v: &[Self]) -> Vec<f64>;
}

macro_rules! num {
    ($t:ty, $to:expr, $from:expr) => {
        impl Num for $t {
            fn put(v: &[f64]) -> rocm_core::Result<Vec<Self>> {
                rocm_core::host_alloc::try_from_fn("transform data", v.len(), |i| $to(v[i]))
            }
            fn take(v: &[Self]) -> Vec<f64> {
                v.iter().map(|&x| $from(x)).collect()
            }
        }
    };
}
num!(f32, |x: f64| x as f32, |x: f32| x as f64);
num!(f64, |x: f64| x, |x: f64| x);
num!(half::f16, half::f16::from_f64, |x: half::f16| x.to_f64());
num!(half::bf16, half::bf16::from_f64, |x: half::bf16| x.to_f64());

fn bench_t<S: Num>(
    plan: &Plan,
    dev: &Device,
    a: &FftArgs,
    kind: TransformType,
) -> Result<Timing, Box<dyn std::error::Error>> {
    let in_real = kind == TransformType::RealForward;
    let out_real = kind == TransformType::RealInverse;
    let in_s = plan.input_elements() * if in_real { 1 } else { 2 };
    let out_s = plan.output_elements() * if out_real { 1 } else { 2 };
    let mut seed = 0x9e37_79b9_7f4a_7c15u64;
    let mut rnd = || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        (seed >> 11) as f64 / (1u64 << 53) as f64 - 0.5
    };
    let host_len = in_s.max(if a.inplace { out_s } else { 0 });
    let host: Vec<f64> =
        rocm_core::host_alloc::try_from_fn("transform input", host_len, |_| rnd())?;
    let input = DeviceBuffer::from_slice(dev, &S::put(&host)?)?;
    let stream = dev.default_stream();
    let mut work = DeviceBuffer::<u8>::zeros(dev, plan.work_buffer_size() + 64)?;
    let mut times = Vec::new();
    let mut first_out: Option<Vec<f64>> = None;
    let mut out = DeviceBuffer::<S>::zeros(dev, out_s.max(1))?;
    for _ in 0..a.ntrial.max(1) + 1 {
        if a.inplace {
            let mut data = DeviceBuffer::from_slice(dev, &S::put(&host)?)?;
            let t = Instant::now();
            plan.execute_in_place(
                stream,
                &mut data.as_slice_mut(),
                Some(&mut work.as_slice_mut()),
            )?;
            stream.synchronize()?;
            times.push(t.elapsed().as_secs_f64());
            first_out.get_or_insert_with(|| S::take(&data.to_vec().unwrap_or_default()));
        } else {
            let t = Instant::now();
            plan.execute(
                stream,
                &input.as_slice(),
                &mut out.as_slice_mut(),
                Some(&mut work.as_slice_mut()),
            )?;
            stream.synchronize()?;
            times.push(t.elapsed().as_secs_f64());
            if first_out.is_none() {
                first_out = Some(S::take(&out.to_vec()?));
            }
        }
    }
    // times[0] is the first execution (it builds deferred tables); the caller reports it
    // apart from the timed ones.
    let mut loop_s = None;
    let mut vendor = None;
    if !dev.is_cpu() && !a.inplace {
        let iters = a.ntrial.max(1);
        let t = Instant::now();
        for _ in 0..iters {
            plan.execute(stream, &input.as_slice(), &mut out.as_slice_mut(), None)?;
        }
        stream.synchronize()?;
        loop_s = Some(t.elapsed().as_secs_f64() / iters as f64);
        if a.vendor {
            vendor = Some(vendor_peer::<S>(plan, dev, a, kind, &input, &out)?);
        }
    } else if a.vendor {
        return Err("--vendor runs c2c out of place on a CUDA device".into());
    }
    let timing = |err| Timing {
        times: times.clone(),
        err,
        loop_s,
        vendor,
    };
    let n: usize = a.length.iter().product();
    let max_prime = a
        .length
        .iter()
        .map(|&l| {
            rocm_fft::plan::prime_factors(l)
                .last()
                .copied()
                .unwrap_or(1)
        })
        .max()
        .unwrap_or(1);
    if max_prime > 1000 || n > 1 << 22 {
        return Ok(timing(None));
    }
    // Error of batch 0 (contiguous default layouts) against the f64 reference.
    let out = first_out.unwrap_or_default();
    let il = plan.input_layout().clone();
    let ol = plan.output_layout().clone();
    let mut c_lens = a.length.clone();
    if kind.is_real() {
        c_lens[0] = a.length[0] / 2 + 1;
    }
    let idx = |l: &rocm_fft::Layout, lens: &[usize], mut e: usize| {
        let mut off = l.offset;
        for (d, &len) in lens.iter().enumerate() {
            off += (e % len) * l.strides[d];
            e /= len;
        }
        off
    };
    let q = |v: f64| S::put(&[v]).map_or(v, |p| S::take(&p)[0]);
    let in_lens = if in_real {
        a.length.clone()
    } else {
        c_lens.clone()
    };
    let out_lens = if out_real {
        a.length.clone()
    } else {
        c_lens.clone()
    };
    let x: Vec<Complex64> = (0..in_lens.iter().product())
        .map(|e| {
            let i = idx(&il, &in_lens, e);
            if in_real {
                Complex64::new(q(host[i]), 0.0)
            } else {
                Complex64::new(q(host[2 * i]), q(host[2 * i + 1]))
            }
        })
        .collect();
    // f64 plans against a double-double reference (an f64 one would be as inexact).
    let dd = std::mem::size_of::<S>() == 8;
    let want: Vec<Complex64> = match kind {
        TransformType::ComplexForward | TransformType::ComplexInverse => {
            transform_nd(&x, &a.length, kind.is_forward(), dd)
        }
        TransformType::RealForward => {
            let full = transform_nd(&x, &a.length, true, dd);
            (0..c_lens.iter().product())
                .map(|e| full[e % c_lens[0] + a.length[0] * (e / c_lens[0])])
                .collect()
        }
        TransformType::RealInverse => {
            if a.length.len() > 1 {
                return Ok(timing(None));
            }
            rocm_fft::reference::real_inverse(&x, a.length[0], dd)
                .into_iter()
                .map(|v| Complex64::new(v, 0.0))
                .collect()
        }
    };
    let got: Vec<Complex64> = (0..out_lens.iter().product())
        .map(|e| {
            let i = idx(&ol, &out_lens, e);
            if out_real {
                Complex64::new(out[i], 0.0)
            } else {
                Complex64::new(out[2 * i], out[2 * i + 1])
            }
        })
        .collect();
    Ok(timing(Some(rel_l2(&got, &want))))
}

/// cuFFT on `input` into a buffer of its own: its mean time and the relative L2
/// difference of its result from ours (`ours`, the plan's output).
fn vendor_peer<S: Num>(
    plan: &Plan,
    dev: &Device,
    a: &FftArgs,
    kind: TransformType,
    input: &DeviceBuffer<S>,
    ours: &DeviceBuffer<S>,
) -> Result<(f64, f64), Box<dyn std::error::Error>> {
    let contiguous = |l: &rocm_fft::Layout| l.offset == 0 && l.strides == [1];
    if kind.is_real()
        || a.length.len() != 1
        || !contiguous(plan.input_layout())
        || !contiguous(plan.output_layout())
    {
        return Err("--vendor compares contiguous 1-D c2c transforms".into());
    }
    let theirs = DeviceBuffer::<S>::zeros(dev, ours.len())?;
    let call = crate::vendor_fft::Call {
        n: a.length[0],
        batch: a.batch,
        f64: std::mem::size_of::<S>() == 8,
        forward: kind.is_forward(),
        input: input.address(),
        output: theirs.address(),
    };
    let t = crate::vendor_fft::time(dev, &call, a.ntrial.max(1) as u32)?;
    let c = |v: Vec<f64>| -> Vec<Complex64> {
        v.chunks_exact(2)
            .map(|p| Complex64::new(p[0], p[1]))
            .collect()
    };
    let diff = rel_l2(&c(S::take(&ours.to_vec()?)), &c(S::take(&theirs.to_vec()?)));
    Ok((t, diff))
}

#[cfg(test)]
mod quick_tests {
    #[test]
    fn the_suite_section_passes() {
        super::quick().unwrap();
    }
}
