//! The preparation kernel of complex GEMM on GPUs (PTX, Complex32 and Complex64 as
//! pairs of f32 or f64): `rocm_cprep` reads a complex matrix op(X) (rows×cols, op ∈
//! {N, T, C}), optionally scales it by a complex α, and writes it either as a plain
//! complex matrix or expanded to the real 2×2-block form that lets a real GEMM multiply
//! complex matrices (see `rocm_blas::gpu::gemm_complex`). Batched through the grid's z
//! dimension (problem z at `base + z·stride`).
//!
//! For each element (i, j) of op(X): z = X(i, j), X(j, i) ([`TRANS`]) or its conjugate
//! ([`CONJ`]); with [`SCALE`], w = α·z computed as
//! `w.re = fma(α.re, z.re, −(α.im·z.im))`, `w.im = fma(α.re, z.im, α.im·z.re)` (each
//! part one product rounded and one fused multiply-add), else w = z. Then
//! - plain: out(i, j) = w, i.e. reals `w.re, w.im` at `2i + j·ldo`;
//! - [`EXPAND`]: the real 2×2 block at rows 2i, 2i+1 and columns 2j, 2j+1 of out is
//!   `[[w.re, −w.im], [w.im, w.re]]`.
//!
//! In place (out = X, no [`TRANS`]) it scales a matrix by α: each work-item reads its
//! element before writing it, and loads are coherent (`ld.global`).
//!
//! Parameters (`ty` the real type; leading dimensions and strides in reals, so a
//! complex matrix with leading dimension ld has 2·ld):
//! `rocm_cprep(out: u64, x: u64, rows: u32, cols: u32, ldx: u32, ldo: u32,
//! stride_x: u64, stride_o: u64, alpha_re: ty, alpha_im: ty, flags: u32)`.
//! Launch as [`config`]: grid `(⌈rows/32⌉, ⌈cols/8⌉, batch)` of [`BLOCK`] work-items,
//! one element each.
//!
//! AMD targets get the same kernel through the assembler
//! ([`crate::amdgpu::complex`]: a code object, the same name, arguments and launch;
//! leading dimensions up to its `max_leading_dimension`).

use crate::generator::{Generator, LaunchRule, Program};
use crate::level3::{element, flag, strided};
use crate::ptx::{Cmp, KernelBuilder, LoadCache, Module, Special, Ty};
use rocm_core::target::KernelIsa;
use rocm_core::{DType, Error, LaunchConfig, ModuleImage, Result, Target};

pub const CPREP: &str = "rocm_cprep";

/// Flag: op(X) = Xᵀ.
pub const TRANS: u32 = 1;
/// Flag: conjugate X's elements.
pub const CONJ: u32 = 2;
/// Flag: write the real 2×2-block expansion.
pub const EXPAND: u32 = 4;
/// Flag: multiply by α.
pub const SCALE: u32 = 8;

/// Work-items per workgroup (32 rows × 8 columns).
pub const BLOCK: u32 = 256;
/// Rows of op(X) per workgroup.
pub const ROWS: u32 = 32;
/// Columns of op(X) per workgroup.
pub const COLS: u32 = 8;
/// Most workgroups along the grid's y (columns) and z (problems).
pub const MAX_GRID_YZ: usize = 65535;

/// The kernel for one complex element type.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct ComplexPrepParams {
    /// C32 or C64.
    pub dtype: DType,
}

/// The complex preparation generator.
pub struct ComplexPrep;

impl Generator for ComplexPrep {
    type Params = ComplexPrepParams;
    const NAME: &'static str = "complex_prep";
    const VERSION: u32 = 1;

    fn generate(p: &ComplexPrepParams, target: &Target) -> Result<Program> {
        if target.caps().kernel_isa == KernelIsa::Amdgpu {
            return crate::amdgpu::complex::program(p.dtype, target);
        }
        let ty = match p.dtype {
            DType::C32 => Ty::F32,
            DType::C64 => Ty::F64,
            other => {
                return Err(Error::unsupported(
                    format!("complex preparation kernel for {other}"),
                    target.to_string(),
                ))
            }
        };
        let mut module = Module::for_kernels(target, "complex preparation kernel")?;
        module.push(&cprep(ty));
        Ok(Program {
            image: ModuleImage::Ptx(module.text()),
            kernels: vec![CPREP.into()],
            signatures: Vec::new(),
            launch: LaunchRule::Fixed {
                grid: 1,
                block: BLOCK,
            },
        })
    }
}

/// The launch over op(X) of rows×cols, `batch` problems (the caller keeps
/// ⌈cols/8⌉ and batch within [`MAX_GRID_YZ`]).
pub fn config(rows: usize, cols: usize, batch: usize) -> LaunchConfig {
    let blocks = |v: usize, e: u32| v.div_ceil(e as usize).max(1) as u32;
    LaunchConfig {
        grid: [blocks(rows, ROWS), blocks(cols, COLS), batch.max(1) as u32],
        block: [BLOCK, 1, 1],
        shared_bytes: 0,
    }
}

fn cprep(ty: Ty) -> KernelBuilder {
    let es = ty.size();
    let mut k = KernelBuilder::new(CPREP);
    let po = k.param("out", Ty::U64);
    let px = k.param("x", Ty::U64);
    let prows = k.param("rows", Ty::U32);
    let pcols = k.param("cols", Ty::U32);
    let pldx = k.param("ldx", Ty::U32);
    let pldo = k.param("ldo", Ty::U32);
    let psx = k.param("stride_x", Ty::U64);
    let pso = k.param("stride_o", Ty::U64);
    let par = k.param("alpha_re", ty);
    let pai = k.param("alpha_im", ty);
    let pflags = k.param("flags", Ty::U32);
    let (o0, x0) = (k.ld_param_global_ptr(&po), k.ld_param_global_ptr(&px));
    let (rows, cols) = (k.ld_param(&prows), k.ld_param(&pcols));
    let (ldx, ldo) = (k.ld_param(&pldx), k.ld_param(&pldo));
    let (sx, so) = (k.ld_param(&psx), k.ld_param(&pso));
    let (ar, ai) = (k.ld_param(&par), k.ld_param(&pai));
    let flags = k.ld_param(&pflags);
    let tid = k.special(Special::TidX);
    let tx = k.and_b32(tid, ROWS - 1);
    let ty_ = k.shr(Ty::U32, tid, 5);
    let bx = k.special(Special::CtaidX);
    let by = k.special_named("%ctaid.y");
    let z = k.special_named("%ctaid.z");
    let i = k.fma(Ty::U32, bx, ROWS, tx);
    let j = k.fma(Ty::U32, by, COLS, ty_);
    let i_in = k.setp(Cmp::Lt, Ty::U32, i, rows);
    let j_in = k.setp(Cmp::Lt, Ty::U32, j, cols);
    let inside = k.and_pred(i_in, j_in);
    let x = strided(&mut k, x0, z, sx, es);
    let o = strided(&mut k, o0, z, so, es);
    let trans = flag(&mut k, flags, TRANS);
    let conj = flag(&mut k, flags, CONJ);
    let expand = flag(&mut k, flags, EXPAND);
    let scale = flag(&mut k, flags, SCALE);
    // X's element: (i, j), or (j, i) transposed; its real part at row 2·row.
    let row = k.selp(Ty::U32, j, i, trans);
    let col = k.selp(Ty::U32, i, j, trans);
    let row2 = k.shl(Ty::U32, row, 1);
    let at = element(&mut k, x, row2, col, ldx, es);
    let zero = crate::level3::imm(ty, 0.0);
    let (zr, zi0) = (k.mov(ty, zero), k.mov(ty, zero));
    k.when(inside, false);
    k.ld_global_into(&[zr], at, 0, LoadCache::Default);
    k.when(inside, false);
    k.ld_global_into(&[zi0], at, es as i64, LoadCache::Default);
    let zneg = k.neg(ty, zi0);
    let zi = k.selp(ty, zneg, zi0, conj);
    // w = α·z (SCALE) or z.
    let t = k.mul(ty, ai, zi);
    let nt = k.neg(ty, t);
    let sr = k.fma(ty, ar, zr, nt);
    let u = k.mul(ty, ai, zr);
    let si = k.fma(ty, ar, zi, u);
    let wr = k.selp(ty, sr, zr, scale);
    let wi = k.selp(ty, si, zi, scale);
    let nwi = k.neg(ty, wi);
    // Plain: out(i, j) at real row 2i, column j. Expanded: rows 2i, 2i + 1 of columns
    // 2j and 2j + 1.
    let i2 = k.shl(Ty::U32, i, 1);
    let j2 = k.shl(Ty::U32, j, 1);
    let ocol = k.selp(Ty::U32, j2, j, expand);
    let first = element(&mut k, o, i2, ocol, ldo, es);
    k.when(inside, false).st_global(first, 0, &[wr]);
    k.when(inside, false).st_global(first, es as i64, &[wi]);
    let ocol1 = k.add(Ty::U32, j2, 1u32);
    let second = element(&mut k, o, i2, ocol1, ldo, es);
    let both = k.and_pred(inside, expand);
    k.when(both, false).st_global(second, 0, &[nwi]);
    k.when(both, false).st_global(second, es as i64, &[wr]);
    k.ret();
    k
}

#[cfg(test)]
mod tests {
    use super::*;

    fn variants() -> Vec<ComplexPrepParams> {
        [DType::C32, DType::C64]
            .into_iter()
            .map(|dtype| ComplexPrepParams { dtype })
            .collect()
    }

    #[test]
    fn kernel_passes_ptxas_without_spills_or_warnings() {
        crate::ptxas::assert_clean::<ComplexPrep>(&variants());
    }

    #[test]
    fn bad_params_and_targets_are_errors() {
        let sm90: Target = "sm_90".parse().unwrap();
        let p = |dtype| ComplexPrepParams { dtype };
        assert!(matches!(
            ComplexPrep::generate(&p(DType::F32), &sm90),
            Err(Error::Unsupported { .. })
        ));
        assert!(matches!(
            ComplexPrep::generate(&p(DType::F64), &"gfx90a".parse().unwrap()),
            Err(Error::Unsupported { .. })
        ));
        assert!(matches!(
            ComplexPrep::generate(&p(DType::C32), &"cpu".parse().unwrap()),
            Err(Error::Unsupported { .. })
        ));
    }

    #[test]
    fn launches_cover_every_element() {
        assert_eq!(config(33, 9, 3).grid, [2, 2, 3]);
        assert_eq!(config(0, 0, 0).grid, [1, 1, 1]);
    }
}
