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
//! then the writes and a barrier, so one shared array per transform suffices.
//!
//! Shared memory banks: a pass at stride `Ns` writes runs of `Ns` consecutive elements
//! `Ns·R` apart, so for `Ns` below a bank row (128 bytes: 16 complex f32, 8 f64) the
//! work-items of a wave would hit the same banks. Each exchange between two passes has
//! its own [`Exchange`] layout (padding or a swizzle) that spreads those runs over every
//! bank while the next pass's reads stay on distinct banks.
//!
//! Twiddles come from a table computed on the host in `f64` and rounded once
//! ([`twiddle_table`]), so no device evaluates a sine and every device uses the same
//! bits. The table holds, for each pass after the first, `ω_{Ns·R}^{i·(j mod Ns)}` at
//! `(i − 1)·Ns + j mod Ns`: consecutive work-items read consecutive entries (one
//! coalesced load per input instead of a gather). Work-items of a transform past the batch, and
//! butterflies past a pass's count, read clamped (in-bounds) elements and skip their
//! stores, so barriers stay in uniform control flow.

use super::butterfly::{self, C};
use rocm_core::{Error, Result, Target};
use rocm_kernels::generator::{Generator, LaunchRule, Program};
use rocm_kernels::lang::{self, Access, Buf, Builder, Cache, KernelDef, Scalar, Type, Value};
use serde::{Deserialize, Serialize};

/// Kernel name.
pub const KERNEL: &str = "fft_single";
/// Radices a pass may use: products of the primes the butterflies handle, up to 16.
pub const MAX_RADIX: usize = 16;
const PRIMES: [usize; 6] = [2, 3, 5, 7, 11, 13];
/// Work-items per workgroup the shape aims for.
const WORKGROUP: usize = 256;

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
    /// Transforms sharing an outer index: transform `b` starts at `offset + (b div
    /// inner)·distance + (b mod inner)·inner_stride` on each side (1: `offset +
    /// b·distance`, no inner strides).
    pub inner: u32,
    /// The first pass's loads (the last pass's stores) put consecutive work-items on
    /// consecutive transforms instead of consecutive elements: coalesced where
    /// transforms are adjacent columns (the strided axis of a four-step or a
    /// multi-dimensional transform).
    pub load_columns: bool,
    pub store_columns: bool,
    /// The four-step twiddle `Some(N)`: output `k` of transform `b` is multiplied by
    /// `ω_N^{(b mod inner)·k}`.
    pub twist: Option<u32>,
}

/// Where the twiddle table's parts start (complex values).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TwiddleLayout {
    /// Each pass's `ω_{Ns·R}` entries (`None` for the first pass).
    pub passes: Vec<Option<usize>>,
    /// The twist's `ω_N^{c·j}` (`j < Ns` of the last pass, `c < inner`) at `j·inner + c`,
    /// followed by `ω_N^{c·i·Ns}` (`1 ≤ i < R`) at `(i − 1)·inner + c`.
    pub twist: Option<usize>,
    /// The table's length.
    pub len: usize,
}

impl SingleParams {
    pub fn workgroup_size(&self) -> u32 {
        self.threads * self.transforms
    }

    /// Shared bytes the kernel declares (none for a single pass).
    pub fn shared_bytes(&self) -> usize {
        self.transforms as usize * self.line_stride() * self.real.complex_bytes()
    }

    /// Complex slots between two transforms' lines: odd where a pass runs across
    /// transforms, so the lines start on different banks.
    pub fn line_stride(&self) -> usize {
        let s = self.line_slots();
        if s > 0 && s % 2 == 0 && (self.load_columns || self.store_columns) {
            s + 1
        } else {
            s
        }
    }

    /// Complex slots of one transform's shared line: the largest exchange layout.
    pub fn line_slots(&self) -> usize {
        self.exchanges()
            .iter()
            .map(|x| x.slots())
            .max()
            .unwrap_or(0)
    }

    /// The shared layout of the exchange after each pass but the last.
    pub fn exchanges(&self) -> Vec<Exchange> {
        let bank_row = BANK_ROW_BYTES / self.real.complex_bytes();
        let mut ns = 1;
        let mut out = Vec::new();
        for &r in &self.radices[..self.radices.len().saturating_sub(1)] {
            out.push(Exchange::new(self.n as usize, ns, r as usize, bank_row));
            ns *= r as usize;
        }
        out
    }

    /// Whether the kernel reads a twiddle table (any pass after the first, a twist).
    pub fn uses_twiddles(&self) -> bool {
        self.radices.len() > 1 || self.twist.is_some()
    }

    /// The parts of the twiddle table.
    pub fn twiddle_layout(&self) -> TwiddleLayout {
        let (mut ns, mut at) = (1usize, 0usize);
        let mut passes = Vec::with_capacity(self.radices.len());
        for &r in &self.radices {
            let r = r as usize;
            if ns > 1 {
                passes.push(Some(at));
                at += (r - 1) * ns;
            } else {
                passes.push(None);
            }
            ns *= r;
        }
        let twist = self.twist.map(|_| {
            let start = at;
            let r = self.last_radix();
            at += (self.n as usize / r + r - 1) * self.inner as usize;
            start
        });
        TwiddleLayout {
            passes,
            twist,
            len: at,
        }
    }

    /// The last pass's radix.
    fn last_radix(&self) -> usize {
        self.radices.last().copied().unwrap_or(1) as usize
    }
}

/// Bytes of one row of shared memory banks (32 banks of 4 bytes on NVIDIA and AMD).
const BANK_ROW_BYTES: usize = 128;

/// The shared layout of one exchange, for a writing pass of radix `R` at stride `Ns`
/// (its outputs are runs of `Ns` consecutive elements `Ns·R` apart). With `B` complex
/// values to a bank row:
/// - rows `Ns·R` of a power of two at least `B` long with `Ns < B`: element `e` lives at
///   slot `e + (e div Ns·R)·Ns` (`Ns` unused slots after every row), so the wave's runs
///   land on consecutive banks;
/// - shorter power-of-two rows (`n` a multiple of `B`): slot `e xor ((e div B) mod B)`,
///   which moves each group of `B` to its own bank rotation in place;
/// - otherwise `e` (odd factors already spread the runs over the banks).
///
/// The next pass's reads (contiguous runs) stay on distinct banks in every case.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Exchange {
    Plain {
        slots: usize,
    },
    Padded {
        row: usize,
        pad: usize,
        slots: usize,
    },
    Swizzled {
        bank_row: usize,
        slots: usize,
    },
}

impl Exchange {
    fn new(n: usize, ns: usize, r: usize, bank_row: usize) -> Exchange {
        let row = ns * r;
        if ns >= bank_row || !row.is_power_of_two() {
            Exchange::Plain { slots: n }
        } else if row >= bank_row {
            Exchange::Padded {
                row,
                pad: ns,
                slots: n + (n / row) * ns,
            }
        } else if n % bank_row == 0 {
            Exchange::Swizzled { bank_row, slots: n }
        } else {
            Exchange::Plain { slots: n }
        }
    }

    /// Complex slots of a transform's line.
    pub fn slots(&self) -> usize {
        match *self {
            Exchange::Plain { slots }
            | Exchange::Padded { slots, .. }
            | Exchange::Swizzled { slots, .. } => slots,
        }
    }

    /// The slot of element `e`.
    pub fn slot(&self, e: usize) -> usize {
        match *self {
            Exchange::Plain { .. } => e,
            Exchange::Padded { row, pad, .. } => e + (e / row) * pad,
            Exchange::Swizzled { bank_row, .. } => e ^ ((e / bank_row) % bank_row),
        }
    }

    fn slot_value(&self, k: &mut Builder, e: Value) -> Value {
        match *self {
            Exchange::Plain { .. } => e,
            Exchange::Padded { row, pad, .. } => {
                let q = k.shr(e, row.trailing_zeros());
                k.fma(q, pad as u32, e)
            }
            Exchange::Swizzled { bank_row, .. } => {
                let q = k.shr(e, bank_row.trailing_zeros());
                let rot = k.and(q, (bank_row - 1) as u32);
                k.xor(e, rot)
            }
        }
    }
}

/// The largest shared array a kernel for `target` may use: the workgroup's LDS, or on
/// NVIDIA the shared memory a block may opt into (past 48 KiB the PTX declares it
/// dynamically and the launch requests it: [`launch_shared_bytes`]).
pub fn shared_limit(target: &Target) -> usize {
    target.caps().lds_bytes_per_workgroup as usize
}

/// The dynamic shared memory a launch of `p` on `target` requests: on NVIDIA, the
/// kernel's shared bytes when they exceed what PTX declares statically; else 0.
pub fn launch_shared_bytes(p: &SingleParams, target: &Target) -> u32 {
    if target.caps().kernel_isa != rocm_core::KernelIsa::Ptx {
        return 0;
    }
    match u32::try_from(p.shared_bytes()) {
        Ok(b) if b > rocm_kernels::lang::ptx::STATIC_SHARED_LIMIT => b,
        _ => 0,
    }
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
    let mut p = SingleParams {
        n: n as u32,
        radices: radices.iter().map(|&r| r as u32).collect(),
        real,
        forward,
        threads: threads as u32,
        transforms: 1,
        in_place,
        inner: 1,
        load_columns: false,
        store_columns: false,
        twist: None,
    };
    let per_transform = p.line_slots() * real.complex_bytes();
    if per_transform > shared {
        return None;
    }
    let mut transforms = (WORKGROUP / threads).max(1);
    // Several transforms a workgroup only up to half the shared memory, so two
    // workgroups stay resident where one transform allows it.
    if let Some(fit) = (shared / 2).max(per_transform).checked_div(per_transform) {
        transforms = transforms.min(fit).max(1);
    }
    p.transforms = transforms as u32;
    Some(p)
}

/// Bytes of consecutive memory a column access should cover (whole 32-byte sectors, two
/// to a DRAM burst).
const COLUMN_RUN_BYTES: usize = 64;
/// The largest workgroup a column kernel uses.
const MAX_WORKGROUP: usize = 1024;

/// A kernel of a multi-kernel transform: length `n` over `inner` adjacent transforms
/// (see [`SingleParams::inner`]), column orders and twist as given, out of place.
/// Column kernels take enough transforms a workgroup for [`COLUMN_RUN_BYTES`] runs
/// where shared memory allows (fewer, down to one, where it does not). `None` when `n`
/// is not a product of radices, does not fit, or a one-pass kernel would need two
/// orders.
pub fn strided_shape(
    n: usize,
    real: Real,
    forward: bool,
    target: &Target,
    inner: usize,
    (load_columns, store_columns): (bool, bool),
    twist: Option<usize>,
) -> Option<SingleParams> {
    let mut p = shape(n, real, forward, false, target)?;
    if p.radices.len() == 1 && load_columns != store_columns {
        return None;
    }
    p.inner = u32::try_from(inner).ok()?;
    p.load_columns = load_columns;
    p.store_columns = store_columns;
    p.twist = twist.map(u32::try_from).transpose().ok()?;
    if load_columns || store_columns {
        let shared = shared_limit(target);
        let per = p.line_stride().max(1) * real.complex_bytes();
        let threads = p.threads as usize;
        let want = (COLUMN_RUN_BYTES / real.complex_bytes()).max(WORKGROUP / threads);
        let fit = (shared / per).min(MAX_WORKGROUP / threads).max(1);
        p.transforms = want.min(fit) as u32;
        if p.shared_bytes() > shared {
            return None;
        }
    }
    Some(p)
}

/// The twiddles of `p`'s passes after the first, interleaved (re, im), rounded once from
/// `f64` by `round`: for the pass of radix `R` at stride `Ns`, `ω_{Ns·R}^{i·m}` in the
/// plan's direction at `(i − 1)·Ns + m` (`1 ≤ i < R`, `m < Ns`) from the pass's offset.
/// Then the twist's parts ([`TwiddleLayout::twist`]).
pub fn twiddle_table<T>(p: &SingleParams, round: impl Fn(f64) -> T) -> Vec<T> {
    let len = p.twiddle_layout().len;
    let mut out = Vec::with_capacity(2 * len);
    let mut ns = 1u64;
    for &r in &p.radices {
        let r = r as u64;
        if ns > 1 {
            for i in 1..r {
                for m in 0..ns {
                    let w = crate::twiddle::root_dir(i * m, ns * r, p.forward);
                    out.extend([round(w.re), round(w.im)]);
                }
            }
        }
        ns *= r;
    }
    if let Some(big) = p.twist {
        let (big, inner) = (big as u64, p.inner as u64);
        let r = p.last_radix() as u64;
        let ns_last = p.n as u64 / r;
        let mut push = |e: u64| {
            let w = crate::twiddle::root_dir(e % big, big, p.forward);
            out.extend([round(w.re), round(w.im)]);
        };
        for j in 0..ns_last {
            for c in 0..inner {
                push(c * j);
            }
        }
        for i in 1..r {
            for c in 0..inner {
                push(c * i * ns_last);
            }
        }
    }
    out
}

/// The generator of [`SingleParams`] kernels.
pub struct FftSingle;

impl Generator for FftSingle {
    type Params = SingleParams;
    const NAME: &'static str = "fft_single";
    const VERSION: u32 = 2;

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
    unpack_c(k, v)
}

/// A twiddle: the table is never written while the kernel runs (the read-only path).
fn load_twiddle(k: &mut Builder, buf: Buf, offset: Value, s: Scalar) -> C {
    let ty = Type::vec(s, 2);
    let v = k.load_with(buf, offset, ty, ty.bytes(), ty.bytes(), Cache::ReadOnly);
    unpack_c(k, v)
}

fn unpack_c(k: &mut Builder, v: Value) -> C {
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
/// more passes or a twist); `batch` (transforms); `in_offset`, `in_stride`,
/// `in_distance`, `out_offset`, `out_stride`, `out_distance`, and with `inner > 1`
/// `in_inner_stride`, `out_inner_stride` (u32, in complex elements); `scale` (the
/// compute type).
pub fn kernel(p: &SingleParams, target: &Target) -> Result<KernelDef> {
    let n = p.n as usize;
    let product: usize = p.radices.iter().map(|&r| r as usize).product();
    let one_pass_two_orders = p.radices.len() == 1 && p.load_columns != p.store_columns;
    if n == 0
        || product != n
        || p.threads == 0
        || p.transforms == 0
        || p.inner == 0
        || one_pass_two_orders
        || (p.twist.is_some() && p.inner == 1)
    {
        return Err(Error::invalid(
            "fft_single params",
            format!(
                "length {n} with radices {:?}, {} threads x {} transforms, inner {}, orders {}/{}, twist {:?}",
                p.radices, p.threads, p.transforms, p.inner, p.load_columns, p.store_columns, p.twist
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
    let inner = p.inner as usize;
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
    let inner_strides = (inner > 1).then(|| {
        (
            k.param("in_inner_stride", Scalar::U32),
            k.param("out_inner_stride", Scalar::U32),
        )
    });
    let scale = k.param("scale", s);
    let stride = p.line_stride();
    let shared = (stride > 0).then(|| k.shared("lines", s, (2 * t * stride) as u32));
    let exchanges = p.exchanges();
    let layout = p.twiddle_layout();

    let tid = k.thread_id();
    let wg = k.workgroup_id();
    let last_batch = k.sub(batch, 1u32);
    // Where a work-item's transform lives under one order of work-items.
    let mapping = |k: &mut Builder, columns: bool| -> Mapping {
        let (g, l) = if columns {
            let (l, g) = div_rem(k, tid, t);
            (g, l)
        } else {
            div_rem(k, tid, w)
        };
        let b = k.fma(wg, t as u32, g);
        let valid = k.lt(b, batch);
        let bc = k.min(b, last_batch);
        let (in_base, out_base, column) = match inner_strides {
            None => (
                k.fma(bc, in_distance, in_offset),
                k.fma(bc, out_distance, out_offset),
                None,
            ),
            Some((in_inner, out_inner)) => {
                let (outer, c) = div_rem(k, bc, inner);
                let i0 = k.fma(c, in_inner, in_offset);
                let o0 = k.fma(c, out_inner, out_offset);
                (
                    k.fma(outer, in_distance, i0),
                    k.fma(outer, out_distance, o0),
                    Some(c),
                )
            }
        };
        let line = k.mul(g, stride as u32);
        Mapping {
            l,
            valid,
            in_base,
            out_base,
            line,
            column,
        }
    };
    let passes = p.radices.len();
    let orders: Vec<bool> = (0..passes)
        .map(|pass| match pass {
            0 => p.load_columns,
            _ if pass + 1 == passes => p.store_columns,
            _ => false,
        })
        .collect();
    let rows = orders.contains(&false).then(|| mapping(&mut k, false));
    let cols = orders.contains(&true).then(|| mapping(&mut k, true));

    let mut ns = 1usize;
    for (pass, &r) in p.radices.iter().enumerate() {
        let r = r as usize;
        let m = n / r;
        let iters = m.div_ceil(w);
        let first = pass == 0;
        let last = pass + 1 == passes;
        let mp = if orders[pass] { cols } else { rows };
        let mp = mp.expect("a mapping for every order a pass uses");
        let l = mp.l;
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
                    let e = k.fma(idx, in_stride, mp.in_base);
                    let off = complex_at(&mut k, input, e);
                    load_c(&mut k, input, off)
                } else {
                    let buf = shared.expect("a shared array for two or more passes");
                    let slot = exchanges[pass - 1].slot_value(&mut k, idx);
                    let e = k.add(mp.line, slot);
                    let off = complex_at(&mut k, buf, e);
                    load_c(&mut k, buf, off)
                };
                let v = if ns > 1 && i > 0 {
                    let tw = twiddles.expect("a twiddle table for two or more passes");
                    let at = layout.passes[pass].expect("passes after the first have twiddles");
                    let e = k.add(jmod, (at + (i - 1) * ns) as u32);
                    let off = complex_at(&mut k, tw, e);
                    let wv = load_twiddle(&mut k, tw, off, s);
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
            let exchange = (!last).then(|| exchanges[pass]);
            let write = |k: &mut Builder| {
                let (q, jmod) = div_rem(k, jc, ns);
                let dst0 = k.fma(q, (ns * r) as u32, jmod);
                // The last pass's outputs are `jc + i·Ns` (`q = 0`): the twist's
                // `ω_N^{c·jc}·ω_N^{c·i·Ns}`.
                let twist = match (last, layout.twist) {
                    (true, Some(at)) => {
                        let tw = twiddles.expect("a twiddle table for a twist");
                        let c = mp.column.expect("a twist has inner transforms");
                        let e = k.fma(jc, inner as u32, c);
                        let e = k.add(e, at as u32);
                        let off = complex_at(k, tw, e);
                        Some((load_twiddle(k, tw, off, s), c, at + m * inner))
                    }
                    _ => None,
                };
                for (i, v) in y.iter().enumerate() {
                    let idx = k.add(dst0, (i * ns) as u32);
                    if last {
                        let v = match twist {
                            Some((wa, _, _)) if i == 0 => butterfly::mul(k, *v, wa),
                            Some((wa, c, steps)) => {
                                let tw = twiddles.expect("a twiddle table for a twist");
                                let e = k.add(c, (steps + (i - 1) * inner) as u32);
                                let off = complex_at(k, tw, e);
                                let wb = load_twiddle(k, tw, off, s);
                                let wi = butterfly::mul(k, wa, wb);
                                butterfly::mul(k, *v, wi)
                            }
                            None => *v,
                        };
                        let e = k.fma(idx, out_stride, mp.out_base);
                        let off = complex_at(k, output, e);
                        let v = butterfly::scale(k, v, scale);
                        store_c(k, output, off, v);
                    } else {
                        let buf = shared.expect("a shared array for two or more passes");
                        let x = exchange.expect("an exchange after every pass but the last");
                        let slot = x.slot_value(k, idx);
                        let e = k.add(mp.line, slot);
                        let off = complex_at(k, buf, e);
                        store_c(k, buf, off, *v);
                    }
                }
            };
            let guard = match (inside, last) {
                (Some(i), true) => Some(k.and(i, mp.valid)),
                (None, true) => Some(mp.valid),
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

/// A work-item's place under one order: its butterfly lane `l`, whether its transform
/// is inside the batch, the transform's first element on each side, its shared line and
/// (with inner transforms) its index among them.
#[derive(Clone, Copy)]
struct Mapping {
    l: Value,
    valid: Value,
    in_base: Value,
    out_base: Value,
    line: Value,
    column: Option<Value>,
}

/// The AMDGPU resource report (registers, LDS, occupancy) of `p`'s kernel on `target`.
pub fn resource_report(
    p: &SingleParams,
    target: &Target,
) -> Result<rocm_kernels::amdgpu::ResourceReport> {
    let def = kernel(p, target)?;
    Ok(lang::amdgpu::lower(&def)?.report)
}
