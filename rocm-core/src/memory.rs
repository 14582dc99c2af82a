//! Typed device memory: owned buffers and borrowed views.
//!
//! [`DeviceBuffer<T>`] owns an allocation of `len` elements on one device.
//! [`BufferSlice`] and [`BufferSliceMut`] borrow a range of it, the way `&[T]` and
//! `&mut [T]` borrow a `Vec<T>`; the borrow checker therefore rules out a kernel writing
//! a buffer that another argument reads. Every range is checked once here, so backends
//! can work on raw addresses.
//!
//! Host interop: plain slices, and ndarray arrays (1-D, and 2-D column-major with a
//! leading dimension, as BLAS stores matrices).

use crate::backend::Allocation;
use crate::{Device, Element, Error, Result, Stream};
use ndarray::{Array1, Array2, ArrayView1, ArrayView2, ShapeBuilder};
use std::marker::PhantomData;
use std::ops::{Bound, RangeBounds};

fn resolve_range(range: impl RangeBounds<usize>, len: usize, what: &str) -> Result<(usize, usize)> {
    let start = match range.start_bound() {
        Bound::Included(&s) => s,
        Bound::Excluded(&s) => s.saturating_add(1),
        Bound::Unbounded => 0,
    };
    let end = match range.end_bound() {
        Bound::Included(&e) => e.saturating_add(1),
        Bound::Excluded(&e) => e,
        Bound::Unbounded => len,
    };
    if start > end || end > len {
        return Err(Error::OutOfBounds {
            what: format!("{what} range {start}..{end} of a view of {len} elements"),
        });
    }
    Ok((start, end - start))
}

fn byte_len<T: Element>(len: usize) -> Result<usize> {
    len.checked_mul(std::mem::size_of::<T>())
        .ok_or_else(|| Error::invalid("len", format!("{len} elements overflow the address space")))
}

fn check_len(what: &str, expected: usize, found: usize) -> Result<()> {
    if expected != found {
        return Err(Error::invalid(
            what,
            format!("has {found} elements but the device view holds {expected}"),
        ));
    }
    Ok(())
}

/// An owned array of `T` in one device's memory.
#[derive(Debug)]
pub struct DeviceBuffer<T: Element> {
    device: Device,
    alloc: Box<dyn Allocation>,
    len: usize,
    _t: PhantomData<T>,
}

impl<T: Element> DeviceBuffer<T> {
    /// A buffer of `len` zeros.
    pub fn zeros(device: &Device, len: usize) -> Result<Self> {
        let bytes = byte_len::<T>(len)?;
        let alloc = device.backend().alloc(bytes)?;
        Ok(DeviceBuffer {
            device: device.clone(),
            alloc,
            len,
            _t: PhantomData,
        })
    }

    /// A buffer of `len` zeros ordered on `stream` (see [`Stream::alloc`]).
    pub fn zeros_on(stream: &Stream, len: usize) -> Result<Self> {
        let bytes = byte_len::<T>(len)?;
        let device = stream.device();
        let alloc = device.backend().alloc_on(stream.raw(), bytes)?;
        Ok(DeviceBuffer {
            device: device.clone(),
            alloc,
            len,
            _t: PhantomData,
        })
    }

    /// A buffer holding a copy of `data`.
    pub fn from_slice(device: &Device, data: &[T]) -> Result<Self> {
        let mut b = Self::zeros(device, data.len())?;
        b.upload(data)?;
        Ok(b)
    }

    /// A buffer holding the elements of a 1-D array (any stride), in order.
    pub fn from_array1(device: &Device, a: ArrayView1<'_, T>) -> Result<Self> {
        match a.as_slice() {
            Some(s) => Self::from_slice(device, s),
            None => Self::from_slice(device, &a.iter().copied().collect::<Vec<_>>()),
        }
    }

    /// A buffer holding a matrix in column-major order with leading dimension `ld`
    /// (element (i, j) at `i + j * ld`); the gaps between columns are zero.
    pub fn from_matrix(device: &Device, a: ArrayView2<'_, T>, ld: usize) -> Result<Self> {
        Self::from_slice(device, &pack_col_major(a, ld)?)
    }

    /// A buffer of `len` elements over memory that something other than the device's
    /// allocator provides (for example a shared-memory segment that other processes map,
    /// as a communicator's registered buffers are; see `rocm_ccl::Comm::alloc_shared`).
    /// `alloc` is owned by the buffer and dropped with it.
    ///
    /// Errors: `alloc` holds fewer than `len * size_of::<T>()` bytes, its address is not
    /// aligned for `T`, or it has no host pointer while `device` is the CPU.
    ///
    /// # Safety
    ///
    /// For as long as `alloc` lives, `[address, address + bytes)` (and, on the CPU, the
    /// same bytes at `host_ptr`) must be memory of `device` that is valid for reads and
    /// writes, initialised, and not accessed through any other path except as the caller
    /// documents (concurrent access from elsewhere must be synchronised by the caller, as
    /// a collective does), exactly as the device's own allocations are.
    pub unsafe fn from_allocation(
        device: &Device,
        alloc: Box<dyn Allocation>,
        len: usize,
    ) -> Result<Self> {
        let bytes = byte_len::<T>(len)?;
        if alloc.bytes() < bytes {
            return Err(Error::invalid(
                "allocation",
                format!("holds {} bytes, {len} elements need {bytes}", alloc.bytes()),
            ));
        }
        if alloc.address() % std::mem::align_of::<T>() as u64 != 0 {
            return Err(Error::invalid(
                "allocation",
                format!(
                    "address {:#x} is not aligned to {} bytes",
                    alloc.address(),
                    std::mem::align_of::<T>()
                ),
            ));
        }
        if device.is_cpu() && alloc.host_ptr().is_none() {
            return Err(Error::invalid(
                "allocation",
                "CPU buffers need a host pointer",
            ));
        }
        Ok(DeviceBuffer {
            device: device.clone(),
            alloc,
            len,
            _t: PhantomData,
        })
    }

    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    pub fn device(&self) -> &Device {
        &self.device
    }

    /// The device address of the first element.
    pub fn address(&self) -> u64 {
        self.alloc.address()
    }

    /// A view of the whole buffer.
    pub fn as_slice(&self) -> BufferSlice<'_, T> {
        BufferSlice {
            device: &self.device,
            address: self.alloc.address(),
            host: self.alloc.host_ptr(),
            len: self.len,
            _t: PhantomData,
        }
    }

    /// A mutable view of the whole buffer.
    pub fn as_slice_mut(&mut self) -> BufferSliceMut<'_, T> {
        BufferSliceMut {
            device: &self.device,
            address: self.alloc.address(),
            host: self.alloc.host_ptr(),
            len: self.len,
            _t: PhantomData,
        }
    }

    /// A view of `range`; an error if it does not lie inside the buffer.
    pub fn slice(&self, range: impl RangeBounds<usize>) -> Result<BufferSlice<'_, T>> {
        self.as_slice().into_slice(range)
    }

    /// A mutable view of `range`; an error if it does not lie inside the buffer.
    pub fn slice_mut(&mut self, range: impl RangeBounds<usize>) -> Result<BufferSliceMut<'_, T>> {
        self.as_slice_mut().into_slice_mut(range)
    }

    /// Overwrites the buffer with `data` (lengths must be equal).
    pub fn upload(&mut self, data: &[T]) -> Result<()> {
        self.as_slice_mut().upload(data)
    }

    /// Copies the buffer into `out` (lengths must be equal).
    pub fn download(&self, out: &mut [T]) -> Result<()> {
        self.as_slice().download(out)
    }

    /// The buffer's contents as a vector.
    pub fn to_vec(&self) -> Result<Vec<T>> {
        self.as_slice().to_vec()
    }

    /// The buffer's contents as a 1-D array.
    pub fn to_array1(&self) -> Result<Array1<T>> {
        Ok(Array1::from_vec(self.to_vec()?))
    }

    /// Reads a `rows × cols` column-major matrix with leading dimension `ld`.
    pub fn to_matrix(&self, rows: usize, cols: usize, ld: usize) -> Result<Array2<T>> {
        unpack_col_major(&self.to_vec()?, rows, cols, ld)
    }

    /// Sets every element to zero.
    pub fn fill_zero(&mut self) -> Result<()> {
        self.as_slice_mut().fill_zero()
    }

    /// Host access on devices whose memory is host memory (the CPU); `None` elsewhere.
    pub fn as_host(&self) -> Option<&[T]> {
        self.as_slice().into_host()
    }

    /// Mutable host access on the CPU device; `None` elsewhere.
    pub fn as_host_mut(&mut self) -> Option<&mut [T]> {
        self.as_slice_mut().into_host_mut()
    }
}

/// A borrowed range of a device buffer.
#[derive(Debug, Clone, Copy)]
pub struct BufferSlice<'a, T: Element> {
    device: &'a Device,
    address: u64,
    host: Option<*mut u8>,
    len: usize,
    _t: PhantomData<&'a [T]>,
}

// SAFETY: a BufferSlice is a shared borrow of device memory; it hands out only `&[T]`
// on the host, and T is Sync.
unsafe impl<T: Element> Send for BufferSlice<'_, T> {}
// SAFETY: as above.
unsafe impl<T: Element> Sync for BufferSlice<'_, T> {}

/// A mutably borrowed range of a device buffer.
#[derive(Debug)]
pub struct BufferSliceMut<'a, T: Element> {
    device: &'a Device,
    address: u64,
    host: Option<*mut u8>,
    len: usize,
    _t: PhantomData<&'a mut [T]>,
}

// SAFETY: a BufferSliceMut is a unique borrow of device memory, like `&mut [T]`.
unsafe impl<T: Element> Send for BufferSliceMut<'_, T> {}
// SAFETY: as above; through `&BufferSliceMut` only shared access is possible.
unsafe impl<T: Element> Sync for BufferSliceMut<'_, T> {}

impl<'a, T: Element> BufferSlice<'a, T> {
    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    pub fn device(&self) -> &'a Device {
        self.device
    }

    /// The device address of the first element.
    pub fn address(&self) -> u64 {
        self.address
    }

    /// A sub-view; an error if `range` does not lie inside this view.
    pub fn slice(&self, range: impl RangeBounds<usize>) -> Result<BufferSlice<'a, T>> {
        self.into_slice(range)
    }

    fn into_slice(self, range: impl RangeBounds<usize>) -> Result<BufferSlice<'a, T>> {
        let (start, len) = resolve_range(range, self.len, "slice")?;
        let off = start * std::mem::size_of::<T>();
        Ok(BufferSlice {
            device: self.device,
            address: self.address + off as u64,
            // In bounds: start <= self.len.
            host: self.host.map(|p| p.wrapping_add(off)),
            len,
            _t: PhantomData,
        })
    }

    /// Copies the view into `out` on the device's default stream (lengths must be equal).
    pub fn download(&self, out: &mut [T]) -> Result<()> {
        self.download_on(self.device.default_stream(), out)
    }

    /// Copies the view into `out`, ordered on `stream`; returns when `out` is filled.
    pub fn download_on(&self, stream: &Stream, out: &mut [T]) -> Result<()> {
        check_len("destination", self.len, out.len())?;
        self.device.check_stream(stream)?;
        if out.is_empty() {
            return Ok(());
        }
        self.device
            .backend()
            .read(stream.raw(), self.address, bytemuck::cast_slice_mut(out))
    }

    /// The view's contents as a vector.
    pub fn to_vec(&self) -> Result<Vec<T>> {
        let mut v = vec![T::default(); self.len];
        self.download(&mut v)?;
        Ok(v)
    }

    /// Host access on the CPU device; `None` elsewhere.
    pub fn as_host(&self) -> Option<&'a [T]> {
        self.into_host()
    }

    fn into_host(self) -> Option<&'a [T]> {
        let p = self.host?;
        if self.len == 0 {
            return Some(&[]);
        }
        // SAFETY: `p` points at `len` initialised (zeroed at allocation, T: Pod) elements
        // of host memory that the buffer owns and that is shared-borrowed for 'a; CPU
        // allocations are 64-byte aligned and offsets are multiples of size_of::<T>().
        Some(unsafe { std::slice::from_raw_parts(p as *const T, self.len) })
    }
}

impl<'a, T: Element> BufferSliceMut<'a, T> {
    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    pub fn device(&self) -> &'a Device {
        self.device
    }

    /// The device address of the first element.
    pub fn address(&self) -> u64 {
        self.address
    }

    /// A shared view of the same range.
    pub fn as_slice(&self) -> BufferSlice<'_, T> {
        BufferSlice {
            device: self.device,
            address: self.address,
            host: self.host,
            len: self.len,
            _t: PhantomData,
        }
    }

    /// Reborrows for a shorter lifetime.
    pub fn reborrow(&mut self) -> BufferSliceMut<'_, T> {
        BufferSliceMut {
            device: self.device,
            address: self.address,
            host: self.host,
            len: self.len,
            _t: PhantomData,
        }
    }

    /// A mutable sub-view; an error if `range` does not lie inside this view.
    pub fn slice_mut(&mut self, range: impl RangeBounds<usize>) -> Result<BufferSliceMut<'_, T>> {
        self.reborrow().into_slice_mut(range)
    }

    fn into_slice_mut(self, range: impl RangeBounds<usize>) -> Result<BufferSliceMut<'a, T>> {
        let (start, len) = resolve_range(range, self.len, "slice")?;
        let off = start * std::mem::size_of::<T>();
        Ok(BufferSliceMut {
            device: self.device,
            address: self.address + off as u64,
            host: self.host.map(|p| p.wrapping_add(off)),
            len,
            _t: PhantomData,
        })
    }

    /// Splits into two disjoint mutable views at `mid`.
    pub fn split_at_mut(
        self,
        mid: usize,
    ) -> Result<(BufferSliceMut<'a, T>, BufferSliceMut<'a, T>)> {
        if mid > self.len {
            return Err(Error::OutOfBounds {
                what: format!("split at {mid} of a view of {} elements", self.len),
            });
        }
        let off = mid * std::mem::size_of::<T>();
        let tail = BufferSliceMut {
            device: self.device,
            address: self.address + off as u64,
            host: self.host.map(|p| p.wrapping_add(off)),
            len: self.len - mid,
            _t: PhantomData,
        };
        let head = BufferSliceMut { len: mid, ..self };
        Ok((head, tail))
    }

    /// Overwrites the view with `data` (lengths must be equal).
    pub fn upload(&mut self, data: &[T]) -> Result<()> {
        self.upload_on(self.device.default_stream(), data)
    }

    /// Overwrites the view with `data`, ordered on `stream`; returns when `data` may be
    /// reused.
    pub fn upload_on(&mut self, stream: &Stream, data: &[T]) -> Result<()> {
        check_len("source", self.len, data.len())?;
        self.device.check_stream(stream)?;
        if data.is_empty() {
            return Ok(());
        }
        self.device
            .backend()
            .write(stream.raw(), self.address, bytemuck::cast_slice(data))
    }

    /// Copies the view into `out` (lengths must be equal).
    pub fn download(&self, out: &mut [T]) -> Result<()> {
        self.as_slice().download(out)
    }

    /// The view's contents as a vector.
    pub fn to_vec(&self) -> Result<Vec<T>> {
        self.as_slice().to_vec()
    }

    /// Device-to-device copy from `src` (same device, same length) on the default stream.
    pub fn copy_from(&mut self, src: &BufferSlice<'_, T>) -> Result<()> {
        self.copy_from_on(self.device.default_stream(), src)
    }

    /// Device-to-device copy from `src`, ordered on `stream`.
    pub fn copy_from_on(&mut self, stream: &Stream, src: &BufferSlice<'_, T>) -> Result<()> {
        check_len("source view", self.len, src.len)?;
        if src.device != self.device {
            return Err(Error::DeviceMismatch {
                what: "source view".into(),
                expected: self.device.id().into(),
                found: src.device.id().into(),
            });
        }
        self.device.check_stream(stream)?;
        if self.len == 0 {
            return Ok(());
        }
        self.device.backend().copy(
            stream.raw(),
            self.address,
            src.address,
            self.len * std::mem::size_of::<T>(),
        )
    }

    /// Sets every element to zero.
    pub fn fill_zero(&mut self) -> Result<()> {
        let stream = self.device.default_stream();
        if self.len == 0 {
            return Ok(());
        }
        self.device.backend().fill_bytes(
            stream.raw(),
            self.address,
            0,
            self.len * std::mem::size_of::<T>(),
        )
    }

    /// Host access on the CPU device; `None` elsewhere.
    pub fn as_host(&self) -> Option<&[T]> {
        self.as_slice().into_host()
    }

    /// Mutable host access on the CPU device; `None` elsewhere.
    pub fn as_host_mut(&mut self) -> Option<&mut [T]> {
        self.reborrow().into_host_mut()
    }

    fn into_host_mut(self) -> Option<&'a mut [T]> {
        let p = self.host?;
        if self.len == 0 {
            return Some(&mut []);
        }
        // SAFETY: as in `BufferSlice::into_host`, and the range is uniquely borrowed for
        // 'a, so no other reference to it exists.
        Some(unsafe { std::slice::from_raw_parts_mut(p as *mut T, self.len) })
    }
}

/// Packs a matrix column-major with leading dimension `ld` (`ld >= max(1, rows)`); the
/// `ld - rows` gap elements of each column are zero. Length `ld * cols`.
pub fn pack_col_major<T: Element>(a: ArrayView2<'_, T>, ld: usize) -> Result<Vec<T>> {
    let (rows, cols) = a.dim();
    if ld < rows.max(1) {
        return Err(Error::invalid(
            "ld",
            format!("must be >= max(1, rows) = {}, got {ld}", rows.max(1)),
        ));
    }
    let total = ld
        .checked_mul(cols)
        .ok_or_else(|| Error::invalid("ld", "ld * cols overflows"))?;
    let mut out = vec![T::default(); total];
    for j in 0..cols {
        for i in 0..rows {
            out[i + j * ld] = a[[i, j]];
        }
    }
    Ok(out)
}

/// Reads a `rows × cols` matrix stored column-major with leading dimension `ld`.
pub fn unpack_col_major<T: Element>(
    data: &[T],
    rows: usize,
    cols: usize,
    ld: usize,
) -> Result<Array2<T>> {
    if ld < rows.max(1) {
        return Err(Error::invalid(
            "ld",
            format!("must be >= max(1, rows) = {}, got {ld}", rows.max(1)),
        ));
    }
    // The last column needs only `rows` elements, as BLAS defines it.
    let needed = if cols == 0 || rows == 0 {
        0
    } else {
        ld * (cols - 1) + rows
    };
    if data.len() < needed {
        return Err(Error::OutOfBounds {
            what: format!(
                "a {rows}x{cols} matrix with ld {ld} needs {needed} elements, the data has {}",
                data.len()
            ),
        });
    }
    let mut out = Array2::from_elem((rows, cols).f(), T::default());
    for j in 0..cols {
        for i in 0..rows {
            out[[i, j]] = data[i + j * ld];
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use ndarray::array;
    use proptest::prelude::*;

    #[test]
    fn round_trip_and_views() {
        let dev = Device::cpu();
        let data: Vec<f32> = (0..100).map(|i| i as f32 * 0.5 - 3.0).collect();
        let mut b = DeviceBuffer::from_slice(&dev, &data).unwrap();
        assert_eq!(b.to_vec().unwrap(), data);
        assert_eq!(b.slice(10..20).unwrap().to_vec().unwrap(), &data[10..20]);
        b.slice_mut(90..).unwrap().upload(&[1.0; 10]).unwrap();
        assert_eq!(b.to_vec().unwrap()[95], 1.0);
        assert_eq!(b.as_host().unwrap()[3], data[3]);
    }

    #[test]
    fn out_of_range_views_and_size_mismatches_are_errors() {
        let dev = Device::cpu();
        let mut b = DeviceBuffer::<f64>::zeros(&dev, 8).unwrap();
        assert!(matches!(b.slice(4..9), Err(Error::OutOfBounds { .. })));
        #[allow(clippy::reversed_empty_ranges)]
        let reversed = 5..4;
        assert!(matches!(b.slice(reversed), Err(Error::OutOfBounds { .. })));
        assert!(b.slice(8..8).unwrap().is_empty());
        assert!(matches!(
            b.upload(&[1.0; 9]),
            Err(Error::InvalidArgument { .. })
        ));
        assert!(matches!(
            b.slice_mut(0..4).unwrap().upload(&[1.0; 5]),
            Err(Error::InvalidArgument { .. })
        ));
        let v = b.slice(2..6).unwrap();
        assert!(v.slice(0..5).is_err());
        let mut out = [0.0; 3];
        assert!(v.download(&mut out).is_err());
    }

    #[test]
    fn device_to_device_copy_and_split() {
        let dev = Device::cpu();
        let src = DeviceBuffer::from_slice(&dev, &[1i32, 2, 3, 4]).unwrap();
        let mut dst = DeviceBuffer::<i32>::zeros(&dev, 6).unwrap();
        let (mut head, mut tail) = dst.as_slice_mut().split_at_mut(2).unwrap();
        tail.copy_from(&src.as_slice()).unwrap();
        head.upload(&[9, 8]).unwrap();
        assert!(head.copy_from(&src.as_slice()).is_err());
        assert_eq!(dst.to_vec().unwrap(), vec![9, 8, 1, 2, 3, 4]);
        dst.fill_zero().unwrap();
        assert_eq!(dst.to_vec().unwrap(), vec![0; 6]);
    }

    #[test]
    fn matrices_with_leading_dimension() {
        let dev = Device::cpu();
        let a = array![[1.0f64, 2.0, 3.0], [4.0, 5.0, 6.0]];
        assert!(DeviceBuffer::from_matrix(&dev, a.view(), 1).is_err());
        let b = DeviceBuffer::from_matrix(&dev, a.view(), 4).unwrap();
        assert_eq!(
            b.to_vec().unwrap(),
            vec![1.0, 4.0, 0.0, 0.0, 2.0, 5.0, 0.0, 0.0, 3.0, 6.0, 0.0, 0.0]
        );
        assert_eq!(b.to_matrix(2, 3, 4).unwrap(), a);
        assert!(b.to_matrix(2, 4, 4).is_err());
    }

    #[test]
    fn zero_length_buffers() {
        let dev = Device::cpu();
        let mut b = DeviceBuffer::<u8>::zeros(&dev, 0).unwrap();
        assert!(b.to_vec().unwrap().is_empty());
        b.upload(&[]).unwrap();
        assert_eq!(b.as_host().unwrap().len(), 0);
    }

    proptest! {
        #[test]
        fn slices_read_what_was_written(
            data in prop::collection::vec(any::<i64>(), 0..300),
            a in 0usize..320,
            b in 0usize..320,
        ) {
            let dev = Device::cpu();
            let buf = DeviceBuffer::from_slice(&dev, &data).unwrap();
            let (lo, hi) = (a.min(b), a.max(b));
            match buf.slice(lo..hi) {
                Ok(v) => {
                    prop_assert!(hi <= data.len());
                    prop_assert_eq!(v.to_vec().unwrap(), &data[lo..hi]);
                }
                Err(_) => prop_assert!(hi > data.len()),
            }
        }

        #[test]
        fn col_major_round_trip(rows in 0usize..7, cols in 0usize..7, pad in 0usize..4) {
            let a = Array2::from_shape_fn((rows, cols), |(i, j)| (i * 10 + j) as f32 + 0.25);
            let ld = rows.max(1) + pad;
            let packed = pack_col_major(a.view(), ld).unwrap();
            prop_assert_eq!(packed.len(), ld * cols);
            prop_assert_eq!(unpack_col_major(&packed, rows, cols, ld).unwrap(), a);
        }
    }
}

#[cfg(test)]
mod copy_2d_tests {
    use crate::{Device, DeviceBuffer, Error};
    use proptest::prelude::*;

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(48))]
        /// A pitched copy moves exactly `height` rows of `width` bytes from `src` to `dst`
        /// (pitches at or above the width, odd sizes), on the CPU and an emulated device
        /// (the backends' row-by-row default), and leaves every other destination byte
        /// alone.
        #[test]
        fn copy_2d_moves_exactly_the_rows(
            width in 1usize..40,
            height in 1usize..9,
            src_pad in 0usize..7,
            dst_pad in 0usize..7,
            seed in any::<u64>(),
        ) {
            let (sp, dp) = (width + src_pad, width + dst_pad);
            let src: Vec<u8> = (0..sp * height)
                .map(|i| (seed.wrapping_mul(i as u64 + 1) >> 7) as u8)
                .collect();
            let fill = vec![0xA5u8; dp * height];
            for dev in [Device::cpu(), Device::open("emu:gfx90a").unwrap()] {
                let s = DeviceBuffer::from_slice(&dev, &src).unwrap();
                let d = DeviceBuffer::from_slice(&dev, &fill).unwrap();
                let stream = dev.default_stream();
                // SAFETY: both regions lie inside their buffers (rows up to `height`,
                // pitches as allocated) and are separate allocations.
                unsafe {
                    stream
                        .copy_2d_raw(d.address(), dp, s.address(), sp, width, height)
                        .unwrap()
                };
                let got = d.to_vec().unwrap();
                for r in 0..height {
                    for c in 0..dp {
                        let want = if c < width { src[r * sp + c] } else { 0xA5 };
                        prop_assert_eq!(got[r * dp + c], want, "row {} byte {}", r, c);
                    }
                }
            }
        }
    }

    #[test]
    fn copy_2d_rejects_a_pitch_below_the_width() {
        let dev = Device::cpu();
        let b = DeviceBuffer::<u8>::zeros(&dev, 64).unwrap();
        // SAFETY: refused before any byte moves.
        let r = unsafe {
            dev.default_stream()
                .copy_2d_raw(b.address(), 4, b.address() + 32, 8, 6, 2)
        };
        assert!(matches!(r, Err(Error::InvalidArgument { what, .. }) if what == "dst_pitch"));
    }
}
