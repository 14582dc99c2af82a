//! Graphs: a stream's work captured once and replayed as one launch.
//!
//! [`Stream::capture`] runs a closure whose work on the stream is recorded instead of
//! run (CUDA graphs); [`Graph::launch`] replays it on any stream of the device. A
//! replay reads and writes the same device addresses as the captured calls, so the
//! graph borrows everything the closure borrowed: the buffers cannot be dropped, or
//! written on the host, while the graph lives. Operations that cannot be recorded (a
//! synchronous host copy, a host wait, an allocation outside the capturing stream)
//! fail with [`crate::Error::NotCapturable`] and end the capture.

use crate::backend::BackendGraph;
use crate::{Device, Result, Stream};
use std::marker::PhantomData;

/// Captured work of one device, replayable while the buffers it uses (borrowed for
/// `'a`) live.
#[derive(Debug)]
pub struct Graph<'a> {
    device: Device,
    inner: Box<dyn BackendGraph>,
    _borrows: PhantomData<&'a ()>,
}

impl Graph<'_> {
    /// Queues one replay of the captured work on `stream` (of the same device).
    pub fn launch(&self, stream: &Stream) -> Result<()> {
        self.device.check_stream(stream)?;
        self.inner.launch(stream.raw())
    }

    /// Number of recorded operations (kernels, copies, memsets, allocations).
    pub fn nodes(&self) -> usize {
        self.inner.nodes()
    }

    pub fn device(&self) -> &Device {
        &self.device
    }
}

impl Stream {
    /// Records the work `f` queues on this stream into a [`Graph`] instead of running
    /// it. Everything `f` borrows stays borrowed by the graph. Buffers that `f`
    /// allocates must come from [`Stream::alloc`] on this stream.
    ///
    /// Errors: the device cannot capture (CPU and emulated devices answer
    /// `Unsupported`), another stream of the device is capturing, or an operation in
    /// `f` cannot be captured (its error is returned and the capture discarded).
    pub fn capture<'a, F>(&self, f: F) -> Result<Graph<'a>>
    where
        F: FnOnce(&Stream) -> Result<()> + 'a,
    {
        let backend = self.device().backend();
        backend.begin_capture(self.raw())?;
        let recorded = f(self);
        let graph = backend.end_capture(self.raw());
        recorded?;
        Ok(Graph {
            device: self.device().clone(),
            inner: graph?,
            _borrows: PhantomData,
        })
    }
}
