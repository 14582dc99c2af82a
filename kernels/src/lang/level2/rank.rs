//! The rank-update kernel `rocm_blas_rank_update` (contract, layout and accuracy:
//! [`crate::level2::rank`]) for f32, f64, Complex32 and Complex64, every op, dense or
//! packed storage, either triangle.
//!
//! Work-item t of workgroup (gx, gy) owns row i = gx·block + t and walks the column
//! groups j0 = gy·cols, j0 + G·cols, … < n (G the launched grid's y count, so any grid
//! covers every column). Per group every stored element's load of A is issued before
//! the first is updated; each gets A(i, j) + x(i)·c1 (+ y(i)·c2), c1 = op(y(j))·α,
//! c2 = op(x(j))·α' as fused multiply-adds onto zero (the hand-written kernels' order),
//! the Hermitian diagonal's imaginary part set to zero.

use crate::lang::ir::{Access, Axis, Cache, KernelDef, Scalar, Special, Type, Value, Var};
use crate::lang::level1::{complex, Layout};
use crate::lang::{Buf, Builder};
use crate::level2::rank::{RankParams, KERNEL, UPPER};
use crate::level2::signatures::scalar_names;
use crate::level2::Storage;
use rocm_core::{Result, Target};

/// One vector argument: its buffer and signed increment in bytes (i64).
struct Vector {
    buf: Buf,
    step: Value,
}

/// The reals of the element at byte `off` (one access of the whole element).
fn load(k: &mut Builder, buf: Buf, off: Value, comps: u8, cache: Cache) -> Vec<Value> {
    let ty = Type::vec(buf.elem, comps);
    let v = k.load_with(buf, off, ty, ty.bytes(), ty.bytes(), cache);
    if comps == 1 {
        vec![v]
    } else {
        k.unpack(v)
    }
}

/// The element at `off` where `cond` holds, else zero (the load skipped).
fn load_if(
    k: &mut Builder,
    cond: Value,
    buf: Buf,
    off: Value,
    comps: u8,
    cache: Cache,
) -> Vec<Value> {
    let zero = k.constant(Type::of(buf.elem), 0.0);
    let vars: Vec<Var> = (0..comps).map(|_| k.var(zero)).collect();
    k.if_(cond, |k| {
        for (var, v) in vars.iter().zip(load(k, buf, off, comps, cache)) {
            k.set(*var, v);
        }
    });
    vars.iter().map(|v| k.get(*v)).collect()
}

impl Vector {
    /// The byte offset of logical element `i` (u64): i·inc·size, signed.
    fn at(&self, k: &mut Builder, i: Value) -> Value {
        let i = k.bitcast(i, Type::I64);
        let off = k.mul(i, self.step);
        k.bitcast(off, Type::U64)
    }
}

/// The kernel of `p` on `target`.
pub fn kernel(p: &RankParams, target: &Target) -> Result<KernelDef> {
    p.validate()?;
    let tr = p.op.traits();
    let l = Layout::of(p.dtype)?;
    let (real, comps) = (l.real, l.comps as u8);
    let es = u64::from(real.bytes()) * u64::from(comps);
    let mut k = Builder::new(KERNEL, target)?;
    k.max_workgroup_size(p.block);
    let m = k.param("m", Scalar::U64);
    let n = k.param("n", Scalar::U64);
    let a = k.ptr_dtype("a", p.dtype, real, Access::ReadWrite);
    let lda = k.param("lda", Scalar::U64);
    let vector = |k: &mut Builder, name: &str, inc: &str| {
        let buf = k.ptr_dtype(name, p.dtype, real, Access::Read);
        let inc = k.param(inc, Scalar::I64);
        let step = k.mul(inc, es as i64);
        Vector { buf, step }
    };
    let x = vector(&mut k, "x", "incx");
    let y = vector(&mut k, "y", "incy");
    let alpha: Vec<Value> = scalar_names(p.dtype, "alpha", false)
        .iter()
        .map(|name| k.param(name, real))
        .collect();
    let flags = k.param("flags", Scalar::U32);
    let upper_bit = k.and(flags, UPPER);
    let upper = k.ne(upper_bit, 0u32);
    // α' of the second term: ᾱ for her2, α otherwise.
    let alpha2 = match alpha[..] {
        [re, im] if tr.hermitian => vec![re, k.neg(im)],
        _ => alpha.clone(),
    };

    let wg = k.workgroup_id();
    let tid = k.thread_id();
    let row0 = k.mul_wide(wg, p.block);
    let tid = k.convert(tid, Scalar::U64);
    let i = k.add(row0, tid);
    let row_in = k.lt(i, m);
    let xi_at = x.at(&mut k, i);
    let xi = load_if(&mut k, row_in, x.buf, xi_at, comps, Cache::ReadOnly);
    let yi = tr.rank2.then(|| {
        let yi_at = y.at(&mut k, i);
        load_if(&mut k, row_in, y.buf, yi_at, comps, Cache::ReadOnly)
    });

    let gy = k.special(Special::WorkgroupId(Axis::Y));
    let groups = k.special(Special::GridSize(Axis::Y));
    let first = k.mul_wide(gy, p.cols);
    let stride = k.mul_wide(groups, p.cols);
    // Column j0 + c of a group: (j, whether (i, j) is stored here, its byte offset).
    let cell = |k: &mut Builder, j0: Value, c: u32| {
        let j = if c == 0 { j0 } else { k.add(j0, u64::from(c)) };
        let col_in = k.lt(j, n);
        let mut inside = k.and(row_in, col_in);
        if tr.triangle {
            let (le, ge) = (k.le(i, j), k.ge(i, j));
            let (up, lower) = (k.and(upper, le), k.not(upper));
            let low = k.and(lower, ge);
            let st = k.or(up, low);
            inside = k.and(inside, st);
        }
        let start = match p.storage {
            Storage::Packed => {
                // j·f/2 with f = j + 1 (upper) or 2n − j − 1 (lower): j(j+1)/2 or
                // j·n − j(j+1)/2 (j·f is even).
                let (up, n2) = (k.add(j, 1u64), k.add(n, n));
                let low = k.sub(n2, up);
                let f = k.select(upper, up, low);
                let jf = k.mul(j, f);
                k.shr(jf, 1u32)
            }
            _ => k.mul(j, lda),
        };
        let index = k.add(start, i);
        (j, inside, k.mul(index, es))
    };
    k.for_range(first, n, stride, |k, j0| {
        // Phase 1: every stored element's load of A (A is written: the coherent path).
        let staged: Vec<Vec<Value>> = (0..p.cols)
            .map(|c| {
                let (_, inside, off) = cell(k, j0, c);
                load_if(k, inside, a, off, comps, Cache::Default)
            })
            .collect();
        // Phase 2: the updates and stores (the cells recomputed, not kept live).
        for (c, av) in (0..p.cols).zip(staged) {
            let (j, inside, off) = cell(k, j0, c);
            k.if_(inside, |k| {
                let zero = vec![k.constant(Type::of(real), 0.0); comps as usize];
                let yj_at = y.at(k, j);
                let yj = load(k, y.buf, yj_at, comps, Cache::ReadOnly);
                let c1 = complex::fma(k, &zero, &yj, &alpha, tr.conj);
                let mut v = complex::fma(k, &av, &xi, &c1, false);
                if let Some(yi) = &yi {
                    let xj_at = x.at(k, j);
                    let xj = load(k, x.buf, xj_at, comps, Cache::ReadOnly);
                    let c2 = complex::fma(k, &zero, &xj, &alpha2, tr.conj);
                    v = complex::fma(k, &v, yi, &c2, false);
                }
                if tr.hermitian && comps == 2 {
                    let diag = k.eq(i, j);
                    v[1] = k.select(diag, 0.0, v[1]);
                }
                let out = if comps == 1 { v[0] } else { k.pack(&v) };
                k.store(a, off, out);
            });
        }
    });
    k.finish()
}
