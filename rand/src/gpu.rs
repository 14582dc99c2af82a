//! The fill kernel, written once in the kernel language ([`kernel`]), its generator
//! ([`RandKernels`]: `lang::program` of the kernel, PTX or one AMDGPU code object) and
//! its plan ([`plan`]).
//!
//! Work split: work-item `t` of workgroup `w` handles units `w·block·units_per_item +
//! t + i·block` for `i < units_per_item` (the units of one workgroup are contiguous,
//! consecutive work-items take consecutive units, so the stores of a wave are
//! contiguous). A unit's position in the stream, not the launch, decides its values.

use crate::dist::{uniform, Dist, Kind, Layout, PoissonTable};
use rocm_core::{DType, Error, Result, Target};
use rocm_kernels::exec::DeviceView;
use rocm_kernels::generator::{Generator, LaunchRule, Program};
use rocm_kernels::lang::{self, Access, Builder, KernelDef, Scalar, Type, Value};
use rocm_kernels::plan::{Arg, Plan, ProgramRef, Step};
use rocm_kernels::signature::Value as ArgValue;
use serde::{Deserialize, Serialize};

/// The kernel's name.
pub const KERNEL: &str = "rand_fill";

/// One fill kernel's variant.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Params {
    pub kind: Kind,
    pub dist: Dist,
    pub dtype: DType,
    /// Work-items per workgroup.
    pub block: u32,
    /// Units (whole counters' worth of values) per work-item.
    pub units_per_item: u32,
    /// Store a whole unit as one vector (the output starts on a unit boundary, aligned
    /// to the unit's bytes); units cut by the end are stored value by value.
    pub vector_store: bool,
}

impl Params {
    /// The default variant for a problem whose output starts on a unit boundary
    /// (`aligned`) or not.
    pub fn for_problem(kind: Kind, dist: Dist, dtype: DType, aligned: bool) -> Params {
        Params {
            kind,
            dist,
            dtype,
            block: 256,
            units_per_item: 1,
            vector_store: aligned,
        }
    }
}

/// The generator of the fill kernels.
pub struct RandKernels;

impl Generator for RandKernels {
    type Params = Params;
    const NAME: &'static str = "rand";
    const VERSION: u32 = 1;

    fn generate(p: &Params, target: &Target) -> Result<Program> {
        let def = kernel(p, target)?;
        lang::program(
            &[def],
            LaunchRule::Cover {
                block: p.block,
                units_per_item: p.units_per_item,
            },
        )
    }
}

pub(crate) fn scalar_of(dtype: DType) -> Scalar {
    match dtype {
        DType::F32 => Scalar::F32,
        DType::F64 => Scalar::F64,
        DType::F16 => Scalar::F16,
        _ => Scalar::U32,
    }
}

/// The fill kernel of `p` for `target`. Parameters: `out` (written), `n: u64` values,
/// `unit0: u64` (the stream's unit holding the output's first value), `lead: u32`
/// (values of that unit before it), the seed's two words, and for the normal
/// distributions `mean` and `stddev` of the element type.
pub fn kernel(p: &Params, target: &Target) -> Result<KernelDef> {
    let layout = Layout::new(p.kind, p.dist, p.dtype)?;
    if p.block == 0 || p.units_per_item == 0 {
        return Err(Error::invalid(
            "params",
            "block and units_per_item must be positive",
        ));
    }
    let elem = scalar_of(p.dtype);
    let values = layout.values;
    let es = elem.bytes() as u64;
    let vector = p.vector_store && values > 1 && values as u64 * es <= 16;
    let mut k = Builder::new(KERNEL, target)?;
    k.max_workgroup_size(p.block);
    let out = k.ptr("out", elem, Access::Write);
    let n = k.param("n", Scalar::U64);
    let unit0 = k.param("unit0", Scalar::U64);
    let lead = k.param("lead", Scalar::U32);
    let seed = [
        k.param("seed_lo", Scalar::U32),
        k.param("seed_hi", Scalar::U32),
    ];
    let (mean, stddev) = if matches!(p.dist, Dist::Normal | Dist::LogNormal) {
        (k.param("mean", elem), k.param("stddev", elem))
    } else {
        let z = k.constant(Type::of(elem), 0u32);
        (z, z)
    };
    let search = (p.dist == Dist::Poisson).then(|| Search::declare(&mut k));
    let lead = k.convert(lead, Scalar::U64);
    let end = k.add(n, lead);
    let tid = k.thread_id();
    let tid = k.convert(tid, Scalar::U64);
    let wg = k.workgroup_id();
    let wg = k.convert(wg, Scalar::U64);
    let per_group = (p.block * p.units_per_item) as u64;
    let base = k.fma(wg, per_group, tid);
    for i in 0..p.units_per_item {
        let g = k.add(base, (i * p.block) as u64);
        let first = k.mul(g, values as u64);
        let inside = k.lt(first, end);
        k.if_(inside, |k| {
            let unit = k.add(unit0, g);
            let vals = unit_values(k, &layout, unit, unit0, seed, mean, stddev, search);
            // Position of the unit's first value in the output (wraps below zero for
            // the first unit when `lead > 0`: those values are skipped).
            let pos0 = k.sub(first, lead);
            let store_each = |k: &mut Builder| {
                for (j, v) in vals.iter().enumerate() {
                    let pos = k.add(pos0, j as u64);
                    let here = k.lt(pos, n);
                    k.if_(here, |k| {
                        let off = k.at(out, pos);
                        k.store(out, off, *v);
                    });
                }
            };
            if vector {
                let last = k.add(pos0, values as u64);
                let whole = k.le(last, n);
                k.if_else(
                    whole,
                    |k| {
                        let off = k.at(out, pos0);
                        let v = k.pack(&vals);
                        k.store(out, off, v);
                    },
                    store_each,
                );
            } else {
                store_each(k);
            }
        });
    }
    k.finish()
}

/// The Poisson kernel's CDF table and its search.
#[derive(Clone, Copy)]
pub(crate) struct Search {
    table: lang::Buf,
    len: Value,
    k0: Value,
    steps: Value,
}

impl Search {
    /// The table's parameters: `table` (read), `table_len`, `k0`, `steps`.
    pub(crate) fn declare(k: &mut Builder) -> Search {
        Search {
            table: k.ptr("table", Scalar::F64, Access::Read),
            len: k.param("table_len", Scalar::U32),
            k0: k.param("k0", Scalar::U32),
            steps: k.param("steps", Scalar::U32),
        }
    }

    /// The bindings of [`Search::declare`]'s parameters for a table of shape `t` in
    /// view `slot`.
    pub(crate) fn bindings(t: PoissonShape, slot: usize) -> Vec<(&'static str, Arg)> {
        vec![
            (
                "table",
                Arg::Buffer {
                    slot,
                    offset_bytes: 0,
                    touched: 0..t.len as u64 * 8,
                    access: Access::Read,
                },
            ),
            ("table_len", Arg::Value(ArgValue::U32(t.len))),
            ("k0", Arg::Value(ArgValue::U32(t.k0))),
            ("steps", Arg::Value(ArgValue::U32(t.steps))),
        ]
    }

    /// `k0` + the first index whose CDF is ≥ `u` ([`PoissonTable::sample`]), by
    /// `steps` branch-free halvings of [0, len − 1].
    pub(crate) fn count(self, k: &mut Builder, u: Value) -> Value {
        let last = k.sub(self.len, 1u32);
        let lo = k.var(0u32);
        let hi = k.var(last);
        k.for_range(0u32, self.steps, 1u32, |k, _| {
            let (l, h) = (k.get(lo), k.get(hi));
            let sum = k.add(l, h);
            let mid = k.shr(sum, 1u32);
            let off = k.at(self.table, mid);
            let c = k.load(self.table, off);
            let right = k.lt(c, u);
            let above = k.add(mid, 1u32);
            let nl = k.select(right, above, l);
            let nh = k.select(right, h, mid);
            k.set(lo, nl);
            k.set(hi, nh);
        });
        let found = k.get(lo);
        k.add(self.k0, found)
    }
}

/// The values of unit `unit` as language values of the layout's element type.
#[allow(clippy::too_many_arguments)]
fn unit_values(
    k: &mut Builder,
    layout: &Layout,
    unit: Value,
    call: Value,
    seed: [Value; 2],
    mean: Value,
    stddev: Value,
    search: Option<Search>,
) -> Vec<Value> {
    match (layout.dist, layout.dtype) {
        (Dist::Bits, _) => layout.unit_words(k, unit, call, seed),
        (_, DType::F16) => layout.unit_halves(k, unit, call, seed),
        (Dist::Poisson, _) => {
            let words = layout.unit_words(k, unit, call, seed);
            let search = search.expect("the Poisson kernel declares its table");
            words.map_groups(2, |w| {
                let u = uniform::<f64, Builder>(k, w);
                search.count(k, u)
            })
        }
        (_, DType::F64) => layout.unit_floats::<f64, Builder>(k, unit, call, seed, mean, stddev),
        _ => layout.unit_floats::<f32, Builder>(k, unit, call, seed, mean, stddev),
    }
    .as_slice()
    .to_vec()
}

/// One fill: `n` values of `dist` in `dtype` from stream position `offset` of
/// generator `kind` seeded `seed`, into the view in slot 0 whose device address is
/// `address`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Problem {
    pub kind: Kind,
    pub dist: Dist,
    pub dtype: DType,
    pub n: u64,
    pub offset: u64,
    pub seed: u64,
    /// The normal distributions' parameters (ignored otherwise).
    pub mean: f64,
    pub stddev: f64,
    pub address: u64,
    /// Poisson's table shape: first count, length, search steps (its values in slot 1).
    pub poisson: Option<PoissonShape>,
}

/// What the Poisson kernel is told about its table.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PoissonShape {
    pub k0: u32,
    pub len: u32,
    pub steps: u32,
}

impl PoissonShape {
    pub fn of(t: &PoissonTable) -> PoissonShape {
        PoissonShape {
            k0: t.k0,
            len: t.cdf.len() as u32,
            steps: t.steps(),
        }
    }
}

/// Where a problem's values sit: the layout, the first unit and the values of it
/// before the output, checked so every counter the fill reads exists.
pub fn locate(p: &Problem) -> Result<(Layout, u64, u32)> {
    let layout = Layout::new(p.kind, p.dist, p.dtype)?;
    if p.offset.checked_add(p.n).is_none() {
        return Err(Error::invalid(
            "offset",
            format!(
                "offset {} + {} values passes the end of the 2^64-value stream",
                p.offset, p.n
            ),
        ));
    }
    // The counters read end at ceil(end / values)·blocks ≤ end < 2^64 (a unit has at
    // least as many values as counters), so every position below 2^64 has its counter.
    let v = layout.values as u64;
    Ok((layout, p.offset / v, (p.offset % v) as u32))
}

/// The plan of one fill: one launch of the fill kernel covering its units.
pub fn plan(p: &Problem, target: &Target) -> Result<Plan> {
    let (layout, unit0, lead) = locate(p)?;
    if p.n == 0 {
        return Ok(Plan::default());
    }
    let es = p.dtype.size() as u64;
    let unit_bytes = layout.values as u64 * es;
    // A unit of one value has nothing to gather into a vector.
    let aligned = layout.values > 1 && lead == 0 && p.address % unit_bytes == 0;
    let params = Params::for_problem(p.kind, p.dist, p.dtype, aligned);
    let units = (p.n + lead as u64).div_ceil(layout.values as u64);
    let rule = LaunchRule::Cover {
        block: params.block,
        units_per_item: params.units_per_item,
    };
    let per_launch = params.block as u64 * params.units_per_item as u64 * i32::MAX as u64;
    if units > per_launch {
        return Err(Error::invalid(
            "n",
            format!(
                "{} values need more than one launch's {per_launch} units",
                p.n
            ),
        ));
    }
    let program = ProgramRef::of::<RandKernels>(params.clone());
    let mut bindings = vec![
        out_binding(p.n, p.dtype),
        ("n", Arg::Value(ArgValue::U64(p.n))),
        ("unit0", Arg::Value(ArgValue::U64(unit0))),
        ("lead", Arg::Value(ArgValue::U32(lead))),
        ("seed_lo", Arg::Value(ArgValue::U32(p.seed as u32))),
        ("seed_hi", Arg::Value(ArgValue::U32((p.seed >> 32) as u32))),
    ];
    bindings.extend(dist_bindings(
        p.dist, p.dtype, p.mean, p.stddev, p.poisson, 1,
    )?);
    one_step(program, target, rule.config(units), bindings)
}

/// The output's binding: `n` values of `dtype` written in view 0.
pub(crate) fn out_binding(n: u64, dtype: DType) -> (&'static str, Arg) {
    (
        "out",
        Arg::Buffer {
            slot: 0,
            offset_bytes: 0,
            touched: 0..n * dtype.size() as u64,
            access: Access::Write,
        },
    )
}

/// The distribution's parameters: the normals' `mean` and `stddev` in the element
/// type, Poisson's table (in view `table_slot`).
pub(crate) fn dist_bindings(
    dist: Dist,
    dtype: DType,
    mean: f64,
    stddev: f64,
    poisson: Option<PoissonShape>,
    table_slot: usize,
) -> Result<Vec<(&'static str, Arg)>> {
    let real = |x: f64| match dtype {
        DType::F64 => Arg::Value(ArgValue::F64(x)),
        _ => Arg::Value(ArgValue::F32(x as f32)),
    };
    Ok(match dist {
        Dist::Normal | Dist::LogNormal => vec![("mean", real(mean)), ("stddev", real(stddev))],
        Dist::Poisson => {
            let t = poisson
                .ok_or_else(|| Error::invalid("plan", "a Poisson fill needs its table's shape"))?;
            Search::bindings(t, table_slot)
        }
        _ => Vec::new(),
    })
}

/// A plan of one launch of `program`'s kernel.
pub(crate) fn one_step(
    program: ProgramRef,
    target: &Target,
    config: rocm_core::LaunchConfig,
    bindings: Vec<(&'static str, Arg)>,
) -> Result<Plan> {
    let sig = program
        .signatures(target)?
        .into_iter()
        .next()
        .ok_or_else(|| Error::invalid("plan", "the fill program declares no kernel"))?;
    let step = Step::bind(program, sig, config, bindings)?;
    Ok(Plan {
        steps: vec![step],
        workspace_bytes: 0,
    })
}

/// Runs `p`'s plan on `stream`: `views` are the output (slot 0) and, for Poisson, the
/// table (slot 1).
pub fn run(p: &Problem, stream: &rocm_core::Stream, views: &[DeviceView<'_>]) -> Result<()> {
    let plan = plan(p, stream.device().target())?;
    rocm_kernels::exec::execute(&plan, stream, views, None)
}
