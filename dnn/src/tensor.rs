//! Tensor descriptors: 4-D and 5-D shapes with a layout or explicit strides.
//!
//! Dimensions are always given in logical order N, C, (D,) H, W; the layout (or the
//! strides) says where element (n, c, d, h, w) lives:
//! `offset = n·sN + c·sC + d·sD + h·sH + w·sW`. NCHW/NCDHW pack W fastest, NHWC/NDHWC pack
//! C fastest. Every operation reads and writes through the strides, widening to f32.

use crate::DnnFloat;
use rayon::prelude::*;
use rocm_core::{BufferSlice, BufferSliceMut, DType, Error, Result};

/// A packed memory order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Layout {
    Nchw,
    Nhwc,
    Ncdhw,
    Ndhwc,
}

impl Layout {
    /// The layout's name as MIOpenDriver spells it.
    pub fn name(self) -> &'static str {
        match self {
            Layout::Nchw => "NCHW",
            Layout::Nhwc => "NHWC",
            Layout::Ncdhw => "NCDHW",
            Layout::Ndhwc => "NDHWC",
        }
    }

    /// The number of dimensions.
    pub fn rank(self) -> usize {
        match self {
            Layout::Nchw | Layout::Nhwc => 4,
            Layout::Ncdhw | Layout::Ndhwc => 5,
        }
    }

    /// Whether channels are the fastest dimension.
    pub fn channels_last(self) -> bool {
        matches!(self, Layout::Nhwc | Layout::Ndhwc)
    }

    /// Parses `NCHW`, `nhwc`, ...
    pub fn parse(s: &str) -> Result<Self> {
        [Layout::Nchw, Layout::Nhwc, Layout::Ncdhw, Layout::Ndhwc]
            .into_iter()
            .find(|l| l.name().eq_ignore_ascii_case(s))
            .ok_or_else(|| {
                Error::invalid("layout", format!("`{s}` is not NCHW, NHWC, NCDHW or NDHWC"))
            })
    }

    /// The channels-first or channels-last layout of `rank` dimensions.
    pub fn for_rank(rank: usize, channels_last: bool) -> Result<Self> {
        match (rank, channels_last) {
            (4, false) => Ok(Layout::Nchw),
            (4, true) => Ok(Layout::Nhwc),
            (5, false) => Ok(Layout::Ncdhw),
            (5, true) => Ok(Layout::Ndhwc),
            _ => Err(Error::invalid(
                "dims",
                format!("{rank} dimensions; a DNN tensor has 4 or 5"),
            )),
        }
    }
}

/// Names of the logical dimensions, for error messages.
/// The value of a size expression computed with checked arithmetic (`None` when it
/// overflowed), or an error naming `what`, the descriptor field whose value made it
/// overflow. Every size derived from descriptor fields goes through here.
pub(crate) fn sized(what: &str, v: Option<usize>, expr: impl FnOnce() -> String) -> Result<usize> {
    v.ok_or_else(|| Error::invalid(what, format!("{} overflows the address space", expr())))
}

pub(crate) fn dim_name(rank: usize, i: usize) -> &'static str {
    const N4: [&str; 4] = ["N", "C", "H", "W"];
    const N5: [&str; 5] = ["N", "C", "D", "H", "W"];
    if rank == 5 {
        N5.get(i).copied().unwrap_or("?")
    } else {
        N4.get(i).copied().unwrap_or("?")
    }
}

/// The shape, strides and element type of a 4-D or 5-D tensor.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct TensorDesc {
    dtype: DType,
    dims: Vec<usize>,
    strides: Vec<usize>,
}

impl TensorDesc {
    /// A packed tensor of `dims` (logical order N, C, (D,) H, W) in `layout`.
    pub fn new(dtype: DType, layout: Layout, dims: &[usize]) -> Result<Self> {
        check_dtype(dtype)?;
        if dims.len() != layout.rank() {
            return Err(Error::invalid(
                "dims",
                format!(
                    "{} dimensions given for layout {} of rank {}",
                    dims.len(),
                    layout.name(),
                    layout.rank()
                ),
            ));
        }
        // Memory order, slowest first, as indices into the logical dims.
        let order: &[usize] = match layout {
            Layout::Nchw => &[0, 1, 2, 3],
            Layout::Nhwc => &[0, 2, 3, 1],
            Layout::Ncdhw => &[0, 1, 2, 3, 4],
            Layout::Ndhwc => &[0, 2, 3, 4, 1],
        };
        let mut strides = vec![0; dims.len()];
        let mut s: usize = 1;
        for &i in order.iter().rev() {
            strides[i] = s;
            s = s.checked_mul(dims[i].max(1)).ok_or_else(|| {
                Error::invalid(
                    dim_name(dims.len(), i),
                    format!("dims {dims:?} overflow the address space"),
                )
            })?;
        }
        Ok(TensorDesc {
            dtype,
            dims: dims.to_vec(),
            strides,
        })
    }

    /// A tensor with explicit `strides` (in elements, logical order). Strides may leave
    /// gaps; outputs additionally must not map two elements to one address.
    pub fn with_strides(dtype: DType, dims: &[usize], strides: &[usize]) -> Result<Self> {
        check_dtype(dtype)?;
        if dims.len() != 4 && dims.len() != 5 {
            return Err(Error::invalid(
                "dims",
                format!("{} dimensions; a DNN tensor has 4 or 5", dims.len()),
            ));
        }
        if strides.len() != dims.len() {
            return Err(Error::invalid(
                "strides",
                format!("{} strides for {} dimensions", strides.len(), dims.len()),
            ));
        }
        let d = TensorDesc {
            dtype,
            dims: dims.to_vec(),
            strides: strides.to_vec(),
        };
        d.required_len()?;
        Ok(d)
    }

    /// The same shape as `self` packed in `layout` with element type `dtype`.
    pub fn packed_like(&self, dtype: DType, layout: Layout) -> Result<Self> {
        Self::new(dtype, layout, &self.dims)
    }

    pub fn dtype(&self) -> DType {
        self.dtype
    }
    pub fn dims(&self) -> &[usize] {
        &self.dims
    }
    pub fn strides(&self) -> &[usize] {
        &self.strides
    }
    /// 4 or 5.
    pub fn rank(&self) -> usize {
        self.dims.len()
    }
    /// The spatial dimensions (D,) H, W.
    pub fn spatial(&self) -> &[usize] {
        &self.dims[2..]
    }
    /// The number of elements.
    pub fn numel(&self) -> usize {
        self.dims.iter().product()
    }

    /// The packed layout these strides describe, if any.
    pub fn layout(&self) -> Option<Layout> {
        let cl = Layout::for_rank(self.rank(), true).ok()?;
        let cf = Layout::for_rank(self.rank(), false).ok()?;
        [cf, cl].into_iter().find(|&l| {
            TensorDesc::new(self.dtype, l, &self.dims).is_ok_and(|p| p.strides == self.strides)
        })
    }

    /// The smallest buffer length that holds every element.
    pub fn required_len(&self) -> Result<usize> {
        if self.dims.contains(&0) {
            return Ok(0);
        }
        let mut end: usize = 1;
        for (i, (&d, &s)) in self.dims.iter().zip(&self.strides).enumerate() {
            end = (d - 1)
                .checked_mul(s)
                .and_then(|x| x.checked_add(end))
                .ok_or_else(|| {
                    Error::invalid(dim_name(self.rank(), i), "stride × size overflows")
                })?;
        }
        Ok(end)
    }

    /// Whether distinct elements have distinct offsets (required of outputs).
    pub fn is_non_overlapping(&self) -> bool {
        let mut ds: Vec<(usize, usize)> = self
            .dims
            .iter()
            .zip(&self.strides)
            .filter(|(&d, _)| d > 1)
            .map(|(&d, &s)| (s, d))
            .collect();
        ds.sort();
        let mut need = 1;
        for (s, d) in ds {
            if s < need {
                return false;
            }
            need = s * d;
        }
        true
    }

    /// Dims and strides widened to 5-D (N, C, D, H, W); a 4-D tensor gets D = 1.
    pub(crate) fn shape5(&self) -> Shape5 {
        let (d, s) = (&self.dims, &self.strides);
        if self.rank() == 4 {
            Shape5 {
                dims: [d[0], d[1], 1, d[2], d[3]],
                strides: [s[0], s[1], 0, s[2], s[3]],
            }
        } else {
            Shape5 {
                dims: [d[0], d[1], d[2], d[3], d[4]],
                strides: [s[0], s[1], s[2], s[3], s[4]],
            }
        }
    }

    /// Checks the descriptor's dtype against `T` and the buffer length; `what` names
    /// the tensor in the error.
    pub(crate) fn check_buffer<T: DnnFloat>(&self, what: &str, len: usize) -> Result<()> {
        if self.dtype != T::DTYPE {
            return Err(Error::invalid(
                what,
                format!(
                    "descriptor says {} but the buffer holds {}",
                    self.dtype,
                    T::DTYPE
                ),
            ));
        }
        let need = self.required_len()?;
        if len < need {
            return Err(Error::invalid(
                what,
                format!(
                    "buffer holds {len} elements; dims {:?} with strides {:?} need {need}",
                    self.dims, self.strides
                ),
            ));
        }
        Ok(())
    }

    /// Errors unless distinct elements have distinct offsets (outputs).
    pub(crate) fn check_non_overlapping(&self, what: &str) -> Result<()> {
        if self.is_non_overlapping() {
            return Ok(());
        }
        Err(Error::invalid(
            what,
            format!(
                "strides {:?} map two elements of dims {:?} to one address",
                self.strides, self.dims
            ),
        ))
    }

    /// Errors unless `self` has exactly `dims`, naming the first dimension that differs.
    pub(crate) fn expect_dims(&self, what: &str, dims: &[usize]) -> Result<()> {
        if self.dims.len() != dims.len() {
            return Err(Error::invalid(
                what,
                format!(
                    "has {} dimensions, expected {}",
                    self.dims.len(),
                    dims.len()
                ),
            ));
        }
        for (i, (&a, &b)) in self.dims.iter().zip(dims).enumerate() {
            if a != b {
                return Err(Error::invalid(
                    what,
                    format!(
                        "dimension {} is {a}, expected {b} (dims {:?}, expected {dims:?})",
                        dim_name(dims.len(), i),
                        self.dims
                    ),
                ));
            }
        }
        Ok(())
    }
}

fn check_dtype(dtype: DType) -> Result<()> {
    match dtype {
        DType::F32 | DType::F16 | DType::Bf16 => Ok(()),
        d => Err(Error::invalid(
            "dtype",
            format!("{d}; DNN tensors hold f32, f16 or bf16"),
        )),
    }
}

/// Dims and strides in N, C, D, H, W order.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Shape5 {
    pub dims: [usize; 5],
    pub strides: [usize; 5],
}

/// A tensor to read: a descriptor and the buffer it describes.
#[derive(Debug, Clone, Copy)]
pub struct Tensor<'a, T: DnnFloat> {
    pub desc: &'a TensorDesc,
    pub data: BufferSlice<'a, T>,
}

/// A tensor to write.
#[derive(Debug)]
pub struct TensorMut<'a, T: DnnFloat> {
    pub desc: &'a TensorDesc,
    pub data: BufferSliceMut<'a, T>,
}

impl<'a, T: DnnFloat> Tensor<'a, T> {
    pub fn new(desc: &'a TensorDesc, data: BufferSlice<'a, T>) -> Self {
        Tensor { desc, data }
    }

    /// Checks the buffer against the descriptor and returns host memory.
    pub(crate) fn host(&self, what: &str) -> Result<&'a [T]> {
        self.desc.check_buffer::<T>(what, self.data.len())?;
        self.data
            .as_host()
            .ok_or_else(|| Error::unsupported(format!("dnn on {what}"), self.data.device()))
    }

    /// The elements widened to f32, packed in logical (N, C, D, H, W) order.
    pub(crate) fn widen(&self, what: &str) -> Result<Vec<f32>> {
        gather(self.desc, self.host(what)?)
    }
}

impl<'a, T: DnnFloat> TensorMut<'a, T> {
    pub fn new(desc: &'a TensorDesc, data: BufferSliceMut<'a, T>) -> Self {
        TensorMut { desc, data }
    }

    /// Checks buffer, descriptor and non-overlap, and returns host memory.
    pub(crate) fn host_mut(&mut self, what: &str) -> Result<&mut [T]> {
        self.desc.check_buffer::<T>(what, self.data.len())?;
        self.desc.check_non_overlapping(what)?;
        let dev = self.data.device().clone();
        self.data
            .as_host_mut()
            .ok_or_else(|| Error::unsupported(format!("dnn on {what}"), dev))
    }

    /// Writes `alpha·v + beta·old` (v in logical order); beta = 0 never reads old.
    pub(crate) fn store(&mut self, what: &str, v: &[f32], alpha: f32, beta: f32) -> Result<()> {
        let desc = self.desc.clone();
        let h = self.host_mut(what)?;
        scatter(&desc, v, h, alpha, beta);
        Ok(())
    }
}

/// Visits every element in logical order with its memory offset.
pub(crate) fn for_each_offset(desc: &TensorDesc, mut f: impl FnMut(usize, usize)) {
    let Shape5 {
        dims: [n, c, d, h, w],
        strides: [sn, sc, sd, sh, sw],
    } = desc.shape5();
    let mut i = 0;
    for a in 0..n {
        for b in 0..c {
            for e in 0..d {
                for y in 0..h {
                    let base = a * sn + b * sc + e * sd + y * sh;
                    for x in 0..w {
                        f(i, base + x * sw);
                        i += 1;
                    }
                }
            }
        }
    }
}

/// The elements of `data` (described by `desc`) widened to f32, in logical order; an
/// out-of-memory error when the f32 copy cannot be held (it can be twice the size of
/// an f16 tensor the caller could hold).
pub(crate) fn gather<T: DnnFloat>(desc: &TensorDesc, data: &[T]) -> Result<Vec<f32>> {
    let mut out = rocm_core::host_alloc::try_vec("f32 copy of a tensor", desc.numel(), 0f32)?;
    gather_into(desc, data, &mut out);
    Ok(out)
}

/// Elements per parallel work item of the straight-pass loops: large enough to amortise
/// the scheduling, small enough to balance.
const CHUNK: usize = 1 << 15;

/// `dst[i]` = element `i` (logical order) of `data`, widened; `dst.len() == numel`.
/// Planes (one image and channel) are gathered in parallel: conversions of large
/// tensors are memory-bound passes that one core cannot saturate.
pub(crate) fn gather_into<T: DnnFloat>(desc: &TensorDesc, data: &[T], dst: &mut [f32]) {
    let Shape5 {
        dims: [_, c, d, h, w],
        strides: [sn, sc, sd, sh, sw],
    } = desc.shape5();
    let plane = d * h * w;
    if plane == 0 || c == 0 {
        return;
    }
    dst.par_chunks_mut(plane).enumerate().for_each(|(p, out)| {
        let (a, b) = (p / c, p % c);
        let mut i = 0;
        for e in 0..d {
            for y in 0..h {
                let base = a * sn + b * sc + e * sd + y * sh;
                for x in 0..w {
                    out[i] = data[base + x * sw].to_f32();
                    i += 1;
                }
            }
        }
    });
}

/// Stores `alpha·v + beta·old` for logical-order `v`.
pub(crate) fn scatter<T: DnnFloat>(
    desc: &TensorDesc,
    v: &[f32],
    data: &mut [T],
    alpha: f32,
    beta: f32,
) {
    // Packed in logical order (NCHW/NCDHW): one straight pass.
    if desc.layout().is_some_and(|l| !l.channels_last()) && data.len() >= v.len() {
        let dst = &mut data[..v.len()];
        let pieces = dst.par_chunks_mut(CHUNK).zip(v.par_chunks(CHUNK));
        if beta == 0.0 {
            pieces.for_each(|(dc, vc)| {
                dc.iter_mut()
                    .zip(vc)
                    .for_each(|(d, &s)| *d = T::from_f32(alpha * s))
            });
        } else {
            pieces.for_each(|(dc, vc)| {
                dc.iter_mut()
                    .zip(vc)
                    .for_each(|(d, &s)| *d = T::from_f32(alpha * s + beta * d.to_f32()))
            });
        }
        return;
    }
    if beta == 0.0 {
        for_each_offset(desc, |i, o| data[o] = T::from_f32(alpha * v[i]));
    } else {
        for_each_offset(desc, |i, o| {
            data[o] = T::from_f32(alpha * v[i] + beta * data[o].to_f32())
        });
    }
}
