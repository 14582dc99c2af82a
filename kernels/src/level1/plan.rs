//! Level 1 selection: a problem and a target in, a [`Plan`] out.
//!
//! The variant comes from the catalog (then the fallback) and is adapted to the views:
//! the vector width narrows to the views' alignment (never below one element). Each
//! vector is aligned to its own access width: `vector_bytes` is x's, a conversion's y
//! covers as many elements in accesses of at most that width.
//!
//! One kernel signature on every target ([`super::signature`]): arguments are bound by
//! name, `n: u64`, vectors at logical element 0 (the far end for a negative increment),
//! `incx`/`incy: i64`, the scalars in order.
//!
//! Reductions ([`plan_reduction`]): a first pass writes `slots × grid` f64 partials
//! (structure of arrays) at the workspace's start, then the finish program
//! ([`super::finish`]) combines them into the result, in the caller's buffer or in the
//! two f64s after the partials. The kernels loop over tiles by the launched grid, so
//! one code runs any grid: min(catalog grid, workgroups covering n). n = 0 runs the
//! finish alone (`grid = 0`: the result is 0).

use super::finish::{Finish, FinishParams, FINISH_LANES};
use super::{partial_slots, L1Op, Level1, Level1Params};
use crate::catalog::Catalog;
use crate::generator::{Generator, LaunchRule};
use crate::plan::{Arg, Plan, ProgramRef, Step};
use crate::signature::{Access, ParamType, ScalarType, Signature, Value};
use rocm_core::{DType, Error, LaunchConfig, Result, Target};
use std::ops::Range;

/// A real scalar of a call, in the precision the kernel computes in (f64 for f64 and
/// Complex64, f32 otherwise, f16/bf16 included).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum ScalarArg {
    F32(f32),
    F64(f64),
}

/// A vector of the problem: which view holds it (the view starts at the vector's lowest
/// stored element), its increment and element type. `address` is the view's device
/// address, used only for alignment.
#[derive(Debug, Clone, Copy)]
pub struct Vector {
    pub name: &'static str,
    pub slot: usize,
    pub address: u64,
    pub inc: i64,
    pub dtype: DType,
}

impl Vector {
    fn esize(&self) -> u64 {
        self.dtype.size() as u64
    }

    /// The bytes an `n`-vector's elements occupy, from the view's start.
    fn touched(&self, n: u64) -> Range<u64> {
        if n == 0 {
            return 0..0;
        }
        0..((n - 1) * self.inc.unsigned_abs() + 1) * self.esize()
    }

    /// Offset of logical element 0: BLAS walks negative increments from the far end.
    fn logical_offset(&self, n: u64) -> u64 {
        if self.inc >= 0 || n == 0 {
            0
        } else {
            (n - 1) * self.inc.unsigned_abs() * self.esize()
        }
    }
}

/// One Level 1 call.
#[derive(Debug, Clone, Copy)]
pub struct Problem<'a> {
    pub op: L1Op,
    /// The element type (a conversion's source).
    pub dtype: DType,
    pub n: u64,
    pub x: Vector,
    pub y: Option<Vector>,
    /// The op's reals in order ([`scalar_count`]): α then β (complex: re, im); rot c then
    /// s; rotm h11, h21, h12, h22.
    pub scalars: &'a [ScalarArg],
}

/// How many reals a call of `op` on `dtype` passes ([`Problem::scalars`]).
pub fn scalar_count(op: L1Op, dtype: DType) -> usize {
    let element = if dtype.is_complex() { 2 } else { 1 };
    match op {
        L1Op::Scal | L1Op::Fill => element,
        L1Op::Axpby { .. } => 2 * element,
        L1Op::Rot => 1 + element,
        L1Op::Rotm => 4,
        L1Op::Copy
        | L1Op::Swap
        | L1Op::Convert { .. }
        | L1Op::Dot { .. }
        | L1Op::Sum
        | L1Op::Asum
        | L1Op::Nrm2
        | L1Op::Iamax { .. } => 0,
    }
}

/// The variant for the views: the catalog's choice, its vector width narrowed to the
/// widest every view is aligned to.
fn select_params(catalog: &Catalog, p: &Problem<'_>, vectors: &[Vector]) -> Level1Params {
    let (op, dtype) = (p.op, p.dtype);
    let contiguous = vectors.iter().all(|v| v.inc == 1);
    let mut params = catalog.select(
        Level1::NAME,
        &Level1Params::key(op, dtype, contiguous),
        p.n,
        Level1Params::fallback(op, dtype, contiguous),
    );
    if !contiguous {
        return params;
    }
    // x's accesses are `bytes` wide; another vector's cover as many elements, at most
    // `bytes` wide each.
    let aligned = |bytes: u32| {
        vectors.iter().all(|v| {
            let bytes = bytes as u64;
            let own = bytes.min(bytes * v.esize() / dtype.size() as u64);
            own == 0 || v.address % own == 0
        })
    };
    let esize = dtype.size() as u32;
    while params.vector_bytes > esize && !aligned(params.vector_bytes) {
        params.vector_bytes /= 2;
    }
    params.vector_bytes = params.vector_bytes.max(esize);
    params
}

/// Work units (vectors when contiguous, elements when strided) of `n` elements.
fn units(p: &Level1Params, n: u64) -> u64 {
    if p.contiguous {
        let per_unit = (p.vector_bytes as u64 / p.dtype.size() as u64).max(1);
        n.div_ceil(per_unit)
    } else {
        n
    }
}

/// Workgroups whose one tile each (block × unroll units) covers `n`; at least one.
fn covering_groups(p: &Level1Params, n: u64) -> u64 {
    let tile = p.block as u64 * p.unroll as u64;
    units(p, n).div_ceil(tile.max(1)).max(1)
}

fn vectors(p: &Problem<'_>) -> Vec<Vector> {
    std::iter::once(p.x).chain(p.y).collect()
}

/// Checks the problem's shape: the scalars the op takes, a y where it needs one.
fn check_problem(p: &Problem<'_>) -> Result<()> {
    let want = scalar_count(p.op, p.dtype);
    if p.scalars.len() != want {
        return Err(Error::invalid(
            "scalars",
            format!(
                "{:?} on {} takes {want} reals, got {}",
                p.op,
                p.dtype,
                p.scalars.len()
            ),
        ));
    }
    if p.op.has_y() != p.y.is_some() {
        return Err(Error::invalid(
            "y",
            format!(
                "{:?} {} a y vector",
                p.op,
                if p.op.has_y() { "needs" } else { "takes no" }
            ),
        ));
    }
    Ok(())
}

/// The variant a problem runs and its signature on `target`, or why none applies.
fn choose(
    p: &Problem<'_>,
    target: &Target,
    catalog: &Catalog,
) -> Result<(Level1Params, Signature)> {
    check_problem(p)?;
    let params = select_params(catalog, p, &vectors(p));
    let sig = Level1::signatures(&params, target)?
        .into_iter()
        .next()
        .ok_or_else(|| Error::unsupported(format!("Level 1 {:?}", p.op), target.to_string()))?;
    Ok((params, sig))
}

/// Why `p` cannot run on `target` (its scalars, a missing kernel), or `Ok` where it
/// can.
pub fn can_implement(p: &Problem<'_>, target: &Target) -> Result<()> {
    choose(p, target, Catalog::for_target(target)).map(|_| ())
}

/// The launch rule of `p`'s program (elementwise: enough workgroups to cover n; a
/// fixed grid for reductions and grid-stride variants).
pub(crate) fn launch_rule(p: &Level1Params) -> LaunchRule {
    if p.loops() {
        LaunchRule::Fixed {
            grid: p.grid,
            block: p.block,
        }
    } else {
        LaunchRule::Cover {
            block: p.block,
            units_per_item: p.unroll,
        }
    }
}

/// Binds the first pass's arguments by name and type from its signature.
fn bind_first_pass(
    p: &Problem<'_>,
    sig: &Signature,
    partials: Option<Arg>,
) -> Result<Vec<(String, Arg)>> {
    let (ax, ay) = super::accesses(p.op);
    let vector = |v: &Vector, access: Access| Arg::Buffer {
        slot: v.slot,
        offset_bytes: v.logical_offset(p.n),
        touched: v.touched(p.n),
        access,
    };
    let mut out: Vec<(String, Arg)> = Vec::new();
    let mut scalars = p.scalars.iter();
    for param in &sig.params {
        let name = param.name.as_str();
        let arg = match name {
            "n" => Arg::Value(Value::U64(p.n)),
            "x" => vector(&p.x, ax),
            "y" => match &p.y {
                Some(y) => vector(y, ay),
                None => continue,
            },
            "incx" => Arg::Value(Value::I64(p.x.inc)),
            "incy" => Arg::Value(Value::I64(p.y.as_ref().map_or(0, |v| v.inc))),
            "partials" => match &partials {
                Some(a) => a.clone(),
                None => continue,
            },
            _ => {
                // A scalar parameter: the next real.
                let value = match (param.ty, scalars.next()) {
                    (ParamType::Scalar(ScalarType::F32), Some(ScalarArg::F32(v))) => Value::F32(*v),
                    (ParamType::Scalar(ScalarType::F64), Some(ScalarArg::F64(v))) => Value::F64(*v),
                    _ => {
                        return Err(Error::invalid(
                            "scalars",
                            format!(
                                "{}: no {} scalar for `{name}` among the call's {:?}",
                                sig.kernel, param.ty, p.scalars
                            ),
                        ))
                    }
                };
                Arg::Value(value)
            }
        };
        out.push((param.name.clone(), arg));
    }
    // Reals left over: only axpby's β of a kernel that does not read y (the kernel
    // declares α alone there).
    let left = scalars.count();
    if left > 0 && !matches!(p.op, L1Op::Axpby { read_y: false }) {
        return Err(Error::invalid(
            "scalars",
            format!(
                "{}: {left} of the call's reals bind to no parameter",
                sig.kernel
            ),
        ));
    }
    Ok(out)
}

fn bind(
    program: ProgramRef,
    sig: Signature,
    config: LaunchConfig,
    bindings: Vec<(String, Arg)>,
) -> Result<Step> {
    let named: Vec<(&str, Arg)> = bindings
        .iter()
        .map(|(n, a)| (n.as_str(), a.clone()))
        .collect();
    Step::bind(program, sig, config, named)
}

/// The plan of an elementwise op (scal, axpby, copy, swap, fill, rot, rotm, convert):
/// one launch; none for n = 0.
pub fn plan(p: &Problem<'_>, target: &Target, catalog: &Catalog) -> Result<Plan> {
    if p.op.is_reduction() {
        return Err(Error::invalid(
            "op",
            format!("{:?} is a reduction (plan_reduction)", p.op),
        ));
    }
    if p.n == 0 {
        check_problem(p)?;
        return Ok(Plan::default());
    }
    let (params, sig) = choose(p, target, catalog)?;
    let config = launch_rule(&params).config(units(&params, p.n));
    let bindings = bind_first_pass(p, &sig, None)?;
    let step = bind(ProgramRef::of::<Level1>(params), sig, config, bindings)?;
    Ok(Plan {
        steps: vec![step],
        workspace_bytes: 0,
    })
}

/// Where a reduction's result goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ResultAt {
    /// Element 0 of the view in this slot (device pointer mode).
    Buffer(usize),
    /// The workspace, at [`ReductionPlan::result_offset`] (16 bytes; host mode).
    Workspace,
}

/// A reduction's plan and where its pieces lie in the workspace.
#[derive(Debug)]
pub struct ReductionPlan {
    pub plan: Plan,
    /// Partials per workgroup, and the workgroups launched (0 for n = 0): the partials
    /// are `slots × grid` f64s at the workspace's start, slot-major.
    pub slots: usize,
    pub grid: u32,
    /// Byte offset of the result in the workspace ([`ResultAt::Workspace`]).
    pub result_offset: u64,
}

/// The plan of a reduction (dot, dotc, sum, asum, nrm2, iamax, iamin) whose result is
/// of type `out`, stored at `result`.
pub fn plan_reduction(
    p: &Problem<'_>,
    out: DType,
    result: ResultAt,
    target: &Target,
    catalog: &Catalog,
) -> Result<ReductionPlan> {
    if !p.op.is_reduction() {
        return Err(Error::invalid(
            "op",
            format!("{:?} is not a reduction", p.op),
        ));
    }
    let fin = FinishParams {
        op: p.op,
        dtype: p.dtype,
        out,
    };
    fin.validate()?;
    let slots = partial_slots(p.op, p.dtype);
    let mut steps = Vec::new();
    let (grid, most) = if p.n == 0 {
        check_problem(p)?;
        (0, 0)
    } else {
        let (params, sig) = choose(p, target, catalog)?;
        let grid = covering_groups(&params, p.n).min(params.grid.max(1) as u64) as u32;
        let config = LaunchConfig::linear(grid, params.block);
        let partials = Arg::Workspace {
            offset: 0,
            bytes: (slots * grid as usize * 8) as u64,
        };
        let bindings = bind_first_pass(p, &sig, Some(partials))?;
        steps.push(bind(
            ProgramRef::of::<Level1>(params.clone()),
            sig,
            config,
            bindings,
        )?);
        (grid, params.grid.max(1) as usize)
    };
    let tail = (slots * most * 8) as u64;
    let finish = Finish::signatures(&fin, target)?.pop();
    if let Some(sig) = finish {
        let result_arg = match result {
            ResultAt::Buffer(slot) => Arg::Buffer {
                slot,
                offset_bytes: 0,
                touched: 0..out.size() as u64,
                access: Access::Write,
            },
            ResultAt::Workspace => Arg::Workspace {
                offset: tail,
                bytes: 16,
            },
        };
        let bindings = vec![
            (
                "partials",
                Arg::Workspace {
                    offset: 0,
                    bytes: (slots * grid as usize * 8) as u64,
                },
            ),
            ("result", result_arg),
            ("grid", Arg::Value(Value::U32(grid))),
        ];
        steps.push(Step::bind(
            ProgramRef::of::<Finish>(fin),
            sig,
            LaunchConfig::linear(1, FINISH_LANES),
            bindings,
        )?);
    }
    Ok(ReductionPlan {
        plan: Plan {
            steps,
            workspace_bytes: tail + 16,
        },
        slots,
        grid,
        result_offset: tail,
    })
}
