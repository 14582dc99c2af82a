//! Streams (ordered queues of device work) and events (timestamps in a stream).

use crate::backend::{BackendEvent, BackendStream};
use crate::{Device, Result};
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

    /// Milliseconds from this event to `later`, waiting for `later` to complete.
    pub fn elapsed_ms(&self, later: &Event) -> Result<f32> {
        later.synchronize()?;
        self.inner.elapsed_ms(&*later.inner)
    }
}
