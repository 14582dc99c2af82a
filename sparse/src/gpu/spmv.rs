//! CSR SpMV on GPUs, `y = alpha·A·x + beta·y` (op N): two kernels written once in the
//! kernel language and a plan that picks one from the row-length statistics.
//!
//! - **Vector** ([`Kernel::Vector`]): a group of `group` lanes (a power of two, 1 up to
//!   the wave) per row; lane `l` sums the row's nonzeros `l, l + group, …` in order,
//!   then the group adds its partial sums by a butterfly of `shuffle_xor` (distances
//!   `group/2, …, 1`), so lane 0's sum has a fixed order. Short, uniform rows.
//! - **Workgroup per row** ([`Kernel::WorkgroupPerRow`]): a workgroup of
//!   [`WORKGROUP`] work-items per row, each summing a stride of the row, then
//!   [`workgroup_reduce`] (waves in order). Long rows.
//!
//! Both compute `alpha·sum` and, only where `beta ≠ 0`, add `beta·y` (so `beta = 0`
//! never reads `y`, and NaNs in it do not propagate). Results are deterministic: the
//! same matrix, kernel and target give the same bits every run.

use super::{index_scalar, value_scalar, DeviceCsr, RowStats};
use crate::scalar::{Index, Scalar};
use rocm_core::{BufferSlice, BufferSliceMut, DType, Error, LaunchConfig, Result, Stream, Target};
use rocm_kernels::exec::DeviceView;
use rocm_kernels::generator::{Generator, LaunchRule, Program};
use rocm_kernels::lang::examples::{reduce_scratch, workgroup_reduce};
use rocm_kernels::lang::{self, Access, Builder, KernelDef, Reduce, Scalar as LScalar, Type};
use rocm_kernels::plan::{Arg, Plan, ProgramRef, Step};
use rocm_kernels::signature::Value as ArgValue;
use serde::{Deserialize, Serialize};
use std::fmt;

const OP: &str = "sparse spmv";

/// Work-items per workgroup of both kernels.
pub const WORKGROUP: u32 = 256;

/// The kernel a plan runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum Kernel {
    /// `group` lanes per row (a power of two, at most the wave size).
    Vector { group: u32 },
    /// One workgroup of [`WORKGROUP`] work-items per row.
    WorkgroupPerRow,
}

impl fmt::Display for Kernel {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Kernel::Vector { group } => write!(f, "vector ({group} lanes per row)"),
            Kernel::WorkgroupPerRow => write!(f, "workgroup per row ({WORKGROUP} work-items)"),
        }
    }
}

/// The analysis's rule: rows whose mean length is at least `workgroup_mean_factor ×
/// wave` nonzeros get a workgroup each; shorter rows get the largest power-of-two
/// group not above their mean length (at least 1, at most the wave).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Tuning {
    pub workgroup_mean_factor: f64,
}

impl Default for Tuning {
    /// A workgroup per row once the rows average four waves' worth of nonzeros: below
    /// that most of a workgroup's work-items would have one nonzero or none.
    fn default() -> Self {
        Tuning {
            workgroup_mean_factor: 4.0,
        }
    }
}

impl Tuning {
    /// The kernel for rows with statistics `s` on a target of wave size `wave`.
    pub fn choose(&self, s: &RowStats, wave: u32) -> Kernel {
        let mean = s.mean_len();
        if mean >= self.workgroup_mean_factor * wave as f64 {
            return Kernel::WorkgroupPerRow;
        }
        let mut group = 1u32;
        while group < wave && (2 * group) as f64 <= mean {
            group *= 2;
        }
        Kernel::Vector { group }
    }
}

/// One kernel variant.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Params {
    pub kernel: Kernel,
    pub value: DType,
    pub index: DType,
}

/// The generator of the SpMV kernels.
pub struct SpmvKernels;

impl Generator for SpmvKernels {
    type Params = Params;
    const NAME: &'static str = "sparse_spmv";
    const VERSION: u32 = 1;

    fn generate(p: &Params, target: &Target) -> Result<Program> {
        let def = kernel(p, target)?;
        lang::program(
            &[def],
            LaunchRule::Cover {
                block: WORKGROUP,
                units_per_item: 1,
            },
        )
    }
}

fn lang_of(d: DType) -> Result<LScalar> {
    match d {
        DType::F32 => Ok(LScalar::F32),
        DType::F64 => Ok(LScalar::F64),
        DType::I32 => Ok(LScalar::I32),
        DType::I64 => Ok(LScalar::I64),
        _ => Err(Error::unsupported(format!("{OP} with {d} data"), "gpu")),
    }
}

/// The kernel's name for `p`.
pub fn kernel_name(p: &Params) -> String {
    let k = match p.kernel {
        Kernel::Vector { group } => format!("vector{group}"),
        Kernel::WorkgroupPerRow => "workgroup".to_string(),
    };
    format!("csrmv_{k}_{}_{}", p.value, p.index)
}

/// The SpMV kernel of `p` for `target`. Parameters in order: `m: u32` rows, `alpha`,
/// `beta` (the value type), `row_ptr`, `col_idx` (the index type), `values`, `x`
/// (read), `y` (read and written).
pub fn kernel(p: &Params, target: &Target) -> Result<KernelDef> {
    let elem = lang_of(p.value)?;
    let index = lang_of(p.index)?;
    if !matches!(elem, LScalar::F32 | LScalar::F64) || !matches!(index, LScalar::I32 | LScalar::I64)
    {
        return Err(Error::invalid(
            "params",
            format!(
                "values {} and indices {} must be real and integer",
                p.value, p.index
            ),
        ));
    }
    let mut k = Builder::new(kernel_name(p), target)?;
    k.max_workgroup_size(WORKGROUP);
    if let Kernel::Vector { group } = p.kernel {
        if !group.is_power_of_two() || group > k.wave_size() {
            return Err(Error::invalid(
                "group",
                format!(
                    "{group} lanes per row must be a power of two at most the wave size {}",
                    k.wave_size()
                ),
            ));
        }
    }
    let m = k.param("m", LScalar::U32);
    let alpha = k.param("alpha", elem);
    let beta = k.param("beta", elem);
    let row_ptr = k.ptr("row_ptr", index, Access::Read);
    let col_idx = k.ptr("col_idx", index, Access::Read);
    let values = k.ptr("values", elem, Access::Read);
    let x = k.ptr("x", elem, Access::Read);
    let y = k.ptr("y", elem, Access::ReadWrite);
    let zero = k.constant(Type::of(elem), 0.0);
    let rows = Rows {
        row_ptr,
        col_idx,
        values,
        x,
    };
    match p.kernel {
        Kernel::Vector { group } => {
            let gid = k.global_id();
            let row = k.shr(gid, group.trailing_zeros());
            let lane = k.and(gid, group - 1);
            let inside = k.lt(row, m);
            let (start, end) = (k.var(0u64), k.var(0u64));
            k.if_(inside, |k| {
                let (s, e) = rows.bounds(k, row);
                k.set(start, s);
                k.set(end, e);
            });
            let s = k.get(start);
            let lane64 = k.convert(lane, LScalar::U64);
            let first = k.add(s, lane64);
            let e = k.get(end);
            let acc = rows.sum(&mut k, first, e, group as u64, zero);
            let mut sum = acc;
            let mut dist = group / 2;
            while dist > 0 {
                let other = k.shuffle_xor(sum, dist);
                sum = k.add(sum, other);
                dist /= 2;
            }
            let lead = k.eq(lane, 0u32);
            let writes = k.and(inside, lead);
            k.if_(writes, |k| store(k, y, row, alpha, beta, sum, zero));
        }
        Kernel::WorkgroupPerRow => {
            let scratch = reduce_scratch(&mut k, elem);
            let row = k.workgroup_id();
            let tid = k.thread_id();
            let (s, e) = rows.bounds(&mut k, row);
            let tid64 = k.convert(tid, LScalar::U64);
            let first = k.add(s, tid64);
            let acc = rows.sum(&mut k, first, e, WORKGROUP as u64, zero);
            let total = workgroup_reduce(&mut k, Reduce::Add, acc, scratch);
            let lead = k.eq(tid, 0u32);
            k.if_(lead, |k| store(k, y, row, alpha, beta, total, zero));
        }
    }
    k.finish()
}

/// The matrix and `x` as a kernel sees them.
#[derive(Clone, Copy)]
struct Rows {
    row_ptr: lang::Buf,
    col_idx: lang::Buf,
    values: lang::Buf,
    x: lang::Buf,
}

impl Rows {
    /// Row `row`'s nonzero range as u64 positions.
    fn bounds(self, k: &mut Builder, row: lang::Value) -> (lang::Value, lang::Value) {
        let o = k.at(self.row_ptr, row);
        let s = k.load(self.row_ptr, o);
        let next = k.add(row, 1u32);
        let o = k.at(self.row_ptr, next);
        let e = k.load(self.row_ptr, o);
        (position(k, s), position(k, e))
    }

    /// `Σ values[q]·x[col_idx[q]]` for `q = first, first + step, … < end`, in order.
    fn sum(
        self,
        k: &mut Builder,
        first: lang::Value,
        end: lang::Value,
        step: u64,
        zero: lang::Value,
    ) -> lang::Value {
        let acc = k.var(zero);
        k.for_range(first, end, step, |k, q| {
            let o = k.at(self.col_idx, q);
            let j = k.load(self.col_idx, o);
            let j = position(k, j);
            let o = k.at(self.values, q);
            let a = k.load(self.values, o);
            let o = k.at(self.x, j);
            let xv = k.load(self.x, o);
            let s = k.get(acc);
            let s = k.fma(a, xv, s);
            k.set(acc, s);
        });
        k.get(acc)
    }
}

/// A loaded index (validated non-negative) as a u64 position.
fn position(k: &mut Builder, i: lang::Value) -> lang::Value {
    if i.ty == Type::I32 {
        let u = k.bitcast(i, Type::U32);
        k.convert(u, LScalar::U64)
    } else {
        k.bitcast(i, Type::U64)
    }
}

/// `y[row] = alpha·sum (+ beta·y[row] where beta ≠ 0)`.
fn store(
    k: &mut Builder,
    y: lang::Buf,
    row: lang::Value,
    alpha: lang::Value,
    beta: lang::Value,
    sum: lang::Value,
    zero: lang::Value,
) {
    let r = k.mul(alpha, sum);
    let out = k.var(r);
    let o = k.at(y, row);
    let skips = k.eq(beta, zero);
    k.if_else(
        skips,
        |_| {},
        |k| {
            let old = k.load(y, o);
            let v = k.fma(beta, old, r);
            k.set(out, v);
        },
    );
    let v = k.get(out);
    k.store(y, o, v);
}

/// The analysis of one matrix's structure for SpMV: its statistics and the kernel
/// chosen for a target.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Analysis {
    pub stats: RowStats,
    pub wave: u32,
    pub kernel: Kernel,
}

impl fmt::Display for Analysis {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let s = &self.stats;
        write!(
            f,
            "rows {} nnz {} mean row {:.2} longest row {} empty rows {}; wave {}; kernel {}",
            s.rows,
            s.nnz,
            s.mean_len(),
            s.max_len,
            s.empty_rows,
            self.wave,
            self.kernel
        )
    }
}

/// CSR SpMV in rocSPARSE's staged style: [`CsrSpmv::analysis`] once per structure,
/// [`CsrSpmv::compute`] any number of times.
#[derive(Debug, Clone)]
pub struct CsrSpmv {
    analysis: Analysis,
    ncols: usize,
    value: DType,
    index: DType,
}

impl CsrSpmv {
    /// Analyses `a` for its device's target with the default [`Tuning`].
    pub fn analysis<I: Index, T: Scalar>(a: &DeviceCsr<I, T>) -> Result<Self> {
        Self::analysis_with(a, &Tuning::default())
    }

    pub fn analysis_with<I: Index, T: Scalar>(
        a: &DeviceCsr<I, T>,
        tuning: &Tuning,
    ) -> Result<Self> {
        let wave = a.device().target().caps().wave_size();
        let kernel = tuning.choose(&a.stats(), wave);
        Self::with_kernel(a, kernel)
    }

    /// A plan running `kernel` whatever the statistics say (tests, benchmarks).
    pub fn with_kernel<I: Index, T: Scalar>(a: &DeviceCsr<I, T>, kernel: Kernel) -> Result<Self> {
        value_scalar::<T>(OP)?;
        let wave = a.device().target().caps().wave_size();
        if let Kernel::Vector { group } = kernel {
            rocm_core::ensure_arg!(
                group.is_power_of_two() && group <= wave,
                "group",
                "{group} lanes per row must be a power of two at most the wave size {wave}"
            );
        }
        let s = a.stats();
        let items = match kernel {
            Kernel::Vector { group } => s.rows.checked_mul(group as usize),
            Kernel::WorkgroupPerRow => s.rows.checked_mul(WORKGROUP as usize),
        };
        let fits = s.rows <= i32::MAX as usize && items.is_some_and(|n| n <= u32::MAX as usize);
        rocm_core::ensure_arg!(
            fits,
            "matrix",
            "{} rows with {kernel} need more work-items than one launch has",
            s.rows
        );
        let _ = index_scalar::<I>();
        Ok(CsrSpmv {
            analysis: Analysis {
                stats: s,
                wave,
                kernel,
            },
            ncols: a.ncols(),
            value: T::DTYPE,
            index: I::DTYPE,
        })
    }

    pub fn analysis_result(&self) -> &Analysis {
        &self.analysis
    }

    /// The plan of one product: one launch (none for a matrix without rows). Slots: 0
    /// `row_ptr`, 1 `col_idx`, 2 `values`, 3 `x`, 4 `y`.
    pub fn plan(&self, target: &Target, alpha: f64, beta: f64) -> Result<Plan> {
        let s = &self.analysis.stats;
        if s.rows == 0 {
            return Ok(Plan::default());
        }
        let params = Params {
            kernel: self.analysis.kernel,
            value: self.value,
            index: self.index,
        };
        let es = self.value.size() as u64;
        let is = self.index.size() as u64;
        let program = ProgramRef::of::<SpmvKernels>(params);
        let sig = program
            .signatures(target)?
            .into_iter()
            .next()
            .ok_or_else(|| Error::invalid("plan", "the SpMV program declares no kernel"))?;
        let real = |v: f64| match self.value {
            DType::F64 => ArgValue::F64(v),
            _ => ArgValue::F32(v as f32),
        };
        let buf = |slot: usize, bytes: u64, access: Access| Arg::Buffer {
            slot,
            offset_bytes: 0,
            touched: 0..bytes,
            access,
        };
        let (rows, nnz) = (s.rows as u64, s.nnz as u64);
        let bindings = vec![
            ("m", Arg::Value(ArgValue::U32(s.rows as u32))),
            ("alpha", Arg::Value(real(alpha))),
            ("beta", Arg::Value(real(beta))),
            ("row_ptr", buf(0, (rows + 1) * is, Access::Read)),
            ("col_idx", buf(1, nnz * is, Access::Read)),
            ("values", buf(2, nnz * es, Access::Read)),
            ("x", buf(3, self.ncols as u64 * es, Access::Read)),
            ("y", buf(4, rows * es, Access::ReadWrite)),
        ];
        let config = match self.analysis.kernel {
            Kernel::Vector { group } => LaunchConfig::linear(
                (rows * group as u64).div_ceil(WORKGROUP as u64) as u32,
                WORKGROUP,
            ),
            Kernel::WorkgroupPerRow => LaunchConfig::linear(s.rows as u32, WORKGROUP),
        };
        let step = Step::bind(program, sig, config, bindings)?;
        Ok(Plan {
            steps: vec![step],
            workspace_bytes: 0,
        })
    }

    /// `y = alpha·A·x + beta·y` on `stream` (queued). `a` must be the matrix analysed
    /// (same shape and structure statistics), `x` of length `ncols`, `y` of `nrows`, all
    /// on the stream's device.
    #[allow(clippy::too_many_arguments)]
    pub fn compute<I: Index, T: Scalar>(
        &self,
        stream: &Stream,
        alpha: T,
        a: &DeviceCsr<I, T>,
        x: &BufferSlice<'_, T>,
        beta: T,
        y: &mut BufferSliceMut<'_, T>,
    ) -> Result<()> {
        rocm_core::ensure_arg!(
            a.stats() == self.analysis.stats
                && a.ncols() == self.ncols
                && T::DTYPE == self.value
                && I::DTYPE == self.index,
            "matrix",
            "is not the one analysed ({} rows, {} nnz, {} columns)",
            self.analysis.stats.rows,
            self.analysis.stats.nnz,
            self.ncols
        );
        rocm_core::ensure_arg!(
            x.len() == a.ncols(),
            "x",
            "length {} != {} columns",
            x.len(),
            a.ncols()
        );
        rocm_core::ensure_arg!(
            y.len() == a.nrows(),
            "y",
            "length {} != {} rows",
            y.len(),
            a.nrows()
        );
        let real = |v: T| rocm_core::Real::as_f64(v.re());
        let plan = self.plan(stream.device().target(), real(alpha), real(beta))?;
        let (ptr, idx, vals) = (a.row_ptr(), a.col_idx(), a.values());
        let views = [
            DeviceView::read(&ptr),
            DeviceView::read(&idx),
            DeviceView::read(&vals),
            DeviceView::read(x),
            DeviceView::write(y),
        ];
        rocm_kernels::exec::execute(&plan, stream, &views, None)
    }
}
