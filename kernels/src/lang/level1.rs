//! Level 1 `copy` and `axpby` written in the language: the first port candidate of
//! [`crate::level1`], with the PTX kernel's parameters ([`crate::level1::ptx_signature`])
//! and arithmetic (y = fma(β, y, α·x), or α·x when y is not read), so both give the
//! same bits.
//!
//! Work split as the PTX kernel's: a unit is one vector of `vector_bytes` (contiguous)
//! or one element (strided); work-item t of the workgroup handling tile g takes units
//! g·block·unroll + t + u·block for u < unroll, and with `grid_stride` the workgroups
//! loop over tiles g, g + grid, ... Every whole unit of a tile is loaded before any is
//! stored (the loads are in flight together); the unit holding the end of a contiguous
//! vector is handled element by element. Strided offsets are signed (x and y are the addresses
//! of logical element 0, increments may be negative).

use super::ir::{KernelDef, Scalar, Type, Value};
use super::{Buf, Builder};
use crate::level1::{accesses, L1Op, Level1Params, KERNEL};
use rocm_core::{DType, Error, Result, Target};

/// The kernel for `p` (`Copy` or `Axpby` of f32 or f64).
pub fn kernel(p: &Level1Params, target: &Target) -> Result<KernelDef> {
    let elem = match p.dtype {
        DType::F32 => Scalar::F32,
        DType::F64 => Scalar::F64,
        d => {
            return Err(Error::unsupported(
                format!("language Level 1 for {d}"),
                target,
            ))
        }
    };
    if !matches!(p.op, L1Op::Copy | L1Op::Axpby { .. }) {
        let what = format!("language Level 1 {:?}", p.op);
        return Err(Error::unsupported(what, target));
    }
    let es = elem.bytes();
    let lanes = if p.contiguous { p.vector_bytes / es } else { 1 };
    if p.contiguous && (p.vector_bytes % es != 0 || !matches!(lanes, 1 | 2 | 4)) {
        return Err(Error::invalid(
            "vector_bytes",
            format!("{} is not 1, 2 or 4 {} elements", p.vector_bytes, p.dtype),
        ));
    }
    let mut k = Builder::new(KERNEL, target)?;
    k.max_workgroup_size(p.block);
    let n = k.param("n", Scalar::U64);
    let (ax, ay) = accesses(p.op);
    let x = k.ptr("x", elem, ax);
    let incx = k.param("incx", Scalar::I64);
    let y = k.ptr("y", elem, ay);
    let incy = k.param("incy", Scalar::I64);
    let read_y = matches!(p.op, L1Op::Axpby { read_y: true });
    let scalars: Vec<Value> = match p.op {
        L1Op::Axpby { .. } => {
            let alpha = k.param("alpha0", elem);
            let beta = read_y.then(|| k.param("beta0", elem));
            std::iter::once(alpha).chain(beta).collect()
        }
        _ => vec![],
    };
    // y's new value from x's and (when read) y's.
    let apply = |k: &mut Builder, xv: Value, yv: Option<Value>| -> Value {
        match (scalars.as_slice(), yv) {
            ([alpha, beta], Some(yv)) => {
                let ax = k.mul(*alpha, xv);
                k.fma(*beta, yv, ax)
            }
            ([alpha, ..], _) => k.mul(*alpha, xv),
            _ => xv,
        }
    };
    let units = if p.contiguous {
        let t = k.add(n, (lanes - 1) as u64);
        k.shr(t, lanes.trailing_zeros())
    } else {
        n
    };
    let tid = k.thread_id();
    let tid = k.convert(tid, Scalar::U64);
    let tile_units = (p.block * p.unroll) as u64;
    // The units of one tile, from this work-item's first.
    let vector = Type::vec(elem, lanes as u8);
    let tile_body = |k: &mut Builder, first: Value| {
        // Phase 1: the loads of every whole unit of the tile, into variables, so all of
        // a work-item's loads are in flight together (as the PTX generator does).
        let mut staged = Vec::new();
        for u in 0..p.unroll {
            let unit = k.add(first, (u * p.block) as u64);
            let (xo, yo, whole) = if p.contiguous {
                let e0 = k.mul(unit, lanes as u64);
                let end = k.add(e0, lanes as u64);
                let off = k.mul(e0, es as u64);
                (off, off, k.le(end, n))
            } else {
                let (xo, yo) = (strided(k, x, unit, incx), strided(k, y, unit, incy));
                (xo, yo, k.lt(unit, n))
            };
            let zero = k.constant(vector, 0.0);
            let xs = k.var(zero);
            let ys = read_y.then(|| k.var(zero));
            k.if_(whole, |k| {
                let xv = k.load_vec(x, xo, lanes as u8);
                k.set(xs, xv);
                if let Some(ys) = ys {
                    let yv = k.load_vec(y, yo, lanes as u8);
                    k.set(ys, yv);
                }
            });
            staged.push((unit, yo, whole, xs, ys));
        }
        // Phase 2: arithmetic and stores; the unit holding the vector's end, element by
        // element.
        for (unit, yo, whole, xs, ys) in staged {
            k.if_(whole, |k| {
                let xv = k.get(xs);
                let yv = ys.map(|ys| k.get(ys));
                let r = apply(k, xv, yv);
                k.store(y, yo, r);
            });
            if !p.contiguous || lanes == 1 {
                continue;
            }
            let inside = k.lt(unit, units);
            let not_whole = k.not(whole);
            let last = k.and(inside, not_whole);
            k.if_(last, |k| {
                let e0 = k.mul(unit, lanes as u64);
                for e in 0..lanes {
                    let i = k.add(e0, e as u64);
                    let here = k.lt(i, n);
                    k.if_(here, |k| {
                        let o = k.at(x, i);
                        let xv = k.load(x, o);
                        let yv = read_y.then(|| k.load(y, o));
                        let r = apply(k, xv, yv);
                        k.store(y, o, r);
                    });
                }
            });
        }
    };
    let wg = k.workgroup_id();
    let wg = k.convert(wg, Scalar::U64);
    let first = k.fma(wg, tile_units, tid);
    if p.grid_stride {
        // Workgroups step over tiles by the grid.
        let grid = k.grid_size();
        let grid = k.convert(grid, Scalar::U64);
        let step = k.mul(grid, tile_units);
        k.for_range(first, units, step, tile_body);
    } else {
        tile_body(&mut k, first);
    }
    k.finish()
}

/// The signed byte offset of element `i` at increment `inc`, as the u64 the address
/// arithmetic wraps with.
fn strided(k: &mut Builder, buf: Buf, i: Value, inc: Value) -> Value {
    let i = k.bitcast(i, Type::I64);
    let step = k.mul(inc, buf.elem.bytes() as i64);
    let off = k.mul(i, step);
    k.bitcast(off, Type::U64)
}
