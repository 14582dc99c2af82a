//! The GPU path: generated kernels for the nodes of the planner's tree, run through the
//! kernel contract (`rocm_kernels::plan::Plan` of steps, `rocm_kernels::exec::execute`).
//!
//! - [`butterfly`]: complex arithmetic and the small DFTs (radices 2..16 whose prime
//!   factors are 2, 3, 5, 7, 11, 13) emitted into kernel language code.
//! - [`single`]: the single-kernel transform: whole transforms in shared memory/LDS,
//!   every Stockham pass between one coalesced load and one coalesced store (VkFFT's
//!   "single upload"), with a host-computed twiddle table.
//!
//! Written once in the kernel language and lowered to PTX (CUDA) or AMDGPU code objects
//! (HIP and the emulated `emu:<gfx>` devices) by `rocm_kernels::lang::program`.
//!
//! What runs on GPUs today: complex 1-D transforms (forward and backward, f32 and f64,
//! batch, strides, distances, offsets, in and out of place) whose length is a product of
//! those radices and fits one workgroup's shared memory. Other plans return
//! `Error::Unsupported` naming what is missing.

pub mod butterfly;
pub mod single;

use crate::layout::Layout;
use crate::plan::{AxisOp, PlanTree};
use crate::scalar::Precision;
use rocm_core::{Device, DeviceBuffer, Error, LaunchConfig, Result};
use rocm_kernels::exec::{execute, DeviceView};
use rocm_kernels::generator::Generator;
use rocm_kernels::plan::{Arg, Plan as KernelPlan, ProgramRef, Step};
use rocm_kernels::signature::{Access, Value};
use single::{FftSingle, Real, SingleParams};
use std::sync::Arc;

/// A host-computed table uploaded once per plan.
#[derive(Debug)]
enum Table {
    F32(DeviceBuffer<f32>),
    F64(DeviceBuffer<f64>),
}

/// The device half of a [`crate::Plan`]: the kernel plan and the tables it reads.
#[derive(Debug)]
pub struct GpuPlan {
    params: SingleParams,
    kernels: KernelPlan,
    twiddles: Option<Table>,
    /// Bytes between an element and the next of the data's scalar type, times two.
    complex_bytes: u64,
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

/// The kernel parameters of each side's layout: offset, stride, distance.
const IN_LAYOUT: [&str; 3] = ["in_offset", "in_stride", "in_distance"];
const OUT_LAYOUT: [&str; 3] = ["out_offset", "out_stride", "out_distance"];

/// A layout value as a kernel's u32 argument.
fn u32_arg(what: &str, v: usize, device: &Device) -> Result<Value> {
    u32::try_from(v)
        .map(Value::U32)
        .map_err(|_| unsupported(format_args!("{what} {v} is above 2^32"), device))
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
        let params = single::shape(n, real, tree.kind.is_forward(), p.in_place, target)
            .ok_or_else(|| {
                unsupported(
                    format_args!(
                        "length {n}: single-kernel transforms need a product of radices 2..16 (primes up to 13) of at most {} bytes ({} on {target})",
                        single::shared_limit(target),
                        "shared memory"
                    ),
                    device,
                )
            })?;
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
        let groups = tree.batch.div_ceil(params.transforms as usize);
        let grid = u32::try_from(groups)
            .ok()
            .filter(|&g| g <= i32::MAX as u32)
            .ok_or_else(|| unsupported(format_args!("batch {}", tree.batch), device))?;
        let scale = match real {
            Real::F32 => Value::F32(p.scale as f32),
            Real::F64 => Value::F64(p.scale),
        };
        let mut bindings: Vec<(&str, Arg)> = Vec::new();
        let buffer = |slot, touched: std::ops::Range<u64>, access| Arg::Buffer {
            slot,
            offset_bytes: 0,
            touched,
            access,
        };
        if p.in_place {
            let touched = in_lo.min(out_lo)..in_hi.max(out_hi);
            bindings.push(("data", buffer(0, touched, Access::ReadWrite)));
        } else {
            bindings.push(("input", buffer(0, in_lo..in_hi, Access::Read)));
            bindings.push(("output", buffer(1, out_lo..out_hi, Access::Write)));
        }
        let table_slot = if p.in_place { 1 } else { 2 };
        let twiddles = if params.uses_twiddles() {
            bindings.push((
                "twiddles",
                buffer(table_slot, 0..n as u64 * cb, Access::Read),
            ));
            let forward = params.forward;
            Some(match real {
                Real::F32 => {
                    Table::F32(device.upload(&single::twiddle_table(n, forward, |x| x as f32))?)
                }
                Real::F64 => {
                    Table::F64(device.upload(&single::twiddle_table(n, forward, |x| x))?)
                }
            })
        } else {
            None
        };
        bindings.push(("batch", Arg::Value(u32_arg("batch", tree.batch, device)?)));
        for (names, side, l) in [
            (IN_LAYOUT, "input", p.input),
            (OUT_LAYOUT, "output", p.output),
        ] {
            let values = [l.offset, l.strides[0], l.distance];
            for (name, v) in names.into_iter().zip(values) {
                let what = format!("{side} {}", &name[name.find('_').unwrap_or(0) + 1..]);
                bindings.push((name, Arg::Value(u32_arg(&what, v, device)?)));
            }
        }
        bindings.push(("scale", Arg::Value(scale)));
        let signature = FftSingle::signatures(&params, target)?
            .into_iter()
            .next()
            .ok_or_else(|| Error::invalid("fft_single", "the program declares no kernel"))?;
        let step = Step::bind(
            ProgramRef::of::<FftSingle>(params.clone()),
            signature,
            LaunchConfig::linear(grid, params.workgroup_size()),
            bindings,
        )?;
        Ok(GpuPlan {
            params,
            kernels: KernelPlan {
                steps: vec![step],
                workspace_bytes: 0,
            },
            twiddles,
            complex_bytes: cb,
        })
    }

    /// The GPU node and the kernel plan, for `--explain`.
    pub fn describe(&self) -> String {
        let p = &self.params;
        let r: Vec<String> = p.radices.iter().map(|r| r.to_string()).collect();
        format!(
            "gpu: single kernel {} = {} ({} passes in shared memory), {} work-items a transform, {} transforms a workgroup, {} shared bytes\n{}",
            p.n,
            r.join("x"),
            p.radices.len(),
            p.threads,
            p.transforms,
            p.shared_bytes(),
            self.kernels
        )
    }

    /// The kernel plan.
    pub fn kernel_plan(&self) -> &KernelPlan {
        &self.kernels
    }

    /// Runs the plan on `stream`: `data` is the input and output views (one view in
    /// place), already checked by the caller for device, dtype and size.
    pub(crate) fn run(&self, stream: &rocm_core::Stream, data: &[DeviceView<'_>]) -> Result<()> {
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
        let (f32s, f64s) = match &self.twiddles {
            Some(Table::F32(b)) => (Some(b.as_slice()), None),
            Some(Table::F64(b)) => (None, Some(b.as_slice())),
            None => (None, None),
        };
        let mut views: Vec<DeviceView<'_>> = data.to_vec();
        views.extend(f32s.as_ref().map(DeviceView::read));
        views.extend(f64s.as_ref().map(DeviceView::read));
        execute(&self.kernels, stream, &views, None)
    }
}

/// A shared handle to the device half (plans are cheap to clone).
pub(crate) type SharedGpuPlan = Arc<GpuPlan>;
