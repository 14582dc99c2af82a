//! The small kernels that put BLAS Level 3 on the GEMM kernels: everything a blocked
//! trsm, trmm, syrk/syr2k/herk/her2k or symm/hemm does besides the GEMMs themselves, for
//! f32, f64, Complex32 and Complex64: PTX here, AMDGPU targets in
//! [`crate::amdgpu::level3`] (same names, parameters, flags and launches).
//!
//! All three work on the *diagonal blocks* of an n×n column-major matrix: block z
//! (z = 0, 1, ...) is the square of order `bs = min(nb, n − z·nb)` starting at element
//! (z·nb, z·nb), so it lies `z·nb·(ld + 1)` elements after the matrix's start. One
//! launch treats every block at once (grid z), so a blocked algorithm prepares all of
//! its diagonal blocks in one pass; a single whole matrix is the case nb = n.
//!
//! - `rocm_tri_expand` — the stored triangle of each block (upper or lower, including
//!   the diagonal) into a full dense `bs × bs` matrix at `dst + z·stride_dst` (leading
//!   dimension `ld_dst`): the other triangle becomes zero (a triangular factor for
//!   trmm's GEMM) or the mirror image (a symmetric matrix for symm's GEMM); with
//!   `unit` the diagonal becomes one without being read. A 32×32 tile per workgroup;
//!   mirrored elements go through shared memory (rows padded to 33), so both the direct
//!   and the mirrored reads of a warp are 32 consecutive elements.
//! - `rocm_tri_invert` — the inverse of each triangular block, written as a dense
//!   `NB × NB` matrix (leading dimension NB, zeros in the other triangle) at
//!   `dst + z·stride_dst`; a partial last block is padded with the identity, so its
//!   inverse is the block's inverse padded likewise. One workgroup of NB work-items per
//!   block. An upper block U is inverted as the lower block L = Uᵀ (loaded transposed)
//!   and written back transposed, since inv(U) = inv(Uᵀ)ᵀ. The block sits in shared
//!   memory row-major (rows padded to NB + 1) and is overwritten row by row by its
//!   inverse X (LX = I, forward substitution): for row i, work-item j computes
//!   `x_ij = (δ_ij − Σ_{p<i} l_ip·x_pj) / l_ii` — every work-item reads the same `l_ip`
//!   (a broadcast) and its own column of the rows already solved — then a barrier, the
//!   row is written over L's row i, and another barrier. Each x_ij is one division after
//!   an i-term fused multiply-add chain, so its error is the forward substitution's:
//!   |X̂ − X| ≤ γ_{NB}·|X|·|L|·|X| componentwise (Higham, §8.1).
//! - `rocm_tri_update` — `C ← W + β·C` on the stored triangle of each diagonal block of
//!   C, W the block's dense result at `w + z·stride_w` (leading dimension `ld_w`); the
//!   other triangle of C is neither read nor written, and without `read_c` (β = 0) C is
//!   not read at all; with `unit` neither is the diagonal (trtri of a unit triangle). syrk and syr2k compute their diagonal blocks as full GEMMs into a
//!   workspace and add only the needed triangle with it.
//!
//! Kernel parameters, in order (`ty` the element type; strides in elements; flags a bit
//! set of [`UPPER`], [`MIRROR`], [`UNIT`], [`READ_C`]):
//! - `rocm_tri_expand(dst: u64, src: u64, n: u32, nb: u32, ld_src: u32, ld_dst: u32,
//!   stride_dst: u64, flags: u32)`; grid `(⌈nb/32⌉, ⌈nb/32⌉, blocks)` of [`TILE_BLOCK`].
//! - `rocm_tri_invert(dst: u64, src: u64, n: u32, ld_src: u32, stride_dst: u64,
//!   flags: u32)`; grid `(blocks, 1, 1)` of NB work-items.
//! - `rocm_tri_update(c: u64, w: u64, n: u32, nb: u32, ldc: u32, ld_w: u32,
//!   stride_w: u64, beta: ty, [beta_im: ty,] flags: u32)`; grid as `rocm_tri_expand`
//!   (`ty` the real type; `beta_im` for complex types only).
//!
//! Complex elements are (re, im) pairs moved as one vector access; the arithmetic is
//! componentwise fmas as the AMDGPU kernels: update `w + β·c` by four fmas (real-part
//! products first), invert's chain likewise and its division `n·(conj(d)·(1/|d|²))`.
//! [`HERM`]: expand conjugates mirrored elements and zeroes the diagonal's imaginary part
//! (hemm); update zeroes the imaginary part of the diagonal it writes (herk/her2k).
//! Complex64 at `invert_block` 64 needs 65 KiB of shared memory: refused
//! ([`check_invert_block`]); callers use 32 there.
//!
//! [`tile_config`] and [`invert_config`] build the launches.

use crate::generator::{Generator, LaunchRule, Program};
use crate::plan::{Arg, Plan, ProgramRef, Step};
use crate::ptx::{Cmp, KernelBuilder, Label, LoadCache, Module, Op, Reg, Special, Ty};
use crate::signature::{Access, ScalarType, Signature, Value};
use rocm_core::target::KernelIsa;
use rocm_core::{DType, Error, LaunchConfig, ModuleImage, Result, Target};

pub const EXPAND: &str = "rocm_tri_expand";
pub const INVERT: &str = "rocm_tri_invert";
pub const UPDATE: &str = "rocm_tri_update";

/// Flag: the upper triangle is stored (else the lower).
pub const UPPER: u32 = 1;
/// Flag (expand): fill the other triangle with the mirror image (else zeros).
pub const MIRROR: u32 = 2;
/// Flag (expand, invert): the diagonal is one and not read; (update) the diagonal is
/// neither read nor written.
pub const UNIT: u32 = 4;
/// Flag (update): β ≠ 0, so C is read.
pub const READ_C: u32 = 8;
/// Flag (complex): Hermitian. Expand conjugates the mirrored elements and takes the
/// diagonal's imaginary part as zero (hemm); update sets the imaginary part of the
/// diagonal it writes to zero (herk/her2k). Ignored by real kernels.
pub const HERM: u32 = 16;

/// Work-items of the tile kernels (32 × 8, each handling 4 elements of a 32×32 tile).
pub const TILE_BLOCK: u32 = 256;
/// Edge of the tile kernels' tile.
pub const TILE: u32 = 32;

/// The kernels for one element type.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Level3Params {
    /// f32, f64, Complex32 or Complex64.
    pub dtype: DType,
    /// Order NB of the blocks `rocm_tri_invert` inverts: 16, 32 or 64 (the block and
    /// its inverse share NB·(NB + 1) elements of shared memory: 33 KiB for f64 at 64;
    /// Complex64 at 64 does not fit).
    pub invert_block: u32,
}

/// The Level 3 helper generator.
pub struct Level3;

impl Generator for Level3 {
    type Params = Level3Params;
    const NAME: &'static str = "level3";
    const VERSION: u32 = 2;

    fn generate(p: &Level3Params, target: &Target) -> Result<Program> {
        if target.caps().kernel_isa == KernelIsa::Amdgpu {
            return crate::amdgpu::level3::program(p, target);
        }
        let el = El::of(p.dtype).ok_or_else(|| {
            Error::unsupported(
                format!("Level 3 triangle kernels for {}", p.dtype),
                target.to_string(),
            )
        })?;
        check_invert_block(p)?;
        let mut module = Module::for_kernels(target, "Level 3 triangle kernels")?;
        let [expand_sig, invert_sig, update_sig] = &signatures(p.dtype)[..] else {
            unreachable!("three level 3 kernels")
        };
        module.push(&expand(el, expand_sig)?);
        module.push(&invert(el, p.invert_block, invert_sig)?);
        module.push(&update(el, update_sig)?);
        Ok(Program {
            image: ModuleImage::Ptx(module.text()),
            kernels: vec![EXPAND.into(), INVERT.into(), UPDATE.into()],
            signatures: signatures(p.dtype),
            launch: LaunchRule::Fixed {
                grid: 1,
                block: TILE_BLOCK,
            },
        })
    }
}

/// The three kernels' declared arguments for `dtype` (the same on PTX and AMDGPU
/// targets), in the program's order: `rocm_tri_expand(dst, src, n, nb, ld_src, ld_dst,
/// stride_dst, flags)`, `rocm_tri_invert(dst, src, n, ld_src, stride_dst, flags)`,
/// `rocm_tri_update(c, w, n, nb, ldc, ld_w, stride_w, beta, [beta_im], flags)`.
pub fn signatures(dtype: DType) -> Vec<Signature> {
    let real = if matches!(dtype, DType::F64 | DType::C64) {
        ScalarType::F64
    } else {
        ScalarType::F32
    };
    let expand = Signature::new(EXPAND)
        .pointer("dst", dtype, Access::Write)
        .pointer("src", dtype, Access::Read)
        .scalar("n", ScalarType::U32)
        .scalar("nb", ScalarType::U32)
        .scalar("ld_src", ScalarType::U32)
        .scalar("ld_dst", ScalarType::U32)
        .scalar("stride_dst", ScalarType::U64)
        .scalar("flags", ScalarType::U32);
    let invert = Signature::new(INVERT)
        .pointer("dst", dtype, Access::Write)
        .pointer("src", dtype, Access::Read)
        .scalar("n", ScalarType::U32)
        .scalar("ld_src", ScalarType::U32)
        .scalar("stride_dst", ScalarType::U64)
        .scalar("flags", ScalarType::U32);
    let mut update = Signature::new(UPDATE)
        .pointer("c", dtype, Access::ReadWrite)
        .pointer("w", dtype, Access::Read)
        .scalar("n", ScalarType::U32)
        .scalar("nb", ScalarType::U32)
        .scalar("ldc", ScalarType::U32)
        .scalar("ld_w", ScalarType::U32)
        .scalar("stride_w", ScalarType::U64)
        .scalar("beta", real);
    if dtype.is_complex() {
        update = update.scalar("beta_im", real);
    }
    vec![expand, invert, update.scalar("flags", ScalarType::U32)]
}

/// Which of the three kernels a [`TriProblem`] launches, with its own geometry
/// (leading dimensions and strides in elements).
#[derive(Debug, Clone, Copy)]
pub enum TriKernel {
    /// `rocm_tri_expand`: the stored triangle of src's n×n into ⌈n/nb⌉ dense blocks of
    /// nb×nb at `ld_dst`, `stride_dst` apart.
    Expand {
        nb: u64,
        ld_dst: u64,
        stride_dst: u64,
    },
    /// `rocm_tri_invert`: src's diagonal blocks of order `invert_block` inverted into
    /// dense blocks (ld invert_block) `stride_dst` apart.
    Invert { stride_dst: u64 },
    /// `rocm_tri_update`: the triangles of dst's (C's) diagonal blocks of order nb ←
    /// w's blocks (at `ld_w`, `stride_w` apart) + β·C (C read with [`READ_C`]).
    Update {
        nb: u64,
        ld_w: u64,
        stride_w: u64,
        beta: (f64, f64),
    },
}

/// One launch of a Level 3 triangle kernel on an n×n matrix (n ≥ 1): `dst` (expand,
/// invert: the blocks written; update: C) in view `dst_slot`, `src` (expand, invert:
/// A; update: w) in view `src_slot`, each view starting at the operand's first element;
/// `ld` is src's leading dimension (expand, invert) or C's (update).
#[derive(Debug, Clone, Copy)]
pub struct TriProblem {
    pub dtype: DType,
    pub invert_block: u32,
    pub kernel: TriKernel,
    pub n: u64,
    pub ld: u64,
    pub dst_slot: usize,
    pub src_slot: usize,
    pub flags: u32,
}

impl TriProblem {
    /// Elements of dst (or C) the launch touches from its first.
    pub fn dst_elements(&self) -> u64 {
        let n = self.n;
        match self.kernel {
            TriKernel::Expand {
                nb,
                ld_dst,
                stride_dst,
            } => (n.div_ceil(nb) - 1) * stride_dst + (nb - 1) * ld_dst + nb,
            TriKernel::Invert { stride_dst } => {
                let nb = self.invert_block as u64;
                (n.div_ceil(nb) - 1) * stride_dst + nb * nb
            }
            TriKernel::Update { .. } => (n - 1) * self.ld + n,
        }
    }

    /// Elements of src (or w) the launch reads from its first.
    pub fn src_elements(&self) -> u64 {
        let n = self.n;
        match self.kernel {
            TriKernel::Update {
                nb, ld_w, stride_w, ..
            } => {
                let nb = nb.min(n);
                (n.div_ceil(nb) - 1) * stride_w + (nb - 1) * ld_w + nb
            }
            _ => (n - 1) * self.ld + n,
        }
    }
}

fn dim32(name: &str, v: u64) -> Result<u32> {
    u32::try_from(v).map_err(|_| {
        Error::invalid(
            name,
            format!("{v} exceeds the Level 3 kernels' limit of 2^32 - 1"),
        )
    })
}

/// The plan of one triangle-kernel launch: [`tile_config`] for expand and update,
/// [`invert_config`] for invert; dimensions past 32 bits are refused.
pub fn plan(p: &TriProblem) -> Result<Plan> {
    if p.n == 0 {
        return Err(Error::invalid("n", "the triangle kernels need n ≥ 1"));
    }
    let params = Level3Params {
        dtype: p.dtype,
        invert_block: p.invert_block,
    };
    let es = p.dtype.size() as u64;
    let n = dim32("n", p.n)?;
    let ld = dim32("ld", p.ld)?;
    let buffer = |slot, elements: u64, access| Arg::Buffer {
        slot,
        offset_bytes: 0,
        touched: 0..elements * es,
        access,
    };
    let dst = buffer(p.dst_slot, p.dst_elements(), Access::Write);
    let src = buffer(p.src_slot, p.src_elements(), Access::Read);
    let flags = ("flags", Arg::Value(Value::U32(p.flags)));
    let u32v = |v| Arg::Value(Value::U32(v));
    let (index, config, bindings) = match p.kernel {
        TriKernel::Expand {
            nb,
            ld_dst,
            stride_dst,
        } => (
            0,
            tile_config(p.n as usize, nb as usize),
            vec![
                ("dst", dst),
                ("src", src),
                ("n", u32v(n)),
                ("nb", u32v(dim32("nb", nb)?)),
                ("ld_src", u32v(ld)),
                ("ld_dst", u32v(dim32("ld_dst", ld_dst)?)),
                ("stride_dst", Arg::Value(Value::U64(stride_dst))),
                flags,
            ],
        ),
        TriKernel::Invert { stride_dst } => (
            1,
            invert_config(p.n as usize, p.invert_block as usize),
            vec![
                ("dst", dst),
                ("src", src),
                ("n", u32v(n)),
                ("ld_src", u32v(ld)),
                ("stride_dst", Arg::Value(Value::U64(stride_dst))),
                flags,
            ],
        ),
        TriKernel::Update {
            nb,
            ld_w,
            stride_w,
            beta,
        } => {
            let c = buffer(p.dst_slot, p.dst_elements(), Access::ReadWrite);
            let real = |v: f64| {
                if matches!(p.dtype, DType::F64 | DType::C64) {
                    Arg::Value(Value::F64(v))
                } else {
                    Arg::Value(Value::F32(v as f32))
                }
            };
            let mut b = vec![
                ("c", c),
                ("w", src),
                ("n", u32v(n)),
                ("nb", u32v(dim32("nb", nb)?)),
                ("ldc", u32v(ld)),
                ("ld_w", u32v(dim32("ld_w", ld_w)?)),
                ("stride_w", Arg::Value(Value::U64(stride_w))),
                ("beta", real(beta.0)),
                flags,
            ];
            if p.dtype.is_complex() {
                b.push(("beta_im", real(beta.1)));
            }
            (2, tile_config(p.n as usize, nb as usize), b)
        }
    };
    let signature = signatures(p.dtype).swap_remove(index);
    let step = Step::bind(
        ProgramRef::of::<Level3>(params),
        signature,
        config,
        bindings,
    )?;
    Ok(Plan {
        steps: vec![step],
        workspace_bytes: 0,
    })
}

/// Bytes of shared memory (LDS) `rocm_tri_invert` holds: the block with rows padded.
pub fn invert_shared_bytes(p: &Level3Params) -> u32 {
    p.invert_block * (p.invert_block + 1) * p.dtype.size() as u32
}

/// Static shared memory a kernel may declare on every target (CUDA's 48 KiB).
pub const SHARED_LIMIT: u32 = 48 * 1024;

/// `invert_block` is 16, 32 or 64 and its block fits [`SHARED_LIMIT`] (Complex64 at 64
/// does not: 65 KiB).
pub fn check_invert_block(p: &Level3Params) -> Result<()> {
    if !matches!(p.invert_block, 16 | 32 | 64) || invert_shared_bytes(p) > SHARED_LIMIT {
        return Err(Error::invalid(
            "invert_block",
            format!(
                "{} for {}: 16, 32 or 64 with NB·(NB + 1) elements within {SHARED_LIMIT} bytes",
                p.invert_block, p.dtype
            ),
        ));
    }
    Ok(())
}

/// The launch of a tile kernel over the diagonal blocks of order `nb` of an n×n matrix.
pub fn tile_config(n: usize, nb: usize) -> LaunchConfig {
    let tiles = nb.min(n).div_ceil(TILE as usize).max(1) as u32;
    LaunchConfig {
        grid: [tiles, tiles, blocks(n, nb)],
        block: [TILE_BLOCK, 1, 1],
        shared_bytes: 0,
    }
}

/// The launch of `rocm_tri_invert` with blocks of order `nb` (= the params'
/// `invert_block`) over an n×n matrix.
pub fn invert_config(n: usize, nb: usize) -> LaunchConfig {
    LaunchConfig {
        grid: [blocks(n, nb), 1, 1],
        block: [nb as u32, 1, 1],
        shared_bytes: 0,
    }
}

/// Diagonal blocks of order `nb` in an n×n matrix (at least one).
fn blocks(n: usize, nb: usize) -> u32 {
    n.div_ceil(nb.max(1)).max(1) as u32
}

pub(crate) fn imm(ty: Ty, v: f64) -> Op {
    match ty {
        Ty::F32 => Op::F32(v as f32),
        _ => Op::F64(v),
    }
}

/// `flags & bit != 0`.
pub(crate) fn flag(k: &mut KernelBuilder, flags: Reg, bit: u32) -> Reg {
    let v = k.and_b32(flags, bit);
    k.setp(Cmp::Ne, Ty::U32, v, 0u32)
}

/// `base + (row + col·ld)·es` as a 64-bit address.
pub(crate) fn element(
    k: &mut KernelBuilder,
    base: Reg,
    row: Reg,
    col: Reg,
    ld: Reg,
    es: u32,
) -> Reg {
    let el = k.mul_wide_u32(col, ld);
    let row64 = k.cvt(Ty::U64, row);
    let el = k.add(Ty::U64, el, row64);
    let off = k.mul(Ty::U64, el, es);
    k.add(Ty::U64, base, off)
}

/// The start of diagonal block z of a matrix at `base` with leading dimension `ld`:
/// `base + first·(ld + 1)·es`.
fn diagonal_block(k: &mut KernelBuilder, base: Reg, first: Reg, ld: Reg, es: u32) -> Reg {
    let ld1 = k.add(Ty::U32, ld, 1u32);
    let el = k.mul_wide_u32(first, ld1);
    let off = k.mul(Ty::U64, el, es);
    k.add(Ty::U64, base, off)
}

/// `base + z·stride·es`.
pub(crate) fn strided(k: &mut KernelBuilder, base: Reg, z: Reg, stride: Reg, es: u32) -> Reg {
    let z64 = k.cvt(Ty::U64, z);
    let el = k.mul(Ty::U64, z64, stride);
    let off = k.mul(Ty::U64, el, es);
    k.add(Ty::U64, base, off)
}

/// A counted loop `for v in 0..limit` (runtime limit; uniform across the workgroup
/// where the body has barriers).
struct Loop {
    var: Reg,
    top: Label,
    done: Label,
}

fn loop_start(k: &mut KernelBuilder, limit: impl Into<Op>) -> Loop {
    let limit = limit.into();
    let var = k.mov(Ty::U32, 0u32);
    let (top, done) = (k.label(), k.label());
    k.place(top);
    let end = k.setp(Cmp::Ge, Ty::U32, var, limit);
    k.bra_if(end, false, done);
    Loop { var, top, done }
}

fn loop_end(k: &mut KernelBuilder, l: Loop) {
    k.add_to(l.var, 1u32);
    k.bra(l.top);
    k.place(l.done);
}

/// Common prologue of the tile kernels: (x, y) in the 32×8 work-item grid, the tile's
/// first row and column, the block index z, its first row/column `z·nb` and its order.
struct TileFrame {
    x: Reg,
    y: Reg,
    r0: Reg,
    c0: Reg,
    z: Reg,
    first: Reg,
    bs: Reg,
}

fn tile_frame(k: &mut KernelBuilder, n: Reg, nb: Reg) -> TileFrame {
    let tid = k.special(Special::TidX);
    let x = k.and_b32(tid, 31);
    let y = k.shr(Ty::U32, tid, 5);
    let bx = k.special(Special::CtaidX);
    let by = k.special_named("%ctaid.y");
    let z = k.special_named("%ctaid.z");
    let r0 = k.mul(Ty::U32, bx, TILE);
    let c0 = k.mul(Ty::U32, by, TILE);
    let first = k.mul(Ty::U32, z, nb);
    let left = k.sub(Ty::U32, n, first);
    let bs = k.min(Ty::U32, nb, left);
    TileFrame {
        x,
        y,
        r0,
        c0,
        z,
        first,
        bs,
    }
}

/// Whether (i, j) is in the stored triangle (diagonal included).
fn stored(k: &mut KernelBuilder, upper: Reg, i: Reg, j: Reg) -> Reg {
    let le = k.setp(Cmp::Le, Ty::U32, i, j);
    let ge = k.setp(Cmp::Ge, Ty::U32, i, j);
    let up = k.and_pred(upper, le);
    let lower = k.not_pred(upper);
    let lo = k.and_pred(lower, ge);
    k.or_pred(up, lo)
}

/// The element type: `comps` (1 real, 2 complex) components of the real type `ty`,
/// stored consecutively (re, im). A value is one register per component.
#[derive(Debug, Clone, Copy)]
pub(crate) struct El {
    pub(crate) ty: Ty,
    pub(crate) comps: u32,
}

impl El {
    /// The element type of `d` (f32, f64, Complex32, Complex64), else None.
    pub(crate) fn of(d: DType) -> Option<El> {
        match d {
            DType::F32 => Some(El::new(Ty::F32, 1)),
            DType::F64 => Some(El::new(Ty::F64, 1)),
            DType::C32 => Some(El::new(Ty::F32, 2)),
            DType::C64 => Some(El::new(Ty::F64, 2)),
            _ => None,
        }
    }

    /// `a·b` (complex: re = fma(−ai, bi, ar·br), im = fma(ai, br, ar·bi)).
    pub(crate) fn mul(self, k: &mut KernelBuilder, a: &[Reg], b: &[Reg]) -> Vec<Reg> {
        let ty = self.ty;
        let rr = k.mul(ty, a[0], b[0]);
        if self.comps == 1 {
            return vec![rr];
        }
        let ri = k.mul(ty, a[0], b[1]);
        let nai = k.neg(ty, a[1]);
        let re = k.fma(ty, nai, b[1], rr);
        let im = k.fma(ty, a[1], b[0], ri);
        vec![re, im]
    }

    fn new(ty: Ty, comps: u32) -> El {
        El { ty, comps }
    }

    /// Bytes per element.
    pub(crate) fn size(self) -> u32 {
        self.ty.size() * self.comps
    }

    /// `v` in every component (the real part; imaginary parts zero).
    pub(crate) fn constant(self, k: &mut KernelBuilder, re: f64) -> Vec<Reg> {
        (0..self.comps)
            .map(|c| k.mov(self.ty, imm(self.ty, if c == 0 { re } else { 0.0 })))
            .collect()
    }

    /// A global load of one element where `pred` holds (a vector load for complex).
    pub(crate) fn load_guarded(self, k: &mut KernelBuilder, addr: Reg, pred: Reg) -> Vec<Reg> {
        k.ld_global_vec_guarded(self.ty, self.comps, addr, pred)
    }

    pub(crate) fn ld_shared(self, k: &mut KernelBuilder, at: Reg) -> Vec<Reg> {
        (0..self.comps)
            .map(|c| k.ld_shared(self.ty, at, i64::from(c * self.ty.size())))
            .collect()
    }

    pub(crate) fn ld_shared_guarded(self, k: &mut KernelBuilder, at: Reg, pred: Reg) -> Vec<Reg> {
        (0..self.comps)
            .map(|c| k.ld_shared_guarded(self.ty, at, i64::from(c * self.ty.size()), pred))
            .collect()
    }

    pub(crate) fn st_shared(self, k: &mut KernelBuilder, at: Reg, v: &[Reg]) {
        for (c, &r) in v.iter().enumerate() {
            k.st_shared(at, i64::from(c as u32 * self.ty.size()), r);
        }
    }

    pub(crate) fn st_shared_guarded(self, k: &mut KernelBuilder, at: Reg, v: &[Reg], pred: Reg) {
        for (c, &r) in v.iter().enumerate() {
            k.when(pred, false)
                .st_shared(at, i64::from(c as u32 * self.ty.size()), r);
        }
    }

    /// Componentwise `p ? a : b`.
    pub(crate) fn selp(self, k: &mut KernelBuilder, a: &[Op], b: &[Op], p: Reg) -> Vec<Reg> {
        (0..self.comps as usize)
            .map(|c| k.selp(self.ty, a[c], b[c], p))
            .collect()
    }

    /// `acc + a·b` (complex: four fmas, the real-part products first, as the AMDGPU
    /// kernels: re = fma(−ai, bi, fma(ar, br, re)), im = fma(ai, br, fma(ar, bi, im))).
    pub(crate) fn fma(self, k: &mut KernelBuilder, a: &[Reg], b: &[Reg], acc: &[Reg]) -> Vec<Reg> {
        let ty = self.ty;
        let re = k.fma(ty, a[0], b[0], acc[0]);
        if self.comps == 1 {
            return vec![re];
        }
        let im = k.fma(ty, a[0], b[1], acc[1]);
        let nai = k.neg(ty, a[1]);
        let re = k.fma(ty, nai, b[1], re);
        let im = k.fma(ty, a[1], b[0], im);
        vec![re, im]
    }

    /// `n / d`: real `div.rn`; complex `n·(conj(d)·(1/|d|²))`, |d|² = fma(di, di, dr·dr),
    /// the product as re = fma(−ni, vi, nr·vr), im = fma(ni, vr, nr·vi).
    pub(crate) fn div(self, k: &mut KernelBuilder, n: &[Reg], d: &[Reg]) -> Vec<Reg> {
        let ty = self.ty;
        if self.comps == 1 {
            return vec![k.div(ty, n[0], d[0])];
        }
        let sq = k.mul(ty, d[0], d[0]);
        let sq = k.fma(ty, d[1], d[1], sq);
        let rs = k.div(ty, imm(ty, 1.0), sq);
        let vr = k.mul(ty, d[0], rs);
        let ndi = k.neg(ty, d[1]);
        let vi = k.mul(ty, ndi, rs);
        let rr = k.mul(ty, n[0], vr);
        let nni = k.neg(ty, n[1]);
        let re = k.fma(ty, nni, vi, rr);
        let ri = k.mul(ty, n[0], vi);
        let im = k.fma(ty, n[1], vr, ri);
        vec![re, im]
    }
}

pub(crate) fn ops(v: &[Reg]) -> Vec<Op> {
    v.iter().map(|&r| Op::R(r)).collect()
}

fn expand(el: El, sig: &Signature) -> Result<KernelBuilder> {
    let (ty, es) = (el.ty, el.size());
    let (mut k, params) = KernelBuilder::from_signature(sig);
    let pdst = params.get("dst")?.clone();
    let psrc = params.get("src")?.clone();
    let pn = params.get("n")?.clone();
    let pnb = params.get("nb")?.clone();
    let pld_src = params.get("ld_src")?.clone();
    let pld_dst = params.get("ld_dst")?.clone();
    let pstride = params.get("stride_dst")?.clone();
    let pflags = params.get("flags")?.clone();
    let dst0 = k.ld_param_global_ptr(&pdst);
    let src0 = k.ld_param_global_ptr(&psrc);
    let n = k.ld_param(&pn);
    let nb = k.ld_param(&pnb);
    let ld_src = k.ld_param(&pld_src);
    let ld_dst = k.ld_param(&pld_dst);
    let stride = k.ld_param(&pstride);
    let flags = k.ld_param(&pflags);
    let pitch = TILE + 1;
    let tile = k.shared_array("rocm_tri_expand_tile", TILE * pitch * es, 8);
    let f = tile_frame(&mut k, n, nb);
    let src = diagonal_block(&mut k, src0, f.first, ld_src, es);
    let dst = strided(&mut k, dst0, f.z, stride, es);
    let upper = flag(&mut k, flags, UPPER);
    let mirror = flag(&mut k, flags, MIRROR);
    let unit = flag(&mut k, flags, UNIT);
    let herm = flag(&mut k, flags, HERM);

    // Mirror staging: tile[y + 8s][x] = src(c0 + x, r0 + y + 8s), the transposed tile
    // whose stored elements the mirrored positions of this tile read.
    k.comment("stage the transposed tile for mirrored elements");
    let mrow = k.add(Ty::U32, f.c0, f.x);
    let mrow_in = k.setp(Cmp::Lt, Ty::U32, mrow, f.bs);
    let mrow_in = k.and_pred(mrow_in, mirror);
    for s in 0..TILE / 8 {
        let ys = k.add(Ty::U32, f.y, 8 * s);
        let mcol = k.add(Ty::U32, f.r0, ys);
        let mcol_in = k.setp(Cmp::Lt, Ty::U32, mcol, f.bs);
        let inside = k.and_pred(mrow_in, mcol_in);
        let addr = element(&mut k, src, mrow, mcol, ld_src, es);
        let v = el.load_guarded(&mut k, addr, inside);
        let slot = k.fma(Ty::U32, ys, pitch, f.x);
        let slot_bytes = k.mul(Ty::U32, slot, es);
        let at = k.add(Ty::U32, tile, slot_bytes);
        el.st_shared_guarded(&mut k, at, &v, inside);
    }
    k.bar_sync();
    k.comment("write the dense tile");
    let zero = ops(&el.constant(&mut k, 0.0));
    let one = ops(&el.constant(&mut k, 1.0));
    let i = k.add(Ty::U32, f.r0, f.x);
    let i_in = k.setp(Cmp::Lt, Ty::U32, i, f.bs);
    for s in 0..TILE / 8 {
        let ys = k.add(Ty::U32, f.y, 8 * s);
        let j = k.add(Ty::U32, f.c0, ys);
        let j_in = k.setp(Cmp::Lt, Ty::U32, j, f.bs);
        let inside = k.and_pred(i_in, j_in);
        let is_stored = stored(&mut k, upper, i, j);
        let diag = k.setp(Cmp::Eq, Ty::U32, i, j);
        let unit_diag = k.and_pred(diag, unit);
        let read = k.and_pred(inside, is_stored);
        let not_unit = k.not_pred(unit_diag);
        let read = k.and_pred(read, not_unit);
        let addr = element(&mut k, src, i, j, ld_src, es);
        let mut direct = el.load_guarded(&mut k, addr, read);
        // Mirrored: src(j, i) = tile[x][y + 8s].
        let not_stored = k.not_pred(is_stored);
        let want_mirror = k.and_pred(inside, not_stored);
        let want_mirror = k.and_pred(want_mirror, mirror);
        let slot = k.fma(Ty::U32, f.x, pitch, ys);
        let slot_bytes = k.mul(Ty::U32, slot, es);
        let at = k.add(Ty::U32, tile, slot_bytes);
        let mut mirrored = el.ld_shared_guarded(&mut k, at, want_mirror);
        if el.comps == 2 {
            // Hermitian: mirrored elements conjugated, the diagonal's imaginary part zero.
            let conj = k.neg(ty, mirrored[1]);
            mirrored[1] = k.selp(ty, conj, mirrored[1], herm);
            let herm_diag = k.and_pred(herm, diag);
            direct[1] = k.selp(ty, imm(ty, 0.0), direct[1], herm_diag);
        }
        let other = el.selp(&mut k, &ops(&mirrored), &zero, mirror);
        let v = el.selp(&mut k, &ops(&direct), &ops(&other), is_stored);
        let v = el.selp(&mut k, &one, &ops(&v), unit_diag);
        let out = element(&mut k, dst, i, j, ld_dst, es);
        k.when(inside, false).st_global(out, 0, &v);
    }
    k.ret();
    Ok(k)
}

fn invert(el: El, nb: u32, sig: &Signature) -> Result<KernelBuilder> {
    let (ty, es) = (el.ty, el.size());
    let pitch = nb + 1;
    let (mut k, params) = KernelBuilder::from_signature(sig);
    let pdst = params.get("dst")?.clone();
    let psrc = params.get("src")?.clone();
    let pn = params.get("n")?.clone();
    let pld_src = params.get("ld_src")?.clone();
    let pstride = params.get("stride_dst")?.clone();
    let pflags = params.get("flags")?.clone();
    let dst0 = k.ld_param_global_ptr(&pdst);
    let src0 = k.ld_param_global_ptr(&psrc);
    let n = k.ld_param(&pn);
    let ld_src = k.ld_param(&pld_src);
    let stride = k.ld_param(&pstride);
    let flags = k.ld_param(&pflags);
    let arr = k.shared_array("rocm_tri_invert_block", nb * pitch * es, 8);
    let t = k.special(Special::TidX);
    let z = k.special(Special::CtaidX);
    let first = k.mul(Ty::U32, z, nb);
    let left = k.sub(Ty::U32, n, first);
    let bs = k.min(Ty::U32, left, nb);
    let src = diagonal_block(&mut k, src0, first, ld_src, es);
    let dst = strided(&mut k, dst0, z, stride, es);
    let upper = flag(&mut k, flags, UPPER);
    let unit = flag(&mut k, flags, UNIT);
    let t_in = k.setp(Cmp::Lt, Ty::U32, t, bs);
    let zero = ops(&el.constant(&mut k, 0.0));
    let one = ops(&el.constant(&mut k, 1.0));
    // Byte address of arr[r][c].
    let slot = |k: &mut KernelBuilder, r: Reg, c: Reg| -> Reg {
        let s = k.fma(Ty::U32, r, pitch, c);
        let b = k.mul(Ty::U32, s, es);
        k.add(Ty::U32, arr, b)
    };

    k.comment("load L (= the block, or its transpose when upper); identity beyond bs");
    let lp = loop_start(&mut k, nb);
    let p = lp.var;
    let p_in = k.setp(Cmp::Lt, Ty::U32, p, bs);
    let inside = k.and_pred(t_in, p_in);
    let addr = element(&mut k, src, t, p, ld_src, es);
    // Element (t, p) of the block: coalesced across work-items.
    let below = k.setp(Cmp::Gt, Ty::U32, t, p);
    let above = k.setp(Cmp::Lt, Ty::U32, t, p);
    let lower_part = k.not_pred(upper);
    let lower_part = k.and_pred(lower_part, below);
    let upper_part = k.and_pred(upper, above);
    let off_diag = k.or_pred(lower_part, upper_part);
    let diag = k.setp(Cmp::Eq, Ty::U32, t, p);
    let read_diag = k.not_pred(unit);
    let read_diag = k.and_pred(read_diag, diag);
    let read = k.or_pred(off_diag, read_diag);
    let read = k.and_pred(read, inside);
    let a = el.load_guarded(&mut k, addr, read);
    let zero_or_one = el.selp(&mut k, &one, &zero, diag);
    let v = el.selp(&mut k, &ops(&a), &ops(&zero_or_one), read);
    // Lower: L[t][p] = A(t, p); upper: L[p][t] = A(t, p).
    let row = k.selp(Ty::U32, p, t, upper);
    let col = k.selp(Ty::U32, t, p, upper);
    let at = slot(&mut k, row, col);
    el.st_shared(&mut k, at, &v);
    loop_end(&mut k, lp);
    k.bar_sync();

    k.comment("forward substitution, one row of X = inv(L) at a time, over L's row");
    let li = loop_start(&mut k, nb);
    let i = li.var;
    let acc = el.constant(&mut k, 0.0);
    let lq = loop_start(&mut k, i);
    let q = lq.var;
    let l_at = slot(&mut k, i, q);
    let l_iq = el.ld_shared(&mut k, l_at);
    let x_at = slot(&mut k, q, t);
    let x_qt = el.ld_shared(&mut k, x_at);
    let next = el.fma(&mut k, &l_iq, &x_qt, &acc);
    for (&a, &n) in acc.iter().zip(&next) {
        k.assign(a, n);
    }
    loop_end(&mut k, lq);
    let d_at = slot(&mut k, i, i);
    let d = el.ld_shared(&mut k, d_at);
    let own = k.setp(Cmp::Eq, Ty::U32, t, i);
    let delta = el.selp(&mut k, &one, &zero, own);
    k.bar_sync();
    let num: Vec<Reg> = delta
        .iter()
        .zip(&acc)
        .map(|(&dl, &a)| k.sub(ty, dl, a))
        .collect();
    let x = el.div(&mut k, &num, &d);
    let out_at = slot(&mut k, i, t);
    el.st_shared(&mut k, out_at, &x);
    k.bar_sync();
    loop_end(&mut k, li);

    k.comment("write the dense inverse (transposed back when upper)");
    let lj = loop_start(&mut k, nb);
    let j = lj.var;
    let row = k.selp(Ty::U32, j, t, upper);
    let col = k.selp(Ty::U32, t, j, upper);
    let at = slot(&mut k, row, col);
    let v = el.ld_shared(&mut k, at);
    let nb_reg = k.mov(Ty::U32, nb);
    let out = element(&mut k, dst, t, j, nb_reg, es);
    k.st_global(out, 0, &v);
    loop_end(&mut k, lj);
    k.ret();
    Ok(k)
}

fn update(el: El, sig: &Signature) -> Result<KernelBuilder> {
    let (ty, es) = (el.ty, el.size());
    let (mut k, params) = KernelBuilder::from_signature(sig);
    let pc = params.get("c")?.clone();
    let pw = params.get("w")?.clone();
    let pn = params.get("n")?.clone();
    let pnb = params.get("nb")?.clone();
    let pldc = params.get("ldc")?.clone();
    let pld_w = params.get("ld_w")?.clone();
    let pstride = params.get("stride_w")?.clone();
    let pbeta: Vec<_> = (0..el.comps)
        .map(|c| params.get(if c == 0 { "beta" } else { "beta_im" }).cloned())
        .collect::<Result<_>>()?;
    let pflags = params.get("flags")?.clone();
    let c0 = k.ld_param_global_ptr(&pc);
    let w0 = k.ld_param_global_ptr(&pw);
    let n = k.ld_param(&pn);
    let nb = k.ld_param(&pnb);
    let ldc = k.ld_param(&pldc);
    let ld_w = k.ld_param(&pld_w);
    let stride = k.ld_param(&pstride);
    let beta: Vec<Reg> = pbeta.iter().map(|p| k.ld_param(p)).collect();
    let flags = k.ld_param(&pflags);
    let f = tile_frame(&mut k, n, nb);
    let c = diagonal_block(&mut k, c0, f.first, ldc, es);
    let w = strided(&mut k, w0, f.z, stride, es);
    let upper = flag(&mut k, flags, UPPER);
    let read_c = flag(&mut k, flags, READ_C);
    let unit = flag(&mut k, flags, UNIT);
    let herm = flag(&mut k, flags, HERM);
    let not_unit = k.not_pred(unit);
    let i = k.add(Ty::U32, f.r0, f.x);
    let i_in = k.setp(Cmp::Lt, Ty::U32, i, f.bs);
    for s in 0..TILE / 8 {
        let ys = k.add(Ty::U32, f.y, 8 * s);
        let j = k.add(Ty::U32, f.c0, ys);
        let j_in = k.setp(Cmp::Lt, Ty::U32, j, f.bs);
        let inside = k.and_pred(i_in, j_in);
        let is_stored = stored(&mut k, upper, i, j);
        let inside = k.and_pred(inside, is_stored);
        // With `unit` the diagonal is left alone (trtri of a unit triangle).
        let off_diagonal = k.setp(Cmp::Ne, Ty::U32, i, j);
        let keep = k.or_pred(off_diagonal, not_unit);
        let inside = k.and_pred(inside, keep);
        let w_addr = element(&mut k, w, i, j, ld_w, es);
        let wv = el.load_guarded(&mut k, w_addr, inside);
        let c_addr = element(&mut k, c, i, j, ldc, es);
        let read = k.and_pred(inside, read_c);
        // C is written by this kernel: the coherent path.
        k.when(read, false);
        let cv = k.ld_global(ty, el.comps, c_addr, 0, LoadCache::Default);
        let scaled = el.fma(&mut k, &beta, &cv, &wv);
        let mut v = el.selp(&mut k, &ops(&scaled), &ops(&wv), read);
        if el.comps == 2 {
            // herk/her2k: the diagonal is real.
            let diag = k.not_pred(off_diagonal);
            let herm_diag = k.and_pred(herm, diag);
            v[1] = k.selp(ty, imm(ty, 0.0), v[1], herm_diag);
        }
        k.when(inside, false).st_global(c_addr, 0, &v);
    }
    k.ret();
    Ok(k)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn variants() -> Vec<Level3Params> {
        let mut v = Vec::new();
        for dtype in [DType::F32, DType::F64, DType::C32, DType::C64] {
            for invert_block in [16, 32, 64] {
                let p = Level3Params {
                    dtype,
                    invert_block,
                };
                if check_invert_block(&p).is_ok() {
                    v.push(p);
                }
            }
        }
        v
    }

    #[test]
    fn kernels_pass_ptxas_without_spills_or_warnings() {
        for (p, _, report) in crate::ptxas::assert_clean::<Level3>(&variants()) {
            let inv = report.kernel(INVERT).unwrap();
            let nb = p.invert_block;
            assert_eq!(inv.shared_bytes, invert_shared_bytes(&p), "{p:?}");
            assert_eq!(inv.shared_bytes, nb * (nb + 1) * p.dtype.size() as u32);
        }
    }

    #[test]
    fn parameters_follow_the_documented_order() {
        let target: Target = "sm_90".parse().unwrap();
        let prog = Level3::generate(
            &Level3Params {
                dtype: DType::F64,
                invert_block: 64,
            },
            &target,
        )
        .unwrap();
        let ModuleImage::Ptx(text) = prog.image else {
            unreachable!()
        };
        let params_of = |name: &str| -> Vec<String> {
            let start = text.find(&format!(".entry {name}(")).unwrap();
            text[start..]
                .lines()
                .skip(1)
                .take_while(|l| !l.starts_with(')'))
                .map(|l| l.trim().trim_end_matches(',').to_string())
                .collect()
        };
        let p = |list: &[&str]| -> Vec<String> {
            list.iter().map(|s| format!(".param .{s}")).collect()
        };
        assert_eq!(
            params_of(EXPAND),
            p(&[
                "u64 p_dst",
                "u64 p_src",
                "u32 p_n",
                "u32 p_nb",
                "u32 p_ld_src",
                "u32 p_ld_dst",
                "u64 p_stride_dst",
                "u32 p_flags"
            ])
        );
        assert_eq!(
            params_of(INVERT),
            p(&[
                "u64 p_dst",
                "u64 p_src",
                "u32 p_n",
                "u32 p_ld_src",
                "u64 p_stride_dst",
                "u32 p_flags"
            ])
        );
        assert_eq!(
            params_of(UPDATE),
            p(&[
                "u64 p_c",
                "u64 p_w",
                "u32 p_n",
                "u32 p_nb",
                "u32 p_ldc",
                "u32 p_ld_w",
                "u64 p_stride_w",
                "f64 p_beta",
                "u32 p_flags"
            ])
        );
    }

    #[test]
    fn bad_params_and_targets_are_errors() {
        let sm90: Target = "sm_90".parse().unwrap();
        let p = |dtype, invert_block| Level3Params {
            dtype,
            invert_block,
        };
        assert!(matches!(
            Level3::generate(&p(DType::F16, 32), &sm90),
            Err(Error::Unsupported { .. })
        ));
        assert!(matches!(
            Level3::generate(&p(DType::C64, 64), &sm90),
            Err(Error::InvalidArgument { .. })
        ));
        assert!(matches!(
            Level3::generate(&p(DType::F32, 48), &sm90),
            Err(Error::InvalidArgument { .. })
        ));
        assert!(matches!(
            Level3::generate(&p(DType::F16, 64), &"gfx90a".parse().unwrap()),
            Err(Error::Unsupported { .. })
        ));
    }

    #[test]
    fn launches_cover_every_block() {
        // 200 with blocks of 64: 4 blocks (the last of 8), 2×2 tiles each.
        let c = tile_config(200, 64);
        assert_eq!((c.grid, c.block), ([2, 2, 4], [TILE_BLOCK, 1, 1]));
        // One whole matrix: nb = n.
        assert_eq!(tile_config(33, 33).grid, [2, 2, 1]);
        assert_eq!(invert_config(200, 64).grid, [4, 1, 1]);
        assert_eq!(invert_config(200, 64).block, [64, 1, 1]);
    }
}

#[cfg(test)]
mod plan_tests {
    use super::*;

    /// trmm's expansion of a 100×100 triangle into blocks of 64: two blocks of 64²
    /// written (the last one partial, still inside its block), A's 100 columns at lda 120
    /// read, two tile rows of the grid per block.
    #[test]
    fn expansion_touches_whole_blocks_and_the_triangle() {
        let p = TriProblem {
            dtype: DType::F64,
            invert_block: 64,
            kernel: TriKernel::Expand {
                nb: 64,
                ld_dst: 64,
                stride_dst: 64 * 64,
            },
            n: 100,
            ld: 120,
            dst_slot: 0,
            src_slot: 1,
            flags: UPPER,
        };
        assert_eq!(p.dst_elements(), 2 * 64 * 64);
        assert_eq!(p.src_elements(), 99 * 120 + 100);
        let plan = plan(&p).unwrap();
        for t in ["sm_90", "gfx90a"] {
            plan.check(&t.parse().unwrap()).unwrap();
        }
        assert_eq!(plan.steps[0].config.grid, [2, 2, 2]);
        assert_eq!(plan.steps[0].signature.kernel, EXPAND);
    }

    /// syrk's update of C (n = 600 at ldc 700) from blocks of 512: C's triangles
    /// read and written, both w blocks read, β bound for a complex type.
    #[test]
    fn update_binds_beta_and_reads_every_block() {
        let p = TriProblem {
            dtype: DType::C32,
            invert_block: 64,
            kernel: TriKernel::Update {
                nb: 512,
                ld_w: 512,
                stride_w: 512 * 512,
                beta: (0.5, -2.0),
            },
            n: 600,
            ld: 700,
            dst_slot: 0,
            src_slot: 1,
            flags: READ_C,
        };
        assert_eq!(p.dst_elements(), 599 * 700 + 600);
        assert_eq!(p.src_elements(), 2 * 512 * 512);
        let planned = plan(&p).unwrap();
        planned.check(&"gfx942".parse().unwrap()).unwrap();
        let args = &planned.steps[0].args;
        assert_eq!(args[7], Arg::Value(Value::F32(0.5)));
        assert_eq!(args[8], Arg::Value(Value::F32(-2.0)));
        assert!(matches!(
            plan(&TriProblem { n: 1 << 32, ..p }),
            Err(Error::InvalidArgument { .. })
        ));
    }
}
