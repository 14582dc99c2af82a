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
use crate::plan::{Arg, Plan, ProgramRef, Step};
use crate::ptx::{Cmp, KernelBuilder, LoadCache, Module, Special, Ty};
use crate::signature::{Access, ScalarType, Signature, Value};
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
        module.push(&cprep(ty, &signature(p.dtype))?);
        Ok(Program {
            image: ModuleImage::Ptx(module.text()),
            kernels: vec![CPREP.into()],
            signatures: vec![signature(p.dtype)],
            launch: LaunchRule::Fixed {
                grid: 1,
                block: BLOCK,
            },
        })
    }
}

/// The kernel's declared arguments for `dtype` (C32 or C64; the same on PTX and AMDGPU
/// targets): `out, x, rows, cols, ldx, ldo, stride_x, stride_o, alpha_re, alpha_im,
/// flags`.
pub fn signature(dtype: DType) -> Signature {
    let real = if dtype == DType::C64 {
        ScalarType::F64
    } else {
        ScalarType::F32
    };
    Signature::new(CPREP)
        .pointer("out", dtype, Access::Write)
        .pointer("x", dtype, Access::Read)
        .scalar("rows", ScalarType::U32)
        .scalar("cols", ScalarType::U32)
        .scalar("ldx", ScalarType::U32)
        .scalar("ldo", ScalarType::U32)
        .scalar("stride_x", ScalarType::U64)
        .scalar("stride_o", ScalarType::U64)
        .scalar("alpha_re", real)
        .scalar("alpha_im", real)
        .scalar("flags", ScalarType::U32)
}

/// One launch of the preparation kernel: op(X) of rows×cols (rows, cols ≥ 1) for
/// `batch` problems, X in view `x_slot` and the output in view `out_slot` (the same
/// view to scale in place), each starting at problem 0's first element. Leading
/// dimensions and strides in reals.
#[derive(Debug, Clone, Copy)]
pub struct PrepProblem {
    pub dtype: DType,
    pub rows: u64,
    pub cols: u64,
    pub batch: u64,
    pub x_slot: usize,
    pub out_slot: usize,
    pub ldx: u64,
    pub ldo: u64,
    pub stride_x: u64,
    pub stride_o: u64,
    /// α (the real type's values; for C32 exactly representable in f32).
    pub alpha: (f64, f64),
    /// [`TRANS`], [`CONJ`], [`EXPAND`], [`SCALE`].
    pub flags: u32,
}

impl PrepProblem {
    /// Reals of X the launch reads from its first: X is stored rows×cols, or cols×rows
    /// with [`TRANS`].
    pub fn x_reals(&self) -> u64 {
        let (r, c) = if self.flags & TRANS != 0 {
            (self.cols, self.rows)
        } else {
            (self.rows, self.cols)
        };
        (self.batch - 1) * self.stride_x + (c - 1) * self.ldx + 2 * r
    }

    /// Reals of the output the launch writes from its first: rows×cols complex, or the
    /// 2rows×2cols real expansion with [`EXPAND`].
    pub fn out_reals(&self) -> u64 {
        let cols = if self.flags & EXPAND != 0 {
            2 * self.cols
        } else {
            self.cols
        };
        (self.batch - 1) * self.stride_o + (cols - 1) * self.ldo + 2 * self.rows
    }
}

fn dim(name: &str, v: u64) -> Result<u32> {
    u32::try_from(v).map_err(|_| {
        Error::invalid(
            name,
            format!("{v} exceeds complex GEMM's kernel limit of 2^32 - 1"),
        )
    })
}

/// The preparation launch's plan: grid `(⌈rows/32⌉, ⌈cols/8⌉, batch)`; refuses more
/// column groups or problems than the grid holds, AMDGPU leading dimensions past
/// [`crate::amdgpu::complex::max_leading_dimension`] and dimensions past 32 bits.
pub fn plan(p: &PrepProblem, target: &Target) -> Result<Plan> {
    if !matches!(p.dtype, DType::C32 | DType::C64) {
        return Err(Error::unsupported(
            format!("complex preparation kernel for {}", p.dtype),
            target.to_string(),
        ));
    }
    if p.rows == 0 || p.cols == 0 || p.batch == 0 {
        return Err(Error::invalid(
            "rows",
            "the preparation kernel needs at least one element and one problem",
        ));
    }
    let config = config(p.rows as usize, p.cols as usize, p.batch as usize);
    if config.grid[1] as usize > MAX_GRID_YZ || p.batch as usize > MAX_GRID_YZ {
        return Err(Error::unsupported(
            format!(
                "complex GEMM with an operand of {} columns (the preparation kernel \
                 covers at most {})",
                p.cols,
                MAX_GRID_YZ * COLS as usize
            ),
            target.to_string(),
        ));
    }
    let es: u64 = if p.dtype == DType::C64 { 8 } else { 4 };
    let max_ld = crate::amdgpu::complex::max_leading_dimension(es as usize) as u64;
    if target.caps().kernel_isa == KernelIsa::Amdgpu && p.ldx.max(p.ldo) > max_ld {
        return Err(Error::unsupported(
            format!(
                "complex GEMM with a leading dimension of {} reals (the AMDGPU \
                 preparation kernel takes at most {max_ld})",
                p.ldx.max(p.ldo)
            ),
            target.to_string(),
        ));
    }
    let (alpha_re, alpha_im) = if p.dtype == DType::C64 {
        (Value::F64(p.alpha.0), Value::F64(p.alpha.1))
    } else {
        (Value::F32(p.alpha.0 as f32), Value::F32(p.alpha.1 as f32))
    };
    let bindings = vec![
        (
            "out",
            Arg::Buffer {
                slot: p.out_slot,
                offset_bytes: 0,
                touched: 0..p.out_reals() * es,
                access: Access::Write,
            },
        ),
        (
            "x",
            Arg::Buffer {
                slot: p.x_slot,
                offset_bytes: 0,
                touched: 0..p.x_reals() * es,
                access: Access::Read,
            },
        ),
        ("rows", Arg::Value(Value::U32(dim("rows", p.rows)?))),
        ("cols", Arg::Value(Value::U32(dim("cols", p.cols)?))),
        ("ldx", Arg::Value(Value::U32(dim("ld", p.ldx)?))),
        ("ldo", Arg::Value(Value::U32(dim("ld", p.ldo)?))),
        ("stride_x", Arg::Value(Value::U64(p.stride_x))),
        ("stride_o", Arg::Value(Value::U64(p.stride_o))),
        ("alpha_re", Arg::Value(alpha_re)),
        ("alpha_im", Arg::Value(alpha_im)),
        ("flags", Arg::Value(Value::U32(p.flags))),
    ];
    let step = Step::bind(
        ProgramRef::of::<ComplexPrep>(ComplexPrepParams { dtype: p.dtype }),
        signature(p.dtype),
        config,
        bindings,
    )?;
    Ok(Plan {
        steps: vec![step],
        workspace_bytes: 0,
    })
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

fn cprep(ty: Ty, sig: &Signature) -> Result<KernelBuilder> {
    let es = ty.size();
    let (mut k, params) = KernelBuilder::from_signature(sig);
    let po = params.get("out")?.clone();
    let px = params.get("x")?.clone();
    let prows = params.get("rows")?.clone();
    let pcols = params.get("cols")?.clone();
    let pldx = params.get("ldx")?.clone();
    let pldo = params.get("ldo")?.clone();
    let psx = params.get("stride_x")?.clone();
    let pso = params.get("stride_o")?.clone();
    let par = params.get("alpha_re")?.clone();
    let pai = params.get("alpha_im")?.clone();
    let pflags = params.get("flags")?.clone();
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
    Ok(k)
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

#[cfg(test)]
mod plan_tests {
    use super::*;

    fn expand_a(m: u64, k: u64, lda: u64, batch: u64) -> PrepProblem {
        PrepProblem {
            dtype: DType::C64,
            rows: m,
            cols: k,
            batch,
            x_slot: 0,
            out_slot: 1,
            ldx: 2 * lda,
            ldo: 2 * m,
            stride_x: 2 * lda * k,
            stride_o: 4 * m * k,
            alpha: (2.0, -1.0),
            flags: EXPAND | SCALE | TRANS,
        }
    }

    /// Ã of 3 problems of op(A) = Aᵀ (m = 5, k = 7, A stored 7×5 at lda 9): A's reads
    /// end at the last problem's (5 − 1)·18 + 2·7 reals, the expansion's writes at its
    /// (14 − 1)·10 + 10 reals; the grid covers ⌈5/32⌉ × ⌈7/8⌉ × 3.
    #[test]
    fn expansion_touches_the_operand_and_the_expanded_block() {
        let target: Target = "gfx90a".parse().unwrap();
        let p = expand_a(5, 7, 9, 3);
        let plan = plan(&p, &target).unwrap();
        plan.check(&target).unwrap();
        let s = &plan.steps[0];
        assert_eq!(s.config.grid, [1, 1, 3]);
        assert_eq!(p.x_reals(), 2 * 126 + 4 * 18 + 14);
        assert_eq!(p.out_reals(), 2 * 140 + 13 * 10 + 10);
        assert_eq!(
            s.args[0],
            Arg::Buffer {
                slot: 1,
                offset_bytes: 0,
                touched: 0..p.out_reals() * 8,
                access: Access::Write
            }
        );
        assert_eq!(s.args[8], Arg::Value(Value::F64(2.0)));
    }

    /// Too many column groups, and on AMDGPU a leading dimension past the 32-bit lane
    /// offsets, are `Unsupported`; a real dtype has no kernel.
    #[test]
    fn limits_are_refused() {
        let amd: Target = "gfx942".parse().unwrap();
        let nv: Target = "sm_90".parse().unwrap();
        let wide = expand_a(4, (MAX_GRID_YZ as u64) * COLS as u64 + 1, 4, 1);
        assert!(matches!(plan(&wide, &nv), Err(Error::Unsupported { .. })));
        let max_ld = crate::amdgpu::complex::max_leading_dimension(8) as u64;
        let mut far = expand_a(4, 4, 4, 1);
        far.ldx = max_ld + 1;
        assert!(matches!(plan(&far, &amd), Err(Error::Unsupported { .. })));
        assert!(plan(&far, &nv).is_ok());
        far.dtype = DType::F32;
        assert!(matches!(plan(&far, &nv), Err(Error::Unsupported { .. })));
    }
}
