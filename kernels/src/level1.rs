//! BLAS Level 1 generators: elementwise operations (fill, scal, axpby, copy, swap, rot,
//! rotm, dtype conversion) and reductions (dot, dotc, sum, asum, nrm2, iamax, iamin) for
//! f32, f64, Complex32, Complex64, f16 and bf16, contiguous or strided (negative
//! increments included).
//!
//! The kernels are written once in the kernel language ([`crate::lang::level1`]) and
//! lowered to PTX and AMDGPU with one signature ([`signature`]); this module holds what
//! the plan and the generator share: the ops, the variant parameters, the catalog key,
//! the signature and the partials' layout.
//!
//! Contiguous vectors move as `vector_bytes`-wide loads and stores (16 bytes = 4 f32 or
//! 8 f16); each work-item handles `unroll` vectors strided by the block size inside its
//! block's tile, so waves stay coalesced and several loads are in flight per work-item.
//! Reductions run a fixed grid (at most `grid` workgroups) looping over tiles, combine
//! each workgroup in a fixed shared-memory tree (the same on every target and wave
//! size), and leave one partial per workgroup; one workgroup's final pass ([`finish`])
//! combines the partials in a fixed order on the device. The result is therefore the
//! same run to run and target to target. nrm2 accumulates in f64, with Blue's three accumulators (tiny,
//! medium, huge) for f64 inputs, so it neither overflows nor underflows where the result
//! does not (the square of any f32, f16 or bf16 is a normal f64, and exact).
//!
//! f16 and bf16 are stored in 2 bytes and computed in f32 (their scalars are f32
//! parameters); results are rounded to nearest even once, when stored. Copy and swap
//! move their bits untouched. Contiguous units move as 32-bit words of two values (a
//! 16-byte access moves 8 values).
//!
//! Error bounds of the reductions, with m = the elements one work-item accumulates
//! (`⌈n / (grid·block·elements per unit·unroll)⌉·unroll·elements per unit`) plus 10 for
//! the workgroup tree, u the unit roundoff of the accumulation type and the
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
//! `load_cache` and `store_cache` put one cache hint on every vector load and store:
//! `Default` (the read-only path for data the kernel does not write) and `Streaming`;
//! the other hints of [`crate::ptx::cache`] have no access in the language and answer
//! `Unsupported`. The partials are plain stores.

use crate::generator::{Generator, Program};
use crate::ptx::cache::{LoadHint, StoreCache};
use crate::signature::{self, ScalarType, Signature};
use rocm_core::{DType, Error, Result, Target};

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

/// Reals per element (2 for complex) and bytes per real of `dtype`.
fn reals_of(dtype: DType) -> (u32, u32) {
    let comps = if dtype.is_complex() { 2 } else { 1 };
    (comps, dtype.size() as u32 / comps)
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

    /// The variants the tests lower and assemble on every target: every supported (op,
    /// dtype), contiguous and strided, in three shapes: the fallback; element-wide
    /// accesses with one unit per work-item; 4-byte accesses (two 16-bit values in one
    /// word) with two units per work-item where they hold whole elements.
    pub fn coverage() -> Vec<Level1Params> {
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
        out
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

    /// Reals per contiguous load of x (strided: one element = `comps` reals).
    fn reals_per_vector(&self) -> Result<u32> {
        let (comps, size) = reals_of(self.dtype);
        if !self.contiguous {
            return Ok(comps);
        }
        let v = self.vector_bytes / size;
        if self.vector_bytes > 16
            || v == 0
            || v * size != self.vector_bytes
            || !v.is_power_of_two()
            || v % comps != 0
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
        let (comps, _) = reals_of(self.dtype);
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
            return Err(Error::unsupported(what, "Level 1"));
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

/// The variants `rocm-bench tune l1` times, as one table: work-items per workgroup,
/// units per work-item (with their product at most [`TUNING_MAX_TILE_UNITS`]),
/// workgroups per compute unit, and bytes per contiguous access.
pub const TUNING_BLOCKS: [u32; 4] = [128, 256, 512, 1024];
pub const TUNING_UNROLLS: [u32; 4] = [1, 2, 4, 8];
pub const TUNING_GRIDS_PER_UNIT: [u32; 4] = [4, 8, 16, 32];
pub const TUNING_VECTOR_BYTES: [u32; 2] = [16, 8];
/// The largest tile (block × unroll units) offered: larger ones only add registers.
pub const TUNING_MAX_TILE_UNITS: u32 = 2048;

/// The candidate variants of `op` on `dtype` (contiguous or strided) for a device of
/// `compute_units` compute units, from the `TUNING_*` table: reductions over block ×
/// unroll × grid (their kernels always loop over tiles by the grid) × vector bytes;
/// elementwise ops one workgroup per tile (no grid) and grid-stride over each grid.
/// Strided variants have no vector width (element accesses). Each candidate is valid
/// ([`Level1Params::validate`]); unsupported (op, dtype) pairs and zero compute units
/// are errors.
pub fn tuning_candidates(
    op: L1Op,
    dtype: DType,
    contiguous: bool,
    compute_units: u32,
) -> Result<Vec<Level1Params>> {
    if compute_units == 0 {
        return Err(Error::invalid(
            "compute_units",
            "a device has at least one compute unit",
        ));
    }
    let base = Level1Params::fallback(op, dtype, contiguous);
    base.validate()?;
    let vectors: &[u32] = if contiguous {
        &TUNING_VECTOR_BYTES
    } else {
        &TUNING_VECTOR_BYTES[..1]
    };
    // (grid, grid_stride): reductions always loop; elementwise ops also without.
    let mut grids: Vec<(u32, bool)> = Vec::new();
    if !op.is_reduction() {
        grids.push((base.grid, false));
    }
    for per_unit in TUNING_GRIDS_PER_UNIT {
        let grid = compute_units.checked_mul(per_unit).ok_or_else(|| {
            Error::invalid("compute_units", format!("{compute_units} is too many"))
        })?;
        grids.push((grid, !op.is_reduction()));
    }
    let mut out = Vec::new();
    for &vector_bytes in vectors {
        for block in TUNING_BLOCKS {
            for unroll in TUNING_UNROLLS {
                if block * unroll > TUNING_MAX_TILE_UNITS {
                    continue;
                }
                for &(grid, grid_stride) in &grids {
                    let p = Level1Params {
                        vector_bytes,
                        block,
                        unroll,
                        grid,
                        grid_stride,
                        ..base.clone()
                    };
                    if p.validate().is_ok() && !out.contains(&p) {
                        out.push(p);
                    }
                }
            }
        }
    }
    Ok(out)
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

/// Whether the generator covers `op` on `dtype` (for `Convert`, the source dtype):
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
    const VERSION: u32 = 7;

    fn generate(p: &Level1Params, target: &Target) -> Result<Program> {
        let def = crate::lang::level1::kernel(p, target)?;
        crate::lang::program(&[def], plan::launch_rule(p))
    }

    fn signatures(p: &Level1Params, target: &Target) -> Result<Vec<Signature>> {
        crate::lang::level1::check(p, target)?;
        Ok(vec![signature(p)?])
    }
}

/// Blue's thresholds for f64 (LAPACK 3.10 dnrm2): |x| < TSML is scaled up by SSML,
/// |x| > TBIG scaled down by SBIG, the rest summed as is.
pub(crate) const TSML: f64 = 1.4916681462400413e-154;
pub(crate) const TBIG: f64 = 1.997_919_072_202_235e146;
pub(crate) const SSML: f64 = 4.4989137945431964e161;
pub(crate) const SBIG: f64 = 1.1113793747425387e-162;

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

/// The names of the kernel's scalar parameters, in order (the module docs): reals
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

/// The kernel's signature on every target (the module docs): `n: u64, x, incx: i64,
/// [y, incy: i64], scalars (f32, or f64 for f64 and c64), [partials: f64, written]`.
pub fn signature(p: &Level1Params) -> Result<Signature> {
    p.validate()?;
    let (comps, _) = reals_of(p.dtype);
    let scalar = if matches!(p.dtype, DType::F64 | DType::C64) {
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
    for name in scalar_names(p.op, comps) {
        sig = sig.scalar(name, scalar);
    }
    if p.op.is_reduction() {
        sig = sig.pointer("partials", DType::F64, signature::Access::Write);
    }
    Ok(sig)
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
    #[test]
    fn tuning_candidates_cover_the_table_and_are_valid() {
        use super::*;
        let dot = tuning_candidates(L1Op::Dot { conj: false }, DType::F32, true, 132).unwrap();
        // 13 (block, unroll) pairs within 2048 units × 4 grids × 2 vector widths.
        assert_eq!(dot.len(), 13 * 4 * 2);
        assert!(dot.iter().all(|p| p.validate().is_ok() && !p.grid_stride));
        assert!(dot
            .iter()
            .all(|p| p.block * p.unroll <= TUNING_MAX_TILE_UNITS));
        let grids: Vec<u32> = dot.iter().map(|p| p.grid).collect();
        for g in [528, 1056, 2112, 4224] {
            assert!(grids.contains(&g), "grid {g} missing");
        }
        // The fallback's geometry is among them, so tuning can keep it.
        let fb = Level1Params::fallback(L1Op::Dot { conj: false }, DType::F32, true);
        assert!(dot.contains(&fb));
        // Strided: one vector width (element accesses).
        let strided = tuning_candidates(L1Op::Nrm2, DType::F64, false, 132).unwrap();
        assert_eq!(strided.len(), 13 * 4);
        // c64 elements are 16 bytes: 8-byte accesses would split one, so only 16.
        let c64 = tuning_candidates(L1Op::Asum, DType::C64, true, 80).unwrap();
        assert!(c64.iter().all(|p| p.vector_bytes == 16));
        // Elementwise: one workgroup per tile, or grid-stride over each grid.
        let axpy = tuning_candidates(L1Op::Axpby { read_y: true }, DType::F32, true, 4).unwrap();
        assert_eq!(axpy.len(), 13 * 5 * 2);
        assert_eq!(axpy.iter().filter(|p| !p.grid_stride).count(), 13 * 2);
        // Errors, not panics, for impossible requests.
        assert!(tuning_candidates(L1Op::Rotm, DType::C32, true, 132).is_err());
        assert!(tuning_candidates(L1Op::Asum, DType::F32, true, 0).is_err());
        assert!(tuning_candidates(L1Op::Asum, DType::F32, true, u32::MAX).is_err());
    }

    use super::*;
    use crate::ptxas::{Ptxas, HOW_TO_GET};
    use rocm_core::ModuleImage;

    /// [`Level1Params::coverage`], then each cache hint on a few ops.
    fn variants() -> Vec<Level1Params> {
        let mut out = Level1Params::coverage();
        for op in [L1Op::Axpby { read_y: true }, L1Op::Iamax { max: true }] {
            for dtype in [DType::F64, DType::Bf16] {
                for load_cache in [LoadHint::Default, LoadHint::Streaming] {
                    for store_cache in [StoreCache::Default, StoreCache::Streaming] {
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
        assert!(text.contains("ld.global.nc.v4.u32"), "{text}");
        assert!(text.contains("st.global.v4.u32"), "{text}");
        assert!(text.contains("cvt.rn.f16.f32"), "{text}");
        // f16 → f32 conversion, f32 arithmetic.
        assert!(text.contains("cvt.f32.f16"), "{text}");
        assert!(text.contains("fma.rn.f32"), "{text}");
        // bf16 narrows with cvt.rn (ptxas takes its widening on sm_80: the variants test).
        let text = ptx(
            &Level1Params::fallback(L1Op::Scal, DType::Bf16, true),
            "sm_80",
        );
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
        p.load_cache = LoadHint::Streaming;
        let text = ptx(&p, "sm_90a");
        // x's and y's loads: streaming instead of the read-only path.
        assert_eq!(text.matches("ld.global.cs.v2").count(), 8, "{text}");
        assert!(!text.contains("ld.global.nc"), "{text}");
        assert!(!text.contains("st.global.cs"), "{text}");
        // Hints without an access in the language are refused, not dropped.
        let sm90: Target = "sm_90a".parse().unwrap();
        for (load_cache, store_cache) in [
            (LoadHint::L2EvictFirst, StoreCache::Default),
            (LoadHint::L1NoAllocate, StoreCache::Default),
            (LoadHint::Default, StoreCache::L2EvictFirst),
        ] {
            p.load_cache = load_cache;
            p.store_cache = store_cache;
            assert!(
                matches!(Level1::generate(&p, &sm90), Err(Error::Unsupported { .. })),
                "{p:?}"
            );
        }
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
