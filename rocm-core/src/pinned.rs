//! Page-locked host memory ([`PinnedBuffer`]) and asynchronous copies between it and
//! device memory.
//!
//! A GPU copies page-locked memory by DMA at the link's full rate and without blocking
//! the host; pageable memory has to be staged through page-locked chunks first. CPU and
//! emulated devices give plain aligned memory and copy synchronously.
//!
//! An asynchronous copy borrows the pinned buffer only for the call; the buffer then
//! remembers an event after the copy, and every host access waits for the copies that
//! conflict with it (a read waits for copies into the buffer, a write or drop for all),
//! so no host access can race the DMA.

use crate::backend::HostMemory;
use crate::memory::{BufferSlice, BufferSliceMut};
use crate::{Device, Element, Error, Event, Result, Stream};
use std::marker::PhantomData;
use std::sync::{Mutex, MutexGuard};

/// An asynchronous copy still using a pinned buffer: the event after it, and whether
/// it writes the buffer (device-to-host).
#[derive(Debug)]
struct Pending {
    done: Event,
    writes: bool,
}

/// `len` elements of `T` in page-locked host memory of one device.
#[derive(Debug)]
pub struct PinnedBuffer<T: Element> {
    device: Device,
    mem: Box<dyn HostMemory>,
    len: usize,
    pending: Mutex<Vec<Pending>>,
    _t: PhantomData<T>,
}

impl<T: Element> PinnedBuffer<T> {
    /// `len` zeros in page-locked memory of `device` (plain memory on the CPU and on
    /// emulated devices).
    pub fn zeros(device: &Device, len: usize) -> Result<Self> {
        let bytes = len.checked_mul(std::mem::size_of::<T>()).ok_or_else(|| {
            Error::invalid("len", format!("{len} elements overflow the address space"))
        })?;
        let mem = device.backend().alloc_host(bytes)?;
        if mem.bytes() < bytes || (mem.ptr() as usize) % std::mem::align_of::<T>() != 0 {
            return Err(Error::invalid(
                "host memory",
                format!("{} gave {} bytes at {:p}", device, mem.bytes(), mem.ptr()),
            ));
        }
        Ok(PinnedBuffer {
            device: device.clone(),
            mem,
            len,
            pending: Mutex::new(Vec::new()),
            _t: PhantomData,
        })
    }

    /// A pinned copy of `data`.
    pub fn from_slice(device: &Device, data: &[T]) -> Result<Self> {
        let mut b = Self::zeros(device, data.len())?;
        b.as_mut_slice()?.copy_from_slice(data);
        Ok(b)
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

    fn pending(&self) -> MutexGuard<'_, Vec<Pending>> {
        self.pending.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Waits for the copies that use the buffer (only those writing it when `writes_only`).
    fn wait(&self, writes_only: bool) -> Result<()> {
        let mut pending = self.pending();
        for p in pending.iter().filter(|p| p.writes || !writes_only) {
            p.done.synchronize()?;
        }
        pending.retain(|p| writes_only && !p.writes);
        Ok(())
    }

    /// Waits for every copy that uses the buffer.
    pub fn synchronize(&self) -> Result<()> {
        self.wait(false)
    }

    /// The elements, once the copies into the buffer are done.
    pub fn as_slice(&self) -> Result<&[T]> {
        self.wait(true)?;
        if self.len == 0 {
            return Ok(&[]);
        }
        // SAFETY: `mem` holds at least len·size_of::<T>() initialised bytes (zeroed at
        // allocation, T: Pod), aligned for T (checked in `zeros`); no copy writes them
        // now (waited above), and a new one needs `&mut self`.
        Ok(unsafe { std::slice::from_raw_parts(self.mem.ptr() as *const T, self.len) })
    }

    /// The elements for writing, once every copy using the buffer is done.
    pub fn as_mut_slice(&mut self) -> Result<&mut [T]> {
        self.wait(false)?;
        if self.len == 0 {
            return Ok(&mut []);
        }
        // SAFETY: as in `as_slice`, and no copy reads the memory any more either; the
        // unique borrow of `self` makes this the only reference.
        Ok(unsafe { std::slice::from_raw_parts_mut(self.mem.ptr() as *mut T, self.len) })
    }

    /// The elements as a vector.
    pub fn to_vec(&self) -> Result<Vec<T>> {
        Ok(self.as_slice()?.to_vec())
    }

    /// Notes a copy queued on `stream` that uses the buffer. A capturing stream runs
    /// nothing now, and its graph keeps the buffer borrowed while it lives.
    fn track(&self, stream: &Stream, writes: bool) -> Result<()> {
        if stream.is_capturing() {
            return Ok(());
        }
        let done = stream.record()?;
        self.pending().push(Pending { done, writes });
        Ok(())
    }

    fn check(&self, what: &str, stream: &Stream, view_device: &Device, need: usize) -> Result<()> {
        if &self.device != view_device {
            return Err(Error::DeviceMismatch {
                what: format!("pinned {what}"),
                expected: view_device.id().into(),
                found: self.device.id().into(),
            });
        }
        view_device.check_stream(stream)?;
        if self.len < need {
            return Err(Error::invalid(
                format!("pinned {what}"),
                format!("holds {} elements, the device view needs {need}", self.len),
            ));
        }
        Ok(())
    }
}

impl<T: Element> Drop for PinnedBuffer<T> {
    fn drop(&mut self) {
        // A failed wait means the device is lost; its copies will not touch the memory.
        let _ = self.wait(false);
    }
}

impl<T: Element> BufferSliceMut<'_, T> {
    /// Queues the copy of the first `self.len()` elements of `src` into this view on
    /// `stream` and returns (DMA from page-locked memory; synchronous on the CPU and
    /// emulated devices). Writing `src` on the host waits for the copy.
    ///
    /// Errors: `src` is shorter than the view or of another device.
    pub fn upload_async(&mut self, stream: &Stream, src: &PinnedBuffer<T>) -> Result<()> {
        src.check("source", stream, self.device(), self.len())?;
        let bytes = self.len() * std::mem::size_of::<T>();
        if bytes == 0 {
            return Ok(());
        }
        // SAFETY: the view's range lies in a live allocation (it borrows one); the source
        // holds `bytes` bytes of this device's host memory, which no host write touches
        // until the event recorded below has completed (`as_mut_slice` and drop wait).
        unsafe {
            self.device().backend().write_async(
                stream.raw(),
                self.address(),
                src.mem.ptr(),
                bytes,
            )?
        };
        src.track(stream, false)
    }
}

impl<T: Element> BufferSlice<'_, T> {
    /// Queues the copy of this view into the first `self.len()` elements of `dst` on
    /// `stream` and returns. Reading `dst` on the host waits for the copy.
    ///
    /// Errors: `dst` is shorter than the view (a too-small destination) or of another
    /// device.
    pub fn download_async(&self, stream: &Stream, dst: &mut PinnedBuffer<T>) -> Result<()> {
        dst.check("destination", stream, self.device(), self.len())?;
        let bytes = self.len() * std::mem::size_of::<T>();
        if bytes == 0 {
            return Ok(());
        }
        // Earlier copies out of `dst` must finish before the device overwrites it.
        dst.wait(false)?;
        // SAFETY: the view's range lies in a live allocation; `dst` holds `bytes` bytes
        // of this device's host memory, uniquely borrowed now, and every later host
        // access waits for the event recorded below.
        unsafe {
            self.device().backend().read_async(
                stream.raw(),
                self.address(),
                dst.mem.ptr(),
                bytes,
            )?
        };
        dst.track(stream, true)
    }
}
