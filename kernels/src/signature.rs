//! A kernel's declared argument list, as data.
//!
//! Every generated kernel states its arguments once, as a [`Signature`]: an ordered list
//! of named, typed parameters. Everything that depends on the list derives from it:
//!
//! - the PTX `.param` list ([`crate::ptx::KernelBuilder::from_signature`] declares exactly
//!   these parameters and hands their handles out by name),
//! - the AMDGPU kernarg layout and code-object `.args` metadata
//!   ([`crate::amdgpu::Assembler::declare`] loads each argument in order; hidden
//!   arguments such as `hidden_block_count_y` stay the assembler's business and follow
//!   the explicit ones),
//! - the host's packing into [`KernelArgs`] ([`Signature::pack`], natural alignment: a C
//!   struct of the parameters, which is both the CUDA parameter buffer and the AMDGPU
//!   kernarg segment).
//!
//! A plan's arguments ([`crate::plan::Arg`]) are matched against the signature before a
//! launch ([`crate::exec::execute`]): pointers to views whose access agrees, scalars of the
//! declared type, by-value bytes of the declared size.

use rocm_core::isa::amdgpu::codeobj::{KernelArg, ValueKind};
use rocm_core::{DType, Device, Error, KernelArgs, Result};
use std::fmt;

/// The type of a scalar parameter.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ScalarType {
    U32,
    I32,
    U64,
    I64,
    F32,
    F64,
}

impl ScalarType {
    pub fn size(self) -> u32 {
        match self {
            ScalarType::U32 | ScalarType::I32 | ScalarType::F32 => 4,
            ScalarType::U64 | ScalarType::I64 | ScalarType::F64 => 8,
        }
    }

    /// The PTX spelling of the parameter type (`u32`, `s64`, `f32`, ...).
    pub fn ptx_name(self) -> &'static str {
        match self {
            ScalarType::U32 => "u32",
            ScalarType::I32 => "s32",
            ScalarType::U64 => "u64",
            ScalarType::I64 => "s64",
            ScalarType::F32 => "f32",
            ScalarType::F64 => "f64",
        }
    }
}

/// What a kernel does with the memory a pointer parameter points to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Access {
    Read,
    Write,
    ReadWrite,
}

impl Access {
    /// Whether the kernel may store through the pointer.
    pub fn writes(self) -> bool {
        !matches!(self, Access::Read)
    }

    pub fn name(self) -> &'static str {
        match self {
            Access::Read => "read",
            Access::Write => "write",
            Access::ReadWrite => "read-write",
        }
    }
}

/// The type of one parameter.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ParamType {
    /// A scalar passed by value.
    Scalar(ScalarType),
    /// Opaque bytes passed by value (e.g. a 128-byte tensor map aligned to 64).
    Bytes { size: u32, align: u32 },
    /// A global device address of elements of `elem`.
    Pointer { elem: DType, access: Access },
}

impl ParamType {
    pub fn size(self) -> u32 {
        match self {
            ParamType::Scalar(s) => s.size(),
            ParamType::Bytes { size, .. } => size,
            ParamType::Pointer { .. } => 8,
        }
    }

    /// Natural alignment (CUDA and AMDGPU lay parameters out as a C struct).
    pub fn align(self) -> u32 {
        match self {
            ParamType::Scalar(s) => s.size(),
            ParamType::Bytes { align, .. } => align,
            ParamType::Pointer { .. } => 8,
        }
    }
}

impl fmt::Display for ParamType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ParamType::Scalar(s) => write!(f, "{}", s.ptx_name()),
            ParamType::Bytes { size, align } => write!(f, "b8[{size}] align {align}"),
            ParamType::Pointer { elem, access } => write!(f, "*{elem} ({})", access.name()),
        }
    }
}

/// One declared parameter.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Param {
    pub name: String,
    pub ty: ParamType,
}

/// A kernel's name and its ordered parameters.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Signature {
    pub kernel: String,
    pub params: Vec<Param>,
}

/// A value bound to a parameter by the host.
#[derive(Debug, Clone, PartialEq)]
pub enum Value {
    U32(u32),
    I32(i32),
    U64(u64),
    I64(i64),
    F32(f32),
    F64(f64),
    /// Opaque by-value bytes (a tensor map).
    Bytes(Vec<u8>),
}

impl Value {
    /// The parameter type this value fits (`Bytes` of its length, any alignment).
    pub fn fits(&self, ty: ParamType) -> bool {
        match (self, ty) {
            (Value::U32(_), ParamType::Scalar(ScalarType::U32))
            | (Value::I32(_), ParamType::Scalar(ScalarType::I32))
            | (Value::U64(_), ParamType::Scalar(ScalarType::U64))
            | (Value::I64(_), ParamType::Scalar(ScalarType::I64))
            | (Value::F32(_), ParamType::Scalar(ScalarType::F32))
            | (Value::F64(_), ParamType::Scalar(ScalarType::F64)) => true,
            (Value::Bytes(b), ParamType::Bytes { size, .. }) => b.len() == size as usize,
            _ => false,
        }
    }

    /// Appends the value's little-endian bytes to `args` (no allocation for scalars:
    /// this runs for every argument of every launch).
    fn push_to(&self, args: &mut KernelArgs, align: usize) {
        match self {
            Value::U32(v) => args.push_bytes(&v.to_le_bytes(), align),
            Value::I32(v) => args.push_bytes(&v.to_le_bytes(), align),
            Value::U64(v) => args.push_bytes(&v.to_le_bytes(), align),
            Value::I64(v) => args.push_bytes(&v.to_le_bytes(), align),
            Value::F32(v) => args.push_bytes(&v.to_le_bytes(), align),
            Value::F64(v) => args.push_bytes(&v.to_le_bytes(), align),
            Value::Bytes(b) => args.push_bytes(b, align),
        };
    }
}

impl fmt::Display for Value {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Value::U32(v) => write!(f, "{v}"),
            Value::I32(v) => write!(f, "{v}"),
            Value::U64(v) => write!(f, "{v}"),
            Value::I64(v) => write!(f, "{v}"),
            Value::F32(v) => write!(f, "{v:?}"),
            Value::F64(v) => write!(f, "{v:?}"),
            Value::Bytes(b) => write!(f, "<{} bytes>", b.len()),
        }
    }
}

/// A packed argument: a device address or a value.
#[derive(Debug, Clone, PartialEq)]
pub enum Packed {
    Pointer(u64),
    Value(Value),
}

impl Signature {
    pub fn new(kernel: impl Into<String>) -> Self {
        Signature {
            kernel: kernel.into(),
            params: Vec::new(),
        }
    }

    /// Appends a parameter.
    pub fn param(mut self, name: impl Into<String>, ty: ParamType) -> Self {
        self.params.push(Param {
            name: name.into(),
            ty,
        });
        self
    }

    /// Appends a scalar parameter.
    pub fn scalar(self, name: impl Into<String>, ty: ScalarType) -> Self {
        self.param(name, ParamType::Scalar(ty))
    }

    /// Appends a pointer parameter.
    pub fn pointer(self, name: impl Into<String>, elem: DType, access: Access) -> Self {
        self.param(name, ParamType::Pointer { elem, access })
    }

    /// Appends by-value bytes.
    pub fn bytes(self, name: impl Into<String>, size: u32, align: u32) -> Self {
        self.param(name, ParamType::Bytes { size, align })
    }

    /// The position of the parameter `name`.
    pub fn index(&self, name: &str) -> Result<usize> {
        self.params
            .iter()
            .position(|p| p.name == name)
            .ok_or_else(|| {
                Error::invalid(
                    "kernel parameter",
                    format!("{} declares no parameter `{name}`", self.kernel),
                )
            })
    }

    /// Each parameter's (offset, size) in the packed block, and the block's size (padded
    /// to the largest alignment).
    pub fn layout(&self) -> (Vec<(u32, u32)>, u32) {
        let mut end = 0u32;
        let mut max_align = 1u32;
        let slots = self
            .params
            .iter()
            .map(|p| {
                let (size, align) = (p.ty.size(), p.ty.align());
                let offset = end.next_multiple_of(align);
                end = offset + size;
                max_align = max_align.max(align);
                (offset, size)
            })
            .collect();
        (slots, end.next_multiple_of(max_align))
    }

    /// The `.param` declarations PTX emits for this signature, in order, without the
    /// separating commas (the builder names parameter `x` `p_x`).
    pub fn ptx_params(&self) -> Vec<String> {
        self.params
            .iter()
            .map(|p| match p.ty {
                ParamType::Scalar(s) => format!(".param .{} p_{}", s.ptx_name(), p.name),
                ParamType::Pointer { .. } => format!(".param .u64 p_{}", p.name),
                ParamType::Bytes { size, align } => {
                    format!(".param .align {align} .b8 p_{}[{size}]", p.name)
                }
            })
            .collect()
    }

    /// The explicit kernarg entries of the AMDGPU code-object metadata (`.args`): name,
    /// offset, size and value kind per parameter, pointers as global buffers.
    pub fn amdgpu_args(&self) -> Vec<KernelArg> {
        let (slots, _) = self.layout();
        self.params
            .iter()
            .zip(slots)
            .map(|(p, (offset, size))| match p.ty {
                ParamType::Pointer { .. } => KernelArg::global_buffer(&p.name, offset),
                _ => KernelArg::by_value(&p.name, offset, size),
            })
            .collect()
    }

    /// Checks emitted AMDGPU metadata arguments against the declaration: the explicit
    /// ones equal (name, offset, size, value kind) in order, the rest hidden arguments.
    pub fn check_amdgpu_args(&self, emitted: &[KernelArg]) -> Result<()> {
        let want = self.amdgpu_args();
        let mismatch = |why: String| {
            Err(Error::invalid(
                "kernel signature",
                format!("{}: the code object's arguments differ: {why}", self.kernel),
            ))
        };
        if emitted.len() < want.len() {
            return mismatch(format!(
                "{} arguments emitted, {} declared",
                emitted.len(),
                want.len()
            ));
        }
        for (w, e) in want.iter().zip(emitted) {
            let same = w.name == e.name
                && w.offset == e.offset
                && w.size == e.size
                && w.value_kind == e.value_kind;
            if !same {
                return mismatch(format!(
                    "declared {:?} at {} ({} bytes, {}), emitted {:?} at {} ({} bytes, {})",
                    w.name,
                    w.offset,
                    w.size,
                    w.value_kind.name(),
                    e.name,
                    e.offset,
                    e.size,
                    e.value_kind.name()
                ));
            }
        }
        match emitted[want.len()..]
            .iter()
            .find(|e| !matches!(e.value_kind, ValueKind::Other(_)))
        {
            Some(e) => mismatch(format!("undeclared explicit argument {:?}", e.name)),
            None => Ok(()),
        }
    }

    /// Checks the `.param` lines of the `.entry` of this kernel in PTX `text`.
    pub fn check_ptx(&self, text: &str) -> Result<()> {
        let emitted = ptx_entry_params(text, &self.kernel).ok_or_else(|| {
            Error::invalid(
                "kernel signature",
                format!("the PTX has no entry {}", self.kernel),
            )
        })?;
        let want = self.ptx_params();
        if emitted != want {
            return Err(Error::invalid(
                "kernel signature",
                format!(
                    "{}: PTX declares {emitted:?}, the signature {want:?}",
                    self.kernel
                ),
            ));
        }
        Ok(())
    }

    /// Packs `values` (one per parameter, in order) into a parameter block, checking each
    /// against its declared type; pointers are addresses on `device`.
    pub fn pack(&self, values: &[Packed], device: &Device) -> Result<KernelArgs> {
        if values.len() != self.params.len() {
            return Err(Error::invalid(
                "kernel arguments",
                format!(
                    "{} takes {} arguments, {} bound",
                    self.kernel,
                    self.params.len(),
                    values.len()
                ),
            ));
        }
        let mut args = KernelArgs::with_capacity(self.params.len());
        for (p, v) in self.params.iter().zip(values) {
            match (p.ty, v) {
                (ParamType::Pointer { .. }, Packed::Pointer(a)) => {
                    args.push_pointer(*a, device);
                }
                (ty, Packed::Value(v)) if v.fits(ty) => v.push_to(&mut args, ty.align() as usize),
                (ty, other) => {
                    return Err(Error::invalid(
                        "kernel arguments",
                        format!(
                            "{} parameter `{}` is {ty}, bound to {other:?}",
                            self.kernel, p.name
                        ),
                    ))
                }
            }
        }
        Ok(args)
    }
}

impl fmt::Display for Signature {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}(", self.kernel)?;
        for (i, p) in self.params.iter().enumerate() {
            let sep = if i == 0 { "" } else { ", " };
            write!(f, "{sep}{}: {}", p.name, p.ty)?;
        }
        write!(f, ")")
    }
}

/// The `.param` lines of entry `kernel` in PTX `text` (trimmed, without commas).
pub fn ptx_entry_params(text: &str, kernel: &str) -> Option<Vec<String>> {
    let head = format!(".entry {kernel}(");
    let start = text.find(&head)? + head.len();
    let body = &text[start..];
    let end = body.find(')')?;
    Some(
        body[..end]
            .lines()
            .map(|l| l.trim().trim_end_matches(',').to_string())
            .filter(|l| !l.is_empty())
            .collect(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> Signature {
        Signature::new("k")
            .scalar("n", ScalarType::U32)
            .pointer("x", DType::F64, Access::Read)
            .scalar("alpha", ScalarType::F32)
            .bytes("map", 128, 64)
            .scalar("inc", ScalarType::I64)
    }

    #[test]
    fn layout_is_natural_alignment_and_matches_kernel_args() {
        let s = sample();
        let (slots, size) = s.layout();
        assert_eq!(slots, vec![(0, 4), (8, 8), (16, 4), (64, 128), (192, 8)]);
        assert_eq!(size, 256);
        let dev = Device::cpu();
        let packed = s
            .pack(
                &[
                    Packed::Value(Value::U32(3)),
                    Packed::Pointer(0x1000),
                    Packed::Value(Value::F32(1.5)),
                    Packed::Value(Value::Bytes(vec![7; 128])),
                    Packed::Value(Value::I64(-2)),
                ],
                &dev,
            )
            .unwrap();
        let got: Vec<(u32, u32)> = packed
            .slots()
            .iter()
            .map(|a| (a.offset as u32, a.size as u32))
            .collect();
        assert_eq!(got, slots);
        assert_eq!(packed.size() as u32, size);
    }

    #[test]
    fn pack_rejects_wrong_types_and_counts() {
        let s = sample();
        let dev = Device::cpu();
        let wrong = [
            Packed::Value(Value::I32(3)),
            Packed::Pointer(0x1000),
            Packed::Value(Value::F32(1.5)),
            Packed::Value(Value::Bytes(vec![7; 128])),
            Packed::Value(Value::I64(-2)),
        ];
        let e = s.pack(&wrong, &dev).unwrap_err().to_string();
        assert!(e.contains("`n`"), "{e}");
        assert!(s.pack(&wrong[..2], &dev).is_err());
        let short_bytes = [
            Packed::Value(Value::U32(3)),
            Packed::Pointer(0x1000),
            Packed::Value(Value::F32(1.5)),
            Packed::Value(Value::Bytes(vec![7; 64])),
            Packed::Value(Value::I64(-2)),
        ];
        assert!(s.pack(&short_bytes, &dev).is_err());
    }

    #[test]
    fn ptx_params_parse_back_from_text() {
        let text = ".visible .entry k(\n    .param .u32 p_n,\n    .param .u64 p_x\n)\n{\n}";
        let s = Signature::new("k").scalar("n", ScalarType::U32).pointer(
            "x",
            DType::F32,
            Access::Write,
        );
        s.check_ptx(text).unwrap();
        let dropped = Signature::new("k").scalar("n", ScalarType::U32);
        assert!(dropped.check_ptx(text).is_err());
        assert!(Signature::new("other").check_ptx(text).is_err());
    }
}
