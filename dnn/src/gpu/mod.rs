//! The DNN operations on GPUs: kernels written once in the kernel language
//! (`rocm_kernels::lang`), lowered to PTX or AMDGPU by the target, run as plans through
//! [`rocm_kernels::exec::execute`].
//!
//! - [`softmax`]: softmax and log-softmax along any axis, forward and backward.
//! - [`dropout`]: dropout forward and backward with rocm-rand's Philox stream (the same
//!   masks as the CPU path, bit for bit).
//!
//! Shared here: the view of a tensor as *lines* along one axis ([`Lines`]) and the
//! kernel side of a strided tensor ([`Strided`]): every kernel addresses elements as
//! `Σ coordinate·stride` in 32-bit element offsets, so any strides a [`TensorDesc`]
//! allows work, and the storage type (f32, f16, bf16) is widened to f32 on load and
//! rounded once on store.

pub mod dropout;
pub mod softmax;

use crate::tensor::{Tensor, TensorDesc};
use crate::DnnFloat;
use rocm_core::{DType, Error, Result, Stream};
use rocm_kernels::lang::{Access, Buf, Builder, Cache, Scalar, Type, Value};

/// The kernel language's scalar of a DNN storage type.
pub(crate) fn storage(dtype: DType) -> Result<Scalar> {
    match dtype {
        DType::F32 => Ok(Scalar::F32),
        DType::F16 => Ok(Scalar::F16),
        DType::Bf16 => Ok(Scalar::Bf16),
        d => Err(Error::invalid(
            "dtype",
            format!("{d}; DNN kernels hold f32, f16 or bf16"),
        )),
    }
}

/// Checks that `t` is on `stream`'s device and its buffer holds what its descriptor
/// describes.
pub(crate) fn check_on_device<T: DnnFloat>(
    stream: &Stream,
    what: &str,
    t: &Tensor<'_, T>,
) -> Result<()> {
    t.desc.check_buffer::<T>(what, t.data.len())?;
    if t.data.device() != stream.device() {
        return Err(Error::invalid(
            what,
            format!(
                "is on {}, the handle's device is {}",
                t.data.device(),
                stream.device()
            ),
        ));
    }
    Ok(())
}

/// Dimensions of a line's position: a tensor of rank ≤ 5 has at most 4 dimensions
/// besides the axis; fewer are padded with size-1 dimensions.
pub const LINE_DIMS: usize = 4;

/// Tensors of one shape viewed as lines along `axis`: `count` lines of `len` elements.
/// The other dimensions (`dims`, slowest first) are ordered by the first tensor's
/// strides, largest first, so consecutive line indices are nearest in its memory;
/// `strides[t]` holds tensor `t`'s strides of those dimensions, then of the axis.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Lines {
    pub count: usize,
    pub len: usize,
    pub dims: [usize; LINE_DIMS],
    pub strides: Vec<[usize; LINE_DIMS + 1]>,
    /// Elements each tensor's buffer must hold (its descriptor's required length).
    pub extents: Vec<usize>,
}

impl Lines {
    /// The lines of `descs` (all of one shape, checked by the caller) along `axis`.
    /// Errors name the tensor whose offsets do not fit the kernels' 32-bit arithmetic.
    pub fn new(axis: usize, descs: &[(&str, &TensorDesc)]) -> Result<Lines> {
        let (_, first) = descs
            .first()
            .ok_or_else(|| Error::invalid("tensors", "lines of no tensor"))?;
        let dims = first.dims();
        if axis >= dims.len() {
            return Err(Error::invalid(
                "axis",
                format!("{axis}; the tensor has {} dimensions", dims.len()),
            ));
        }
        let mut others: Vec<usize> = (0..dims.len()).filter(|&i| i != axis).collect();
        // Stable: equal strides (size-1 dimensions) keep their logical order.
        others.sort_by_key(|&i| std::cmp::Reverse(first.strides()[i]));
        let pad = LINE_DIMS - others.len();
        let mut line_dims = [1; LINE_DIMS];
        for (slot, &i) in others.iter().enumerate() {
            line_dims[pad + slot] = dims[i];
        }
        let mut strides = Vec::with_capacity(descs.len());
        let mut extents = Vec::with_capacity(descs.len());
        for (what, d) in descs {
            let extent = d.required_len()?;
            let fits = |v: usize| u32::try_from(v).is_ok();
            if !fits(extent) || !d.strides().iter().all(|&s| fits(s)) {
                return Err(Error::invalid(
                    *what,
                    format!(
                        "dims {:?} with strides {:?} span {extent} elements; the GPU \
                         kernels address at most 2^32 - 1",
                        d.dims(),
                        d.strides()
                    ),
                ));
            }
            let mut s = [0; LINE_DIMS + 1];
            for (slot, &i) in others.iter().enumerate() {
                s[pad + slot] = d.strides()[i];
            }
            s[LINE_DIMS] = d.strides()[axis];
            strides.push(s);
            extents.push(extent);
        }
        let len = dims[axis];
        Ok(Lines {
            count: first.numel() / len.max(1),
            len,
            dims: line_dims,
            strides,
            extents,
        })
    }
}

/// A strided tensor as a kernel sees it: its buffer and the `u32` strides of the line
/// dimensions and the axis (parameters `{name}_s0..3`, `{name}_sa`).
#[derive(Clone, Copy)]
pub(crate) struct Strided {
    pub buf: Buf,
    line: [Value; LINE_DIMS],
    axis: Value,
}

impl Strided {
    pub fn declare(k: &mut Builder, name: &str, elem: Scalar, access: Access) -> Strided {
        let buf = k.ptr(name, elem, access);
        let line = std::array::from_fn(|i| k.param(&format!("{name}_s{i}"), Scalar::U32));
        let axis = k.param(&format!("{name}_sa"), Scalar::U32);
        Strided { buf, line, axis }
    }

    /// The element offset of the line at `coords` (the line dimensions' coordinates).
    pub fn base(&self, k: &mut Builder, coords: &[Value; LINE_DIMS]) -> Value {
        let mut o = k.mul(coords[0], self.line[0]);
        for (&c, &s) in coords.iter().zip(&self.line).skip(1) {
            o = k.fma(c, s, o);
        }
        o
    }

    /// Byte offset of element `j` of the line starting at element offset `base`.
    fn at(&self, k: &mut Builder, base: Value, j: Value) -> Value {
        let e = k.fma(j, self.axis, base);
        k.at(self.buf, e)
    }

    /// The elements of `group` of the line at `base`, widened to f32, in order (every
    /// load issued before any value is used).
    pub fn load(&self, k: &mut Builder, base: Value, group: &Group) -> Vec<Value> {
        match *group {
            Group::Chunk { first, width } => {
                let e = k.add(base, first);
                let o = k.at(self.buf, e);
                load_chunk(k, self.buf, o, width)
            }
            Group::Strided { first, count } => {
                let raw: Vec<Value> = (0..count)
                    .map(|u| {
                        let j = k.add(first, u);
                        let o = self.at(k, base, j);
                        k.load(self.buf, o)
                    })
                    .collect();
                raw.into_iter().map(|v| widen(k, v)).collect()
            }
        }
    }

    /// Stores f32 `values` (rounded to the storage type) as the elements of `group`.
    pub fn store(&self, k: &mut Builder, base: Value, group: &Group, values: &[Value]) {
        match *group {
            Group::Chunk { first, .. } => {
                let e = k.add(base, first);
                let o = k.at(self.buf, e);
                store_chunk(k, self.buf, o, values);
            }
            Group::Strided { first, .. } => {
                for (u, &v) in values.iter().enumerate() {
                    let j = k.add(first, u as u32);
                    let o = self.at(k, base, j);
                    let v = narrow(k, v, self.buf.elem);
                    k.store(self.buf, o, v);
                }
            }
        }
    }
}

/// Elements of a line one work-item handles at once.
#[derive(Clone, Copy)]
pub(crate) enum Group {
    /// `width` consecutive elements from `first` in one access of `width · size`
    /// bytes (the axis stride is 1 and the access aligned, as the plan checked).
    Chunk { first: Value, width: u32 },
    /// `count` elements `first, first + 1, …` along the axis, one access each.
    Strided { first: Value, count: u32 },
}

/// `width` elements of `buf` (f32, f16 or bf16) at byte offset `o` in one access, as
/// f32: 16-bit elements move as 32-bit words holding two each.
fn load_chunk(k: &mut Builder, buf: Buf, o: Value, width: u32) -> Vec<Value> {
    let bytes = width * buf.elem.bytes();
    if width == 1 {
        let v = k.load(buf, o);
        return vec![widen(k, v)];
    }
    if buf.elem == Scalar::F32 {
        let v = k.load_with(
            buf,
            o,
            Type::vec(Scalar::F32, width as u8),
            bytes,
            bytes,
            Cache::Default,
        );
        return k.unpack(v);
    }
    let words = (bytes / 4) as u8;
    let v = k.load_with(
        buf,
        o,
        Type::vec(Scalar::U32, words),
        bytes,
        bytes,
        Cache::Default,
    );
    let ws = if words == 1 { vec![v] } else { k.unpack(v) };
    let mut out = Vec::with_capacity(width as usize);
    for w in ws {
        let pair = k.bitcast(w, Type::vec(buf.elem, 2));
        for h in k.unpack(pair) {
            out.push(k.convert(h, Scalar::F32));
        }
    }
    out
}

/// The inverse of [`load_chunk`]: f32 `values` rounded and stored in one access.
fn store_chunk(k: &mut Builder, buf: Buf, o: Value, values: &[Value]) {
    let bytes = values.len() as u32 * buf.elem.bytes();
    let narrowed: Vec<Value> = values.iter().map(|&v| narrow(k, v, buf.elem)).collect();
    if narrowed.len() == 1 {
        k.store(buf, o, narrowed[0]);
        return;
    }
    let value = if buf.elem == Scalar::F32 {
        k.pack(&narrowed)
    } else {
        let words: Vec<Value> = narrowed
            .chunks(2)
            .map(|p| {
                let pair = k.pack(p);
                k.bitcast(pair, Type::U32)
            })
            .collect();
        if words.len() == 1 {
            words[0]
        } else {
            k.pack(&words)
        }
    };
    k.store_with(buf, o, value, bytes, bytes, Cache::Default);
}

/// A loaded storage value as f32.
pub(crate) fn widen(k: &mut Builder, v: Value) -> Value {
    if v.ty.scalar == Scalar::F32 {
        v
    } else {
        k.convert(v, Scalar::F32)
    }
}

/// An f32 rounded (to nearest even) to the storage type `elem`.
pub(crate) fn narrow(k: &mut Builder, v: Value, elem: Scalar) -> Value {
    if elem == Scalar::F32 {
        v
    } else {
        k.convert(v, elem)
    }
}

/// The coordinates of line `l` in the line dimensions (`d1..d3` the sizes of all but
/// the slowest): `l` in mixed radix.
pub(crate) fn line_coords(k: &mut Builder, l: Value, d: &[Value; LINE_DIMS - 1]) -> [Value; 4] {
    let c3 = k.rem(l, d[2]);
    let l2 = k.div(l, d[2]);
    let c2 = k.rem(l2, d[1]);
    let l1 = k.div(l2, d[1]);
    let c1 = k.rem(l1, d[0]);
    let c0 = k.div(l1, d[0]);
    [c0, c1, c2, c3]
}
