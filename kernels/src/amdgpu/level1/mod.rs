//! BLAS Level 1 kernels for AMDGPU, built with the [`Assembler`](super::Assembler) from the
//! same [`Level1Params`] as the PTX generator ([`crate::level1`]): every op for f32, f64,
//! Complex32 and Complex64 (rotm: real only; convert: the six pairs below), and every
//! op for f16 and bf16, contiguous and strided, on every gfx9 (wave64) and gfx11
//! (wave32) target.
//!
//! | Op | dtypes | Arguments (kernarg order) |
//! |---|---|---|
//! | `Copy` (y = x) | f16, bf16, f32, f64, c32, c64 | `x, y, n, groups` |
//! | `Swap` (x ↔ y) | f16, bf16, f32, f64, c32, c64 | `x, y, n, groups` |
//! | `Fill` (x = α) | f16, bf16, f32, f64, c32, c64 | `x, n, groups, alpha` |
//! | `Scal` (x = α·x) | f16, bf16, f32, f64, c32, c64 | `x, n, groups, alpha` |
//! | `Axpby` (y = α·x + β·y) | f16, bf16, f32, f64, c32, c64 | `x, y, n, groups, alpha, beta` (β read also when `read_y = false`: y = α·x) |
//! | `Rot` (x' = c·x + s·y, y' = c·y − conj(s)·x) | f16, bf16, f32, f64, c32, c64 | `x, y, n, groups, c, s` (c real) |
//! | `Rotm` (x' = h11·x + h12·y, y' = h21·x + h22·y) | f16, bf16, f32, f64 | `x, y, n, groups, h11, h21, h12, h22` |
//! | `Convert { to }` (y = x as `to`) | f32→f16, f32→bf16, f16→f32, bf16→f32, f64→f32, f32→f64 | `x, y, n, groups` |
//! | `Dot { conj }` (Σ op(x)·y, op = conj for dotc) | f16, bf16, f32, f64, c32, c64 | `x, y, n, groups, partials` |
//! | `Sum` (Σ x) | f16, bf16, f32, f64, c32, c64 | `x, n, groups, partials` |
//! | `Asum` (Σ \|re x\| + \|im x\|) | f16, bf16, f32, f64, c32, c64 | `x, n, groups, partials` |
//! | `Nrm2` (Blue's Σ\|x\|²) | f16, bf16, f32, f64, c32, c64 | `x, n, groups, partials` |
//! | `Iamax { max }` (first index of the largest / smallest \|re\| + \|im\|) | f16, bf16, f32, f64, c32, c64 | `x, n, groups, partials` |
//!
//! `x`, `y` and `partials` are global pointers (x and y the lowest address of the vector,
//! also for negative increments); `n` and `groups` are `u32`. Strided kernels take
//! `incx: i32` (and `incy: i32` where there is a y) right after `groups`, before the
//! scalars: e.g. axpby `x, y, n, groups, incx, incy, alpha, beta`.
//!
//! Scalars are sequences of `u32` words: an f32 is one word (its bits), an f64 two (low
//! then high half), a complex number its real part then its imaginary part; f16/bf16
//! kernels take their scalars as f32. `groups` is the number of workgroups launched
//! (the grid); the kernel does not read the dispatch packet.
//!
//! Rules:
//! - Contiguous: work-item `g = wg·block + tid` handles vectors `g, g + groups·block, …`
//!   (grid-stride loop, exec-masked `g < n / epv`) of `epv = 16 / max(size x, size y)`
//!   elements, so x and y move 16 bytes per lane per access (a conversion's narrower side
//!   moves 8: `global_load_dwordx4` / `global_load_dwordx2`); any grid ≥ 1 covers the
//!   vector. The `n mod epv` elements past the last whole vector are done by workgroup 0,
//!   one element per lane.
//! - Strided: work-item `g` handles elements `g, g + groups·block, …`, one per lane, at
//!   byte offset `i·inc·size + start`, `start = (1 - n)·inc·size` for `inc < 0` (BLAS:
//!   element 0 is the last in memory).
//! - Addresses are 32-bit byte offsets: `n·size·|inc|` must be below 2³².
//! - Arithmetic (one rounding per instruction, round to nearest even, denormals kept):
//!   real scal `α·x`; real axpby `fma(α, x, β·y)` (β = 0: `α·x`); complex products as
//!   the PTX generator: `re = fma(−ai, bi, ar·br)`, `im = fma(ai, br, ar·bi)`; complex
//!   axpby adds `β·y` to `α·x` with four fmas (`fma(−βi, yi, fma(βr, yr, ·))`, …); rot
//!   `fma(s, y, c·x)` (complex: two fmas after `c·x`), rotm `fma(h12, y, h11·x)`.
//! - f16/bf16: each element widens exactly to f32, the f32 formulas above run (fill:
//!   α is rounded once), and results round to the storage type as the conversions below;
//!   reductions run as for f32 data (f32 sums and keys, nrm2's squares in f64).
//! - Reductions: each lane accumulates in the dtype's real type (nrm2 in f64) in element
//!   order, the workgroup combines its lanes by a fixed LDS tree (`block` a power of two),
//!   and work-item 0 writes the workgroup's f64 partials as a structure of arrays: slot
//!   `s` at `partials[s·groups + wg]`, slots as [`crate::level1::partial_slots`]: dot/sum
//!   (re, im for complex), asum, nrm2 (small, medium, big: Blue's scheme on f64 inputs
//!   with the PTX generator's thresholds; f32/c32 squares summed in f64 into slot 1),
//!   iamax/iamin (value as f64, index as u64 bits: u64::MAX and −1 / +∞ when no element
//!   qualified; first index on ties, NaN never taken; as in the PTX kernels an element
//!   is taken only when strictly better than −1 / +∞, so iamin over only-∞ values finds
//!   none). The final pass ([`finish`]; the host for nrm2) combines the `groups`
//!   partials in its fixed order: the result is the same run to run for a given grid.
//! - Conversions round to nearest even, bit for bit as the `half` crate (f16, bf16) and
//!   Rust's `as` (f64 → f32): NaN stays NaN with its sign and leading payload bits and the
//!   quiet bit set, ±∞ stays, subnormals are kept, overflow gives ∞.

mod body;
mod convert;
mod driver;
pub mod finish;
mod reduce;

use super::asm::AssembledKernel;
use crate::generator::Program;
use crate::level1::{L1Op, Level1Params};
use crate::signature::{Access, ScalarType, Signature};
use rocm_core::isa::amdgpu::IsaTarget;
use rocm_core::{DType, Error, ModuleImage, Result, Target};

/// Bytes per contiguous load/store per lane (of the wider side of a conversion).
pub const VECTOR_BYTES: u32 = 16;

/// The kernel name of `p`: `l1_<op>_<dtype>_<contiguous|strided>`
/// (`l1_convert_<from>_<to>_<layout>` for conversions).
pub fn kernel_name(p: &Level1Params) -> String {
    let op = match p.op {
        L1Op::Scal => "scal",
        L1Op::Axpby { read_y: true } => "axpby",
        L1Op::Axpby { read_y: false } => "axpby_b0",
        L1Op::Copy => "copy",
        L1Op::Swap => "swap",
        L1Op::Dot { conj: false } => "dot",
        L1Op::Dot { conj: true } => "dotc",
        L1Op::Sum => "sum",
        L1Op::Asum => "asum",
        L1Op::Nrm2 => "nrm2",
        L1Op::Iamax { max: true } => "iamax",
        L1Op::Iamax { max: false } => "iamin",
        L1Op::Fill => "fill",
        L1Op::Rot => "rot",
        L1Op::Rotm => "rotm",
        L1Op::Convert { to } => return format!("l1_convert_{}_{}_{}", p.dtype, to, layout_name(p)),
    };
    format!("l1_{op}_{}_{}", p.dtype, layout_name(p))
}

fn layout_name(p: &Level1Params) -> &'static str {
    if p.contiguous {
        "contiguous"
    } else {
        "strided"
    }
}

/// The [`Program`] of `p` for `target`: the code object of [`generate`]'s kernel, launched
/// like the PTX kernels (elementwise: enough workgroups to cover `n`; reductions: the
/// fixed `grid`). The kernels loop grid-stride and read the grid from their `groups`
/// argument, so any grid is correct.
pub fn program(p: &Level1Params, target: &Target) -> Result<Program> {
    let t = IsaTarget::try_from(target)?;
    let sig = signature(t, p)?;
    let k = generate(t, p)?;
    let launch = crate::level1::plan::launch_rule(p, true);
    Ok(Program::declared(
        ModuleImage::CodeObject(k.to_elf()?),
        vec![sig],
        launch,
    ))
}

/// The kernel's signature (the module docs): `x, [y], n: u32, groups: u32,
/// [incx: i32, [incy: i32]] (strided only), scalar words: u32, [partials: f64, written]`.
pub fn signature(t: IsaTarget, p: &Level1Params) -> Result<Signature> {
    let s = spec(t, p)?;
    let (ax, ay) = crate::level1::accesses(p.op);
    let mut sig = Signature::new(kernel_name(p)).pointer("x", p.dtype, ax);
    if s.has_y() {
        sig = sig.pointer("y", crate::level1::y_dtype(p.op, p.dtype), ay);
    }
    sig = sig
        .scalar("n", ScalarType::U32)
        .scalar("groups", ScalarType::U32);
    if !p.contiguous {
        sig = sig.scalar("incx", ScalarType::I32);
        if s.has_y() {
            sig = sig.scalar("incy", ScalarType::I32);
        }
    }
    for word in body::scalar_words(&s).into_iter().flatten() {
        sig = sig.scalar(word, ScalarType::U32);
    }
    if p.op.is_reduction() {
        sig = sig.pointer("partials", DType::F64, Access::Write);
    }
    Ok(sig)
}

pub(crate) use super::math::Real;

/// What one kernel computes, resolved from [`Level1Params`].
#[derive(Debug, Clone, Copy)]
pub(crate) struct Spec {
    pub op: L1Op,
    /// The real type of x's (and for all but conversions y's) components.
    pub real: Real,
    /// Components per element: 1 real, 2 complex.
    pub comps: u8,
    /// Bytes per element of x and of y (y: 0 when there is no y).
    pub esx: u32,
    pub esy: u32,
    /// The conversion, for `Convert`.
    pub convert: Option<(DType, DType)>,
    /// f16 or bf16 storage: elements widen to f32 for the arithmetic and round back.
    pub half: Option<DType>,
}

impl Spec {
    /// Elements per contiguous vector: 16 bytes of the wider side.
    pub fn per_vector(&self) -> u32 {
        VECTOR_BYTES / self.esx.max(self.esy)
    }

    pub fn has_y(&self) -> bool {
        self.op.has_y()
    }
}

fn real_of(d: DType) -> Option<(Real, u8)> {
    match d {
        DType::F32 => Some((Real::F32, 1)),
        DType::F64 => Some((Real::F64, 1)),
        DType::C32 => Some((Real::F32, 2)),
        DType::C64 => Some((Real::F64, 2)),
        _ => None,
    }
}

/// The conversions the kernels do (source, destination).
const CONVERSIONS: [(DType, DType); 6] = [
    (DType::F32, DType::F16),
    (DType::F32, DType::Bf16),
    (DType::F16, DType::F32),
    (DType::Bf16, DType::F32),
    (DType::F64, DType::F32),
    (DType::F32, DType::F64),
];

fn spec(t: IsaTarget, p: &Level1Params) -> Result<Spec> {
    let unsupported = || Error::unsupported(kernel_name(p), t.name());
    if let L1Op::Convert { to } = p.op {
        if !CONVERSIONS.contains(&(p.dtype, to)) {
            return Err(unsupported());
        }
        let real = if p.dtype == DType::F64 || to == DType::F64 {
            Real::F64
        } else {
            Real::F32
        };
        return Ok(Spec {
            op: p.op,
            real,
            comps: 1,
            esx: p.dtype.size() as u32,
            esy: to.size() as u32,
            convert: Some((p.dtype, to)),
            half: None,
        });
    }
    if matches!(p.dtype, DType::F16 | DType::Bf16) {
        if matches!(p.op, L1Op::Convert { .. }) {
            return Err(unsupported());
        }
        return Ok(Spec {
            op: p.op,
            real: Real::F32,
            comps: 1,
            esx: 2,
            esy: if p.op.has_y() { 2 } else { 0 },
            convert: None,
            half: Some(p.dtype),
        });
    }
    let (real, comps) = real_of(p.dtype).ok_or_else(unsupported)?;
    if p.op == L1Op::Rotm && comps != 1 {
        return Err(unsupported());
    }
    let es = p.dtype.size() as u32;
    Ok(Spec {
        op: p.op,
        real,
        comps,
        esx: es,
        esy: if p.op.has_y() { es } else { 0 },
        convert: None,
        half: None,
    })
}

/// The kernel of `p` on `t`.
pub fn generate(t: IsaTarget, p: &Level1Params) -> Result<AssembledKernel> {
    let s = spec(t, p)?;
    if p.contiguous && p.vector_bytes != VECTOR_BYTES {
        return Err(Error::invalid(
            "vector_bytes",
            format!(
                "{} (the AMDGPU kernels load 16 bytes per lane)",
                p.vector_bytes
            ),
        ));
    }
    if p.block == 0 || p.block > 1024 || p.block % t.wave_size() != 0 {
        return Err(Error::invalid(
            "block",
            format!(
                "{} is not a multiple of the wave size {} up to 1024",
                p.block,
                t.wave_size()
            ),
        ));
    }
    if p.op.is_reduction() && !p.block.is_power_of_two() {
        return Err(Error::invalid(
            "block",
            format!("{} is not a power of two (the LDS tree halves it)", p.block),
        ));
    }
    driver::build(t, p, &s)
}
