//! The Level 1 reductions' final pass ([`crate::level1::finish`]) in the language: one
//! workgroup of [`FINISH_LANES`] work-items; lane l combines partials l, l + 64, ... of
//! each slot in that order from −0.0 (iamax/iamin: the better candidate), work-item 0
//! then combines the 64 lanes in lane order and writes the result: the host's
//! [`finish_sum`](crate::level1::finish::finish_sum) order, so device and host agree
//! bit for bit.

use super::reduce::better_arg;
use crate::lang::ir::{Access, KernelDef, Scalar, Type, Value};
use crate::lang::{Buf, Builder};
use crate::level1::finish::{FinishParams, FINISH_KERNEL, FINISH_LANES};
use crate::level1::{L1Op, SBIG, SSML};
use rocm_core::{DType, Result, Target};

/// Partials of each slot a lane loads per step of the first phase (latency hiding: the
/// finish reads `grid / 64` partials per lane, which one load at a time makes a chain of
/// global-memory round trips).
const FINISH_IN_FLIGHT: u32 = 8;

/// The finish kernel of `p` on `target`: `partials: f64` (read), `result: out`
/// (written), `grid: u32`.
pub fn kernel(p: &FinishParams, target: &Target) -> Result<KernelDef> {
    p.validate()?;
    let mut k = Builder::new(FINISH_KERNEL, target)?;
    k.max_workgroup_size(FINISH_LANES);
    let partials = k.ptr("partials", Scalar::F64, Access::Read);
    let (real, comps) = match p.out {
        DType::F32 => (Scalar::F32, 1),
        DType::C32 => (Scalar::F32, 2),
        DType::C64 => (Scalar::F64, 2),
        DType::I64 => (Scalar::U64, 1),
        _ => (Scalar::F64, 1),
    };
    let result = k.ptr_dtype("result", p.out, real, Access::Write);
    let grid = k.param("grid", Scalar::U32);
    let tid = k.thread_id();
    let slots = p.slots();
    let arg = match p.op {
        L1Op::Iamax { max } => Some(max),
        _ => None,
    };
    let slot_ty = |s: usize| {
        if arg.is_some() && s == 1 {
            Scalar::U64
        } else {
            Scalar::F64
        }
    };
    let lanes: Vec<Buf> = (0..slots)
        .map(|s| k.shared(&format!("finish_lanes{s}"), slot_ty(s), FINISH_LANES))
        .collect();
    let identity = |k: &mut Builder| -> Vec<Value> {
        match arg {
            Some(max) => vec![
                k.constant(Type::F64, if max { -1.0 } else { f64::INFINITY }),
                k.constant_bits(Type::U64, u64::MAX),
            ],
            None => (0..slots).map(|_| k.constant(Type::F64, -0.0)).collect(),
        }
    };
    let combine = |k: &mut Builder, a: &[Value], b: &[Value]| -> Vec<Value> {
        match arg {
            Some(max) => {
                let (v, i) = better_arg(k, max, (a[0], a[1]), (b[0], b[1]));
                vec![v, i]
            }
            None => a.iter().zip(b).map(|(x, y)| k.add(*x, *y)).collect(),
        }
    };

    // Phase 1: lane `tid` over partials tid, tid + 64, ... of every slot, combined in
    // that order, FINISH_IN_FLIGHT loads of each slot in flight per step. A load past
    // the grid reads the last partial (in bounds) and is replaced by the identity, which
    // changes no bits: no branch between the loads.
    let init = identity(&mut k);
    let acc: Vec<_> = init.iter().map(|v| k.var(*v)).collect();
    let slot_bytes = k.mul_wide(grid, 8u32);
    let last = k.sub(grid, 1u32);
    k.for_range(tid, grid, FINISH_LANES * FINISH_IN_FLIGHT, |k, j| {
        let mut steps: Vec<(Value, Vec<Value>)> = Vec::new();
        for u in 0..FINISH_IN_FLIGHT {
            let ju = k.add(j, u * FINISH_LANES);
            let inside = k.lt(ju, grid);
            let clamped = k.min(ju, last);
            let mut off = k.at(partials, clamped);
            let mut loaded = Vec::new();
            for s in 0..slots {
                if s > 0 {
                    off = k.add(off, slot_bytes);
                }
                let v = k.load(partials, off);
                loaded.push(if slot_ty(s) == Scalar::U64 {
                    k.bitcast(v, Type::U64)
                } else {
                    v
                });
            }
            steps.push((inside, loaded));
        }
        let ids = identity(k);
        for (inside, loaded) in steps {
            let vals: Vec<Value> = loaded
                .iter()
                .zip(&ids)
                .map(|(v, id)| k.select(inside, *v, *id))
                .collect();
            let cur: Vec<Value> = acc.iter().map(|v| k.get(*v)).collect();
            for (v, n) in acc.iter().zip(combine(k, &cur, &vals)) {
                k.set(*v, n);
            }
        }
    });
    for (buf, v) in lanes.iter().zip(&acc) {
        let off = k.at(*buf, tid);
        let val = k.get(*v);
        k.store(*buf, off, val);
    }
    k.barrier();

    // Phase 2 (work-item 0): the lanes in order, then the result (grid = 0: n = 0).
    let first = k.eq(tid, 0u32);
    k.if_(first, |k| {
        let mut total = identity(k);
        for l in 0..FINISH_LANES {
            let lane: Vec<Value> = lanes
                .iter()
                .map(|b| {
                    let off = k.at(*b, l);
                    k.load(*b, off)
                })
                .collect();
            total = combine(k, &total, &lane);
        }
        let empty = k.eq(grid, 0u32);
        let out: Vec<Value> = match arg {
            Some(_) => {
                // 1-based; u64::MAX + 1 wraps to 0: none qualified gives 1.
                let one_based = k.add(total[1], 1u64);
                let none = k.eq(one_based, 0u64);
                let idx = k.select(none, 1u64, one_based);
                vec![k.select(empty, 0u64, idx)]
            }
            None => {
                let reals = if p.op == L1Op::Nrm2 {
                    vec![blue_finish(k, total[0], total[1], total[2])]
                } else {
                    total[..comps].to_vec()
                };
                reals
                    .iter()
                    .map(|r| {
                        let r = k.select(empty, 0.0, *r);
                        if real == Scalar::F32 {
                            k.convert(r, Scalar::F32)
                        } else {
                            r
                        }
                    })
                    .collect()
            }
        };
        for (c, v) in out.iter().enumerate() {
            let off = k.at(result, c as u64);
            k.store(result, off, *v);
        }
    });
    k.finish()
}

/// [`crate::level1::blue_finish`]: every branch computed, the taken one selected (the
/// others may be NaN or ∞; selection discards them).
fn blue_finish(k: &mut Builder, small: Value, medium: Value, big: Value) -> Value {
    // big > 0: sqrt(big + (medium·SBIG)·SBIG) / SBIG.
    let m1 = k.mul(medium, SBIG);
    let m2 = k.mul(m1, SBIG);
    let b = k.add(big, m2);
    let sb = k.sqrt(b);
    let from_big = k.div(sb, SBIG);
    // small > 0 and medium > 0: ymax·sqrt(1 + (ymin/ymax)²).
    let ymed = k.sqrt(medium);
    let ss = k.sqrt(small);
    let ysml = k.div(ss, SSML);
    let sml_bigger = k.gt(ysml, ymed);
    let ymin = k.select(sml_bigger, ymed, ysml);
    let ymax = k.select(sml_bigger, ysml, ymed);
    let q = k.div(ymin, ymax);
    let q2 = k.mul(q, q);
    let s1 = k.add(q2, 1.0);
    let r1 = k.sqrt(s1);
    let from_both = k.mul(ymax, r1);
    let big_pos = k.gt(big, 0.0);
    let small_pos = k.gt(small, 0.0);
    let medium_pos = k.gt(medium, 0.0);
    // Innermost first: medium only, small only, both, big.
    let r = k.select(medium_pos, from_both, ysml);
    let r = k.select(small_pos, r, ymed);
    k.select(big_pos, from_big, r)
}
