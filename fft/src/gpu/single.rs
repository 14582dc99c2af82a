//! The single-kernel transform ("single upload"): a workgroup holds whole transforms
//! in shared memory/LDS and runs every Stockham pass on them between one coalesced load
//! and one coalesced store.
//!
//! `transforms` transforms share a workgroup of `transforms · threads` work-items;
//! work-item `l` of transform `g` runs butterflies `j = l, l + threads, …` of each pass.
//! A pass of radix `R` at stride `Ns` (the product of the earlier radices) reads
//! `x[j + i·n/R]` (`i < R`), multiplies input `i` by `ω_{Ns·R}^{i·(j mod Ns)}`, takes the
//! length-`R` DFT in registers ([`super::butterfly`]) and writes output `i` to
//! `(j div Ns)·Ns·R + j mod Ns + i·Ns` (Stockham's self-sorting order, so the result is
//! in natural order). The first pass reads global memory and the last writes it (both
//! at consecutive `j` on consecutive work-items: coalesced for unit strides); passes in
//! between go through shared memory, every work-item reading all its inputs, a barrier,
//! then the writes and a barrier, so one shared array of `transforms · n` complex values
//! suffices.
//!
//! Twiddles come from a table of `ω_n^e` (`e < n`, the plan's direction) computed on
//! the host in `f64` and rounded once ([`twiddle_table`]), so no device evaluates a sine
//! and every device uses the same bits. Work-items of a transform past the batch, and
//! butterflies past a pass's count, read clamped (in-bounds) elements and skip their
//! stores, so barriers stay in uniform control flow.

use super::butterfly::{self, C};
use rocm_core::{Error, Result, Target};
use rocm_kernels::generator::{Generator, LaunchRule, Program};
use rocm_kernels::lang::{self, Access, Buf, Builder, KernelDef, Scalar, Type, Value};
use serde::{Deserialize, Serialize};

/// Kernel name.
pub const KERNEL: &str = "fft_single";
/// Radices a pass may use: products of the primes the butterflies handle, up to 16.
pub const MAX_RADIX: usize = 16;
const PRIMES: [usize; 6] = [2, 3, 5, 7, 11, 13];
/// Work-items per workgroup the shape aims for.
const WORKGROUP: usize = 256;
/// Static shared memory a PTX kernel may declare (larger needs the dynamic opt-in).
const PTX_STATIC_SHARED: u32 = 48 * 1024;

/// The compute (and storage) type of a GPU transform.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Real {
    F32,
    F64,
}

impl Real {
    pub fn scalar(self) -> Scalar {
        match self {
            Real::F32 => Scalar::F32,
            Real::F64 => Scalar::F64,
        }
    }

    /// Bytes of one complex value.
    pub fn complex_bytes(self) -> usize {
        match self {
            Real::F32 => 8,
            Real::F64 => 16,
        }
    }
}

/// One variant of the single-kernel transform.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct SingleParams {
    /// Transform length.
    pub n: u32,
    /// Pass radices in order; their product is `n` (`[1]` for `n = 1`).
    pub radices: Vec<u32>,
    pub real: Real,
    pub forward: bool,
    /// Work-items per transform.
    pub threads: u32,
    /// Transforms per workgroup.
    pub transforms: u32,
    /// One read-write `data` pointer instead of `input` and `output`.
    pub in_place: bool,
}

impl SingleParams {
    pub fn workgroup_size(&self) -> u32 {
        self.threads * self.transforms
    }

    /// Shared bytes the kernel declares (none for a single pass).
    pub fn shared_bytes(&self) -> usize {
        if self.radices.len() > 1 {
            self.transforms as usize * self.n as usize * self.real.complex_bytes()
        } else {
            0
        }
    }

    /// Whether the kernel reads a twiddle table (any pass after the first).
    pub fn uses_twiddles(&self) -> bool {
        self.radices.len() > 1
    }
}

/// The largest shared array a kernel for `target` may declare.
pub fn shared_limit(target: &Target) -> usize {
    let caps = target.caps();
    let lds = caps.lds_bytes_per_workgroup;
    let limit = if caps.kernel_isa == rocm_core::KernelIsa::Ptx {
        lds.min(PTX_STATIC_SHARED)
    } else {
        lds
    };
    limit as usize
}

/// Whether `r` is a radix the butterflies handle.
fn is_radix(r: usize) -> bool {
    let mut m = r;
    for p in PRIMES {
        while m % p == 0 {
            m /= p;
        }
    }
    (2..=MAX_RADIX).contains(&r) && m == 1
}

/// Radices for `n`: the fewest passes, then the smallest largest radix, then the
/// largest smallest one (balanced passes); `None` when `n` has a prime factor above 13.
pub fn radices(n: usize) -> Option<Vec<usize>> {
    fn search(n: usize, max: usize, cur: &mut Vec<usize>, best: &mut Option<Vec<usize>>) {
        if n == 1 {
            let key = |v: &[usize]| {
                (
                    v.len(),
                    v.iter().max().copied().unwrap_or(0),
                    usize::MAX - v.iter().min().copied().unwrap_or(0),
                )
            };
            if best.as_ref().is_none_or(|b| key(cur) < key(b)) {
                *best = Some(cur.clone());
            }
            return;
        }
        if best.as_ref().is_some_and(|b| cur.len() + 1 > b.len()) {
            return;
        }
        // Radices in non-increasing order, so each multiset is visited once.
        for r in (2..=max.min(n)).rev() {
            if n % r == 0 && is_radix(r) {
                cur.push(r);
                search(n / r, r, cur, best);
                cur.pop();
            }
        }
    }
    if n == 1 {
        return Some(vec![1]);
    }
    let mut best = None;
    search(n, MAX_RADIX, &mut Vec::new(), &mut best);
    best
}

/// The variant for a transform of length `n` on `target`, or `None` when `n` is not a
/// product of radices or does not fit in the target's shared memory.
pub fn shape(
    n: usize,
    real: Real,
    forward: bool,
    in_place: bool,
    target: &Target,
) -> Option<SingleParams> {
    let radices = radices(n)?;
    let min_butterflies = radices.iter().map(|r| n / r).min()?;
    let threads = min_butterflies.clamp(1, WORKGROUP);
    let shared = shared_limit(target);
    let per_transform = if radices.len() > 1 {
        n * real.complex_bytes()
    } else {
        0
    };
    if per_transform > shared {
        return None;
    }
    let mut transforms = (WORKGROUP / threads).max(1);
    // Several transforms a workgroup only up to half the shared memory, so two
    // workgroups stay resident where one transform allows it.
    if let Some(fit) = (shared / 2).max(per_transform).checked_div(per_transform) {
        transforms = transforms.min(fit).max(1);
    }
    Some(SingleParams {
        n: n as u32,
        radices: radices.iter().map(|&r| r as u32).collect(),
        real,
        forward,
        threads: threads as u32,
        transforms: transforms as u32,
        in_place,
    })
}

/// `ω_n^e` for `e < n` in the direction's sign, interleaved (re, im), rounded once from
/// `f64` by `round`.
pub fn twiddle_table<T>(n: usize, forward: bool, round: impl Fn(f64) -> T) -> Vec<T> {
    (0..n as u64)
        .flat_map(|e| {
            let w = crate::twiddle::root_dir(e, n as u64, forward);
            [round(w.re), round(w.im)]
        })
        .collect()
}

/// The generator of [`SingleParams`] kernels.
pub struct FftSingle;

impl Generator for FftSingle {
    type Params = SingleParams;
    const NAME: &'static str = "fft_single";
    const VERSION: u32 = 1;

    fn generate(p: &SingleParams, target: &Target) -> Result<Program> {
        let def = kernel(p, target)?;
        let launch = LaunchRule::Cover {
            block: p.workgroup_size(),
            units_per_item: 1,
        };
        lang::program(&[def], launch)
    }
}

/// The address of complex element `index` of a global buffer of scalars (u64 bytes).
fn complex_at(k: &mut Builder, buf: Buf, index: Value) -> Value {
    let scalar = k.mul(index, 2u32);
    k.at(buf, scalar)
}

fn load_c(k: &mut Builder, buf: Buf, offset: Value) -> C {
    let v = k.load_vec(buf, offset, 2);
    C {
        re: k.extract(v, 0),
        im: k.extract(v, 1),
    }
}

fn store_c(k: &mut Builder, buf: Buf, offset: Value, c: C) {
    let v = k.pack(&[c.re, c.im]);
    k.store(buf, offset, v);
}

/// `x / d` and `x mod d` for a constant `d` (shifts for powers of two).
fn div_rem(k: &mut Builder, x: Value, d: usize) -> (Value, Value) {
    if d == 1 {
        let zero = k.lit(0u32);
        return (x, zero);
    }
    if d.is_power_of_two() {
        (k.shr(x, d.trailing_zeros()), k.and(x, (d - 1) as u32))
    } else {
        (k.div(x, d as u32), k.rem(x, d as u32))
    }
}

/// The kernel for `p` on `target`. Parameters, in order: `input` (read) and `output`
/// (write), or `data` (read-write) in place; `twiddles` (read, when there are two or
/// more passes); `batch`; `in_offset`, `in_stride`, `in_distance`, `out_offset`,
/// `out_stride`, `out_distance` (u32, in complex elements); `scale` (the compute type).
pub fn kernel(p: &SingleParams, target: &Target) -> Result<KernelDef> {
    let n = p.n as usize;
    let product: usize = p.radices.iter().map(|&r| r as usize).product();
    if n == 0 || product != n || p.threads == 0 || p.transforms == 0 {
        return Err(Error::invalid(
            "fft_single params",
            format!(
                "length {n} with radices {:?}, {} threads x {} transforms",
                p.radices, p.threads, p.transforms
            ),
        ));
    }
    if p.shared_bytes() > shared_limit(target) {
        return Err(Error::invalid(
            "fft_single params",
            format!(
                "{} bytes of shared memory, {target} allows {}",
                p.shared_bytes(),
                shared_limit(target)
            ),
        ));
    }
    let s = p.real.scalar();
    let ty = Type::of(s);
    let (w, t) = (p.threads as usize, p.transforms as usize);
    let mut k = Builder::new(KERNEL, target)?;
    k.max_workgroup_size(p.workgroup_size());
    let (input, output) = if p.in_place {
        let d = k.ptr("data", s, Access::ReadWrite);
        (d, d)
    } else {
        (
            k.ptr("input", s, Access::Read),
            k.ptr("output", s, Access::Write),
        )
    };
    let twiddles = p
        .uses_twiddles()
        .then(|| k.ptr("twiddles", s, Access::Read));
    let batch = k.param("batch", Scalar::U32);
    let [in_offset, in_stride, in_distance, out_offset, out_stride, out_distance] = [
        "in_offset",
        "in_stride",
        "in_distance",
        "out_offset",
        "out_stride",
        "out_distance",
    ]
    .map(|name| k.param(name, Scalar::U32));
    let scale = k.param("scale", s);
    let shared = (p.radices.len() > 1).then(|| k.shared("lines", s, (2 * t * n) as u32));

    let tid = k.thread_id();
    let (g, l) = div_rem(&mut k, tid, w);
    let wg = k.workgroup_id();
    let b = k.fma(wg, t as u32, g);
    let valid = k.lt(b, batch);
    let last_batch = k.sub(batch, 1u32);
    let bc = k.min(b, last_batch);
    let in_base = k.fma(bc, in_distance, in_offset);
    let out_base = k.fma(b, out_distance, out_offset);
    let line = k.mul(g, n as u32);

    let passes = p.radices.len();
    let mut ns = 1usize;
    for (pass, &r) in p.radices.iter().enumerate() {
        let r = r as usize;
        let m = n / r;
        let iters = m.div_ceil(w);
        let first = pass == 0;
        let last = pass + 1 == passes;
        // Read phase: every butterfly of this work-item, results kept in registers.
        let mut results = Vec::with_capacity(iters);
        for u in 0..iters {
            let j = k.add(l, (u * w) as u32);
            let (jc, inside) = if (u + 1) * w > m {
                (k.min(j, (m - 1) as u32), Some(k.lt(j, m as u32)))
            } else {
                (j, None)
            };
            let (_, jmod) = div_rem(&mut k, jc, ns);
            let mut x = Vec::with_capacity(r);
            for i in 0..r {
                let idx = k.add(jc, (i * m) as u32);
                let v = if first {
                    let e = k.fma(idx, in_stride, in_base);
                    let off = complex_at(&mut k, input, e);
                    load_c(&mut k, input, off)
                } else {
                    let buf = shared.expect("a shared array for two or more passes");
                    let e = k.add(line, idx);
                    let off = complex_at(&mut k, buf, e);
                    load_c(&mut k, buf, off)
                };
                let v = if ns > 1 && i > 0 {
                    let tw = twiddles.expect("a twiddle table for two or more passes");
                    let e = k.mul(jmod, (i * (n / (ns * r))) as u32);
                    let off = complex_at(&mut k, tw, e);
                    let wv = load_c(&mut k, tw, off);
                    butterfly::mul(&mut k, v, wv)
                } else {
                    v
                };
                x.push(v);
            }
            let y = butterfly::dft(&mut k, ty, &x, p.forward);
            results.push((jc, inside, y));
        }
        if !first && !last {
            k.barrier();
        }
        // Write phase.
        for (jc, inside, y) in results {
            let write = |k: &mut Builder| {
                let (q, jmod) = div_rem(k, jc, ns);
                let dst0 = k.fma(q, (ns * r) as u32, jmod);
                for (i, v) in y.iter().enumerate() {
                    let idx = k.add(dst0, (i * ns) as u32);
                    if last {
                        let e = k.fma(idx, out_stride, out_base);
                        let off = complex_at(k, output, e);
                        let v = butterfly::scale(k, *v, scale);
                        store_c(k, output, off, v);
                    } else {
                        let buf = shared.expect("a shared array for two or more passes");
                        let e = k.add(line, idx);
                        let off = complex_at(k, buf, e);
                        store_c(k, buf, off, *v);
                    }
                }
            };
            let guard = match (inside, last) {
                (Some(i), true) => Some(k.and(i, valid)),
                (None, true) => Some(valid),
                (i, false) => i,
            };
            match guard {
                Some(c) => k.if_(c, write),
                None => write(&mut k),
            }
        }
        if !last {
            k.barrier();
        }
        ns *= r;
    }
    k.finish()
}

/// The AMDGPU resource report (registers, LDS, occupancy) of `p`'s kernel on `target`.
pub fn resource_report(
    p: &SingleParams,
    target: &Target,
) -> Result<rocm_kernels::amdgpu::ResourceReport> {
    let def = kernel(p, target)?;
    Ok(lang::amdgpu::lower(&def)?.report)
}
