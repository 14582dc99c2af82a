//! The sequential generators' fill kernel (XORWOW: its step is 32-bit xor, shift and
//! add, written once over [`crate::ops::Ops`]), its generator and plan. MRG32k3a has no
//! kernel yet (its step needs a 64-bit product modulo m1, which the language lacks).
//!
//! Work split, as cuRAND's host ordering ([`crate::sequential`]): work-item `i` is the
//! ordering's thread `(c0 + i) mod threads` for the fill's first chunk `c0`; it starts
//! from that thread's state at its first chunk (made on the host by jumps, in slot 1)
//! and writes chunk `c0 + i + k·threads` on iteration `k`, one group of values each.

use crate::dist::{box_muller, uniform, Dist, Kind};
use crate::gpu::{dist_bindings, one_step, out_binding, scalar_of, Search};
use crate::math::exp;
use crate::sequential::{start_step, Group, Order};
use crate::xorwow;
use rocm_core::{DType, Error, Result, Target};
use rocm_kernels::exec::DeviceView;
use rocm_kernels::generator::{Generator, LaunchRule, Program};
use rocm_kernels::lang::{self, Access, Builder, KernelDef, Scalar, Type, Value};
use rocm_kernels::plan::{Arg, Plan, ProgramRef};
use rocm_kernels::signature::Value as ArgValue;
use serde::{Deserialize, Serialize};

/// The kernel's name.
pub const KERNEL: &str = "rand_xorwow_fill";
/// Words of one thread's state in the states buffer: v0..v4, d.
pub const STATE_WORDS: usize = 6;

/// One kernel variant.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Params {
    pub dist: Dist,
    pub dtype: DType,
    /// Work-items per workgroup.
    pub block: u32,
}

/// The generator of the XORWOW fill kernels.
pub struct XorwowKernels;

impl Generator for XorwowKernels {
    type Params = Params;
    const NAME: &'static str = "rand_xorwow";
    const VERSION: u32 = 1;

    fn generate(p: &Params, target: &Target) -> Result<Program> {
        let def = kernel(p, target)?;
        lang::program(
            &[def],
            LaunchRule::Cover {
                block: p.block,
                units_per_item: 1,
            },
        )
    }
}

/// The kernel of `p`. Parameters: `out` (written), `states` (read: [`STATE_WORDS`] per
/// work-item), `n: u64` values, `lead: u32` (values of the first chunk before the
/// output), `items: u32` (work-items with a state), `threads: u64` (the ordering's),
/// `iters: u32` (chunks per work-item, the last ones partly past the end), then the
/// normals' `mean`, `stddev` or Poisson's table.
pub fn kernel(p: &Params, target: &Target) -> Result<KernelDef> {
    let group = Group::of(Kind::Xorwow, p.dist, p.dtype)?;
    if p.block == 0 {
        return Err(Error::invalid("params", "block must be positive"));
    }
    let elem = scalar_of(p.dtype);
    let mut k = Builder::new(KERNEL, target)?;
    k.max_workgroup_size(p.block);
    let out = k.ptr("out", elem, Access::Write);
    let states = k.ptr("states", Scalar::U32, Access::Read);
    let n = k.param("n", Scalar::U64);
    let lead = k.param("lead", Scalar::U32);
    let items = k.param("items", Scalar::U32);
    let threads = k.param("threads", Scalar::U64);
    let iters = k.param("iters", Scalar::U32);
    let (mean, stddev) = if matches!(p.dist, Dist::Normal | Dist::LogNormal) {
        (k.param("mean", elem), k.param("stddev", elem))
    } else {
        let z = k.constant(Type::of(elem), 0u32);
        (z, z)
    };
    let search = (p.dist == Dist::Poisson).then(|| Search::declare(&mut k));
    let i = k.global_id();
    let active = k.lt(i, items);
    let lead = k.convert(lead, Scalar::U64);
    let chunk = group.values;
    k.if_(active, |k| {
        let base = k.mul(i, STATE_WORDS as u32);
        let load = |k: &mut Builder, j: u32| {
            let idx = k.add(base, j);
            let off = k.at(states, idx);
            let w = k.load(states, off);
            k.var(w)
        };
        let v: Vec<_> = (0..5).map(|j| load(k, j)).collect();
        let d = load(k, 5);
        let i64 = k.convert(i, Scalar::U64);
        k.for_range(0u32, iters, 1u32, |k, it| {
            let mut s = xorwow::State {
                v: [v[0], v[1], v[2], v[3], v[4]].map(|x| k.get(x)),
                d: k.get(d),
            };
            let words: Vec<Value> = (0..group.steps).map(|_| xorwow::next(k, &mut s)).collect();
            for (x, &w) in v.iter().zip(&s.v) {
                k.set(*x, w);
            }
            k.set(d, s.d);
            let vals = group_values(k, p, &words, mean, stddev, search);
            // Position (from the first chunk's start) of this chunk's first value.
            let it64 = k.convert(it, Scalar::U64);
            let c = k.fma(it64, threads, i64);
            let first = k.mul(c, chunk);
            for (j, val) in vals.iter().enumerate() {
                let pos = k.add(first, j as u64);
                let after = k.ge(pos, lead);
                let idx = k.sub(pos, lead);
                let inside = k.lt(idx, n);
                let here = k.and(after, inside);
                k.if_(here, |k| {
                    let off = k.at(out, idx);
                    k.store(out, off, *val);
                });
            }
        });
    });
    k.finish()
}

/// One group's values from its words, as the CPU path makes them
/// ([`crate::sequential`]).
fn group_values(
    k: &mut Builder,
    p: &Params,
    w: &[Value],
    mean: Value,
    stddev: Value,
    search: Option<Search>,
) -> Vec<Value> {
    match (p.dist, p.dtype) {
        (Dist::Bits, _) => vec![w[0]],
        (Dist::Poisson, _) => {
            let u = uniform::<f64, Builder>(k, w);
            vec![search
                .expect("the Poisson kernel declares its table")
                .count(k, u)]
        }
        (Dist::Uniform, DType::F64) => vec![uniform::<f64, Builder>(k, w)],
        (Dist::Uniform, _) => vec![uniform::<f32, Builder>(k, w)],
        (dist, dtype) => {
            let (z0, z1) = if dtype == DType::F64 {
                box_muller::<f64, Builder>(k, w)
            } else {
                box_muller::<f32, Builder>(k, w)
            };
            [z0, z1]
                .into_iter()
                .map(|z| {
                    let x = k.fma(z, stddev, mean);
                    match (dist, dtype) {
                        (Dist::LogNormal, DType::F64) => exp::<f64, Builder>(k, x),
                        (Dist::LogNormal, _) => exp::<f32, Builder>(k, x),
                        _ => x,
                    }
                })
                .collect()
        }
    }
}

/// One XORWOW fill: `n` values of `dist` in `dtype` from generator offset `offset` (in
/// chunks), seeded `seed`, into the view in slot 0 at device address `address`.
#[derive(Debug, Clone, PartialEq)]
pub struct Problem {
    pub dist: Dist,
    pub dtype: DType,
    pub order: Order,
    pub n: u64,
    pub offset: u64,
    pub seed: u64,
    pub mean: f64,
    pub stddev: f64,
    pub poisson: Option<crate::gpu::PoissonShape>,
}

/// The work-items' first states (slot 1 of the plan) and the chunk geometry: the first
/// output position's lead in its chunk, and the chunks per work-item.
pub struct Start {
    pub states: Vec<u32>,
    pub lead: u32,
    pub iters: u32,
}

/// The work-items' start states of `p`, made by jumps from `thread_states` (thread
/// `t`'s `curand_init(seed, t, 0)` state for every thread of the ordering).
pub fn start(p: &Problem, thread_states: &[xorwow::State<u32>]) -> Result<Start> {
    let group = Group::of(Kind::Xorwow, p.dist, p.dtype)?;
    let o = p.order;
    if thread_states.len() as u64 != o.threads {
        return Err(Error::invalid(
            "states",
            format!(
                "{} thread states for {} threads",
                thread_states.len(),
                o.threads
            ),
        ));
    }
    let first = p.offset.checked_mul(o.chunk);
    let end = first.and_then(|f| f.checked_add(p.n));
    let (Some(first), Some(_)) = (first, end) else {
        return Err(Error::invalid(
            "offset",
            format!(
                "offset {} (in chunks of {}) + {} values passes the end of the 2^64-position \
                 stream",
                p.offset, o.chunk, p.n
            ),
        ));
    };
    let c0 = first / o.chunk;
    let lead = first % o.chunk;
    let chunks = (p.n + lead).div_ceil(o.chunk);
    let items = chunks.min(o.threads);
    let iters = chunks.div_ceil(o.threads.max(1));
    let iters = u32::try_from(iters).map_err(|_| {
        Error::invalid(
            "n",
            format!("{} values need more than 2^32 chunks per thread", p.n),
        )
    })?;
    let mut states = Vec::with_capacity(items as usize * STATE_WORDS);
    for i in 0..items {
        let c = c0 + i;
        let t = c % o.threads;
        // The call starts here: a thread's first chunk's pass is the chunks it skipped.
        let pass = (c / o.threads) * o.chunk / group.values;
        let step = start_step(Kind::Xorwow, group, pass, pass);
        let s = xorwow::skip_ahead(thread_states[t as usize], step);
        states.extend_from_slice(&s.v);
        states.push(s.d);
    }
    Ok(Start {
        states,
        lead: lead as u32,
        iters,
    })
}

/// The plan of one fill with `start`'s geometry (slot 0 the output, 1 the states, 2
/// Poisson's table).
pub fn plan(p: &Problem, start: &Start, target: &Target) -> Result<Plan> {
    if p.n == 0 {
        return Ok(Plan::default());
    }
    let params = Params {
        dist: p.dist,
        dtype: p.dtype,
        block: 256,
    };
    let items = (start.states.len() / STATE_WORDS) as u64;
    let rule = LaunchRule::Cover {
        block: params.block,
        units_per_item: 1,
    };
    let program = ProgramRef::of::<XorwowKernels>(params);
    let mut bindings = vec![
        out_binding(p.n, p.dtype),
        (
            "states",
            Arg::Buffer {
                slot: 1,
                offset_bytes: 0,
                touched: 0..start.states.len() as u64 * 4,
                access: Access::Read,
            },
        ),
        ("n", Arg::Value(ArgValue::U64(p.n))),
        ("lead", Arg::Value(ArgValue::U32(start.lead))),
        ("items", Arg::Value(ArgValue::U32(items as u32))),
        ("threads", Arg::Value(ArgValue::U64(p.order.threads))),
        ("iters", Arg::Value(ArgValue::U32(start.iters))),
    ];
    bindings.extend(dist_bindings(
        p.dist, p.dtype, p.mean, p.stddev, p.poisson, 2,
    )?);
    one_step(program, target, rule.config(items), bindings)
}

/// Runs `p` on `stream`: `views` are the output, the states and, for Poisson, the table.
pub fn run(
    p: &Problem,
    start: &Start,
    stream: &rocm_core::Stream,
    views: &[DeviceView<'_>],
) -> Result<()> {
    let plan = plan(p, start, stream.device().target())?;
    rocm_kernels::exec::execute(&plan, stream, views, None)
}

/// Every thread's `curand_init(seed, t, 0)` state of an ordering of `threads`, one
/// subsequence jump from the last.
pub fn thread_states(seed: u64, threads: u64) -> Vec<xorwow::State<u32>> {
    let mut s = xorwow::init(seed);
    (0..threads)
        .map(|_| {
            let here = s;
            s = xorwow::skip_subsequences(s, 1);
            here
        })
        .collect()
}
