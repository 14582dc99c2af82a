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
//! mode into the workspace, whence one element is downloaded. Where a target has no
//! final pass (AMDGPU nrm2 today) the plan says so and the host downloads the partials
//! and combines them in the same order ([`combine`]).

use crate::Blas;
use rocm_core::{BufferSliceMut, DType, Element, Error, Result};
use rocm_kernels::catalog::Catalog;
use rocm_kernels::exec::{execute, DeviceView};
use rocm_kernels::level1::finish::{finish_index, finish_sum};
use rocm_kernels::level1::plan::{self as l1plan, Problem, ResultAt};
use rocm_kernels::level1::{self as gen, L1Op};

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
    let plan = l1plan::plan(&problem, target, Catalog::for_target(target))
        .map_err(|e| routine_error(blas, routine, e))?;
    let views: Vec<DeviceView<'_>> = std::iter::once(x.view).chain(y.map(|y| y.view)).collect();
    execute(&plan, blas.stream(), &views, None)
}

/// The result of a reduction combined on the host (where a target has no finish
/// program), before its rounding to the result type.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum Reduced {
    Sum(f64, f64),
    Nrm2(f64),
    /// 0-based index, or None when no element qualified (all NaN).
    Index(Option<u64>),
    /// n = 0: 0, or index 0.
    Zero,
}

impl Reduced {
    /// The result as `R` (`out` its dtype), rounded as the finish programs round: `as`
    /// from f64 (nearest even), the 1-based index as i64 (1 when none qualified).
    fn encode<R: Element>(self, out: DType) -> Result<R> {
        let mut bytes = Vec::with_capacity(16);
        let real = |v: f64, bytes: &mut Vec<u8>| match out {
            DType::F32 | DType::C32 => bytes.extend((v as f32).to_le_bytes()),
            _ => bytes.extend(v.to_le_bytes()),
        };
        match self {
            Reduced::Sum(re, im) => {
                real(re, &mut bytes);
                if out.is_complex() {
                    real(im, &mut bytes);
                }
            }
            Reduced::Nrm2(v) => real(v, &mut bytes),
            Reduced::Index(i) => bytes.extend(i.map_or(1i64, |i| i as i64 + 1).to_le_bytes()),
            Reduced::Zero => bytes.resize(std::mem::size_of::<R>(), 0),
        }
        if R::DTYPE != out {
            return Err(Error::invalid(
                "result",
                format!("a {out} result cannot be stored as {}", R::DTYPE),
            ));
        }
        element_from_bytes(&bytes)
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
/// one element. A target without a finish program downloads the partials and combines
/// them in the same order on the host ([`combine`]).
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
        let (slots, grid) = (rp.slots, rp.grid as usize);
        if rp.combine_on_host {
            let mut host = vec![0.0f64; slots * grid];
            if grid > 0 {
                work.slice(..slots * grid)?
                    .download_on(blas.stream(), &mut host)?;
            }
            let value: R = combine(op, &host, grid, n).encode(R::DTYPE)?;
            return match dest {
                Dest::Host(r) => {
                    *r = value;
                    Ok(())
                }
                Dest::Device(r) => r.slice_mut(..1)?.upload_on(blas.stream(), &[value]),
            };
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

/// Combines `grid` partials per slot (structure of arrays) in the finish programs'
/// order ([`finish_sum`], [`finish_index`]); n = 0 gives 0.
fn combine(op: L1Op, host: &[f64], grid: usize, n: usize) -> Reduced {
    let slot = |s: usize| host.get(s * grid..(s + 1) * grid).unwrap_or(&[]);
    let total = |s: usize| finish_sum(slot(s));
    match op {
        _ if n == 0 => Reduced::Zero,
        L1Op::Iamax { max } => Reduced::Index(finish_index(slot(0), slot(1), max)),
        L1Op::Nrm2 => Reduced::Nrm2(gen::blue_finish(total(0), total(1), total(2))),
        // Dot, Sum, Asum: slot 0 the real part, slot 1 (complex only) the imaginary.
        _ => Reduced::Sum(total(0), total(1)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn partials_are_combined_in_order_per_slot() {
        // Two workgroups, structure of arrays: slot 0 = [a0, a1], slot 1 = [b0, b1].
        let host = [1.0, 2.0, 10.0, 20.0];
        assert_eq!(
            combine(L1Op::Dot { conj: false }, &host, 2, 4),
            Reduced::Sum(3.0, 30.0)
        );
        // iamax: (value, index) per workgroup; the smaller index wins a tie, an empty
        // workgroup (index u64::MAX) never wins.
        let idx = |i: u64| f64::from_bits(i);
        let host = [5.0, 6.0, 1.0, idx(7), idx(3), idx(u64::MAX)];
        assert_eq!(
            combine(L1Op::Iamax { max: true }, &host, 3, 9),
            Reduced::Index(Some(3))
        );
        assert_eq!(
            combine(L1Op::Iamax { max: false }, &host, 3, 9),
            Reduced::Index(Some(7))
        );
        let tie = [5.0, 5.0, idx(7), idx(3)];
        assert_eq!(
            combine(L1Op::Iamax { max: true }, &tie, 2, 9),
            Reduced::Index(Some(3))
        );
        let none = [0.0, idx(u64::MAX)];
        assert_eq!(
            combine(L1Op::Iamax { max: true }, &none, 1, 9),
            Reduced::Index(None)
        );
    }
}
