//! A PTX builder: typed virtual registers, the instructions our generators use, and text
//! emission for sm_80 and sm_90/sm_90a.
//!
//! A [`KernelBuilder`] collects parameters, registers and instructions of one `.entry`;
//! [`Module`] joins kernels under one `.version`/`.target` header. Registers are virtual
//! (ptxas allocates), so a generator asks for as many as it likes; the type of every
//! register is fixed at creation and each instruction states the PTX type it operates
//! on, so the text is correct by construction for the forms we emit. `ptxas` is the
//! oracle in tests (see [`crate::ptxas`]).

mod mma;

use crate::signature::{ParamType, ScalarType, Signature};
use rocm_core::{target::Family, DType, Error, Result, Target};
use std::fmt::{self, Write};

pub mod cache;
pub mod half;
pub mod wgmma;

/// PTX register and instruction types.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Ty {
    Pred,
    B16,
    B32,
    B64,
    U16,
    U32,
    U64,
    S32,
    S64,
    F16,
    Bf16,
    F32,
    F64,
}

impl Ty {
    /// The type of one real component of a floating-point `d` and the components per
    /// element: f16, bf16, f32, f64 one; Complex32 / Complex64 two f32 / f64. `None` for
    /// the integer types.
    pub fn components_of(d: DType) -> Option<(Ty, u32)> {
        Some(match d {
            DType::F16 => (Ty::F16, 1),
            DType::Bf16 => (Ty::Bf16, 1),
            DType::F32 => (Ty::F32, 1),
            DType::F64 => (Ty::F64, 1),
            DType::C32 => (Ty::F32, 2),
            DType::C64 => (Ty::F64, 2),
            _ => return None,
        })
    }

    /// The type's PTX spelling (`f32`, `u64`, ...).
    pub fn name(self) -> &'static str {
        match self {
            Ty::Pred => "pred",
            Ty::B16 => "b16",
            Ty::B32 => "b32",
            Ty::B64 => "b64",
            Ty::U16 => "u16",
            Ty::U32 => "u32",
            Ty::U64 => "u64",
            Ty::S32 => "s32",
            Ty::S64 => "s64",
            Ty::F16 => "f16",
            Ty::Bf16 => "bf16",
            Ty::F32 => "f32",
            Ty::F64 => "f64",
        }
    }

    /// Size in bytes (predicates: 0).
    pub fn size(self) -> u32 {
        match self {
            Ty::Pred => 0,
            Ty::B16 | Ty::U16 | Ty::F16 | Ty::Bf16 => 2,
            Ty::B32 | Ty::U32 | Ty::S32 | Ty::F32 => 4,
            Ty::B64 | Ty::U64 | Ty::S64 | Ty::F64 => 8,
        }
    }

    /// The register class that holds values of this type: registers are declared with
    /// one of these and reinterpreted by the instruction's type.
    fn class(self) -> (Ty, &'static str) {
        match self {
            Ty::Pred => (Ty::Pred, "p"),
            Ty::B16 | Ty::U16 | Ty::F16 | Ty::Bf16 => (Ty::B16, "h"),
            Ty::B32 | Ty::U32 | Ty::S32 => (Ty::B32, "r"),
            Ty::F32 => (Ty::F32, "f"),
            Ty::B64 | Ty::U64 | Ty::S64 => (Ty::B64, "rd"),
            Ty::F64 => (Ty::F64, "fd"),
        }
    }
}

impl fmt::Display for Ty {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A virtual register.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Reg {
    ty: Ty,
    id: u32,
}

impl Reg {
    pub fn ty(self) -> Ty {
        self.ty
    }
}

impl fmt::Display for Reg {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "%{}{}", self.ty.class().1, self.id)
    }
}

/// An instruction operand: a register or an immediate.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Op {
    R(Reg),
    I(i64),
    F32(f32),
    F64(f64),
}

impl From<Reg> for Op {
    fn from(r: Reg) -> Op {
        Op::R(r)
    }
}
impl From<i64> for Op {
    fn from(v: i64) -> Op {
        Op::I(v)
    }
}
impl From<u32> for Op {
    fn from(v: u32) -> Op {
        Op::I(v as i64)
    }
}
impl From<i32> for Op {
    fn from(v: i32) -> Op {
        Op::I(v as i64)
    }
}

impl fmt::Display for Op {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Op::R(r) => write!(f, "{r}"),
            Op::I(v) => write!(f, "{v}"),
            // PTX float immediates are exact hexadecimal bit patterns.
            Op::F32(v) => write!(f, "0f{:08X}", v.to_bits()),
            Op::F64(v) => write!(f, "0d{:016X}", v.to_bits()),
        }
    }
}

/// Comparison operators of `setp`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Cmp {
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
    /// Unordered or greater (true when either is NaN): for NaN-propagating max.
    Gtu,
    /// Unordered (either is NaN).
    Nan,
}

impl Cmp {
    fn name(self) -> &'static str {
        match self {
            Cmp::Eq => "eq",
            Cmp::Ne => "ne",
            Cmp::Lt => "lt",
            Cmp::Le => "le",
            Cmp::Gt => "gt",
            Cmp::Ge => "ge",
            Cmp::Gtu => "gtu",
            Cmp::Nan => "nan",
        }
    }
}

/// Special registers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Special {
    TidX,
    NtidX,
    CtaidX,
    NctaidX,
    LaneId,
}

impl Special {
    fn name(self) -> &'static str {
        match self {
            Special::TidX => "%tid.x",
            Special::NtidX => "%ntid.x",
            Special::CtaidX => "%ctaid.x",
            Special::NctaidX => "%nctaid.x",
            Special::LaneId => "%laneid",
        }
    }
}

/// Cache behaviour of a global load.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum LoadCache {
    /// `ld.global` (cache at all levels).
    Default,
    /// `ld.global.nc` (read-only data path).
    NonCoherent,
    /// `ld.global.cs` (streaming: evict first).
    Streaming,
}

/// A branch target.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Label(u32);

impl fmt::Display for Label {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "L{}", self.0)
    }
}

/// A kernel parameter.
#[derive(Debug, Clone)]
pub struct Param {
    name: String,
    ty: Ty,
    /// An opaque byte array (`.param .align A .b8 name[N]`): (align, bytes).
    array: Option<(u32, u32)>,
}

impl Param {
    /// The `.param` symbol.
    pub fn name(&self) -> &str {
        &self.name
    }
}

/// The parameter handles of a kernel built from a [`Signature`], by name.
#[derive(Debug, Clone)]
pub struct Params {
    handles: Vec<(String, Param)>,
}

impl Params {
    /// The handle of parameter `name`; a name the signature does not declare is a
    /// generator bug, reported as an error naming it.
    pub fn get(&self, name: &str) -> Result<&Param> {
        self.handles
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, p)| p)
            .ok_or_else(|| {
                Error::invalid(
                    "kernel parameter",
                    format!("the signature declares no `{name}`"),
                )
            })
    }

    /// The handle of `name` where the signature declares it.
    pub fn opt(&self, name: &str) -> Option<&Param> {
        self.get(name).ok()
    }
}

/// The PTX type of a scalar parameter.
fn scalar_ty(s: ScalarType) -> Ty {
    match s {
        ScalarType::U32 => Ty::U32,
        ScalarType::I32 => Ty::S32,
        ScalarType::U64 => Ty::U64,
        ScalarType::I64 => Ty::S64,
        ScalarType::F32 => Ty::F32,
        ScalarType::F64 => Ty::F64,
    }
}

/// Builds one `.entry`.
#[derive(Debug)]
pub struct KernelBuilder {
    name: String,
    params: Vec<Param>,
    counts: [u32; 6],
    body: String,
    labels: u32,
    shared: Vec<(String, u32, u32)>,
    /// A dynamically sized shared array `(name, align)`: declared `.extern` at module
    /// scope, sized by the launch (`LaunchConfig::shared_bytes`), the way past the 48 KiB
    /// a static declaration may take.
    dynamic_shared: Option<(String, u32)>,
    guard: Option<(Reg, bool)>,
    /// `.maxntid`: the most threads a block launches with (lets ptxas budget registers).
    max_threads: Option<u32>,
}

fn class_index(ty: Ty) -> usize {
    match ty.class().0 {
        Ty::Pred => 0,
        Ty::B16 => 1,
        Ty::B32 => 2,
        Ty::F32 => 3,
        Ty::B64 => 4,
        _ => 5,
    }
}

impl KernelBuilder {
    pub fn new(name: impl Into<String>) -> Self {
        KernelBuilder {
            name: name.into(),
            params: Vec::new(),
            counts: [0; 6],
            body: String::new(),
            labels: 0,
            shared: Vec::new(),
            dynamic_shared: None,
            guard: None,
            max_threads: None,
        }
    }

    pub fn name(&self) -> &str {
        &self.name
    }

    /// Declares that blocks launch with at most `threads` threads (`.maxntid`), so that
    /// ptxas keeps the registers per thread within what such a block can be given.
    pub fn max_threads(&mut self, threads: u32) {
        self.max_threads = Some(threads);
    }

    /// Declares a parameter (`.param .<ty> name`), in order.
    pub fn param(&mut self, name: &str, ty: Ty) -> Param {
        let p = Param {
            name: format!("p_{name}"),
            ty,
            array: None,
        };
        self.params.push(p.clone());
        p
    }

    /// A kernel declaring exactly `sig`'s parameters, in order, and their handles by
    /// name: an emitter built this way cannot declare another list than the one the host
    /// packs ([`crate::signature`]).
    pub fn from_signature(sig: &Signature) -> (Self, Params) {
        let mut k = KernelBuilder::new(sig.kernel.clone());
        let handles = sig
            .params
            .iter()
            .map(|p| {
                let handle = match p.ty {
                    ParamType::Scalar(s) => k.param(&p.name, scalar_ty(s)),
                    ParamType::Pointer { .. } => k.param(&p.name, Ty::U64),
                    ParamType::Bytes { size, align } => k.param_bytes(&p.name, size, align),
                };
                (p.name.clone(), handle)
            })
            .collect();
        (k, Params { handles })
    }

    /// Declares an opaque parameter of `bytes` bytes aligned to `align`
    /// (`.param .align A .b8 name[N]`, e.g. a tensor map), in order.
    pub fn param_bytes(&mut self, name: &str, bytes: u32, align: u32) -> Param {
        let p = Param {
            name: format!("p_{name}"),
            ty: Ty::B32,
            array: Some((align, bytes)),
        };
        self.params.push(p.clone());
        p
    }

    /// A fresh register of type `ty`.
    pub fn reg(&mut self, ty: Ty) -> Reg {
        let c = class_index(ty);
        self.counts[c] += 1;
        Reg {
            ty,
            id: self.counts[c],
        }
    }

    /// Guards the next instruction with `@p` (or `@!p` when `negate`).
    pub fn when(&mut self, p: Reg, negate: bool) -> &mut Self {
        self.guard = Some((p, negate));
        self
    }

    /// Appends one instruction line (without `;`).
    pub(crate) fn emit(&mut self, text: impl fmt::Display) {
        self.body.push_str("    ");
        if let Some((p, neg)) = self.guard.take() {
            let _ = write!(self.body, "@{}{} ", if neg { "!" } else { "" }, p);
        }
        let _ = writeln!(self.body, "{text};");
    }

    /// A comment line (for reading generated code).
    pub fn comment(&mut self, text: &str) {
        let _ = writeln!(self.body, "    // {text}");
    }

    pub fn ld_param(&mut self, p: &Param) -> Reg {
        let r = self.reg(p.ty);
        let name = p.name.clone();
        self.emit(format!("ld.param.{} {r}, [{name}]", p.ty.name()));
        r
    }

    /// Loads a pointer parameter and converts it to a global address.
    pub fn ld_param_global_ptr(&mut self, p: &Param) -> Reg {
        let r = self.ld_param(p);
        self.emit(format!("cvta.to.global.u64 {r}, {r}"));
        r
    }

    pub fn special(&mut self, s: Special) -> Reg {
        let r = self.reg(Ty::U32);
        self.emit(format!("mov.u32 {r}, {}", s.name()));
        r
    }

    pub fn mov(&mut self, ty: Ty, a: impl Into<Op>) -> Reg {
        let r = self.reg(ty);
        self.emit(format!("mov.{} {r}, {}", mov_ty(ty), a.into()));
        r
    }

    /// `dst = a` into an existing register.
    pub fn assign(&mut self, dst: Reg, a: impl Into<Op>) {
        self.emit(format!("mov.{} {dst}, {}", mov_ty(dst.ty), a.into()));
    }

    fn binary(&mut self, op: &str, ty: Ty, a: Op, b: Op) -> Reg {
        let r = self.reg(ty);
        self.emit(format!("{op}.{} {r}, {a}, {b}", ty.name()));
        r
    }

    /// `a + b` (`.rn` for floats).
    pub fn add(&mut self, ty: Ty, a: impl Into<Op>, b: impl Into<Op>) -> Reg {
        let op = if is_float(ty) { "add.rn" } else { "add" };
        self.binary(op, ty, a.into(), b.into())
    }

    /// `dst += b` in place.
    pub fn add_to(&mut self, dst: Reg, b: impl Into<Op>) {
        let op = if is_float(dst.ty) { "add.rn" } else { "add" };
        self.emit(format!("{op}.{} {dst}, {dst}, {}", dst.ty.name(), b.into()));
    }

    pub fn sub(&mut self, ty: Ty, a: impl Into<Op>, b: impl Into<Op>) -> Reg {
        let op = if is_float(ty) { "sub.rn" } else { "sub" };
        self.binary(op, ty, a.into(), b.into())
    }

    /// Float product (`mul.rn`) or low half of an integer product (`mul.lo`).
    pub fn mul(&mut self, ty: Ty, a: impl Into<Op>, b: impl Into<Op>) -> Reg {
        let op = if is_float(ty) { "mul.rn" } else { "mul.lo" };
        self.binary(op, ty, a.into(), b.into())
    }

    /// 32 × 32 → 64-bit unsigned product.
    pub fn mul_wide_u32(&mut self, a: impl Into<Op>, b: impl Into<Op>) -> Reg {
        let r = self.reg(Ty::U64);
        self.emit(format!("mul.wide.u32 {r}, {}, {}", a.into(), b.into()));
        r
    }

    /// `a * b + c` rounded once (`fma.rn`) for floats, `mad.lo` for integers.
    pub fn fma(&mut self, ty: Ty, a: impl Into<Op>, b: impl Into<Op>, c: impl Into<Op>) -> Reg {
        let r = self.reg(ty);
        let op = if is_float(ty) { "fma.rn" } else { "mad.lo" };
        self.emit(format!(
            "{op}.{} {r}, {}, {}, {}",
            ty.name(),
            a.into(),
            b.into(),
            c.into()
        ));
        r
    }

    pub fn min(&mut self, ty: Ty, a: impl Into<Op>, b: impl Into<Op>) -> Reg {
        self.binary("min", ty, a.into(), b.into())
    }

    pub fn max(&mut self, ty: Ty, a: impl Into<Op>, b: impl Into<Op>) -> Reg {
        self.binary("max", ty, a.into(), b.into())
    }

    pub fn abs(&mut self, ty: Ty, a: impl Into<Op>) -> Reg {
        let r = self.reg(ty);
        self.emit(format!("abs.{} {r}, {}", ty.name(), a.into()));
        r
    }

    pub fn neg(&mut self, ty: Ty, a: impl Into<Op>) -> Reg {
        let r = self.reg(ty);
        self.emit(format!("neg.{} {r}, {}", ty.name(), a.into()));
        r
    }

    /// Correctly rounded square root.
    pub fn sqrt(&mut self, ty: Ty, a: impl Into<Op>) -> Reg {
        let r = self.reg(ty);
        self.emit(format!("sqrt.rn.{} {r}, {}", ty.name(), a.into()));
        r
    }

    /// Correctly rounded division.
    pub fn div(&mut self, ty: Ty, a: impl Into<Op>, b: impl Into<Op>) -> Reg {
        let op = if is_float(ty) { "div.rn" } else { "div" };
        self.binary(op, ty, a.into(), b.into())
    }

    pub fn shl(&mut self, ty: Ty, a: impl Into<Op>, bits: u32) -> Reg {
        let r = self.reg(ty);
        self.emit(format!(
            "shl.{} {r}, {}, {bits}",
            bit_ty(ty).name(),
            a.into()
        ));
        r
    }

    /// Logical shift right.
    pub fn shr(&mut self, ty: Ty, a: impl Into<Op>, bits: u32) -> Reg {
        let r = self.reg(ty);
        let t = match ty.size() {
            2 => Ty::U16,
            4 => Ty::U32,
            _ => Ty::U64,
        };
        self.emit(format!("shr.{} {r}, {}, {bits}", t.name(), a.into()));
        r
    }

    /// Conversion, with round-to-nearest-even where the conversion rounds.
    pub fn cvt(&mut self, to: Ty, from: Reg) -> Reg {
        let r = self.reg(to);
        let rounding = cvt_rounding(to, from.ty);
        self.emit(format!(
            "cvt{rounding}.{}.{} {r}, {from}",
            to.name(),
            from.ty.name()
        ));
        r
    }

    /// `p = a <cmp> b`.
    pub fn setp(&mut self, cmp: Cmp, ty: Ty, a: impl Into<Op>, b: impl Into<Op>) -> Reg {
        let r = self.reg(Ty::Pred);
        self.emit(format!(
            "setp.{}.{} {r}, {}, {}",
            cmp.name(),
            ty.name(),
            a.into(),
            b.into()
        ));
        r
    }

    /// `p ? a : b`.
    pub fn selp(&mut self, ty: Ty, a: impl Into<Op>, b: impl Into<Op>, p: Reg) -> Reg {
        let r = self.reg(ty);
        self.emit(format!(
            "selp.{} {r}, {}, {}, {p}",
            ty.name(),
            a.into(),
            b.into()
        ));
        r
    }

    /// `p = a && b` on predicates.
    pub fn and_pred(&mut self, a: Reg, b: Reg) -> Reg {
        let r = self.reg(Ty::Pred);
        self.emit(format!("and.pred {r}, {a}, {b}"));
        r
    }

    /// `p = !a` on predicates.
    pub fn not_pred(&mut self, a: Reg) -> Reg {
        let r = self.reg(Ty::Pred);
        self.emit(format!("not.pred {r}, {a}"));
        r
    }

    /// `p = a || b` on predicates.
    pub fn or_pred(&mut self, a: Reg, b: Reg) -> Reg {
        let r = self.reg(Ty::Pred);
        self.emit(format!("or.pred {r}, {a}, {b}"));
        r
    }

    /// Loads `width` (1, 2 or 4) consecutive values of `ty` from global address
    /// `addr + offset`.
    pub fn ld_global(
        &mut self,
        ty: Ty,
        width: u32,
        addr: Reg,
        offset: i64,
        cache: LoadCache,
    ) -> Vec<Reg> {
        let regs: Vec<Reg> = (0..width).map(|_| self.reg(ty)).collect();
        let hint = match cache {
            LoadCache::Default => "",
            LoadCache::NonCoherent => ".nc",
            LoadCache::Streaming => ".cs",
        };
        let v = vec_suffix(width);
        self.emit(format!(
            "ld.global{hint}{v}.{} {}, [{addr}{}]",
            mem_ty(ty).name(),
            reg_list(&regs),
            offset_text(offset)
        ));
        regs
    }

    /// Loads into existing registers (1, 2 or 4 of one type) from global `addr + offset`;
    /// combined with [`KernelBuilder::when`], registers keep their value where the
    /// predicate is false.
    pub fn ld_global_into(&mut self, regs: &[Reg], addr: Reg, offset: i64, cache: LoadCache) {
        let ty = regs[0].ty;
        let hint = match cache {
            LoadCache::Default => "",
            LoadCache::NonCoherent => ".nc",
            LoadCache::Streaming => ".cs",
        };
        let v = vec_suffix(regs.len() as u32);
        self.emit(format!(
            "ld.global{hint}{v}.{} {}, [{addr}{}]",
            mem_ty(ty).name(),
            reg_list(regs),
            offset_text(offset)
        ));
    }

    /// A scalar global load executed only where `pred` holds (the register is undefined
    /// elsewhere).
    pub fn ld_global_guarded(&mut self, ty: Ty, addr: Reg, offset: i64, pred: Reg) -> Reg {
        self.when(pred, false);
        self.ld_global(ty, 1, addr, offset, LoadCache::NonCoherent)[0]
    }

    /// A vector global load executed only where `pred` holds.
    pub fn ld_global_vec_guarded(&mut self, ty: Ty, width: u32, addr: Reg, pred: Reg) -> Vec<Reg> {
        self.when(pred, false);
        self.ld_global(ty, width, addr, 0, LoadCache::NonCoherent)
    }

    /// Stores `values` (1, 2 or 4 registers of one type) at global `addr + offset`.
    pub fn st_global(&mut self, addr: Reg, offset: i64, values: &[Reg]) {
        let ty = values[0].ty;
        let v = vec_suffix(values.len() as u32);
        self.emit(format!(
            "st.global{v}.{} [{addr}{}], {}",
            mem_ty(ty).name(),
            offset_text(offset),
            reg_list(values)
        ));
    }

    /// Declares a shared array and returns its 32-bit shared address.
    pub fn shared_array(&mut self, name: &str, bytes: u32, align: u32) -> Reg {
        self.shared.push((name.to_string(), bytes, align));
        let r = self.reg(Ty::U32);
        self.emit(format!("mov.u32 {r}, {name}"));
        r
    }

    /// The address of the kernel's dynamically sized shared array (named after the
    /// kernel, so kernels of one module do not share a declaration); the launch gives
    /// its size.
    pub fn dynamic_shared_array(&mut self, align: u32) -> Reg {
        let name = format!("{}_dynamic_shared", self.name);
        let r = self.reg(Ty::U32);
        self.emit(format!("mov.u32 {r}, {name}"));
        self.dynamic_shared = Some((name, align));
        r
    }

    pub fn ld_shared(&mut self, ty: Ty, addr: Reg, offset: i64) -> Reg {
        let r = self.reg(ty);
        self.emit(format!(
            "ld.shared.{} {r}, [{addr}{}]",
            mem_ty(ty).name(),
            offset_text(offset)
        ));
        r
    }

    /// A shared load executed only where `pred` holds.
    pub fn ld_shared_guarded(&mut self, ty: Ty, addr: Reg, offset: i64, pred: Reg) -> Reg {
        self.when(pred, false);
        self.ld_shared(ty, addr, offset)
    }

    pub fn st_shared(&mut self, addr: Reg, offset: i64, value: Reg) {
        self.emit(format!(
            "st.shared.{} [{addr}{}], {value}",
            mem_ty(value.ty).name(),
            offset_text(offset)
        ));
    }

    /// `shfl.sync.down.b32` across the full warp; 64-bit values go as two halves.
    pub fn shfl_down(&mut self, value: Reg, delta: u32) -> Reg {
        match value.ty.size() {
            4 => {
                let r = self.reg(value.ty);
                self.emit(format!(
                    "shfl.sync.down.b32 {r}, {value}, {delta}, 31, 0xffffffff"
                ));
                r
            }
            _ => {
                let (lo, hi) = (self.reg(Ty::B32), self.reg(Ty::B32));
                self.emit(format!("mov.b64 {{{lo}, {hi}}}, {value}"));
                let (slo, shi) = (self.reg(Ty::B32), self.reg(Ty::B32));
                self.emit(format!(
                    "shfl.sync.down.b32 {slo}, {lo}, {delta}, 31, 0xffffffff"
                ));
                self.emit(format!(
                    "shfl.sync.down.b32 {shi}, {hi}, {delta}, 31, 0xffffffff"
                ));
                let r = self.reg(value.ty);
                self.emit(format!("mov.b64 {r}, {{{slo}, {shi}}}"));
                r
            }
        }
    }

    /// Block-wide barrier.
    pub fn bar_sync(&mut self) {
        self.emit("bar.sync 0");
    }

    /// `griddepcontrol.launch_dependents` (sm_90+): the kernel launched after this one
    /// with [`rocm_core::Kernel::launch_dependent`] may be scheduled once every workgroup
    /// of this one has executed this (or exited).
    pub fn griddep_launch_dependents(&mut self) {
        self.emit("griddepcontrol.launch_dependents");
    }

    /// `griddepcontrol.wait` (sm_90+): returns once the kernels this one depends on have
    /// completed and their writes are visible (at once for an ordinary launch).
    pub fn griddep_wait(&mut self) {
        self.emit("griddepcontrol.wait");
    }

    pub fn label(&mut self) -> Label {
        self.labels += 1;
        Label(self.labels)
    }

    pub fn place(&mut self, l: Label) {
        let _ = writeln!(self.body, "{l}:");
    }

    pub fn bra(&mut self, l: Label) {
        self.emit(format!("bra.uni {l}"));
    }

    /// Branch to `l` when `p` (or `!p` when `negate`).
    pub fn bra_if(&mut self, p: Reg, negate: bool, l: Label) {
        self.when(p, negate);
        self.emit(format!("bra {l}"));
    }

    pub fn ret(&mut self) {
        self.emit("ret");
    }

    /// The `.entry` text.
    pub fn finish(&self) -> String {
        let mut s = String::new();
        if let Some((name, align)) = &self.dynamic_shared {
            let _ = writeln!(
                s,
                ".extern .shared .align {align} .b8 {name}[];
"
            );
        }
        let _ = writeln!(s, ".visible .entry {}(", self.name);
        for (i, p) in self.params.iter().enumerate() {
            let sep = if i + 1 == self.params.len() { "" } else { "," };
            match p.array {
                Some((align, bytes)) => {
                    let _ = writeln!(s, "    .param .align {align} .b8 {}[{bytes}]{sep}", p.name);
                }
                None => {
                    let _ = writeln!(s, "    .param .{} {}{sep}", param_ty(p.ty).name(), p.name);
                }
            }
        }
        s.push(')');
        if let Some(t) = self.max_threads {
            let _ = write!(s, " .maxntid {t}, 1, 1");
        }
        s.push_str("\n{\n");
        for (name, bytes, align) in &self.shared {
            let _ = writeln!(s, "    .shared .align {align} .b8 {name}[{bytes}];");
        }
        let classes = [
            (Ty::Pred, "p"),
            (Ty::B16, "h"),
            (Ty::B32, "r"),
            (Ty::F32, "f"),
            (Ty::B64, "rd"),
            (Ty::F64, "fd"),
        ];
        for (i, (ty, prefix)) in classes.iter().enumerate() {
            if self.counts[i] > 0 {
                let _ = writeln!(
                    s,
                    "    .reg .{} %{prefix}<{}>;",
                    ty.name(),
                    self.counts[i] + 1
                );
            }
        }
        s.push_str(&self.body);
        s.push_str("}\n");
        s
    }
}

fn is_float(ty: Ty) -> bool {
    matches!(ty, Ty::F16 | Ty::Bf16 | Ty::F32 | Ty::F64)
}

fn bit_ty(ty: Ty) -> Ty {
    match ty.size() {
        2 => Ty::B16,
        4 => Ty::B32,
        _ => Ty::B64,
    }
}

/// Loads and stores of f16/bf16 move raw 16-bit patterns.
fn mem_ty(ty: Ty) -> Ty {
    match ty {
        Ty::F16 | Ty::Bf16 => Ty::B16,
        t => t,
    }
}

fn mov_ty(ty: Ty) -> Ty {
    match ty {
        Ty::F16 | Ty::Bf16 => Ty::B16,
        t => t,
    }
}

/// Parameters of 16-bit float types are passed as b16.
fn param_ty(ty: Ty) -> Ty {
    mem_ty(ty)
}

fn cvt_rounding(to: Ty, from: Ty) -> &'static str {
    let narrowing_float = is_float(to) && is_float(from) && to.size() < from.size();
    let int_to_float = is_float(to) && !is_float(from);
    let float_to_int = !is_float(to) && is_float(from);
    if narrowing_float || int_to_float {
        ".rn"
    } else if float_to_int {
        ".rzi"
    } else {
        ""
    }
}

fn vec_suffix(width: u32) -> &'static str {
    match width {
        1 => "",
        2 => ".v2",
        _ => ".v4",
    }
}

fn reg_list(regs: &[Reg]) -> String {
    if regs.len() == 1 {
        return regs[0].to_string();
    }
    let names: Vec<String> = regs.iter().map(|r| r.to_string()).collect();
    format!("{{{}}}", names.join(", "))
}

fn offset_text(offset: i64) -> String {
    match offset {
        0 => String::new(),
        o if o > 0 => format!("+{o}"),
        o => format!("{o}"),
    }
}

/// A PTX module: a header for one target and its kernels.
#[derive(Debug, Clone)]
pub struct Module {
    target: Target,
    kernels: Vec<String>,
}

impl Module {
    /// A module for an NVIDIA target.
    pub fn new(target: &Target) -> Result<Self> {
        Self::for_kernels(target, "PTX generation")
    }

    /// A module for an NVIDIA target holding `what` (e.g. "gemv kernels for f64"): on
    /// any other target, `Unsupported` naming `what` and the target.
    pub fn for_kernels(target: &Target, what: impl std::fmt::Display) -> Result<Self> {
        if target.family() != Family::Nvidia {
            return Err(Error::unsupported(what.to_string(), target));
        }
        Ok(Module {
            target: target.clone(),
            kernels: Vec::new(),
        })
    }

    pub fn push(&mut self, k: &KernelBuilder) {
        self.kernels.push(k.finish());
    }

    /// PTX ISA 8.0 (CUDA 12.0) covers sm_80..sm_90a and every instruction we emit.
    pub fn text(&self) -> String {
        let mut s = format!(
            ".version 8.0\n.target {}\n.address_size 64\n\n",
            self.target
        );
        for k in &self.kernels {
            s.push_str(k);
            s.push('\n');
        }
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn emits_typed_instructions() {
        let mut k = KernelBuilder::new("t");
        let p = k.param("x", Ty::U64);
        let a = k.param("alpha", Ty::F32);
        let h = k.param("h", Ty::F16);
        let x = k.ld_param_global_ptr(&p);
        let al = k.ld_param(&a);
        let _ = k.ld_param(&h);
        let tid = k.special(Special::TidX);
        let off = k.mul_wide_u32(tid, 4u32);
        let addr = k.add(Ty::U64, x, off);
        let v = k.ld_global(Ty::F32, 4, addr, 16, LoadCache::NonCoherent);
        let y = k.fma(Ty::F32, al, v[0], Op::F32(1.0));
        let p0 = k.setp(Cmp::Lt, Ty::U32, tid, 7u32);
        k.when(p0, true).st_global(addr, 0, &[y]);
        k.ret();
        let text = k.finish();
        assert!(text.contains(".param .u64 p_x,"), "{text}");
        assert!(text.contains(".param .b16 p_h\n"), "{text}");
        assert!(
            text.contains("ld.global.nc.v4.f32 {%f2, %f3, %f4, %f5}, [%rd3+16];"),
            "{text}"
        );
        assert!(
            text.contains("fma.rn.f32 %f6, %f1, %f2, 0f3F800000;"),
            "{text}"
        );
        assert!(text.contains("@!%p1 st.global.f32 [%rd3], %f6;"), "{text}");
        assert!(text.contains(".reg .f32 %f<7>;"), "{text}");
    }

    #[test]
    fn module_only_for_nvidia() {
        assert!(Module::new(&"gfx90a".parse().unwrap()).is_err());
        let m = Module::new(&"sm_90a".parse().unwrap()).unwrap();
        assert!(m.text().starts_with(".version 8.0\n.target sm_90a"));
    }
}
