//! The reductions' first pass: per-work-item accumulators, the workgroup's combination
//! and its partials.
//!
//! Each work-item accumulates its elements in element order in the compute type (dot,
//! dotc, sum: re and im; asum: Σ|re| + |im|; nrm2: f64, Blue's three accumulators for
//! f64 data, else the exact f64 squares in the medium one; iamax/iamin: the first
//! strictly best |re| + |im| and its index). The workgroup then combines its work-items
//! through shared memory in a fixed tree (step s = 2^⌈log₂ block⌉/2, ..., 1: item t <
//! min(s, block − s) takes item t + s), independent of the wave size, so every target
//! gives the same bits; work-item 0 writes the workgroup's partials as f64s (an index as
//! its u64 bits), slot s of workgroup g at `partials[s·grid + g]`.

use super::{complex, Layout};
use crate::lang::ir::{Scalar, Type, Value, Var};
use crate::lang::{Buf, Builder};
use crate::level1::{L1Op, SBIG, SSML, TBIG, TSML};

/// A work-item's accumulators.
pub(super) enum Acc {
    /// dot, dotc, sum: the re (and im) sums.
    Sum {
        conj: bool,
        parts: Vec<Var>,
    },
    Asum(Var),
    /// nrm2: small, medium and big sums of (scaled) squares, in f64; Blue's scaling
    /// only for f64 data.
    Nrm2 {
        blue: bool,
        parts: [Var; 3],
    },
    /// iamax (`max`) / iamin: the best value and its 0-based index (u64::MAX: none).
    Arg {
        max: bool,
        value: Var,
        index: Var,
    },
}

impl Acc {
    pub fn new(k: &mut Builder, op: L1Op, l: Layout) -> Acc {
        let ct = Type::of(l.compute());
        let zero = |k: &mut Builder, ty: Type| {
            let z = k.constant(ty, 0.0);
            k.var(z)
        };
        match op {
            L1Op::Dot { conj } => Acc::Sum {
                conj,
                parts: (0..l.comps).map(|_| zero(k, ct)).collect(),
            },
            L1Op::Sum => Acc::Sum {
                conj: false,
                parts: (0..l.comps).map(|_| zero(k, ct)).collect(),
            },
            L1Op::Asum => Acc::Asum(zero(k, ct)),
            L1Op::Nrm2 => Acc::Nrm2 {
                blue: l.compute() == Scalar::F64,
                parts: [0; 3].map(|_| zero(k, Type::F64)),
            },
            L1Op::Iamax { max } => {
                let v = k.constant(ct, if max { -1.0 } else { f64::INFINITY });
                let i = k.constant_bits(Type::U64, u64::MAX);
                Acc::Arg {
                    max,
                    value: k.var(v),
                    index: k.var(i),
                }
            }
            _ => unreachable!("{op:?} is not a reduction"),
        }
    }

    /// Adds element `index` (compute reals x, and y for dot).
    pub fn add(&self, k: &mut Builder, element: Value, x: &[Value], y: &[Value]) {
        match self {
            Acc::Sum { conj, parts } => {
                let cur: Vec<Value> = parts.iter().map(|v| k.get(*v)).collect();
                let next = if y.is_empty() {
                    cur.iter().zip(x).map(|(a, b)| k.add(*a, *b)).collect()
                } else {
                    complex::fma(k, &cur, x, y, *conj)
                };
                for (v, n) in parts.iter().zip(next) {
                    k.set(*v, n);
                }
            }
            Acc::Asum(v) => {
                let a = complex::abs1(k, x);
                let cur = k.get(*v);
                let s = k.add(cur, a);
                k.set(*v, s);
            }
            Acc::Nrm2 { blue, parts } => {
                for r in x {
                    if *blue {
                        blue_step(k, parts, *r);
                    } else {
                        // The square of an f32 (or f16, bf16) is exact and normal in f64.
                        let w = k.convert(*r, Scalar::F64);
                        let m = k.get(parts[1]);
                        let m = k.fma(w, w, m);
                        k.set(parts[1], m);
                    }
                }
            }
            Acc::Arg { max, value, index } => {
                // Strictly better only: the first index wins ties, NaN never wins.
                let a = complex::abs1(k, x);
                let v = k.get(*value);
                let take = if *max { k.gt(a, v) } else { k.lt(a, v) };
                let i = k.get(*index);
                let nv = k.select(take, a, v);
                let ni = k.select(take, element, i);
                k.set(*value, nv);
                k.set(*index, ni);
            }
        }
    }

    /// The accumulators' current values, in partial-slot order.
    fn values(&self, k: &mut Builder) -> Vec<Value> {
        let vars: Vec<Var> = match self {
            Acc::Sum { parts, .. } => parts.clone(),
            Acc::Asum(v) => vec![*v],
            Acc::Nrm2 { parts, .. } => parts.to_vec(),
            Acc::Arg { value, index, .. } => vec![*value, *index],
        };
        vars.iter().map(|v| k.get(*v)).collect()
    }

    /// Two work-items' values combined (sums add; iamax keeps the better candidate).
    fn combine(&self, k: &mut Builder, a: &[Value], b: &[Value]) -> Vec<Value> {
        match self {
            Acc::Arg { max, .. } => {
                let (v, i) = better_arg(k, *max, (a[0], a[1]), (b[0], b[1]));
                vec![v, i]
            }
            _ => a.iter().zip(b).map(|(x, y)| k.add(*x, *y)).collect(),
        }
    }

    /// Combines the workgroup's `block` work-items (the module docs) and writes its
    /// partials.
    pub fn store_partials(&self, k: &mut Builder, block: u32, partials: Buf) {
        let mine = self.values(k);
        let arrays: Vec<Buf> = mine
            .iter()
            .enumerate()
            .map(|(s, v)| k.shared(&format!("l1_partials{s}"), v.ty.scalar, block))
            .collect();
        let tid = k.thread_id();
        let at = |k: &mut Builder, i: Value| -> Vec<Value> {
            arrays.iter().map(|a| k.at(*a, i)).collect()
        };
        let own = at(k, tid);
        for ((a, o), v) in arrays.iter().zip(&own).zip(&mine) {
            k.store(*a, *o, *v);
        }
        k.barrier();
        let load = |k: &mut Builder, offs: &[Value]| -> Vec<Value> {
            arrays
                .iter()
                .zip(offs)
                .map(|(a, o)| k.load(*a, *o))
                .collect()
        };
        let mut s = block.next_power_of_two() / 2;
        while s > 1 {
            let active = k.lt(tid, s.min(block - s));
            k.if_(active, |k| {
                let other = k.add(tid, s);
                let theirs = at(k, other);
                let (a, b) = (load(k, &own), load(k, &theirs));
                let c = self.combine(k, &a, &b);
                for ((arr, o), v) in arrays.iter().zip(&own).zip(c) {
                    k.store(*arr, *o, v);
                }
            });
            k.barrier();
            s /= 2;
        }
        let first = k.eq(tid, 0u32);
        k.if_(first, |k| {
            let a = load(k, &own);
            let one = k.lit(1u32);
            let second = at(k, one);
            let b = load(k, &second);
            let total = self.combine(k, &a, &b);
            let grid = k.grid_size();
            let wg = k.workgroup_id();
            for (slot, v) in total.into_iter().enumerate() {
                let row = k.mul(grid, slot as u32);
                let i = k.add(row, wg);
                let off = k.at(partials, i);
                let wide = match v.ty.scalar {
                    Scalar::F32 => k.convert(v, Scalar::F64),
                    Scalar::U64 => k.bitcast(v, Type::F64),
                    _ => v,
                };
                k.store(partials, off, wide);
            }
        });
    }
}

/// The better of two (value, 0-based index) candidates: larger (`max`) or smaller
/// value, the smaller index on ties; the identity index u64::MAX never wins a tie.
pub(super) fn better_arg(
    k: &mut Builder,
    max: bool,
    (v, i): (Value, Value),
    (ov, oi): (Value, Value),
) -> (Value, Value) {
    let better = if max { k.gt(ov, v) } else { k.lt(ov, v) };
    let same = k.eq(ov, v);
    let earlier = k.lt(oi, i);
    let tie = k.and(same, earlier);
    let take = k.or(better, tie);
    (k.select(take, ov, v), k.select(take, oi, i))
}

/// One f64 magnitude's |r| into Blue's accumulators [small, medium, big] (LAPACK's
/// dnrm2 thresholds); NaN goes to the medium sum.
fn blue_step(k: &mut Builder, b: &[Var; 3], r: Value) {
    let a = k.abs(r);
    let is_big = k.gt(a, TBIG);
    let is_small = k.lt(a, TSML);
    let sb = k.mul(a, SBIG);
    let ss = k.mul(a, SSML);
    let [small, medium, big] = b.map(|v| k.get(v));
    let big2 = k.fma(sb, sb, big);
    let small2 = k.fma(ss, ss, small);
    let med2 = k.fma(a, a, medium);
    let nb = k.select(is_big, big2, big);
    let ns = k.select(is_small, small2, small);
    let mid = k.or(is_big, is_small);
    let nm = k.select(mid, medium, med2);
    k.set(b[0], ns);
    k.set(b[1], nm);
    k.set(b[2], nb);
}
