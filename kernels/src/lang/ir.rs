//! The kernel language's IR: plain data, built by [`super::Builder`], walked by the CPU
//! interpreter and the lowerings.
//!
//! A [`KernelDef`] is a tree of structured statements ([`Stmt`]) over SSA values
//! ([`Value`]: defined once by a [`Stmt::Let`], usable only inside the block that defines
//! it and the blocks nested in it) and mutable variables ([`Var`]: declared once, assigned
//! any number of times; the only state that crosses a loop iteration or leaves an `if`).
//! Every value and variable has a [`Uniformity`], computed by the builder and stored in
//! the kernel ([`KernelDef::uniformity`], [`KernelDef::var_uniformity`]).
//!
//! Semantics every lowering must keep (the interpreter is the reference):
//! - Integer arithmetic wraps; shifts take a `u32` amount below the bit width (a larger
//!   amount is undefined; the interpreter reports it); integer division or remainder by
//!   zero is undefined (the interpreter reports it); signed division truncates.
//! - Float `add`, `sub`, `mul`, `fma`, `div`, `sqrt` and `rcp` round to nearest even,
//!   subnormals kept. The interpreter returns the correctly rounded result; a lowering
//!   may deviate by at most [`Unary::ulp_bound`] / [`Binary::ulp_bound`].
//! - `min`/`max` on floats return the other operand when one is NaN and order −0 below +0.
//! - Float comparisons are ordered (false when either operand is NaN) except `Ne`, which
//!   is `!Eq` (true when either is NaN).
//! - Conversions: int → int truncates or extends by the source's signedness; int → float
//!   and float → narrower float round by the [`Rounding`]; float → wider float is exact;
//!   float → int rounds by the [`Rounding`] to an integer, saturates to the destination's
//!   range, and gives 0 for NaN.
//! - f16 and bf16 are storage types: they are loaded, stored, bitcast and converted to
//!   and from f32 (f32 -> bf16 rounds to nearest or toward zero), and arithmetic happens
//!   in f32 or f64.
//! - Wave operations act on all lanes of a wave; workgroups that use them must be a
//!   multiple of the wave size, and control flow around them must be at most
//!   [`Uniformity::WaveUniform`] (the builder checks the latter). A wave reduction
//!   computes the butterfly `v = op(v, shuffle_xor(v, m))` for m = wave_size/2, ..., 1, so
//!   every lane ends with the same bits and a lowering that keeps this order agrees
//!   bit for bit with the interpreter.

pub use crate::signature::{Access, ParamType, ScalarType, Signature};
use rocm_core::{DType, Target};

/// Scalar types.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Scalar {
    /// A predicate (true/false); not storable in memory.
    Pred,
    U32,
    I32,
    U64,
    I64,
    F16,
    Bf16,
    F32,
    F64,
}

impl Scalar {
    /// Size in memory in bytes (predicates: 0).
    pub fn bytes(self) -> u32 {
        match self {
            Scalar::Pred => 0,
            Scalar::F16 | Scalar::Bf16 => 2,
            Scalar::U32 | Scalar::I32 | Scalar::F32 => 4,
            Scalar::U64 | Scalar::I64 | Scalar::F64 => 8,
        }
    }

    /// Bits of the value (predicates: 1).
    pub fn bits(self) -> u32 {
        match self {
            Scalar::Pred => 1,
            s => s.bytes() * 8,
        }
    }

    pub fn is_float(self) -> bool {
        matches!(self, Scalar::F16 | Scalar::Bf16 | Scalar::F32 | Scalar::F64)
    }

    pub fn is_int(self) -> bool {
        matches!(self, Scalar::U32 | Scalar::I32 | Scalar::U64 | Scalar::I64)
    }

    pub fn is_signed(self) -> bool {
        matches!(self, Scalar::I32 | Scalar::I64)
    }

    /// Whether arithmetic is defined on the type (f16/bf16 are storage only).
    pub fn is_arith(self) -> bool {
        self.is_int() || matches!(self, Scalar::F32 | Scalar::F64)
    }

    /// The contract's type of a scalar parameter of this type (f16, bf16 and predicates
    /// are not parameters).
    pub fn param_type(self) -> Option<ScalarType> {
        Some(match self {
            Scalar::U32 => ScalarType::U32,
            Scalar::I32 => ScalarType::I32,
            Scalar::U64 => ScalarType::U64,
            Scalar::I64 => ScalarType::I64,
            Scalar::F32 => ScalarType::F32,
            Scalar::F64 => ScalarType::F64,
            _ => return None,
        })
    }

    /// The element type a pointer to this scalar declares in the signature (u64: `I64`,
    /// the 8-byte integer dtype; predicates: none).
    pub fn dtype(self) -> Option<DType> {
        Some(match self {
            Scalar::U32 => DType::U32,
            Scalar::I32 => DType::I32,
            Scalar::U64 | Scalar::I64 => DType::I64,
            Scalar::F16 => DType::F16,
            Scalar::Bf16 => DType::Bf16,
            Scalar::F32 => DType::F32,
            Scalar::F64 => DType::F64,
            Scalar::Pred => return None,
        })
    }

    /// The short name (`u32`, `f16`, `pred`, ...).
    pub fn name(self) -> &'static str {
        match self {
            Scalar::Pred => "pred",
            Scalar::U32 => "u32",
            Scalar::I32 => "i32",
            Scalar::U64 => "u64",
            Scalar::I64 => "i64",
            Scalar::F16 => "f16",
            Scalar::Bf16 => "bf16",
            Scalar::F32 => "f32",
            Scalar::F64 => "f64",
        }
    }
}

/// A scalar or a short vector: 1, 2 or 4 lanes of one non-predicate scalar, at most
/// 16 bytes (the widest memory access per lane).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Type {
    pub scalar: Scalar,
    pub lanes: u8,
}

impl Type {
    pub const PRED: Type = Type::of(Scalar::Pred);
    pub const U32: Type = Type::of(Scalar::U32);
    pub const I32: Type = Type::of(Scalar::I32);
    pub const U64: Type = Type::of(Scalar::U64);
    pub const I64: Type = Type::of(Scalar::I64);
    pub const F16: Type = Type::of(Scalar::F16);
    pub const BF16: Type = Type::of(Scalar::Bf16);
    pub const F32: Type = Type::of(Scalar::F32);
    pub const F64: Type = Type::of(Scalar::F64);

    /// A scalar type.
    pub const fn of(scalar: Scalar) -> Type {
        Type { scalar, lanes: 1 }
    }

    /// A vector of `lanes` scalars (validity: [`Type::is_valid`]).
    pub const fn vec(scalar: Scalar, lanes: u8) -> Type {
        Type { scalar, lanes }
    }

    /// 1, 2 or 4 lanes; vectors of a non-predicate scalar within 16 bytes.
    pub fn is_valid(self) -> bool {
        match self.lanes {
            1 => true,
            2 | 4 => self.scalar != Scalar::Pred && self.bytes() <= 16,
            _ => false,
        }
    }

    pub fn is_vector(self) -> bool {
        self.lanes > 1
    }

    /// Size in memory in bytes.
    pub fn bytes(self) -> u32 {
        self.scalar.bytes() * self.lanes as u32
    }
}

impl std::fmt::Display for Type {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.lanes {
            1 => f.write_str(self.scalar.name()),
            n => write!(f, "{}x{n}", self.scalar.name()),
        }
    }
}

/// Whether a value is the same on every lane.
///
/// Ordered: `Uniform < WaveUniform < Varying`; a value computed from several inputs has
/// the largest of their uniformities (with the exceptions listed at [`Op`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Uniformity {
    /// The same on every lane of the workgroup (kernel parameters, workgroup ids,
    /// constants): an AMD scalar register; branches on it need no EXEC masking.
    Uniform,
    /// The same on every lane of one wave, possibly different between waves (the wave
    /// id, a wave reduction): still a scalar register on AMD.
    WaveUniform,
    /// Possibly different on every lane.
    Varying,
}

/// An SSA value: the result of one [`Stmt::Let`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Value {
    /// Index into [`KernelDef::values`].
    pub id: u32,
    pub ty: Type,
}

/// A mutable variable: declared by [`Stmt::Var`], assigned by [`Stmt::Assign`], read by
/// [`Op::Var`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Var {
    /// Index into [`KernelDef::vars`].
    pub id: u32,
    pub ty: Type,
}

/// A shared-memory (LDS) array of the workgroup.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct SharedArray {
    pub name: String,
    pub bytes: u32,
    /// Alignment of the array's start in bytes (a power of two, at most 16).
    pub align: u32,
}

/// Where a load, store or atomic goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Mem {
    /// Global memory at pointer parameter `param` (index into the signature's
    /// parameters) plus a `u64` byte offset.
    Global(u32),
    /// Shared array `array` (index into [`KernelDef::shared`]) plus a `u32` byte offset.
    Shared(u32),
}

/// Cache behaviour of a memory access.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Cache {
    #[default]
    Default,
    /// Streaming, evict first (`.cs` / `nt`).
    Streaming,
    /// The read-only data path (`ld.global.nc`); loads only, of memory no lane writes
    /// during the kernel.
    ReadOnly,
}

/// Rounding modes of conversions.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Rounding {
    /// To nearest, ties to even.
    #[default]
    Nearest,
    /// Toward zero.
    Zero,
    /// Toward −∞.
    Down,
    /// Toward +∞.
    Up,
}

/// A dimension of the launch grid.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Axis {
    X,
    Y,
    Z,
}

/// Special values; all `u32`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Special {
    /// Work-item id inside the workgroup (varying).
    ThreadId(Axis),
    /// Workgroup id in the grid (uniform).
    WorkgroupId(Axis),
    /// Work-items per workgroup (uniform).
    WorkgroupSize(Axis),
    /// Workgroups in the grid (uniform).
    GridSize(Axis),
    /// Lane inside the wave, `0..wave_size` (varying).
    LaneId,
    /// Wave inside the workgroup (wave-uniform), counted along the flattened x, y, z ids.
    WaveId,
    /// The target's wave size (uniform; a constant of the kernel).
    WaveSize,
}

impl Special {
    pub fn uniformity(self) -> Uniformity {
        match self {
            Special::ThreadId(_) | Special::LaneId => Uniformity::Varying,
            Special::WaveId => Uniformity::WaveUniform,
            _ => Uniformity::Uniform,
        }
    }
}

/// One-operand operations (the result has the operand's type).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Unary {
    /// Arithmetic negation (ints wrap; floats flip the sign bit).
    Neg,
    /// Absolute value (ints: `i32::MIN` stays; floats clear the sign bit).
    Abs,
    /// Bitwise not (ints), logical not (predicates).
    Not,
    /// Square root (floats).
    Sqrt,
    /// 1/x (floats).
    Rcp,
    /// 1/√x (floats).
    Rsqrt,
    /// 2^x (f32 only).
    Exp2,
    /// log₂ x (f32 only).
    Log2,
}

impl Unary {
    /// The most ulps a lowering's result may differ from the correctly rounded result
    /// (0: exact). `Log2` additionally allows an absolute error of 2⁻²² (near x = 1 the
    /// result is tiny and approximations lose relative accuracy).
    pub fn ulp_bound(self) -> u32 {
        match self {
            Unary::Neg | Unary::Abs | Unary::Not => 0,
            Unary::Sqrt | Unary::Rcp => 1,
            Unary::Rsqrt | Unary::Exp2 | Unary::Log2 => 2,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Unary::Neg => "neg",
            Unary::Abs => "abs",
            Unary::Not => "not",
            Unary::Sqrt => "sqrt",
            Unary::Rcp => "rcp",
            Unary::Rsqrt => "rsqrt",
            Unary::Exp2 => "exp2",
            Unary::Log2 => "log2",
        }
    }
}

/// Two-operand operations. Both operands have one type, which is the result's, except:
/// `Shl`/`Shr` take a `u32` amount; `MulWide` takes u32/i32 and gives u64/i64.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Binary {
    Add,
    Sub,
    /// Floats: the rounded product; ints: the low half of the product.
    Mul,
    /// Ints: the high half of the double-width product.
    MulHi,
    /// u32 × u32 → u64, i32 × i32 → i64 (exact).
    MulWide,
    /// Floats (rounded); u32/i32 (truncating).
    Div,
    /// u32/i32 (sign of the dividend).
    Rem,
    Min,
    Max,
    /// Bitwise (ints) or logical (predicates).
    And,
    Or,
    Xor,
    Shl,
    /// Logical for unsigned types, arithmetic for signed.
    Shr,
}

impl Binary {
    /// Most ulps from the correctly rounded result a lowering may give (floats).
    pub fn ulp_bound(self) -> u32 {
        match self {
            Binary::Div => 1,
            _ => 0,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Binary::Add => "add",
            Binary::Sub => "sub",
            Binary::Mul => "mul",
            Binary::MulHi => "mul_hi",
            Binary::MulWide => "mul_wide",
            Binary::Div => "div",
            Binary::Rem => "rem",
            Binary::Min => "min",
            Binary::Max => "max",
            Binary::And => "and",
            Binary::Or => "or",
            Binary::Xor => "xor",
            Binary::Shl => "shl",
            Binary::Shr => "shr",
        }
    }
}

/// Comparisons (signed, unsigned or float by the operands' type); the result is a
/// predicate.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Cmp {
    Eq,
    /// `!Eq` (true when a float operand is NaN).
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
}

/// Atomic read-modify-write operations (relaxed order, device scope for global memory,
/// workgroup scope for shared memory). The result is the old value.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum AtomicOp {
    /// u32, i32, u64, f32, f64.
    Add,
    /// u32, i32.
    Min,
    /// u32, i32.
    Max,
    /// u32, u64.
    Exchange,
    /// Compare and swap (u32, u64): writes `value` where the old value equals `compare`.
    CompareSwap,
}

/// The lane a shuffle reads from (32- and 64-bit values). Lanes count in the target's
/// wave; a lane whose source is outside the wave reads its own value.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Shuffle {
    /// Lane `index % wave_size` (a `u32` value).
    Idx(Value),
    /// Lane `lane - delta`.
    Up(u32),
    /// Lane `lane + delta`.
    Down(u32),
    /// Lane `lane ^ mask`.
    Xor(u32),
}

/// Wave reductions (result on every lane of the wave).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Reduce {
    Add,
    Min,
    Max,
}

/// A memory fence's reach.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Scope {
    Workgroup,
    Device,
}

/// A load's or store's memory shape.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct MemAccess {
    pub mem: Mem,
    /// Byte offset: `u64` for global memory, `u32` for shared.
    pub offset: Value,
    /// Bytes moved per lane: the value type's size, or 1 or 2 for a `u32`/`i32` value
    /// (zero- or sign-extended on load, truncated on store).
    pub bytes: u32,
    /// A power of two (at most 16) that the address is known to be a multiple of; a
    /// lowering splits the access where it is below `bytes`.
    pub align: u32,
    pub cache: Cache,
}

/// Operations that define a value. Uniformity of the result: the largest of the
/// inputs', except `Const`/`Param` (uniform), `Special` ([`Special::uniformity`]),
/// `Var` (the variable's), `Atomic` (varying), wave ops (see [`Op::WaveReduce`]) and
/// `Load` (the offset's).
#[derive(Debug, Clone, PartialEq)]
pub enum Op {
    /// A scalar constant: the value's bits, zero-extended to 64 (i32 −1 is
    /// `0xFFFF_FFFF`; f32 is its bit pattern; predicates 0 or 1).
    Const(u64),
    /// A scalar parameter (index into the signature's parameters).
    Param(u32),
    Special(Special),
    /// The variable's current value.
    Var(Var),
    Unary(Unary, Value),
    Binary(Binary, Value, Value),
    /// Floats: `a·b + c` rounded once; ints: `a·b + c`, low bits.
    Fma(Value, Value, Value),
    Cmp(Cmp, Value, Value),
    /// `cond ? a : b` (cond a predicate; a, b any one type).
    Select(Value, Value, Value),
    /// To the value's type (a scalar) from another scalar, see the module docs.
    Convert(Value, Rounding),
    /// The same bits as another type of the same size.
    Bitcast(Value),
    /// A vector from scalars.
    Pack(Vec<Value>),
    /// Lane of a vector.
    Extract(Value, u8),
    Load(MemAccess),
    /// `value` (and `compare` for compare-and-swap) at `offset` (natural alignment).
    Atomic {
        op: AtomicOp,
        mem: Mem,
        offset: Value,
        value: Value,
        compare: Option<Value>,
    },
    /// Reads a 32- or 64-bit value from another lane. Uniformity: the value's when it
    /// is at most wave-uniform; else wave-uniform for `Idx` of a wave-uniform index, else
    /// varying.
    Shuffle(Value, Shuffle),
    /// Reduction over the wave (u32, i32, f32, f64). Uniformity: uniform for a uniform
    /// input, else wave-uniform (the same holds for the ballot, any and all).
    WaveReduce(Reduce, Value),
    /// Bit `l` of the `u64` result is lane `l`'s predicate (bits past the wave size 0).
    Ballot(Value),
    /// Whether the predicate holds on any lane of the wave.
    Any(Value),
    /// Whether the predicate holds on every lane of the wave.
    All(Value),
}

impl Op {
    /// The values the operation reads, in order.
    pub fn inputs(&self) -> Vec<Value> {
        match self {
            Op::Const(_) | Op::Param(_) | Op::Special(_) | Op::Var(_) => vec![],
            Op::Unary(_, a)
            | Op::Convert(a, _)
            | Op::Bitcast(a)
            | Op::Extract(a, _)
            | Op::WaveReduce(_, a)
            | Op::Ballot(a)
            | Op::Any(a)
            | Op::All(a) => vec![*a],
            Op::Binary(_, a, b) | Op::Cmp(_, a, b) => vec![*a, *b],
            Op::Fma(a, b, c) | Op::Select(a, b, c) => vec![*a, *b, *c],
            Op::Pack(v) => v.clone(),
            Op::Load(m) => vec![m.offset],
            Op::Atomic {
                offset,
                value,
                compare,
                ..
            } => {
                let mut v = vec![*offset, *value];
                v.extend(compare);
                v
            }
            Op::Shuffle(a, s) => match s {
                Shuffle::Idx(i) => vec![*a, *i],
                _ => vec![*a],
            },
        }
    }

    /// Whether it is a wave operation (needs wave-uniform control flow).
    pub fn is_wave_op(&self) -> bool {
        matches!(
            self,
            Op::Shuffle(..) | Op::WaveReduce(..) | Op::Ballot(_) | Op::Any(_) | Op::All(_)
        )
    }
}

/// A structured statement.
#[derive(Debug, Clone, PartialEq)]
pub enum Stmt {
    /// Defines `value` by `op`.
    Let(Value, Op),
    /// Declares a variable with its initial value.
    Var(Var, Value),
    Assign(Var, Value),
    /// Stores `value` (its type's bytes, or fewer, see [`MemAccess::bytes`]).
    Store(MemAccess, Value),
    /// Lanes where `cond` holds run `then`, the others `otherwise`.
    If {
        cond: Value,
        then: Block,
        otherwise: Block,
    },
    /// Runs `body` then `latch`, repeatedly, until every lane has left by a `Break`.
    /// `Continue` skips the rest of `body` (the latch still runs); a `Break` in the
    /// latch leaves too. Loops nest; `Break`/`Continue` refer to the innermost.
    Loop {
        body: Block,
        latch: Block,
    },
    /// The lanes where `cond` holds leave the innermost loop.
    Break(Value),
    /// The lanes where `cond` holds skip to the innermost loop's latch (body only).
    Continue(Value),
    /// Workgroup barrier with a workgroup-scope memory fence (global and shared).
    Barrier,
    /// Memory fence: this lane's earlier accesses become visible at `scope` before its
    /// later ones.
    Fence(Scope),
}

/// A sequence of statements.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Block(pub Vec<Stmt>);

/// What the builder knows of a value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ValueInfo {
    pub ty: Type,
    pub uniformity: Uniformity,
    /// The bits when the value is an [`Op::Const`].
    pub constant: Option<u64>,
}

/// A kernel in the language, built for one target.
#[derive(Debug, Clone, PartialEq)]
pub struct KernelDef {
    pub name: String,
    pub target: Target,
    /// The target's wave size (32 or 64), fixed while building.
    pub wave_size: u32,
    /// The most work-items a workgroup launches with (PTX `.maxntid`, AMD occupancy).
    pub max_workgroup_size: u32,
    /// The parameters, in the kernel contract's vocabulary ([`crate::signature`]).
    pub signature: Signature,
    pub shared: Vec<SharedArray>,
    pub body: Block,
    /// Facts about every value, by [`Value::id`].
    pub values: Vec<ValueInfo>,
    /// Type and uniformity of every variable, by [`Var::id`].
    pub vars: Vec<(Type, Uniformity)>,
}

impl KernelDef {
    /// The kernel's declared parameters (what the PTX `.param` list and the AMDGPU
    /// kernarg metadata are generated from).
    pub fn signature(&self) -> &Signature {
        &self.signature
    }

    pub fn uniformity(&self, v: Value) -> Uniformity {
        self.values[v.id as usize].uniformity
    }

    pub fn var_uniformity(&self, v: Var) -> Uniformity {
        self.vars[v.id as usize].1
    }

    /// Bytes of shared memory the kernel declares (each array at its alignment).
    pub fn shared_bytes(&self) -> u32 {
        self.shared_offsets().last().map_or(0, |&(o, b)| o + b)
    }

    /// Each shared array's (byte offset, bytes) in one workgroup allocation, in
    /// declaration order.
    pub fn shared_offsets(&self) -> Vec<(u32, u32)> {
        let mut at = 0u32;
        self.shared
            .iter()
            .map(|s| {
                let o = at.next_multiple_of(s.align.max(1));
                at = o + s.bytes;
                (o, s.bytes)
            })
            .collect()
    }

    /// The constant a value was defined as, if it was (for lowerings that fold
    /// immediates: division by a constant, shifts, offsets).
    pub fn constant(&self, v: Value) -> Option<u64> {
        self.values[v.id as usize].constant
    }
}
