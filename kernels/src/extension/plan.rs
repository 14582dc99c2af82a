//! geam and dgmm: signatures and plans.
//!
//! Both kernels take the same arguments on PTX and AMDGPU (module docs of
//! [`super`]); scalars are reals of the element type, `name` then `name_im`. The plans
//! turn the call into flags, check the kernels' limits (every dimension below 2³²; on
//! AMDGPU every matrix below 2³² bytes, the kernels' 32-bit offsets) and bind each
//! argument by name, with the bytes each strided batch of matrices may touch.

use super::{
    config, Extension, ExtensionParams, CONJ_A, CONJ_B, DGMM, GEAM, LEFT, READ_A, READ_B, TRANS_A,
    TRANS_B,
};
use crate::level1::plan::ScalarArg;
use crate::plan::{Arg, Plan, ProgramRef, Step};
use crate::signature::{Access, ScalarType, Signature, Value};
use rocm_core::isa::amdgpu::IsaTarget;
use rocm_core::{DType, Error, Result, Target};

fn scalars(mut s: Signature, dtype: DType, name: &str) -> Signature {
    let ty = if matches!(dtype, DType::F64 | DType::C64) {
        ScalarType::F64
    } else {
        ScalarType::F32
    };
    s = s.scalar(name, ty);
    if dtype.is_complex() {
        s = s.scalar(format!("{name}_im"), ty);
    }
    s
}

/// The geam kernel: `c, a, b, m, n, lda, ldb, ldc: u32, stride_a, stride_b,
/// stride_c: u64, alpha, beta, flags: u32`.
pub fn geam_signature(p: &ExtensionParams) -> Signature {
    let d = p.dtype;
    let s = Signature::new(GEAM)
        .pointer("c", d, Access::Write)
        .pointer("a", d, Access::Read)
        .pointer("b", d, Access::Read)
        .scalar("m", ScalarType::U32)
        .scalar("n", ScalarType::U32)
        .scalar("lda", ScalarType::U32)
        .scalar("ldb", ScalarType::U32)
        .scalar("ldc", ScalarType::U32)
        .scalar("stride_a", ScalarType::U64)
        .scalar("stride_b", ScalarType::U64)
        .scalar("stride_c", ScalarType::U64);
    let s = scalars(s, d, "alpha");
    scalars(s, d, "beta").scalar("flags", ScalarType::U32)
}

/// The dgmm kernel: `c, a, x, m, n, lda, ldc: u32, incx: i32, stride_a, stride_x,
/// stride_c: u64, flags: u32`.
pub fn dgmm_signature(p: &ExtensionParams) -> Signature {
    let d = p.dtype;
    Signature::new(DGMM)
        .pointer("c", d, Access::Write)
        .pointer("a", d, Access::Read)
        .pointer("x", d, Access::Read)
        .scalar("m", ScalarType::U32)
        .scalar("n", ScalarType::U32)
        .scalar("lda", ScalarType::U32)
        .scalar("ldc", ScalarType::U32)
        .scalar("incx", ScalarType::I32)
        .scalar("stride_a", ScalarType::U64)
        .scalar("stride_x", ScalarType::U64)
        .scalar("stride_c", ScalarType::U64)
        .scalar("flags", ScalarType::U32)
}

/// A strided batch of column-major matrices in view `slot` (from its first element):
/// `rows × cols` at `ld`, problem `q` at `q·stride` elements.
#[derive(Debug, Clone, Copy)]
pub struct Matrices {
    pub slot: usize,
    pub rows: u64,
    pub cols: u64,
    pub ld: u64,
    pub stride: u64,
}

impl Matrices {
    /// Elements from the first problem's first element to one past the last problem's
    /// last.
    fn elements(&self, batch: u64) -> u64 {
        if self.rows == 0 || self.cols == 0 || batch == 0 {
            return 0;
        }
        (batch - 1) * self.stride + (self.cols - 1) * self.ld + self.rows
    }

    fn arg(&self, batch: u64, es: u64, access: Access, touched: bool) -> Arg {
        Arg::Buffer {
            slot: self.slot,
            offset_bytes: 0,
            touched: 0..if touched {
                self.elements(batch) * es
            } else {
                0
            },
            access,
        }
    }
}

/// op(X) of a geam operand.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Op {
    N,
    T,
    /// Conjugate transpose (a plain transpose for real types).
    C,
}

/// C = α·op(A) + β·op(B) over a strided batch (m, n ≥ 1).
#[derive(Debug, Clone, Copy)]
pub struct GeamProblem<'a> {
    pub dtype: DType,
    pub m: u64,
    pub n: u64,
    pub op_a: Op,
    pub op_b: Op,
    /// A and B as stored (m×n for N, n×m transposed) and C (m×n).
    pub a: Matrices,
    pub b: Matrices,
    pub c: Matrices,
    pub batch: u64,
    /// α and β as reals (complex: re, im).
    pub alpha: &'a [ScalarArg],
    pub beta: &'a [ScalarArg],
}

/// C = A·diag(x) (right) or diag(x)·A (left) over a strided batch (m, n ≥ 1).
#[derive(Debug, Clone, Copy)]
pub struct DgmmProblem {
    pub dtype: DType,
    pub m: u64,
    pub n: u64,
    pub left: bool,
    pub a: Matrices,
    pub c: Matrices,
    /// x in view `x_slot` (from its lowest element): `x_len` elements at `incx`, problem
    /// `q` at `q·stride_x` elements.
    pub x_slot: usize,
    pub x_len: u64,
    pub incx: i64,
    pub stride_x: u64,
    pub batch: u64,
}

fn dim(name: &str, v: u64) -> Result<Value> {
    u32::try_from(v).map(Value::U32).map_err(|_| {
        Error::invalid(
            name,
            format!("{v} exceeds the geam/dgmm kernels' limit of 2^32 - 1"),
        )
    })
}

/// On AMDGPU a matrix at `ld` with `cols` columns must span less than 2³² bytes.
fn offsets_fit(target: &Target, what: &str, ld: u64, cols: u64, es: u64) -> Result<()> {
    if IsaTarget::try_from(target).is_err() {
        return Ok(());
    }
    if (ld as u128 + 1) * cols as u128 * es as u128 >= 1 << 32 {
        return Err(Error::unsupported(
            format!(
                "{what} = {ld} with {cols} columns: a matrix spanning 2^32 bytes or more \
                 (the AMDGPU kernels' 32-bit offsets)"
            ),
            target.to_string(),
        ));
    }
    Ok(())
}

fn value(s: &ScalarArg) -> Value {
    match *s {
        ScalarArg::F32(v) => Value::F32(v),
        ScalarArg::F64(v) => Value::F64(v),
    }
}

fn bind_scalar(
    b: &mut Vec<(String, Arg)>,
    dtype: DType,
    name: &str,
    reals: &[ScalarArg],
) -> Result<()> {
    let want = if dtype.is_complex() { 2 } else { 1 };
    if reals.len() != want {
        return Err(Error::invalid(
            name,
            format!("{want} reals for a {dtype} scalar, {} given", reals.len()),
        ));
    }
    b.push((name.to_string(), Arg::Value(value(&reals[0]))));
    if want == 2 {
        b.push((format!("{name}_im"), Arg::Value(value(&reals[1]))));
    }
    Ok(())
}

fn launch(
    params: ExtensionParams,
    sig: Signature,
    m: u64,
    n: u64,
    batch: u64,
    bindings: Vec<(String, Arg)>,
) -> Result<Plan> {
    let cfg = config(m as usize, n as usize, batch as usize);
    if cfg.grid[2] as u64 != batch {
        return Err(Error::invalid(
            "batch_count",
            format!("{batch} exceeds 2^32 - 1"),
        ));
    }
    let named: Vec<(&str, Arg)> = bindings
        .iter()
        .map(|(k, a)| (k.as_str(), a.clone()))
        .collect();
    Ok(Plan {
        steps: vec![Step::bind(
            ProgramRef::of::<Extension>(params),
            sig,
            cfg,
            named,
        )?],
        workspace_bytes: 0,
    })
}

fn is_zero(reals: &[ScalarArg]) -> bool {
    reals.iter().all(|r| match *r {
        ScalarArg::F32(v) => v == 0.0,
        ScalarArg::F64(v) => v == 0.0,
    })
}

/// geam's plan: one launch over the batch (grid z); an operand whose scalar is zero is
/// never read.
pub fn plan_geam(p: &GeamProblem<'_>, target: &Target) -> Result<Plan> {
    let es = p.dtype.size() as u64;
    offsets_fit(target, "lda", p.a.ld, p.a.cols, es)?;
    offsets_fit(target, "ldb", p.b.ld, p.b.cols, es)?;
    offsets_fit(target, "ldc", p.c.ld, p.n, es)?;
    let (read_a, read_b) = (!is_zero(p.alpha), !is_zero(p.beta));
    let op_flags = |op: Op, trans: u32, conj: u32| match op {
        Op::N => 0,
        Op::T => trans,
        Op::C if p.dtype.is_complex() => trans | conj,
        Op::C => trans,
    };
    let flags = op_flags(p.op_a, TRANS_A, CONJ_A)
        | op_flags(p.op_b, TRANS_B, CONJ_B)
        | if read_a { READ_A } else { 0 }
        | if read_b { READ_B } else { 0 };
    let mut b = vec![
        ("c".to_string(), p.c.arg(p.batch, es, Access::Write, true)),
        ("a".into(), p.a.arg(p.batch, es, Access::Read, read_a)),
        ("b".into(), p.b.arg(p.batch, es, Access::Read, read_b)),
        ("m".into(), Arg::Value(dim("m", p.m)?)),
        ("n".into(), Arg::Value(dim("n", p.n)?)),
        ("lda".into(), Arg::Value(dim("lda", p.a.ld)?)),
        ("ldb".into(), Arg::Value(dim("ldb", p.b.ld)?)),
        ("ldc".into(), Arg::Value(dim("ldc", p.c.ld)?)),
        ("stride_a".into(), Arg::Value(Value::U64(p.a.stride))),
        ("stride_b".into(), Arg::Value(Value::U64(p.b.stride))),
        ("stride_c".into(), Arg::Value(Value::U64(p.c.stride))),
        ("flags".into(), Arg::Value(Value::U32(flags))),
    ];
    bind_scalar(&mut b, p.dtype, "alpha", p.alpha)?;
    bind_scalar(&mut b, p.dtype, "beta", p.beta)?;
    let params = ExtensionParams { dtype: p.dtype };
    let sig = geam_signature(&params);
    launch(params, sig, p.m, p.n, p.batch, b)
}

/// dgmm's plan: one launch over the batch (grid z); x passed at its logical element 0.
pub fn plan_dgmm(p: &DgmmProblem, target: &Target) -> Result<Plan> {
    let es = p.dtype.size() as u64;
    offsets_fit(target, "lda", p.a.ld, p.n, es)?;
    offsets_fit(target, "ldc", p.c.ld, p.n, es)?;
    offsets_fit(target, "incx", p.incx.unsigned_abs(), p.x_len, es)?;
    let incx = i32::try_from(p.incx)
        .map_err(|_| Error::invalid("incx", format!("{} exceeds the kernel's 32 bits", p.incx)))?;
    let span = if p.x_len == 0 {
        0
    } else {
        (p.x_len - 1) * p.incx.unsigned_abs() + 1
    };
    let far = if p.incx < 0 && p.x_len > 0 {
        (p.x_len - 1) * p.incx.unsigned_abs() * es
    } else {
        0
    };
    let x_elements = if p.batch == 0 || span == 0 {
        0
    } else {
        (p.batch - 1) * p.stride_x + span
    };
    let b = vec![
        ("c".to_string(), p.c.arg(p.batch, es, Access::Write, true)),
        ("a".into(), p.a.arg(p.batch, es, Access::Read, true)),
        (
            "x".into(),
            Arg::Buffer {
                slot: p.x_slot,
                offset_bytes: far,
                touched: 0..x_elements * es,
                access: Access::Read,
            },
        ),
        ("m".into(), Arg::Value(dim("m", p.m)?)),
        ("n".into(), Arg::Value(dim("n", p.n)?)),
        ("lda".into(), Arg::Value(dim("lda", p.a.ld)?)),
        ("ldc".into(), Arg::Value(dim("ldc", p.c.ld)?)),
        ("incx".into(), Arg::Value(Value::I32(incx))),
        ("stride_a".into(), Arg::Value(Value::U64(p.a.stride))),
        ("stride_x".into(), Arg::Value(Value::U64(p.stride_x))),
        ("stride_c".into(), Arg::Value(Value::U64(p.c.stride))),
        (
            "flags".into(),
            Arg::Value(Value::U32(if p.left { LEFT } else { 0 })),
        ),
    ];
    let params = ExtensionParams { dtype: p.dtype };
    let sig = dgmm_signature(&params);
    launch(params, sig, p.m, p.n, p.batch, b)
}
