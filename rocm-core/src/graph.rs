//! Graphs: a stream's work captured once and replayed as one launch.
//!
//! [`Stream::capture`] runs a closure whose work on the stream is recorded instead of
//! run (CUDA graphs; the emulated devices record the same way); [`Graph::launch`]
//! replays it on any stream of the device. A replay reads and writes the same device
//! addresses as the captured calls, so the graph borrows everything the closure
//! borrowed: the buffers cannot be dropped, or written on the host, while the graph
//! lives. Operations that cannot be recorded (a synchronous host copy, a host wait, an
//! allocation outside the capturing stream) fail with [`crate::Error::NotCapturable`]
//! and end the capture.
//!
//! The CPU device queues nothing (every call runs where it is made), so its graph keeps
//! the closure itself and runs it again at every launch: code written for graphs runs
//! unchanged on the CPU, with the same results.

use crate::backend::{BackendGraph, CaptureMode};
use crate::{Device, Error, Result, Stream};
use std::fmt;
use std::sync::Mutex;

/// The captured calls of a CPU graph.
type Calls<'a> = Box<dyn FnMut(&Stream) -> Result<()> + Send + 'a>;

/// Captured work of one device, replayable while the buffers it uses (borrowed for
/// `'a`) live.
pub struct Graph<'a> {
    device: Device,
    recorded: Recorded<'a>,
}

enum Recorded<'a> {
    /// The device's own graph of the queued work.
    Queued(Box<dyn BackendGraph>),
    /// The closure, run again at every launch.
    Calls(Mutex<Calls<'a>>),
}

impl fmt::Debug for Graph<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut d = f.debug_struct("Graph");
        d.field("device", &self.device);
        match &self.recorded {
            Recorded::Queued(g) => d.field("graph", g),
            Recorded::Calls(_) => d.field("graph", &"captured calls"),
        };
        d.finish()
    }
}

impl Graph<'_> {
    /// Queues one replay of the captured work on `stream` (of the same device).
    pub fn launch(&self, stream: &Stream) -> Result<()> {
        self.device.check_stream(stream)?;
        match &self.recorded {
            Recorded::Queued(g) => g.launch(stream.raw()),
            Recorded::Calls(calls) => {
                let mut calls = calls.try_lock().map_err(|_| {
                    Error::invalid(
                        "graph",
                        "the graph is already running (a launch from inside it)",
                    )
                })?;
                (*calls)(stream)
            }
        }
    }

    /// Number of recorded operations (kernels, copies, memsets, allocations); a CPU
    /// graph counts its closure as one.
    pub fn nodes(&self) -> usize {
        match &self.recorded {
            Recorded::Queued(g) => g.nodes(),
            Recorded::Calls(_) => 1,
        }
    }

    pub fn device(&self) -> &Device {
        &self.device
    }
}

impl Stream {
    /// Records the work `f` queues on this stream into a [`Graph`] instead of running
    /// it. Everything `f` borrows stays borrowed by the graph. Buffers that `f`
    /// allocates must come from [`Stream::alloc`] on this stream. On the CPU device `f`
    /// is not run here but at every [`Graph::launch`].
    ///
    /// Errors: the device cannot capture (HIP answers `Unsupported`), another stream of
    /// the device is capturing, or an operation in `f` cannot be captured (its error is
    /// returned and the capture discarded).
    pub fn capture<'a, F>(&self, mut f: F) -> Result<Graph<'a>>
    where
        F: FnMut(&Stream) -> Result<()> + Send + 'a,
    {
        let backend = self.device().backend();
        let recorded = match backend.capture_mode() {
            CaptureMode::Calls => Recorded::Calls(Mutex::new(Box::new(f))),
            CaptureMode::Queue => {
                backend.begin_capture(self.raw())?;
                let ran = f(self);
                let graph = backend.end_capture(self.raw());
                ran?;
                Recorded::Queued(graph?)
            }
        };
        Ok(Graph {
            device: self.device().clone(),
            recorded,
        })
    }
}
