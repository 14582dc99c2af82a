//! Softmax and log-softmax along any axis on GPUs, forward and backward, written once in
//! the kernel language.
//!
//! The tensor is seen as lines along the axis ([`Lines`]). Two kernel shapes:
//!
//! - **Row** ([`Shape::Row`]): one workgroup of [`WORKGROUP`] work-items per line, each
//!   taking chunks `t, t + 256, …` of `width` consecutive elements, one access of up to
//!   16 bytes each ([`row_width`]: as wide as the axis stride, length, line strides and
//!   addresses allow); for lines contiguous along the axis.
//! - **Column** ([`Shape::Column`]): one work-item per line, walking the axis with
//!   [`COLUMN_UNROLL`] loads in flight; for axes with a stride above another
//!   dimension's (neighbouring work-items read neighbouring lines, so the loads
//!   coalesce across lines).
//!
//! Forward reads the line twice: an online pass keeps the running maximum `m` and
//! `s = Σ e^(x−m)` (rescaling `s` when `m` grows, one exponential per element), the row
//! shape combines the work-items' pairs (maximum, then each `s` rescaled to it and
//! summed, waves in order), and the second pass writes `e^(x−M)/S` or `x − M − ln S`.
//! Backward reads y and dy twice: `s = Σ dy·y` (log: `Σ dy`), then
//! `dx = y·(dy − s)` (log: `dx = dy − e^y·s`). All arithmetic in f32 whatever the
//! storage type; results are the same bits on every run of one target.

use super::check_on_device;
use super::{line_coords, storage, Group, Lines, Strided, LINE_DIMS};
use crate::softmax::SoftmaxMode;
use crate::tensor::{Tensor, TensorDesc, TensorMut};
use crate::DnnFloat;
use rocm_core::{DType, Error, LaunchConfig, Result, Stream, Target};
use rocm_kernels::exec::DeviceView;
use rocm_kernels::generator::{Generator, LaunchRule, Program};
use rocm_kernels::lang::examples::{reduce_scratch, workgroup_reduce};
use rocm_kernels::lang::{self, Access, Builder, KernelDef, Reduce, Scalar, Value};
use rocm_kernels::plan::{Arg, Plan, ProgramRef, Step};
use rocm_kernels::signature::{Signature, Value as ArgValue};
use serde::{Deserialize, Serialize};
use std::f32::consts::{LN_2, LOG2_E};

/// Work-items per workgroup of both shapes.
pub const WORKGROUP: u32 = 256;

/// Lines at least this long and contiguous along the axis get a workgroup each.
pub const ROW_MIN_LEN: usize = 32;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Direction {
    Forward,
    Backward,
}

/// How work-items map to lines.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Shape {
    /// A workgroup per line, each work-item taking `width` consecutive elements per
    /// access (a power of two, at most 16 bytes; above 1 the axis must be contiguous
    /// and every line's start aligned to `width` elements).
    Row { width: u32 },
    /// A work-item per line, `unroll` elements loaded per step (then one at a time).
    Column { unroll: u32 },
}

impl Shape {
    /// The elements one access or step of the shape covers.
    fn width(self) -> u32 {
        match self {
            Shape::Row { width } => width,
            Shape::Column { unroll } => unroll,
        }
    }
}

/// Elements a column work-item loads per step: four loads in flight per work-item.
pub const COLUMN_UNROLL: u32 = 4;

/// One kernel variant.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Params {
    pub direction: Direction,
    pub log: bool,
    pub shape: Shape,
    pub dtype: DType,
}

/// The generator of the softmax kernels.
pub struct SoftmaxKernels;

impl Generator for SoftmaxKernels {
    type Params = Params;
    const NAME: &'static str = "dnn_softmax";
    const VERSION: u32 = 1;

    fn generate(p: &Params, target: &Target) -> Result<Program> {
        lang::program(
            &[kernel(p, target)?],
            LaunchRule::Cover {
                block: WORKGROUP,
                units_per_item: 1,
            },
        )
    }

    /// The definition's signature, without lowering it (plans ask on every call).
    fn signatures(p: &Params, target: &Target) -> Result<Vec<Signature>> {
        Ok(vec![kernel(p, target)?.signature])
    }
}

/// The kernel's name for `p`.
pub fn kernel_name(p: &Params) -> String {
    format!(
        "dnn_{}softmax_{}_{}_{}",
        if p.log { "log" } else { "" },
        match p.direction {
            Direction::Forward => "fwd",
            Direction::Backward => "bwd",
        },
        match p.shape {
            Shape::Row { width } => format!("row{width}"),
            Shape::Column { unroll } => format!("column{unroll}"),
        },
        p.dtype
    )
}

/// The tensors a direction reads and writes, in parameter order.
fn tensors(d: Direction) -> &'static [(&'static str, Access)] {
    match d {
        Direction::Forward => &[("x", Access::Read), ("y", Access::Write)],
        Direction::Backward => &[
            ("y", Access::Read),
            ("dy", Access::Read),
            ("dx", Access::Write),
        ],
    }
}

/// The kernel of `p` for `target`. Parameters: `lines, len, d1, d2, d3: u32` (line
/// count, axis length, sizes of the line dimensions but the slowest), then per tensor
/// (forward `x`, `y`; backward `y`, `dy`, `dx`) its pointer and `u32` strides
/// `_s0.._s3, _sa`. Launch: [`Shape::Row`] one workgroup per line, [`Shape::Column`]
/// one work-item per line, both in workgroups of [`WORKGROUP`].
pub fn kernel(p: &Params, target: &Target) -> Result<KernelDef> {
    let elem = storage(p.dtype)?;
    let width = p.shape.width();
    if !width.is_power_of_two() || width * elem.bytes() > 16 {
        return Err(Error::invalid(
            "shape",
            format!(
                "{:?}: {width} elements of {} per step must be a power of two within 16 bytes",
                p.shape, p.dtype
            ),
        ));
    }
    let mut k = Builder::new(kernel_name(p), target)?;
    k.max_workgroup_size(WORKGROUP);
    let lines = k.param("lines", Scalar::U32);
    let len = k.param("len", Scalar::U32);
    let d: [Value; LINE_DIMS - 1] =
        std::array::from_fn(|i| k.param(&format!("d{}", i + 1), Scalar::U32));
    let ts: Vec<Strided> = tensors(p.direction)
        .iter()
        .map(|&(name, access)| Strided::declare(&mut k, name, elem, access))
        .collect();
    match p.shape {
        Shape::Row { width } => {
            let scratch = reduce_scratch(&mut k, Scalar::F32);
            let l = k.workgroup_id();
            let coords = line_coords(&mut k, l, &d);
            let bases: Vec<Value> = ts.iter().map(|t| t.base(&mut k, &coords)).collect();
            let (t, size) = (k.thread_id(), k.workgroup_size());
            let chunks = k.shr(len, width.trailing_zeros());
            let sweep = Sweep::Chunks {
                start: t,
                step: size,
                count: chunks,
                width,
            };
            let combine =
                |k: &mut Builder, op: Reduce, v: Value| workgroup_reduce(k, op, v, scratch);
            body(&mut k, p, &ts, &bases, sweep, combine);
        }
        Shape::Column { unroll } => {
            let l = k.global_id();
            let inside = k.lt(l, lines);
            k.if_(inside, |k| {
                let coords = line_coords(k, l, &d);
                let bases: Vec<Value> = ts.iter().map(|t| t.base(k, &coords)).collect();
                let sweep = Sweep::Unrolled { len, unroll };
                body(k, p, &ts, &bases, sweep, |_, _, v| v);
            });
        }
    }
    k.finish()
}

/// The elements of a line one work-item visits, in groups.
#[derive(Clone, Copy)]
enum Sweep {
    /// Chunks `start, start + step, … < count` of `width` elements each.
    Chunks {
        start: Value,
        step: Value,
        count: Value,
        width: u32,
    },
    /// All `len` elements, `unroll` per step while that many remain, then one by one.
    Unrolled { len: Value, unroll: u32 },
}

impl Sweep {
    /// Runs `f` on every group in order (`f` is emitted once per loop of the sweep).
    fn each(self, k: &mut Builder, mut f: impl FnMut(&mut Builder, &Group)) {
        match self {
            Sweep::Chunks {
                start,
                step,
                count,
                width,
            } => k.for_range(start, count, step, |k, q| {
                // Single elements follow the axis stride; chunks are contiguous.
                let group = if width == 1 {
                    Group::Strided { first: q, count: 1 }
                } else {
                    let first = k.shl(q, width.trailing_zeros());
                    Group::Chunk { first, width }
                };
                f(k, &group);
            }),
            Sweep::Unrolled { len, unroll } => {
                let rest = k.rem(len, unroll);
                let main = k.sub(len, rest);
                if unroll > 1 {
                    k.for_range(0u32, main, unroll, |k, j| {
                        f(
                            k,
                            &Group::Strided {
                                first: j,
                                count: unroll,
                            },
                        )
                    });
                }
                k.for_range(main, len, 1u32, |k, j| {
                    f(k, &Group::Strided { first: j, count: 1 })
                });
            }
        }
    }
}

/// `2^(d·log₂e)` with `d = lo − hi`, taken as 0 where `lo == hi` (both −∞ included,
/// whose difference would be NaN).
fn exp_diff(k: &mut Builder, lo: Value, hi: Value) -> Value {
    let d = k.sub(lo, hi);
    let same = k.eq(lo, hi);
    let d = k.select(same, 0.0f32, d);
    let a = k.mul(d, LOG2_E);
    k.exp2(a)
}

/// The two passes of `p` over one line; `combine` reduces a work-item's value over the
/// work-items sharing the line (the identity for the column shape).
fn body(
    k: &mut Builder,
    p: &Params,
    ts: &[Strided],
    bases: &[Value],
    sweep: Sweep,
    combine: impl Fn(&mut Builder, Reduce, Value) -> Value,
) {
    match p.direction {
        Direction::Forward => {
            let (x, y) = (ts[0], ts[1]);
            let (m, s) = (k.var(f32::NEG_INFINITY), k.var(0.0f32));
            sweep.each(k, |k, g| {
                for v in x.load(k, bases[0], g) {
                    let (mv, sv) = (k.get(m), k.get(s));
                    // Where v raises the maximum, s·e^(m−v) + 1, else s + e^(v−m).
                    let grows = k.gt(v, mv);
                    let (lo, hi) = (k.min(v, mv), k.max(v, mv));
                    let e = exp_diff(k, lo, hi);
                    let scaled = k.fma(sv, e, 1.0f32);
                    let added = k.add(sv, e);
                    let ns = k.select(grows, scaled, added);
                    k.set(s, ns);
                    k.set(m, hi);
                }
            });
            let (mv, sv) = (k.get(m), k.get(s));
            let total_max = combine(k, Reduce::Max, mv);
            let e = exp_diff(k, mv, total_max);
            let mine = k.mul(sv, e);
            let total = combine(k, Reduce::Add, mine);
            let finish = if p.log {
                let l2 = k.log2(total);
                k.mul(l2, LN_2)
            } else {
                k.rcp(total)
            };
            sweep.each(k, |k, g| {
                let out: Vec<Value> = x
                    .load(k, bases[0], g)
                    .into_iter()
                    .map(|v| {
                        if p.log {
                            let c = k.sub(v, total_max);
                            k.sub(c, finish)
                        } else {
                            let e = exp_diff(k, v, total_max);
                            k.mul(e, finish)
                        }
                    })
                    .collect();
                y.store(k, bases[1], g, &out);
            });
        }
        Direction::Backward => {
            let (y, dy, dx) = (ts[0], ts[1], ts[2]);
            let s = k.var(0.0f32);
            sweep.each(k, |k, g| {
                let gs = dy.load(k, bases[1], g);
                let ys = if p.log {
                    Vec::new()
                } else {
                    y.load(k, bases[0], g)
                };
                for (u, &gv) in gs.iter().enumerate() {
                    let sv = k.get(s);
                    let ns = if p.log {
                        k.add(sv, gv)
                    } else {
                        k.fma(gv, ys[u], sv)
                    };
                    k.set(s, ns);
                }
            });
            let sv = k.get(s);
            let total = combine(k, Reduce::Add, sv);
            sweep.each(k, |k, g| {
                let ys = y.load(k, bases[0], g);
                let gs = dy.load(k, bases[1], g);
                let out: Vec<Value> = ys
                    .iter()
                    .zip(&gs)
                    .map(|(&yv, &gv)| {
                        if p.log {
                            let a = k.mul(yv, LOG2_E);
                            let e = k.exp2(a);
                            let t = k.mul(e, total);
                            k.sub(gv, t)
                        } else {
                            let c = k.sub(gv, total);
                            k.mul(yv, c)
                        }
                    })
                    .collect();
                dx.store(k, bases[2], g, &out);
            });
        }
    }
}

/// The widest row access (elements) that every tensor allows: the axis contiguous,
/// the length, every line stride and every buffer address (`addresses`, bytes) a
/// multiple of it; 1 otherwise.
pub fn row_width(lines: &Lines, dtype: DType, addresses: &[u64]) -> u32 {
    let size = dtype.size();
    let mut w = (16 / size.max(1)) as u32;
    while w > 1 {
        let wu = w as usize;
        let fits = lines.len % wu == 0
            && lines
                .strides
                .iter()
                .all(|s| s[LINE_DIMS] == 1 && s[..LINE_DIMS].iter().all(|&st| st % wu == 0))
            && addresses.iter().all(|&a| a % (wu * size) as u64 == 0);
        if fits {
            break;
        }
        w /= 2;
    }
    w
}

/// The shape for `lines` of `dtype` at `addresses`: a workgroup per line where the
/// first tensor is contiguous along the axis and the lines are long enough to occupy
/// one (as wide accesses as [`row_width`] allows), else a work-item per line.
pub fn choose_shape(lines: &Lines, dtype: DType, addresses: &[u64]) -> Shape {
    let axis_stride = lines.strides[0][LINE_DIMS];
    if axis_stride == 1 && lines.len >= ROW_MIN_LEN {
        Shape::Row {
            width: row_width(lines, dtype, addresses),
        }
    } else {
        Shape::Column {
            unroll: COLUMN_UNROLL,
        }
    }
}

/// The plan of one softmax over `lines` whose buffers start at `addresses` (slots in
/// [`tensors`] order: forward x, y; backward y, dy, dx): one launch, none for an empty
/// tensor; a [`Shape::Row`] width the tensors do not allow is an error.
pub fn plan(
    target: &Target,
    direction: Direction,
    mode: SoftmaxMode,
    dtype: DType,
    lines: &Lines,
    addresses: &[u64],
    shape: Shape,
) -> Result<Plan> {
    if lines.count == 0 || lines.len == 0 {
        return Ok(Plan::default());
    }
    let names = tensors(direction);
    if lines.strides.len() != names.len() {
        return Err(Error::invalid(
            "lines",
            format!(
                "{} tensors described, the {direction:?} softmax has {}",
                lines.strides.len(),
                names.len()
            ),
        ));
    }
    let u32_of = |what: &str, v: usize| {
        u32::try_from(v).map_err(|_| {
            Error::invalid(what, format!("{v} does not fit the kernels' 32-bit count"))
        })
    };
    let count = u32_of("tensor", lines.count)?;
    let len = u32_of("axis", lines.len)?;
    if let Shape::Row { width } = shape {
        if width > 1 && row_width(lines, dtype, addresses) % width != 0 {
            return Err(Error::invalid(
                "shape",
                format!(
                    "rows of {width} elements per access need the axis contiguous and \
                     lengths, line strides and addresses multiples of {width}"
                ),
            ));
        }
    }
    let config = match shape {
        Shape::Row { .. } => {
            if count > i32::MAX as u32 {
                return Err(Error::invalid(
                    "tensor",
                    format!("{count} lines need more workgroups than one launch has"),
                ));
            }
            LaunchConfig::linear(count, WORKGROUP)
        }
        Shape::Column { .. } => LaunchConfig::linear(count.div_ceil(WORKGROUP), WORKGROUP),
    };
    let params = Params {
        direction,
        log: mode == SoftmaxMode::LogSoftmax,
        shape,
        dtype,
    };
    let program = ProgramRef::of::<SoftmaxKernels>(params);
    let sig = program
        .signatures(target)?
        .into_iter()
        .next()
        .ok_or_else(|| Error::invalid("plan", "the softmax program declares no kernel"))?;
    let value = |v: usize| Arg::Value(ArgValue::U32(v as u32));
    let mut names_owned: Vec<(String, Arg)> = vec![
        ("lines".into(), Arg::Value(ArgValue::U32(count))),
        ("len".into(), Arg::Value(ArgValue::U32(len))),
    ];
    for i in 1..LINE_DIMS {
        names_owned.push((format!("d{i}"), value(lines.dims[i])));
    }
    let size = dtype.size() as u64;
    for (slot, &(name, access)) in names.iter().enumerate() {
        names_owned.push((
            name.to_string(),
            Arg::Buffer {
                slot,
                offset_bytes: 0,
                touched: 0..lines.extents[slot] as u64 * size,
                access,
            },
        ));
        let s = &lines.strides[slot];
        for (i, &st) in s[..LINE_DIMS].iter().enumerate() {
            names_owned.push((format!("{name}_s{i}"), value(st)));
        }
        names_owned.push((format!("{name}_sa"), value(s[LINE_DIMS])));
    }
    let bindings = names_owned
        .iter()
        .map(|(n, a)| (n.as_str(), a.clone()))
        .collect();
    let step = Step::bind(program, sig, config, bindings)?;
    Ok(Plan {
        steps: vec![step],
        workspace_bytes: 0,
    })
}

/// Checks the tensors (on `stream`'s device, buffers as their descriptors say, the
/// output without overlaps), plans and queues one softmax; `tensors` in slot order.
fn run<T: DnnFloat>(
    stream: &Stream,
    direction: Direction,
    mode: SoftmaxMode,
    axis: usize,
    inputs: &[(&str, &Tensor<'_, T>)],
    (out_name, out): (&str, &mut TensorMut<'_, T>),
    shape: Option<Shape>,
) -> Result<()> {
    for (what, t) in inputs {
        check_on_device(stream, what, t)?;
    }
    check_on_device(
        stream,
        out_name,
        &Tensor::new(out.desc, out.data.as_slice()),
    )?;
    out.desc.check_non_overlapping(out_name)?;
    let mut descs: Vec<(&str, &TensorDesc)> = inputs.iter().map(|(n, t)| (*n, t.desc)).collect();
    descs.push((out_name, out.desc));
    let lines = Lines::new(axis, &descs)?;
    let mut addresses: Vec<u64> = inputs.iter().map(|(_, t)| t.data.address()).collect();
    addresses.push(out.data.address());
    let shape = shape.unwrap_or_else(|| choose_shape(&lines, T::DTYPE, &addresses));
    let target = stream.device().target();
    let plan = plan(target, direction, mode, T::DTYPE, &lines, &addresses, shape)?;
    let mut views: Vec<DeviceView<'_>> = inputs
        .iter()
        .map(|(_, t)| DeviceView::read(&t.data))
        .collect();
    views.push(DeviceView::write(&mut out.data));
    rocm_kernels::exec::execute(&plan, stream, &views, None)
}

/// y = softmax(x) along `axis` on `stream` (queued), in `shape` (`None`: the one
/// [`choose_shape`] picks); dims checked by the caller.
pub fn forward<T: DnnFloat>(
    stream: &Stream,
    mode: SoftmaxMode,
    axis: usize,
    x: Tensor<'_, T>,
    mut y: TensorMut<'_, T>,
    shape: Option<Shape>,
) -> Result<()> {
    let inputs = [("x", &x)];
    run(
        stream,
        Direction::Forward,
        mode,
        axis,
        &inputs,
        ("y", &mut y),
        shape,
    )
}

/// dx from y and dy along `axis` on `stream` (queued), as [`forward`].
pub fn backward<T: DnnFloat>(
    stream: &Stream,
    mode: SoftmaxMode,
    axis: usize,
    y: Tensor<'_, T>,
    dy: Tensor<'_, T>,
    mut dx: TensorMut<'_, T>,
    shape: Option<Shape>,
) -> Result<()> {
    let inputs = [("y", &y), ("dy", &dy)];
    run(
        stream,
        Direction::Backward,
        mode,
        axis,
        &inputs,
        ("dx", &mut dx),
        shape,
    )
}
