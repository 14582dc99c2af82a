//! The reductions' first pass: per-work-item accumulators, the workgroup's combination
//! and its partials.
//!
//! Each work-item accumulates its elements in element order in the compute type (dot,
//! dotc, sum: re and im; asum: Σ|re| + |im|; nrm2: f64, Blue's three accumulators for
//! f64 data, else the exact f64 squares in the medium one; iamax/iamin: the first
//! strictly best |re| + |im| and its index). The
//! workgroup then combines its work-items in a fixed tree independent of the wave size,
//! so every target gives the same bits: a butterfly of shuffles (lane l with l ^ 16,
//! then ^ 8, ..., ^ 1) within each 32-lane group, the groups' totals through shared
//! memory, and the same butterfly over the groups (group g at lane g, the identity past
//! the last) on the first wave. Work-item 0 writes the workgroup's partials as f64s (an
//! index as its u64 bits), slot s of workgroup g at `partials[s·grid + g]`.

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
                let [v, i] = arg_identity(k, max, ct);
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

    /// The identity of [`Acc::combine`] in each partial slot's type: −0.0 for sums
    /// (x + −0.0 = x for every x), a candidate that never wins for iamax/iamin.
    fn identity(&self, k: &mut Builder, types: &[Type]) -> Vec<Value> {
        match self {
            Acc::Arg { max, .. } => arg_identity(k, *max, types[0]).to_vec(),
            _ => types.iter().map(|t| k.constant(*t, -0.0)).collect(),
        }
    }

    /// Two work-items' values combined (sums add; iamax keeps the better candidate).
    /// Symmetric: combine(a, b) and combine(b, a) are the same bits.
    fn combine(&self, k: &mut Builder, a: &[Value], b: &[Value]) -> Vec<Value> {
        match self {
            Acc::Arg { max, .. } => {
                let (v, i) = better_arg(k, *max, (a[0], a[1]), (b[0], b[1]));
                vec![v, i]
            }
            _ => a.iter().zip(b).map(|(x, y)| k.add(*x, *y)).collect(),
        }
    }

    /// A butterfly over the lanes l ^ m (m = `span`/2, ..., 1) of each 32-lane group:
    /// every lane ends with the combination of its group's first `span` lanes, the same
    /// bits on every lane (combine is symmetric) and on every wave size.
    fn butterfly(&self, k: &mut Builder, mut vals: Vec<Value>, span: u32) -> Vec<Value> {
        let mut m = span / 2;
        while m >= 1 {
            let other: Vec<Value> = vals.iter().map(|v| k.shuffle_xor(*v, m)).collect();
            vals = self.combine(k, &vals, &other);
            m /= 2;
        }
        vals
    }

    /// Combines the workgroup's `block` work-items (the module docs) and writes its
    /// partials.
    pub fn store_partials(&self, k: &mut Builder, block: u32, partials: Buf) {
        let mine = self.values(k);
        let types: Vec<Type> = mine.iter().map(|v| v.ty).collect();
        let group_total = self.butterfly(k, mine, GROUP);
        let groups = block / GROUP;
        let tid = k.thread_id();
        let total = if groups == 1 {
            group_total
        } else {
            let arrays: Vec<Buf> = types
                .iter()
                .enumerate()
                .map(|(s, t)| k.shared(&format!("l1_partials{s}"), t.scalar, groups))
                .collect();
            let lane = k.and(tid, GROUP - 1);
            let group = k.shr(tid, GROUP.trailing_zeros());
            let leader = k.eq(lane, 0u32);
            k.if_(leader, |k| {
                for (a, v) in arrays.iter().zip(&group_total) {
                    let off = k.at(*a, group);
                    k.store(*a, off, *v);
                }
            });
            k.barrier();
            // The first wave: lane l of each 32-lane group takes group l's total (the
            // identity past the last group), then a butterfly over the groups.
            let total: Vec<Var> = group_total.iter().map(|v| k.var(*v)).collect();
            let wave = k.wave_id();
            let first_wave = k.eq(wave, 0u32);
            k.if_(first_wave, |k| {
                let has = k.lt(lane, groups);
                let from = k.min(lane, groups - 1);
                let ids = self.identity(k, &types);
                let vals: Vec<Value> = arrays
                    .iter()
                    .zip(&ids)
                    .map(|(a, id)| {
                        let off = k.at(*a, from);
                        let v = k.load(*a, off);
                        k.select(has, v, *id)
                    })
                    .collect();
                let all = self.butterfly(k, vals, groups.next_power_of_two());
                for (t, v) in total.iter().zip(all) {
                    k.set(*t, v);
                }
            });
            total.iter().map(|v| k.get(*v)).collect()
        };
        let first = k.eq(tid, 0u32);
        k.if_(first, |k| {
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

/// Lanes of the fixed first level of the workgroup combination (a wave on wave32
/// targets, half of one on wave64: the same tree on both).
const GROUP: u32 = 32;

/// The candidate of iamax (`max`) / iamin that never wins: value −1 (+∞) and index
/// u64::MAX, in value type `ty`.
fn arg_identity(k: &mut Builder, max: bool, ty: Type) -> [Value; 2] {
    [
        k.constant(ty, if max { -1.0 } else { f64::INFINITY }),
        k.constant_bits(Type::U64, u64::MAX),
    ]
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
