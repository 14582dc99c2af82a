//! The Rust API that builds a [`KernelDef`]: one method per operation, closures for
//! structured control flow, literals where a value is expected.
//!
//! Mistakes (a type mismatch, a store through a read-only pointer, a value used outside
//! the block that defines it, a barrier under varying control flow) do not panic: the
//! first one is kept and [`Builder::finish`] returns it as `Error::InvalidArgument`
//! naming the kernel and what was wrong, so a kernel body needs no `?` after every
//! operation.

use super::ir::*;
use rocm_core::target::Family;
use rocm_core::{DType, Error, Result, Target};
use std::fmt::Display;

/// A memory a kernel loads from and stores to: a pointer parameter or a shared array,
/// with the element type that [`Builder::load`] and [`Builder::at`] use.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Buf {
    pub mem: Mem,
    pub elem: Scalar,
    /// Shared arrays are read-write.
    pub access: Access,
}

/// A literal or a value, where an operation expects a value. Literals take the type of
/// the other operand (an integer literal may become a float; a float literal may not
/// become an integer); alone, their Rust type. Where another operand is a vector, a
/// scalar operand of its element type is splat across the lanes.
pub trait Operand: Copy {
    /// The operand's type, when it has one of its own.
    fn own_type(self) -> Option<Type>;
    /// The literal's type when nothing else gives one.
    fn default_type(self) -> Type;
    /// The operand as a value of type `ty`.
    fn to_value(self, b: &mut Builder, ty: Type) -> Value;
}

impl Operand for Value {
    fn own_type(self) -> Option<Type> {
        Some(self.ty)
    }
    fn default_type(self) -> Type {
        self.ty
    }
    fn to_value(self, b: &mut Builder, ty: Type) -> Value {
        if self.ty != ty {
            b.fail(format!("a {} value where a {ty} is expected", self.ty));
        }
        self
    }
}

#[derive(Debug, Clone, Copy)]
enum Lit {
    Int(i128),
    Float(f64),
    Bool(bool),
}

macro_rules! literal {
    ($($t:ty => $kind:ident, $ty:expr;)*) => {$(
        impl Operand for $t {
            fn own_type(self) -> Option<Type> {
                None
            }
            fn default_type(self) -> Type {
                $ty
            }
            fn to_value(self, b: &mut Builder, ty: Type) -> Value {
                b.literal(Lit::$kind(self.into()), ty)
            }
        }
    )*};
}

literal! {
    u32 => Int, Type::U32;
    i32 => Int, Type::I32;
    u64 => Int, Type::U64;
    i64 => Int, Type::I64;
    f32 => Float, Type::F32;
    f64 => Float, Type::F64;
    bool => Bool, Type::PRED;
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum FrameKind {
    Root,
    Branch,
    LoopBody,
    LoopLatch,
}

#[derive(Debug)]
struct Frame {
    stmts: Vec<Stmt>,
    scope: u32,
    kind: FrameKind,
}

/// Builds one kernel for one target.
#[derive(Debug)]
pub struct Builder {
    name: String,
    target: Target,
    wave_size: u32,
    max_workgroup_size: u32,
    signature: Signature,
    shared: Vec<SharedArray>,
    frames: Vec<Frame>,
    /// Per value: its facts and the scope that defines it.
    values: Vec<(ValueInfo, u32)>,
    vars: Vec<(Type, u32)>,
    /// Per scope: whether it is still open.
    open: Vec<bool>,
    error: Option<Error>,
}

impl Builder {
    /// A builder for kernel `name` on a GPU target (wave size from the target's table;
    /// at most 256 work-items per workgroup unless [`Builder::max_workgroup_size`] says
    /// otherwise).
    pub fn new(name: impl Into<String>, target: &Target) -> Result<Builder> {
        let name = name.into();
        if target.family() == Family::Cpu {
            return Err(Error::unsupported(
                format!("kernel language kernel `{name}`"),
                target,
            ));
        }
        Ok(Builder {
            signature: Signature::new(name.clone()),
            name,
            wave_size: target.caps().wave_size(),
            target: target.clone(),
            max_workgroup_size: 256,
            shared: Vec::new(),
            frames: vec![Frame {
                stmts: Vec::new(),
                scope: 0,
                kind: FrameKind::Root,
            }],
            values: Vec::new(),
            vars: Vec::new(),
            open: vec![true],
            error: None,
        })
    }

    /// The target's wave size (32 or 64).
    pub fn wave_size(&self) -> u32 {
        self.wave_size
    }

    pub fn target(&self) -> &Target {
        &self.target
    }

    /// Declares the most work-items a workgroup launches with (1..=1024).
    pub fn max_workgroup_size(&mut self, n: u32) {
        if !(1..=1024).contains(&n) {
            self.fail(format!("max workgroup size {n} is not in 1..=1024"));
        } else {
            self.max_workgroup_size = n;
        }
    }

    fn fail(&mut self, why: impl Display) {
        if self.error.is_none() {
            self.error = Some(Error::invalid(format!("kernel `{}`", self.name), why));
        }
    }

    // ---- values and statements -------------------------------------------------

    fn push(&mut self, s: Stmt) {
        self.frames
            .last_mut()
            .expect("the root frame")
            .stmts
            .push(s);
    }

    fn scope(&self) -> u32 {
        self.frames.last().expect("the root frame").scope
    }

    /// Checks that `v` is this builder's and visible here.
    fn check(&mut self, v: Value) {
        match self.values.get(v.id as usize) {
            Some((info, scope)) if info.ty == v.ty => {
                if !self.open[*scope as usize] {
                    self.fail(format!(
                        "value %{} used outside the block that defines it (pass it through a Var)",
                        v.id
                    ));
                }
            }
            _ => self.fail(format!("value %{} is not from this builder", v.id)),
        }
    }

    fn check_var(&mut self, v: Var) {
        match self.vars.get(v.id as usize) {
            Some(&(ty, scope)) if ty == v.ty => {
                if !self.open[scope as usize] {
                    self.fail(format!(
                        "variable ${} used outside the block that declares it",
                        v.id
                    ));
                }
            }
            _ => self.fail(format!("variable ${} is not from this builder", v.id)),
        }
    }

    fn define(&mut self, ty: Type, op: Op) -> Value {
        for i in op.inputs() {
            self.check(i);
        }
        let constant = match op {
            Op::Const(c) => Some(c),
            _ => None,
        };
        let v = Value {
            id: self.values.len() as u32,
            ty,
        };
        let info = ValueInfo {
            ty,
            uniformity: Uniformity::Uniform,
            constant,
        };
        self.values.push((info, self.scope()));
        self.push(Stmt::Let(v, op));
        v
    }

    /// A placeholder after a recorded error, so building can go on.
    fn placeholder(&mut self, ty: Type) -> Value {
        let ty = if ty.is_valid() && !ty.is_vector() {
            ty
        } else {
            Type::U32
        };
        self.define(ty, Op::Const(0))
    }

    /// A constant of scalar type `ty` from its bits (zero-extended).
    pub fn constant_bits(&mut self, ty: Type, bits: u64) -> Value {
        if !ty.is_valid() || ty.is_vector() {
            self.fail(format!("constant of type {ty}: constants are scalars"));
            return self.placeholder(ty);
        }
        let mask = if ty.scalar.bits() == 64 {
            u64::MAX
        } else {
            (1u64 << ty.scalar.bits()) - 1
        };
        self.define(ty, Op::Const(bits & mask))
    }

    fn literal(&mut self, lit: Lit, ty: Type) -> Value {
        let s = ty.scalar;
        let bits = match lit {
            _ if ty.is_vector() => None,
            Lit::Bool(b) if s == Scalar::Pred => Some(b as u64),
            Lit::Int(i) if s.is_int() => {
                let (lo, hi) = match s {
                    Scalar::U32 => (0, u32::MAX as i128),
                    Scalar::I32 => (i32::MIN as i128, i32::MAX as i128),
                    Scalar::U64 => (0, u64::MAX as i128),
                    _ => (i64::MIN as i128, i64::MAX as i128),
                };
                (lo..=hi).contains(&i).then_some(i as u64)
            }
            Lit::Int(i) => float_bits(s, i as f64),
            Lit::Float(f) => float_bits(s, f),
            Lit::Bool(_) => None,
        };
        match bits {
            Some(b) => self.constant_bits(ty, b),
            None => {
                self.fail(format!("literal {lit:?} cannot be a {ty}"));
                self.placeholder(ty)
            }
        }
    }

    /// A constant value of the literal's own type (`k.lit(1.0f32)`).
    pub fn lit(&mut self, x: impl Operand) -> Value {
        let ty = x.default_type();
        x.to_value(self, ty)
    }

    /// A constant of type `ty` (`k.constant(Type::F64, 0.5)`; a vector type splats it).
    pub fn constant(&mut self, ty: Type, x: impl Operand) -> Value {
        self.coerce(x, ty)
    }

    /// The type several operands resolve to: a vector operand's if any (scalars are
    /// then splat across its lanes), else the first operand type, else the first
    /// literal's own type.
    fn unify(&self, own: &[Option<Type>], default: Type) -> Type {
        own.iter()
            .flatten()
            .copied()
            .find(|t| t.is_vector())
            .or_else(|| own.iter().flatten().copied().next())
            .unwrap_or(default)
    }

    /// The operand as a value of `ty`, a scalar splat when `ty` is a vector of it.
    fn coerce(&mut self, x: impl Operand, ty: Type) -> Value {
        let scalar = Type::of(ty.scalar);
        match x.own_type() {
            Some(t) if ty.is_vector() && t == scalar => {
                let v = x.to_value(self, t);
                self.pack(&vec![v; ty.lanes as usize])
            }
            None if ty.is_vector() => {
                let v = x.to_value(self, scalar);
                self.pack(&vec![v; ty.lanes as usize])
            }
            _ => x.to_value(self, ty),
        }
    }

    /// Resolves two operands to one type.
    fn pair(&mut self, a: impl Operand, b: impl Operand) -> (Value, Value) {
        let ty = self.unify(&[a.own_type(), b.own_type()], a.default_type());
        (self.coerce(a, ty), self.coerce(b, ty))
    }

    // ---- parameters and shared memory ------------------------------------------

    fn add_param(&mut self, name: &str, ty: ParamType) -> u32 {
        if self.signature.params.iter().any(|p| p.name == name) {
            self.fail(format!("parameter `{name}` declared twice"));
        }
        self.signature = std::mem::replace(&mut self.signature, Signature::new("")).param(name, ty);
        self.signature.params.len() as u32 - 1
    }

    /// Declares a scalar parameter (in order) and returns its value (u32, i32, u64,
    /// i64, f32 or f64).
    pub fn param(&mut self, name: &str, ty: Scalar) -> Value {
        let pt = ty.param_type().unwrap_or_else(|| {
            self.fail(format!(
                "parameter `{name}`: a {} is not a kernel parameter",
                ty.name()
            ));
            ScalarType::U32
        });
        let i = self.add_param(name, ParamType::Scalar(pt));
        self.define(Type::of(ty), Op::Param(i))
    }

    /// Declares a global-memory pointer parameter (in order) to elements of `elem`.
    pub fn ptr(&mut self, name: &str, elem: Scalar, access: Access) -> Buf {
        let dtype = elem.dtype().unwrap_or_else(|| {
            self.fail(format!("pointer `{name}`: predicates are not stored"));
            DType::U32
        });
        self.ptr_dtype(name, dtype, elem, access)
    }

    /// A pointer whose buffers hold `dtype` while the kernel reads them as `elem`s (a
    /// complex buffer as f32 pairs, bytes as narrow u32 loads).
    pub fn ptr_dtype(&mut self, name: &str, dtype: DType, elem: Scalar, access: Access) -> Buf {
        if elem == Scalar::Pred {
            self.fail(format!("pointer `{name}`: predicates are not stored"));
        }
        let i = self.add_param(
            name,
            ParamType::Pointer {
                elem: dtype,
                access,
            },
        );
        Buf {
            mem: Mem::Global(i),
            elem,
            access,
        }
    }

    /// Declares a shared array of `count` elements (16-byte aligned).
    pub fn shared(&mut self, name: &str, elem: Scalar, count: u32) -> Buf {
        if elem == Scalar::Pred {
            self.fail(format!("shared array `{name}`: predicates are not stored"));
        }
        self.shared.push(SharedArray {
            name: name.to_string(),
            bytes: count * elem.bytes(),
            align: 16,
        });
        Buf {
            mem: Mem::Shared(self.shared.len() as u32 - 1),
            elem,
            access: Access::ReadWrite,
        }
    }

    // ---- special values ----------------------------------------------------------

    pub fn special(&mut self, s: Special) -> Value {
        self.define(Type::U32, Op::Special(s))
    }

    /// Work-item id in x.
    pub fn thread_id(&mut self) -> Value {
        self.special(Special::ThreadId(Axis::X))
    }

    /// Workgroup id in x.
    pub fn workgroup_id(&mut self) -> Value {
        self.special(Special::WorkgroupId(Axis::X))
    }

    /// Work-items per workgroup in x.
    pub fn workgroup_size(&mut self) -> Value {
        self.special(Special::WorkgroupSize(Axis::X))
    }

    /// Workgroups in the grid in x.
    pub fn grid_size(&mut self) -> Value {
        self.special(Special::GridSize(Axis::X))
    }

    pub fn lane_id(&mut self) -> Value {
        self.special(Special::LaneId)
    }

    pub fn wave_id(&mut self) -> Value {
        self.special(Special::WaveId)
    }

    /// `workgroup_id · workgroup_size + thread_id` in x (u32).
    pub fn global_id(&mut self) -> Value {
        let (g, s, t) = (self.workgroup_id(), self.workgroup_size(), self.thread_id());
        self.fma(g, s, t)
    }

    // ---- arithmetic --------------------------------------------------------------

    pub fn unary(&mut self, op: Unary, a: impl Operand) -> Value {
        let a = self.lit_or(a);
        let s = a.ty.scalar;
        let ok = match op {
            Unary::Neg | Unary::Abs => s.is_arith(),
            Unary::Not => s.is_int() || s == Scalar::Pred,
            Unary::Sqrt | Unary::Rcp | Unary::Rsqrt => {
                matches!(s, Scalar::F32 | Scalar::F64) && !a.ty.is_vector()
            }
            Unary::Exp2 | Unary::Log2 => a.ty == Type::F32,
        };
        if !ok {
            self.fail(format!("{} of a {}", op.name(), a.ty));
        }
        self.define(a.ty, Op::Unary(op, a))
    }

    fn lit_or(&mut self, a: impl Operand) -> Value {
        let ty = a.own_type().unwrap_or_else(|| a.default_type());
        a.to_value(self, ty)
    }

    pub fn binary(&mut self, op: Binary, a: impl Operand, b: impl Operand) -> Value {
        let (a, b) = match op {
            Binary::Shl | Binary::Shr => {
                let a = self.lit_or(a);
                (a, b.to_value(self, Type::U32))
            }
            _ => self.pair(a, b),
        };
        let (ty, s) = (a.ty, a.ty.scalar);
        let vector_ok = matches!(
            op,
            Binary::Add
                | Binary::Sub
                | Binary::Mul
                | Binary::Min
                | Binary::Max
                | Binary::And
                | Binary::Or
                | Binary::Xor
        );
        let ok = (vector_ok || !ty.is_vector())
            && match op {
                Binary::Add | Binary::Sub | Binary::Mul | Binary::Min | Binary::Max => s.is_arith(),
                Binary::MulHi | Binary::Shl | Binary::Shr => s.is_int(),
                Binary::MulWide => matches!(s, Scalar::U32 | Scalar::I32),
                Binary::Div => matches!(s, Scalar::U32 | Scalar::I32 | Scalar::F32 | Scalar::F64),
                Binary::Rem => matches!(s, Scalar::U32 | Scalar::I32),
                Binary::And | Binary::Or | Binary::Xor => s.is_int() || s == Scalar::Pred,
            };
        if !ok {
            self.fail(format!("{} of {} values", op.name(), ty));
        }
        let out = match (op, s) {
            (Binary::MulWide, Scalar::U32) => Type::U64,
            (Binary::MulWide, _) => Type::I64,
            _ => ty,
        };
        self.define(out, Op::Binary(op, a, b))
    }

    pub fn add(&mut self, a: impl Operand, b: impl Operand) -> Value {
        self.binary(Binary::Add, a, b)
    }
    pub fn sub(&mut self, a: impl Operand, b: impl Operand) -> Value {
        self.binary(Binary::Sub, a, b)
    }
    pub fn mul(&mut self, a: impl Operand, b: impl Operand) -> Value {
        self.binary(Binary::Mul, a, b)
    }
    pub fn mul_hi(&mut self, a: impl Operand, b: impl Operand) -> Value {
        self.binary(Binary::MulHi, a, b)
    }
    pub fn mul_wide(&mut self, a: impl Operand, b: impl Operand) -> Value {
        self.binary(Binary::MulWide, a, b)
    }
    pub fn div(&mut self, a: impl Operand, b: impl Operand) -> Value {
        self.binary(Binary::Div, a, b)
    }
    pub fn rem(&mut self, a: impl Operand, b: impl Operand) -> Value {
        self.binary(Binary::Rem, a, b)
    }
    pub fn min(&mut self, a: impl Operand, b: impl Operand) -> Value {
        self.binary(Binary::Min, a, b)
    }
    pub fn max(&mut self, a: impl Operand, b: impl Operand) -> Value {
        self.binary(Binary::Max, a, b)
    }
    pub fn and(&mut self, a: impl Operand, b: impl Operand) -> Value {
        self.binary(Binary::And, a, b)
    }
    pub fn or(&mut self, a: impl Operand, b: impl Operand) -> Value {
        self.binary(Binary::Or, a, b)
    }
    pub fn xor(&mut self, a: impl Operand, b: impl Operand) -> Value {
        self.binary(Binary::Xor, a, b)
    }
    pub fn shl(&mut self, a: impl Operand, amount: impl Operand) -> Value {
        self.binary(Binary::Shl, a, amount)
    }
    pub fn shr(&mut self, a: impl Operand, amount: impl Operand) -> Value {
        self.binary(Binary::Shr, a, amount)
    }
    pub fn neg(&mut self, a: impl Operand) -> Value {
        self.unary(Unary::Neg, a)
    }
    pub fn abs(&mut self, a: impl Operand) -> Value {
        self.unary(Unary::Abs, a)
    }
    pub fn not(&mut self, a: impl Operand) -> Value {
        self.unary(Unary::Not, a)
    }
    pub fn sqrt(&mut self, a: impl Operand) -> Value {
        self.unary(Unary::Sqrt, a)
    }
    pub fn rcp(&mut self, a: impl Operand) -> Value {
        self.unary(Unary::Rcp, a)
    }
    pub fn rsqrt(&mut self, a: impl Operand) -> Value {
        self.unary(Unary::Rsqrt, a)
    }
    pub fn exp2(&mut self, a: impl Operand) -> Value {
        self.unary(Unary::Exp2, a)
    }
    pub fn log2(&mut self, a: impl Operand) -> Value {
        self.unary(Unary::Log2, a)
    }

    /// `a·b + c`: one rounding for floats, the low bits for ints.
    pub fn fma(&mut self, a: impl Operand, b: impl Operand, c: impl Operand) -> Value {
        let ty = self.unify(
            &[a.own_type(), b.own_type(), c.own_type()],
            a.default_type(),
        );
        let (a, b, c) = (self.coerce(a, ty), self.coerce(b, ty), self.coerce(c, ty));
        if !ty.scalar.is_arith() {
            self.fail(format!("fma of {ty} values"));
        }
        self.define(ty, Op::Fma(a, b, c))
    }

    pub fn cmp(&mut self, op: Cmp, a: impl Operand, b: impl Operand) -> Value {
        let (a, b) = self.pair(a, b);
        let s = a.ty.scalar;
        let ok = !a.ty.is_vector()
            && (s.is_arith() || (s == Scalar::Pred && matches!(op, Cmp::Eq | Cmp::Ne)));
        if !ok {
            self.fail(format!("comparison {op:?} of {} values", a.ty));
        }
        self.define(Type::PRED, Op::Cmp(op, a, b))
    }
    pub fn eq(&mut self, a: impl Operand, b: impl Operand) -> Value {
        self.cmp(Cmp::Eq, a, b)
    }
    pub fn ne(&mut self, a: impl Operand, b: impl Operand) -> Value {
        self.cmp(Cmp::Ne, a, b)
    }
    pub fn lt(&mut self, a: impl Operand, b: impl Operand) -> Value {
        self.cmp(Cmp::Lt, a, b)
    }
    pub fn le(&mut self, a: impl Operand, b: impl Operand) -> Value {
        self.cmp(Cmp::Le, a, b)
    }
    pub fn gt(&mut self, a: impl Operand, b: impl Operand) -> Value {
        self.cmp(Cmp::Gt, a, b)
    }
    pub fn ge(&mut self, a: impl Operand, b: impl Operand) -> Value {
        self.cmp(Cmp::Ge, a, b)
    }

    /// `cond ? a : b`.
    pub fn select(&mut self, cond: Value, a: impl Operand, b: impl Operand) -> Value {
        let (a, b) = self.pair(a, b);
        if cond.ty != Type::PRED {
            self.fail(format!("select on a {} condition", cond.ty));
        }
        self.define(a.ty, Op::Select(cond, a, b))
    }

    /// Converts a scalar to `to`, rounding to nearest even where it rounds.
    pub fn convert(&mut self, a: Value, to: Scalar) -> Value {
        self.convert_rounded(a, to, Rounding::Nearest)
    }

    /// Converts a scalar to `to` with a rounding mode (see the module docs of
    /// [`super::ir`] for what each conversion does).
    pub fn convert_rounded(&mut self, a: Value, to: Scalar, rounding: Rounding) -> Value {
        let from = a.ty.scalar;
        let half = |s: Scalar| matches!(s, Scalar::F16 | Scalar::Bf16);
        // 16-bit floats convert only to and from f32 (what both ISAs do in one
        // instruction), and f32 -> bf16 rounds only to nearest or toward zero.
        let ok = !a.ty.is_vector()
            && from != Scalar::Pred
            && to != Scalar::Pred
            && (!(half(from) || half(to))
                || from == to
                || from == Scalar::F32
                || to == Scalar::F32)
            && !(to == Scalar::Bf16 && matches!(rounding, Rounding::Up | Rounding::Down));
        if !ok {
            self.fail(format!(
                "conversion of a {} to {} rounding {rounding:?}",
                a.ty,
                to.name()
            ));
        }
        self.define(Type::of(to), Op::Convert(a, rounding))
    }

    /// The same bits as type `to` (equal sizes; not predicates).
    pub fn bitcast(&mut self, a: Value, to: Type) -> Value {
        if !to.is_valid() || a.ty.bytes() != to.bytes() || to.scalar == Scalar::Pred {
            self.fail(format!("bitcast of a {} to {to}", a.ty));
        }
        self.define(to, Op::Bitcast(a))
    }

    /// A vector of 2 or 4 values of one scalar type.
    pub fn pack(&mut self, lanes: &[Value]) -> Value {
        let Some(first) = lanes.first() else {
            self.fail("pack of no values");
            return self.placeholder(Type::U32);
        };
        let ty = Type::vec(first.ty.scalar, lanes.len() as u8);
        if !ty.is_valid() || !ty.is_vector() || lanes.iter().any(|l| l.ty != first.ty) {
            self.fail(format!(
                "pack of {} values of type {}",
                lanes.len(),
                first.ty
            ));
            return self.placeholder(Type::U32);
        }
        self.define(ty, Op::Pack(lanes.to_vec()))
    }

    /// Lane `lane` of a vector.
    pub fn extract(&mut self, v: Value, lane: u8) -> Value {
        if lane >= v.ty.lanes {
            self.fail(format!("lane {lane} of a {}", v.ty));
        }
        self.define(Type::of(v.ty.scalar), Op::Extract(v, lane))
    }

    /// Every lane of a vector.
    pub fn unpack(&mut self, v: Value) -> Vec<Value> {
        (0..v.ty.lanes).map(|l| self.extract(v, l)).collect()
    }

    // ---- memory ------------------------------------------------------------------

    /// The byte offset of element `index` of `buf` (u64 for global, u32 for shared).
    pub fn at(&mut self, buf: Buf, index: impl Operand) -> Value {
        let size = buf.elem.bytes();
        match buf.mem {
            Mem::Global(_) => {
                let i = self.lit_or(index);
                match i.ty.scalar {
                    Scalar::U32 | Scalar::I32 if !i.ty.is_vector() => self.mul_wide(i, size),
                    Scalar::U64 | Scalar::I64 if !i.ty.is_vector() => {
                        let i = self.bitcast(i, Type::U64);
                        self.mul(i, size as u64)
                    }
                    _ => {
                        self.fail(format!("element index of type {}", i.ty));
                        self.placeholder(Type::U64)
                    }
                }
            }
            Mem::Shared(_) => {
                let i = index.to_value(self, Type::U32);
                self.mul(i, size)
            }
        }
    }

    /// The offset operand as the memory's offset type (a u32 global offset is widened).
    fn offset(&mut self, mem: Mem, offset: impl Operand) -> Value {
        match (mem, offset.own_type()) {
            (Mem::Global(_), Some(Type::U32)) => {
                let o = self.lit_or(offset);
                self.convert(o, Scalar::U64)
            }
            (Mem::Global(_), _) => offset.to_value(self, Type::U64),
            (Mem::Shared(_), _) => offset.to_value(self, Type::U32),
        }
    }

    fn access(&mut self, buf: Buf, offset: impl Operand, ty: Type, bytes: u32) -> MemAccess {
        let offset = self.offset(buf.mem, offset);
        let natural = ty.bytes() == bytes && ty.is_valid() && ty.scalar != Scalar::Pred;
        let narrow = matches!(ty, Type::U32 | Type::I32) && matches!(bytes, 1 | 2);
        if !natural && !narrow {
            self.fail(format!("a {bytes}-byte memory access of a {ty} value"));
        }
        if let Mem::Shared(i) = buf.mem {
            if self.shared.get(i as usize).is_none() {
                self.fail(format!("shared array {i} is not declared"));
            }
        }
        MemAccess {
            mem: buf.mem,
            offset,
            bytes,
            align: bytes,
            cache: Cache::Default,
        }
    }

    /// Loads one element of `buf` at byte `offset`.
    pub fn load(&mut self, buf: Buf, offset: impl Operand) -> Value {
        self.load_vec(buf, offset, 1)
    }

    /// Loads `lanes` consecutive elements of `buf` at byte `offset` (aligned to their
    /// total size).
    pub fn load_vec(&mut self, buf: Buf, offset: impl Operand, lanes: u8) -> Value {
        let ty = Type::vec(buf.elem, lanes);
        self.load_with(buf, offset, ty, ty.bytes(), ty.bytes(), Cache::Default)
    }

    /// The general load: a value of `ty` from `bytes` bytes at `offset`, which is a
    /// multiple of `align`, with a cache hint.
    pub fn load_with(
        &mut self,
        buf: Buf,
        offset: impl Operand,
        ty: Type,
        bytes: u32,
        align: u32,
        cache: Cache,
    ) -> Value {
        if buf.access == Access::Write {
            self.fail(format!("load through write-only pointer {:?}", buf.mem));
        }
        if cache == Cache::ReadOnly && buf.access != Access::Read {
            self.fail("read-only cache path on memory the kernel writes");
        }
        let mut m = self.access(buf, offset, ty, bytes);
        m.align = self.check_align(align, ty, bytes);
        m.cache = cache;
        self.define(ty, Op::Load(m))
    }

    /// The alignment must be a power of two from the element's size (the bytes moved,
    /// for a narrow access) to 16.
    fn check_align(&mut self, align: u32, ty: Type, bytes: u32) -> u32 {
        let least = ty.scalar.bytes().min(bytes);
        if !align.is_power_of_two() || align > 16 || align < least {
            self.fail(format!(
                "alignment {align} for a {ty} access (a power of two from {least} to 16)"
            ));
            return least.max(1);
        }
        align
    }

    /// Stores `value` (its whole type) at byte `offset` of `buf`, aligned to its size.
    pub fn store(&mut self, buf: Buf, offset: impl Operand, value: Value) {
        let b = value.ty.bytes();
        self.store_with(buf, offset, value, b, b, Cache::Default);
    }

    /// The general store (see [`Builder::load_with`]; `Cache::ReadOnly` is for loads).
    pub fn store_with(
        &mut self,
        buf: Buf,
        offset: impl Operand,
        value: Value,
        bytes: u32,
        align: u32,
        cache: Cache,
    ) {
        if buf.access == Access::Read {
            self.fail(format!("store through read-only pointer {:?}", buf.mem));
        }
        if cache == Cache::ReadOnly {
            self.fail("the read-only cache path on a store");
        }
        self.check(value);
        let mut m = self.access(buf, offset, value.ty, bytes);
        m.align = self.check_align(align, value.ty, bytes);
        m.cache = cache;
        self.push(Stmt::Store(m, value));
    }

    /// An atomic read-modify-write at byte `offset` (naturally aligned); returns the
    /// old value.
    pub fn atomic(&mut self, op: AtomicOp, buf: Buf, offset: impl Operand, value: Value) -> Value {
        self.atomic_op(op, buf, offset, value, None)
    }

    /// Compare-and-swap: writes `value` where the old value equals `compare`; returns
    /// the old value.
    pub fn compare_swap(
        &mut self,
        buf: Buf,
        offset: impl Operand,
        compare: Value,
        value: Value,
    ) -> Value {
        self.atomic_op(AtomicOp::CompareSwap, buf, offset, value, Some(compare))
    }

    fn atomic_op(
        &mut self,
        op: AtomicOp,
        buf: Buf,
        offset: impl Operand,
        value: Value,
        compare: Option<Value>,
    ) -> Value {
        let s = value.ty.scalar;
        let ok = !value.ty.is_vector()
            && match op {
                AtomicOp::Add => matches!(
                    s,
                    Scalar::U32 | Scalar::I32 | Scalar::U64 | Scalar::F32 | Scalar::F64
                ),
                AtomicOp::Min | AtomicOp::Max => matches!(s, Scalar::U32 | Scalar::I32),
                AtomicOp::Exchange | AtomicOp::CompareSwap => {
                    matches!(s, Scalar::U32 | Scalar::U64)
                }
            };
        if !ok || compare.is_some_and(|c| c.ty != value.ty) {
            self.fail(format!("atomic {op:?} of a {}", value.ty));
        }
        if buf.access != Access::ReadWrite {
            self.fail(format!("atomic on {:?}, which is not read-write", buf.mem));
        }
        let offset = self.offset(buf.mem, offset);
        self.define(
            value.ty,
            Op::Atomic {
                op,
                mem: buf.mem,
                offset,
                value,
                compare,
            },
        )
    }

    /// Workgroup barrier with a workgroup-scope memory fence (uniform control flow only).
    pub fn barrier(&mut self) {
        self.push(Stmt::Barrier);
    }

    pub fn fence(&mut self, scope: Scope) {
        self.push(Stmt::Fence(scope));
    }

    // ---- wave operations ---------------------------------------------------------

    /// Reads `value` (32 or 64 bits) from another lane of the wave.
    pub fn shuffle(&mut self, value: Value, from: Shuffle) -> Value {
        let bits = value.ty.bytes() * 8;
        if value.ty.is_vector() || !matches!(bits, 32 | 64) {
            self.fail(format!("shuffle of a {}", value.ty));
        }
        match from {
            Shuffle::Idx(i) if i.ty != Type::U32 => {
                self.fail(format!("shuffle lane index of type {}", i.ty))
            }
            Shuffle::Up(d) | Shuffle::Down(d) | Shuffle::Xor(d) if d >= self.wave_size => self
                .fail(format!(
                    "shuffle distance {d} is not below the wave size {}",
                    self.wave_size
                )),
            _ => {}
        }
        self.define(value.ty, Op::Shuffle(value, from))
    }

    /// The value of lane `lane ^ mask`.
    pub fn shuffle_xor(&mut self, value: Value, mask: u32) -> Value {
        self.shuffle(value, Shuffle::Xor(mask))
    }

    /// The reduction of `value` over the wave, on every lane (u32, i32, f32, f64).
    pub fn wave_reduce(&mut self, op: Reduce, value: Value) -> Value {
        let ok = matches!(value.ty, Type::U32 | Type::I32 | Type::F32 | Type::F64);
        if !ok {
            self.fail(format!("wave reduction of a {}", value.ty));
        }
        self.define(value.ty, Op::WaveReduce(op, value))
    }

    fn wave_pred(&mut self, p: Value, ty: Type, op: fn(Value) -> Op) -> Value {
        if p.ty != Type::PRED {
            self.fail(format!("wave vote on a {}", p.ty));
        }
        self.define(ty, op(p))
    }

    /// Lane `l`'s predicate in bit `l`.
    pub fn ballot(&mut self, p: Value) -> Value {
        self.wave_pred(p, Type::U64, Op::Ballot)
    }

    pub fn any(&mut self, p: Value) -> Value {
        self.wave_pred(p, Type::PRED, Op::Any)
    }

    pub fn all(&mut self, p: Value) -> Value {
        self.wave_pred(p, Type::PRED, Op::All)
    }

    // ---- variables -----------------------------------------------------------------

    /// Declares a variable holding `init`.
    pub fn var(&mut self, init: impl Operand) -> Var {
        let init = self.lit_or(init);
        self.check(init);
        let v = Var {
            id: self.vars.len() as u32,
            ty: init.ty,
        };
        self.vars.push((init.ty, self.scope()));
        self.push(Stmt::Var(v, init));
        v
    }

    /// The variable's current value.
    pub fn get(&mut self, v: Var) -> Value {
        self.check_var(v);
        self.define(v.ty, Op::Var(v))
    }

    pub fn set(&mut self, v: Var, value: impl Operand) {
        self.check_var(v);
        let value = value.to_value(self, v.ty);
        self.check(value);
        self.push(Stmt::Assign(v, value));
    }

    // ---- control flow ----------------------------------------------------------------

    fn block(&mut self, kind: FrameKind, f: impl FnOnce(&mut Builder)) -> Block {
        let scope = self.open.len() as u32;
        self.open.push(true);
        self.frames.push(Frame {
            stmts: Vec::new(),
            scope,
            kind,
        });
        f(self);
        let frame = self.frames.pop().expect("the frame pushed above");
        self.open[scope as usize] = false;
        Block(frame.stmts)
    }

    fn condition(&mut self, cond: Value) {
        self.check(cond);
        if cond.ty != Type::PRED {
            self.fail(format!(
                "a {} condition (conditions are predicates)",
                cond.ty
            ));
        }
    }

    /// Runs `then` on the lanes where `cond` holds.
    pub fn if_(&mut self, cond: Value, then: impl FnOnce(&mut Builder)) {
        self.if_else(cond, then, |_| {});
    }

    /// Runs `then` where `cond` holds and `otherwise` elsewhere.
    pub fn if_else(
        &mut self,
        cond: Value,
        then: impl FnOnce(&mut Builder),
        otherwise: impl FnOnce(&mut Builder),
    ) {
        self.condition(cond);
        let then = self.block(FrameKind::Branch, then);
        let otherwise = self.block(FrameKind::Branch, otherwise);
        self.push(Stmt::If {
            cond,
            then,
            otherwise,
        });
    }

    /// A loop: `body` runs until every lane has left through [`Builder::break_if`].
    pub fn loop_(&mut self, body: impl FnOnce(&mut Builder)) {
        self.loop_latch(body, |_| {});
    }

    /// A loop whose `latch` runs after `body` on each iteration, also after
    /// [`Builder::continue_if`].
    pub fn loop_latch(
        &mut self,
        body: impl FnOnce(&mut Builder),
        latch: impl FnOnce(&mut Builder),
    ) {
        let body = self.block(FrameKind::LoopBody, body);
        let latch = self.block(FrameKind::LoopLatch, latch);
        self.push(Stmt::Loop { body, latch });
    }

    fn innermost_loop(&self) -> Option<FrameKind> {
        self.frames
            .iter()
            .rev()
            .map(|f| f.kind)
            .find(|k| matches!(k, FrameKind::LoopBody | FrameKind::LoopLatch))
    }

    /// The lanes where `cond` holds leave the innermost loop.
    pub fn break_if(&mut self, cond: Value) {
        self.condition(cond);
        if self.innermost_loop().is_none() {
            self.fail("break outside a loop");
        }
        self.push(Stmt::Break(cond));
    }

    /// The lanes where `cond` holds skip the rest of the innermost loop's body.
    pub fn continue_if(&mut self, cond: Value) {
        self.condition(cond);
        if self.innermost_loop() != Some(FrameKind::LoopBody) {
            self.fail("continue outside a loop body");
        }
        self.push(Stmt::Continue(cond));
    }

    /// `for (i = start; i < end; i += step) body(i)` over an integer type (the type of
    /// `start`, or of `end` when `start` is a literal); `continue_if` inside goes on
    /// with the next `i`. `i + step` must not wrap.
    pub fn for_range(
        &mut self,
        start: impl Operand,
        end: impl Operand,
        step: impl Operand,
        body: impl FnOnce(&mut Builder, Value),
    ) {
        let (start, end) = self.pair(start, end);
        if !start.ty.scalar.is_int() || start.ty.is_vector() {
            self.fail(format!("for_range over {} values", start.ty));
        }
        let step = step.to_value(self, start.ty);
        let i = self.var(start);
        self.loop_latch(
            |k| {
                let iv = k.get(i);
                let done = k.ge(iv, end);
                k.break_if(done);
                body(k, iv);
            },
            |k| {
                let iv = k.get(i);
                let next = k.add(iv, step);
                k.set(i, next);
            },
        );
    }

    // ---- finishing -------------------------------------------------------------------

    /// The kernel, with uniformity computed and checked: barriers only under
    /// workgroup-uniform control flow, wave operations only under wave-uniform control
    /// flow, shared memory within the target's.
    pub fn finish(mut self) -> Result<KernelDef> {
        if let Some(e) = self.error.take() {
            return Err(e);
        }
        let body = Block(self.frames.pop().expect("the root frame").stmts);
        let limit = self.target.caps().lds_bytes_per_workgroup as u64;
        let mut kernel = KernelDef {
            name: self.name,
            target: self.target,
            wave_size: self.wave_size,
            max_workgroup_size: self.max_workgroup_size,
            signature: self.signature,
            shared: self.shared,
            body,
            values: self.values.iter().map(|v| v.0).collect(),
            vars: self
                .vars
                .iter()
                .map(|v| (v.0, Uniformity::Uniform))
                .collect(),
        };
        if kernel.shared_bytes() as u64 > limit {
            return Err(Error::invalid(
                format!("kernel `{}`", kernel.name),
                format!(
                    "{} bytes of shared memory; {} has {limit}",
                    kernel.shared_bytes(),
                    kernel.target
                ),
            ));
        }
        analyze(&mut kernel)?;
        Ok(kernel)
    }
}

/// The bits of `x` as float type `s` (rounded to nearest even).
fn float_bits(s: Scalar, x: f64) -> Option<u64> {
    Some(match s {
        Scalar::F64 => x.to_bits(),
        Scalar::F32 => (x as f32).to_bits() as u64,
        Scalar::F16 => rocm_core::f16::from_f64(x).to_bits() as u64,
        Scalar::Bf16 => rocm_core::bf16::from_f64(x).to_bits() as u64,
        _ => return None,
    })
}

/// Computes the uniformity of every value and variable (a fixpoint: a variable assigned
/// a varying value, or assigned under varying control flow, is varying, and so is what
/// is computed from it) and checks where barriers and wave operations are.
fn analyze(k: &mut KernelDef) -> Result<()> {
    let mut a = Analysis {
        values: vec![Uniformity::Uniform; k.values.len()],
        vars: vec![Uniformity::Uniform; k.vars.len()],
        loops: Vec::new(),
        loop_count: 0,
        changed: true,
        check: false,
        error: None,
    };
    while a.changed {
        a.changed = false;
        a.loop_count = 0;
        a.walk(&k.body, Uniformity::Uniform, &mut Vec::new());
    }
    a.check = true;
    a.loop_count = 0;
    a.walk(&k.body, Uniformity::Uniform, &mut Vec::new());
    if let Some(why) = a.error {
        return Err(Error::invalid(format!("kernel `{}`", k.name), why));
    }
    for (info, u) in k.values.iter_mut().zip(&a.values) {
        info.uniformity = *u;
    }
    for (var, u) in k.vars.iter_mut().zip(&a.vars) {
        var.1 = *u;
    }
    Ok(())
}

struct Analysis {
    values: Vec<Uniformity>,
    vars: Vec<Uniformity>,
    /// Per loop (in walk order): the uniformity of its exits.
    loops: Vec<Uniformity>,
    loop_count: usize,
    changed: bool,
    check: bool,
    error: Option<String>,
}

impl Analysis {
    fn raise(slot: &mut Uniformity, to: Uniformity, changed: &mut bool) {
        if to > *slot {
            *slot = to;
            *changed = true;
        }
    }

    fn of(&self, v: Value) -> Uniformity {
        self.values[v.id as usize]
    }

    fn op(&self, op: &Op) -> Uniformity {
        use Uniformity::*;
        let inputs = op
            .inputs()
            .iter()
            .map(|&v| self.of(v))
            .max()
            .unwrap_or(Uniform);
        match op {
            Op::Const(_) | Op::Param(_) => Uniform,
            Op::Special(s) => s.uniformity(),
            Op::Var(v) => self.vars[v.id as usize],
            Op::Atomic { .. } => Varying,
            Op::WaveReduce(_, v) | Op::Ballot(v) | Op::Any(v) | Op::All(v) => {
                self.of(*v).min(WaveUniform)
            }
            Op::Shuffle(v, s) => match (self.of(*v), s) {
                (u, _) if u <= WaveUniform => u,
                (_, Shuffle::Idx(i)) if self.of(*i) <= WaveUniform => WaveUniform,
                _ => Varying,
            },
            _ => inputs,
        }
    }

    fn walk(&mut self, b: &Block, ctl: Uniformity, loops: &mut Vec<usize>) {
        for s in &b.0 {
            match s {
                Stmt::Let(v, op) => {
                    let u = self.op(op);
                    Self::raise(&mut self.values[v.id as usize], u, &mut self.changed);
                    if self.check && op.is_wave_op() && ctl == Uniformity::Varying {
                        self.error.get_or_insert_with(|| {
                            format!("wave operation {op:?} under varying control flow")
                        });
                    }
                }
                Stmt::Var(var, v) | Stmt::Assign(var, v) => {
                    let u = self.of(*v).max(ctl);
                    Self::raise(&mut self.vars[var.id as usize], u, &mut self.changed);
                }
                Stmt::If {
                    cond,
                    then,
                    otherwise,
                } => {
                    let c = ctl.max(self.of(*cond));
                    self.walk(then, c, loops);
                    self.walk(otherwise, c, loops);
                }
                Stmt::Loop { body, latch } => {
                    let id = self.loop_count;
                    self.loop_count += 1;
                    if self.loops.len() <= id {
                        self.loops.push(Uniformity::Uniform);
                    }
                    loops.push(id);
                    let inner = ctl.max(self.loops[id]);
                    self.walk(body, inner, loops);
                    self.walk(latch, inner, loops);
                    loops.pop();
                }
                Stmt::Break(c) | Stmt::Continue(c) => {
                    let u = ctl.max(self.of(*c));
                    if let Some(&l) = loops.last() {
                        Self::raise(&mut self.loops[l], u, &mut self.changed);
                    }
                }
                Stmt::Barrier => {
                    if self.check && ctl != Uniformity::Uniform {
                        self.error.get_or_insert_with(|| {
                            format!(
                                "barrier under {ctl:?} control flow (barriers need \
                                 workgroup-uniform conditions)"
                            )
                        });
                    }
                }
                Stmt::Store(..) | Stmt::Fence(_) => {}
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn target() -> Target {
        "gfx90a".parse().unwrap()
    }

    #[test]
    fn vector_add_builds_with_uniformity() {
        let mut k = Builder::new("vadd", &target()).unwrap();
        let x = k.ptr("x", Scalar::F32, Access::Read);
        let y = k.ptr("y", Scalar::F32, Access::Write);
        let n = k.param("n", Scalar::U32);
        let i = k.global_id();
        let inside = k.lt(i, n);
        k.if_(inside, |k| {
            let off = k.at(x, i);
            let v = k.load(x, off);
            let w = k.mul(v, 2.0);
            k.store(y, off, w);
        });
        let def = k.finish().unwrap();
        assert_eq!(def.wave_size, 64);
        assert_eq!(def.signature().params.len(), 3);
        assert_eq!(def.uniformity(n), Uniformity::Uniform);
        assert_eq!(def.uniformity(i), Uniformity::Varying);
        assert_eq!(def.uniformity(inside), Uniformity::Varying);
    }

    #[test]
    fn var_assigned_in_divergent_loop_is_varying() {
        // A counter assigned only uniform values still becomes varying when the loop's
        // exit depends on the lane: after the loop, lanes hold different counts.
        let mut k = Builder::new("count", &target()).unwrap();
        let out = k.ptr("out", Scalar::U32, Access::Write);
        let t = k.thread_id();
        let c = k.var(0u32);
        k.loop_(|k| {
            let cv = k.get(c);
            let done = k.ge(cv, t);
            k.break_if(done);
            let next = k.add(cv, 1u32);
            k.set(c, next);
        });
        let cv = k.get(c);
        let off = k.at(out, t);
        k.store(out, off, cv);
        let def = k.finish().unwrap();
        assert_eq!(def.var_uniformity(c), Uniformity::Varying);
        assert_eq!(def.uniformity(cv), Uniformity::Varying);
    }

    #[test]
    fn barrier_under_varying_if_is_rejected() {
        let mut k = Builder::new("bad", &target()).unwrap();
        let t = k.thread_id();
        let p = k.lt(t, 3u32);
        k.if_(p, |k| k.barrier());
        let e = k.finish().unwrap_err().to_string();
        assert!(e.contains("kernel `bad`") && e.contains("barrier"), "{e}");
    }

    #[test]
    fn barrier_under_uniform_loop_is_accepted() {
        let mut k = Builder::new("ok", &target()).unwrap();
        let n = k.param("n", Scalar::U32);
        k.for_range(0u32, n, 1u32, |k, _| k.barrier());
        assert!(k.finish().is_ok());
    }

    #[test]
    fn value_escaping_its_block_is_rejected() {
        let mut k = Builder::new("escape", &target()).unwrap();
        let t = k.thread_id();
        let p = k.lt(t, 3u32);
        let mut inner = None;
        k.if_(p, |k| inner = Some(k.add(t, 1u32)));
        let _ = k.add(inner.unwrap(), 1u32);
        let e = k.finish().unwrap_err().to_string();
        assert!(e.contains("outside the block"), "{e}");
    }

    #[test]
    fn type_errors_name_the_kernel() {
        let mut k = Builder::new("types", &target()).unwrap();
        let a = k.lit(1.0f32);
        let b = k.lit(2u32);
        let _ = k.add(a, b);
        let e = k.finish().unwrap_err().to_string();
        assert!(e.contains("kernel `types`") && e.contains("u32"), "{e}");
        let mut k = Builder::new("ro", &target()).unwrap();
        let x = k.ptr("x", Scalar::F32, Access::Read);
        let v = k.lit(1.0f32);
        k.store(x, 0u64, v);
        assert!(k.finish().unwrap_err().to_string().contains("read-only"));
        assert!(Builder::new("cpu", &Target::cpu()).is_err());
    }

    #[test]
    fn params_form_the_kernel_signature() {
        let mut k = Builder::new("sig", &target()).unwrap();
        let _ = k.param("n", Scalar::U32);
        let _ = k.ptr("x", Scalar::F16, Access::Read);
        let _ = k.ptr("q", Scalar::U64, Access::ReadWrite);
        let _ = k.ptr_dtype("c", DType::C32, Scalar::F32, Access::Write);
        let _ = k.param("alpha", Scalar::F64);
        let def = k.finish().unwrap();
        let want = Signature::new("sig")
            .scalar("n", ScalarType::U32)
            .pointer("x", DType::F16, Access::Read)
            .pointer("q", DType::I64, Access::ReadWrite)
            .pointer("c", DType::C32, Access::Write)
            .scalar("alpha", ScalarType::F64);
        assert_eq!(def.signature(), &want);
        let mut k = Builder::new("half", &target()).unwrap();
        let _ = k.param("h", Scalar::F16);
        let e = k.finish().unwrap_err().to_string();
        assert!(e.contains("`h`") && e.contains("f16"), "{e}");
    }

    #[test]
    fn wave_reduce_is_wave_uniform() {
        let mut k = Builder::new("wr", &"gfx1100".parse().unwrap()).unwrap();
        assert_eq!(k.wave_size(), 32);
        let t = k.thread_id();
        let s = k.wave_reduce(Reduce::Add, t);
        let def = k.finish().unwrap();
        assert_eq!(def.uniformity(s), Uniformity::WaveUniform);
    }
}
