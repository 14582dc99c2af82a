//! Level 1 selection: a problem and a target in, a [`Plan`] out.
//!
//! The variant comes from the catalog (then the fallback) and is adapted to the views:
//! the PTX kernels narrow their vector width to the views' alignment; the AMDGPU kernels
//! load 16 bytes per lane, so an unaligned contiguous problem runs their strided kernel
//! at increment one. Each vector is aligned to its own access width: for a conversion
//! PTX's `vector_bytes` is x's (y's accesses cover as many elements, at most that wide),
//! AMDGPU's the wider side's. Those rules, and the AMDGPU kernels' 32-bit byte offsets
//! (a vector spans less than 2³² bytes, |inc| < 2³¹), are the rows of [`RULES`], chosen
//! by whether the target has an AMDGPU ISA.
//!
//! Arguments are bound by name from the kernel's signature, so the two kernel families'
//! different argument lists ([`super::ptx_signature`],
//! [`crate::amdgpu::level1::signature`]) need no host-side knowledge: `n`, `incx`,
//! `incy` take the declared integer width; vectors are passed at logical element 0 by
//! PTX (the far end for a negative increment) and at their lowest address by AMDGPU
//! (`n` and `incx` declared 32-bit say which); scalars fill the declared scalar
//! parameters in order (f32/f64 as themselves, `u32` words as f32 bits or an f64's low
//! then high word); `groups` is the launched grid.
//!
//! Reductions ([`plan_reduction`]): a first pass writes `slots × grid` f64 partials
//! (structure of arrays) at the workspace's start, then the finish program
//! ([`super::finish`]) combines them into the result, in the caller's buffer or in the
//! two f64s after the partials. A PTX reduction's grid is compiled in
//! (`Level1Params::grid`), so the plan asks for min(catalog grid, workgroups covering n)
//! rounded up to a power of two (a dozen variants at most); AMDGPU kernels read their
//! grid from `groups`, so any grid runs one code: min(catalog grid, covering). n = 0
//! runs the finish alone (`grid = 0`: the result is 0). Where a target has no finish
//! kernel (AMDGPU nrm2) the plan says so and the host combines the partials in the same
//! order.

use super::finish::{Finish, FinishParams, FINISH_LANES};
use super::{partial_slots, L1Op, Level1, Level1Params};
use crate::catalog::Catalog;
use crate::generator::{Generator, LaunchRule};
use crate::plan::{Arg, Plan, ProgramRef, Step};
use crate::signature::{Access, ParamType, ScalarType, Signature, Value};
use rocm_core::isa::amdgpu::IsaTarget;
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

    /// Bytes from the lowest to one past the highest element slot of an `n`-vector
    /// (`n·|inc|·size`, the AMDGPU addressing measure).
    fn span_bytes(&self, n: u64) -> u128 {
        n as u128 * self.inc.unsigned_abs() as u128 * self.esize() as u128
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

/// What `vector_bytes` measures when x and y differ in element size (a conversion).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum VectorWidth {
    /// x's loads; y's accesses cover as many elements, split to at most that width.
    OfX,
    /// The wider side's accesses; the narrower side's cover as many elements.
    OfWider,
}

/// One kernel family's selection rules.
#[derive(Debug)]
struct Rules {
    name: &'static str,
    /// The largest byte span of one vector plus one, and the largest |inc| plus one.
    max_span_bytes: Option<u128>,
    max_inc: Option<u128>,
    /// Contiguous kernels with a fixed vector width: unaligned views run strided.
    fixed_vector: bool,
    /// The reduction grid is compiled in (another grid is another variant); otherwise
    /// the kernel reads it from `groups`.
    grid_compiled: bool,
    vector_width: VectorWidth,
}

/// The rules of the PTX kernels and of the AMDGPU kernels.
const RULES: [Rules; 2] = [
    Rules {
        name: "PTX",
        max_span_bytes: None,
        max_inc: None,
        fixed_vector: false,
        grid_compiled: true,
        vector_width: VectorWidth::OfX,
    },
    Rules {
        name: "AMDGPU",
        max_span_bytes: Some(1 << 32),
        max_inc: Some(1 << 31),
        fixed_vector: true,
        grid_compiled: false,
        vector_width: VectorWidth::OfWider,
    },
];

fn rules(target: &Target) -> &'static Rules {
    let amdgpu = IsaTarget::try_from(target).is_ok();
    &RULES[usize::from(amdgpu)]
}

impl Rules {
    /// Rejects vectors the family cannot address.
    fn check_limits(&self, n: u64, vectors: &[Vector]) -> Result<()> {
        for v in vectors {
            let inc = v.inc.unsigned_abs() as u128;
            let span = v.span_bytes(n);
            let too_far = self.max_span_bytes.is_some_and(|m| span >= m);
            let too_wide = self.max_inc.is_some_and(|m| inc >= m);
            if too_far || too_wide {
                return Err(Error::unsupported(
                    format!(
                        "{} spanning {span} bytes (n = {n}, inc{} = {}): the {} kernels \
                         address with 32-bit byte offsets (span < 2^32, |inc| < 2^31)",
                        v.name, v.name, v.inc, self.name
                    ),
                    self.name,
                ));
            }
        }
        Ok(())
    }

    /// The variant for the views: the catalog's choice, adapted to their alignment.
    fn params(&self, catalog: &Catalog, p: &Problem<'_>, vectors: &[Vector]) -> Level1Params {
        let (op, dtype) = (p.op, p.dtype);
        let select = |contiguous: bool| {
            catalog.select(
                Level1::NAME,
                &Level1Params::key(op, dtype, contiguous),
                p.n,
                Level1Params::fallback(op, dtype, contiguous),
            )
        };
        let contiguous = vectors.iter().all(|v| v.inc == 1);
        let mut params = select(contiguous);
        if !contiguous {
            return params;
        }
        let widest = vectors.iter().map(Vector::esize).max().unwrap_or(1);
        let aligned = |bytes: u32| {
            vectors.iter().all(|v| {
                let bytes = bytes as u64;
                let own = match self.vector_width {
                    VectorWidth::OfX => bytes.min(bytes * v.esize() / dtype.size() as u64),
                    VectorWidth::OfWider => bytes * v.esize() / widest,
                };
                own == 0 || v.address % own == 0
            })
        };
        if self.fixed_vector {
            if aligned(params.vector_bytes) {
                params
            } else {
                select(false)
            }
        } else {
            // The widest vector every view is aligned to, and never below one element.
            let esize = dtype.size() as u32;
            while params.vector_bytes > esize && !aligned(params.vector_bytes) {
                params.vector_bytes /= 2;
            }
            params.vector_bytes = params.vector_bytes.max(esize);
            params
        }
    }
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
    let r = rules(target);
    let v = vectors(p);
    r.check_limits(p.n, &v)?;
    let mut params = r.params(catalog, p, &v);
    if p.op.is_reduction() && r.grid_compiled {
        let covering = covering_groups(&params, p.n).next_power_of_two();
        params.grid = (params.grid as u64).min(covering).max(1) as u32;
    }
    let sig = Level1::signatures(&params, target)?
        .into_iter()
        .next()
        .ok_or_else(|| Error::unsupported(format!("Level 1 {:?}", p.op), target.to_string()))?;
    Ok((params, sig))
}

/// Why `p` cannot run on `target` (its scalars, the kernels' addressing limits, a
/// missing kernel), or `Ok` where it can.
pub fn can_implement(p: &Problem<'_>, target: &Target) -> Result<()> {
    choose(p, target, Catalog::for_target(target)).map(|_| ())
}

/// The launch rule of `p`'s program (elementwise: enough workgroups to cover n; a
/// fixed grid for reductions and, on PTX, grid-stride variants).
pub(crate) fn launch_rule(p: &Level1Params, amdgpu: bool) -> LaunchRule {
    let fixed = if amdgpu {
        p.op.is_reduction()
    } else {
        p.loops()
    };
    if fixed {
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
    groups: u32,
    partials: Option<Arg>,
) -> Result<Vec<(String, Arg)>> {
    let (ax, ay) = super::accesses(p.op);
    let narrow = |name: &str| -> Result<bool> {
        Ok(matches!(
            sig.params[sig.index(name)?].ty,
            ParamType::Scalar(ScalarType::U32 | ScalarType::I32)
        ))
    };
    // 32-bit `n` (AMDGPU): vectors at their lowest address; else at logical element 0.
    let lowest = narrow("n")?;
    let vector = |v: &Vector, access: Access| Arg::Buffer {
        slot: v.slot,
        offset_bytes: if lowest { 0 } else { v.logical_offset(p.n) },
        touched: v.touched(p.n),
        access,
    };
    let mut out: Vec<(String, Arg)> = Vec::new();
    let mut scalars = p.scalars.iter();
    let mut words: Vec<u32> = Vec::new();
    for param in &sig.params {
        let name = param.name.as_str();
        let arg = match name {
            "n" if lowest => Arg::Value(Value::U32(p.n as u32)),
            "n" => Arg::Value(Value::U64(p.n)),
            "groups" => Arg::Value(Value::U32(groups)),
            "x" => vector(&p.x, ax),
            "y" => match &p.y {
                Some(y) => vector(y, ay),
                None => continue,
            },
            "incx" | "incy" => {
                let v = if name == "incx" {
                    Some(&p.x)
                } else {
                    p.y.as_ref()
                };
                let inc = v.map_or(0, |v| v.inc);
                if narrow(name)? {
                    Arg::Value(Value::I32(inc as i32))
                } else {
                    Arg::Value(Value::I64(inc))
                }
            }
            "partials" => match &partials {
                Some(a) => a.clone(),
                None => continue,
            },
            _ => {
                // A scalar parameter: the next real, or the next u32 word of it.
                let value = match param.ty {
                    ParamType::Scalar(ScalarType::U32) => {
                        if words.is_empty() {
                            words = match scalars.next() {
                                Some(ScalarArg::F32(v)) => vec![v.to_bits()],
                                Some(ScalarArg::F64(v)) => {
                                    let b = v.to_bits();
                                    vec![(b >> 32) as u32, b as u32]
                                }
                                None => vec![],
                            };
                        }
                        words.pop().map(Value::U32)
                    }
                    ParamType::Scalar(ScalarType::F32) => match scalars.next() {
                        Some(ScalarArg::F32(v)) => Some(Value::F32(*v)),
                        _ => None,
                    },
                    ParamType::Scalar(ScalarType::F64) => match scalars.next() {
                        Some(ScalarArg::F64(v)) => Some(Value::F64(*v)),
                        _ => None,
                    },
                    _ => None,
                };
                let Some(value) = value else {
                    return Err(Error::invalid(
                        "scalars",
                        format!(
                            "{}: no {} scalar for `{name}` among the call's {:?}",
                            sig.kernel, param.ty, p.scalars
                        ),
                    ));
                };
                Arg::Value(value)
            }
        };
        out.push((param.name.clone(), arg));
    }
    // Reals left over: only axpby's β of a kernel that does not read y (PTX declares α
    // alone there).
    let left = scalars.count() + words.len();
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
    let amdgpu = IsaTarget::try_from(target).is_ok();
    let config = launch_rule(&params, amdgpu).config(units(&params, p.n));
    let bindings = bind_first_pass(p, &sig, config.grid[0], None)?;
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
    /// No finish kernel on this target: the host combines the partials
    /// ([`super::finish::finish_sum`], [`super::finish::finish_index`]).
    pub combine_on_host: bool,
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
        let r = rules(target);
        let grid = if r.grid_compiled {
            params.grid
        } else {
            covering_groups(&params, p.n).min(params.grid.max(1) as u64) as u32
        };
        let config = LaunchConfig::linear(grid, params.block);
        let partials = Arg::Workspace {
            offset: 0,
            bytes: (slots * grid as usize * 8) as u64,
        };
        let bindings = bind_first_pass(p, &sig, grid, Some(partials))?;
        steps.push(bind(
            ProgramRef::of::<Level1>(params.clone()),
            sig,
            config,
            bindings,
        )?);
        (grid, params.grid.max(1) as usize)
    };
    let tail = (slots * most * 8) as u64;
    let finish = match Finish::signatures(&fin, target) {
        Ok(mut s) => s.pop(),
        Err(Error::Unsupported { .. }) => None,
        Err(e) => return Err(e),
    };
    let combine_on_host = finish.is_none();
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
        combine_on_host,
    })
}
