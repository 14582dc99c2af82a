//! Level 1 on GPUs through `rocm_kernels::level1`: PTX kernels on CUDA devices, AMDGPU
//! code objects on HIP and emulated devices.
//!
//! The host describes the call ([`rocm_kernels::level1::plan::Problem`]: op, dtype, n,
//! the vectors' views and increments, the scalars) and asks the kernels crate for a plan
//! (the variant, its launch, every argument bound from the kernel's signature), which
//! the one executor ([`rocm_kernels::exec::execute`]) runs on the handle's stream.
//! Reductions plan a first pass writing per-workgroup partials into the workspace and
//! the final pass ([`rocm_kernels::level1::finish`]) that combines them on the device
//! into the result: in device pointer mode straight into the caller's buffer, in host
//! mode into the workspace, whence one element is downloaded.

use crate::gpu::plan_cache::CachedPlan;
use crate::Blas;
use rocm_core::{BufferSliceMut, DType, Element, Error, Result};
use rocm_kernels::catalog::Catalog;
use rocm_kernels::exec::{execute, DeviceView, Prepared};
use rocm_kernels::level1::plan::{self as l1plan, Problem, ResultAt};
use rocm_kernels::level1::L1Op;

pub(crate) use rocm_kernels::level1::plan::ScalarArg;

/// A vector argument: its view (starting at the lowest stored element), increment and
/// element type.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Vector<'a> {
    /// The argument's name, for error messages (`x`, `y`).
    pub name: &'static str,
    pub view: DeviceView<'a>,
    pub inc: isize,
    pub dtype: DType,
}

impl Vector<'_> {
    /// The problem's description of this vector, held in view `slot`.
    fn described(&self, slot: usize) -> l1plan::Vector {
        l1plan::Vector {
            name: self.name,
            slot,
            address: self.view.address(),
            inc: self.inc as i64,
            dtype: self.dtype,
        }
    }
}

/// A kernels-side `Unsupported` as the routine's: `blas <routine> (<why>)` on this
/// device.
fn routine_error(blas: &Blas, routine: &str, e: Error) -> Error {
    match e {
        Error::Unsupported { op, .. } => {
            Error::unsupported(format!("blas {routine} ({op})"), blas.device())
        }
        other => other,
    }
}

/// scal, axpby (axpy), copy, swap, fill, rot, rotm, convert.
#[allow(clippy::too_many_arguments)]
pub(crate) fn elementwise(
    blas: &Blas,
    routine: &str,
    op: L1Op,
    dtype: DType,
    n: usize,
    x: Vector<'_>,
    y: Option<Vector<'_>>,
    scalars: &[ScalarArg],
) -> Result<()> {
    let target = blas.device().target();
    let problem = Problem {
        op,
        dtype,
        n: n as u64,
        x: x.described(0),
        y: y.as_ref().map(|y| y.described(1)),
        scalars,
    };
    let catalog = Catalog::for_target(target);
    let cached = blas
        .level1_plans
        .get_or_plan(&problem, catalog, || {
            let plan = l1plan::plan(&problem, target, catalog)?;
            let prepared = Prepared::new(&plan, blas.device())?;
            Ok(CachedPlan { plan, prepared })
        })
        .map_err(|e| routine_error(blas, routine, e))?;
    let run = |views: &[DeviceView<'_>]| match &cached.prepared {
        Some(p) => p.run(blas.stream(), views),
        None => execute(&cached.plan, blas.stream(), views, None),
    };
    match y {
        Some(y) => run(&[x.view, y.view]),
        None => run(&[x.view]),
    }
}

/// The `R` whose little-endian bytes are `bytes` (exactly `size_of::<R>()` of them).
fn element_from_bytes<R: Element>(bytes: &[u8]) -> Result<R> {
    if bytes.len() != std::mem::size_of::<R>() {
        return Err(Error::invalid(
            "result",
            format!("{} bytes are no {}", bytes.len(), R::DTYPE),
        ));
    }
    // SAFETY: `Element` types are plain old data (`bytemuck::Pod`): every bit pattern
    // of their size is a value, and `bytes` holds exactly that many (read unaligned).
    Ok(unsafe { std::ptr::read_unaligned(bytes.as_ptr().cast::<R>()) })
}

/// Where a reduction's result goes.
pub(crate) enum Dest<'a, 'b, R: Element> {
    /// Returned to the host (the call waits for it).
    Host(&'a mut R),
    /// Element 0 of a device buffer: the call only enqueues (device pointer mode).
    Device(&'a mut BufferSliceMut<'b, R>),
}

/// dot, dotc, sum, asum, nrm2, iamax, iamin: the plan's first pass writes its partials
/// to the handle's workspace, then the finish program combines them on the device into
/// the result (`R`) at `dest`, or into the workspace, from which the host downloads that
/// one element.
#[allow(clippy::too_many_arguments)]
pub(crate) fn reduce_into<R: Element>(
    blas: &Blas,
    routine: &str,
    op: L1Op,
    dtype: DType,
    n: usize,
    x: Vector<'_>,
    y: Option<Vector<'_>>,
    mut dest: Dest<'_, '_, R>,
) -> Result<()> {
    if let Dest::Device(r) = &dest {
        blas.check_device("result", r.device())?;
        if r.is_empty() {
            return Err(Error::invalid("result", "the result buffer is empty"));
        }
    }
    let target = blas.device().target();
    let views: Vec<DeviceView<'_>> = std::iter::once(x.view).chain(y.map(|y| y.view)).collect();
    let problem = Problem {
        op,
        dtype,
        n: n as u64,
        x: x.described(0),
        y: y.as_ref().map(|y| y.described(1)),
        scalars: &[],
    };
    let at = match dest {
        Dest::Device(_) => ResultAt::Buffer(views.len()),
        Dest::Host(_) => ResultAt::Workspace,
    };
    let rp = l1plan::plan_reduction(&problem, R::DTYPE, at, target, Catalog::for_target(target))
        .map_err(|e| routine_error(blas, routine, e))?;
    let words = rp.plan.workspace_bytes.div_ceil(8) as usize;
    blas.with_workspace(words, |work| {
        {
            let mut all: Vec<DeviceView<'_>> = views.to_vec();
            if let Dest::Device(r) = &mut dest {
                all.push(DeviceView::write(r));
            }
            let ws = DeviceView::buffer(work);
            execute(&rp.plan, blas.stream(), &all, Some(&ws))?;
        }
        if let Dest::Host(r) = dest {
            let at = (rp.result_offset / 8) as usize;
            let mut words = [0.0f64; 2];
            work.slice(at..at + 2)?
                .download_on(blas.stream(), &mut words)?;
            let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
            *r = element_from_bytes(&bytes[..std::mem::size_of::<R>()])?;
        }
        Ok(())
    })
}
