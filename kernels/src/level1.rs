//! BLAS Level 1 generators: elementwise operations (fill, scal, axpby, copy, swap, rot,
//! rotm, dtype conversion) and reductions (dot, dotc, sum, asum, nrm2, iamax, iamin) for
//! f32, f64, Complex32, Complex64, f16 and bf16, contiguous or strided (negative
//! increments included).
//!
//! Contiguous vectors move as `vector_bytes`-wide loads and stores (16 bytes = 4 f32 or
//! 8 f16); each work-item handles `unroll` vectors strided by the block size inside its
//! block's tile, so warps stay coalesced and several loads are in flight per thread.
//! Reductions run a fixed grid (`grid` workgroups) looping over tiles, reduce inside each
//! workgroup through warp shuffles and shared memory in a fixed order, and leave one
//! partial per workgroup; one workgroup's final pass ([`finish`]) combines the partials
//! in a fixed order on the device. The result is therefore the same run to run. nrm2 accumulates in f64, with Blue's three accumulators (tiny,
//! medium, huge) for f64 inputs, so it neither overflows nor underflows where the result
//! does not (the square of any f32, f16 or bf16 is a normal f64, and exact).
//!
//! f16 and bf16 are stored in 2 bytes and computed in f32 (their scalars are f32
//! parameters); results are rounded to nearest even once, when stored. Copy and swap
//! move their bits untouched. Contiguous units are held packed, two values to a 32-bit
//! word, from load to store (a 16-byte access moves 8 values).
//!
//! Error bounds of the reductions, with m = the elements one work-item accumulates
//! (`⌈n / (grid·block·elements per unit·unroll)⌉·unroll·elements per unit`) plus 10 for
//! the warp and workgroup trees, u the unit roundoff of the accumulation type and the
//! final pass's f64 sum of `grid` partials (64 lanes of ⌈grid/64⌉, then the 64 lane
//! sums) adding `g·2⁻⁵³`, g = ⌈grid/64⌉ + 64: dot, sum and asum
//! |error| ≤ (m·u + g·2⁻⁵³)·Σ|terms| (complex: twice that); f16 and bf16 accumulate
//! in f32 (u = 2⁻²⁴). nrm2 of f32, c32, f16 and bf16 squares each real exactly in f64
//! and sums in f64: relative error of the sum of squares ≤ (m + g)·2⁻⁵³, of the norm
//! about half that plus the square root's rounding; f64 and c64 use Blue's scaled
//! accumulators with the same bound per accumulator.
//!
//! `Convert { to }` reads x as `dtype` and writes y as `to`, one correctly rounded
//! conversion per element (`cvt.rn`); `vector_bytes` is the width of x's loads and y's
//! stores are split into accesses of at most `vector_bytes`, so one alignment rule holds
//! for both vectors.
//!
//! Kernel parameters, in order: `n: u64, x: u64` (address of logical element 0),
//! `incx: s64`, then `y: u64, incy: s64` for ops with a y, then the scalars, then
//! `partials: u64` for reductions. Scalars are reals of the dtype (complex: re, im; f16
//! and bf16: f32): scal and fill `alpha`; axpby `alpha, beta` (no beta when
//! `read_y = false`); rot `c, s`; rotm `h11, h21, h12, h22`; convert none.
//! Partials are f64 (iamax: value, then the index's bits), `grid` per slot, slots after
//! one another ([`partial_slots`]).
//!
//! `load_cache` and `store_cache` put one cache hint ([`crate::ptx::cache`]) on every
//! vector load and store (the read-only path stays reserved for data the kernel does
//! not write; the partials are plain stores); the defaults emit what version 4 did.

use crate::generator::{Generator, Program};
use crate::ptx::cache::{LoadHint, StoreCache};
use crate::ptx::half::is_half;
use crate::ptx::{Cmp, KernelBuilder, Module, Op, Reg, Special, Ty};
use crate::signature::{self, ScalarType, Signature};
use rocm_core::isa::amdgpu::IsaTarget;
use rocm_core::target::Family;
use rocm_core::{DType, Error, ModuleImage, Result, Target};

pub mod finish;
pub mod plan;

/// The operation a Level 1 kernel performs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub enum L1Op {
    /// x = α·x
    Scal,
    /// y = α·x + β·y; `read_y = false` when β = 0 (y is then never read).
    Axpby { read_y: bool },
    /// y = x
    Copy,
    /// x ↔ y
    Swap,
    /// Σ op(x)·y, op = conj when `conj`.
    Dot { conj: bool },
    /// Σ x
    Sum,
    /// Σ |re x| + |im x|
    Asum,
    /// Blue's accumulators of Σ|x|² (three f64 partials per workgroup).
    Nrm2,
    /// Index of the first largest (`max`) or smallest |re| + |im|.
    Iamax { max: bool },
    /// x = α (every element).
    Fill,
    /// Plane rotation, c real and s of the element type (crot; csrot/zdrot have im s = 0):
    /// x' = c·x + s·y, y' = c·y − conj(s)·x.
    Rot,
    /// Modified Givens rotation with the full matrix H (the host expands BLAS's flag):
    /// x' = h11·x + h12·y, y' = h21·x + h22·y (real dtypes).
    Rotm,
    /// y = x converted from `dtype` to `to`, rounding to nearest even
    /// (f32 ↔ f16/bf16, f64 ↔ f32).
    Convert { to: DType },
}

impl L1Op {
    /// The op's stable short name (catalog keys, kernel names): `scal`, `axpby`,
    /// `axpby_b0` (β = 0, y not read), `copy`, `swap`, `dot`, `dotc`, `sum`, `asum`,
    /// `nrm2`, `iamax`, `iamin`, `fill`, `rot`, `rotm`, `convert_<to>`.
    pub fn token(self) -> String {
        let name = match self {
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
            L1Op::Convert { to } => return format!("convert_{to}"),
        };
        name.to_string()
    }

    pub fn is_reduction(self) -> bool {
        matches!(
            self,
            L1Op::Dot { .. } | L1Op::Sum | L1Op::Asum | L1Op::Nrm2 | L1Op::Iamax { .. }
        )
    }

    /// Whether the kernel reads y.
    pub fn reads_y(self) -> bool {
        matches!(
            self,
            L1Op::Axpby { read_y: true } | L1Op::Swap | L1Op::Dot { .. } | L1Op::Rot | L1Op::Rotm
        )
    }

    /// Whether the kernel takes a y vector.
    pub fn has_y(self) -> bool {
        matches!(
            self,
            L1Op::Axpby { .. }
                | L1Op::Copy
                | L1Op::Swap
                | L1Op::Dot { .. }
                | L1Op::Rot
                | L1Op::Rotm
                | L1Op::Convert { .. }
        )
    }
}

/// One Level 1 kernel variant.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Level1Params {
    pub op: L1Op,
    /// Element type (for `Convert`, the source's).
    pub dtype: DType,
    /// Contiguous (increment 1, vector loads) or strided.
    pub contiguous: bool,
    /// Bytes per load/store when contiguous (a power of two, element size .. 16).
    pub vector_bytes: u32,
    /// Work-items per workgroup (a multiple of 32, at most 1024).
    pub block: u32,
    /// Vectors (contiguous) or elements (strided) per work-item per tile.
    pub unroll: u32,
    /// Workgroups of a reduction's first pass (and of a grid-stride elementwise kernel).
    pub grid: u32,
    /// Elementwise ops only: launch a fixed `grid` of workgroups that loop over the
    /// tiles (grid-stride) instead of one workgroup per tile.
    #[serde(default)]
    pub grid_stride: bool,
    /// Cache hint of the vector loads (default: plain, read-only path for data the kernel
    /// does not write).
    #[serde(default)]
    pub load_cache: LoadHint,
    /// Cache hint of the vector stores.
    #[serde(default)]
    pub store_cache: StoreCache,
}

/// How one vector's reals sit in memory, and the type arithmetic on them happens in.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Layout {
    /// Memory type of one real: f16, bf16, f32, f64, or b16 (16-bit values copy and swap
    /// move untouched).
    mem: Ty,
    /// Reals per element (2 for complex).
    comps: u32,
}

impl Layout {
    fn of(dtype: DType) -> Result<Layout> {
        let (mem, comps) = Ty::components_of(dtype)
            .ok_or_else(|| Error::unsupported(format!("Level 1 kernels for {dtype}"), "PTX"))?;
        Ok(Layout { mem, comps })
    }

    /// Arithmetic type: f32 for 16-bit floats.
    fn compute(self) -> Ty {
        if is_half(self.mem) {
            Ty::F32
        } else {
            self.mem
        }
    }

    fn esize(self) -> u32 {
        self.mem.size() * self.comps
    }
}

impl Level1Params {
    /// The default variant: 16-byte vectors, 256 work-items, 4 vectors each (2 of 8
    /// values for 16-bit dtypes: the same 16 elements per work-item, which keeps
    /// rot/rotm/iamax below 64 registers instead of near 96), plain cache behaviour, and
    /// for reductions 2112 workgroups (16 per SM of a 132-SM H100/H200: the best of the
    /// grids measured on an H200, see bench/results).
    pub fn fallback(op: L1Op, dtype: DType, contiguous: bool) -> Self {
        Level1Params {
            op,
            dtype,
            contiguous,
            vector_bytes: 16,
            block: 256,
            unroll: if dtype.size() == 2 { 2 } else { 4 },
            grid: 132 * 16,
            grid_stride: false,
            load_cache: LoadHint::Default,
            store_cache: StoreCache::Default,
        }
    }

    /// Whether the kernel loops over tiles from a fixed grid (reductions always).
    pub fn loops(&self) -> bool {
        self.op.is_reduction() || self.grid_stride
    }

    /// Catalog key: `<op>/<dtype>/<contiguous|strided>`, with `<op>` the op's
    /// [`L1Op::token`] and `<dtype>` the dtype's name (`f32`, `c64`, `bf16`, ...): e.g.
    /// `axpby/f32/contiguous`, `iamin/c64/strided`, `convert_f16/f32/contiguous`. The
    /// encoding is explicit (not derived from `Debug`) so catalog files stay valid when
    /// the Rust types change; `key_encoding_is_stable` pins it.
    pub fn key(op: L1Op, dtype: DType, contiguous: bool) -> String {
        format!(
            "{}/{dtype}/{}",
            op.token(),
            if contiguous { "contiguous" } else { "strided" }
        )
    }

    /// x's layout (copy and swap of 16-bit floats move raw 16-bit values).
    fn x_layout(&self) -> Result<Layout> {
        let l = Layout::of(self.dtype)?;
        let raw = matches!(self.op, L1Op::Copy | L1Op::Swap) && is_half(l.mem);
        Ok(if raw { Layout { mem: Ty::B16, ..l } } else { l })
    }

    /// y's layout: x's, except for `Convert`.
    fn y_layout(&self) -> Result<Layout> {
        match self.op {
            L1Op::Convert { to } => Layout::of(to),
            _ => self.x_layout(),
        }
    }

    /// Reals per contiguous load of x (strided: one element = `comps` reals).
    fn reals_per_vector(&self) -> Result<u32> {
        let l = self.x_layout()?;
        if !self.contiguous {
            return Ok(l.comps);
        }
        let size = l.mem.size();
        let v = self.vector_bytes / size;
        if self.vector_bytes > 16
            || v == 0
            || v * size != self.vector_bytes
            || !v.is_power_of_two()
            || v % l.comps != 0
        {
            return Err(Error::invalid(
                "vector_bytes",
                format!(
                    "{} bytes is not a power-of-two number (at most 16 bytes) of whole {} elements",
                    self.vector_bytes, self.dtype
                ),
            ));
        }
        Ok(v)
    }

    /// Elements one tile (one workgroup step) covers.
    pub fn elements_per_tile(&self) -> Result<u64> {
        let comps = self.x_layout()?.comps;
        Ok(self.block as u64 * self.unroll as u64 * (self.reals_per_vector()? / comps) as u64)
    }

    pub(crate) fn validate(&self) -> Result<()> {
        if !supports(self.op, self.dtype) {
            let what = match self.op {
                L1Op::Convert { to } => format!(
                    "Level 1 conversion {} -> {to} (covered: {})",
                    self.dtype,
                    CONVERSIONS.map(|(a, b)| format!("{a}->{b}")).join(", ")
                ),
                op => format!("Level 1 {op:?} kernels for {}", self.dtype),
            };
            return Err(Error::unsupported(what, "PTX"));
        }
        if self.block == 0 || self.block % 32 != 0 || self.block > 1024 {
            return Err(Error::invalid(
                "block",
                format!("{} is not a multiple of 32 in 32..=1024", self.block),
            ));
        }
        if self.unroll == 0 || self.unroll > 16 {
            return Err(Error::invalid(
                "unroll",
                format!("{} is not in 1..=16", self.unroll),
            ));
        }
        if self.op.is_reduction() && self.grid == 0 {
            return Err(Error::invalid(
                "grid",
                "a reduction needs at least one workgroup",
            ));
        }
        self.reals_per_vector().map(|_| ())
    }
}

/// The conversions `Convert` covers, as (from, to).
pub const CONVERSIONS: [(DType, DType); 6] = [
    (DType::F32, DType::F16),
    (DType::F32, DType::Bf16),
    (DType::F16, DType::F32),
    (DType::Bf16, DType::F32),
    (DType::F64, DType::F32),
    (DType::F32, DType::F64),
];

/// Whether the PTX generator covers `op` on `dtype` (for `Convert`, the source dtype):
/// every op on every dtype of [`DTYPES`], except rotm (real dtypes only) and convert
/// ([`CONVERSIONS`] only).
pub fn supports(op: L1Op, dtype: DType) -> bool {
    match op {
        L1Op::Convert { to } => CONVERSIONS.contains(&(dtype, to)),
        L1Op::Rotm => DTYPES.contains(&dtype) && !dtype.is_complex(),
        _ => DTYPES.contains(&dtype),
    }
}

/// The Level 1 generator.
pub struct Level1;

/// Names of the generated kernel.
pub const KERNEL: &str = "rocm_blas_l1";

impl Generator for Level1 {
    type Params = Level1Params;
    const NAME: &'static str = "level1";
    const VERSION: u32 = 6;

    fn generate(p: &Level1Params, target: &Target) -> Result<Program> {
        if matches!(
            target.family(),
            Family::Cdna | Family::Rdna3 | Family::Rdna4
        ) {
            return crate::amdgpu::level1::program(p, target);
        }
        p.validate()?;
        let sig = ptx_signature(p)?;
        let mut module = Module::new(target)?;
        let k = build(p)?;
        module.push(&k);
        let launch = plan::launch_rule(p, false);
        Ok(Program::declared(
            ModuleImage::Ptx(module.text()),
            vec![sig],
            launch,
        ))
    }

    fn signatures(p: &Level1Params, target: &Target) -> Result<Vec<Signature>> {
        match IsaTarget::try_from(target) {
            Ok(t) => Ok(vec![crate::amdgpu::level1::signature(t, p)?]),
            Err(_) => {
                p.validate()?;
                Module::new(target)?;
                Ok(vec![ptx_signature(p)?])
            }
        }
    }
}

/// A value of the element type: one real register, or (re, im).
type Val = Vec<Reg>;

/// Arithmetic on values of the element type, in the compute type `rt`.
struct Ctx {
    rt: Ty,
    comps: u32,
}

impl Ctx {
    fn zero(&self, k: &mut KernelBuilder) -> Val {
        (0..self.comps)
            .map(|_| k.mov(self.rt, zero_of(self.rt)))
            .collect()
    }

    /// a·b, conjugating a when `conj`.
    fn mul(&self, k: &mut KernelBuilder, a: &Val, b: &Val, conj: bool) -> Val {
        if self.comps == 1 {
            return vec![k.mul(self.rt, a[0], b[0])];
        }
        let (ar, ai, br, bi) = (a[0], a[1], b[0], b[1]);
        // (ar + i·s·ai)(br + i·bi) with s = -1 for conj(a).
        let rr = k.mul(self.rt, ar, br);
        let ri = k.mul(self.rt, ar, bi);
        let re = if conj {
            k.fma(self.rt, ai, bi, rr)
        } else {
            let nai = k.neg(self.rt, ai);
            k.fma(self.rt, nai, bi, rr)
        };
        let im = if conj {
            let nai = k.neg(self.rt, ai);
            k.fma(self.rt, nai, br, ri)
        } else {
            k.fma(self.rt, ai, br, ri)
        };
        vec![re, im]
    }

    /// acc + a·b (conjugating a when `conj`), one rounding per real fma.
    fn fma_into(&self, k: &mut KernelBuilder, acc: &Val, a: &Val, b: &Val, conj: bool) -> Val {
        if self.comps == 1 {
            return vec![k.fma(self.rt, a[0], b[0], acc[0])];
        }
        let (ar, ai, br, bi) = (a[0], a[1], b[0], b[1]);
        let r1 = k.fma(self.rt, ar, br, acc[0]);
        let i1 = k.fma(self.rt, ar, bi, acc[1]);
        let nai = k.neg(self.rt, ai);
        let (sr, si) = if conj { (ai, nai) } else { (nai, ai) };
        let re = k.fma(self.rt, sr, bi, r1);
        let im = k.fma(self.rt, si, br, i1);
        vec![re, im]
    }

    /// c·a for a real c.
    fn scale(&self, k: &mut KernelBuilder, c: Reg, a: &Val) -> Val {
        a.iter().map(|x| k.mul(self.rt, c, *x)).collect()
    }

    fn add(&self, k: &mut KernelBuilder, a: &Val, b: &Val) -> Val {
        a.iter()
            .zip(b)
            .map(|(x, y)| k.add(self.rt, *x, *y))
            .collect()
    }

    fn abs1(&self, k: &mut KernelBuilder, a: &Val) -> Reg {
        let r = k.abs(self.rt, a[0]);
        if self.comps == 1 {
            return r;
        }
        let i = k.abs(self.rt, a[1]);
        k.add(self.rt, r, i)
    }
}

fn zero_of(ty: Ty) -> Op {
    match ty {
        Ty::F32 => Op::F32(0.0),
        Ty::F64 => Op::F64(0.0),
        _ => Op::I(0),
    }
}

/// Blue's thresholds for f64 (LAPACK 3.10 dnrm2): |x| < TSML is scaled up by SSML,
/// |x| > TBIG scaled down by SBIG, the rest summed as is.
pub(crate) const TSML: f64 = 1.4916681462400413e-154;
pub(crate) const TBIG: f64 = 1.997_919_072_202_235e146;
pub(crate) const SSML: f64 = 4.4989137945431964e161;
pub(crate) const SBIG: f64 = 1.1113793747425387e-162;

/// Per-thread accumulator state of a reduction.
enum Acc {
    Sum(Val),
    Real(Reg),
    Blue([Reg; 3]),
    /// (value, index) per unrolled unit: independent chains, folded after the loop.
    Arg(Vec<(Reg, Reg)>),
}

/// The better of two (value, 0-based index) candidates: larger (`max`) or smaller value,
/// the smaller index on ties; the identity index u64::MAX never wins a tie.
fn better_arg(k: &mut KernelBuilder, max: bool, a: (Reg, Reg), b: (Reg, Reg)) -> (Reg, Reg) {
    let (v, i) = a;
    let (ov, oi) = b;
    let better = k.setp(if max { Cmp::Gt } else { Cmp::Lt }, v.ty(), ov, v);
    let same = k.setp(Cmp::Eq, v.ty(), ov, v);
    let earlier = k.setp(Cmp::Lt, Ty::U64, oi, i);
    let tie = k.and_pred(same, earlier);
    let take = k.or_pred(better, tie);
    (k.selp(v.ty(), ov, v, take), k.selp(Ty::U64, oi, i, take))
}

/// The global accesses of one kernel: cache hints, the L2 policy they may need, and the
/// widest access.
struct Access {
    load: LoadHint,
    store: StoreCache,
    policy: Option<Reg>,
    contiguous: bool,
    vector_bytes: u32,
}

impl Access {
    /// Reals of layout `l` per memory access, of a unit of `vr` reals: the whole unit when
    /// strided (one element); when contiguous, at most `vector_bytes` (so every access is
    /// aligned as x's loads are) and at least one real.
    fn chunk(&self, l: Layout, vr: u32) -> u32 {
        if self.contiguous {
            vr.min((self.vector_bytes / l.mem.size()).max(1))
        } else {
            vr
        }
    }
}

/// Where a unit (one vector, or one strided element) is and which of its elements exist.
struct Unit {
    xa: Reg,
    ya: Option<Reg>,
    /// Index of its first element.
    elem0: Reg,
    /// Per element: does it exist.
    valid: Vec<Reg>,
    /// The whole unit exists (wide accesses).
    full: Reg,
    /// Per element: exists, and the unit is partial (element accesses).
    partial: Vec<Reg>,
    /// Loaded x and y, as stored (see [`load_unit`]).
    xs: Vec<Reg>,
    ys: Option<Vec<Reg>>,
}

/// What the kernel of `op` does with x and with y.
pub fn accesses(op: L1Op) -> (signature::Access, signature::Access) {
    match op {
        L1Op::Scal => (signature::Access::ReadWrite, signature::Access::Read),
        L1Op::Fill => (signature::Access::Write, signature::Access::Read),
        L1Op::Axpby { read_y: true } => (signature::Access::Read, signature::Access::ReadWrite),
        L1Op::Axpby { read_y: false } | L1Op::Copy | L1Op::Convert { .. } => {
            (signature::Access::Read, signature::Access::Write)
        }
        L1Op::Swap | L1Op::Rot | L1Op::Rotm => {
            (signature::Access::ReadWrite, signature::Access::ReadWrite)
        }
        L1Op::Dot { .. } | L1Op::Sum | L1Op::Asum | L1Op::Nrm2 | L1Op::Iamax { .. } => {
            (signature::Access::Read, signature::Access::Read)
        }
    }
}

/// The element type y holds: the conversion's target, else the dtype.
pub fn y_dtype(op: L1Op, dtype: DType) -> DType {
    match op {
        L1Op::Convert { to } => to,
        _ => dtype,
    }
}

/// The names of the PTX kernel's scalar parameters, in order (the module docs): reals
/// of the element (`comps` per element), α and β of axpby (β only when y is read).
pub(crate) fn scalar_names(op: L1Op, comps: u32) -> Vec<String> {
    match op {
        L1Op::Scal | L1Op::Fill => (0..comps).map(|c| format!("alpha{c}")).collect(),
        L1Op::Axpby { read_y } => {
            let betas = if read_y { comps } else { 0 };
            (0..comps)
                .map(|c| format!("alpha{c}"))
                .chain((0..betas).map(|c| format!("beta{c}")))
                .collect()
        }
        L1Op::Rot => std::iter::once("c".to_string())
            .chain((0..comps).map(|c| format!("s{c}")))
            .collect(),
        L1Op::Rotm => ["h11", "h21", "h12", "h22"].map(String::from).to_vec(),
        _ => vec![],
    }
}

/// The PTX kernel's signature (the module docs): `n: u64, x, incx: i64, [y, incy: i64],
/// scalars (f32, or f64 for f64 and c64), [partials: f64, written]`.
pub fn ptx_signature(p: &Level1Params) -> Result<Signature> {
    let xl = p.x_layout()?;
    let scalar = if xl.compute() == Ty::F64 {
        ScalarType::F64
    } else {
        ScalarType::F32
    };
    let (ax, ay) = accesses(p.op);
    let mut sig = Signature::new(KERNEL)
        .scalar("n", ScalarType::U64)
        .pointer("x", p.dtype, ax)
        .scalar("incx", ScalarType::I64);
    if p.op.has_y() {
        sig = sig
            .pointer("y", y_dtype(p.op, p.dtype), ay)
            .scalar("incy", ScalarType::I64);
    }
    for name in scalar_names(p.op, xl.comps) {
        sig = sig.scalar(name, scalar);
    }
    if p.op.is_reduction() {
        sig = sig.pointer("partials", DType::F64, signature::Access::Write);
    }
    Ok(sig)
}

fn build(p: &Level1Params) -> Result<KernelBuilder> {
    let xl = p.x_layout()?;
    let yl = p.y_layout()?;
    let (rt, comps) = (xl.compute(), xl.comps);
    let cx = Ctx { rt, comps };
    let vr = p.reals_per_vector()?;

    // Parameters (the module docs): n, x, incx, [y, incy], [scalars], [partials].
    let sig = ptx_signature(p)?;
    let (mut k, params) = KernelBuilder::from_signature(&sig);
    k.comment(&format!("{p:?}"));
    let n = k.ld_param(params.get("n")?);
    let x = k.ld_param_global_ptr(params.get("x")?);
    let incx = k.ld_param(params.get("incx")?);
    let y = params.opt("y").map(|q| k.ld_param_global_ptr(q));
    let incy = params.opt("incy").map(|q| k.ld_param(q));
    let scalars: Val = scalar_names(p.op, comps)
        .iter()
        .map(|s| params.get(s).map(|q| k.ld_param(q)))
        .collect::<Result<_>>()?;
    let partials = params.opt("partials").map(|q| k.ld_param_global_ptr(q));
    let needs_policy = p.load_cache.needs_policy() || p.store_cache.needs_policy();
    let access = Access {
        load: p.load_cache,
        store: p.store_cache,
        policy: needs_policy.then(|| k.l2_evict_first_policy()),
        contiguous: p.contiguous,
        vector_bytes: p.vector_bytes,
    };
    // Fill's value, as stored: rounded once, before the loop.
    let fill: Vec<Reg> = if p.op == L1Op::Fill {
        let v: Vec<Reg> = (0..vr / comps).flat_map(|_| scalars.clone()).collect();
        to_stored(&mut k, xl, vr, &v)
    } else {
        vec![]
    };

    let tid = k.special(Special::TidX);
    let cta = k.special(Special::CtaidX);
    let tid64 = k.cvt(Ty::U64, tid);
    let tile_units = (p.block * p.unroll) as i64;
    // Units: vectors of `vr` reals (contiguous) or single elements (strided).
    let total_reals = k.mul(Ty::U64, n, comps as i64);
    let n_units = if p.contiguous {
        let t = k.add(Ty::U64, total_reals, (vr - 1) as i64);
        // units = ceil(reals / vr), vr a power of two.
        k.shr(Ty::U64, t, vr.trailing_zeros())
    } else {
        n
    };

    let mut acc = match p.op {
        L1Op::Dot { .. } | L1Op::Sum => Some(Acc::Sum(cx.zero(&mut k))),
        L1Op::Asum => Some(Acc::Real(k.mov(rt, zero_of(rt)))),
        L1Op::Nrm2 => Some(Acc::Blue([
            k.mov(Ty::F64, Op::F64(0.0)),
            k.mov(Ty::F64, Op::F64(0.0)),
            k.mov(Ty::F64, Op::F64(0.0)),
        ])),
        L1Op::Iamax { max } => Some(Acc::Arg(
            (0..p.unroll)
                .map(|_| {
                    (
                        k.mov(rt, if max { neg_one(rt) } else { inf(rt) }),
                        k.mov(Ty::U64, Op::I(-1)),
                    )
                })
                .collect(),
        )),
        _ => None,
    };

    // The registers the accumulators live in across loop iterations.
    let no_regs: Vec<Reg> = Vec::new();
    let acc0: Option<Vec<Reg>> = match &acc {
        Some(Acc::Sum(v)) => Some(v.clone()),
        Some(Acc::Real(r)) => Some(vec![*r]),
        Some(Acc::Blue(b)) => Some(b.to_vec()),
        _ => None,
    };

    // First unit of this work-item: cta * tile + tid; reductions loop over tiles with a
    // step of grid * tile.
    let cta64 = k.cvt(Ty::U64, cta);
    let first = k.fma(Ty::U64, cta64, tile_units, tid64);
    let unit0 = k.mov(Ty::U64, first);
    let (top, done) = (k.label(), k.label());
    if p.loops() {
        k.place(top);
        let past = k.setp(Cmp::Ge, Ty::U64, unit0, n_units);
        k.bra_if(past, false, done);
    }

    // The read-only (non-coherent) path only for vectors this kernel does not write.
    let writes_x = matches!(
        p.op,
        L1Op::Scal | L1Op::Swap | L1Op::Rot | L1Op::Rotm | L1Op::Fill
    );
    let writes_y = matches!(
        p.op,
        L1Op::Axpby { .. } | L1Op::Swap | L1Op::Rot | L1Op::Rotm
    );

    // Phase 1: addresses, predicates and every load of the tile, so all of a work-item's
    // loads are in flight together (no branches between them: partial vectors are
    // handled by predicated element loads into zeroed registers).
    let mut units = Vec::new();
    for u in 0..p.unroll {
        let unit = k.add(Ty::U64, unit0, (u * p.block) as i64);
        let in_range = k.setp(Cmp::Lt, Ty::U64, unit, n_units);
        let elem0 = if p.contiguous {
            k.mul(Ty::U64, unit, (vr / comps) as i64)
        } else {
            unit
        };
        let addr_of = |k: &mut KernelBuilder, base: Reg, inc: Reg, l: Layout| -> Reg {
            if p.contiguous {
                let off = k.mul(Ty::U64, unit, (vr * l.mem.size()) as i64);
                k.add(Ty::U64, base, off)
            } else {
                let step = k.mul(Ty::S64, inc, l.esize() as i64);
                let off = k.mul(Ty::S64, unit, step);
                k.add(Ty::S64, base, off)
            }
        };
        let xa = addr_of(&mut k, x, incx, xl);
        let ya = match (y, incy) {
            (Some(y), Some(incy)) => Some(addr_of(&mut k, y, incy, yl)),
            _ => None,
        };
        let (valid, full, partial) = if p.contiguous && vr > comps {
            let first_real = k.mul(Ty::U64, unit, vr as i64);
            let end = k.add(Ty::U64, first_real, vr as i64);
            let full = k.setp(Cmp::Le, Ty::U64, end, total_reals);
            let valid: Vec<Reg> = (0..vr / comps)
                .map(|e| {
                    let r = k.add(Ty::U64, first_real, (e * comps) as i64);
                    k.setp(Cmp::Lt, Ty::U64, r, total_reals)
                })
                .collect();
            let not_full = k.not_pred(full);
            let partial = valid.iter().map(|v| k.and_pred(*v, not_full)).collect();
            (valid, full, partial)
        } else {
            (vec![in_range], in_range, vec![])
        };
        let mut un = Unit {
            xa,
            ya,
            elem0,
            valid,
            full,
            partial,
            xs: vec![],
            ys: None,
        };
        if p.op != L1Op::Fill {
            un.xs = load_unit(&mut k, &access, xl, vr, &un, xa, !writes_x);
        }
        if p.op.reads_y() {
            un.ys = ya.map(|a| load_unit(&mut k, &access, yl, vr, &un, a, !writes_y));
        }
        units.push(un);
    }

    // Phase 2: arithmetic and stores.
    let elems = |v: &[Reg]| -> Vec<Val> { v.chunks(comps as usize).map(|c| c.to_vec()).collect() };
    for (u_index, un) in units.iter().enumerate() {
        let (xa, ya) = (un.xa, un.ya);
        let xs = from_stored(&mut k, xl, vr, &un.xs);
        let ys = un.ys.as_ref().map(|v| from_stored(&mut k, yl, vr, v));
        match p.op {
            L1Op::Scal => {
                let out: Vec<Reg> = elems(&xs)
                    .iter()
                    .flat_map(|e| cx.mul(&mut k, &scalars, e, false))
                    .collect();
                let out = to_stored(&mut k, xl, vr, &out);
                store_unit(&mut k, &access, xl, vr, un, xa, &out);
            }
            L1Op::Fill => store_unit(&mut k, &access, xl, vr, un, xa, &fill),
            L1Op::Axpby { read_y } => {
                let (alpha, beta) = scalars.split_at(comps as usize);
                let ye = ys.as_ref().map(|v| elems(v));
                let out: Vec<Reg> = elems(&xs)
                    .iter()
                    .enumerate()
                    .flat_map(|(i, e)| {
                        let ax = cx.mul(&mut k, &alpha.to_vec(), e, false);
                        match (&ye, read_y) {
                            (Some(ye), true) => {
                                cx.fma_into(&mut k, &ax, &beta.to_vec(), &ye[i], false)
                            }
                            _ => ax,
                        }
                    })
                    .collect();
                if let Some(a) = ya {
                    let out = to_stored(&mut k, yl, vr, &out);
                    store_unit(&mut k, &access, yl, vr, un, a, &out);
                }
            }
            L1Op::Copy => {
                if let Some(a) = ya {
                    store_unit(&mut k, &access, yl, vr, un, a, &un.xs);
                }
            }
            L1Op::Swap => {
                if let (Some(a), Some(yv)) = (ya, &un.ys) {
                    store_unit(&mut k, &access, xl, vr, un, xa, yv);
                    store_unit(&mut k, &access, yl, vr, un, a, &un.xs);
                }
            }
            L1Op::Rot => {
                if let (Some(a), Some(yv)) = (ya, &ys) {
                    // x' = c·x + s·y; y' = c·y + conj(−s)·x = c·y − conj(s)·x.
                    let (c, s) = (scalars[0], scalars[1..].to_vec());
                    let neg_s: Val = s.iter().map(|r| k.neg(rt, *r)).collect();
                    let (mut xo, mut yo) = (Vec::new(), Vec::new());
                    for (xe, ye) in elems(&xs).iter().zip(elems(yv)) {
                        let cxe = cx.scale(&mut k, c, xe);
                        xo.extend(cx.fma_into(&mut k, &cxe, &s, &ye, false));
                        let cye = cx.scale(&mut k, c, &ye);
                        yo.extend(cx.fma_into(&mut k, &cye, &neg_s, xe, true));
                    }
                    let (xo, yo) = (
                        to_stored(&mut k, xl, vr, &xo),
                        to_stored(&mut k, yl, vr, &yo),
                    );
                    store_unit(&mut k, &access, xl, vr, un, xa, &xo);
                    store_unit(&mut k, &access, yl, vr, un, a, &yo);
                }
            }
            L1Op::Rotm => {
                if let (Some(a), Some(yv)) = (ya, &ys) {
                    // x' = h11·x + h12·y, y' = h21·x + h22·y (real: one real per element).
                    let [h11, h21, h12, h22] = [scalars[0], scalars[1], scalars[2], scalars[3]];
                    let (mut xo, mut yo) = (Vec::new(), Vec::new());
                    for (xe, ye) in xs.iter().zip(yv) {
                        let t = k.mul(rt, h12, *ye);
                        xo.push(k.fma(rt, h11, *xe, t));
                        let t = k.mul(rt, h22, *ye);
                        yo.push(k.fma(rt, h21, *xe, t));
                    }
                    let (xo, yo) = (
                        to_stored(&mut k, xl, vr, &xo),
                        to_stored(&mut k, yl, vr, &yo),
                    );
                    store_unit(&mut k, &access, xl, vr, un, xa, &xo);
                    store_unit(&mut k, &access, yl, vr, un, a, &yo);
                }
            }
            L1Op::Convert { .. } => {
                if let Some(a) = ya {
                    // One rounding: f64 → f32 here (cvt.rn), f32 → 16 bits when narrowed;
                    // widening steps are exact.
                    let to = yl.compute();
                    let out: Vec<Reg> = xs
                        .iter()
                        .map(|v| if v.ty() == to { *v } else { k.cvt(to, *v) })
                        .collect();
                    let out = to_stored(&mut k, yl, vr, &out);
                    store_unit(&mut k, &access, yl, vr, un, a, &out);
                }
            }
            L1Op::Dot { conj } => {
                if let (Some(Acc::Sum(s)), Some(yv)) = (&mut acc, &ys) {
                    for (a, b) in elems(&xs).iter().zip(elems(yv)) {
                        *s = cx.fma_into(&mut k, s, a, &b, conj);
                    }
                }
            }
            L1Op::Sum => {
                if let Some(Acc::Sum(s)) = &mut acc {
                    for e in elems(&xs) {
                        *s = cx.add(&mut k, s, &e);
                    }
                }
            }
            L1Op::Asum => {
                if let Some(Acc::Real(s)) = &mut acc {
                    for e in elems(&xs) {
                        let a = cx.abs1(&mut k, &e);
                        *s = k.add(rt, *s, a);
                    }
                }
            }
            L1Op::Nrm2 => {
                if let Some(Acc::Blue(b)) = &mut acc {
                    for r in &xs {
                        if rt == Ty::F64 {
                            let a = k.abs(Ty::F64, *r);
                            blue_step(&mut k, b, a);
                        } else {
                            // The square of an f32 (or f16, bf16) is exact and normal in
                            // f64: a plain f64 sum, no scaling.
                            let w = k.cvt(Ty::F64, *r);
                            b[1] = k.fma(Ty::F64, w, w, b[1]);
                        }
                    }
                }
            }
            L1Op::Iamax { max } => {
                if let Some(Acc::Arg(pairs)) = &mut acc {
                    let (value, index) = &mut pairs[u_index];
                    for (e, ev) in elems(&xs).iter().enumerate() {
                        let a = cx.abs1(&mut k, ev);
                        let idx = k.add(Ty::U64, un.elem0, e as i64);
                        let ok = un.valid[e.min(un.valid.len() - 1)];
                        // Strictly better only: the first index wins ties, NaN never wins.
                        let better = k.setp(if max { Cmp::Gt } else { Cmp::Lt }, rt, a, *value);
                        let take = k.and_pred(better, ok);
                        k.when(take, false).assign(*value, a);
                        k.when(take, false).assign(*index, idx);
                    }
                }
            }
        }
    }

    // Loop-carried accumulators: write this iteration's values back into the registers
    // the loop started with.
    if let Some(a) = &mut acc {
        let (cur, init): (Vec<Reg>, &Vec<Reg>) = match (a, &acc0) {
            (Acc::Sum(v), Some(i)) => (v.clone(), i),
            (Acc::Real(r), Some(i)) => (vec![*r], i),
            (Acc::Blue(b), Some(i)) => (b.to_vec(), i),
            _ => (vec![], &no_regs),
        };
        for (c, i) in cur.iter().zip(init.iter()) {
            if c != i {
                k.assign(*i, *c);
            }
        }
    }
    acc = match acc {
        Some(Acc::Sum(_)) => acc0.clone().map(Acc::Sum),
        Some(Acc::Real(_)) => acc0.as_ref().map(|v| Acc::Real(v[0])),
        Some(Acc::Blue(_)) => acc0.as_ref().map(|v| Acc::Blue([v[0], v[1], v[2]])),
        other => other,
    };

    if p.loops() {
        k.add_to(unit0, p.grid as i64 * tile_units);
        k.bra(top);
        k.place(done);
    }
    if p.op.is_reduction() {
        // Fold the per-unit (value, index) chains into one.
        let acc = match acc {
            Some(Acc::Arg(pairs)) => {
                let max = matches!(p.op, L1Op::Iamax { max: true });
                let mut best = pairs[0];
                for other in &pairs[1..] {
                    best = better_arg(&mut k, max, best, *other);
                }
                Some(Acc::Arg(vec![best]))
            }
            other => other,
        };
        if let (Some(acc), Some(partials)) = (acc, partials) {
            block_reduce_and_store(&mut k, p, acc, partials, tid, cta)?;
        }
    }
    k.ret();
    Ok(k)
}

/// Whether a unit of `vr` reals of layout `l` is held packed, two 16-bit values to a
/// 32-bit word (low half first, memory order), between loading and storing. Packed units
/// keep half the registers live and move as wide accesses without repacking.
fn packed(l: Layout, vr: u32) -> bool {
    l.mem.size() == 2 && vr >= 2
}

/// Loads one unit of layout `l` in its stored form: 32-bit words when [`packed`], else
/// one register of `l.mem` per real. Wide accesses when the unit is whole, else an element
/// access for each element that exists; missing elements read as zero. Predicated, never
/// branching.
fn load_unit(
    k: &mut KernelBuilder,
    a: &Access,
    l: Layout,
    vr: u32,
    un: &Unit,
    addr: Reg,
    read_only: bool,
) -> Vec<Reg> {
    let size = l.mem.size();
    let chunk = a.chunk(l, vr);
    let pk = packed(l, vr);
    let reg_ty = if pk { Ty::B32 } else { l.mem };
    let per_reg = if pk { 2 } else { 1 };
    let regs: Vec<Reg> = (0..vr / per_reg)
        .map(|_| k.mov(reg_ty, zero_of(reg_ty)))
        .collect();
    for first in (0..vr).step_by(chunk as usize) {
        let part = &regs[(first / per_reg) as usize..((first + chunk) / per_reg) as usize];
        k.when(un.full, false).ld_global_hinted(
            part,
            addr,
            (first * size) as i64,
            read_only,
            a.load,
            a.policy,
        );
    }
    if un.partial.is_empty() {
        return regs;
    }
    // Partial unit: element accesses into the zeroed registers; packed, a word at a time
    // (both its values exist) or its low half alone (the unit's last, odd element).
    for (e, pe) in un.partial.iter().enumerate() {
        if pk {
            // Packed units hold an even number of values: e + 1 exists.
            if e % 2 == 0 {
                let (word, offset) = (regs[e / 2], (e as u32 * size) as i64);
                k.when(un.partial[e + 1], false).ld_global_hinted(
                    &[word],
                    addr,
                    offset,
                    read_only,
                    a.load,
                    a.policy,
                );
                let lone = lone_half(k, un, e);
                k.when(lone, false)
                    .ld_global_half_into_word(word, addr, offset, read_only, a.load, a.policy);
            }
            continue;
        }
        for c in 0..l.comps {
            let i = (e as u32 * l.comps + c) as usize;
            k.when(*pe, false).ld_global_hinted(
                &regs[i..i + 1],
                addr,
                (i as u32 * size) as i64,
                read_only,
                a.load,
                a.policy,
            );
        }
    }
    regs
}

/// In a packed unit, whether element `e` (even) exists in a partial unit but `e + 1`
/// does not.
fn lone_half(k: &mut KernelBuilder, un: &Unit, e: usize) -> Reg {
    let next_missing = k.not_pred(un.valid[e + 1]);
    k.and_pred(un.partial[e], next_missing)
}

/// Stores one unit of layout `l` from its stored form (see [`load_unit`]): wide accesses
/// when the unit is whole, else one access per existing element.
fn store_unit(
    k: &mut KernelBuilder,
    a: &Access,
    l: Layout,
    vr: u32,
    un: &Unit,
    addr: Reg,
    stored: &[Reg],
) {
    let size = l.mem.size();
    let chunk = a.chunk(l, vr);
    let per_reg = if packed(l, vr) { 2 } else { 1 };
    for first in (0..vr).step_by(chunk as usize) {
        let part = &stored[(first / per_reg) as usize..((first + chunk) / per_reg) as usize];
        k.when(un.full, false).st_global_hinted(
            addr,
            (first * size) as i64,
            part,
            a.store,
            a.policy,
        );
    }
    if un.partial.is_empty() {
        return;
    }
    let pk = packed(l, vr);
    for (e, pe) in un.partial.iter().enumerate() {
        if pk {
            if e % 2 == 0 {
                let (word, offset) = (stored[e / 2], (e as u32 * size) as i64);
                k.when(un.partial[e + 1], false).st_global_hinted(
                    addr,
                    offset,
                    &[word],
                    a.store,
                    a.policy,
                );
                let lone = lone_half(k, un, e);
                k.when(lone, false)
                    .st_global_low_half(addr, offset, word, a.store, a.policy);
            }
            continue;
        }
        for c in 0..l.comps {
            let i = (e as u32 * l.comps + c) as usize;
            k.when(*pe, false).st_global_hinted(
                addr,
                (i as u32 * size) as i64,
                &stored[i..i + 1],
                a.store,
                a.policy,
            );
        }
    }
}

/// One register of `l.mem` per real, from a unit's stored form.
fn unpack(k: &mut KernelBuilder, l: Layout, vr: u32, stored: &[Reg]) -> Vec<Reg> {
    if !packed(l, vr) {
        return stored.to_vec();
    }
    stored
        .iter()
        .flat_map(|w| k.unpack_halves(*w, l.mem))
        .collect()
}

/// A unit's reals in their compute type: 16-bit floats unpacked and widened to f32
/// (exactly), the rest (including raw b16 values) as they are.
fn from_stored(k: &mut KernelBuilder, l: Layout, vr: u32, stored: &[Reg]) -> Vec<Reg> {
    unpack(k, l, vr, stored)
        .iter()
        .map(|r| {
            if is_half(r.ty()) {
                k.widen_half(*r)
            } else {
                *r
            }
        })
        .collect()
}

/// Computed reals in layout `l`'s stored form: f32 rounded to nearest even for 16-bit
/// floats (and packed), the rest as they are.
fn to_stored(k: &mut KernelBuilder, l: Layout, vr: u32, vals: &[Reg]) -> Vec<Reg> {
    let mem: Vec<Reg> = vals
        .iter()
        .map(|v| {
            if is_half(l.mem) {
                k.narrow_to_half(l.mem, *v)
            } else {
                *v
            }
        })
        .collect();
    if !packed(l, vr) {
        return mem;
    }
    mem.chunks(2).map(|h| k.pack_halves(h[0], h[1])).collect()
}

fn neg_one(ty: Ty) -> Op {
    if ty == Ty::F32 {
        Op::F32(-1.0)
    } else {
        Op::F64(-1.0)
    }
}

fn inf(ty: Ty) -> Op {
    if ty == Ty::F32 {
        Op::F32(f32::INFINITY)
    } else {
        Op::F64(f64::INFINITY)
    }
}

/// One element into Blue's accumulators: b = [small, medium, big].
fn blue_step(k: &mut KernelBuilder, b: &mut [Reg; 3], a: Reg) {
    let is_big = k.setp(Cmp::Gt, Ty::F64, a, Op::F64(TBIG));
    let is_small = k.setp(Cmp::Lt, Ty::F64, a, Op::F64(TSML));
    let sb = k.mul(Ty::F64, a, Op::F64(SBIG));
    let ss = k.mul(Ty::F64, a, Op::F64(SSML));
    let big = k.fma(Ty::F64, sb, sb, b[2]);
    let small = k.fma(Ty::F64, ss, ss, b[0]);
    let med = k.fma(Ty::F64, a, a, b[1]);
    k.when(is_big, false).assign(b[2], big);
    k.when(is_small, false).assign(b[0], small);
    let mid = k.or_pred(is_big, is_small);
    k.when(mid, true).assign(b[1], med);
}

/// Combines each warp with shuffles, then the warps through shared memory, and writes the
/// workgroup's partial(s).
fn block_reduce_and_store(
    k: &mut KernelBuilder,
    p: &Level1Params,
    acc: Acc,
    partials: Reg,
    tid: Reg,
    cta: Reg,
) -> Result<()> {
    let warps = p.block / 32;
    // Each accumulator as a list of (register, is_index) to move through shuffles/shared.
    let (mut regs, kind): (Vec<Reg>, u8) = match acc {
        Acc::Sum(v) => (v, 0),
        Acc::Real(r) => (vec![r], 0),
        Acc::Blue(b) => (b.to_vec(), 0),
        Acc::Arg(pairs) => (vec![pairs[0].0, pairs[0].1], 1),
    };
    let combine = |k: &mut KernelBuilder, mine: &mut Vec<Reg>, other: &[Reg]| {
        if kind == 0 {
            for (m, o) in mine.iter_mut().zip(other) {
                *m = k.add(m.ty(), *m, *o);
            }
        } else {
            let max = matches!(p.op, L1Op::Iamax { max: true });
            let (v, i) = better_arg(k, max, (mine[0], mine[1]), (other[0], other[1]));
            mine[0] = v;
            mine[1] = i;
        }
    };
    let warp_reduce = |k: &mut KernelBuilder, regs: &mut Vec<Reg>| {
        for d in [16u32, 8, 4, 2, 1] {
            let other: Vec<Reg> = regs.iter().map(|r| k.shfl_down(*r, d)).collect();
            combine(k, regs, &other);
        }
    };
    warp_reduce(k, &mut regs);
    let lane = k.special(Special::LaneId);
    let warp_id = k.shr(Ty::U32, tid, 5);
    // Shared: one slot per warp per accumulator register (8 bytes each).
    let slots = regs.len() as u32;
    let smem = k.shared_array("partial_smem", warps * slots * 8, 8);
    let is_lane0 = k.setp(Cmp::Eq, Ty::U32, lane, 0u32);
    let woff = k.mul(Ty::U32, warp_id, 8u32);
    let waddr = k.add(Ty::U32, smem, woff);
    for (s, r) in regs.iter().enumerate() {
        k.when(is_lane0, false)
            .st_shared(waddr, (s as u32 * warps * 8) as i64, *r);
    }
    k.bar_sync();
    let not_warp0 = k.setp(Cmp::Ne, Ty::U32, warp_id, 0u32);
    let end = k.label();
    k.bra_if(not_warp0, false, end);
    // Warp 0: lane l < warps reads warp l's value, others take the identity.
    let has = k.setp(Cmp::Lt, Ty::U32, lane, warps);
    let loff = k.mul(Ty::U32, lane, 8u32);
    let laddr = k.add(Ty::U32, smem, loff);
    let mut vals: Vec<Reg> = Vec::new();
    for (s, r) in regs.iter().enumerate() {
        let identity = match (kind, s) {
            (1, 0) => {
                if matches!(p.op, L1Op::Iamax { max: true }) {
                    neg_one(r.ty())
                } else {
                    inf(r.ty())
                }
            }
            (1, _) => Op::I(-1),
            _ => zero_of(r.ty()),
        };
        let v = k.mov(r.ty(), identity);
        let loaded = k.ld_shared_guarded(r.ty(), laddr, (s as u32 * warps * 8) as i64, has);
        k.when(has, false).assign(v, loaded);
        vals.push(v);
    }
    warp_reduce(k, &mut vals);
    let not_lane0 = k.setp(Cmp::Ne, Ty::U32, lane, 0u32);
    k.bra_if(not_lane0, false, end);
    // partials layout: structure of arrays, `grid` entries per accumulator register.
    let cta64 = k.cvt(Ty::U64, cta);
    let off = k.mul(Ty::U64, cta64, 8i64);
    let base = k.add(Ty::U64, partials, off);
    for (s, v) in vals.iter().enumerate() {
        let wide = if v.ty() == Ty::F32 {
            k.cvt(Ty::F64, *v)
        } else {
            *v
        };
        k.st_global(base, (s as u64 * p.grid as u64 * 8) as i64, &[wide]);
    }
    k.place(end);
    Ok(())
}

/// How many f64/u64 slots the partials of a reduction take per workgroup.
pub fn partial_slots(op: L1Op, dtype: DType) -> usize {
    match op {
        L1Op::Dot { .. } | L1Op::Sum => {
            if dtype.is_complex() {
                2
            } else {
                1
            }
        }
        L1Op::Asum => 1,
        L1Op::Nrm2 => 3,
        L1Op::Iamax { .. } => 2,
        _ => 0,
    }
}

/// Combines Blue's three accumulators (small, medium, big sums of scaled squares) into
/// ‖x‖₂, as LAPACK's dnrm2 does.
pub fn blue_finish(small: f64, medium: f64, big: f64) -> f64 {
    if big > 0.0 {
        // Medium values are negligible unless they are not: fold them into `big`'s scale.
        let b = big + (medium * SBIG) * SBIG;
        return b.sqrt() / SBIG;
    }
    if small > 0.0 {
        if medium > 0.0 {
            let ymed = medium.sqrt();
            let ysml = small.sqrt() / SSML;
            let (ymin, ymax) = if ysml > ymed {
                (ymed, ysml)
            } else {
                (ysml, ymed)
            };
            return ymax * (1.0 + (ymin / ymax) * (ymin / ymax)).sqrt();
        }
        return small.sqrt() / SSML;
    }
    medium.sqrt()
}

/// Every op except `Convert` (see [`CONVERSIONS`]), for tests and `rocm-bench kernels
/// list`.
pub const ALL_OPS: [L1Op; 15] = [
    L1Op::Scal,
    L1Op::Axpby { read_y: true },
    L1Op::Axpby { read_y: false },
    L1Op::Copy,
    L1Op::Swap,
    L1Op::Dot { conj: false },
    L1Op::Dot { conj: true },
    L1Op::Sum,
    L1Op::Asum,
    L1Op::Nrm2,
    L1Op::Iamax { max: true },
    L1Op::Iamax { max: false },
    L1Op::Fill,
    L1Op::Rot,
    L1Op::Rotm,
];

/// The dtypes the Level 1 generator covers (see [`supports`] for the exceptions).
pub const DTYPES: [DType; 6] = [
    DType::F32,
    DType::F64,
    DType::C32,
    DType::C64,
    DType::F16,
    DType::Bf16,
];

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ptxas::{Ptxas, HOW_TO_GET};

    /// Every supported (op, dtype), contiguous and strided, in three shapes: the
    /// fallback; element-wide accesses with one unit per thread; 4-byte accesses (two
    /// 16-bit values in one word) with two units per thread where they hold whole
    /// elements. Then each cache hint on a few ops.
    fn variants() -> Vec<Level1Params> {
        let ops = ALL_OPS.iter().flat_map(|op| DTYPES.map(|d| (*op, d)));
        let conversions = CONVERSIONS.map(|(from, to)| (L1Op::Convert { to }, from));
        let mut out = Vec::new();
        for (op, dtype) in ops.chain(conversions).filter(|(o, d)| supports(*o, *d)) {
            for contiguous in [true, false] {
                let mut p = Level1Params::fallback(op, dtype, contiguous);
                out.push(p.clone());
                p.vector_bytes = dtype.size() as u32;
                p.unroll = 1;
                p.block = 128;
                out.push(p.clone());
                if contiguous && dtype.size() <= 4 {
                    p.vector_bytes = 4;
                    p.unroll = 2;
                    out.push(p);
                }
            }
        }
        for op in [L1Op::Axpby { read_y: true }, L1Op::Iamax { max: true }] {
            for dtype in [DType::F64, DType::Bf16] {
                for load_cache in LoadHint::ALL {
                    for store_cache in StoreCache::ALL {
                        let mut p = Level1Params::fallback(op, dtype, true);
                        p.load_cache = load_cache;
                        p.store_cache = store_cache;
                        out.push(p);
                    }
                }
            }
        }
        out
    }

    fn ptx(p: &Level1Params, target: &str) -> String {
        let prog = Level1::generate(p, &target.parse().unwrap()).unwrap();
        let ModuleImage::Ptx(text) = prog.image else {
            unreachable!()
        };
        text
    }

    #[test]
    fn bad_params_are_errors() {
        let sm90: Target = "sm_90".parse().unwrap();
        let mut p = Level1Params::fallback(L1Op::Copy, DType::C64, true);
        p.vector_bytes = 8; // half a complex double
        assert!(Level1::generate(&p, &sm90).is_err());
        let mut p = Level1Params::fallback(L1Op::Copy, DType::F16, true);
        p.vector_bytes = 32; // wider than one access
        assert!(Level1::generate(&p, &sm90).is_err());
        p.vector_bytes = 6; // three halves: not a power of two
        assert!(Level1::generate(&p, &sm90).is_err());
        let mut p = Level1Params::fallback(L1Op::Copy, DType::F32, true);
        p.block = 100;
        assert!(Level1::generate(&p, &sm90).is_err());
        for (op, dtype) in [
            (L1Op::Copy, DType::I32),
            (L1Op::Rotm, DType::C32),
            (L1Op::Convert { to: DType::Bf16 }, DType::F16),
            (L1Op::Convert { to: DType::F32 }, DType::F32),
            (L1Op::Convert { to: DType::F16 }, DType::F64),
        ] {
            let e = Level1::generate(&Level1Params::fallback(op, dtype, true), &sm90);
            assert!(
                matches!(e, Err(Error::Unsupported { .. })),
                "{op:?} {dtype}"
            );
        }
        // AMD targets refuse what their generator does not build (complex rotm).
        assert!(matches!(
            Level1::generate(
                &Level1Params::fallback(L1Op::Rotm, DType::C32, true),
                &"gfx90a".parse().unwrap()
            ),
            Err(Error::Unsupported { .. })
        ));
    }

    /// The catalog key encoding is a file format: these strings must not change.
    #[test]
    fn key_encoding_is_stable() {
        let table = [
            (L1Op::Scal, DType::F32, true, "scal/f32/contiguous"),
            (
                L1Op::Axpby { read_y: true },
                DType::F64,
                true,
                "axpby/f64/contiguous",
            ),
            (
                L1Op::Axpby { read_y: false },
                DType::C32,
                false,
                "axpby_b0/c32/strided",
            ),
            (L1Op::Copy, DType::F16, true, "copy/f16/contiguous"),
            (L1Op::Swap, DType::Bf16, false, "swap/bf16/strided"),
            (
                L1Op::Dot { conj: false },
                DType::F32,
                true,
                "dot/f32/contiguous",
            ),
            (
                L1Op::Dot { conj: true },
                DType::C64,
                true,
                "dotc/c64/contiguous",
            ),
            (L1Op::Sum, DType::F64, false, "sum/f64/strided"),
            (L1Op::Asum, DType::C32, true, "asum/c32/contiguous"),
            (L1Op::Nrm2, DType::Bf16, true, "nrm2/bf16/contiguous"),
            (
                L1Op::Iamax { max: true },
                DType::F32,
                true,
                "iamax/f32/contiguous",
            ),
            (
                L1Op::Iamax { max: false },
                DType::C64,
                false,
                "iamin/c64/strided",
            ),
            (L1Op::Fill, DType::F16, true, "fill/f16/contiguous"),
            (L1Op::Rot, DType::C32, false, "rot/c32/strided"),
            (L1Op::Rotm, DType::F64, true, "rotm/f64/contiguous"),
            (
                L1Op::Convert { to: DType::F16 },
                DType::F32,
                true,
                "convert_f16/f32/contiguous",
            ),
            (
                L1Op::Convert { to: DType::F64 },
                DType::F32,
                false,
                "convert_f64/f32/strided",
            ),
        ];
        for (op, dtype, contiguous, want) in table {
            assert_eq!(Level1Params::key(op, dtype, contiguous), want);
        }
        // Every op has its own token.
        let mut tokens: Vec<String> = ALL_OPS.iter().map(|o| o.token()).collect();
        tokens.sort();
        tokens.dedup();
        assert_eq!(tokens.len(), ALL_OPS.len());
    }

    /// Every level1 catalog key of every shipped catalog is a key [`Level1Params::key`]
    /// builds (the files were migrated with the encoding).
    #[test]
    fn shipped_catalog_keys_use_the_encoding() {
        let mut keys = Vec::new();
        for (op, dtype) in ALL_OPS.iter().flat_map(|op| DTYPES.map(|d| (*op, d))) {
            for contiguous in [true, false] {
                keys.push(Level1Params::key(op, dtype, contiguous));
            }
        }
        for (from, to) in CONVERSIONS {
            for contiguous in [true, false] {
                keys.push(Level1Params::key(L1Op::Convert { to }, from, contiguous));
            }
        }
        let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/catalogs");
        let mut seen = 0;
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            let json: serde_json::Value =
                serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
            for e in json["entries"].as_array().unwrap() {
                if e["generator"] == "level1" {
                    let key = e["key"].as_str().unwrap();
                    assert!(keys.iter().any(|k| k == key), "{}: {key}", path.display());
                    seen += 1;
                }
            }
        }
        assert!(seen > 0, "no level1 entries in {dir}");
    }

    #[test]
    fn catalog_entries_without_cache_hints_read_as_default() {
        let mut json = serde_json::to_value(Level1Params::fallback(
            L1Op::Axpby { read_y: true },
            DType::F64,
            true,
        ))
        .unwrap();
        let obj = json.as_object_mut().unwrap();
        obj.remove("load_cache");
        obj.remove("store_cache");
        let p: Level1Params = serde_json::from_value(json).unwrap();
        assert_eq!(p.load_cache, LoadHint::Default);
        assert_eq!(p.store_cache, StoreCache::Default);
    }

    #[test]
    fn parameters_follow_the_documented_order() {
        let names = |op, dtype| -> Vec<String> {
            crate::generator::declared_params::<Level1>(&Level1Params::fallback(op, dtype, true))
        };
        let head = ["u64 p_n", "u64 p_x", "s64 p_incx"];
        let with_y = [&head[..], &["u64 p_y", "s64 p_incy"]].concat();
        let cat = |a: &[&str], b: &[&str]| -> Vec<String> {
            a.iter().chain(b).map(|s| s.to_string()).collect()
        };
        assert_eq!(names(L1Op::Fill, DType::F16), cat(&head, &["f32 p_alpha0"]));
        assert_eq!(
            names(L1Op::Rot, DType::C32),
            cat(&with_y, &["f32 p_c", "f32 p_s0", "f32 p_s1"])
        );
        assert_eq!(
            names(L1Op::Rotm, DType::F64),
            cat(
                &with_y,
                &["f64 p_h11", "f64 p_h21", "f64 p_h12", "f64 p_h22"]
            )
        );
        assert_eq!(
            names(L1Op::Axpby { read_y: true }, DType::Bf16),
            cat(&with_y, &["f32 p_alpha0", "f32 p_beta0"])
        );
        assert_eq!(
            names(L1Op::Convert { to: DType::F16 }, DType::F32),
            cat(&with_y, &[])
        );
        assert_eq!(
            names(L1Op::Nrm2, DType::Bf16),
            cat(&head, &["u64 p_partials"])
        );
    }

    #[test]
    fn sixteen_bit_kernels_move_eight_values_per_access() {
        let text = ptx(
            &Level1Params::fallback(L1Op::Axpby { read_y: true }, DType::F16, true),
            "sm_80",
        );
        assert!(text.contains("ld.global.nc.v4.b32"), "{text}");
        assert!(text.contains("st.global.v4.b32"), "{text}");
        assert!(text.contains("cvt.rn.f16.f32"), "{text}");
        // f16 → f32 conversion, f32 arithmetic.
        assert!(text.contains("cvt.f32.f16"), "{text}");
        assert!(text.contains("fma.rn.f32"), "{text}");
        // bf16 widens by position (no sm_90-only cvt.f32.bf16) and narrows with cvt.rn.
        let text = ptx(
            &Level1Params::fallback(L1Op::Scal, DType::Bf16, true),
            "sm_80",
        );
        assert!(!text.contains("cvt.f32.bf16"), "{text}");
        assert!(text.contains("cvt.rn.bf16.f32"), "{text}");
        // Copy moves bits: no conversion at all.
        let text = ptx(
            &Level1Params::fallback(L1Op::Copy, DType::F16, true),
            "sm_80",
        );
        assert!(
            !text.contains("cvt.f32") && !text.contains("cvt.rn.f16"),
            "{text}"
        );
    }

    #[test]
    fn conversions_split_wide_stores_to_the_vector_width() {
        // f16 → f32 with 16-byte loads: 8 values, 32 bytes of y, two 16-byte stores per
        // unit.
        let p = Level1Params::fallback(L1Op::Convert { to: DType::F32 }, DType::F16, true);
        let text = ptx(&p, "sm_90a");
        let stores = text.matches("st.global.v4.f32").count();
        assert_eq!(stores, 2 * p.unroll as usize, "{text}");
        // f32 → f64 with 8-byte loads: 2 values, 16 bytes of y, two 8-byte stores.
        let mut p = Level1Params::fallback(L1Op::Convert { to: DType::F64 }, DType::F32, true);
        p.vector_bytes = 8;
        let text = ptx(&p, "sm_90a");
        assert_eq!(
            text.matches("st.global.f64").count(),
            2 * 4 + 2 * 4,
            "{text}"
        );
        assert!(!text.contains("st.global.v2.f64"), "{text}");
        // f64 → f32 rounds once, to nearest even.
        let text = ptx(
            &Level1Params::fallback(L1Op::Convert { to: DType::F32 }, DType::F64, true),
            "sm_90a",
        );
        assert!(text.contains("cvt.rn.f32.f64"), "{text}");
    }

    #[test]
    fn cache_hints_reach_every_vector_access() {
        let mut p = Level1Params::fallback(L1Op::Axpby { read_y: true }, DType::F64, true);
        p.store_cache = StoreCache::Streaming;
        let text = ptx(&p, "sm_90a");
        assert_eq!(text.matches("st.global.v2").count(), 0, "{text}");
        assert_eq!(text.matches("st.global.cs.v2").count(), 4, "{text}");
        p.store_cache = StoreCache::Default;
        p.load_cache = LoadHint::L2EvictFirst;
        let text = ptx(&p, "sm_90a");
        assert_eq!(text.matches("createpolicy").count(), 1, "{text}");
        assert_eq!(
            text.matches("ld.global.nc.L2::cache_hint.v2").count(),
            4,
            "{text}"
        );
        assert_eq!(
            text.matches("ld.global.L2::cache_hint.v2").count(),
            4,
            "{text}"
        );
        assert!(!text.contains("st.global.L2"), "{text}");
    }

    #[test]
    fn every_variant_passes_ptxas_without_spills() {
        let Some(ptxas) = Ptxas::find() else {
            eprintln!("skipped: ptxas not found ({HOW_TO_GET})");
            return;
        };
        let variants = variants();
        let mut worst: Option<(u32, String)> = None;
        for target in ["sm_80", "sm_90a"] {
            let target: Target = target.parse().unwrap();
            for p in &variants {
                let prog = Level1::generate(p, &target).unwrap();
                let ModuleImage::Ptx(text) = &prog.image else {
                    unreachable!()
                };
                let report = ptxas
                    .compile(text, &target)
                    .unwrap_or_else(|e| panic!("{p:?} on {target}: {e}\n{text}"));
                assert!(report.warnings.is_empty(), "{p:?}: {:?}", report.warnings);
                let k = report.kernel(KERNEL).unwrap();
                // LEVEL1_PTXAS_REPORT=1 prints every variant's registers.
                if std::env::var_os("LEVEL1_PTXAS_REPORT").is_some() {
                    eprintln!("{target} {:>3} registers: {p:?}", k.registers);
                }
                assert_eq!(k.spill_loads + k.spill_stores, 0, "{p:?} spills");
                // <= 96 registers keeps at least two 256-thread blocks resident per SM.
                assert!(k.registers <= 96, "{p:?} uses {} registers", k.registers);
                if worst.as_ref().is_none_or(|w| k.registers > w.0) {
                    worst = Some((k.registers, format!("{p:?} on {target}")));
                }
            }
        }
        eprintln!(
            "level1: {} variants x 2 targets assembled; most registers: {:?}",
            variants.len(),
            worst
        );
    }
}
