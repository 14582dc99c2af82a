//! The GPU path: generated kernels for the nodes of the planner's tree, run through the
//! kernel contract (`rocm_kernels::plan::Plan` of steps, `rocm_kernels::exec::execute`).
//!
//! - [`butterfly`]: complex arithmetic and the small DFTs (radices 2..16 whose prime
//!   factors are 2, 3, 5, 7, 11, 13) emitted into kernel language code.
//! - [`single`]: the single-kernel transform: whole transforms in shared memory/LDS,
//!   every Stockham pass between one coalesced load and one coalesced store (VkFFT's
//!   "single upload"), with a host-computed twiddle table. The same kernel, with its
//!   loads or stores running across adjacent transforms and the four-step twiddle
//!   fused into its last pass, is each kernel of a large transform.
//!
//! Nodes ([`GpuNode`]):
//! - a length that fits one workgroup's shared memory: one single-kernel launch;
//! - a larger length `N = N1·N2` whose factors fit: the two-kernel four-step. Kernel 1
//!   runs the `N1`-point transforms down the `N2` columns (element stride `N2`,
//!   adjacent columns on adjacent work-items), multiplies output `k1` of column `n2` by
//!   `ω_N^{n2·k1}` and stores the columns back in place into the workspace; kernel 2
//!   runs the `N2`-point transforms along the rows and stores output `k2` of row `k1`
//!   at `k1 + N1·k2` (adjacent rows on adjacent work-items), so the transposes live in
//!   the kernels' addressing and no transpose kernel runs.
//!
//! Written once in the kernel language and lowered to PTX (CUDA) or AMDGPU code objects
//! (HIP and the emulated `emu:<gfx>` devices) by `rocm_kernels::lang::program`.
//!
//! What runs on GPUs today: complex 1-D transforms (forward and backward, f32 and f64,
//! batch, strides, distances, offsets, in and out of place) whose length is a product of
//! those radices, in one kernel or as a four-step of two. Other plans return
//! `Error::Unsupported` naming what is missing.

pub mod butterfly;
pub mod single;

use crate::layout::Layout;
use crate::plan::{AxisOp, PlanTree};
use crate::scalar::Precision;
use rocm_core::{Device, DeviceBuffer, Error, LaunchConfig, Result, Stream, Target};
use rocm_kernels::exec::{execute, DeviceView};
use rocm_kernels::generator::Generator;
use rocm_kernels::plan::{Arg, Plan as KernelPlan, ProgramRef, Step};
use rocm_kernels::signature::{Access, Value};
use single::{FftSingle, Real, SingleParams};
use std::sync::{Arc, Mutex};

/// A host-computed table uploaded once per plan.
#[derive(Debug)]
enum Table {
    F32(DeviceBuffer<f32>),
    F64(DeviceBuffer<f64>),
}

/// A table's slice, for a view that borrows it.
enum TableSlice<'a> {
    F32(rocm_core::BufferSlice<'a, f32>),
    F64(rocm_core::BufferSlice<'a, f64>),
}

impl Table {
    fn slice(&self) -> TableSlice<'_> {
        match self {
            Table::F32(b) => TableSlice::F32(b.as_slice()),
            Table::F64(b) => TableSlice::F64(b.as_slice()),
        }
    }
}

impl TableSlice<'_> {
    fn view(&self) -> DeviceView<'_> {
        match self {
            TableSlice::F32(s) => DeviceView::read(s),
            TableSlice::F64(s) => DeviceView::read(s),
        }
    }
}

/// The GPU node a plan runs.
#[derive(Debug, Clone)]
pub enum GpuNode {
    /// One single-kernel launch.
    Single(SingleParams),
    /// `n = n1·n2`: `first` down the columns, `second` along the rows.
    FourStep {
        n: usize,
        n1: usize,
        n2: usize,
        first: SingleParams,
        second: SingleParams,
    },
}

/// The device half of a [`crate::Plan`]: the kernel plan and the tables it reads.
#[derive(Debug)]
pub struct GpuPlan {
    node: GpuNode,
    kernels: KernelPlan,
    /// One table per step that reads twiddles, in the order of their buffer slots.
    tables: Vec<Table>,
    /// Bytes between an element and the next of the data's scalar type, times two.
    complex_bytes: u64,
    /// The workspace of executions, kept for the next one with the stream it was used
    /// on.
    workspace: Mutex<Option<(DeviceBuffer<f64>, Stream)>>,
}

/// What the GPU plan is made of, from the API's resolved description.
pub(crate) struct GpuProblem<'a> {
    pub tree: &'a PlanTree,
    pub precision: Precision,
    pub in_place: bool,
    pub input: &'a Layout,
    pub output: &'a Layout,
    pub in_lens: &'a [usize],
    pub out_lens: &'a [usize],
    pub scale: f64,
}

fn unsupported(what: impl std::fmt::Display, device: &Device) -> Error {
    Error::unsupported(format!("rocm-fft on GPUs: {what}"), device.id())
}

/// A layout value as a kernel's u32 argument.
fn u32_arg(what: &str, v: usize, device: &Device) -> Result<Value> {
    u32::try_from(v)
        .map(Value::U32)
        .map_err(|_| unsupported(format_args!("{what} {v} is above 2^32"), device))
}

/// One side of a kernel's data: where it is and how its transforms are laid out
/// (complex elements).
struct Side {
    arg: Arg,
    offset: usize,
    stride: usize,
    distance: usize,
    inner_stride: usize,
}

/// A four-step split: `(n1, n2, first kernel, second kernel)`.
type Split = (usize, usize, SingleParams, SingleParams);

/// The four-step split of `n` for `real` on `target`: `(n1, n2, first, second)`, both
/// kernels' shapes found, preferring column kernels with whole runs
/// ([`single::strided_shape`]), then factors near `√n`.
fn four_step(n: usize, real: Real, forward: bool, target: &Target) -> Option<Split> {
    let run = 64 / real.complex_bytes();
    let mut best: Option<((bool, usize), Split)> = None;
    let small = (2..).take_while(|d| d * d <= n).filter(|d| n % d == 0);
    let pairs: Vec<(usize, usize)> = small.flat_map(|d| [(d, n / d), (n / d, d)]).collect();
    for (n1, n2) in pairs {
        let Some(first) =
            single::strided_shape(n1, real, forward, target, n2, (true, true), Some(n))
        else {
            continue;
        };
        let Some(second) =
            single::strided_shape(n2, real, forward, target, n1, (false, true), None)
        else {
            continue;
        };
        let whole = first.transforms as usize >= run && second.transforms as usize >= run;
        let skew = n1.max(n2) / n1.min(n2);
        let key = (whole, usize::MAX - skew);
        if best.as_ref().is_none_or(|(k, _)| key > *k) {
            best = Some((key, (n1, n2, first, second)));
        }
    }
    best.map(|(_, v)| v)
}

impl GpuPlan {
    /// Plans `p` for `device` (a CUDA, HIP or emulated AMD device).
    pub(crate) fn new(p: &GpuProblem<'_>, device: &Device) -> Result<GpuPlan> {
        let tree = p.tree;
        let real = match p.precision {
            Precision::F32 => Real::F32,
            Precision::F64 => Real::F64,
            other => return Err(unsupported(format_args!("{other} data"), device)),
        };
        if tree.kind.is_real() || tree.lengths.len() != 1 {
            return Err(unsupported(
                format_args!(
                    "{} of {} dimensions (complex 1-D transforms run today)",
                    tree.kind.name(),
                    tree.lengths.len()
                ),
                device,
            ));
        }
        let AxisOp::Complex(node) = &tree.steps[0].op else {
            return Err(unsupported("a real axis", device));
        };
        let n = node.len();
        let target = device.target();
        let forward = tree.kind.is_forward();
        let node = match single::shape(n, real, forward, p.in_place, target) {
            Some(s) => GpuNode::Single(s),
            None => match four_step(n, real, forward, target) {
                Some((n1, n2, first, second)) => GpuNode::FourStep {
                    n,
                    n1,
                    n2,
                    first,
                    second,
                },
                None => {
                    return Err(unsupported(
                        format_args!(
                            "length {n}: GPU transforms need a product of radices 2..16 (primes up to 13) that fits {} bytes of shared memory on {target}, or two such factors",
                            single::shared_limit(target),
                        ),
                        device,
                    ))
                }
            },
        };
        let cb = real.complex_bytes() as u64;
        // The kernels index complex elements in u32 scalars.
        let span = |what: &str, l: &Layout, lens: &[usize]| -> Result<(u64, u64)> {
            let end = l.extent(lens, tree.batch).unwrap_or(usize::MAX);
            if end > (u32::MAX / 2) as usize {
                return Err(unsupported(
                    format_args!("{what} reaches element {end}, above 2^31 scalars"),
                    device,
                ));
            }
            Ok((l.offset as u64 * cb, end as u64 * cb))
        };
        let (in_lo, in_hi) = span("the input layout", p.input, p.in_lens)?;
        let (out_lo, out_hi) = span("the output layout", p.output, p.out_lens)?;
        let scale = match real {
            Real::F32 => Value::F32(p.scale as f32),
            Real::F64 => Value::F64(p.scale),
        };
        let buffer = |slot, touched: std::ops::Range<u64>, access| Arg::Buffer {
            slot,
            offset_bytes: 0,
            touched,
            access,
        };
        let user = |l: &Layout, arg: Arg| Side {
            arg,
            offset: l.offset,
            stride: l.strides[0],
            distance: l.distance,
            inner_stride: 0,
        };
        let mut tables = Vec::new();
        let data_slots = if p.in_place { 1 } else { 2 };
        let mut bind = |params: &SingleParams,
                        transforms: usize,
                        input: Side,
                        output: Side,
                        scale: Value|
         -> Result<Step> {
            let mut bindings: Vec<(&str, Arg)> = Vec::new();
            if params.in_place {
                bindings.push(("data", input.arg.clone()));
            } else {
                bindings.push(("input", input.arg.clone()));
                bindings.push(("output", output.arg.clone()));
            }
            if params.uses_twiddles() {
                let len = params.twiddle_layout().len;
                let slot = data_slots + tables.len();
                bindings.push(("twiddles", buffer(slot, 0..len as u64 * cb, Access::Read)));
                tables.push(match real {
                    Real::F32 => {
                        Table::F32(device.upload(&single::twiddle_table(params, |x| x as f32))?)
                    }
                    Real::F64 => Table::F64(device.upload(&single::twiddle_table(params, |x| x))?),
                });
            }
            bindings.push(("batch", Arg::Value(u32_arg("batch", transforms, device)?)));
            for (prefix, side, s) in [("in", "input", &input), ("out", "output", &output)] {
                let values = [
                    ("offset", s.offset),
                    ("stride", s.stride),
                    ("distance", s.distance),
                ];
                for (what, v) in values {
                    let name: &'static str = match (prefix, what) {
                        ("in", "offset") => "in_offset",
                        ("in", "stride") => "in_stride",
                        ("in", "distance") => "in_distance",
                        ("out", "offset") => "out_offset",
                        ("out", "stride") => "out_stride",
                        _ => "out_distance",
                    };
                    let arg = u32_arg(&format!("{side} {what}"), v, device)?;
                    bindings.push((name, Arg::Value(arg)));
                }
            }
            if params.inner > 1 {
                let i = u32_arg("input inner stride", input.inner_stride, device)?;
                let o = u32_arg("output inner stride", output.inner_stride, device)?;
                bindings.push(("in_inner_stride", Arg::Value(i)));
                bindings.push(("out_inner_stride", Arg::Value(o)));
            }
            bindings.push(("scale", Arg::Value(scale)));
            let groups = transforms.div_ceil(params.transforms as usize);
            let grid = u32::try_from(groups)
                .ok()
                .filter(|&g| g <= i32::MAX as u32)
                .ok_or_else(|| {
                    unsupported(format_args!("{transforms} transforms of a kernel"), device)
                })?;
            let signature = FftSingle::signatures(params, target)?
                .into_iter()
                .next()
                .ok_or_else(|| Error::invalid("fft_single", "the program declares no kernel"))?;
            let mut config = LaunchConfig::linear(grid, params.workgroup_size());
            config.shared_bytes = single::launch_shared_bytes(params, target);
            Step::bind(
                ProgramRef::of::<FftSingle>(params.clone()),
                signature,
                config,
                bindings,
            )
        };
        let (in_arg, out_arg) = if p.in_place {
            let touched = in_lo.min(out_lo)..in_hi.max(out_hi);
            let a = buffer(0, touched, Access::ReadWrite);
            (a.clone(), a)
        } else {
            (
                buffer(0, in_lo..in_hi, Access::Read),
                buffer(1, out_lo..out_hi, Access::Write),
            )
        };
        let (steps, workspace_bytes) = match &node {
            GpuNode::Single(params) => {
                let step = bind(
                    params,
                    tree.batch,
                    user(p.input, in_arg),
                    user(p.output, out_arg),
                    scale,
                )?;
                (vec![step], 0)
            }
            GpuNode::FourStep {
                n,
                n1,
                n2,
                first,
                second,
            } => {
                let (n, n1, n2) = (*n, *n1, *n2);
                let elements = n
                    .checked_mul(tree.batch)
                    .filter(|&e| e <= (u32::MAX / 2) as usize);
                let elements = elements.ok_or_else(|| {
                    unsupported(
                        format_args!("a workspace of {} x {n} elements", tree.batch),
                        device,
                    )
                })?;
                let ws_bytes = elements as u64 * cb;
                let ws = Arg::Workspace {
                    offset: 0,
                    bytes: ws_bytes,
                };
                let (read_arg, write_arg) = if p.in_place {
                    (
                        buffer(0, in_lo.min(out_lo)..in_hi.max(out_hi), Access::Read),
                        buffer(0, in_lo.min(out_lo)..in_hi.max(out_hi), Access::Write),
                    )
                } else {
                    (in_arg, out_arg)
                };
                let one = match real {
                    Real::F32 => Value::F32(1.0),
                    Real::F64 => Value::F64(1.0),
                };
                // Columns: transform (b, n2) reads x[b·dist + n2·s + n1·n2·s].
                let a = bind(
                    first,
                    tree.batch * n2,
                    Side {
                        arg: read_arg,
                        offset: p.input.offset,
                        stride: n2 * p.input.strides[0],
                        distance: p.input.distance,
                        inner_stride: p.input.strides[0],
                    },
                    Side {
                        arg: ws.clone(),
                        offset: 0,
                        stride: n2,
                        distance: n,
                        inner_stride: 1,
                    },
                    one,
                )?;
                // Rows: transform (b, k1) reads the workspace row k1 and stores output
                // k2 at k1 + n1·k2.
                let b = bind(
                    second,
                    tree.batch * n1,
                    Side {
                        arg: ws,
                        offset: 0,
                        stride: 1,
                        distance: n,
                        inner_stride: n2,
                    },
                    Side {
                        arg: write_arg,
                        offset: p.output.offset,
                        stride: n1 * p.output.strides[0],
                        distance: p.output.distance,
                        inner_stride: p.output.strides[0],
                    },
                    scale,
                )?;
                (vec![a, b], ws_bytes)
            }
        };
        Ok(GpuPlan {
            node,
            kernels: KernelPlan {
                steps,
                workspace_bytes,
            },
            tables,
            complex_bytes: cb,
            workspace: Mutex::new(None),
        })
    }

    /// The GPU node.
    pub fn node(&self) -> &GpuNode {
        &self.node
    }

    /// The GPU node and the kernel plan, for `--explain`.
    pub fn describe(&self) -> String {
        fn kernel(p: &SingleParams) -> String {
            let r: Vec<String> = p.radices.iter().map(|r| r.to_string()).collect();
            let order = |c: bool| {
                if c {
                    "across transforms"
                } else {
                    "along a transform"
                }
            };
            format!(
                "{} = {} ({} passes in shared memory), {} work-items a transform, {} transforms a workgroup, {} shared bytes, loads {}, stores {}{}",
                p.n,
                r.join("x"),
                p.radices.len(),
                p.threads,
                p.transforms,
                p.shared_bytes(),
                order(p.load_columns),
                order(p.store_columns),
                p.twist
                    .map(|n| format!(", twiddle ω_{n} fused into the last pass"))
                    .unwrap_or_default()
            )
        }
        let node = match &self.node {
            GpuNode::Single(p) => format!("gpu: single kernel {}", kernel(p)),
            GpuNode::FourStep {
                n,
                n1,
                n2,
                first,
                second,
            } => format!(
                "gpu: four-step {n} = {n1} x {n2} in two kernels (transposes in their addressing)\n  1: {n2} columns of {}\n  2: {n1} rows of {}",
                kernel(first),
                kernel(second)
            ),
        };
        format!("{node}\n{}", self.kernels)
    }

    /// The kernel plan.
    pub fn kernel_plan(&self) -> &KernelPlan {
        &self.kernels
    }

    /// Bytes of device workspace an execution uses.
    pub fn workspace_bytes(&self) -> u64 {
        self.kernels.workspace_bytes
    }

    /// Runs the plan on `stream`: `data` is the input and output views (one view in
    /// place), already checked by the caller for device, dtype and size.
    pub(crate) fn run(&self, stream: &Stream, data: &[DeviceView<'_>]) -> Result<()> {
        let align = self.complex_bytes;
        for v in data {
            if v.address() % align != 0 {
                return Err(Error::invalid(
                    "buffer",
                    format!(
                        "a GPU transform's buffer must start at a multiple of {align} bytes (one complex value); it starts at address {:#x}",
                        v.address()
                    ),
                ));
            }
        }
        let slices: Vec<TableSlice<'_>> = self.tables.iter().map(Table::slice).collect();
        let mut views: Vec<DeviceView<'_>> = data.to_vec();
        views.extend(slices.iter().map(TableSlice::view));
        let bytes = self.kernels.workspace_bytes;
        if bytes == 0 {
            return execute(&self.kernels, stream, &views, None);
        }
        let mut guard = self.workspace.lock().unwrap_or_else(|p| p.into_inner());
        let len = bytes.div_ceil(8) as usize;
        if let Some((w, last)) = guard.as_ref() {
            // The last execution's kernels may still use it on another stream.
            if !last.same_as(stream) {
                last.synchronize()?;
            }
            if w.len() < len || w.device().id() != stream.device().id() {
                *guard = None;
            }
        }
        if guard.is_none() {
            *guard = Some((DeviceBuffer::zeros(stream.device(), len)?, stream.clone()));
        }
        let (w, last) = guard.as_mut().expect("a workspace was just made");
        *last = stream.clone();
        execute(&self.kernels, stream, &views, Some(&DeviceView::buffer(w)))
    }
}

/// A shared handle to the device half (plans are cheap to clone).
pub(crate) type SharedGpuPlan = Arc<GpuPlan>;
