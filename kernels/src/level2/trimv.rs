//! Products with a stored triangle or a general band matrix (PTX, f32, f64, Complex32,
//! Complex64):
//!
//! | op | result | direct part | mirrored part |
//! | --- | --- | --- | --- |
//! | `Symv` (spmv) | y ← α·A·x + β·y, A = Aᵀ | triangle with diagonal | triangle without diagonal, transposed |
//! | `Hemv` (hpmv) | y ← α·A·x + β·y, A = Aᴴ | triangle, diagonal's imaginary part taken as 0 | triangle without diagonal, conjugate transposed |
//! | `TrmvN` (tpmv) | y ← α·A·x + β·y, A triangular | triangle (unit: diagonal 1, not read) | — |
//! | `TrmvT` | y ← α·Aᵀ·x + β·y | — | triangle with diagonal, transposed |
//! | `TrmvC` | y ← α·Aᴴ·x + β·y | — | triangle with diagonal, conjugate transposed |
//! | `GeneralN` (gbmv) | y ← α·A·x + β·y, A m×n with kl sub- and ku super-diagonals | band | — |
//! | `GeneralT` | y ← α·Aᵀ·x + β·y | — | band, transposed |
//! | `GeneralC` | y ← α·Aᴴ·x + β·y | — | band, conjugate transposed |
//!
//! (trmv itself is the case α = 1, β = 0 with y a scratch vector the host copies back;
//! the blocked trsv's updates on packed and band storage are trmv N/T/C with α = −1,
//! β = 1 on a window of rows and columns, see `window` below.)
//!
//! A workgroup of 32·`warps` work-items produces 32 consecutive entries y(i0..i0 + 32)
//! and reads the stored elements that contribute to them, keeping every warp access to A
//! 32 consecutive elements of a column:
//! - direct: A(i, j) for the block's rows i and the stored side's columns j; lane l owns
//!   row i0 + l, warp w takes columns j ≡ w (mod warps), `unroll` columns per step (the
//!   x(j) of a column is a broadcast).
//! - mirrored: A(j, i) for the block's columns i (the rows of y) and rows j of the stored
//!   side; lane l takes rows j ≡ l (mod 32), warp w the columns i0 + w + warps·q, so a
//!   lane keeps 32/warps partial sums (one per column).
//!
//! Each stored element of symv/hemv is thus read twice (once per workgroup whose rows
//! it touches directly or mirrored), as a gemv of the full matrix reads it; there are no
//! atomics and no workspace. The partials meet in shared memory and the first warp adds
//! them in a fixed order (warps' direct partials, then the 32 lanes' mirrored ones) and
//! applies α and β (β = 0, `read_y` false, never reads y). Error bound (u the unit
//! roundoff): every y(i) is a sum of at most c products (c the entries of x it covers:
//! n, or cols_to − cols_from; at most kl + ku + 1 for a band) whose addition tree has
//! depth at most ⌈c/warps⌉ + ⌈c/32⌉ + warps + 32 ≤ c + 64, so
//! |error| ≤ (c + 66)·u·(|α|·Σ|a||x| + |β||y|) (complex: products of four fmas, ×4).
//!
//! Kernel `rocm_blas_tri_mv(n: u64, a: u64, lda: u64, x: u64, incx: s64, y: u64,
//! incy: s64, alpha.., [beta..], flags: u32, [band: u64], [band_lower: u64],
//! [rows_from: u64, rows_to: u64, cols_from: u64, cols_to: u64])`: x and y are the
//! addresses of their logical element 0; scalars the reals of α then β (β only with
//! `read_y`); flags [`UPPER`], [`UNIT`] (trmv). Band storage adds `band` (k, the
//! off-diagonals; ku for the general ops, which add `band_lower`, kl, and ignore the
//! flags and n). With `window` (always for the general ops) the kernel computes the
//! rows i ∈ [rows_from, rows_to) of y from the entries j ∈ [cols_from, cols_to) of x:
//! y(i) ← α·Σ_j op(A)(i, j)·x(j) + β·y(i), i and j indexing A itself (gbmv: rows
//! [0, m) or [0, n) of y, columns the other). Without it both ranges are [0, n).
//!
//! Every loop stays within the stored part of A: A(r, c) is stored when
//! r ≤ c + below and c ≤ r + above, with (below, above) = (kl, ku) for a general band,
//! (0, k) for an upper band triangle, (k, 0) for a lower one (k = n when the triangle
//! is dense or packed); the direct loop of a block of rows [i0, e) runs over columns
//! [i0 − below, e + above) and the mirrored loop over rows [i0 − above, e + below),
//! clipped to the window, so sbmv/hbmv/tbmv and gbmv read O(rows·(kl + ku + 1))
//! elements of A and band storage at most k + 1 consecutive ones per column access
//! (consecutive rows of one column are consecutive addresses). Packed storage ignores
//! `lda`. Launch: ⌈rows/32⌉ workgroups of 32·`warps` work-items
//! ([`TriMvParams::groups`]; rows = n, or rows_to − rows_from with a window).

use super::element::{element_at, epilogue, flag, scalar_params, vector_at, El, Storage};
use crate::generator::{Generator, LaunchRule, Program};
use crate::ptx::{Cmp, KernelBuilder, LoadCache, Module, Reg, Special, Ty};
use rocm_core::target::KernelIsa;
use rocm_core::{DType, Error, ModuleImage, Result, Target};

/// Name of the kernel.
pub const KERNEL: &str = "rocm_blas_tri_mv";
/// Flag: the upper triangle is stored.
pub const UPPER: u32 = 1;
/// Flag (trmv): the diagonal is one and not read.
pub const UNIT: u32 = 2;
/// Rows of y per workgroup.
pub const ROWS: u32 = 32;

/// Which product.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub enum TriMvOp {
    Symv,
    Hemv,
    TrmvN,
    TrmvT,
    TrmvC,
    /// gbmv N: y ← α·A·x + β·y, A a general band matrix (kl sub-, ku super-diagonals).
    GeneralN,
    /// gbmv T: y ← α·Aᵀ·x + β·y.
    GeneralT,
    /// gbmv C: y ← α·Aᴴ·x + β·y.
    GeneralC,
}

impl TriMvOp {
    /// A general band matrix (gbmv) rather than a stored triangle.
    pub fn is_general(self) -> bool {
        matches!(
            self,
            TriMvOp::GeneralN | TriMvOp::GeneralT | TriMvOp::GeneralC
        )
    }
}

/// The mirrored part of an op.
#[derive(Debug, Clone, Copy)]
struct Mirror {
    /// The diagonal belongs to the mirrored part (else it is the direct part's).
    diagonal: bool,
    conj: bool,
}

/// What an op reads, as data.
#[derive(Debug, Clone, Copy)]
struct Traits {
    direct: bool,
    mirror: Option<Mirror>,
    /// Hermitian: the diagonal's imaginary part is taken as zero.
    real_diagonal: bool,
    /// Triangular: the `UNIT` flag applies.
    triangular: bool,
}

impl TriMvOp {
    fn traits(self) -> Traits {
        let m = |diagonal, conj| Some(Mirror { diagonal, conj });
        let t = |direct, mirror, real_diagonal, triangular| Traits {
            direct,
            mirror,
            real_diagonal,
            triangular,
        };
        match self {
            TriMvOp::Symv => t(true, m(false, false), false, false),
            TriMvOp::Hemv => t(true, m(false, true), true, false),
            TriMvOp::TrmvN => t(true, None, false, true),
            TriMvOp::TrmvT => t(false, m(true, false), false, true),
            TriMvOp::TrmvC => t(false, m(true, true), false, true),
            TriMvOp::GeneralN => t(true, None, false, false),
            TriMvOp::GeneralT => t(false, m(true, false), false, false),
            TriMvOp::GeneralC => t(false, m(true, true), false, false),
        }
    }
}

/// One triangle-product kernel variant.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct TriMvParams {
    pub dtype: DType,
    pub op: TriMvOp,
    pub storage: Storage,
    /// Warps per workgroup: 4, 8, 16 or 32 (a divisor of the 32 columns; a lane keeps
    /// 32/warps mirrored partial sums, so fewer warps would spill complex ones).
    pub warps: u32,
    /// Direct part: columns per warp per step (1..=8), loads of A in flight.
    pub unroll: u32,
    /// β ≠ 0: y is read.
    pub read_y: bool,
    /// The rows of y and the columns (entries of x) the product covers are kernel
    /// arguments (`rows_from, rows_to, cols_from, cols_to`) instead of `0..n` each:
    /// the blocked trsv's updates on packed and band storage, and every general op.
    #[serde(default)]
    pub window: bool,
}

impl TriMvParams {
    /// 8 warps, 4 columns per step.
    pub fn fallback(dtype: DType, op: TriMvOp, storage: Storage, read_y: bool) -> Self {
        TriMvParams {
            dtype,
            op,
            storage,
            warps: 8,
            unroll: 4,
            read_y,
            window: op.is_general(),
        }
    }

    /// Workgroups for `n` rows of y.
    pub fn groups(n: usize) -> u32 {
        n.div_ceil(ROWS as usize).clamp(1, i32::MAX as usize) as u32
    }

    /// Work-items per workgroup.
    pub fn block(&self) -> u32 {
        32 * self.warps
    }

    fn validate(&self) -> Result<()> {
        if !super::gemv::DTYPES.contains(&self.dtype) {
            return Err(Error::unsupported(
                format!("triangle-product kernels for {}", self.dtype),
                "PTX",
            ));
        }
        if !matches!(self.warps, 4 | 8 | 16 | 32) {
            return Err(Error::invalid(
                "warps",
                format!("{}: 4, 8, 16 or 32", self.warps),
            ));
        }
        if !(1..=8).contains(&self.unroll) {
            return Err(Error::invalid(
                "unroll",
                format!("{} is not in 1..=8", self.unroll),
            ));
        }
        if self.op.is_general() && (self.storage != Storage::Band || !self.window) {
            return Err(Error::invalid(
                "op",
                format!(
                    "{:?} is a general band product: band storage with a window",
                    self.op
                ),
            ));
        }
        Ok(())
    }
}

/// The triangle-product generator.
pub struct TriMv;

impl Generator for TriMv {
    type Params = TriMvParams;
    const NAME: &'static str = "tri_mv";
    const VERSION: u32 = 1;

    fn generate(p: &TriMvParams, target: &Target) -> Result<Program> {
        p.validate()?;
        if target.caps().kernel_isa == KernelIsa::Amdgpu {
            return crate::amdgpu::level2::trimv::program(p, target);
        }
        let mut module =
            Module::for_kernels(target, format!("triangle-product kernels for {}", p.dtype))?;
        module.push(&build(p)?);
        Ok(Program {
            image: ModuleImage::Ptx(module.text()),
            kernels: vec![KERNEL.into()],
            signatures: vec![super::signatures::tri_mv(p, false)],
            launch: LaunchRule::Fixed {
                grid: 1,
                block: p.block(),
            },
        })
    }
}

/// A's operands for [`element_at`]: base, lda, n (or the band's k).
type Matrix = (Reg, Reg, Reg);

fn build(p: &TriMvParams) -> Result<KernelBuilder> {
    let el = El::of(p.dtype);
    let eb = el.bytes();
    let tr = p.op.traits();
    let w_count = p.warps;
    let (mut k, params) = KernelBuilder::from_signature(&super::signatures::tri_mv(p, false));
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
    let pflags = params.get("flags")?.clone();
    let pband = params.opt("band").cloned();
    let general = p.op.is_general();
    let plower = params.opt("band_lower").cloned();
    let pwindow = match ["rows_from", "rows_to", "cols_from", "cols_to"].map(|q| params.opt(q)) {
        [Some(a), Some(b), Some(c), Some(d)] => Some([a, b, c, d].map(Clone::clone)),
        _ => None,
    };

    let n = k.ld_param(&pn);
    let a = k.ld_param_global_ptr(&pa);
    let lda = k.ld_param(&plda);
    let x = k.ld_param_global_ptr(&px);
    let incx = k.ld_param(&pincx);
    let flags = k.ld_param(&pflags);
    // A general band matrix is addressed as an upper band triangle with k = ku.
    let upper = if general {
        let zero = k.mov(Ty::U32, 0u32);
        k.setp(Cmp::Eq, Ty::U32, zero, 0u32)
    } else {
        flag(&mut k, flags, UPPER)
    };
    let unit = if tr.triangular {
        Some(flag(&mut k, flags, UNIT))
    } else {
        None
    };
    let incxb = k.mul(Ty::S64, incx, eb);
    // Band storage: the bandwidth takes n's place in the element formula.
    let band = pband.map(|q| k.ld_param(&q));
    let mat: Matrix = (a, lda, band.unwrap_or(n));
    // The stored part of A: (r, c) with r ≤ c + below and c ≤ r + above (a general band:
    // kl and ku; an upper triangle: 0 and k, or n without a band; a lower one the
    // mirror), so every loop below stays within the band of the block's rows.
    let (below, above) = match plower {
        Some(q) => (k.ld_param(&q), band.unwrap_or(n)),
        None => {
            let zero = k.mov(Ty::U64, 0i64);
            let reach = band.unwrap_or(n);
            let below = k.selp(Ty::U64, zero, reach, upper);
            let above = k.selp(Ty::U64, reach, zero, upper);
            (below, above)
        }
    };
    // The rows of y [rows_from, rows_to) and the entries of x [cols_from, cols_to).
    let (rows_from, rows_to, cols_from, cols_to) = match pwindow {
        Some(w) => {
            let [a0, a1, b0, b1] = w.map(|q| k.ld_param(&q));
            (a0, a1, b0, b1)
        }
        None => {
            let zero = k.mov(Ty::U64, 0i64);
            (zero, n, zero, n)
        }
    };
    let reach = Reach {
        below,
        above,
        cols: (cols_from, cols_to),
    };

    // Shared: the warps' direct partials D[w][lane], then the mirrored ones M[c][lane]
    // with rows padded to 33 (the final sum reads a row per lane).
    let d_elems = 32 * w_count;
    let m_elems = if tr.mirror.is_some() { 32 * 33 } else { 0 };
    let shared = k.shared_array(
        "rocm_blas_tri_mv_partials",
        (d_elems + m_elems) * eb as u32,
        8,
    );
    let tid = k.special(Special::TidX);
    let lane = k.and_b32(tid, 31);
    let warp = k.shr(Ty::U32, tid, 5);
    let cx = k.special(Special::CtaidX);
    let i0 = k.mul_wide_u32(cx, ROWS);
    let i0 = k.add(Ty::U64, i0, rows_from);
    let lane64 = k.cvt(Ty::U64, lane);
    let warp64 = k.cvt(Ty::U64, warp);
    let i = k.add(Ty::U64, i0, lane64);
    let row_in = k.setp(Cmp::Lt, Ty::U64, i, rows_to);
    let block_end = k.add(Ty::U64, i0, ROWS as i64);
    let block_end = k.min(Ty::U64, block_end, rows_to);

    let direct = el.zero(&mut k);
    if tr.direct {
        k.comment("direct part: A(i, j), lane = row, warp = columns mod warps");
        // Stored columns of the block's rows: [i0 − below, block_end + above).
        let (lo, hi) = reach.span(&mut k, (i0, block_end), (reach.below, reach.above));
        let j = k.add(Ty::U64, lo, warp64);
        let (top, done) = (k.label(), k.label());
        k.place(top);
        let fin = k.setp(Cmp::Ge, Ty::U64, j, hi);
        k.bra_if(fin, false, done);
        let mut terms = Vec::new();
        for u in 0..p.unroll {
            let ju = k.add(Ty::U64, j, (u * w_count) as i64);
            let col_in = k.setp(Cmp::Lt, Ty::U64, ju, hi);
            let inside = k.and_pred(row_in, col_in);
            let st = reach.holds(&mut k, i, ju);
            let inside = k.and_pred(inside, st);
            let diag = k.setp(Cmp::Eq, Ty::U64, i, ju);
            let av = load_a(
                &mut k,
                el,
                p.storage,
                mat,
                upper,
                (i, ju),
                (inside, diag),
                unit,
            );
            let av = if tr.real_diagonal {
                el.real_if(&mut k, &av, diag)
            } else {
                av
            };
            let pxj = vector_at(&mut k, x, ju, incxb);
            let xj = el.load_if(&mut k, pxj, col_in, LoadCache::NonCoherent);
            terms.push((av, xj));
        }
        let mut s = direct.clone();
        for (av, xj) in &terms {
            s = el.fma(&mut k, av, xj, &s, false);
        }
        for (dst, v) in direct.iter().zip(&s) {
            k.assign(*dst, *v);
        }
        k.add_to(j, (p.unroll * w_count) as i64);
        k.bra(top);
        k.place(done);
    }
    let slot = k.fma(Ty::U32, warp, 32u32, lane);
    let at = el.shared_slot(&mut k, shared, slot);
    el.st_shared(&mut k, at, &direct);

    let m_base = k.add(Ty::U32, shared, d_elems * eb as u32);
    if let Some(mirror) = tr.mirror {
        k.comment("mirrored part: A(j, i), lane = rows j mod 32, warp = columns");
        let per = 32 / w_count;
        let cols: Vec<(Reg, Reg)> = (0..per)
            .map(|q| {
                let c = k.add(Ty::U64, warp64, (q * w_count) as i64);
                let ic = k.add(Ty::U64, i0, c);
                let ic_in = k.setp(Cmp::Lt, Ty::U64, ic, rows_to);
                (ic, ic_in)
            })
            .collect();
        let accs: Vec<Vec<Reg>> = (0..per).map(|_| el.zero(&mut k)).collect();
        // Stored rows of the block's columns: [i0 − above, block_end + below).
        let (lo, hi) = reach.span(&mut k, (i0, block_end), (reach.above, reach.below));
        let j = k.add(Ty::U64, lo, lane64);
        let (top, done) = (k.label(), k.label());
        k.place(top);
        // Whole warps iterate together; lanes past `hi` load nothing.
        let jb = k.sub(Ty::U64, j, lane64);
        let fin = k.setp(Cmp::Ge, Ty::U64, jb, hi);
        k.bra_if(fin, false, done);
        let j_in = k.setp(Cmp::Lt, Ty::U64, j, hi);
        let pxj = vector_at(&mut k, x, j, incxb);
        let xj = el.load_if(&mut k, pxj, j_in, LoadCache::NonCoherent);
        let mut loads = Vec::new();
        for (ic, ic_in) in &cols {
            let inside = k.and_pred(j_in, *ic_in);
            let st = reach.holds(&mut k, j, *ic);
            let inside = k.and_pred(inside, st);
            let diag = k.setp(Cmp::Eq, Ty::U64, j, *ic);
            let inside = if mirror.diagonal {
                inside
            } else {
                let off = k.not_pred(diag);
                k.and_pred(inside, off)
            };
            let av = load_a(
                &mut k,
                el,
                p.storage,
                mat,
                upper,
                (j, *ic),
                (inside, diag),
                unit,
            );
            loads.push(av);
        }
        for (acc, av) in accs.iter().zip(&loads) {
            let s = el.fma(&mut k, av, &xj, acc, mirror.conj);
            for (dst, v) in acc.iter().zip(&s) {
                k.assign(*dst, *v);
            }
        }
        k.add_to(j, 32i64);
        k.bra(top);
        k.place(done);
        for (q, acc) in accs.iter().enumerate() {
            let c = k.add(Ty::U32, warp, q as u32 * w_count);
            let slot = k.fma(Ty::U32, c, 33u32, lane);
            let at = el.shared_slot(&mut k, m_base, slot);
            el.st_shared(&mut k, at, acc);
        }
    }
    k.bar_sync();

    k.comment("first warp: fixed-order sum of the partials, then alpha and beta");
    let exit = k.label();
    let not_first = k.setp(Cmp::Ne, Ty::U32, warp, 0u32);
    k.bra_if(not_first, false, exit);
    k.bra_if(row_in, true, exit);
    let mut s = el.zero(&mut k);
    for w in 0..w_count {
        let slot = k.add(Ty::U32, lane, w * 32);
        let at = el.shared_slot(&mut k, shared, slot);
        let v = el.ld_shared(&mut k, at);
        s = el.add(&mut k, &s, &v);
    }
    if tr.mirror.is_some() {
        let row = k.mul(Ty::U32, lane, 33u32);
        for l in 0..32u32 {
            let slot = k.add(Ty::U32, row, l);
            let at = el.shared_slot(&mut k, m_base, slot);
            let v = el.ld_shared(&mut k, at);
            s = el.add(&mut k, &s, &v);
        }
    }
    let y = k.ld_param_global_ptr(&py);
    let incy = k.ld_param(&pincy);
    let incyb = k.mul(Ty::S64, incy, eb);
    let pyi = vector_at(&mut k, y, i, incyb);
    let alpha: Vec<Reg> = palpha.iter().map(|q| k.ld_param(q)).collect();
    let beta: Option<Vec<Reg>> = pbeta.map(|b| b.iter().map(|q| k.ld_param(q)).collect());
    epilogue(&mut k, el, &s, pyi, &alpha, beta.as_deref());
    k.place(exit);
    k.ret();
    Ok(k)
}

/// Where A is stored, relative to the diagonal, and the window's entries of x.
struct Reach {
    /// (r, c) is stored when r ≤ c + below ...
    below: Reg,
    /// ... and c ≤ r + above.
    above: Reg,
    /// The entries of x the product covers: [from, to).
    cols: (Reg, Reg),
}

impl Reach {
    /// The indices j within `back` before and `ahead` after the rows (or columns)
    /// `[i0, end)`, clipped to the window's columns: `[max(from, i0 − back),
    /// min(to, end + ahead))` (the subtraction saturating at 0).
    fn span(
        &self,
        k: &mut KernelBuilder,
        (i0, end): (Reg, Reg),
        (back, ahead): (Reg, Reg),
    ) -> (Reg, Reg) {
        let zero = k.mov(Ty::U64, 0i64);
        let under = k.setp(Cmp::Lt, Ty::U64, i0, back);
        let down = k.sub(Ty::U64, i0, back);
        let lo = k.selp(Ty::U64, zero, down, under);
        let lo = k.max(Ty::U64, lo, self.cols.0);
        let up = k.add(Ty::U64, end, ahead);
        let hi = k.min(Ty::U64, up, self.cols.1);
        (lo, hi)
    }

    /// Whether A(r, c) is stored: r ≤ c + below and c ≤ r + above.
    fn holds(&self, k: &mut KernelBuilder, r: Reg, c: Reg) -> Reg {
        let c_below = k.add(Ty::U64, c, self.below);
        let ok_below = k.setp(Cmp::Le, Ty::U64, r, c_below);
        let r_above = k.add(Ty::U64, r, self.above);
        let ok_above = k.setp(Cmp::Le, Ty::U64, c, r_above);
        k.and_pred(ok_below, ok_above)
    }
}

/// A(r, c) where `inside` holds, zero elsewhere; with `unit` set, a diagonal element is
/// one and not read.
#[allow(clippy::too_many_arguments)]
fn load_a(
    k: &mut KernelBuilder,
    el: El,
    storage: Storage,
    mat: Matrix,
    upper: Reg,
    (r, c): (Reg, Reg),
    (inside, diag): (Reg, Reg),
    unit: Option<Reg>,
) -> Vec<Reg> {
    let addr = element_at(k, storage, mat, upper, (r, c), el.bytes());
    let Some(unit) = unit else {
        return el.load_if(k, addr, inside, LoadCache::NonCoherent);
    };
    let unit_diag = k.and_pred(unit, diag);
    let unit_diag = k.and_pred(unit_diag, inside);
    let not_unit = k.not_pred(unit_diag);
    let read = k.and_pred(inside, not_unit);
    let av = el.load_if(k, addr, read, LoadCache::NonCoherent);
    let one = el.one(k);
    el.select(k, &one, &av, unit_diag)
}

#[cfg(test)]
mod tests {
    use super::*;

    const OPS: [TriMvOp; 8] = [
        TriMvOp::Symv,
        TriMvOp::Hemv,
        TriMvOp::TrmvN,
        TriMvOp::TrmvT,
        TriMvOp::TrmvC,
        TriMvOp::GeneralN,
        TriMvOp::GeneralT,
        TriMvOp::GeneralC,
    ];

    fn variants() -> Vec<TriMvParams> {
        let mut v = Vec::new();
        for dtype in super::super::gemv::DTYPES {
            for op in OPS {
                for storage in [Storage::Dense, Storage::Packed, Storage::Band] {
                    if op.is_general() && storage != Storage::Band {
                        continue;
                    }
                    for read_y in [false, true] {
                        let mut f = TriMvParams::fallback(dtype, op, storage, read_y);
                        // The trsv updates: trmv with a window.
                        f.window |= read_y && storage != Storage::Dense;
                        v.push(f.clone());
                        v.push(TriMvParams {
                            warps: 4,
                            unroll: 1,
                            ..f.clone()
                        });
                        v.push(TriMvParams {
                            warps: 32,
                            unroll: 8,
                            ..f
                        });
                    }
                }
            }
        }
        v
    }

    #[test]
    fn variants_pass_ptxas_without_spills_or_warnings() {
        crate::ptxas::assert_clean::<TriMv>(&variants());
    }

    #[test]
    fn parameters_follow_the_documented_order() {
        let p = TriMvParams::fallback(DType::C32, TriMvOp::Hemv, Storage::Dense, true);
        let params = crate::generator::declared_params::<TriMv>(&p);
        let want = [
            "u64 p_n",
            "u64 p_a",
            "u64 p_lda",
            "u64 p_x",
            "s64 p_incx",
            "u64 p_y",
            "s64 p_incy",
            "f32 p_alpha0",
            "f32 p_alpha1",
            "f32 p_beta0",
            "f32 p_beta1",
            "u32 p_flags",
        ];
        assert_eq!(params, want);
        // gbmv: the band's ku and kl, then the window.
        let p = TriMvParams::fallback(DType::F64, TriMvOp::GeneralT, Storage::Band, false);
        let params = crate::generator::declared_params::<TriMv>(&p);
        let want = [
            "u64 p_n",
            "u64 p_a",
            "u64 p_lda",
            "u64 p_x",
            "s64 p_incx",
            "u64 p_y",
            "s64 p_incy",
            "f64 p_alpha0",
            "u32 p_flags",
            "u64 p_band",
            "u64 p_band_lower",
            "u64 p_rows_from",
            "u64 p_rows_to",
            "u64 p_cols_from",
            "u64 p_cols_to",
        ];
        assert_eq!(params, want);
    }

    #[test]
    fn bad_params_and_targets_are_errors() {
        let sm90: Target = "sm_90".parse().unwrap();
        let f = TriMvParams::fallback(DType::F32, TriMvOp::Symv, Storage::Dense, true);
        for bad in [
            TriMvParams {
                warps: 3,
                ..f.clone()
            },
            TriMvParams {
                unroll: 0,
                ..f.clone()
            },
            TriMvParams::fallback(DType::F32, TriMvOp::GeneralN, Storage::Dense, true),
            TriMvParams {
                window: false,
                ..TriMvParams::fallback(DType::F32, TriMvOp::GeneralT, Storage::Band, true)
            },
        ] {
            assert!(matches!(
                TriMv::generate(&bad, &sm90),
                Err(Error::InvalidArgument { .. })
            ));
        }
        let p = TriMvParams {
            dtype: DType::Bf16,
            ..f.clone()
        };
        assert!(matches!(
            TriMv::generate(&p, &sm90),
            Err(Error::Unsupported { .. })
        ));
        // AMD targets get the AMDGPU kernel of the same contract.
        let prog = TriMv::generate(&f, &"gfx942".parse().unwrap()).unwrap();
        assert!(matches!(prog.image, ModuleImage::CodeObject(_)));
        assert_eq!(prog.kernels, vec![KERNEL.to_string()]);
        assert!(matches!(
            TriMv::generate(&p, &"gfx942".parse().unwrap()),
            Err(Error::Unsupported { .. })
        ));
        assert_eq!(TriMvParams::groups(0), 1);
        assert_eq!(TriMvParams::groups(65), 3);
    }
}
