//! BLAS Level 1 generators: elementwise operations (scal, axpby, copy, swap) and
//! reductions (dot, dotc, sum, asum, nrm2, iamax, iamin) for f32, f64, Complex32 and
//! Complex64, contiguous or strided (negative increments included).
//!
//! Contiguous vectors move as `vector_bytes`-wide loads and stores (16 bytes = 4 f32);
//! each work-item handles `unroll` vectors strided by the block size inside its block's
//! tile, so warps stay coalesced and several loads are in flight per thread. Reductions
//! run a fixed grid (`grid` workgroups) looping over tiles, reduce inside each workgroup
//! through warp shuffles and shared memory in a fixed order, and leave one partial per
//! workgroup; the host sums the partials in order. The result is therefore the same run
//! to run. nrm2 accumulates in f64, with Blue's three accumulators (tiny, medium, huge)
//! for f64 inputs, so it neither overflows nor underflows where the result does not.

use crate::generator::{Generator, LaunchRule, Program};
use crate::ptx::{Cmp, KernelBuilder, LoadCache, Module, Op, Reg, Special, Ty};
use rocm_core::target::Family;
use rocm_core::{DType, Error, ModuleImage, Result, Target};

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
    pub dtype: DType,
    /// Contiguous (increment 1, vector loads) or strided.
    pub contiguous: bool,
    /// Bytes per load/store when contiguous (element size .. 16).
    pub vector_bytes: u32,
    /// Work-items per workgroup (a multiple of 32, at most 1024).
    pub block: u32,
    /// Vectors (contiguous) or elements (strided) per work-item per tile.
    pub unroll: u32,
    /// Workgroups of a reduction's first pass.
    pub grid: u32,
}

impl Level1Params {
    /// The default variant: 16-byte vectors, 256 work-items, 4 vectors each, and for
    /// reductions 2112 workgroups (16 per SM of a 132-SM H100/H200: the best of the
    /// grids measured on an H200, see bench/results).
    pub fn fallback(op: L1Op, dtype: DType, contiguous: bool) -> Self {
        Level1Params {
            op,
            dtype,
            contiguous,
            vector_bytes: 16,
            block: 256,
            unroll: 4,
            grid: 132 * 16,
        }
    }

    /// Catalog key: `<op>/<dtype>/<contiguous|strided>`.
    pub fn key(op: L1Op, dtype: DType, contiguous: bool) -> String {
        format!(
            "{op:?}/{dtype}/{}",
            if contiguous { "contiguous" } else { "strided" }
        )
    }

    fn real(&self) -> Result<(Ty, u32)> {
        match self.dtype {
            DType::F32 => Ok((Ty::F32, 1)),
            DType::F64 => Ok((Ty::F64, 1)),
            DType::C32 => Ok((Ty::F32, 2)),
            DType::C64 => Ok((Ty::F64, 2)),
            d => Err(Error::unsupported(
                format!("Level 1 kernels for {d}"),
                "PTX",
            )),
        }
    }

    /// Reals per contiguous load (1 when strided: one element = `comps` reals).
    fn reals_per_vector(&self) -> Result<u32> {
        let (rt, comps) = self.real()?;
        if !self.contiguous {
            return Ok(comps);
        }
        let v = self.vector_bytes / rt.size();
        if v == 0 || v > 4 || !v.is_power_of_two() || v % comps != 0 {
            return Err(Error::invalid(
                "vector_bytes",
                format!(
                    "{} bytes do not hold whole {} elements in one load",
                    self.vector_bytes, self.dtype
                ),
            ));
        }
        Ok(v)
    }

    /// Elements one tile (one workgroup step) covers.
    pub fn elements_per_tile(&self) -> Result<u64> {
        let (_, comps) = self.real()?;
        Ok(self.block as u64 * self.unroll as u64 * (self.reals_per_vector()? / comps) as u64)
    }

    fn validate(&self) -> Result<()> {
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

/// The Level 1 generator.
pub struct Level1;

/// Names of the generated kernel.
pub const KERNEL: &str = "rocm_blas_l1";

impl Generator for Level1 {
    type Params = Level1Params;
    const NAME: &'static str = "level1";
    const VERSION: u32 = 4;

    fn generate(p: &Level1Params, target: &Target) -> Result<Program> {
        if matches!(
            target.family(),
            Family::Cdna | Family::Rdna3 | Family::Rdna4
        ) {
            return crate::amdgpu::level1::program(p, target);
        }
        p.validate()?;
        let mut module = Module::new(target)?;
        let k = build(p)?;
        module.push(&k);
        let units_per_item = p.unroll;
        let launch = if p.op.is_reduction() {
            LaunchRule::Fixed {
                grid: p.grid,
                block: p.block,
            }
        } else {
            LaunchRule::Cover {
                block: p.block,
                units_per_item,
            }
        };
        Ok(Program {
            image: ModuleImage::Ptx(module.text()),
            kernels: vec![KERNEL.into()],
            launch,
        })
    }
}

/// A value of the element type: one real register, or (re, im).
type Val = Vec<Reg>;

struct Ctx {
    rt: Ty,
    comps: u32,
    esize: u32,
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
const TSML: f64 = 1.4916681462400413e-154;
const TBIG: f64 = 1.997_919_072_202_235e146;
const SSML: f64 = 4.4989137945431964e161;
const SBIG: f64 = 1.1113793747425387e-162;

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

fn build(p: &Level1Params) -> Result<KernelBuilder> {
    if matches!(
        p.op,
        L1Op::Fill | L1Op::Rot | L1Op::Rotm | L1Op::Convert { .. }
    ) {
        return Err(Error::unsupported(
            format!("Level 1 {:?} kernels", p.op),
            "PTX",
        ));
    }
    let (rt, comps) = p.real()?;
    let cx = Ctx {
        rt,
        comps,
        esize: rt.size() * comps,
    };
    let vr = p.reals_per_vector()?;
    let mut k = KernelBuilder::new(KERNEL);
    k.comment(&format!("{p:?}"));

    // Parameters: n, x, incx, [y, incy], [alpha (comps reals)], [beta], [partials].
    let pn = k.param("n", Ty::U64);
    let px = k.param("x", Ty::U64);
    let pincx = k.param("incx", Ty::S64);
    let (py, pincy) = if p.op.has_y() {
        (Some(k.param("y", Ty::U64)), Some(k.param("incy", Ty::S64)))
    } else {
        (None, None)
    };
    let palpha: Vec<_> = match p.op {
        L1Op::Scal | L1Op::Axpby { .. } => (0..comps)
            .map(|c| k.param(&format!("alpha{c}"), rt))
            .collect(),
        _ => vec![],
    };
    let pbeta: Vec<_> = match p.op {
        L1Op::Axpby { read_y: true } => (0..comps)
            .map(|c| k.param(&format!("beta{c}"), rt))
            .collect(),
        _ => vec![],
    };
    let ppart = p.op.is_reduction().then(|| k.param("partials", Ty::U64));

    let n = k.ld_param(&pn);
    let x = k.ld_param_global_ptr(&px);
    let incx = k.ld_param(&pincx);
    let y = py.as_ref().map(|q| k.ld_param_global_ptr(q));
    let incy = pincy.as_ref().map(|q| k.ld_param(q));
    let alpha: Val = palpha.iter().map(|q| k.ld_param(q)).collect();
    let beta: Val = pbeta.iter().map(|q| k.ld_param(q)).collect();
    let partials = ppart.as_ref().map(|q| k.ld_param_global_ptr(q));

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
    if p.op.is_reduction() {
        k.place(top);
        let past = k.setp(Cmp::Ge, Ty::U64, unit0, n_units);
        k.bra_if(past, false, done);
    }

    // Phase 1: addresses, predicates and every load of the tile, so all of a work-item's
    // loads are in flight together (no branches between them: partial vectors are
    // handled by predicated element loads into zeroed registers).
    struct Unit {
        xa: Reg,
        ya: Option<Reg>,
        elem0: Reg,
        /// Per element: does it exist.
        valid: Vec<Reg>,
        /// The whole vector exists (one wide access).
        full: Reg,
        /// Per element: exists, and the vector is partial (element access).
        partial: Vec<Reg>,
        xs: Vec<Reg>,
        ys: Option<Vec<Reg>>,
    }
    let mut units = Vec::new();
    for u in 0..p.unroll {
        let unit = k.add(Ty::U64, unit0, (u * p.block) as i64);
        let in_range = k.setp(Cmp::Lt, Ty::U64, unit, n_units);
        let elem0 = if p.contiguous {
            k.mul(Ty::U64, unit, (vr / comps) as i64)
        } else {
            unit
        };
        let addr_of = |k: &mut KernelBuilder, base: Reg, inc: Reg| -> Reg {
            if p.contiguous {
                let off = k.mul(Ty::U64, unit, (vr * rt.size()) as i64);
                k.add(Ty::U64, base, off)
            } else {
                let step = k.mul(Ty::S64, inc, cx.esize as i64);
                let off = k.mul(Ty::S64, unit, step);
                k.add(Ty::S64, base, off)
            }
        };
        let xa = addr_of(&mut k, x, incx);
        let ya = match (y, incy) {
            (Some(y), Some(incy)) => Some(addr_of(&mut k, y, incy)),
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
        // The read-only (non-coherent) path only for vectors this kernel does not write.
        let (x_cache, y_cache) = match p.op {
            L1Op::Scal | L1Op::Swap => (LoadCache::Default, LoadCache::Default),
            L1Op::Axpby { .. } => (LoadCache::NonCoherent, LoadCache::Default),
            _ => (LoadCache::NonCoherent, LoadCache::NonCoherent),
        };
        un.xs = load_unit(&mut k, &cx, rt, vr, &un.full, &un.partial, xa, x_cache);
        if p.op.reads_y() {
            un.ys = ya.map(|a| load_unit(&mut k, &cx, rt, vr, &un.full, &un.partial, a, y_cache));
        }
        units.push(un);
    }

    // Phase 2: arithmetic and stores.
    let elems = |v: &[Reg]| -> Vec<Val> { v.chunks(comps as usize).map(|c| c.to_vec()).collect() };
    for (u_index, un) in units.iter().enumerate() {
        let store = |k: &mut KernelBuilder, addr: Reg, vals: &[Reg]| {
            k.when(un.full, false).st_global(addr, 0, vals);
            for (e, pe) in un.partial.iter().enumerate() {
                for c in 0..comps {
                    let i = (e as u32 * comps + c) as usize;
                    k.when(*pe, false)
                        .st_global(addr, (i as u32 * rt.size()) as i64, &[vals[i]]);
                }
            }
        };
        let (xs, ys, xa, ya) = (&un.xs, &un.ys, un.xa, un.ya);
        match p.op {
            L1Op::Scal => {
                let out: Vec<Reg> = elems(xs)
                    .iter()
                    .flat_map(|e| cx.mul(&mut k, &alpha, e, false))
                    .collect();
                store(&mut k, xa, &out);
            }
            L1Op::Axpby { read_y } => {
                let ye = ys.as_ref().map(|v| elems(v));
                let out: Vec<Reg> = elems(xs)
                    .iter()
                    .enumerate()
                    .flat_map(|(i, e)| {
                        let ax = cx.mul(&mut k, &alpha, e, false);
                        match (&ye, read_y) {
                            (Some(ye), true) => cx.fma_into(&mut k, &ax, &beta, &ye[i], false),
                            _ => ax,
                        }
                    })
                    .collect();
                if let Some(a) = ya {
                    store(&mut k, a, &out);
                }
            }
            L1Op::Copy => {
                if let Some(a) = ya {
                    store(&mut k, a, xs);
                }
            }
            L1Op::Swap => {
                if let (Some(a), Some(yv)) = (ya, ys) {
                    store(&mut k, xa, yv);
                    store(&mut k, a, xs);
                }
            }
            L1Op::Dot { conj } => {
                if let (Some(Acc::Sum(s)), Some(yv)) = (&mut acc, ys) {
                    for (a, b) in elems(xs).iter().zip(elems(yv)) {
                        *s = cx.fma_into(&mut k, s, a, &b, conj);
                    }
                }
            }
            L1Op::Sum => {
                if let Some(Acc::Sum(s)) = &mut acc {
                    for e in elems(xs) {
                        *s = cx.add(&mut k, s, &e);
                    }
                }
            }
            L1Op::Asum => {
                if let Some(Acc::Real(s)) = &mut acc {
                    for e in elems(xs) {
                        let a = cx.abs1(&mut k, &e);
                        *s = k.add(rt, *s, a);
                    }
                }
            }
            L1Op::Nrm2 => {
                if let Some(Acc::Blue(b)) = &mut acc {
                    for r in xs {
                        if rt == Ty::F64 {
                            let a = k.abs(Ty::F64, *r);
                            blue_step(&mut k, b, a);
                        } else {
                            // An f32's square cannot leave f64's range: plain f64 sum.
                            let w = k.cvt(Ty::F64, *r);
                            b[1] = k.fma(Ty::F64, w, w, b[1]);
                        }
                    }
                }
            }
            L1Op::Iamax { max } => {
                if let Some(Acc::Arg(pairs)) = &mut acc {
                    let (value, index) = &mut pairs[u_index];
                    for (e, ev) in elems(xs).iter().enumerate() {
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
            // Refused at the top of `build`.
            L1Op::Fill | L1Op::Rot | L1Op::Rotm | L1Op::Convert { .. } => {}
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

    if p.op.is_reduction() {
        k.add_to(unit0, p.grid as i64 * tile_units);
        k.bra(top);
        k.place(done);
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

/// Loads one unit into zeroed registers: one wide load when the vector is whole, else
/// an element load for each element that exists. Predicated, never branching.
#[allow(clippy::too_many_arguments)]
fn load_unit(
    k: &mut KernelBuilder,
    cx: &Ctx,
    rt: Ty,
    vr: u32,
    full: &Reg,
    partial: &[Reg],
    addr: Reg,
    cache: LoadCache,
) -> Vec<Reg> {
    let regs: Vec<Reg> = (0..vr).map(|_| k.mov(rt, zero_of(rt))).collect();
    k.when(*full, false).ld_global_into(&regs, addr, 0, cache);
    for (e, pe) in partial.iter().enumerate() {
        for c in 0..cx.comps {
            let i = (e as u32 * cx.comps + c) as usize;
            k.when(*pe, false).ld_global_into(
                &regs[i..i + 1],
                addr,
                (i as u32 * rt.size()) as i64,
                cache,
            );
        }
    }
    regs
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

/// Every op, for tests and `rocm-bench kernels list`.
pub const ALL_OPS: [L1Op; 12] = [
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
];

/// The dtypes the Level 1 generator covers.
pub const DTYPES: [DType; 4] = [DType::F32, DType::F64, DType::C32, DType::C64];

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ptxas::{Ptxas, HOW_TO_GET};

    fn variants() -> Vec<Level1Params> {
        let mut out = Vec::new();
        for op in ALL_OPS {
            for dtype in DTYPES {
                for contiguous in [true, false] {
                    let mut p = Level1Params::fallback(op, dtype, contiguous);
                    out.push(p.clone());
                    // A second shape: element-wide vectors, one unit per thread.
                    p.vector_bytes = dtype.size() as u32;
                    p.unroll = 1;
                    p.block = 128;
                    out.push(p);
                }
            }
        }
        out
    }

    #[test]
    fn bad_params_are_errors() {
        let mut p = Level1Params::fallback(L1Op::Copy, DType::C64, true);
        p.vector_bytes = 8; // half a complex double
        assert!(Level1::generate(&p, &"sm_90".parse().unwrap()).is_err());
        let mut p = Level1Params::fallback(L1Op::Copy, DType::F32, true);
        p.block = 100;
        assert!(Level1::generate(&p, &"sm_90".parse().unwrap()).is_err());
        let p = Level1Params::fallback(L1Op::Copy, DType::F16, true);
        assert!(Level1::generate(&p, &"sm_90".parse().unwrap()).is_err());
        assert!(Level1::generate(
            &Level1Params::fallback(L1Op::Sum, DType::F32, true),
            &"gfx90a".parse().unwrap()
        )
        .is_err());
    }

    #[test]
    fn every_variant_passes_ptxas_without_spills() {
        let Some(ptxas) = Ptxas::find() else {
            eprintln!("skipped: ptxas not found ({HOW_TO_GET})");
            return;
        };
        let mut worst = 0;
        for target in ["sm_80", "sm_90a"] {
            let target: Target = target.parse().unwrap();
            for p in variants() {
                let prog = Level1::generate(&p, &target).unwrap();
                let ModuleImage::Ptx(text) = &prog.image else {
                    unreachable!()
                };
                let report = ptxas
                    .compile(text, &target)
                    .unwrap_or_else(|e| panic!("{p:?} on {target}: {e}\n{text}"));
                assert!(report.warnings.is_empty(), "{p:?}: {:?}", report.warnings);
                let k = report.kernel(KERNEL).unwrap();
                assert_eq!(k.spill_loads + k.spill_stores, 0, "{p:?} spills");
                // <= 96 registers keeps at least two 256-thread blocks resident per SM
                // (ptxas 12 gives at most 62, ptxas 13 up to 76 for swap).
                assert!(k.registers <= 96, "{p:?} uses {} registers", k.registers);
                worst = worst.max(k.registers);
            }
        }
        eprintln!(
            "level1: {} variants x 2 targets assembled, at most {worst} registers",
            variants().len()
        );
    }
}
