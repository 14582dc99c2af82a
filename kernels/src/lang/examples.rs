//! Kernels written in the language, each once for every target: the test cases of the
//! interpreter and both lowerings, and the worked examples of the docs.
//!
//! Launch rules shared by all: one-dimensional grids; workgroups of at most 256
//! work-items, a multiple of the target's wave size where the kernel uses wave
//! operations (the reductions and the softmax).

use super::ir::{Access, KernelDef, Reduce, Scalar, Shuffle, Type, Value};
use super::{Buf, Builder};
use rocm_core::{Result, Target};

/// `c[i] = a[i] + b[i]` for `i < n` (f32). Parameters: `a, b, c, n: u32`.
pub fn vector_add(target: &Target) -> Result<KernelDef> {
    let mut k = Builder::new("vector_add", target)?;
    let a = k.ptr("a", Scalar::F32, Access::Read);
    let b = k.ptr("b", Scalar::F32, Access::Read);
    let c = k.ptr("c", Scalar::F32, Access::Write);
    let n = k.param("n", Scalar::U32);
    let i = k.global_id();
    let inside = k.lt(i, n);
    k.if_(inside, |k| {
        let off = k.at(a, i);
        let (x, y) = (k.load(a, off), k.load(b, off));
        let s = k.add(x, y);
        k.store(c, off, s);
    });
    k.finish()
}

/// `y[i] = alpha·x[i] + y[i]` (f64, one fma) over a grid-stride loop, so any grid
/// covers any `n`. Parameters: `n: u32, alpha: f64, x, y`.
pub fn axpy(target: &Target) -> Result<KernelDef> {
    let mut k = Builder::new("axpy", target)?;
    let n = k.param("n", Scalar::U32);
    let alpha = k.param("alpha", Scalar::F64);
    let x = k.ptr("x", Scalar::F64, Access::Read);
    let y = k.ptr("y", Scalar::F64, Access::ReadWrite);
    let start = k.global_id();
    let stride = grid_stride(&mut k);
    k.for_range(start, n, stride, |k, i| {
        let off = k.at(x, i);
        let (xv, yv) = (k.load(x, off), k.load(y, off));
        let r = k.fma(alpha, xv, yv);
        k.store(y, off, r);
    });
    k.finish()
}

/// Work-items in the whole grid (the stride of a grid-stride loop).
fn grid_stride(k: &mut Builder) -> Value {
    let (g, s) = (k.grid_size(), k.workgroup_size());
    k.mul(g, s)
}

/// `y[i] = f16(x[i])`, rounded to nearest even. Parameters: `n: u32, x: f32, y: f16`.
pub fn convert_f16(target: &Target) -> Result<KernelDef> {
    let mut k = Builder::new("convert_f16", target)?;
    let n = k.param("n", Scalar::U32);
    let x = k.ptr("x", Scalar::F32, Access::Read);
    let y = k.ptr("y", Scalar::F16, Access::Write);
    let i = k.global_id();
    let inside = k.lt(i, n);
    k.if_(inside, |k| {
        let xo = k.at(x, i);
        let v = k.load(x, xo);
        let h = k.convert(v, Scalar::F16);
        let yo = k.at(y, i);
        k.store(y, yo, h);
    });
    k.finish()
}

/// The identity of a reduction on `ty`.
fn identity(k: &mut Builder, op: Reduce, ty: Type) -> Value {
    let bits = match (op, ty.scalar) {
        (Reduce::Add, _) => 0,
        (Reduce::Max, Scalar::F32) => f32::NEG_INFINITY.to_bits() as u64,
        (Reduce::Min, Scalar::F32) => f32::INFINITY.to_bits() as u64,
        (Reduce::Max, Scalar::F64) => f64::NEG_INFINITY.to_bits(),
        (Reduce::Min, Scalar::F64) => f64::INFINITY.to_bits(),
        (Reduce::Max, Scalar::I32) => i32::MIN as u32 as u64,
        (Reduce::Min, Scalar::I32) => i32::MAX as u64,
        (Reduce::Max, _) => 0,
        (Reduce::Min, _) => u32::MAX as u64,
    };
    k.constant_bits(ty, bits)
}

/// Scratch for [`workgroup_reduce`]: one element per wave of the largest workgroup.
pub fn reduce_scratch(k: &mut Builder, elem: Scalar) -> Buf {
    let waves = 256u32.div_ceil(k.wave_size());
    k.max_workgroup_size(256);
    k.shared("reduce_scratch", elem, waves)
}

/// The reduction of `v` over the workgroup, on every work-item: each wave reduces, lane
/// 0 of each wave leaves its result in `scratch`, and after a barrier every wave
/// reduces the waves' results in wave order (so all get the same bits). Ends with a
/// barrier, so `scratch` may be reused. Needs workgroup-uniform control flow.
pub fn workgroup_reduce(k: &mut Builder, op: Reduce, v: Value, scratch: Buf) -> Value {
    let w = k.wave_reduce(op, v);
    let (lane, wave) = (k.lane_id(), k.wave_id());
    let first = k.eq(lane, 0u32);
    k.if_(first, |k| {
        let off = k.at(scratch, wave);
        k.store(scratch, off, w);
    });
    k.barrier();
    let size = k.workgroup_size();
    let waves = k.shr(size, k.wave_size().trailing_zeros());
    let init = identity(k, op, v.ty);
    let partial = k.var(init);
    let mine = k.lt(lane, waves);
    k.if_(mine, |k| {
        let off = k.at(scratch, lane);
        let p = k.load(scratch, off);
        k.set(partial, p);
    });
    let p = k.get(partial);
    let total = k.wave_reduce(op, p);
    k.barrier();
    total
}

/// `partials[g] = Σ x[i]` over the elements workgroup g visits in a grid-stride loop
/// (f32 or f64): per-lane sums in index order, then [`workgroup_reduce`]. Parameters:
/// `n: u32, x, partials`.
pub fn workgroup_sum(target: &Target, elem: Scalar) -> Result<KernelDef> {
    let mut k = Builder::new(format!("workgroup_sum_{}", elem.name()), target)?;
    let n = k.param("n", Scalar::U32);
    let x = k.ptr("x", elem, Access::Read);
    let partials = k.ptr("partials", elem, Access::Write);
    let scratch = reduce_scratch(&mut k, elem);
    let acc = k.constant(Type::of(elem), 0.0);
    let acc = k.var(acc);
    let start = k.global_id();
    let stride = grid_stride(&mut k);
    k.for_range(start, n, stride, |k, i| {
        let off = k.at(x, i);
        let v = k.load(x, off);
        let a = k.get(acc);
        let s = k.add(a, v);
        k.set(acc, s);
    });
    let a = k.get(acc);
    let total = workgroup_reduce(&mut k, Reduce::Add, a, scratch);
    let t = k.thread_id();
    let first = k.eq(t, 0u32);
    k.if_(first, |k| {
        let g = k.workgroup_id();
        let off = k.at(partials, g);
        k.store(partials, off, total);
    });
    k.finish()
}

/// A divergent branch: where `x[i] > 0`, `y[i] = √x[i]` and `flag[i] = i`; elsewhere
/// `y[i] = x[i]·x[i] + 1` and `flag[i] = !i`, the flag stored inside each branch and y
/// through a variable after it. Parameters: `n: u32, x: f32, y: f32, flag: u32`.
pub fn divergent(target: &Target) -> Result<KernelDef> {
    let mut k = Builder::new("divergent", target)?;
    let n = k.param("n", Scalar::U32);
    let x = k.ptr("x", Scalar::F32, Access::Read);
    let y = k.ptr("y", Scalar::F32, Access::Write);
    let flag = k.ptr("flag", Scalar::U32, Access::Write);
    let i = k.global_id();
    let inside = k.lt(i, n);
    k.if_(inside, |k| {
        let off = k.at(x, i);
        let v = k.load(x, off);
        let out = k.var(0.0f32);
        let positive = k.gt(v, 0.0);
        k.if_else(
            positive,
            |k| {
                let r = k.sqrt(v);
                k.set(out, r);
                k.store(flag, off, i);
            },
            |k| {
                let r = k.fma(v, v, 1.0);
                k.set(out, r);
                let f = k.not(i);
                k.store(flag, off, f);
            },
        );
        let r = k.get(out);
        k.store(y, off, r);
    });
    k.finish()
}

/// A loop with a varying trip count and a `continue`: `y[i] = Σ x[(i + j) % n]` over
/// `j < count[i]` with `j % 3 != 2`, summed in j order (f32). Parameters:
/// `n: u32, count: u32, x: f32, y: f32`.
pub fn varying_loop(target: &Target) -> Result<KernelDef> {
    let mut k = Builder::new("varying_loop", target)?;
    let n = k.param("n", Scalar::U32);
    let count = k.ptr("count", Scalar::U32, Access::Read);
    let x = k.ptr("x", Scalar::F32, Access::Read);
    let y = k.ptr("y", Scalar::F32, Access::Write);
    let i = k.global_id();
    let inside = k.lt(i, n);
    k.if_(inside, |k| {
        let off = k.at(count, i);
        let trips = k.load(count, off);
        let sum = k.var(0.0f32);
        k.for_range(0u32, trips, 1u32, |k, j| {
            let r = k.rem(j, 3u32);
            let skip = k.eq(r, 2u32);
            k.continue_if(skip);
            let ij = k.add(i, j);
            let at = k.rem(ij, n);
            let xo = k.at(x, at);
            let v = k.load(x, xo);
            let s = k.get(sum);
            let s = k.add(s, v);
            k.set(sum, s);
        });
        let s = k.get(sum);
        k.store(y, off, s);
    });
    k.finish()
}

/// Softmax of each row of a row-major `rows × cols` f32 matrix, one workgroup per row:
/// m = max x, e_j = 2^((x_j − m)·log₂e), y_j = e_j / Σe. The exponentials are
/// computed twice (for the sum, then for the output) with the same bits. Parameters:
/// `cols: u32, x, y`; launch `rows` workgroups.
pub fn softmax_row(target: &Target) -> Result<KernelDef> {
    let mut k = Builder::new("softmax_row", target)?;
    let cols = k.param("cols", Scalar::U32);
    let x = k.ptr("x", Scalar::F32, Access::Read);
    let y = k.ptr("y", Scalar::F32, Access::Write);
    let scratch = reduce_scratch(&mut k, Scalar::F32);
    let row = k.workgroup_id();
    let base = k.mul_wide(row, cols);
    let (t, size) = (k.thread_id(), k.workgroup_size());
    // Byte offset of element j of this row.
    let offset = |k: &mut Builder, j: Value| {
        let j = k.convert(j, Scalar::U64);
        let e = k.add(base, j);
        k.mul(e, 4u64)
    };
    let exp = |k: &mut Builder, v: Value, m: Value| {
        let d = k.sub(v, m);
        let d = k.mul(d, std::f32::consts::LOG2_E);
        k.exp2(d)
    };
    let m = k.var(f32::NEG_INFINITY);
    k.for_range(t, cols, size, |k, j| {
        let o = offset(k, j);
        let v = k.load(x, o);
        let mv = k.get(m);
        let mv = k.max(mv, v);
        k.set(m, mv);
    });
    let mv = k.get(m);
    let row_max = workgroup_reduce(&mut k, Reduce::Max, mv, scratch);
    let s = k.var(0.0f32);
    k.for_range(t, cols, size, |k, j| {
        let o = offset(k, j);
        let v = k.load(x, o);
        let e = exp(k, v, row_max);
        let sv = k.get(s);
        let sv = k.add(sv, e);
        k.set(s, sv);
    });
    let sv = k.get(s);
    let total = workgroup_reduce(&mut k, Reduce::Add, sv, scratch);
    k.for_range(t, cols, size, |k, j| {
        let o = offset(k, j);
        let v = k.load(x, o);
        let e = exp(k, v, row_max);
        let r = k.div(e, total);
        k.store(y, o, r);
    });
    k.finish()
}

/// The wave operations one by one (not in [`all`]: no reduction): per work-item i, in
/// `out[4i..4i+4]` the shuffles of `x` from lane `x % 64` (idx, modulo the wave size),
/// up 3, down 5 and xor 9; in `votes[3i..3i+3]` the ballot of "x odd", then any and all
/// of "x > 2³¹" as 0 or 1. Parameters: `x: u32, out: u32, votes: u64`; workgroups a
/// multiple of the wave size.
pub fn wave_ops(target: &Target) -> Result<KernelDef> {
    let mut k = Builder::new("wave_ops", target)?;
    let x = k.ptr("x", Scalar::U32, Access::Read);
    let out = k.ptr("out", Scalar::U32, Access::Write);
    let votes = k.ptr("votes", Scalar::U64, Access::Write);
    let i = k.global_id();
    let off = k.at(x, i);
    let v = k.load(x, off);
    let src = k.rem(v, 64u32);
    let shuffled = [
        k.shuffle(v, Shuffle::Idx(src)),
        k.shuffle(v, Shuffle::Up(3)),
        k.shuffle(v, Shuffle::Down(5)),
        k.shuffle(v, Shuffle::Xor(9)),
    ];
    let four = k.mul(i, 4u32);
    for (j, s) in shuffled.iter().enumerate() {
        let at = k.add(four, j as u32);
        let o = k.at(out, at);
        k.store(out, o, *s);
    }
    let low = k.and(v, 1u32);
    let odd = k.eq(low, 1u32);
    let big = k.gt(v, 1u32 << 31);
    let b = k.ballot(odd);
    let any = k.any(big);
    let all = k.all(big);
    let any = k.select(any, 1u64, 0u64);
    let all = k.select(all, 1u64, 0u64);
    let three = k.mul(i, 3u32);
    for (j, s) in [b, any, all].iter().enumerate() {
        let at = k.add(three, j as u32);
        let o = k.at(votes, at);
        k.store(votes, o, *s);
    }
    k.finish()
}

/// Every example for `target`, by name (f32 and f64 for the workgroup sum).
pub fn all(target: &Target) -> Result<Vec<KernelDef>> {
    Ok(vec![
        vector_add(target)?,
        axpy(target)?,
        convert_f16(target)?,
        workgroup_sum(target, Scalar::F32)?,
        workgroup_sum(target, Scalar::F64)?,
        divergent(target)?,
        varying_loop(target)?,
        softmax_row(target)?,
    ])
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lang::Uniformity;

    #[test]
    fn every_example_builds_on_every_gpu_family() {
        for t in ["sm_80", "sm_90a", "gfx908", "gfx90a", "gfx942", "gfx1100"] {
            let target: Target = t.parse().unwrap();
            let all = all(&target).unwrap_or_else(|e| panic!("{t}: {e}"));
            assert_eq!(all.len(), 8);
        }
    }

    #[test]
    fn softmax_row_max_is_uniform_enough_for_scalar_registers() {
        let k = softmax_row(&"gfx90a".parse().unwrap()).unwrap();
        // The kernel's loop bounds are uniform except the start (thread id), so its
        // loops are divergent; reductions still sit in uniform control flow.
        assert!(k.vars.iter().any(|v| v.1 == Uniformity::Varying));
        assert_eq!(k.shared.len(), 1);
        assert_eq!(k.shared_bytes(), 4 * 4);
    }
}
