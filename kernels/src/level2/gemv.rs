//! gemv: y = α·op(A)·x + β·y, A column-major m×n with leading dimension `lda`, op(A) =
//! A (`N`), Aᵀ (`T`) or Aᴴ (`C`), for f32, f64, Complex32 and Complex64 (PTX).
//!
//! The matrix is the whole cost (m·n elements read once; x and y are m + n), so both
//! shapes are built to stream A at full bandwidth with every warp access coalesced:
//!
//! - `N` (y has m entries): a work-item owns `rows` rows, `block` apart (a warp reads 32
//!   consecutive entries of a column per load), and walks its columns `cols` at a time,
//!   so `rows·cols` loads of A are in flight per work-item; the x entry of a column is the
//!   same address for the whole warp (one broadcast transaction). The columns are split
//!   into `gridDim.y` contiguous chunks; with `split` the kernel writes one partial per
//!   (chunk, row) to a workspace (compute type, chunk-major) and the second kernel,
//!   `rocm_blas_gemv_finish`, sums the chunks of each row in chunk order and applies α and
//!   β. A 16384² matrix thus runs as 32 row blocks × 17 chunks instead of 32 workgroups.
//!   On targets with dependent launches (sm_90) the main kernel lets the finish kernel be
//!   scheduled at once (`griddepcontrol.launch_dependents`) and the finish kernel waits
//!   for the partials on the device (`griddepcontrol.wait`), so its launch overlaps the
//!   main kernel: f64 16384² 0.999-1.001x cuBLAS → 1.001-1.003x (H100, session 16).
//! - `T`/`C` (y has n entries): a group of `warps_per_column` warps (G = 32·that
//!   work-items) per column; rank r of the group reads rows r, r + G, ... (`rows` loads
//!   in flight per step, `vector` rows per load), accumulates in order, each warp adds
//!   its lanes with a shuffle tree of fixed shape, and (G > 32) rank 0 adds the warps'
//!   sums from shared memory in warp order; rank 0 applies α and β. One group reading a
//!   column as one stream (16 warps × 16-byte loads: 8 KiB per step) keeps fewer DRAM
//!   pages open at a time than 16 warps on 16 columns: f64 16384² read at 3126 GB/s
//!   against 3050 GB/s with one warp per column on an H100 (2026-11-27 probe, session 15).
//!
//! Every sum is therefore evaluated in an order fixed by the shape and the launch: results
//! are the same run to run. Error bound (u = unit roundoff of the dtype): each output is a
//! sum of its terms in at most (terms per work-item + 5 shuffle levels + chunks or
//! warps per column) additions after one rounding per product, so |error| ≤ (k + 2)·u·Σ|a||x| + u·|β·y| with
//! k = m or n (complex: twice that, a complex product being four fmas).
//!
//! β = 0 (`read_y = false`) never reads y (NaN in y does not propagate, as BLAS requires).
//! Increments may be negative: the host passes x and y as the address of *logical*
//! element 0 (the far end of the storage for a negative increment) and the kernel
//! multiplies the signed increment.
//!
//! Kernel parameters, in order (scalars are reals of the dtype, complex re then im):
//! - `rocm_blas_gemv`: `m: u64, n: u64, a: u64, lda: u64, x: u64, incx: s64`, then without
//!   `split` `y: u64, incy: s64, alpha.., [beta..]`, with `split` `work: u64`.
//! - `rocm_blas_gemv_finish` (only with `split`): `m: u64, chunks: u64, work: u64, y: u64,
//!   incy: s64, alpha.., [beta..]`.
//!
//! Launch: `N` grid (⌈m / (block·rows·vector)⌉, chunks), finish grid ⌈m / block⌉; `T`/`C` grid
//! ⌈n / (block / (32·warps_per_column))⌉ ([`GemvParams::outputs_per_group`]). Without `split` `N` must be launched with one chunk.

use super::element::{ctaid_y, epilogue, nctaid_y, scalar_params, El};
use crate::generator::{Generator, LaunchRule, Program};
use crate::ptx::{Cmp, KernelBuilder, LoadCache, Module, Reg, Special, Ty};
use crate::signature::Signature;
use rocm_core::target::KernelIsa;
use rocm_core::{DType, Error, ModuleImage, Result, Target};

/// op(A).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub enum GemvTrans {
    N,
    T,
    C,
}

/// One gemv kernel variant.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct GemvParams {
    pub dtype: DType,
    pub trans: GemvTrans,
    /// Work-items per workgroup (a multiple of 32, at most 1024).
    pub block: u32,
    /// `N`: rows per work-item; `T`/`C`: loads of A per lane per step (1..=8).
    pub rows: u32,
    /// `N`: columns per loop step (1..=8); ignored by `T`/`C`.
    pub cols: u32,
    /// `N` only: split the columns over `gridDim.y` chunks through the workspace.
    pub split: bool,
    /// Whether β ≠ 0 (y is read).
    pub read_y: bool,
    /// Elements per lane load (1, 2 or 4; at most 16 bytes): `N` consecutive rows of a
    /// column (above 1 the host guarantees m a multiple of it and A and every column
    /// start aligned to the load), `T`/`C` consecutive rows of A and x (above 1 the host
    /// guarantees incx = 1, and A, x and every column start aligned to the load).
    #[serde(default = "one")]
    pub vector: u32,
    /// `T`/`C` only: warps that share one column (1, 2, 4, 8, 16 or 32; `block` a
    /// multiple of 32 × this). Above 1 the group's work-items read the column as one
    /// stream, each step 32·warps·vector consecutive rows, and the warps' partial sums
    /// meet in shared memory behind the group's own named barrier.
    #[serde(default = "one")]
    pub warps_per_column: u32,
}

fn one() -> u32 {
    1
}

/// Host-side overrides of a gemv launch (the bench's sweep); `None` fields keep the
/// fallback's shape and the host's chunk rule.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct GemvTuning {
    pub block: Option<u32>,
    pub rows: Option<u32>,
    pub cols: Option<u32>,
    /// `N`: column chunks (1 = no split); default: the fill rule above.
    pub chunks: Option<u32>,
    /// Elements per lane load; used only where the views allow it (A and lda aligned;
    /// `N`: m a multiple of it; `T`/`C`: incx = 1 and x aligned), otherwise 1.
    pub vector: Option<u32>,
    /// `T`/`C`: warps per column.
    pub warps_per_column: Option<u32>,
}

/// The dtypes the generator covers.
pub const DTYPES: [DType; 4] = [DType::F32, DType::F64, DType::C32, DType::C64];

/// Name of the main kernel.
pub const KERNEL: &str = "rocm_blas_gemv";
/// Name of the split-N second pass.
pub const FINISH: &str = "rocm_blas_gemv_finish";

impl GemvParams {
    /// The untuned default: N 256 work-items × 2 rows × 4 columns per step, split; T/C
    /// 256 work-items (8 columns per workgroup), 4 loads per lane in flight.
    pub fn fallback(dtype: DType, trans: GemvTrans, read_y: bool) -> Self {
        GemvParams {
            dtype,
            trans,
            block: 256,
            rows: if trans == GemvTrans::N { 2 } else { 4 },
            cols: 4,
            split: trans == GemvTrans::N,
            read_y,
            vector: 1,
            warps_per_column: 1,
        }
    }

    /// Catalog key: `gemv/<dtype>/<n|t|c>`.
    pub fn key(dtype: DType, trans: GemvTrans) -> String {
        format!("gemv/{dtype}/{}", format!("{trans:?}").to_lowercase())
    }

    /// Rows (`N`) or columns (`T`/`C`) of y one workgroup produces (0 for shapes that
    /// fail validation, e.g. a block smaller than its column group).
    pub fn outputs_per_group(&self) -> u32 {
        match self.trans {
            GemvTrans::N => self
                .block
                .saturating_mul(self.rows)
                .saturating_mul(self.vector),
            _ => self.block / 32u32.saturating_mul(self.warps_per_column).max(1),
        }
    }

    /// Whether the launch uses the finish kernel and a workspace.
    pub fn splits(&self) -> bool {
        self.split && self.trans == GemvTrans::N
    }

    fn validate(&self) -> Result<()> {
        if !DTYPES.contains(&self.dtype) {
            return Err(Error::unsupported(
                format!("gemv kernels for {}", self.dtype),
                "PTX",
            ));
        }
        if self.block == 0 || self.block % 32 != 0 || self.block > 1024 {
            return Err(Error::invalid(
                "block",
                format!("{} is not a multiple of 32 in 32..=1024", self.block),
            ));
        }
        let el = El::of(self.dtype);
        let w = self.vector;
        if !matches!(w, 1 | 2 | 4) || w * el.comps > 4 || w as i64 * el.bytes() > 16 {
            return Err(Error::invalid(
                "vector",
                format!(
                    "{w} elements of {} per load (1, 2 or 4, at most 16 bytes)",
                    self.dtype
                ),
            ));
        }
        let wpc = self.warps_per_column;
        if !wpc.is_power_of_two()
            || wpc > 32
            || (wpc > 1 && self.trans == GemvTrans::N)
            || self.block % (32 * wpc) != 0
        {
            return Err(Error::invalid(
                "warps_per_column",
                format!(
                    "{wpc} warps per column with {} work-items (a power of two ≤ 32 \
                     dividing block / 32, T/C only)",
                    self.block
                ),
            ));
        }
        for (name, v) in [("rows", self.rows), ("cols", self.cols)] {
            if !(1..=8).contains(&v) {
                return Err(Error::invalid(name, format!("{v} is not in 1..=8")));
            }
        }
        Ok(())
    }
}

/// The gemv generator.
pub struct Gemv;

impl Generator for Gemv {
    type Params = GemvParams;
    const NAME: &'static str = "gemv";
    const VERSION: u32 = 4;

    fn generate(p: &GemvParams, target: &Target) -> Result<Program> {
        p.validate()?;
        if target.caps().kernel_isa == KernelIsa::Amdgpu {
            return crate::amdgpu::level2::gemv::program(p, target);
        }
        let mut module = Module::for_kernels(target, format!("gemv kernels for {}", p.dtype))?;
        let signatures = super::signatures::gemv(p, false);
        // Where the target has dependent launches the host starts the finish kernel that
        // way: it is scheduled while the main kernel still runs and waits for it on the
        // device, which hides its launch (H100 16384² f64: see `build_finish`).
        let dependent = p.splits() && target.caps().dependent_launch;
        module.push(&match p.trans {
            GemvTrans::N => build_n(p, dependent, &signatures[0])?,
            _ => build_t(p, &signatures[0])?,
        });
        if let Some(finish) = signatures.get(1) {
            module.push(&build_finish(p, dependent, finish)?);
        }
        Ok(Program {
            image: ModuleImage::Ptx(module.text()),
            kernels: signatures.iter().map(|s| s.kernel.clone()).collect(),
            signatures,
            launch: LaunchRule::Cover {
                block: p.block,
                units_per_item: 1,
            },
        })
    }
}

/// Above 256 threads a block gets fewer than ptxas's default 255 registers per thread
/// (65536 / block), and `N`'s rows × columns of loads in flight can need more: there
/// `.maxntid` makes ptxas keep within the limit, so every shape launches (512 × 8 rows ×
/// 8 columns of f64 failed with too many resources without it). `T`/`C` keep at most
/// 32 registers of loads in flight and take the limit only at 1024 threads (64
/// registers): declared at 512 it changed ptxas's schedule, f64 T 512 × 8 rows ran
/// 0.682 ms against 0.676 ms (H100, bench/results/2026-11-27-h100-session15.txt).
fn register_limit(k: &mut KernelBuilder, p: &GemvParams) {
    let above = if p.trans == GemvTrans::N { 256 } else { 512 };
    if p.block > above {
        k.max_threads(p.block);
    }
}

/// `N`: rows per work-item, columns per step, chunks over gridDim.y. With `dependent`
/// every workgroup lets the finish kernel be scheduled as it starts.
fn build_n(p: &GemvParams, dependent: bool, sig: &Signature) -> Result<KernelBuilder> {
    let el = El::of(p.dtype);
    let eb = el.bytes();
    let (mut k, params) = KernelBuilder::from_signature(sig);
    register_limit(&mut k, p);
    let pm = params.get("m")?.clone();
    let pn = params.get("n")?.clone();
    let pa = params.get("a")?.clone();
    let plda = params.get("lda")?.clone();
    let px = params.get("x")?.clone();
    let pincx = params.get("incx")?.clone();
    let (tail_params, work_param) = if p.split {
        (None, Some(params.get("work")?.clone()))
    } else {
        let py = params.get("y")?.clone();
        let pincy = params.get("incy")?.clone();
        let alpha = scalar_params(&params, el, "alpha")?;
        let beta = p
            .read_y
            .then(|| scalar_params(&params, el, "beta"))
            .transpose()?;
        (Some((py, pincy, alpha, beta)), None)
    };

    if dependent {
        k.griddep_launch_dependents();
    }
    let m = k.ld_param(&pm);
    let n = k.ld_param(&pn);
    let a = k.ld_param_global_ptr(&pa);
    let lda = k.ld_param(&plda);
    let x = k.ld_param_global_ptr(&px);
    let incx = k.ld_param(&pincx);

    // Column chunk [j0, j1) of this workgroup.
    let cy = ctaid_y(&mut k);
    let ny = nctaid_y(&mut k);
    let cy64 = k.cvt(Ty::U64, cy);
    let ny64 = k.cvt(Ty::U64, ny);
    let nm1 = k.add(Ty::U64, n, ny64);
    let nm1 = k.sub(Ty::U64, nm1, 1i64);
    let chunk = k.div(Ty::U64, nm1, ny64);
    let j0 = k.mul(Ty::U64, cy64, chunk);
    let j0 = k.min(Ty::U64, j0, n);
    let j1 = k.add(Ty::U64, j0, chunk);
    let j1 = k.min(Ty::U64, j1, n);

    // Rows of this work-item: w = `vector` consecutive rows from base + (i·block + tid)·w
    // for each of its `rows` slots i; loads start at rows clamped to m − w (only rows
    // < m are stored, so a clamped slot's sums are simply discarded; the host passes m
    // a multiple of w).
    let w = p.vector;
    let tid = k.special(Special::TidX);
    let cx = k.special(Special::CtaidX);
    let base = k.mul_wide_u32(cx, p.block * p.rows * w);
    let tid64 = k.cvt(Ty::U64, tid);
    let row0 = k.fma(Ty::U64, tid64, w as i64, base);
    let last = k.sub(Ty::U64, m, w as i64);
    let rows: Vec<Reg> = (0..p.rows)
        .map(|i| k.add(Ty::U64, row0, (i * p.block * w) as i64))
        .collect();
    let row_addr: Vec<Reg> = rows
        .iter()
        .map(|r| {
            let c = k.min(Ty::U64, *r, last);
            k.fma(Ty::U64, c, eb, a)
        })
        .collect();
    let ldab = k.mul(Ty::U64, lda, eb);
    let incxb = k.mul(Ty::S64, incx, eb);

    // Running column offset (bytes into A) and x address of column j.
    let j = k.mov(Ty::U64, j0);
    let coff = k.mul(Ty::U64, j0, ldab);
    let xj_off = k.mul(Ty::S64, j0, incxb);
    let pxj = k.add(Ty::U64, x, xj_off);
    // Loop-carried accumulators, slot-major then row within the slot (`el.zero` gives
    // each its own register).
    let acc: Vec<Vec<Reg>> = (0..p.rows * w).map(|_| el.zero(&mut k)).collect();
    let c = el.comps as usize;

    let step = |k: &mut KernelBuilder, ncols: u32| {
        let xs: Vec<Vec<Reg>> = (0..ncols)
            .map(|c| {
                let off = k.mul(Ty::S64, incxb, c as i64);
                let addr = k.add(Ty::U64, pxj, off);
                el.load(k, addr)
            })
            .collect();
        let cols: Vec<Reg> = (0..ncols)
            .map(|c| k.fma(Ty::U64, ldab, c as i64, coff))
            .collect();
        // One load of w·comps values per (slot, column).
        let avs: Vec<Vec<Vec<Reg>>> = row_addr
            .iter()
            .map(|ra| {
                cols.iter()
                    .map(|co| {
                        let addr = k.add(Ty::U64, *ra, *co);
                        k.ld_global(el.rt, w * el.comps, addr, 0, LoadCache::NonCoherent)
                    })
                    .collect()
            })
            .collect();
        for (i, slot) in avs.iter().enumerate() {
            for e in 0..w as usize {
                let a = &acc[i * w as usize + e];
                let mut s = a.clone();
                for (col, av) in slot.iter().enumerate() {
                    s = el.fma(k, &av[e * c..(e + 1) * c], &xs[col], &s, false);
                }
                for (dst, v) in a.iter().zip(&s) {
                    k.assign(*dst, *v);
                }
            }
        }
        let adv = k.mul(Ty::U64, ldab, ncols as i64);
        k.add_to(coff, adv);
        let advx = k.mul(Ty::S64, incxb, ncols as i64);
        k.add_to(pxj, advx);
        k.add_to(j, ncols as i64);
    };

    let main = k.label();
    let tail = k.label();
    let done = k.label();
    k.place(main);
    let jn = k.add(Ty::U64, j, p.cols as i64);
    let over = k.setp(Cmp::Gt, Ty::U64, jn, j1);
    k.bra_if(over, false, tail);
    step(&mut k, p.cols);
    k.bra(main);
    k.place(tail);
    let fin = k.setp(Cmp::Ge, Ty::U64, j, j1);
    k.bra_if(fin, false, done);
    step(&mut k, 1);
    k.bra(tail);
    k.place(done);

    // Store each row < m.
    let out = match &tail_params {
        Some((py, pincy, alpha, beta)) => {
            let y = k.ld_param_global_ptr(py);
            let incy = k.ld_param(pincy);
            let incyb = k.mul(Ty::S64, incy, eb);
            let alpha: Vec<Reg> = alpha.iter().map(|q| k.ld_param(q)).collect();
            let beta: Option<Vec<Reg>> = beta
                .as_ref()
                .map(|b| b.iter().map(|q| k.ld_param(q)).collect());
            Out::Y {
                y,
                incyb,
                alpha,
                beta,
            }
        }
        None => {
            let work = k.ld_param_global_ptr(work_param.as_ref().expect("split has work"));
            let wrow = k.mul(Ty::U64, cy64, m);
            let wbase = k.fma(Ty::U64, wrow, eb, work);
            Out::Work { wbase }
        }
    };
    for (i, r0) in rows.iter().enumerate() {
        let skip = k.label();
        // The slot's w rows are all below m or all past it (m a multiple of w).
        let outside = k.setp(Cmp::Ge, Ty::U64, *r0, m);
        k.bra_if(outside, false, skip);
        for e in 0..w as usize {
            let r = &k.add(Ty::U64, *r0, e as i64);
            let acc_i = &acc[i * w as usize + e];
            match &out {
                Out::Y {
                    y,
                    incyb,
                    alpha,
                    beta,
                } => {
                    let off = k.mul(Ty::S64, *r, *incyb);
                    let py = k.add(Ty::U64, *y, off);
                    epilogue(&mut k, el, acc_i, py, alpha, beta.as_deref());
                }
                Out::Work { wbase } => {
                    let addr = k.fma(Ty::U64, *r, eb, *wbase);
                    k.st_global(addr, 0, acc_i);
                }
            }
        }
        k.place(skip);
    }
    k.ret();
    Ok(k)
}

enum Out {
    Y {
        y: Reg,
        incyb: Reg,
        alpha: Vec<Reg>,
        beta: Option<Vec<Reg>>,
    },
    Work {
        wbase: Reg,
    },
}

/// Chunk partials the finish kernel loads at once. The pass is latency-bound (a 16384²
/// f64 split leaves 17 chunks × 16384 rows, 2.4 MB, for 16384 work-items): one load at a
/// time took 5.6 µs on an H100, eight 4.9 µs (bench/results/2026-11-27-h100-session16.txt;
/// 64-thread workgroups did no better).
const FINISH_BATCH: u32 = 8;

/// Split `N`'s second pass: one work-item per row sums the chunks in order, loading
/// [`FINISH_BATCH`] of them at a time. With `dependent` (launched while the main kernel
/// runs) it first waits for the main kernel's partials (`griddepcontrol.wait`).
fn build_finish(p: &GemvParams, dependent: bool, sig: &Signature) -> Result<KernelBuilder> {
    let el = El::of(p.dtype);
    let eb = el.bytes();
    let (mut k, params) = KernelBuilder::from_signature(sig);
    register_limit(&mut k, p);
    let pm = params.get("m")?.clone();
    let pchunks = params.get("chunks")?.clone();
    let pwork = params.get("work")?.clone();
    let py = params.get("y")?.clone();
    let pincy = params.get("incy")?.clone();
    let palpha = scalar_params(&params, el, "alpha")?;
    let pbeta = p
        .read_y
        .then(|| scalar_params(&params, el, "beta"))
        .transpose()?;

    if dependent {
        k.griddep_wait();
    }
    let m = k.ld_param(&pm);
    let chunks = k.ld_param(&pchunks);
    let work = k.ld_param_global_ptr(&pwork);
    let tid = k.special(Special::TidX);
    let cx = k.special(Special::CtaidX);
    let base = k.mul_wide_u32(cx, p.block);
    let tid64 = k.cvt(Ty::U64, tid);
    let r = k.add(Ty::U64, base, tid64);
    let exit = k.label();
    let outside = k.setp(Cmp::Ge, Ty::U64, r, m);
    k.bra_if(outside, false, exit);

    let stride = k.mul(Ty::U64, m, eb);
    let addr = k.fma(Ty::U64, r, eb, work);
    let s = k.mov(Ty::U64, 0i64);
    let acc = el.zero(&mut k);
    // `count` chunks' partials loaded at once, then added in chunk order.
    let add_chunks = |k: &mut KernelBuilder, count: u32| {
        let vals: Vec<Vec<Reg>> = (0..count)
            .map(|b| {
                let off = k.mul(Ty::U64, stride, b as i64);
                let at = k.add(Ty::U64, addr, off);
                el.load_plain(k, at)
            })
            .collect();
        let mut sum = acc.clone();
        for v in &vals {
            sum = el.add(k, &sum, v);
        }
        for (dst, v) in acc.iter().zip(&sum) {
            k.assign(*dst, *v);
        }
        let adv = k.mul(Ty::U64, stride, count as i64);
        k.add_to(addr, adv);
        k.add_to(s, count as i64);
    };
    let batches = k.label();
    let singles = k.label();
    let done = k.label();
    k.place(batches);
    let next = k.add(Ty::U64, s, FINISH_BATCH as i64);
    let over = k.setp(Cmp::Gt, Ty::U64, next, chunks);
    k.bra_if(over, false, singles);
    add_chunks(&mut k, FINISH_BATCH);
    k.bra(batches);
    k.place(singles);
    let fin = k.setp(Cmp::Ge, Ty::U64, s, chunks);
    k.bra_if(fin, false, done);
    add_chunks(&mut k, 1);
    k.bra(singles);
    k.place(done);

    let y = k.ld_param_global_ptr(&py);
    let incy = k.ld_param(&pincy);
    let incyb = k.mul(Ty::S64, incy, eb);
    let off = k.mul(Ty::S64, r, incyb);
    let pyr = k.add(Ty::U64, y, off);
    let alpha: Vec<Reg> = palpha.iter().map(|q| k.ld_param(q)).collect();
    let beta: Option<Vec<Reg>> = pbeta.map(|b| b.iter().map(|q| k.ld_param(q)).collect());
    epilogue(&mut k, el, &acc, pyr, &alpha, beta.as_deref());
    k.place(exit);
    k.ret();
    Ok(k)
}

/// `T`/`C`: `warps_per_column` warps per column (a *group*), its work-items over rows,
/// a shuffle tree per warp, then (more than one warp) the warps' partials in order.
fn build_t(p: &GemvParams, sig: &Signature) -> Result<KernelBuilder> {
    let el = El::of(p.dtype);
    let eb = el.bytes();
    let conj = p.trans == GemvTrans::C;
    let (mut k, params) = KernelBuilder::from_signature(sig);
    register_limit(&mut k, p);
    let pm = params.get("m")?.clone();
    let pn = params.get("n")?.clone();
    let pa = params.get("a")?.clone();
    let plda = params.get("lda")?.clone();
    let px = params.get("x")?.clone();
    let pincx = params.get("incx")?.clone();
    let py = params.get("y")?.clone();
    let pincy = params.get("incy")?.clone();
    let palpha = scalar_params(&params, el, "alpha")?;
    let pbeta = p
        .read_y
        .then(|| scalar_params(&params, el, "beta"))
        .transpose()?;

    let m = k.ld_param(&pm);
    let n = k.ld_param(&pn);
    let a = k.ld_param_global_ptr(&pa);
    let lda = k.ld_param(&plda);
    let x = k.ld_param_global_ptr(&px);
    let incx = k.ld_param(&pincx);

    let wpc = p.warps_per_column;
    // Work-items of a group: the row stride of one load step.
    let gt = 32 * wpc;
    let tid = k.special(Special::TidX);
    let cx = k.special(Special::CtaidX);
    let group = k.shr(Ty::U32, tid, gt.trailing_zeros());
    let first = k.mul(Ty::U32, group, gt as i64);
    let rank = k.sub(Ty::U32, tid, first);
    let lane = k.special(Special::LaneId);
    let base = k.mul_wide_u32(cx, p.block / gt);
    let group64 = k.cvt(Ty::U64, group);
    let col = k.add(Ty::U64, base, group64);
    let exit = k.label();
    // Uniform per group: whole groups leave, so the shuffles below see full warps and
    // the group's barrier all of its warps.
    let outside = k.setp(Cmp::Ge, Ty::U64, col, n);
    k.bra_if(outside, false, exit);

    let ldab = k.mul(Ty::U64, lda, eb);
    let incxb = k.mul(Ty::S64, incx, eb);
    let colb = k.mul(Ty::U64, col, ldab);
    let ca = k.add(Ty::U64, a, colb);
    let row = k.cvt(Ty::U64, rank);
    // Running addresses of A(row, col) and x(row).
    let pa_r = k.fma(Ty::U64, row, eb, ca);
    let xoff = k.mul(Ty::S64, row, incxb);
    let px_r = k.add(Ty::U64, x, xoff);
    let acc = el.zero(&mut k);

    let step = |k: &mut KernelBuilder, loads: u32| {
        let mut pairs = Vec::new();
        for u in 0..loads {
            let aa = k.add(Ty::U64, pa_r, (u * gt) as i64 * eb);
            let xo = k.mul(Ty::S64, incxb, (u * gt) as i64);
            let xa = k.add(Ty::U64, px_r, xo);
            pairs.push((el.load(k, aa), el.load(k, xa)));
        }
        let mut s = acc.clone();
        for (av, xv) in &pairs {
            s = el.fma(k, av, xv, &s, conj);
        }
        for (dst, v) in acc.iter().zip(&s) {
            k.assign(*dst, *v);
        }
        k.add_to(row, (loads * gt) as i64);
        k.add_to(pa_r, (loads * gt) as i64 * eb);
        let adv = k.mul(Ty::S64, incxb, (loads * gt) as i64);
        k.add_to(px_r, adv);
    };

    if p.vector > 1 {
        // Whole spans of G·w·rows rows (G = 32·warps_per_column), group-uniform: rank r
        // loads w consecutive rows at span + (u·G + r)·w; the rows past the last whole
        // span go to the scalar loops below, starting at that span's end.
        let w = p.vector;
        let span = (gt * w * p.rows) as i64;
        let nspans = k.div(Ty::U64, m, span);
        let full = k.mul(Ty::U64, nspans, span);
        let lane_off = k.mul(Ty::U64, row, w as i64 * eb);
        let pa_v = k.add(Ty::U64, ca, lane_off);
        let px_v = k.add(Ty::U64, x, lane_off);
        let b = k.mov(Ty::U64, 0i64);
        let vloop = k.label();
        let vdone = k.label();
        k.place(vloop);
        let fin = k.setp(Cmp::Ge, Ty::U64, b, full);
        k.bra_if(fin, false, vdone);
        let mut pairs = Vec::new();
        for u in 0..p.rows {
            let off = (u * gt * w) as i64 * eb;
            let la = k.ld_global(el.rt, w * el.comps, pa_v, off, LoadCache::NonCoherent);
            let lx = k.ld_global(el.rt, w * el.comps, px_v, off, LoadCache::NonCoherent);
            pairs.push((la, lx));
        }
        let mut sacc = acc.clone();
        for (la, lx) in &pairs {
            for e in 0..w as usize {
                let c = el.comps as usize;
                sacc = el.fma(
                    &mut k,
                    &la[e * c..(e + 1) * c],
                    &lx[e * c..(e + 1) * c],
                    &sacc,
                    conj,
                );
            }
        }
        for (dst, v) in acc.iter().zip(&sacc) {
            k.assign(*dst, *v);
        }
        k.add_to(pa_v, span * eb);
        k.add_to(px_v, span * eb);
        k.add_to(b, span);
        k.bra(vloop);
        k.place(vdone);
        // Scalar rows from full + rank on (incx = 1 here).
        k.add_to(row, full);
        let fb = k.mul(Ty::U64, full, eb);
        k.add_to(pa_r, fb);
        k.add_to(px_r, fb);
    }

    let main = k.label();
    let tail = k.label();
    let reduce = k.label();
    k.place(main);
    // All `rows` loads of this step exist: row + G·(rows − 1) < m.
    let far = k.add(Ty::U64, row, ((p.rows - 1) * gt) as i64);
    let over = k.setp(Cmp::Ge, Ty::U64, far, m);
    k.bra_if(over, false, tail);
    step(&mut k, p.rows);
    k.bra(main);
    k.place(tail);
    let fin = k.setp(Cmp::Ge, Ty::U64, row, m);
    k.bra_if(fin, false, reduce);
    step(&mut k, 1);
    k.bra(tail);
    k.place(reduce);

    // Lane 0 ends with ((l0 + l16) + (l8 + l24)) + ...: a fixed tree.
    for d in [16, 8, 4, 2, 1] {
        let other: Vec<Reg> = acc.iter().map(|v| k.shfl_down(*v, d)).collect();
        let s = el.add(&mut k, &acc, &other);
        for (dst, v) in acc.iter().zip(&s) {
            k.assign(*dst, *v);
        }
    }
    if wpc > 1 {
        // Lane 0 of each warp publishes its warp's sum; after the group's barrier
        // (named barrier `group`, its 32·wpc work-items) rank 0 adds them in warp order.
        let slot_bytes = eb as u32;
        let partials = k.shared_array("gemv_partials", p.block / 32 * slot_bytes, 16);
        let warp = k.shr(Ty::U32, tid, 5);
        let slot = k.fma(Ty::U32, warp, slot_bytes as i64, partials);
        let skip = k.label();
        let not_lane0 = k.setp(Cmp::Ne, Ty::U32, lane, 0i64);
        k.bra_if(not_lane0, false, skip);
        let rb = el.rt.size() as i64;
        for (c, v) in acc.iter().enumerate() {
            k.st_shared(slot, c as i64 * rb, *v);
        }
        k.place(skip);
        k.emit(format!("bar.sync {group}, {gt}"));
        let not_first = k.setp(Cmp::Ne, Ty::U32, rank, 0i64);
        k.bra_if(not_first, false, exit);
        for q in 1..wpc {
            let other: Vec<Reg> = (0..el.comps)
                .map(|c| k.ld_shared(el.rt, slot, (q * slot_bytes) as i64 + c as i64 * rb))
                .collect();
            let s = el.add(&mut k, &acc, &other);
            for (dst, v) in acc.iter().zip(&s) {
                k.assign(*dst, *v);
            }
        }
    }
    let not_first = k.setp(Cmp::Ne, Ty::U32, lane, 0i64);
    k.bra_if(not_first, false, exit);
    let y = k.ld_param_global_ptr(&py);
    let incy = k.ld_param(&pincy);
    let incyb = k.mul(Ty::S64, incy, eb);
    let off = k.mul(Ty::S64, col, incyb);
    let pyc = k.add(Ty::U64, y, off);
    let alpha: Vec<Reg> = palpha.iter().map(|q| k.ld_param(q)).collect();
    let beta: Option<Vec<Reg>> = pbeta.map(|b| b.iter().map(|q| k.ld_param(q)).collect());
    epilogue(&mut k, el, &acc, pyc, &alpha, beta.as_deref());
    k.place(exit);
    k.ret();
    Ok(k)
}

/// Every variant the tests and the host use: each dtype × trans × β, fallback plus a
/// few shapes.
pub fn test_variants() -> Vec<GemvParams> {
    let mut v = Vec::new();
    for dtype in DTYPES {
        for trans in [GemvTrans::N, GemvTrans::T, GemvTrans::C] {
            for read_y in [false, true] {
                let f = GemvParams::fallback(dtype, trans, read_y);
                v.push(f.clone());
                v.push(GemvParams {
                    rows: 1,
                    cols: 1,
                    block: 64,
                    split: false,
                    ..f.clone()
                });
                v.push(GemvParams {
                    rows: 4,
                    cols: 8,
                    block: 128,
                    ..f.clone()
                });
                if trans != GemvTrans::N {
                    for (block, warps_per_column) in [(128, 2), (512, 16)] {
                        v.push(GemvParams {
                            block,
                            warps_per_column,
                            rows: 2,
                            ..f.clone()
                        });
                    }
                }
                for vector in [2, 4] {
                    let p = GemvParams {
                        vector,
                        rows: 8,
                        ..f.clone()
                    };
                    if p.validate().is_ok() {
                        v.push(p);
                    }
                }
            }
        }
    }
    v
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn variants_pass_ptxas_without_spills_or_warnings() {
        crate::ptxas::assert_clean::<Gemv>(&test_variants());
    }

    #[test]
    fn parameters_follow_the_documented_order() {
        let params = crate::generator::declared_params::<Gemv>;
        let head = [
            "u64 p_m",
            "u64 p_n",
            "u64 p_a",
            "u64 p_lda",
            "u64 p_x",
            "s64 p_incx",
        ];
        let split = GemvParams::fallback(DType::C32, GemvTrans::N, true);
        let want: Vec<String> = head
            .iter()
            .map(|s| s.to_string())
            .chain(["u64 p_work".into()])
            .chain(
                [
                    "u64 p_m",
                    "u64 p_chunks",
                    "u64 p_work",
                    "u64 p_y",
                    "s64 p_incy",
                    "f32 p_alpha0",
                    "f32 p_alpha1",
                    "f32 p_beta0",
                    "f32 p_beta1",
                ]
                .map(String::from),
            )
            .collect();
        assert_eq!(params(&split), want);
        let t = GemvParams::fallback(DType::F64, GemvTrans::T, false);
        let want: Vec<String> = head
            .iter()
            .chain(&["u64 p_y", "s64 p_incy", "f64 p_alpha0"])
            .map(|s| s.to_string())
            .collect();
        assert_eq!(params(&t), want);
    }

    /// The finish kernel waits for the main kernel's partials before its first global
    /// access where the host launches it early (sm_90), and only there.
    #[test]
    fn finish_waits_for_the_partials_where_launches_overlap() {
        let p = GemvParams::fallback(DType::F64, GemvTrans::N, true);
        for (target, overlaps) in [("sm_90a", true), ("sm_90", true), ("sm_80", false)] {
            let target: Target = target.parse().unwrap();
            let ModuleImage::Ptx(text) = Gemv::generate(&p, &target).unwrap().image else {
                panic!("not PTX")
            };
            let finish = &text[text.find(&format!(".entry {FINISH}")).unwrap()..];
            let main = &text[text.find(&format!(".entry {KERNEL}(")).unwrap()..];
            let wait = finish.find("griddepcontrol.wait");
            let first_load = finish.find("ld.global").unwrap();
            assert_eq!(wait.is_some(), overlaps, "{target}");
            assert!(
                wait.is_none_or(|w| w < first_load),
                "{target}: wait after a load"
            );
            assert_eq!(
                main.contains("griddepcontrol.launch_dependents"),
                overlaps,
                "{target}"
            );
        }
    }

    #[test]
    fn sm90_catalog_entries_parse_and_match_their_keys() {
        let target: Target = "sm_90".parse().unwrap();
        let catalog = crate::catalog::Catalog::for_target(&target);
        for dtype in [DType::F32, DType::F64] {
            for trans in [GemvTrans::N, GemvTrans::T] {
                // A sentinel fallback: an entry that failed to parse would return it.
                let sentinel = GemvParams {
                    block: 32,
                    ..GemvParams::fallback(dtype, trans, true)
                };
                let key = GemvParams::key(dtype, trans);
                let p: GemvParams = catalog.select("gemv", &key, 1 << 28, sentinel);
                assert_ne!(p.block, 32, "{key} missing or unparsable");
                assert_eq!((p.dtype, p.trans), (dtype, trans), "{key}");
                Gemv::generate(&p, &target).unwrap();
            }
        }
    }

    #[test]
    fn bad_params_and_targets_are_errors() {
        let sm90: Target = "sm_90".parse().unwrap();
        let mut p = GemvParams::fallback(DType::F32, GemvTrans::N, true);
        p.block = 48;
        assert!(matches!(
            Gemv::generate(&p, &sm90),
            Err(Error::InvalidArgument { .. })
        ));
        let mut p = GemvParams::fallback(DType::F32, GemvTrans::T, true);
        p.rows = 9;
        assert!(matches!(
            Gemv::generate(&p, &sm90),
            Err(Error::InvalidArgument { .. })
        ));
        let mut p = GemvParams::fallback(DType::C64, GemvTrans::T, true);
        p.vector = 2;
        assert!(matches!(
            Gemv::generate(&p, &sm90),
            Err(Error::InvalidArgument { .. })
        ));
        let mut p = GemvParams::fallback(DType::F32, GemvTrans::N, true);
        p.vector = 3;
        assert!(matches!(
            Gemv::generate(&p, &sm90),
            Err(Error::InvalidArgument { .. })
        ));
        // Groups of warps per column are T/C only, and must divide the block.
        let mut p = GemvParams::fallback(DType::F32, GemvTrans::N, true);
        p.warps_per_column = 2;
        assert!(matches!(
            Gemv::generate(&p, &sm90),
            Err(Error::InvalidArgument { .. })
        ));
        let mut p = GemvParams::fallback(DType::F32, GemvTrans::T, true);
        p.warps_per_column = 16;
        assert!(matches!(
            Gemv::generate(&p, &sm90),
            Err(Error::InvalidArgument { .. })
        ));
        let p = GemvParams::fallback(DType::F16, GemvTrans::T, true);
        assert!(matches!(
            Gemv::generate(&p, &sm90),
            Err(Error::Unsupported { .. })
        ));
        // AMD targets get the AMDGPU kernels of the same contract.
        let p = GemvParams::fallback(DType::F32, GemvTrans::N, true);
        let gfx: Target = "gfx90a".parse().unwrap();
        let prog = Gemv::generate(&p, &gfx).unwrap();
        assert!(matches!(prog.image, ModuleImage::CodeObject(_)));
        assert_eq!(prog.kernels, vec![KERNEL.to_string(), FINISH.to_string()]);
        let p = GemvParams::fallback(DType::F16, GemvTrans::T, true);
        assert!(matches!(
            Gemv::generate(&p, &gfx),
            Err(Error::Unsupported { .. })
        ));
    }
}
