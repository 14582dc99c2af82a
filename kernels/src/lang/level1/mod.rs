//! BLAS Level 1 written once in the language: every op of [`crate::level1`] (fill,
//! scal, axpby, copy, swap, rot, rotm, the dtype conversions, and the reductions dot,
//! dotc, sum, asum, nrm2, iamax, iamin) for f32, f64, c32, c64, f16 and bf16, lowered to
//! PTX and AMDGPU from one definition with one signature ([`crate::level1::signature`]:
//! `n: u64, x, incx: i64, [y, incy: i64], scalars, [partials]`).
//!
//! Work split: a unit is one vector of `vector_bytes` of x (contiguous) or one element
//! (strided); work-item t of the workgroup handling tile g takes units
//! g·block·unroll + t + u·block for u < unroll, and with `grid_stride` (reductions
//! always) the workgroups loop over tiles g, g + grid, ... where grid is the launched
//! grid, so one kernel runs any grid. Every whole unit of a tile is loaded before any
//! is computed (the loads are in flight together); the unit holding the end of a
//! contiguous vector is handled element by element. Reductions test once per tile
//! whether all of a work-item's units are whole: if so they run with no bounds test
//! and no branch (what keeps them at the hand-written kernels' registers), else
//! element by element, in the same order. Strided offsets are signed (x and
//! y are the addresses of logical element 0, increments may be negative).
//!
//! Memory: a whole unit moves in accesses of at most `vector_bytes` (x's loads are
//! exactly that wide; a conversion's y covers as many elements in accesses of at most
//! that width). 16-bit reals move as 32-bit words holding two values (a 16-byte access
//! moves 8), and are computed in f32, rounded to nearest even once when stored; copy
//! and swap move bits untouched.
//!
//! Arithmetic (one rounding per operation): complex a·b is `re = fma(−ai, bi, ar·br)`,
//! `im = fma(ai, br, ar·bi)`; axpby `fma(β, y, α·x)` (complex: four fmas after α·x);
//! rot `x' = fma(s, y, c·x)`, `y' = fma(conj(−s), x, c·y)`; rotm
//! `x' = fma(h11, x, h12·y)`, `y' = fma(h21, x, h22·y)`. The reductions are in
//! [`reduce`], their final pass in [`finish`].

pub mod finish;
mod reduce;

use super::ir::{Access, Cache, KernelDef, Scalar, Type, Value, Var};
use super::{Buf, Builder};
use crate::level1::{accesses, scalar_names, y_dtype, L1Op, Level1Params, KERNEL};
use crate::ptx::cache::{LoadHint, StoreCache};
use rocm_core::{DType, Error, Result, Target};

/// How one element of a vector sits in memory: its real scalar and reals per element.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) struct Layout {
    pub real: Scalar,
    pub comps: u32,
}

impl Layout {
    pub fn of(d: DType) -> Result<Layout> {
        let (real, comps) = match d {
            DType::F32 => (Scalar::F32, 1),
            DType::F64 => (Scalar::F64, 1),
            DType::C32 => (Scalar::F32, 2),
            DType::C64 => (Scalar::F64, 2),
            DType::F16 => (Scalar::F16, 1),
            DType::Bf16 => (Scalar::Bf16, 1),
            d => {
                return Err(Error::unsupported(
                    format!("Level 1 kernels for {d}"),
                    "lang",
                ))
            }
        };
        Ok(Layout { real, comps })
    }

    /// The type arithmetic happens in: f32 for the 16-bit storage types.
    pub fn compute(self) -> Scalar {
        if is_half(self.real) {
            Scalar::F32
        } else {
            self.real
        }
    }

    fn esize(self) -> u32 {
        self.real.bytes() * self.comps
    }
}

fn is_half(s: Scalar) -> bool {
    matches!(s, Scalar::F16 | Scalar::Bf16)
}

/// One vector of the kernel: its buffer, layout, increment and cache behaviour.
#[derive(Clone, Copy)]
struct Side {
    buf: Buf,
    l: Layout,
    inc: Value,
    load: Cache,
    store: Cache,
}

/// The language's cache behaviour of a hint (the read-only path for data the kernel
/// does not write); hints the language has no access for are unsupported.
fn caches(p: &Level1Params, access: Access, target: &Target) -> Result<(Cache, Cache)> {
    let load = match p.load_cache {
        LoadHint::Default if access == Access::Read => Cache::ReadOnly,
        LoadHint::Default => Cache::Default,
        LoadHint::Streaming => Cache::Streaming,
        h => {
            return Err(Error::unsupported(
                format!("Level 1 load hint {h:?}"),
                target,
            ))
        }
    };
    let store = match p.store_cache {
        StoreCache::Default => Cache::Default,
        StoreCache::Streaming => Cache::Streaming,
        h => {
            return Err(Error::unsupported(
                format!("Level 1 store hint {h:?}"),
                target,
            ))
        }
    };
    Ok((load, store))
}

impl Side {
    /// The byte offset of unit `unit` (u64): contiguous, `per` elements per unit; else
    /// the signed offset of element `unit` at the increment.
    fn offset(&self, k: &mut Builder, unit: Value, per: Option<u32>) -> Value {
        match per {
            Some(per) => k.mul(unit, (per * self.l.esize()) as u64),
            None => {
                let i = k.bitcast(unit, Type::I64);
                let step = k.mul(self.inc, self.l.esize() as i64);
                let off = k.mul(i, step);
                k.bitcast(off, Type::U64)
            }
        }
    }

    /// The accesses of a whole unit of `reals` reals, at most `widest` bytes each: (byte
    /// offset in the unit, memory type). 16-bit reals move as u32 words of two.
    fn chunks(&self, reals: u32, widest: u32) -> Vec<(u32, Type)> {
        let rb = self.l.real.bytes();
        let total = reals * rb;
        let bytes = total.min(widest).max(rb);
        let ty = if is_half(self.l.real) && bytes >= 4 {
            Type::vec(Scalar::U32, (bytes / 4) as u8)
        } else {
            Type::vec(self.l.real, (bytes / rb) as u8)
        };
        (0..total / bytes).map(|c| (c * bytes, ty)).collect()
    }

    /// The unit's reals (memory types) from its chunks' values.
    fn decode(&self, k: &mut Builder, chunks: &[Value]) -> Vec<Value> {
        let mut out = Vec::new();
        for c in chunks {
            let lanes = if c.ty.is_vector() {
                k.unpack(*c)
            } else {
                vec![*c]
            };
            for w in lanes {
                if w.ty.scalar == Scalar::U32 {
                    let pair = k.bitcast(w, Type::vec(self.l.real, 2));
                    out.extend(k.unpack(pair));
                } else {
                    out.push(w);
                }
            }
        }
        out
    }

    /// The chunks' values of a unit from its reals (memory types).
    fn encode(&self, k: &mut Builder, reals: &[Value], chunks: &[(u32, Type)]) -> Vec<Value> {
        let mut rest = reals;
        chunks
            .iter()
            .map(|(_, ty)| {
                let per_lane = if ty.scalar == Scalar::U32 { 2 } else { 1 };
                let (mine, tail) = rest.split_at(ty.lanes as usize * per_lane);
                rest = tail;
                let lanes: Vec<Value> = if per_lane == 2 {
                    mine.chunks(2)
                        .map(|h| {
                            let pair = k.pack(h);
                            k.bitcast(pair, Type::U32)
                        })
                        .collect()
                } else {
                    mine.to_vec()
                };
                if lanes.len() == 1 {
                    lanes[0]
                } else {
                    k.pack(&lanes)
                }
            })
            .collect()
    }

    /// The chunks of the unit at byte `base`, loaded unconditionally.
    fn load_chunks(&self, k: &mut Builder, base: Value, chunks: &[(u32, Type)]) -> Vec<Value> {
        chunks
            .iter()
            .map(|(at, ty)| {
                let off = if *at == 0 {
                    base
                } else {
                    k.add(base, *at as u64)
                };
                k.load_with(self.buf, off, *ty, ty.bytes(), ty.bytes(), self.load)
            })
            .collect()
    }

    /// The byte distance from unit u to unit u + `units` (u64; strided: signed, as bits).
    fn unit_step(&self, k: &mut Builder, units: u32, per: Option<u32>) -> Value {
        match per {
            Some(per) => k.lit((units * per * self.l.esize()) as u64),
            None => {
                let step = k.mul(self.inc, (units * self.l.esize()) as i64);
                k.bitcast(step, Type::U64)
            }
        }
    }

    fn store_chunks(&self, k: &mut Builder, base: Value, chunks: &[(u32, Type)], vals: &[Value]) {
        for ((at, ty), v) in chunks.iter().zip(vals) {
            let off = if *at == 0 {
                base
            } else {
                k.add(base, *at as u64)
            };
            k.store_with(self.buf, off, *v, ty.bytes(), ty.bytes(), self.store);
        }
    }

    /// The reals of the element at byte `base`, loaded one by one.
    fn load_element(&self, k: &mut Builder, base: Value) -> Vec<Value> {
        let rb = self.l.real.bytes();
        (0..self.l.comps)
            .map(|c| {
                let off = if c == 0 {
                    base
                } else {
                    k.add(base, (c * rb) as u64)
                };
                let ty = Type::of(self.l.real);
                k.load_with(self.buf, off, ty, rb, rb, self.load)
            })
            .collect()
    }

    fn store_element(&self, k: &mut Builder, base: Value, reals: &[Value]) {
        let rb = self.l.real.bytes();
        for (c, r) in reals.iter().enumerate() {
            let off = if c == 0 {
                base
            } else {
                k.add(base, c as u64 * rb as u64)
            };
            k.store_with(self.buf, off, *r, rb, rb, self.store);
        }
    }
}

/// A real widened to its compute type (16-bit floats to f32, exactly).
fn widen(k: &mut Builder, v: Value) -> Value {
    if is_half(v.ty.scalar) {
        k.convert(v, Scalar::F32)
    } else {
        v
    }
}

/// A computed real in memory type `real` (rounded to nearest even for 16-bit floats).
fn narrow(k: &mut Builder, v: Value, real: Scalar) -> Value {
    if is_half(real) {
        k.convert(v, real)
    } else {
        v
    }
}

/// Complex (or real) arithmetic on elements as slices of 1 or 2 reals.
pub(super) mod complex {
    use super::{Builder, Value};

    /// a·b.
    pub fn mul(k: &mut Builder, a: &[Value], b: &[Value]) -> Vec<Value> {
        if a.len() == 1 {
            return vec![k.mul(a[0], b[0])];
        }
        let rr = k.mul(a[0], b[0]);
        let ri = k.mul(a[0], b[1]);
        let nai = k.neg(a[1]);
        vec![k.fma(nai, b[1], rr), k.fma(a[1], b[0], ri)]
    }

    /// acc + op(a)·b (op = conj when `conj`), one rounding per real fma.
    pub fn fma(k: &mut Builder, acc: &[Value], a: &[Value], b: &[Value], conj: bool) -> Vec<Value> {
        if a.len() == 1 {
            return vec![k.fma(a[0], b[0], acc[0])];
        }
        let r1 = k.fma(a[0], b[0], acc[0]);
        let i1 = k.fma(a[0], b[1], acc[1]);
        let nai = k.neg(a[1]);
        let (sr, si) = if conj { (a[1], nai) } else { (nai, a[1]) };
        vec![k.fma(sr, b[1], r1), k.fma(si, b[0], i1)]
    }

    /// |re| + |im| (|x| for reals).
    pub fn abs1(k: &mut Builder, a: &[Value]) -> Value {
        let r = k.abs(a[0]);
        if a.len() == 1 {
            return r;
        }
        let i = k.abs(a[1]);
        k.add(r, i)
    }
}

/// The new x and y reals of one element of an elementwise op, from its compute reals.
fn elementwise(
    k: &mut Builder,
    op: L1Op,
    s: &[Value],
    x: &[Value],
    y: &[Value],
) -> (Vec<Value>, Vec<Value>) {
    let c = x.len();
    match op {
        L1Op::Scal => (complex::mul(k, s, x), vec![]),
        L1Op::Axpby { read_y } => {
            let ax = complex::mul(k, &s[..c], x);
            if read_y {
                (vec![], complex::fma(k, &ax, &s[c..], y, false))
            } else {
                (vec![], ax)
            }
        }
        L1Op::Rot => {
            let (cs, sn) = (s[0], &s[1..]);
            let cx: Vec<Value> = x.iter().map(|v| k.mul(cs, *v)).collect();
            let cy: Vec<Value> = y.iter().map(|v| k.mul(cs, *v)).collect();
            let neg_s: Vec<Value> = sn.iter().map(|v| k.neg(*v)).collect();
            let xo = complex::fma(k, &cx, sn, y, false);
            let yo = complex::fma(k, &cy, &neg_s, x, true);
            (xo, yo)
        }
        L1Op::Rotm => {
            let t = k.mul(s[2], y[0]);
            let xo = k.fma(s[0], x[0], t);
            let t = k.mul(s[3], y[0]);
            let yo = k.fma(s[1], x[0], t);
            (vec![xo], vec![yo])
        }
        _ => (vec![], vec![]),
    }
}

/// What [`kernel`] refuses for `p` on `target`, without building it (the plan asks for
/// the signature on every call, so this stays cheap): the params, the dtypes, the
/// target family and the cache hints.
pub fn check(p: &Level1Params, target: &Target) -> Result<()> {
    p.validate()?;
    Layout::of(p.dtype)?;
    Layout::of(y_dtype(p.op, p.dtype))?;
    if target.family() == rocm_core::target::Family::Cpu {
        return Err(Error::unsupported("Level 1 language kernel", target));
    }
    let (ax, ay) = accesses(p.op);
    caches(p, ax, target)?;
    if p.op.has_y() {
        caches(p, ay, target)?;
    }
    Ok(())
}

/// The kernel of `p` on `target` (every op and dtype [`crate::level1::supports`]);
/// it refuses exactly what [`check`] refuses.
pub fn kernel(p: &Level1Params, target: &Target) -> Result<KernelDef> {
    check(p, target)?;
    let xl = Layout::of(p.dtype)?;
    let yl = Layout::of(y_dtype(p.op, p.dtype))?;
    let mut k = Builder::new(KERNEL, target)?;
    k.max_workgroup_size(p.block);
    let n = k.param("n", Scalar::U64);
    let (ax, ay) = accesses(p.op);
    let xbuf = k.ptr_dtype("x", p.dtype, xl.real, ax);
    let incx = k.param("incx", Scalar::I64);
    let (load, store) = caches(p, ax, target)?;
    let x = Side {
        buf: xbuf,
        l: xl,
        inc: incx,
        load,
        store,
    };
    let y = if p.op.has_y() {
        let buf = k.ptr_dtype("y", y_dtype(p.op, p.dtype), yl.real, ay);
        let inc = k.param("incy", Scalar::I64);
        let (load, store) = caches(p, ay, target)?;
        Some(Side {
            buf,
            l: yl,
            inc,
            load,
            store,
        })
    } else {
        None
    };
    let scalar_ty = if xl.compute() == Scalar::F64 {
        Scalar::F64
    } else {
        Scalar::F32
    };
    let scalars: Vec<Value> = scalar_names(p.op, xl.comps)
        .iter()
        .map(|name| k.param(name, scalar_ty))
        .collect();
    let partials =
        p.op.is_reduction()
            .then(|| k.ptr("partials", Scalar::F64, Access::Write));

    // Elements per unit (a power of two) and the accesses of a whole unit.
    let per = if p.contiguous {
        p.vector_bytes / xl.esize()
    } else {
        1
    };
    let unit_of = p.contiguous.then_some(per);
    let widest = if p.contiguous { p.vector_bytes } else { 16 };
    let x_chunks = x.chunks(per * xl.comps, widest);
    let y_chunks = y.map(|s| s.chunks(per * yl.comps, widest));
    let units = if per > 1 {
        let t = k.add(n, (per - 1) as u64);
        k.shr(t, per.trailing_zeros())
    } else {
        n
    };
    let reads_x = p.op != L1Op::Fill;
    let reads_y = p.op.reads_y();
    // Fill's stored value, rounded once.
    let fill: Vec<Value> = if p.op == L1Op::Fill {
        let one: Vec<Value> = scalars
            .iter()
            .map(|s| narrow(&mut k, *s, xl.real))
            .collect();
        let reals: Vec<Value> = (0..per).flat_map(|_| one.clone()).collect();
        x.encode(&mut k, &reals, &x_chunks)
    } else {
        vec![]
    };
    let acc =
        p.op.is_reduction()
            .then(|| reduce::Acc::new(&mut k, p.op, xl));

    // One element's work (`index` its element index): stores for elementwise ops,
    // accumulation for reductions. Returns the new x and y reals (memory types).
    let element = |k: &mut Builder, index: Value, xr: &[Value], yr: &[Value]| match p.op {
        L1Op::Copy => (vec![], xr.to_vec()),
        L1Op::Swap => (yr.to_vec(), xr.to_vec()),
        L1Op::Convert { .. } => {
            let out = xr.iter().map(|v| k.convert(*v, yl.real)).collect();
            (vec![], out)
        }
        L1Op::Fill => (vec![], vec![]),
        op => {
            let xc: Vec<Value> = xr.iter().map(|v| widen(k, *v)).collect();
            let yc: Vec<Value> = yr.iter().map(|v| widen(k, *v)).collect();
            if let Some(acc) = &acc {
                acc.add(k, index, &xc, &yc);
                return (vec![], vec![]);
            }
            let (xo, yo) = elementwise(k, op, &scalars, &xc, &yc);
            let xo = xo.iter().map(|v| narrow(k, *v, xl.real)).collect();
            let yo = yo.iter().map(|v| narrow(k, *v, yl.real)).collect();
            (xo, yo)
        }
    };

    let tid = k.thread_id();
    let tid = k.convert(tid, Scalar::U64);
    let tile_units = (p.block * p.unroll) as u64;
    let tile = |k: &mut Builder, first: Value| {
        // Phase 1: every whole unit's loads, into variables.
        struct Staged {
            unit: Value,
            whole: Value,
            xo: Value,
            yo: Option<Value>,
            xs: Vec<Var>,
            ys: Vec<Var>,
        }
        let stage = |k: &mut Builder, side: &Side, chunks: &[(u32, Type)], base: Value, whole| {
            let vars: Vec<Var> = chunks
                .iter()
                .map(|(_, ty)| {
                    let zero = k.constant(*ty, 0);
                    k.var(zero)
                })
                .collect();
            k.if_(whole, |k| {
                for (v, val) in vars.iter().zip(side.load_chunks(k, base, chunks)) {
                    k.set(*v, val);
                }
            });
            vars
        };
        let mut staged = Vec::new();
        for u in 0..p.unroll {
            let unit = k.add(first, (u * p.block) as u64);
            let whole = if per > 1 {
                let e0 = k.mul(unit, per as u64);
                let end = k.add(e0, per as u64);
                k.le(end, n)
            } else {
                k.lt(unit, n)
            };
            let xo = x.offset(k, unit, unit_of);
            let yo = y.map(|s| s.offset(k, unit, unit_of));
            let xs = if reads_x {
                stage(k, &x, &x_chunks, xo, whole)
            } else {
                vec![]
            };
            let ys = match (&y, &y_chunks, yo) {
                (Some(s), Some(c), Some(o)) if reads_y => stage(k, s, c, o, whole),
                _ => vec![],
            };
            staged.push(Staged {
                unit,
                whole,
                xo,
                yo,
                xs,
                ys,
            });
        }
        // Phase 2: arithmetic and stores; the unit holding the end, element by element.
        for st in staged {
            k.if_(st.whole, |k| {
                let xv: Vec<Value> = st.xs.iter().map(|v| k.get(*v)).collect();
                let yv: Vec<Value> = st.ys.iter().map(|v| k.get(*v)).collect();
                let xr = x.decode(k, &xv);
                let yr = y.map(|s| s.decode(k, &yv)).unwrap_or_default();
                let e0 = if per > 1 {
                    k.mul(st.unit, per as u64)
                } else {
                    st.unit
                };
                let (mut xo, mut yo) = (Vec::new(), Vec::new());
                for e in 0..per as usize {
                    let index = if e == 0 { e0 } else { k.add(e0, e as u64) };
                    let xe = xr.get(e * xl.comps as usize..(e + 1) * xl.comps as usize);
                    let ye = yr.get(e * yl.comps as usize..(e + 1) * yl.comps as usize);
                    let (a, b) = element(k, index, xe.unwrap_or(&[]), ye.unwrap_or(&[]));
                    xo.extend(a);
                    yo.extend(b);
                }
                if p.op == L1Op::Fill {
                    x.store_chunks(k, st.xo, &x_chunks, &fill);
                }
                if !xo.is_empty() {
                    let vals = x.encode(k, &xo, &x_chunks);
                    x.store_chunks(k, st.xo, &x_chunks, &vals);
                }
                if let (Some(s), Some(c), Some(o)) = (&y, &y_chunks, st.yo) {
                    if !yo.is_empty() {
                        let vals = s.encode(k, &yo, c);
                        s.store_chunks(k, o, c, &vals);
                    }
                }
            });
            if per == 1 {
                continue;
            }
            let inside = k.lt(st.unit, units);
            let not_whole = k.not(st.whole);
            let last = k.and(inside, not_whole);
            k.if_(last, |k| {
                let e0 = k.mul(st.unit, per as u64);
                for e in 0..per {
                    let i = k.add(e0, e as u64);
                    let here = k.lt(i, n);
                    k.if_(here, |k| {
                        let xa = k.add(st.xo, (e * xl.esize()) as u64);
                        let ya = st.yo.map(|o| k.add(o, (e * yl.esize()) as u64));
                        let xr = if reads_x {
                            x.load_element(k, xa)
                        } else {
                            vec![]
                        };
                        let yr = match (&y, ya) {
                            (Some(s), Some(a)) if reads_y => s.load_element(k, a),
                            _ => vec![],
                        };
                        let (xo, yo) = element(k, i, &xr, &yr);
                        if p.op == L1Op::Fill {
                            let one: Vec<Value> =
                                scalars.iter().map(|s| narrow(k, *s, xl.real)).collect();
                            x.store_element(k, xa, &one);
                        }
                        if !xo.is_empty() {
                            x.store_element(k, xa, &xo);
                        }
                        if let (Some(s), Some(a)) = (&y, ya) {
                            if !yo.is_empty() {
                                s.store_element(k, a, &yo);
                            }
                        }
                    });
                }
            });
        }
    };
    // Reductions: a work-item whose units of the tile are all whole takes them without
    // any bounds test (every load issued back to back, then the arithmetic); the tile
    // holding the end goes element by element. Both add in unit, then element order.
    let fast_units = if p.op.is_reduction() { p.unroll } else { 0 };
    let x_step = (fast_units > 1).then(|| x.unit_step(&mut k, p.block, unit_of));
    let y_step = match &y {
        Some(s) if reads_y && fast_units > 1 => Some(s.unit_step(&mut k, p.block, unit_of)),
        _ => None,
    };
    let whole_units = if per > 1 && fast_units > 0 {
        k.shr(n, per.trailing_zeros())
    } else {
        n
    };
    let fast = |k: &mut Builder, first: Value| {
        let mut xa = x.offset(k, first, unit_of);
        let mut ya = y.filter(|_| reads_y).map(|s| s.offset(k, first, unit_of));
        let mut loaded = Vec::new();
        for u in 0..p.unroll {
            if u > 0 {
                xa = k.add(xa, x_step.expect("a step for unroll > 1"));
                ya = ya.map(|a| k.add(a, y_step.expect("a step for unroll > 1")));
            }
            let xs = x.load_chunks(k, xa, &x_chunks);
            let ys = match (&y, &y_chunks, ya) {
                (Some(s), Some(c), Some(a)) => s.load_chunks(k, a, c),
                _ => vec![],
            };
            loaded.push((xs, ys));
        }
        let e0 = if per > 1 {
            k.mul(first, per as u64)
        } else {
            first
        };
        for (u, (xs, ys)) in (0u32..).zip(loaded) {
            let xr = x.decode(k, &xs);
            let yr = y.map(|s| s.decode(k, &ys)).unwrap_or_default();
            let eu = if u == 0 {
                e0
            } else {
                k.add(e0, (u * p.block * per) as u64)
            };
            for e in 0..per as usize {
                let index = if e == 0 { eu } else { k.add(eu, e as u64) };
                let xe = xr.get(e * xl.comps as usize..(e + 1) * xl.comps as usize);
                let ye = yr.get(e * yl.comps as usize..(e + 1) * yl.comps as usize);
                element(k, index, xe.unwrap_or(&[]), ye.unwrap_or(&[]));
            }
        }
    };
    let ragged = |k: &mut Builder, first: Value| {
        for u in 0..p.unroll {
            let unit = k.add(first, (u * p.block) as u64);
            let xo = x.offset(k, unit, unit_of);
            let yo = y.filter(|_| reads_y).map(|s| s.offset(k, unit, unit_of));
            let e0 = if per > 1 {
                k.mul(unit, per as u64)
            } else {
                unit
            };
            for e in 0..per {
                let i = if e == 0 { e0 } else { k.add(e0, e as u64) };
                let here = k.lt(i, n);
                k.if_(here, |k| {
                    let xa = k.add(xo, (e * xl.esize()) as u64);
                    let xr = x.load_element(k, xa);
                    let yr = match (&y, yo) {
                        (Some(s), Some(o)) => {
                            let ya = k.add(o, (e * yl.esize()) as u64);
                            s.load_element(k, ya)
                        }
                        _ => vec![],
                    };
                    element(k, i, &xr, &yr);
                });
            }
        }
    };
    let tile_or_fast = |k: &mut Builder, first: Value| {
        if p.op.is_reduction() {
            let last = k.add(first, ((p.unroll - 1) * p.block) as u64);
            let whole = k.lt(last, whole_units);
            k.if_else(whole, |k| fast(k, first), |k| ragged(k, first));
        } else {
            tile(k, first);
        }
    };
    let wg = k.workgroup_id();
    let wg = k.convert(wg, Scalar::U64);
    let first = k.fma(wg, tile_units, tid);
    if p.loops() {
        // Workgroups step over tiles by the launched grid.
        let grid = k.grid_size();
        let grid = k.convert(grid, Scalar::U64);
        let step = k.mul(grid, tile_units);
        k.for_range(first, units, step, tile_or_fast);
    } else {
        tile_or_fast(&mut k, first);
    }
    if let (Some(acc), Some(partials)) = (acc, partials) {
        acc.store_partials(&mut k, p.block, partials);
    }
    k.finish()
}
