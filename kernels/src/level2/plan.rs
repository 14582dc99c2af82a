//! Level 2 selection: the plans of gemv and the rank updates.
//!
//! The variant is the target's catalog entry `gemv/<dtype>/<n|t|c>` (else
//! [`GemvParams::fallback`]), with a [`GemvTuning`] overriding single fields. x and y are
//! passed at their *logical* element 0 (the far end for a negative increment). For `N`
//! the plan chooses the column chunks: enough workgroups to fill the device
//! ([`TARGET_GROUPS`]), each chunk at least [`MIN_CHUNK_COLS`] columns. One chunk runs the
//! variant without split (α and β applied in place); more write compute-type partials
//! to the workspace (chunks × m elements) and the finish kernel, a dependent step, sums
//! them in chunk order. Wide lane loads only where every lane load is aligned.
//!
//! The hand-written AMDGPU kernels (gemv and the triangle products) form element indices
//! and byte strides in 32 bits: there every span a kernel indexes and every stride in
//! bytes must stay below 2³¹ (module doc of [`crate::amdgpu::level2`]); larger problems
//! answer `Unsupported`.

use super::gemv::{Gemv, GemvParams, GemvTrans, GemvTuning};
use super::rank::{Rank, RankOp, RankParams, UPPER as RANK_UPPER};
use super::signatures;
use super::trimv::{TriMv, TriMvOp, TriMvParams, UNIT as TRI_MV_UNIT, UPPER as TRI_MV_UPPER};
use super::trsv::{
    TrsvBlock, TrsvParams, CONJ as TRSV_CONJ, TRANS as TRSV_TRANS, UNIT as TRSV_UNIT,
    UPPER as TRSV_UPPER,
};
use super::Storage;
use crate::catalog::Catalog;
use crate::generator::Generator;
use crate::level1::plan::ScalarArg;
use crate::plan::{Arg, Plan, ProgramRef, Step};
use crate::signature::{Access, Signature, Value};
use rocm_core::{DType, Error, LaunchConfig, Result, Target};
use std::ops::Range;

/// Workgroups for `N`: 4 per SM of a 132-SM GPU. At 16384² f32 (rows 2: 32 row groups,
/// so 17 chunks) this runs at 0.354 ms against the 8-per-SM rule's 0.376 ms (H100,
/// bench/results/2026-11-24-h100-gemv-sweep-session6.txt): half-filled SMs already
/// saturate HBM, and fewer chunks write fewer partials.
pub const TARGET_GROUPS: u64 = 132 * 4;
/// Fewest columns per chunk (below this the partials cost more than they save).
pub const MIN_CHUNK_COLS: u64 = 64;

/// A column-major matrix in view `slot` (which starts at its lowest element); `address`
/// is the view's device address, used for alignment only.
#[derive(Debug, Clone, Copy)]
pub struct Matrix {
    pub slot: usize,
    pub address: u64,
    pub lda: u64,
}

/// A vector in view `slot` (starting at its lowest stored element).
#[derive(Debug, Clone, Copy)]
pub struct Vector {
    pub slot: usize,
    pub address: u64,
    pub inc: i64,
}

impl Vector {
    fn touched(&self, len: u64, es: u64) -> Range<u64> {
        if len == 0 {
            return 0..0;
        }
        0..((len - 1) * self.inc.unsigned_abs() + 1) * es
    }

    fn logical_offset(&self, len: u64, es: u64) -> u64 {
        if self.inc >= 0 || len == 0 {
            0
        } else {
            (len - 1) * self.inc.unsigned_abs() * es
        }
    }

    fn arg(&self, len: u64, es: u64, access: Access) -> Arg {
        Arg::Buffer {
            slot: self.slot,
            offset_bytes: self.logical_offset(len, es),
            touched: self.touched(len, es),
            access,
        }
    }
}

/// y = α·op(A)·x + β·y (m, n ≥ 1; the caller checked the views hold their extents).
#[derive(Debug, Clone, Copy)]
pub struct GemvProblem<'a> {
    pub trans: GemvTrans,
    pub dtype: DType,
    pub m: u64,
    pub n: u64,
    pub a: Matrix,
    pub x: Vector,
    pub y: Vector,
    /// α and β as reals (complex: re, im); β is not passed when `read_y` is false.
    pub alpha: &'a [ScalarArg],
    pub beta: &'a [ScalarArg],
    pub read_y: bool,
}

/// Column chunks of an `N` launch with `groups_x` row groups.
pub fn chunks_for(n: u64, groups_x: u64) -> u32 {
    let by_fill = TARGET_GROUPS.div_ceil(groups_x.max(1));
    let by_cols = (n / MIN_CHUNK_COLS).max(1);
    by_fill.min(by_cols).clamp(1, 65535) as u32
}

fn scalar_value(s: ScalarArg) -> Value {
    match s {
        ScalarArg::F32(v) => Value::F32(v),
        ScalarArg::F64(v) => Value::F64(v),
    }
}

/// Binds the scalar `name` (α or β) to `values`, by the signature's names.
fn bind_scalars(
    out: &mut Vec<(String, Arg)>,
    dtype: DType,
    name: &str,
    amdgpu: bool,
    values: &[ScalarArg],
) -> Result<()> {
    let names = signatures::scalar_names(dtype, name, amdgpu);
    if names.len() != values.len() {
        return Err(Error::invalid(
            name.to_string(),
            format!(
                "{} reals for a {dtype} scalar, {} given",
                names.len(),
                values.len()
            ),
        ));
    }
    for (n, v) in names.into_iter().zip(values) {
        out.push((n, Arg::Value(scalar_value(*v))));
    }
    Ok(())
}

fn step(
    program: ProgramRef,
    sig: Signature,
    config: LaunchConfig,
    bindings: &[(String, Arg)],
) -> Result<Step> {
    let named: Vec<(&str, Arg)> = bindings
        .iter()
        .filter(|(n, _)| sig.params.iter().any(|p| p.name == *n))
        .map(|(n, a)| (n.as_str(), a.clone()))
        .collect();
    Step::bind(program, sig, config, named)
}

/// Rejects problems the AMDGPU kernels cannot index: every span of elements a kernel
/// indexes and every stride in bytes below 2³¹.
fn check_extent(dtype: DType, elements: &[u128], strides: &[u128]) -> Result<()> {
    let es = dtype.size() as u128;
    let limit = 1u128 << 31;
    if elements.iter().all(|&e| e < limit) && strides.iter().all(|&s| s * es < limit) {
        return Ok(());
    }
    Err(Error::unsupported(
        "indexing 2³¹ or more elements or bytes per stride (AMDGPU Level 2 kernels index in 32 bits)",
        "AMDGPU",
    ))
}

/// gemv's spans and strides for [`check_extent`].
fn check_amdgpu_extent(p: &GemvProblem<'_>) -> Result<()> {
    let (ix, iy) = (
        p.x.inc.unsigned_abs() as u128,
        p.y.inc.unsigned_abs() as u128,
    );
    let (m, n, lda) = (p.m as u128, p.n as u128, p.a.lda as u128);
    check_extent(
        p.dtype,
        &[lda * n + m, ix * n.max(m), iy * n.max(m)],
        &[lda, ix, iy],
    )
}

/// The variant for `p` on `target`: catalog, tuning, alignment, chunks.
fn choose(p: &GemvProblem<'_>, tuning: GemvTuning, catalog: &Catalog) -> (GemvParams, u64, u32) {
    let (m, n) = (p.m, p.n);
    let fallback = GemvParams::fallback(p.dtype, p.trans, p.read_y);
    let key = GemvParams::key(p.dtype, p.trans);
    let mut g: GemvParams = catalog.select(Gemv::NAME, &key, m.saturating_mul(n), fallback.clone());
    if g.dtype != p.dtype || g.trans != p.trans {
        g = fallback;
    }
    g.read_y = p.read_y;
    g.block = tuning.block.unwrap_or(g.block);
    g.rows = tuning.rows.unwrap_or(g.rows);
    g.cols = tuning.cols.unwrap_or(g.cols);
    g.warps_per_column = match (p.trans, tuning.warps_per_column) {
        (GemvTrans::N, _) => 1,
        (_, Some(w)) => w,
        // The catalog's groups, halved until they divide a tuned block.
        (_, None) => {
            let mut w = g.warps_per_column.max(1);
            while w > 1 && g.block % (32 * w) != 0 {
                w /= 2;
            }
            w
        }
    };
    // Wide loads only where every lane load is aligned: A and each column start (lda)
    // multiples of the load; for N m a multiple of its rows (a load never crosses the
    // column's end), for T/C x contiguous and aligned.
    let esize = p.dtype.size() as u64;
    let wanted = tuning.vector.unwrap_or(g.vector);
    g.vector = 1;
    let bytes = wanted as u64 * esize;
    let operands = match p.trans {
        GemvTrans::N => m.checked_rem(wanted as u64) == Some(0),
        _ => p.x.inc == 1 && p.x.address % bytes == 0,
    };
    if operands
        && bytes.is_power_of_two()
        && p.a.address % bytes == 0
        && (p.a.lda * esize) % bytes == 0
    {
        g.vector = wanted;
    }
    // (At least 1: shapes that produce no output per group fail validation when the
    // program is generated, with an error naming the field.)
    let groups_x = m.div_ceil(g.outputs_per_group().max(1) as u64);
    let chunks = match p.trans {
        GemvTrans::N => tuning
            .chunks
            .unwrap_or_else(|| chunks_for(n, groups_x))
            .clamp(1, 65535),
        _ => 1,
    };
    g.split = chunks > 1;
    (g, groups_x, chunks)
}

/// gemv's plan: the main kernel, and for a split `N` the finish kernel as a dependent
/// step over the partials in the workspace.
pub fn plan(
    p: &GemvProblem<'_>,
    tuning: GemvTuning,
    target: &Target,
    catalog: &Catalog,
) -> Result<Plan> {
    let amdgpu = signatures::amdgpu(target);
    if amdgpu {
        check_amdgpu_extent(p)?;
    }
    if i64::try_from(p.m.saturating_mul(p.a.lda)).is_err() {
        return Err(Error::invalid(
            "lda",
            "the matrix spans more than 2⁶³ elements",
        ));
    }
    let (g, groups_x, chunks) = choose(p, tuning, catalog);
    let es = p.dtype.size() as u64;
    let (lx, ly) = match p.trans {
        GemvTrans::N => (p.n, p.m),
        _ => (p.m, p.n),
    };
    let a_bytes = if p.m == 0 || p.n == 0 {
        0
    } else {
        ((p.n - 1) * p.a.lda + p.m) * es
    };
    let y_access = if p.read_y {
        Access::ReadWrite
    } else {
        Access::Write
    };
    let work_bytes = if g.splits() {
        chunks as u64 * p.m * es
    } else {
        0
    };
    let mut b: Vec<(String, Arg)> = vec![
        ("m".into(), Arg::Value(Value::U64(p.m))),
        ("n".into(), Arg::Value(Value::U64(p.n))),
        (
            "a".into(),
            Arg::Buffer {
                slot: p.a.slot,
                offset_bytes: 0,
                touched: 0..a_bytes,
                access: Access::Read,
            },
        ),
        ("lda".into(), Arg::Value(Value::U64(p.a.lda))),
        ("x".into(), p.x.arg(lx, es, Access::Read)),
        ("incx".into(), Arg::Value(Value::I64(p.x.inc))),
        ("y".into(), p.y.arg(ly, es, y_access)),
        ("incy".into(), Arg::Value(Value::I64(p.y.inc))),
        ("chunks".into(), Arg::Value(Value::U64(chunks as u64))),
        (
            "work".into(),
            Arg::Workspace {
                offset: 0,
                bytes: work_bytes,
            },
        ),
    ];
    bind_scalars(&mut b, p.dtype, "alpha", amdgpu, p.alpha)?;
    if p.read_y {
        bind_scalars(&mut b, p.dtype, "beta", amdgpu, p.beta)?;
    }
    let mut sigs = signatures::gemv(&g, amdgpu).into_iter();
    let main_sig = sigs
        .next()
        .ok_or_else(|| Error::invalid("gemv", "no main kernel"))?;
    let main_config = match p.trans {
        GemvTrans::N => LaunchConfig {
            grid: [groups_x as u32, chunks, 1],
            block: [g.block, 1, 1],
            shared_bytes: 0,
        },
        _ => {
            let groups = p.n.div_ceil(g.outputs_per_group().max(1) as u64);
            LaunchConfig::linear(groups as u32, g.block)
        }
    };
    let mut steps = vec![step(
        ProgramRef::of::<Gemv>(g.clone()),
        main_sig,
        main_config,
        &b,
    )?];
    if let Some(finish_sig) = sigs.next() {
        let config = LaunchConfig::linear(p.m.div_ceil(g.block as u64) as u32, g.block);
        steps.push(step(ProgramRef::of::<Gemv>(g.clone()), finish_sig, config, &b)?.dependent());
    }
    Ok(Plan {
        steps,
        workspace_bytes: work_bytes,
    })
}

/// A ← A + α·x·op(y) (+ the second term): ger/geru/gerc on an m×n matrix,
/// syr/her/syr2/her2 on a dense triangle, spr/hpr/spr2/hpr2 on a packed one (m, n ≥ 1;
/// the caller checked the views).
#[derive(Debug, Clone, Copy)]
pub struct RankProblem<'a> {
    pub op: RankOp,
    pub storage: Storage,
    /// The upper triangle is stored (triangle ops).
    pub upper: bool,
    pub dtype: DType,
    /// A is m×n (n×n for the triangle ops).
    pub m: u64,
    pub n: u64,
    /// A (or AP); `lda` unused when packed.
    pub a: Matrix,
    /// x (m elements) and y (n elements); syr/her pass x again as y.
    pub x: Vector,
    pub y: Vector,
    pub alpha: &'a [ScalarArg],
}

/// The rank update's plan: one launch, rows over grid x (one work-item per row), column
/// groups over grid y; the same on every target (the kernel indexes in 64 bits
/// everywhere).
pub fn plan_rank(p: &RankProblem<'_>) -> Result<Plan> {
    let (m, n, lda) = (p.m as u128, p.n as u128, p.a.lda as u128);
    if lda * n + m > i64::MAX as u128 {
        return Err(Error::invalid(
            "lda",
            "the matrix spans more than 2⁶³ elements",
        ));
    }
    let g = RankParams::fallback(p.dtype, p.op, p.storage);
    let es = p.dtype.size() as u64;
    let a_elements = match p.storage {
        Storage::Packed => p.n * (p.n + 1) / 2,
        _ => (p.n - 1) * p.a.lda + p.m,
    };
    let mut b: Vec<(String, Arg)> = vec![
        ("m".into(), Arg::Value(Value::U64(p.m))),
        ("n".into(), Arg::Value(Value::U64(p.n))),
        (
            "a".into(),
            Arg::Buffer {
                slot: p.a.slot,
                offset_bytes: 0,
                touched: 0..a_elements * es,
                access: Access::ReadWrite,
            },
        ),
        ("lda".into(), Arg::Value(Value::U64(p.a.lda))),
        ("x".into(), p.x.arg(p.m, es, Access::Read)),
        ("incx".into(), Arg::Value(Value::I64(p.x.inc))),
        ("y".into(), p.y.arg(p.n, es, Access::Read)),
        ("incy".into(), Arg::Value(Value::I64(p.y.inc))),
        (
            "flags".into(),
            Arg::Value(Value::U32(if p.upper { RANK_UPPER } else { 0 })),
        ),
    ];
    // One kernel for every target (the language's), one signature.
    bind_scalars(&mut b, p.dtype, "alpha", false, p.alpha)?;
    let config = LaunchConfig {
        grid: g.grid(p.m as usize, p.n as usize),
        block: [g.block, 1, 1],
        shared_bytes: 0,
    };
    let sig = signatures::rank(&g);
    Ok(Plan {
        steps: vec![step(ProgramRef::of::<Rank>(g), sig, config, &b)?],
        workspace_bytes: 0,
    })
}

/// The rows of y and the columns (entries of x) a windowed triangle product covers, as
/// indices of A, and the full lengths of x and y.
#[derive(Debug, Clone, Copy)]
pub struct TriMvWindow {
    pub rows: (u64, u64),
    pub cols: (u64, u64),
    pub lens: (u64, u64),
}

/// y = α·op(A)·x + β·y with a stored triangle or a band (n ≥ 1; the caller checked the
/// views): symv/hemv, spmv/hpmv, sbmv/hbmv, trmv/tpmv/tbmv (α = 1, β = 0 into a
/// separate y), gbmv (the general ops, always windowed) and the windowed trmv updates
/// of the blocked trsv (y may be x's vector outside the window's columns).
#[derive(Debug, Clone, Copy)]
pub struct TriMvProblem<'a> {
    pub op: TriMvOp,
    pub storage: Storage,
    /// Off-diagonals of band storage (the general ops: ku; unused otherwise).
    pub band: u64,
    /// The general ops' sub-diagonals kl.
    pub band_lower: u64,
    /// Rows and columns; without one, 0..n each.
    pub window: Option<TriMvWindow>,
    pub upper: bool,
    /// Unit diagonal (trmv only).
    pub unit: bool,
    pub dtype: DType,
    pub n: u64,
    /// A (or AP); `lda` unused when packed.
    pub a: Matrix,
    pub x: Vector,
    pub y: Vector,
    pub alpha: &'a [ScalarArg],
    pub beta: &'a [ScalarArg],
    /// β ≠ 0 (else y is not read).
    pub read_y: bool,
}

impl TriMvProblem<'_> {
    /// Elements of A's storage from its lowest element: n×n at lda, the packed
    /// triangle, or the band's stored rows (kl + ku + 1 for the general ops) at lda.
    pub fn a_elements(&self) -> u64 {
        let n = self.n;
        match self.storage {
            Storage::Packed => n * (n + 1) / 2,
            Storage::Dense => (n - 1) * self.a.lda + n,
            Storage::Band => {
                let stored = if self.op.is_general() {
                    self.band_lower + self.band + 1
                } else {
                    self.band + 1
                };
                (n - 1) * self.a.lda + stored
            }
        }
    }
}

/// The triangle product's plan: one launch of ⌈rows/32⌉ workgroups.
pub fn plan_trimv(p: &TriMvProblem<'_>, target: &Target) -> Result<Plan> {
    let amdgpu = signatures::amdgpu(target);
    let (x_len, y_len) = p.window.map_or((p.n, p.n), |w| w.lens);
    // The order bounds every index into A's storage and the vectors.
    let dim = p.n.max(x_len).max(y_len) as u128;
    let lda = p.a.lda as u128;
    if lda * dim + dim > i64::MAX as u128 {
        return Err(Error::invalid(
            "lda",
            "the matrix spans more than 2⁶³ elements",
        ));
    }
    if amdgpu {
        let (ix, iy) = (
            p.x.inc.unsigned_abs() as u128,
            p.y.inc.unsigned_abs() as u128,
        );
        check_extent(
            p.dtype,
            &[lda * dim + dim, dim * (dim + 1) / 2, ix * dim, iy * dim],
            &[lda, ix, iy],
        )?;
    }
    let g = TriMvParams {
        window: p.window.is_some(),
        ..TriMvParams::fallback(p.dtype, p.op, p.storage, p.read_y)
    };
    let es = p.dtype.size() as u64;
    let y_access = if p.read_y {
        Access::ReadWrite
    } else {
        Access::Write
    };
    let flags = if p.upper { TRI_MV_UPPER } else { 0 } | if p.unit { TRI_MV_UNIT } else { 0 };
    let mut b: Vec<(String, Arg)> = vec![
        ("n".into(), Arg::Value(Value::U64(p.n))),
        (
            "a".into(),
            Arg::Buffer {
                slot: p.a.slot,
                offset_bytes: 0,
                touched: 0..p.a_elements() * es,
                access: Access::Read,
            },
        ),
        ("lda".into(), Arg::Value(Value::U64(p.a.lda))),
        ("x".into(), p.x.arg(x_len, es, Access::Read)),
        ("incx".into(), Arg::Value(Value::I64(p.x.inc))),
        ("y".into(), p.y.arg(y_len, es, y_access)),
        ("incy".into(), Arg::Value(Value::I64(p.y.inc))),
        ("flags".into(), Arg::Value(Value::U32(flags))),
        ("band".into(), Arg::Value(Value::U64(p.band))),
        ("band_lower".into(), Arg::Value(Value::U64(p.band_lower))),
    ];
    bind_scalars(&mut b, p.dtype, "alpha", amdgpu, p.alpha)?;
    if p.read_y {
        bind_scalars(&mut b, p.dtype, "beta", amdgpu, p.beta)?;
    }
    let rows = match p.window {
        Some(w) => {
            for (name, v) in [
                ("rows_from", w.rows.0),
                ("rows_to", w.rows.1),
                ("cols_from", w.cols.0),
                ("cols_to", w.cols.1),
            ] {
                b.push((name.into(), Arg::Value(Value::U64(v))));
            }
            w.rows.1 - w.rows.0
        }
        None => p.n,
    };
    let config = LaunchConfig::linear(TriMvParams::groups(rows as usize), g.block());
    let sig = signatures::tri_mv(&g, amdgpu);
    Ok(Plan {
        steps: vec![step(ProgramRef::of::<TriMv>(g), sig, config, &b)?],
        workspace_bytes: 0,
    })
}

/// x ← op(A)⁻¹·x with A triangular (n ≥ 1; the caller checked the views), dense,
/// packed or band (k = `band` off-diagonals) storage.
#[derive(Debug, Clone, Copy)]
pub struct TrsvProblem {
    pub upper: bool,
    pub trans: GemvTrans,
    pub unit: bool,
    pub dtype: DType,
    pub n: u64,
    pub storage: Storage,
    pub band: u64,
    /// A (or AP); `lda` unused when packed.
    pub a: Matrix,
    pub x: Vector,
}

impl TrsvProblem {
    /// Elements of A's storage from its lowest element: n×n at lda, the packed
    /// triangle, or the band's k + 1 stored rows at lda.
    pub fn a_elements(&self) -> u64 {
        let n = self.n;
        match self.storage {
            Storage::Packed => n * (n + 1) / 2,
            Storage::Dense => (n - 1) * self.a.lda + n,
            Storage::Band => (n - 1) * self.a.lda + self.band + 1,
        }
    }

    /// The order NB of the diagonal blocks the blocked substitution walks.
    pub fn block_order(&self) -> u64 {
        TrsvParams::fallback(self.dtype, self.storage).block as u64
    }
}

/// One diagonal-block solve of the blocked trsv: x(k0..k0 + NB) ← M(K, K)⁻¹·x(K) by one
/// workgroup of NB work-items ([`TrsvProblem::block_order`]), reading the stored
/// triangle of the block in place.
pub fn plan_trsv_block(p: &TrsvProblem, k0: u64, target: &Target) -> Result<Plan> {
    if k0 >= p.n {
        return Err(Error::invalid(
            "k0",
            format!("block start {k0} outside the order {}", p.n),
        ));
    }
    let amdgpu = signatures::amdgpu(target);
    let (n, lda, ix) = (p.n as u128, p.a.lda as u128, p.x.inc.unsigned_abs() as u128);
    // Indices into A's storage: dense or band at lda, or the packed triangle.
    let span = match p.storage {
        Storage::Packed => n * (n + 1) / 2,
        _ => lda * n + n,
    };
    if span > i64::MAX as u128 {
        return Err(Error::invalid(
            "lda",
            "the matrix spans more than 2⁶³ elements",
        ));
    }
    if amdgpu {
        check_extent(p.dtype, &[span, ix * n], &[lda, ix])?;
    }
    let g = TrsvParams::fallback(p.dtype, p.storage);
    let es = p.dtype.size() as u64;
    let transposed = p.trans != GemvTrans::N;
    let flags = if p.upper { TRSV_UPPER } else { 0 }
        | if p.unit { TRSV_UNIT } else { 0 }
        | if transposed { TRSV_TRANS } else { 0 }
        | if p.trans == GemvTrans::C {
            TRSV_CONJ
        } else {
            0
        };
    let b: Vec<(String, Arg)> = vec![
        ("n".into(), Arg::Value(Value::U64(p.n))),
        ("k0".into(), Arg::Value(Value::U64(k0))),
        (
            "a".into(),
            Arg::Buffer {
                slot: p.a.slot,
                offset_bytes: 0,
                touched: 0..p.a_elements() * es,
                access: Access::Read,
            },
        ),
        ("lda".into(), Arg::Value(Value::U64(p.a.lda))),
        ("x".into(), p.x.arg(p.n, es, Access::ReadWrite)),
        ("incx".into(), Arg::Value(Value::I64(p.x.inc))),
        ("flags".into(), Arg::Value(Value::U32(flags))),
        ("band".into(), Arg::Value(Value::U64(p.band))),
    ];
    let config = LaunchConfig::linear(1, g.block);
    let sig = signatures::trsv_block(&g);
    Ok(Plan {
        steps: vec![step(ProgramRef::of::<TrsvBlock>(g), sig, config, &b)?],
        workspace_bytes: 0,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chunks_fill_the_device_but_keep_columns() {
        // 16384²: 32 row groups of 512 rows, ⌈528 / 32⌉ = 17 chunks of ≥ 64 columns.
        assert_eq!(chunks_for(16384, 32), 17);
        // Columns cap the split: 640 columns allow 10 chunks of 64.
        assert_eq!(chunks_for(640, 32), 10);
        // Few columns: no split.
        assert_eq!(chunks_for(100, 32), 1);
        // Many row groups already fill the device.
        assert_eq!(chunks_for(1 << 20, 5000), 1);
    }

    /// A split N plan on sm_90 is the main kernel writing the workspace and the finish
    /// kernel as a dependent step reading it; both check against the generated program.
    #[test]
    fn split_n_plans_a_dependent_finish() {
        let target: Target = "sm_90".parse().unwrap();
        let alpha = [ScalarArg::F64(2.0)];
        let beta = [ScalarArg::F64(0.5)];
        let p = GemvProblem {
            trans: GemvTrans::N,
            dtype: DType::F64,
            m: 4096,
            n: 4096,
            a: Matrix {
                slot: 0,
                address: 0,
                lda: 4096,
            },
            x: Vector {
                slot: 1,
                address: 0,
                inc: -1,
            },
            y: Vector {
                slot: 2,
                address: 0,
                inc: 1,
            },
            alpha: &alpha,
            beta: &beta,
            read_y: true,
        };
        let plan = plan(&p, GemvTuning::default(), &target, &Catalog::default()).unwrap();
        plan.check(&target).unwrap();
        assert_eq!(plan.steps.len(), 2, "{plan}");
        assert!(!plan.steps[0].dependent && plan.steps[1].dependent);
        let chunks = plan.steps[0].config.grid[1] as u64;
        assert!(chunks > 1);
        assert_eq!(plan.workspace_bytes, chunks * 4096 * 8);
        // x at a negative increment is passed at its far end.
        let x = &plan.steps[0].args[4];
        assert_eq!(
            *x,
            Arg::Buffer {
                slot: 1,
                offset_bytes: 4095 * 8,
                touched: 0..4096 * 8,
                access: Access::Read
            }
        );
        let text = plan.to_string();
        assert!(
            text.contains("rocm_blas_gemv_finish") && text.contains("dependent"),
            "{text}"
        );
    }

    /// A windowed band trmv update (the blocked tbsv's) on gfx90a: y is x's own vector
    /// passed at its far end for a negative increment, A's touched bytes are the band's
    /// k + 1 stored rows of every column, and the grid covers the window's rows only.
    #[test]
    fn windowed_band_trimv_binds_the_window() {
        let target: Target = "gfx90a".parse().unwrap();
        let (minus_one, one) = ([ScalarArg::F32(-1.0)], [ScalarArg::F32(1.0)]);
        let x = Vector {
            slot: 1,
            address: 0,
            inc: -2,
        };
        let p = TriMvProblem {
            op: TriMvOp::TrmvN,
            storage: Storage::Band,
            band: 3,
            band_lower: 0,
            window: Some(TriMvWindow {
                rows: (64, 67),
                cols: (0, 64),
                lens: (100, 100),
            }),
            upper: false,
            unit: false,
            dtype: DType::F32,
            n: 100,
            a: Matrix {
                slot: 0,
                address: 0,
                lda: 5,
            },
            x,
            y: Vector { slot: 2, ..x },
            alpha: &minus_one,
            beta: &one,
            read_y: true,
        };
        let plan = plan_trimv(&p, &target).unwrap();
        plan.check(&target).unwrap();
        let s = &plan.steps[0];
        // ⌈3 rows / 32⌉ workgroups of 8 warps.
        assert_eq!(s.config.grid, [1, 1, 1]);
        assert_eq!(s.config.block, [256, 1, 1]);
        // A: 99 columns at lda 5 and the last column's 4 stored rows, 4 bytes each.
        assert_eq!(
            s.args[1],
            Arg::Buffer {
                slot: 0,
                offset_bytes: 0,
                touched: 0..(99 * 5 + 4) * 4,
                access: Access::Read
            }
        );
        assert_eq!(
            s.args[5],
            Arg::Buffer {
                slot: 2,
                offset_bytes: 99 * 2 * 4,
                touched: 0..(99 * 2 + 1) * 4,
                access: Access::ReadWrite
            }
        );
        let names: Vec<&str> = s.signature.params.iter().map(|q| q.name.as_str()).collect();
        let at = |n: &str| s.args[names.iter().position(|q| *q == n).unwrap()].clone();
        assert_eq!(at("rows_from"), Arg::Value(Value::U64(64)));
        assert_eq!(at("cols_to"), Arg::Value(Value::U64(64)));
        assert_eq!(at("band"), Arg::Value(Value::U64(3)));
    }

    /// The block solve binds its start and variant bits; a start past the order and an
    /// AMDGPU stride of 2³¹ bytes are refused.
    #[test]
    fn trsv_block_plans_bind_the_block_and_refuse_bad_geometry() {
        let target: Target = "gfx942".parse().unwrap();
        let mut p = TrsvProblem {
            upper: true,
            trans: GemvTrans::C,
            unit: true,
            dtype: DType::C32,
            n: 100,
            storage: Storage::Packed,
            band: 0,
            a: Matrix {
                slot: 0,
                address: 0,
                lda: 0,
            },
            x: Vector {
                slot: 1,
                address: 0,
                inc: 1,
            },
        };
        let plan = plan_trsv_block(&p, 64, &target).unwrap();
        plan.check(&target).unwrap();
        let s = &plan.steps[0];
        assert_eq!(s.config.block, [p.block_order() as u32, 1, 1]);
        assert_eq!(s.args[1], Arg::Value(Value::U64(64)));
        // The packed triangle: 100·101/2 elements of 8 bytes.
        assert_eq!(
            s.args[2],
            Arg::Buffer {
                slot: 0,
                offset_bytes: 0,
                touched: 0..5050 * 8,
                access: Access::Read
            }
        );
        let flags = TRSV_UPPER | TRSV_UNIT | TRSV_TRANS | TRSV_CONJ;
        assert_eq!(s.args[6], Arg::Value(Value::U32(flags)));
        assert!(matches!(
            plan_trsv_block(&p, 100, &target),
            Err(Error::InvalidArgument { .. })
        ));
        // 2²⁸ elements of 8 bytes per step: 2³¹ bytes.
        p.x.inc = 1 << 28;
        assert!(matches!(
            plan_trsv_block(&p, 0, &target),
            Err(Error::Unsupported { .. })
        ));
    }
}
