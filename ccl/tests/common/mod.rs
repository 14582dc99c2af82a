//! Shared test helpers: random data per element type, tolerance checks against the
//! sequential reference, and a driver that runs one closure per rank on threads.

#![allow(dead_code)]

use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use rocm_ccl::{reference, Comm, Config, ReduceOp, Reducible};
use rocm_core::{bf16, f16, Complex32, Complex64, DeviceBuffer};

/// Random values that exercise every op without overflow of the float range: magnitudes
/// in [0.5, 2) with random signs, so products of 8 stay far from overflow/underflow.
pub trait Gen: Reducible {
    fn gen(rng: &mut StdRng) -> Self;
    /// Unit roundoff of the type (0 for integers: exact).
    const EPS: f64;
}

fn mag(rng: &mut StdRng) -> f64 {
    let m: f64 = rng.random_range(0.5..2.0);
    if rng.random_bool(0.5) {
        m
    } else {
        -m
    }
}

impl Gen for f32 {
    fn gen(r: &mut StdRng) -> Self {
        mag(r) as f32
    }
    const EPS: f64 = f32::EPSILON as f64 / 2.0;
}
impl Gen for f64 {
    fn gen(r: &mut StdRng) -> Self {
        mag(r)
    }
    const EPS: f64 = f64::EPSILON / 2.0;
}
impl Gen for f16 {
    fn gen(r: &mut StdRng) -> Self {
        f16::from_f64(mag(r))
    }
    const EPS: f64 = 1.0 / 2048.0;
}
impl Gen for bf16 {
    fn gen(r: &mut StdRng) -> Self {
        bf16::from_f64(mag(r))
    }
    const EPS: f64 = 1.0 / 256.0;
}
impl Gen for Complex32 {
    fn gen(r: &mut StdRng) -> Self {
        Complex32::new(mag(r) as f32, mag(r) as f32)
    }
    const EPS: f64 = f32::EPSILON as f64;
}
impl Gen for Complex64 {
    fn gen(r: &mut StdRng) -> Self {
        Complex64::new(mag(r), mag(r))
    }
    const EPS: f64 = f64::EPSILON;
}
macro_rules! gen_int {
    ($($t:ty),*) => {$(
        impl Gen for $t {
            fn gen(r: &mut StdRng) -> Self {
                r.random()
            }
            const EPS: f64 = 0.0;
        }
    )*};
}
gen_int!(i8, u8, i32, u32, i64);

/// Rank `r`'s input of `len` elements for case `seed` (every rank can rebuild all inputs).
pub fn input<T: Gen>(seed: u64, r: usize, len: usize) -> Vec<T> {
    let mut rng = StdRng::seed_from_u64(seed.wrapping_mul(1000003).wrapping_add(r as u64));
    (0..len).map(|_| T::gen(&mut rng)).collect()
}

pub fn inputs<T: Gen>(seed: u64, n: usize, len: usize) -> Vec<Vec<T>> {
    (0..n).map(|r| input(seed, r, len)).collect()
}

/// Checks `got` against the reduction of `inputs` over ranks, element `i` of `got` being
/// element `offset + i` of the reduction.
///
/// Tolerance: integers and min/max are exact. A sum of n terms rounded after each of its
/// n-1 combines is within (n-1) * u * sum|x_i| of the exact sum (u = unit roundoff; f16/bf16
/// round in f32 then to their own format, so u is theirs); avg adds one rounding of the
/// quotient. A product of n terms is within (n-1) * u relative, i.e. (n-1) * u * prod|x_i|
/// (complex products: 2u per multiply plus the sums: 4u per combine). We allow 2x slack
/// for the final rounding to the element type.
pub fn check_reduced<T: Gen>(
    what: &str,
    inputs: &[Vec<T>],
    offset: usize,
    got: &[T],
    op: ReduceOp,
) {
    let n = inputs.len();
    if T::EPS == 0.0 || matches!(op, ReduceOp::Min | ReduceOp::Max) {
        let want = reference::all_reduce(inputs, op);
        assert!(
            got == &want[offset..offset + got.len()],
            "{what}: {} {op} n={n}: exact mismatch",
            T::DTYPE
        );
        return;
    }
    for (i, g) in got.iter().enumerate() {
        let (re, im) = reference::reduce_f64(inputs, offset + i, op);
        let absum: f64 = inputs
            .iter()
            .map(|x| x[offset + i].to_f64().abs() + x[offset + i].imag_f64().abs())
            .sum();
        let abprod: f64 = inputs
            .iter()
            .map(|x| x[offset + i].to_f64().abs() + x[offset + i].imag_f64().abs())
            .product();
        let per = if T::DTYPE.is_complex() { 4.0 } else { 1.0 };
        let tol = 2.0
            * per
            * T::EPS
            * (n as f64 + 1.0)
            * match op {
                ReduceOp::Prod => abprod,
                _ => absum,
            };
        let err = (g.to_f64() - re).abs() + (g.imag_f64() - im).abs();
        assert!(
            err <= tol,
            "{what}: {} {op} n={n} element {i}: got ({}, {}), want ({re}, {im}), err {err:e} > tol {tol:e}",
            T::DTYPE,
            g.to_f64(),
            g.imag_f64()
        );
    }
}

/// Runs `f(comm)` on one thread per rank and returns the results in rank order.
pub fn on_threads<R: Send>(comms: Vec<Comm>, f: impl Fn(&mut Comm) -> R + Sync) -> Vec<R> {
    std::thread::scope(|s| {
        let f = &f;
        let handles: Vec<_> = comms
            .into_iter()
            .map(|mut c| s.spawn(move || f(&mut c)))
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().expect("rank thread panicked"))
            .collect()
    })
}

pub fn threads(n: usize, config: &Config) -> Vec<Comm> {
    Comm::init_all_with(&vec![rocm_core::Device::cpu(); n], config).expect("init_all")
}

/// A config that forces the ring/chain algorithms and tiny chunks and rings, so that small
/// buffers exercise pipelining, ring wrap-around and split elements.
pub fn tiny_config() -> Config {
    Config {
        ring_bytes: 4096,
        chunk_bytes: 40,
        tree_max_bytes: 0,
        step_bytes: 100,
        direct: false,
        ..Config::default()
    }
}

/// Runs every collective once on this rank for element type `T`, `len` elements per rank
/// (per block for all_gather / reduce_scatter / all_to_all), checking the result; returns
/// the all_reduce outputs as bytes so that callers can check every rank got the same bits.
pub fn all_collectives<T: Gen>(
    comm: &mut Comm,
    seed: u64,
    len: usize,
    ops: &[ReduceOp],
) -> Vec<u8> {
    let (n, r) = (comm.nranks(), comm.rank());
    let dev = comm.device().clone();
    let what = |c: &str| format!("{c} len={len} seed={seed} rank={r}");
    let mut bits = Vec::new();
    for (k, &op) in ops.iter().enumerate() {
        if !op.supports(T::DTYPE) {
            continue;
        }
        let seed = seed + 17 * k as u64;
        let all = inputs::<T>(seed, n, len);
        let x = DeviceBuffer::from_slice(&dev, &all[r]).unwrap();
        // all_reduce, out of place and in place.
        let mut y = DeviceBuffer::<T>::zeros(&dev, len).unwrap();
        comm.all_reduce(&x.as_slice(), &mut y.as_slice_mut(), op)
            .unwrap();
        let got = y.to_vec().unwrap();
        check_reduced(&what("all_reduce"), &all, 0, &got, op);
        bits.extend_from_slice(bytemuck::cast_slice(&got));
        let mut z = DeviceBuffer::from_slice(&dev, &all[r]).unwrap();
        comm.all_reduce_in_place(&mut z.as_slice_mut(), op).unwrap();
        assert!(
            z.to_vec().unwrap() == got,
            "{}",
            what("in-place all_reduce differs")
        );
        // reduce to a root that moves with the op.
        let root = k % n;
        let mut y = DeviceBuffer::<T>::zeros(&dev, len).unwrap();
        let mut yv = y.as_slice_mut();
        comm.reduce(&x.as_slice(), (r == root).then_some(&mut yv), op, root)
            .unwrap();
        if r == root {
            check_reduced(&what("reduce"), &all, 0, &y.to_vec().unwrap(), op);
        }
        // reduce_scatter: every rank contributes n blocks of len.
        let big = inputs::<T>(seed + 5, n, n * len);
        let xb = DeviceBuffer::from_slice(&dev, &big[r]).unwrap();
        let mut y = DeviceBuffer::<T>::zeros(&dev, len).unwrap();
        comm.reduce_scatter(&xb.as_slice(), &mut y.as_slice_mut(), op)
            .unwrap();
        check_reduced(
            &what("reduce_scatter"),
            &big,
            r * len,
            &y.to_vec().unwrap(),
            op,
        );
    }
    // Data movement (op-independent).
    let all = inputs::<T>(seed + 99, n, len);
    let x = DeviceBuffer::from_slice(&dev, &all[r]).unwrap();
    let mut g = DeviceBuffer::<T>::zeros(&dev, n * len).unwrap();
    comm.all_gather(&x.as_slice(), &mut g.as_slice_mut())
        .unwrap();
    assert!(
        g.to_vec().unwrap() == reference::all_gather(&all),
        "{}",
        what("all_gather")
    );
    let root = (seed as usize) % n;
    let mut b = DeviceBuffer::from_slice(&dev, &all[r]).unwrap();
    comm.broadcast(&mut b.as_slice_mut(), root).unwrap();
    assert!(
        b.to_vec().unwrap() == reference::broadcast(&all, root),
        "{}",
        what("broadcast")
    );
    let big = inputs::<T>(seed + 7, n, n * len);
    let xb = DeviceBuffer::from_slice(&dev, &big[r]).unwrap();
    let mut yb = DeviceBuffer::<T>::zeros(&dev, n * len).unwrap();
    comm.all_to_all(&xb.as_slice(), &mut yb.as_slice_mut())
        .unwrap();
    assert!(
        yb.to_vec().unwrap() == reference::all_to_all(&big, r),
        "{}",
        what("all_to_all")
    );
    // send/recv around the ring (grouped, so that it cannot deadlock).
    if n > 1 {
        let mut y = DeviceBuffer::<T>::zeros(&dev, len).unwrap();
        let mut yv = y.as_slice_mut();
        let xs = x.as_slice();
        let mut grp = comm.group_start();
        grp.send(&xs, (r + 1) % n).unwrap();
        grp.recv(&mut yv, (r + n - 1) % n).unwrap();
        grp.end().unwrap();
        assert!(
            y.to_vec().unwrap() == all[(r + n - 1) % n],
            "{}",
            what("send/recv")
        );
    }
    bits
}

pub fn every_dtype(comm: &mut Comm, seed: u64, len: usize, ops: &[ReduceOp]) -> Vec<u8> {
    let mut bits = all_collectives::<f32>(comm, seed, len, ops);
    bits.extend(all_collectives::<f64>(comm, seed, len, ops));
    bits.extend(all_collectives::<f16>(comm, seed, len, ops));
    bits.extend(all_collectives::<bf16>(comm, seed, len, ops));
    bits.extend(all_collectives::<i32>(comm, seed, len, ops));
    bits.extend(all_collectives::<i64>(comm, seed, len, ops));
    bits.extend(all_collectives::<u8>(comm, seed, len, ops));
    bits.extend(all_collectives::<i8>(comm, seed, len, ops));
    bits.extend(all_collectives::<u32>(comm, seed, len, ops));
    bits.extend(all_collectives::<Complex32>(comm, seed, len, ops));
    bits.extend(all_collectives::<Complex64>(comm, seed, len, ops));
    bits
}
