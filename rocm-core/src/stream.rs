//! Streams (ordered queues of device work) and events (timestamps in a stream).

use crate::backend::{BackendEvent, BackendStream};
use crate::{Device, DeviceBuffer, Element, Result};
use std::sync::Arc;

/// An ordered queue of work on one device.
#[derive(Debug, Clone)]
pub struct Stream {
    device: Device,
    inner: Arc<dyn BackendStream>,
}

impl Stream {
    pub(crate) fn from_raw(device: Device, inner: Arc<dyn BackendStream>) -> Self {
        Stream { device, inner }
    }

    pub(crate) fn raw(&self) -> &dyn BackendStream {
        &*self.inner
    }

    pub fn device(&self) -> &Device {
        &self.device
    }

    /// Blocks until all work queued so far is done.
    pub fn synchronize(&self) -> Result<()> {
        self.inner.synchronize()
    }

    /// Records an event after the work queued so far.
    pub fn record(&self) -> Result<Event> {
        Ok(Event {
            inner: self.inner.record_event()?,
        })
    }

    /// Pitched device-to-device copy ordered on this stream: `height` rows of `width`
    /// bytes, row `r` read at `src + r·src_pitch` and written at `dst + r·dst_pitch`
    /// (`cuMemcpy2DAsync` on CUDA, row by row elsewhere). Libraries use it to repack
    /// matrices whose leading dimension breaks a kernel's alignment rule.
    ///
    /// # Safety
    /// Every source and destination row must lie inside live allocations of this
    /// stream's device, and the two regions must not overlap. Only the pitches are
    /// checked here (each at least `width`).
    #[allow(clippy::too_many_arguments)]
    pub unsafe fn copy_2d_raw(
        &self,
        dst: u64,
        dst_pitch: usize,
        src: u64,
        src_pitch: usize,
        width: usize,
        height: usize,
    ) -> Result<()> {
        if width == 0 || height == 0 {
            return Ok(());
        }
        for (what, pitch) in [("dst_pitch", dst_pitch), ("src_pitch", src_pitch)] {
            if pitch < width {
                return Err(crate::Error::invalid(
                    what,
                    format!("{pitch} is below the row width of {width} bytes"),
                ));
            }
        }
        self.device
            .backend()
            .copy_2d(self.raw(), dst, dst_pitch, src, src_pitch, width, height)
    }

    /// Makes the work queued on this stream from now on wait for `event` (recorded on
    /// any stream of the same device), without waiting on the host where the device can.
    pub fn wait(&self, event: &Event) -> Result<()> {
        self.inner.wait_event(&*event.inner)
    }

    /// Whether the stream is recording a graph ([`Stream::capture`]).
    pub fn is_capturing(&self) -> bool {
        self.inner.is_capturing()
    }

    /// A zeroed buffer of `len` elements ordered on this stream: taken from the device's
    /// stream-ordered pool and zeroed on the stream, without waiting on the host.
    /// Work queued on this stream may use it at once; work on another stream must
    /// first wait for an event recorded here after this call. Its free on drop is
    /// ordered after all the device's work queued before the drop. Devices without a
    /// pool allocate as [`Device::alloc`] does.
    pub fn alloc<T: Element>(&self, len: usize) -> Result<DeviceBuffer<T>> {
        DeviceBuffer::zeros_on(self, len)
    }

    /// Whether two handles name the same queue.
    pub fn same_as(&self, other: &Stream) -> bool {
        Arc::ptr_eq(&self.inner, &other.inner)
    }
}

/// A recorded point in a stream.
#[derive(Debug)]
pub struct Event {
    inner: Box<dyn BackendEvent>,
}

impl Event {
    /// Blocks until the work before the event is done.
    pub fn synchronize(&self) -> Result<()> {
        self.inner.synchronize()
    }

    /// Whether the work before the event is done, without waiting.
    pub fn is_done(&self) -> Result<bool> {
        self.inner.query()
    }

    /// Milliseconds from this event to `later`, waiting for `later` to complete.
    pub fn elapsed_ms(&self, later: &Event) -> Result<f32> {
        later.synchronize()?;
        self.inner.elapsed_ms(&*later.inner)
    }
}
