//! Shared helpers: run a plan on host data, references, rustfft as the peer.

#![allow(dead_code)]

use num_complex::Complex;
use rand::{Rng, SeedableRng};
use rocm_core::{Complex32, Complex64, Device, DeviceBuffer};
use rocm_fft::reference::{fft_dd, fft_f64, real_forward, real_inverse, rel_l2, transform_nd};
use rocm_fft::{Layout, Placement, PlanBuilder, Precision, TransformType};

pub type C64 = Complex<f64>;

pub fn rng(seed: u64) -> rand::rngs::StdRng {
    rand::rngs::StdRng::seed_from_u64(seed)
}

/// Uniform in [−0.5, 0.5), as benchFFT does.
pub fn random_c(n: usize, seed: u64) -> Vec<C64> {
    let mut r = rng(seed);
    (0..n)
        .map(|_| C64::new(r.random::<f64>() - 0.5, r.random::<f64>() - 0.5))
        .collect()
}

pub fn random_r(n: usize, seed: u64) -> Vec<f64> {
    let mut r = rng(seed);
    (0..n).map(|_| r.random::<f64>() - 0.5).collect()
}

/// Rounds to f32 and back (the exact input an f32 plan sees).
pub fn round32(x: &[C64]) -> Vec<C64> {
    x.iter()
        .map(|z| C64::new(z.re as f32 as f64, z.im as f32 as f64))
        .collect()
}

pub fn eps(p: Precision) -> f64 {
    p.compute_eps()
}

/// The bound: c·ε·√max(1, log2 N), c = 4 (smooth) or 16 (Bluestein).
pub fn bound(p: Precision, n: usize, bluestein: bool) -> f64 {
    let c = if bluestein { 16.0 } else { 4.0 };
    c * eps(p) * (n as f64).log2().max(1.0).sqrt()
}

/// Runs a contiguous 1-D/N-D c2c plan (batch 1, out of place) in f32 or f64.
pub fn c2c(lens: &[usize], x: &[C64], forward: bool, p: Precision) -> (Vec<C64>, bool) {
    let dev = Device::cpu();
    let kind = if forward {
        TransformType::ComplexForward
    } else {
        TransformType::ComplexInverse
    };
    let plan = PlanBuilder::new(kind, lens)
        .precision(p)
        .build(&dev)
        .unwrap();
    let blue = plan.tree().uses_convolution();
    let out = match p {
        Precision::F64 => {
            let xi: Vec<Complex64> = x.to_vec();
            let b = DeviceBuffer::from_slice(&dev, &xi).unwrap();
            let mut o = DeviceBuffer::<Complex64>::zeros(&dev, x.len()).unwrap();
            plan.execute(
                dev.default_stream(),
                &b.as_slice(),
                &mut o.as_slice_mut(),
                None,
            )
            .unwrap();
            o.to_vec().unwrap()
        }
        _ => {
            let xi: Vec<Complex32> = x
                .iter()
                .map(|z| Complex32::new(z.re as f32, z.im as f32))
                .collect();
            let b = DeviceBuffer::from_slice(&dev, &xi).unwrap();
            let mut o = DeviceBuffer::<Complex32>::zeros(&dev, x.len()).unwrap();
            plan.execute(
                dev.default_stream(),
                &b.as_slice(),
                &mut o.as_slice_mut(),
                None,
            )
            .unwrap();
            o.to_vec()
                .unwrap()
                .iter()
                .map(|z| C64::new(z.re as f64, z.im as f64))
                .collect()
        }
    };
    (out, blue)
}

/// rustfft's c2c result on the same input, per axis for N-D.
pub fn rustfft_c2c(lens: &[usize], x: &[C64], forward: bool, p: Precision) -> Vec<C64> {
    fn go<T: rustfft::FftNum>(lens: &[usize], x: &mut [Complex<T>], forward: bool) {
        let mut planner = rustfft::FftPlanner::<T>::new();
        let total: usize = lens.iter().product();
        let mut stride = 1;
        for &len in lens {
            let f = if forward {
                planner.plan_fft_forward(len)
            } else {
                planner.plan_fft_inverse(len)
            };
            let block = len * stride;
            let mut line = vec![Complex::new(T::zero(), T::zero()); len];
            for b in 0..total / block {
                for i in 0..stride {
                    for j in 0..len {
                        line[j] = x[b * block + j * stride + i];
                    }
                    f.process(&mut line);
                    for j in 0..len {
                        x[b * block + j * stride + i] = line[j];
                    }
                }
            }
            stride *= len;
        }
    }
    match p {
        Precision::F64 => {
            let mut v = x.to_vec();
            go(lens, &mut v, forward);
            v
        }
        _ => {
            let mut v: Vec<Complex<f32>> = x
                .iter()
                .map(|z| Complex::new(z.re as f32, z.im as f32))
                .collect();
            go(lens, &mut v, forward);
            v.iter()
                .map(|z| C64::new(z.re as f64, z.im as f64))
                .collect()
        }
    }
}

/// The reference for a precision: f64 recursion for f32 plans, double-double for f64.
pub fn reference_c2c(lens: &[usize], x: &[C64], forward: bool, p: Precision) -> Vec<C64> {
    let dd = p == Precision::F64;
    if lens.len() == 1 {
        if dd {
            fft_dd(x, forward)
        } else {
            fft_f64(x, forward)
        }
    } else {
        transform_nd(x, lens, forward, dd)
    }
}

/// How many random inputs each error is averaged over (root mean square), so the ratio
/// to rustfft's error measures the algorithms rather than one draw.
pub const DRAWS: u64 = 8;

fn rms(f: impl Fn(u64) -> (f64, f64, bool)) -> (f64, f64, bool) {
    let (mut a, mut b, mut blue) = (0.0, 0.0, false);
    for d in 0..DRAWS {
        let (x, y, bl) = f(d);
        a += x * x;
        b += y * y;
        blue = bl;
    }
    ((a / DRAWS as f64).sqrt(), (b / DRAWS as f64).sqrt(), blue)
}

/// Error of ours and of rustfft against the reference, for c2c on contiguous data
/// (root mean square over [`DRAWS`] inputs).
pub fn c2c_errors(lens: &[usize], seed: u64, forward: bool, p: Precision) -> (f64, f64, bool) {
    rms(|d| c2c_errors1(lens, seed * 1000 + d, forward, p))
}

/// [`real_errors1`] averaged over [`DRAWS`] inputs.
pub fn real_errors(n: usize, seed: u64, forward: bool, p: Precision) -> (f64, f64, bool) {
    rms(|d| real_errors1(n, seed * 1000 + d, forward, p))
}

fn c2c_errors1(lens: &[usize], seed: u64, forward: bool, p: Precision) -> (f64, f64, bool) {
    let total: usize = lens.iter().product();
    let x = random_c(total, seed);
    let x = if p == Precision::F64 { x } else { round32(&x) };
    let (ours, blue) = c2c(lens, &x, forward, p);
    let refv = reference_c2c(lens, &x, forward, p);
    let peer = rustfft_c2c(lens, &x, forward, p);
    (rel_l2(&ours, &refv), rel_l2(&peer, &refv), blue)
}

/// Asserts the acceptance rule: ours <= 1.5x rustfft's error (with a floor of ε/2 so that
/// two exact results compare equal) and below the bound.
pub fn check(what: &str, ours: f64, peer: f64, p: Precision, n: usize, blue: bool) {
    let b = bound(p, n, blue);
    assert!(
        ours <= b,
        "{what}: error {ours:.3e} above bound {b:.3e} (rustfft {peer:.3e})"
    );
    assert!(
        ours <= 1.5 * peer.max(eps(p) / 2.0),
        "{what}: error {ours:.3e} more than 1.5x rustfft's {peer:.3e}"
    );
}

/// r2c (forward) or c2r (inverse) of one contiguous line in f32/f64; errors of ours and
/// of rustfft (complex transform of the same data) against the reference.
pub fn real_errors1(n: usize, seed: u64, forward: bool, p: Precision) -> (f64, f64, bool) {
    let dev = Device::cpu();
    let h = n / 2 + 1;
    let dd = p == Precision::F64;
    let r = |v: f64| if dd { v } else { v as f32 as f64 };
    let kind = if forward {
        TransformType::RealForward
    } else {
        TransformType::RealInverse
    };
    let plan = PlanBuilder::new(kind, &[n])
        .precision(p)
        .build(&dev)
        .unwrap();
    let blue = plan.tree().uses_convolution();
    if forward {
        let x: Vec<f64> = random_r(n, seed).into_iter().map(r).collect();
        let refv = real_forward(&x, dd);
        let ours: Vec<C64> = if dd {
            let b = DeviceBuffer::from_slice(&dev, &x).unwrap();
            let mut o = DeviceBuffer::<Complex64>::zeros(&dev, h).unwrap();
            plan.execute(
                dev.default_stream(),
                &b.as_slice(),
                &mut o.as_slice_mut(),
                None,
            )
            .unwrap();
            o.to_vec().unwrap()
        } else {
            let xf: Vec<f32> = x.iter().map(|&v| v as f32).collect();
            let b = DeviceBuffer::from_slice(&dev, &xf).unwrap();
            let mut o = DeviceBuffer::<Complex32>::zeros(&dev, h).unwrap();
            plan.execute(
                dev.default_stream(),
                &b.as_slice(),
                &mut o.as_slice_mut(),
                None,
            )
            .unwrap();
            o.to_vec()
                .unwrap()
                .iter()
                .map(|z| C64::new(z.re as f64, z.im as f64))
                .collect()
        };
        let xc: Vec<C64> = x.iter().map(|&v| C64::new(v, 0.0)).collect();
        let peer = rustfft_c2c(&[n], &xc, true, p);
        (rel_l2(&ours, &refv), rel_l2(&peer[..h], &refv), blue)
    } else {
        let mut hx: Vec<C64> = random_c(h, seed)
            .into_iter()
            .map(|z| C64::new(r(z.re), r(z.im)))
            .collect();
        hx[0].im = 0.0;
        if n % 2 == 0 {
            hx[h - 1].im = 0.0;
        }
        let refv: Vec<C64> = real_inverse(&hx, n, dd)
            .into_iter()
            .map(|v| C64::new(v, 0.0))
            .collect();
        let ours: Vec<C64> = if dd {
            let b = DeviceBuffer::from_slice(&dev, &hx).unwrap();
            let mut o = DeviceBuffer::<f64>::zeros(&dev, n).unwrap();
            plan.execute(
                dev.default_stream(),
                &b.as_slice(),
                &mut o.as_slice_mut(),
                None,
            )
            .unwrap();
            o.to_vec()
                .unwrap()
                .iter()
                .map(|&v| C64::new(v, 0.0))
                .collect()
        } else {
            let hf: Vec<Complex32> = hx
                .iter()
                .map(|z| Complex32::new(z.re as f32, z.im as f32))
                .collect();
            let b = DeviceBuffer::from_slice(&dev, &hf).unwrap();
            let mut o = DeviceBuffer::<f32>::zeros(&dev, n).unwrap();
            plan.execute(
                dev.default_stream(),
                &b.as_slice(),
                &mut o.as_slice_mut(),
                None,
            )
            .unwrap();
            o.to_vec()
                .unwrap()
                .iter()
                .map(|&v| C64::new(v as f64, 0.0))
                .collect()
        };
        let full: Vec<C64> = (0..n)
            .map(|k| if k < h { hx[k] } else { hx[n - k].conj() })
            .collect();
        let peer: Vec<C64> = rustfft_c2c(&[n], &full, false, p)
            .into_iter()
            .map(|z| C64::new(z.re, 0.0))
            .collect();
        (rel_l2(&ours, &refv), rel_l2(&peer, &refv), blue)
    }
}

/// Scalars a layout test can store (f32 or f64), with conversions.
pub trait Scalar: rocm_core::Element {
    const P: Precision;
    fn of(x: f64) -> Self;
    fn get(self) -> f64;
}
impl Scalar for f32 {
    const P: Precision = Precision::F32;
    fn of(x: f64) -> Self {
        x as f32
    }
    fn get(self) -> f64 {
        self as f64
    }
}
impl Scalar for f64 {
    const P: Precision = Precision::F64;
    fn of(x: f64) -> Self {
        x
    }
    fn get(self) -> f64 {
        self
    }
}

/// Builds a strided/batched plan, runs it on random data (random background too, to
/// catch accesses outside the layout) and returns the worst relative L2 error of any
/// batch against the reference; build and execution errors are returned.
#[allow(clippy::too_many_arguments)]
pub fn layout_case<S: Scalar>(
    kind: TransformType,
    lens: &[usize],
    batch: usize,
    inl: Option<Layout>,
    outl: Option<Layout>,
    placement: Placement,
    seed: u64,
) -> Result<f64, rocm_core::Error> {
    let dev = Device::cpu();
    let p = S::P;
    let mut builder = PlanBuilder::new(kind, lens)
        .batch(batch)
        .precision(p)
        .placement(placement);
    if let Some(l) = inl {
        builder = builder.input_layout(l);
    }
    if let Some(l) = outl {
        builder = builder.output_layout(l);
    }
    let plan = builder.build(&dev)?;
    let (il, ol) = (plan.input_layout().clone(), plan.output_layout().clone());
    let mut c_lens = lens.to_vec();
    if kind.is_real() {
        c_lens[0] = lens[0] / 2 + 1;
    }
    let in_real = kind == TransformType::RealForward;
    let out_real = kind == TransformType::RealInverse;
    let in_lens = if in_real {
        lens.to_vec()
    } else {
        c_lens.clone()
    };
    let out_lens = if out_real {
        lens.to_vec()
    } else {
        c_lens.clone()
    };
    let per = |l: &[usize]| l.iter().product::<usize>();
    let in_scal = plan.input_elements() * if in_real { 1 } else { 2 };
    let out_scal = plan.output_elements() * if out_real { 1 } else { 2 };
    let mut r = rng(seed);
    let size = if placement == Placement::InPlace {
        in_scal.max(out_scal)
    } else {
        in_scal
    };
    let buf: Vec<S> = (0..size).map(|_| S::of(r.random::<f64>() - 0.5)).collect();
    let index = |l: &Layout, lens: &[usize], b: usize, mut e: usize| {
        let mut off = l.offset + b * l.distance;
        for (&len, &stride) in lens.iter().zip(&l.strides) {
            off += (e % len) * stride;
            e /= len;
        }
        off
    };
    let inputs: Vec<Vec<C64>> = (0..batch)
        .map(|b| {
            (0..per(&in_lens))
                .map(|e| {
                    let i = index(&il, &in_lens, b, e);
                    if in_real {
                        C64::new(buf[i].get(), 0.0)
                    } else {
                        C64::new(buf[2 * i].get(), buf[2 * i + 1].get())
                    }
                })
                .collect()
        })
        .collect();
    let out: Vec<S> = match placement {
        Placement::InPlace => {
            let mut b = DeviceBuffer::from_slice(&dev, &buf)?;
            plan.execute_in_place(dev.default_stream(), &mut b.as_slice_mut(), None)?;
            b.to_vec()?
        }
        Placement::NotInPlace => {
            let b = DeviceBuffer::from_slice(&dev, &buf)?;
            let mut o = DeviceBuffer::from_slice(&dev, &vec![S::of(7.0); out_scal])?;
            plan.execute(
                dev.default_stream(),
                &b.as_slice(),
                &mut o.as_slice_mut(),
                None,
            )?;
            o.to_vec()?
        }
    };
    let dd = p == Precision::F64;
    let mut worst = 0.0f64;
    for (b, x) in inputs.iter().enumerate() {
        let want = nd_reference(kind, lens, &c_lens, x, dd);
        let got: Vec<C64> = (0..per(&out_lens))
            .map(|e| {
                let i = index(&ol, &out_lens, b, e);
                if out_real {
                    C64::new(out[i].get(), 0.0)
                } else {
                    C64::new(out[2 * i].get(), out[2 * i + 1].get())
                }
            })
            .collect();
        worst = worst.max(rel_l2(&got, &want));
    }
    Ok(worst)
}

/// The reference of any kind on contiguous logical data.
pub fn nd_reference(
    kind: TransformType,
    lens: &[usize],
    c_lens: &[usize],
    x: &[C64],
    dd: bool,
) -> Vec<C64> {
    let per = |l: &[usize]| l.iter().product::<usize>();
    match kind {
        TransformType::ComplexForward | TransformType::ComplexInverse => {
            transform_nd(x, lens, kind.is_forward(), dd)
        }
        TransformType::RealForward => {
            let full = transform_nd(x, lens, true, dd);
            (0..per(c_lens))
                .map(|e| full[e % c_lens[0] + lens[0] * (e / c_lens[0])])
                .collect()
        }
        TransformType::RealInverse => {
            // Backward along the complex axes 1.., then c2r along axis 0.
            let mut t = x.to_vec();
            let mut stride = c_lens[0];
            for &len in &c_lens[1..] {
                let block = len * stride;
                for bb in 0..t.len() / block {
                    for i in 0..stride {
                        let line: Vec<C64> =
                            (0..len).map(|j| t[bb * block + j * stride + i]).collect();
                        let y = if dd {
                            fft_dd(&line, false)
                        } else {
                            fft_f64(&line, false)
                        };
                        for (j, v) in y.into_iter().enumerate() {
                            t[bb * block + j * stride + i] = v;
                        }
                    }
                }
                stride *= len;
            }
            t.chunks(c_lens[0])
                .flat_map(|line| real_inverse(line, lens[0], dd))
                .map(|v| C64::new(v, 0.0))
                .collect()
        }
    }
}

/// Runs a batched contiguous c2c plan on `x` (rounded to the plan's precision).
pub fn run_batched(plan: &rocm_fft::Plan, x: &[C64], p: Precision, in_place: bool) -> Vec<C64> {
    let dev = Device::cpu();
    let s = dev.default_stream();
    macro_rules! go {
        ($t:ty, $r:ty) => {{
            let xi: Vec<$t> = x
                .iter()
                .map(|z| <$t>::new(z.re as $r, z.im as $r))
                .collect();
            let mut o = DeviceBuffer::from_slice(&dev, &xi).unwrap();
            if in_place {
                plan.execute_in_place(s, &mut o.as_slice_mut(), None)
                    .unwrap();
            } else {
                let i = DeviceBuffer::from_slice(&dev, &xi).unwrap();
                plan.execute(s, &i.as_slice(), &mut o.as_slice_mut(), None)
                    .unwrap();
            }
            o.to_vec()
                .unwrap()
                .iter()
                .map(|z| C64::new(z.re as f64, z.im as f64))
                .collect()
        }};
    }
    match p {
        Precision::F64 => go!(Complex64, f64),
        _ => go!(Complex32, f32),
    }
}

/// Runs a batched contiguous c2c plan of `batch` transforms of `n` on `x` (already in
/// the plan's precision) and returns the root mean square over the transforms of ours
/// and rustfft's relative L2 errors against the reference.
pub fn batched_errors(
    plan: &rocm_fft::Plan,
    x: &[C64],
    n: usize,
    batch: usize,
    forward: bool,
    p: Precision,
    in_place: bool,
) -> (f64, f64) {
    let y = run_batched(plan, x, p, in_place);
    let (mut ours, mut peer) = (0.0, 0.0);
    for b in 0..batch {
        let xb = &x[b * n..][..n];
        let want = reference_c2c(&[n], xb, forward, p);
        let e = rel_l2(&y[b * n..][..n], &want);
        let f = rel_l2(&rustfft_c2c(&[n], xb, forward, p), &want);
        ours += e * e;
        peer += f * f;
    }
    ((ours / batch as f64).sqrt(), (peer / batch as f64).sqrt())
}
