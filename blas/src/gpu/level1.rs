//! Level 1 on GPUs through `rocm_kernels::level1`.
//!
//! The host picks the kernel variant (catalog, then fallback), narrows the vector width
//! when a view is not aligned to it, passes each vector as (address of logical element
//! 0, signed increment) so negative increments need nothing special in the kernel, and
//! for reductions sums the per-workgroup partials in order.

use crate::{Blas, Scalar};
use rocm_core::{Error, KernelArgs, Result};
use rocm_kernels::catalog::Catalog;
use rocm_kernels::generator::{self, Generator};
use rocm_kernels::level1::{self as gen, L1Op, Level1, Level1Params};

/// A vector argument: device address of its first stored element, length, increment.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Vector {
    pub address: u64,
    pub inc: isize,
}

impl Vector {
    /// Address of logical element 0: BLAS walks negative increments from the far end.
    fn start<T: Scalar>(&self, n: usize) -> u64 {
        if self.inc >= 0 || n == 0 {
            self.address
        } else {
            self.address + ((n - 1) * self.inc.unsigned_abs() * std::mem::size_of::<T>()) as u64
        }
    }
}

fn params<T: Scalar>(blas: &Blas, op: L1Op, n: usize, vectors: &[Vector]) -> Level1Params {
    let contiguous = vectors.iter().all(|v| v.inc == 1);
    let fallback = Level1Params::fallback(op, T::DTYPE, contiguous);
    let mut p = Catalog::for_target(blas.device().target()).select(
        Level1::NAME,
        &Level1Params::key(op, T::DTYPE, contiguous),
        n as u64,
        fallback,
    );
    if contiguous {
        // The widest vector every view is aligned to, and never below one element.
        let esize = std::mem::size_of::<T>() as u32;
        while p.vector_bytes > esize
            && vectors
                .iter()
                .any(|v| v.address % p.vector_bytes as u64 != 0)
        {
            p.vector_bytes /= 2;
        }
        p.vector_bytes = p.vector_bytes.max(esize);
    }
    p
}

fn push_scalar<T: Scalar>(args: &mut KernelArgs, v: T) {
    args.push(v.re());
    if T::IS_COMPLEX {
        args.push(v.im());
    }
}

fn launch(blas: &Blas, p: &Level1Params, n: usize, args: &KernelArgs) -> Result<()> {
    let loaded = generator::load::<Level1>(blas.device(), p)?;
    let name = loaded
        .program
        .kernels
        .first()
        .map_or(gen::KERNEL, |k| k.as_str());
    let kernel = loaded.module.kernel(name)?;
    let units = if p.op.is_reduction() {
        0
    } else {
        let per_unit = p.elements_per_tile()? / (p.block as u64 * p.unroll as u64);
        (n as u64).div_ceil(per_unit.max(1))
    };
    let cfg = loaded.program.launch.config(units);
    // SAFETY: the caller checked that every vector holds `n` elements at its increment;
    // the kernel touches exactly those (predicated on n), and the views stay borrowed
    // until the call returns, after which we synchronise before reading any result.
    unsafe { kernel.launch(blas.stream(), &cfg, args) }
}

/// scal, axpby (axpy), copy, swap.
pub(crate) fn elementwise<T: Scalar>(
    blas: &Blas,
    op: L1Op,
    n: usize,
    x: Vector,
    y: Option<Vector>,
    alpha: T,
    beta: T,
) -> Result<()> {
    if n == 0 {
        return Ok(());
    }
    let vectors: Vec<Vector> = std::iter::once(x).chain(y).collect();
    let p = params::<T>(blas, op, n, &vectors);
    let dev = blas.device();
    let mut args = KernelArgs::new();
    args.push(n as u64)
        .push_pointer(x.start::<T>(n), dev)
        .push(x.inc as i64);
    if let Some(y) = y {
        args.push_pointer(y.start::<T>(n), dev).push(y.inc as i64);
    }
    if matches!(op, L1Op::Scal | L1Op::Axpby { .. }) {
        push_scalar(&mut args, alpha);
    }
    if matches!(op, L1Op::Axpby { read_y: true }) {
        push_scalar(&mut args, beta);
    }
    launch(blas, &p, n, &args)
}

/// The result of a reduction, combined on the host.
pub(crate) enum Reduced {
    Sum(f64, f64),
    Nrm2(f64),
    /// 0-based index, or None when no element qualified (all NaN).
    Index(Option<u64>),
}

/// dot, dotc, sum, asum, nrm2, iamax, iamin.
pub(crate) fn reduce<T: Scalar>(
    blas: &Blas,
    op: L1Op,
    n: usize,
    x: Vector,
    y: Option<Vector>,
) -> Result<Reduced> {
    let vectors: Vec<Vector> = std::iter::once(x).chain(y).collect();
    let p = params::<T>(blas, op, n, &vectors);
    let slots = gen::partial_slots(op, T::DTYPE);
    let grid = p.grid as usize;
    let dev = blas.device();
    let mut host = vec![0.0f64; slots * grid];
    blas.with_workspace(slots * grid, |work| {
        let mut partials = work.slice_mut(..slots * grid)?;
        if n > 0 {
            let mut args = KernelArgs::new();
            args.push(n as u64)
                .push_pointer(x.start::<T>(n), dev)
                .push(x.inc as i64);
            if let Some(y) = y {
                args.push_pointer(y.start::<T>(n), dev).push(y.inc as i64);
            }
            args.push(&partials);
            launch(blas, &p, n, &args)?;
        } else {
            partials.fill_zero()?;
        }
        partials.as_slice().download_on(blas.stream(), &mut host)
    })?;
    let slot = |s: usize| &host[s * grid..(s + 1) * grid];
    Ok(match op {
        L1Op::Dot { .. } | L1Op::Sum | L1Op::Asum => {
            let re = slot(0).iter().sum();
            let im = if slots > 1 { slot(1).iter().sum() } else { 0.0 };
            Reduced::Sum(re, im)
        }
        L1Op::Nrm2 => Reduced::Nrm2(gen::blue_finish(
            slot(0).iter().sum(),
            slot(1).iter().sum(),
            slot(2).iter().sum(),
        )),
        L1Op::Iamax { max } => {
            let mut best: Option<(f64, u64)> = None;
            for (v, i) in slot(0).iter().zip(slot(1)) {
                let i = i.to_bits();
                if i == u64::MAX {
                    continue;
                }
                let better = match best {
                    None => true,
                    Some((bv, bi)) => (if max { *v > bv } else { *v < bv }) || (*v == bv && i < bi),
                };
                if better {
                    best = Some((*v, i));
                }
            }
            Reduced::Index(best.map(|b| b.1))
        }
        _ => return Err(Error::invalid("op", format!("{op:?} is not a reduction"))),
    })
}
