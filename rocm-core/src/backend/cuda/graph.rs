//! CUDA graphs: a captured stream's work, instantiated once and launched as one
//! operation (`cuGraphLaunch`).

use super::ordering::{Ordering, RawBlock};
use super::{err, CudaStreamHandle};
use crate::backend::{downcast_stream, BackendGraph, BackendStream};
use crate::Result;
use cudarc::driver::{sys, CudaContext, CudaEvent};
use std::sync::{Arc, Mutex};

#[derive(Debug)]
pub(super) struct CudaGraph {
    graph: sys::CUgraph,
    exec: sys::CUgraphExec,
    nodes: usize,
    /// Recorded after each launch; waited for on drop, so the graph (and the memory
    /// its replays use) outlives every launch.
    launched: Mutex<Option<CudaEvent>>,
    /// Frees deferred while the graph was captured, done on drop.
    deferred: Mutex<Vec<RawBlock>>,
    ordering: Arc<Ordering>,
    ctx: Arc<CudaContext>,
}

// SAFETY: graph handles may be used from any thread once the context is bound; the
// driver synchronises launches of one executable graph.
unsafe impl Send for CudaGraph {}
// SAFETY: as above.
unsafe impl Sync for CudaGraph {}

impl CudaGraph {
    /// Instantiates `graph` (taking ownership of it).
    pub fn new(
        graph: sys::CUgraph,
        deferred: Vec<RawBlock>,
        ordering: Arc<Ordering>,
        ctx: Arc<CudaContext>,
    ) -> Result<Self> {
        let mut nodes = 0usize;
        // SAFETY: a null node array asks only for the count.
        let _ = unsafe { sys::cuGraphGetNodes(graph, std::ptr::null_mut(), &mut nodes) };
        let mut exec: sys::CUgraphExec = std::ptr::null_mut();
        // SAFETY: `graph` is a live graph; `exec` a valid out pointer.
        let code = unsafe { sys::cuGraphInstantiateWithFlags(&mut exec, graph, 0) };
        let out = CudaGraph {
            graph,
            exec,
            nodes,
            launched: Mutex::new(None),
            deferred: Mutex::new(deferred),
            ordering,
            ctx,
        };
        code.result()
            .map_err(|e| err("cuGraphInstantiateWithFlags", e))?;
        Ok(out)
    }
}

impl BackendGraph for CudaGraph {
    fn launch(&self, stream: &dyn BackendStream) -> Result<()> {
        let s = downcast_stream::<CudaStreamHandle>(stream, "a CUDA device")?;
        s.ready()?;
        // SAFETY: a live executable graph and a live stream of its context.
        unsafe { sys::cuGraphLaunch(self.exec, s.state.cu_stream()) }
            .result()
            .map_err(|e| err("cuGraphLaunch", e))?;
        let mut launched = self.launched.lock().unwrap_or_else(|p| p.into_inner());
        let event = match launched.take() {
            Some(e) => e,
            None => self
                .ctx
                .new_event(Some(sys::CUevent_flags::CU_EVENT_DISABLE_TIMING))
                .map_err(|e| err("cuEventCreate", e))?,
        };
        event
            .record(&s.state.stream)
            .map_err(|e| err("cuEventRecord", e))?;
        *launched = Some(event);
        Ok(())
    }

    fn nodes(&self) -> usize {
        self.nodes
    }
}

impl Drop for CudaGraph {
    fn drop(&mut self) {
        let launched = self.launched.get_mut().unwrap_or_else(|p| p.into_inner());
        if let Some(e) = launched.take() {
            let _ = e.synchronize();
        }
        if self.ctx.bind_to_thread().is_ok() {
            // SAFETY: created in `new`, destroyed once, after its last launch finished.
            unsafe {
                if !self.exec.is_null() {
                    let _ = sys::cuGraphExecDestroy(self.exec);
                }
                let _ = sys::cuGraphDestroy(self.graph);
            }
        }
        let deferred = std::mem::take(self.deferred.get_mut().unwrap_or_else(|p| p.into_inner()));
        self.ordering.release_all(deferred);
    }
}
