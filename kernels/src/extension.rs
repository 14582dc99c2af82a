//! The rocBLAS extension kernels geam and dgmm (f32, f64, Complex32, Complex64; PTX here,
//! AMDGPU targets in [`crate::amdgpu::extension`] with the same contract), batched
//! through the grid's z dimension (strided: problem z at `base + z·stride` elements).
//!
//! - `rocm_geam` — C = α·op(A) + β·op(B), all m×n. A 32×32 tile of C per workgroup of
//!   32×8 work-items, four elements each. An operand not transposed is read straight
//!   from global memory (32 consecutive rows per warp); a transposed one is first
//!   copied into shared memory along its own rows (so the warp's reads are again 32
//!   consecutive elements) and read back across them, with rows padded to 33 elements
//!   so both passes are free of bank conflicts. Without [`READ_A`] (α = 0) A is not
//!   read and its term is zero, even where A holds NaN or infinity; likewise B.
//! - `rocm_dgmm` — C = A·diag(x) ([`LEFT`] unset: column j scaled by x_j) or
//!   diag(x)·A (row i by x_i). Element k of x is at `x + k·incx` elements, incx signed:
//!   the host passes x's far end for a negative increment, as BLAS walks it.
//!
//! Each element of C is one rounding of a product (dgmm) or of a fused multiply-add
//! after one product (geam: `fma(β, b, α·a)`), so |error| ≤ 2·u·(|α·a| + |β·b|).
//! Complex: products as `re = fma(−ai, bi, ar·br)`, `im = fma(ai, br, ar·bi)` and geam's
//! `β·b` added by four fmas (real-part products first); [`CONJ_A`] / [`CONJ_B`] negate a
//! transposed operand's imaginary part (a conjugate transpose). Complex scalars are two
//! parameters of the real type: `alpha`, `alpha_im` (likewise β).
//!
//! Kernel parameters, in order (`ty` the element type; strides in elements):
//! - `rocm_geam(c: u64, a: u64, b: u64, m: u32, n: u32, lda: u32, ldb: u32, ldc: u32,
//!   stride_a: u64, stride_b: u64, stride_c: u64, alpha: ty, [alpha_im: ty,] beta: ty,
//!   [beta_im: ty,] flags: u32)` (`ty` the real type), flags of [`TRANS_A`], [`TRANS_B`],
//!   [`READ_A`], [`READ_B`], [`CONJ_A`], [`CONJ_B`].
//! - `rocm_dgmm(c: u64, a: u64, x: u64, m: u32, n: u32, lda: u32, ldc: u32, incx: s32,
//!   stride_a: u64, stride_x: u64, stride_c: u64, flags: u32)`, flags of [`LEFT`].
//!
//! Both launch as [`config`]: grid `(⌈m/32⌉, ⌈n/32⌉, batch)` of [`BLOCK`] work-items.

use crate::generator::{Generator, LaunchRule, Program};
use crate::level3::{element, flag, ops, strided, El};
use crate::ptx::{Cmp, KernelBuilder, LoadCache, Module, Param, Params, Reg, Special, Ty};
use crate::signature::Signature;
use rocm_core::target::KernelIsa;
use rocm_core::{DType, Error, LaunchConfig, ModuleImage, Result, Target};

pub mod plan;

pub const GEAM: &str = "rocm_geam";
pub const DGMM: &str = "rocm_dgmm";

/// Flag (geam): A is transposed.
pub const TRANS_A: u32 = 1;
/// Flag (geam): B is transposed.
pub const TRANS_B: u32 = 2;
/// Flag (geam): α ≠ 0, so A is read.
pub const READ_A: u32 = 4;
/// Flag (geam): β ≠ 0, so B is read.
pub const READ_B: u32 = 8;
/// Flag (geam, complex): A's transpose is the conjugate transpose (with [`TRANS_A`]).
pub const CONJ_A: u32 = 16;
/// Flag (geam, complex): B's transpose is the conjugate transpose (with [`TRANS_B`]).
pub const CONJ_B: u32 = 32;
/// Flag (dgmm): diag(x)·A (rows scaled), else A·diag(x) (columns).
pub const LEFT: u32 = 1;

/// Work-items per workgroup (32 × 8).
pub const BLOCK: u32 = 256;
/// Edge of a workgroup's tile of C.
pub const TILE: u32 = 32;

/// The kernels for one element type.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct ExtensionParams {
    /// f32, f64, Complex32 or Complex64.
    pub dtype: DType,
}

/// The geam/dgmm generator.
pub struct Extension;

impl Generator for Extension {
    type Params = ExtensionParams;
    const NAME: &'static str = "extension";
    const VERSION: u32 = 2;

    fn generate(p: &ExtensionParams, target: &Target) -> Result<Program> {
        if target.caps().kernel_isa == KernelIsa::Amdgpu {
            return crate::amdgpu::extension::program(p, target);
        }
        let el = El::of(p.dtype).ok_or_else(|| {
            Error::unsupported(
                format!("geam/dgmm kernels for {}", p.dtype),
                target.to_string(),
            )
        })?;
        let mut module = Module::for_kernels(target, "geam/dgmm kernels")?;
        module.push(&geam(el, &plan::geam_signature(p))?);
        module.push(&dgmm(el, &plan::dgmm_signature(p))?);
        Ok(Program {
            image: ModuleImage::Ptx(module.text()),
            kernels: vec![GEAM.into(), DGMM.into()],
            signatures: vec![plan::geam_signature(p), plan::dgmm_signature(p)],
            launch: LaunchRule::Fixed {
                grid: 1,
                block: BLOCK,
            },
        })
    }
}

/// The launch over an m×n matrix, `batch` problems.
pub fn config(m: usize, n: usize, batch: usize) -> LaunchConfig {
    let tiles = |v: usize| v.div_ceil(TILE as usize).max(1) as u32;
    LaunchConfig {
        grid: [tiles(m), tiles(n), batch.max(1) as u32],
        block: [BLOCK, 1, 1],
        shared_bytes: 0,
    }
}

/// The work-item's place: x (0..32) along the tile's rows, y (0..8), and the tile's
/// first row and column, and the problem z.
struct Frame {
    x: Reg,
    y: Reg,
    r0: Reg,
    c0: Reg,
    z: Reg,
}

fn frame(k: &mut KernelBuilder) -> Frame {
    let tid = k.special(Special::TidX);
    let x = k.and_b32(tid, 31);
    let y = k.shr(Ty::U32, tid, 5);
    let bx = k.special(Special::CtaidX);
    let by = k.special_named("%ctaid.y");
    let z = k.special_named("%ctaid.z");
    let r0 = k.mul(Ty::U32, bx, TILE);
    let c0 = k.mul(Ty::U32, by, TILE);
    Frame { x, y, r0, c0, z }
}

/// The handles of the scalar parameters of the element type: `name` (and `name_im` for
/// complex).
fn scalar_params(params: &Params, el: El, name: &str) -> Result<Vec<Param>> {
    (0..el.comps)
        .map(|c| {
            if c == 0 {
                params.get(name).cloned()
            } else {
                params.get(&format!("{name}_im")).cloned()
            }
        })
        .collect()
}

fn geam(el: El, sig: &Signature) -> Result<KernelBuilder> {
    let (ty, es) = (el.ty, el.size());
    let (mut k, params) = KernelBuilder::from_signature(sig);
    let pc = params.get("c")?.clone();
    let pa = params.get("a")?.clone();
    let pb = params.get("b")?.clone();
    let pm = params.get("m")?.clone();
    let pn = params.get("n")?.clone();
    let plda = params.get("lda")?.clone();
    let pldb = params.get("ldb")?.clone();
    let pldc = params.get("ldc")?.clone();
    let psa = params.get("stride_a")?.clone();
    let psb = params.get("stride_b")?.clone();
    let psc = params.get("stride_c")?.clone();
    let palpha = scalar_params(&params, el, "alpha")?;
    let pbeta = scalar_params(&params, el, "beta")?;
    let pflags = params.get("flags")?.clone();
    let (c0p, a0p, b0p) = (
        k.ld_param_global_ptr(&pc),
        k.ld_param_global_ptr(&pa),
        k.ld_param_global_ptr(&pb),
    );
    let (m, n) = (k.ld_param(&pm), k.ld_param(&pn));
    let (lda, ldb, ldc) = (k.ld_param(&plda), k.ld_param(&pldb), k.ld_param(&pldc));
    let (sa, sb, sc) = (k.ld_param(&psa), k.ld_param(&psb), k.ld_param(&psc));
    let alpha: Vec<Reg> = palpha.iter().map(|p| k.ld_param(p)).collect();
    let beta: Vec<Reg> = pbeta.iter().map(|p| k.ld_param(p)).collect();
    let flags = k.ld_param(&pflags);
    let f = frame(&mut k);
    let a = strided(&mut k, a0p, f.z, sa, es);
    let b = strided(&mut k, b0p, f.z, sb, es);
    let c = strided(&mut k, c0p, f.z, sc, es);
    // One 32×33 tile per operand.
    let part = TILE * (TILE + 1) * es;
    let smem = k.shared_array("geam_tiles", 2 * part, 16);
    let operands = [
        (
            a,
            lda,
            flag(&mut k, flags, TRANS_A),
            flag(&mut k, flags, READ_A),
            flag(&mut k, flags, CONJ_A),
            0,
        ),
        (
            b,
            ldb,
            flag(&mut k, flags, TRANS_B),
            flag(&mut k, flags, READ_B),
            flag(&mut k, flags, CONJ_B),
            part,
        ),
    ];
    // Transposed operands into shared memory: op(X)(i, j) = X(j, i), X stored n×m; the
    // work-item reads X(c0 + x, r0 + y + 8q) (consecutive along X's rows) into row
    // y + 8q, column x of the tile.
    let jx = k.add(Ty::U32, f.c0, f.x);
    let jx_in = k.setp(Cmp::Lt, Ty::U32, jx, n);
    for &(base, ld, trans, read, _, off) in &operands {
        let load = k.and_pred(trans, read);
        for q in 0..TILE / 8 {
            let yq = k.add(Ty::U32, f.y, 8 * q);
            let ic = k.add(Ty::U32, f.r0, yq);
            let ic_in = k.setp(Cmp::Lt, Ty::U32, ic, m);
            let inside = k.and_pred(jx_in, ic_in);
            let inside = k.and_pred(inside, load);
            let addr = element(&mut k, base, jx, ic, ld, es);
            let v = el.constant(&mut k, 0.0);
            k.when(inside, false);
            k.ld_global_into(&v, addr, 0, LoadCache::NonCoherent);
            let at = k.fma(Ty::U32, yq, TILE + 1, f.x);
            let bytes = k.mul(Ty::U32, at, es);
            let s = k.add(Ty::U32, smem, bytes);
            let s = k.add(Ty::U32, s, off);
            el.st_shared(&mut k, s, &v);
        }
    }
    k.bar_sync();
    // C(i, j), i = r0 + x, j = c0 + y + 8q.
    let i = k.add(Ty::U32, f.r0, f.x);
    let i_in = k.setp(Cmp::Lt, Ty::U32, i, m);
    for q in 0..TILE / 8 {
        let yq = k.add(Ty::U32, f.y, 8 * q);
        let j = k.add(Ty::U32, f.c0, yq);
        let j_in = k.setp(Cmp::Lt, Ty::U32, j, n);
        let inside = k.and_pred(i_in, j_in);
        let mut terms = Vec::new();
        for &(base, ld, trans, read, conj, off) in &operands {
            // Straight: X(i, j) from global memory. Transposed: tile row x, column y + 8q.
            let straight = k.not_pred(trans);
            let direct = k.and_pred(inside, straight);
            let direct = k.and_pred(direct, read);
            let addr = element(&mut k, base, i, j, ld, es);
            let g = el.constant(&mut k, 0.0);
            k.when(direct, false);
            k.ld_global_into(&g, addr, 0, LoadCache::NonCoherent);
            let at = k.fma(Ty::U32, f.x, TILE + 1, yq);
            let bytes = k.mul(Ty::U32, at, es);
            let s = k.add(Ty::U32, smem, bytes);
            let s = k.add(Ty::U32, s, off);
            let t = el.ld_shared(&mut k, s);
            // An operand not read loaded nothing (here or into the tile): zero.
            let mut v = el.selp(&mut k, &ops(&t), &ops(&g), trans);
            if el.comps == 2 {
                // A conjugate transpose: the imaginary part negated (only where read,
                // so an unread operand stays +0).
                let flip = k.and_pred(conj, read);
                let neg = k.neg(ty, v[1]);
                v[1] = k.selp(ty, neg, v[1], flip);
            }
            terms.push(v);
        }
        let scaled = el.mul(&mut k, &alpha, &terms[0]);
        let v = el.fma(&mut k, &beta, &terms[1], &scaled);
        let addr = element(&mut k, c, i, j, ldc, es);
        k.when(inside, false).st_global(addr, 0, &v);
    }
    k.ret();
    Ok(k)
}

fn dgmm(el: El, sig: &Signature) -> Result<KernelBuilder> {
    let es = el.size();
    let (mut k, params) = KernelBuilder::from_signature(sig);
    let pc = params.get("c")?.clone();
    let pa = params.get("a")?.clone();
    let px = params.get("x")?.clone();
    let pm = params.get("m")?.clone();
    let pn = params.get("n")?.clone();
    let plda = params.get("lda")?.clone();
    let pldc = params.get("ldc")?.clone();
    let pincx = params.get("incx")?.clone();
    let psa = params.get("stride_a")?.clone();
    let psx = params.get("stride_x")?.clone();
    let psc = params.get("stride_c")?.clone();
    let pflags = params.get("flags")?.clone();
    let (c0p, a0p, x0p) = (
        k.ld_param_global_ptr(&pc),
        k.ld_param_global_ptr(&pa),
        k.ld_param_global_ptr(&px),
    );
    let (m, n) = (k.ld_param(&pm), k.ld_param(&pn));
    let (lda, ldc) = (k.ld_param(&plda), k.ld_param(&pldc));
    let incx = k.ld_param(&pincx);
    let (sa, sx, sc) = (k.ld_param(&psa), k.ld_param(&psx), k.ld_param(&psc));
    let flags = k.ld_param(&pflags);
    let f = frame(&mut k);
    let a = strided(&mut k, a0p, f.z, sa, es);
    let x = strided(&mut k, x0p, f.z, sx, es);
    let c = strided(&mut k, c0p, f.z, sc, es);
    let left = flag(&mut k, flags, LEFT);
    let i = k.add(Ty::U32, f.r0, f.x);
    let i_in = k.setp(Cmp::Lt, Ty::U32, i, m);
    for q in 0..TILE / 8 {
        let yq = k.add(Ty::U32, f.y, 8 * q);
        let j = k.add(Ty::U32, f.c0, yq);
        let j_in = k.setp(Cmp::Lt, Ty::U32, j, n);
        let inside = k.and_pred(i_in, j_in);
        let a_at = element(&mut k, a, i, j, lda, es);
        let av = el.load_guarded(&mut k, a_at, inside);
        // x's element: index i (left) or j, at x + index·incx (signed).
        let idx = k.selp(Ty::U32, i, j, left);
        let steps = k.reg(Ty::S64);
        k.emit(format!("mul.wide.s32 {steps}, {idx}, {incx}"));
        let bytes = k.reg(Ty::S64);
        k.emit(format!("mul.lo.s64 {bytes}, {steps}, {es}"));
        let xa = k.reg(Ty::U64);
        k.emit(format!("add.s64 {xa}, {x}, {bytes}"));
        let xv = el.load_guarded(&mut k, xa, inside);
        let v = el.mul(&mut k, &av, &xv);
        let addr = element(&mut k, c, i, j, ldc, es);
        k.when(inside, false).st_global(addr, 0, &v);
    }
    k.ret();
    Ok(k)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn variants() -> Vec<ExtensionParams> {
        [DType::F32, DType::F64, DType::C32, DType::C64]
            .into_iter()
            .map(|dtype| ExtensionParams { dtype })
            .collect()
    }

    #[test]
    fn kernels_pass_ptxas_without_spills_or_warnings() {
        crate::ptxas::assert_clean::<Extension>(&variants());
    }

    #[test]
    fn bad_params_and_targets_are_errors() {
        let sm90: Target = "sm_90".parse().unwrap();
        let p = |dtype| ExtensionParams { dtype };
        assert!(matches!(
            Extension::generate(&p(DType::F16), &sm90),
            Err(Error::Unsupported { .. })
        ));
        assert!(matches!(
            Extension::generate(&p(DType::F16), &"gfx90a".parse().unwrap()),
            Err(Error::Unsupported { .. })
        ));
    }

    #[test]
    fn launches_cover_every_tile() {
        assert_eq!(config(65, 32, 3).grid, [3, 1, 3]);
        assert_eq!(config(0, 0, 0).grid, [1, 1, 1]);
        assert_eq!(config(1, 1, 1).block, [BLOCK, 1, 1]);
    }
}
