//! The Sobol fill kernel (bits and uniforms of Sobol32/64, plain and scrambled), its
//! generator and plan, making the values of [`crate::quasi`]'s CPU fill bit for bit.
//!
//! Work split: the grid is `dims × groups` workgroups; workgroup `w` serves dimension
//! `w / groups`, and its work-item `t` point `offset + (w mod groups)·block + t` of it,
//! computed directly from the Gray code of its index (one conditional XOR per bit, the
//! direction vectors read from slot 1: `BITS / 32` words per vector, low word first,
//! then one shift of the same width per dimension). The normals (an inverse CDF) have
//! no kernel yet.

use crate::dist::{uniform, Dist, Kind};
use crate::gpu::{one_step, out_binding};
use crate::sobol::{Dimension, Word};
use rocm_core::{DType, Error, Result, Target};
use rocm_kernels::exec::DeviceView;
use rocm_kernels::generator::{Generator, LaunchRule, Program};
use rocm_kernels::lang::{self, Access, Builder, KernelDef, Scalar, Value};
use rocm_kernels::plan::{Arg, Plan, ProgramRef};
use rocm_kernels::signature::Value as ArgValue;
use serde::{Deserialize, Serialize};

/// The kernel's name.
pub const KERNEL: &str = "rand_sobol_fill";

/// One kernel variant.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Params {
    /// 32 or 64.
    pub bits: u32,
    pub dist: Dist,
    pub dtype: DType,
    /// Work-items per workgroup.
    pub block: u32,
}

/// The generator of the Sobol fill kernels.
pub struct SobolKernels;

impl Generator for SobolKernels {
    type Params = Params;
    const NAME: &'static str = "rand_sobol";
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

/// The element type of the output buffer: u32 words (a 64-bit point as two, low
/// first), f32 or f64.
fn out_scalar(p: &Params) -> Scalar {
    match p.dtype {
        DType::F32 => Scalar::F32,
        DType::F64 => Scalar::F64,
        _ => Scalar::U32,
    }
}

/// The kernel of `p`. Parameters: `out` (written), `dirs` (read), `per: u64` (points
/// per dimension), `offset: u64` (the first point), `groups: u32` (workgroups per
/// dimension).
pub fn kernel(p: &Params, target: &Target) -> Result<KernelDef> {
    let ok_dtype = match p.dist {
        Dist::Bits => p.dtype == if p.bits == 64 { DType::I64 } else { DType::U32 },
        Dist::Uniform => matches!(p.dtype, DType::F32 | DType::F64),
        _ => false,
    };
    if !(p.bits == 32 || p.bits == 64) || p.block == 0 || !ok_dtype {
        return Err(Error::invalid(
            "params",
            format!(
                "a Sobol kernel is 32 or 64 bits of bits or uniforms with a positive block, \
                 got {p:?}"
            ),
        ));
    }
    let words = (p.bits / 32) as usize;
    let mut k = Builder::new(KERNEL, target)?;
    k.max_workgroup_size(p.block);
    let out = k.ptr("out", out_scalar(p), Access::Write);
    let dirs = k.ptr("dirs", Scalar::U32, Access::Read);
    let per = k.param("per", Scalar::U64);
    let offset = k.param("offset", Scalar::U64);
    let groups = k.param("groups", Scalar::U32);
    let wg = k.workgroup_id();
    let dim = k.div(wg, groups);
    let part = k.rem(wg, groups);
    let tid = k.thread_id();
    let tid = k.convert(tid, Scalar::U64);
    let part = k.convert(part, Scalar::U64);
    let j = k.fma(part, p.block as u64, tid);
    let inside = k.lt(j, per);
    k.if_(inside, |k| {
        let idx = k.add(offset, j);
        let half = k.shr(idx, 1u32);
        let gray = k.xor(idx, half);
        // Dimension `dim`'s vectors start at word dim·(bits + 1)·words.
        let stride = (p.bits as usize + 1) * words;
        let dim64 = k.convert(dim, Scalar::U64);
        let base = k.mul(dim64, stride as u64);
        let load = |k: &mut Builder, w: usize| {
            let i = k.add(base, w as u64);
            let off = k.at(dirs, i);
            k.load(dirs, off)
        };
        // The shift, after the vectors.
        let mut x: Vec<Value> = (0..words)
            .map(|w| load(k, p.bits as usize * words + w))
            .collect();
        for b in 0..p.bits {
            let s = k.shr(gray, b);
            let bit = k.and(s, 1u64);
            let set = k.ne(bit, 0u64);
            for (w, xw) in x.iter_mut().enumerate() {
                let v = load(k, b as usize * words + w);
                let zero = k.constant(lang::Type::of(Scalar::U32), 0u32);
                let v = k.select(set, v, zero);
                *xw = k.xor(*xw, v);
            }
        }
        // Position of the value: dim·per + j.
        let pos = k.fma(dim64, per, j);
        match (p.dist, p.dtype) {
            (Dist::Bits, _) => {
                for (w, &xw) in x.iter().enumerate() {
                    let at = k.fma(pos, words as u64, w as u64);
                    let off = k.at(out, at);
                    k.store(out, off, xw);
                }
            }
            (_, dtype) => {
                let v = uniform_of(k, &x, dtype);
                let off = k.at(out, pos);
                k.store(out, off, v);
            }
        }
    });
    k.finish()
}

/// cuRAND's uniform of a point (words low first), as [`crate::quasi`] computes it.
fn uniform_of(k: &mut Builder, x: &[Value], dtype: DType) -> Value {
    let hi = *x.last().expect("a point has a word");
    match (x.len(), dtype) {
        // f32: of the point's high 32 bits.
        (_, DType::F32) => uniform::<f32, Builder>(k, &[hi]),
        (1, _) => {
            let f = k.convert(hi, Scalar::F64);
            let s = k.constant(lang::Type::of(Scalar::F64), 2f64.powi(-32));
            k.fma(f, s, s)
        }
        _ => {
            // (x >> 11) = hi·2²¹ + (lo >> 11), exact in f64.
            let lo = k.shr(x[0], 11u32);
            let lo = k.convert(lo, Scalar::F64);
            let hif = k.convert(hi, Scalar::F64);
            let t21 = k.constant(lang::Type::of(Scalar::F64), 2f64.powi(21));
            let z = k.fma(hif, t21, lo);
            let scale = k.constant(lang::Type::of(Scalar::F64), 2f64.powi(-53));
            let half = k.constant(lang::Type::of(Scalar::F64), 2f64.powi(-54));
            k.fma(z, scale, half)
        }
    }
}

/// The direction vectors and shifts of dimensions `0..dims` as the kernel reads them
/// (slot 1): per dimension, `bits` vectors then the shift, each `bits / 32` words low
/// first.
pub fn direction_words(kind: Kind, dims: u32) -> Result<Vec<u32>> {
    fn words_of<W: Word + Into<u64>>(dims: u32, scrambled: bool, out: &mut Vec<u32>) -> Result<()> {
        for d in 0..dims {
            let dim = Dimension::<W>::new(d, scrambled)?;
            for &v in dim.directions.iter().chain([&dim.shift]) {
                let v: u64 = v.into();
                out.push(v as u32);
                if W::BITS == 64 {
                    out.push((v >> 32) as u32);
                }
            }
        }
        Ok(())
    }
    let mut out = Vec::new();
    match kind.sobol_bits() {
        32 => words_of::<u32>(dims, kind.scrambled(), &mut out)?,
        64 => words_of::<u64>(dims, kind.scrambled(), &mut out)?,
        _ => {
            return Err(Error::invalid(
                "generator",
                format!("{} is not a Sobol generator", kind.name()),
            ))
        }
    }
    Ok(out)
}

/// One Sobol fill: `n` values (`dims` dimensions) of `dist` in `dtype` from point
/// `offset`, checked by [`crate::quasi::fill_window`]'s rules.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Problem {
    pub kind: Kind,
    pub dims: u32,
    pub dist: Dist,
    pub dtype: DType,
    pub n: u64,
    pub offset: u64,
}

/// The plan of one fill (slot 0 the output, 1 the direction words of
/// [`direction_words`]).
pub fn plan(p: &Problem, target: &Target) -> Result<Plan> {
    if !matches!(p.dist, Dist::Bits | Dist::Uniform) {
        return Err(Error::unsupported(
            format!("{} values of {} on a GPU", p.dist.name(), p.kind.name()),
            target,
        ));
    }
    crate::quasi::check_dtype(p.kind, p.dist, p.dtype)?;
    if p.n == 0 {
        return Ok(Plan::default());
    }
    let params = Params {
        bits: p.kind.sobol_bits(),
        dist: p.dist,
        dtype: p.dtype,
        block: 256,
    };
    let per = p.n / p.dims as u64;
    let groups = per.div_ceil(params.block as u64);
    let grid = groups * p.dims as u64;
    if groups > u32::MAX as u64 || grid > i32::MAX as u64 {
        return Err(Error::invalid(
            "n",
            format!("{} values need more than one launch's workgroups", p.n),
        ));
    }
    let words = (params.bits / 32) as u64;
    let dir_words = p.dims as u64 * (params.bits as u64 + 1) * words;
    let rule = LaunchRule::Cover {
        block: params.block,
        units_per_item: 1,
    };
    let program = ProgramRef::of::<SobolKernels>(params.clone());
    let bindings = vec![
        out_binding(p.n, p.dtype),
        (
            "dirs",
            Arg::Buffer {
                slot: 1,
                offset_bytes: 0,
                touched: 0..dir_words * 4,
                access: Access::Read,
            },
        ),
        ("per", Arg::Value(ArgValue::U64(per))),
        ("offset", Arg::Value(ArgValue::U64(p.offset))),
        ("groups", Arg::Value(ArgValue::U32(groups as u32))),
    ];
    one_step(
        program,
        target,
        rule.config(grid * params.block as u64),
        bindings,
    )
}

/// Runs `p` on `stream`: `views` are the output and the direction words.
pub fn run(p: &Problem, stream: &rocm_core::Stream, views: &[DeviceView<'_>]) -> Result<()> {
    let plan = plan(p, stream.device().target())?;
    rocm_kernels::exec::execute(&plan, stream, views, None)
}
